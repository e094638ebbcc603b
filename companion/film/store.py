"""What a film is made of, and how a recording lies on disk.

A recording is a folder::

    film.json       format, versions, configuration, picture sizes, when it started
    frames.jsonl    one line per camera frame (see :class:`FilmFrame`)
    inputs.jsonl    one line per input, with the frame it arrived after (see :class:`FilmInput`)
    live.jsonl      the lines the evening produced as it happened (:mod:`companion.film.lines`)
    images/         working images around changes (JPEG), named by frame number
    crops/          the full-resolution crops the reader looked at in those frames
    db/             a copy of the database each time a game was opened

Lines are appended and flushed as they come, so a recording cut short by a power
cut is readable up to its last whole line.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from companion.errors import CompanionError

FORMAT = "table-companion-film"
VERSION = 1
HEADER, FRAMES, INPUTS, LIVE = "film.json", "frames.jsonl", "inputs.jsonl", "live.jsonl"
IMAGES, CROPS, DATABASES = "images", "crops", "db"


class FilmError(CompanionError):
    """A folder that is not a film, or a film this version cannot play."""


@dataclass(frozen=True)
class FilmInput:
    """Something a person (or the demo's script) entered: ``kind`` names the runtime's input
    (``play``, ``undo``, ``redo``, ``correct``, ``resolve_alert``, ``dismiss_all_alerts``,
    ``raise_alert``, ``open``, ``new_game`` or a start registered with the player); it is delivered after frame ``frame``
    has been taken in full (0: before the first frame)."""

    frame: int
    kind: str
    args: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"frame": self.frame, "kind": self.kind, "args": self.args}

    @classmethod
    def from_json(cls, data: dict) -> "FilmInput":
        return cls(int(data["frame"]), str(data["kind"]), dict(data.get("args") or {}))


Image = np.ndarray | Callable[[], "np.ndarray | None"] | None


@dataclass
class FilmFrame:
    """One camera frame of a film.

    A rendered film (the demo) carries every ``image``. A recording carries what the
    reader made of the frame instead: ``still`` (it had not moved: the reading before
    it stands) or ``reading`` (:meth:`vision.reader.FrameReading.to_json`), and an
    ``image`` only around changes, with the full-resolution ``crops`` (x0, y0, image)
    the reader looked at. ``roll`` is a dice roll the frame completed; ``stable`` the
    stable snapshot it settled. ``inputs`` are delivered after the frame.
    """

    number: int
    t: float
    image: Image = None
    still: bool | None = None
    reading: dict | None = None
    crops: tuple = ()
    full_size: tuple[int, int] | None = None
    roll: dict | None = None
    stable: dict | None = None
    inputs: list[FilmInput] = field(default_factory=list)

    def picture(self) -> np.ndarray | None:
        """The working image, loaded now when the film keeps it on disk."""
        return self.image() if callable(self.image) else self.image

    def full(self) -> np.ndarray | None:
        """A full-resolution frame holding only the recorded crops (grey elsewhere), or None."""
        if not self.crops or self.full_size is None:
            return None
        width, height = self.full_size
        canvas = np.full((height, width), 128, np.uint8)
        for x0, y0, load in self.crops:
            crop = load() if callable(load) else load
            if crop is None:
                continue
            if crop.ndim == 3:
                import cv2

                crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
            h, w = crop.shape[:2]
            canvas[y0:y0 + h, x0:x0 + w] = crop[:height - y0, :width - x0]
        return canvas


class ScriptFilm:
    """A film made in memory (the demo table, benchmarks): a header, the inputs before the first
    frame, and a function that yields the frames from the start each time it is called."""

    def __init__(self, header: dict, start: list[FilmInput], frames: Callable[[], Iterable[FilmFrame]]):
        self.header = header
        self.start = start
        self._frames = frames

    def frames(self) -> Iterator[FilmFrame]:
        return iter(self._frames())


class RecordedFilm:
    """A recording on disk, read frame by frame (a two-hour night does not fit in memory as pictures)."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        path = self.directory / HEADER
        if not path.is_file():
            raise FilmError(f"{self.directory} is not a recording: it has no {HEADER} "
                            "(record one with 'companion run --record DIR')")
        try:
            self.header = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise FilmError(f"{path} cannot be read: {exc}") from None
        if self.header.get("format") != FORMAT:
            raise FilmError(f"{path} is not a Table Companion film")
        if int(self.header.get("version", 0)) > VERSION:
            raise FilmError(f"{path} was written by a newer companion (film version {self.header['version']}); "
                            "update this one to replay it")
        self.start: list[FilmInput] = []
        self._inputs: dict[int, list[FilmInput]] = {}
        for data in read_lines(self.directory / INPUTS):
            item = FilmInput.from_json(data)
            if item.frame <= 0:
                self.start.append(item)
            else:
                self._inputs.setdefault(item.frame, []).append(item)

    def frames(self) -> Iterator[FilmFrame]:
        last = 0
        for data in read_lines(self.directory / FRAMES):
            number = last = int(data["n"])
            image = data.get("image")
            yield FilmFrame(
                number=number, t=float(data["t"]),
                image=self._loader(image) if image else None,
                still=bool(data.get("still")),
                reading=data.get("reading"),
                crops=tuple((x0, y0, self._loader(name)) for x0, y0, name in data.get("crops", ())),
                full_size=tuple(data["full_size"]) if data.get("full_size") else None, roll=data.get("roll"), stable=data.get("stable"),
                inputs=list(self._inputs.get(number, ())),
            )
        # Inputs after the last whole frame line (the recording stopped between them).
        for number in sorted(n for n in self._inputs if n > last):
            yield FilmFrame(number=number, t=float("nan"), still=True, inputs=list(self._inputs[number]))

    def _loader(self, name: str) -> Callable[[], np.ndarray | None]:
        path = self.directory / name

        def load() -> np.ndarray | None:
            import cv2

            return cv2.imread(str(path), cv2.IMREAD_UNCHANGED)

        return load

    def database(self, name: str) -> Path:
        return self.directory / name

    def live_lines(self) -> list[dict]:
        return list(read_lines(self.directory / LIVE))


def read_lines(path: Path) -> Iterator[dict]:
    """The JSON lines of ``path``; a last line cut short (power cut while recording) is left out."""
    if not path.is_file():
        return
    with path.open("r", encoding="utf-8") as stream:
        for line in stream:
            if not line.endswith("\n"):
                return
            line = line.strip()
            if line:
                try:
                    yield json.loads(line)
                except ValueError:
                    return


def roll_to_json(observation: Any) -> dict:
    """A dice observation (:class:`vision.roll.DiceObservation`) with every field, for replay."""
    data = {f.name: getattr(observation, f.name) for f in dataclasses.fields(observation)}
    data["dice"] = [dataclasses.asdict(d) for d in observation.dice]
    return data


def roll_from_json(data: dict) -> Any:
    from vision.roll import DiceObservation, SeenDie

    def die(fields: dict) -> SeenDie:
        fields = dict(fields)
        fields["box_px"] = tuple(fields["box_px"])
        if fields.get("position_mm") is not None:
            fields["position_mm"] = tuple(fields["position_mm"])
        return SeenDie(**fields)

    rest = {k: v for k, v in data.items() if k != "dice"}
    return DiceObservation(dice=tuple(die(d) for d in data["dice"]), **rest)
