"""A program run to its end, as one process group, with its output bounded: what runShellAgent runs through.

The program starts in a session of its own (setsid), so it and everything it
starts are one process group. When the call ends before the program does (a
node's timeout, Ctrl-C, an abort: anyio cancels the agent) or its output goes
past the limit, the whole group is killed (SIGKILL, at once, as the caller asked
for the run to stop), so nothing it started runs on after graphrt exits; only
the direct child would die otherwise. A program that ends by itself is waited
for until its output closes (as GraphAI's `close` event), and whatever it left
behind with its output closed is not touched, as a shell's `nohup` job is not.

The program reads nothing: its standard input is /dev/null, not graphrt's
(a terminal, or serve's).
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from typing import cast

import anyio
from anyio.abc import ByteReceiveStream, Process

from graphrt.base.errors import AgentError

__all__ = ["DEFAULT_MAX_BYTES", "Finished", "ShellOutputLimit", "run"]

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
"""The most bytes of output (stdout and stderr together) kept by default, as fetch's `maxBytes`."""


class ShellOutputLimit(AgentError):
    """Raised when a program writes more output than runShellAgent keeps (config `maxBytes`); it is stopped."""


@dataclass(frozen=True)
class Finished:
    """How a program ended: its exit status (negative: the signal that killed it, as Python's returncode)."""

    code: int
    stdout: bytes
    stderr: bytes


class _Output:
    """The two streams' bytes, and whether together they went past the limit."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.chunks: tuple[list[bytes], list[bytes]] = ([], [])
        self.over = False

    async def drain(self, stream: ByteReceiveStream, index: int, scope: anyio.CancelScope) -> None:
        async for chunk in stream:
            self.size += len(chunk)
            if self.size > self.max_bytes:
                self.over = True
                scope.cancel()
                return
            self.chunks[index].append(chunk)


def _kill_group(process: Process) -> None:
    """SIGKILL to the program's process group (its pid: it leads its own session)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # the group is gone already
        pass


async def run(argv: list[str], folder: str | None, *, max_bytes: int, shown: str) -> Finished:
    """Runs `argv` (argv[0] a path) in `folder` until it ends and its output closes.

    Raises:
        OSError: it cannot be started.
        ShellOutputLimit: it wrote more than `max_bytes` (the group is killed).
    """
    process = await anyio.open_process(argv, cwd=folder, stdin=subprocess.DEVNULL, start_new_session=True)
    output = _Output(max_bytes)
    ended = False
    try:
        async with anyio.create_task_group() as group:
            for index, stream in enumerate((process.stdout, process.stderr)):  # PIPEs, open_process's default
                group.start_soon(output.drain, cast(ByteReceiveStream, stream), index, group.cancel_scope)
            await process.wait()
        ended = not output.over
    finally:
        if not ended:
            _kill_group(process)
        with anyio.CancelScope(shield=True):
            await process.aclose()  # reaps the direct child (killed above if it had not ended)
    if output.over:
        raise ShellOutputLimit(f"runShellAgent: {shown!r} wrote more than {max_bytes:,} bytes of output, the limit "
                               "(config maxBytes); it was stopped")
    return Finished(process.returncode or 0, b"".join(output.chunks[0]), b"".join(output.chunks[1]))
