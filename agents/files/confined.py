"""Files inside a base folder, and nowhere else: the walk the file agents open every path through.

The base folder is the agent's config `baseDir` (set by whoever runs the graph),
or, without one, the node's `params.baseDir` (the graph's word, as in GraphAI);
with both, `params.baseDir` is a folder inside the config's. A path is then
opened one component at a time from the base folder's descriptor (`openat`),
never by name from the root, so that what is checked is what is opened:

- `..` that would climb above the base folder is refused;
- an absolute path is refused unless it names a place inside the base folder;
- a symlink is followed only when its target stays inside (a relative one is
  walked like the path, and may not climb above the base even to come back, as
  with openat2's RESOLVE_BENEATH; an absolute one must lie under the base's real path);
- each folder is opened with O_NOFOLLOW, and so is the file itself, so a
  component that becomes a symlink after it was checked is refused, and a
  folder renamed or replaced after it was opened keeps the walk in the folder
  it opened (inside the base).

Only regular files are read or written: a FIFO, a socket or a device in the
base folder is refused without waiting on it (`open_located`).

Hard links are not symlinks and cannot be told apart: a hard link to a file
outside is the file's other name inside.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from graphrt.base.errors import AgentError

__all__ = ["OutsideBaseFolder", "NotAFile", "BaseFolder", "Located", "base_folder", "locate", "open_located"]

_MAX_SYMLINKS = 40  # as Linux's path walk
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class OutsideBaseFolder(AgentError, PermissionError):
    """Raised when a path would reach outside the file agents' base folder (or has no base folder to be in)."""


class NotAFile(AgentError, OSError):
    """Raised when a file agent's path names a FIFO, a socket or a device: it reads and writes regular files."""


@dataclass(frozen=True)
class BaseFolder:
    """An open base folder: the path results name files by, its real path, and its descriptor."""

    path: str
    real: str
    fd: int


@dataclass(frozen=True)
class Located:
    """Where a path ends: the folder it is in (an open descriptor, the caller's to close) and its last name."""

    dir_fd: int
    name: str
    path: str  # as GraphAI reports it: path.resolve(path.join(baseDir, file))
    given: str  # as the node gave it, for messages


def _absolute(path: str) -> str:
    return os.path.normpath(os.path.join(os.getcwd(), path))


@contextmanager
def base_folder(agent: str, params: Mapping[str, Any], config: Mapping[str, Any] | None) -> Iterator[BaseFolder]:
    """The base folder of a call, open for the walk (closed afterwards).

    Raises:
        OutsideBaseFolder: neither the config nor the params give one, or `params.baseDir` leaves the config's.
        FileNotFoundError, NotADirectoryError: the base folder is not there.
    """
    root = (config or {}).get("baseDir")
    given = params.get("baseDir")
    given = given if isinstance(given, str) and given else None
    if not isinstance(root, str) or not root:
        if given is None:
            raise OutsideBaseFolder(f"{agent}: params.baseDir is UNDEFINED! (file agents work inside a base folder: "
                                    f"set params.baseDir, or baseDir in the agent's config)")
        fd = _open_folder(given, agent, "params.baseDir")  # the graph's own base may itself be a symlink
        try:
            yield _opened(_absolute(given), fd)
        finally:
            os.close(fd)
        return
    root_fd = _open_folder(root, agent, "config baseDir")
    try:
        root_folder = _opened(_absolute(root), root_fd)
        if given is None:
            yield root_folder
            return
        inner = locate(root_folder, given, "params.baseDir", agent)
        try:
            fd = os.open(inner.name, _DIRECTORY, dir_fd=inner.dir_fd)
        except OSError as error:
            raise _refused_race(error, agent, "params.baseDir", given) from error
        finally:
            os.close(inner.dir_fd)
        try:
            yield _opened(inner.path, fd)
        finally:
            os.close(fd)
    finally:
        os.close(root_fd)


def _open_folder(path: str, agent: str, field: str) -> int:
    try:
        return os.open(path, _DIRECTORY & ~os.O_NOFOLLOW)
    except OSError as error:
        raise type(error)(error.errno, f"{agent}: {field} {path!r}: {error.strerror}") from error


def _opened(path: str, fd: int) -> BaseFolder:
    return BaseFolder(path, os.path.realpath(f"/proc/self/fd/{fd}") if os.path.isdir("/proc/self/fd")
                      else os.path.realpath(path), fd)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _parts(base: BaseFolder, path: str, field: str, agent: str) -> list[str]:
    if "\0" in path:
        raise OutsideBaseFolder(f"{agent}: {field} {path!r} holds a NUL character")
    if os.path.isabs(path):
        wanted = os.path.normpath(path)
        for folder in (base.path, base.real):
            if _inside(wanted, folder):
                return os.path.relpath(wanted, folder).split("/")
        raise OutsideBaseFolder(f"{agent}: {field} {path!r} is an absolute path outside the base folder {base.path}")
    return path.split("/")


def locate(base: BaseFolder, path: str, field: str, agent: str) -> Located:
    """Walks `path` from the base folder to the folder its last component is in, checking every step.

    Returns the open folder and the last name (which may not exist yet); the caller
    opens it with `open_located` and closes `dir_fd`.

    Raises:
        OutsideBaseFolder: a `..`, an absolute path or a symlink would leave the base folder.
        FileNotFoundError, NotADirectoryError: a folder on the way is not there.
    """
    todo = deque(_parts(base, path, field, agent))
    stack = [os.dup(base.fd)]
    try:
        return _walk(base, path, field, agent, todo, stack)
    except OSError as error:
        raise _refused_race(error, agent, field, path) from error
    finally:
        for fd in stack:
            os.close(fd)


def _walk(base: BaseFolder, path: str, field: str, agent: str, todo: deque[str], stack: list[int]) -> Located:
    """The walk of `locate`; `stack` holds the open folders from the base down (the caller closes what is left)."""
    links = 0
    while todo:
        name = todo.popleft()
        if name in ("", "."):
            continue
        if name == "..":
            if len(stack) == 1:
                raise OutsideBaseFolder(f"{agent}: {field} {path!r} leaves the base folder {base.path} (through '..')")
            os.close(stack.pop())
            continue
        try:
            info = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
        except FileNotFoundError:
            if todo and any(part not in ("", ".") for part in todo):
                raise
            info = None  # the last name, not there yet: a file to create
        if info is not None and stat.S_ISLNK(info.st_mode):
            links += 1
            if links > _MAX_SYMLINKS:
                raise OutsideBaseFolder(f"{agent}: {field} {path!r}: more than {_MAX_SYMLINKS} symlinks on the way")
            target = os.readlink(name, dir_fd=stack[-1])
            if os.path.isabs(target):
                wanted = os.path.normpath(target)
                if not _inside(wanted, base.real):
                    raise OutsideBaseFolder(f"{agent}: {field} {path!r} leaves the base folder {base.path} "
                                            f"through the symlink {name!r} -> {target!r}")
                for fd in stack[1:]:
                    os.close(fd)
                del stack[1:]
                target = os.path.relpath(wanted, base.real)
            todo.extendleft(reversed(target.split("/")))
            continue
        if not any(part not in ("", ".") for part in todo):
            return Located(stack.pop(), name, _shown(base, path), path)
        stack.append(os.open(name, _DIRECTORY, dir_fd=stack[-1]))
    return Located(stack.pop(), ".", _shown(base, path), path)


def _shown(base: BaseFolder, path: str) -> str:
    """The path GraphAI reports: `path.resolve(path.join(baseDir, file))` (an absolute path inside taken as is)."""
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(base.path, path))


def _refused_race(error: OSError, agent: str, field: str, path: str) -> OSError:
    """ELOOP from an O_NOFOLLOW open as the refusal it is; any other error with the agent, field and path named."""
    if isinstance(error, OutsideBaseFolder):
        return error
    if error.errno == errno.ELOOP:
        return OutsideBaseFolder(f"{agent}: {field} {path!r}: a part of it became a symlink while it was opened (refused)")
    named = type(error)(error.errno, f"{agent}: {field} {path!r}: {error.strerror}")
    return named


def open_located(located: Located, flags: int, agent: str, field: str, mode: int = 0o666) -> int:
    """Opens the last name of a located path (never through a symlink), a regular file only; returns the descriptor.

    It is opened without blocking (O_NONBLOCK, cleared once it is known to be a regular file, where it means
    nothing) and checked on the descriptor, so that what is checked is what is opened: a FIFO would block the
    open until another process opened its other end, and a device or socket is not a file to read or write.

    Raises:
        OutsideBaseFolder: the name became a symlink after it was located.
        NotAFile: it is a FIFO, a socket or a device (IsADirectoryError: a folder).
        OSError: as os.open raises it (no such file, no permission...).
    """
    try:
        fd = os.open(located.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, mode, dir_fd=located.dir_fd)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a FIFO without a reader, opened to write; a socket
            _check_regular(_kind_at(located), located, agent, field)
        raise _refused_race(error, agent, field, located.given) from error
    try:
        _check_regular(os.fstat(fd).st_mode, located, agent, field)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def _kind_at(located: Located) -> int:
    try:
        return os.stat(located.name, dir_fd=located.dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return stat.S_IFREG  # gone meanwhile: the open's own error says so


def _check_regular(mode: int, located: Located, agent: str, field: str) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, f"{agent}: {field} {located.given!r}: {os.strerror(errno.EISDIR)}")
    kind = next((name for test, name in _KINDS if test(mode)), "not a file")
    raise NotAFile(f"{agent}: {field} {located.given!r} is {kind}, not a regular file: the file agents read and write "
                   "regular files only")
