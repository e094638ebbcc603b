"""Picture dice (Fandooble's chests, dragons, knights...): faces taught once, then recognised by template.

Teaching shows each face of each die to the camera; every sample becomes a small
colour descriptor of the die turned square (Lab, brightness relative to the face,
colour kept: a green and a red dragon may share a drawing). Dice are found by the same
finder network as pip dice and turned square by their outline (:mod:`vision.dice.outline`),
in teaching and in reading alike. Reading compares a die with every sample in its four
quarter turns and shifts of up to two pixels and takes the nearest; the confidence is the
margin to the nearest sample of a *different* face.
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
CHECKED = 4  # per sample, the nearest turns and shifts by squared distance whose absolute difference is computed
UNCLEAR = 0.3  # below this confidence a die's face is reported unclear, not guessed (renders: every wrong face fell below)
MAX_DISTANCE = 40.0  # farther than this from every taught sample: not a taught face
_WEIGHTS = np.array([0.3, 1.0, 1.0], np.float32)  # brightness counts less: light changes it most


def describe_die(image: np.ndarray, die: Candidate) -> np.ndarray:
    """Descriptor of the die ``die`` of ``image``: its face, turned square to the picture."""
    patch, _ = upright_patch(image, die, DESCRIPTOR * 3, grow=CORE)
    return describe(patch)


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

    def match(self, descriptor: np.ndarray) -> tuple[str, str, float, float]:
        """(die, face, distance to the nearest sample, distance to the nearest sample of another face).

        A distance is the mean absolute difference at the best of the die's four quarter turns
        and the sample's shifts of up to PAD pixels. Those 100 comparisons per sample are first
        ranked by squared distance, one matrix product for all of them; the mean absolute
        difference is then computed for the few nearest of each sample only.
        """
        if not self.samples:
            raise ValueError("no faces are taught")
        windows, windows_sq = self._windows()  # N x S x F, N x S
        n, shifts, size = windows.shape
        views = _views(descriptor).reshape(4, size)
        # |window - view|^2 less |view|^2 (the same for every window): N x (S * 4), shift-major
        squared = (windows_sq.reshape(-1, 1) - 2.0 * (windows.reshape(n * shifts, size) @ views.T)).reshape(n, -1)
        nearest = np.argpartition(squared, CHECKED, axis=1)[:, :CHECKED]  # N x CHECKED (shift * 4 + view)
        rows = np.arange(n)[:, None]
        distances = np.abs(windows[rows, nearest // 4] - views[nearest % 4]).mean(axis=2).min(axis=1)
        best = int(np.argmin(distances))
        die, face, _ = self.samples[best]
        others = [d for (_, f, _), d in zip(self.samples, distances) if f != face]
        return die, face, float(distances[best]), float(min(others)) if others else float("inf")

    def _windows(self) -> tuple[np.ndarray, np.ndarray]:
        """Every sample at every shift, flattened (N x S x F), and their squared lengths; kept until a sample is added."""
        key = (id(self.samples), len(self.samples))
        if self._cache is None or self._cache[0] != key:
            stack = np.stack([s[2] for s in self.samples])  # N x D+2P x D+2P x 3
            windows = np.stack([stack[:, dy:dy + DESCRIPTOR, dx:dx + DESCRIPTOR].reshape(len(stack), -1)
                                for dy in range(2 * PAD + 1) for dx in range(2 * PAD + 1)], axis=1)
            self._cache = (key, windows, (windows * windows).sum(axis=2))
        return self._cache[1], self._cache[2]


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
        return scan_marks(image, zone, self.die_px, self._read_face)

    def _read_face(self, image: np.ndarray, spot: Spot, p: np.ndarray):
        die, face, nearest, other = min((self.templates.match(describe_die(image, square))
                                         for square in die_squares(image, spot.center, spot.side)),
                                        key=lambda match: match[2])
        if nearest > MAX_DISTANCE:
            return None, 0.0, "not a taught face", None
        confidence = float(np.clip(2.0 * (other - nearest) / max(other, 1e-6), 0.0, 1.0))
        if confidence < self.min_confidence:
            return None, confidence, "face unclear", die
        return face, confidence, "", die
