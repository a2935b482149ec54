"""The journal of a run's outside calls: each call's result kept when it returns, and given back instead of the
call on resume, on retry and in a replay.

A node's agent call is journaled when its agent reaches outside the run or changes the world (its function
info's `outside`, `side_effects`: an LLM, a web service, a payment), or when the graph agent that runs it says
so (`ctx.run_graph(..., journal="tool")`: toolsAgent's and ReAct's LLM and tool calls). Each call is keyed by
the run, the path of the node that made it (`call_path`: nested graphs, map rows, loop iterations) and its
index among that path's calls (toolsAgent's one-node LLM graph makes one per round: `agent/llm` 0, 1, 2...).
Its entry (checkpoint/records.py's JournalEntry) is written when it returns, before the agent that made it
gets its result: queued where the log can (a store commits it at once, without the run waiting for the commit),
and committed before anything the log writes after it. A call with side effects that is not idempotent is also
marked as started before it is made, and that mark is awaited: so before any effect happens, every result it
may depend on is kept, and a crash at any moment leaves such a call either returned or started (uncertain).

Given the same key again (the node runs again after a crash, or a retry):

- an entry that returned, asked the same: its result, and the call is not made;
- an entry that returned, asked otherwise (the graph changed, or something before the call did): a call
  without side effects is made anew; one with side effects is a JournalMismatch, unless the run is told to
  make it anew (`force`, resume's --force); in a replay any difference is one;
- an entry that started and did not return is uncertain: made again when that is harmless (no side effects,
  or `idempotent`), else the run stops and asks a person whether it happened (`uncertain="ask"`, resumed with
  the answer: no, yes, or {"result": ...}), or fails with UncertainCall (`uncertain="fail"`);
- no entry: the call is made (in a replay, it cannot be: a JournalMismatch).

An attempt that fails after its own journaled call returned (`repeatUntil`, `output`) leaves that entry void
when the call had no side effects, so that a retry asks again, as GraphAI's retries mean; the calls made by
the agent inside the node (a toolsAgent's) stay, so a retry goes on from where the attempt failed.

Where entries are kept is a `CallLog`: a checkpoint store's journal (graphrt.durable.journal), a cassette being
recorded or replayed (graphrt.testing.cassette). A run is given a `Journal` (RunOptions.journal): its logs and
how to read them; each execution opens its own `RunJournal`, in its RunContext.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable, Protocol, Sequence

from graphrt.base.defaults import UNCERTAIN_CALLS
from graphrt.base.errors import Interrupt, JournalError
from graphrt.base.jsvalue import is_truthy
from graphrt.base.secrets import Redactor
from graphrt.base.states import CallState
from graphrt.checkpoint.errors import Unsavable
from graphrt.checkpoint.records import JournalEntry
from graphrt.checkpoint.values import decode_value, encode_hidden
from graphrt.engine.journal_shared import is_shared, rebuilt, same_request, shared, whole_requests

if TYPE_CHECKING:
    from graphrt.authoring.agent_info import AgentContext, AgentInfo
    from graphrt.graphdata.spec import GraphSpec

__all__ = ["CallLog", "Journal", "JournalMismatch", "RunJournal", "UncertainCall", "UNCERTAIN", "call_path_part",
           "encoded_request", "node_key", "top_node"]

UNCERTAIN = UNCERTAIN_CALLS
"""What a run does with an uncertain call of an agent that is not idempotent: ask a person (the default), or fail."""

_NO = frozenset({"no", "n", "false", "again"})
_YES = frozenset({"yes", "y", "true", "done"})


class JournalMismatch(JournalError):
    """Raised when a call asks what its journaled entry did not: the graph changed since the run was journaled,
    or a replay's graph asks what its recording did not (`.diff`: the journaled request against this one)."""

    def __init__(self, message: str, *, diff: str = "", **context: Any) -> None:
        self.diff = diff
        super().__init__(message, **context)

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text}\n{self.diff}" if self.diff else text


class UncertainCall(JournalError):
    """Raised for a call with side effects that started and left no result (its process died while it ran), of an
    agent that is not idempotent, when the run is told to fail rather than ask (`uncertain="fail"`)."""


class Answers(Protocol):
    """The answers a resumed execution was given (graphrt.engine.context's `Carryover`): a person's answer to an
    uncertain call is taken from them, once. The context holds the journal, so the journal names them by this port."""

    answers: dict[str, Any]

    def answer(self, key: str) -> Any: ...

    def take_answer(self, key: str) -> None: ...


class CallLog:
    """Where a journal keeps its entries: a checkpoint store's journal, a cassette. Every method has a default."""

    replays = False
    """A replay's log: every call is answered from it, and a call it cannot answer is an error, never made."""

    location = "journal"
    """What to call it in a message: the store, or the cassette's file."""

    async def load(self, run_id: str, graph: "GraphSpec") -> Sequence[JournalEntry]:
        """The entries kept for the run `run_id` of `graph` (a cassette's, whatever run recorded them)."""
        return ()

    async def save(self, entry: JournalEntry) -> None:
        """Keeps `entry` (durable when it returns), in place of the one with its key."""

    def queue(self, entry: JournalEntry, *, hold: bool = False) -> Awaitable[None] | None:
        """Queues `entry` to be kept with what is written next (the log keeps its writes in order), and returns what
        to await for it; None: the log cannot queue it (the journal awaits `save`). `hold`: it may wait a moment
        for the log's next write to share its commit (a call without side effects: made again if it is lost)."""
        return None

    async def drop(self, entry: JournalEntry) -> None:
        """Forgets `entry`: void, its call is to be made again."""


@dataclass(frozen=True)
class Journal:
    """What a run journals its outside calls in, and how it reads them (RunOptions.journal).

    Args:
        logs: where entries are kept; the first that holds a key answers for it, and every log keeps each entry.
        force: an entry with side effects whose request differs is made anew instead of failing (resume's --force).
        uncertain: "ask" or "fail": what an uncertain call of an agent that is not idempotent does.
        redactor: the credentials hidden in what is kept (a checkpointed run's; else the run's graph's and
            environment's, found when the run starts).
    """

    logs: tuple[CallLog, ...]
    force: bool = False
    uncertain: str = "ask"
    redactor: Redactor | None = None

    def __post_init__(self) -> None:
        if self.uncertain not in UNCERTAIN:
            raise ValueError(f"uncertain must be one of {', '.join(UNCERTAIN)}, got {self.uncertain!r}")
        object.__setattr__(self, "logs", tuple(self.logs))

    @classmethod
    def of(cls, given: "Journal | CallLog | Iterable[CallLog]") -> "Journal":
        """A Journal from what a caller gave: itself, one log, or logs."""
        if isinstance(given, Journal):
            return given
        return cls((given,) if isinstance(given, CallLog) else tuple(given))

    def with_logs(self, *logs: CallLog) -> "Journal":
        """This journal with `logs` before its own (a checkpointed run's store, before a cassette it records)."""
        return replace(self, logs=(*logs, *self.logs))

    async def open(self, run_id: str, graph: "GraphSpec", carryover: "Answers", redactor: Redactor) -> "RunJournal":
        """The journal of one execution of `graph`, its logs' entries read."""
        entries: dict[tuple[str, int], JournalEntry] = {}
        for log in reversed(self.logs):  # the first log that holds a key answers for it
            for entry in await log.load(run_id, graph):
                entries[entry.path, entry.index] = entry
        return RunJournal(self, run_id, entries, carryover, self.redactor or redactor)


def call_path_part(node_id: str, iteration: int) -> str:
    """A node's part of a call path: its id (`/`, `@` and `%` escaped, so no two paths read alike), with `@N` in
    loop iteration N > 0."""
    if "/" in node_id or "@" in node_id or "%" in node_id or "#" in node_id:
        node_id = node_id.replace("%", "%25").replace("/", "%2F").replace("@", "%40").replace("#", "%23")
    return f"{node_id}@{iteration}" if iteration else node_id


def node_key(path: str) -> str:
    """A call path as a node's key (graphrt serve's, an answer's): its nodes and map rows, without loop iterations:
    `agent@2/0/tool` -> `agent/0/tool`."""
    return "/".join(_unescaped(part.rsplit("@", 1)[0]) for part in path.split("/"))


def _unescaped(part: str) -> str:
    if "%" in part:
        part = part.replace("%2F", "/").replace("%40", "@").replace("%23", "#").replace("%25", "%")
    return part


def top_node(path: str) -> str:
    """The node of the top graph that a call path starts with: `agent@2/0/tool` -> `agent`."""
    return _unescaped(path.split("/", 1)[0].rsplit("@", 1)[0])


@dataclass
class _Call:
    """One call as the journal decides it."""

    path: str
    index: int
    entry: JournalEntry | None  # what the logs hold for it


@dataclass
class RunJournal:
    """One execution's journal: the entries its logs hold, and how many calls each node path has made so far."""

    journal: Journal
    run_id: str
    entries: dict[tuple[str, int], JournalEntry]
    carryover: "Answers"
    redactor: Redactor
    counters: dict[str, int] = field(default_factory=dict)
    last: dict[str, tuple[JournalEntry, bool]] = field(default_factory=dict)  # each path's last call, side effects
    pending: list[Awaitable[None]] = field(default_factory=list)  # entries queued, their commit not awaited yet
    asked: dict[str, tuple[int, str | None]] = field(default_factory=dict)  # each path's last call: its whole request
    answered: dict[str, tuple[int, str | None]] = field(default_factory=dict)  # and its whole result, once it returned

    # ----- the calls of a node's attempts -----

    def mark(self, path: str) -> dict[str, int]:
        """How many calls `path`, and the paths under it, have made so far: what a retry of its node goes back to."""
        below = path + "/"
        return {key: count for key, count in self.counters.items() if key == path or key.startswith(below)}

    def rewind(self, path: str, mark: dict[str, int]) -> None:
        """A retry of the node at `path`: its calls, and those of the graphs it ran, count again from `mark`, so that
        the retry takes the entries of the calls the failed attempt made instead of making them again."""
        below = path + "/"
        for key in [key for key in self.counters if key == path or key.startswith(below)]:
            del self.counters[key]
        self.counters.update(mark)

    async def void(self, path: str) -> None:
        """The attempt at `path` failed after its own call returned: that call's entry is void unless it had side
        effects, so that a retry asks again (a repeatUntil's, an output's that did not hold)."""
        last = self.last.pop(path, None)
        if last is None or last[1]:
            return
        entry = last[0]
        self.entries.pop((entry.path, entry.index), None)
        await self._drop(entry)

    # ----- a call -----

    async def call(self, ctx: "AgentContext", info: "AgentInfo", path: str, kind: str,
                   make: Callable[[], Awaitable[Any]]) -> Any:
        """The call's result: from its entry when the journal holds one that answers it, else made and kept.

        Raises:
            JournalMismatch: the entry asked otherwise (and the call has side effects, or this is a replay), or a
                replay has no entry for it.
            UncertainCall: it started and left no result, its agent is not idempotent, and the run fails on that.
            Interrupt: the same, and the run asks a person whether it happened.
            CheckpointError: a log could not keep the entry (the result is then lost to a resume).
        """
        index = self.counters.get(path, 0)
        self.counters[path] = index + 1
        ctx.idempotency_key = self._key(path, index)
        call = _Call(path, index, self.entries.get((path, index)))
        request = self._request(ctx)
        before = self._whole(path, index - 1, self.asked)  # what the call before it asked: this one keeps what it adds
        self.asked[path] = (index, request)
        side_effects = info.has_side_effects(ctx)
        entry = call.entry
        if entry is not None and not same_request(entry.request, request):
            if self._replays or (side_effects and not self.journal.force):
                raise self._mismatch(ctx, call, request)
            entry = None  # asked otherwise: made anew, its entry replaced
        if entry is not None and entry.state == CallState.RETURNED:
            result = self._whole(path, index, self.answered)
            if result is not None or entry.result is None:
                self.answered[path] = (index, result)
                self.last[path] = (entry, side_effects)
                value = decode_value(result, f"journal entry {path}#{index}") if result is not None else None
                _streamed_again(ctx, info, value)
                return value
            if self._replays:  # its result kept what it added to a call before it that is gone
                raise self._unrecorded(ctx, call, request)
            entry = None  # made anew (only the entry of a call harmless to make again shares with the one before)
        if entry is not None:  # started, and no result kept: did it happen?
            decided = self._uncertain(ctx, info, call)
            if decided is not _MAKE:  # a person said it happened: kept as its result, so it is not asked again
                await self._answered(entry, decided)
                return decided
        if self._replays:
            raise self._unrecorded(ctx, call, request)
        return await self._make(ctx, info, call, kind, request, before, side_effects, make)

    async def _make(self, ctx: "AgentContext", info: "AgentInfo", call: _Call, kind: str, request: str | None,
                    before: str | None, side_effects: bool, make: Callable[[], Awaitable[Any]]) -> Any:
        """Makes the call and keeps its entry: the request and result of a call harmless to make again as what they
        add to the call's before it on the path (journal_shared: `before` is its whole request), others whole."""
        marked = side_effects and not info.is_idempotent(ctx)
        kept_request = request if marked else shared(request, call.index, before)
        started = JournalEntry(self.run_id, call.path, call.index, kind, str(info.name), kept_request,
                               CallState.STARTED, None, time.time())
        if marked:  # a crash (or a timeout) from now on leaves it uncertain
            await self._save(started)
        try:
            result = await make()
        except Exception:  # it failed, and said so: nothing to take on resume, where it is made again
            if marked:
                await self._drop(started)
            raise
        try:
            kept = encode_hidden(result, self.redactor)
        except (Unsavable, RecursionError):
            return result  # JSON cannot hold it: not kept, made again on resume (or asked, as a started one)
        before_result = self._whole(call.path, call.index - 1, self.answered)
        self.answered[call.path] = (call.index, kept)
        if not marked:
            kept = shared(kept, call.index, before_result)
        entry = replace(started, state=CallState.RETURNED, result=kept, ended_at=time.time())
        # Queued, and committed before anything the log writes after it: before the next call with side effects
        # is marked as started, so no effect that depends on this result happens before it is kept. A crash in
        # between (a commit's time) leaves a call with side effects started, and so asked about, never made twice.
        await self._keep(entry, hold=not marked)
        self.entries[call.path, call.index] = entry
        self.last[call.path] = (entry, side_effects)
        return result

    async def _answered(self, entry: JournalEntry, result: Any) -> None:
        """An uncertain call a person said happened, kept as returned with the result they gave (None: unknown)."""
        try:
            kept = encode_hidden(result, self.redactor)
        except (Unsavable, RecursionError):
            return  # JSON cannot hold it: asked again if the run stops before it ends
        answered = replace(entry, state=CallState.RETURNED, result=kept, ended_at=time.time())
        self.entries[answered.path, answered.index] = answered
        await self._save(answered)

    async def _save(self, entry: JournalEntry) -> None:
        for log in self.journal.logs:
            await log.save(entry)
        if self.pending:  # queued before it: committed by now
            await self.settle()

    async def _keep(self, entry: JournalEntry, *, hold: bool) -> None:
        """Keeps the entry of a call that returned: queued where a log can, else saved. `hold`: the call has no side
        effects, so its entry may wait a moment to share the commit of the log's next write (a toolsAgent's LLM
        reply, that of the tool call's mark); a call with side effects is committed at once, so that a crash
        leaves it uncertain for no longer than a commit takes."""
        for log in self.journal.logs:
            queued = log.queue(entry, hold=hold)
            if queued is None:
                await log.save(entry)
            else:
                self.pending.append(queued)
        if len(self.pending) >= 64:
            await self.settle()

    async def settle(self, quiet: bool = False) -> None:
        """Awaits the entries queued so far (the run does before it ends); `quiet`: raises nothing.

        Raises:
            CheckpointError: a log failed to keep one.
        """
        pending, self.pending = self.pending, []
        failure: BaseException | None = None
        for queued in pending:
            try:
                await queued
            except Exception as error:  # noqa: BLE001 - every one awaited, the first failure raised
                failure = failure or error
        if failure is not None and not quiet:
            raise failure

    async def _drop(self, entry: JournalEntry) -> None:
        for log in self.journal.logs:
            await log.drop(entry)

    @property
    def _replays(self) -> bool:
        return any(log.replays for log in self.journal.logs)

    def _key(self, path: str, index: int) -> str:
        """The call's idempotency key: the same for this call in every process that makes it, unlike any other's."""
        return hashlib.sha256(f"graphrt-call\0{self.run_id}\0{path}\0{index}".encode()).hexdigest()[:32]

    def _whole(self, path: str, index: int, last: dict[str, tuple[int, str | None]]) -> str | None:
        """The whole request (`last` is `asked`) or result (`answered`) of call `index` of `path`; None: no call, JSON
        could not hold it, or it cannot be rebuilt. As the last call of the path had it, else rebuilt from the entries
        (a resumed run's first call of a path, an answer from the journal)."""
        known = last.get(path)
        chain: list[str] = []  # the kept texts to rebuild, this call's first, back to one known whole
        while True:
            if index < 0:
                return None
            if known is not None and known[0] == index:
                whole = known[1]
                break
            entry = self.entries.get((path, index))
            if entry is None:
                return None
            kept = entry.result if last is self.answered else entry.request
            if not is_shared(kept):
                whole = kept
                break
            assert kept is not None
            chain.append(kept)
            index -= 1  # its base: journal_shared.shared writes index - 1
        for kept in reversed(chain):  # forward, each from the one before it (no recursion, however long the chain)
            base = whole
            whole = rebuilt(kept, lambda _index, base=base: base)  # type: ignore[misc]
        return whole

    def _journaled(self, call: _Call) -> str | None:
        """The whole request the entry of `call` keeps (rebuilt from the entries before it on its path), to show."""
        kept = call.entry.request if call.entry is not None else None
        if not is_shared(kept):
            return kept
        return whole_requests(entry for key, entry in self.entries.items() if key[0] == call.path).get(
            (call.path, call.index), kept)

    def _request(self, ctx: "AgentContext") -> str | None:
        """What the call asks, as its entry keeps it: the agent's inputs and params, credentials hidden; None when
        JSON cannot hold them (such a call matches no entry: it is made)."""
        return encoded_request(ctx.inputs, ctx.params, self.redactor)

    def _where(self, call: _Call, info_name: str) -> str:
        return f"call {call.index} of {call.path} ({info_name})"

    def _mismatch(self, ctx: "AgentContext", call: _Call, request: str | None) -> JournalMismatch:
        entry = call.entry
        assert entry is not None
        where = self._where(call, entry.agent)
        location = self.journal.logs[0].location if self.journal.logs else "the journal"
        if self._replays:
            message = f"{where} asks what the recording in {location} did not; record the run again"
        else:
            message = (f"{where} asks what its journaled call in {location} did not (the graph, or what the call "
                       "depends on, changed since): its side effects happened as journaled; resume with --force "
                       "(force=True) to make the call anew")
        return JournalMismatch(message, diff=_diff(self._journaled(call), request), path=call.path, index=call.index,
                               node_id=ctx.node_id)

    def _unrecorded(self, ctx: "AgentContext", call: _Call, request: str | None) -> JournalMismatch:
        location = self.journal.logs[0].location if self.journal.logs else "the journal"
        recorded = sorted(index for path, index in self.entries if path == call.path)
        held = f"it holds calls {', '.join(map(str, recorded))} there" if recorded else "it holds none there"
        message = (f"{self._where(call, str(ctx.agent_id))} was not recorded in {location} ({held}); "
                   "the graph asks what its recording did not: record the run again")
        return JournalMismatch(message, diff=_diff(None, request), path=call.path, index=call.index,
                               node_id=ctx.node_id)

    def _uncertain(self, ctx: "AgentContext", info: "AgentInfo", call: _Call) -> Any:
        """What an uncertain call gives: _MAKE to make it (again), or its result as a person said it."""
        if info.is_idempotent(ctx):
            return _MAKE
        key = f"{call.path}#{call.index}"
        answer = self.carryover.answer(key) if self.carryover.answers else None
        where = self._where(call, info.name)
        if answer is not None:
            self.carryover.take_answer(key)
            return _answered(answer, where, call)
        if self.journal.uncertain == "fail":
            raise UncertainCall(f"{where} started before the run stopped, and no result of it was kept: whether it "
                                "happened is unknown, and its agent is not idempotent; resume with --uncertain ask "
                                "to answer whether it did", path=call.path, index=call.index, node_id=ctx.node_id)
        asked = _shown(self._journaled(call))
        raise Interrupt(f"Did {where}, asked {asked}, happen before the run stopped? Its result was not kept. Answer "
                        "'no' to make it now, 'yes' if it happened, or {\"result\": ...} with what it returned.",
                        key=key)


_MAKE = object()


def _streamed_again(ctx: "AgentContext", info: "AgentInfo", value: Any) -> None:
    """A streamed reply taken from the journal streams its text again, as one token: what watches the run's events
    (the viewer, the CLI) shows it as it showed the reply when it was made. A streaming agent (`AgentInfo.stream`)
    asked to stream (`params.stream`, GraphAI's) replies with its `text`, as GraphAI's LLM agents do."""
    if not info.stream or not is_truthy(ctx.params.get("stream")) or not isinstance(value, dict):
        return
    text = value.get("text")
    if isinstance(text, str) and text:
        ctx.stream_token(text)


def _answered(answer: Any, where: str, call: _Call) -> Any:
    """The result a person's answer gives an uncertain call, or _MAKE (it did not happen: make it)."""
    if isinstance(answer, str):
        text = answer.strip()
        if text.lower() in _NO:
            return _MAKE
        if text.lower() in _YES:
            return None
        if text.startswith("{"):
            try:
                answer = json.loads(text)
            except ValueError:
                pass
    if isinstance(answer, bool):
        return None if answer else _MAKE
    if isinstance(answer, dict) and "result" in answer:
        return answer["result"]
    raise UncertainCall(f"{where}: the answer {str(answer)[:80]!r} says neither whether it happened nor what it "
                        "returned: answer no, yes, or {\"result\": ...}", path=call.path, index=call.index)


def _shown(request: str | None, limit: int = 300) -> str:
    """A request's JSON, cut to `limit` characters for a question."""
    if request is None:
        return "something JSON cannot hold"
    return request if len(request) <= limit else request[:limit] + "..."


def _diff(journaled: str | None, asked: str | None) -> str:
    """The journaled request against this one, as a unified diff of their JSON, one key a line."""
    import difflib  # only for an error

    def lines(text: str | None) -> list[str]:
        if text is None:
            return []
        try:
            return json.dumps(json.loads(text), indent=1, sort_keys=True, ensure_ascii=False).splitlines()
        except ValueError:
            return text.splitlines()

    diff = list(difflib.unified_diff(lines(journaled), lines(asked), "journaled", "asked now", lineterm="", n=2))
    return "\n".join(diff[:80] + (["..."] if len(diff) > 80 else []))


def encoded_request(inputs: Any, params: Any, redactor: Redactor) -> str | None:
    """A call's request as the journal keeps it (a cassette's tools compare with it); None where JSON cannot."""
    try:
        return encode_hidden({"inputs": inputs, "params": params}, redactor)
    except (Unsavable, RecursionError):
        return None

