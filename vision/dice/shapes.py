"""The drawing's shape on a taught die: where its edges run and which way, whatever their colours.

A histogram of the directions of brightness changes in each eighth of the die, each block of four neighbouring
cells scaled to one length (as HOG describes a shape), of the die turned square (a 60-pixel patch brought to 32).
The colour descriptor (:mod:`vision.dice.faces`) weighs colours and tones, which light, glare and a die's side
showing at a slant move; the edges of pips and drawings move less. A face the colour descriptor reads with too
narrow a margin is read when its shape agrees with it surely enough (:class:`vision.dice.faces.TaughtReader`); a
shape alone never reads a face: two faces drawn alike in different colours (a green and a red dragon) share it.
"""

from __future__ import annotations

import cv2
import numpy as np

SIDE = 32  # the die is described at this many pixels a side
CELL = 8  # pixels a side of a cell: SIDE // CELL cells a side
BINS = 9  # directions, over half a turn (an edge's two sides alike)
_CELLS = SIDE // CELL
_WHICH_CELL = (np.arange(SIDE)[:, None] // CELL * _CELLS + np.arange(SIDE)[None, :] // CELL) * BINS


def shape_of(patch: np.ndarray) -> np.ndarray:
    """The shape descriptor of an upright die patch (BGR, square): float32, ((SIDE // CELL - 1)^2 blocks x 4 cells
    x BINS)."""
    grey = cv2.cvtColor(cv2.resize(patch, (SIDE, SIDE), interpolation=cv2.INTER_AREA),
                        cv2.COLOR_BGR2GRAY).astype(np.float32)
    dx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    dy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    strength = np.hypot(dx, dy)
    direction = (np.degrees(np.arctan2(dy, dx)) % 180.0) * (BINS / 180.0)
    low = np.floor(direction)
    share = direction - low  # each change split between its two nearest directions
    low = low.astype(np.int64) % BINS
    cells = np.bincount((_WHICH_CELL + low).ravel(), (strength * (1 - share)).ravel(), _CELLS * _CELLS * BINS)
    cells += np.bincount((_WHICH_CELL + (low + 1) % BINS).ravel(), (strength * share).ravel(), _CELLS * _CELLS * BINS)
    cells = cells.reshape(_CELLS, _CELLS, BINS)
    blocks = np.stack([cells[i:i + 2, j:j + 2].ravel() for i in range(_CELLS - 1) for j in range(_CELLS - 1)])
    blocks /= np.linalg.norm(blocks, axis=1, keepdims=True) + 1e-3  # each block to one length: light and contrast
    return blocks.ravel().astype(np.float32)


def shape_views(patch: np.ndarray) -> np.ndarray:
    """:func:`shape_of` the patch in its four quarter turns: 4 x F."""
    return np.stack([shape_of(np.ascontiguousarray(np.rot90(patch, turn))) for turn in range(4)])


def nearest_by_face(views: list[np.ndarray], shapes: np.ndarray, faces: np.ndarray) -> dict[str, float]:
    """Each face's least distance (mean absolute difference) between any of ``views`` (each 4 x F: one die's
    squares) and its samples' shapes (``shapes`` N x F, ``faces`` N)."""
    distances = np.min([np.abs(shapes[:, None, :] - v[None, :, :]).mean(axis=2).min(axis=1) for v in views], axis=0)
    return {face: float(distances[faces == face].min()) for face in np.unique(faces)}
