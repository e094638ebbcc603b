"""Tag payloads: the printed contract of ``shared/DESIGN.md`` (parse, format, draw).

A tag is a QR code, version 1, error correction level H, alphanumeric mode, at
most 10 characters: a two-letter namespace, then colon-separated fields.

* ``FF:07:2`` -- Fabled Fruit location 7, copy 2;
* ``TB:NW`` ``TB:NE`` ``TB:SE`` ``TB:SW`` -- the table's corner markers.

Anything else (a foreign QR code, a malformed payload) parses to ``None``: the
reader counts it as ignored, it never raises and never changes state. Parsing is
strict on purpose -- only the exact printed form is accepted -- because a lenient
parser is one more way for a misread to look like a card.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import segno

MAX_LENGTH = 10
QR_VERSION = 1
ERROR_LEVEL = "H"
MODULES = 21  # a version 1 symbol is 21 x 21 modules

FABLE = "FF"
TABLE = "TB"
CORNERS = ("NW", "NE", "SE", "SW")  # clockwise from the top left, as seen from the players' side

_LOCATION = re.compile(r"FF:(\d{2}):(\d)")
_CORNER = re.compile(r"TB:(NW|NE|SE|SW)")


@dataclass(frozen=True, order=True)
class LocationTag:
    """A Fabled Fruit location card: its number and which printed copy it is."""

    location: int
    copy: int

    @property
    def payload(self) -> str:
        return format_location(self.location, self.copy)

    @property
    def label(self) -> str:
        """What a person reads under the code: ``07·2``."""
        return f"{self.location:02d}\u00b7{self.copy}"


@dataclass(frozen=True)
class CornerTag:
    """One of the four table corner markers."""

    corner: str

    @property
    def payload(self) -> str:
        return format_corner(self.corner)

    @property
    def label(self) -> str:
        return f"table {self.corner}"


Tag = LocationTag | CornerTag


def parse(text: object) -> Tag | None:
    """The tag a payload names, or None when it is not one of ours (it is then ignored)."""
    if not isinstance(text, str) or len(text) > MAX_LENGTH:
        return None
    if match := _LOCATION.fullmatch(text):
        location, copy = int(match.group(1)), int(match.group(2))
        if location >= 1 and copy >= 1:
            return LocationTag(location, copy)
        return None
    if match := _CORNER.fullmatch(text):
        return CornerTag(match.group(1))
    return None


def format_location(location: int, copy: int) -> str:
    """``format_location(7, 2) == "FF:07:2"``."""
    if not (1 <= location <= 99):
        raise ValueError(f"location {location}: a tag holds locations 1 to 99")
    if not (1 <= copy <= 9):
        raise ValueError(f"copy {copy}: a tag holds copies 1 to 9")
    return f"{FABLE}:{location:02d}:{copy}"


def format_corner(corner: str) -> str:
    if corner not in CORNERS:
        raise ValueError(f"corner {corner!r}: must be one of {', '.join(CORNERS)}")
    return f"{TABLE}:{corner}"


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
