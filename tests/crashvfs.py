"""A file system that forgets: simulates a power cut under SQLite (tests only).

An APSW VFS records, for every file, what each write overwrote since that file's
last sync. When the writer "loses power" (the child process exits abruptly at a
chosen I/O operation), the parent puts back what a disk may really hold after the
cut: every un-synced write dropped, or each 512-byte sector at random old or new.
Then the production code (stdlib sqlite3 through EventLog) opens the files.

Model limits (see shared/notes/reliability.md T1.1): fsync is assumed honest;
deletes and renames are durable at once; ``-shm`` is not modelled (it is removed
before reopening, as SQLite rebuilds it).
"""

from __future__ import annotations

import os
import pickle
import random
from pathlib import Path

import apsw

SECTOR = 512


class CrashNow(BaseException):
    """Raised inside the VFS at the chosen operation (never caught by SQLite's Python code)."""


class LossyVFS(apsw.VFS):
    def __init__(self, crash_at: int, undo_path: str, name: str = "lossy"):
        self.crash_at = crash_at
        self.undo_path = undo_path
        self.ops = 0
        # file name -> {"synced_size": int, "writes": [(offset, old_bytes)]}
        self.undo: dict[str, dict] = {}
        super().__init__(name, "")

    def tick(self) -> None:
        self.ops += 1
        if self.ops >= self.crash_at:
            with open(self.undo_path, "wb") as fh:
                pickle.dump(self.undo, fh)
            os._exit(9)  # the power goes out: no flush, no close, no cleanup

    def xOpen(self, name, flags):
        return LossyFile(self, name, flags)


class LossyFile(apsw.VFSFile):
    def __init__(self, vfs: LossyVFS, name, flags):
        self.vfs = vfs
        self.path = name.filename() if isinstance(name, apsw.URIFilename) else name
        super().__init__("", name, flags)

    def _record(self, offset: int, length: int) -> None:
        if not self.path:
            return
        entry = self.vfs.undo.get(self.path)
        size = os.path.getsize(self.path) if os.path.exists(self.path) else 0
        if entry is None:
            entry = self.vfs.undo[self.path] = {"synced_size": size, "writes": []}
        end = min(offset + length, size)
        old = b""
        if offset < end:
            with open(self.path, "rb") as fh:
                fh.seek(offset)
                old = fh.read(end - offset)
        entry["writes"].append((offset, old))

    def xWrite(self, data, offset):
        self.vfs.tick()
        self._record(offset, len(data))
        return super().xWrite(data, offset)

    def xTruncate(self, size):
        self.vfs.tick()
        if self.path and os.path.exists(self.path):
            current = os.path.getsize(self.path)
            if size < current:
                self._record(size, current - size)
        return super().xTruncate(size)

    def xSync(self, flags):
        self.vfs.tick()
        result = super().xSync(flags)
        self.vfs.undo.pop(self.path, None)  # what was written is on the disk now
        return result


def revert(undo: dict[str, dict], *, mix_seed: int | None = None) -> None:
    """Put the files back as a power cut may leave them.

    ``mix_seed=None``: every un-synced write is lost. Otherwise each written sector
    is kept or lost at random (seeded), and the file's growth past its synced size
    is cut at a random sector.
    """
    rng = random.Random(mix_seed)
    for path, entry in undo.items():
        if not os.path.exists(path):
            continue
        with open(path, "r+b") as fh:
            for offset, old in reversed(entry["writes"]):
                for start in range(0, len(old), SECTOR):
                    if mix_seed is None or rng.random() < 0.5:
                        fh.seek(offset + start)
                        fh.write(old[start : start + SECTOR])
            size = os.path.getsize(path)
            keep = entry["synced_size"]
            if mix_seed is not None and size > keep:
                keep += rng.randrange(0, (size - keep) // SECTOR + 1) * SECTOR
            if size > keep:
                fh.truncate(keep)


class ApswAsSqlite3:
    """Just enough of sqlite3.Connection over APSW for EventLog to write through the lossy VFS."""

    def __init__(self, path: str, vfs: str, *, synchronous: str | None = None, **_ignored):
        self._db = apsw.Connection(path, vfs=vfs)
        self._synchronous = synchronous

    def execute(self, sql: str, params=()):
        if self._synchronous and sql.strip().upper().startswith("PRAGMA SYNCHRONOUS"):
            sql = f"PRAGMA synchronous = {self._synchronous}"
        return _Cursor(self._db.cursor().execute(sql, params))

    def executescript(self, sql: str) -> None:
        self._db.cursor().execute(sql)

    def close(self) -> None:
        self._db.close()


class _Cursor:
    def __init__(self, cursor):
        self._rows = list(cursor)

    def fetchone(self):
        return self._rows[0] if self._rows else None

    def fetchall(self):
        return self._rows


def remove_shm(db_path: Path) -> None:
    shm = Path(str(db_path) + "-shm")
    if shm.exists():
        shm.unlink()
