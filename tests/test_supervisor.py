"""The camera supervisor: a camera that stalls, fails to open, vanishes mid-stream or hangs on stop
is noticed within seconds and restarted with backoff, and the companion never freezes."""

from __future__ import annotations

import functools
import os
import threading
import time

import numpy as np
import pytest

from hardware.camera.fake import Script, ScriptedCamera
from hardware.camera.process import ProcessCamera
from hardware.camera.base import CameraError, CameraUnavailable
from hardware.supervisor import CameraSupervisor
from tests.waiting import wait_until

FAST = dict(frame_timeout=0.2, open_timeout=2.0, stop_timeout=0.5, backoff_start=0.05, backoff_max=0.4,
            stable_after=0.5, tick=0.02)


class Recorder:
    """Collects health reports and lets a test wait for one."""

    def __init__(self):
        self.reports: list[tuple[str, str]] = []
        self.changed = threading.Condition()

    def __call__(self, status, detail):
        with self.changed:
            self.reports.append((status, detail))
            self.changed.notify_all()

    def wait_for(self, predicate, timeout=10.0):
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate(self.reports):
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"not reached; health reports were {self.reports}"
                self.changed.wait(remaining)

    def statuses(self):
        return [s for s, _ in self.reports]


def checks_after(sup, count, timeout=10.0):
    """Returns once the supervisor has checked its camera ``count`` more times: an absence (no camera opened)
    is then shown over that many checks however slow the machine, not over a time that a loaded machine
    may fill with fewer."""
    seen = [sup.heartbeat]
    deadline = time.monotonic() + timeout
    while len(seen) <= count:
        assert time.monotonic() < deadline, f"the supervisor checked {len(seen) - 1} times, not {count}"
        if sup.heartbeat != seen[-1]:
            seen.append(sup.heartbeat)
        time.sleep(0.002)


@pytest.fixture
def supervise():
    """Builds supervisors over scripted cameras; stops them and frees every blocked call afterwards."""
    made: list[tuple[CameraSupervisor, Script]] = []
    baseline = threading.active_count()

    def build(script: Script, **options):
        health = Recorder()
        frames = []
        sup = CameraSupervisor(functools.partial(ScriptedCamera, script), on_health=health,
                               on_frame=frames.append, **{**FAST, **options})
        made.append((sup, script))
        return sup.start(), health, frames

    yield build
    for sup, script in made:
        script.release()
        sup.stop()
    deadline = time.monotonic() + 5
    while threading.active_count() > baseline and time.monotonic() < deadline:
        time.sleep(0.02)
    assert threading.active_count() <= baseline, [t.name for t in threading.enumerate()]


def ok_after_restart(reports):
    return any(s != "ok" for s, _ in reports) and reports[-1][0] == "ok"


def test_frames_reach_the_consumer_and_the_health_says_ok(supervise):
    sup, health, frames = supervise(Script())
    health.wait_for(lambda r: r and r[-1][0] == "ok")
    deadline = time.monotonic() + 5
    while len(frames) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(frames) >= 5 and sup.latest() is not None and sup.alive
    assert sup.restarts == 0


def test_a_capture_that_hangs_is_noticed_and_the_camera_restarted(supervise):
    script = Script(stall_after=3, faults_for=1)
    sup, health, frames = supervise(script)
    health.wait_for(ok_after_restart)
    degraded = [d for s, d in health.reports if s == "degraded"]
    assert degraded and "the camera hangs" in degraded[0]
    assert script.opens == 2 and sup.restarts == 1 and sup.alive


def test_a_camera_that_vanishes_mid_stream_is_restarted_with_growing_backoff(supervise):
    script = Script(raise_after=2, faults_for=4)
    sup, health, _ = supervise(script)
    health.wait_for(lambda r: script.opens >= 5 and r[-1][0] == "ok")
    waits = [float(d.rsplit("again in ", 1)[1].split(" s")[0]) for s, d in health.reports if "again in" in d]
    assert waits[:4] == [0.05, 0.1, 0.2, 0.4]  # doubling, capped at backoff_max
    assert "vanished mid-stream" in next(d for s, d in health.reports if s == "degraded")


def test_a_camera_that_cannot_be_opened_is_failed_until_it_appears(supervise):
    script = Script(fail_opens=3)
    sup, health, _ = supervise(script, failed_after_unavailable=3)
    health.wait_for(lambda r: r and r[-1][0] == "ok")
    statuses = health.statuses()
    assert "failed" in statuses and statuses.index("degraded") < statuses.index("failed")
    assert "cannot be opened" in next(d for s, d in health.reports if s == "failed")


def test_a_stop_that_never_returns_blocks_neither_the_restart_nor_the_shutdown(supervise):
    script = Script(raise_after=1, hang_on_stop=True, faults_for=1)
    sup, health, _ = supervise(script)
    health.wait_for(ok_after_restart)  # the first camera's stop() still hangs in its own thread
    assert sup.alive and script.opens == 2
    started = time.monotonic()
    sup.stop(timeout=0.3)
    assert time.monotonic() - started < 3.0


def test_stuck_threads_are_bounded_and_then_reported_as_failed(supervise):
    script = Script(stall_after=0, hang_on_stop=True)
    sup, health, _ = supervise(script, max_stuck=2)
    health.wait_for(lambda r: r and r[-1][0] == "failed" and "stuck" in r[-1][1])
    opens = script.opens
    checks_after(sup, 10)  # each check would open a camera if it were allowed to (its back-off has run out)
    assert script.opens == opens, "no new camera is opened while threads are stuck"
    assert sup.alive  # the supervisor itself keeps answering, so the watchdog keeps being fed


def test_a_hung_camera_process_is_killed_and_a_new_one_takes_over():
    script = Script(stall_after=1, hang_on_stop=True, faults_for=1)
    factory = functools.partial(ProcessCamera, functools.partial(ScriptedCamera, script), name="scripted",
                                stop_timeout=0.5, start_timeout=60)
    health = Recorder()
    pids = []

    def on_frame(frame):
        pass

    class Tracking:
        """Records each child's pid so the test can check the hung one is gone."""

        def __call__(self):
            cam = factory()
            original_start = cam.start

            def start():
                original_start()
                pids.append(cam.pid)

            cam.start = start
            return cam

    sup = CameraSupervisor(Tracking(), on_health=health, on_frame=on_frame,
                           **{**FAST, "frame_timeout": 0.3, "open_timeout": 60, "stop_timeout": 3.0})
    sup.start()
    try:
        # Each child has its own copy of the script, so every child stalls after one frame.
        health.wait_for(lambda r: len(pids) >= 2 and "degraded" in [s for s, _ in r], timeout=60)
        deadline = time.monotonic() + 8
        while running(pids[0]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not running(pids[0]), "the hung camera process was not ended"
    finally:
        sup.stop(timeout=3.0)
    assert not any(running(pid) for pid in pids)


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_process_camera_delivers_frames_and_reports_a_camera_that_cannot_open():
    with ProcessCamera(functools.partial(ScriptedCamera, Script()), name="scripted") as cam:
        frame = cam.read(1.0)
        assert frame.work.shape == (48, 64, 3) and frame.full().shape == (48, 64, 3)
    with pytest.raises(CameraUnavailable, match="no camera"):
        ProcessCamera(functools.partial(ScriptedCamera, Script(fail_opens=1))).start()
    cam = ProcessCamera(functools.partial(ScriptedCamera, Script(raise_after=0)))
    with cam:
        with pytest.raises(CameraError, match="vanished"):
            cam.read(1.0)


def test_a_camera_opened_after_its_start_was_abandoned_is_stopped_not_leaked():
    """The factory is still opening the first camera when the supervisor gives up on it and starts a
    second; when the first finally arrives it must be stopped, never left running (on a Pi it would
    hold the camera device until a restart)."""
    opening = threading.Event()
    release = threading.Event()
    cameras: list[ScriptedCamera] = []

    def factory():
        camera = ScriptedCamera(Script())
        cameras.append(camera)
        if len(cameras) == 1:
            opening.set()
            release.wait(10)  # the first open takes longer than open_timeout
        return camera

    health = Recorder()
    sup = CameraSupervisor(factory, on_health=health, **{**FAST, "open_timeout": 0.2, "stop_timeout": 0.2})
    sup.start()
    try:
        assert opening.wait(5)
        health.wait_for(lambda r: any("did not open" in d for _, d in r))
        health.wait_for(lambda r: r[-1][0] == "ok")  # the second camera delivers frames
        release.set()  # the first camera finally comes out of the factory
        deadline = time.monotonic() + 5
        while cameras[0]._started is False and cameras[0].script.stops == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        release.set()
        sup.stop()
    running = [c for c in cameras if c._started]
    assert running == [], f"{len(running)} of {len(cameras)} cameras still running after stop()"


def test_a_demo_camera_waiting_for_a_busy_machine_is_not_restarted():
    """The demo table's camera waits for the runtime to take each picture; on a busy machine that can
    take longer than a hung driver would. Restarting it would start the demo's game over, so a
    software source is waited for however long it takes; the scripted driver above is restarted."""
    from hardware.camera.demo import DemoCamera

    now = [0.0]
    held, waiting = threading.Event(), threading.Event()
    picture = np.zeros((48, 64, 3), np.uint8)

    def source(number):
        if number == 2:  # the runtime is busy with what the second picture caused
            waiting.set()
            held.wait(60)
        return picture

    health = Recorder()
    frames = []
    sup = CameraSupervisor(lambda: DemoCamera(source, fps=0), on_health=health, on_frame=frames.append,
                           **{**FAST, "clock": lambda: now[0]})
    sup.start()
    try:
        assert waiting.wait(10), "the demo camera never asked for its third picture"
        # Far beyond what a hung driver is allowed: a turn of the monitor checks at that time, and the next
        # one begins (it stamps its heartbeat with the clock), so that check is over.
        for step in (100 * FAST["frame_timeout"], 0.001):
            now[0] += step
            wait_until(lambda at=now[0]: sup.heartbeat == at)
        assert sup.restarts == 0 and "degraded" not in health.statuses()
        held.set()
        wait_until(lambda: len(frames) >= 4)
        assert sup.restarts == 0
    finally:
        held.set()
        sup.stop()
