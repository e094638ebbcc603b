"""Flipped bytes anywhere in a campaign's database: never a silent rewind.

Each trial flips a run of bytes at a seeded random offset of a database holding
several games, then runs the start-up check. Every trial must end one of two ways:
the start says all is well and every acknowledged event is there exactly as it was
(and every game replays), or the damage is found, reported, and the newest good
backup restored (holding exactly what it held when it was taken). A short sweep runs
in CI; the full one is marked slow.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from companion.backups import backup_if_due, check_at_start
from companion.eventlog import DB_NAME, EventLog
from companion.session import Session

LONG = os.environ.get("COMPANION_LONG") == "1"
MOVES = ("roll CCCK", "bank")


def _contents(db: Path) -> dict:
    with EventLog(db) as log:
        return {s.session_id: [e.to_json() for e in log.events(s.session_id)] for s in log.sessions()}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """Six games of 60 moves with notes; a backup after the fifth. Returns (folder, events, backup's events)."""
    folder = tmp_path_factory.mktemp("flip") / "data"
    folder.mkdir()
    with EventLog(folder / DB_NAME) as log:
        for game_number in range(6):
            game = Session.create(log, "fandooble", ["Ann", "Bob", "Cleo"], {"coins": "9000"})
            for n in range(60):
                game.apply(MOVES[n % 2], source="dashboard")
                if n % 10 == 0:
                    game.note("note", f"table talk {n} " + "ü" * 40, source="cli")
            if game_number == 4:
                backup_if_due(log, folder, force=True)
    backup = next((folder / "backups").iterdir())
    return folder, _contents(folder / DB_NAME), _contents(backup)


def _trial(campaign, work: Path, seed: int) -> str:
    """Flip bytes, start, judge. Returns what happened; fails the test on a silent loss."""
    folder, events, backed_up = campaign
    trial = work / f"trial-{seed}"
    shutil.copytree(folder, trial)
    db = trial / DB_NAME
    rng = random.Random(seed)
    size = db.stat().st_size
    run = rng.choice((1, 4, 16))
    offset = rng.randrange(0, size - run)
    with open(db, "r+b") as f:
        f.seek(offset)
        old = f.read(run)
        f.seek(offset)
        f.write(bytes(b ^ rng.randrange(1, 256) for b in old))
    boot = check_at_start(trial)
    where = f"seed {seed}: {run} bytes at {offset} (page {offset // 4096 + 1})"
    if boot.status == "ok":
        assert _contents(db) == events, f"{where}: the start said ok but the events changed (a silent loss)"
        with EventLog(db) as log:
            for session_id in events:
                Session.resume(log, session_id)  # every game replays
        result = "unharmed"
    else:
        assert boot.fault is not None and boot.detail, where
        assert EventLog.check_file(db) == "ok", f"{where}: the repaired database fails its check"
        if boot.status == "restored":
            assert _contents(db) == backed_up, f"{where}: the restored backup is not what was backed up"
            assert "anything played after" in boot.detail
        result = boot.status
    shutil.rmtree(trial)
    return result


def _sweep(campaign, tmp_path, trials: int) -> dict[str, int]:
    outcomes: dict[str, int] = {}
    for seed in range(trials):
        outcome = _trial(campaign, tmp_path, seed)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return outcomes


def test_flipped_bytes_are_harmless_or_found_and_restored(campaign, tmp_path):
    outcomes = _sweep(campaign, tmp_path, 60)
    assert outcomes.get("restored", 0) > 0  # the sweep does hit data, and the damage is found


@pytest.mark.slow
def test_the_full_flip_sweep(campaign, tmp_path):
    outcomes = _sweep(campaign, tmp_path, 2000 if LONG else 400)
    assert outcomes.get("restored", 0) > 0
    print(outcomes)
