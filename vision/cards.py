"""What lies on the table: location tags grouped into stacks, as a :class:`TableSnapshot`.

Vision reports, it never decides: a snapshot says which tags were seen where,
which stacks they make (a stack is the cards of one location on one spot; only
its top copy's tag is visible), how many foreign or malformed codes were
ignored, and which payloads were seen twice (two stickers with the same code).
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
    for s in sightings:
        if s.tag is None:
            ignored.append(s.text)
            continue
        mm = None
        if geometry is not None:
            x, y = geometry.to_mm([s.center])[0]
            mm = (float(x), float(y))
        seen.append(SeenTag(s.text, s.tag, (float(s.center[0]), float(s.center[1])), mm, float(s.side_px)))

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


def _groups(cards: list[SeenTag], have_mm: bool) -> list[list[SeenTag]]:
    """Same location and close together -> one stack (single-link clustering; tables hold few cards)."""
    groups: list[list[SeenTag]] = []
    for card in sorted(cards, key=lambda t: (t.tag.location, t.tag.copy, t.center_px)):
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


def _near(a: SeenTag, b: SeenTag, have_mm: bool) -> bool:
    if have_mm and a.table_mm is not None and b.table_mm is not None:
        return float(np.hypot(a.table_mm[0] - b.table_mm[0], a.table_mm[1] - b.table_mm[1])) <= STACK_RADIUS_MM
    limit = STACK_RADIUS_TAG_SIDES * max(a.side_px, b.side_px)
    return float(np.hypot(a.center_px[0] - b.center_px[0], a.center_px[1] - b.center_px[1])) <= limit


def _stack(group: list[SeenTag]) -> StackView:
    copies = tuple(sorted({t.tag.copy for t in group}))
    top = copies[0] if len(copies) == 1 else None
    px = tuple(float(v) for v in np.mean([t.center_px for t in group], axis=0))
    mm = None
    if all(t.table_mm is not None for t in group):
        mm = tuple(float(v) for v in np.mean([t.table_mm for t in group], axis=0))
    return StackView(group[0].tag.location, top, mm, px, copies)


def _rounded(point) -> list[float] | None:
    if point is None:
        return None
    return [round(float(v), 1) for v in point]

