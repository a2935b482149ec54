"""Cassettes: a run's outside calls recorded once, then replayed with no network and no key.

    tape = Cassette.record("tests/cassettes/react.jsonl")          # graphrt run graph.yaml --record FILE
    graphrt.run("graphs/react.yaml", journal=tape); tape.close()
    tape = Cassette.replay("tests/cassettes/react.jsonl")          # graphrt run graph.yaml --replay FILE
    graphrt.run("graphs/react.yaml", journal=tape)                 # no call leaves the process
    tape.tool_calls()                                              # [("wikiAgent--search", {"query": ...}), ...]

A cassette is a log of the run's journal (graphrt/engine/journal.py): it holds what each agent that reaches
outside the run was asked and what it returned (its inputs and params, its result), not HTTP bytes, so it
replays through the same agent whatever its SDK's version, and a recording made with one provider's SDK
needs none to replay. Replayed, every journaled call is answered from it and none is made; the first call
that asks otherwise than its recording, or that was not recorded, stops the run with a JournalMismatch that
names its node and index and shows the difference.

The file is JSON Lines, one call a line in the order they returned, the credentials the run knows hidden
(as its journal hides them), so a recording can be read, diffed and kept in a repository:

    {"cassette": 2, "graph": "react.yaml", "nodes": ["question", "start", "react", ...]}
    {"path": "react/llm", "index": 0, "kind": "llm", "agent": "openAIAgent", "request": {...}, "result": {...}}
    {"path": "react/llm", "index": 1, ..., "request": {"$graphrt": "shared", "digest": ..., "base": 0, "shared":
        {"/inputs/messages": 3}, "value": {...the messages after those 3...}}, "result": {"$graphrt": "shared", ...}}

A request or result of a call without side effects whose lists begin with those of the call before it on its path
(an LLM's conversation, round after round) keeps only what it adds, once (graphrt/engine/journal_shared.py): a
20-round conversation is written once, not 40 times, and a mismatch's diff is still of the whole requests. Version 2
writes them so; version 1 cassettes (every request and result whole) replay as they did.

A batch records each row's run in one cassette, each line of a row saying whose it is (`"run": ROW_ID`; a
row's part of the cassette is `cassette.part(row_id)`), and replays each row from its own.

A recording is written as the calls return to FILE.partial, and becomes FILE when the cassette is closed:
a recording cut short (the process killed) leaves FILE as it was. A file that is not a cassette, a line cut
short or damaged, and a cassette recorded from another graph are each a CassetteError naming the file (and
the line).
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from graphrt.base.errors import JournalError
from graphrt.base.states import CallState
from graphrt.checkpoint.records import JournalEntry
from graphrt.engine.journal import CallLog, top_node
from graphrt.engine.journal_shared import whole_requests
from graphrt.graphdata.refs import LOOP_COUNTER

if TYPE_CHECKING:
    from graphrt.graphdata.spec import GraphSpec

__all__ = ["CASSETTE_VERSION", "Cassette", "CassetteError"]

CASSETTE_VERSION = 2
"""The version of the cassette format this graphrt writes and reads."""

_FIELDS = ("path", "index", "kind", "agent", "request", "result")


class CassetteError(JournalError):
    """Raised for a cassette that cannot be replayed: not a cassette, a line cut short or damaged, a newer format,
    another graph's recording; or one used for a second run."""


class Cassette(CallLog):
    """A recording of a run's outside calls (or of a batch's runs, one part a row), in a JSON Lines file: made
    (`record`) or played (`replay`).

    Give it to a run as its journal (`graphrt.run(graph, journal=cassette)`, RunOptions.journal), or its parts to a
    batch's rows (`part`); close a recording once the runs have ended, which writes the file.
    """

    def __init__(self, path: str | Path, *, replays: bool) -> None:
        self.path = Path(path)
        self.location = str(path)
        self.replays = replays
        self.calls: list[JournalEntry] = []  # what the runs were answered (replay) or recorded, in order
        self._runs: dict[str | None, str] = {}  # each part's run id in this process, once it has run
        self._read: dict[str | None, list[JournalEntry]] | None = None  # a replay's calls, by part
        self._partial: Any = None  # the recording's file, appended to as calls return

    @classmethod
    def record(cls, path: str | Path) -> "Cassette":
        """A cassette that records the runs' calls to `path` (written when closed)."""
        return cls(path, replays=False)

    @classmethod
    def replay(cls, path: str | Path) -> "Cassette":
        """A cassette that answers the runs' calls from the recording at `path`."""
        return cls(path, replays=True)

    @classmethod
    def for_test(cls, path: str | Path, *, record: bool | None = None) -> "Cassette":
        """Replays the recording at `path`, or records one there when there is none; `record` (default: the
        GRAPHRT_RECORD environment variable is 1) records it again."""
        if record is None:
            record = os.environ.get("GRAPHRT_RECORD") == "1"
        return cls.record(path) if record or not Path(path).exists() else cls.replay(path)

    def part(self, name: str) -> CallLog:
        """The part of the cassette that one run of several holds (a batch's row, by its id)."""
        return _Part(self, name)

    def __enter__(self) -> "Cassette":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ----- CallLog: the cassette as one run's -----

    async def load(self, run_id: str, graph: "GraphSpec") -> Sequence[JournalEntry]:
        return self._load(None, run_id, graph)

    async def save(self, entry: JournalEntry) -> None:
        self._save(None, entry)

    async def drop(self, entry: JournalEntry) -> None:
        self._drop(None, entry)

    # ----- the parts -----

    def _load(self, part: str | None, run_id: str, graph: "GraphSpec") -> list[JournalEntry]:
        if part in self._runs:
            held = "a cassette holds one run" if part is None else f"its part {part!r} holds one run"
            raise CassetteError(f"cassette {self.location} has been used by a run already: {held}")
        self._runs[part] = run_id
        if self.replays:
            if self._read is None:
                self._read = _read(self.path)
            found = self._read.get(part, [])
            _check_graph(self.location, found, graph)
            answered = [replace(entry, run_id=run_id) for entry in found]
            self.calls += answered
            return answered
        if self._partial is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._partial = open(self._partial_path, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
            self._write(_header(graph))
        return []

    def _save(self, part: str | None, entry: JournalEntry) -> None:
        if self.replays or entry.state != CallState.RETURNED:
            return  # a replay writes nothing; a call that has not returned is nothing to replay
        self._forget(entry)
        self.calls.append(entry)
        self._write(_line(entry, part))

    def _drop(self, part: str | None, entry: JournalEntry) -> None:
        if self.replays:
            return
        self._forget(entry)
        self._write({**({"run": part} if part is not None else {}), "path": entry.path, "index": entry.index,
                     "dropped": True})

    def _forget(self, entry: JournalEntry) -> None:
        self.calls = [call for call in self.calls
                      if (call.run_id, call.path, call.index) != (entry.run_id, entry.path, entry.index)]

    # ----- the file -----

    @property
    def _partial_path(self) -> Path:
        return self.path.with_name(self.path.name + ".partial")

    def _write(self, line: dict[str, Any]) -> None:
        if self._partial is None:
            return
        self._partial.write(json.dumps(line, ensure_ascii=False) + "\n")
        self._partial.flush()  # a killed recording keeps every call that returned, in whole lines

    def close(self) -> None:
        """Ends a recording: the calls that stand (a void one left out) become the file, at once; nothing for a
        replay."""
        if self._partial is None:
            return
        partial, self._partial = self._partial, None
        partial.close()
        with open(partial.name, encoding="utf-8") as written:
            header = written.readline()
        parts = {run_id: part for part, run_id in self._runs.items()}
        finished = self.path.with_name(self.path.name + ".writing")
        with open(finished, "w", encoding="utf-8") as file:
            file.write(header)
            for entry in self.calls:
                file.write(json.dumps(_line(entry, parts.get(entry.run_id)), ensure_ascii=False) + "\n")
        os.replace(finished, self.path)
        os.unlink(partial.name)

    # ----- what a test asserts -----

    def tool_calls(self) -> list[tuple[str, Any]]:
        """The tool calls of the run(s), in order: (tool name, arguments), as toolsAgent and ReAct made them."""
        found = []
        requests = whole_requests(self.calls)  # each as asked, where its line keeps what it adds to the one before
        for entry in self.calls:
            request = requests.get((entry.path, entry.index))
            if entry.kind != "tool" or request is None:
                continue
            inputs = json.loads(request).get("inputs", {})
            call = inputs.get("tool_call") or inputs.get("tools") or {}  # an agent's tool call, or an MCP tool's
            found.append((call.get("name"), call.get("arguments")))
        return found

    def __repr__(self) -> str:
        return f"Cassette({self.location!r}, {'replay' if self.replays else 'record'})"


class _Part(CallLog):
    """One run's part of a cassette that holds several (a batch's row)."""

    def __init__(self, cassette: Cassette, name: str) -> None:
        self.cassette = cassette
        self.name = name
        self.replays = cassette.replays
        self.location = f"{cassette.location} (run {name!r})"

    async def load(self, run_id: str, graph: "GraphSpec") -> Sequence[JournalEntry]:
        return self.cassette._load(self.name, run_id, graph)

    async def save(self, entry: JournalEntry) -> None:
        self.cassette._save(self.name, entry)

    async def drop(self, entry: JournalEntry) -> None:
        self.cassette._drop(self.name, entry)


def _header(graph: "GraphSpec") -> dict[str, Any]:
    file = graph.source.file
    nodes = [node_id for node_id in graph.nodes if node_id != LOOP_COUNTER]
    return {"cassette": CASSETTE_VERSION, "graph": Path(file).name if file else None, "nodes": nodes}


def _line(entry: JournalEntry, part: str | None) -> dict[str, Any]:
    line = {"run": part} if part is not None else {}
    return {**line, "path": entry.path, "index": entry.index, "kind": entry.kind, "agent": entry.agent,
            "request": None if entry.request is None else json.loads(entry.request),
            "result": None if entry.result is None else json.loads(entry.result)}


def _compact(value: Any) -> str:
    """A value read from the file as the journal's JSON text writes it (encode_value's), to compare with."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _read(path: Path) -> dict[str | None, list[JournalEntry]]:
    """The calls a cassette holds, by the run (a batch's row) they belong to; each line checked."""
    where = str(path)
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().split("\n")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise CassetteError(f"cannot read cassette {where}: {reason}") from None
    if lines and lines[-1] == "":
        lines.pop()
    header = _json_line(where, 1, lines[0] if lines else "")
    if not isinstance(header, dict) or not isinstance(header.get("cassette"), int):
        raise CassetteError(f"{where}:1: not a graphrt cassette (its first line says what it is: "
                            '{"cassette": 2, "graph": ..., "nodes": [...]})')
    if header["cassette"] > CASSETTE_VERSION:
        raise CassetteError(f"{where}:1: a cassette of version {header['cassette']}, newer than this graphrt reads "
                            f"({CASSETTE_VERSION})")
    calls: dict[tuple[str | None, str, int], JournalEntry] = {}
    for number, text in enumerate(lines[1:], start=2):
        line = _json_line(where, number, text)
        if not isinstance(line, dict):
            raise CassetteError(f"{where}:{number}: not a call (an object with {', '.join(_FIELDS)})")
        part = line.get("run")
        if part is not None and not isinstance(part, str):
            raise CassetteError(f"{where}:{number}: not a call ('run' is not a string)")
        if line.get("dropped") is True:
            calls.pop((part, line.get("path"), line.get("index")), None)  # type: ignore[arg-type]
            continue
        missing = [name for name in _FIELDS if name not in line]
        if missing or not isinstance(line["path"], str) or not isinstance(line["index"], int):
            what = f"missing {', '.join(map(repr, missing))}" if missing else "'path' or 'index' of the wrong type"
            raise CassetteError(f"{where}:{number}: not a call ({what})")
        key = (part, line["path"], line["index"])
        calls.pop(key, None)
        calls[key] = JournalEntry(
            "", line["path"], line["index"], str(line["kind"]), str(line["agent"]),
            None if line["request"] is None else _compact(line["request"]), CallState.RETURNED,
            _compact(line["result"]))
    by_part: dict[str | None, list[JournalEntry]] = {}
    for (part, _, _), entry in calls.items():
        by_part.setdefault(part, []).append(entry)
    return by_part


def _json_line(where: str, number: int, text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as error:
        cut = " (cut short: the recording was stopped while it wrote it; record the run again)" \
            if number > 1 and not text.endswith("}") else ""
        raise CassetteError(f"{where}:{number}: not JSON: {error}{cut}") from None


def _check_graph(where: str, calls: Sequence[JournalEntry], graph: "GraphSpec") -> None:
    """A cassette is the recording of this graph when every node that made a call is a node of it."""
    recorded = {top_node(entry.path) for entry in calls}
    unknown = sorted(node for node in recorded if node not in graph.nodes)
    if not unknown:
        return
    mine = f" ({graph.source.file})" if graph.source.file else ""
    raise CassetteError(f"{where} was recorded by nodes {', '.join(sorted(recorded))}: this graph{mine} has no "
                        f"node {', '.join(repr(node) for node in unknown)}; replay the recording of this graph, or "
                        "record it")
