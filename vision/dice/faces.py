"""Picture dice (Fandooble's chests, dragons, knights...): faces taught once, then recognised by template.

Teaching shows each face of each die to the camera; every picture becomes a small
colour descriptor of the die turned square (Lab, brightness relative to the face,
colour kept: a green and a red dragon may share a drawing), and four more of the picture as if
seen at a slant, one side foreshortened (most dice read wrong or not at all lie where the camera
sees them at a slant, and their cut-out misses part of the top). Dice are found by the same
finder network as pip dice and turned square by their outline (:mod:`vision.dice.outline`),
in teaching and in reading alike. Reading compares a die with every sample in its four
quarter turns and shifts of up to two pixels and takes the nearest (samples of a face with many are
ranked at half size first, and only the nearest compared in full), each brought to one contrast first
(a small die, a blurred one or one in glare shows its drawing paler); the confidence is the
margin to the nearest sample of a *different* face. The face's looks must also win on
average: when another face's two nearest looks are nearer on average than this face's two, one
odd look decided and the face is reported unclear rather than guessed. A face unclear for a narrow
margin alone is read where the shape of its drawing, which way its edges run whatever their colours
(:mod:`vision.dice.shapes`, kept with each sample), is surely that face's too (SHAPE_SURE); otherwise it
carries the nearest face as the die's ``guess``: a referee may propose it for a person to confirm, never
read it.
The templates also record which faces each die has (its face counts), which the
odds need.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from .find import Candidate
from .light import face_light, taught_light
from .net import Spot
from .outline import die_squares
from .scan import scan_marks, upright_patch
from .shapes import nearest_by_face, shape_of, shape_views
from .pips import PipReader
from .single import single_die, single_die_read
from .types import DiceReading

DESCRIPTOR = 20  # the die is described at this many pixels a side
DESCRIPTOR_VERSION = 2  # 2: the die cut out by its outline (vision.dice.outline), colours relative to its body
PAD = 2  # samples keep this many extra pixels a side, so a die a little off-centre still matches
CORE = 0.85  # the descriptor covers this share of the die's outline: the face, not its rim or shadow
BATCH = 8  # descriptors matched in one step (bounds the memory of a step on the Pi)
SLANT = 0.3  # teaching also describes each picture with one side this much shorter, each side in turn (see below)
KEEP = 6  # where a face has more samples, only its this many nearest at half size are compared in full
CHECKED = 4  # per sample, the nearest turns and shifts by squared distance whose absolute difference is computed
UNCLEAR = 0.3  # below this confidence a die's face is reported unclear, not guessed (renders: every wrong face fell below)
MAX_DISTANCE = 40.0  # farther than this from every taught sample: not a taught face
VOTERS = 2  # a face's this many nearest samples, on average, must be nearer than any other face's (see match)
_WEIGHTS = np.array([0.3, 1.0, 1.0], np.float32)  # brightness counts less: light changes it most
CONTRAST = 10.0  # descriptors are compared with their drawing at this mean strength (a rendered face's is 7-17)
MIN_CONTRAST = 4.0  # a paler drawing is strengthened as if it had this much: a blank face's noise stays faint
# A face unclear for a narrow margin alone is read as the face it looks most like where the shape of its drawing
# (vision/dice/shapes.py) is nearest that face's and at least this sure (margin_confidence). On the train split's real
# dice (bench/dice_bench.py, six choices of teaching photos), against no second opinion: single dice 390 of 417 right
# instead of 389, alike dice 1020 of 1185 instead of 1014, the three looks held out before (read before, so spent)
# 646, 843 and 517 instead of 627, 830 and 498, every wrong face as it was. At 0.3: 400, 1028, 667, 868 and 536, six
# more wrong faces on one held-out set (33 of 1019 instead of 27); at 0.4, 395 and two more wrong there. A wrong face
# is worse than an unclear one (the referee proposes the face an unclear die looks most like, for a person to accept).
# The single dice read under an evening's light: a warm lamp 387 instead of 373, dimmer and warm 356 instead of 329,
# 0.6 as bright 368 instead of 363, every wrong face as it was. Those are the networks before their retraining for
# issue 13, when 0.5 was chosen; with today's: single dice 380 of 403 instead of 378, alike dice 1037 of 1181 instead of
# 1033, the held-out looks 689 of 1016, 851 of 935 and 490 of 650 instead of 668, 827 and 476; a warm lamp 364 instead
# of 351, dimmer and warm 309 instead of 275, 0.6 as bright 358 instead of 340; every wrong face as it was.
SHAPE_SURE = 0.5
# Real taught dice (bench/dice_bench.py): 63 of 66 read right instead of 61, none wrong; each teaching photo read
# against the other looks: 10 wrong of 66 instead of 11, 3 instead of 4 above UNCLEAR. Real photos' drawings are
# 2-11 strong (median 5): the small dice of a far camera are blurred, dim or glared, each photo differently. Rendered
# trays under a light veil of glare (tests/test_dice.py): all read right, where 41 of 67 were before, 8 wrong.


def describe_die(image: np.ndarray, die: Candidate) -> np.ndarray:
    """Descriptor of the die ``die`` of ``image``: its face, turned square to the picture."""
    return describe(die_patch(image, die))


def die_patch(image: np.ndarray, die: Candidate) -> np.ndarray:
    """The face of the die ``die`` of ``image``, turned square to the picture: what its descriptors describe."""
    return upright_patch(image, die, DESCRIPTOR * 3, grow=CORE)


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

    ``dice`` maps a die's name to its faces, one letter per physical face (``"CCGGRR"``); ``pictures`` counts
    the pictures each die was taught from (each gives up to five samples: see :meth:`learn`), and
    ``read_by_pips`` how many of them the pip reader (:class:`~vision.dice.pips.PipReader`) reads as the face
    they were taught as: a die most of whose pictures it reads so is a pip die, better read by its pips.
    ``lights`` keeps each die's light in each picture it was taught from (:mod:`vision.dice.light`), ``sides`` its
    side in pixels there: dice taught with the camera are looked for at that size where they are too large for the
    finder's first look (:func:`vision.dice.net.size_to_look_for`). ``sides_on`` keeps the (width, height) of the
    camera picture a die's sides were measured in, so that they are placed on a picture of another size
    (:func:`vision.geometry.on_picture`: the camera's working width changed since teaching).
    ``slanted`` False teaches one sample a picture, as before slanted samples (the bench's side-by-side figures).
    ``shapes`` holds each sample's shape (:mod:`vision.dice.shapes`) in the samples' order, None for a sample taught
    before shapes were kept (a list of another length than the samples keeps none: :meth:`shape_list`).
    """

    samples: list[tuple[str, str, np.ndarray]] = field(default_factory=list)
    dice: dict[str, str] = field(default_factory=dict)
    pictures: dict[str, int] = field(default_factory=dict)
    read_by_pips: dict[str, int] = field(default_factory=dict)
    lights: dict[str, list[float]] = field(default_factory=dict)
    sides: dict[str, list[float]] = field(default_factory=dict)
    sides_on: dict[str, tuple[int, int]] = field(default_factory=dict)
    shapes: list[np.ndarray | None] = field(default_factory=list)
    slanted: bool = True
    _cache: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def faces(self) -> set[str]:
        return {face for _, face, _ in self.samples}

    def face_counts(self, die: str) -> dict[str, int]:
        return dict(Counter(self.dice.get(die, "")))

    def taught_lights(self) -> dict[str, float]:
        """Each die's light in teaching (dice taught before lights were kept are left out)."""
        return {die: taught_light(lights) for die, lights in self.lights.items() if lights}

    def taught_side(self, picture: tuple[int, int] | None = None) -> float | None:
        """The dice's side in the camera's teaching pictures (the median of all taught dice's; None where none was
        kept): a game's dice are thrown into one tray under one camera. With ``picture`` (width, height), in its
        pixels: sides measured on a picture of another size are scaled, those of another shape (another view of the
        table) left out; sides measured on a picture not kept are taken as they are."""
        sides = [side for die, values in self.sides.items() for side in self._sides_on(die, values, picture)]
        return float(np.median(sides)) if sides else None

    def _sides_on(self, die: str, sides: list[float], picture: tuple[int, int] | None) -> list[float]:
        """``die``'s ``sides`` in the pixels of ``picture`` (as they are where either picture is not known)."""
        from vision.geometry import on_picture

        if picture is None or die not in self.sides_on:
            return list(sides)
        placed = on_picture([[side, 0.0] for side in sides], self.sides_on[die], picture)
        return [] if placed is None else [round(x, 1) for x, _ in placed]

    def describe_single(self, image: np.ndarray, die_px: float | None = None) -> np.ndarray:
        """The descriptor of the one die in ``image``; ValueError saying what was seen otherwise."""
        return describe_die(image, single_die(image, die_px))

    def shape_list(self) -> list[np.ndarray | None]:
        """Each sample's shape, None where none is kept (:attr:`shapes`)."""
        return list(self.shapes) if len(self.shapes) == len(self.samples) else [None] * len(self.samples)

    def without_shapes(self) -> list[str]:
        """The dice some of whose samples keep no shape (taught before shapes were kept)."""
        return sorted({die for (die, _, _), shape in zip(self.samples, self.shape_list()) if shape is None})

    def learn(self, die: str, face: str, image: np.ndarray, *, new_face: bool = True,
              die_px: float | None = None, picture: tuple[int, int] | None = None) -> Candidate:
        """Add samples of ``face`` of ``die`` from a picture of that one die: the picture as taken, and as if
        seen at a slant from each of its four sides (:func:`at_a_slant`; one not found there is left out).
        Returns the die found (a :class:`~vision.dice.find.Candidate`: its ``box`` shows what was learned).

        ``new_face`` counts a physical face of the die (False for a second look at the same face). ``picture`` is
        the (width, height) of the camera picture ``image`` was cut from, kept with the die's side (``sides_on``;
        sides measured on another size before are placed on this one).
        """
        candidate, probabilities = single_die_read(image, die_px)
        if picture is not None:
            self.sides[die] = self._sides_on(die, self.sides.get(die, []), tuple(picture))
            self.sides_on[die] = tuple(picture)
        patch = die_patch(image, candidate)
        self.add(die, face, describe(patch), new_face=new_face, shape=shape_of(patch))
        self.pictures[die] = self.pictures.get(die, 0) + 1
        light = face_light(image, candidate.box)
        if light is not None:
            self.lights.setdefault(die, []).append(round(light, 1))
        self.sides.setdefault(die, []).append(round(float(max(candidate.size)), 1))
        if probabilities is not None and PipReader().verdict(probabilities)[0] == face:
            self.read_by_pips[die] = self.read_by_pips.get(die, 0) + 1
        for side in range(4 if self.slanted else 0):
            slanted = at_a_slant(image, side)
            try:
                patch = die_patch(slanted, single_die(slanted, die_px))
            except ValueError:
                continue  # slanted, the die is taken for two or not found: the picture's own sample stands
            self.add(die, face, describe(patch), new_face=False, shape=shape_of(patch))
        return candidate

    def absorb(self, lesson: FaceTemplates, *, new_face: bool = True) -> None:
        """Add what ``lesson`` taught (one picture learned alone into an empty set, :meth:`learn`) as if that
        picture were learned here: the same samples, counts, light and side. A teacher keeps each picture's lesson
        apart, so that any one of them can be taken back (companion.teach.DiceTeacher)."""
        for die, picture in lesson.sides_on.items():
            self.sides[die] = self._sides_on(die, self.sides.get(die, []), picture)
            self.sides_on[die] = picture
        for i, (die, face, descriptor) in enumerate(lesson.samples):
            self.add(die, face, descriptor, new_face=new_face and i == 0, shape=lesson.shape_list()[i])
        for mine, taught in ((self.pictures, lesson.pictures), (self.read_by_pips, lesson.read_by_pips)):
            for die, count in taught.items():
                mine[die] = mine.get(die, 0) + count
        for mine, taught in ((self.lights, lesson.lights), (self.sides, lesson.sides)):
            for die, values in taught.items():
                mine.setdefault(die, []).extend(values)

    def add(self, die: str, face: str, descriptor: np.ndarray, *, new_face: bool = True,
            shape: np.ndarray | None = None) -> None:
        """Add one sample; ``shape`` its shape, None where none is known (:attr:`shapes`)."""
        size = (DESCRIPTOR + 2 * PAD, DESCRIPTOR + 2 * PAD, 3)
        if np.shape(descriptor) != size:
            raise ValueError(f"a face sample of shape {np.shape(descriptor)} is not of this version's {size}: "
                             "teach the dice again")
        if len(self.shapes) == len(self.samples):  # else the shapes are not kept in step: none is (shape_list)
            self.shapes.append(None if shape is None else np.asarray(shape, np.float32))
        self.samples.append((die, face, np.asarray(descriptor, np.float32)))
        if new_face:
            self.dice[die] = self.dice.get(die, "") + face

    def match(self, descriptors: list[np.ndarray], keep: int = KEEP,
              hidden: np.ndarray | None = None) -> list[tuple[str, str, float, float, bool]]:
        """For each descriptor: (die, face, distance to the nearest sample, distance to the nearest sample
        of another face, whether another face's VOTERS nearest samples are nearer on average than this face's).
        ``hidden`` (descriptors x samples, booleans) leaves samples out of a descriptor's comparison: a picture
        taught is read by the others alone (:func:`companion.teach.read_by_the_others`); each descriptor needs one
        sample not hidden.

        A distance is the mean absolute difference between the die and a sample, both brought to one
        contrast (:func:`_at_contrast`), at the best of the die's four quarter turns and the sample's
        shifts of up to PAD pixels (:func:`_compared_in_full`). Where a face has more than ``keep`` samples
        (slanted ones, alike dice), the samples are first ranked at half size (:func:`_ranked_at_half_size`)
        and only each face's ``keep`` nearest are compared in full: a 179-sample set then costs about what
        36 samples cost in full, and reads the same faces (tests/test_dice.py, bench/dice_bench.py).
        """
        if not self.samples:
            raise ValueError("no faces are taught")
        prepared = self._prepared()
        faces, names, looks = prepared.faces, prepared.names, prepared.looks
        ranked = looks.shape[1] > keep
        found = []
        for start in range(0, len(descriptors), BATCH):
            views = np.stack([_views(_at_contrast(d)) for d in descriptors[start:start + BATCH]])  # D x 4 x F
            left_out = None if hidden is None else np.asarray(hidden[start:start + BATCH], bool)
            distances = _ranked_at_half_size(prepared, views, keep, left_out) if ranked \
                else _compared_in_full(prepared, views)
            if left_out is not None:
                distances[left_out] = np.inf
            # Each face's VOTERS nearest samples on average (fewer where it has fewer): D x faces
            near = np.sort(np.pad(distances, ((0, 0), (0, 1)), constant_values=np.inf)[:, looks], axis=2)[:, :, :VOTERS]
            counted = np.isfinite(near)
            votes = np.where(counted, near, 0.0).sum(axis=2) / np.maximum(counted.sum(axis=2), 1)
            votes[~counted.any(axis=2)] = np.inf  # a face whose every sample is hidden has no vote
            for row, winner in zip(distances, names[np.argmin(votes, axis=1)]):
                best = int(np.argmin(row))
                others = row[faces != faces[best]]
                die, face, _ = self.samples[best]
                found.append((die, face, float(row[best]), float(others.min()) if others.size else float("inf"),
                              winner != face))
        return found

    def _prepared(self) -> _Prepared:
        """What matching needs of the samples (:class:`_Prepared`), kept until a sample is added."""
        key = (id(self.samples), len(self.samples))
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, _Prepared.of(np.stack([_at_contrast(s[2]) for s in self.samples]),
                                             np.array([face for _, face, _ in self.samples])))
        return self._cache[1]


@dataclass(frozen=True)
class _Prepared:
    """The samples as matching compares them: ``windows``, every sample at every shift of up to PAD pixels,
    flattened (N x S x F), with their squared lengths (N x S); ``half``, the same at half size with shifts of up
    to PAD // 2 pixels (N x S' x F / 4), with theirs; each sample's face (N); and the faces taught with their
    samples' indices (:func:`_looks_by_face`)."""

    windows: np.ndarray
    windows_sq: np.ndarray
    half: np.ndarray
    half_sq: np.ndarray
    faces: np.ndarray
    names: np.ndarray
    looks: np.ndarray

    @classmethod
    def of(cls, samples: np.ndarray, faces: np.ndarray) -> _Prepared:
        windows = _shifted(samples, DESCRIPTOR, PAD)
        half = _shifted(_halved(samples), DESCRIPTOR // 2, PAD // 2)
        return cls(windows, (windows * windows).sum(axis=2), half, (half * half).sum(axis=2), faces,
                   *_looks_by_face(faces))


def _shifted(samples: np.ndarray, side: int, pad: int) -> np.ndarray:
    """Each N x (side + 2 pad)^2 x 3 sample's side x side windows at every shift, flattened: N x (2 pad + 1)^2 x F."""
    return np.stack([samples[:, dy:dy + side, dx:dx + side].reshape(len(samples), -1)
                     for dy in range(2 * pad + 1) for dx in range(2 * pad + 1)], axis=1)


def _halved(pictures: np.ndarray) -> np.ndarray:
    """Pictures (... x H x W x 3, H and W even) at half size, each pixel the mean of four."""
    *rest, h, w, c = pictures.shape
    return pictures.reshape(*rest, h // 2, 2, w // 2, 2, c).mean(axis=(-4, -2))


def _squared(windows: np.ndarray, windows_sq: np.ndarray, views: np.ndarray) -> np.ndarray:
    """Squared distance less the view's own squared length (the same for every window), of each of the D
    descriptors' 4 views (D x 4 x F) to each of N samples' S windows: D x N x (S * 4), shift-major. One matrix
    product for all of them."""
    n, shifts, size = windows.shape
    d = len(views)
    squared = windows_sq.reshape(-1, 1) - 2.0 * (windows.reshape(n * shifts, size) @ views.reshape(-1, size).T)
    return squared.reshape(n, shifts, d, 4).transpose(2, 0, 1, 3).reshape(d, n, shifts * 4)


def _compared_in_full(prepared: _Prepared, views: np.ndarray) -> np.ndarray:
    """Each descriptor's distance to every sample (D x N): the 100 turns and shifts of each sample ranked by
    squared distance, then the mean absolute difference computed for the CHECKED nearest only."""
    windows = prepared.windows
    n, shifts, size = windows.shape
    flat = windows.reshape(n * shifts, size)
    views = views.reshape(len(views), 4, size)
    nearest = np.argpartition(_squared(windows, prepared.windows_sq, views), CHECKED, axis=2)[:, :, :CHECKED]
    rows = np.arange(n)[:, None] * shifts + nearest // 4  # each one's window, a row of flat
    distances = np.empty((len(views), n), np.float32)
    for j in range(len(views)):
        distances[j] = _least_difference(flat, rows[j], views[j][nearest[j] % 4])
    return distances


def _ranked_at_half_size(prepared: _Prepared, views: np.ndarray, keep: int,
                         left_out: np.ndarray | None = None) -> np.ndarray:
    """Each descriptor's distance to the samples that can decide (D x N, infinite for the others): every
    sample compared at half size in every turn and shift (a sixteenth of the arithmetic in full), each face's
    ``keep`` nearest kept, and those compared in full at their best turn, at the shifts the half-size shift
    stands for (3 x 3 around it). Samples ``left_out`` (D x N) take no place among a face's nearest."""
    windows, looks = prepared.windows, prepared.looks
    n, shifts, size = windows.shape
    d = len(views)
    half_side, side = 2 * (PAD // 2) + 1, 2 * PAD + 1
    squared = _squared(prepared.half, prepared.half_sq, _halved(views).reshape(d, 4, -1))  # D x N x (S' * 4)
    best = squared.argmin(axis=2)  # D x N: each sample's best half-size shift and turn
    at_best = np.take_along_axis(squared, best[:, :, None], 2)[:, :, 0]
    if left_out is not None:
        at_best = np.where(left_out, np.inf, at_best)
    nearest = np.pad(at_best, ((0, 0), (0, 1)), constant_values=np.inf)[:, looks]  # D x faces x samples of a face
    chosen = np.take_along_axis(np.broadcast_to(looks, nearest.shape), np.argsort(nearest, axis=2)[:, :, :keep], 2)
    flat = windows.reshape(n * shifts, size)
    views = views.reshape(d, 4, size)
    around = np.arange(-1, 2)
    distances = np.full((d, n), np.inf, np.float32)
    for j in range(d):
        kept = chosen[j][chosen[j] < n]  # a face with fewer samples is padded with n
        shift, turn = np.divmod(best[j, kept], 4)
        dy, dx = np.divmod(shift, half_side)
        ys = np.clip(2 * dy[:, None] + around, 0, side - 1)  # kept x 3
        xs = np.clip(2 * dx[:, None] + around, 0, side - 1)
        rows = kept[:, None] * shifts + (ys[:, :, None] * side + xs[:, None, :]).reshape(len(kept), -1)  # kept x 9
        distances[j, kept] = _least_difference(flat, rows, views[j][turn][:, None, :])
    return distances


def _least_difference(flat: np.ndarray, rows: np.ndarray, views: np.ndarray) -> np.ndarray:
    """For each of K samples, the least mean absolute difference between its windows ``rows`` (K x M rows of
    ``flat``) and the view of the die each is compared with (K x M x F, or K x 1 x F for one view): K.
    One descriptor at a time, in place: the whole batch's copies of the windows (several MB, made afresh for
    every tray) cost twice the arithmetic on a 36-sample set."""
    difference = flat[rows]
    difference -= views
    return np.abs(difference, out=difference).mean(axis=2).min(axis=1)


def at_a_slant(image: np.ndarray, side: int, by: float = SLANT) -> np.ndarray:
    """``image`` as if seen at a slant: its side ``side`` (0 top, 1 bottom, 2 left, 3 right) shortened by ``by``
    of its length, about its middle, the opposite side kept: a picture tilted away from the camera."""
    h, w = image.shape[:2]
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])  # top left, top right, bottom right, bottom left
    first, last, axis, length = ((0, 1, 0, w), (3, 2, 0, w), (0, 3, 1, h), (1, 2, 1, h))[side]
    moved = corners.copy()
    moved[first, axis] += by * length / 2
    moved[last, axis] -= by * length / 2
    return cv2.warpPerspective(image, cv2.getPerspectiveTransform(corners, moved), (w, h),
                               borderMode=cv2.BORDER_REPLICATE)


def margin_confidence(nearest: float, other: float) -> float:
    """How sure a face is, 0 to 1, from the distance to its nearest sample and to the nearest sample of another face:
    twice the margin between them, as a share of the other."""
    return float(np.clip(2.0 * (other - nearest) / max(other, 1e-6), 0.0, 1.0))


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
    """Reads dice whose faces were taught (:class:`FaceTemplates`), found by the same finder as pip dice.
    ``larger`` False: no farther look for dice too large for the finder's first look (:func:`scan_marks`).
    ``by_shape`` False: a face unclear for a narrow margin stays unclear, whatever its shape (SHAPE_SURE; the
    bench's side-by-side figures)."""

    kind = "taught"

    def __init__(self, templates: FaceTemplates, die_px: float | None = None, min_confidence: float = UNCLEAR,
                 larger: bool = True, by_shape: bool = True):
        self.templates = templates
        self.larger = larger
        self.die_px = die_px
        self.min_confidence = min_confidence
        self.by_shape = by_shape
        self._shapes_for: tuple = (None,)  # (the samples it was made for, the taught shapes, their faces)

    def read(self, image: np.ndarray, zone: np.ndarray | None = None) -> DiceReading:
        taught_side = self.templates.taught_side((image.shape[1], image.shape[0]))
        # Taught faces are recognised by their samples, which also say when a mark is no taught face: a die the
        # reader network is unsure of is kept for them to judge (net.kind_of_mark), as one at a tray's edge of the
        # camera's view is (bench/tray_place_bench.py).
        return scan_marks(image, zone, self.die_px, self._read_faces, taught_side=taught_side, dice_together=True,
                          larger=self.larger)

    def _read_faces(self, image: np.ndarray, spots: list[Spot], _probabilities: np.ndarray):
        # Each die's squares (one, or two where its outline is faint), all matched in one step.
        squares = [(i, die_patch(image, square)) for i, spot in enumerate(spots)
                   for square in die_squares(image, spot.center, spot.side)]
        matches = self.templates.match([describe(patch) for _, patch in squares])
        nearest: dict[int, tuple[str, str, float, float, bool]] = {}
        for (i, _), match in zip(squares, matches):
            if i not in nearest or match[2] < nearest[i][2]:
                nearest[i] = match
        verdicts = [self._verdict(*nearest[i]) for i in range(len(spots))]
        for i, (face, confidence, reason, die, guess) in enumerate(verdicts):
            sure = None if guess is None else self._shape_agrees([patch for j, patch in squares if j == i], guess)
            if sure is not None:  # as sure as the shape is: what read it (a referee asks about dice less sure)
                verdicts[i] = guess, max(confidence, sure), "", die, None
        return verdicts

    def _verdict(self, die: str, face: str, nearest: float, other: float, outvoted: bool):
        if nearest > MAX_DISTANCE:
            return None, 0.0, "not a taught face", None, None
        if outvoted:  # the nearest look and the face's looks on average disagree: no face to propose
            return None, 0.0, "face unclear", die, None
        confidence = margin_confidence(nearest, other)
        if confidence < self.min_confidence:
            return None, confidence, "face unclear", die, face
        return face, confidence, "", die, None

    def _shape_agrees(self, patches: list[np.ndarray], guess: str) -> float | None:
        """How sure the shape of the die (``patches``: its squares) is of the face it looks most like, ``guess``, where
        it is nearest the taught shapes of that face at least SHAPE_SURE sure (:mod:`vision.dice.shapes`); None where
        it is not."""
        if not self.by_shape:
            return None
        shapes, faces = self._shapes()
        if shapes is None:  # a face taught with no shape kept: its shape could not compete
            return None
        by_face = nearest_by_face([shape_views(patch) for patch in patches], shapes, faces)
        if len(by_face) < 2 or min(by_face, key=by_face.get) != guess:
            return None
        sure = margin_confidence(by_face[guess], min(d for f, d in by_face.items() if f != guess))
        return sure if sure >= SHAPE_SURE else None

    def _shapes(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The taught shapes (N x F) and their faces (N), kept until a sample is added; (None, None) where a face
        taught has no shape kept."""
        key = (id(self.templates.samples), len(self.templates.samples))
        if self._shapes_for[0] != key:
            kept = [(face, shape) for (_, face, _), shape in zip(self.templates.samples, self.templates.shape_list())
                    if shape is not None]
            if not kept or {face for face, _ in kept} != self.templates.faces:
                self._shapes_for = (key, None, None)
            else:
                self._shapes_for = (key, np.stack([shape for _, shape in kept]), np.array([face for face, _ in kept]))
        return self._shapes_for[1], self._shapes_for[2]
