"""Reads graph files (YAML or JSON) and remembers where each key came from.

Parsing uses PyYAML's safe loader only: nothing in a graph file is ever turned
into a Python object other than plain data. Line numbers are worked out only
when an error needs them, so a valid file is parsed once.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, Union

from graphrt.base.collector import LARGE_TEXT, collector_paused
from graphrt.base.errors import GraphLoadError, InputLimitError, Location
from graphrt.base.frozen import Frozen
from graphrt.base.jsvalue import js_string
from graphrt.base.limits import MAX_DEPTH, read_file
from graphrt.graphdata.quick_yaml import quick_load

if TYPE_CHECKING:
    from graphrt.graphdata.positions import Positions

__all__ = ["MAX_GRAPH_FILE", "GraphFile", "GraphSource", "GraphLoader", "GraphText", "load_graph", "load_graph_beside",
           "load_with", "parse_graph_text", "read_graph_file"]

MAX_GRAPH_FILE = 64 * 1024 * 1024
"""The largest graph file read, in bytes: a bigger one (or `/dev/zero`) is an error, not all of memory."""


class GraphFile(Frozen):
    """A graph file that must be inside `root` when it is opened (a served folder, a graph's own folder).

    What is checked is the real path of the file opened, so a file replaced by a
    symlink that leads out of `root` after it was first seen is refused.
    """

    __slots__ = ("path", "root")
    path: Path
    root: Path | None

    def __init__(self, path: Path, root: Path | None = None) -> None:
        self._set(path=path, root=root)


LoadedGraph = Union[Mapping[str, Any], str, Path]
GraphLoader = Callable[[str, Any], Union[LoadedGraph, Awaitable[LoadedGraph]]]
"""GraphAI's `graphLoader` option: `loader(fileName, option)` -> GraphData (a dict, a path, or YAML/JSON text),
or an awaitable of one. `option` is the node's `graphLoader.option` (None when absent)."""

_GRAPH_SUFFIXES = (".yaml", ".yml", ".json")


class GraphSource:
    """Where a graph came from: a file, a text, or a dict built in Python.

    A plain class (with a dataclass's repr and equality): a dataclass's generated methods cost every command's
    start about a millisecond (base/frozen.py).
    """

    __slots__ = ("file", "text", "prefix", "_positions", "root")
    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass that compares is

    def __init__(self, file: str | None = None, text: str | None = None, prefix: tuple[str | int, ...] = (),
                 _positions: list[Positions] | None = None, root: Path | None = None) -> None:
        self.file = file
        self.text = text
        self.prefix = prefix
        # Where the text's keys are (positions.py), made when an error first needs one: a valid file never does.
        # One list, shared with the sources of the graphs written inside this one, which holds it once made.
        self._positions: list[Positions] = [] if _positions is None else _positions
        self.root = root  # for a graph loaded by graphLoader: the folder its files must stay in (the first graph's)

    def __repr__(self) -> str:
        return f"GraphSource(file={self.file!r}, text={self.text!r}, prefix={self.prefix!r}, root={self.root!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.file, self.text, self.prefix, self._positions, self.root) == (
            other.file, other.text, other.prefix, other._positions, other.root)  # type: ignore[attr-defined]

    def nested(self, *path: str | int) -> "GraphSource":
        """The source of a graph written inside this one, at `path` (e.g. a node's `graph`); it shares the positions."""
        return GraphSource(self.file, self.text, (*self.prefix, *path), self._positions, self.root)

    @property
    def folder(self) -> Path | None:
        return Path(self.file).resolve().parent if self.file else None

    def locate(self, *path: str | int) -> Location | None:
        """The file position of `nodes.<id>.<field>...`: the deepest key of the path found."""
        if self.text is None:
            return Location(self.file) if self.file else None
        if not self._positions:
            from graphrt.graphdata.positions import Positions  # on the first error only

            self._positions.append(Positions(self.text))
        mark = self._positions[0].locate((*self.prefix, *path))
        if mark is None:
            return Location(self.file)
        return Location(self.file, mark[0] + 1, mark[1] + 1)

    def locate_field(self, node_id: str | None, field: str | None) -> Location | None:
        """The file position of a node's dotted field (`inputs.list.0`), as issues name it; of the graph if no node."""
        path: list[str | int] = ["nodes", node_id] if node_id is not None else []
        if field:
            path.extend(int(part) if part.isascii() and part.isdigit() else part for part in field.split("."))
        return self.locate(*path)


def _json_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        from graphrt.graphdata.full_yaml import integer_too_long

        raise GraphLoadError(f"not valid YAML/JSON: {integer_too_long(text.lstrip('-'))}") from None


def parse_graph_text(text: str, file: str | None = None) -> tuple[dict[str, Any], GraphSource]:
    """Parses YAML or JSON text into GraphData.

    Raises:
        GraphLoadError: the text is not valid YAML/JSON or not a mapping.
    """
    with collector_paused(len(text) >= LARGE_TEXT):
        return _parse(text, file)


def _parse(text: str, file: str | None) -> tuple[dict[str, Any], GraphSource]:
    source = GraphSource(file=file, text=text)
    try:
        data = (json.loads(text, parse_int=_json_int) if text.lstrip().startswith("{") and (file or "").endswith(".json")
                else None)
    except json.JSONDecodeError as error:
        # JSON's own error carries the position; keep it out of the message, it goes in front.
        raise GraphLoadError(f"not valid YAML/JSON: {error.msg}", location=Location(file, error.lineno, error.colno)) from error
    except GraphLoadError as error:
        error.location = Location(file)
        raise
    except RecursionError:
        raise GraphLoadError(f"not valid YAML/JSON: nested more than {MAX_DEPTH} levels deep", location=Location(file)) from None
    if data is None:
        # The plain YAML most graph files are, several times faster and without importing PyYAML (the entries it
        # does not know read by PyYAML, all at once): its keys are text, no value holds itself and it is within
        # the limits _check_shape sets, or it is None.
        data = quick_load(text, max_depth=MAX_DEPTH, max_values=MAX_VALUES, full=_full_value)
        if isinstance(data, dict):
            return data, source
        from graphrt.graphdata import full_yaml

        data = full_yaml.load(text, file, max_depth=MAX_DEPTH)
    if not isinstance(data, dict):
        kind = "empty" if data is None else type(data).__name__
        raise GraphLoadError(f"a graph must be a mapping with 'nodes', got {kind}", location=Location(file, 1, 1))
    _check_shape(data, file)
    return _string_keys(data), source


def _full_value(text: str) -> Any:
    """PyYAML's value of the entries the quick reader leaves, all in one text; None where it fails."""
    from graphrt.graphdata import full_yaml

    return full_yaml.value_or_none(text)


MAX_VALUES = 1_000_000
"""Values in a graph once its YAML aliases are expanded, at most."""


def _check_shape(data: Any, file: str | None) -> None:
    """Refuses what YAML aliases or deep nesting can make of a small file.

    An alias can refer to a value that holds it (a loop no walk of the graph
    would leave), and aliases of aliases expand exponentially ("billion
    laughs"): a 1 kB file can stand for 10^9 values. Each list and mapping is
    visited once, however often aliases repeat it.

    Raises:
        GraphLoadError: a value holds itself, nesting is deeper than MAX_DEPTH, or
            the expanded graph has more than MAX_VALUES values.
    """
    sizes: dict[int, tuple[int, int]] = {}  # id -> (values inside, levels below), once visited
    on_path: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(data, 0, False)]
    while stack:
        value, depth, leaving = stack.pop()
        key = id(value)
        children = value.values() if isinstance(value, dict) else value
        if leaving:
            on_path.discard(key)
            size, height = 1, 0
            for child in children:
                child_size, child_height = sizes.get(id(child), (1, -1)) if isinstance(child, (dict, list)) else (1, -1)
                size += child_size
                height = max(height, child_height + 1)
            if size > MAX_VALUES:
                raise GraphLoadError(f"the graph expands to more than {MAX_VALUES:,} values (YAML aliases of aliases?)",
                                     location=Location(file))
            sizes[key] = (size, height)
            continue
        if key in on_path:
            raise GraphLoadError("a YAML alias refers to a value that contains it", location=Location(file))
        if key in sizes:
            if depth + sizes[key][1] > MAX_DEPTH:
                raise GraphLoadError(f"the graph is nested more than {MAX_DEPTH} levels deep", location=Location(file))
            continue
        if depth > MAX_DEPTH:
            raise GraphLoadError(f"the graph is nested more than {MAX_DEPTH} levels deep", location=Location(file))
        on_path.add(key)
        stack.append((value, depth, True))
        stack.extend((child, depth + 1, False) for child in children if isinstance(child, (dict, list)))


def _string_keys(value: Any) -> Any:
    """YAML keys as JavaScript has them: `1:` and `true:` are the keys "1" and "true" in GraphAI.

    Returns `value` itself when every key already is a string.
    """
    if isinstance(value, dict):
        changed = False
        items = []
        for key, item in value.items():
            new_key = key if isinstance(key, str) else js_string(key)
            new_item = _string_keys(item)
            changed = changed or new_key is not key or new_item is not item
            items.append((new_key, new_item))
        return dict(items) if changed else value
    if isinstance(value, list):
        items = [_string_keys(item) for item in value]
        return items if any(new is not old for new, old in zip(items, value, strict=True)) else value
    return value


def _looks_like_path(graph: str) -> bool:
    if "\n" in graph or graph.lstrip().startswith("{"):
        return False  # YAML or JSON text, however long (a path that long cannot even be tested)
    if graph.endswith(_GRAPH_SUFFIXES):
        return True
    try:
        return Path(graph).exists()
    except (OSError, ValueError):  # e.g. a name too long for the file system
        return False


class GraphText(Frozen):
    """A graph file's text read elsewhere, with the file's name: errors are placed in that file.

    What a Ray worker builds a batch row's graph from: the driver read the file, the worker may not have it.
    """

    __slots__ = ("text", "file")
    text: str
    file: str | None

    def __init__(self, text: str, file: str | None = None) -> None:
        self._set(text=text, file=file)


def read_graph_file(path: Path, root: Path | None = None) -> str:
    """The text of a graph file: a regular file (a FIFO or a device is refused without waiting on it) of at
    most MAX_GRAPH_FILE bytes, UTF-8, whose real path is inside `root` when one is given (base/limits.read_file).

    Raises:
        GraphLoadError: the file cannot be read, is no regular file, is too big, leads outside `root`, or is
            not UTF-8.
    """
    where = Location(str(path))
    try:
        data = read_file(path, max_bytes=MAX_GRAPH_FILE, root=root)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        raise GraphLoadError(f"cannot read graph file: {getattr(error, 'strerror', None) or error}",
                             location=where) from None
    except InputLimitError as error:
        raise GraphLoadError(f"cannot read graph file: {error}", location=where) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start]
        line = before.count(b"\n") + 1
        column = error.start - (before.rfind(b"\n") + 1) + 1
        raise GraphLoadError(f"not UTF-8 text: byte 0x{data[error.start]:02x} cannot be read "
                             "(save the file as UTF-8)", location=Location(str(path), line, column)) from None


def load_graph(graph: Mapping[str, Any] | str | Path | GraphFile | GraphText) -> tuple[dict[str, Any], GraphSource]:
    """GraphData from a dict, a path to a YAML/JSON file (a GraphFile: one that must stay inside its root),
    YAML/JSON text, or a GraphText.

    Raises:
        GraphLoadError: the file cannot be read or parsed.
    """
    if isinstance(graph, GraphText):
        return parse_graph_text(graph.text, file=graph.file)
    if isinstance(graph, Mapping):
        return dict(graph), GraphSource()
    if isinstance(graph, GraphFile):
        return parse_graph_text(read_graph_file(graph.path, graph.root), file=str(graph.path))
    if isinstance(graph, Path) or (isinstance(graph, str) and _looks_like_path(graph)):
        path = Path(graph)
        return parse_graph_text(read_graph_file(path), file=str(path))
    if isinstance(graph, str):
        if ":" not in graph and "\n" not in graph:
            # One line that cannot be a YAML mapping: meant as a file, which does not exist.
            raise GraphLoadError("cannot read graph file: No such file or directory", location=Location(graph))
        return parse_graph_text(graph)
    raise GraphLoadError(f"a graph must be a dict, a path or YAML/JSON text, got {type(graph).__name__}")


def load_graph_beside(parent: GraphSource, file_name: str) -> tuple[dict[str, Any], GraphSource]:
    """A graph file named by a graph (`graphLoader: {fileName}`), read from the parent's folder.

    A graph may only load files inside its own folder (or below it), so a graph
    file cannot reach other files on the machine. A graph loaded that way may load
    files in turn, relative to its own folder, within the first graph's folder.

    Raises:
        GraphLoadError: no parent folder, a path outside it, or an unreadable file.
    """
    folder = parent.folder
    if folder is None:
        raise GraphLoadError(f"graphLoader {file_name!r}: only a graph read from a file can load other graph files")
    boundary = parent.root or folder
    try:
        path = (folder / file_name).resolve()
    except (OSError, ValueError) as error:  # a NUL character, a name too long
        raise GraphLoadError(f"graphLoader {file_name!r}: not a file name: {error}") from None
    if not path.is_relative_to(boundary):
        raise GraphLoadError(f"graphLoader {file_name!r}: a graph can only load files inside its folder {boundary}")
    data, source = load_graph(GraphFile(path, boundary))  # inside it still when it is opened
    source.root = boundary
    return data, source


async def load_with(loader: GraphLoader, request: Mapping[str, Any]) -> dict[str, Any]:
    """The graph a `graph_loader` gives for a node's `graphLoader: {fileName, option}`.

    Raises:
        GraphLoadError: the loader failed, or gave something that is not a graph.
    """
    file_name = request.get("fileName")
    try:
        loaded = loader(file_name, request.get("option"))
        if inspect.isawaitable(loaded):
            loaded = await loaded
    except GraphLoadError:
        raise
    except Exception as error:  # noqa: BLE001 - the user's loader: any failure is a load failure, with its cause
        raise GraphLoadError(f"graphLoader {file_name!r}: the graph loader failed: {type(error).__name__}: {error}") from error
    if isinstance(loaded, (Mapping, str, Path)):
        return load_graph(loaded)[0]
    raise GraphLoadError(f"graphLoader {file_name!r}: the graph loader gave a {type(loaded).__name__}, not a graph")
