"""The database at start and its daily backups.

At start the database must pass ``PRAGMA quick_check``. When it does not (a power
cut on a card that lied about syncing, a worn SD card), the damaged files are moved
to ``<data_dir>/damaged/`` and the newest backup that passes the check takes their
place; an event in the game in play says so and how much was lost. With no good
backup the companion starts on an empty database rather than refusing to start
(which would only make systemd restart it again and again); the damaged file is
kept for a rescue with ``sqlite3 .recover``.

Backups are taken through SQLite's backup API, at most one a day, only of a
database that passes the check, and the newest ``KEEP`` are kept in
``<data_dir>/backups/``.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from companion.eventlog import DB_NAME, EventLog

_log = logging.getLogger(__name__)

BACKUP_DIR = "backups"
DAMAGED_DIR = "damaged"
KEEP = 7
PREFIX = "companion-"


@dataclass(frozen=True)
class BootCheck:
    """What the start-up check found: ``new``, ``ok``, ``restored`` or ``failed``."""

    status: str
    detail: str
    backup: Path | None = None
    damaged: Path | None = None
    lost_after: float | None = None  # newest event in the restored backup

    @property
    def health(self) -> str:
        return {"restored": "degraded", "failed": "failed"}.get(self.status, "ok")


def backup_dir(data_dir: str | os.PathLike) -> Path:
    return Path(data_dir) / BACKUP_DIR


def list_backups(data_dir: str | os.PathLike) -> list[Path]:
    """Backups, newest first."""
    folder = backup_dir(data_dir)
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{PREFIX}*.db"), reverse=True)


def _stamp(now: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(now))


def _when(path: Path) -> str:
    return path.stem[len(PREFIX):]


def check_at_start(data_dir: str | os.PathLike, *, now: float | None = None) -> BootCheck:
    """Check the database before it is opened; restore the newest good backup when it is damaged."""
    data_dir = Path(data_dir)
    db = data_dir / DB_NAME
    if not db.exists():
        return BootCheck("new", "no database yet: a new one is created")
    problem = EventLog.check_file(db)
    if problem == "ok":
        return BootCheck("ok", "the database passed its check")
    now = time.time() if now is None else now
    damaged = _move_aside(db, data_dir / DAMAGED_DIR, now)
    _log.error("the database %s is damaged (%s); moved to %s", db, problem, damaged)
    for backup in list_backups(data_dir):
        verdict = EventLog.check_file(backup)
        if verdict != "ok":
            _log.warning("backup %s is damaged too (%s)", backup.name, verdict)
            continue
        tmp = db.with_name(db.name + ".restoring")
        shutil.copyfile(backup, tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, db)
        with EventLog(db) as restored:
            newest = restored.newest_event_time()
        since = time.strftime("%Y-%m-%d %H:%M", time.localtime(newest)) if newest else "the backup"
        return BootCheck(
            "restored",
            f"the database was damaged ({problem}); restored the backup of {_when(backup)}: anything played "
            f"after {since} is lost. The damaged file is kept as {damaged.name} in {damaged.parent}",
            backup=backup, damaged=damaged, lost_after=newest,
        )
    return BootCheck(
        "failed",
        f"the database was damaged ({problem}) and there is no good backup: started with an empty database. "
        f"The damaged file is kept as {damaged} (sqlite3 .recover may rescue games from it)",
        damaged=damaged,
    )


def _move_aside(db: Path, folder: Path, now: float) -> Path:
    """Moves the database with its -wal and -shm (a WAL left beside another file would corrupt it)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{db.stem}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}{db.suffix}"
    n = 1
    while target.exists():
        n += 1
        target = target.with_name(f"{db.stem}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}-{n}{db.suffix}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(str(db) + suffix)
        if part.exists():
            os.replace(part, Path(str(target) + suffix))
    return target


def record(log: EventLog, boot: BootCheck) -> None:
    """Tell the players: a ``note`` event from ``system`` in the game in play (or a setting when none)."""
    if boot.status not in ("restored", "failed"):
        return
    from companion.runtime import ACTIVE_SESSION

    payload = {"check": boot.status, "backup": boot.backup.name if boot.backup else None,
               "damaged": str(boot.damaged) if boot.damaged else None, "lost_after": boot.lost_after}
    log.set_setting("last_database_repair", boot.detail)
    active = log.get_setting(ACTIVE_SESSION)
    if active:
        try:
            log.append(active, "note", boot.detail, source="system", payload=payload)
        except Exception:  # the session may not be in the backup: the setting still tells
            _log.exception("could not note the restore in session %s", active)


def backup_if_due(log: EventLog, data_dir: str | os.PathLike, *, keep: int = KEEP, now: float | None = None
                  ) -> Path | None:
    """Today's backup when there is none yet (and the database is sound); old ones beyond ``keep`` go."""
    now = time.time() if now is None else now
    target = backup_dir(data_dir) / f"{PREFIX}{_stamp(now)}.db"
    if target.exists():
        return None
    check = log.quick_check()
    if check != "ok":
        _log.error("not backing up a damaged database (%s)", check)
        return None
    log.backup_to(target)
    verdict = EventLog.check_file(target)
    if verdict != "ok":
        _log.error("the new backup %s fails its check (%s); removed", target.name, verdict)
        target.unlink(missing_ok=True)
        return None
    for old in list_backups(data_dir)[keep:]:
        old.unlink(missing_ok=True)
    return target
