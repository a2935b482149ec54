"""`python -m graphrt`: the `graphrt` command, run by this interpreter."""

import sys

from graphrt.cli import command

sys.exit(command())
