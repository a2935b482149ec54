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

A server's store also keeps webhooks (`Delivery`) and the lease by which one server owns it (`Lease`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphrt.base.states import RunStatus

__all__ = ["Delivery", "Lease", "Row", "RunRecord", "RunSummary"]


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
