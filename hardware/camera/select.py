"""Which camera to use: the explicit choice, then ``COMPANION_CAMERA``, then picamera2, USB, demo.

Like gpiozero's ``PinFactoryFallback``, every step down the automatic chain warns
with :class:`CameraFallback`, so a companion that ends up on the demo table says
why (no picamera2, no camera on the ribbon cable, no ``/dev/video0``).

>>> open_camera({"backend": "demo", "fps": 0}).name
'demo'
"""

from __future__ import annotations

import functools
import os
import warnings
from typing import Any, Mapping

from hardware.camera.base import Camera, CameraUnavailable

BACKENDS = ("picamera2", "usb", "file", "demo")
AUTO_ORDER = ("picamera2", "usb", "demo")
ENV = "COMPANION_CAMERA"


class CameraFallback(UserWarning):
    """The preferred camera is not there; the next one in the automatic order is tried."""


def settings_of(config_or_section: Any) -> dict:
    """The ``[camera]`` settings from a Config, its camera section, or a plain dict."""
    if hasattr(config_or_section, "to_dict"):
        return dict(config_or_section.to_dict()["camera"])
    return dict(config_or_section or {})


def chosen_backend(settings: Mapping[str, Any], backend: str | None = None, env: Mapping[str, str] | None = None
                   ) -> str:
    """The backend asked for: the argument, else ``COMPANION_CAMERA``, else the configuration; ``auto`` if none."""
    env = os.environ if env is None else env
    for choice, where in ((backend, "the command line"), (env.get(ENV), ENV),
                          (settings.get("backend"), "[camera] backend")):
        if choice:
            choice = choice.strip().lower()
            if choice != "auto" and choice not in BACKENDS:
                raise CameraUnavailable(f"{where} names the camera '{choice}'; cameras are auto, {', '.join(BACKENDS)}")
            return choice
    return "auto"


def make_camera(backend: str, settings: Mapping[str, Any], *, isolate: bool | None = None) -> Camera:
    """An unstarted camera of ``backend``.

    picamera2 runs in a child process by default (``isolate``), because its
    driver can hang beyond any timeout and only a process can be killed.
    """
    settings = dict(settings)
    if backend == "picamera2":
        from hardware.camera.picamera2 import Picamera2Camera

        if isolate is None or isolate:
            from hardware.camera.process import ProcessCamera

            return ProcessCamera(functools.partial(Picamera2Camera, settings), name="picamera2")
        return Picamera2Camera(settings)
    if backend == "usb":
        from hardware.camera.usb import OpenCVCamera

        factory = functools.partial(OpenCVCamera.from_settings, settings)
    elif backend == "file":
        from hardware.camera.files import FileCamera

        factory = functools.partial(FileCamera.from_settings, settings)
    elif backend == "demo":
        from hardware.camera.demo import DemoCamera

        factory = functools.partial(DemoCamera.from_settings, settings)
    else:
        raise CameraUnavailable(f"unknown camera '{backend}'; cameras are {', '.join(BACKENDS)}")
    if isolate:
        from hardware.camera.process import ProcessCamera

        return ProcessCamera(factory, name=backend)
    return factory()


def why_not(backend: str, settings: Mapping[str, Any]) -> str | None:
    """A cheap look for ``backend`` without opening it: None when it may be there, else the reason."""
    if backend == "picamera2":
        try:
            from picamera2 import Picamera2
        except Exception as exc:
            return f"picamera2 is not installed here ({type(exc).__name__}: {exc})"
        try:
            if not Picamera2.global_camera_info():
                return "no Raspberry Pi camera is connected"
        except Exception as exc:
            return f"libcamera cannot list cameras ({exc})"
        return None
    if backend == "usb":
        from hardware.camera.usb import device_present

        device = settings.get("usb_device", 0)
        return None if device_present(device) else f"no USB camera at /dev/video{device}"
    return None


def resolve_backend(settings: Mapping[str, Any], backend: str | None = None, env: Mapping[str, str] | None = None
                    ) -> str:
    """The backend to build: an explicit choice as is, ``auto`` resolved by a cheap look (warning at each fallback)."""
    choice = chosen_backend(settings, backend, env)
    if choice != "auto":
        return choice
    for candidate in AUTO_ORDER[:-1]:
        reason = why_not(candidate, settings)
        if reason is None:
            return candidate
        warnings.warn(CameraFallback(f"{candidate}: {reason}; trying the next camera"), stacklevel=2)
    return AUTO_ORDER[-1]


def open_camera(config_or_section: Any = None, backend: str | None = None, *, env: Mapping[str, str] | None = None,
                isolate: bool | None = None) -> Camera:
    """A started camera.

    An explicit choice (``backend``, ``COMPANION_CAMERA`` or ``[camera] backend``) is
    opened or raises CameraUnavailable. ``auto`` tries picamera2, a USB webcam and
    the demo table in turn, warning with :class:`CameraFallback` at each step down.
    """
    settings = settings_of(config_or_section)
    choice = chosen_backend(settings, backend, env)
    candidates = AUTO_ORDER if choice == "auto" else (choice,)
    for candidate in candidates:
        if choice == "auto" and candidate != AUTO_ORDER[-1]:
            reason = why_not(candidate, settings)
            if reason is not None:
                warnings.warn(CameraFallback(f"{candidate}: {reason}; trying the next camera"), stacklevel=2)
                continue
        camera = make_camera(candidate, settings, isolate=isolate)
        try:
            camera.start()
        except CameraUnavailable as exc:
            if choice != "auto" or candidate == AUTO_ORDER[-1]:
                raise
            warnings.warn(CameraFallback(f"{candidate}: {exc}; trying the next camera"), stacklevel=2)
            continue
        return camera
    raise CameraUnavailable("no camera could be opened")  # the demo camera always opens; kept for clarity


def camera_factory(config_or_section: Any = None, backend: str | None = None, *,
                   env: Mapping[str, str] | None = None, isolate: bool | None = None):
    """A factory for the supervisor: resolves the backend once (warning at each fallback), then
    builds that same backend at every restart, so a Pi camera that drops out is retried rather
    than silently replaced by the demo table."""
    settings = settings_of(config_or_section)
    name = resolve_backend(settings, backend, env)
    factory = functools.partial(make_camera, name, settings, isolate=isolate)
    factory.backend = name  # type: ignore[attr-defined]
    return factory
