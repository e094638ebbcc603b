"""Standard pip dice: find each die and read its top face with two small networks.

The finder (:func:`vision.dice.net.find`) marks the dice in the picture: touching ones,
white dice on a white table, translucent and marbled dice alike, since it learned from
renders of all of them rather than from rules about colour and outline. The reader
(:func:`vision.dice.net.read`) looks at each die, cut out around its centre, and says
which face is up, or that the die does not lie flat, or that the finder's mark is not a
die after all. Both run from ONNX files (:mod:`vision.dice.net` says by what).

Confidence is the reader's probability for the face. A die it is unsure of is looked at
again the other way up (:func:`vision.dice.net.read` with ``turns``) and the two looks averaged; one still
unsure is reported unreadable ("pips unclear") rather than guessed, and one the reader thinks
may be leaning (LEANING) is reported not lying flat rather than read.
"""

from __future__ import annotations

import numpy as np

from . import net
from .net import COCKED, NOT_A_DIE, PICTURE
from .scan import scan_marks
from .types import NOT_FLAT, DiceReading

UNSURE = 0.58  # below this probability of its best face a die is reported unreadable. Chosen on the train split's
# calibration photos (bench/dice_bench.py --calibrate), by the rule fixed before they were read: the least threshold
# with at most 0.5% wrong over three fifths of it, each read by a reader that never saw it (--fold 0 1 2: the shipped
# reader, and readers trained with --fold 1 and --fold 2, tools/train_dice.py): 842 of 879 right (95.8%), 3 wrong
# (0.34%), with the finder's closer look at the whole picture in a first look at half scale (vision.dice.net.FAR_TINY).
# With the closer look only around the dice first marked, the rule picked 0.70: 826 right, 4 wrong.
LEANING = 0.10  # a die the reader gives this probability of not lying flat is reported cocked, not read: a leaning
# die's foreshortened face is often read with some certainty. Rendered leaning dice read as a face: 68 of 450 without
# it, 12 with it (as many as the previous reader); the flat dice of the calibration photos stay below it, 23 of 963
# flat rendered dice do not (a safe "not lying flat" rather than a wrong face on a cocked die; measured with the
# networks before their retraining for issue 13, whose reader called 29 of 737 flat dice of plain trays leaning
# where today's calls 21)

SECOND_LOOK = (2,)  # quarter turns of an unsure die's second look: the half turn alone reads as many dice as the
# three other quarter turns did (train split's calibration photos: 294 right, 1 wrong either way; photo-like renders:
# 816 against 817 of 890; the networks before their retraining for issue 13) for a third of their work, and crowded
# trays are where the reader's work counts


REASONS = {PICTURE: "not a pip die (its face is a picture)", COCKED: NOT_FLAT,
           NOT_A_DIE: "pips unclear"}


class PipReader:
    """Reads standard d6 by their pips. ``die_px``: the die side in pixels when the geometry knows it. ``larger``
    False: no farther look for dice too large for the finder's first look (:func:`vision.dice.scan.scan_marks`)."""

    kind = "pips"

    def __init__(self, die_px: float | None = None, min_confidence: float = UNSURE, leaning: float = LEANING,
                 second_look: tuple[int, ...] = SECOND_LOOK, larger: bool = True):
        self.die_px = die_px
        self.larger = larger
        self.min_confidence = min_confidence
        self.leaning = leaning
        self.second_look = second_look

    def read(self, image: np.ndarray, zone: np.ndarray | None = None) -> DiceReading:
        return scan_marks(image, zone, self.die_px, self._read_faces, larger=self.larger)

    def _read_faces(self, image: np.ndarray, spots: list[net.Spot], probabilities: np.ndarray):
        unsure = [i for i, p in enumerate(probabilities)
                  if int(np.argmax(p)) != PICTURE and max(p[1:7]) < self.min_confidence]
        if unsure and self.second_look:  # a second look, the other way up, at all the dice it is unsure of at once
            probabilities = probabilities.copy()
            looks = len(self.second_look)
            turned = net.read(image, [spots[i] for i in unsure], turns=self.second_look)
            probabilities[unsure] = (probabilities[unsure] + looks * turned) / (1 + looks)
        return [self.verdict(p) for p in probabilities]

    def verdict(self, p: np.ndarray):
        """What this reader makes of one die from the reader network's probabilities ``p``: (face or None,
        confidence, why not read, None, the face it looks most like when unclear or None)."""
        if int(np.argmax(p)) in (PICTURE, COCKED, NOT_A_DIE):
            return None, 0.0, REASONS[int(np.argmax(p))], None, None
        if p[COCKED] >= self.leaning:
            return None, 0.0, REASONS[COCKED], None, None
        face = 1 + int(np.argmax(p[1:7]))
        confidence = float(p[face])
        if confidence < self.min_confidence:
            return None, confidence, "pips unclear", None, str(face)
        return str(face), confidence, "", None, None
