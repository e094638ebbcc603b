"""The event log keeps every acknowledged event, in order, once, and never rewrites one."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from companion.errors import EventLogError, UnknownSession
from companion.eventlog import EventLog, default_data_dir

SETUP = {"players": ["Lola", "Grace"], "options": {}}


def test_the_log_is_durable_wal_with_synchronous_full(log, tmp_path):
    db = sqlite3.connect(tmp_path / "companion.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # synchronous is per connection: read it from the log's own connection.
    assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    db.close()


def test_events_get_gap_free_sequence_numbers_per_session(log):
    a = log.create_session("fandooble", SETUP)
    b = log.create_session("fandooble", SETUP)
    assert [log.append(a, "move", t, source="cli").seq for t in ("roll CCGF", "bank")] == [1, 2]
    assert log.append(b, "move", "roll CCCF", source="camera").seq == 1
    assert [e.text for e in log.events(a)] == ["roll CCGF", "bank"]
    assert [e.seq for e in log.events(a, after_seq=1)] == [2]


def test_appending_the_same_event_id_twice_changes_nothing(log):
    sid = log.create_session("fandooble", SETUP)
    first = log.append(sid, "move", "roll CCGF", source="dashboard", event_id="phone-1")
    again = log.append(sid, "move", "roll CCGF", source="dashboard", event_id="phone-1")
    assert again == first
    assert log.count_events(sid) == 1


def test_eight_threads_appending_one_event_id_store_exactly_one_row(log):
    sid = log.create_session("fandooble", SETUP)
    barrier = threading.Barrier(8)
    seqs = []

    def send():
        barrier.wait()
        seqs.append(log.append(sid, "move", "bank", source="button", event_id="press-7").seq)

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert log.count_events(sid) == 1 and set(seqs) == {1}


def test_events_can_never_be_changed_or_deleted(log, tmp_path):
    sid = log.create_session("fandooble", SETUP)
    log.append(sid, "move", "roll CCGF", source="cli")
    db = sqlite3.connect(tmp_path / "companion.db")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE events SET text = 'roll CCCF'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM events")
    db.close()
    assert log.events(sid)[0].text == "roll CCGF"


def test_events_survive_closing_and_reopening(tmp_path):
    path = tmp_path / "companion.db"
    with EventLog(path) as first:
        sid = first.create_session("fandooble", SETUP, title="Friday")
        first.append(sid, "move", "roll CCGF", source="camera", payload={"confidence": 0.98})
    with EventLog(path) as second:
        (event,) = second.events(sid)
        assert (event.text, event.source, event.payload) == ("roll CCGF", "camera", {"confidence": 0.98})
        assert second.session(sid).title == "Friday"
        assert second.session(sid).setup == SETUP


def test_unknown_sources_and_sessions_are_refused(log):
    sid = log.create_session("fandooble", SETUP)
    with pytest.raises(EventLogError, match="unknown event source 'radio'"):
        log.append(sid, "move", "bank", source="radio")
    with pytest.raises(UnknownSession):
        log.append("nope", "move", "bank", source="cli")
    with pytest.raises(UnknownSession, match="no game or campaign with id nope"):
        log.session("nope")
    assert log.count_events() == 0


def test_a_backup_is_a_consistent_copy(log, tmp_path):
    sid = log.create_session("fandooble", SETUP)
    for i in range(20):
        log.append(sid, "note", f"note {i}", source="system")
    copy = log.backup_to(tmp_path / "backups" / "copy.db")
    with EventLog(copy) as restored:
        assert restored.integrity_check() == "ok"
        assert restored.count_events(sid) == 20


def test_settings_are_kept_and_cleared(log):
    log.set_setting("active_session", "abc")
    log.set_setting("active_session", "def")
    assert log.get_setting("active_session") == "def"
    log.set_setting("active_session", None)
    assert log.get_setting("active_session", "none") == "none"


def test_the_data_directory_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("COMPANION_DATA_DIR", raising=False)
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/companion")
    assert str(default_data_dir()) == "/var/lib/companion"
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    assert default_data_dir() == tmp_path
    monkeypatch.delenv("COMPANION_DATA_DIR")
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "companion"


def test_a_batch_is_written_whole_or_not_at_all(log):
    with pytest.raises(RuntimeError, match="disk failed"):
        with log.batch():
            sid = log.create_session("fandooble", SETUP, session_id="imported")
            log.append(sid, "move", "roll CCGF", source="cli")
            raise RuntimeError("disk failed halfway")
    assert log.sessions() == [] and log.count_events() == 0
    with log.batch():
        sid = log.create_session("fandooble", SETUP, session_id="imported")
        log.append(sid, "move", "roll CCGF", source="cli")
        log.append(sid, "move", "roll GRK", source="cli")
    assert [e.seq for e in log.events(sid)] == [1, 2]
