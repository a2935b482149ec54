"""`PostgresListener`: what the servers on one PostgreSQL store announce, heard through LISTEN.

The store's triggers and statements announce with NOTIFY, in the transaction that writes (postgres_claims.py):
PostgreSQL delivers a notification only once that transaction commits, and folds the same one made twice in a
transaction, so one commit of a run's 40 events is one announcement. A listener has a connection of its own,
opened at its first `heard`, waited on by a worker thread (the event loop never waits for the database, on asyncio
and trio alike). Notifications sent while that connection was down are lost: the first `heard` after it is made
again says `ANYTHING`, and those who wait read what they follow.
"""

from __future__ import annotations

import threading
from typing import Any

import anyio

from graphrt.base.secrets import hide_credentials
from graphrt.checkpoint.errors import StoreFailed
from graphrt.checkpoint.records import ANYTHING, CLAIMS, EVENTS, Announcement

__all__ = ["CHANNELS", "PostgresListener"]

CHANNELS = {"graphrt_events": EVENTS, "graphrt_claims": CLAIMS}
"""The NOTIFY channels, by the topic each announces."""


class PostgresListener:
    """Hears the store's announcements (base.Announcements' `heard`) on a connection of its own to `url`."""

    def __init__(self, url: str) -> None:
        import psycopg

        self._psycopg = psycopg
        self._url = url
        self.location = hide_credentials(url)
        self._db: Any = None
        self._lock = threading.Lock()  # one thread at a time on the connection
        self._closed = False

    async def heard(self, timeout: float) -> list[Announcement]:
        """What was announced, waiting up to `timeout` seconds for the first. A waiter cancelled leaves the thread
        to end its wait (at most `timeout`): nothing it heard is lost, the next call starts with it."""
        return await anyio.to_thread.run_sync(self._heard, max(0.0, timeout), abandon_on_cancel=True)

    def close(self) -> None:
        """Stops listening: the connection is closed now, or by the thread waiting on it once its wait ends."""
        self._closed = True
        if self._lock.acquire(blocking=False):
            try:
                self._disconnect()
            finally:
                self._lock.release()

    # ----- the listening thread -----

    def _heard(self, timeout: float) -> list[Announcement]:
        with self._lock:
            if self._closed:
                self._disconnect()
                return []
            fresh = self._db is None
            try:
                if fresh:
                    self._connect()
                found = [Announcement(CHANNELS[note.channel], note.payload)
                         for note in self._db.notifies(timeout=0.0 if fresh else timeout, stop_after=1)
                         if note.channel in CHANNELS]
            except self._psycopg.Error as error:
                self._disconnect()
                if self._closed:
                    return []
                raise StoreFailed(f"cannot hear checkpoint database {self.location}: {_first_line(error)}") from None
            if self._closed:
                self._disconnect()
            return [Announcement(ANYTHING, ""), *found] if fresh else found

    def _connect(self) -> None:
        db = self._psycopg.connect(self._url, autocommit=True)
        try:
            for channel in CHANNELS:
                db.execute(f"LISTEN {channel}")
        except BaseException:
            db.close()
            raise
        self._db = db

    def _disconnect(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            try:
                db.close()
            except self._psycopg.Error:
                pass  # closing a broken connection


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return hide_credentials(text.splitlines()[0]) if text else type(error).__name__
