"""Tag payloads: the printed contract of ``shared/DESIGN.md`` (parse, format, draw).

A tag is a QR code, version 1, error correction level H, alphanumeric mode, at
most 10 characters: a two-letter namespace, then colon-separated fields.

* ``FF:07:2`` -- Fabled Fruit location 7, copy 2 (the sticker in the card's top-left corner);
* ``FF:07:2:B`` -- the same card's second sticker, in the opposite (bottom-right) corner,
  turned half round so that each code's finder patterns sit at the card's edges and an
  animal standing in the middle of the card can only nick the corners without one;
* ``TB:NW`` ``TB:NE`` ``TB:SE`` ``TB:SW`` -- the table's corner markers;
* ``DT:NW`` ``DT:NE`` ``DT:SE`` ``DT:SW`` -- the dice tray's corner markers, stuck in the tray's corners:
  the dice are read between them, wherever the tray is moved (added without changing any existing
  payload's meaning; a reader that predates them counts them as foreign codes).

A card with one sticker or with both reads the same: either sticker alone names the
card, and the card is where its stickers say its centre is (see :func:`card_centre`).
The second form was added without changing any existing payload's meaning (a reader
that predates it counts ``FF:07:2:B`` as a foreign code and ignores it).

Anything else (a foreign QR code, a malformed payload) parses to ``None``: the
reader counts it as ignored, it never raises and never changes state. Parsing is
strict on purpose -- only the exact printed form is accepted -- because a lenient
parser is one more way for a misread to look like a card.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import segno

MAX_LENGTH = 10
QR_VERSION = 1
ERROR_LEVEL = "H"
MODULES = 21  # a version 1 symbol is 21 x 21 modules

# Where the stickers sit on a card: the layout the sheets print, the README shows and the reader assumes.
CARD_MM = (63.0, 88.0)  # a Fabled Fruit location card, width x height
STICKER_INSET_MM = 3.0  # a sticker's edges sit this far inside the card's edges, in its corner
QUIET_MODULES = 3  # white around the code on a sticker (the spec asks for 4; decoders cope with 1-2)

FABLE = "FF"
TABLE = "TB"
TRAY = "DT"
CORNERS = ("NW", "NE", "SE", "SW")  # clockwise from the top left, as seen from the players' side

_LOCATION = re.compile(r"FF:(\d{2}):(\d)(:B)?")
SECOND = "B"  # the suffix of a card's second sticker
_CORNER = re.compile(r"TB:(NW|NE|SE|SW)")
_TRAY_CORNER = re.compile(r"DT:(NW|NE|SE|SW)")


@dataclass(frozen=True, order=True)
class LocationTag:
    """A Fabled Fruit location card: its number, which printed copy it is, and which of its two
    stickers (``second``: the one in the bottom-right corner, turned half round)."""

    location: int
    copy: int
    second: bool = False

    @property
    def payload(self) -> str:
        return format_location(self.location, self.copy, second=self.second)

    @property
    def card(self) -> tuple[int, int]:
        """(location, copy): the card, whichever sticker was read."""
        return self.location, self.copy

    @property
    def label(self) -> str:
        """What a person reads under the code: ``07·2`` (``07·2 B`` on the second sticker)."""
        return f"{self.location:02d}\u00b7{self.copy}" + (f" {SECOND}" if self.second else "")


@dataclass(frozen=True)
class _CornerMarker:
    """A corner of something square marked with a tag: which corner, the namespace saying of what. The kinds
    stay apart (a tray's corner is never taken for the table's)."""

    corner: str

    NAMESPACE: ClassVar[str] = ""
    WHAT: ClassVar[str] = ""

    @property
    def payload(self) -> str:
        return _format_marker(self.NAMESPACE, self.corner)

    @property
    def label(self) -> str:
        return f"{self.WHAT} {self.corner}"


@dataclass(frozen=True)
class CornerTag(_CornerMarker):
    """One of the four table corner markers."""

    NAMESPACE: ClassVar[str] = TABLE
    WHAT: ClassVar[str] = "table"


@dataclass(frozen=True)
class TrayTag(_CornerMarker):
    """One of the dice tray's four corner markers."""

    NAMESPACE: ClassVar[str] = TRAY
    WHAT: ClassVar[str] = "tray"


Tag = LocationTag | CornerTag | TrayTag


def parse(text: object) -> Tag | None:
    """The tag a payload names, or None when it is not one of ours (it is then ignored)."""
    if not isinstance(text, str) or len(text) > MAX_LENGTH:
        return None
    if match := _LOCATION.fullmatch(text):
        location, copy = int(match.group(1)), int(match.group(2))
        if location >= 1 and copy >= 1:
            return LocationTag(location, copy, second=match.group(3) is not None)
        return None
    if match := _CORNER.fullmatch(text):
        return CornerTag(match.group(1))
    if match := _TRAY_CORNER.fullmatch(text):
        return TrayTag(match.group(1))
    return None


def format_location(location: int, copy: int, *, second: bool = False) -> str:
    """``format_location(7, 2) == "FF:07:2"``; the card's second sticker: ``"FF:07:2:B"``."""
    if not (1 <= location <= 99):
        raise ValueError(f"location {location}: a tag holds locations 1 to 99")
    if not (1 <= copy <= 9):
        raise ValueError(f"copy {copy}: a tag holds copies 1 to 9")
    return f"{FABLE}:{location:02d}:{copy}" + (f":{SECOND}" if second else "")


def format_corner(corner: str) -> str:
    return _format_marker(TABLE, corner)


def format_tray_corner(corner: str) -> str:
    return _format_marker(TRAY, corner)


def _format_marker(namespace: str, corner: str) -> str:
    if corner not in CORNERS:
        raise ValueError(f"corner {corner!r}: must be one of {', '.join(CORNERS)}")
    return f"{namespace}:{corner}"


def sticker_mm(symbol_mm: float) -> tuple[float, float, float]:
    """(width, height, label height) of a printed sticker whose code is ``symbol_mm`` wide: the code,
    its quiet zone, and the human label (``07·2``) in a strip along one side."""
    module = symbol_mm / MODULES
    width = symbol_mm + 2 * QUIET_MODULES * module
    label = max(3.0, 2.6 * module)
    return width, width + label, label


def pair_fits(symbol_mm: float) -> bool:
    """Whether both stickers fit on one card (each in its half, label strips towards the middle)."""
    return STICKER_INSET_MM + sticker_mm(symbol_mm)[1] <= CARD_MM[1] / 2


def card_offset(symbol_mm: float) -> tuple[float, float]:
    """From a card sticker's code centre to the card's centre, in millimetres along the code's own
    x (its top edge, left to right) and y (top to bottom). The same for both stickers: the second
    one is the first turned half round about the card's centre."""
    edge = STICKER_INSET_MM + symbol_mm * (QUIET_MODULES / MODULES + 0.5)
    return CARD_MM[0] / 2 - edge, CARD_MM[1] / 2 - edge


def card_centre(corners, symbol_mm: float | None = None) -> tuple[float, float]:
    """The card's centre from one of its stickers' code corners (TL, TR, BR, BL of the code) in any unit.

    ``symbol_mm`` is the code's printed side: it sets how many code sides the card's centre lies from
    the code. In table millimetres leave it out (the measured side is the printed one); in pixels
    without a table, :data:`DEFAULT_SYMBOL_MM` (the README's sticker) is a close guess.
    """
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = np.asarray(corners, np.float64).reshape(4, 2).tolist()
    across = ((bx - ax + cx - dx) / 2, (by - ay + cy - dy) / 2)
    down = ((dx - ax + cx - bx) / 2, (dy - ay + cy - by) / 2)
    along, height = math.hypot(*across), math.hypot(*down)
    mx, my = (ax + bx + cx + dx) / 4, (ay + by + cy + dy) / 4
    if min(along, height) <= 1e-9:
        return mx, my
    side = (along + height) / 2
    symbol_mm = side if symbol_mm is None else symbol_mm
    ox, oy = card_offset(symbol_mm)
    scale = side / symbol_mm
    return (mx + scale * (ox * across[0] / along + oy * down[0] / height),
            my + scale * (ox * across[1] / along + oy * down[1] / height))


DEFAULT_SYMBOL_MM = 30.0  # the sticker size the README recommends for a camera at 70 cm
PAIR_SYMBOL_MM = 28.0  # two stickers per card: the largest code that fits twice (29 mm) less a hand's slack


def make_qr(payload: str) -> segno.QRCode:
    """The printed symbol: version 1, level H, alphanumeric; refuses anything that would not fit."""
    if parse(payload) is None:
        raise ValueError(f"{payload!r} is not a tag payload (see the table in shared/DESIGN.md)")
    return segno.make_qr(payload, version=QR_VERSION, error=ERROR_LEVEL, mode="alphanumeric", boost_error=False)


def module_matrix(payload: str) -> np.ndarray:
    """The 21 x 21 modules of ``payload``'s symbol, True where dark (no quiet zone)."""
    return np.array(make_qr(payload).matrix, dtype=bool)


def tag_image(payload: str, module_px: int, quiet_modules: int = 4) -> np.ndarray:
    """A grey uint8 picture of the tag: black modules on white, ``quiet_modules`` of white around."""
    modules = module_matrix(payload)
    padded = np.pad(modules, quiet_modules, constant_values=False)
    picture = np.where(padded, 0, 255).astype(np.uint8)
    return np.kron(picture, np.ones((module_px, module_px), np.uint8))
