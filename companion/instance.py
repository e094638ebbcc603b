"""One companion per data folder: an exclusive lock held for the life of ``companion run``.

Two companions on one database would both accept moves and interleave them into a
log that cannot be replayed. The second one is refused, naming the first one's PID
and port, before it opens anything. The lock is ``flock`` on ``companion.lock`` in
the data folder: the kernel drops it when the process ends, however it ends, so a
crash never leaves a stale lock behind.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import time
from pathlib import Path

from companion.errors import DatabaseUnavailable, StartRefused
from companion.faults import steps

LOCK_NAME = "companion.lock"


class DataFolderLock:
    """``DataFolderLock(data_dir).acquire()``; :meth:`announce` the port once the dashboard listens."""

    def __init__(self, data_dir: str | os.PathLike):
        self.path = Path(data_dir) / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> "DataFolderLock":
        """Take the lock or raise :class:`StartRefused` naming the companion that holds it."""
        from companion.backups import refusal
        from companion.eventlog import unavailable

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise refusal(unavailable(self.path, exc)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise StartRefused(
                f"another companion (PID {holder.get('pid', '?')}, dashboard port {holder.get('port') or '?'}) "
                f"is running on the data folder {self.path.parent}. {steps('in_use')}",
                kind="in_use",
            ) from None
        self._fd = fd
        self._write({"pid": os.getpid(), "port": None, "since": time.time()})
        return self

    def announce(self, port: int) -> None:
        """Record the dashboard's port, so a second companion can name it."""
        if self._fd is not None:
            self._write({"pid": os.getpid(), "port": port, "since": time.time()})

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.ftruncate(fd, 0)
            except OSError:
                pass
            os.close(fd)  # closing drops the flock

    def _write(self, info: dict) -> None:
        try:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, json.dumps(info).encode(), 0)
        except OSError as exc:  # a full disk: the lock still holds, only the note is missing
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise DatabaseUnavailable(f"cannot write {self.path}: {exc.strerror}", "io") from None

    def __enter__(self) -> "DataFolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def running_companion(data_dir: str | os.PathLike) -> str | None:
    """The companion running on ``data_dir``, as ``"PID 812, dashboard port 8080"``, or None. Read from the kernel's
    list of locks and the lock file's note, never by taking the lock: a companion starting meanwhile is not refused
    because someone asked."""
    from companion.eventlog import lock_holders

    path = Path(data_dir) / LOCK_NAME
    if not lock_holders(path):
        return None
    try:
        with open(path, "rb") as file:
            holder = _read(file.fileno())
    except OSError:
        holder = {}
    return f"PID {holder.get('pid', '?')}, dashboard port {holder.get('port') or '?'}"


def _read(fd: int) -> dict:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
