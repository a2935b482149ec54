"""Python's cyclic garbage collector held off while a large graph is built or walked.

Parsing a big graph file makes millions of objects that all stay alive. The
collector runs every few hundred allocations and, each time the live objects
grow by a quarter, walks all of them: on a 100,000-node file it was about
60% of the parse, and almost all of composing the text for an error's
position while the parsed graph is in memory. Validating, compiling and
modelling a large graph are the same: bounded work over a big live tree that
makes no reference cycles worth collecting in between, so the collector waits
until each is done. A run is not: it may go on for hours.

The switch is the process's, not the graph's: while it is off, every thread's
garbage waits. So only a large graph turns it off (`LARGE_TEXT` characters of a
file, `LARGE_GRAPH` nodes), where the collector's walks grow with the graph (CPU
time of parsing, validating and compiling with it on: 1,000 nodes +2%, 10,000
+9%, 30,000 +34%); building a graph of a few hundred nodes, as a server does for
a run, leaves the collector as it is (it costs such a build about 1% of its
instructions).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["LARGE_GRAPH", "LARGE_TEXT", "collector_paused", "is_large"]

LARGE_TEXT = 100_000  # characters of a graph's text from which the collector waits while the text is read
LARGE_GRAPH = 1_000  # nodes of a graph from which the collector waits while it is checked, compiled or drawn


def is_large(data: Any) -> bool:
    """Whether GraphData has `LARGE_GRAPH` nodes or more (its nested graphs not counted)."""
    nodes = data.get("nodes") if isinstance(data, dict) else None
    return isinstance(nodes, dict) and len(nodes) >= LARGE_GRAPH


@contextmanager
def collector_paused(large: bool) -> Iterator[None]:
    """Disables the cyclic collector inside the block when the work is `large`, and enables it again after if it
    was on; otherwise leaves it alone.

    The switch is process-wide: another thread's allocations wait for collection
    too, never longer than the block (a nested or concurrent block leaves it to
    the outermost one that turned it off).
    """
    if not large or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
