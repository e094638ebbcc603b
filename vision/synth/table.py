"""Synthetic Fabled Fruit tables: tagged location cards in stacks, seen by a camera from above.

A :class:`Scene` says what lies on the table in table millimetres (origin at the
centre of the ``TB:NW`` corner tag, x to ``TB:NE``, y to ``TB:SW``); a
:class:`View` says how the camera sees it (pixels per millimetre, tilt, blur,
noise, light). :func:`render` draws the full-resolution frame and returns the
ground truth next to it: every tag's payload, corners and module size in the
frame, how much of it is covered, and the stacks with their top copies.

Cards are drawn one by one into their own bounding box only (never a warp of
the whole frame per card), so a 4608 x 2592 frame of 24 cards renders in well
under a second. Tags come from :mod:`vision.tags`, the same code that prints the
stickers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision import tags
from vision.synth import effects

CARD_MM = tags.CARD_MM  # width, height of a location card
STICKER_INSET_MM = tags.STICKER_INSET_MM  # a sticker sits this far from the card's edges, in its corner
QUIET_MODULES = tags.QUIET_MODULES  # white around the code on the printed sticker
ANIMAL_MM = 22.0  # the footprint of a Fabled Fruit animal figure
TABLE_GREY = (96, 120, 140)  # a wooden table, BGR


@dataclass(frozen=True)
class Stack:
    """Cards on one spot, bottom first; the last one is the top copy the camera sees."""

    center_mm: tuple[float, float]
    angle_deg: float
    cards: tuple[tuple[int, int], ...]  # (location, copy)

    @property
    def top(self) -> tuple[int, int]:
        return self.cards[-1]


@dataclass(frozen=True)
class Sticker:
    """A tag that is not on a card: a foreign QR code, a duplicate, a torn sticker."""

    text: str
    center_mm: tuple[float, float]
    size_mm: float
    angle_deg: float = 0.0
    torn: float = 0.0  # share of the symbol's width wiped from its right side


@dataclass(frozen=True)
class Occluder:
    """Something between the camera and the table: a ``hand``, an ``animal`` figure, or a ``coin`` or
    ``die`` lying on a tag's corner."""

    kind: str
    center_mm: tuple[float, float]
    size_mm: float
    angle_deg: float = 0.0
    colour: tuple[int, int, int] = (120, 160, 215)


@dataclass(frozen=True)
class Scene:
    stacks: tuple[Stack, ...]
    table_mm: tuple[float, float] = (800.0, 450.0)
    tag_mm: float = 25.0  # printed symbol size without quiet zone
    corner_tag_mm: float = 40.0
    corners: tuple[str, ...] = tags.CORNERS  # which corner tags are on the table
    stickers: tuple[Sticker, ...] = ()
    occluders: tuple[Occluder, ...] = ()
    seed: int = 0  # card artwork and stack jitter
    second_sticker: bool = False  # each card also carries FF:..:B in its bottom-right corner, turned half round


@dataclass(frozen=True)
class View:
    """The camera: frame size, scale at the table centre, and what it does to the picture."""

    size: tuple[int, int] = (4608, 2592)
    px_per_mm: float = 4.6
    roll_deg: float = 0.0  # the table turned in the picture
    tilt_deg: float = 0.0
    tilt_direction_deg: float = 0.0
    blur_sigma: float = 0.0
    noise_sigma: float = 0.0
    light_darkest: float = 1.0
    light_direction_deg: float = 0.0
    offset_px: tuple[float, float] = (0.0, 0.0)


@dataclass
class TagTruth:
    payload: str
    corners_px: np.ndarray  # symbol corners (no quiet zone), full-frame pixels
    center_mm: tuple[float, float]
    covered: float  # 0 = fully visible, 1 = hidden
    card: tuple[int, int] | None = None  # (location, copy) of the card it is stuck on
    finders: tuple[float, float, float] = (0.0, 0.0, 0.0)  # share hidden of each finder pattern (TL, TR, BL)

    @property
    def legible(self) -> bool:
        """Readable in principle: two finder patterns untouched and at most a third of the code hidden
        (level H corrects about 30%; the set of valid payloads is small)."""
        return sorted(self.finders)[1] == 0.0 and self.covered <= 1 / 3

    @property
    def center_px(self) -> tuple[float, float]:
        x, y = self.corners_px.mean(axis=0)
        return float(x), float(y)

    @property
    def module_px(self) -> float:
        """Module size in full-frame pixels (mean side / 21)."""
        c = self.corners_px
        return float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1))) / tags.MODULES


@dataclass
class Truth:
    tags: list[TagTruth]  # every tag not fully hidden, top cards and stickers
    stacks: list[Stack]
    table_to_px: np.ndarray  # homography from table mm to full-frame pixels
    size: tuple[int, int]

    def visible(self, max_covered: float = 0.0) -> list[TagTruth]:
        return [t for t in self.tags if t.covered <= max_covered]

    def cards(self) -> dict[tuple[int, int], list[TagTruth]]:
        """Each card with a sticker in view (not wholly hidden), and those stickers."""
        found: dict[tuple[int, int], list[TagTruth]] = {}
        for t in self.tags:
            if t.card is not None:
                found.setdefault(t.card, []).append(t)
        return found


def table_homography(scene: Scene, view: View) -> np.ndarray:
    """Table millimetres -> full-frame pixels for this camera."""
    w, h = view.size
    tw, th = scene.table_mm
    s = view.px_per_mm
    r = math.radians(view.roll_deg)
    scale_rotate = np.array([[s * math.cos(r), -s * math.sin(r), 0], [s * math.sin(r), s * math.cos(r), 0], [0, 0, 1]])
    to_origin = np.array([[1, 0, -tw / 2], [0, 1, -th / 2], [0, 0, 1]], np.float64)
    to_centre = np.array([[1, 0, w / 2 + view.offset_px[0]], [0, 1, h / 2 + view.offset_px[1]], [0, 0, 1]])
    flat = to_centre @ scale_rotate @ to_origin
    if view.tilt_deg:
        flat = effects.tilt_homography(view.size, view.tilt_deg, view.tilt_direction_deg) @ flat
    return flat


def render(scene: Scene, view: View = View(), rng: np.random.Generator | None = None
           ) -> tuple[np.ndarray, Truth]:
    """The full-resolution BGR frame and its ground truth."""
    rng = rng if rng is not None else np.random.default_rng(scene.seed)
    w, h = view.size
    frame = _background(view.size, scene.seed)
    homography = table_homography(scene, view)
    art_rng = np.random.default_rng(scene.seed)
    jitter_rng = np.random.default_rng(scene.seed + 1)

    drawn: list[np.ndarray] = []  # quads (full px) of everything drawn so far, for coverage
    owners: list[tuple[TagTruth, int]] = []  # tag, index in ``drawn`` of the thing it sits on

    for corner in scene.corners:
        centre = _corner_centre(corner, scene.table_mm)
        payload = tags.format_corner(corner)
        quad = _draw_sticker(frame, homography, payload, centre, 0.0, scene.corner_tag_mm, 0.0, view)
        drawn.append(_sticker_outline(homography, centre, 0.0, scene.corner_tag_mm))
        owners.append((TagTruth(payload, quad, centre, 0.0), len(drawn) - 1))

    for stack in scene.stacks:
        for index, (location, copy) in enumerate(stack.cards):
            top = index == len(stack.cards) - 1
            dx, dy, da = (0.0, 0.0, 0.0) if top else (*jitter_rng.normal(0, 1.0, 2), jitter_rng.normal(0, 1.5))
            centre = (stack.center_mm[0] + dx, stack.center_mm[1] + dy)
            angle = stack.angle_deg + da
            card = _card_patch(location, copy, scene.tag_mm, art_rng, second=scene.second_sticker)
            outline, quads = _draw_card(frame, homography, card, centre, angle, scene.tag_mm, view,
                                        second=scene.second_sticker)
            drawn.append(outline)
            for second, quad in zip((False, True), quads):
                owners.append((TagTruth(tags.format_location(location, copy, second=second), quad,
                                        _card_tag_centre(centre, angle + 180 * second, scene.tag_mm), 0.0,
                                        (location, copy)), len(drawn) - 1))

    for sticker in scene.stickers:
        quad = _draw_sticker(frame, homography, sticker.text, sticker.center_mm, sticker.angle_deg,
                             sticker.size_mm, sticker.torn, view)
        drawn.append(_sticker_outline(homography, sticker.center_mm, sticker.angle_deg, sticker.size_mm))
        owners.append((TagTruth(sticker.text, quad, sticker.center_mm, 0.0), len(drawn) - 1))

    cover = np.zeros((h, w), np.uint8)
    for occluder in scene.occluders:
        draw_occluder(frame, homography, occluder, cover)

    truths = []
    for truth, index in owners:
        truth.covered = _covered(truth.corners_px, drawn[index + 1:], cover)
        if 0.0 < truth.covered < 1.0:
            truth.finders = tuple(_covered(quad, drawn[index + 1:], cover) for quad in _finders(truth.corners_px))
        if truth.covered < 1.0:
            truths.append(truth)

    frame = _uneven_light(frame, view.light_darkest, view.light_direction_deg)
    frame = effects.blur(frame, view.blur_sigma)
    frame = _fast_noise(frame, view.noise_sigma, rng)
    return frame, Truth(truths, list(scene.stacks), homography, view.size)


NOISE_BAND_ROWS = 128


def _fast_noise(image: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Gaussian sensor noise like ``effects.noise``, drawn in float32 (a full frame has 36 M samples) a band
    of rows at a time: the demo camera renders on the companion itself, and two float copies of a whole
    frame would add 70 MB to its peak memory. The bands draw the same numbers as one call would."""
    if sigma <= 0:
        return image
    noisy = np.empty_like(image)
    for top in range(0, image.shape[0], NOISE_BAND_ROWS):
        band = image[top:top + NOISE_BAND_ROWS].astype(np.float32)
        band += rng.standard_normal(band.shape, dtype=np.float32) * np.float32(sigma)
        noisy[top:top + NOISE_BAND_ROWS] = np.clip(band, 0, 255, out=band)
    return noisy


# --- layouts -----------------------------------------------------------------------------------

def random_scene(rng: np.random.Generator, n_stacks: int = 24, table_mm: tuple[float, float] = (800.0, 450.0),
                 tag_mm: float = 25.0, max_depth: int = 4, occluders: int = 0, partly_covering: int = 0,
                 seed: int | None = None, animals: int = 0, nicked: int = 0, second_sticker: bool = False) -> Scene:
    """``n_stacks`` stacks of distinct random locations, any rotation, not overlapping each other.

    ``occluders`` hands or animals are put anywhere; ``partly_covering`` small
    animals are put over part of a card's tag (never its centre); ``animals``
    figures stand on the top cards of random stacks, anywhere on the card, as
    players put them; ``nicked`` tags get a coin or a die over one of their
    finder patterns. ``second_sticker``: every card carries both stickers.
    """
    locations = rng.choice(np.arange(1, 60), size=n_stacks, replace=False)
    placed: list[tuple[tuple[float, float], float]] = []
    stacks = []
    for location in locations:
        location = int(location)
        centre, angle = _free_spot(rng, placed, table_mm)
        placed.append((centre, angle))
        copies = 8 if location == 59 else 4
        depth = int(rng.integers(1, max_depth + 1))
        order = rng.permutation(np.arange(1, copies + 1))[:depth]
        stacks.append(Stack(centre, angle, tuple((location, int(c)) for c in order)))
    covers = []
    for _ in range(occluders):
        kind = "hand" if rng.random() < 0.6 else "animal"
        centre = (float(rng.uniform(0, table_mm[0])), float(rng.uniform(0, table_mm[1])))
        size = float(rng.uniform(90, 140)) if kind == "hand" else float(rng.uniform(20, 35))
        covers.append(Occluder(kind, centre, size, float(rng.uniform(0, 360)), _random_colour(rng, kind)))
    for index in rng.choice(len(stacks), size=min(partly_covering, len(stacks)), replace=False):
        stack = stacks[int(index)]
        tag_centre = _card_tag_centre(stack.center_mm, stack.angle_deg, tag_mm)
        # An animal's edge over the code: its centre beside the code, so it hides a slice of it.
        direction = rng.uniform(0, 2 * math.pi)
        size = tag_mm * 0.8
        reach = tag_mm * 0.5 + size * 0.3
        centre = (tag_centre[0] + reach * math.cos(direction), tag_centre[1] + reach * math.sin(direction))
        covers.append(Occluder("animal", centre, size, float(rng.uniform(0, 360)), _random_colour(rng, "animal")))
    for index in rng.choice(len(stacks), size=min(animals, len(stacks)), replace=False):
        covers.append(animal_on(stacks[int(index)], rng))
    for index in rng.choice(len(stacks), size=min(nicked, len(stacks)), replace=False):
        stack = stacks[int(index)]
        second = second_sticker and rng.random() < 0.5
        covers.append(nick(_card_tag_centre(stack.center_mm, stack.angle_deg + 180 * second, tag_mm),
                           stack.angle_deg + 180 * second, tag_mm, rng))
    return Scene(tuple(stacks), table_mm, tag_mm, occluders=tuple(covers),
                 seed=int(rng.integers(0, 2**31)) if seed is None else seed, second_sticker=second_sticker)


def animal_on(stack: Stack, rng: np.random.Generator, size_mm: float = ANIMAL_MM) -> Occluder:
    """An animal figure standing on ``stack``'s top card, anywhere on it (the figure stays on the card)."""
    margin = size_mm / 2
    x = float(rng.uniform(-CARD_MM[0] / 2 + margin, CARD_MM[0] / 2 - margin))
    y = float(rng.uniform(-CARD_MM[1] / 2 + margin, CARD_MM[1] / 2 - margin))
    a = math.radians(stack.angle_deg)
    centre = (stack.center_mm[0] + x * math.cos(a) - y * math.sin(a), stack.center_mm[1] + x * math.sin(a) + y * math.cos(a))
    return Occluder("animal", centre, size_mm, float(rng.uniform(0, 360)), _random_colour(rng, "animal"))


def nick(tag_centre: tuple[float, float], tag_angle_deg: float, tag_mm: float, rng: np.random.Generator) -> Occluder:
    """A coin or a die lying over one of a tag's three finder patterns (covering part of it or all)."""
    corner = [(-1, -1), (1, -1), (-1, 1)][int(rng.integers(3))]  # the finders: top left, top right, bottom left
    finder = tag_mm * 7 / tags.MODULES
    reach = tag_mm / 2 - finder / 2 + float(rng.uniform(-0.15, 0.45)) * finder  # from the code's centre, outwards
    a = math.radians(tag_angle_deg)
    x, y = corner[0] * reach, corner[1] * reach
    centre = (tag_centre[0] + x * math.cos(a) - y * math.sin(a), tag_centre[1] + x * math.sin(a) + y * math.cos(a))
    if rng.random() < 0.5:
        return Occluder("coin", centre, float(rng.uniform(16, 24)), 0.0, (60, 150, 190))
    return Occluder("die", centre, float(rng.uniform(12, 16)), float(rng.uniform(0, 90)), (235, 235, 235))


def _free_spot(rng, placed, table_mm, tries: int = 400):
    """A card position inside the table, clear of the corner tags and of the cards already placed."""
    tw, th = table_mm
    half_diag = math.hypot(*CARD_MM) / 2
    best = None
    for _ in range(tries):
        angle = float(rng.uniform(0, 360))
        box = _rotated_extent(angle)
        x = float(rng.uniform(box[0] + 2, tw - box[0] - 2))
        y = float(rng.uniform(box[1] + 2, th - box[1] - 2))
        near_corner = any(math.hypot(x - cx, y - cy) < half_diag + 30
                          for cx, cy in (_corner_centre(c, table_mm) for c in tags.CORNERS))
        if near_corner:
            continue
        rect = ((x, y), (CARD_MM[0] + 6, CARD_MM[1] + 6), angle)
        if all(cv2.rotatedRectangleIntersection(rect, ((px, py), (CARD_MM[0] + 6, CARD_MM[1] + 6), pa))[0]
               == cv2.INTERSECT_NONE for (px, py), pa in placed):
            return (x, y), angle
        best = ((x, y), angle)
    if best is None:
        raise ValueError(f"a {tw:.0f} x {th:.0f} mm table has no room for another card")
    return best


def _rotated_extent(angle_deg: float) -> tuple[float, float]:
    a = math.radians(angle_deg)
    w, h = CARD_MM
    return (abs(w * math.cos(a)) + abs(h * math.sin(a))) / 2, (abs(w * math.sin(a)) + abs(h * math.cos(a))) / 2


def _random_colour(rng, kind: str) -> tuple[int, int, int]:
    if kind == "hand":  # skin tones, BGR
        tones = [(120, 160, 215), (95, 135, 190), (60, 90, 140), (45, 65, 100), (150, 180, 230)]
        return tones[int(rng.integers(len(tones)))]
    animals = [(40, 40, 200), (200, 60, 30), (40, 170, 60), (20, 200, 230), (160, 40, 160), (240, 240, 240),
               (20, 20, 20)]
    return animals[int(rng.integers(len(animals)))]


# --- drawing -------------------------------------------------------------------------------------

def _corner_centre(corner: str, table_mm) -> tuple[float, float]:
    tw, th = table_mm
    return {"NW": (0.0, 0.0), "NE": (tw, 0.0), "SE": (tw, th), "SW": (0.0, th)}[corner]


def _background(size, seed: int) -> np.ndarray:
    """A wooden table: a base colour with broad, soft grain (low contrast, so no false codes)."""
    w, h = size
    rng = np.random.default_rng(seed + 7)
    # The grain is smooth, so it is made at a quarter of the size and scaled up (36 M values are slow).
    sw, sh = max(2, w // 4), max(2, h // 4)
    small = rng.normal(0, 1, (max(2, h // 64), max(2, w // 16))).astype(np.float32)
    grain = cv2.resize(cv2.GaussianBlur(small, (0, 0), 1.5), (sw, sh), interpolation=cv2.INTER_LINEAR)
    base = np.empty((sh, sw, 3), np.float32)
    base[:] = TABLE_GREY
    base += grain[..., None] * 8.0
    return cv2.resize(np.clip(base, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)


def _uneven_light(image: np.ndarray, darkest: float, direction_deg: float) -> np.ndarray:
    """``effects.uneven_light`` computed on a small gain map: a linear ramp scales up exactly."""
    if darkest >= 1.0:
        return image
    h, w = image.shape[:2]
    small = effects.uneven_light(np.full((max(2, h // 16), max(2, w // 16)), 255, np.uint8), darkest,
                                 direction_deg)
    gain = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if image.ndim == 3:
        gain = cv2.merge([gain] * image.shape[2])
    return cv2.multiply(image, gain, scale=1 / 255.0)


def _symbol(text: str, side_px: int, torn: float = 0.0) -> np.ndarray:
    """The code's modules at ``side_px`` square, anti-aliased as a lens would (area average)."""
    if tags.parse(text) is not None:
        modules = tags.module_matrix(text)
    else:
        import segno

        modules = np.array(segno.make_qr(text, error="m").matrix, dtype=bool)
    if torn > 0:
        cut = int(round(modules.shape[1] * (1 - torn)))
        modules = modules.copy()
        modules[:, cut:] = False
    fine = np.kron(np.where(modules, 0, 255).astype(np.uint8), np.ones((16, 16), np.uint8))
    return cv2.resize(fine, (side_px, side_px), interpolation=cv2.INTER_AREA)


def _card_tag_offset(tag_mm: float) -> tuple[float, float]:
    """The tag's symbol centre relative to the card centre (sticker in the top-left corner)."""
    quiet = tag_mm / tags.MODULES * QUIET_MODULES
    x = -CARD_MM[0] / 2 + STICKER_INSET_MM + quiet + tag_mm / 2
    y = -CARD_MM[1] / 2 + STICKER_INSET_MM + quiet + tag_mm / 2
    return x, y


def card_tag_centre(centre, angle_deg, tag_mm) -> tuple[float, float]:
    """Where a card's (first) sticker's code centre lies, for a card at ``centre`` turned ``angle_deg``
    (the second sticker: the same with the angle turned half round)."""
    return _card_tag_centre(centre, angle_deg, tag_mm)


def _card_tag_centre(centre, angle_deg, tag_mm) -> tuple[float, float]:
    ox, oy = _card_tag_offset(tag_mm)
    a = math.radians(angle_deg)
    return (centre[0] + ox * math.cos(a) - oy * math.sin(a), centre[1] + ox * math.sin(a) + oy * math.cos(a))


@dataclass
class _CardPatch:
    image: np.ndarray  # BGR at PATCH_PX_PER_MM
    px_per_mm: float


PATCH_PX_PER_MM = 8.0


def _card_patch(location: int, copy: int, tag_mm: float, rng: np.random.Generator, *, second: bool = False
                ) -> _CardPatch:
    """A location card: coloured artwork, its number, and the white sticker with the tag (and the second
    sticker in the opposite corner, turned half round)."""
    s = PATCH_PX_PER_MM
    w, h = int(round(CARD_MM[0] * s)), int(round(CARD_MM[1] * s))
    hue = int(rng.integers(0, 180))
    base = cv2.cvtColor(np.uint8([[[hue, 90, 200]]]), cv2.COLOR_HSV2BGR)[0, 0]
    card = np.empty((h, w, 3), np.uint8)
    card[:] = base
    for _ in range(int(rng.integers(3, 7))):  # fruit and scenery
        colour = cv2.cvtColor(np.uint8([[[int(rng.integers(0, 180)), 200, int(rng.integers(90, 230))]]]),
                              cv2.COLOR_HSV2BGR)[0, 0]
        centre = (int(rng.uniform(0.2, 0.9) * w), int(rng.uniform(0.45, 0.9) * h))
        axes = (int(rng.uniform(0.06, 0.2) * w), int(rng.uniform(0.05, 0.15) * h))
        cv2.ellipse(card, centre, axes, float(rng.uniform(0, 180)), 0, 360, tuple(int(c) for c in colour), -1,
                    cv2.LINE_AA)
    cv2.rectangle(card, (0, 0), (w - 1, h - 1), (40, 40, 40), max(1, int(s * 0.6)))
    cv2.putText(card, f"{location}", (int(w * 0.66), int(h * 0.16)), cv2.FONT_HERSHEY_DUPLEX, s * 0.12,
                (30, 30, 30), max(1, int(s * 0.3)), cv2.LINE_AA)
    # The sticker: white square with quiet zone, code, and the copy label below.
    module = tag_mm / tags.MODULES
    quiet = module * QUIET_MODULES
    left = top = STICKER_INSET_MM
    side = tag_mm + 2 * quiet
    if left + side > CARD_MM[0]:
        raise ValueError(f"a {tag_mm:.0f} mm tag does not fit on a {CARD_MM[0]:.0f} mm wide card")
    if second and not tags.pair_fits(tag_mm):
        raise ValueError(f"two {tag_mm:g} mm tags do not fit on a {CARD_MM[0]:.0f} x {CARD_MM[1]:.0f} mm card")
    label = tags.sticker_mm(tag_mm)[2]
    x0, y0 = int(round(left * s)), int(round(top * s))
    x1, y1 = int(round((left + side) * s)), int(round((top + side + label) * s))
    cv2.rectangle(card, (x0, y0), (x1, y1), (245, 245, 245), -1)
    sx, sy = int(round((left + quiet) * s)), int(round((top + quiet) * s))
    side_px = int(round(tag_mm * s))
    code = _symbol(tags.format_location(location, copy), side_px)
    card[sy:sy + side_px, sx:sx + side_px] = np.minimum(code, 245)[..., None]
    if second:
        turned = np.ascontiguousarray(card[::-1, ::-1])
        cv2.rectangle(turned, (x0, y0), (x1, y1), (245, 245, 245), -1)
        code = _symbol(tags.format_location(location, copy, second=True), side_px)
        turned[sy:sy + side_px, sx:sx + side_px] = np.minimum(code, 245)[..., None]
        card = np.ascontiguousarray(turned[::-1, ::-1])
    return _CardPatch(card, s)


def _draw_card(frame, homography, card: _CardPatch, centre, angle_deg, tag_mm, view, *, second: bool = False):
    """Warp a card into the frame; returns its outline and its stickers' symbol corners (full px)."""
    s = card.px_per_mm
    h, w = card.image.shape[:2]
    a = math.radians(angle_deg)
    # patch px -> card mm (centred) -> table mm -> frame px
    patch_to_card = np.array([[1 / s, 0, -w / (2 * s)], [0, 1 / s, -h / (2 * s)], [0, 0, 1]])
    place = np.array([[math.cos(a), -math.sin(a), centre[0]], [math.sin(a), math.cos(a), centre[1]], [0, 0, 1]])
    card_to_frame = homography @ place @ patch_to_card
    _blit(frame, card.image, card_to_frame)
    outline = effects.map_points(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64), card_to_frame)
    ox, oy = _card_tag_offset(tag_mm)
    half = tag_mm / 2
    symbol_mm = np.array([[ox - half, oy - half], [ox + half, oy - half], [ox + half, oy + half], [ox - half, oy + half]])
    quads = [effects.map_points(symbol_mm, homography @ place)]
    if second:  # the same corners turned half round the card's centre, in the code's own order
        quads.append(effects.map_points(-symbol_mm, homography @ place))
    return outline, quads


def _sticker_outline(homography, centre, angle_deg, size_mm):
    side = size_mm * (1 + 2 * QUIET_MODULES / tags.MODULES) / 2
    return _square(homography, centre, angle_deg, side)


def _square(homography, centre, angle_deg, half):
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    pts = [(-half, -half), (half, -half), (half, half), (-half, half)]
    return effects.map_points(np.array([(centre[0] + x * c - y * s, centre[1] + x * s + y * c) for x, y in pts]),
                              homography)


def _draw_sticker(frame, homography, text, centre, angle_deg, size_mm, torn, view):
    """A square white sticker with a code on it; returns the symbol's corners (full px)."""
    s = PATCH_PX_PER_MM
    symbol = _symbol(text, int(round(size_mm * s)), torn)
    n = symbol.shape[0]
    modules = tags.MODULES if tags.parse(text) is not None else None
    quiet = int(round(n / (modules or 25) * QUIET_MODULES))
    patch = np.full((n + 2 * quiet, n + 2 * quiet, 3), 245, np.uint8)
    patch[quiet:quiet + n, quiet:quiet + n] = np.minimum(symbol, 245)[..., None]
    a = math.radians(angle_deg)
    full = patch.shape[0]
    patch_to_mm = np.array([[1 / s, 0, -full / (2 * s)], [0, 1 / s, -full / (2 * s)], [0, 0, 1]])
    place = np.array([[math.cos(a), -math.sin(a), centre[0]], [math.sin(a), math.cos(a), centre[1]], [0, 0, 1]])
    _blit(frame, patch, homography @ place @ patch_to_mm)
    return _square(homography, centre, angle_deg, size_mm / 2)


def _blit(frame: np.ndarray, patch: np.ndarray, patch_to_frame: np.ndarray) -> None:
    """Draw ``patch`` through a homography, touching only its bounding box in the frame."""
    h, w = patch.shape[:2]
    outline = effects.map_points(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64), patch_to_frame)
    x0, y0 = np.floor(outline.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(outline.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    m = shift @ patch_to_frame
    size = (x1 - x0, y1 - y0)
    # Downscaling through a homography aliases; shrink the patch first to about the target scale.
    scale = math.sqrt(abs(np.linalg.det(m[:2, :2]))) if abs(m[2, 0]) + abs(m[2, 1]) < 1e-9 else _local_scale(m, w, h)
    if scale < 0.9:
        factor = scale * 1.05
        small = cv2.resize(patch, (max(1, round(w * factor)), max(1, round(h * factor))), interpolation=cv2.INTER_AREA)
        back = np.array([[w / small.shape[1], 0, 0], [0, h / small.shape[0], 0], [0, 0, 1]])
        patch, m = small, m @ back
        h, w = patch.shape[:2]
    warped = cv2.warpPerspective(patch, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    alpha = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, size, flags=cv2.INTER_LINEAR)
    roi = frame[y0:y1, x0:x1]
    a = alpha.astype(np.float32)[..., None] / 255.0
    roi[:] = (roi.astype(np.float32) * (1 - a) + warped.astype(np.float32) * a).astype(np.uint8)


def _local_scale(m, w, h) -> float:
    centre = np.array([w / 2, h / 2])
    pts = effects.map_points(np.array([centre, centre + [1, 0], centre + [0, 1]]), m)
    return math.sqrt(abs(_cross(pts[1] - pts[0], pts[2] - pts[0])))


def draw_occluder(frame: np.ndarray, homography: np.ndarray, occluder: Occluder,
                  cover: np.ndarray | None = None) -> None:
    """Draw a hand (palm and fingers) or an animal figure over ``frame`` (in place), and into ``cover``
    when given. ``homography`` maps table millimetres to the frame's pixels."""
    centre = effects.map_points(np.array([occluder.center_mm]), homography)[0]
    scale = math.sqrt(abs(np.linalg.det(_jacobian(homography, occluder.center_mm))))
    size = occluder.size_mm * scale
    parts = []
    a = occluder.angle_deg
    if occluder.kind == "hand":
        parts.append((centre, (size * 0.42, size * 0.5), a))
        r = math.radians(a)
        for k, spread in enumerate((-0.33, -0.11, 0.11, 0.33)):
            length = size * (0.42 if k in (1, 2) else 0.36)
            fx = centre[0] + math.cos(r) * spread * size * 1.1 - math.sin(r) * (-size * 0.5 - length * 0.8)
            fy = centre[1] + math.sin(r) * spread * size * 1.1 + math.cos(r) * (-size * 0.5 - length * 0.8)
            parts.append(((fx, fy), (size * 0.08, length), a))
        thumb = (centre[0] + math.cos(r) * size * 0.5, centre[1] + math.sin(r) * size * 0.5)
        parts.append((thumb, (size * 0.28, size * 0.1), a - 30))
    elif occluder.kind == "coin":
        parts.append((centre, (size * 0.5, size * 0.5), a))
    elif occluder.kind == "die":
        half = size / 2
        r = math.radians(a)
        square = np.array([[centre[0] + dx * math.cos(r) - dy * math.sin(r), centre[1] + dx * math.sin(r) + dy * math.cos(r)]
                           for dx, dy in ((-half, -half), (half, -half), (half, half), (-half, half))])
        cv2.fillConvexPoly(frame, np.round(square).astype(np.int32), occluder.colour, lineType=cv2.LINE_AA)
        for dx, dy in ((-0.5, -0.5), (0.5, 0.5), (0, 0)):  # three pips
            cv2.circle(frame, (int(centre[0] + dx * half), int(centre[1] + dy * half)), max(1, int(size * 0.08)),
                       (30, 30, 30), -1, lineType=cv2.LINE_AA)
        if cover is not None:
            cv2.fillConvexPoly(cover, np.round(square).astype(np.int32), 255)
        return
    else:
        parts.append((centre, (size * 0.5, size * 0.38), a))
    for c, radii, angle in parts:
        effects.blob(frame, c, radii, angle, occluder.colour)
        if cover is not None:
            cv2.ellipse(cover, (int(c[0]), int(c[1])), (int(radii[0]), int(radii[1])), angle, 0, 360, 255, -1)


def _jacobian(homography, point_mm) -> np.ndarray:
    p = np.array(point_mm, np.float64)
    pts = effects.map_points(np.array([p, p + [1, 0], p + [0, 1]]), homography)
    return np.stack([pts[1] - pts[0], pts[2] - pts[0]], axis=1)


def _finders(quad: np.ndarray) -> list[np.ndarray]:
    """The three finder patterns (7 x 7 modules at the code's TL, TR and BL corners) as quads."""
    tl, tr, br, bl = np.asarray(quad, np.float64)
    f = 7 / tags.MODULES

    def at(u: float, v: float) -> np.ndarray:  # a point of the code, u across, v down, 0..1
        top, bottom = tl + (tr - tl) * u, bl + (br - bl) * u
        return top + (bottom - top) * v

    return [np.array([at(u, v), at(u + f, v), at(u + f, v + f), at(u, v + f)])
            for u, v in ((0, 0), (1 - f, 0), (0, 1 - f))]


def _covered(quad: np.ndarray, later: list[np.ndarray], cover: np.ndarray) -> float:
    """Share of the symbol hidden by things drawn after it (cards, stickers) or by occluders."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    h, w = cover.shape
    if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
        return 1.0
    size = (y1 - y0, x1 - x0)
    offset = np.array([x0, y0])
    mine = np.zeros(size, np.uint8)
    cv2.fillConvexPoly(mine, np.round(quad - offset).astype(np.int32), 255)
    total = np.count_nonzero(mine)
    if total == 0:
        return 1.0
    hidden = np.zeros(size, np.uint8)
    for other in later:
        cv2.fillConvexPoly(hidden, np.round(other - offset).astype(np.int32), 255)
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    hidden[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0] |= cover[cy0:cy1, cx0:cx1]
    outside = np.ones(size, np.uint8) * 255
    outside[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0] = 0
    hidden |= outside
    return float(np.count_nonzero(hidden & mine)) / total


def first_game(table_mm: tuple[float, float] = (800.0, 450.0), tag_mm: float = 25.0, seed: int = 0) -> Scene:
    """The first game of a new campaign: locations 1-6 as six stacks of four, dealt from the sorted
    deck so copy 1 lies on top (as the engine's display has it)."""
    stacks = tuple(Stack(spot, angle, tuple((loc, c) for c in range(4, 0, -1)))
                   for loc, (spot, angle) in zip(range(1, 7), display_spots(table_mm, 6)))
    return Scene(stacks, table_mm, tag_mm, seed=seed)


def display_spots(table_mm: tuple[float, float], count: int) -> list[tuple[tuple[float, float], float]]:
    """Tidy places for ``count`` stacks in rows across the table (the demo's layout), slightly askew."""
    tw, th = table_mm
    columns, rows = 6, 4
    if count > columns * rows:
        raise ValueError(f"the demo layout has room for {columns * rows} stacks, not {count}")
    spots = []
    for i in range(count):
        row, col = divmod(i, columns)
        spots.append(((tw * (col + 0.5) / columns, th * (row + 0.5) / rows), ((i * 37) % 11) - 5.0))
    return spots


def _cross(u, v) -> float:
    """The z of the cross product of two 2-D vectors (numpy 2 deprecates np.cross for 2-D)."""
    return float(u[0] * v[1] - u[1] * v[0])


def with_corner_tags(picture: np.ndarray, module_px: int = 5) -> np.ndarray:
    """``picture`` with the table's four corner tags stuck in its corners, as a camera over the whole table sees them
    (teaching a die before its tray is marked)."""
    framed = picture.copy()
    h, w = framed.shape[:2]
    for corner, (x, y) in {"NW": (0, 0), "NE": (1, 0), "SE": (1, 1), "SW": (0, 1)}.items():
        sticker = cv2.cvtColor(tags.tag_image(tags.format_corner(corner), module_px, quiet_modules=2),
                               cv2.COLOR_GRAY2BGR)
        side = sticker.shape[0]
        top, left = 8 + y * (h - side - 16), 8 + x * (w - side - 16)
        framed[top:top + side, left:left + side] = sticker
    return framed
