"""Waiting on what another process or thread changes: a condition polled until it holds, with a hang guard."""

from __future__ import annotations

import time
from typing import Any, Callable


def wait_until(condition: Callable[[], Any], what: str, seconds: float = 60) -> None:
    """Polls `condition` (a file a worker writes, a flag a server thread sets) until it holds.

    The deadline only guards against a hang: when it passes, the test fails saying `what` never happened.
    """
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:g} s")
        time.sleep(0.02)
