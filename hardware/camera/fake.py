"""A scripted camera that misbehaves on cue, for supervisor tests and for rehearsing faults.

``ScriptedCamera(script)`` delivers small frames and follows a script of faults:

* ``fail_opens=K``: the first K ``start()`` calls raise CameraUnavailable;
* ``stall_after=N``: after N frames ``read()`` blocks (ignoring its timeout) until released;
* ``raise_after=N``: after N frames ``read()`` raises CameraError;
* ``hang_on_stop=True``: ``stop()`` blocks until released.

Counters are shared through a :class:`Script` so every camera a factory builds
(one per restart) reads the same script; ``release()`` frees every blocked call,
so a test leaves no thread behind. Picklable, so it also runs in a child process.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from hardware.camera.base import Camera, CameraError, CameraUnavailable, Frame


@dataclass
class Script:
    """What the cameras built from one script do, and what happened so far."""

    fail_opens: int = 0
    stall_after: int | None = None
    raise_after: int | None = None
    hang_on_stop: bool = False
    faults_for: int = 1_000_000  # how many cameras (starts) misbehave before they all behave
    size: tuple[int, int] = (64, 48)
    opens: int = 0
    stops: int = 0
    frames: int = 0
    _release: threading.Event = field(default_factory=threading.Event, repr=False)

    def release(self) -> None:
        """Unblock every stalled read and hung stop, now and later."""
        self._release.set()

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_release"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._release = threading.Event()


class ScriptedCamera(Camera):
    name = "scripted"

    def __init__(self, script: Script | None = None):
        self.script = script or Script()
        self._started = False
        self._faulty = True
        self._count = 0

    def start(self) -> None:
        s = self.script
        s.opens += 1
        if s.opens <= s.fail_opens:
            raise CameraUnavailable(f"scripted: no camera (open {s.opens} of {s.fail_opens} failing)")
        self._faulty = s.opens - s.fail_opens <= s.faults_for
        self._started = True
        self._count = 0

    def read(self, timeout: float = 2.0) -> Frame:
        if not self._started:
            raise CameraError("scripted: not started")
        s = self.script
        if self._faulty and s.stall_after is not None and self._count >= s.stall_after:
            s._release.wait()  # a sensor that never answers: the timeout is not honoured
            raise CameraError("scripted: released from a stall")
        if self._faulty and s.raise_after is not None and self._count >= s.raise_after:
            raise CameraError("scripted: the camera vanished mid-stream")
        self._count += 1
        s.frames += 1
        w, h = s.size
        work = np.full((h, w, 3), self._count % 256, np.uint8)
        time.sleep(0.005)
        return Frame(work=work, timestamp=time.time(), number=self._count)

    def stop(self) -> None:
        self.script.stops += 1
        self._started = False
        if self._faulty and self.script.hang_on_stop:
            self.script._release.wait()
