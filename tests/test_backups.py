"""The database at start: damage is found, the newest good backup restored, and nothing boot-loops."""

from __future__ import annotations

import os
import time

from companion.backups import backup_if_due, check_at_start, list_backups, record
from companion.eventlog import DB_NAME, EventLog
from companion.runtime import ACTIVE_SESSION
from companion.session import Session

DAY = 86400.0


def play_a_game(data_dir, moves=40):
    with EventLog(data_dir / DB_NAME) as log:
        game = Session.create(log, "fandooble", ["Ann", "Bob"])
        log.set_setting(ACTIVE_SESSION, game.session_id)
        for i in range(moves):
            game.note("note", f"remark {i} " + "x" * 400, source="cli")  # fills several pages
        game.apply("roll CCCK", source="cli")
        return game.session_id


def damage(path, how):
    size = path.stat().st_size
    if how == "overwrite":
        with open(path, "r+b") as f:
            f.seek(max(4096, size // 2 // 4096 * 4096))  # past page 1: the header still looks fine
            f.write(os.urandom(4096))
    else:
        os.truncate(path, size // 3)


def test_a_sound_database_passes_and_a_new_one_is_created(data_dir):
    assert check_at_start(data_dir).status == "new"
    play_a_game(data_dir)
    boot = check_at_start(data_dir)
    assert boot.status == "ok" and boot.health == "ok"


def test_backups_are_daily_checked_and_rotated(data_dir):
    play_a_game(data_dir)
    with EventLog(data_dir / DB_NAME) as log:
        start = time.time()
        taken = [backup_if_due(log, data_dir, keep=3, now=start + d * DAY) for d in range(5)]
        assert backup_if_due(log, data_dir, keep=3, now=start + 4 * DAY) is None  # one a day
    assert all(taken)
    assert [p.name for p in list_backups(data_dir)] == [p.name for p in reversed(taken[-3:])]
    assert all(EventLog.check_file(p) == "ok" for p in list_backups(data_dir))


def test_damage_past_page_one_is_found_and_the_newest_good_backup_restored(data_dir):
    for how in ("overwrite", "truncate"):
        for leftover in data_dir.iterdir():
            if leftover.is_file():
                leftover.unlink()
        session_id = play_a_game(data_dir)
        with EventLog(data_dir / DB_NAME) as log:
            older = backup_if_due(log, data_dir, now=time.time() - 2 * DAY)
            newest = backup_if_due(log, data_dir, now=time.time() - DAY)
            Session.resume(log, session_id).apply("bank", source="cli")  # played after the last backup
        damage(newest, "overwrite")  # the newest backup is bad too: the older one must be used
        damage(data_dir / DB_NAME, how)
        assert EventLog.check_file(data_dir / DB_NAME) != "ok", how

        boot = check_at_start(data_dir)
        assert boot.status == "restored" and boot.backup == older and boot.health == "degraded", how
        assert "anything played after" in boot.detail and boot.damaged.exists()
        with EventLog(data_dir / DB_NAME) as log:
            assert log.quick_check() == "ok"
            record(log, boot)
            events = log.events(session_id)
            assert events[-1].source == "system" and "restored the backup" in events[-1].text
            assert [e.text for e in events if e.kind == "move"] == ["roll CCCK"]  # the bank was lost
        for p in list_backups(data_dir):
            p.unlink()


def test_no_good_backup_starts_empty_keeping_the_damaged_file(data_dir):
    play_a_game(data_dir)
    damage(data_dir / DB_NAME, "overwrite")
    boot = check_at_start(data_dir)
    assert boot.status == "failed" and boot.health == "failed"
    assert "no good backup" in boot.detail and boot.damaged.exists()
    assert not (data_dir / DB_NAME).exists()
    with EventLog(data_dir / DB_NAME) as log:  # the companion can start: no boot loop
        record(log, boot)
        assert log.get_setting("last_database_repair") == boot.detail
    assert check_at_start(data_dir).status == "ok"  # and the next start is clean
