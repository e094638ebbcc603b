"""The part every blob-based reader shares: find dice in the zone, set aside the unreadable, read the rest."""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from .find import Candidate, find_dice
from .types import Die, DiceReading
from .zone import crop_to_zone, placement

# read_one(image, candidate, die_px) -> (face or None, confidence, reason, die name or None)
ReadOne = Callable[[np.ndarray, Candidate, float], tuple[str | None, float, str, str | None]]


def scan(image: np.ndarray, zone: np.ndarray | None, die_px: float | None, read_one: ReadOne) -> DiceReading:
    margin = int(2 * die_px) if die_px else 48
    crop, (ox, oy) = crop_to_zone(image, zone, margin)
    if crop.size == 0:
        return DiceReading()
    candidates, side = find_dice(crop, die_px)
    dice: list[Die] = []
    for c in candidates:
        box = (c.box[0] + ox, c.box[1] + oy, c.box[2], c.box[3])
        center = (c.center[0] + ox, c.center[1] + oy)
        where = placement(box, zone)
        if where == "outside":
            continue
        if where == "across":
            dice.append(Die(None, 0.0, box, center, reason="partly out of the tray"))
        elif c.problem:
            dice.append(Die(None, 0.0, box, center, reason=c.problem))
        else:
            face, confidence, reason, die = read_one(crop, c, side)
            dice.append(Die(face, confidence, box, center, reason=reason, die=die))
    return DiceReading(tuple(dice), side)


def upright_patch(image: np.ndarray, c: Candidate, out: int, grow: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The die turned square to the picture: (BGR patch, mask), ``out`` pixels wide.

    The patch covers the rotated rectangle of the die times ``grow``.
    """
    side = max(c.size) * grow
    matrix = cv2.getRotationMatrix2D(c.center, c.angle, out / side)
    matrix[0, 2] += out / 2 - c.center[0]
    matrix[1, 2] += out / 2 - c.center[1]
    patch = cv2.warpAffine(image, matrix, (out, out), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    full = np.zeros(image.shape[:2], np.uint8)
    x, y, w, h = c.box
    full[y:y + h, x:x + w] = c.mask
    mask = cv2.warpAffine(full, matrix, (out, out), flags=cv2.INTER_NEAREST)
    return patch, mask
