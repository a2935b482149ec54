"""Every state a node or a run can be in, each vocabulary named once; logs, files and the API use the values as-is.

A node has one vocabulary, `NodeState`, that the engine, the API's run states
and node events, and the viewer page share: GraphAI's values, so logs read as
GraphAI's, and one of graphrt's own, `interrupted` (its agent asked a person), so
no client reads a question from an error's text. A run has one too, `RunStatus`:
the durable engine saves it, every checkpoint store writes it, and `graphrt serve`'s
API, its events and its viewer page show it, all with the API's names (queued,
running, interrupted, finished, failed, cancelled). An outside call in a run's journal has one,
`CallState` (started, returned), which the stores write and the API shows.

The viewer page reads these values from the server (`vocabulary()`, embedded in
the page), never restating them.
"""

from __future__ import annotations

from enum import StrEnum, nonmember
from typing import Any

__all__ = ["CallState", "NodeState", "RunStatus", "vocabulary"]


class NodeState(StrEnum):
    """Where a node is in its life: in the engine, in the API and on the viewer page alike.

    The names and values are GraphAI's (its `NodeState.Abort` is "abort"), so logs read the
    same, but for INTERRUPTED, which GraphAI lacks. A node being retried stays EXECUTING (its
    events count the attempts).
    """

    WAITING = "waiting"
    QUEUED = "queued"
    EXECUTING = "executing"
    COMPLETED = "completed"
    FAILED = "failed"
    TIMED_OUT = "timed-out"
    SKIPPED = "skipped"
    ABORT = "abort"  # aborted: cancelled while queued or executing (its run was cancelled, or stopped by an error)
    INTERRUPTED = "interrupted"  # its agent asked a person a question: the run waits for the answer

    ENDED = nonmember(frozenset({COMPLETED, FAILED, TIMED_OUT, SKIPPED, ABORT}))


class RunStatus(StrEnum):
    """Where a run is in its life: in the engine's saved runs, in every checkpoint store, in the API and on the page.

    The values are the API's. A store writes them as they are; a store written by graphrt
    before the vocabulary was one holds two other spellings, read as their members
    (`RunStatus.read`: `stopped` is CANCELLED, `completed` is FINISHED), so old files and
    databases open and show the right status without being rewritten.
    """

    QUEUED = "queued"  # accepted, waiting for a worker (a server's run; a store never saves it)
    RUNNING = "running"  # started, or stopped without a chance to say so (a crash, SIGKILL)
    INTERRUPTED = "interrupted"  # an agent asked a question: `question` holds it, an answer resumes the run
    FINISHED = "finished"  # `results` holds what the run returned
    FAILED = "failed"  # a node failed; the error says how
    CANCELLED = "cancelled"  # stopped on purpose (Ctrl-C, abort, the API's cancel)

    # Groups, not members (nonmember): code compares the text it reads with them.
    ALL = nonmember(frozenset({QUEUED, RUNNING, INTERRUPTED, FINISHED, FAILED, CANCELLED}))
    # What a resume continues: every status but FINISHED (a failed or cancelled run too, so it overlaps ENDED).
    RESUMABLE = nonmember(frozenset({QUEUED, RUNNING, INTERRUPTED, CANCELLED, FAILED}))
    ENDED = nonmember(frozenset({FINISHED, FAILED, CANCELLED}))  # no one runs it or waits on it: retention may drop it
    SETTLED = nonmember(frozenset({INTERRUPTED, FINISHED, FAILED, CANCELLED}))  # what `?wait=true` waits for
    LEGACY = nonmember({"stopped": CANCELLED, "completed": FINISHED})  # what graphrt's stores wrote before

    @classmethod
    def read(cls, saved: str) -> "RunStatus":
        """The status a store's text means, an older graphrt's spelling included.

        Raises:
            ValueError: the text is no status graphrt writes or wrote.
        """
        return cls(cls.LEGACY.get(saved, saved))

    @classmethod
    def spellings(cls, statuses: "frozenset[str] | set[str]") -> tuple[str, ...]:
        """Every text a store may hold for these statuses (for a query that filters by status), sorted."""
        return tuple(sorted({*statuses, *(old for old, status in cls.LEGACY.items() if status in statuses)}))


class CallState(StrEnum):
    """Where an outside call of a run stands in its journal (graphrt/engine/journal.py), in the stores and the API."""

    STARTED = "started"  # made, and no result kept yet: after a crash, whether it happened is uncertain
    RETURNED = "returned"  # its result is kept: a resumed or replayed run takes it instead of calling again


def vocabulary() -> dict[str, Any]:
    """The API's states as JSON, for clients that must not restate them (the viewer page)."""
    return {
        "runStatus": {member.name: member.value for member in RunStatus},
        "runEnded": sorted(RunStatus.ENDED),
        "runSettled": sorted(RunStatus.SETTLED),
        "nodeState": {member.name: member.value for member in NodeState},
        "nodeEnded": sorted(NodeState.ENDED),
        "callState": {member.name: member.value for member in CallState},
    }
