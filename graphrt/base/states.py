"""Every state a node or a run can be in, each vocabulary named once; logs, files and the API use the values as-is.

A node has one vocabulary, `NodeState`, that the engine, the API's run states
and node events, and the viewer page share: GraphAI's values, so logs read as
GraphAI's, and one of graphrt's own, `interrupted` (its agent asked a person), so
no client reads a question from an error's text. A run has two:

    RunStatus        a run as a checkpoint store saves it: written into files and databases,
                     so its values never change
    ServedRunStatus  a run as `graphrt serve`'s API and viewer show it (a run may be queued there)

`served_status` is how a saved run is shown. The viewer page reads these values
from the server (`vocabulary()`, embedded in the page), never restating them.
"""

from __future__ import annotations

from enum import StrEnum, nonmember
from typing import Any

__all__ = ["NodeState", "RunStatus", "ServedRunStatus", "served_status", "vocabulary"]


class NodeState(StrEnum):
    """Where a node is in its life: in the engine, in the API and on the viewer page alike.

    The values are GraphAI's, so logs read the same, but for INTERRUPTED, which
    GraphAI lacks. A node being retried stays EXECUTING (its events count the attempts).
    """

    WAITING = "waiting"
    QUEUED = "queued"
    EXECUTING = "executing"
    COMPLETED = "completed"
    FAILED = "failed"
    TIMED_OUT = "timed-out"
    SKIPPED = "skipped"
    ABORTED = "abort"  # cancelled while queued or executing (the run was cancelled, or failed elsewhere)
    INTERRUPTED = "interrupted"  # its agent asked a person a question: the run waits for the answer

    ENDED = nonmember(frozenset({COMPLETED, FAILED, TIMED_OUT, SKIPPED, ABORTED}))


class RunStatus(StrEnum):
    """A saved run's status, as a checkpoint store writes it (the values are in files and databases)."""

    RUNNING = "running"  # started, or stopped without a chance to say so (a crash, SIGKILL)
    INTERRUPTED = "interrupted"  # an agent asked a question; `detail` holds it
    STOPPED = "stopped"  # cancelled (Ctrl-C, abort)
    FAILED = "failed"  # a node failed; `detail["error"]` says how
    COMPLETED = "completed"  # finished; `results` holds what the run returned

    # Groups, not members (nonmember): a store compares the text it reads with them.
    UNFINISHED = nonmember(frozenset({RUNNING, INTERRUPTED, STOPPED, FAILED}))
    ALL = nonmember(frozenset({RUNNING, INTERRUPTED, STOPPED, FAILED, COMPLETED}))
    ENDED = nonmember(frozenset({STOPPED, FAILED, COMPLETED}))  # no one runs it or waits on it: retention may drop it


class ServedRunStatus(StrEnum):
    """A run as `graphrt serve` shows it: queued until a worker takes it, then running until it settles."""

    QUEUED = "queued"
    RUNNING = "running"
    INTERRUPTED = "interrupted"  # an agent asked a question; `question` holds it, POST /runs/{id}/resume answers
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"

    ENDED = nonmember(frozenset({FINISHED, FAILED, CANCELLED}))
    SETTLED = nonmember(frozenset({INTERRUPTED, FINISHED, FAILED, CANCELLED}))  # what `?wait=true` waits for


_SERVED_STATUS = {
    RunStatus.RUNNING: ServedRunStatus.QUEUED,  # saved, not finished: it goes back in the queue
    RunStatus.INTERRUPTED: ServedRunStatus.INTERRUPTED,
    RunStatus.STOPPED: ServedRunStatus.CANCELLED,
    RunStatus.FAILED: ServedRunStatus.FAILED,
    RunStatus.COMPLETED: ServedRunStatus.FINISHED,
}


def served_status(saved: str) -> ServedRunStatus:
    """How the server shows a run a store saved with status `saved` (an unknown one as failed)."""
    return _SERVED_STATUS.get(saved, ServedRunStatus.FAILED)  # type: ignore[call-overload]


def vocabulary() -> dict[str, Any]:
    """The API's states as JSON, for clients that must not restate them (the viewer page)."""
    return {
        "runStatus": {member.name: member.value for member in ServedRunStatus},
        "runEnded": sorted(ServedRunStatus.ENDED),
        "runSettled": sorted(ServedRunStatus.SETTLED),
        "nodeState": {member.name: member.value for member in NodeState},
        "nodeEnded": sorted(NodeState.ENDED),
    }
