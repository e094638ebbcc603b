"""The one die of a teaching picture: found by the die finder network, turned square by its outline.

Teaching shows one die at a time, on whatever table the dice are played on. Wood grain, a
cloth's folds or a card's edge make die-sized blobs for the outline-based finder
(:mod:`vision.dice.find`), so the die is chosen by the finder network
(:func:`vision.dice.net.find`), which learned what dice look like, of every kind and on
many tables, and cut out as the taught reader cuts dice out (:mod:`vision.dice.outline`).
A picture is refused, saying what was seen, when it holds no die, several dice of like
certainty, or a die that does not lie flat. A close-up (a phone held near, the die a fifth of the photo or
more) is looked at again for a larger die around what was found, so the drawing on its face is not taught as the
die (``bench/large_dice_bench.py``, 288 rendered photos of one die, a twentieth to two fifths of the photo, on six
tables: 282 taught at the die's size, 3 refused, 3 at another size, against 232, 21 and 35 at the first look
alone; up to three tenths of the photo, 216 of 216 at its size, against 201).
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
LARGER = (2.0, 3.0, 4.5, 6.0, 9.0, 13.0)  # a die found is looked for again this many times as large (a close-up's
# drawing taken for it). 9 and 13: on wood grain or a dark cloth the first look may mark a speck of a close-up's die, a
# tenth of it or less, and three steps of at most 6 fell short (bench/large_dice_bench.py's photos: 6 of 288 cut out at
# another size against 11, each smaller than the die; with OUTLINED below, 3)
CLOSE_UP = (0.3, 0.45)  # a refused picture is looked at again for one die this share of its shorter side
LARGEST = 0.6  # ... no die larger than this share of it
MIDDLE = 0.35  # ... and what was taken for dice before lie within this share of its side from its middle
FIT = 0.35  # a die looked for at a size must be found that large give or take this share
OUTLINED, NEARLY = 0.2, 0.8  # ... and where its outline cuts it out this close to that size, this sure of the die found
# is enough (a round drawing marked surer than its die: bench/large_dice_bench.py's photos, 3 of 288 cut out at another
# size against 6; dice of the usual size, a twentieth to a fifth of the photo in 288 other renders, cut out as before)
RIVAL = 0.65  # a second mark this sure (relative to the best) is a second die: the picture is refused


class NotOneDie(ValueError):
    """A teaching picture refused; ``seen`` is what was taken for dice there, to draw for the teacher:
    (box x, y, w, h in the picture's pixels, what it is). ``message`` places them where it says ``{where}``: as
    pixels (``str()``, for a command line's reader, who has no picture), or as boxed in the picture
    (:meth:`pointing_at_the_picture`, for a phone that shows it)."""

    def __init__(self, message: str, seen: list[tuple[tuple[int, int, int, int], str]] = (), *, at: str = "",
                 boxed: str = ""):
        super().__init__(message.format(where=at))
        self.seen = list(seen)
        self._pointing = message.format(where=boxed)

    def pointing_at_the_picture(self) -> str:
        """The refusal with what was seen named as boxed in the picture shown with it, not by its pixels."""
        return self._pointing


def single_die(image: np.ndarray, die_px: float | None = None, *, larger: bool = True) -> Candidate:
    """The one die lying flat in ``image`` (BGR); :class:`NotOneDie` saying what was seen otherwise. ``larger``
    False looks only as the finder first sees the picture (the bench's side-by-side figures)."""
    return single_die_read(image, die_px, larger=larger)[0]


def single_die_read(image: np.ndarray, die_px: float | None = None, *,
                    larger: bool = True) -> tuple[Candidate, np.ndarray | None]:
    """:func:`single_die`, with the reader network's probabilities for it (:mod:`vision.dice.net`), or None
    where the finder network did not mark it (found by its outline)."""
    if die_px is not None or not larger:
        return _single_die_read(image, die_px)[:2]
    try:
        found = _single_die_read(image, None)
    except NotOneDie as exc:
        found, refused = None, exc
    # A close-up, from a phone or a camera hung low, the die a fifth of the picture or more: at the finder's first
    # look the drawing on its face may be taken for the die, or for several dice. Looked for as larger, a die
    # around what was found, of about that size and marked surer than it, is the die; and it again (a drawing in a
    # drawing). Surer: a die of the usual size looked for as larger is still marked, but less surely (close-up renders).
    # Or nearly as sure, where its outline says a die of that very size lies there (OUTLINED): a round drawing may be
    # marked surer than its die, and a die of the usual size is not cut out so much larger by its outline.
    shortest = min(image.shape[:2])
    for _ in range(3):
        for side in _larger(found, shortest):
            marks = net.find(image, min_score=MIN_SCORE, die_px=side)
            if found is not None and not any(
                    _sure_enough(m.score, found[2], lambda m=m: _fit(die_square(image, m.center, m.side), side))
                    for m in marks):
                continue  # nothing there that could be the die: the rest of a look is the costly part
            try:
                die, probabilities, score = _single_die_read(image, side)
            except NotOneDie:
                continue
            inside = [found[0].center] if found is not None else [_middle(box) for box, _ in refused.seen]
            fit = _fit(die, side)
            if (fit < FIT and all(_near_middle(die, point) for point in inside)
                    and (found is None or _sure_enough(score, found[2], lambda: fit))):
                found = die, probabilities, score
                break
        else:
            break
    if found is None:
        raise refused
    return found[:2]


def _sure_enough(score: float, than: float, fit) -> bool:
    """Whether a die looked for as larger, marked ``score``, is the die rather than the one found (marked ``than``):
    surer, or nearly as sure with its outline that large (``fit()``, asked only then: it costs an outline)."""
    return score > than or (score > NEARLY * than and fit() < OUTLINED)


def _fit(die: Candidate, side: float) -> float:
    """How far ``die`` is from the size looked for, as a share of it."""
    return abs(max(die.size) / side - 1)


def _larger(found, shortest: int) -> list[float]:
    """The sizes to look for a die at, larger than the one ``found`` (or than any, where none was)."""
    if found is None:
        return [share * shortest for share in CLOSE_UP]
    side = max(found[0].size)
    return [k * side for k in LARGER if k * side <= LARGEST * shortest]


def _middle(box) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _near_middle(die: Candidate, point) -> bool:
    """``point`` is near the middle of ``die``: where a drawing on its face, or a part of one, lies."""
    return bool(np.hypot(point[0] - die.center[0], point[1] - die.center[1]) < MIDDLE * max(die.size))


def _single_die_read(image: np.ndarray, die_px: float | None) -> tuple[Candidate, np.ndarray | None, float]:
    """:func:`single_die_read` looking as the finder does for ``die_px``, with how sure its mark was (0: found by
    its outline)."""
    spots = distinct(net.find(image, min_score=0.2, die_px=die_px, several=False))
    if die_px is None and spots and spots[0].score >= MIN_SCORE:
        # A teaching photo is often a close-up, its die larger than the finder knows dice best,
        # and its box for such a die falls short: look again with the die at the finder's size.
        for _ in range(2):
            spots = distinct(net.find(image, min_score=0.2, die_px=spots[0].side)) or spots
    sure = [s for s in spots if s.score >= MIN_SCORE]
    if not sure:
        return _by_outline(image, die_px), None, 0.0
    best = sure[0]
    probabilities = net.read(image, [best])[0]
    if int(np.argmax(probabilities)) == COCKED:
        raise NotOneDie("show the die lying flat in the tray: the die{where} is not lying flat (cocked or stacked)",
                        [(best.box, "not flat")], at=f" {_at(best.center)}", boxed=" boxed in the picture")
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
        raise NotOneDie(f"show exactly one die, lying flat in the tray: saw {1 + len(rivals)} dice{{where}}",
                        [(s.box, f"die {i}") for i, s in enumerate([best, *rivals], start=1)], at=f" ({where})",
                        boxed=" (boxed in the picture)")
    return die, probabilities, best.score


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
        raise NotOneDie(f"show the die lying flat in the tray: saw {len(candidates)} die-sized shape(s), none "
                        "flat{where}", [(c.box, c.problem) for c in candidates], boxed=" (boxed in the picture)")
    where = ", ".join(_at(c.center) for c in flat[:4])
    raise NotOneDie(f"show exactly one die, lying flat in the tray: saw {len(flat)} die-sized shapes{{where}}; "
                    "a plain cloth or tray under the die helps", [(c.box, f"shape {i}") for i, c in enumerate(flat, 1)],
                    at=f" ({where})", boxed=" (boxed in the picture)")


def _at(center) -> str:
    return f"at {round(center[0])},{round(center[1])}"
