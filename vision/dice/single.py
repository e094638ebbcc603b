"""The one die of a teaching picture: found by the die finder network, turned square by its outline.

Teaching shows one die at a time, on whatever table the dice are played on. Wood grain, a
cloth's folds or a card's edge make die-sized blobs for the outline-based finder
(:mod:`vision.dice.find`), so the die is chosen by the finder network
(:func:`vision.dice.net.find`), which learned what dice look like, of every kind and on
many tables, and cut out as the taught reader cuts dice out (:mod:`vision.dice.outline`).
A picture is refused, saying what was seen, when it holds no die, several dice of like
certainty, or a die that does not lie flat.
"""

from __future__ import annotations

import numpy as np

from . import net
from .find import Candidate, find_dice
from .net import COCKED
from .outline import die_square
from .scan import distinct

MIN_SCORE = 0.3  # the finder's least certainty for the one die
SQUARE = 0.84  # a blob filling at least this share of its rotated rectangle is square enough for a die
RIVAL = 0.65  # a second mark this sure (relative to the best) is a second die: the picture is refused


class NotOneDie(ValueError):
    """A teaching picture refused; ``seen`` is what was taken for dice there, to draw for the teacher:
    (box x, y, w, h in the picture's pixels, what it is)."""

    def __init__(self, message: str, seen: list[tuple[tuple[int, int, int, int], str]] = ()):
        super().__init__(message)
        self.seen = list(seen)


def single_die(image: np.ndarray, die_px: float | None = None) -> Candidate:
    """The one die lying flat in ``image`` (BGR); :class:`NotOneDie` saying what was seen otherwise."""
    return single_die_read(image, die_px)[0]


def single_die_read(image: np.ndarray, die_px: float | None = None) -> tuple[Candidate, np.ndarray | None]:
    """:func:`single_die`, with the reader network's probabilities for it (:mod:`vision.dice.net`), or None
    where the finder network did not mark it (found by its outline)."""
    spots = distinct(net.find(image, min_score=0.2, die_px=die_px))
    if die_px is None and spots and spots[0].score >= MIN_SCORE:
        # A teaching photo is often a close-up, its die larger than the finder knows dice best,
        # and its box for such a die falls short: look again with the die at the finder's size.
        for _ in range(2):
            spots = distinct(net.find(image, min_score=0.2, die_px=spots[0].side)) or spots
    sure = [s for s in spots if s.score >= MIN_SCORE]
    if not sure:
        return _by_outline(image, die_px), None
    best = sure[0]
    probabilities = net.read(image, [best])[0]
    if int(np.argmax(probabilities)) == COCKED:
        raise NotOneDie(f"show the die lying flat in the tray: the die {_at(best.center)} is not lying flat "
                        "(cocked or stacked)", [(best.box, "not flat")])
    die = die_square(image, best.center, best.side)
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
        raise NotOneDie(f"show exactly one die, lying flat in the tray: saw {1 + len(rivals)} dice ({where})",
                        [(s.box, f"die {i}") for i, s in enumerate([best, *rivals], start=1)])
    return die, probabilities


def _apart(a: net.Spot, b: net.Spot) -> float:
    return float(np.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]))


def _by_outline(image: np.ndarray, die_px: float | None) -> Candidate:
    candidates, _ = find_dice(image, die_px)
    flat = [c for c in candidates if not c.problem]
    if len(flat) == 1:  # cut out as the reader will: from the die's middle and upright box
        return die_square(image, flat[0].center, max(flat[0].box[2], flat[0].box[3]))
    if not candidates:
        raise NotOneDie("show exactly one die, lying flat in the tray: saw no die")
    if not flat:
        raise NotOneDie(f"show the die lying flat in the tray: saw {len(candidates)} die-sized shape(s), none flat",
                        [(c.box, c.problem) for c in candidates])
    where = ", ".join(_at(c.center) for c in flat[:4])
    raise NotOneDie(f"show exactly one die, lying flat in the tray: saw {len(flat)} die-sized shapes ({where}); "
                    "a plain cloth or tray under the die helps", [(c.box, f"shape {i}") for i, c in enumerate(flat, 1)])


def _at(center) -> str:
    return f"at {round(center[0])},{round(center[1])}"
