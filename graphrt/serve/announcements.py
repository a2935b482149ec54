"""What the other servers on a shared store announce, handed to what waits for it on this one.

On a store several servers share (held_store.py), a reader of a run another server runs follows the store's
copy of its log (followed_log.py), a cancel asked here of a run another server holds waits for the store to say
it ended, and a server waits for the cancels and drains asked of it through others. On a store that announces
what is written (base.Announcements: PostgreSQL's NOTIFY), each of these waits for an announcement instead of
asking the store over and over; they still look now and then, for what an announcement can miss (the store's
connection made again, a server killed before its lease ran out). A store that announces nothing leaves them
to look as often as before (`live` is False).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio

from graphrt.base.errors import GraphError
from graphrt.checkpoint.guard import GuardedStore
from graphrt.checkpoint.records import ANYTHING, CLAIMS, EVENTS

__all__ = ["Announced"]

log = logging.getLogger("graphrt.serve")

_HEARD_WAIT = 5.0
"""Seconds a listen waits for an announcement before it asks again (the listener's thread is busy that long)."""
_RETRY = 1.0
"""Seconds before listening again after the store could not be heard."""


class Announced:
    """The store's announcements on this server: `changed(run_id)` is set when the run's events are saved, and
    `claims(server)` is called when a server is asked something (its id, '' for any).

    Args:
        store: the shared store, as this server uses it.
        claims: called with the server an announcement asks something of (a cancel, a drain, runs left: '').
    """

    def __init__(self, store: GuardedStore, claims: Callable[[str], None]) -> None:
        self.store = store
        self.claims = claims
        self.live = False  # the store is heard now: waiting for its announcements misses nothing but what it says
        self._changed: dict[str, anyio.Event] = {}  # run id -> set at its next announcement

    def changed(self, run_id: str) -> anyio.Event:
        """An event set when the run's events are next announced saved (or when announcements may have been
        missed). Taken before reading the run, so that what is saved while it is read is not missed."""
        event = self._changed.get(run_id)
        if event is None:
            event = self._changed[run_id] = anyio.Event()
        return event

    def forget(self, run_id: str) -> None:
        """Nothing more is awaited of the run (it ended): its event is not kept. Another waiter on it, if any, is
        woken, and looks at the store itself."""
        event = self._changed.pop(run_id, None)
        if event is not None:
            event.set()

    async def listen(self) -> None:
        """Hears the store's announcements until cancelled; a store that cannot be heard is heard again later,
        and meanwhile those who wait look at it themselves."""
        if not self.store.abilities.announcements:
            return
        while True:
            try:
                heard = await self.store.heard(_HEARD_WAIT)
            except GraphError as error:
                if self.live:
                    log.warning("the store's announcements cannot be heard (runs of other servers are looked at "
                                "every second until they are): %s", error)
                self._lost()
                await anyio.sleep(_RETRY)
                continue
            self.live = True
            for topic, subject in heard:
                if topic == EVENTS:
                    event = self._changed.pop(subject, None)
                    if event is not None:
                        event.set()
                elif topic == CLAIMS:
                    self.claims(subject)
                elif topic == ANYTHING:
                    self._wake_all()
                    self.claims("")

    def _lost(self) -> None:
        self.live = False
        self._wake_all()  # those who wait look at the store themselves from now on

    def _wake_all(self) -> None:
        changed, self._changed = self._changed, {}
        for event in changed.values():
            event.set()
