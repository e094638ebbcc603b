"""What every reader shares: find the dice in the zone, set aside the ones that cannot be read, read the rest.

:func:`scan_marks` finds dice with the finder network (:func:`vision.dice.net.find`), which
learned dice of every kind on many tables, and asks the reader network whether each mark is
a die lying flat; the pip and taught readers read what it keeps.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import cv2
import numpy as np

from . import net
from .find import Candidate
from .net import COCKED, NOT_A_DIE
from .types import NOT_FLAT, Die, DiceReading, box_iou
from .zone import crop_to_zone, placement

SAME_DIE = 0.45  # two marks whose boxes overlap more than this (IoU) are one die
TAUGHT_SIZES = (0.9, 1.6)  # a mark whose box is this many times the taught dice's side is of their size: a die's
# upright box is its side square to the picture, 1.41 times it turned by 45 degrees; a drawing on a die or on a side
# face in view is half to two thirds of it

# face or None, confidence, reason, die name or None, and for a face unclear the face it looks most like or None
Verdict = tuple[str | None, float, str, str | None, str | None]
# read_faces(image, spots, the reader network's probabilities for them) -> one verdict per spot; all the
# dice of a picture at once, so that a reader does its work in a few large steps rather than many small ones
ReadFaces = Callable[[np.ndarray, list[net.Spot], np.ndarray], list[Verdict]]


def scan_marks(image: np.ndarray, zone: np.ndarray | None, die_px: float | None, read_faces: ReadFaces,
               taught_side: float | None = None, dice_together: bool = False, larger: bool = True) -> DiceReading:
    """The dice the finder marks in ``zone``: out of the tray left out, partly out, cocked or stacked
    reported unreadable with the reason, the others read by ``read_faces``. ``taught_side``, the dice's side when
    they were taught with the camera, is looked for where dice that large would be missed
    (:func:`net.size_to_look_for`).
    ``dice_together``: where the dice's taught side is known, a mark of about that size is a die when the reader
    network finds all kinds of die together likelier than none (:func:`net.kind_of_mark`); a smaller mark is the
    drawing on a die or on its side face. ``larger``: where no die size is known (none given, none taught), dice too
    large for the finder's first look are looked for farther (:func:`net.with_large_dice`); False, the first look
    alone (the bench's side by side). Dice of a taught size are not: the size says whether they are too large, and a
    die far off the camera's axis, its side face in view, would be marked whole there and read worse
    (bench/tray_place_bench.py: 3 fewer right of 107 at the corner, a wrong face at the right edge)."""
    margin = int(2 * die_px) if die_px else 48
    crop, (ox, oy) = crop_to_zone(image, zone, margin)
    if crop.size == 0:
        return DiceReading()
    if not die_px and net.size_to_look_for(crop.shape, taught_side):
        die_px = taught_side  # large dice: their margin too, as for a size given
        crop, (ox, oy) = crop_to_zone(image, zone, int(2 * die_px))
    spots = net.find(crop, die_px=die_px)
    if larger and not die_px and not taught_side:
        spots = net.with_large_dice(crop, spots)
    spots = distinct(spots)
    dice: list[Die] = []
    sides = []
    flat: list[tuple[int, net.Spot, np.ndarray]] = []  # dice lying flat in the tray (place in dice): read together
    for spot, p in zip(spots, net.read(crop, spots)):
        best = net.kind_of_mark(p, dice_together=dice_together and _taught_size(spot.side, taught_side))
        if best == NOT_A_DIE:
            continue  # the finder's mark was table, a gap between dice or a crumb
        box = (spot.box[0] + ox, spot.box[1] + oy, spot.box[2], spot.box[3])
        center = (spot.center[0] + ox, spot.center[1] + oy)
        where = placement(box, zone)
        if where == "outside":
            continue
        sides.append(spot.side)
        if where == "across":
            dice.append(Die(None, 0.0, box, center, reason="partly out of the tray"))
        elif best == COCKED:
            dice.append(Die(None, 0.0, box, center, reason=NOT_FLAT))
        else:
            flat.append((len(dice), spot, p))
            dice.append(Die(None, 0.0, box, center))
    if flat:
        verdicts = read_faces(crop, [spot for _, spot, _ in flat], np.array([p for *_, p in flat]))
        for (i, _, _), (face, confidence, reason, die, guess) in zip(flat, verdicts):
            dice[i] = replace(dice[i], face=face, confidence=confidence, reason=reason, die=die, guess=guess)
    return DiceReading(tuple(dice), float(np.median(sides)) if sides else float(die_px or 0.0))


def _taught_size(side: float, taught_side: float | None) -> bool:
    """Whether a mark of ``side`` is about the size of the dice taught at ``taught_side`` (False where unknown)."""
    return bool(taught_side) and TAUGHT_SIZES[0] <= side / taught_side <= TAUGHT_SIZES[1]


def distinct(spots: list[net.Spot]) -> list[net.Spot]:
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


def upright_patch(image: np.ndarray, c: Candidate, out: int, grow: float = 1.0) -> np.ndarray:
    """The die turned square to the picture: a BGR patch ``out`` pixels wide covering the rotated
    rectangle of the die times ``grow``."""
    side = max(c.size) * grow
    matrix = cv2.getRotationMatrix2D(c.center, c.angle, out / side)
    matrix[0, 2] += out / 2 - c.center[0]
    matrix[1, 2] += out / 2 - c.center[1]
    return cv2.warpAffine(image, matrix, (out, out), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
