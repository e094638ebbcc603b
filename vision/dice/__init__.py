"""Dice in the tray: find each die and read its top face, with a confidence.

One interface (:class:`DiceReader`: ``read(image, zone=None) -> DiceReading``) for three kinds:

* ``pips``   -- standard d6, found and read by two small networks run in OpenCV (:class:`PipReader`);
* ``taught`` -- picture faces learned once from photos (:class:`TaughtReader`, :class:`FaceTemplates`);
* ``aruco``  -- ArUco stickers on the faces, marker id -> face (:class:`ArucoReader`).

A die that is cocked, stacked, or partly out of the tray zone is reported with
``face=None`` and a reason, never guessed. Pure functions and classes on numpy arrays.
"""

from .aruco import ArucoReader
from .faces import FaceTemplates, TaughtReader
from .pips import PipReader
from .types import DiceReader, DiceReading, Die
from .zone import placement, rect_zone, without_tags, zone_polygon

KINDS = ("pips", "taught", "aruco")


def make_reader(kind: str, *, templates: "FaceTemplates | None" = None, face_table: dict | None = None,
                die_px: float | None = None) -> DiceReader:
    """The reader for ``kind``; taught dice need ``templates``, ArUco dice a ``face_table``."""
    if kind == "pips":
        return PipReader(die_px=die_px)
    if kind == "taught":
        if templates is None or not templates.faces:
            raise ValueError("no faces are taught yet: run 'companion dice teach' first")
        return TaughtReader(templates, die_px=die_px)
    if kind == "aruco":
        return ArucoReader(face_table or {})
    raise ValueError(f"unknown kind of dice {kind!r}: choose one of {', '.join(KINDS)}")


__all__ = [
    "KINDS", "make_reader", "Die", "DiceReading", "DiceReader", "PipReader", "TaughtReader",
    "FaceTemplates", "ArucoReader", "zone_polygon", "rect_zone", "without_tags", "placement",
]
