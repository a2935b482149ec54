"""What graphrt uses when it is not told otherwise: the defaults that more than one module needs.

Each is written here once; the commands' options (their defaults and the help that states them),
the functions that take the same setting and the server's own classes all read it from here, so
that `graphrt serve --help` and `create_app(...)` cannot drift apart. The limits on input from
outside (a request body, connections) are in `graphrt.base.limits`.
"""

from __future__ import annotations

__all__ = ["EVENTS_IN_MEMORY", "EVENT_HOLD_SECONDS", "HOST", "KEEP_RUNS", "LEASE_SECONDS", "MAX_QUEUE", "MAX_RUNS",
           "MAX_UNSAVED_EVENTS", "PORT", "RUNS_IN_MEMORY", "RUNS_STORE", "UNCERTAIN_CALLS"]

HOST = "127.0.0.1"
"""The address a server listens on (graphrt serve, graphrt mcp --http): loopback only."""

PORT = 8000
"""The port graphrt serve listens on."""

RUNS_STORE = "graphrt-runs.db"
"""The checkpoint store graphrt serve saves its runs in, and where graphrt resume and fork look for a saved run,
in the current folder."""

MAX_RUNS = 8
"""Runs a server runs at once; the others wait in its queue."""

MAX_QUEUE = 1000
"""Runs waiting for a server's slot; past it a new run is refused (HTTP 429)."""

KEEP_RUNS = 10_000
"""Ended runs a server's store keeps (the most recent): older ones are deleted with their events
(`graphrt serve --keep-runs`, serve.retention.Retention)."""

RUNS_IN_MEMORY = 1000
"""Runs a server keeps in memory, ended ones let go first; the store keeps what retention leaves (`KEEP_RUNS`)."""

EVENTS_IN_MEMORY = 10_000
"""Events of one of a server's runs kept in memory for the readers of its stream, the newest; older ones are read
from the store (when it keeps event logs), else a reader is told how many it missed."""

MAX_UNSAVED_EVENTS = 10_000
"""Events of one of a server's runs that may wait for the store before the run is held at its next step (and failed
at twice as many): a store that cannot keep up fails the run that outpaces it, never an event that looks saved."""

EVENT_HOLD_SECONDS = 120.0
"""How long a server's run may be held waiting for its events to be saved before it fails."""

LEASE_SECONDS = 30.0
"""How long a server's store stays its own after the last renewal: another server on it refuses to start."""

UNCERTAIN_CALLS = ("ask", "fail")
"""What a run does with a call with side effects that started and left no result in its journal, of an agent that is
not idempotent (graphrt/engine/journal.py): ask a person whether it happened (the default, first), or fail
(`arun_checkpointed(uncertain=)`, `--uncertain`)."""
