"""The durable event log: SQLite in WAL mode with synchronous=FULL. All of the companion's SQL is here.

Rows are appended, never rewritten. A game session's state is the replay of its
events (see :mod:`companion.session`). Appending an event id a second time
changes nothing and returns the event already stored.

>>> log = EventLog(":memory:")
>>> sid = log.create_session("fandooble", {"players": ["Lola", "Grace"], "options": {}})
>>> log.append(sid, "move", "roll CCGF", source="cli").seq
1
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import threading
import time
import uuid
import zlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from companion.errors import DatabaseDamaged, DatabaseUnavailable, EventConflict, EventLogError, UnknownSession

SOURCES = ("camera", "button", "dashboard", "cli", "system")
DB_NAME = "companion.db"
SCHEMA_VERSION = 2  # 2: every row carries a CRC-32
SQLITE_HEADER = b"SQLite format 3\x00"


def default_data_dir() -> Path:
    """Where the companion keeps its database and user data.

    ``COMPANION_DATA_DIR`` wins; under systemd the unit's ``StateDirectory``
    (``/var/lib/companion``); otherwise the user's data home.
    """
    if os.environ.get("COMPANION_DATA_DIR"):
        return Path(os.environ["COMPANION_DATA_DIR"])
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "companion"


@dataclass(frozen=True)
class Event:
    """One row of the log."""

    event_id: str
    session_id: str
    seq: int
    time: float
    source: str
    kind: str
    text: str
    payload: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "event_id": self.event_id,
            "seq": self.seq,
            "time": self.time,
            "source": self.source,
            "kind": self.kind,
            "text": self.text,
            "payload": self.payload,
        }


@dataclass(frozen=True)
class SessionRecord:
    """A game or campaign as created: what it plays and how it was set up."""

    session_id: str
    kind: str
    game: str
    setup: dict
    parent_id: str | None
    title: str
    created: float


def new_id() -> str:
    return uuid.uuid4().hex


class EventLog:
    """The companion's database. Safe to share between threads; writes are serialised.

    :param path: the database file, or ``":memory:"`` for tests.
    :param connect: a connection factory (tests pass one that writes through a lossy file system).
    """

    def __init__(self, path: str | os.PathLike, *, connect: Callable[..., sqlite3.Connection] = sqlite3.connect):
        self.path = str(path)
        self._lock = threading.RLock()
        self._depth = 0  # open transactions of the thread holding the lock (batch() nests appends)
        self._db = None
        self.appended_since_checkpoint = 0  # events only the -wal holds (none after a checkpoint)
        self.last_append = time.monotonic()
        existed = self.path == ":memory:" or Path(self.path).exists()
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = connect(self.path, isolation_level=None, check_same_thread=False, timeout=5.0)
            self._open()
        except (sqlite3.Error, OSError, ValueError) as exc:  # ValueError: a damaged schema does not decode
            if self._db is not None:
                self._db.close()
                self._db = None
            if not existed:
                _remove_new_files(self.path)  # a start that failed leaves no empty database behind
            raise unavailable(self.path, exc) from None

    def _open(self) -> None:
        self._db.execute("PRAGMA busy_timeout = 5000")
        mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if self.path != ":memory:" and mode.lower() != "wal":
            raise EventLogError(f"the event log {self.path} cannot use WAL (journal mode stays {mode})")
        # FULL: a commit is on disk before append() returns, so a power cut loses nothing acknowledged.
        self._db.execute("PRAGMA synchronous = FULL")
        self._db.execute("PRAGMA foreign_keys = ON")
        self._migrate()

    def _migrate(self) -> None:
        """Bring the database to this version's schema (nothing is written when it already is)."""
        schema = resources.files("companion").joinpath("schema.sql").read_text("utf-8")
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                return  # nothing to create: opening writes nothing (a full disk still opens)
            self._db.executescript(schema)
            for table in ("sessions", "events"):  # version 1 had no CRC column
                columns = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})").fetchall()}
                if "crc" not in columns:
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN crc INTEGER")
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @classmethod
    def in_dir(cls, data_dir: str | os.PathLike | None = None) -> "EventLog":
        """The log in ``data_dir`` (default :func:`default_data_dir`)."""
        return cls(Path(data_dir or default_data_dir()) / DB_NAME)

    # -- lifetime -------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _transaction(self):
        return _Transaction(self)

    def batch(self) -> "_Transaction":
        """``with log.batch(): ...``: every session and event written inside is one transaction,
        on disk together or not at all (an import)."""
        return _Transaction(self)

    # -- sessions -------------------------------------------------------------

    def create_session(
        self,
        game: str,
        setup: dict,
        *,
        kind: str = "game",
        parent_id: str | None = None,
        title: str = "",
        session_id: str | None = None,
    ) -> str:
        """Store a new game (or campaign) and return its id."""
        session_id = session_id or new_id()
        row = (session_id, kind, game, _dump(setup), parent_id, title, time.time())
        with self._transaction() as db:
            try:
                db.execute(
                    "INSERT INTO sessions (session_id, kind, game, setup, parent_id, title, created, crc)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (*row, session_crc(*row)),
                )
            except sqlite3.IntegrityError as exc:
                raise EventLogError(f"cannot create session {session_id}: {exc}") from exc
        return session_id

    def session(self, session_id: str) -> SessionRecord:
        with self._lock:
            row = self._db.execute(
                "SELECT session_id, kind, game, setup, parent_id, title, created FROM sessions WHERE session_id = ?",
                (session_id,),
            ).fetchone()
        if row is None:
            raise UnknownSession(f"no game or campaign with id {session_id} in {self.path}")
        return _session(row)

    def sessions(self, *, kind: str | None = None, parent_id: str | None = None) -> list[SessionRecord]:
        """Sessions in the order they were created, optionally of one kind or one campaign."""
        sql = "SELECT session_id, kind, game, setup, parent_id, title, created FROM sessions WHERE 1 = 1"
        args: list[Any] = []
        if kind is not None:
            sql += " AND kind = ?"
            args.append(kind)
        if parent_id is not None:
            sql += " AND parent_id = ?"
            args.append(parent_id)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY created, rowid", args).fetchall()
        return [_session(r) for r in rows]

    # -- events ---------------------------------------------------------------

    def append(
        self,
        session_id: str,
        kind: str,
        text: str,
        *,
        source: str,
        payload: dict | None = None,
        event_id: str | None = None,
        at: float | None = None,
    ) -> Event:
        """Append one event durably and return it.

        When ``event_id`` is already in the log nothing is written and the stored
        event is returned (so a retried request or a duplicate camera report is a no-op);
        when it was stored for another session, kind or text, :class:`EventConflict` says so.
        """
        if source not in SOURCES:
            raise EventLogError(f"unknown event source '{source}': expected one of {', '.join(SOURCES)}")
        event_id = event_id or new_id()
        stamp = time.time() if at is None else at
        body = _dump(payload or {})
        with self._transaction() as db:
            existing = db.execute(_SELECT_EVENT + " WHERE event_id = ?", (event_id,)).fetchone()
            if existing is not None:
                return self._same(_event(existing), session_id, kind, text)
            if db.execute("SELECT 1 FROM sessions WHERE session_id = ?", (session_id,)).fetchone() is None:
                raise UnknownSession(f"no game or campaign with id {session_id} in {self.path}")
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            row = (event_id, session_id, seq, stamp, source, kind, text, body)
            db.execute(
                "INSERT INTO events (event_id, session_id, seq, time, source, kind, text, payload, crc)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*row, event_crc(*row)),
            )
            self.appended_since_checkpoint += 1
            self.last_append = time.monotonic()
        return Event(event_id, session_id, seq, stamp, source, kind, text, json.loads(body))

    def retried(self, event_id: str | None, session_id: str, kind: str, text: str | None = None) -> Event | None:
        """The stored event when ``event_id`` was already appended with this session and kind (and
        ``text`` unless None): a retried request. None for a new id; :class:`EventConflict` when the id
        was used for something else."""
        if not event_id:
            return None
        known = self.event(event_id)
        return None if known is None else self._same(known, session_id, kind, text)

    @staticmethod
    def _same(known: Event, session_id: str, kind: str, text: str | None) -> Event:
        if known.session_id != session_id or known.kind != kind or (text is not None and known.text != text):
            raise EventConflict(
                f"the event id {known.event_id} was already used for '{known.text}' (event {known.seq}"
                f"{'' if known.session_id == session_id else ' of another game'}): this request was not applied; "
                "send it again with a new event id"
            )
        return known

    def has_event(self, event_id: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM events WHERE event_id = ?", (event_id,)).fetchone() is not None

    def event(self, event_id: str) -> Event | None:
        with self._lock:
            row = self._db.execute(_SELECT_EVENT + " WHERE event_id = ?", (event_id,)).fetchone()
        return None if row is None else _event(row)

    def events(self, session_id: str, *, after_seq: int = 0) -> list[Event]:
        """The session's events in order (those after ``after_seq`` when given)."""
        with self._lock:
            rows = self._db.execute(
                _SELECT_EVENT + " WHERE session_id = ? AND seq > ? ORDER BY seq", (session_id, after_seq)
            ).fetchall()
        return [_event(r) for r in rows]

    def count_events(self, session_id: str | None = None) -> int:
        with self._lock:
            if session_id is None:
                return self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
            return self._db.execute("SELECT COUNT(*) FROM events WHERE session_id = ?", (session_id,)).fetchone()[0]

    # -- settings -------------------------------------------------------------

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else row[0]

    def set_setting(self, key: str, value: str | None) -> None:
        with self._transaction() as db:
            if value is None:
                db.execute("DELETE FROM settings WHERE key = ?", (key,))
            else:
                db.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    # -- health and backups ---------------------------------------------------

    def quick_check(self) -> str:
        """``"ok"`` or SQLite's description of what is damaged."""
        with self._lock:
            rows = self._db.execute("PRAGMA quick_check").fetchall()
        return "; ".join(r[0] for r in rows)

    def integrity_check(self) -> str:
        with self._lock:
            rows = self._db.execute("PRAGMA integrity_check").fetchall()
        return "; ".join(r[0] for r in rows)

    def checkpoint(self) -> bool:
        """Copy the -wal into the database file and empty it (``wal_checkpoint(TRUNCATE)``).

        Afterwards the main file alone holds every event, so a -wal file lost later loses
        nothing before this point. False when a reader kept it from finishing (try again later).
        """
        with self._lock:
            if self._db is None or self._depth:
                return False
            busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            if not busy:
                self.appended_since_checkpoint = 0
        return not busy

    def backup_to(self, dest: str | os.PathLike) -> Path:
        """A consistent copy of the whole database through SQLite's backup API."""
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".partial")
        try:
            target = sqlite3.connect(tmp)
            try:
                with self._lock:
                    self._db.backup(target)
            finally:
                target.close()
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, dest)
        except BaseException:
            tmp.unlink(missing_ok=True)  # never leave half a backup taking up the space
            raise
        return dest

    def restore_from(self, source: sqlite3.Connection) -> None:
        """Replace the whole database by ``source``'s (a film's copy, in a replay's own database), brought
        to this version's schema (a film recorded by an older companion)."""
        with self._lock:
            source.backup(self._db)
        self._migrate()

    @staticmethod
    def check_file(path: str | os.PathLike) -> str:
        """``"ok"``, or what is damaged in the database file at ``path``, without opening it as a log.

        Runs ``integrity_check`` (which, unlike ``quick_check``, also finds damaged indexes),
        then reads every row: each must decode (UTF-8 text, JSON payloads), match its
        CRC-32, and each game's events must be numbered 1, 2, 3 ... without a gap. Nothing
        is created or written (a hot -wal left by a crash is applied, as any connection
        would). Raises :class:`DatabaseUnavailable` when the file cannot be examined for
        a reason outside it (locked, unreadable, a read-only mount): that is not damage.
        """
        path = Path(path)
        if not path.is_file():
            return f"{path} does not exist"
        if path.stat().st_size and not _has_header(path):
            return "not a database (its first bytes are not SQLite's header)"
        try:
            db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=2.0)
        except sqlite3.Error as exc:
            raise unavailable(path, exc) from None
        try:
            db.text_factory = bytes  # decode by hand: invalid UTF-8 is damage to report, not a crash
            rows = db.execute("PRAGMA integrity_check").fetchall()
            verdict = "; ".join(r[0].decode("utf-8", "replace") for r in rows[:5]) if rows else "no answer"
            if verdict != "ok":
                return f"integrity_check: {verdict}"
            problems = _verify_rows(db)
            return "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "") \
                if problems else "ok"
        except sqlite3.Error as exc:
            error = unavailable(path, exc)
            if isinstance(error, DatabaseUnavailable):
                raise error from None
            return f"unreadable: {exc}"
        except ValueError as exc:  # SQLite's own message quoting damaged bytes does not decode
            return f"unreadable: {exc}"
        finally:
            db.close()

    @staticmethod
    def read_setting(path: str | os.PathLike, key: str) -> str | None:
        """A setting read from the database at ``path`` without opening it as a log (None if unreadable)."""
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)
        except sqlite3.Error:
            return None
        try:
            row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        finally:
            db.close()
        return None if row is None else row[0]

    @staticmethod
    def event_counts(path: str | os.PathLike) -> dict[str, int]:
        """How many events each session holds in the database at ``path`` (a backup), read-only."""
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)
        try:
            return dict(db.execute("SELECT session_id, COUNT(*) FROM events GROUP BY session_id").fetchall())
        finally:
            db.close()

    def newest_event_time(self) -> float | None:
        """When the last event of any session was stored (seconds since the epoch), or None."""
        with self._lock:
            return self._db.execute("SELECT MAX(time) FROM events").fetchone()[0]


_SELECT_EVENT = "SELECT event_id, session_id, seq, time, source, kind, text, payload FROM events"


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT under the log's lock; ROLLBACK on any error.

    Nested use (inside :meth:`EventLog.batch`) joins the outer transaction.
    """

    def __init__(self, log: EventLog):
        self._log = log

    def __enter__(self) -> sqlite3.Connection:
        log = self._log
        log._lock.acquire()
        if log._db is None:
            log._lock.release()
            raise EventLogError("the event log is closed")
        if log._depth == 0:
            try:
                log._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                log._lock.release()
                raise unavailable(log.path, exc) from None
            except BaseException:
                log._lock.release()
                raise
        log._depth += 1
        return log._db

    def __exit__(self, exc_type, exc, tb) -> None:
        log = self._log
        try:
            log._depth -= 1
            if log._depth == 0:
                try:
                    log._db.execute("COMMIT" if exc_type is None else "ROLLBACK")
                except sqlite3.Error as failed:
                    if log._db.in_transaction:
                        log._db.execute("ROLLBACK")
                    if exc_type is None:
                        raise unavailable(log.path, failed) from None
        finally:
            log._lock.release()
        if exc_type is not None and issubclass(exc_type, sqlite3.Error):
            raise unavailable(log.path, exc) from None  # a full disk mid-game: said, not a traceback


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _event(row) -> Event:
    return Event(row[0], row[1], row[2], row[3], row[4], row[5], row[6], json.loads(row[7]))


def _session(row) -> SessionRecord:
    return SessionRecord(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5], row[6])



# -- checksums and checks --------------------------------------------------------------


def event_crc(event_id: str, session_id: str, seq: int, stamp: float, source: str, kind: str, text: str,
              payload: str) -> int:
    """CRC-32 of an event row as stored (the payload as its JSON text)."""
    return _crc(event_id, session_id, str(seq), repr(float(stamp)), source, kind, text, payload)


def session_crc(session_id: str, kind: str, game: str, setup: str, parent_id: str | None, title: str,
                created: float) -> int:
    return _crc(session_id, kind, game, setup, parent_id or "", title, repr(float(created)))


def _crc(*fields: str) -> int:
    return zlib.crc32("\x1f".join(fields).encode("utf-8", "surrogatepass"))


def _has_header(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def _verify_rows(db: sqlite3.Connection) -> list[str]:
    """Damage that integrity_check cannot see: undecodable text, a wrong CRC, a gap in a game's events."""
    problems: list[str] = []
    sessions: set[str] = set()
    for rowid, *raw, crc in db.execute(
            "SELECT rowid, session_id, kind, game, setup, parent_id, title, created, crc FROM sessions"):
        try:
            session_id, kind, game, setup, parent, title = (_text(v) for v in raw[:6])
            json.loads(setup)
        except ValueError as exc:
            problems.append(f"session row {rowid} does not decode ({exc})")
            continue
        sessions.add(session_id)
        if crc is not None and crc != session_crc(session_id, kind, game, setup, parent, title, raw[6]):
            problems.append(f"session {session_id} does not match its checksum")
    seqs: dict[str, list[int]] = {}
    for rowid, *raw, crc in db.execute(
            "SELECT rowid, event_id, session_id, seq, time, source, kind, text, payload, crc FROM events"):
        try:
            event_id, session_id = _text(raw[0]), _text(raw[1])
            source, kind, text, payload = (_text(v) for v in raw[4:])
            json.loads(payload)
        except ValueError as exc:
            problems.append(f"event row {rowid} does not decode ({exc})")
            continue
        seq, stamp = raw[2], raw[3]
        if not isinstance(seq, int) or not isinstance(stamp, (int, float)):
            problems.append(f"event row {rowid} has a damaged number")
            continue
        if crc is not None and crc != event_crc(event_id, session_id, seq, stamp, source, kind, text, payload):
            problems.append(f"event {seq} of session {session_id[:8]} does not match its checksum")
        if session_id not in sessions:
            problems.append(f"event {seq} belongs to no stored session ({session_id[:8]})")
        seqs.setdefault(session_id, []).append(seq)
    for session_id, numbers in seqs.items():
        numbers.sort()
        if numbers != list(range(1, len(numbers) + 1)):
            missing = sorted(set(range(1, numbers[-1] + 1)) - set(numbers))
            problems.append(f"session {session_id[:8]} has a gap in its events"
                            + (f" (event {missing[0]} is missing)" if missing else " (a number twice)"))
    return problems


def _text(value) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")  # strict: invalid UTF-8 raises (a ValueError)
    if value is None:
        return ""
    raise ValueError(f"expected text, found {type(value).__name__}")


# -- faults that are not damage --------------------------------------------------------


def unavailable(path: str | os.PathLike, exc: BaseException) -> EventLogError:
    """The error to raise for ``exc`` met while opening or writing the database at ``path``:
    :class:`DatabaseUnavailable` (locked, full, read-only, permission, I/O) naming the fault,
    or :class:`DatabaseDamaged` when the file itself is damaged."""
    from companion.faults import FAULTS

    if isinstance(exc, EventLogError):
        return exc
    path = Path(path)
    name = (getattr(exc, "sqlite_errorname", None) or "").upper()
    text = str(exc)
    code = getattr(exc, "errno", None)
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text or "not a database" in text \
            or "decode" in text:
        return DatabaseDamaged(f"{path} is damaged or not a database: {text}")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "is locked" in text:
        kind = "locked"
        holders = lock_holders(path)
        if holders:
            text += f"; held by {holders}"
    elif name.startswith("SQLITE_FULL") or code == errno.ENOSPC or "disk is full" in text or _no_space(path):
        kind = "full"
    elif code == errno.EROFS or _read_only_fs(path):
        kind = "readonly"
    elif name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")) \
            or code in (errno.EACCES, errno.EPERM):
        kind = "permission"
        text += _owners(path)
    elif code in (errno.ENOTDIR, errno.ENOENT, errno.EISDIR, errno.ENAMETOOLONG):
        kind = "path"
    elif name.startswith("SQLITE_IOERR") or code is not None:
        kind = "io"
    else:  # SQLite refuses the file itself ("unsupported file format", a schema it cannot read)
        return DatabaseDamaged(f"{path} is damaged or not a database: {text}")
    title = FAULTS[kind].title
    return DatabaseUnavailable(f"cannot use the database {path}: {title} ({text})", kind)


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(_existing(Path(path))).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _no_space(path: Path) -> bool:
    try:
        stats = os.statvfs(_existing(Path(path)))
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < 64 * 1024


def _owners(path: Path) -> str:
    """Who owns the database's files when the companion's user may not write them."""
    from companion.files import owners_note

    return owners_note([path, Path(f"{path}-wal"), Path(f"{path}-shm"), path.parent])


def lock_holders(path: str | os.PathLike) -> str:
    """Which processes hold a lock on ``path`` (Linux /proc/locks), e.g. ``"PID 812 (sqlite3)"``; "" if unknown."""
    try:
        inode = os.stat(path).st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return ""
    pids = []
    for line in lines:
        parts = line.split()
        if len(parts) > 5 and parts[5].rsplit(":", 1)[-1] == str(inode) and parts[4].isdigit():
            pid = int(parts[4])
            if pid != os.getpid() and pid not in pids:
                pids.append(pid)
    names = []
    for pid in pids:
        try:
            names.append(f"PID {pid} ({Path(f'/proc/{pid}/comm').read_text().strip()})")
        except OSError:
            names.append(f"PID {pid}")
    return ", ".join(names)


def _remove_new_files(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except OSError:
            pass
