"""A die's turn and square, from where the finder marked it: what the taught reader and teaching cut out.

The finder (:func:`vision.dice.net.find`) gives a die's centre and the upright box around
its top face, not how the die is turned. The outline of a die seen from above is four
straight edges at right angles, so the colour changes around the mark, their directions
taken modulo a quarter turn, point one way; pips and round pictures point every way and
cancel out. With the turn known, the die is the square, near the mark, whose four sides run
along edges most of their length: a picture touches its bounding square at a few points
only, the die's outline runs all along it. Cheaper than outlining every blob in
the picture, and indifferent to the table's grain, since it only looks around a die the
finder already saw. The work is done on a copy where the finder's box is WORK_PX wide.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from .find import Candidate

WORK_PX = 32  # the finder's upright box is this many pixels wide in the copy worked on
NEAR, FAR = 0.3, 0.75  # a flat die's edges lie this far from its centre, in sides of the finder's upright box
SIDES = (0.7, 1.35)  # the die's side, relative to what the upright box and the turn imply
EDGE = 80.0  # a change of 20 grey levels (the 3x3 Sobel's 80) counts fully: a cream die's outline on a white
# table then counts as much as the sharp edge of the picture on it, and the square that runs along edges
# for most of its length wins over the picture's bounding square, which touches them at a few points
AS_BOXED = 0.88  # a square at least this share of the side the finder's box implies is as large as the box says
OFF_MIDDLE = 0.2  # the mark may be this far from the die's middle, in sides of the upright box
REACH = int(np.ceil((FAR + 0.15) * WORK_PX))  # half the width of the copy worked on


def die_square(image: np.ndarray, center: tuple[float, float], box_side: float) -> Candidate:
    """The die the finder marked at ``center`` with an upright box of ``box_side``, turned square:
    a :class:`Candidate` whose ``angle`` and ``size`` cut the die out as :func:`vision.dice.scan.upright_patch` does."""
    return die_squares(image, center, box_side)[0]


def die_squares(image: np.ndarray, center: tuple[float, float], box_side: float) -> list[Candidate]:
    """The die's square (:func:`die_square`) and, when it is clearly smaller than the finder's box implies,
    the strongest square that is not: a cream die on a white table has an outline so faint that the
    bounding square of the picture on it may be stronger, and a reader can keep whichever matches.

    The turn comes from the colour changes' directions around the mark; the squares are then
    looked for in the die's own frame."""
    scale = WORK_PX / max(box_side, 1.0)
    angle = _turn(_around(image, center, scale, 0.0))
    a = np.radians(angle)
    h, w = image.shape[:2]
    found = []
    for (du, dv), side in _square(_around(image, center, scale, angle), angle):
        # The square's middle and side, from the copy back to the picture.
        cx = center[0] + (np.cos(a) * du - np.sin(a) * dv) / scale
        cy = center[1] + (np.sin(a) * du + np.cos(a) * dv) / scale
        side /= scale
        half = side * (abs(np.cos(a)) + abs(np.sin(a))) / 2
        x0, y0 = int(max(0, round(cx - half))), int(max(0, round(cy - half)))
        x1, y1 = int(min(w, round(cx + half))), int(min(h, round(cy + half)))
        box = (x0, y0, max(1, x1 - x0), max(1, y1 - y0))
        candidate = Candidate((float(cx), float(cy)), (side, side), float(angle), box,
                              np.full((box[3], box[2]), 255, np.uint8), side * side)
        if not found or abs(found[0].size[0] - side) > 0.5 / scale:
            found.append(candidate)
    return found


def _around(image: np.ndarray, center: tuple[float, float], scale: float, angle: float) -> np.ndarray:
    """The square around ``center``, turned by ``angle`` degrees and scaled by ``scale``: 2 REACH + 1 wide."""
    matrix = cv2.getRotationMatrix2D(center, angle, scale)
    matrix[0, 2] += REACH - center[0]
    matrix[1, 2] += REACH - center[1]
    size = 2 * REACH + 1
    return cv2.warpAffine(image, matrix, (size, size), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def _strength_of_change(patch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(|change across|, |change down|) of the colour channel that changes most (a red die on a grey
    table differs in colour more than in brightness), each at most EDGE: a step that large is an edge,
    however much larger it is."""
    across = np.abs(cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3))
    down = np.abs(cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3))
    if patch.ndim == 3:  # cv2.max: numpy's max over a short last axis is ten times slower
        across = cv2.max(cv2.max(across[..., 0], across[..., 1]), across[..., 2])
        down = cv2.max(cv2.max(down[..., 0], down[..., 1]), down[..., 2])
    return np.minimum(across, EDGE), np.minimum(down, EDGE)


@cache
def _ring() -> np.ndarray:
    ys, xs = np.mgrid[-REACH:REACH + 1, -REACH:REACH + 1]
    distance = np.hypot(xs, ys) / WORK_PX
    return ((distance > NEAR) & (distance < FAR)).astype(np.float32)


def _turn(patch: np.ndarray) -> float:
    """The die's turn in degrees (-45..45): the mean direction of the brightness changes modulo a quarter
    turn, in the ring around the middle where its edges are, weighted by the squared change."""
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    # With m the change's size and d its direction, m^2 cos 4d and m^2 sin 4d by the double-angle rules.
    xx, yy, xy = gx * gx, gy * gy, gx * gy
    size = xx + yy + 1e-6
    cos4 = ((xx - yy) ** 2 - 4 * xy * xy) / size
    sin4 = 4 * xy * (xx - yy) / size
    ring = _ring()
    return float(np.degrees(np.arctan2(float((sin4 * ring).sum()), float((cos4 * ring).sum())) / 4))


@cache
def _squares(shortest: int, longest: int) -> tuple[np.ndarray, ...]:
    """Every square looked for, sides ``shortest``..``longest``: (sides, tops, lefts) and the flat indices of
    its corners in the running sums (column sums: 2 REACH + 2 rows; row sums: 2 REACH + 2 columns)."""
    off = max(1, int(OFF_MIDDLE * WORK_PX))
    sides = np.arange(shortest, longest + 1)[:, None, None]
    step = np.arange(-off, off + 1)
    first = REACH - sides // 2
    t = np.clip(first + step[None, :, None], 0, 2 * REACH - sides)
    x = np.clip(first + step[None, None, :], 0, 2 * REACH - sides)
    width = 2 * REACH + 1
    in_columns = lambda r, c: (r * width + c).ravel()  # noqa: E731
    in_rows = lambda r, c: (r * (width + 1) + c).ravel()  # noqa: E731
    return (np.broadcast_to(sides, t.shape[:1] + (t.shape[1], x.shape[2])).ravel(), np.broadcast_to(t, (
        len(sides), t.shape[1], x.shape[2])).ravel(), np.broadcast_to(x, (len(sides), t.shape[1], x.shape[2])).ravel(),
        in_columns(t + sides, x), in_columns(t, x), in_columns(t + sides, x + sides), in_columns(t, x + sides),
        in_rows(t, x + sides), in_rows(t, x), in_rows(t + sides, x + sides), in_rows(t + sides, x))


def _square(patch: np.ndarray, angle: float) -> list[tuple[tuple[float, float], float]]:
    """(offset of the middle, side) of the square in the upright copy ``patch`` whose four sides have the
    most change across them per pixel of length, its middle near the copy's; then of the strongest as
    large as the finder's box implies."""
    across, down = _strength_of_change(patch)
    a = np.radians(angle)
    expected = WORK_PX / (abs(np.cos(a)) + abs(np.sin(a)))  # a die turned by a fills its upright box so
    # Running sums down the columns of the change across and along the rows of the change down:
    # the change along any side of any square is two look-ups.
    column = np.zeros((across.shape[0] + 1, across.shape[1]), np.float32)
    column[1:] = np.cumsum(across, axis=0)
    row = np.zeros((down.shape[0], down.shape[1] + 1), np.float32)
    row[:, 1:] = np.cumsum(down, axis=1)
    sides, tops, lefts, *corners = _squares(max(3, int(SIDES[0] * expected)),
                                           min(2 * REACH - 2, int(SIDES[1] * expected) + 1))
    c, r = column.ravel(), row.ravel()
    strength = (c[corners[0]] - c[corners[1]] + c[corners[2]] - c[corners[3]]
                + r[corners[4]] - r[corners[5]] + r[corners[6]] - r[corners[7]]) / (4.0 * sides)
    found = []
    for allowed in (np.ones(len(sides), bool), sides >= AS_BOXED * expected):
        best = int(np.flatnonzero(allowed)[np.argmax(strength[allowed])]) if np.any(allowed) else -1
        if best >= 0:
            side = float(sides[best])
            found.append(((lefts[best] + side / 2 - REACH, tops[best] + side / 2 - REACH), side))
    return found
