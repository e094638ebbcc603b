"""Reading every tag in a camera frame, fast enough for a Raspberry Pi.

The hot path, per frame:

1. Grey copy of the working image (the small stream) and a motion probe. If the
   table has not moved since the last decoded frame, the last reading is
   returned as it is: nothing is decoded again (about a millisecond).
2. One lean zxing-cpp pass over the working image (no inverted or downscaled
   passes: printed tags are dark on light and small). This reads nearly every
   tag whose modules are 2 px or more.
3. Candidates for the tags it missed: dense patches of sharp edges (a QR code is
   nothing but module edges) found on a 1/8 density map, plus the places where
   a tag was read in the previous frame. Only those regions are cut out of the
   full-resolution frame and decoded there, where the modules are twice as big.
   A region where a card's other sticker was already read is skipped: the card
   is known (either sticker names it).
4. A region that still does not decode -- a finder pattern nicked by a coin, an
   animal standing on the code -- goes to :mod:`vision.recover`, which answers
   only when the whole finder patterns and the small set of valid payloads leave
   one answer.
5. Only when nothing at all was read (no corner tags in view: a photo of one
   code, a covered camera) the decoder's thorough passes run once more.

Positions are in working-image pixels (``TagSighting.corners``), which is also
what the stored calibration (``table.corners_px``) uses; ``FrameReading.scale``
converts to the full frame. Nothing here raises on a bad frame: a frame that
cannot be read gives an empty reading with its ``problems`` spelled out.
"""

from __future__ import annotations

import functools
import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

import cv2
import numpy as np

from vision import motion, tags
from vision.qr import Decoded, get_decoder, quad_center, quad_side

# The edge-density map is 1/DENSITY_CELL of the working image on each side.
DENSITY_CELL = 8
# A pixel is an edge when its 3x3 neighbourhood spans this many grey levels.
EDGE_CONTRAST = 48
# A density cell belongs to a code when this share of its pixels are edges.
DENSITY_SHARE = 0.40
# Candidate sizes in working-image pixels: a 2 px-module v1 code is 42 px, a big corner tag ~250 px.
MIN_SIDE_PX, MAX_SIDE_PX = 24, 320
# Where the cards' codes read in the working image have modules this big, vision.recover looks there first.
RECOVER_IN_WORK_MODULE = 2.5
FULL_RECOVERY_UNTIL = 3.5  # ...and also in the full frame while they are smaller than this


@dataclass(frozen=True)
class TagSighting:
    """One decoded symbol: its text, our tag (None when foreign), corners in working-image pixels."""

    text: str
    tag: tags.Tag | None
    corners: np.ndarray
    from_full: bool = False

    @functools.cached_property
    def center(self) -> tuple[float, float]:
        return quad_center(self.corners)

    @functools.cached_property
    def side_px(self) -> float:
        return quad_side(self.corners)

    @property
    def module_px(self) -> float:
        """Module size in working-image pixels (meaningful for our version 1 tags)."""
        return self.side_px / tags.MODULES


@dataclass(frozen=True)
class FrameReading:
    sightings: tuple[TagSighting, ...]
    work_size: tuple[int, int]  # (width, height)
    scale: float | None  # full-frame pixels per working pixel, when the full frame was seen
    reused: bool = False  # the table had not moved: the previous reading, not decoded again
    ms: float = 0.0
    candidates: int = 0  # regions decoded at full resolution
    problems: tuple[str, ...] = ()
    looks: tuple[tuple[int, int, int, int], ...] = ()  # full-frame boxes (x0, y0, x1, y1) cut out and decoded

    @property
    def tags(self) -> list[TagSighting]:
        return [s for s in self.sightings if s.tag is not None]

    @property
    def ignored(self) -> list[TagSighting]:
        """Symbols that are not ours (foreign codes, malformed payloads): counted, never used."""
        return [s for s in self.sightings if s.tag is None]

    def to_json(self) -> dict:
        """What a recording keeps of a decoded frame (corners to 1/100 px), enough to replay it."""
        return {
            "tags": [[s.text, [round(float(v), 2) for v in s.corners.reshape(-1)], int(s.from_full)]
                     for s in self.sightings],
            "size": list(self.work_size),
            "scale": self.scale,
            "problems": list(self.problems),
            "looks": [list(box) for box in self.looks],
        }

    @classmethod
    def from_json(cls, data: dict) -> "FrameReading":
        sightings = tuple(TagSighting(text, tags.parse(text), np.array(corners, np.float64).reshape(4, 2), bool(full))
                          for text, corners, full in data.get("tags", ()))
        return cls(sightings, tuple(data["size"]), data.get("scale"), problems=tuple(data.get("problems", ())),
                   looks=tuple(tuple(box) for box in data.get("looks", ())))


FullFrame = np.ndarray | Callable[[], np.ndarray] | None


@dataclass
class TagReader:
    """Reads frames one after another; keeps what it needs to skip still frames.

    ``decoder`` is ``"zxing"`` (default) or ``"pyzbar"``. ``full_resolution``
    allows the full-frame look at candidates; ``reuse_when_still`` skips decoding
    while the table has not moved (``motion_threshold`` is the share of probe
    pixels that must change).
    """

    decoder: str = "zxing"
    full_resolution: bool = True
    reuse_when_still: bool = True
    motion_threshold: float = 0.002
    max_candidates: int = 24
    max_recoveries: int = 6  # regions per frame given to vision.recover (the rest wait for the next frame)
    _last: FrameReading | None = field(default=None, init=False, repr=False)
    _last_probe: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        _prepare_recovery()
        if self.decoder == "zxing":
            self._decode = get_decoder("zxing", thorough=False).decode
            self._decode_thorough = get_decoder("zxing", thorough=True).decode
        else:
            self._decode = self._decode_thorough = get_decoder(self.decoder).decode
        self.scale: float | None = None

    def reset(self) -> None:
        """Forget the previous frame (the next one is decoded in full)."""
        self._last = None
        self._last_probe = None

    def read_frame(self, frame) -> FrameReading:
        """Read a camera ``Frame`` (anything with ``.work`` and ``.full()``)."""
        return self.read(frame.work, getattr(frame, "full", None))

    def read(self, work: np.ndarray, full: FullFrame = None) -> FrameReading:
        """All tags in a working image; ``full`` is the full frame or a function that fetches it."""
        start = time.perf_counter()
        grey, problem = _as_grey(work)
        if grey is None:
            return FrameReading((), (0, 0), self.scale, ms=_ms(start), problems=(problem,))
        size = (grey.shape[1], grey.shape[0])
        # Everything cheap works on a half-size copy (an exact 2:1 area average costs ~0.1 ms).
        half = cv2.resize(grey, (size[0] // 2, size[1] // 2), interpolation=cv2.INTER_AREA)
        probe = _probe(half)
        if (self.reuse_when_still and self._last is not None and self._last_probe is not None
                and self._last.work_size == size
                and motion.changed_fraction(self._last_probe, probe) <= self.motion_threshold):
            reading = FrameReading(self._last.sightings, size, self._last.scale, reused=True, ms=_ms(start),
                                   candidates=0, problems=self._last.problems)
            return reading

        reading = self._decode_frame(grey, half, full, start)
        self._last, self._last_probe = reading, probe
        return reading

    def reread(self, work: np.ndarray, full: FullFrame = None, previous: FrameReading | None = None) -> FrameReading:
        """Decode ``work`` as a moved frame whose predecessor read ``previous`` (a replay's look at a
        recorded picture: whether the table moved is already known, so there is no motion check)."""
        start = time.perf_counter()
        grey, problem = _as_grey(work)
        if grey is None:
            return FrameReading((), (0, 0), self.scale, ms=_ms(start), problems=(problem,))
        half = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
        self._last = previous
        reading = self._decode_frame(grey, half, full, start)
        self._last, self._last_probe = reading, None
        return reading

    def _decode_frame(self, grey: np.ndarray, half: np.ndarray, full: FullFrame, start: float) -> FrameReading:
        size = (grey.shape[1], grey.shape[0])
        # The edge map first, while the half-size copy is still in the CPU's cache (the decoder's pass over
        # the whole working image pushes it out: afterwards the same work takes twice as long).
        dense = [tuple(2 * v for v in box) for box in edge_dense_boxes(half)]
        found = [_sighting(d) for d in self._decode(grey) if d.valid]
        problems: list[str] = []
        looks: list[tuple[int, int, int, int]] = []
        known = _Known(found, grey.shape)
        regions = self._candidates(dense, known)
        if regions:
            full_image = None
            if self.full_resolution and full is not None:
                full_image, problem = self._full(full, grey.shape)
                if full_image is None:
                    problems.append(problem)
            looks = self._look(grey, full_image, regions, known)
        if not found and self._decode_thorough is not self._decode:
            # Nothing at all: not a table with its corner tags in view, perhaps a photo of one code.
            # Try the decoder's extra passes (inverted, downscaled) before giving up.
            found = [_sighting(d) for d in self._decode_thorough(grey) if d.valid]
        return FrameReading(tuple(_unique(found)), size, self.scale, ms=_ms(start), candidates=len(looks),
                            problems=tuple(problems), looks=tuple(looks))

    # --- candidates -------------------------------------------------------------------------

    def _candidates(self, dense: list, known: "_Known") -> list[tuple[int, int, int, int]]:
        """Boxes (x0, y0, x1, y1, working px) that look like codes (``dense``: the edge-dense patches)
        but were not read."""
        boxes = list(dense)
        if self._last is not None:  # where a tag was last time: it may be just below the threshold now
            for s in self._last.sightings:
                x0, y0 = s.corners.min(axis=0)
                x1, y1 = s.corners.max(axis=0)
                boxes.insert(0, (int(x0), int(y0), int(np.ceil(x1)), int(np.ceil(y1))))
        wanted = []
        for box, covered in zip(boxes, known.covers_all(boxes).tolist()):
            if covered:
                continue
            if any(_overlap(box, other) > 0.5 for other in wanted):
                continue
            wanted.append(box)
            if len(wanted) >= self.max_candidates:
                break
        return wanted

    def _full(self, full: FullFrame, work_shape) -> tuple[np.ndarray | None, str]:
        try:
            image = full() if callable(full) else full
        except Exception as exc:  # a camera that cannot deliver a still must not stop the loop
            return None, f"the full-resolution frame could not be fetched: {exc}"
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.dtype != np.uint8:
            return None, "the full-resolution frame is not an 8-bit image"
        h, w = image.shape[:2]
        wh, ww = work_shape
        if abs(w / ww - h / wh) > 0.02 * (w / ww):
            return None, (f"the full-resolution frame ({w}x{h}) is not the same picture as the working "
                          f"image ({ww}x{wh}): different shape")
        self.scale = w / ww
        return image, ""

    def _look(self, grey: np.ndarray, full_image: np.ndarray | None, regions, known: "_Known"):
        """Decode each region from the full frame, and give what still does not decode to
        :mod:`vision.recover`; adds to the ``known`` codes and returns the full-frame boxes cut out."""
        from vision import recover

        scale = self.scale if full_image is not None else 1.0
        source = full_image if full_image is not None else grey
        looks: list[tuple[int, int, int, int]] = []
        tries = 0
        # The cards' stickers are all one size: the codes read so far tell how big the others are.
        module = known.card_side / tags.MODULES
        big = module >= RECOVER_IN_WORK_MODULE or full_image is None  # (no full frame: the working image it is)
        for box in regions:
            if known.covers(box):
                continue
            # A big code that the working image did not give is first looked at there by vision.recover
            # (a quarter of the pixels); where it finds no finder pattern there is no code (card art, a
            # hand) and the full frame is not fetched for it.
            finders = 1
            if big:
                if tries >= self.max_recoveries:
                    continue
                tries += 1
                seen, finders = recover.attempt(grey, _grown(box, grey.shape, 1.0, 0.3), known.codes(1.0))
                known.add([TagSighting(r.text, tags.parse(r.text), r.corners) for r in seen])
                if (seen and known.covers(box)) or not finders:
                    continue
            if full_image is None:
                continue
            crop, x0, y0 = _cut(source, box, scale, 0.35)
            if crop is None:
                continue
            looks.append((x0, y0, x0 + crop.shape[1], y0 + crop.shape[0]))
            read = [TagSighting(d.text, tags.parse(d.text), (d.corners + [x0, y0]) / scale, from_full=True)
                    for d in self._decode(_grey_crop(crop)) if d.valid]
            known.add(read)
            if (read and known.covers(box)) or tries >= self.max_recoveries + big or module >= FULL_RECOVERY_UNTIL:
                continue  # (codes this big are recovered in the working image or not at all)
            tries += not big
            looks.append(_grown(box, full_image.shape, scale, 0.75))  # what a replay needs of the full frame
            seen = recover.attempt(full_image, _grown(box, full_image.shape, scale, 0.3), known.codes(scale))[0]
            known.add([TagSighting(r.text, tags.parse(r.text), r.corners / scale, from_full=True) for r in seen])
        return looks


@functools.cache
def _prepare_recovery() -> None:
    """vision.recover's templates, built once on a thread of their own while the camera starts."""
    import threading

    from vision import recover

    threading.Thread(target=recover.prepare, name="recover-templates", daemon=True).start()


class _Known:
    """Codes read so far and where their cards' other stickers are, on a coarse map of the working
    image: a region they fill is done (a region twice a code's size may hold another code beside the
    one read)."""

    ROOM = 0.6  # a region is done when no square this share of a code's side is left free in it
    CELL = DENSITY_CELL  # working pixels per map cell

    def __init__(self, found: list[TagSighting], shape):
        self.found = found
        self.map = np.zeros((shape[0] // self.CELL + 2, shape[1] // self.CELL + 2), bool)
        self.read: list[tuple[float, float, float, float]] = []
        self._sides: list[float] = []  # the cards' codes read, in working pixels
        self._room: tuple[int, np.ndarray, np.ndarray] | None = None  # see _sums
        self._mark(found)

    def add(self, read: list[TagSighting]) -> None:
        self.found.extend(read)
        self._mark(read)

    @property
    def card_side(self) -> float:
        """A card code's side in working pixels (the median of those read), 0 before any is known."""
        return statistics.median(self._sides) if self._sides else 0.0

    @property
    def code_cells(self) -> float:
        """The same in map cells."""
        return self.card_side / self.CELL

    def _mark(self, read: list[TagSighting]) -> None:
        if not read:
            return
        corners = np.array([s.corners for s in read], np.float64)  # N x 4 x 2
        low, high = corners.min(axis=1), corners.max(axis=1)
        self.read.extend(map(tuple, np.hstack([low, high]).tolist()))
        boxes = [np.hstack([low, high])]
        cards = np.array([isinstance(s.tag, tags.LocationTag) for s in read])
        if cards.any():
            card_corners = corners[cards]
            sides = np.linalg.norm(card_corners - np.roll(card_corners, 1, axis=1), axis=2).mean(axis=1)
            self._sides += sides.tolist()  # (qr.quad_side for all of them at once)
            # The card's other sticker: the same size, mirrored through the card's centre.
            shift = 2 * (_card_centres(card_corners) - card_corners.mean(axis=1))
            boxes.append(np.hstack([low[cards] + shift, high[cards] + shift]))
        cells = np.concatenate(boxes) / self.CELL
        cells[:, :2] = np.floor(cells[:, :2])
        cells[:, 2:] = np.ceil(cells[:, 2:])
        for x0, y0, x1, y1 in np.maximum(cells, 0).astype(int).tolist():
            self.map[y0:y1, x0:x1] = True
        self._room = None

    def codes(self, scale: float) -> list[tuple[float, float, float, float]]:
        """The boxes of the codes read, in an image with ``scale`` pixels per working pixel."""
        return [(x0 * scale, y0 * scale, x1 * scale, y1 * scale) for x0, y0, x1, y1 in self.read]

    def covers(self, box) -> bool:
        return bool(self.covers_all([box])[0])

    def covers_all(self, boxes) -> np.ndarray:
        """For each box (x0, y0, x1, y1, working px): whether the codes read fill it, i.e. it has codes
        read in it and no room for another one (a free square of most of a code's side: a free ring
        round a code read, its label and quiet zone, is not room). All boxes at once, on sums over the
        map (integral images)."""
        if not len(boxes):
            return np.zeros(0, bool)
        side = max(2, int(self.ROOM * (self.code_cells or 6)))
        filled_sum, room_sum = self._sums(side)
        rows, cols = self.map.shape
        cells = np.maximum(np.array(boxes, np.int64) // self.CELL, 0)
        x0, y0 = np.minimum(cells[:, 0], cols), np.minimum(cells[:, 1], rows)
        x1, y1 = np.minimum(cells[:, 2] + 1, cols), np.minimum(cells[:, 3] + 1, rows)  # (exclusive)
        x1, y1 = np.maximum(x1, x0), np.maximum(y1, y0)
        filled = _box_sums(filled_sum, x0, y0, x1, y1)
        free = (x1 - x0) * (y1 - y0) - filled
        # Where the anchor (the centre cell) of a square lying wholly inside the box can be.
        anchor = side // 2
        ax0, ay0 = np.minimum(x0 + anchor, cols), np.minimum(y0 + anchor, rows)
        ax1, ay1 = np.maximum(x1 - side + 1 + anchor, ax0), np.maximum(y1 - side + 1 + anchor, ay0)
        room = _box_sums(room_sum, ax0, ay0, ax1, ay1) > 0
        return (filled > 0) & ((free < side * side) | ~room)

    def _sums(self, side: int) -> tuple[np.ndarray, np.ndarray]:
        """Integral images of the map and of where a free square of ``side`` cells is anchored, worked
        out once until the next code is read."""
        if self._room is None or self._room[0] != side:
            free = cv2.erode((~self.map).astype(np.uint8), _square(side), borderType=cv2.BORDER_CONSTANT,
                             borderValue=0)
            self._room = (side, cv2.integral(self.map.astype(np.uint8)), cv2.integral(free))
        return self._room[1], self._room[2]


def _box_sums(integral: np.ndarray, x0, y0, x1, y1) -> np.ndarray:
    """Sums over boxes [x0, x1) x [y0, y1) from an integral image (cv2.integral's, one larger each way)."""
    return integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]


@functools.cache
def _square(side: int) -> np.ndarray:
    return np.ones((side, side), np.uint8)


def _card_centres(corners: np.ndarray) -> np.ndarray:
    """:func:`vision.tags.card_centre` for N codes at once (N x 4 x 2 pixels), for pair-sized stickers."""
    tl, tr, br, bl = corners[:, 0], corners[:, 1], corners[:, 2], corners[:, 3]
    across, down = (tr - tl + br - bl) / 2, (bl - tl + br - tr) / 2
    along = np.maximum(np.linalg.norm(across, axis=1, keepdims=True), 1e-9)
    height = np.maximum(np.linalg.norm(down, axis=1, keepdims=True), 1e-9)
    ox, oy = tags.card_offset(tags.PAIR_SYMBOL_MM)
    scale = (along + height) / 2 / tags.PAIR_SYMBOL_MM
    return corners.mean(axis=1) + scale * (ox * across / along + oy * down / height)


def _grey_crop(crop: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop


def _grown(box, shape, scale: float, pad_share: float) -> tuple[int, int, int, int]:
    """``box`` (working pixels) grown by ``pad_share`` of its size, in an image of ``shape`` with
    ``scale`` pixels per working pixel, kept inside it."""
    x0, y0, x1, y1 = box
    h, w = shape[:2]
    pad = pad_share * max(x1 - x0, y1 - y0) + 4
    return (max(0, int((x0 - pad) * scale)), max(0, int((y0 - pad) * scale)),
            min(w, int((x1 + pad) * scale)), min(h, int((y1 + pad) * scale)))


def _cut(image: np.ndarray, box, scale: float, pad_share: float):
    """``box`` grown (see :func:`_grown`) and cut from ``image``: (crop, x0, y0), or (None, 0, 0) when
    too small."""
    fx0, fy0, fx1, fy1 = _grown(box, image.shape, scale, pad_share)
    if fx1 - fx0 < 8 or fy1 - fy0 < 8:
        return None, 0, 0
    return image[fy0:fy1, fx0:fx1], fx0, fy0


def edge_dense_boxes(grey: np.ndarray, cell: int = DENSITY_CELL // 2, min_side: float = MIN_SIDE_PX / 2,
                     max_side: float = MAX_SIDE_PX / 2) -> list[tuple[int, int, int, int]]:
    """Patches dense with sharp edges, the size of a tag: boxes (x0, y0, x1, y1) in ``grey``'s pixels.

    A QR code is almost all module edges; card art, hands and the table are not.
    The reader passes the half-size working image (``cell`` 4 = 8 working
    pixels), where a 2 px module is still one pixel; ``min_side`` and ``max_side``
    bound a box's longer side in ``grey``'s pixels. Thin lines (card outlines)
    are removed by an opening on the coarse map, so a tag touching its card's
    border still stands alone.
    """
    h, w = grey.shape
    if h < cell * 3 or w < cell * 3:
        return []
    # The morphological gradient, as dilation minus erosion: the same numbers as cv2.MORPH_GRADIENT at a
    # quarter of its cost.
    square = np.ones((3, 3), np.uint8)
    gradient = cv2.subtract(cv2.dilate(grey, square), cv2.erode(grey, square))
    _, edges = cv2.threshold(gradient, EDGE_CONTRAST, 255, cv2.THRESH_BINARY)
    density = _shrink(edges, cell)
    _, mask = cv2.threshold(density, int(255 * DENSITY_SHARE), 255, cv2.THRESH_BINARY)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, square)
    # Each patch's box: the bounding box of its outer contour (a fifth of the cost of
    # connectedComponentsWithStats, which works out every statistic of every patch).
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return []
    found = np.array([cv2.boundingRect(c) for c in contours])
    longer, shorter = found[:, 2:4].max(axis=1), found[:, 2:4].min(axis=1)
    keep = found[(longer >= min_side / cell) & (longer <= max_side / cell) & (longer <= 2.5 * shorter)]
    # Biggest first: a corner tag matters more than a speck (then top to bottom, left to right).
    keep = keep[np.lexsort((keep[:, 0], keep[:, 1], -(keep[:, 2] * keep[:, 3])))] * cell
    return [(int(x), int(y), int(x + w), int(y + h)) for x, y, w, h in keep.tolist()]


def _probe(half: np.ndarray) -> np.ndarray:
    """The motion probe of :mod:`vision.motion` at its own size, fed a 1/8 copy of the working image
    (``motion.probe`` on the whole working image, a 14.4:1 area average, costs ~3.5 ms)."""
    eighth = _shrink(half, 4)
    return motion.probe(eighth, width=eighth.shape[1])


def _shrink(image: np.ndarray, factor: int) -> np.ndarray:
    """``image`` averaged over ``factor`` x ``factor`` squares (a power of two), by halving: a bilinear
    resize to exactly half the size is a 2 x 2 average, and costs a fifth of an area resize by 4."""
    while factor > 1:
        h, w = image.shape[:2]
        image = cv2.resize(image, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_LINEAR)
        factor //= 2
    return image


def _sighting(d: Decoded) -> TagSighting:
    return TagSighting(d.text, tags.parse(d.text), d.corners)


def _as_grey(image) -> tuple[np.ndarray | None, str]:
    """A grey uint8 copy of a working image, or None and the reason it cannot be read."""
    if not isinstance(image, np.ndarray):
        return None, "no picture: the frame has no image"
    if image.dtype != np.uint8:
        return None, f"the frame is not an 8-bit image ({image.dtype})"
    if image.ndim == 2:
        grey = image
    elif image.ndim == 3 and image.shape[2] == 3:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    elif image.ndim == 3 and image.shape[2] == 4:
        grey = cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    elif image.ndim == 3 and image.shape[2] == 1:
        grey = image[..., 0]
    else:
        return None, f"the frame has an unexpected shape {image.shape}"
    if min(grey.shape) < 16:
        return None, f"the frame is too small to read ({grey.shape[1]}x{grey.shape[0]})"
    return np.ascontiguousarray(grey), ""


def _overlap(a, b) -> float:
    """Intersection over the smaller box."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1])) or 1
    return w * h / smaller


def _unique(found: list[TagSighting]) -> list[TagSighting]:
    """One sighting per symbol: the same code read twice (working and full image) counts once.

    Two different stickers with the same payload are kept: they are far apart.
    """
    out: list[TagSighting] = []
    kept: dict[str, list[TagSighting]] = {}
    for s in found:
        same = kept.setdefault(s.text, [])
        if any(math.dist(s.center, k.center) < 0.5 * max(k.side_px, 1.0) for k in same):
            continue
        same.append(s)
        out.append(s)
    return out


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
