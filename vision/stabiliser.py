"""From frame-by-frame snapshots to stable ones: only a settled, lasting change counts.

A hand reaching over the table, a card half slid, a tag blurred for one frame:
none of these may reach the referee. :class:`Stabiliser` passes a new table
state on only when

* the table is still (no motion since the last decoded frame), and
* the same state has been seen for ``still_frames`` frames and ``persist_s``
  seconds in a row.

A tag that disappears while nothing else takes its place (an animal figure left
on it, a hand resting there) is *hidden*, not gone: its stack stays in the
stable snapshot with ``hidden=True`` and no change is reported. It is dropped
only when another stack's tag shows on its spot. Whether a hidden stack was in
fact bought is for the referee to judge against the game.

:class:`TableWatcher` is the whole pipeline for one camera; call ``update`` with
every frame and hand each stable snapshot it returns to ``runtime.observe``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Mapping

import numpy as np

from vision import cards
from vision.cards import StackView, TableSnapshot
from vision.geometry import TableLocator
from vision.reader import FrameReading, TagReader


def _key(snapshot: TableSnapshot) -> tuple:
    """What counts as a change: which locations are on the table with which top copy."""
    return tuple(sorted((s.location, -1 if s.top_copy is None else s.top_copy) for s in snapshot.stacks))


def _distance(a: StackView, b: StackView) -> float:
    if a.table_mm is not None and b.table_mm is not None:
        return float(np.hypot(a.table_mm[0] - b.table_mm[0], a.table_mm[1] - b.table_mm[1]))
    return float("inf")


def _distance_px(a: StackView, b: StackView) -> float:
    return float(np.hypot(a.center_px[0] - b.center_px[0], a.center_px[1] - b.center_px[1]))


class Stabiliser:
    """``update(snapshot, still, now)`` returns a new stable snapshot when the table's state changed."""

    def __init__(self, still_frames: int = 3, persist_s: float = 1.0, spot_mm: float = cards.STACK_RADIUS_MM,
                 spot_px: float = 120.0):
        self.still_frames = still_frames
        self.persist_s = persist_s
        self.spot_mm = spot_mm
        self.spot_px = spot_px
        self.stable: TableSnapshot | None = None
        self._pending_key: tuple | None = None
        self._pending_since = 0.0
        self._pending_count = 0

    def reset(self) -> None:
        self.stable = None
        self._pending_key = None

    def update(self, snapshot: TableSnapshot, still: bool, now: float | None = None) -> TableSnapshot | None:
        now = time.monotonic() if now is None else now
        if not still:
            self._pending_key = None
            return None
        merged = self._with_hidden(snapshot)
        key = _key(merged)
        if self.stable is not None and key == _key(self.stable):
            self._pending_key = None
            self.stable = merged  # same state; positions and hidden flags may have moved
            return None
        if key != self._pending_key:
            self._pending_key, self._pending_since, self._pending_count = key, now, 1
            return None
        self._pending_count += 1
        if self._pending_count >= self.still_frames and now - self._pending_since >= self.persist_s:
            self._pending_key = None
            self.stable = merged
            return merged
        return None

    def _with_hidden(self, snapshot: TableSnapshot) -> TableSnapshot:
        """The frame's stacks plus the stable stacks that are hidden now, each flagged."""
        stacks = [replace(s, hidden=False) for s in snapshot.stacks]
        if self.stable is not None:
            shown = {s.location for s in stacks}
            for old in self.stable.stacks:
                if old.location in shown:
                    continue
                if any(self._same_spot(old, new) for new in stacks):
                    continue  # another stack lies there now: this one is gone
                stacks.append(replace(old, hidden=True))
        stacks.sort(key=lambda s: (s.location, s.center_px))
        return replace(snapshot, stacks=tuple(stacks), stable=True)

    def _same_spot(self, a: StackView, b: StackView) -> bool:
        d = _distance(a, b)
        if d != float("inf"):
            return d <= self.spot_mm
        return _distance_px(a, b) <= self.spot_px


class TableWatcher:
    """Reader, table geometry, snapshot and stabiliser for one camera.

    >>> watcher = TableWatcher(width_mm=800, height_mm=450)       # doctest: +SKIP
    >>> stable = watcher.update(frame)   # every frame               # doctest: +SKIP
    >>> if stable is not None: runtime.observe(stable)             # doctest: +SKIP

    ``latest`` is the last frame's snapshot and ``reading`` its raw reading (for
    the live view's overlay); ``stable`` the last stable snapshot.
    """

    def __init__(self, *, width_mm: float = 800.0, height_mm: float = 600.0, calibration_px=None,
                 calibration_on=None, decoder: str = "zxing", full_resolution: bool = True, still_frames: int = 3,
                 persist_s: float = 1.0):
        self.reader = TagReader(decoder=decoder, full_resolution=full_resolution)
        self.locator = TableLocator(width_mm, height_mm, calibration_px, calibration_on)
        self.stabiliser = Stabiliser(still_frames=still_frames, persist_s=persist_s)
        self.latest: TableSnapshot | None = None
        self.reading: FrameReading | None = None
        self.geometry = None

    @classmethod
    def from_settings(cls, table: Mapping, **options) -> "TableWatcher":
        """From the configuration's ``[table]`` section (``width_mm``, ``height_mm``, ``corners_px`` and the
        ``picture_px`` they were clicked on)."""
        return cls(width_mm=float(table.get("width_mm", 800.0)), height_mm=float(table.get("height_mm", 600.0)),
                   calibration_px=table.get("corners_px") or None, calibration_on=table.get("picture_px") or None,
                   **options)

    @property
    def stable(self) -> TableSnapshot | None:
        return self.stabiliser.stable

    def update(self, frame=None, *, work: np.ndarray | None = None, full=None, now: float | None = None,
               number: int = 0) -> TableSnapshot | None:
        """Feed one frame (a camera ``Frame``, or ``work`` and optional ``full``); a new stable snapshot or None."""
        if frame is not None:
            work, full = frame.work, getattr(frame, "full", None)
            number = getattr(frame, "number", number)
            now = getattr(frame, "timestamp", now) if now is None else now
        now = time.monotonic() if now is None else now
        reading = self.reader.read(work, full)
        geometry = self.locator.update(reading.sightings, reading.work_size) if reading.work_size[0] else None
        problems = list(reading.problems)
        if self.locator.problem and (geometry is None or geometry.source != "corners"):
            problems.append(self.locator.problem)
        snap = cards.snapshot(reading.sightings, geometry, problems=problems, timestamp=now, frame=number)
        self.reading, self.latest, self.geometry = reading, snap, geometry
        # The reader skips decoding exactly when nothing moved since the last decoded frame.
        return self.stabiliser.update(snap, reading.reused, now)
