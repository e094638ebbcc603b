"""What lies on the table: location tags grouped into stacks, as a :class:`TableSnapshot`.

Vision reports, it never decides: a snapshot says which tags were seen where,
which stacks they make (a stack is the cards of one location on one spot; only
its top copy's tags are visible), how many foreign or malformed codes were
ignored, and which payloads were seen twice (two stickers with the same code).

A card may carry one sticker or two (``FF:07:2`` top left, ``FF:07:2:B`` bottom
right, turned half round): each sticker says where its card's centre is
(:func:`vision.tags.card_centre`), so a stack lies at its card's centre whichever
of its stickers an animal or a hand leaves in view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from vision import tags
from vision.geometry import TableGeometry

# Tags of one location closer than this belong to the same stack (a card is 63 x 88 mm).
STACK_RADIUS_MM = 70.0
# Without a geometry the same, in tag sides (a 25 mm tag on a 63 x 88 mm card).
STACK_RADIUS_TAG_SIDES = 2.8


@dataclass(frozen=True)
class SeenTag:
    payload: str
    tag: tags.Tag
    center_px: tuple[float, float]  # working-image pixels
    table_mm: tuple[float, float] | None
    side_px: float
    card_px: tuple[float, float] | None = None  # the centre of the card the sticker is on
    card_mm: tuple[float, float] | None = None


@dataclass(frozen=True)
class StackView:
    """One stack: its location, the copy on top, where it is.

    ``top_copy`` is None when two copies of the location show on the same spot
    (a fanned stack): the camera cannot tell which is on top. ``hidden`` is set by
    the stabiliser for a stack whose tag is covered for now (a hand, an animal).
    """

    location: int
    top_copy: int | None
    table_mm: tuple[float, float] | None
    center_px: tuple[float, float]
    copies: tuple[int, ...] = ()
    hidden: bool = False

    def to_json(self) -> dict:
        return {
            "location": self.location,
            "top_copy": self.top_copy,
            "table_mm": _rounded(self.table_mm),
            "center_px": _rounded(self.center_px),
            "copies": list(self.copies),
            "hidden": self.hidden,
        }


@dataclass(frozen=True)
class TableSnapshot:
    """Everything one frame (or the stabiliser) says about the table."""

    stacks: tuple[StackView, ...]
    tags: tuple[SeenTag, ...] = ()
    ignored: int = 0
    ignored_texts: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()  # payloads seen on two or more separate stickers
    corners: tuple[str, ...] = ()  # corner tags seen
    geometry: str | None = None  # "corners", "remembered", "calibration" or None (no table millimetres)
    problems: tuple[str, ...] = ()
    timestamp: float = 0.0
    frame: int = 0
    stable: bool = False

    def stack(self, location: int) -> StackView | None:
        found = [s for s in self.stacks if s.location == location]
        return found[0] if found else None

    def top_copies(self) -> dict[int, int | None]:
        """Location -> the copy on top, for every stack (visible or hidden)."""
        return {s.location: s.top_copy for s in self.stacks}

    def visible_locations(self) -> set[int]:
        return {s.location for s in self.stacks if not s.hidden}

    def to_json(self) -> dict:
        return {
            "stacks": [s.to_json() for s in self.stacks],
            "tags": [{"payload": t.payload, "center_px": _rounded(t.center_px), "table_mm": _rounded(t.table_mm)}
                     for t in self.tags],
            "ignored": self.ignored,
            "ignored_texts": list(self.ignored_texts),
            "duplicates": list(self.duplicates),
            "corners": list(self.corners),
            "geometry": self.geometry,
            "problems": list(self.problems),
            "timestamp": self.timestamp,
            "frame": self.frame,
            "stable": self.stable,
        }


def snapshot(sightings: Iterable, geometry: TableGeometry | None = None, *, ignored_texts: Iterable[str] = (),
             problems: Iterable[str] = (), timestamp: float = 0.0, frame: int = 0) -> TableSnapshot:
    """Group our tags into stacks. ``sightings`` have ``.text``, ``.tag``, ``.center``, ``.side_px``.

    Foreign symbols among the sightings (``tag`` None) are counted as ignored.
    """
    seen: list[SeenTag] = []
    ignored = list(ignored_texts)
    ours = []
    for s in sightings:
        if s.tag is None:
            ignored.append(s.text)
        else:
            ours.append(s)
    places = _places(ours, geometry)
    for s, (mm, card_px, card_mm) in zip(ours, places):
        seen.append(SeenTag(s.text, s.tag, (float(s.center[0]), float(s.center[1])), mm, float(s.side_px),
                            card_px, card_mm))

    counts: dict[str, int] = {}
    for t in seen:
        counts[t.payload] = counts.get(t.payload, 0) + 1
    duplicates = tuple(sorted(p for p, n in counts.items() if n > 1))

    cards = [t for t in seen if isinstance(t.tag, tags.LocationTag)]
    stacks = [_stack(group) for group in _groups(cards, geometry is not None)]
    stacks.sort(key=lambda s: (s.location, s.center_px))
    more_problems = list(problems)
    for payload in duplicates:
        more_problems.append(f"{payload} is on two stickers: one of them is a copy; check the cards")
    corners = tuple(c for c in tags.CORNERS if any(isinstance(t.tag, tags.CornerTag) and t.tag.corner == c
                                                     for t in seen))
    return TableSnapshot(
        stacks=tuple(stacks), tags=tuple(seen), ignored=len(ignored), ignored_texts=tuple(ignored),
        duplicates=duplicates, corners=corners, geometry=geometry.source if geometry is not None else None,
        problems=tuple(more_problems), timestamp=timestamp, frame=frame,
    )


def _places(sightings: list, geometry: TableGeometry | None) -> list[tuple]:
    """For each sighting: (its centre in table mm, its card's centre in pixels, in table mm); the
    card centres only for location stickers whose corners are known. One transform for all."""
    out: list[tuple] = [(None, None, None)] * len(sightings)
    corners = [getattr(s, "corners", None) for s in sightings]
    cards = [i for i, (s, c) in enumerate(zip(sightings, corners))
             if c is not None and isinstance(s.tag, tags.LocationTag)]
    if geometry is None:
        for i in cards:
            out[i] = (None, tags.card_centre(corners[i], tags.DEFAULT_SYMBOL_MM), None)
        return out
    centres = geometry.to_mm([s.center for s in sightings]) if sightings else []
    for i, c in enumerate(centres):
        out[i] = ((float(c[0]), float(c[1])), None, None)
    if cards:
        corners_mm = geometry.to_mm(np.concatenate([np.asarray(corners[i], np.float64) for i in cards]))
        card_mm = [tags.card_centre(corners_mm[4 * k:4 * k + 4]) for k in range(len(cards))]
        card_px = geometry.to_px(card_mm)
        for k, i in enumerate(cards):
            out[i] = (out[i][0], (float(card_px[k][0]), float(card_px[k][1])), card_mm[k])
    return out


def _groups(cards: list[SeenTag], have_mm: bool) -> list[list[SeenTag]]:
    """Same location and close together -> one stack (single-link clustering; tables hold few cards)."""
    groups: list[list[SeenTag]] = []
    for card in sorted(cards, key=lambda t: (t.tag.location, t.tag.copy, t.tag.second, t.center_px)):
        home = None
        for group in groups:
            if group[0].tag.location != card.tag.location:
                continue
            if any(_near(card, other, have_mm) for other in group):
                home = group
                break
        if home is None:
            groups.append([card])
        else:
            home.append(card)
    return groups


def _px(t: SeenTag) -> tuple[float, float]:
    return t.card_px or t.center_px


def _mm(t: SeenTag) -> tuple[float, float] | None:
    return t.card_mm or t.table_mm


def _near(a: SeenTag, b: SeenTag, have_mm: bool) -> bool:
    am, bm = _mm(a), _mm(b)
    if have_mm and am is not None and bm is not None:
        return float(np.hypot(am[0] - bm[0], am[1] - bm[1])) <= STACK_RADIUS_MM
    limit = STACK_RADIUS_TAG_SIDES * max(a.side_px, b.side_px)
    ap, bp = _px(a), _px(b)
    return float(np.hypot(ap[0] - bp[0], ap[1] - bp[1])) <= limit


def _stack(group: list[SeenTag]) -> StackView:
    copies = tuple(sorted({t.tag.copy for t in group}))
    top = copies[0] if len(copies) == 1 else None
    px = tuple(float(v) for v in np.mean([_px(t) for t in group], axis=0))
    mm = None
    if all(_mm(t) is not None for t in group):
        mm = tuple(float(v) for v in np.mean([_mm(t) for t in group], axis=0))
    return StackView(group[0].tag.location, top, mm, px, copies)


def _rounded(point) -> list[float] | None:
    if point is None:
        return None
    return [round(float(v), 1) for v in point]

