"""A durable event log (serve/events.py with serve/event_saver.py): readers see saved records only, and records
no longer in memory come from the store."""

from __future__ import annotations

import pytest

from graphrt.checkpoint import SQLiteStore
from graphrt.serve.event_saver import EventSaver

pytestmark = [pytest.mark.anyio, pytest.mark.needs("serve")]


async def test_readers_see_saved_records_and_older_ones_come_from_the_store(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    try:
        saver = EventSaver(store)
        log = saver.log_for("r1", limit=3, first_id=1)
        for number in range(1, 11):
            log.append({"type": "Tick", "n": number})
        assert log.after(0) == ([], 0) and log.last_id == 0  # nothing is shown before it is saved

        await saver.flush()

        assert log.last_id == 10 and await store.last_event_id("r1") == 10
        read, sent = [], 0
        while sent < log.last_id:
            records, missed = await log.read(sent, limit=4)
            assert missed == 0
            read += records
            sent = records[-1][0]
        assert read == [(number, {"type": "Tick", "n": number}) for number in range(1, 11)]

        later = saver.log_for("r1", limit=3, first_id=11)  # the same run read back by a later server
        later.append({"type": "Tick", "n": 11})
        await saver.flush()
        assert (await later.read(9))[0] == [(10, {"type": "Tick", "n": 10}), (11, {"type": "Tick", "n": 11})]
        assert (await later.read(10))[0] == [(11, {"type": "Tick", "n": 11})]
    finally:
        await store.close()
