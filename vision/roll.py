"""Roll detection: read the dice once they have been still for a moment after motion.

The camera pipeline feeds every working image to :class:`RollDetector`. Nothing is
read while things move in or by the tray (a hand, tumbling dice; motion elsewhere on the
table does not count, :func:`watched_part`). Once the tray has been still for
``Stillness.still_frames`` frames after a motion, the detector reads the next
``vote_frames`` still frames and votes: the dice are tracked by position from frame to
frame, each die's face is the one most frames agree on, and a die seen in fewer than
half the frames is dropped (a reflection, a passing shadow). The result is one
:class:`DiceObservation`, handed to ``runtime.observe`` and from there to the game's
referee (``companion/referees/fandooble.py``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.dice.types import DiceReader, DiceReading
from vision.dice.zone import crop_to_zone, hide_tags, moved, without_tags
from vision.motion import Stillness


@dataclass(frozen=True)
class SeenDie:
    """One die of a roll after the vote.

    ``face``: the face most still frames agreed on, None when it could not be read (then
    ``reason`` says why: cocked, stacked, partly out of the tray, unclear). ``guess``: for a die
    that could not be read, the face most frames read or took it for, when that is most of
    them; a face for a person to confirm, never a reading.
    ``confidence``: the reader's mean confidence for that face times the share of frames
    that agreed. ``box_px``: x, y, w, h in the working image. ``position_mm``: the die's
    centre on the table in millimetres when the table geometry is known, else None.
    """

    face: str | None
    confidence: float
    box_px: tuple[int, int, int, int]
    position_mm: tuple[float, float] | None = None
    reason: str = ""
    die: str | None = None
    guess: str | None = None

    @property
    def center_px(self) -> tuple[float, float]:
        x, y, w, h = self.box_px
        return (x + w / 2, y + h / 2)

    def to_json(self) -> dict:
        out = {"face": self.face, "confidence": round(self.confidence, 3), "box_px": list(self.box_px)}
        if self.position_mm is not None:
            out["position_mm"] = [round(v, 1) for v in self.position_mm]
        if self.reason:
            out["reason"] = self.reason
        if self.die:
            out["die"] = self.die
        if self.guess:
            out["guess"] = self.guess
        return out


@dataclass(frozen=True)
class DiceObservation:
    """What the camera saw in the tray after a roll: the observation the pipeline passes to referees.

    ``kind``: the dice reader's kind (``pips``, ``taught``, ``aruco``); ``frames``: how many
    still frames were voted over; ``timestamp``: the last of them (seconds, the camera's clock).
    """

    dice: tuple[SeenDie, ...]
    timestamp: float = 0.0
    frames: int = 1
    kind: str = ""
    die_px: float = 0.0

    @property
    def faces(self) -> list[str | None]:
        return [d.face for d in self.dice]

    @property
    def confidences(self) -> list[float]:
        return [d.confidence for d in self.dice]

    @property
    def boxes(self) -> list[tuple[int, int, int, int]]:
        return [d.box_px for d in self.dice]

    @property
    def positions(self) -> list[tuple[float, float] | None]:
        return [d.position_mm for d in self.dice]

    @property
    def unreadable(self) -> int:
        return sum(1 for d in self.dice if d.face is None)

    def to_json(self) -> dict:
        return {"kind": self.kind, "frames": self.frames, "timestamp": self.timestamp,
                "dice": [d.to_json() for d in self.dice], "unreadable": self.unreadable}

    @classmethod
    def from_reading(cls, reading: DiceReading, *, kind: str = "", timestamp: float = 0.0,
                     image_to_table: np.ndarray | None = None) -> "DiceObservation":
        """One frame's reading as an observation (no vote), e.g. for a still photo."""
        dice = tuple(SeenDie(d.face, d.confidence, d.box, _to_table(d.center, image_to_table), d.reason, d.die,
                             d.guess) for d in reading.dice)
        return cls(dice, timestamp, 1, kind, reading.die_px)


def _to_table(point, image_to_table) -> tuple[float, float] | None:
    if image_to_table is None:
        return None
    mapped = cv2.perspectiveTransform(np.array([[point]], np.float64), np.asarray(image_to_table, np.float64))
    return (float(mapped[0, 0, 0]), float(mapped[0, 0, 1]))


@dataclass
class RollDetector:
    """Feed :meth:`update` every working image; it returns a :class:`DiceObservation` once per roll.

    ``zone``: the tray as a pixel polygon (None = whole frame); ``image_to_table``: the
    homography from image pixels to table millimetres, for ``position_mm``; ``tags``: the
    tags in view (each its corner points in pixels): nothing found on a tag is a die.
    """

    reader: DiceReader
    zone: np.ndarray | None = None
    image_to_table: np.ndarray | None = None
    tags: list = field(default_factory=list)
    vote_frames: int = 3
    stillness: Stillness = field(default_factory=Stillness)

    def __post_init__(self):
        self._readings: list[DiceReading] = []
        self._watching: np.ndarray | None = None  # the tray whose motion is watched

    def update(self, image: np.ndarray, timestamp: float = 0.0) -> DiceObservation | None:
        if not self.stillness.update(watched_part(image, self._watched_zone())):
            self._readings.clear()
            return None
        if not self.stillness.moved_since_still:
            return None  # still, but nothing was thrown since the last reading
        reading = self.reader.read(hide_tags(image, self.tags), self.zone)
        self._readings.append(without_tags(reading, self.tags))
        if len(self._readings) < self.vote_frames:
            return None
        observation = vote(self._readings, kind=self.reader.kind, timestamp=timestamp,
                           image_to_table=self.image_to_table)
        self._readings.clear()
        self.stillness.settled()
        return observation

    def restart(self) -> None:
        """The tray was not watched for a while (dice taught meanwhile): what lies in it now was set down, not
        thrown. The next throw is the next roll."""
        self._readings.clear()
        self.stillness.forget()

    def _watched_zone(self) -> np.ndarray | None:
        """The tray as last watched, until it has :func:`~vision.dice.zone.moved`: a watched part of another size
        or place is motion, and a tray placed afresh in every picture wanders by a pixel."""
        zone = None if self.zone is None else np.asarray(self.zone, np.float64)
        if moved(zone, self._watching):
            self._watching = zone
        return self._watching


def watched_part(image: np.ndarray, zone: np.ndarray | None) -> np.ndarray:
    """The part of ``image`` whose motion matters for dice: the tray and a rim of a twentieth of its size around
    it (a hand reaching in, a die on its edge). The camera sees the whole table, and players go on moving
    cards and glasses beside the tray while the dice settle: the whole picture is seldom still for long.
    The whole picture when there is no tray, or it lies outside the picture."""
    if zone is None:
        return image
    corners = np.asarray(zone, np.float64)
    rim = int(0.05 * float(np.ptp(corners, axis=0).max()))
    part, _ = crop_to_zone(image, corners, rim)
    return part if part.size else image


def vote(readings: list[DiceReading], *, kind: str = "", timestamp: float = 0.0,
         image_to_table: np.ndarray | None = None) -> DiceObservation:
    """Merge the readings of several still frames: dice matched by position, faces by majority."""
    side = float(np.median([r.die_px for r in readings if r.die_px] or [20.0]))
    tracks: list[list] = []  # each: list of Die, one per frame where it was seen
    for reading in readings:
        for die in reading.dice:
            track = min(tracks, key=lambda t: _distance(t[-1].center, die.center), default=None)
            if track is not None and _distance(track[-1].center, die.center) < 0.5 * side:
                track.append(die)
            else:
                tracks.append([die])
    dice = []
    for track in tracks:
        if len(track) * 2 <= len(readings):
            continue  # seen in too few frames to be a die lying in the tray
        votes = Counter(d.face for d in track)
        face, agreeing = votes.most_common(1)[0]
        if face is not None and agreeing * 2 <= len(readings):
            face = None  # no majority: the frames disagree
        chosen = [d for d in track if d.face == face]
        confidence = float(np.mean([d.confidence for d in chosen])) * agreeing / len(readings) if face else 0.0
        reason = "" if face else (Counter(d.reason for d in chosen).most_common(1)[0][0] if chosen and chosen[0].reason
                                  else "the frames disagree")
        last = track[-1]
        dice.append(SeenDie(face, confidence, last.box, _to_table(last.center, image_to_table), reason,
                            chosen[-1].die if chosen else None, None if face else _guess(track, len(readings))))
    dice.sort(key=lambda d: (d.box_px[1], d.box_px[0]))
    return DiceObservation(tuple(dice), timestamp, len(readings), kind, side)


def _guess(track: list, frames: int) -> str | None:
    """The face most of ``frames`` read or took the die for (a face unclear's guess), when it is most of them."""
    taken, agreeing = Counter(d.face or d.guess for d in track).most_common(1)[0]
    return taken if taken and agreeing * 2 > frames else None


def _distance(a, b) -> float:
    return float(np.hypot(a[0] - b[0], a[1] - b[1]))
