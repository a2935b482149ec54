"""What a checkpoint store keeps: a run's record, its rows, and what graphrt serve keeps beside them.

A store keeps two things per run:

- a `RunRecord`: the graph's source (file, text, hash), injected values and
  config (credentials left out), the run's status and, once it completed, its results;
- `Row`s, written one at a time while the run goes: the static values at the start
  of an iteration (`kind="iteration"`), one row per completed node (`"node"`),
  and answers to questions (`"answer"`); a fork from inside a nested graph adds the
  results that graph keeps (`"inner"`, one row per nested path); what the run spent so far
  (`"usage"`, written with the others when it changed: the latest counts). Writing an iteration row drops the rows
  of earlier iterations, so a store holds one iteration per run, never the
  whole history, and a write costs the same at node 10 as at node 10,000.

A store may also keep a run's journal of outside calls (`JournalEntry`: graphrt/engine/journal.py), one entry per
call, kept for every iteration; and a server's store keeps webhooks (`Delivery`) and the lease by which one
server owns it (`Lease`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graphrt.base.states import CallState, RunStatus

__all__ = ["ANNOUNCED", "ANYTHING", "Announcement", "CLAIMS", "Delivery", "EVENTS", "JournalEntry", "Lease", "Row", "RunRecord", "RunSummary", "ServerRow"]


@dataclass
class RunRecord:
    """One saved run: what is needed to rebuild its Graph, and how it ended so far."""

    run_id: str
    graph_file: str | None
    graph_text: str | None
    graph_hash: str
    injected: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    all_results: bool = False
    status: str = RunStatus.RUNNING
    detail: dict[str, Any] = field(default_factory=dict)
    results: Any = None
    created_at: float = 0.0
    updated_at: float = 0.0
    parent: dict[str, Any] | None = None  # a fork's origin: {"run_id", "node_id", "set": [node ids given values]}

    def __post_init__(self) -> None:
        # A record an older graphrt saved spells two statuses its own way ("stopped", "completed"): read as today's.
        if self.status in RunStatus.LEGACY:
            self.status = RunStatus.read(self.status)

    @property
    def question(self) -> str | None:
        """The pending question of an interrupted run."""
        return self.detail.get("question") if self.status == RunStatus.INTERRUPTED else None


@dataclass(frozen=True)
class RunSummary:
    """What a listing of runs shows of one (`runs_page`)."""

    run_id: str
    graph_file: str | None
    status: str
    created_at: float
    updated_at: float
    parent: dict[str, Any] | None = None  # a fork's origin, as RunRecord.parent


@dataclass(frozen=True)
class Row:
    """One write of a running run: an iteration's static values, a node's result, or an answer."""

    run_id: str
    iteration: int
    kind: str  # "iteration" | "node" | "answer" | "inner" | "usage"
    key: str  # node id, answer key, nested path, or "" for an iteration and a usage
    value: str | None  # JSON text (encode_value); None for an iteration whose statics could not be saved


@dataclass(frozen=True)
class JournalEntry:
    """One outside call of a run (an LLM request, a tool call, a service's): what was asked and, once it returned,
    what came back, keyed by the run, the node path that made it and its index among that path's calls.

    `request` and `result` are JSON text (encode_value), the credentials the run knows hidden.
    """

    run_id: str
    path: str  # the node that made it, through nested graphs, map rows and loop iterations: "agent@2/0/tool"
    index: int  # its index among the calls that `path` made, from 0
    kind: str  # "llm", "tool", or "call" (an agent whose function info says it reaches outside the run)
    agent: str  # the agent called
    request: str | None  # what it was asked: the agent's inputs and params; None where JSON cannot hold them
    state: str = CallState.STARTED
    result: str | None = None  # what it returned, once it did
    started_at: float = 0.0  # time.time() when it was made
    ended_at: float | None = None  # time.time() when it returned


@dataclass
class Delivery:
    """A webhook of a run: a URL to call when the run ends (`state="subscribed"`, no body), or one call of it
    (`"pending"` until the receiver took it: `"delivered"`, or `"failed"` once the retries are spent)."""

    delivery_id: str
    run_id: str
    url: str
    event: str  # "subscribed", or what happened: "run.finished", "run.failed", "run.cancelled", "run.interrupted"
    body: str | None = None  # the JSON the receiver gets (redacted as HTTP answers are)
    state: str = "pending"  # a subscription's: "subscribed", then "ended" once its run ended and was delivered
    attempts: int = 0
    next_at: float = 0.0  # time.time() of the next attempt
    error: str | None = None  # why the last attempt failed
    created_at: float = 0.0


@dataclass(frozen=True)
class Lease:
    """Who holds a named lease of a store, and until when (a time.time()) unless renewed."""

    owner: str  # the holder's own token: only it renews or drops the lease
    holder: str  # what the holder says of itself (JSON: its process, machine, address)
    expires_at: float


class Announcement(NamedTuple):
    """What a store that several servers share announced (base.Announcements): only that something changed, to be
    read from the store. `topic` is one of ANNOUNCED; `subject` says of what."""

    topic: str
    subject: str


EVENTS = "events"
"""A run's events were saved: `subject` is the run's id."""
CLAIMS = "claims"
"""A server was asked something (a cancel of a run it holds, to drain): `subject` is its id; '' any server: runs
were left, for any server to claim."""
ANYTHING = "anything"
"""Announcements may have been missed (heard again after the store's connection broke): look at everything."""
ANNOUNCED = (EVENTS, CLAIMS, ANYTHING)


@dataclass(frozen=True)
class ServerRow:
    """A server on a store that several share (base.SharedServers): its id, what it says of itself (JSON), until
    when it lives unless it renews that, whether it drains, the runs it holds, and the store's clock when read."""

    server: str
    holder: str
    expires_at: float
    draining: bool
    runs: tuple[str, ...]
    now: float  # the store's clock when the row was read: `expires_at` compares with it

    @property
    def live(self) -> bool:
        return self.expires_at >= self.now
