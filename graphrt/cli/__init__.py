"""The `graphrt` command: one module per subcommand, wired together in `main`."""

from graphrt.cli.main import main

__all__ = ["main"]
