"""Run traces: every event of a run as one JSON object a line (JSON Lines), secrets left out.

`graphrt run --trace run.jsonl` writes one, and so does
`graph.run(subscribe=[TraceWriter("run.jsonl")])`. Each line holds the event's type
and its fields as JSON: errors as text, anything JSON cannot hold as its repr.
What looks like a secret is replaced by "[redacted]": values under keys such as
`apiKey`, `Authorization` or `password`, bearer tokens and `sk-...` keys in
text, passwords in URLs, and the values of environment variables whose names end in KEY, TOKEN,
SECRET or PASSWORD wherever they appear.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import threading
from pathlib import Path
from typing import Any, TextIO

from graphrt.base.errors import GraphError
from graphrt.base.jsvalue import UNDEFINED, escape_lone_surrogates
from graphrt.base.secrets import SECRET_KEY, hide_url_passwords
from graphrt.observe.events import Event, RunFinished

__all__ = ["REDACTED", "Redactor", "TraceWriter", "event_record"]

REDACTED = "[redacted]"

_SECRET_KEY = SECRET_KEY
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.IGNORECASE)
_SECRET_TEXT = re.compile(r"(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{16,}")
_MIN_SECRET_LENGTH = 8
_MAX_DEPTH = 64


class Redactor:
    """Turns values into JSON with secrets replaced; knows the environment's secrets when created."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        environ = os.environ if environ is None else environ
        values = {value for name, value in environ.items() if _SECRET_ENV.search(name) and len(value) >= _MIN_SECRET_LENGTH}
        self._env_secrets = sorted(values, key=len, reverse=True)

    def text(self, text: str) -> str:
        for secret in self._env_secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return hide_url_passwords(_SECRET_TEXT.sub(REDACTED, text), REDACTED)

    def value(self, value: Any, depth: int = 0) -> Any:
        """`value` as JSON data: keys that name secrets have their values replaced."""
        if value is None or isinstance(value, (bool, int)):
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, float):
            return value if math.isfinite(value) else None
        if value is UNDEFINED:
            return None
        if isinstance(value, BaseException):
            return self.text(f"{type(value).__name__}: {value}")
        if depth >= _MAX_DEPTH:
            return "[too deep]"
        if isinstance(value, dict):
            return {
                str(key): REDACTED if _SECRET_KEY.search(str(key)) else self.value(item, depth + 1)
                for key, item in value.items()
                if item is not UNDEFINED
            }
        if isinstance(value, (list, tuple)):
            return [self.value(item, depth + 1) for item in value]
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return self.value({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, depth + 1)
        return self.text(repr(value))


def event_record(event: Event, redactor: Redactor | None = None) -> dict[str, Any]:
    """An event as a JSON object: `{"type": "NodeCompleted", "run_id": ..., "node_id": ..., ...}`."""
    redactor = redactor or Redactor()
    record: dict[str, Any] = {"type": type(event).__name__}
    for field in dataclasses.fields(event):
        record[field.name] = redactor.value(getattr(event, field.name))
    return record


class TraceWriter:
    """A subscriber that writes every event to a JSON Lines file (or an open text file).

    Usable as a context manager; `close()` closes a file it opened. It can be
    called from worker threads (sync agents report from there).
    """

    def __init__(self, file: str | Path | TextIO, *, redactor: Redactor | None = None) -> None:
        self._owns = isinstance(file, (str, Path))
        try:
            self._file: TextIO = open(file, "w", encoding="utf-8") if self._owns else file  # noqa: SIM115
        except OSError as error:  # a folder, a missing folder, no permission
            raise GraphError(f"cannot write the trace to {file}: {error.strerror or error}") from None
        self._redactor = redactor or Redactor()
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        try:
            line = escape_lone_surrogates(json.dumps(event_record(event, self._redactor), ensure_ascii=False))
        except ValueError as error:  # an integer longer than Python writes
            line = json.dumps({"type": type(event).__name__, "error": f"event not written: {error}"})
        with self._lock:
            self._file.write(line + "\n")
            if isinstance(event, RunFinished) and not event.path:
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._owns:
                self._file.close()
            else:
                self._file.flush()

    def __enter__(self) -> "TraceWriter":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
