"""The tray zone: a rectangle on the table, mapped into the picture; dice inside, across or outside it."""

from __future__ import annotations

import cv2
import numpy as np


def zone_polygon(rect_mm: tuple[float, float, float, float], table_to_image: np.ndarray) -> np.ndarray:
    """The tray rectangle ``(x, y, width, height)`` in table millimetres as a pixel polygon (4 x 2).

    ``table_to_image`` is the 3 x 3 homography from table millimetres to image pixels.
    """
    x, y, w, h = rect_mm
    corners = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(corners, np.asarray(table_to_image, np.float64)).reshape(-1, 2)


def placement(box: tuple[int, int, int, int], zone: np.ndarray | None) -> str:
    """'inside', 'across' (partly out of the tray) or 'outside' for a die's pixel box."""
    if zone is None:
        return "inside"
    x, y, w, h = box
    polygon = np.asarray(zone, np.float32).reshape(-1, 1, 2)
    inside = [cv2.pointPolygonTest(polygon, (float(px), float(py)), False) >= 0
              for px, py in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))]
    if all(inside):
        return "inside"
    centre_in = cv2.pointPolygonTest(polygon, (x + w / 2, y + h / 2), False) >= 0
    return "across" if any(inside) or centre_in else "outside"


def crop_to_zone(image: np.ndarray, zone: np.ndarray | None, margin: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The part of ``image`` around ``zone`` (plus ``margin`` pixels) and its top-left corner."""
    if zone is None:
        return image, (0, 0)
    h, w = image.shape[:2]
    xs, ys = np.asarray(zone)[:, 0], np.asarray(zone)[:, 1]
    x0, y0 = max(0, int(xs.min()) - margin), max(0, int(ys.min()) - margin)
    x1, y1 = min(w, int(np.ceil(xs.max())) + margin), min(h, int(np.ceil(ys.max())) + margin)
    if x1 <= x0 or y1 <= y0:
        return image[0:0, 0:0], (0, 0)
    return image[y0:y1, x0:x1], (x0, y0)
