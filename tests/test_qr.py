"""One decoder interface: the same behaviour from zxing-cpp and pyzbar."""

import cv2
import numpy as np
import pytest

from vision import tags
from vision.qr import DECODERS, get_decoder
from vision.synth import effects


@pytest.fixture(params=DECODERS)
def decoder(request):
    return get_decoder(request.param)


def _page(payloads, module_px=5, angle=0.0):
    canvas = np.full((600, 900), 200, np.uint8)
    spots = [(180, 180), (450, 300), (720, 420)]
    for payload, spot in zip(payloads, spots):
        effects.paste(canvas, tags.tag_image(payload, module_px), spot, angle)
    return canvas


@pytest.mark.parametrize("angle", [0.0, 30.0, 135.0])
def test_reads_every_tag_with_its_place(decoder, angle):
    payloads = ["FF:07:2", "TB:NW", "FF:59:8"]
    found = decoder.decode(_page(payloads, angle=angle))
    assert sorted(d.text for d in found) == sorted(payloads)
    for d in found:
        assert d.valid and d.corners.shape == (4, 2)
        expected = {"FF:07:2": (180, 180), "TB:NW": (450, 300), "FF:59:8": (720, 420)}[d.text]
        assert np.hypot(*np.subtract(d.center, expected)) < 6
        assert d.side_px == pytest.approx(21 * 5, rel=0.1)


def test_bgr_and_grey_give_the_same(decoder):
    grey = _page(["FF:01:1"])
    bgr = cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    assert [d.text for d in decoder.decode(bgr)] == [d.text for d in decoder.decode(grey)] == ["FF:01:1"]


@pytest.mark.parametrize("image", [
    np.zeros((480, 640), np.uint8), np.full((480, 640), 255, np.uint8), np.zeros((0, 0), np.uint8),
    np.zeros((1, 1), np.uint8), np.random.default_rng(1).integers(0, 256, (480, 640), dtype=np.uint8),
])
def test_nothing_to_read_is_an_empty_list(decoder, image):
    assert [d for d in decoder.decode(image) if d.valid] == []


def test_foreign_codes_come_back_as_text(decoder):
    import segno

    code = np.array(segno.make_qr("https://example.org/juice", error="m").matrix, bool)
    image = np.kron(np.pad(np.where(code, 0, 255), 4, constant_values=255), np.ones((5, 5))).astype(np.uint8)
    assert [d.text for d in decoder.decode(image)] == ["https://example.org/juice"]


def test_unknown_decoder_is_refused():
    with pytest.raises(ValueError, match="zxing"):
        get_decoder("opencv")
