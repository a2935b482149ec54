"""Where a key of a graph file is written: line and column, worked out only when an error needs them.

A valid file never pays for this. For an error in a node, the common case, the
text is not parsed again: the first such error indexes the key lines of the
file's `nodes:` block in one regular-expression scan (C speed, a line at a
time), the node's own lines are composed (libyaml, no tag resolution) to find
the field, and the line number is counted from the nearest line counted
before. A thousand errors in a 50 MB file thus cost about one scan of the text
together, and what is kept is an offset per node, not a YAML tree.

Files written otherwise (JSON, `nodes: {...}` in flow style, anchors, a
graph-level field such as `loop.while`) are composed whole, once, with each
mapping asked about indexed once: one pass, shared by every later question.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Iterator

from graphrt.base.collector import LARGE_TEXT, collector_paused
from graphrt.base.patterns import LazyPattern

__all__ = ["Positions", "Mark"]

def _compose(text: str) -> Any:
    import yaml  # on the first error only: a valid file is read without PyYAML (graphdata/quick_yaml.py)

    try:
        with collector_paused(len(text) >= LARGE_TEXT):  # else the collector walks the parsed graph again and again
            return yaml.compose(text, Loader=_position_loader())
    except yaml.YAMLError:
        return None


_LOADERS: list[type] = []


def _position_loader() -> type:
    """The safe loader without tag resolution: positions need only the structure, and resolving costs time."""
    if not _LOADERS:
        import yaml

        safe = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        _LOADERS.append(type("_PositionLoader", (safe,), {"yaml_implicit_resolvers": {}}))
    return _LOADERS[0]


class _Tree:
    """A composed YAML text, with the keys of each mapping asked about indexed once."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self._keys: dict[int, dict[str, tuple[Any, Any]]] = {}

    def child(self, node: Any, key: str | int) -> tuple[Any, Any] | None:
        """The value node under `key` and the mark of the key itself."""
        import yaml

        if isinstance(node, yaml.MappingNode):
            keys = self._keys.get(id(node))
            if keys is None:
                keys = self._keys[id(node)] = {}
                for key_node, value_node in node.value:
                    if isinstance(key_node, yaml.ScalarNode):
                        keys.setdefault(key_node.value, (value_node, key_node.start_mark))
            return keys.get(str(key))
        if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
            item = node.value[key]
            return item, item.start_mark
        return None

    def locate(self, path: tuple[str | int, ...], start: tuple[Any, Any] | None = None) -> Mark | None:
        """The mark of the deepest key of `path` found, from `start` (a value node and its key's mark; default the root)."""
        node, mark = start if start is not None else (self.root, getattr(self.root, "start_mark", None))
        for key in path:
            child = self.child(node, key)
            if child is None:
                break
            node, mark = child
        return (mark.line, mark.column) if mark is not None else None


_AFTER_NODES = LazyPattern(r"[ \t]*:[ \t]*(?:#[^\n]*)?\r?\n")  # `nodes:` with nothing after it: a block mapping follows
_FIRST_ENTRY = LazyPattern(r"^( *)[^ \t\r\n#]", re.MULTILINE)


def _lines_starting(text: str, start: str, after: int) -> Iterator[int]:
    """The offsets of the lines, from offset `after` on, that begin with `start`."""
    if after == 0 and text.startswith(start):
        yield 0
    found = text.find("\n" + start, max(after - 1, 0))
    while found >= 0:
        yield found + 1
        found = text.find("\n" + start, found + 1)


def _key_line(text: str, key: str, indent: int, after: int, rest: re.Pattern[str] | LazyPattern) -> tuple[int, int] | None:
    """The first line from offset `after` on that is `key` (maybe quoted) at `indent` spaces followed by `rest`:
    (offset of the line, offset after `rest`). A text search (C speed), not a parse."""
    best: tuple[int, int] | None = None
    for written in (key, f'"{key}"', f"'{key}'"):
        start = " " * indent + written
        for line in _lines_starting(text, start, after):
            if best is not None and line >= best[0]:
                break
            matched = rest.match(text, line + len(start))
            if matched:
                best = (line, matched.end())
                break
    return best


def _block_keys(text: str, indent: int, start: int) -> dict[str, int]:
    """The keys of the block mapping whose keys are written at `indent` spaces from offset `start` on,
    with their lines' offsets, to the first line of content indented less (the mapping's end).

    One regular expression scan, that looks at each line up to its first character past
    `indent` spaces. A key written some other way (escapes, `? key`) is not in the result:
    its position then comes from composing the whole text.
    """
    line = re.compile(rf"""\n(?: {{{indent}}}(?:"([^"\\\n]*)"|'([^'\n]*)'|([^\s#'"?][^\n]*?))[ \t]*:(?=[ \t\r\n]|$)"""
                      rf"""| {{0,{indent - 1}}}(?=[^ \t\r\n#]))""", re.MULTILINE)
    keys: dict[str, int] = {}
    for found in line.finditer(text, start - 1):
        double, single, plain = found.groups()
        key = double if double is not None else single if single is not None else plain
        if key is None:
            break  # a line indented less: the mapping ended
        keys.setdefault(key, found.start() + 1)
    return keys


class Positions:
    """The positions of one text's keys: `locate(path)` gives (line, column) from 0, or None."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._tree: _Tree | None = None
        self._nodes: tuple[int, int] | None | bool = False  # (offset of its first key, their indentation), None: none
        self._node_lines: dict[str, int] | None = None  # node id -> offset of its key line, found in one scan
        self._node_trees: dict[int, _Tree | None] = {}  # offset of a node's key line -> its lines, composed
        self._counted: list[tuple[int, int]] = [(0, 0)]  # (offset, line number there), sorted

    def locate(self, path: tuple[str | int, ...]) -> Mark | None:
        if len(path) >= 2 and path[0] == "nodes":
            found = self._in_node(str(path[1]), path[2:])
            if found is not None:
                return found
        return self._whole().locate(path)

    # ----- a node's own lines -----

    def _in_node(self, node_id: str, rest: tuple[str | int, ...]) -> Mark | None:
        block = self._nodes_block()
        if block is None:
            return None
        start, indent = block
        if self._node_lines is None:
            self._node_lines = _block_keys(self.text, indent, start)
        line = self._node_lines.get(node_id)
        if line is None:
            return None
        if line not in self._node_trees:
            self._node_trees[line] = self._node_tree(line, node_id, indent)
        tree = self._node_trees[line]
        if tree is None:
            return None
        row, column = tree.locate((node_id, *rest))  # type: ignore[misc]  # _node_tree checked the node is there
        return self._line_of(line) + row, column

    def _nodes_block(self) -> tuple[int, int] | None:
        """The top-level `nodes:` block mapping: where its first key is, and the indentation of its keys.

        None if the file is not so written (JSON, flow style): then the whole text is composed.
        """
        if self._nodes is False:
            self._nodes = None
            text = self.text
            found = _key_line(text, "nodes", 0, 0, _AFTER_NODES)
            entry = _FIRST_ENTRY.search(text, found[1]) if found else None
            if entry is not None and entry.group(1):
                self._nodes = (entry.start(), len(entry.group(1)))
        return self._nodes  # type: ignore[return-value]

    def _node_tree(self, start: int, node_id: str, indent: int) -> _Tree | None:
        """The node's lines, to the next line indented as little as its key, composed on their own."""
        import yaml

        end = re.compile(rf"\n {{0,{indent}}}(?=[^ \t\r\n#])").search(self.text, start)  # a line indented as little
        root = _compose(self.text[start:end.start() + 1 if end else len(self.text)])
        if not isinstance(root, yaml.MappingNode) or len(root.value) != 1 or root.value[0][0].value != node_id:
            return None  # not a block mapping entry of its own: the whole text answers
        return _Tree(root)

    def _line_of(self, offset: int) -> int:
        """The line number (from 0) at `offset`: counted from the nearest offset counted before."""
        counted = self._counted
        index = bisect.bisect_right(counted, (offset, float("inf"))) - 1
        base, line = counted[index]
        if base < offset:
            line += self.text.count("\n", base, offset)
            counted.insert(index + 1, (offset, line))
        return line

    # ----- the whole text -----

    def _whole(self) -> _Tree:
        if self._tree is None:
            self._tree = _Tree(_compose(self.text))
        return self._tree
