"""The camera interface every backend implements."""

from __future__ import annotations

import abc
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import cv2
import numpy as np


class CameraError(RuntimeError):
    """Raised when a camera fails while running (a stalled or vanished sensor)."""


class CameraUnavailable(CameraError):
    """Raised when a camera cannot be opened at all (none attached, busy, no driver)."""


@dataclass
class Frame:
    """One picture of the table.

    ``work`` is the working image (the small stream, BGR uint8) that vision
    processes every frame. The full-resolution frame is fetched only on request,
    through :meth:`full`, because reading it costs time on a Pi; a backend without
    a separate full stream returns the working image.
    """

    work: np.ndarray
    timestamp: float
    number: int = 0
    _full: Callable[[], np.ndarray] | None = field(default=None, repr=False)
    _full_cache: np.ndarray | None = field(default=None, repr=False)

    def full(self) -> np.ndarray:
        if self._full_cache is None:
            self._full_cache = self._full() if self._full is not None else self.work
        return self._full_cache

    @property
    def scale(self) -> float:
        """Full-resolution pixels per working-image pixel."""
        if self._full is None and self._full_cache is None:
            return 1.0
        return self.full().shape[1] / self.work.shape[1]


class Camera(abc.ABC):
    """``start()``, then ``read()`` frames, then ``stop()``. Also a context manager."""

    name: str = "camera"
    # A driver can hang in read(); the supervisor restarts a camera silent for twice the frame timeout.
    # A picture source made in software (the demo table) is slow only when the machine or the runtime
    # it waits for is: restarting it would only start its show again, so it says False.
    may_hang: bool = True

    @abc.abstractmethod
    def start(self) -> None:
        """Open the device; raises CameraUnavailable when it cannot."""

    @abc.abstractmethod
    def read(self, timeout: float = 2.0) -> Frame:
        """The next frame; raises CameraError when none arrives within ``timeout`` seconds."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Release the device. Safe to call twice."""

    def __enter__(self) -> "Camera":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def shrink(image: np.ndarray, width: int | None) -> np.ndarray:
    """``image`` scaled down to ``width`` pixels wide (never up)."""
    if not width or image.shape[1] <= width:
        return image
    height = max(1, round(image.shape[0] * width / image.shape[1]))
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


def frame_from_image(image: np.ndarray, number: int, work_width: int | None, timestamp: float | None = None) -> Frame:
    """A frame whose working image is ``image`` scaled down to ``work_width``; ``full()`` is ``image``.
    ``timestamp`` defaults to now (a scripted source brings its own time)."""
    work = shrink(image, work_width)
    return Frame(work=work, timestamp=time.time() if timestamp is None else timestamp, number=number,
                 _full=(lambda: image) if work is not image else None)


class Pacer:
    """Releases pictures at ``fps`` (0: as fast as they are asked for); :meth:`stop` wakes a waiting read."""

    def __init__(self, fps: float, what: str):
        self.fps = fps
        self.what = what
        self._due = 0.0
        self._stopped = threading.Event()

    def start(self) -> None:
        self._stopped.clear()
        self._due = time.monotonic()

    def stop(self) -> None:
        self._stopped.set()

    def wait(self, timeout: float) -> None:
        """Sleep until the next picture is due; CameraError when that is beyond ``timeout`` or on stop."""
        if self.fps <= 0:
            return
        wait = self._due - time.monotonic()
        if wait > timeout:
            raise CameraError(f"no picture due within {timeout:.1f} s")
        if wait > 0 and self._stopped.wait(wait):
            raise CameraError(f"the {self.what} was stopped")
        self._due = max(self._due + 1.0 / self.fps, time.monotonic() - 1.0)
