"""``companion play GAME``: moves in text form on stdin, the state as JSON on stdout."""

from __future__ import annotations

import argparse
import sys
import textwrap

from companion import games
from companion.cli.common import add_data_dir, data_dir, numbered_lines, open_log, parse_options, parse_players, print_json
from companion.errors import IllegalMove, InvalidMove, SetupError
from companion.eventlog import EventLog
from companion.session import Session


def register(sub) -> None:
    p = sub.add_parser(
        "play",
        help="play a game from moves on stdin; print the state as JSON",
        description=(
            "Reads one move per line in the game's text form (blank lines and # comments are ignored), "
            "applies each, and prints the final state as JSON. At the first move that cannot be read or "
            "is not allowed it prints 'line N: reason' on stderr and the state before that move on stdout, "
            "and exits 2."
        ),
        epilog=_options_of_every_game(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", help=f"the game: {', '.join(games.names())}")
    p.add_argument("--players", help="player names in seat order, separated by commas")
    p.add_argument("--seats", help="the table's seats (1-6) the players sit at, in player order, e.g. 1,3,5 "
                                   "(default: seats 1, 2, 3, ...)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a game option (repeatable)")
    p.add_argument("--db", help="store the game in this event log so it can be resumed")
    p.add_argument("--session", help="continue this stored game (with --db) instead of starting one")
    add_data_dir(p)
    p.set_defaults(handler=run)


def _options_of_every_game() -> str:
    """Each game's options with what they do, for the end of ``--help``: one option a paragraph."""
    lines = ["each game's options (--option KEY=VALUE):"]
    for name in games.names():
        lines.append(f"  {name}")
        for option, help in sorted(games.get(name).OPTIONS.items()):
            lines += textwrap.wrap(f"{option}: {help}", 78, initial_indent="    ", subsequent_indent="      ")
    return "\n".join(lines)


def run(args) -> int:
    rules = games.get(args.game)
    if args.session and not args.db:
        raise SetupError("--session continues a stored game: give its --db too")
    log = open_log(args) if args.db else EventLog(":memory:")
    with log:
        if args.session:
            session = Session.resume(log, args.session)
            if session.game != rules.NAME:
                raise SetupError(f"session {args.session} is a game of {session.game}, not {rules.NAME}")
        else:
            options = parse_options(args.option)
            if rules.CARDS is not None:
                from companion.carddata import CardData

                # The card facts players entered (prices, actions) reach the game; --option still wins.
                options = {**CardData(data_dir(args), rules.NAME).options(), **options}
            session = Session.create(log, rules.NAME, parse_players(args.players), options, seats=args.seats)
        status = 0
        for number, line in numbered_lines(sys.stdin):
            try:
                session.apply(line, source="cli")
            except (InvalidMove, IllegalMove) as exc:
                print(f"line {number}: {exc}", file=sys.stderr)
                status = 2
                break
        state = session.rules.to_json(session.state)
        if args.db:
            state["session_id"] = session.session_id
        print_json(state)
        return status
