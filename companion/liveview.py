"""The live view: the latest camera picture (with detections drawn on it) as JPEG for every viewer.

One producer (the camera pipeline) publishes; any number of MJPEG viewers wait
for the next picture. Encoding happens once per picture, not once per viewer, and
only while someone is watching.
"""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np


class LiveView:
    """Latest-frame holder guarded by a condition (cf. picamera2's streaming examples)."""

    def __init__(self, *, width: int = 960, quality: int = 70, idle_after_s: float = 10.0):
        self.width = width
        self.quality = quality
        self.idle_after_s = idle_after_s
        self._changed = threading.Condition()
        self._jpeg: bytes | None = None
        self._number = 0
        self._last_viewer = 0.0

    @property
    def watched(self) -> bool:
        """True while a viewer asked for a picture recently; the producer skips encoding otherwise."""
        return time.monotonic() - self._last_viewer < self.idle_after_s

    def publish(self, image: np.ndarray, *, force: bool = False) -> None:
        """Offer a new BGR picture; encoded only when someone watches (or ``force``)."""
        if not (force or self.watched):
            return
        h, w = image.shape[:2]
        if w > self.width:
            image = cv2.resize(image, (self.width, round(h * self.width / w)), interpolation=cv2.INTER_AREA)
        ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            return
        with self._changed:
            self._jpeg = buffer.tobytes()
            self._number += 1
            self._changed.notify_all()

    def wait_for_jpeg(self, after: int, timeout: float) -> tuple[int, bytes] | None:
        """The first picture newer than number ``after``, or None after ``timeout`` seconds."""
        self._last_viewer = time.monotonic()
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._number <= after or self._jpeg is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)
            return self._number, self._jpeg


class LatestFrame:
    """The camera's newest frame, untouched (no overlay, full working resolution), for whoever needs a
    clean picture (teaching dice from the dashboard). Holding a reference costs nothing per frame."""

    def __init__(self):
        self._changed = threading.Condition()
        self._frame = None
        self._number = 0

    def publish(self, frame) -> None:
        with self._changed:
            self._frame = frame
            self._number += 1
            self._changed.notify_all()

    def wait_for_frame(self, after: int, timeout: float):
        """``(number, frame)`` for the first frame newer than ``after``, or None after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._number <= after or self._frame is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)
            return self._number, self._frame
