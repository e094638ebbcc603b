"""``companion tags fable --out FILE.pdf``: printable sticker sheets for the location cards and table corners."""

from __future__ import annotations

from pathlib import Path

from companion.errors import SetupError


def register(sub) -> None:
    p = sub.add_parser(
        "tags",
        help="print QR sticker sheets for the cards and the table corners",
        description=(
            "Writes a PDF of QR stickers: one per Fabled Fruit location card (all 240, or a range of locations) "
            "and the four table corner tags, each with its label (07·2 = location 7, copy 2) and cut marks. "
            "Print at 100 % (actual size). Choose --size from the camera table in the README: "
            "the higher the camera, the bigger the codes."
        ),
    )
    p.add_argument("game", choices=["fable"], help="the game whose cards get stickers (fable = Fabled Fruit)")
    p.add_argument("--out", required=True, type=Path, help="the PDF file to write")
    p.add_argument("--paper", choices=["a4", "letter"], default="a4", help="paper size (default a4)")
    p.add_argument("--size", type=float, default=30.0, metavar="MM",
                   help="width of each card's code in millimetres, without its white border (default 30, for a "
                        "camera about 70 cm above the table)")
    p.add_argument("--corner-size", type=float, default=None, metavar="MM",
                   help="width of the corner tags' codes (default 1.6 x --size)")
    p.add_argument("--locations", default=None, metavar="FIRST-LAST",
                   help="only these locations, e.g. 7-12 (default: all 59, that is 240 cards)")
    p.add_argument("--no-corners", action="store_true", help="leave out the four table corner tags")
    p.set_defaults(handler=run)


def run(args) -> int:
    from vision import sheets

    try:
        locations = sheets.parse_locations(args.locations)
        pdf = sheets.fable_sheets(locations, paper=args.paper, size_mm=args.size, corners=not args.no_corners,
                                  corner_size_mm=args.corner_size)
    except ValueError as exc:
        raise SetupError(str(exc)) from None
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(pdf)
    except OSError as exc:
        raise SetupError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    cards = len(sheets.fable_payloads(locations))
    corners = "" if args.no_corners else " and the 4 table corners"
    print(f"wrote {args.out}: {cards} card stickers (locations {locations.start}-{locations.stop - 1}){corners}, "
          f"codes {args.size:g} mm, {args.paper.upper()}; print at 100 %")
    return 0
