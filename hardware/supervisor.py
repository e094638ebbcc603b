"""Keeps the camera running: a capture that hangs, a camera that vanishes or a stop that never
returns is noticed within seconds, reported, and answered by a restart with backoff.

How a hang is survived. Python threads cannot be killed, so the camera is never
driven from a thread the companion depends on:

* a *reader* thread per camera instance opens it, reads frames and hands each one to
  ``on_frame``; the *monitor* thread only watches clocks and never calls the driver;
* a read that overruns (2 x ``frame_timeout``; not for a software source whose
  ``may_hang`` is False, which is slow only when the machine is), an open that overruns
  (``open_timeout``) or an error ends that camera instance: its reader is abandoned
  and ``stop()`` is called from a throw-away thread, so a ``stop()`` that never
  returns blocks only that thread;
* the Pi camera itself runs in a child process (:mod:`hardware.camera.process`): its
  ``stop()`` kills the child, so a hung picamera2 leaves no thread behind at all.
  For the in-process backends (USB, file, demo) a hang is rare and the leak is
  bounded: with ``max_stuck`` threads still stuck, the supervisor stops restarting
  and reports ``failed`` instead of piling up threads.

Restarts wait 1, 2, 4 ... 30 s (``backoff_start`` doubling up to ``backoff_max``);
the wait goes back to the start once a camera has delivered frames for
``stable_after`` seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from hardware.camera.base import Camera, CameraError, CameraUnavailable, Frame

_log = logging.getLogger(__name__)

OK, DEGRADED, FAILED, STARTING, STOPPED = "ok", "degraded", "failed", "starting", "stopped"

HealthCallback = Callable[[str, str], None]


class _Run:
    """One camera instance and the thread reading it."""

    def __init__(self, clock):
        self.clock = clock
        self.phase = "opening"
        self.since = clock()
        self.camera: Camera | None = None
        self.error: BaseException | None = None
        self.first_frame_at: float | None = None
        self.cancelled = threading.Event()
        self.thread: threading.Thread | None = None
        # Hands the camera over between the reader (which builds it) and _abandon (which stops it):
        # whoever comes second owns the stop, so a camera that leaves the factory late is never leaked.
        self.handover = threading.Lock()

    def enter(self, phase: str) -> None:
        self.phase, self.since = phase, self.clock()


class CameraSupervisor:
    """Runs ``factory()``'s camera until :meth:`stop`, restarting it whenever it fails.

    :param factory: builds an *unstarted* camera; called again for every restart.
    :param on_frame: called with every frame on the reader thread (the vision pipeline's hook).
    :param on_health: called with ``(status, detail)`` whenever the health changes;
        status is ``ok``, ``degraded`` (restarting) or ``failed`` (cannot open, or stuck).
    """

    def __init__(self, factory: Callable[[], Camera], *, on_frame: Callable[[Frame], None] | None = None,
                 on_health: HealthCallback | None = None, frame_timeout: float = 2.0, open_timeout: float = 30.0,
                 stop_timeout: float = 8.0, backoff_start: float = 1.0, backoff_max: float = 30.0,
                 stable_after: float = 30.0, max_stuck: int = 3, failed_after_unavailable: int = 3,
                 tick: float = 0.1, clock: Callable[[], float] = time.monotonic):
        self.factory = factory
        self.backend = getattr(factory, "backend", None) or getattr(factory, "__name__", "camera")
        self.on_frame = on_frame
        self.on_health = on_health
        self.frame_timeout = frame_timeout
        self.open_timeout = open_timeout
        self.stop_timeout = stop_timeout
        self.backoff_start = backoff_start
        self.backoff_max = backoff_max
        self.stable_after = stable_after
        self.max_stuck = max_stuck
        self.failed_after_unavailable = failed_after_unavailable
        self.tick = tick
        self.clock = clock
        self.frames = 0
        self.restarts = 0
        self.heartbeat = clock()
        self._health = (STARTING, f"{self.backend}: starting")
        self._health_lock = threading.Lock()
        self._latest: Frame | None = None
        self._run: _Run | None = None
        self._backoff = backoff_start
        self._next_start = 0.0
        self._unavailable_streak = 0
        self._abandoned: list[tuple[threading.Thread, float]] = []  # (thread, give-up time)
        self._stopping = threading.Event()
        self._monitor: threading.Thread | None = None
        self._consumer_errors = 0

    # -- lifetime -------------------------------------------------------------

    def start(self) -> "CameraSupervisor":
        if self._monitor is None:
            self._stopping.clear()
            self.heartbeat = self.clock()
            self._monitor = threading.Thread(target=self._watch, name="camera-supervisor", daemon=True)
            self._monitor.start()
        return self

    def stop(self, timeout: float | None = None) -> None:
        """Stops the camera and the supervisor; returns within about ``2 x timeout`` seconds."""
        timeout = self.stop_timeout if timeout is None else timeout
        self._stopping.set()
        if self._monitor is not None:
            self._monitor.join(timeout)
            self._monitor = None
        run, self._run = self._run, None
        if run is not None:
            stopper = self._abandon(run)
            stopper.join(timeout)
            if run.thread is not None:
                run.thread.join(timeout)
        for thread, _ in self._abandoned:
            thread.join(max(0.0, timeout / 4))
        self._report(STOPPED, f"{self.backend}: stopped")

    def __enter__(self) -> "CameraSupervisor":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- what others read -----------------------------------------------------

    @property
    def alive(self) -> bool:
        """True while the monitor thread runs and looked at the camera within the last second or two."""
        return (self._monitor is not None and self._monitor.is_alive()
                and self.clock() - self.heartbeat < max(2.0, 20 * self.tick))

    @property
    def health(self) -> tuple[str, str]:
        return self._health

    @property
    def stuck_threads(self) -> int:
        """Abandoned camera threads still inside the driver after their grace time."""
        now = self.clock()
        return sum(1 for thread, give_up in self._abandoned if thread.is_alive() and now >= give_up)

    def latest(self) -> Frame | None:
        """The newest frame, or None before the first one."""
        return self._latest

    # -- the monitor --------------------------------------------------------------

    def _watch(self) -> None:
        while not self._stopping.wait(self.tick):
            self.heartbeat = self.clock()
            try:
                self._check()
            except Exception:  # the monitor must outlive any surprise
                _log.exception("camera supervisor check failed")

    def _check(self) -> None:
        now = self.clock()
        self._abandoned = [(t, g) for t, g in self._abandoned if t.is_alive()]
        run = self._run
        if run is None:
            if now < self._next_start:
                return
            if any(now < give_up for _, give_up in self._abandoned):
                return  # the last camera is still being stopped; opening now would find it busy
            stuck = self.stuck_threads
            if stuck >= self.max_stuck:
                self._report(FAILED, f"{self.backend}: {stuck} camera threads are stuck in the driver; "
                                     "not restarting it (restart the companion or check the camera)")
                return
            self._launch()
            return
        problem = self._problem(run, now)
        if problem is None:
            if run.first_frame_at is not None and now - run.first_frame_at >= self.stable_after:
                self._backoff = self.backoff_start
            return
        self._run = None
        self._abandon(run)
        self.restarts += 1
        if isinstance(run.error, CameraUnavailable):
            self._unavailable_streak += 1
        else:
            self._unavailable_streak = 0
        delay = self._backoff
        self._backoff = min(self._backoff * 2, self.backoff_max)
        self._next_start = now + delay
        status = FAILED if self._unavailable_streak >= self.failed_after_unavailable else DEGRADED
        self._report(status, f"{self.backend}: {problem}; trying again in {delay:g} s")
        _log.warning("camera %s: %s; restart %d in %g s", self.backend, problem, self.restarts, delay)

    def _problem(self, run: _Run, now: float) -> str | None:
        elapsed = now - run.since
        if run.phase == "done":
            error = run.error
            if isinstance(error, CameraUnavailable):
                return f"cannot be opened ({error})"
            if error is not None:
                return f"stopped delivering frames ({error})"
            return "stopped delivering frames"
        if run.phase == "opening" and elapsed > self.open_timeout:
            return f"did not open within {self.open_timeout:g} s"
        hangs = run.camera is None or run.camera.may_hang
        if run.phase == "reading" and elapsed > 2 * self.frame_timeout and hangs:
            return f"no frame for {elapsed:.1f} s (the camera hangs)"
        return None

    def _launch(self) -> None:
        run = _Run(self.clock)
        run.thread = threading.Thread(target=self._read_frames, args=(run,), name="camera-reader", daemon=True)
        self._run = run
        if self._health[0] in (OK, STOPPED):
            self._report(STARTING, f"{self.backend}: starting")
        run.thread.start()

    def _abandon(self, run: _Run) -> threading.Thread:
        """Cancels ``run`` and stops its camera on a throw-away thread (a stop that hangs blocks only it).

        A camera still inside the factory is stopped by its reader when it comes out."""
        with run.handover:
            run.cancelled.set()
            camera = run.camera

        def stop_camera() -> None:
            if camera is not None:
                try:
                    camera.stop()
                except Exception:
                    _log.exception("stopping the %s camera failed", self.backend)

        stopper = threading.Thread(target=stop_camera, name="camera-stopper", daemon=True)
        stopper.start()
        give_up = self.clock() + self.stop_timeout
        self._abandoned.append((stopper, give_up))
        if run.thread is not None and run.thread.is_alive():
            self._abandoned.append((run.thread, give_up))
        return stopper

    # -- the reader -----------------------------------------------------------------

    def _read_frames(self, run: _Run) -> None:
        try:
            camera = self.factory()
            with run.handover:
                abandoned = run.cancelled.is_set()
                if not abandoned:
                    run.camera = camera
            if abandoned:  # given up while the factory was opening it: nobody else will stop it
                _log.warning("the %s camera came out of the factory after it was given up; stopping it", self.backend)
                camera.stop()
                return
            camera.start()
            while not run.cancelled.is_set():
                run.enter("reading")
                frame = camera.read(self.frame_timeout)
                if run.cancelled.is_set():
                    break  # abandoned while reading: this frame belongs to nobody
                run.enter("consuming")
                self._deliver(run, frame)
        except CameraError as exc:
            run.error = exc
        except Exception as exc:  # a driver bug is a camera fault, not a crash of the companion
            run.error = CameraError(f"{type(exc).__name__}: {exc}")
        finally:
            run.enter("done")

    def _deliver(self, run: _Run, frame: Frame) -> None:
        self._latest = frame
        self.frames += 1
        if run.first_frame_at is None:
            run.first_frame_at = self.clock()
            self._unavailable_streak = 0
            self._report(OK, f"{self.backend}: frames arriving")
        if self.on_frame is not None:
            try:
                self.on_frame(frame)
            except Exception:  # vision failing on one frame must not stop the camera
                self._consumer_errors += 1
                if self._consumer_errors <= 3 or self._consumer_errors % 100 == 0:
                    _log.exception("the frame consumer failed (%d times so far)", self._consumer_errors)

    def _report(self, status: str, detail: str) -> None:
        with self._health_lock:
            if self._health == (status, detail):
                return
            self._health = (status, detail)
        if self.on_health is not None:
            try:
                self.on_health(status, detail)
            except Exception:
                _log.exception("reporting the camera's health failed")
