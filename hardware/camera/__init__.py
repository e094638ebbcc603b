"""Cameras behind one interface: :class:`Camera` delivers :class:`Frame` objects.

Backends (picamera2, USB through OpenCV, file replay, the demo table) live in
their own modules and import their libraries lazily, so this package imports
anywhere.
"""

from hardware.camera.base import Camera, CameraError, CameraUnavailable, Frame

__all__ = ["Camera", "CameraError", "CameraUnavailable", "Frame"]
