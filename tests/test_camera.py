"""Camera backends and how the companion picks one."""

from __future__ import annotations

import threading
import warnings

import cv2
import numpy as np
import pytest

from hardware.camera.base import CameraError, CameraUnavailable
from hardware.camera.demo import DemoCamera, SyntheticTable
from hardware.camera.files import FileCamera
from hardware.camera.picamera2 import AF_MANUAL, FLICKER_MANUAL, Picamera2Camera, controls_for
from hardware.camera.select import CameraFallback, camera_factory, chosen_backend, open_camera
from hardware.camera.usb import POWER_LINE_FREQUENCY, OpenCVCamera, set_v4l2_control


# -- a stand-in for picamera2's Picamera2 class ---------------------------------------------

class FakeRequest:
    def __init__(self, cam):
        self.cam = cam

    def make_array(self, name):
        w, h = self.cam.config[name]["size"]
        y = np.full((h, w), 100, np.uint8)
        uv = np.full((h // 2, w), 128, np.uint8)  # grey: no colour
        return np.vstack([y, uv])

    def release(self):
        self.cam.released += 1


class FakePicamera2:
    cameras = [{"Model": "imx708", "Id": "/base/i2c@0"}]

    def __init__(self, num=0):
        self.config = None
        self.started = False
        self.released = 0
        self.stall = False
        self.camera_properties = {"PixelArraySize": (4608, 2592)}
        self.camera_controls = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0),
                                "ExposureTime": (1, 1000000, 10000), "AeEnable": (False, True, True),
                                "FrameDurationLimits": (1, 10**6, 33333)}
        self.waits = []
        FakePicamera2.last = self

    @classmethod
    def global_camera_info(cls):
        return cls.cameras

    def create_video_configuration(self, main, lores, buffer_count, controls):
        return {"main": main, "lores": lores, "buffer_count": buffer_count, "controls": controls}

    def configure(self, config):
        self.config = config

    def start(self):
        self.started = True

    def capture_request(self, wait=None):
        assert wait is False, "captures must not block: they go through wait(job, timeout)"
        return "job"

    def wait(self, job, timeout=None):
        self.waits.append(timeout)
        if self.stall:
            raise TimeoutError("Dequeue timer expired")
        return FakeRequest(self)

    def stop(self):
        self.started = False

    def close(self):
        pass


def test_the_pi_camera_reads_the_small_stream_and_fetches_full_resolution_on_request():
    cam = Picamera2Camera({"work_width": 2304, "full_width": 4608, "fps": 10, "lens_position": 2.5,
                           "exposure_us": 8000}, picamera2_class=FakePicamera2)
    cam.start()
    fake = FakePicamera2.last
    assert fake.config["lores"] == {"size": (2304, 1296), "format": "YUV420"}
    assert fake.config["main"] == {"size": (4608, 2592), "format": "YUV420"}
    # Camera Module 3 hangs at a fixed height: fixed focus and exposure from the configuration.
    assert fake.config["controls"]["AfMode"] == AF_MANUAL and fake.config["controls"]["LensPosition"] == 2.5
    assert fake.config["controls"]["ExposureTime"] == 8000 and fake.config["controls"]["AeEnable"] is False
    frame = cam.read(timeout=1.5)
    assert frame.work.shape == (1296, 2304, 3) and frame.scale == 2.0
    assert frame.full().shape == (2592, 4608, 3)
    assert fake.waits == [1.5, 1.5] and fake.released == 2
    fake.stall = True
    with pytest.raises(CameraError, match="no picture within 1.5 s"):
        cam.read(timeout=1.5)
    cam.stop()
    assert not fake.started


def test_no_pi_camera_connected_is_reported_before_opening_it(monkeypatch):
    monkeypatch.setattr(FakePicamera2, "cameras", [])
    with pytest.raises(CameraUnavailable, match="no Raspberry Pi camera is connected"):
        Picamera2Camera({}, picamera2_class=FakePicamera2).start()


def test_a_v2_camera_without_autofocus_gets_no_focus_controls():
    controls = controls_for({"lens_position": 2.0, "fps": 5}, {"FrameDurationLimits": (1, 2, 3)})
    assert controls == {"FrameDurationLimits": (200000, 200000)}


def test_the_pi_camera_keeps_its_exposure_to_whole_flicker_periods_of_the_lamps_mains():
    # A lamp flickers twice a mains period: every 10 ms on 50 Hz, 8.333 ms on 60 Hz. On a bright table the camera's
    # automatic exposure is shorter, and a rolling shutter bands the picture (raspberrypi/libcamera#269).
    available = {"AeFlickerMode": (0, 2, 0), "AeFlickerPeriod": (100, 1000000, 10000), "ExposureTime": (1, 10**6, 1)}
    europe = controls_for({"mains_hz": 50}, available)
    assert europe["AeFlickerMode"] == FLICKER_MANUAL and europe["AeFlickerPeriod"] == 10000
    assert controls_for({"mains_hz": 60}, available)["AeFlickerPeriod"] == 8333
    assert "AeFlickerMode" not in controls_for({"mains_hz": 0}, available)  # the camera's own setting
    # A fixed exposure is the player's choice; a libcamera before bookworm's has no flicker control.
    assert "AeFlickerMode" not in controls_for({"mains_hz": 50, "exposure_us": 15000}, available)
    assert controls_for({"mains_hz": 50}, {"ExposureTime": (1, 10**6, 1)}) == {}


@pytest.mark.parametrize(("zone", "hz"), [
    ("Europe/Berlin", 50), ("America/Chicago", 60), ("America/Argentina/Cordoba", 50), ("America/Santiago", 50),
    ("Asia/Seoul", 60), ("Asia/Kolkata", 50), ("Australia/Perth", 50), ("US/Eastern", 60), ("Atlantic/Bermuda", 60),
    ("Asia/Tokyo", 0), ("Etc/UTC", 0), ("UTC", 0), (None, 0)])
def test_auto_takes_the_mains_of_the_time_zones_country_and_none_where_it_does_not_say(zone, hz):
    from hardware.camera.mains import mains_for_zone

    assert mains_for_zone(zone) == hz  # Japan has both (50 Hz east, 60 Hz west); UTC is no country


def test_the_time_zone_is_the_one_raspi_config_sets(tmp_path, monkeypatch):
    from hardware.camera.mains import local_time_zone, mains_hz

    monkeypatch.delenv("TZ", raising=False)
    assert local_time_zone(tmp_path) is None
    (tmp_path / "localtime").symlink_to("/usr/share/zoneinfo/America/Denver")
    assert local_time_zone(tmp_path) == "America/Denver"
    (tmp_path / "timezone").write_text("Europe/Lisbon\n")  # Debian's, written beside the link
    assert local_time_zone(tmp_path) == "Europe/Lisbon"
    monkeypatch.setenv("TZ", "Asia/Manila")
    assert local_time_zone(tmp_path) == "Asia/Manila"
    assert mains_hz("auto", "Asia/Manila") == (60, "60 Hz, the mains of the time zone Asia/Manila")
    assert mains_hz("auto", "Etc/UTC")[0] == 0 and "(set mains_hz = 50 or 60)" in mains_hz("auto", "Etc/UTC")[1]
    assert mains_hz(50, "Asia/Manila") == (50, "50 Hz, as set")


def test_the_pi_camera_and_a_webcam_are_told_the_time_zones_mains_by_default(monkeypatch):
    from companion.config import Config

    monkeypatch.setattr("hardware.camera.mains.local_time_zone", lambda: "America/Toronto")
    settings = dict(Config.defaults()["camera"])
    assert settings["mains_hz"] == "auto"
    available = {"AeFlickerMode": (0, 2, 0), "AeFlickerPeriod": (100, 1000000, 10000)}
    assert controls_for(settings, available)["AeFlickerPeriod"] == 8333
    assert OpenCVCamera.from_settings(settings).mains_hz == 60


def test_the_file_camera_replays_a_folder_in_name_order(tmp_path):
    for i, value in enumerate([10, 20, 30]):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), np.full((60, 80, 3), value, np.uint8))
    cam = FileCamera(tmp_path, fps=0, loop=False, work_width=40)
    with cam:
        frames = [cam.read() for _ in range(3)]
        with pytest.raises(CameraError, match="all 3 images"):
            cam.read()
    assert [int(f.work[0, 0, 0]) for f in frames] == [10, 20, 30]
    assert frames[0].work.shape == (30, 40, 3) and frames[0].full().shape == (60, 80, 3)


def test_the_file_camera_shows_one_photo_of_the_table_for_as_long_as_it_runs(tmp_path):
    """A single photo (a quick look at a table without a camera) is not a video that ends after one picture."""
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), np.full((60, 80, 3), 90, np.uint8))
    with FileCamera(path, fps=0) as cam:
        frames = [cam.read() for _ in range(5)]
    assert [f.number for f in frames] == [1, 2, 3, 4, 5] and all(int(f.work.mean()) == 90 for f in frames)


def test_the_file_camera_and_the_usb_camera_play_a_video(tmp_path):
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for value in (40, 120, 200):
        writer.write(np.full((48, 64, 3), value, np.uint8))
    writer.release()
    with FileCamera(path, fps=0, loop=True) as cam:
        values = [int(cam.read().work.mean()) for _ in range(4)]
    assert [round(v, -1) for v in values] == [40, 120, 200, 40]  # looped back to the start
    with OpenCVCamera(str(path), work_width=32) as usb:
        frame = usb.read()
        assert frame.work.shape == (24, 32, 3) and frame.full().shape == (48, 64, 3)


def test_a_webcam_is_asked_for_motion_jpeg_before_its_size(monkeypatch):
    # Through V4L2 a webcam keeps its first format, raw YUYV, unless asked: a common one lists 1920 x 1080 at 6
    # pictures a second in YUYV and 30 in Motion JPEG. The format is asked first: the size is then looked up in it.
    class Webcam:
        def __init__(self, device, api):
            self.asked = []

        def isOpened(self):
            return True

        def set(self, prop, value):
            self.asked.append((prop, value))
            return True

        def release(self):
            pass

    monkeypatch.setattr("hardware.camera.usb.device_present", lambda device: True)
    camera = OpenCVCamera(0, work_width=1152, full_width=1920, capture=Webcam)
    camera.start()
    asked = [prop for prop, _ in camera._cap.asked]
    assert (cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG")) in camera._cap.asked
    assert asked.index(cv2.CAP_PROP_FOURCC) < asked.index(cv2.CAP_PROP_FRAME_WIDTH)
    camera.stop()


class Webcam:
    """A stand-in for OpenCV's VideoCapture of a webcam that opens."""

    def __init__(self, device, api):
        pass

    def isOpened(self):
        return True

    def set(self, prop, value):
        return True

    def release(self):
        pass


def test_a_webcam_is_told_the_lamps_mains_frequency_and_one_without_the_control_still_starts(monkeypatch, caplog):
    monkeypatch.setattr("hardware.camera.usb.device_present", lambda device: True)
    told = []
    camera = OpenCVCamera(2, full_width=1920, capture=Webcam, mains_hz=60,
                          control=lambda *asked: told.append(asked))
    camera.start()
    assert told == [(2, POWER_LINE_FREQUENCY, 2)]  # V4L2_CID_POWER_LINE_FREQUENCY_60HZ
    camera.stop()

    def refused(device, control, value):
        raise OSError(22, "Invalid argument")

    camera = OpenCVCamera(0, full_width=1920, capture=Webcam, mains_hz=50, control=refused)
    camera.start()
    assert camera._cap is not None
    assert "keeps its own flicker setting: it refused the 50 Hz mains (Invalid argument)" in caplog.text
    camera.stop()
    untold = []
    OpenCVCamera(0, capture=Webcam, control=lambda *asked: untold.append(asked)).start()
    assert untold == []  # 0: the webcam's own setting


def test_a_v4l2_control_is_set_as_the_kernel_reads_it(monkeypatch, tmp_path):
    # VIDIOC_S_CTRL is _IOWR('V', 28, struct v4l2_control { __u32 id; __s32 value; }).
    import fcntl
    import os
    import struct

    asked = []
    real_open = os.open

    def opened(path, flags):
        asked.append(path)
        return real_open(tmp_path / "device", flags | os.O_CREAT)  # a file stands in for the device

    monkeypatch.setattr(os, "open", opened)
    monkeypatch.setattr(fcntl, "ioctl", lambda fd, request, payload: asked.append((request, payload)))
    set_v4l2_control(3, POWER_LINE_FREQUENCY, 1)
    read_write, size, kind, number = 3, 8, ord("V"), 28
    assert asked[0] == "/dev/video3"
    assert asked[1] == ((read_write << 30) | (size << 16) | (kind << 8) | number, struct.pack("Ii", 0x00980918, 1))


def test_a_missing_file_or_usb_camera_is_unavailable(tmp_path):
    with pytest.raises(CameraUnavailable, match="does not exist"):
        FileCamera(tmp_path / "nothing").start()
    with pytest.raises(CameraUnavailable, match="no USB camera at /dev/video63"):
        OpenCVCamera(63).start()


def test_the_demo_camera_plays_an_injected_scene_and_its_default_table_shows_corner_tags():
    frames = [np.full((10, 10, 3), v, np.uint8) for v in (1, 2, 3)]
    with DemoCamera(frames, fps=0) as cam:
        assert [int(cam.read().work[0, 0, 0]) for _ in range(5)] == [1, 2, 3, 1, 2]
    with DemoCamera(lambda n: None if n == 2 else np.zeros((4, 4, 3), np.uint8), fps=0, loop=False) as cam:
        cam.read(), cam.read()
        with pytest.raises(CameraError, match="over"):
            cam.read()
    image = SyntheticTable((640, 360), module_px=3)(0)
    zxingcpp = pytest.importorskip("zxingcpp")
    payloads = {r.text for r in zxingcpp.read_barcodes(image)}
    assert {"TB:NW", "TB:NE", "TB:SE", "TB:SW"} <= payloads


def test_the_demo_camera_paces_frames_and_a_stop_wakes_a_waiting_read():
    cam = DemoCamera([np.zeros((4, 4, 3), np.uint8)], fps=0.5)
    cam.start()
    cam.read()  # the first frame is due at once
    with pytest.raises(CameraError, match="no picture due"):
        cam.read(timeout=0.1)  # the next is 2 s away
    errors = []
    reader = threading.Thread(target=lambda: errors.append(pytest.raises(CameraError, cam.read, 5.0)))
    reader.start()
    cam.stop()
    reader.join(2)
    assert not reader.is_alive() and errors


def test_selection_prefers_the_explicit_choice_then_the_environment_then_the_configuration():
    assert chosen_backend({"backend": "usb"}, "demo", env={"COMPANION_CAMERA": "file"}) == "demo"
    assert chosen_backend({"backend": "usb"}, None, env={"COMPANION_CAMERA": "file"}) == "file"
    assert chosen_backend({"backend": "usb"}, None, env={}) == "usb"
    assert chosen_backend({"backend": "auto"}, None, env={}) == "auto"
    with pytest.raises(CameraUnavailable, match="COMPANION_CAMERA names the camera 'webcam'"):
        chosen_backend({}, None, env={"COMPANION_CAMERA": "webcam"})


def test_automatic_selection_falls_back_to_the_demo_table_warning_at_each_step(monkeypatch):
    monkeypatch.delenv("COMPANION_CAMERA", raising=False)
    with pytest.warns(CameraFallback) as record:
        camera = open_camera({"backend": "auto", "usb_device": 63, "fps": 0})
    try:
        assert camera.name == "demo"
        assert camera.read().work.ndim == 3
    finally:
        camera.stop()
    messages = [str(w.message) for w in record]
    assert messages[0].startswith("picamera2: ") and "no USB camera at /dev/video63" in messages[1]


def test_an_explicit_camera_that_is_missing_is_an_error_not_a_silent_fallback(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(CameraUnavailable, match="does not exist"):
            open_camera({"backend": "file", "file_path": str(tmp_path / "none")})
        factory = camera_factory({"backend": "demo"}, env={})
    assert factory.backend == "demo" and factory().name == "demo"


def test_a_scripted_demo_source_brings_its_own_clock():
    image = np.full((90, 160, 3), 128, np.uint8)
    camera = DemoCamera(lambda number: (image, 100.0 + number / 10), fps=0, loop=False)
    camera.start()
    try:
        assert [camera.read().timestamp for _ in range(3)] == [100.0, 100.1, 100.2]
    finally:
        camera.stop()
