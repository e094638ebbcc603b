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

import json
import os
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from companion.errors import EventLogError, UnknownSession

SOURCES = ("camera", "button", "dashboard", "cli", "system")
DB_NAME = "companion.db"
SCHEMA_VERSION = 1


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
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = connect(self.path, isolation_level=None, check_same_thread=False, timeout=5.0)
        except sqlite3.Error as exc:
            raise EventLogError(f"cannot open the event log {self.path}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0  # open transactions of the thread holding the lock (batch() nests appends)
        self._db.execute("PRAGMA busy_timeout = 5000")
        mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if self.path != ":memory:" and mode.lower() != "wal":
            raise EventLogError(f"the event log {self.path} cannot use WAL (journal mode stays {mode})")
        # FULL: a commit is on disk before append() returns, so a power cut loses nothing acknowledged.
        self._db.execute("PRAGMA synchronous = FULL")
        self._db.execute("PRAGMA foreign_keys = ON")
        schema = resources.files("companion").joinpath("schema.sql").read_text("utf-8")
        with self._lock:
            self._db.executescript(schema)
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
        with self._transaction() as db:
            try:
                db.execute(
                    "INSERT INTO sessions (session_id, kind, game, setup, parent_id, title, created)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (session_id, kind, game, _dump(setup), parent_id, title, time.time()),
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
        event is returned (so a retried request or a duplicate camera report is a no-op).
        """
        if source not in SOURCES:
            raise EventLogError(f"unknown event source '{source}': expected one of {', '.join(SOURCES)}")
        event_id = event_id or new_id()
        stamp = time.time() if at is None else at
        body = _dump(payload or {})
        with self._transaction() as db:
            existing = db.execute(_SELECT_EVENT + " WHERE event_id = ?", (event_id,)).fetchone()
            if existing is not None:
                return _event(existing)
            if db.execute("SELECT 1 FROM sessions WHERE session_id = ?", (session_id,)).fetchone() is None:
                raise UnknownSession(f"no game or campaign with id {session_id} in {self.path}")
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            db.execute(
                "INSERT INTO events (event_id, session_id, seq, time, source, kind, text, payload)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (event_id, session_id, seq, stamp, source, kind, text, body),
            )
        return Event(event_id, session_id, seq, stamp, source, kind, text, json.loads(body))

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

    def backup_to(self, dest: str | os.PathLike) -> Path:
        """A consistent copy of the whole database through SQLite's backup API."""
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".partial")
        target = sqlite3.connect(tmp)
        try:
            with self._lock:
                self._db.backup(target)
        finally:
            target.close()
        os.replace(tmp, dest)
        return dest

    def restore_from(self, source: sqlite3.Connection) -> None:
        """Replace the whole database by ``source``'s (a film's copy, in a replay's own database)."""
        with self._lock:
            source.backup(self._db)

    @staticmethod
    def check_file(path: str | os.PathLike) -> str:
        """``"ok"``, or what is wrong with the database file at ``path``, without opening it as a log.

        No schema is created and nothing is written, so a damaged file or a backup can be
        examined before the companion trusts it (a hot WAL left by a crash is applied, as
        any connection would).
        """
        path = Path(path)
        if not path.is_file():
            return f"{path} does not exist"
        try:
            db = sqlite3.connect(path, timeout=5.0)
        except sqlite3.Error as exc:
            return f"cannot be opened: {exc}"
        try:
            rows = db.execute("PRAGMA quick_check").fetchall()
            if not rows:
                return "quick_check gave no answer"
            db.execute("SELECT COUNT(*) FROM events").fetchone()
            return "; ".join(str(r[0]) for r in rows)
        except sqlite3.Error as exc:
            return f"unreadable: {exc}"
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
                log._db.execute("COMMIT" if exc_type is None else "ROLLBACK")
        finally:
            log._lock.release()


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _event(row) -> Event:
    return Event(row[0], row[1], row[2], row[3], row[4], row[5], row[6], json.loads(row[7]))


def _session(row) -> SessionRecord:
    return SessionRecord(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5], row[6])

