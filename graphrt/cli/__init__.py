"""The `graphrt` command: one module per subcommand, wired together in `main`."""

from graphrt.cli.main import command, main

__all__ = ["command", "main"]
