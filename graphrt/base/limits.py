"""Limits on values that come in from outside: a request body, an MCP tool's arguments, an answer.

Past a limit, a caller gets an `InputLimitError` that says which limit and where,
never a RecursionError, a 500 or a hang further in:

- JSON nested deeper than `MAX_DEPTH` levels (Python's own parser gives up near
  1,000, and every later pass over such a value, the checkpoint's and the
  redactor's included, would have to handle it);
- integers longer than Python converts to text (`sys.get_int_max_str_digits()`,
  4,300 digits), which JSON parsing refuses;
- text that is not Unicode a UTF-8 answer can carry (a lone surrogate, `"\\ud800"`).

`shown(value)` is how a value is quoted in an error: at most `MAX_SHOWN`
characters, so that an error about a megabyte argument is not a megabyte long;
`cut(message)` shortens a message made elsewhere (a JSON Schema library's) the same way.
Every check is one pass over the value, without recursion.

`read_file` reads a file a user names (a graph, a config) as a file only: a FIFO,
a socket or a device (`/dev/zero`) is refused without waiting on it, a file past a
size is refused before it fills memory, and one that must stay inside a folder is
checked where it really is once opened (a symlink swapped in cannot lead out).
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

from graphrt.base.errors import InputLimitError

__all__ = ["MAX_BODY", "MAX_CONNECTIONS", "MAX_DEPTH", "MAX_ITEMS", "MAX_SHOWN", "MAX_STREAMS", "check_value", "cut",
           "parse_json", "read_file", "shown"]

MAX_DEPTH = 100
"""How deep a value from outside may nest (objects and arrays), a graph file's included, as GraphAI graphs never
need more: far more than any graph needs, far less than Python's stack."""

MAX_ITEMS = 1_000_000
"""The most items an agent makes one array or object of from a count or a text (JavaScript would try, and
take minutes and gigabytes): `new Array(count)`, or the properties of a string, one per character."""

MAX_SHOWN = 200
"""The most characters of a value an error quotes."""

MAX_CONNECTIONS = 1024
"""Connections a server (graphrt serve, graphrt mcp --http) holds open at once; past it a new one gets 503."""

MAX_STREAMS = 256
"""Event streams (SSE readers) graphrt serve holds open at once, each with a connection and a file descriptor:
past it a reader gets 503, never a hung server."""

MAX_BODY = 1024 * 1024
"""Bytes of a request body a server (graphrt serve, graphrt mcp --http) reads; past it the request gets 413."""


def shown(value: Any, limit: int = MAX_SHOWN) -> str:
    """`value` as an error quotes it: its repr, cut to `limit` characters with what was left out said."""
    if isinstance(value, (dict, list)):
        return f"<{type(value).__name__} of {len(value)}>"
    if isinstance(value, int) and value.bit_length() > 3 * limit:  # repr may not even write it (4,300 digits)
        return f"<an integer of about {int(value.bit_length() * 0.30103):,} digits>"
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return repr(text) if isinstance(value, str) else text
    return repr(text[:limit]) + f"... ({len(text) - limit:,} more characters)"


def cut(text: str, limit: int = 20 * MAX_SHOWN) -> str:
    """A message of about `limit` characters at most, one that quotes a huge value: its start and its end
    (where a library's message says what is wrong with the value it quoted), and how much was left out."""
    if len(text) <= limit:
        return text
    tail = min(MAX_SHOWN // 2, limit // 4)
    return f"{text[:limit - tail]} ... ({len(text) - limit:,} characters left out) ... {text[-tail:]}"


def check_value(value: Any, what: str, *, max_depth: int = MAX_DEPTH) -> None:
    """Raises InputLimitError if `value` (JSON data) nests deeper than `max_depth` or holds a lone surrogate."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item, what)
        elif isinstance(item, (dict, list, tuple)):
            if depth >= max_depth:
                raise InputLimitError(f"{what} is nested more than {max_depth} levels deep")
            if isinstance(item, dict):
                for key, child in item.items():
                    if isinstance(key, str):
                        _check_text(key, what)
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)


def _check_text(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InputLimitError(f"{what} holds text that is not Unicode (a lone surrogate, "
                              f"{text[error.start]!r} at character {error.start})") from None


def parse_json(text: str | bytes, what: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of `text`, checked by check_value.

    Raises:
        InputLimitError: not JSON, nested too deep, an integer too long, or a lone surrogate.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise InputLimitError(f"{what} is nested more than {max_depth} levels deep") from None
    except UnicodeDecodeError as error:
        raise InputLimitError(f"{what} is not UTF-8 text: byte {error.start}") from None
    except ValueError as error:  # a syntax error, or an integer past Python's digit limit
        raise InputLimitError(f"{what} is not JSON: {shown(str(error).split(';')[0])[1:-1]}") from None
    check_value(value, what, max_depth=max_depth)
    return value


def read_file(path: str | Path, *, max_bytes: int, root: Path | None = None) -> bytes:
    """The bytes of a regular file of at most `max_bytes`, whose real path is inside `root` when one is given.

    Raises:
        OSError: it cannot be opened or read (a folder: IsADirectoryError).
        InputLimitError: not a regular file, bigger than `max_bytes`, or outside `root`.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise InputLimitError("not a regular file (a FIFO, socket or device)")
        if root is not None and not _real_path(descriptor, Path(path)).is_relative_to(root):
            raise InputLimitError(f"it leads outside its folder {root}")
        chunks, size = [], 0
        while chunk := os.read(descriptor, 1024 * 1024):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise InputLimitError(f"it is over {max_bytes:,} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _real_path(descriptor: int, path: Path) -> Path:
    """The real path of an open file: what the kernel opened, so no symlink swapped in meanwhile can hide."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{descriptor}"))
    except OSError:  # no /proc (macOS): the path as it resolves now
        return path.resolve()
