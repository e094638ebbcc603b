"""The demo camera: a scripted table rendered by ``vision.synth``, for a companion without a camera.

The picture source is injectable: a callable ``source(number) -> BGR image``
(``None`` ends the show) or any iterable of images. A source may also give
``(image, timestamp)``: a scripted show that runs on its own clock. By default it plays
``vision.synth.demo`` (a scripted Fabled Fruit game) when that module is there,
else a simple synthetic table: felt, four corner tags and a card that moves.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any, Callable, Iterable, Iterator, Mapping

import numpy as np

from hardware.camera.base import Camera, CameraError, Frame, Pacer, frame_from_image

_log = logging.getLogger(__name__)

Source = Callable[[int], "np.ndarray | tuple | None"] | Iterable[np.ndarray]


class DemoCamera(Camera):
    """Plays a scene at ``fps`` frames per second.

    :param source: see the module docstring; None picks the default scene.
    :param size: (width, height) of the default synthetic table.
    :param work_width: the working image is scaled down to this width; ``full()`` is the rendered picture.
    """

    name = "demo"
    may_hang = False  # it waits for the runtime to take each picture (see companion.film.player.LiveShow)

    def __init__(self, source: Source | None = None, *, fps: float = 10.0, loop: bool = True,
                 size: tuple[int, int] = (1280, 720), work_width: int | None = None):
        self._given = source
        self.fps = fps
        self.loop = loop
        self.size = size
        self.work_width = work_width
        self._frames: Iterator[np.ndarray] | None = None
        self._number = 0
        self._pacer = Pacer(fps, "demo camera")

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> "DemoCamera":
        return cls(fps=settings.get("fps", 10.0), work_width=settings.get("work_width"))

    def start(self) -> None:
        source = self._given if self._given is not None else default_source(self.size)
        self._frames = _iterate(source, self.loop)
        self._pacer.start()

    def read(self, timeout: float = 2.0) -> Frame:
        if self._frames is None:
            raise CameraError("the demo camera is not started")
        self._pacer.wait(timeout)
        try:
            image = next(self._frames)
        except StopIteration:
            raise CameraError("the demo scene is over") from None
        self._number += 1
        timestamp = None
        if isinstance(image, tuple):
            image, timestamp = image
        return frame_from_image(image, self._number, self.work_width, timestamp)

    def stop(self) -> None:
        self._pacer.stop()
        self._frames = None


def _iterate(source: Source, loop: bool) -> Iterator[np.ndarray]:
    if callable(source):
        number = 0
        while True:
            image = source(number)
            if image is None:
                if not loop or number == 0:
                    return
                number = 0
                continue
            yield image
            number += 1
    elif loop and isinstance(source, (list, tuple)) and source:
        while True:
            yield from source
    else:
        yield from source


def default_source(size: tuple[int, int] = (1280, 720)) -> Source:
    """``vision.synth.demo``'s scripted game when importable, else :class:`SyntheticTable`."""
    try:
        demo = importlib.import_module("vision.synth.demo")
    except ImportError:
        demo = None
    if demo is not None:
        for name in ("frames", "demo_frames"):
            frames = getattr(demo, name, None)
            if callable(frames):
                _log.info("demo camera: playing vision.synth.demo.%s()", name)
                return _images_only(frames)
        _log.warning("vision.synth.demo has no frames(); showing the simple synthetic table")
    return SyntheticTable(size)


def _images_only(frames: Callable[[], Iterable[Any]]) -> Callable[[int], np.ndarray | None]:
    """Adapts a generator of images (or of objects with ``.image``) to the ``source(number)`` form."""
    state: dict[str, Iterator[Any]] = {}

    def source(number: int) -> np.ndarray | None:
        if number == 0 or "it" not in state:
            state["it"] = iter(frames())
        try:
            item = next(state["it"])
        except StopIteration:
            return None
        return getattr(item, "image", item)

    return source


class SyntheticTable:
    """A green table seen from above: corner tags TB:NW..TB:SW and one location card moving between spots.

    Rendered once per position and reused, so it costs almost nothing per frame.
    """

    CORNERS = ("TB:NW", "TB:NE", "TB:SE", "TB:SW")

    def __init__(self, size: tuple[int, int] = (1280, 720), *, module_px: int = 5, frames_per_spot: int = 50,
                 seed: int = 7):
        self.size = size
        self.module_px = module_px
        self.frames_per_spot = frames_per_spot
        self.rng = np.random.default_rng(seed)
        self._clean: dict[int, np.ndarray] = {}
        self._cache: dict[tuple[int, int], np.ndarray] = {}

    def _tag(self, payload: str) -> np.ndarray:
        import cv2
        import segno

        qr = segno.make_qr(payload, error="h", mode="alphanumeric")
        matrix = np.array([[0 if bit else 255 for bit in row] for row in qr.matrix], np.uint8)
        matrix = np.pad(matrix, 4, constant_values=255)  # the quiet zone
        side = matrix.shape[0] * self.module_px
        tag = cv2.resize(matrix, (side, side), interpolation=cv2.INTER_NEAREST)
        return cv2.cvtColor(tag, cv2.COLOR_GRAY2BGR)

    def _render(self, spot: int) -> np.ndarray:
        from vision.synth import effects

        w, h = self.size
        table = np.zeros((h, w, 3), np.uint8)
        table[:] = (60, 110, 40)
        margin = 20
        for payload, (x, y) in zip(self.CORNERS, ((0, 0), (1, 0), (1, 1), (0, 1))):
            tag = self._tag(payload)
            s = tag.shape[0]
            cx = margin + s / 2 if x == 0 else w - margin - s / 2
            cy = margin + s / 2 if y == 0 else h - margin - s / 2
            effects.paste(table, tag, (cx, cy), 0.0)
        card = np.full((int(h * 0.3), int(h * 0.21), 3), 235, np.uint8)
        tag = self._tag(f"FF:{spot % 9 + 1:02d}:1")
        card[4 : 4 + tag.shape[0], 4 : 4 + tag.shape[1]] = tag[: card.shape[0] - 4, : card.shape[1] - 4]
        spots = [(0.35, 0.45), (0.55, 0.5), (0.7, 0.4)]
        fx, fy = spots[spot % len(spots)]
        effects.paste(table, card, (fx * w, fy * h), 8.0 * (spot % 3 - 1))
        table = effects.warp(table, effects.tilt_homography(self.size, 6.0, 30.0), border=(40, 40, 40))
        return effects.uneven_light(table, 0.8, 20.0)

    def __call__(self, number: int) -> np.ndarray:
        from vision.synth import effects

        # A few noisy copies per card position: the picture shimmers like a sensor's without
        # paying for fresh noise on every frame.
        key = (number // self.frames_per_spot % 3, number % 4)
        if key not in self._cache:
            if key[0] not in self._clean:
                self._clean[key[0]] = self._render(key[0])
            self._cache[key] = effects.noise(self._clean[key[0]], 2.0, self.rng)
        return self._cache[key]
