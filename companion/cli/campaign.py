"""``companion campaign``: a group's Fabled Fruit legacy deck across game nights.

    companion campaign new --group Anne,Paul,Rachel [--title "Friday group"]
    companion campaign list
    companion campaign show [CAMPAIGN] [--json]
    companion campaign game [CAMPAIGN] --players Anne,Paul [--start Anne]
    companion campaign finish | abandon [CAMPAIGN]
    companion campaign park [CAMPAIGN]
    companion campaign resume CAMPAIGN
    companion campaign reset [CAMPAIGN] --yes
    companion campaign export CAMPAIGN [-o FILE]
    companion campaign import FILE

CAMPAIGN is an id, the start of one, or a title; without it, the campaign on the table.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from companion.campaign import Campaign, export_campaign, import_campaign, list_campaigns
from companion.carddata import CardData
from companion.cli.common import add_data_dir, data_dir, open_log, parse_players, print_json, read_document, write_document
from companion.errors import SetupError


def register(sub) -> None:
    p = sub.add_parser(
        "campaign",
        help="Fabled Fruit campaigns: the legacy deck, display, bag, games and scores of each group",
        description=__doc__.replace("``", ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True

    def verb(name: str, help_text: str, handler, *, ref: str = "optional"):
        v = verbs.add_parser(name, help=help_text, description=help_text)
        add_data_dir(v)
        v.add_argument("--db", help="the event log to use (default: the one in the data directory)")
        if ref == "optional":
            v.add_argument("campaign", nargs="?", help="id, start of the id, or title (default: the one on the table)")
        elif ref == "required":
            v.add_argument("campaign", help="id, start of the id, or title")
        v.set_defaults(handler=handler)
        return v

    v = verb("new", "start a campaign for a group: the box sorted, locations 1-6 on display", _new, ref="none")
    v.add_argument("--group", required=True, help="the group's players, separated by commas")
    v.add_argument("--title", default="", help="a name for the campaign (default: the group's names)")
    v = verb("list", "every campaign, and which one is on the table", _list, ref="none")
    v.add_argument("--json", action="store_true", help="print JSON")
    v = verb("show", "the stacks on display, the deck, the bag, the scores and the history", _show)
    v.add_argument("--json", action="store_true", help="print JSON (what the dashboard shows)")
    v = verb("game", "start the campaign's next game from its cards", _game)
    v.add_argument("--players", required=True, help="players in seat order (clockwise), separated by commas")
    v.add_argument("--start", help="the start player (default: the loser of the last game)")
    v.add_argument("--seats", help="the table's seats (1-6) the players sit at, in player order, e.g. 1,3,5")
    verb("finish", "record the end of the game being played (done by itself when the dashboard plays it)", _finish)
    v = verb("abandon", "stop the game being played without a result (its juices still leave the deck)", _abandon)
    v.add_argument("--reason", default="", help="why, for the history")
    verb("park", "put the campaign's cards away so another group can use the box", _park)
    verb("resume", "bring a parked campaign's cards back to the table", _resume, ref="required")
    v = verb("reset", "put every card back in number order (the next game is a first game again)", _reset)
    v.add_argument("--yes", action="store_true", help="confirm: the deck, display and bag start over")
    v = verb("export", "write the campaign and all its games as JSON", _export, ref="required")
    v.add_argument("-o", "--output", type=Path, help="the file to write (default: standard output)")
    v = verb("import", "read a campaign written by export (refused with the reason if it does not check)", _import, ref="none")
    v.add_argument("file", type=Path, help="the JSON file (- for standard input)")


def _facts(args) -> dict:
    return CardData(data_dir(args), "fable").overrides()


def _new(args) -> int:
    with open_log(args) as log:
        campaign = Campaign.new(log, parse_players(args.group), title=args.title)
        print(f"Campaign '{campaign.title}' ({campaign.campaign_id}) is on the table.")
        print(campaign.setup_instructions().to_text())
    return 0


def _list(args) -> int:
    with open_log(args) as log:
        rows = list_campaigns(log)
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print("No campaign yet: companion campaign new --group NAME,NAME")
        return 0
    for row in rows:
        where = "ON THE TABLE" if row["on_table"] else "parked"
        playing = ", game being played" if row["playing"] else ""
        when = time.strftime("%Y-%m-%d", time.localtime(row["last_activity"]))
        games = f"{row['games']:>3} {'game' if row['games'] == 1 else 'games'}"
        print(f"{row['campaign_id'][:8]}  {row['title']:<24} {where:<12} {games}{playing}; "
              f"{', '.join(row['group'])}; last {when}")
    return 0


def _show(args) -> int:
    with open_log(args) as log:
        campaign = Campaign.find(log, args.campaign)
        facts = _facts(args)
        if args.json:
            print_json(campaign.to_json(facts))
        else:
            print(campaign.summary(facts))
            view = campaign.to_json(facts)
            if view["current_over"]:
                print("The game being played is over: 'companion campaign finish' records it.")
    return 0


def _game(args) -> int:
    with open_log(args) as log:
        campaign = Campaign.find(log, args.campaign)
        session = campaign.start_game(parse_players(args.players), start=args.start, card_facts=_facts(args),
                                      seats=args.seats)
        state = session.state
        print(f"Game {len(campaign.state.games)} of '{campaign.title}': {', '.join(state.players)}; "
              f"{state.players[state.start]} starts.")
        print(f"Game id: {session.session_id}")
        db = args.db or str(data_dir(args) / "companion.db")
        print(f"Play it on the dashboard, or: companion play fable --db {db} --session {session.session_id} < moves.txt")
    return 0


def _finish(args) -> int:
    with open_log(args) as log:
        campaign = Campaign.find(log, args.campaign)
        print(campaign.finish_game(card_facts=_facts(args)).to_text())
    return 0


def _abandon(args) -> int:
    with open_log(args) as log:
        campaign = Campaign.find(log, args.campaign)
        print(campaign.abandon_game(reason=args.reason).to_text())
    return 0


def _park(args) -> int:
    with open_log(args) as log:
        print(Campaign.find(log, args.campaign).park().to_text())
    return 0


def _resume(args) -> int:
    with open_log(args) as log:
        print(Campaign.find(log, args.campaign).resume().to_text())
    return 0


def _reset(args) -> int:
    if not args.yes:
        raise SetupError("a reset puts every card back in number order: add --yes to confirm")
    with open_log(args) as log:
        print(Campaign.find(log, args.campaign).reset().to_text())
    return 0


def _export(args) -> int:
    with open_log(args) as log:
        document = export_campaign(Campaign.find(log, args.campaign))
    write_document(args.output, document)
    return 0


def _import(args) -> int:
    document = read_document(args.file)
    with open_log(args) as log:
        campaign = import_campaign(log, document)
        where = "on the table" if campaign.state.on_table else "parked"
        count = len(campaign.state.games)
        print(f"Imported '{campaign.title}' ({campaign.campaign_id}) with {count} {'game' if count == 1 else 'games'}; {where}.")
        if campaign.state.on_table:
            print(campaign.setup_instructions().to_text())
    return 0
