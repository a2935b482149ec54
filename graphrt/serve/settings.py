"""`ServerSettings`: how one `graphrt serve` runs, in one object built once and read by everything that serves.

`graphrt serve` builds it from its options (cli/serve_command.py); `create_app` and
the RunService read it, and so may an Extension (`service.settings`). No default is
written here: each comes from graphrt.base.defaults (what a server uses unless told)
or graphrt.base.limits (what may come in from outside), as the command's options and
their help do, so that `graphrt serve --help`, `create_app(...)` and `RunService(...)`
cannot drift apart.

Two settings keep apart what one name once meant twice: `retention.keep_runs`
(`--keep-runs`) is how many ended runs the store keeps; `runs_in_memory` is how many
runs the server keeps in memory to answer without reading the store.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from graphrt.base.defaults import (
    EVENT_HOLD_SECONDS,
    EVENTS_IN_MEMORY,
    HOST,
    LEASE_SECONDS,
    MAX_QUEUE,
    MAX_RUNS,
    MAX_UNSAVED_EVENTS,
    PORT,
    RUNS_IN_MEMORY,
)
from graphrt.base.limits import MAX_BODY, MAX_CONNECTIONS, MAX_STREAMS
from graphrt.serve.retention import Retention
from graphrt.serve.webhooks import WebhookSettings

__all__ = ["ServerSettings"]


@dataclass(frozen=True)
class ServerSettings:
    """How one server runs.

    Attributes:
        host, port: where it listens (a request may name `host` as its Host; port 0 picks a free one).
        api_key: required on every API request when set (Bearer or X-API-Key); it also signs webhook calls.
        max_runs: runs at once; the others wait in a queue of at most `max_queue` (then 429).
        max_body: the largest request body, in bytes (413 past it).
        max_connections: connections open at once (503 past it); `max_streams` of them may be event streams
            (SSE readers), past which a reader gets 503, not a hung server.
        allowed_hosts: other host names requests may name (DNS rebinding: only loopback names and `host` by default).
        cors_origins: web origins whose pages may call the API (`*`: any); none by default.
        retention: which ended runs the store keeps (the newest KEEP_RUNS by default).
        webhooks: the server's webhook and how runs' own are called (graphrt.serve.webhooks).
        lease_seconds: how long the store stays this server's after its last heartbeat (serve/lease.py).
        runs_in_memory: runs kept in memory, ended ones let go first (the store keeps what `retention` leaves).
        events_in_memory: a run's newest events kept in memory for its readers.
        max_unsaved_events, event_hold_seconds: a run's events that may wait for the store before the run is held,
            and how long it may be held before it fails.
    """

    host: str = HOST
    port: int = PORT
    api_key: str | None = None
    max_runs: int = MAX_RUNS
    max_queue: int = MAX_QUEUE
    max_body: int = MAX_BODY
    max_connections: int = MAX_CONNECTIONS
    max_streams: int = MAX_STREAMS
    allowed_hosts: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    retention: Retention = field(default_factory=Retention)
    webhooks: WebhookSettings = field(default_factory=WebhookSettings)
    lease_seconds: float = LEASE_SECONDS
    runs_in_memory: int = RUNS_IN_MEMORY
    events_in_memory: int = EVENTS_IN_MEMORY
    max_unsaved_events: int = MAX_UNSAVED_EVENTS
    event_hold_seconds: float = EVENT_HOLD_SECONDS

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed_hosts", tuple(self.allowed_hosts))  # a list given is kept as a tuple
        object.__setattr__(self, "cors_origins", tuple(self.cors_origins))
        if self.max_runs < 1 or self.max_queue < 0:
            raise ValueError("max_runs must be at least 1 and max_queue at least 0")
        if min(self.max_body, self.max_connections, self.max_streams, self.runs_in_memory, self.events_in_memory,
               self.max_unsaved_events) < 1:
            raise ValueError("max_body, max_connections, max_streams, runs_in_memory, events_in_memory and "
                             "max_unsaved_events must be at least 1")
        if not (self.lease_seconds > 0 and self.event_hold_seconds > 0):
            raise ValueError("lease_seconds and event_hold_seconds must be more than 0")

    @property
    def signed_webhooks(self) -> WebhookSettings:
        """The webhooks' settings, their calls signed with the API key unless they name a key of their own."""
        if self.webhooks.key is None and self.api_key:
            return dataclasses.replace(self.webhooks, key=self.api_key)
        return self.webhooks
