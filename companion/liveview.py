"""The live view: the latest camera picture (with detections drawn on it) as JPEG for every viewer.

One producer (the camera pipeline) publishes; any number of MJPEG viewers wait
for the next picture. Encoding happens once per picture, not once per viewer, and
only while someone is watching.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict

import cv2
import numpy as np

from hardware.camera.base import shrink


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
        self._picture: tuple[int, int] | None = None

    @property
    def watched(self) -> bool:
        """True while a viewer asked for a picture recently; the producer skips encoding otherwise."""
        return time.monotonic() - self._last_viewer < self.idle_after_s

    @property
    def picture_size(self) -> tuple[int, int] | None:
        """The (width, height) of the camera's working picture the latest view shows, drawn smaller: what a
        point tapped on the view is in the camera's pixels (None before the first view)."""
        return self._picture

    def publish(self, image: np.ndarray, *, force: bool = False, picture: tuple[int, int] | None = None) -> None:
        """Offer a new BGR picture; encoded only when someone watches (or ``force``). ``picture`` is the size
        of the working picture ``image`` was drawn from (default: ``image``'s own)."""
        if not (force or self.watched):
            return
        jpeg = encode_jpeg(image, self.width, self.quality)
        if jpeg is None:
            return
        with self._changed:
            self._jpeg = jpeg
            self._picture = tuple(picture) if picture else (image.shape[1], image.shape[0])
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


class RollPictures:
    """The last few rolls as the camera read them (the tray, dice boxed and labelled), for the alerts that
    ask a person about a roll: the player looks at the die the camera could not read rather than reading
    about it. Kept in memory only, as pictures, and encoded when asked for: a roll costs a crop, not a JPEG.
    After a restart an older alert's picture is gone, and says so."""

    def __init__(self, *, keep: int = 8, width: int = 960, quality: int = 80):
        self.keep = keep
        self.width = width
        self.quality = quality
        self._lock = threading.Lock()
        self._pictures: OrderedDict[str, np.ndarray] = OrderedDict()

    def add(self, image: np.ndarray) -> str:
        """Keep ``image`` (BGR) and return its name: random, so an alert of an earlier run never shows
        a picture of this one."""
        name = secrets.token_hex(8)
        small = shrink(image, self.width)
        image = small if small is not image else image.copy()  # never a view keeping a whole frame alive
        with self._lock:
            self._pictures[name] = image
            while len(self._pictures) > self.keep:
                self._pictures.popitem(last=False)
        return name

    def jpeg(self, name: str) -> bytes | None:
        with self._lock:
            image = self._pictures.get(name)
        return None if image is None else encode_jpeg(image, self.width, self.quality)


def encode_jpeg(image: np.ndarray, width: int, quality: int) -> bytes | None:
    """``image`` as JPEG, shrunk to ``width`` pixels when wider; None if it cannot be encoded."""
    ok, buffer = cv2.imencode(".jpg", shrink(image, width), [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buffer.tobytes() if ok else None
