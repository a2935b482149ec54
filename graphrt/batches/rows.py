"""A batch's input rows: one run per row, each row the values its run injects into static nodes.

    {"question": "Who designed the Eiffel Tower?"}            row 1 (its line number)
    {"id": "q2", "question": "When did Apollo 11 land?"}      row "q2" with `id_field="id"`

Rows come from a JSONL file (one JSON object a line; blank lines do not count),
from an open text stream of JSONL (stdin: `graphrt batch GRAPH -`), or from any
iterable of mappings. Each row has an id, stable from one run of the
batch to the next, which names its saved run (`ledger.py`) and its output line:
the row's line number in the file (its position, from 1, in an iterable), or
the value of its `id_field`. A line that is not a JSON object is a row too, with
the error that says where: it fails alone, and the other rows run.

Each line is decoded on its own, so a line that is not UTF-8 (one latin-1 byte)
is that row's failure, not the file's; a UTF-8 byte order mark is skipped. What
stops the reading is only what leaves no next line to find: a file of UTF-16 or
UTF-32 text (its byte order mark says so), a line longer than `MAX_ROW_BYTES`
(`/dev/zero` has no line end), or a read that fails; the rows before it still run.
"""

from __future__ import annotations

import codecs
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, TextIO

from graphrt.base.errors import GraphLoadError, Location

__all__ = ["InputRow", "MAX_ROW_BYTES", "StreamRows", "count_rows", "read_rows", "rows_of", "stream_rows"]

MAX_ROW_BYTES = 64 * 1024 * 1024
"""The longest line a row may be: past it the reading stops (a file with no line ends, `/dev/zero`,
would otherwise fill memory), and the rows before it still run."""

_WIDE_TEXT = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),  # UTF-32's LE mark starts as UTF-16's
              (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


@dataclass(frozen=True)
class InputRow:
    """One row of a batch: its id, its place in the input, and what its run injects (or why it cannot run)."""

    id: str | int
    index: int  # 0-based position among the rows: the output's order
    inject: dict[str, Any] = field(default_factory=dict)
    error: GraphLoadError | None = None  # the row cannot be read: it fails with this, without running
    location: Location | None = None  # the line it was read from
    id_field: str | None = None  # the field its id was read from (None: its id is its line number)


def rows_of(rows: Iterable[Mapping[str, Any]] | str | Path | TextIO, *,
            id_field: str | None = None) -> Iterator[InputRow]:
    """The rows of a JSONL file (a path), of an open JSONL text stream, or of an iterable of mappings, in order."""
    if isinstance(rows, (str, Path)):
        return read_rows(rows, id_field=id_field)
    if hasattr(rows, "readline"):
        return stream_rows(rows, id_field=id_field)  # type: ignore[arg-type]
    return _given_rows(rows, id_field)  # type: ignore[arg-type]


def stream_rows(stream: TextIO, *, id_field: str | None = None) -> Iterator[InputRow]:
    """The rows of JSONL read from an open text stream as they arrive (stdin); the stream is left open.

    Errors and ids are placed by the stream's `name` (`<stdin>`) and line, as for a file.
    """
    name = getattr(stream, "name", None)
    binary = getattr(stream, "buffer", None)  # stdin's bytes: each line decoded on its own, as a file's
    source = binary if binary is not None else stream
    return StreamRows(_lines_rows(source, name if isinstance(name, str) else "<stream>", id_field))


class StreamRows(Iterator[InputRow]):
    """Rows from a stream whose next line may be long in coming (a pipe): `Batch` takes them on a thread."""

    blocks = True  # taking the next row may wait for its writer: never on the event loop

    def __init__(self, rows: Iterator[InputRow]) -> None:
        self._rows = rows

    def __next__(self) -> InputRow:
        return next(self._rows)


def read_rows(path: str | Path, *, id_field: str | None = None) -> Iterator[InputRow]:
    """The rows of a JSONL file, read as they are needed (a file of millions of rows is never held whole).

    Raises:
        GraphLoadError: the file cannot be opened (a bad line is a row with an error instead).
    """
    name = str(path)
    try:
        file = open(path, "rb")
    except OSError as error:
        raise GraphLoadError(f"cannot read the batch's rows: {error.strerror or error}", location=Location(name)) from None
    return _file_rows(file, name, id_field)


def count_rows(path: str | Path) -> int | None:
    """How many rows a JSONL file has (its lines that are not blank), read fast, for the progress line's total.

    None for what is not a regular file (a pipe, `/dev/stdin`, a device): it can be read only once, or never ends.
    """
    with open(path, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        count = 0
        while line := file.readline(MAX_ROW_BYTES + 1):
            count += bool(line.strip())
        return count


def _file_rows(file: Any, name: str, id_field: str | None) -> Iterator[InputRow]:
    with file:
        yield from _lines_rows(file, name, id_field)


def _lines_rows(file: Any, name: str, id_field: str | None) -> Iterator[InputRow]:
    """The rows of a file's lines: bytes, each line decoded on its own (a text stream's lines are taken as they are).

    Raises:
        GraphLoadError: the reading cannot go on (wide text, a line past MAX_ROW_BYTES, a failed read).
    """
    index = 0
    line_number = 0
    while True:
        try:
            line = file.readline(MAX_ROW_BYTES + 1)
        except OSError as error:
            raise GraphLoadError(f"cannot read the batch's rows after line {line_number}: {error.strerror or error}",
                                 location=Location(name, line_number + 1)) from None
        if not line:
            return
        line_number += 1
        location = Location(name, line_number)
        if len(line) > MAX_ROW_BYTES:
            raise GraphLoadError(f"line {line_number} is longer than {MAX_ROW_BYTES // (1024 * 1024)} MiB, the most "
                                 "a row may be (is this a JSONL file?)"
                                 f"{'; the rows before it ran' if line_number > 1 else ''}", location=location)
        if isinstance(line, bytes):
            if line_number == 1:
                line = _first_line(line, name)
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as error:
                column = len(line[:error.start].decode("utf-8", "replace")) + 1
                yield _bad_row(line_number, index, location, f"not UTF-8 text ({error.reason} at byte "
                               f"{error.start + 1} of the line): save the file as UTF-8", column)
                index += 1
                continue
        if not line.strip():
            continue
        try:
            values = json.loads(line)
        except ValueError as error:
            column = getattr(error, "colno", None)
            hint = " (it holds NUL characters: UTF-16 text? save the file as UTF-8)" if "\0" in line else ""
            yield _bad_row(line_number, index, location,
                           f"not a JSON object: {getattr(error, 'msg', error)}{hint}", column)
        except RecursionError:
            yield _bad_row(line_number, index, location, "the row is nested too deeply to read")
        else:
            yield _row(values, line_number, index, id_field, location)
        index += 1


def _first_line(line: bytes, name: str) -> bytes:
    """The first line without a UTF-8 byte order mark.

    Raises:
        GraphLoadError: the file is UTF-16 or UTF-32 text, whose lines cannot be read as UTF-8 at all.
    """
    if line.startswith(codecs.BOM_UTF8):
        return line[len(codecs.BOM_UTF8):]
    for mark, encoding in _WIDE_TEXT:
        if line.startswith(mark):
            raise GraphLoadError(f"the rows are {encoding} text, not UTF-8: save the file as UTF-8",
                                 location=Location(name, 1))
    return line


def _given_rows(rows: Iterable[Mapping[str, Any]], id_field: str | None) -> Iterator[InputRow]:
    for index, values in enumerate(rows):
        yield _row(values, index + 1, index, id_field, None)


def _row(values: Any, default_id: int, index: int, id_field: str | None, location: Location | None) -> InputRow:
    if not isinstance(values, Mapping):
        return _bad_row(default_id, index, location,
                        f"a row must be a JSON object of node ids and values, not {_kind(values)}")
    inject = dict(values)
    if id_field is None:
        return InputRow(default_id, index, inject, location=location)
    row_id = inject.pop(id_field, None)
    if not isinstance(row_id, (str, int)) or isinstance(row_id, bool) or row_id == "":
        return _bad_row(default_id, index, location, f"the row has no {id_field!r} (its id): "
                        f"{'it is missing' if row_id is None else f'it is {_kind(row_id)}, not a string or integer'}")
    return InputRow(row_id, index, inject, location=location, id_field=id_field)


def _bad_row(row_id: int, index: int, location: Location | None, message: str, column: int | None = None) -> InputRow:
    if location is not None and column is not None:
        location = Location(location.file, location.line, column)
    return InputRow(row_id, index, error=GraphLoadError(message, location=location), location=location)


def _kind(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number",
             type(None): "null", dict: "an object"}
    return names.get(type(value), type(value).__name__)
