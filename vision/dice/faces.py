"""Picture dice (Fandooble's chests, dragons, knights...): faces taught once, then recognised by template.

Teaching shows each face of each die to the camera; every sample becomes a small
colour descriptor of the die turned square (Lab, brightness relative to the face,
colour kept: a green and a red dragon may share a drawing). Dice are found by the same
finder network as pip dice and turned square by their outline (:mod:`vision.dice.outline`),
in teaching and in reading alike. Reading compares a die with every sample in its four
quarter turns and shifts of up to two pixels and takes the nearest, each brought to one contrast first
(a small die, a blurred one or one in glare shows its drawing paler); the confidence is the
margin to the nearest sample of a *different* face. The face's looks must also win on
average: when another face's two nearest looks are nearer on average than this face's two, one
odd look decided and the face is reported unclear rather than guessed. A face reported unclear
for a narrow margin alone carries the nearest face as the die's ``guess``: a referee may propose
it for a person to confirm, never read it.
The templates also record which faces each die has (its face counts), which the
odds need.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from .find import Candidate
from .net import Spot
from .outline import die_squares
from .scan import scan_marks, upright_patch
from .single import single_die
from .types import DiceReading

DESCRIPTOR = 20  # the die is described at this many pixels a side
DESCRIPTOR_VERSION = 2  # 2: the die cut out by its outline (vision.dice.outline), colours relative to its body
PAD = 2  # samples keep this many extra pixels a side, so a die a little off-centre still matches
CORE = 0.85  # the descriptor covers this share of the die's outline: the face, not its rim or shadow
BATCH = 8  # descriptors matched in one step (bounds the memory of a step on the Pi)
CHECKED = 4  # per sample, the nearest turns and shifts by squared distance whose absolute difference is computed
UNCLEAR = 0.3  # below this confidence a die's face is reported unclear, not guessed (renders: every wrong face fell below)
MAX_DISTANCE = 40.0  # farther than this from every taught sample: not a taught face
VOTERS = 2  # a face's this many nearest samples, on average, must be nearer than any other face's (see match)
_WEIGHTS = np.array([0.3, 1.0, 1.0], np.float32)  # brightness counts less: light changes it most
CONTRAST = 10.0  # descriptors are compared with their drawing at this mean strength (a rendered face's is 7-17)
MIN_CONTRAST = 4.0  # a paler drawing is strengthened as if it had this much: a blank face's noise stays faint
# Real taught dice (bench/dice_bench.py): 63 of 66 read right instead of 61, none wrong; each teaching photo read
# against the other looks: 10 wrong of 66 instead of 11, 3 instead of 4 above UNCLEAR. Real photos' drawings are
# 2-11 strong (median 5): the small dice of a far camera are blurred, dim or glared, each photo differently. Rendered
# trays under a light veil of glare (tests/test_dice.py): all read right, where 41 of 67 were before, 8 wrong.


def describe_die(image: np.ndarray, die: Candidate) -> np.ndarray:
    """Descriptor of the die ``die`` of ``image``: its face, turned square to the picture."""
    return describe(upright_patch(image, die, DESCRIPTOR * 3, grow=CORE))


def describe(patch: np.ndarray) -> np.ndarray:
    """Descriptor of an upright die patch (BGR): DESCRIPTOR x DESCRIPTOR x 3 float32."""
    small = cv2.resize(patch, (DESCRIPTOR + 2 * PAD, DESCRIPTOR + 2 * PAD), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    # Brightness and colour relative to the face's commonest look, its body: a lamp's warmth or a
    # dimmer room moves the body and the drawing on it alike.
    lab -= np.median(lab.reshape(-1, 3), axis=0)
    return lab * _WEIGHTS


@dataclass
class FaceTemplates:
    """Taught samples (die, face, descriptor) and the faces of each die, in the order they were taught.

    ``dice`` maps a die's name to its faces, one letter per physical face (``"CCGGRR"``).
    """

    samples: list[tuple[str, str, np.ndarray]] = field(default_factory=list)
    dice: dict[str, str] = field(default_factory=dict)
    _cache: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def faces(self) -> set[str]:
        return {face for _, face, _ in self.samples}

    def face_counts(self, die: str) -> dict[str, int]:
        return dict(Counter(self.dice.get(die, "")))

    def describe_single(self, image: np.ndarray, die_px: float | None = None) -> np.ndarray:
        """The descriptor of the one die in ``image``; ValueError saying what was seen otherwise."""
        return describe_die(image, single_die(image, die_px))

    def learn(self, die: str, face: str, image: np.ndarray, *, new_face: bool = True,
              die_px: float | None = None) -> None:
        """Add a sample of ``face`` of ``die`` from a picture of that one die.

        ``new_face`` counts a physical face of the die (False for a second look at the same face).
        """
        self.add(die, face, self.describe_single(image, die_px), new_face=new_face)

    def add(self, die: str, face: str, descriptor: np.ndarray, *, new_face: bool = True) -> None:
        shape = (DESCRIPTOR + 2 * PAD, DESCRIPTOR + 2 * PAD, 3)
        if np.shape(descriptor) != shape:
            raise ValueError(f"a face sample of shape {np.shape(descriptor)} is not of this version's {shape}: "
                             "teach the dice again")
        self.samples.append((die, face, np.asarray(descriptor, np.float32)))
        if new_face:
            self.dice[die] = self.dice.get(die, "") + face

    def match(self, descriptors: list[np.ndarray]) -> list[tuple[str, str, float, float, bool]]:
        """For each descriptor: (die, face, distance to the nearest sample, distance to the nearest sample
        of another face, whether another face's VOTERS nearest samples are nearer on average than this face's).

        A distance is the mean absolute difference between the die and a sample, both brought to one
        contrast (:func:`_at_contrast`), at the best of the die's four quarter turns
        and the sample's shifts of up to PAD pixels. Those 100 comparisons per sample are first
        ranked by squared distance, one matrix product for all of them and every descriptor; the
        mean absolute difference is then computed for the few nearest of each sample only.
        """
        if not self.samples:
            raise ValueError("no faces are taught")
        windows, windows_sq, faces, names, looks = self._prepared()
        n, shifts, size = windows.shape
        flat = windows.reshape(n * shifts, size)
        found = []
        for start in range(0, len(descriptors), BATCH):
            batch = descriptors[start:start + BATCH]
            views = np.stack([_views(_at_contrast(d)) for d in batch]).reshape(-1, 4, size)  # D x 4 x F
            d = len(views)
            # |window - view|^2 less |view|^2 (the same for every window): D x N x (S * 4), shift-major
            squared = windows_sq.reshape(-1, 1) - 2.0 * (flat @ views.reshape(-1, size).T)
            squared = squared.reshape(n, shifts, d, 4).transpose(2, 0, 1, 3).reshape(d, n, shifts * 4)
            nearest = np.argpartition(squared, CHECKED, axis=2)[:, :, :CHECKED]  # D x N x CHECKED
            rows = np.arange(n)[:, None] * shifts + nearest // 4  # each one's window, a row of flat
            distances = np.empty((d, n), np.float32)
            for j in range(d):  # one descriptor at a time, in place: the whole batch's copies of the windows
                # (several MB, made afresh for every tray) cost twice the arithmetic on a 36-sample set
                difference = flat[rows[j]]  # N x CHECKED x F
                difference -= views[j][nearest[j] % 4]
                distances[j] = np.abs(difference, out=difference).mean(axis=2).min(axis=1)
            # Each face's VOTERS nearest samples on average (fewer where it has fewer): D x faces
            near = np.sort(np.pad(distances, ((0, 0), (0, 1)), constant_values=np.inf)[:, looks], axis=2)[:, :, :VOTERS]
            counted = np.isfinite(near)
            votes = np.where(counted, near, 0.0).sum(axis=2) / np.maximum(counted.sum(axis=2), 1)
            for row, winner in zip(distances, names[np.argmin(votes, axis=1)]):
                best = int(np.argmin(row))
                others = row[faces != faces[best]]
                die, face, _ = self.samples[best]
                found.append((die, face, float(row[best]), float(others.min()) if others.size else float("inf"),
                              winner != face))
        return found

    def _prepared(self) -> tuple[np.ndarray, ...]:
        """What matching needs of the samples, kept until a sample is added: every sample at every shift,
        flattened (N x S x F), their squared lengths (N x S), each sample's face (N), and the faces with
        their samples' indices (:func:`_looks_by_face`)."""
        key = (id(self.samples), len(self.samples))
        if self._cache is None or self._cache[0] != key:
            stack = np.stack([_at_contrast(s[2]) for s in self.samples])  # N x D+2P x D+2P x 3
            windows = np.stack([stack[:, dy:dy + DESCRIPTOR, dx:dx + DESCRIPTOR].reshape(len(stack), -1)
                                for dy in range(2 * PAD + 1) for dx in range(2 * PAD + 1)], axis=1)
            faces = np.array([face for _, face, _ in self.samples])
            self._cache = (key, windows, (windows * windows).sum(axis=2), faces, *_looks_by_face(faces))
        return self._cache[1:]


def _looks_by_face(faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The faces taught, and for each the indices of its samples (faces x most samples of a face), padded
    with ``len(faces)``: the index of a column of infinite distance added beside the samples'."""
    names = np.array(sorted(set(faces.tolist())))
    groups = [np.flatnonzero(faces == name) for name in names]
    looks = np.full((len(names), max(len(g) for g in groups)), len(faces))
    for i, group in enumerate(groups):
        looks[i, :len(group)] = group
    return names, looks


def _at_contrast(descriptor: np.ndarray) -> np.ndarray:
    """The descriptor with its drawing brought to CONTRAST: its mean distance from the body (which
    :func:`describe` made zero), at least MIN_CONTRAST, scaled to CONTRAST. Done at matching, so dice taught
    before keep their samples."""
    return descriptor * np.float32(CONTRAST / max(float(np.abs(descriptor).mean()), MIN_CONTRAST))


def _views(descriptor: np.ndarray) -> np.ndarray:
    """The inner part of the descriptor in its four quarter turns."""
    inner = descriptor[PAD:-PAD, PAD:-PAD]
    turned = inner.transpose(1, 0, 2)[::-1]  # a quarter turn (np.rot90, without its checks)
    return np.stack([inner, turned, inner[::-1, ::-1], turned[::-1, ::-1]])


class TaughtReader:
    """Reads dice whose faces were taught (:class:`FaceTemplates`), found by the same finder as pip dice."""

    kind = "taught"

    def __init__(self, templates: FaceTemplates, die_px: float | None = None, min_confidence: float = UNCLEAR):
        self.templates = templates
        self.die_px = die_px
        self.min_confidence = min_confidence

    def read(self, image: np.ndarray, zone: np.ndarray | None = None) -> DiceReading:
        return scan_marks(image, zone, self.die_px, self._read_faces)

    def _read_faces(self, image: np.ndarray, spots: list[Spot], _probabilities: np.ndarray):
        # Each die's squares (one, or two where its outline is faint), all matched in one step.
        squares = [(i, square) for i, spot in enumerate(spots) for square in die_squares(image, spot.center, spot.side)]
        matches = self.templates.match([describe_die(image, square) for _, square in squares])
        nearest: dict[int, tuple[str, str, float, float, bool]] = {}
        for (i, _), match in zip(squares, matches):
            if i not in nearest or match[2] < nearest[i][2]:
                nearest[i] = match
        return [self._verdict(*nearest[i]) for i in range(len(spots))]

    def _verdict(self, die: str, face: str, nearest: float, other: float, outvoted: bool):
        if nearest > MAX_DISTANCE:
            return None, 0.0, "not a taught face", None, None
        if outvoted:  # the nearest look and the face's looks on average disagree: no face to propose
            return None, 0.0, "face unclear", die, None
        confidence = float(np.clip(2.0 * (other - nearest) / max(other, 1e-6), 0.0, 1.0))
        if confidence < self.min_confidence:
            return None, confidence, "face unclear", die, face
        return face, confidence, "", die, None
