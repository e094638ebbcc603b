"""Where are the dice? Blobs that stand out from the tray by colour, brightness or a sharp outline.

The tray's own look is estimated from the picture itself (a median over an area much
larger than a die), so uneven light and any table colour work without calibration.
Shadows are soft and only darker, so they do not count as dice; a die's outline is
sharp, so even a white die on a white table is found by its edges.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .types import NOT_FLAT

# Shape limits for a die lying flat, seen from above (tuned on synthetic renders).
MIN_FILL = 0.74  # die area / its rotated bounding rectangle; a disc is 0.785, a tilted die lower
MAX_ASPECT = 1.28  # a die seen from above is square (a glimpse of its sides adds a little); a cocked one is not
SMALL_PROBE = 110  # background is estimated on a copy this many pixels wide


@dataclass(frozen=True)
class Candidate:
    """One die-sized blob: its rotated rectangle, outline box and mask (in image pixels)."""

    center: tuple[float, float]
    size: tuple[float, float]
    angle: float
    box: tuple[int, int, int, int]  # x, y, w, h
    mask: np.ndarray  # uint8 0/255, the shape inside ``box``
    area: float
    problem: str = ""  # why it cannot be read ('' when it lies flat)

    @property
    def side(self) -> float:
        return float(np.sqrt(self.area))


def foreground(image: np.ndarray, die_px: float | None = None) -> np.ndarray:
    """0/255 mask of whatever is not tray: dice, hands, clutter."""
    h, w = image.shape[:2]
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    scale = min(1.0, SMALL_PROBE / max(w, h)) if not die_px else min(1.0, 7.0 / die_px)
    small = cv2.resize(lab, (max(8, int(w * scale)), max(8, int(h * scale))), interpolation=cv2.INTER_AREA)
    k = max(5, int(min(small.shape[:2]) * 0.3) | 1)
    background = cv2.resize(cv2.medianBlur(small, min(k, 31)), (w, h), interpolation=cv2.INTER_LINEAR)
    lab_f = lab.astype(np.float32)
    bg_f = background.astype(np.float32)
    ratio = (lab_f[..., 0] + 8) / (bg_f[..., 0] + 8)
    chroma = np.sqrt((lab_f[..., 1] - bg_f[..., 1]) ** 2 + (lab_f[..., 2] - bg_f[..., 2]) ** 2)
    coloured = (chroma > 16) | (ratio < 0.55) | (ratio > 1.18)
    # Sharp outlines: Canny on brightness; closing joins a die's outline, filling makes it solid.
    grey = cv2.GaussianBlur(lab[..., 0], (3, 3), 0)
    edges = cv2.Canny(grey, 30, 70)
    side = die_px or max(12.0, min(w, h) / 16)
    close = max(3, int(side * 0.2) | 1)
    ring = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close, close)))
    # A shadow only darkens the tray, keeping its colour: take it out again where the outline fill took it in.
    shadow = (ratio > 0.45) & (ratio < 0.93) & (chroma < 10)
    mask = (coloured.astype(np.uint8) * 255) | (_fill_holes(ring) & ~(shadow.astype(np.uint8) * 255))
    mask = _fill_holes(mask)
    opening = max(3, int(side * 0.18) | 1)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (opening, opening)))


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    return filled


def find_dice(image: np.ndarray, die_px: float | None = None) -> tuple[list[Candidate], float]:
    """Die-sized blobs in ``image`` and the die side in pixels (given, or estimated from the blobs)."""
    mask = foreground(image, die_px)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    blobs = [(i, stats[i]) for i in range(1, count)]
    side = die_px or _estimate_side(labels, blobs, image.shape)
    if side is None:
        return [], 0.0
    die_area = side * side
    found: list[Candidate] = []
    for i, (x, y, w, h, area) in blobs:
        if area < 0.3 * die_area or area > 12 * die_area:
            continue
        region = (labels[y:y + h, x:x + w] == i).astype(np.uint8) * 255
        dice_here = int(round(area / die_area))
        if dice_here >= 2 and dice_here <= 8:
            found.extend(_split(region, (x, y), dice_here))
        elif area <= 1.6 * die_area:
            found.append(_candidate(region, (x, y)))
    return [c for c in found if c.area >= 0.3 * die_area], float(side)


def _estimate_side(labels, blobs, shape) -> float | None:
    """The typical die side: the median size of square, solid blobs."""
    limit = min(shape[:2]) / 2.5
    sides = []
    for i, (x, y, w, h, area) in blobs:
        if area < 100 or max(w, h) > limit:
            continue
        c = _candidate((labels[y:y + h, x:x + w] == i).astype(np.uint8) * 255, (x, y))
        if not c.problem:
            sides.append(c.side)
    return float(np.median(sides)) if sides else None


def _split(region: np.ndarray, origin, k: int) -> list[Candidate]:
    """Touching dice: cut the blob into ``k`` compact parts (k-means on its pixels)."""
    ys, xs = np.nonzero(region)
    points = np.column_stack([xs, ys]).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, assignment, _ = cv2.kmeans(points, k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    parts = []
    for j in range(k):
        part = np.zeros_like(region)
        sel = assignment.ravel() == j
        part[ys[sel], xs[sel]] = 255
        part = cv2.morphologyEx(part, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        if np.count_nonzero(part):
            parts.append(_candidate(part, origin, touching=True))
    return parts


def _candidate(region: np.ndarray, origin, touching: bool = False) -> Candidate:
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    contour = max(contours, key=cv2.contourArea)
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
    area = float(np.count_nonzero(region))
    x, y, w, h = cv2.boundingRect(contour)
    fill = area / max(1.0, rw * rh)
    aspect = max(rw, rh) / max(1.0, min(rw, rh))
    problem = ""
    if aspect > MAX_ASPECT or (fill < MIN_FILL and not touching):
        problem = NOT_FLAT
    ox, oy = origin
    return Candidate(
        center=(float(cx + ox), float(cy + oy)), size=(float(rw), float(rh)), angle=float(angle),
        box=(int(x + ox), int(y + oy), int(w), int(h)), mask=region[y:y + h, x:x + w].copy(), area=area,
        problem=problem,
    )
