"""The tray zone: a rectangle on the table, mapped into the picture; dice inside, across or outside it.

Nothing outside the tray is a die, and a tag (the table's corner tags, a card's tag) is
never one, even inside the tray: :func:`without_tags` takes out what a reader found on one.
"""

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


MOVED_PX = 4.0  # a tray whose corner moved less is where it was: placed afresh in every picture (by the table's
# corner tags, or its own) it wanders by a pixel


def moved(zone: np.ndarray | None, before: np.ndarray | None, px: float = MOVED_PX) -> bool:
    """Whether the tray ``zone`` lies elsewhere than ``before``: one of them None and not the other, another shape,
    or a corner more than ``px`` pixels away."""
    if zone is None or before is None:
        return zone is not before
    return zone.shape != before.shape or float(np.abs(zone - before).max()) > px


def tray_from_tags(sightings) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """The tray whose four corner tags (:class:`vision.tags.TrayTag` sightings among ``sightings``) are stuck in
    its corners: the polygon through each tag's outermost corner, in order around the tray (4 x 2 pixels), so
    that a die against the tray's wall is inside; and the four tags' corners (each 4 x 2), for whoever reads
    the tray to paint them over. None unless each of the four corners is seen, once."""
    from vision import tags

    found: dict[str, np.ndarray] = {}
    for sighting in sightings:
        if isinstance(sighting.tag, tags.TrayTag):
            if sighting.tag.corner in found:
                return None  # two stickers of one corner: a copy lies about; neither says where the tray is
            found[sighting.tag.corner] = np.asarray(sighting.corners, np.float64).reshape(4, 2)
    if len(found) < len(tags.CORNERS):
        return None
    quads = [found[corner] for corner in tags.CORNERS]
    middle = np.mean([q.mean(axis=0) for q in quads], axis=0)
    points = np.array([q[np.argmax(np.hypot(*(q - middle).T))] for q in quads])
    # In order around their middle: a tag stuck in the wrong corner still outlines the tray, not a bow tie.
    return points[np.argsort(np.arctan2(points[:, 1] - middle[1], points[:, 0] - middle[0]))], quads


def rect_zone(x: float, y: float, w: float, h: float) -> np.ndarray:
    """The pixel rectangle ``x, y, w, h`` as a zone polygon (4 x 2, clockwise from the top left)."""
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)


TAG_GROW = 1.3  # a tag's quiet zone and print margin: a die found there is the tag's own pattern


def on_a_tag(center: tuple[float, float], tags: list[np.ndarray]) -> bool:
    """Whether ``center`` lies on one of the ``tags`` (each its corner points in pixels, N x 2), margin included."""
    for quad in tags:
        quad = np.asarray(quad, np.float32).reshape(-1, 2)
        middle = quad.mean(axis=0)
        grown = (middle + (quad - middle) * TAG_GROW).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(grown, (float(center[0]), float(center[1])), False) >= 0:
            return True
    return False


def codes_seen(image: np.ndarray) -> list:
    """Every code the tag reader finds in ``image`` (:class:`~vision.reader.TagSighting`, the table's and the
    tray's tags, a card's, any other), to be painted over before dice are looked for where no tray bounds the
    picture: a code's black and white squares are die-sized blobs to the die finder."""
    from vision.reader import TagReader

    return list(TagReader(reuse_when_still=False).read(image).sightings)


def hide_tags(image: np.ndarray, tags: list[np.ndarray]) -> np.ndarray:
    """``image`` with each tag (margin included) painted over in the colour around it, so that no die
    finder sees a tag's black-and-white squares, nor takes its size for a die's."""
    if not tags:
        return image
    out = image.copy()
    h, w = image.shape[:2]
    for quad in tags:
        quad = np.asarray(quad, np.float32).reshape(-1, 2)
        middle = quad.mean(axis=0)
        inner = np.round(middle + (quad - middle) * TAG_GROW).astype(np.int32)
        outer = np.round(middle + (quad - middle) * (TAG_GROW + 0.25)).astype(np.int32)
        x0, y0 = np.clip(outer.min(axis=0), 0, [w, h])
        x1, y1 = np.clip(outer.max(axis=0) + 1, 0, [w, h])
        if x1 <= x0 or y1 <= y0:
            continue
        ring = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(ring, outer - [x0, y0], 255)
        hole = np.zeros_like(ring)
        cv2.fillConvexPoly(hole, inner - [x0, y0], 255)
        part = out[y0:y1, x0:x1]
        around = part[(ring > 0) & (hole == 0)]
        if len(around):
            part[hole > 0] = np.median(around.reshape(-1, part.shape[2] if part.ndim == 3 else 1), axis=0) \
                .astype(np.uint8).reshape(-1) if part.ndim == 3 else np.median(around)
    return out


def without_tags(reading, tags: list[np.ndarray]):
    """``reading`` (a :class:`~vision.dice.types.DiceReading`) without the dice found on a tag."""
    if not tags:
        return reading
    return type(reading)(tuple(d for d in reading.dice if not on_a_tag(d.center, tags)), reading.die_px)
