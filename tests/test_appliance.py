"""The appliance: configuration refused at start, everything wired, faults shown, `companion run` end to end."""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from companion.appliance import Appliance, close_trigger_after_last_pull, check_config
from companion.config import CONFIG_NAME, Config
from companion.errors import ConfigError
from companion.eventlog import DB_NAME, EventLog
from hardware.camera.demo import DemoCamera, SyntheticTable
from hardware.gpio import Panel
from tests.waiting import wait_until

DEMO = functools.partial(DemoCamera, SyntheticTable((320, 180)), fps=10)


def write_config(data_dir, text):
    (data_dir / CONFIG_NAME).write_text(text, "utf-8")
    return Config.in_dir(data_dir)


@pytest.fixture
def appliance_factory(data_dir, mock_factory):
    made = []

    def build(**options):
        config = Config.defaults().with_changes({"server": {"host": "127.0.0.1"}})
        appliance = Appliance(config, data_dir, **{"pin_factory": mock_factory, "camera_factory": DEMO,
                                                   "port": 0, **options})
        made.append(appliance)
        appliance.start()
        return appliance

    yield build
    for appliance in made:
        appliance.stop()


def test_bad_values_are_refused_at_start_with_file_key_and_reason(data_dir):
    config = write_config(data_dir, "[gpio]\nbuzzer = 13\n")
    with pytest.raises(ConfigError, match=rf"{CONFIG_NAME} \[gpio\] seat_leds\[3\] and buzzer are both on GPIO13"):
        Appliance(config, data_dir)
    config = write_config(data_dir, '[camera]\nbackend = "file"\nfile_path = "/nowhere/at/all"\n')
    with pytest.raises(ConfigError, match=r'\[camera\] file_path = "/nowhere/at/all": no such file'):
        check_config(config)
    with pytest.raises(ConfigError, match=r"\[table\] corners_px = \[\[1, 2\], \[3\]\]: must be \[\] or four"):
        write_config(data_dir, "[table]\ncorners_px = [[1, 2], [3]]\n")
    config = write_config(data_dir, "[camera]\nwork_width = 4000\nfull_width = 2000\n")
    with pytest.raises(ConfigError, match=r"work_width = 4000: must not exceed full_width"):
        check_config(config)
    assert not (data_dir / DB_NAME).exists()  # refused before anything was opened


def test_camera_gpio_and_web_come_up_and_the_dashboard_sees_them(appliance_factory):
    frames = []
    appliance = appliance_factory(on_frame=frames.append)
    runtime = appliance.runtime
    wait_until(lambda: runtime.snapshot()["health"].get("camera", {}).get("status") == "ok")
    wait_until(lambda: len(frames) >= 3)
    assert frames[0].work.shape == (180, 320, 3)
    runtime.new_game("fandooble", ["Ann", "Bob"])
    appliance.notifier = type("Quiet", (), {"notify": lambda self, text: None})()
    appliance.turn()  # one turn of the main loop sets the status LED from the health
    snapshot = runtime.snapshot()
    assert snapshot["leds"]["status"] == "green" and snapshot["leds"]["seats"][0]["mode"] == "on"
    assert snapshot["health"]["gpio"]["detail"].startswith("simulated")
    assert snapshot["health"]["database"]["status"] == "ok"
    assert "no database yet" not in snapshot["health"]["database"]["detail"]  # it is in use from the start
    with urllib.request.urlopen(f"http://127.0.0.1:{appliance.port}/api/health", timeout=5) as reply:
        assert reply.status == 200 and json.loads(reply.read())["health"]["camera"]["status"] == "ok"


def test_each_turn_of_the_main_loop_sounds_the_teaching_of_a_die_on_the_buzzer(appliance_factory):
    appliance = appliance_factory()
    appliance.notifier = type("Quiet", (), {"notify": lambda self, text: None})()
    beeps = []
    appliance.panel.beep = beeps.append
    status = {"state": "waiting_for_motion", "active": True, "learned": 0, "retries": 0, "photos": False}
    appliance.runtime.add_snapshot_part("teaching", lambda: status)  # as the dashboard's teaching gives it
    appliance.turn()
    status = {**status, "state": "learned", "learned": 1}
    appliance.turn()
    appliance.turn()
    assert beeps == ["short"]


def test_without_a_frame_consumer_the_live_view_shows_the_raw_picture(appliance_factory):
    appliance = appliance_factory()
    view = appliance.runtime.live_view
    view.wait_for_jpeg(0, 0.01)  # someone is watching: pictures get encoded
    # Wait for the state, not a time: the camera delivering, then its picture (the bound only ends a
    # failing wait; on a loaded machine the camera may take seconds to start).
    wait_until(lambda: appliance.runtime.snapshot()["health"].get("camera", {}).get("status") == "ok")
    assert view.wait_for_jpeg(0, 30.0) is not None


def test_pins_held_by_another_program_leave_the_game_running_without_leds(appliance_factory, mock_factory):
    with Panel([5], pin_factory=mock_factory):  # something else holds seat 1's pin
        appliance = appliance_factory()
        health = appliance.runtime.snapshot()["health"]["gpio"]
        assert health["status"] == "degraded" and "LEDs and buttons are off" in health["detail"]
        assert appliance.runtime.new_game("fandooble", ["Ann", "Bob"])["game"] == "fandooble"


def test_a_damaged_database_is_restored_at_start_and_the_game_says_so(data_dir, appliance_factory):
    from companion.backups import backup_if_due
    from companion.runtime import ACTIVE_SESSION
    from companion.session import Session

    with EventLog(data_dir / DB_NAME) as log:
        game = Session.create(log, "fandooble", ["Ann", "Bob"])
        log.set_setting(ACTIVE_SESSION, game.session_id)
        for i in range(30):
            game.note("note", "padding " * 60, source="cli")
        backup_if_due(log, data_dir, now=time.time() - 86400)
    with open(data_dir / DB_NAME, "r+b") as f:
        f.seek(8192)
        f.write(os.urandom(4096))
    appliance = appliance_factory()
    health = appliance.runtime.snapshot()["health"]["database"]
    assert health["status"] == "degraded" and "restored the backup" in health["detail"]
    log = appliance.runtime.snapshot()["game"]["log"]
    assert log[-1]["source"] == "system" and "restored the backup" in log[-1]["text"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_companion_run_serves_the_demo_table_and_stops_cleanly_on_sigterm(data_dir):
    port = free_port()
    env = {**os.environ, "COMPANION_DATA_DIR": str(data_dir), "GPIOZERO_PIN_FACTORY": "mock",
           "GPIOZERO_MOCK_PIN_CLASS": "mockpwmpin"}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--camera", "demo", "--host", "127.0.0.1",
                             "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        body = None
        deadline = time.monotonic() + 30
        while body is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2) as reply:
                    body = json.loads(reply.read())
            except OSError:
                time.sleep(0.2)
        assert body is not None, proc.stdout.read() if proc.poll() is not None else "no answer"
        assert "database" in body["health"]
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
    assert "Table Companion is running" in output


def test_the_first_start_makes_a_pin_and_a_later_start_keeps_the_file(tmp_path):
    from companion.cli.run import first_start_pin, keep_first_start_pin
    from companion.config import Config

    pin = first_start_pin(tmp_path)
    assert pin is not None and len(pin) == 6 and pin.isdigit()
    assert not (tmp_path / "config.toml").exists()  # nothing is written until the companion has started
    keep_first_start_pin(Config.in_dir(tmp_path).with_changes({"server": {"pin": pin}}), tmp_path)
    assert Config.in_dir(tmp_path).get("server", "pin") == pin
    # Removing the PIN on purpose is respected: no new one is made while the file exists.
    Config.in_dir(tmp_path).with_changes({"server": {"pin": ""}}).save(tmp_path / "config.toml")
    assert first_start_pin(tmp_path) is None
    assert Config.in_dir(tmp_path).get("server", "pin") == ""


def test_a_refused_first_start_writes_no_configuration(tmp_path):
    """A first start refused (here: the port is taken) leaves the data folder without a config file or PIN."""
    env = {**os.environ, "COMPANION_DATA_DIR": str(tmp_path), "GPIOZERO_PIN_FACTORY": "mock"}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "companion", "run", "--camera", "demo", "--no-gpio",
                               "--host", "127.0.0.1", "--port", str(port)], env=env, capture_output=True,
                              text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "another companion" in done.stdout + done.stderr
    assert "PIN" not in done.stdout
    assert not (tmp_path / "config.toml").exists()


def test_a_port_already_in_use_is_a_clear_refusal(appliance_factory):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=rf"port = {port}: the dashboard cannot listen .* another companion"):
            appliance_factory(port=port)


def test_the_end_of_a_game_and_a_quiet_minute_put_the_moves_in_the_database_file_and_a_backup(
        appliance_factory, data_dir, monkeypatch):
    import companion.appliance as appliance_module
    from companion.backups import list_backups

    appliance = appliance_factory()
    runtime, wal = appliance.runtime, data_dir / f"{DB_NAME}-wal"
    runtime.new_game("fandooble", ["Ann", "Bob"])
    runtime.play("roll CCCK", source="cli")
    appliance.maintain()
    assert wal.stat().st_size > 0  # a move a moment ago: still only in the -wal
    monkeypatch.setattr(appliance_module, "QUIET_S", 0.0)  # a quiet minute has passed
    appliance.maintain()
    assert wal.stat().st_size == 0  # deleting the -wal now would lose nothing
    before = list_backups(data_dir)
    monkeypatch.setattr(appliance_module, "QUIET_S", 60.0)
    for n in range(400):
        if runtime.session.outcome() is not None:
            break
        runtime.play("bank" if n % 2 else "roll CCCK", source="cli")
    assert runtime.session.outcome() is not None
    appliance.maintain()  # the game ended: saved in the file and backed up at once
    assert wal.stat().st_size == 0
    after = list_backups(data_dir)
    assert len(after) == len(before) + 1
    with EventLog(after[0]) as copy:
        assert copy.count_events(runtime.session.session_id) == runtime.log.count_events(runtime.session.session_id)


def test_a_request_finishing_while_the_dashboard_stops_wakes_nothing_closed():
    """Workers answering their last requests while stop() closes the wake-up pipe write to no closed descriptor."""
    from waitress.trigger import trigger as waitress_trigger

    pipe = waitress_trigger({})
    close_trigger_after_last_pull(pipe)
    errors: list[BaseException] = []
    started = threading.Barrier(5)

    def answer_requests() -> None:
        started.wait()
        try:
            for _ in range(2000):
                pipe.pull_trigger()
        except BaseException as error:  # noqa: BLE001 - any error is the failure
            errors.append(error)

    workers = [threading.Thread(target=answer_requests) for _ in range(4)]
    for worker in workers:
        worker.start()
    started.wait()
    pipe.close()
    for worker in workers:
        worker.join()
    assert errors == []
    pipe.pull_trigger()  # a request finishing after the close
