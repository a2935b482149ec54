"""Python's cyclic garbage collector held off while a large tree of objects is built or walked.

Parsing a big graph file makes millions of objects that all stay alive. The
collector runs every few hundred allocations and, each time the live objects
grow by a quarter, walks all of them: on a 100,000-node file it was about
60% of the parse, and almost all of composing the text for an error's
position while the parsed graph is in memory. Validating, compiling and
modelling a large graph are the same: bounded work over a big live tree that
makes no reference cycles worth collecting in between, so the collector waits
until each is done. A run is not: it may go on for hours.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disables the cyclic collector inside the block, and enables it again after if it was on.

    The switch is process-wide: another thread's allocations wait for collection
    too, never longer than the block (a nested or concurrent block leaves it to
    the outermost one that turned it off).
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
