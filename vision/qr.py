"""One QR decoder interface with two backends: zxing-cpp (default) and pyzbar.

zxing-cpp read 91-93% of the real photos in ``shared/data/qr`` at well under
1 ms each, pyzbar 76-87% at 5-15x the time (``shared/notes/vision.md``), so
zxing-cpp is the default and pyzbar the alternative. Both take a grey (or BGR)
uint8 image and return :class:`Decoded` symbols with their corners in that image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class Decoded:
    """One symbol found in an image.

    ``corners`` is 4 x 2 (x, y) in image pixels, in the symbol's own order
    (top-left, top-right, bottom-right, bottom-left of the printed code).
    ``valid`` is False for a symbol that was located but could not be read
    (zxing-cpp only); its ``text`` is then empty, but its place is a good hint
    for a closer look.
    """

    text: str
    corners: np.ndarray
    valid: bool = True

    @property
    def center(self) -> tuple[float, float]:
        return quad_center(self.corners)

    @property
    def side_px(self) -> float:
        """Mean length of the symbol's four sides in pixels."""
        return quad_side(self.corners)


def quad_center(corners: np.ndarray) -> tuple[float, float]:
    """The centre of a symbol's four corners."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = corners.tolist()  # plain floats: numpy is slow on 8 numbers
    return (ax + bx + cx + dx) / 4, (ay + by + cy + dy) / 4


def quad_side(corners: np.ndarray) -> float:
    """The mean length of a quadrilateral's four sides."""
    points = corners.tolist()
    return sum(math.dist(points[i], points[i - 1]) for i in range(4)) / 4


class Decoder(Protocol):
    name: str

    def decode(self, image: np.ndarray) -> list[Decoded]:
        """Every QR symbol found in ``image`` (grey or BGR uint8)."""


def _grey(image: np.ndarray) -> np.ndarray:
    import cv2

    if image.ndim == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return image


class ZxingDecoder:
    """zxing-cpp. ``thorough`` keeps the library's extra passes (inverted codes, downscaled copies).

    Printed tags are never inverted and are small, so the frame reader turns those
    passes off (``thorough=False``) and saves about half the time; photos of
    arbitrary codes keep them.
    """

    name = "zxing"

    def __init__(self, *, thorough: bool = True, report_failures: bool = False):
        import zxingcpp

        self._zx = zxingcpp
        self.thorough = thorough
        self.report_failures = report_failures

    def decode(self, image: np.ndarray) -> list[Decoded]:
        zx = self._zx
        image = np.ascontiguousarray(_grey(image))
        if image.size == 0:
            return []
        found = zx.read_barcodes(
            image,
            formats=zx.BarcodeFormat.QRCode,
            try_rotate=self.thorough,
            try_downscale=self.thorough,
            try_invert=self.thorough,
            text_mode=zx.TextMode.Plain,
            return_errors=self.report_failures,
        )
        out = []
        for symbol in found:
            p = symbol.position
            corners = np.array(
                [[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                 [p.bottom_right.x, p.bottom_right.y], [p.bottom_left.x, p.bottom_left.y]], np.float64)
            valid = bool(symbol.valid)
            out.append(Decoded(symbol.text if valid else "", corners, valid))
        return out


class PyzbarDecoder:
    """pyzbar (ZBar). Reports only symbols it could read."""

    name = "pyzbar"

    def __init__(self):
        from pyzbar import pyzbar

        self._pyzbar = pyzbar

    def decode(self, image: np.ndarray) -> list[Decoded]:
        image = np.ascontiguousarray(_grey(image))
        if image.size == 0 or min(image.shape[:2]) < 2:
            return []
        symbols = self._pyzbar.decode(image, symbols=[self._pyzbar.ZBarSymbol.QRCODE])
        out = []
        for symbol in symbols:
            corners = _quad(np.array([(pt.x, pt.y) for pt in symbol.polygon], np.float64), symbol.rect)
            out.append(Decoded(_text(symbol.data), corners, True))
        return out


def _text(data: bytes) -> str:
    """ZBar hands back bytes; our tags are ASCII, photos of other codes may be UTF-8 or Shift-JIS."""
    for encoding in ("utf-8", "shift_jis"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _quad(points: np.ndarray, rect) -> np.ndarray:
    """Four corners from ZBar's polygon (usually 4 points; its bounding box otherwise)."""
    if len(points) == 4:
        return points
    if len(points) > 4:
        import cv2

        box = cv2.boxPoints(cv2.minAreaRect(points.astype(np.float32)))
        return box.astype(np.float64)
    left, top, width, height = rect
    return np.array([[left, top], [left + width, top], [left + width, top + height], [left, top + height]],
                    np.float64)


DECODERS = ("zxing", "pyzbar")


def get_decoder(name: str = "zxing", **options) -> Decoder:
    """``"zxing"`` (default) or ``"pyzbar"``."""
    if name == "zxing":
        return ZxingDecoder(**options)
    if name == "pyzbar":
        return PyzbarDecoder()
    raise ValueError(f"decoder {name!r}: choose one of {', '.join(DECODERS)}")
