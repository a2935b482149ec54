"""The `graphrt` command: one module per subcommand, wired together in `main`."""

from .main import main

__all__ = ["main"]
