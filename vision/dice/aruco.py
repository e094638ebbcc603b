"""Dice with an ArUco sticker on every face: the marker id says the face (a table in the data directory).

ArUco markers carry their own error check, so a marker that is read is read right;
what can go wrong is a die leaning on another (its marker seen at a slant) or a
sticker half out of the tray. Markers need about 4 px per cell (24 px per 4x4 marker,
shared/notes/vision.md section 4).
"""

from __future__ import annotations

import cv2
import numpy as np

from .types import Die, DiceReading
from .zone import placement

STICKER_SHARE = 0.75  # the sticker covers this share of the face's side
MAX_SKEW = 1.35  # longest / shortest side of a marker on a die that lies flat


class ArucoReader:
    """Reads dice by their stickers. ``face_table`` maps marker id -> face (``{0: "C", 1: "G", ...}``)."""

    kind = "aruco"

    def __init__(self, face_table: dict[int, str], dictionary: int = cv2.aruco.DICT_4X4_50):
        self.face_table = {int(k): str(v) for k, v in face_table.items()}
        self._detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary),
                                                 cv2.aruco.DetectorParameters())

    def read(self, image: np.ndarray, zone: np.ndarray | None = None) -> DiceReading:
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _ = self._detector.detectMarkers(grey)
        dice: list[Die] = []
        sides = []
        for quad, marker in zip(corners or (), ids.ravel() if ids is not None else ()):
            quad = quad.reshape(4, 2).astype(np.float64)
            centre = quad.mean(axis=0)
            face_quad = centre + (quad - centre) / STICKER_SHARE
            x, y = np.floor(face_quad.min(axis=0)).astype(int)
            x1, y1 = np.ceil(face_quad.max(axis=0)).astype(int)
            box = (int(x), int(y), int(x1 - x), int(y1 - y))
            lengths = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
            sides.append(float(lengths.mean() / STICKER_SHARE))
            where = placement(box, zone)
            center = (float(centre[0]), float(centre[1]))
            if where == "outside":
                continue
            if where == "across":
                dice.append(Die(None, 0.0, box, center, reason="partly out of the tray"))
            elif lengths.max() > MAX_SKEW * lengths.min():
                dice.append(Die(None, 0.0, box, center, reason="not lying flat (cocked or stacked)"))
            elif int(marker) not in self.face_table:
                dice.append(Die(None, 0.0, box, center, reason=f"marker {int(marker)} is not in the face table"))
            else:
                squareness = float(lengths.min() / lengths.max())
                dice.append(Die(self.face_table[int(marker)], squareness, box, center))
        return DiceReading(tuple(dice), float(np.median(sides)) if sides else 0.0)
