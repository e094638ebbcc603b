"""The one die of a teaching picture: found by the die finder network, outlined by the blob finder.

Teaching shows one die at a time, on whatever table the dice are played on. Wood grain, a
cloth's folds or a card's edge make die-sized blobs for the outline-based finder
(:mod:`vision.dice.find`), so the die is chosen by the finder network
(:func:`vision.dice.net.find`), which learned what dice look like, of every kind and on
many tables; the blob finder then gives the die's outline and turn. A picture is refused,
saying what was seen, when it holds no die, several dice of like certainty, or a die that
does not lie flat.
"""

from __future__ import annotations

import numpy as np

from . import net
from .find import Candidate, find_dice
from .pips import _distinct

MIN_SCORE = 0.3  # the finder's least certainty for the one die
SQUARE = 0.84  # a blob filling at least this share of its rotated rectangle is square enough for a die
RIVAL = 0.65  # a second mark this sure (relative to the best) is a second die: the picture is refused


def single_die(image: np.ndarray, die_px: float | None = None) -> Candidate:
    """The one die lying flat in ``image`` (BGR); ValueError saying what was seen otherwise."""
    spots = _distinct(net.find(image, min_score=0.2, die_px=die_px))
    sure = [s for s in spots if s.score >= MIN_SCORE]
    if not sure:
        return _by_outline(image, die_px)
    best = sure[0]
    die = _outline(image, best, die_px)
    reach = 0.75 * max(best.side, max(die.size))  # a second mark on the same die (its picture, a pip) is no rival
    # Square blobs only: a die seen from above fills its outline's rectangle, a disc (a screw head) does not.
    blobs = [c for c in find_dice(image, die_px)[0] if not c.problem and c.area >= SQUARE * c.size[0] * c.size[1]]
    # A second die: a mark nearly as sure, or a sure mark the blob finder also outlines as a die.
    rivals = [s for s in sure[1:] if _apart(s, best) > reach and (
        s.score >= RIVAL * best.score
        or any(np.hypot(c.center[0] - s.center[0], c.center[1] - s.center[1]) < 0.5 * max(c.side, s.side)
               for c in blobs))]
    # Two marks on one rival die (its picture and its middle) are one die.
    rivals = [r for i, r in enumerate(rivals) if all(_apart(r, other) > reach for other in rivals[:i])]
    if rivals:
        where = ", ".join(_at(s.center) for s in [best, *rivals][:4])
        raise ValueError(f"show exactly one die, lying flat in the tray: saw {1 + len(rivals)} dice ({where})")
    return die


def _apart(a: net.Spot, b: net.Spot) -> float:
    return float(np.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]))


def _outline(image: np.ndarray, spot: net.Spot, die_px: float | None) -> Candidate:
    """The blob finder's outline of the die the finder marked (its turn and mask), or a square at the mark.

    The outline is looked for as the taught reader looks (the whole picture) first, so that teaching
    and reading cut the die out alike; then around the mark alone (a table busy with grain)."""
    side = spot.side
    cx, cy = spot.center
    h, w = image.shape[:2]
    x0, y0 = int(max(0, cx - 1.5 * side)), int(max(0, cy - 1.5 * side))
    x1, y1 = int(min(w, cx + 1.5 * side)), int(min(h, cy + 1.5 * side))
    for (ox, oy), part in (((0, 0), image), ((x0, y0), image[y0:y1, x0:x1])):
        candidates, _ = find_dice(part, die_px)
        # The mark may sit on the die's picture rather than its middle: a die around it is the die.
        near = [c for c in candidates if 0.6 < c.side / side < 3.0
                and np.hypot(c.center[0] + ox - cx, c.center[1] + oy - cy) < 0.35 * max(side, c.side)]
        if not near:
            continue
        c = min(near, key=lambda c: np.hypot(c.center[0] + ox - cx, c.center[1] + oy - cy))
        if c.problem:
            raise ValueError(f"show the die lying flat in the tray: the die {_at(spot.center)} is {c.problem}")
        return Candidate((c.center[0] + ox, c.center[1] + oy), c.size, c.angle,
                         (c.box[0] + ox, c.box[1] + oy, c.box[2], c.box[3]), c.mask, c.area)
    bx, by, bw, bh = spot.box
    return Candidate((cx, cy), (float(bw), float(bh)), 0.0, spot.box, np.full((bh, bw), 255, np.uint8),
                     float(bw * bh))


def _by_outline(image: np.ndarray, die_px: float | None) -> Candidate:
    candidates, _ = find_dice(image, die_px)
    flat = [c for c in candidates if not c.problem]
    if len(flat) == 1:
        return flat[0]
    if not candidates:
        raise ValueError("show exactly one die, lying flat in the tray: saw no die")
    if not flat:
        raise ValueError(f"show the die lying flat in the tray: saw {len(candidates)} die-sized shape(s), none flat")
    where = ", ".join(_at(c.center) for c in flat[:4])
    raise ValueError(f"show exactly one die, lying flat in the tray: saw {len(flat)} die-sized shapes ({where}); "
                     "a plain cloth or tray under the die helps")


def _at(center) -> str:
    return f"at {round(center[0])},{round(center[1])}"
