"""Tag payloads: the printed contract (shared/DESIGN.md) parses, formats and draws the same way."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from vision import tags
from vision.qr import get_decoder


def test_location_payload_round_trip():
    assert tags.format_location(7, 2) == "FF:07:2"
    assert tags.parse("FF:07:2") == tags.LocationTag(7, 2)
    assert tags.LocationTag(7, 2).label == "07\u00b72"
    assert tags.parse("FF:59:8") == tags.LocationTag(59, 8)


def test_a_cards_second_sticker_names_the_same_card_and_leaves_every_older_payload_as_it_was():
    second = tags.parse("FF:07:2:B")
    assert second == tags.LocationTag(7, 2, second=True) and second.card == (7, 2) == tags.parse("FF:07:2").card
    assert tags.format_location(7, 2, second=True) == "FF:07:2:B" and second.label == "07\u00b72 B"
    assert tags.parse("FF:07:2").second is False  # a printed sticker keeps its meaning
    qr = tags.make_qr("FF:59:8:B")
    assert (qr.version, qr.error, qr.mode) == (1, "H", "alphanumeric")


def test_both_stickers_point_to_their_cards_centre():
    side = 30.0
    quiet = side * tags.QUIET_MODULES / tags.MODULES
    x0 = tags.STICKER_INSET_MM + quiet
    first = np.array([[x0, x0], [x0 + side, x0], [x0 + side, x0 + side], [x0, x0 + side]])
    width, height = tags.CARD_MM
    second = np.array([[width - x, height - y] for x, y in first])  # the same, turned half round the card
    assert np.allclose(tags.card_centre(first), (31.5, 44.0)) and np.allclose(tags.card_centre(second), (31.5, 44.0))
    # In pixels (2.5 px/mm here), the printed size says how many code sides away the centre is.
    assert np.allclose(tags.card_centre(second * 2.5 + 100, symbol_mm=30.0), (31.5 * 2.5 + 100, 44 * 2.5 + 100))


def test_corner_payloads():
    for corner in ("NW", "NE", "SE", "SW"):
        payload = tags.format_corner(corner)
        assert payload == f"TB:{corner}"
        assert tags.parse(payload) == tags.CornerTag(corner)


def test_tray_corner_payloads_are_new_and_leave_every_older_payload_as_it_was():
    for corner in ("NW", "NE", "SE", "SW"):
        payload = tags.format_tray_corner(corner)
        assert payload == f"DT:{corner}" and len(payload) <= tags.MAX_LENGTH
        assert tags.parse(payload) == tags.TrayTag(corner) and tags.parse(payload).label == f"tray {corner}"
        assert tags.parse(f"TB:{corner}") == tags.CornerTag(corner)  # the table's corners are still the table's
    for text in ("DT:N", "DT:NWW", "dt:NW", "DT:NW:2"):
        assert tags.parse(text) is None
    with pytest.raises(ValueError, match="one of NW, NE, SE, SW"):
        tags.format_tray_corner("N")


@pytest.mark.parametrize("text", [
    "", "FF:7:2", "FF:07", "FF:07:2:1", "FF:07:2:A", "FF:07:2:b", "FF:07:2:", "FF:07:2:BB", "ff:07:2", "FF:00:1", "FF:07:0", "TB:N", "TB:NWW", "XX:07:2",
    "HTTPS://EXAMPLE.COM", "FF:07:2 ", " FF:07:2", "FF:O7:2", None, 17, b"FF:07:2", "FF:07:22",
])
def test_anything_else_is_ignored_not_an_error(text):
    assert tags.parse(text) is None


@given(st.text(max_size=30))
def test_parse_never_raises(text):
    result = tags.parse(text)
    assert result is None or result.payload == text


@given(st.integers(1, 99), st.integers(1, 9))
def test_every_location_and_copy_round_trips(location, copy):
    payload = tags.format_location(location, copy)
    assert len(payload) <= tags.MAX_LENGTH
    assert tags.parse(payload) == tags.LocationTag(location, copy)


@pytest.mark.parametrize("location, copy", [(0, 1), (100, 1), (7, 0), (7, 10)])
def test_format_refuses_what_a_tag_cannot_hold(location, copy):
    with pytest.raises(ValueError):
        tags.format_location(location, copy)


def test_symbol_is_version_1_level_h_alphanumeric():
    qr = tags.make_qr("FF:59:8")
    assert (qr.version, qr.error, qr.mode) == (1, "H", "alphanumeric")
    assert tags.module_matrix("FF:59:8").shape == (21, 21)
    with pytest.raises(ValueError):
        tags.make_qr("HELLO")


def test_drawn_tag_reads_back():
    image = tags.tag_image("TB:SE", module_px=4)
    assert image.dtype == np.uint8 and image.shape == ((21 + 8) * 4,) * 2
    assert [d.text for d in get_decoder("zxing").decode(image)] == ["TB:SE"]
