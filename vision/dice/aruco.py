"""Dice with an ArUco sticker on every face: the marker id says the face (a table in the data directory).

ArUco markers carry their own error check, so a marker that is read is read right;
what can go wrong is a die leaning on another (its marker seen at a slant), a
sticker half out of the tray, or a marker not read at all (a focus slip, glare). Markers
need about 4 px per cell (24 px per 4x4 marker, shared/notes/vision.md section 4).
The dice themselves are found by the same finder as every other kind
(:func:`vision.dice.scan.scan_marks`): a die it finds where no marker was read is
reported unreadable ("sticker not read"), not left out of the roll. On rendered trays
blurred by sigma 2 px, 64 of 200 dice have their marker read; the finder finds all 200.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from .scan import scan_marks
from .types import NOT_FLAT, Die, DiceReading
from .zone import placement

NOT_READ = "sticker not read"
# A read marker this square (shortest / longest side) is a die lying flat, whatever the finder's reader makes of
# its blur: on rendered trays flat dice' markers are at least 0.90, leaning dice' tops mostly below (141 of 147
# under 0.90, all under 0.96); the finder's "leaning" sets aside the rest.
FLAT_SQUARE = 0.92

STICKER_SHARE = 0.75  # the sticker covers this share of the face's side
MAX_SKEW = 1.35  # longest / shortest side of a marker on a die that lies flat


class ArucoReader:
    """Reads dice by their stickers. ``face_table`` maps marker id -> face (``{0: "C", 1: "G", ...}``)."""

    kind = "aruco"

    def __init__(self, face_table: dict[int, str], dictionary: int = cv2.aruco.DICT_4X4_50, *, finder: bool = True):
        """``finder`` False reads the markers alone (bench/dice_bench.py compares the two)."""
        self.face_table = {int(k): str(v) for k, v in face_table.items()}
        self.finder = finder
        self._detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary),
                                                 cv2.aruco.DetectorParameters())

    def read(self, image: np.ndarray, zone: np.ndarray | None = None) -> DiceReading:
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _ = self._detector.detectMarkers(grey)
        dice: list[Die] = []
        sides = []
        for quad, marker in zip(corners or (), ids.ravel() if ids is not None else ()):
            quad = quad.reshape(4, 2).astype(np.float64)
            centre = quad.mean(axis=0)
            face_quad = centre + (quad - centre) / STICKER_SHARE
            x, y = np.floor(face_quad.min(axis=0)).astype(int)
            x1, y1 = np.ceil(face_quad.max(axis=0)).astype(int)
            box = (int(x), int(y), int(x1 - x), int(y1 - y))
            lengths = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
            sides.append(float(lengths.mean() / STICKER_SHARE))
            where = placement(box, zone)
            center = (float(centre[0]), float(centre[1]))
            if where == "outside":
                continue
            if where == "across":
                dice.append(Die(None, 0.0, box, center, reason="partly out of the tray"))
            elif lengths.max() > MAX_SKEW * lengths.min():
                dice.append(Die(None, 0.0, box, center, reason=NOT_FLAT))
            elif int(marker) not in self.face_table:
                dice.append(Die(None, 0.0, box, center, reason=f"marker {int(marker)} is not in the face table"))
            else:
                squareness = float(lengths.min() / lengths.max())
                dice.append(Die(self.face_table[int(marker)], squareness, box, center))
        if self.finder:
            dice += self._unmarked(image, zone, dice, sides)
        return DiceReading(tuple(d for d in dice if d is not None), float(np.median(sides)) if sides else 0.0)

    def _unmarked(self, image: np.ndarray, zone: np.ndarray | None, dice: list, sides: list) -> list[Die]:
        """The dice as the finder finds them. One it sees leaning, or showing two stickers (a top and a side
        face: a leaning die), is one die not lying flat, however square its sticker (its marker dice are set to
        None in ``dice``); one with no marker read on it is reported, never dropped. Returns the dice to add."""
        # The finder at its own scales, as for pip dice: told the stickers' size it looks closer, for longer,
        # and sees a leaning die's two faces as two dice more often (rendered trays, bench/dice_bench.py).
        found = scan_marks(image, zone, None,
                           lambda _image, spots, _p: [(None, 0.0, NOT_READ, None, None)] * len(spots))
        added = []
        for die in found.dice:
            on = [i for i, marked in enumerate(dice) if marked is not None and _on(marked.center, die.box)]
            if not on:
                added.append(die)
                sides.append(max(die.box[2], die.box[3]))
            elif len(on) > 1 or (die.reason == NOT_FLAT and all(dice[i].confidence < FLAT_SQUARE for i in on)):
                for i in on:
                    dice[i] = None
                added.append(replace(die, reason=NOT_FLAT))
        return added


def _on(point: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h
