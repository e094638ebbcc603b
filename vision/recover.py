"""Codes the decoder gave up on: a finder pattern nicked by a coin or a die, data under an animal's foot.

A QR decoder needs all three finder patterns and at most ~30% of the code wrong
(level H). On a game table that fails where it matters: the animal stands on the
card being bought. But our codes are not arbitrary: there are only a few hundred
valid payloads (every printed sticker, :func:`valid_payloads`), all version 1.
So where the decoder gave up, this module

1. finds the finder patterns that are whole (a dark square, a light ring, a dark
   core, nested: :func:`finder_patterns`), their corners refined to a fraction
   of a pixel,
2. for every pair of them that could belong to one code (same size, two or 2.8
   finder sides apart), places the code's 21 x 21 grid in each way the pair can
   sit (top-left and top-right, top-left and bottom-left, or the diagonal), by a
   least-squares fit on the pair's eight corners,
3. reads each module as dark, light or unsure (a coloured figure is neither), and
4. compares the sure modules with every valid payload's modules (packed bits).

It answers only when one payload fits far better than any other: at most
:data:`MAX_WRONG` of the sure modules differ from it, and every other payload, in
any placement over the same place, differs in at least :data:`MARGIN` more. Two
valid payloads differ in at least 54 of the 249 modules outside the finders
(22%), so an answer needs most of a code in view and cannot be a neighbour's
misread; when in doubt there is no answer, never a wrong one. (Over thousands of
random stickers under random animals, coins, dice and hands, look-alike payloads
that no sheet prints included, every wrong best match fell short of the margin by
more than half: ``tests/test_recover.py`` keeps a bounded run of it.)
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision import tags

MODULES = tags.MODULES
MAX_WRONG = 0.25  # share of the sure modules that may differ from the answer
MARGIN = 0.10  # every other payload must differ in this much more
MIN_SURE = 0.6  # share of the compared modules that must read clearly dark or light
# Finder centres in module units (x, y) for each role, and which roles a pair of finders can take.
CENTRES = {"TL": (3.5, 3.5), "TR": (17.5, 3.5), "BL": (3.5, 17.5)}
PAIRS = [("TL", "TR"), ("TR", "TL"), ("TL", "BL"), ("BL", "TL"), ("TR", "BL"), ("BL", "TR")]


@dataclass(frozen=True)
class Finder:
    centre: np.ndarray  # (x, y) pixels
    corners: np.ndarray  # 4 x 2, the outer square's corners
    side: float  # pixels


@dataclass(frozen=True)
class Recovered:
    text: str
    corners: np.ndarray  # the code's TL, TR, BR, BL in the picture's pixels
    wrong: float  # share of the sure modules that differ from the payload
    runner_up: float  # the same for the best other payload


def prepare() -> None:
    """Build the payload templates now (about a second on a Pi), not at the first code that needs them."""
    _packed_templates()
    _finder_blocks()


def valid_payloads() -> list[str]:
    """Every sticker that is printed: both stickers of each Fabled Fruit card, the table's and the dice tray's
    corners."""
    from vision import sheets

    found = []
    for payload in sheets.fable_payloads():
        found += [payload, payload + ":" + tags.SECOND]
    return found + [tags.format_corner(c) for c in tags.CORNERS] + [tags.format_tray_corner(c) for c in tags.CORNERS]


@functools.cache
def _finder_modules() -> np.ndarray:
    return tags.module_matrix(tags.format_corner("NW"))  # the finder patterns are the same in every code


@functools.cache
def _templates() -> tuple[list[str], np.ndarray, np.ndarray]:
    """(payloads, their modules outside the finder patterns as N x 249 bools, that mask)."""
    mask = np.ones((MODULES, MODULES), bool)
    for row, col in ((0, 0), (0, MODULES - 8), (MODULES - 8, 0)):
        mask[row:row + 8, col:col + 8] = False  # finder and separator: the same in every code
    payloads = valid_payloads()
    modules = np.array([tags.module_matrix(p)[mask] for p in payloads])
    return payloads, modules, mask


def finder_patterns(grey: np.ndarray, min_side: float = 8.0) -> list[Finder]:
    """Whole finder patterns in ``grey``: three nested contours with the areas of 7x7, 5x5 and 3x3 modules."""
    if grey.size == 0 or min(grey.shape) < 16:
        return []
    _, dark = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    contours, hierarchy = cv2.findContours(dark, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    tree = hierarchy[0]
    first_child = tree[:, 2]
    # Contours with a child that has a child of its own: the only ones that can be a finder's outer square.
    nested = np.flatnonzero((first_child >= 0) & (tree[np.maximum(first_child, 0), 2] >= 0))
    found = []
    for index, child in zip(nested.tolist(), first_child[nested].tolist()):
        core = int(tree[child][2])
        outer, hole, inner = (cv2.contourArea(contours[i]) for i in (index, child, core))
        if inner <= 0 or hole <= 0 or outer < min_side * min_side:
            continue
        if not (1.4 <= outer / hole <= 2.9 and 1.7 <= hole / inner <= 4.5):
            continue
        centres = [_centroid(contours[i]) for i in (index, child, core)]
        side = float(np.sqrt(outer))
        if max(np.hypot(*(c - centres[0])) for c in centres[1:]) > 0.15 * side:
            continue
        quad = _quad(contours[index])
        if quad is None:
            continue
        found.append(Finder(centres[0], quad, side))
    if found:  # each traced corner to a fraction of a pixel, on the grey picture
        corners = np.concatenate([f.corners for f in found]).astype(np.float32).reshape(-1, 1, 2)
        window = max(1, min(3, int(min(f.side for f in found) / 10)))
        cv2.cornerSubPix(grey, corners, (window, window), (-1, -1),
                         (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 0.05))
        corners = corners.reshape(-1, 4, 2).astype(np.float64)
        found = [Finder(f.centre, c, f.side) for f, c in zip(found, corners)]
    return found


def _centroid(contour) -> np.ndarray:
    m = cv2.moments(contour)
    if m["m00"] == 0:
        return contour.reshape(-1, 2).mean(axis=0).astype(np.float64)
    return np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]])


def _quad(contour) -> np.ndarray | None:
    """The outer square's four corners (a square seen under a little perspective)."""
    hull = cv2.convexHull(contour)
    approx = cv2.approxPolyDP(hull, 0.08 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    if len(approx) != 4:
        approx = cv2.boxPoints(cv2.minAreaRect(contour))
    return approx.astype(np.float64)


def recover(image: np.ndarray, box: tuple[int, int, int, int] | None = None) -> list[Recovered]:
    """Codes around ``box`` (x0, y0, x1, y1 of ``image``, grey or BGR; the whole image by default) that
    only the valid payloads can tell; corners in ``image``'s pixels. The finder patterns are looked for
    inside the box, the modules are read wherever the code reaches."""
    return attempt(image, box)[0]


def attempt(image: np.ndarray, box: tuple[int, int, int, int] | None = None,
            known: list[tuple[float, float, float, float]] = ()) -> tuple[list[Recovered], int]:
    """:func:`recover`, and how many whole finder patterns it found (none: no code to look closer at).
    Finder patterns inside ``known`` boxes (x0, y0, x1, y1: codes already read) are left out."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = box if box is not None else (0, 0, w, h)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    crop = image[y0:y1, x0:x1]
    if crop.ndim == 3:
        crop = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2GRAY)
    offset = np.array([x0, y0], np.float64)
    finders = [Finder(f.centre + offset, f.corners + offset, f.side) for f in finder_patterns(crop)]
    finders = [f for f in finders if not any(k[0] <= f.centre[0] <= k[2] and k[1] <= f.centre[1] <= k[3]
                                             for k in known)]
    if len(finders) < 2:
        return [], len(finders)
    placements = []
    for a, b in itertools.combinations(finders, 2):
        if not 0.7 <= a.side / b.side <= 1.4:
            continue
        side = (a.side + b.side) / 2
        apart = math.dist(a.centre, b.centre) / side
        diagonal = 2.3 <= apart <= 3.4
        if not (1.6 <= apart <= 2.4 or diagonal):
            continue
        for role_a, role_b in PAIRS:
            if (role_a != "TL" and role_b != "TL") != diagonal:
                continue
            grid = _place(a, b, role_a, role_b)
            if grid is not None:
                placements.append((grid, (role_a, role_b)))
    if not placements:
        return [], len(finders)
    payloads, _, mask = _templates()
    results = _compare(image, placements)
    found = []
    for group in _same_place(results):
        # The best payload over every placement of this code, and the best *other* payload.
        best_per_payload = np.min(np.stack([w for w, _ in group]), axis=0)
        first, second = np.argsort(best_per_payload)[:2]
        d1, d2 = float(best_per_payload[first]), float(best_per_payload[second])
        if d1 > MAX_WRONG or d2 - d1 < MARGIN:
            continue
        grid = next(g for w, g in group if w[first] == d1)
        corners = cv2.perspectiveTransform(np.array([[[0, 0], [MODULES, 0], [MODULES, MODULES], [0, MODULES]]],
                                                    np.float64), grid)[0]
        found.append(Recovered(payloads[first], corners, d1, d2))
    return found, len(finders)


def _compare(image: np.ndarray, placements: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each placement that lies inside the picture and reads clearly enough: the share of its sure
    modules that differ from each valid payload. All placements are sampled at once."""
    _, modules, mask = _templates()
    h, w = image.shape[:2]
    kept, points = [], []
    for grid, roles in placements:
        at = cv2.perspectiveTransform(_CENTRES, grid)[0]
        if at[:, 0].min() < -0.5 or at[:, 1].min() < -0.5 or at[:, 0].max() > w - 0.5 or at[:, 1].max() > h - 0.5:
            continue  # part of the code would lie outside the picture
        kept.append((grid, roles))
        points.append(at)
    if not kept:
        return []
    at = np.concatenate(points).astype(np.float32)
    values = cv2.remap(image, at[:, :1].reshape(1, -1), at[:, 1:].reshape(1, -1), cv2.INTER_LINEAR)
    if values.ndim == 3:
        values = cv2.cvtColor(values, cv2.COLOR_BGR2GRAY)
    values = values.reshape(len(kept), MODULES * MODULES).astype(np.float32)
    blocks = _finder_blocks()
    rows = np.arange(len(kept))[:, None]
    dark = values[rows, np.array([np.concatenate([blocks[r][0] for r in roles]) for _, roles in kept])].mean(axis=1)
    light = values[rows, np.array([np.concatenate([blocks[r][1] for r in roles]) for _, roles in kept])].mean(axis=1)
    contrast = light - dark
    x = (values - dark[:, None]) / np.maximum(contrast, 1.0)[:, None]
    flat = mask.reshape(-1)
    dark_modules = _words(np.packbits((x < 0.5)[:, flat], axis=1))
    sure = _words(np.packbits(((x < 0.3) | (x > 0.7))[:, flat], axis=1))
    # Differing sure modules, counted on packed bits (no BLAS threads: the camera loop has one core).
    differ = _bit_count((dark_modules[:, None, :] ^ _packed_templates()[None, :, :]) & sure[:, None, :])
    counted = _bit_count(sure)
    results = []
    for (grid, _), diff, n, c in zip(kept, differ, counted, contrast):
        if c < 30 or n < MIN_SURE * mask.sum():
            continue
        results.append((diff / n, grid))
    return results


@functools.cache
def _packed_templates() -> np.ndarray:
    return _words(np.packbits(_templates()[1], axis=1))


def _words(packed: np.ndarray) -> np.ndarray:
    """Packed bit rows as 64-bit words (padded with zero bytes to a whole word): a quarter of the
    operations of bytes."""
    pad = -packed.shape[-1] % 8
    if pad:
        packed = np.concatenate([packed, np.zeros(packed.shape[:-1] + (pad,), np.uint8)], axis=-1)
    return np.ascontiguousarray(packed).view(np.uint64)


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.uint16)


def _bit_count(words: np.ndarray) -> np.ndarray:
    """Set bits along the last axis of 64-bit words."""
    if hasattr(np, "bitwise_count"):  # numpy 2: a popcount instruction
        return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)
    as_bytes = words.view(np.uint8)  # numpy 1 (the Pi's): a table of bytes
    return _POPCOUNT[as_bytes].sum(axis=-1, dtype=np.int64)


def _same_place(results: list) -> list[list]:
    """Placements grouped by where their code would lie (a crop may hold two codes): a payload must
    beat every other payload in every placement over the same place."""
    groups: list[tuple[np.ndarray, float, list]] = []
    for wrong, grid in results:
        centre, edge = cv2.perspectiveTransform(np.array([[[10.5, 10.5], [21.0, 10.5]]]), grid)[0]
        side = 2 * float(np.hypot(*(edge - centre)))
        for where, size, members in groups:
            if np.hypot(*(where - centre)) < 0.5 * max(size, side):
                members.append((wrong, grid))
                break
        else:
            groups.append((centre, side, [(wrong, grid)]))
    return [members for _, _, members in groups]


def _place(a: Finder, b: Finder, role_a: str, role_b: str) -> np.ndarray | None:
    """The homography from module units to pixels with finder ``a`` in ``role_a`` and ``b`` in ``role_b``:
    first the similarity the two centres give, then refined on the eight outer corners."""
    (sx0, sy0), (sx1, sy1) = CENTRES[role_a], CENTRES[role_b]
    (dx0, dy0), (dx1, dy1) = a.centre.tolist(), b.centre.tolist()
    # The similarity (scale and turn) that takes the two model centres onto the two finder centres.
    scale = math.hypot(dx1 - dx0, dy1 - dy0) / math.hypot(sx1 - sx0, sy1 - sy0)
    angle = math.atan2(dy1 - dy0, dx1 - dx0) - math.atan2(sy1 - sy0, sx1 - sx0)
    c, s = scale * math.cos(angle), scale * math.sin(angle)
    rough = np.array([[c, -s], [s, c]])
    shift = np.array([dx0 - (c * sx0 - s * sy0), dy0 - (s * sx0 + c * sy0)])
    model, image = _model_corners(role_a, role_b), []
    for finder, ideal in ((a, model[:4, :2]), (b, model[4:, :2])):
        predicted = ideal @ rough.T + shift
        distances = np.hypot(*(finder.corners[None, :, :] - predicted[:, None, :]).transpose(2, 0, 1))
        nearest = distances.argmin(axis=1)
        if distances[_FOUR, nearest].max() > 0.35 * finder.side:
            return None  # the squares do not sit the way this placement needs
        image.append(finder.corners[nearest])
    # An affine fit on the eight corners (refined to a fraction of a pixel), by least squares: across one
    # code the perspective is negligible, and two finders along one edge would leave it unsteady anyway.
    fit = _model_inverse(role_a, role_b) @ np.concatenate(image)
    return np.vstack([fit.T, [0.0, 0.0, 1.0]])


_FOUR = np.arange(4)


@functools.cache
def _model_corners(role_a: str, role_b: str) -> np.ndarray:
    """The outer corners of the two finders in module units (8 x 3, with a column of ones)."""
    corners = []
    for role in (role_a, role_b):
        x, y = CENTRES[role]
        corners += [[x - 3.5, y - 3.5, 1.0], [x + 3.5, y - 3.5, 1.0], [x + 3.5, y + 3.5, 1.0], [x - 3.5, y + 3.5, 1.0]]
    return np.array(corners)


@functools.cache
def _model_inverse(role_a: str, role_b: str) -> np.ndarray:
    """The least-squares solver for an affine fit on those corners (the same for every code: 3 x 8)."""
    return np.linalg.pinv(_model_corners(role_a, role_b))


@functools.cache
def _finder_blocks() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """For each finder role: the flat indices of its dark and of its light modules in the 21 x 21 grid."""
    finder = _finder_modules()
    blocks = {}
    for role, (cx, cy) in CENTRES.items():
        col, row = int(cx - 3.5), int(cy - 3.5)
        inside = np.zeros((MODULES, MODULES), bool)
        inside[row:row + 7, col:col + 7] = True
        blocks[role] = (np.flatnonzero(inside & finder), np.flatnonzero(inside & ~finder))
    return blocks


_CENTRES = (np.indices((MODULES, MODULES))[::-1].reshape(2, -1).T + 0.5).astype(np.float64).reshape(1, -1, 2)
