"""The Raspberry Pi camera through picamera2 (Camera Module 3, v2, HQ).

picamera2 exists only on Raspberry Pi OS (apt ``python3-picamera2``), so it is
imported when the camera starts, never at module import. Two streams run at once:
``lores`` is the working image processed every frame, ``main`` the full
resolution fetched only when a tag is too small to read in the working image.

Every capture goes through ``wait(job, timeout)`` so a stalled sensor raises
instead of hanging. ``stop()``/``close()`` can still block forever after a fault
(picamera2 #1264, #336): :mod:`hardware.camera.process` runs this class in a
child process the supervisor can kill.
"""

from __future__ import annotations

import contextlib

import time
from typing import Any, Mapping

import cv2
import numpy as np

from hardware.camera.base import Camera, CameraError, CameraUnavailable, Frame
from hardware.camera.mains import mains_hz

# libcamera's AfMode values (controls::AfModeEnum): written as numbers so this
# module needs no libcamera import to build the controls.
AF_MANUAL, AF_CONTINUOUS = 0, 2
FLICKER_MANUAL = 1  # controls::AeFlickerModeEnum: FlickerOff 0, FlickerManual 1


def _even(value: float) -> int:
    return max(2, int(round(value / 2)) * 2)


def _aligned(width: int) -> int:
    """A stream width the ISP keeps unpadded (a multiple of 64), so YUV planes need no stride fix."""
    return max(64, int(width) // 64 * 64)


def yuv420_to_bgr(array: np.ndarray, width: int, height: int) -> np.ndarray:
    """A picamera2 YUV420 buffer (``(h*3/2, stride)``) as a BGR image.

    When the rows carry stride padding the chroma planes cannot be sliced simply;
    then the grey Y plane is returned as BGR, which is all vision needs to read tags.
    """
    if array.shape[1] == width and array.shape[0] >= height * 3 // 2:
        return cv2.cvtColor(np.ascontiguousarray(array[: height * 3 // 2]), cv2.COLOR_YUV2BGR_I420)
    grey = np.ascontiguousarray(array[:height, :width])
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)


def controls_for(settings: Mapping[str, Any], available: Mapping[str, Any]) -> dict:
    """libcamera controls for the configured frame rate, focus, exposure and the lamps' flicker.

    Controls the sensor lacks (a v2 module has no autofocus) are left out.
    """
    controls: dict[str, Any] = {}
    fps = float(settings.get("fps", 10.0))
    if "FrameDurationLimits" in available:
        period = int(1_000_000 / fps)
        controls["FrameDurationLimits"] = (period, period)
    lens = float(settings.get("lens_position", -1.0))
    if "AfMode" in available:
        if lens >= 0:
            # A fixed focus: the camera hangs at one height, and autofocus hunting blurs the tags.
            controls["AfMode"] = AF_MANUAL
            controls["LensPosition"] = lens
        else:
            controls["AfMode"] = AF_CONTINUOUS
    exposure = int(settings.get("exposure_us", 0))
    if exposure > 0 and "ExposureTime" in available:
        controls["AeEnable"] = False
        controls["ExposureTime"] = exposure
    mains = mains_hz(settings.get("mains_hz", 0))[0]
    if mains and exposure <= 0 and "AeFlickerMode" in available:
        # Lamps flicker twice a mains period; an exposure of whole flicker periods takes in as much light in every
        # row, so a rolling shutter draws no bands (bookworm's libcamera and later have the control).
        controls["AeFlickerMode"] = FLICKER_MANUAL
        controls["AeFlickerPeriod"] = flicker_period_us(mains)
    return controls


def flicker_period_us(mains_hz: int) -> int:
    """How long a lamp on ``mains_hz`` takes to flicker once, in microseconds: half a mains period."""
    return 1_000_000 // (2 * mains_hz)


class Picamera2Camera(Camera):
    """A Raspberry Pi camera module.

    :param settings: the ``[camera]`` section (``work_width``, ``full_width``, ``fps``,
        ``lens_position``, ``exposure_us``, ``mains_hz``).
    :param picamera2_class: the ``Picamera2`` class; tests pass a fake, the Pi imports the real one.
    """

    name = "picamera2"

    def __init__(self, settings: Mapping[str, Any] | None = None, *, camera_num: int = 0, picamera2_class=None):
        self.settings = dict(settings or {})
        self.camera_num = camera_num
        self._class = picamera2_class
        self._cam = None
        self._number = 0
        self.work_size: tuple[int, int] | None = None
        self.full_size: tuple[int, int] | None = None

    def _picamera2(self):
        if self._class is None:
            try:
                from picamera2 import Picamera2  # Raspberry Pi OS only
            except Exception as exc:  # ImportError, or numpy ABI trouble (platform.md 2.3)
                raise CameraUnavailable(
                    f"picamera2 cannot be imported ({exc}); on Raspberry Pi OS install python3-picamera2 "
                    "and create the venv with --system-site-packages"
                ) from exc
            self._class = Picamera2
        return self._class

    def start(self) -> None:
        if self._cam is not None:
            return
        Picamera2 = self._picamera2()
        try:
            cameras = Picamera2.global_camera_info()
        except Exception as exc:
            raise CameraUnavailable(f"libcamera cannot list cameras: {exc}") from exc
        if len(cameras) <= self.camera_num:
            raise CameraUnavailable(
                "no Raspberry Pi camera is connected (check the ribbon cable and that the camera is enabled)"
            )
        try:
            cam = Picamera2(self.camera_num)
        except Exception as exc:  # IndexError without a camera, RuntimeError when another process holds it
            raise CameraUnavailable(f"the camera cannot be opened: {exc}") from exc
        try:
            sensor_w, sensor_h = cam.camera_properties.get("PixelArraySize", (4608, 2592))
            aspect = sensor_h / sensor_w
            full_w = min(_aligned(self.settings.get("full_width", 4608)), _aligned(sensor_w))
            work_w = min(_aligned(self.settings.get("work_width", 2304)), full_w)
            self.full_size = (full_w, _even(full_w * aspect))
            self.work_size = (work_w, _even(work_w * aspect))
            # lores must be YUV420 on a Pi 4 and older; main stays YUV420 too (half the memory of RGB).
            config = cam.create_video_configuration(
                main={"size": self.full_size, "format": "YUV420"},
                lores={"size": self.work_size, "format": "YUV420"},
                buffer_count=3,
                controls=controls_for(self.settings, cam.camera_controls),
            )
            cam.configure(config)
            cam.start()
        except Exception as exc:
            _close_quietly(cam)
            raise CameraUnavailable(f"the camera cannot be started: {exc}") from exc
        self._cam = cam

    def _request(self, timeout: float):
        if self._cam is None:
            raise CameraError("the camera is not started")
        try:
            job = self._cam.capture_request(wait=False)
            return self._cam.wait(job, timeout=timeout)
        except Exception as exc:  # TimeoutError from wait(), or libcamera errors after a cable fault
            raise CameraError(f"the camera delivered no picture within {timeout:.1f} s ({exc})") from exc

    def read(self, timeout: float = 2.0) -> Frame:
        request = self._request(timeout)
        try:
            lores = request.make_array("lores")
        finally:
            request.release()
        work = yuv420_to_bgr(lores, *self.work_size)
        self._number += 1
        return Frame(work=work, timestamp=time.time(), number=self._number, _full=lambda: self._read_full(timeout))

    def _read_full(self, timeout: float) -> np.ndarray:
        # The next request's main stream: a frame later than the working image, which is fine
        # because vision asks for it only once the table is still.
        request = self._request(timeout)
        try:
            main = request.make_array("main")
        finally:
            request.release()
        return yuv420_to_bgr(main, *self.full_size)

    def stop(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            _close_quietly(cam)


def _close_quietly(cam) -> None:
    for step in ("stop", "close"):
        # Already stopped, or the device vanished: nothing more to release.
        with contextlib.suppress(Exception):
            getattr(cam, step)()
