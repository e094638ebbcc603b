"""systemd's notify protocol through a fake socket: READY=1 after the database check, WATCHDOG=1 at
least twice per interval, and no ping once the main loop freezes or a part dies."""

from __future__ import annotations

import functools
import socket
import threading
import time

import pytest

from companion import backups
from companion.appliance import Appliance
from companion.config import Config
from hardware.camera.demo import DemoCamera, SyntheticTable
from tests.waiting import wait_until

INTERVAL_S = 1.0


class FakeSystemd:
    """Binds the AF_UNIX datagram socket systemd would pass in NOTIFY_SOCKET and records each message."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.messages: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self):
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            for line in data.decode().splitlines():
                self.messages.append((time.monotonic(), line))

    def texts(self):
        return [m for _, m in self.messages]

    def pings_between(self, start, end):
        return [t for t, m in self.messages if m == "WATCHDOG=1" and start <= t <= end]

    def wait_for(self, text, timeout=10.0):
        deadline = time.monotonic() + timeout
        while text not in self.texts():
            assert time.monotonic() < deadline, f"systemd never got {text}; got {self.texts()}"
            time.sleep(0.02)

    def close(self):
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


@pytest.fixture
def systemd(tmp_path, monkeypatch):
    fake = FakeSystemd(tmp_path / "notify.sock")
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify.sock"))
    monkeypatch.setenv("WATCHDOG_USEC", str(int(INTERVAL_S * 1_000_000)))
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    yield fake
    fake.close()


@pytest.fixture
def running(data_dir, systemd, mock_factory, monkeypatch):
    """An appliance serving on a free loopback port with the demo camera; its main loop in a thread."""
    order: list[str] = []
    real_check = backups.check_at_start

    def checked(*args, **kwargs):
        result = real_check(*args, **kwargs)
        order.append("database checked")
        return result

    monkeypatch.setattr(backups, "check_at_start", checked)
    config = Config.defaults().with_changes({"server": {"host": "127.0.0.1"}})
    appliance = Appliance(config, data_dir, pin_factory=mock_factory, port=0,
                          camera_factory=functools.partial(DemoCamera, SyntheticTable((320, 180)), fps=5))
    appliance.start()
    stop = threading.Event()
    loop = threading.Thread(target=appliance.serve_until, args=(stop,), daemon=True)
    loop.start()
    systemd.wait_for("READY=1")
    order.append("READY=1")
    yield appliance, order
    stop.set()
    loop.join(5)
    appliance.stop()


def test_ready_comes_after_the_database_check_and_pings_come_twice_per_interval(running, systemd):
    appliance, order = running
    assert order == ["database checked", "READY=1"]
    assert systemd.texts()[0] == "READY=1"  # no ping before the companion is ready
    start = time.monotonic()
    wait_until(lambda: len(systemd.pings_between(start, time.monotonic())) >= 4)
    pings = systemd.pings_between(start, time.monotonic())
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    assert max(gaps) <= INTERVAL_S / 2 + 0.25  # half the interval, plus scheduling slack


def test_a_frozen_main_loop_stops_the_pings(running, systemd):
    appliance, _ = running
    release, blocked = threading.Event(), threading.Event()
    appliance.loop_hooks.append(lambda: (blocked.set(), release.wait()))  # the next turn of the loop blocks here
    assert blocked.wait(30)
    frozen_at = time.monotonic() + INTERVAL_S / 2  # a ping already on its way may still land
    time.sleep(2 * INTERVAL_S)  # what is tested is that nothing comes for this long: it must pass
    assert systemd.pings_between(frozen_at, time.monotonic()) == []
    appliance.loop_hooks.clear()
    release.set()
    resumed_at = time.monotonic()
    wait_until(lambda: systemd.pings_between(resumed_at, time.monotonic()))


def test_a_dead_runtime_stops_the_pings_though_the_loop_turns(running, systemd):
    appliance, _ = running
    appliance.runtime.stop()
    dead_at = time.monotonic()
    wait_until(lambda: any(m.startswith("STATUS=the runtime thread stopped") for m in systemd.texts()))
    time.sleep(2 * INTERVAL_S)  # what is tested is that nothing comes for this long: it must pass
    assert systemd.pings_between(dead_at + 0.1, time.monotonic()) == []
