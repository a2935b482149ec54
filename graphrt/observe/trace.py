"""Run traces: every event of a run as one JSON object a line (JSON Lines), secrets left out.

`graphrt run --trace run.jsonl` writes one, and so does
`graph.run(subscribe=[TraceWriter("run.jsonl")])`. Each line holds the event's type
and its fields as JSON: errors as text, anything JSON cannot hold as its repr.
Credentials are hidden as graphrt.base.secrets' Redactor hides them: values under
keys such as `apiKey`, `Authorization` or `password`; passwords and tokens in URLs,
bearer tokens and `sk-...` keys in text; and the values of environment variables
whose names end in KEY, TOKEN, SECRET or PASSWORD, wherever they appear; in a node's
streamed tokens, one cut across tokens too (graphrt.observe.streamed_text).
"""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path
from typing import Any, TextIO

from graphrt.base.errors import GraphError
from graphrt.base.jsvalue import escape_lone_surrogates
from graphrt.base.secrets import Redactor
from graphrt.observe.events import Event, RunFinished
from graphrt.observe.streamed_text import StreamedText

__all__ = ["TraceWriter", "event_record"]


_FIELDS: dict[type, tuple[str, ...]] = {}  # an event class's field names, looked up once per class


def event_record(event: Event, redactor: Redactor | None = None) -> dict[str, Any]:
    """An event as a JSON object: `{"type": "NodeCompleted", "run_id": ..., "node_id": ..., ...}`."""
    redactor = redactor or Redactor()
    kind = type(event)
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(field.name for field in dataclasses.fields(event))
    record: dict[str, Any] = {"type": kind.__name__}
    value = redactor.value
    for name in names:
        record[name] = value(getattr(event, name))
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
        self._streamed = StreamedText(self._redactor)
        self._lock = threading.Lock()
        self._name = str(file) if self._owns else getattr(file, "name", "the trace")
        self.failure: OSError | None = None  # the first write that failed (a full disk); close() raises it

    def __call__(self, event: Event) -> None:
        with self._lock:  # a node's tokens in their order, each line whole
            for shown in self._streamed.events(event):
                self._write(shown)

    def _write(self, event: Event) -> None:
        """One line, under the lock."""
        try:
            line = escape_lone_surrogates(json.dumps(event_record(event, self._redactor), ensure_ascii=False))
        except ValueError as error:  # an integer longer than Python writes
            line = json.dumps({"type": type(event).__name__, "error": f"event not written: {error}"})
        if self.failure is not None:
            return
        try:
            self._file.write(line + "\n")
            if isinstance(event, RunFinished) and not event.path:
                self._file.flush()
        except OSError as error:  # the disk is full, the file went away: the run goes on, close() says so
            self.failure = error

    def close(self) -> None:
        """Closes (or flushes) the file. Raises GraphError if a write failed: a trace with lines missing."""
        with self._lock:
            try:
                if self._owns:
                    self._file.close()
                else:
                    self._file.flush()
            except OSError as error:
                self.failure = self.failure or error
            if self.failure is not None:
                raise GraphError(f"cannot write the trace to {self._name}: "
                                 f"{self.failure.strerror or self.failure}; it is incomplete")

    def __enter__(self) -> "TraceWriter":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
