"""``companion cards``: the card facts players fill in from their own cards.

    companion cards show [NUMBER] [--unknown] [--json]
    companion cards set NUMBER FIELD=VALUE ...      e.g. set 7 "price=6 smoothies" signpost=no
    companion cards clear NUMBER [FIELD ...]
    companion cards export [-o FILE]
    companion cards import FILE [--replace]

Fields of a Fabled Fruit location: name, price (``3 grapes + 1 smoothie``, ``6 smoothies``,
``special: ...``), action (the card's text), rule (an action the companion implements:
draw2, banana_for_two, draw_and_swap3), signpost (yes/no), components (comma-separated:
thief, fruit tokens, wild tokens, double-turn tokens, fruit-mix cards; or none).
Bable (--game bable): B1-B16 name, cost (``2 stone + 1 wood``), details (``statue, doors``
or none); R-stone, R-cement, R-tools, R-wood, W-build, W-gather, W-give, W-reveal and
C1-C7 (Confusion effects) count.
Entries live in the data directory and survive upgrades.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.carddata import CardData
from companion.cli.common import add_data_dir, data_dir, print_json, read_document, write_document
from companion.errors import SetupError


def register(sub) -> None:
    p = sub.add_parser(
        "cards",
        help="show and fill in the card facts the rulebooks leave unknown (Fabled Fruit locations, Bable cards)",
        description=__doc__.replace("``", ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True

    def verb(name: str, help_text: str, handler):
        v = verbs.add_parser(name, help=help_text, description=help_text)
        add_data_dir(v)
        v.add_argument("--game", default="fable", help="the game whose cards these are (default fable)")
        v.set_defaults(handler=handler)
        return v

    v = verb("show", "the card table: what is known, and what is still to fill in", _show)
    v.add_argument("number", nargs="?", help="one card only")
    v.add_argument("--unknown", action="store_true", help="only cards with facts still unknown")
    v.add_argument("--json", action="store_true", help="print JSON")
    v = verb("set", "enter facts from your own card", _set)
    v.add_argument("number")
    v.add_argument("facts", nargs="+", metavar="FIELD=VALUE")
    v = verb("clear", "forget entered facts (the shipped ones apply again)", _clear)
    v.add_argument("number")
    v.add_argument("fields", nargs="*", metavar="FIELD")
    v = verb("export", "write the entered facts as JSON", _export)
    v.add_argument("-o", "--output", type=Path, help="the file to write (default: standard output)")
    v = verb("import", "read facts written by export, over the entered ones", _import)
    v.add_argument("file", type=Path, help="the JSON file (- for standard input)")
    v.add_argument("--replace", action="store_true", help="drop every entered fact not in the file")


def _cards(args) -> CardData:
    return CardData(data_dir(args), args.game)


def _show(args) -> int:
    cards = _cards(args)
    if args.number is not None:
        entry = cards.entry(args.number)
        if args.json:
            print_json(entry)
        else:
            print(cards.table.describe(entry))
            for field, source in entry["sources"].items():
                if source:
                    print(f"    {field}: {source}")
        return 0
    merged = cards.merged()
    if args.unknown:
        merged = {k: e for k, e in merged.items() if not e["verified"]}
    if args.json:
        print_json(merged)
        return 0
    for entry in merged.values():
        print(cards.table.describe(entry))
    left = len(cards.unverified())
    print(f"{len(cards.merged()) - left} cards complete, {left} with facts to fill in (companion cards set NUMBER FIELD=VALUE)")
    return 0


def _set(args) -> int:
    fields = {}
    for pair in args.facts:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise SetupError(f"'{pair}': write FIELD=VALUE, e.g. \"price=3 grapes + 1 smoothie\"")
        fields[name.strip().lower()] = value
    cards = _cards(args)
    print(cards.table.describe(cards.set_text(args.number, fields)))
    return 0


def _clear(args) -> int:
    cards = _cards(args)
    print(cards.table.describe(cards.clear(args.number, args.fields or None)))
    return 0


def _export(args) -> int:
    document = _cards(args).export()
    write_document(args.output, document)
    return 0


def _import(args) -> int:
    document = read_document(args.file)
    incoming = _cards(args).import_(document, replace=args.replace)
    print(f"Imported facts for {len(incoming)} {'card' if len(incoming) == 1 else 'cards'}.")
    return 0
