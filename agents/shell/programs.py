"""Which file a command runs, and whether the run's config allows that file: runShellAgent's allow-list.

The allow-list names files, not file names. An entry is a program name, which
means the file PATH gives for it now, or an absolute path, which means that
file. A command's program is found the same way: a name through PATH, a path
(anything with a `/`) from the folder the program runs in. It runs only if it
is one of the allowed files, and what runs is the file that was checked (its
path is handed to exec, which searches nothing). So with `allow: [echo]`,
`echo` runs /usr/bin/echo, and `/tmp/x/echo` or `./echo` (a file planted in the
run's folder) is refused, as sudoers and Deno's `--allow-run` match commands
by the file they resolve to.

Names are looked up in PATH's absolute folders only: a relative entry (`.` or
an empty one) would make the program depend on the folder it runs in, which a
graph chooses; Go's os/exec refuses such a lookup for the same reason. Two paths
are the same file when their folders resolve to the same real folder and the
names agree (/bin/echo is /usr/bin/echo where /bin links to /usr/bin); the last
symlink is not followed, since a link's name can change what a multi-call
program (busybox) does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphrt.base.errors import AgentError

__all__ = ["ShellNotAllowed", "Allowance", "allowance", "locate"]


class ShellNotAllowed(AgentError, PermissionError):
    """Raised when a graph asks to run a program that the run's config does not allow."""


_HOW = "{runShellAgent: {allow: [%r]}} (program names or absolute paths, or true for any)"


def _config_error(allow: Any) -> ValueError:
    return ValueError(f"runShellAgent: config 'allow' must be true, or a list of program names and absolute paths, "
                      f"got {allow!r}")


def _on_path(name: str) -> str | None:
    """The file exec would run for `name` through PATH's absolute folders (the first executable one), or None."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if os.path.isabs(folder):
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    return None


def _same_file_key(path: str) -> str:
    """`path` with its folder resolved (symlinks, `..`) and its own name kept: how two paths are compared."""
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.realpath(folder), name)


def locate(program: str, folder: str | None) -> str | None:
    """The absolute path of the file `program` runs in `folder`: a name through PATH, a path from the folder.

    Returns None for a name PATH does not have.
    """
    if "/" in program:
        return _same_file_key(os.path.join(folder or os.getcwd(), program))
    found = _on_path(program)
    return None if found is None else _same_file_key(found)


@dataclass(frozen=True)
class Allowance:
    """What the run's config allows: any program, or the files its entries name (None: not on PATH)."""

    any: bool
    entries: tuple[str, ...] = ()

    def check(self, program: str, path: str | None) -> None:
        """Raises ShellNotAllowed unless `path` (where `program` was found; None: nowhere) is allowed."""
        if self.any:
            return
        suggested = path if "/" in program and path else os.path.basename(program)
        how = _HOW % suggested
        if not self.entries:
            raise ShellNotAllowed(f"runShellAgent is off: it runs programs on this machine; whoever runs the graph can "
                                  f"allow {program!r} with the config {how}")
        allowed = {entry: locate(entry, None) for entry in self.entries}
        if path is not None and path in allowed.values():
            return
        found = f"{path}, which is not" if path is not None else "not on PATH, so not"
        listed = ", ".join(entry if where == entry else f"{entry}: {where or 'not on PATH'}"
                           for entry, where in allowed.items())
        raise ShellNotAllowed(f"runShellAgent: {program!r} is {found} among the programs the config allows "
                              f"({listed}); allow it with {how}")


def allowance(config: Mapping[str, Any] | None) -> Allowance:
    """The allow-list of runShellAgent's config (`allow`: true, or names and absolute paths; none when absent).

    Raises:
        ValueError: `allow` is something else (a string, a list holding a non-string or a relative path): a
            mistake in the config must not read as "nothing allowed", nor as anything else.
    """
    allow = (config or {}).get("allow")
    if allow is None or allow is False:
        return Allowance(any=False)
    if allow is True:
        return Allowance(any=True)
    if not isinstance(allow, list) or not all(
            isinstance(entry, str) and entry and ("/" not in entry or os.path.isabs(entry)) for entry in allow):
        raise _config_error(allow)
    return Allowance(any=False, entries=tuple(allow))
