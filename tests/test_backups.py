"""The database at start: damage is found, the newest good backup restored, and nothing boot-loops."""

from __future__ import annotations

import os
import shutil
import time

from companion.backups import backup_dir, backup_if_due, check_at_start, last_repair, list_backups, record, rotate
from companion.eventlog import DB_NAME, EventLog
from companion.runtime import ACTIVE_SESSION
from companion.session import Session

DAY = 86400.0
HOUR = 3600.0


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


def test_backups_follow_play_hourly_and_at_the_end_of_a_game(data_dir):
    session_id = play_a_game(data_dir)
    with EventLog(data_dir / DB_NAME) as log:
        start = time.time()
        first = backup_if_due(log, data_dir, now=start)
        assert first is not None and EventLog.check_file(first) == "ok"
        assert backup_if_due(log, data_dir, now=start + 2 * HOUR) is None  # nothing new since: no copy
        game = Session.resume(log, session_id)
        game.apply("bank", source="cli")
        assert backup_if_due(log, data_dir, now=start + 600) is None  # new moves, but the last is recent
        assert backup_if_due(log, data_dir, now=start + 600, force=True) is not None  # the game ended
        game.apply("roll CCCK", source="cli")
        hourly = backup_if_due(log, data_dir, now=start + 600 + HOUR)
    assert hourly is not None and list_backups(data_dir)[0] == hourly
    with EventLog(hourly) as copy:
        assert [e.text for e in copy.events(session_id) if e.kind == "move"] == ["roll CCCK", "bank", "roll CCCK"]


def test_rotation_keeps_the_evening_and_a_week_of_days_within_the_budget(data_dir):
    play_a_game(data_dir, moves=5)
    folder = backup_dir(data_dir)
    folder.mkdir()
    start = time.mktime((2025, 3, 1, 18, 0, 0, 0, 0, -1))
    source = data_dir / DB_NAME
    names = []
    for day in range(10):  # ten evenings of four hourly backups
        for hour in range(4):
            stamp = time.strftime("%Y-%m-%d-%H%M%S", time.localtime(start + day * DAY + hour * HOUR))
            target = folder / f"companion-{stamp}.db"
            target.write_bytes(source.read_bytes())
            names.append(target.name)
    rotate(data_dir, keep_recent=6, keep_days=7, budget=10**9)
    kept = [p.name for p in list_backups(data_dir)]
    assert kept[:6] == list(reversed(names))[:6]  # the last evening and a half, every hour
    assert len(kept) == 6 + 5  # plus the newest of each of the five days before (7 days in all)
    size = source.stat().st_size
    rotate(data_dir, budget=3 * size + 1)
    assert [p.name for p in list_backups(data_dir)] == kept[:3]  # the budget drops the oldest first
    rotate(data_dir, budget=1)
    assert [p.name for p in list_backups(data_dir)] == kept[:1]  # the newest is always kept


def test_damage_past_page_one_is_found_and_the_newest_good_backup_restored(data_dir):
    for how in ("overwrite", "truncate"):
        for leftover in data_dir.iterdir():
            if leftover.is_file():
                leftover.unlink()
        session_id = play_a_game(data_dir)
        with EventLog(data_dir / DB_NAME) as log:
            older = backup_if_due(log, data_dir, now=time.time() - 2 * DAY)
            newest = older.with_name(time.strftime("companion-%Y-%m-%d-%H%M%S.db", time.localtime(time.time() - DAY)))
            shutil.copyfile(older, newest)
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
        assert last_repair(log)["detail"] == boot.detail and last_repair(log)["fault"] == "empty"
    assert check_at_start(data_dir).status == "ok"  # and the next start is clean
