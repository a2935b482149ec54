"""graphrt's command line run as a child process of a test."""

from __future__ import annotations

import sys

GRAPHRT = [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
           "from graphrt.cli import main; sys.exit(main())"]
"""`graphrt` on this interpreter, with Ctrl-C (SIGINT) handled as Python handles it by default. A shell starts a
background job with SIGINT ignored, and a child inherits that: where pytest was started so (a CI runner's script),
a test that sends SIGINT would otherwise wait for ever."""
