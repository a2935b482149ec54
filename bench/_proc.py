"""Small helpers shared by the engine runners: memory readings and the result line."""

from __future__ import annotations

import json
import os
import resource
import sys
from typing import Any

__all__ = ["RESULT_PREFIX", "rss_kb", "peak_rss_kb", "emit"]

# Engines may print warnings on stdout; the driver reads only the line that starts with this.
RESULT_PREFIX = "BENCH_RESULT "
_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def rss_kb() -> int:
    """This process's resident memory now, in KiB (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * _PAGE_KB
    except OSError:
        return 0


def peak_rss_kb() -> int:
    """This process's peak resident memory so far, in KiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def emit(record: dict[str, Any]) -> None:
    """Prints the runner's one result line and flushes it."""
    sys.stdout.write(RESULT_PREFIX + json.dumps(record, separators=(",", ":")) + "\n")
    sys.stdout.flush()
