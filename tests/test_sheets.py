"""Printed sticker sheets: every code reads back with the project's own reader, labels and all."""

from collections import Counter

import numpy as np
import pypdfium2 as pdfium
import pytest

from companion.cli import main
from vision import sheets, tags
from vision.reader import TagReader


def _read_pdf(pdf: bytes, dpi: float) -> tuple[Counter, str, list[tuple[float, float]]]:
    """Payload counts, all page text, and page sizes in mm."""
    doc = pdfium.PdfDocument(pdf)
    found: Counter = Counter()
    text, sizes = [], []
    reader = TagReader(reuse_when_still=False)
    for page in doc:
        image = page.render(scale=dpi / 72).to_numpy()
        reading = reader.read(np.ascontiguousarray(image[..., :3]))
        found.update(s.text for s in reading.sightings)
        text.append(page.get_textpage().get_text_range())
        sizes.append((page.get_width() * 25.4 / 72, page.get_height() * 25.4 / 72))
    doc.close()
    return found, "\n".join(text), sizes


def test_both_stickers_of_all_240_cards_and_the_corners_read_back_once_each():
    pdf = sheets.fable_sheets()
    found, text, sizes = _read_pdf(pdf, dpi=100)
    expected = sheets.fable_payloads(second=True) + [f"TB:{c}" for c in tags.CORNERS]
    assert len(expected) == 484 and expected[:2] == ["FF:01:1", "FF:01:1:B"]
    assert found == Counter(expected)
    for payload in ("FF:07:2", "FF:59:8", "FF:58:4:B"):
        assert tags.parse(payload).label in text
    assert "table NW" in text and "Codes 28 mm wide" in text
    assert all(size == pytest.approx((210, 297), abs=0.5) for size in sizes)


def test_the_sheets_open_with_a_full_size_card_showing_where_the_stickers_go():
    doc = pdfium.PdfDocument(sheets.fable_sheets(sheets.parse_locations("7")))
    guide = doc[0]
    text = " ".join(guide.get_textpage().get_text_range().split())
    assert "Where the stickers go" in text and "bottom-right corner turned upside down" in text
    assert "animals stand" in text and "A 07\u00b72" in text and "B 07\u00b72 B" in text
    image = guide.render(scale=3).to_numpy()
    assert TagReader(reuse_when_still=False).read(np.ascontiguousarray(image[..., :3])).sightings == ()
    doc.close()
    one = pdfium.PdfDocument(sheets.fable_sheets(sheets.parse_locations("7"), per_card=1))
    assert "One sticker per card" in one[0].get_textpage().get_text_range()
    one.close()


def test_two_stickers_that_would_not_fit_on_a_card_are_refused():
    with pytest.raises(ValueError, match="two 30 mm codes do not fit on a 63 x 88 mm card"):
        sheets.fable_sheets(size_mm=30)
    sheets.fable_sheets(sheets.parse_locations("7"), size_mm=29)
    sheets.fable_sheets(sheets.parse_locations("7"), size_mm=40, per_card=1)


@pytest.mark.parametrize("paper, size_mm, dpi, per_card", [("letter", 15.0, 200, 2), ("a4", 40.0, 72, 1)])
def test_range_on_other_paper_and_sizes(paper, size_mm, dpi, per_card):
    pdf = sheets.fable_sheets(sheets.parse_locations("57-59"), paper=paper, size_mm=size_mm, per_card=per_card)
    found, _, sizes = _read_pdf(pdf, dpi)
    cards = set(sheets.fable_payloads(range(57, 60), second=per_card == 2))
    assert set(found) == cards | {f"TB:{c}" for c in tags.CORNERS}
    assert sum(n for p, n in found.items() if p.startswith("FF:59")) == 8 * per_card
    assert sizes[0] == pytest.approx(sheets.PAPERS[paper], abs=0.5)


def test_codes_are_printed_at_the_asked_size():
    pdf = sheets.sticker_sheets(["FF:01:1"], size_mm=30.0)
    doc = pdfium.PdfDocument(pdf)
    image = doc[0].render(scale=254 / 72).to_numpy()  # 10 px per mm
    reading = TagReader().read(np.ascontiguousarray(image[..., :3]))
    (seen,) = reading.sightings
    assert seen.side_px / 10 == pytest.approx(30.0, rel=0.03)
    doc.close()


@pytest.mark.parametrize("text, expected", [(None, range(1, 60)), ("7-12", range(7, 13)), ("59", range(59, 60))])
def test_location_ranges(text, expected):
    assert sheets.parse_locations(text) == expected


@pytest.mark.parametrize("text", ["0-3", "12-7", "a-b", "60", "7-70"])
def test_bad_location_ranges_say_why(text):
    with pytest.raises(ValueError, match="locations"):
        sheets.parse_locations(text)


def test_bad_sizes_and_payloads_are_refused():
    with pytest.raises(ValueError, match="between"):
        sheets.sticker_sheets(["FF:01:1"], size_mm=3)
    with pytest.raises(ValueError, match="not a tag payload"):
        sheets.sticker_sheets(["HELLO"])
    with pytest.raises(ValueError, match="paper"):
        sheets.sticker_sheets(["FF:01:1"], paper="a3")


def test_cli_writes_the_sheets(tmp_path, capsys):
    out = tmp_path / "sheets" / "fable.pdf"
    assert main(["tags", "fable", "--out", str(out), "--locations", "7-12", "--paper", "letter", "--size", "20"]) == 0
    assert out.read_bytes().startswith(b"%PDF")
    assert ("48 card stickers (two for each of 24 cards) (locations 7-12) and the 4 table corners, codes 20 mm"
            in capsys.readouterr().out)
    found, _, _ = _read_pdf(out.read_bytes(), 120)
    assert len(found) == 52
    assert main(["tags", "fable", "--out", str(out), "--locations", "7", "--one-per-card", "--size", "36"]) == 0
    assert "4 card stickers (locations 7-7) and the 4 table corners, codes 36 mm" in capsys.readouterr().out
    assert main(["tags", "fable", "--out", str(out), "--size", "33"]) == 2
    assert "one sticker per card" in capsys.readouterr().err


def test_cli_writes_the_tray_tags_that_read_back(tmp_path, capsys):
    out = tmp_path / "tray.pdf"
    assert main(["tags", "tray", "--out", str(out)]) == 0
    assert "the 4 dice tray corner tags" in capsys.readouterr().out
    found, text, _ = _read_pdf(out.read_bytes(), dpi=100)
    assert found == Counter(f"DT:{c}" for c in tags.CORNERS)
    assert "tray NW" in text and "Codes 24 mm wide" in text


def test_cli_explains_a_bad_range(tmp_path, capsys):
    assert main(["tags", "fable", "--out", str(tmp_path / "x.pdf"), "--locations", "40-80"]) == 2
    assert "locations 1 to 59" in capsys.readouterr().err
