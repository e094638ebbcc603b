"""The light a die is seen in, against the light it was taught in.

Taught faces are compared after their brightness is evened out (:func:`vision.dice.faces.describe`), but a
dimmer tray still costs: the drawing sinks into the camera's noise. On real photos of dice read six ways
(``bench/dice_bench.py``), the single dice under a light 0.6 times as bright read 358 right and 3 wrong of 403,
against 380 and 1 as taken. The light can be measured, so the companion says when the tray has grown darker than
teaching and what to do about it. A camera on automatic exposure (the default, ``camera exposure_us = 0``)
brightens a dimmer room itself, with more noise, until its longest exposure: the pictures, and this judgement,
grow darker only beyond that; with a fixed exposure at once.

A die's light is the 99th percentile of grey in its box: its brightest part, the face's body or the table beside
it, which both follow the lamp, and not the drawing, which differs from face to face. Measured on the taught real
dice of the train split (``bench/dice_bench.py --light-meter``): read as taken, a die's light is 0.88-1.12 times
its taught light (10th-90th percentile; single dice; 0.87-1.23 on the held-out alike dice); read 0.6 times as
bright, 0.53-0.67 times (0.52-0.73). Judged over the last dice, no verdict of 419 as taken said "darker", and
every one of 420 read 0.6 times as bright did.

What to do then, measured on the same dice (``--light-meter``, its second table): taught again in the darker light,
keeping the first teaching (``DiceTeacher(another_light=True)``), the held-out alike dice read under that light
66.8% right and 2.3% wrong instead of 54.3% and 5.0%, and in the first light 68.2% and 1.3% instead of 65.9% and
2.9%; taught again replacing the first, 62.4% and 4.4% under it, 57.5% and 1.7% in the first light.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

PERCENTILE = 99
DARKER = 0.77  # 1/1.3 of the taught light: below it, 0-1.5% of real dice read as taken, 98-100% of those 0.6 as bright
MEASURED = 9  # the dice of the last few throws are judged together: one die in a shadow is no evening
AT_LEAST = 3


def face_light(image: np.ndarray, box: tuple[int, int, int, int]) -> float | None:
    """The brightness of the die in ``box`` (x, y, w, h) of ``image`` (BGR or grey), 0-255; None outside it."""
    x, y, w, h = (int(v) for v in box)
    part = image[max(y, 0):max(y + h, 0), max(x, 0):max(x + w, 0)]
    if part.size == 0:
        return None
    grey = cv2.cvtColor(part, cv2.COLOR_BGR2GRAY) if part.ndim == 3 else part
    return float(np.percentile(grey, PERCENTILE))


def taught_light(lights: list[float]) -> float | None:
    """A die's light in teaching, from each of its teaching pictures' (None: taught before lights were kept)."""
    return float(np.median(lights)) if lights else None


def dimmer(first: list[float], second: list[float]) -> list[float]:
    """Of two teachings' lights (a die taught again in another light), the dimmer one's: a tray is darker than
    teaching only when it is darker than every light the die was taught in."""
    return min((first, second), key=lambda lights: taught_light(lights) if lights else float("inf"))


@dataclass(frozen=True)
class Darker:
    """The tray is darker than teaching: its last dice are ``share`` of their taught light (their median)."""

    share: float

    @property
    def message(self) -> str:
        # In steps of 10%: the sentence changes when the light does, not with every throw's small wander.
        return (f"the dice look darker than when they were taught (about {round(self.share * 10) * 10}% of that "
                "light): more faces will read unclear. Light the tray as it was when teaching, or teach the dice "
                "again in this light, keeping what they were taught (Setup page: \"in this light too\")")


class LightWatch:
    """The light of the dice of the last throws against their taught light.

    :meth:`update` takes the picture a throw was read in and its dice, each as (the taught die it was matched to,
    its box x, y, w, h), and returns :class:`Darker` while the median of the last :data:`MEASURED` dice is below
    :data:`DARKER` of their taught light, else None. Dice of a die taught without its light, or of no known die,
    are not measured.
    """

    def __init__(self, taught: dict[str, float]):
        self.taught = {die: light for die, light in taught.items() if light}
        self._shares: deque[float] = deque(maxlen=MEASURED)
        self.verdict: Darker | None = None

    def update(self, image: np.ndarray, dice) -> Darker | None:
        for die, box in dice:
            light = self.taught.get(die or "")
            seen = face_light(image, box) if light else None
            if seen is not None:
                self._shares.append(seen / light)
        if len(self._shares) >= AT_LEAST:
            share = float(np.median(self._shares))
            self.verdict = Darker(share) if share < DARKER else None
        return self.verdict
