"""The line a command writes on stderr after a run that spent anything: `graphrt: usage: 3 LLM calls, ...`."""

from __future__ import annotations

from typing import TextIO

from graphrt.base.usage import Usage

__all__ = ["UsageNote"]


class UsageNote:
    """Keeps what the last run it was given spent (it is the run's `on_usage`), and writes it as one line."""

    def __init__(self) -> None:
        self.usage: Usage | None = None

    def __call__(self, usage: Usage) -> None:
        self.usage = usage

    def write(self, stream: TextIO) -> None:
        """`graphrt: usage: ...` when the run made any LLM or tool call (a run of plain agents says nothing)."""
        if self.usage is not None and self.usage:
            print(f"graphrt: usage: {self.usage.summary()}", file=stream)
