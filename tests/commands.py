"""graphrt's command line run as a child process of a test."""

from __future__ import annotations

import sys

GRAPHRT = [sys.executable, "-m", "graphrt"]
"""`graphrt` run by the interpreter that runs the tests, not whichever `graphrt` is first on PATH."""
