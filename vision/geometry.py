"""Where things are on the table: working-image pixels <-> table millimetres.

The four corner tags ``TB:NW``, ``TB:NE``, ``TB:SE``, ``TB:SW`` mark the play
area. Their centres are table points (0, 0), (width, 0), (width, height) and
(0, height) in millimetres, so the four of them give the homography. Without
them (not printed, or a hand over one) the last corner-based geometry is kept,
and failing that the stored calibration (``table.corners_px`` in the
configuration: the same four points clicked once on the dashboard).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import cv2
import numpy as np

from vision import tags


@dataclass(frozen=True)
class TableGeometry:
    """A homography from working-image pixels to table millimetres."""

    px_to_mm: np.ndarray
    width_mm: float
    height_mm: float
    corners_px: np.ndarray  # NW, NE, SE, SW in working-image pixels
    source: str  # "corners" (tags seen in this frame), "remembered" (seen earlier) or "calibration"

    def to_mm(self, points_px) -> np.ndarray:
        """N x 2 pixels -> N x 2 millimetres."""
        return _transform(points_px, self.px_to_mm)

    def to_px(self, points_mm) -> np.ndarray:
        return _transform(points_mm, np.linalg.inv(self.px_to_mm))

    def contains(self, point_mm, margin_mm: float = 0.0) -> bool:
        x, y = point_mm
        return (-margin_mm <= x <= self.width_mm + margin_mm) and (-margin_mm <= y <= self.height_mm + margin_mm)

    def mm_per_px(self, point_px) -> float:
        """Local scale at a pixel (millimetres per working pixel), for sizes of things."""
        p = np.asarray(point_px, np.float64)
        pts = self.to_mm(np.array([p, p + [1, 0], p + [0, 1]]))
        return float(np.sqrt(abs(_cross(pts[1] - pts[0], pts[2] - pts[0]))))


def _transform(points, homography) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, homography).reshape(-1, 2)


def _table_points(width_mm: float, height_mm: float) -> np.ndarray:
    return np.array([[0, 0], [width_mm, 0], [width_mm, height_mm], [0, height_mm]], np.float64)


def why_not_table(corners_px: np.ndarray) -> str | None:
    """Why four points (NW, NE, SE, SW) cannot be the table, or None when they can.

    They must form a convex quadrilateral in clockwise order on the image (NW top
    left, NE to its right...), not squashed to a line.
    """
    c = np.asarray(corners_px, np.float64)
    if c.shape != (4, 2) or not np.all(np.isfinite(c)):
        return "four corners (NW, NE, SE, SW), each x and y, are needed"
    crosses = []
    for i in range(4):
        a, b, d = c[i], c[(i + 1) % 4], c[(i + 2) % 4]
        crosses.append(_cross(b - a, d - b))
    if not (all(x > 0 for x in crosses) or all(x < 0 for x in crosses)):
        return "the corners do not form a convex four-sided table in the order NW, NE, SE, SW"
    area = abs(cv2.contourArea(c.astype(np.float32)))
    if area < 100.0:
        return "the corners are too close together"
    return None


def from_corners(corners_px, width_mm: float, height_mm: float, source: str) -> TableGeometry | None:
    """The geometry for four table corners in working pixels (NW, NE, SE, SW), or None if they make no table."""
    try:
        corners = np.asarray(corners_px, np.float64).reshape(-1, 2)
    except (TypeError, ValueError):  # a hand-edited calibration that is not numbers
        return None
    if why_not_table(corners) is not None or width_mm <= 0 or height_mm <= 0:
        return None
    homography = cv2.getPerspectiveTransform(corners.astype(np.float32),
                                             _table_points(width_mm, height_mm).astype(np.float32))
    return TableGeometry(homography.astype(np.float64), float(width_mm), float(height_mm), corners, source)


SHAPE_TOLERANCE = 0.02  # a picture's width to height may differ this much (rounding) and still be the same view


def on_picture(points_px, marked_on: Sequence | None, size: Sequence) -> list[list[float]] | None:
    """Points tapped on a picture ``marked_on`` (width, height) in the pixels of a picture of ``size``.

    The same camera at another working width scales them: a tray tapped on a 2304 px wide picture lies at half
    those pixels on a 1152 px one. A picture of another shape (another camera, or a sensor mode cropping
    differently) shows another part of the table, so the points say nothing there: None. ``marked_on`` None
    (tapped before the picture's size was kept with them): as they are."""
    points = [[float(x), float(y)] for x, y in points_px]
    if not marked_on:
        return points
    (was_w, was_h), (w, h) = marked_on, size
    if abs((w / h) / (was_w / was_h) - 1) > SHAPE_TOLERANCE:
        return None
    return [[x * w / was_w, y * h / was_h] for x, y in points]


def within_picture(points_px, size: Sequence, slack: float = SHAPE_TOLERANCE) -> bool:
    """Whether every point lies on a picture of ``size`` (width, height), give or take ``slack`` of its sides."""
    w, h = size
    return all(-slack * w <= x <= (1 + slack) * w and -slack * h <= y <= (1 + slack) * h for x, y in points_px)


def off_middle(points_px, size: Sequence) -> float:
    """How far the middle of ``points_px`` lies from the middle of a picture of ``size`` (width, height): a share of
    the way to the picture's corner, 0 in its middle, 1 at a corner. Under a camera looking straight down, what lies
    farther is seen more from the side."""
    w, h = size
    x, y = np.mean(np.asarray(points_px, np.float64), axis=0)
    return float(np.hypot(x - w / 2, y - h / 2) / np.hypot(w / 2, h / 2))


def corners_from_tags(sightings: Iterable) -> tuple[np.ndarray | None, str | None]:
    """The four corner-tag centres (NW, NE, SE, SW) from sightings with ``.tag`` and ``.center``.

    Returns (corners, None), or (None, reason) when one is missing or seen twice.
    """
    seen: dict[str, list[tuple[float, float]]] = {c: [] for c in tags.CORNERS}
    for s in sightings:
        if isinstance(s.tag, tags.CornerTag):
            seen[s.tag.corner].append(s.center)
    missing = [c for c in tags.CORNERS if not seen[c]]
    if missing:
        return None, f"corner tag{'s' if len(missing) > 1 else ''} {', '.join('TB:' + c for c in missing)} not seen"
    twice = [c for c in tags.CORNERS if len(seen[c]) > 1]
    if twice:
        return None, f"corner tag {', '.join('TB:' + c for c in twice)} seen more than once"
    return np.array([seen[c][0] for c in tags.CORNERS], np.float64), None


class TableLocator:
    """Keeps the table geometry up to date frame after frame.

    Corner tags in the frame win; when some are hidden the last good corner
    geometry is kept (the camera does not move during a game); without either,
    the stored calibration is used. ``problem`` says why the corners were not used. ``calibration_on`` is the
    (width, height) of the picture the calibration was clicked on: it is placed on each picture size as
    :func:`on_picture` says (none on a picture of another shape).
    """

    def __init__(self, width_mm: float = 800.0, height_mm: float = 600.0,
                 calibration_px: Sequence | None = None, calibration_on: Sequence | None = None):
        self.width_mm = float(width_mm)
        self.height_mm = float(height_mm)
        self._calibration_px = calibration_px if calibration_px is not None and len(calibration_px) else None
        self._calibration_on = calibration_on or None
        self._remembered: TableGeometry | None = None
        self._size: tuple[int, int] | None = None
        self.calibration = self._placed_calibration()
        self.problem: str | None = None

    def _placed_calibration(self) -> TableGeometry | None:
        """The stored calibration on the current picture size (as clicked before any picture is seen)."""
        if self._calibration_px is None:
            return None
        try:
            corners = (self._calibration_px if self._size is None
                       else on_picture(self._calibration_px, self._calibration_on, self._size))
        except (TypeError, ValueError):  # a hand-edited calibration that is not numbers
            return None
        return None if corners is None else from_corners(corners, self.width_mm, self.height_mm, "calibration")

    def update(self, sightings: Iterable, size: tuple[int, int] | None = None) -> TableGeometry | None:
        """The geometry for this frame's sightings; ``size`` is the working image's (width, height)."""
        if size is not None and size != self._size:
            self._remembered = None  # pixels of a different picture size mean other places
            self._size = size
            self.calibration = self._placed_calibration()
        corners, self.problem = corners_from_tags(sightings)
        if corners is not None:
            geometry = from_corners(corners, self.width_mm, self.height_mm, "corners")
            if geometry is not None:
                self._remembered = geometry
                return geometry
            self.problem = "the corner tags are not where a table's corners can be (check NW, NE, SE, SW)"
        if self._remembered is not None:
            r = self._remembered
            return TableGeometry(r.px_to_mm, r.width_mm, r.height_mm, r.corners_px, "remembered")
        return self.calibration


def _cross(u, v) -> float:
    """The z of the cross product of two 2-D vectors (numpy 2 deprecates np.cross for 2-D)."""
    return float(u[0] * v[1] - u[1] * v[0])
