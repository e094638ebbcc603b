"""``companion tags fable --out FILE.pdf``: printable sticker sheets for the location cards and table corners;
``companion tags tray --out FILE.pdf``: the dice tray's four corner tags."""

from __future__ import annotations

from pathlib import Path

from companion.errors import SetupError


def register(sub) -> None:
    p = sub.add_parser(
        "tags",
        help="print QR sticker sheets for the cards and the table corners",
        description=(
            "Writes a PDF of QR stickers: two per Fabled Fruit location card (all 240 cards, or a range of "
            "locations; 07·2 goes top left, 07·2 B bottom right turned upside down: the first page shows how) "
            "and the four table corner tags, each with its label (07·2 = location 7, copy 2) and cut marks; "
            "or (tray) the dice tray's four corner tags, stuck in its corners so the dice are read between them "
            "wherever the tray is moved. "
            "Print at 100 % (actual size). Choose --size from the camera table in the README: "
            "the higher the camera, the bigger the codes."
        ),
    )
    p.add_argument("game", choices=["fable", "tray"],
                   help="the game whose cards get stickers (fable = Fabled Fruit), or tray: the dice tray's corners")
    p.add_argument("--out", required=True, type=Path, help="the PDF file to write")
    p.add_argument("--paper", choices=["a4", "letter"], default="a4", help="paper size (default a4)")
    p.add_argument("--size", type=float, default=None, metavar="MM",
                   help="width of each card's code in millimetres, without its white border (default 28 with two "
                        "stickers per card, at most 29; 30 with one; 24 for the tray's tags; for a camera about 70 cm "
                        "above the table)")
    p.add_argument("--one-per-card", action="store_true",
                   help="one sticker per card (top left) instead of two: allows bigger codes for a higher camera, "
                        "but an animal standing on the sticker hides the card")
    p.add_argument("--corner-size", type=float, default=None, metavar="MM",
                   help="width of the corner tags' codes (default 1.6 x --size)")
    p.add_argument("--locations", default=None, metavar="FIRST-LAST",
                   help="only these locations, e.g. 7-12 (default: all 59, that is 240 cards)")
    p.add_argument("--no-corners", action="store_true", help="leave out the four table corner tags")
    p.set_defaults(handler=run)


TRAY_SIZE_MM = 24.0  # a tray's corner has little room: 4 px a module for a camera about 70 cm above the table


def run(args) -> int:
    from vision import sheets, tags

    if args.game == "tray":
        return _tray(args)
    try:
        locations = sheets.parse_locations(args.locations)
        per_card = 1 if args.one_per_card else 2
        pdf = sheets.fable_sheets(locations, paper=args.paper, size_mm=args.size, corners=not args.no_corners,
                                  corner_size_mm=args.corner_size, per_card=per_card)
    except ValueError as exc:
        raise SetupError(str(exc)) from None
    _write(args.out, pdf)
    cards = len(sheets.fable_payloads(locations))
    corners = "" if args.no_corners else " and the 4 table corners"
    size = args.size or (sheets.DEFAULT_SIZE_MM if per_card == 1 else tags.PAIR_SYMBOL_MM)
    stickers = f"{cards} card stickers" if per_card == 1 else f"{2 * cards} card stickers (two for each of {cards} cards)"
    print(f"wrote {args.out}: {stickers} (locations {locations.start}-{locations.stop - 1}){corners}, "
          f"codes {size:g} mm, {args.paper.upper()}, placement guide first; print at 100 %")
    return 0


def _tray(args) -> int:
    from vision import sheets, tags

    size = args.size or TRAY_SIZE_MM
    try:
        pdf = sheets.sticker_sheets([tags.format_tray_corner(c) for c in tags.CORNERS], paper=args.paper,
                                    size_mm=size, title="Table Companion dice tray tags")
    except ValueError as exc:
        raise SetupError(str(exc)) from None
    _write(args.out, pdf)
    print(f"wrote {args.out}: the 4 dice tray corner tags (tray NW, NE, SE, SW), codes {size:g} mm, "
          f"{args.paper.upper()}; print at 100 %, stick each in its corner of the tray, NW top left as the "
          "players see it, flat and facing the camera")
    return 0


def _write(out: Path, pdf: bytes) -> None:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(pdf)
    except OSError as exc:
        raise SetupError(f"cannot write {out}: {exc.strerror or exc}") from None
