"""What a dice reader reports: each die's face (or why it cannot be read), confidence and place."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


NOT_FLAT = "not lying flat (cocked or stacked)"  # why a die is not read, whichever reader saw it lean


@dataclass(frozen=True)
class Die:
    """One die seen in the picture.

    ``face`` is the top face as a short text: ``"1"``..``"6"`` for pip dice, the taught
    letter (``"C"``, ``"G"``, ...) for picture dice, the face table's value for ArUco;
    None when the die cannot be read, and then ``reason`` says why: a reader never reports a
    face it is unsure of. ``guess`` is then the face the die looks most like, when it lies flat
    and the reader has one (a face unclear), for a person to confirm; never used as a reading.
    ``confidence`` is in 0..1. ``box`` is x, y, w, h in image pixels; ``center`` in pixels.
    ``die`` names the taught die the face belongs to, when the reader knows it.
    """

    face: str | None
    confidence: float
    box: tuple[int, int, int, int]
    center: tuple[float, float]
    reason: str = ""
    die: str | None = None
    guess: str | None = None

    @property
    def readable(self) -> bool:
        return self.face is not None

    def to_json(self) -> dict:
        out = {"face": self.face, "confidence": round(self.confidence, 3), "box_px": list(self.box)}
        if self.die:
            out["die"] = self.die
        if self.reason:
            out["reason"] = self.reason
        if self.guess:
            out["guess"] = self.guess
        return out


@dataclass(frozen=True)
class DiceReading:
    """Every die in the tray zone: the readable ones and those that are not (cocked, stacked, ...)."""

    dice: tuple[Die, ...] = field(default_factory=tuple)
    die_px: float = 0.0  # the die side in pixels the reader used

    @property
    def readable(self) -> tuple[Die, ...]:
        return tuple(d for d in self.dice if d.readable)

    @property
    def unreadable(self) -> tuple[Die, ...]:
        return tuple(d for d in self.dice if not d.readable)

    @property
    def faces(self) -> list[str]:
        return [d.face for d in self.readable]


class DiceReader(Protocol):
    """One interface for pip dice, taught picture faces and ArUco stickers."""

    kind: str

    def read(self, image: np.ndarray, zone: np.ndarray | None = None) -> DiceReading:
        """Dice in ``image`` (BGR uint8) inside ``zone`` (a pixel polygon, N x 2; None = whole frame)."""


def box_iou(a, b) -> float:
    """Intersection over union of two ``(x, y, w, h)`` boxes."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    return inter / float(aw * ah + bw * bh - inter) if inter else 0.0
