"""`companion doctor`: a clear report, and a non-zero exit when the table is not ready."""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from companion.cli import main
from companion.config import CONFIG_NAME, Config
from companion.doctor import check_camera, check_database, check_dice_networks, check_dice_settings, check_dice_tray, \
    check_gpio, check_service, check_table_view, failed, report, run_doctor, service_state
from companion.eventlog import DB_NAME, EventLog
from hardware.camera.base import Frame
from hardware.camera.demo import SyntheticTable


def statuses(checks):
    return {(c.area, c.name): c.status for c in checks}


def test_a_ready_table_passes_with_the_wiring_walk_on_mock_pins(data_dir, mock_factory):
    EventLog(data_dir / DB_NAME).close()
    said = []
    checks = run_doctor(Config.defaults(), data_dir, backend="demo", pin_factory=mock_factory, step=0.01,
                        service="active-check-skipped", say=said.append)
    got = statuses(checks)
    assert got[("camera", "frames arriving")] == "ok" and got[("gpio", "wiring walk")] == "ok"
    assert got[("database", "integrity")] == "ok" and got[("dice", "networks")] == "ok" and not failed(checks)
    assert "  now: seat 1 LED (GPIO5)" in said
    assert [s.state for s in mock_factory.pin(26).states] == [0.0, 1.0, 0.0]  # seat 5 blinked once
    text = report(checks)
    assert "camera:\n  [WARN] found: no real camera: the demo table is shown" in text


class LampLitCamera:
    """A stand-in webcam over a still table: each picture under a lamp's flicker ``depth`` (bands rolling a third of a
    band a picture, as 100 Hz flicker seen at 30 pictures a second), every other picture ``exposure`` times brighter
    (a camera's automatic exposure hunting)."""

    name = "usb"

    def __init__(self, depth, exposure=1.0):
        from vision.synth.dice import render_tray

        self.table = render_tray(np.random.default_rng(2), kind="pips", faces=["3", "5"], table="wood").image
        self.depth, self.exposure, self.shown = depth, exposure, 0

    def read(self, timeout):
        from vision.synth.effects import mains_flicker, relit

        self.shown += 1
        lit = relit(self.table, (self.exposure if self.shown % 2 else 1.0,) * 3)
        return Frame(work=mains_flicker(lit, self.depth, self.shown / 3), timestamp=0.0)

    def stop(self):
        pass


def test_lamp_bands_rolling_across_the_pictures_are_said_with_the_setting_that_keeps_them_out(monkeypatch):
    untold = Config.defaults().with_changes({"camera": {"mains_hz": 0}})
    said = {c.name: c for c in check_camera(untold, camera=LampLitCamera(0.25))}["lamp bands"]
    assert said.status == "warn" and "dark bands roll across the picture (4 of 4 pictures to the next)" in said.detail
    assert "set [camera] mains_hz = 50 or 60, the mains frequency where you are" in said.detail
    told = Config.defaults().with_changes({"camera": {"mains_hz": 50}})
    still_banded = {c.name: c for c in check_camera(told, camera=LampLitCamera(0.25))}["lamp bands"]
    assert "even though the camera is told 50 Hz, as set: where the mains is 60 Hz set mains_hz = 60" in \
        still_banded.detail
    # No bands, and a camera's exposure brightening every row alike, are not lamps that flicker; the doctor says what
    # the camera is told (by default, the mains of the machine's time zone).
    monkeypatch.setattr("hardware.camera.mains.local_time_zone", lambda: "Europe/Berlin")
    for camera in (LampLitCamera(0.0), LampLitCamera(0.0, exposure=1.2)):
        checks = {c.name: c for c in check_camera(Config.defaults(), camera=camera)}
        assert "lamp bands" not in checks and checks["frames arriving"].status == "ok"
        assert checks["lamps' flicker"].detail == "the camera is told 50 Hz, the mains of the time zone Europe/Berlin"


def test_corner_tags_and_their_size_are_judged_against_the_reading_limit():
    pytest.importorskip("vision.qr")
    config = Config.defaults()
    good = Frame(work=SyntheticTable((1280, 720), module_px=5)(0), timestamp=0.0)
    got = statuses(check_table_view(config, good))
    assert got == {("camera", "table corners"): "ok", ("camera", "tag size"): "ok"}
    small = SyntheticTable((640, 360), module_px=2)(0)
    full = SyntheticTable((1280, 720), module_px=4)(0)
    # About 2 px per module in the working image: readable only from the full-resolution frame.
    rescued = check_table_view(config, Frame(work=small, timestamp=0.0, _full=lambda: full))[1]
    assert rescued.status == "warn" and "full resolution" in rescued.detail
    too_small = check_table_view(config, Frame(work=small, timestamp=0.0))[1]
    assert too_small.status == "fail" and "below the reading limit of 3" in too_small.detail
    blank = Frame(work=np.full((360, 640, 3), 90, np.uint8), timestamp=0.0)
    corners = check_table_view(config, blank)[0]
    assert corners.status == "fail" and "TB:NW, TB:NE, TB:SE, TB:SW not in view" in corners.detail


def test_the_dice_trays_tags_are_not_the_tables_corners_and_are_checked_on_their_own():
    # A tray carrying its four tags and no table corners in view: the table's corners are missing (the tray's
    # tags are not taken for them), and the tray's tags are all there; one covered is a warning naming it.
    pytest.importorskip("vision.qr")
    from tests.test_pipeline import _tray_with_tags

    floor = np.full((480, 640, 3), (150, 150, 146), np.uint8)
    got = {c.name: c for c in check_table_view(Config.defaults(),
                                               Frame(work=_tray_with_tags(floor, (300, 200)), timestamp=0.0))}
    table = got["table corners"]
    assert table.status == "fail" and "TB:NW, TB:NE, TB:SE, TB:SW not in view" in table.detail
    assert got["tray tags"].status == "ok"
    covered = {c.name: c for c in check_table_view(Config.defaults(), Frame(
        work=_tray_with_tags(floor, (300, 200), hidden="SE"), timestamp=0.0))}["tray tags"]
    assert covered.status == "warn" and "DT:SE not in view" in covered.detail


def test_a_dice_tray_tapped_on_another_view_of_the_table_is_a_warning_saying_to_tap_it_again():
    pytest.importorskip("vision.qr")
    picture = Frame(work=np.full((480, 640, 3), (150, 150, 146), np.uint8), timestamp=0.0)
    tray = [[640, 480], [1280, 480], [1280, 960], [640, 960]]
    scaled = Config.defaults().with_changes({"table": {"tray_px": tray, "picture_px": [1280, 960]}})
    assert "dice tray" not in {c.name for c in check_table_view(scaled, picture)}  # placed on the half-size picture
    wide = Config.defaults().with_changes({"table": {"tray_px": tray, "picture_px": [1280, 720]}})
    warned = {c.name: c for c in check_table_view(wide, picture)}["dice tray"]
    assert warned.status == "warn" and "another view of the table: tap the tray's four corners again" in warned.detail
    corner = Config.defaults().with_changes({"table": {"tray_px": [[470, 330], [630, 330], [630, 470], [470, 470]],
                                                        "picture_px": [640, 480]}})
    edge = {c.name: c for c in check_table_view(corner, picture)}["dice tray"]
    assert edge.status == "warn" and edge.detail.startswith("the tray lies towards the edge of the camera's view")


def test_a_damaged_database_and_a_pin_conflict_fail(data_dir, mock_factory):
    with EventLog(data_dir / DB_NAME) as log:
        sid = log.create_session("fandooble", {"players": ["A", "B"]})
        for i in range(50):
            log.append(sid, "note", "x" * 500, source="cli")
    with open(data_dir / DB_NAME, "r+b") as f:
        f.seek(8192)
        f.write(os.urandom(4096))
    db = statuses(check_database(data_dir))
    assert db[("database", "integrity")] == "fail"
    config = Config.defaults().with_changes({"gpio": {"undo_button": 5}})
    gpio = check_gpio(config, pin_factory=mock_factory, blink=False)
    assert gpio[0].status == "fail" and "seat_leds[1] and undo_button are both on GPIO5" in gpio[0].detail


def test_the_service_state_is_read_from_systemctl():
    def fake(answer):
        return lambda *a, **k: subprocess.CompletedProcess(a, 3, stdout=answer + "\n", stderr="")

    assert service_state(run=fake("active")) == "active"
    assert check_service("active").status == "ok"
    assert check_service("failed").status == "fail" and "journalctl" in check_service("failed").detail
    assert check_service("inactive").status == "warn" and check_service(None).status == "skip"


def test_a_running_service_is_not_disturbed(data_dir, mock_factory):
    checks = run_doctor(Config.defaults(), data_dir, pin_factory=mock_factory, service="active")
    got = statuses(checks)
    assert got[("camera", "found")] == "skip" and got[("gpio", "pins free")] == "skip"
    assert len(mock_factory.pins) == 0  # no pin was touched


def test_the_command_exits_non_zero_when_something_fails(data_dir, capsys, monkeypatch):
    import companion.doctor as doctor

    monkeypatch.setattr(doctor, "service_state", lambda *a, **k: None)
    assert main(["doctor", "--camera", "demo", "--no-blink", "--data-dir", str(data_dir)]) == 0
    assert "database:" in capsys.readouterr().out
    (data_dir / CONFIG_NAME).write_text('[camera]\nbackend = "file"\nfile_path = "/nowhere"\n')
    assert main(["doctor", "--no-blink", "--data-dir", str(data_dir)]) == 1
    assert "[FAIL] found: /nowhere does not exist" in capsys.readouterr().out


@pytest.fixture
def dice_networks():
    from vision.dice import net
    shipped_models, shipped_runtime = net.MODELS, net.RUNTIME
    yield net
    net.use_models(shipped_models)
    net.use_runtime(shipped_runtime)


def test_dice_networks_run_by_opencv_are_a_warning_that_says_why_and_what_to_do(dice_networks):
    dice_networks.use_runtime("opencv")
    check = check_dice_networks()
    assert check.status == "warn"
    assert "ONNX Runtime is not installed" in check.detail and "run ./setup.sh again" in check.detail


def test_missing_dice_networks_fail_and_name_the_file(dice_networks, tmp_path):
    dice_networks.use_models(tmp_path)
    check = check_dice_networks()
    assert check.status == "fail"
    assert f"the dice network {tmp_path / 'finder.onnx'} is missing: rebuild it with tools/train_dice.py" in check.detail


def test_a_missing_dice_tray_is_a_warning_only_where_dice_are_meant_to_be_read(data_dir):
    from companion.dicestore import DiceStore

    tray = [[0, 0], [100, 0], [100, 80], [0, 80]]
    assert check_dice_tray(Config.defaults(), data_dir).status == "skip"  # a card table: no dice to read
    DiceStore(data_dir).save_face_table({0: "C", 1: "G"})  # stickers set up for a dice game
    DiceStore(data_dir).set_kind("aruco")
    check = check_dice_tray(Config.defaults(), data_dir)
    assert check.status == "warn" and "no dice are read" in check.detail and "Setup page" in check.detail
    assert check_dice_tray(Config.defaults().with_changes({"table": {"tray_px": tray}}), data_dir).status == "ok"
    assert check_dice_tray(Config.defaults().with_changes({"table": {"tray_mm": [0, 0, 200, 150]}}),
                           data_dir).status == "ok"


def test_damaged_dice_settings_fail_the_doctor_and_say_to_teach_again(data_dir):
    from companion.dicestore import DiceStore

    assert check_dice_settings(data_dir).detail == "the camera reads pips dice"
    store = DiceStore(data_dir)
    store.save_face_table({0: "C"})
    store._json.write_text("{", "utf-8")
    check = check_dice_settings(data_dir)
    assert check.status == "fail" and "cannot read the dice settings" in check.detail
    assert "teach the dice again" in check.detail
    assert check_dice_tray(Config.defaults(), data_dir).status == "warn"  # which dice are meant is unknown


def test_taught_dice_that_would_read_better_taught_again_or_by_their_pips_are_a_warning(data_dir):
    from companion.dicestore import DiceStore
    from vision.dice.faces import FaceTemplates
    from vision.synth.dice import random_style, render_tray

    rng = np.random.default_rng(5)
    style, templates = random_style(rng), FaceTemplates()
    for face in "123456":  # an ordinary die, one picture a face, its faces named by its pips
        templates.learn("white", face, render_tray(rng, kind="pips", faces=[face], style=style, die_px=(44, 48)).image)
    DiceStore(data_dir).save_templates(templates)
    check = check_dice_settings(data_dir)
    assert check.status == "warn" and check.detail.startswith("the camera reads taught dice (6 pictures of white). ")
    assert "Dice taught from fewer pictures a face than the 3 teaching takes now: white (1 a face)" in check.detail
    assert "The die white is a pip die" in check.detail and "choose pip dice ('companion dice use pips')" in check.detail
    DiceStore(data_dir).set_kind("pips")
    assert check_dice_settings(data_dir).status == "ok"
