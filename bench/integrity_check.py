"""What the start-up check costs on a campaign-sized database (issue 15: integrity_check instead of quick_check).

Builds a Fabled Fruit campaign of N random games (every move stored through Session.apply, as
bench/campaign_replay.py does), plus alert and note events the camera and the table add, then
times, side by side on the same file:

* ``PRAGMA quick_check`` (what the start ran before),
* ``PRAGMA integrity_check`` (also finds damaged indexes: the rewound games of issue 15),
* the row checks (every row decodes, matches its CRC-32, no gap in a game's events),
* ``EventLog.check_file``: all of it, as the start and ``companion doctor`` run it,
* ``backups.diagnose``: the whole start-up diagnosis (with the comparison against the newest backup),

and prints each in milliseconds and as a multiple of quick_check.

    .venv/bin/python bench/integrity_check.py [--games 30] [--years 1] [--repeat 5]

``--years`` repeats the campaign's games (a group playing weekly for that many years, 50 evenings
of one campaign game each).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from campaign_replay import build  # noqa: E402

from companion import backups  # noqa: E402
from companion.campaign import Campaign  # noqa: E402
from companion.eventlog import DB_NAME, EventLog, _verify_rows  # noqa: E402


def timed(fn, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs) * 1000


def pragma(path: Path, name: str):
    def run():
        db = sqlite3.connect(path)
        try:
            assert db.execute(f"PRAGMA {name}").fetchone()[0] == "ok"
        finally:
            db.close()
    return run


def rows(path: Path):
    def run():
        db = sqlite3.connect(path)
        db.text_factory = bytes
        try:
            assert _verify_rows(db) == []
        finally:
            db.close()
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=30, help="games per campaign (default 30)")
    parser.add_argument("--years", type=float, default=1.0, help="weekly evenings: 50 per year (default 1)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder)
        db = data_dir / DB_NAME
        started = time.perf_counter()
        moves = 0
        campaigns = max(1, round(args.years * 50 / args.games))
        with EventLog(db) as log:
            for n in range(campaigns):
                campaign_id, played, _ = build(log, args.games, args.seed + n)
                Campaign(log, campaign_id).park()  # the next group's campaign takes the box
                moves += played
                # what the camera and the table add beside the moves: alerts, resolutions, notes
                for game in log.sessions(kind="game", parent_id=campaign_id):
                    for i in range(8):
                        log.append(game.session_id, "alert", f"the camera saw something odd ({i})", source="camera",
                                   payload={"move": "buy 3:1", "confidence": 0.61, "tags": [[120.5, 80.25]] * 4})
            events = log.count_events()
            backups.backup_if_due(log, data_dir, force=True)
        size_mb = db.stat().st_size / 1e6
        print(f"database: {campaigns} campaign(s) of {args.games} games, {moves} moves, {events} events, "
              f"{size_mb:.1f} MB (built in {time.perf_counter() - started:.0f} s)")
        quick = timed(pragma(db, "quick_check"), args.repeat)
        results = [
            ("quick_check", quick),
            ("integrity_check", timed(pragma(db, "integrity_check"), args.repeat)),
            ("row checks (decode, CRC-32, gaps)", timed(rows(db), args.repeat)),
            ("EventLog.check_file (all of it)", timed(lambda: EventLog.check_file(db), args.repeat)),
            ("backups.diagnose (the start)", timed(lambda: backups.diagnose(data_dir), args.repeat)),
        ]
        print(f"{'check':<36} {'median ms':>10} {'x quick_check':>14}")
        for name, ms in results:
            print(f"{name:<36} {ms:>10.1f} {ms / quick:>14.2f}")
        per_mb = results[3][1] / size_mb
        print(f"the whole start-up check: {per_mb:.1f} ms per MB of database on this machine "
              "(a Pi 4 core is roughly 5-10x slower)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
