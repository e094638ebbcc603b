"""Replays a photo, a folder of images or a video file as if a camera were looking at the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import cv2
import numpy as np

from hardware.camera.base import Camera, CameraError, CameraUnavailable, Frame, Pacer, frame_from_image

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
# 50 megapixels: any camera's full frame and a phone's photo; decoded, 150 MB. Larger would not fit a Pi.
MAX_PIXELS = 50_000_000


class ImageTooLarge(ValueError):
    """Raised before decoding an image whose header says it would not fit in memory."""


def image_pixels(path) -> tuple[int, str] | None:
    """How many pixels the file's header announces, and its size in words ("40000x40000"), without
    decoding it; None when Pillow cannot tell (OpenCV may still read it). ``path`` may also be an open
    binary file."""
    import re
    import warnings

    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(path) as image:
                width, height = image.size
                return width * height, f"{width}x{height} pixels"
        except Image.DecompressionBombError as exc:  # beyond Pillow's own limit, which is beyond ours
            found = re.search(r"\((\d+) pixels\)", str(exc))
            return (int(found.group(1)) if found else 10**12), "pixels"
        except (OSError, ValueError, SyntaxError):
            return None


def read_image(path: str | Path, *, max_pixels: int = MAX_PIXELS) -> np.ndarray | None:
    """The image at ``path`` as BGR, or None when it is not an image OpenCV reads.

    The size is checked from the header first: an image larger than ``max_pixels`` is refused
    with :class:`ImageTooLarge` before a byte of it is decoded (a 40000x40000 PNG would need
    4.8 GB).
    """
    found = image_pixels(path)
    if found is not None and found[0] > max_pixels:
        raise ImageTooLarge(f"{path} has {found[0] / 1e6:.0f} MP ({found[1]}): at most {max_pixels / 1e6:.0f} MP "
                            "are read; scale it down first")
    return cv2.imread(str(path), cv2.IMREAD_COLOR)


def decode_image(data: bytes, *, max_pixels: int = MAX_PIXELS) -> np.ndarray | None:
    """:func:`read_image` for an image's bytes (a photo sent from a phone)."""
    import io

    found = image_pixels(io.BytesIO(data))
    if found is not None and found[0] > max_pixels:
        raise ImageTooLarge(f"the photo has {found[0] / 1e6:.0f} MP ({found[1]}): at most {max_pixels / 1e6:.0f} MP "
                            "are read; send a smaller one")
    if not data:
        return None
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


class FileCamera(Camera):
    """Pictures from ``path``: a folder of images (in name order) or a video.

    :param fps: pace of delivery; 0 delivers as fast as they are read (tests).
    :param loop: start again at the end; otherwise ``read()`` raises CameraError there.
    :param work_width: the working image is scaled down to this width; ``full()`` is the file itself.
    """

    name = "file"

    def __init__(self, path: str | Path, *, fps: float = 10.0, loop: bool = True, work_width: int | None = None):
        self.path = Path(path)
        self.fps = fps
        self.loop = loop
        self.work_width = work_width
        self._images: list[Path] = []
        self._video = None
        self._still: np.ndarray | None = None
        self._index = 0
        self._number = 0
        self._pacer = Pacer(fps, "file camera")

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> "FileCamera":
        if not settings.get("file_path"):
            raise CameraUnavailable("the file camera needs [camera] file_path: a photo, a folder of images or a video")
        return cls(settings["file_path"], fps=settings.get("fps", 10.0), work_width=settings.get("work_width"))

    def start(self) -> None:
        if self.path.is_dir():
            self._images = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._images:
                raise CameraUnavailable(f"{self.path} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        elif self.path.is_file() and self.path.suffix.lower() in IMAGE_SUFFIXES:
            self._images = [self.path]  # one photo of the table, shown again and again
        elif self.path.is_file():
            video = cv2.VideoCapture(str(self.path))
            if not video.isOpened():
                video.release()
                raise CameraUnavailable(f"{self.path} is neither an image folder nor a video OpenCV can read")
            self._video = video
        else:
            raise CameraUnavailable(f"{self.path} does not exist")
        self._index = 0
        self._pacer.start()

    def _next_image(self) -> np.ndarray:
        if self._video is not None:
            ok, image = self._video.read()
            if not ok and self.loop and self._index > 0:
                self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)
                self._index = 0
                ok, image = self._video.read()
            if not ok:
                raise CameraError(f"the video {self.path.name} has no more frames")
            self._index += 1
            return image
        if self._index >= len(self._images):
            if not self.loop:
                raise CameraError(f"all {len(self._images)} images of {self.path} were shown")
            self._index = 0
        path = self._images[self._index]
        self._index += 1
        if len(self._images) == 1 and self._still is not None:
            return self._still  # (decoding the same file ten times a second would only cost time)
        try:
            image = read_image(path)
        except ImageTooLarge as exc:
            raise CameraError(str(exc)) from None
        if image is None:
            raise CameraError(f"{path} cannot be read as an image")
        if len(self._images) == 1:
            self._still = image
        return image

    def read(self, timeout: float = 2.0) -> Frame:
        if not self._images and self._video is None:
            raise CameraError("the file camera is not started")
        self._pacer.wait(timeout)
        image = self._next_image()
        self._number += 1
        return frame_from_image(image, self._number, self.work_width)

    def stop(self) -> None:
        self._pacer.stop()
        if self._video is not None:
            self._video.release()
            self._video = None
        self._images = []
        self._still = None
