"""Files the companion replaces whole, and what keeps it from reading or writing one.

A file is written beside itself, synced and renamed over the old one: a power cut leaves the old version or the
new, never half of one, and a failure (a full card) leaves no partial file behind. Run as root (``sudo companion
dice teach``, ``sudo companion pin reset``), the companion keeps a file's owner and mode, and a new file or folder
takes its folder's owner: the service, which runs as its own user, goes on reading and writing it. Files a sudo
once left as root's, readable by root alone, were read by the service as damaged.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

from companion.faults import FAULTS

# What keeps the companion from a file, where the file itself is whole: the fault's kind (companion.faults).
_FAULT_BY_ERRNO = {errno.EACCES: "permission", errno.EPERM: "permission", errno.EROFS: "readonly",
                   errno.ENOSPC: "full", errno.EDQUOT: "full", errno.EIO: "io"}


def make_folder(path: Path) -> None:
    """``path`` and any folder above it that is missing; made by root, each takes its parent's owner."""
    missing = []
    folder = Path(path)
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    Path(path).mkdir(parents=True, exist_ok=True)
    for made in reversed(missing):
        owned_by_folder(made)


def replace_file(path: Path, write: Callable[[BinaryIO], None]) -> None:
    """Replace ``path`` with what ``write`` puts into a file beside it (see the module's text)."""
    path = Path(path)
    make_folder(path.parent)
    # One name per writing thread: two writers never share a half-written file.
    partial = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.partial")
    try:
        # The umask chooses a new file's mode, as for any file the user writes (not a temporary file's 0600).
        handle = os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666), "wb")
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            old = path.stat()
        except FileNotFoundError:
            owned_by_folder(partial)
        else:
            os.chmod(partial, stat.S_IMODE(old.st_mode))
            _owned_as(partial, old)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)  # the rename itself survives a power cut
    finally:
        os.close(folder)


def owned_by_folder(path: Path) -> None:
    """``path``, just made, takes its folder's owner where root made it (see the module's text)."""
    _owned_as(path, path.parent.stat())


def _owned_as(path: Path, like: os.stat_result) -> None:
    if os.geteuid() == 0 and (like.st_uid, like.st_gid) != (0, 0):
        os.chown(path, like.st_uid, like.st_gid)


def fault_kind(exc: OSError) -> str | None:
    """The fault (:mod:`companion.faults`) behind ``exc`` where the file itself is whole, or None: a fault outside the
    file (its owner, a read-only or full card, a failing card) is told with its steps and never taken for damage."""
    return _FAULT_BY_ERRNO.get(getattr(exc, "errno", None))


def cannot_use(named: str, what: str, exc: OSError, paths: Iterable[Path]) -> str | None:
    """Why the companion cannot use ``what`` in the file ``named`` (as shown to players), and what to do; None where
    ``exc`` is no such fault. ``paths``: the files and folders involved, to name the owners of those it may not use."""
    kind = fault_kind(exc)
    if kind is None:
        return None
    owners = owners_note(paths) if kind == "permission" else ""
    return f"{named}: cannot use {what}: {FAULTS[kind].title} ({exc.strerror}{owners}). {FAULTS[kind].steps}"


def owners_note(paths: Iterable[Path]) -> str:
    """``"; dice.json belongs to root, the companion runs as companion"``: who owns each of ``paths`` that the
    companion's user may not read or write (a file a sudo left behind), and who that user is."""
    found = []
    for path in paths:
        try:
            owner = path.stat().st_uid
        except OSError:
            continue
        if not os.access(path, os.R_OK | os.W_OK):
            found.append(f"{path.name or path} belongs to {_user_name(owner)}")
    me = _user_name(os.geteuid())
    return f"; {', '.join(found)}, the companion runs as {me}" if found else f"; the companion runs as {me}"


def _user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)
