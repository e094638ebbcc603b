"""The camera interface every backend implements."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Callable

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
