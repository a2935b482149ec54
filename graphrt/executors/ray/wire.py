"""What crosses between the driver and a Ray worker: an agent call, its outcome, and errors that survive the trip.

An agent's exception comes back as itself when the driver can rebuild it, else as its
type's name and text (`rebuilt` makes a stand-in that keeps the name); a whole run's
GraphError comes back as itself, or as a plain GraphError with its message, node and place.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

from graphrt.base.errors import GraphError
from graphrt.base.usage import Usage

__all__ = ["Call", "Outcome", "failure", "portable", "rebuilt"]


@dataclass
class Call:
    """One agent call as a worker receives it: the context without the driver-only parts."""

    inputs: dict[str, Any]
    params: dict[str, Any]
    node_id: str
    agent_id: str | None
    filter_params: dict[str, Any]
    config: dict[str, Any]
    retry_count: int
    run_id: str
    path: tuple[str | int, ...]
    answer: Any
    relay: Any = None  # the driver has event subscribers: the actor the agent's events go to, as they happen
    key: str = ""  # this call's events in the relay


@dataclass
class Outcome:
    """What a worker sends back: the result (or its object ref), or the exception (events go by the relay); of a
    whole run, also what it spent (the run's `on_usage` is the driver's: it is called there with this)."""

    result: Any = None
    result_ref: Any = None
    error: BaseException | None = None
    error_type: str = ""
    error_text: str = ""
    usage: Usage | None = None


def failure(error: Exception) -> Outcome:
    """The agent's exception as it is, when the driver can rebuild it; else its type name and text."""
    error.__traceback__ = None
    if _rebuildable(error):
        return Outcome(error=error)
    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    return Outcome(error_type=type(error).__name__, error_text=str(error) or text)


def _rebuildable(error: Exception) -> bool:
    """Whether an exception survives the trip: rebuilt as `type(*args)` (BaseException's reduce), or its own reduce.

    An exception whose `__init__` wants other arguments than its `args` pickles but
    cannot be unpickled on the driver; it goes back as its type name and text instead.
    """
    kind = type(error)
    if kind.__reduce__ is not BaseException.__reduce__ or kind.__reduce_ex__ is not BaseException.__reduce_ex__:
        return True
    try:
        kind(*error.args)
    except Exception:  # noqa: BLE001 - any constructor failure means: send the text
        return False
    return True


class _RemoteException(Exception):
    """An agent's exception that could not cross the wire; it keeps the type's name in messages."""


def rebuilt(outcome: Outcome) -> BaseException:
    """The agent's exception of a failed outcome, in the driver: itself, or a stand-in of its type's name."""
    if outcome.error is not None:
        return outcome.error
    kind = type(outcome.error_type or "Exception", (_RemoteException,), {"__module__": __name__})
    return kind(outcome.error_text)


def portable(error: GraphError) -> GraphError:
    """The error itself if it survives pickling both ways, else a GraphError with its message, node and place."""
    from ray import cloudpickle

    error.__traceback__ = None
    try:
        cloudpickle.loads(cloudpickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 - any failure to cross: send what the message is made of
        plain = GraphError(error.message, node_id=error.node_id, field=error.field, location=error.location)
        plain.nested = error.nested
        return plain
