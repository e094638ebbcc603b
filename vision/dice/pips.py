"""Standard pip dice: count the pips on each die's top face.

Each die is turned square and scaled to a fixed size. Pips are whatever differs
clearly from the face's own colour (dark pips on light dice, light on dark, red on
black all alike), is round, pip-sized and well inside the face: the side faces a
camera glimpses at the die's rim, its bevel and its shadow are left out. Two pips
that blur into one blob are counted by area. The layout of the pips found must be
one of the six a die has, or the confidence drops.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from .find import Candidate
from .scan import scan, upright_patch
from .types import DiceReading

PATCH = 64  # the die is read at this size, whatever its size in the picture
INNER = 0.13  # share of the die's side next to its outline that is not searched for pips
MIN_CONTRAST = 30.0  # Lab distance a pip must keep from the face colour
MIN_PIP_AREA = 0.004  # of the die's area
MAX_PIP_AREA = 0.16

# Pip positions on a 3 x 3 grid, and the second turn of the faces that have one.
_LAYOUTS = {
    1: [[(0, 0)]],
    2: [[(-1, -1), (1, 1)], [(1, -1), (-1, 1)]],
    3: [[(-1, -1), (0, 0), (1, 1)], [(1, -1), (0, 0), (-1, 1)]],
    4: [[(-1, -1), (1, -1), (-1, 1), (1, 1)]],
    5: [[(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)]],
    6: [[(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)], [(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)]],
}


class PipReader:
    """Reads standard d6 by counting pips. ``die_px``: the die side in pixels when the geometry knows it."""

    kind = "pips"

    def __init__(self, die_px: float | None = None, min_confidence: float = 0.0):
        self.die_px = die_px
        self.min_confidence = min_confidence

    def read(self, image: np.ndarray, zone: np.ndarray | None = None) -> DiceReading:
        return scan(image, zone, self.die_px, self._read_one)

    def _read_one(self, image: np.ndarray, c: Candidate, die_px: float):
        patch, mask = upright_patch(image, c, PATCH)
        count, confidence = count_pips(patch, mask)
        if count is None:
            return None, 0.0, "no pips seen", None
        if confidence < self.min_confidence:
            return None, confidence, "pips unclear", None
        return str(count), confidence, "", None


def find_pips(patch: np.ndarray, mask: np.ndarray) -> tuple[list[tuple[float, np.ndarray, float]], float, np.ndarray]:
    """Pip blobs on an upright die patch: ([(area, centre, contrast)], threshold, 0/1 pip map)."""
    size = patch.shape[0]
    lab = cv2.cvtColor(cv2.GaussianBlur(patch, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    erode = max(3, int(INNER * size) | 1)
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (erode, erode))) > 0
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float32) - (size - 1) / 2
    radius = np.hypot(xs, ys) / size
    # The die's rounded corners and the table behind them lie beyond this from the centre.
    inner &= radius < 0.6
    if np.count_nonzero(inner) < 0.2 * size * size:
        return [], 0.0, np.zeros((size, size), np.uint8)
    face = np.median(lab[inner & (radius < 0.38)], axis=0)
    difference = np.sqrt((((lab - face) * (1.0, 1.4, 1.4)) ** 2).sum(axis=2))
    threshold = max(MIN_CONTRAST, 0.5 * float(np.percentile(difference[inner & (radius < 0.5)], 99.5)))
    pips = ((difference > threshold) & inner).astype(np.uint8)
    pips = cv2.morphologyEx(pips, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    border = cv2.dilate((~inner).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    die_area = float(np.count_nonzero(mask))
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(pips, connectivity=8)
    blobs = []
    for i in range(1, count):
        x, y, w, h, area = stats[i]
        if not (MIN_PIP_AREA * die_area <= area <= MAX_PIP_AREA * die_area):
            continue
        if max(w, h) > 1.8 * max(1, min(w, h)) or area < 0.5 * w * h:
            continue  # a streak or a ring (an edge, a glimpse of a side face, marbling), not a pip
        blob = labels == i
        contour = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0][0]
        if area < 0.55 * np.pi * cv2.minEnclosingCircle(contour)[1] ** 2:
            continue  # not round
        if np.count_nonzero(blob & border) > 0.25 * area:
            continue  # cut off by the rim: part of the die's edge or a side face
        blobs.append((float(area), centroids[i], float(difference[blob].mean())))
    if blobs:
        # Pips on one die share a size: crumbs of edge or marbling are much smaller.
        largest = max(b[0] for b in blobs)
        reference = float(np.median([b[0] for b in blobs if b[0] >= 0.3 * largest]))
        blobs = [b for b in blobs if b[0] >= 0.45 * reference]
    return blobs, threshold, pips


def count_pips(patch: np.ndarray, mask: np.ndarray) -> tuple[int | None, float]:
    """Pips on an upright die patch (BGR) with its 0/255 mask: (count 1..6 or None, confidence)."""
    blobs, threshold, _ = find_pips(patch, mask)
    if not blobs:
        return None, 0.0
    size = patch.shape[0]
    typical = float(np.median([b[0] for b in blobs])) if len(blobs) > 1 else blobs[0][0]
    counted = sum(max(1, int(round(b[0] / typical))) if b[0] > 1.7 * typical else 1 for b in blobs)
    fit = layout_fit([b[1] for b in blobs], counted, size) if counted <= 6 else 0.0
    if fit < 0.5 and len(blobs) > 1:
        # A crumb of rim or marbling among the pips spoils the layout: the largest subset that
        # makes a die face wins, if it makes one clearly.
        best = _best_subset(blobs, size)
        if best is not None:
            blobs, counted, fit = best
    if counted > 6:
        return None, 0.0
    contrast = min(b[2] for b in blobs) / threshold
    confidence = float(np.clip(fit, 0, 1) * np.clip((contrast - 1.0) * 2.0 + 0.5, 0, 1))
    return counted, confidence


def _best_subset(blobs, size: int):
    ranked = sorted(blobs, key=lambda b: -b[2])[:9]  # the most contrasted first
    for k in range(min(6, len(ranked) - 1), 0, -1):
        scored = [(layout_fit([b[1] for b in subset], k, size), subset)
                  for subset in itertools.combinations(ranked, k)]
        fit, subset = max(scored, key=lambda s: s[0])
        if fit >= 0.7:
            return list(subset), k, fit * 0.8  # a blob was left out: less sure than a clean face
    return None


def layout_fit(points: list[np.ndarray], count: int, side: float) -> float:
    """1.0 when the pips sit where a die's ``count`` face has them, falling towards 0 as they stray.

    The patch is upright, so a face's grid is square to the picture: only its centre (the
    pips' mean: every layout is symmetric) and its step are free.
    """
    if len(points) != count:
        return 0.6  # blobs merged: the count came from their areas, not their places
    if count == 1:
        return 1.0
    pts = np.asarray(points, np.float64)
    pts = pts - pts.mean(axis=0)
    best = math.inf
    for layout in _LAYOUTS[count]:
        grid = np.asarray(layout, np.float64)
        grid = grid - grid.mean(axis=0)
        for step in np.linspace(0.2, 0.36, 9) * side:
            spots = grid * step
            gaps = np.linalg.norm(spots[:, None, :] - pts[None, :, :], axis=2)
            error = max(gaps.min(axis=1).max(), gaps.min(axis=0).max()) / step
            best = min(best, float(error))
    return float(np.clip(1.0 - (best - 0.2) / 0.4, 0.0, 1.0))
