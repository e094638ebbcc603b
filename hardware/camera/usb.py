"""A USB webcam (or any source OpenCV's VideoCapture opens) as a :class:`Camera`."""

from __future__ import annotations

import logging
import os
import struct
import sys
from typing import Any, Mapping

import cv2

from hardware.camera.base import Camera, CameraError, CameraUnavailable, Frame, frame_from_image
from hardware.camera.mains import mains_hz

log = logging.getLogger(__name__)

# linux/videodev2.h and linux/v4l2-controls.h: what a webcam is told about the lamps' flicker.
VIDIOC_S_CTRL = 0xC008561C  # _IOWR('V', 28, struct v4l2_control): the control's id and value, two 32-bit integers
POWER_LINE_FREQUENCY = 0x00980900 + 24  # V4L2_CID_BASE + 24
POWER_LINE_SETTING = {50: 1, 60: 2}  # V4L2_CID_POWER_LINE_FREQUENCY_50HZ, _60HZ


def set_v4l2_control(device: int, control: int, value: int) -> None:
    """Set a control of ``/dev/video<device>`` (OSError where the webcam has no such control). V4L2 lets a second
    opening of a device set its controls while another streams, as ``v4l2-ctl`` does."""
    import fcntl

    fd = os.open(f"/dev/video{device}", os.O_RDWR)
    try:
        fcntl.ioctl(fd, VIDIOC_S_CTRL, struct.pack("Ii", control, value))
    finally:
        os.close(fd)


def device_present(device: int) -> bool:
    """Whether ``/dev/video<device>`` exists (asked before OpenCV, which prints noise for a missing one)."""
    if sys.platform.startswith("linux"):
        return os.path.exists(f"/dev/video{device}")
    return True


class OpenCVCamera(Camera):
    """A webcam through OpenCV.

    :param device: a device number (``/dev/videoN``) or a path/URL OpenCV can open.
    :param work_width: the working image is scaled down to this width; ``full()`` is the camera's picture.
    :param full_width: the resolution asked of the camera (it may give less).
    :param capture: what opens the device (OpenCV's ``VideoCapture``; a stand-in in tests).
    :param mains_hz: the lamps' mains frequency (50 or 60; 0 leaves the webcam's own setting): the webcam is told
        to keep its exposure to whole flicker periods (V4L2's power line frequency control).
    :param control: what sets a V4L2 control (:func:`set_v4l2_control`; a stand-in in tests).

    ``read()`` cannot be interrupted inside OpenCV; a webcam that hangs is noticed and
    abandoned by :class:`hardware.supervisor.CameraSupervisor`.
    """

    name = "usb"

    def __init__(self, device: int | str = 0, *, work_width: int | None = None, full_width: int | None = None,
                 capture=cv2.VideoCapture, mains_hz: int = 0, control=set_v4l2_control):
        self.device = device
        self.mains_hz = mains_hz
        self._control = control
        self.work_width = work_width
        self.full_width = full_width
        self._capture = capture
        self._cap = None
        self._number = 0

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> "OpenCVCamera":
        return cls(settings.get("usb_device", 0), work_width=settings.get("work_width"),
                   full_width=settings.get("full_width"), mains_hz=mains_hz(settings.get("mains_hz", 0))[0])

    def start(self) -> None:
        if self._cap is not None:
            return
        if isinstance(self.device, int) and not device_present(self.device):
            raise CameraUnavailable(f"no USB camera at /dev/video{self.device}")
        cap = self._capture(self.device, cv2.CAP_V4L2) if isinstance(self.device, int) else self._capture(str(self.device))
        if not cap.isOpened():
            cap.release()
            raise CameraUnavailable(f"OpenCV cannot open the camera {self.device!r}")
        if isinstance(self.device, int) and self.full_width:
            # Motion JPEG first: OpenCV's V4L2 keeps a webcam's first format, raw YUYV, which its larger sizes send at
            # 5 to 10 pictures a second where MJPG sends 30 (opencv/opencv#9540); a webcam without MJPG keeps YUYV.
            cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.full_width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.full_width * 9 // 16)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest picture, not one queued seconds ago
        if isinstance(self.device, int) and self.mains_hz in POWER_LINE_SETTING:
            self._tell_the_mains()
        self._cap = cap

    def _tell_the_mains(self) -> None:
        try:
            self._control(self.device, POWER_LINE_FREQUENCY, POWER_LINE_SETTING[self.mains_hz])
        except OSError as exc:  # a webcam without the control, or a device that is not a webcam
            log.warning("the webcam /dev/video%s keeps its own flicker setting: it refused the %s Hz mains (%s); "
                        "lamps may band its picture", self.device, self.mains_hz, exc.strerror or exc)

    def read(self, timeout: float = 2.0) -> Frame:
        if self._cap is None:
            raise CameraError("the camera is not started")
        ok, image = self._cap.read()
        if not ok or image is None:
            raise CameraError(f"the camera {self.device!r} sent no picture (unplugged, or the video ended)")
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        self._number += 1
        return frame_from_image(image, self._number, self.work_width)

    def stop(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()
