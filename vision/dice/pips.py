"""Standard pip dice: find each die and read its top face with two small networks.

The finder (:func:`vision.dice.net.find`) marks the dice in the picture: touching ones,
white dice on a white table, translucent and marbled dice alike, since it learned from
renders of all of them rather than from rules about colour and outline. The reader
(:func:`vision.dice.net.read`) looks at each die, cut out around its centre, and says
which face is up, or that the die does not lie flat, or that the finder's mark is not a
die after all. Both run in OpenCV (``cv2.dnn``): nothing else is needed on the Pi.

Confidence is the reader's probability for the face. A die it is unsure of is reported
unreadable ("pips unclear") rather than guessed.
"""

from __future__ import annotations

import numpy as np

from . import net
from .types import Die, DiceReading, box_iou
from .zone import crop_to_zone, placement

UNSURE = 0.86  # below this probability of its best face a die is reported unreadable (chosen on the train split's calibration photos: bench/dice_bench.py --calibrate)
NOT_A_DIE, COCKED = 0, 7
SAME_DIE = 0.45  # two marks whose boxes overlap more than this (IoU) are one die


class PipReader:
    """Reads standard d6 by their pips. ``die_px``: the die side in pixels when the geometry knows it."""

    kind = "pips"

    def __init__(self, die_px: float | None = None, min_confidence: float = UNSURE):
        self.die_px = die_px
        self.min_confidence = min_confidence

    def read(self, image: np.ndarray, zone: np.ndarray | None = None) -> DiceReading:
        margin = int(2 * self.die_px) if self.die_px else 48
        crop, (ox, oy) = crop_to_zone(image, zone, margin)
        if crop.size == 0:
            return DiceReading()
        spots = _distinct(net.find(crop, die_px=self.die_px))
        probabilities = net.read(crop, spots)
        dice: list[Die] = []
        sides = []
        for spot, p in zip(spots, probabilities):
            best = int(np.argmax(p))
            if best == NOT_A_DIE:
                continue  # the finder's mark was table, a gap between dice or a crumb
            box = (spot.box[0] + ox, spot.box[1] + oy, spot.box[2], spot.box[3])
            center = (spot.center[0] + ox, spot.center[1] + oy)
            where = placement(box, zone)
            if where == "outside":
                continue
            sides.append(spot.side)
            face = 1 + int(np.argmax(p[1:7]))
            confidence = float(p[face])
            if where == "across":
                dice.append(Die(None, 0.0, box, center, reason="partly out of the tray"))
            elif best == COCKED:
                dice.append(Die(None, 0.0, box, center, reason="not lying flat (cocked or stacked)"))
            elif confidence < self.min_confidence:
                dice.append(Die(None, confidence, box, center, reason="pips unclear"))
            else:
                dice.append(Die(str(face), confidence, box, center))
        return DiceReading(tuple(dice), float(np.median(sides)) if sides else float(self.die_px or 0.0))


def _distinct(spots: list[net.Spot]) -> list[net.Spot]:
    """One die, one mark: drop a mark that overlaps a surer one, or sits well inside a bigger die's face
    (a big pip or a highlight on it)."""
    kept: list[net.Spot] = []
    for spot in spots:  # surest first
        if all(box_iou(spot.box, k.box) < SAME_DIE and not _inside(spot, k) for k in kept):
            kept.append(spot)
    return kept


def _inside(small: net.Spot, big: net.Spot) -> bool:
    x, y, w, h = big.box
    cx, cy = small.center
    return small.side < 0.7 * big.side and abs(cx - (x + w / 2)) < 0.3 * w and abs(cy - (y + h / 2)) < 0.3 * h


