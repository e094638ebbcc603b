"""Runs a camera backend in a child process, so a driver that hangs can be killed.

Threads cannot be killed; processes can. picamera2 can block forever in
``stop()``/``close()`` after a cable fault, and re-creating it in the same process
can leave ``capture_array()`` stuck (picamera2 #1264, #336). Behind
:class:`ProcessCamera` the parent never waits on the driver for longer than a
deadline: a read that overruns raises CameraError, and ``stop()`` ends the child
(ask, then SIGTERM, then SIGKILL) within a few seconds whatever the driver does.

Frames travel through a pipe on request (one working image per ``read()``; the
full-resolution frame only when asked). The child is started with ``spawn``: no
copy of the parent's threads or its open database (forking with an open SQLite
connection is a corruption hazard).
"""

from __future__ import annotations

import contextlib

import logging
import multiprocessing
import threading
from typing import Callable

from hardware.camera.base import Camera, CameraError, CameraUnavailable, Frame

_log = logging.getLogger(__name__)


def _child(conn, factory: Callable[[], Camera]) -> None:
    try:
        camera = factory()
        camera.start()
    except CameraUnavailable as exc:
        conn.send(("unavailable", str(exc)))
        return
    except Exception as exc:
        conn.send(("unavailable", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("started", getattr(camera, "name", "camera")))
    last: Frame | None = None
    try:
        while True:
            try:
                request = conn.recv()
            except EOFError:  # the parent went away
                return
            verb = request[0]
            try:
                if verb == "read":
                    last = camera.read(request[1])
                    conn.send(("frame", last.work, last.timestamp, last.number))
                elif verb == "full":
                    if last is None:
                        raise CameraError("no frame was read yet")
                    conn.send(("full", last.full()))
                elif verb == "stop":
                    break
            except CameraError as exc:
                conn.send(("error", str(exc)))
            except Exception as exc:  # a driver bug must reach the parent as a camera fault
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        camera.stop()
        with contextlib.suppress(OSError):  # the parent may already have gone
            conn.send(("stopped",))


class ProcessCamera(Camera):
    """``factory()`` builds the real camera inside a child process.

    :param factory: a picklable callable returning an unstarted Camera (e.g.
        ``functools.partial(Picamera2Camera, settings)``).
    :param start_timeout: seconds the child may take to import its libraries and open the device.
    :param stop_timeout: seconds granted to each step of ending the child (ask, SIGTERM, SIGKILL).
    """

    def __init__(self, factory: Callable[[], Camera], *, name: str = "camera", start_timeout: float = 30.0,
                 stop_timeout: float = 2.0):
        self.factory = factory
        self.name = name
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self._proc = None
        self._conn = None
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        if self._proc is not None:
            return
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_child, args=(child, self.factory), name=f"camera-{self.name}", daemon=True)
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        reply = self._receive(self.start_timeout, "to open")
        if reply[0] != "started":
            self.stop()
            raise CameraUnavailable(reply[1] if len(reply) > 1 else "the camera process could not open the camera")

    def _receive(self, timeout: float, doing: str):
        conn = self._conn
        if conn is None:
            raise CameraError("the camera is not started")
        try:
            if not conn.poll(timeout):
                raise CameraError(f"the {self.name} camera took longer than {timeout:.1f} s {doing}")
            return conn.recv()
        except (EOFError, OSError) as exc:
            code = self._proc.exitcode if self._proc is not None else None
            raise CameraError(f"the {self.name} camera process ended (exit code {code})") from exc

    def _ask(self, request: tuple, timeout: float, doing: str):
        with self._lock:
            if self._conn is None:
                raise CameraError("the camera is not started")
            try:
                self._conn.send(request)
            except (OSError, ValueError) as exc:
                raise CameraError(f"the {self.name} camera process is gone") from exc
            return self._receive(timeout, doing)

    def read(self, timeout: float = 2.0) -> Frame:
        # A little slack over the child's own timeout for the copy through the pipe.
        reply = self._ask(("read", timeout), timeout + 1.0, "to deliver a frame")
        if reply[0] == "error":
            raise CameraError(reply[1])
        _, work, stamp, number = reply
        return Frame(work=work, timestamp=stamp, number=number, _full=lambda: self._full(timeout))

    def _full(self, timeout: float):
        reply = self._ask(("full",), timeout + 2.0, "to deliver the full frame")
        if reply[0] == "error":
            raise CameraError(reply[1])
        return reply[1]

    def stop(self) -> None:
        """Ends the child within about 3 x ``stop_timeout`` seconds, whatever its driver does."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if proc is None:
            return
        if conn is not None:
            with contextlib.suppress(OSError, ValueError):  # a child that died closed its end
                conn.send(("stop",))
        proc.join(self.stop_timeout)
        if proc.is_alive():
            _log.warning("the %s camera process did not stop; terminating it", self.name)
            proc.terminate()
            proc.join(self.stop_timeout)
        if proc.is_alive():
            _log.error("the %s camera process ignored SIGTERM; killing it", self.name)
            proc.kill()
            proc.join(self.stop_timeout)
        if conn is not None:
            conn.close()
        if not proc.is_alive():
            proc.close()
