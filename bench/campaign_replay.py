"""How long a Fabled Fruit campaign of 30 games takes to load from the event log (issue 3: under 1 s).

Builds a campaign of random games (2-5 players from a group of five, every move stored through
Session.apply), writes it to a database file, then loads it cold several times: a fresh
EventLog and Campaign.load, which replays every campaign event and every game's moves.
Side by side: the same data read without replaying (SQLite only), the replay without SQLite
(engine only), and the naive alternative of resuming every game as a Session.

    .venv/bin/python bench/campaign_replay.py [--games 30] [--repeat 5] [--seed 1] [--budget 1.0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.campaign import Campaign  # noqa: E402
from companion.campaign import model as campaign_model  # noqa: E402
from companion.campaign.model import game_state  # noqa: E402
from companion.eventlog import EventLog  # noqa: E402
from companion.games import fable  # noqa: E402
from companion.games.fable import rules as fable_rules  # noqa: E402
from companion.session import Session, replay  # noqa: E402

GROUP = ["Anne", "Paul", "Rachel", "Camille", "Bob"]


def build(log: EventLog, games: int, seed: int) -> tuple[str, int, int]:
    """A campaign of ``games`` finished games; returns its id, the moves stored and the resets needed."""
    rng = random.Random(seed)
    campaign = Campaign.new(log, GROUP, title="Bench group")
    moves = resets = 0
    for _ in range(games):
        if not campaign.state.display:
            campaign.reset()  # the legacy deck was played through
            resets += 1
        players = rng.sample(GROUP, rng.randint(2, 5))
        starters = [p for p in campaign.state.next_start() if p in players]
        start = None if len(starters) == 1 else players[0]
        deal = fable.random_deal(players, rng) if rng.random() < 0.5 else None
        session = campaign.start_game(players, start=start, deal=deal)
        while session.outcome() is None:
            session.apply(fable.random_move(session.state, rng), source="system")
            moves += 1
        campaign.finish_game(source="system")
    return campaign.campaign_id, moves, resets


def timed(fn, repeat: int) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return min(runs), statistics.median(runs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds allowed for one load")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "companion.db"
        started = time.perf_counter()
        with EventLog(":memory:") as memory:
            campaign_id, moves, resets = build(memory, args.games, args.seed)
            memory.backup_to(path)  # one durable copy instead of an fsync per move
        built = time.perf_counter() - started

        with EventLog(path) as log:
            games = log.sessions(kind="game", parent_id=campaign_id)
            events = log.count_events()
            check = Campaign.load(log, campaign_id).state
        assert len(check.finished) == args.games, "every game must replay as finished"

        def load() -> None:
            fable_rules._table.cache_clear()  # cold: nothing left over from the run before
            campaign_model._setup.cache_clear()
            with EventLog(path) as log:
                Campaign.load(log, campaign_id)

        def sqlite_only() -> None:
            with EventLog(path) as log:
                log.events(campaign_id)
                for g in log.sessions(kind="game", parent_id=campaign_id):
                    log.events(g.session_id)

        with EventLog(path) as log:
            stored = [(g, log.events(g.session_id)) for g in games]

        def engine_only() -> None:
            for g, evs in stored:
                replay(fable.GAME, fable.setup(g.setup["players"], g.setup["options"]), evs)

        def sessions_each() -> None:
            with EventLog(path) as log:
                for g in log.sessions(kind="game", parent_id=campaign_id):
                    Session.resume(log, g.session_id)
                    game_state(log, g)  # what the campaign needs besides the live session

        rows = [
            ("Campaign.load (cold: open log, replay all)", timed(load, args.repeat)),
            ("  SQLite only (read every event)", timed(sqlite_only, args.repeat)),
            ("  engine only (parse + apply every move)", timed(engine_only, args.repeat)),
            ("alternative: Session.resume per game + replay", timed(sessions_each, args.repeat)),
        ]

    print(f"campaign: {args.games} games, {moves} moves, {events} events, {resets} reset(s); "
          f"built in {built:.1f} s (not measured)")
    print(f"budget: {args.budget:.2f} s per load; {args.repeat} runs each")
    print(f"{'what':<48} {'best s':>8} {'median s':>9} {'median/budget':>14}")
    for name, (best, median) in rows:
        print(f"{name:<48} {best:>8.3f} {median:>9.3f} {median / args.budget:>14.3f}")
    load_median = rows[0][1][1]
    print(f"per move (load median / moves): {load_median / max(moves, 1) * 1e6:.0f} us")
    verdict = "within" if load_median < args.budget else "OVER"
    print(f"{verdict} budget: {load_median:.3f} s of {args.budget:.2f} s")
    return 0 if load_median < args.budget else 1


if __name__ == "__main__":
    raise SystemExit(main())
