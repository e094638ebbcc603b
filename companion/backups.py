"""The database at start, and its backups.

At start (:func:`check_at_start`), before anything is opened for writing:

* Faults outside the database are refusals that change nothing
  (:class:`~companion.errors.StartRefused`): another program holds it, the disk is
  full, the folder is read-only or belongs to another user.
* The database must pass the full check of :meth:`EventLog.check_file`
  (``integrity_check``, every row decodes and matches its CRC-32, no gap in any
  game's events), must not hold less than its newest backup, and its ``-wal`` must
  not have vanished while it still held moves (read from the ``-shm`` index).
* Only real damage moves files: the damaged database goes to ``<data_dir>/damaged/``
  and the newest backup that passes the same check takes its place; an event in the
  game in play says so and how much was lost. With no good backup the companion
  starts on an empty database (a refusal would only make systemd restart it again and
  again) and keeps the damaged file for ``sqlite3 .recover``.

Backups (:func:`backup_if_due`) are taken through SQLite's backup API after every
game and hourly while events are being added, each checked like the database
before it is kept. The newest :data:`KEEP_RECENT`, and the newest of each of the
last :data:`KEEP_DAYS` days, are kept within a size budget.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from companion.errors import DatabaseUnavailable, StartRefused
from companion.eventlog import DB_NAME, EventLog, unavailable
from companion.faults import steps

_log = logging.getLogger(__name__)

BACKUP_DIR = "backups"
DAMAGED_DIR = "damaged"
PREFIX = "companion-"
KEEP_RECENT = 12  # an evening of hourly and end-of-game backups
KEEP_DAYS = 7  # and the newest of each of the last week's days
BUDGET_BYTES = 256 * 1024 * 1024  # never more than this (nor a tenth of the card) for backups
HOURLY_S = 3600.0
LAST_REPAIR = "last_database_repair"
MIN_FREE_BYTES = 1024 * 1024  # below this no move could be stored: refuse to start
_STAMP = re.compile(r"^companion-(\d{4}-\d{2}-\d{2})(?:-(\d{6}))?(?:-(\d+))?$")


@dataclass(frozen=True)
class BootCheck:
    """What the start-up check found: ``new``, ``ok``, ``restored``, ``lost`` (kept, but moves are
    missing) or ``failed`` (started empty)."""

    status: str
    detail: str
    backup: Path | None = None
    damaged: Path | None = None
    lost_after: float | None = None  # newest event kept

    @property
    def health(self) -> str:
        return {"restored": "degraded", "lost": "degraded", "failed": "failed"}.get(self.status, "ok")

    @property
    def fault(self) -> str | None:
        """The kind of fault for :mod:`companion.faults` (None when all is well)."""
        return {"restored": "restored", "lost": "lost", "failed": "empty"}.get(self.status)


# -- backups on disk ---------------------------------------------------------------------


def backup_dir(data_dir: str | os.PathLike) -> Path:
    return Path(data_dir) / BACKUP_DIR


def backup_time(path: Path) -> float | None:
    """When a backup was taken, from its name (``companion-2025-03-01-201500.db``; older daily
    backups are ``companion-2025-03-01.db``)."""
    match = _STAMP.match(path.stem)
    if not match:
        return None
    day, clock, _ = match.groups()
    try:
        return time.mktime(time.strptime(f"{day} {clock or '000000'}", "%Y-%m-%d %H%M%S"))
    except ValueError:
        return None


def list_backups(data_dir: str | os.PathLike) -> list[Path]:
    """Backups, newest first."""
    folder = backup_dir(data_dir)
    if not folder.is_dir():
        return []
    found = [(backup_time(p), _number(p), p) for p in folder.glob(f"{PREFIX}*.db")]
    return [p for _, _, p in sorted((f for f in found if f[0] is not None), reverse=True)]


def _number(path: Path) -> int:
    """The count of a second backup within one second (``companion-...-201500-2.db``)."""
    match = _STAMP.match(path.stem)
    return int(match.group(3)) if match and match.group(3) else 1


def _when(path: Path) -> str:
    when = backup_time(path)
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(when)) if when else path.name


# -- at start ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Diagnosis:
    """What the database is like, found without changing anything: ``new``, ``ok``, ``refused``
    (a fault outside it), ``damaged`` or ``lost`` (sound, but moves are missing). ``fault`` is the
    kind for :mod:`companion.faults`."""

    state: str
    detail: str
    fault: str | None = None


def diagnose(data_dir: str | os.PathLike) -> Diagnosis:
    """The checks of the start, without its repairs: ``companion doctor`` and :func:`check_at_start` share them."""
    data_dir = Path(data_dir)
    db = data_dir / DB_NAME
    try:
        _refuse_if_unwritable(data_dir)
        if _no_database(db):
            return Diagnosis("new", "no database yet: a new one is created")
        wal_lost = _wal_lost(db)
        if wal_lost:  # said before any connection opens it: opening would rebuild the -shm that tells
            return Diagnosis("lost", wal_lost, "lost")
        problem = EventLog.check_file(db)
    except DatabaseUnavailable as exc:
        return Diagnosis("refused", f"{exc}", exc.kind)
    if problem != "ok":
        return Diagnosis("damaged", problem, "damaged")
    lost = _rewound(db, data_dir)
    if lost:
        return Diagnosis("lost", lost, "lost")
    return Diagnosis("ok", "the database passed its checks (integrity, checksums, no gap in any game)")


def check_at_start(data_dir: str | os.PathLike, *, now: float | None = None) -> BootCheck:
    """Check the database before it is opened; refuse what is not damage, restore what is."""
    data_dir = Path(data_dir)
    db = data_dir / DB_NAME
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise refusal(unavailable(db, exc)) from None
    found = diagnose(data_dir)
    now = time.time() if now is None else now
    if found.state == "refused":
        raise StartRefused(f"{found.detail}. {steps(found.fault)}", kind=found.fault, retry=found.fault == "locked")
    if found.state == "new":
        for part in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            part.unlink(missing_ok=True)  # an empty file left by a start that failed
        return BootCheck("new", found.detail)
    if found.state == "damaged":
        return _restore(db, data_dir, found.detail, now)
    if found.state == "lost":
        return _missing_moves(db, data_dir, found.detail, now)
    return BootCheck("ok", found.detail)


def refusal(exc: DatabaseUnavailable) -> StartRefused:
    """The refusal to start for a fault outside the database, with the steps that fix it."""
    return StartRefused(f"{exc}. {steps(exc.kind)}", kind=exc.kind, retry=exc.kind == "locked")


def _refuse_if_unwritable(data_dir: Path) -> None:
    """DatabaseUnavailable when the database could be read but not written: a read-only mount,
    files or folder of another user, no free space."""
    db = data_dir / DB_NAME
    if not data_dir.exists():
        return
    if os.statvfs(data_dir).f_flag & os.ST_RDONLY:
        raise DatabaseUnavailable(f"cannot use the database {db}: the data folder {data_dir} is on a "
                                  "read-only file system", "readonly")
    for part in (data_dir, db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        if part.exists() and not os.access(part, os.W_OK | (os.X_OK if part.is_dir() else 0)):
            raise unavailable(db, PermissionError(13, f"{part} is not writable"))
    free = shutil.disk_usage(data_dir).free
    if free < MIN_FREE_BYTES:
        raise DatabaseUnavailable(f"cannot use the database {db}: the disk is full ({free // 1024} KB free; "
                                  "no move could be stored)", "full")


def _no_database(db: Path) -> bool:
    """True when there is no database: none at all, or an empty file left by a start that failed
    (with no -wal holding its pages)."""
    if not db.exists():
        return True
    wal = Path(f"{db}-wal")
    return not db.stat().st_size and not (wal.exists() and wal.stat().st_size)


def _wal_lost(db: Path) -> str | None:
    """Whether a -wal that still held moves has disappeared (deleted by hand after a crash).

    The -shm index names how many -wal frames were valid (``mxFrame``) and how many of them
    were already copied into the database file (``nBackfill``): with the -wal gone, any
    difference is moves that are lost. Read before any connection rebuilds the index.
    """
    wal, shm = Path(f"{db}-wal"), Path(f"{db}-shm")
    if wal.exists() or not shm.exists():
        return None
    try:
        with open(shm, "rb") as f:
            header = f.read(136)
    except OSError:
        return None
    if len(header) < 136:
        return None
    for order in ("<", ">"):
        version, _, _, initialised = struct.unpack(f"{order}IIIB", header[:13])
        if version == 3007000 and initialised:
            frames, backfilled = struct.unpack(f"{order}I", header[16:20])[0], struct.unpack(f"{order}I", header[96:100])[0]
            if frames > backfilled:
                return (f"its -wal file is missing while it still held {frames - backfilled} pages of changes "
                        "(deleted after a crash?): the moves stored in them are lost")
    return None


def _rewound(db: Path, data_dir: Path) -> str | None:
    """How the database holds fewer events than its newest backup (a lost -wal), or None."""
    for backup in list_backups(data_dir)[:1]:
        try:
            theirs, ours = EventLog.event_counts(backup), EventLog.event_counts(db)
        except Exception:  # a damaged backup says nothing about the database
            return None
        short = [s for s, n in theirs.items() if ours.get(s, 0) < n]
        if short:
            return (f"it holds fewer events than its backup of {_when(backup)} ({len(short)} "
                    f"{'game' if len(short) == 1 else 'games'} shorter): changes were lost (a missing -wal file?)")
    return None


def _missing_moves(db: Path, data_dir: Path, problem: str, now: float) -> BootCheck:
    """The database is sound but lacks moves. The newest good backup holding more wins; else the
    database is kept and the loss reported."""
    verdict = EventLog.check_file(db)
    if verdict != "ok":
        return _restore(db, data_dir, f"{problem}; {verdict}", now)
    ours = EventLog.event_counts(db)
    for backup in list_backups(data_dir):
        if EventLog.check_file(backup) != "ok":
            continue
        theirs = EventLog.event_counts(backup)
        if any(ours.get(s, 0) < n for s, n in theirs.items()):
            return _restore(db, data_dir, problem, now)
        break
    Path(f"{db}-shm").unlink(missing_ok=True)  # the index of a -wal that is gone
    with EventLog(db) as kept:
        newest = kept.newest_event_time()
    since = time.strftime("%Y-%m-%d %H:%M", time.localtime(newest)) if newest else "the start"
    _log.error("the database lost moves: %s", problem)
    return BootCheck("lost", f"the database is sound but {problem}; the newest move kept is from {since}",
                     lost_after=newest)


def _restore(db: Path, data_dir: Path, problem: str, now: float) -> BootCheck:
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
    stamp = time.strftime('%Y%m%d-%H%M%S', time.localtime(now))
    target = folder / f"{db.stem}-{stamp}{db.suffix}"
    n = 1
    while target.exists():
        n += 1
        target = target.with_name(f"{db.stem}-{stamp}-{n}{db.suffix}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(str(db) + suffix)
        if part.exists():
            os.replace(part, Path(str(target) + suffix))
    return target


def last_repair(log_or_path) -> dict | None:
    """What the last start repaired (``time``, ``fault``, ``detail``), or None."""
    if isinstance(log_or_path, EventLog):
        text = log_or_path.get_setting(LAST_REPAIR)
    else:
        text = EventLog.read_setting(log_or_path, LAST_REPAIR)
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def record(log: EventLog, boot: BootCheck) -> None:
    """Tell the players: a ``note`` event from ``system`` in the game in play (or a setting when none)."""
    if boot.fault is None:
        return
    from companion.runtime import ACTIVE_SESSION

    payload = {"check": boot.status, "backup": boot.backup.name if boot.backup else None,
               "damaged": str(boot.damaged) if boot.damaged else None, "lost_after": boot.lost_after}
    log.set_setting(LAST_REPAIR, json.dumps({"time": time.time(), "fault": boot.fault, "detail": boot.detail}))
    active = log.get_setting(ACTIVE_SESSION)
    if active:
        try:
            log.append(active, "note", boot.detail, source="system", payload=payload)
        except Exception:  # the session may not be in the backup: the setting still tells
            _log.exception("could not note the repair in session %s", active)


# -- taking backups ---------------------------------------------------------------------------


def backup_if_due(log: EventLog, data_dir: str | os.PathLike, *, now: float | None = None, force: bool = False,
                  budget: int | None = None) -> Path | None:
    """A checked backup when events were added since the newest one and it is an hour old (or at once
    with ``force``: the end of a game); then old backups are rotated."""
    now = time.time() if now is None else now
    found = list_backups(data_dir)
    if found:
        changed = log.newest_event_time()
        if changed is None or changed <= found[0].stat().st_mtime:
            return None  # nothing new since the newest backup was written
        if not force and now - backup_time(found[0]) < HOURLY_S:
            return None
    stamp = f"{PREFIX}{time.strftime('%Y-%m-%d-%H%M%S', time.localtime(now))}"
    target, n = backup_dir(data_dir) / f"{stamp}.db", 1
    while target.exists():  # a game that ends within a second of the last backup
        n += 1
        target = target.with_name(f"{stamp}-{n}.db")
    log.backup_to(target)
    verdict = EventLog.check_file(target)
    if verdict != "ok":
        _log.error("the new backup %s fails its check (%s); removed", target.name, verdict)
        target.unlink(missing_ok=True)
        return None
    rotate(data_dir, budget=budget)
    return target


def rotate(data_dir: str | os.PathLike, *, budget: int | None = None, keep_recent: int = KEEP_RECENT,
           keep_days: int = KEEP_DAYS) -> list[Path]:
    """Remove backups beyond the newest ``keep_recent`` and the newest of each of ``keep_days`` days,
    then the oldest until they fit in ``budget`` bytes (the newest is always kept). Returns those removed."""
    found = list_backups(data_dir)
    if budget is None:
        budget = min(BUDGET_BYTES, shutil.disk_usage(backup_dir(data_dir)).total // 10) if found else BUDGET_BYTES
    keep: list[Path] = list(found[:keep_recent])
    days: set[str] = set()
    for path in found:
        day = time.strftime("%Y-%m-%d", time.localtime(backup_time(path)))
        if day not in days and len(days) < keep_days:
            days.add(day)
            if path not in keep:
                keep.append(path)
    keep.sort(key=lambda p: (backup_time(p), _number(p)), reverse=True)
    total = sum(p.stat().st_size for p in keep)
    while len(keep) > 1 and total > budget:
        total -= keep.pop().stat().st_size
    removed = [p for p in found if p not in keep]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed
