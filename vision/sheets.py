"""Printable sticker sheets: every Fabled Fruit location card (or a range) and the four corner tags.

Vector PDF, drawn module by module in exact millimetres with fpdf2 (pure
Python, well kept, standard fonts built in, no system libraries). segno alone
writes one code per PDF page; a sheet needs many codes, labels and cut marks
placed to the tenth of a millimetre, which is what fpdf2 does.

Each sticker is the code with a quiet zone of :data:`QUIET_MODULES` modules and
its human label under it (``07·2``, ``table NW``); cut marks sit in the gutters
at every sticker corner. Each page says how big the codes are and carries a
50 mm scale bar: print at 100 % ("actual size"), never "fit to page".

By default every card gets two stickers (``07·2`` and ``07·2 B``, side by side
on the sheet) and the sheets open with a guide page: a card drawn at full size
with both stickers where they go (A top left; B bottom right, turned half round)
and where the animals should stand, so a card laid on the page shows the way.
"""

from __future__ import annotations

from dataclasses import dataclass

from fpdf import FPDF

from vision import tags

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
QUIET_MODULES = tags.QUIET_MODULES  # the spec asks for 4; decoders cope with 1-2 and stickers must fit a card corner
MARGIN_MM = 10.0
GUTTER_MM = 4.0
CUT_MARK_MM = 2.0
HEADER_MM = 14.0
MIN_SIZE_MM, MAX_SIZE_MM = 8.0, 80.0
# 3.5 px per module in a 2304 px working image with a Camera Module 3 at 70 cm (README camera table).
DEFAULT_SIZE_MM = 30.0

# The base game's deck: locations 1-59, four copies each except eight of #59 (shared/notes/games.md).
FABLE_LOCATIONS = 59


def fable_copies(location: int) -> int:
    return 8 if location == FABLE_LOCATIONS else 4


def parse_locations(text: str | None) -> range:
    """``"7-12"`` -> range(7, 13); ``"7"`` -> range(7, 8); None -> every location."""
    if text is None or not str(text).strip():
        return range(1, FABLE_LOCATIONS + 1)
    first, sep, last = str(text).strip().partition("-")
    try:
        lo = int(first)
        hi = int(last) if sep else lo
    except ValueError:
        raise ValueError(f"locations {text!r}: write a number or a range such as 7-12") from None
    if not (1 <= lo <= hi <= FABLE_LOCATIONS):
        raise ValueError(f"locations {text!r}: the deck has locations 1 to {FABLE_LOCATIONS}, first <= last")
    return range(lo, hi + 1)


def fable_payloads(locations: range | None = None, *, second: bool = False) -> list[str]:
    """Every card's payload for ``locations`` in deck order (1:1, 1:2, ... 59:8); with ``second``, each
    card's second sticker follows its first (1:1, 1:1 B, 1:2, ...)."""
    locations = locations if locations is not None else range(1, FABLE_LOCATIONS + 1)
    return [tags.format_location(loc, copy, second=b) for loc in locations for copy in range(1, fable_copies(loc) + 1)
            for b in ((False, True) if second else (False,))]


@dataclass(frozen=True)
class _Layout:
    sticker_w: float
    sticker_h: float
    columns: int
    rows: int


def _sticker_size(size_mm: float) -> tuple[float, float, float]:
    """(width, height, label height) of one sticker whose code is ``size_mm`` wide."""
    return tags.sticker_mm(size_mm)


def _layout(paper: tuple[float, float], size_mm: float) -> _Layout:
    w, h, _ = _sticker_size(size_mm)
    usable_w = paper[0] - 2 * MARGIN_MM
    usable_h = paper[1] - 2 * MARGIN_MM - HEADER_MM
    columns = int((usable_w + GUTTER_MM) // (w + GUTTER_MM))
    rows = int((usable_h + GUTTER_MM) // (h + GUTTER_MM))
    if columns < 1 or rows < 1:
        raise ValueError(f"a {size_mm:g} mm code does not fit on the page")
    return _Layout(w, h, columns, rows)


def sticker_sheets(payloads: list[str], *, paper: str = "a4", size_mm: float = DEFAULT_SIZE_MM,
                   corner_size_mm: float | None = None, title: str = "Table Companion tags",
                   guide: int | None = None) -> bytes:
    """A PDF with one sticker per payload. Corner tags (``TB:..``) are printed at ``corner_size_mm``.
    ``guide`` (1 or 2 stickers per card) puts the placement guide first."""
    if paper not in PAPERS:
        raise ValueError(f"paper {paper!r}: choose {' or '.join(PAPERS)}")
    if not (MIN_SIZE_MM <= size_mm <= MAX_SIZE_MM):
        raise ValueError(f"size {size_mm:g} mm: codes are printed between {MIN_SIZE_MM:g} and {MAX_SIZE_MM:g} mm")
    corner_size_mm = corner_size_mm or min(MAX_SIZE_MM, round(size_mm * 1.6, 1))
    for payload in payloads:
        tags.make_qr(payload)  # refuses anything that is not a tag payload, before drawing
    groups = [(size_mm, [p for p in payloads if not p.startswith(tags.TABLE + ":")]),
              (corner_size_mm, [p for p in payloads if p.startswith(tags.TABLE + ":")])]
    pages = []
    for size, group in groups:
        if not group:
            continue
        layout = _layout(PAPERS[paper], size)
        per_page = layout.columns * layout.rows
        for start in range(0, len(group), per_page):
            pages.append((size, layout, group[start:start + per_page]))

    pdf = FPDF(unit="mm", format=PAPERS[paper])
    pdf.set_auto_page_break(False)
    pdf.set_title(title)
    pdf.set_creator("Table Companion")
    if guide:
        _guide(pdf, paper, size_mm, guide)
    for number, (size, layout, chunk) in enumerate(pages, start=1):
        pdf.add_page()
        _header(pdf, paper, size, f"{title}  -  page {number} of {len(pages)}")
        for index, payload in enumerate(chunk):
            row, col = divmod(index, layout.columns)
            x = MARGIN_MM + col * (layout.sticker_w + GUTTER_MM)
            y = MARGIN_MM + HEADER_MM + row * (layout.sticker_h + GUTTER_MM)
            _sticker(pdf, payload, x, y, size)
    return bytes(pdf.output())


def fable_sheets(locations: range | None = None, *, paper: str = "a4", size_mm: float | None = None,
                 corners: bool = True, corner_size_mm: float | None = None, per_card: int = 2) -> bytes:
    """Stickers for the Fabled Fruit cards in ``locations`` (all 240 by default) and the corner tags:
    ``per_card`` 2 (A and B, at most 29 mm; default 28 mm) or 1 (default 30 mm), with the placement guide."""
    if per_card not in (1, 2):
        raise ValueError("a card carries one sticker or two")
    size_mm = size_mm or (tags.PAIR_SYMBOL_MM if per_card == 2 else DEFAULT_SIZE_MM)
    if per_card == 2 and not tags.pair_fits(size_mm):
        raise ValueError(f"two {size_mm:g} mm codes do not fit on a {tags.CARD_MM[0]:g} x {tags.CARD_MM[1]:g} mm card "
                         f"(at most 29 mm each): choose a smaller size, or one sticker per card")
    payloads = fable_payloads(locations, second=per_card == 2)
    if corners:
        payloads += [tags.format_corner(c) for c in tags.CORNERS]
    locations = locations if locations is not None else range(1, FABLE_LOCATIONS + 1)
    title = f"Fabled Fruit location tags {locations.start}-{locations.stop - 1}"
    return sticker_sheets(payloads, paper=paper, size_mm=size_mm, corner_size_mm=corner_size_mm, title=title,
                          guide=per_card)


GUIDE_TEXT = {
    2: ["Two stickers on every card. A (07\u00b72) goes in the top-left corner, its label underneath. "
        "B (07\u00b72 B) goes in the bottom-right corner turned upside down, its label towards the middle. "
        "Keep 3 mm from the card's edges.",
        "Each code's three big squares then sit at the card's edges. An animal standing in the middle of the card "
        "can only touch the codes' inner corners, which the camera does without.",
        "Either sticker alone names the card: an animal, a coin or a hand on one of them changes nothing. "
        "Stand the animals in the middle of the card (the dashed ring), and keep coins and dice off the stickers."],
    1: ["One sticker per card, in the top-left corner, label underneath, 3 mm from the edges.",
        "An animal on the card covers this sticker about a third of the time, and the camera then cannot "
        "see the card until the animal moves: stand the animals on the card's lower half. Two stickers per "
        "card (the default) do not have this weakness."],
}


def _guide(pdf: FPDF, paper: str, size_mm: float, per_card: int) -> None:
    """A page with a card at full size and its stickers where they go, and the rules in words."""
    pdf.add_page()
    pdf.set_font("helvetica", style="B", size=14)
    pdf.text(MARGIN_MM, MARGIN_MM + 5, "Where the stickers go")
    width, height = tags.CARD_MM
    x0, y0 = MARGIN_MM, MARGIN_MM + 14
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.4)
    pdf.rect(x0, y0, width, height, style="D", round_corners=True, corner_radius=3)
    sticker_w, sticker_h, label_h = _sticker_size(size_mm)
    stickers = [(False, "A  07\u00b72")] + ([(True, "B  07\u00b72 B")] if per_card == 2 else [])
    for turned, label in stickers:
        sx, sy = x0 + tags.STICKER_INSET_MM, y0 + tags.STICKER_INSET_MM
        with pdf.rotation(180 if turned else 0, x0 + width / 2, y0 + height / 2):
            pdf.set_line_width(0.2)
            pdf.rect(sx, sy, sticker_w, sticker_h)
            quiet = size_mm * QUIET_MODULES / tags.MODULES
            finder = size_mm * 7 / tags.MODULES
            pdf.set_fill_color(160, 160, 160)
            pdf.rect(sx + quiet, sy + quiet, size_mm, size_mm, style="F")
            pdf.set_fill_color(0, 0, 0)
            for fx, fy in ((0, 0), (size_mm - finder, 0), (0, size_mm - finder)):
                pdf.rect(sx + quiet + fx, sy + quiet + fy, finder, finder, style="F")
            pdf.set_font("helvetica", style="B", size=8)
            pdf.text(sx + 2, sy + sticker_w + label_h * 0.75, label)
    pdf.set_line_width(0.3)
    pdf.set_dash_pattern(dash=1.5, gap=1.5)
    ring = 22.0
    pdf.ellipse(x0 + width / 2 - ring / 2, y0 + height / 2 - ring / 2, ring, ring)
    pdf.set_dash_pattern()
    pdf.set_font("helvetica", size=7)
    pdf.text(x0 + 2.5, y0 + height / 2 + 14, "animals stand")
    pdf.text(x0 + 2.5, y0 + height / 2 + 17, "in the ring")
    pdf.set_font("helvetica", size=10)
    pdf.set_xy(x0 + width + 10, y0)
    column = PAPERS[paper][0] - 2 * MARGIN_MM - width - 10
    for paragraph in GUIDE_TEXT[per_card]:
        pdf.set_x(x0 + width + 10)
        pdf.multi_cell(column, 5, paragraph)
        pdf.ln(3)
    pdf.set_x(x0 + width + 10)
    pdf.multi_cell(column, 5, f"Codes {size_mm:g} mm wide. The card on the left is drawn at full size "
                              "(63 x 88 mm): lay one of yours on it to check the print.")


def _header(pdf: FPDF, paper: str, size_mm: float, title: str) -> None:
    pdf.set_text_color(0, 0, 0)
    pdf.set_font("helvetica", size=9)
    pdf.text(MARGIN_MM, MARGIN_MM + 3, title)
    pdf.set_font("helvetica", size=7)
    pdf.text(MARGIN_MM, MARGIN_MM + 7, f"Codes {size_mm:g} mm wide. Print at 100 % (actual size), not 'fit to page'; "
                                       f"the bar below must measure 50 mm.")
    y = MARGIN_MM + 10
    pdf.set_line_width(0.3)
    pdf.line(MARGIN_MM, y, MARGIN_MM + 50, y)
    for tick in range(0, 51, 10):
        pdf.line(MARGIN_MM + tick, y - 1, MARGIN_MM + tick, y + 1)
    pdf.text(MARGIN_MM + 52, y + 1, "50 mm")


def _sticker(pdf: FPDF, payload: str, x: float, y: float, size_mm: float) -> None:
    module = size_mm / tags.MODULES
    width, height, label_h = _sticker_size(size_mm)
    ox, oy = x + QUIET_MODULES * module, y + QUIET_MODULES * module
    pdf.set_fill_color(0, 0, 0)
    matrix = tags.module_matrix(payload)
    for r, row in enumerate(matrix):
        c = 0
        while c < len(row):
            if not row[c]:
                c += 1
                continue
            run = c
            while run < len(row) and row[run]:
                run += 1
            # Runs overlap the next row by a hair so no white seam shows between rows.
            pdf.rect(ox + c * module, oy + r * module, (run - c) * module, module + 0.02, style="F")
            c = run
    parsed = tags.parse(payload)
    label = parsed.label if parsed is not None else payload
    pdf.set_font("helvetica", style="B", size=max(5.0, min(14.0, label_h * 0.62 / 0.3528)))
    text_w = pdf.get_string_width(label)
    pdf.text(x + (width - text_w) / 2, oy + size_mm + QUIET_MODULES * module + label_h * 0.75, label)  # below the quiet zone
    _cut_marks(pdf, x, y, width, height)


def _cut_marks(pdf: FPDF, x: float, y: float, w: float, h: float) -> None:
    """Short ticks in the gutter at each corner, pointing along the sticker's edges."""
    pdf.set_draw_color(120, 120, 120)
    pdf.set_line_width(0.15)
    gap, length = 0.5, min(CUT_MARK_MM, GUTTER_MM / 2 - 0.2)
    for cx, sx in ((x, -1), (x + w, 1)):
        for cy, sy in ((y, -1), (y + h, 1)):
            pdf.line(cx + sx * gap, cy, cx + sx * (gap + length), cy)
            pdf.line(cx, cy + sy * gap, cx, cy + sy * (gap + length))
    pdf.set_draw_color(0, 0, 0)
