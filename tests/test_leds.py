"""What the LEDs and buttons do during a game of Fandooble, on gpiozero's mock pins."""

from __future__ import annotations


import pytest

from companion.buttons import ButtonInputs, next_move
from companion.config import Config
from companion.eventlog import EventLog
from companion.leds import LedObserver, scene_for, status_colour
from companion.runtime import Runtime
from hardware.gpio import Panel
from tests.waiting import wait_until

SEAT_PINS = [5, 6, 13, 19, 26, 21]


def seat_values(factory) -> list[float]:
    return [float(factory.pin(p).state) for p in SEAT_PINS[:3]]


@pytest.fixture
def table(log, mock_factory):
    """A running runtime with LEDs and one button per seat for three players."""
    section = {**Config.defaults()["gpio"], "next_buttons": [23, 22, 27]}
    with Panel.from_config(section, pin_factory=mock_factory) as panel, \
            Runtime(Config.defaults(), log) as runtime:
        leds = LedObserver(panel).attach(runtime)
        ButtonInputs(runtime, panel, refused=leds.refused)
        runtime.new_game("fandooble", ["Ann", "Bob", "Cid"])
        yield runtime, panel, leds
        runtime.stop()


def press(factory, pin):
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def settle(runtime, panel):
    """Wait until every queued press has been handled and every flash has finished."""
    runtime.call(lambda: None)
    assert panel.wait_effects(5)


def test_the_current_players_seat_is_lit_and_moves_on_with_the_turn(table, mock_factory):
    runtime, panel, _ = table
    settle(runtime, panel)
    assert seat_values(mock_factory) == [1.0, 0.0, 0.0]
    runtime.play("roll CCCK", source="camera")
    runtime.play("bank", source="dashboard")
    settle(runtime, panel)
    assert seat_values(mock_factory) == [0.0, 1.0, 0.0]
    assert runtime.snapshot()["leds"]["seats"][1]["mode"] == "on"  # mirrored for the dashboard


def test_a_pending_steal_pulses_and_the_victims_button_chooses(table, mock_factory):
    runtime, panel, _ = table
    runtime.play("roll CCCF", source="camera")  # two opponents hold coins: Ann must choose
    settle(runtime, panel)
    assert runtime.snapshot()["leds"]["seats"][0]["mode"] == "pulse"
    press(mock_factory, 27)  # Cid's button
    settle(runtime, panel)
    game = runtime.session
    assert game.played[-1].text == "steal Cid" and game.played[-1].source == "button"
    assert runtime.snapshot()["leds"]["seats"][0]["mode"] == "on"


def test_the_current_seats_button_banks_and_another_seats_button_is_refused(table, mock_factory):
    runtime, panel, _ = table
    runtime.play("roll CCCK", source="camera")
    press(mock_factory, 22)  # Bob presses during Ann's turn
    settle(runtime, panel)
    assert runtime.session.state.current == 0 and len(runtime.session.played) == 1
    assert [s.state for s in mock_factory.pin(6).states].count(1.0) == 3  # Bob's seat flashed 3 times
    press(mock_factory, 23)  # Ann banks
    settle(runtime, panel)
    assert runtime.session.played[-1].text == "bank" and runtime.session.state.current == 1


def test_banking_before_rolling_is_refused_with_a_flash_and_nothing_is_logged(table, mock_factory):
    runtime, panel, _ = table
    events = runtime.log.count_events()
    press(mock_factory, 23)
    settle(runtime, panel)
    assert runtime.log.count_events() == events
    assert [s.state for s in mock_factory.pin(5).states].count(0.0) >= 3  # Ann's lit seat blinked off


def test_the_undo_button_takes_back_the_last_move(table, mock_factory):
    runtime, panel, _ = table
    runtime.play("roll CCCK", source="camera")
    press(mock_factory, 24)
    settle(runtime, panel)
    assert runtime.session.played == () and runtime.log.events(runtime.session.session_id)[-1].kind == "undo"


def test_a_bust_flashes_the_players_seat_and_a_wipe_is_unmistakable(table, mock_factory):
    runtime, panel, leds = table
    runtime.play("roll GGRK", source="camera")  # the knight takes one green dragon: two remain
    runtime.play("roll GF", source="camera")  # a third dragon: Ann busts
    scene = leds.last_scene
    assert scene.flash == (0,) and scene.modes == ("off", "on", "off") and scene.beep == "short"
    settle(runtime, panel)
    runtime.play("roll RRRF", source="camera")  # three red dragons: Bob's stash is wiped
    scene = leds.last_scene
    assert scene.flash == (0, 1, 2) and scene.beep == "wipe" and scene.status_flash == "red"
    settle(runtime, panel)
    wait_until(lambda: [s.state for s in mock_factory.pin(18).states].count(1) >= 3)
    assert [s.state for s in mock_factory.pin(16).states].count(1.0) >= 3  # the status LED blinked red
    assert seat_values(mock_factory) == [0.0, 0.0, 1.0]  # then Cid's turn shows


def test_a_refused_camera_reading_flashes_the_current_seat(table, mock_factory):
    runtime, panel, leds = table
    runtime.raise_alert("the camera saw 'roll CCCCF', but that is five dice", source="camera")
    assert leds.last_scene.flash == (0,) and leds.last_scene.beep == "alert"


def test_the_winners_blink_at_the_end(log):
    from companion.session import Session

    game = Session.create(log, "fandooble", ["Ann", "Bob"], {"coins": "21", "stash": "10"})
    event = game.apply("roll CCCK", source="cli")
    game.apply("bank", source="cli")
    scene = scene_for(game, game.log.events(game.session_id)[-1])
    assert game.outcome().winners == ("Ann",) and event
    assert scene.modes == ("blink", "off") and scene.chase and scene.beep == "victory"
    assert scene_for(game, None).chase is False  # reopening a finished game shows it quietly


def test_after_a_restart_the_current_seat_lights_with_no_intermediate_change(tmp_path, mock_factory):
    with EventLog(tmp_path / "c.db") as log:
        with Runtime(Config.defaults(), log) as runtime:
            runtime.new_game("fandooble", ["Ann", "Bob", "Cid"])
            for move in ("roll CCCK", "bank", "roll CCCW", "roll CCGK"):
                runtime.play(move, source="camera")
    with EventLog(tmp_path / "c.db") as log, Panel(SEAT_PINS, pin_factory=mock_factory) as panel:
        runtime = Runtime(Config.defaults(), log)
        LedObserver(panel).attach(runtime)
        runtime.start()
        settle(runtime, panel)
        runtime.stop()
        histories = [[s.state for s in mock_factory.pin(p).states] for p in SEAT_PINS]
    assert histories[1] == [0.0, 1.0]  # Bob, whose turn it is: one change, straight on
    assert all(h == [0.0] for i, h in enumerate(histories) if i != 1)  # nobody else ever lit


def test_the_status_colour_follows_the_health():
    assert status_colour({}) == "amber"  # the camera has not reported yet
    assert status_colour({"camera": {"status": "ok"}}) == "green"
    assert status_colour({"camera": {"status": "ok"}, "table": {"status": "degraded"}}) == "amber"
    assert status_colour({"camera": {"status": "degraded"}, "database": {"status": "failed"}}) == "red"


def test_the_shared_button_cannot_choose_a_victim(log):
    from companion.session import Session

    game = Session.create(log, "fandooble", ["Ann", "Bob", "Cid"])
    game.apply("roll CCCF", source="cli")
    move, why = next_move(game, None)
    assert move is None and "Ann must choose first" in why
    assert next_move(game, 1) == ("steal Bob", "")


def test_teaching_a_die_with_the_camera_beeps_as_each_picture_is_taken_or_refused(mock_factory, tmp_path):
    # The teacher watches the die in the tray, not a phone: a chirp (and the status LED's green blink) says the
    # picture was taken and the die may be turned, two short beeps that it was refused, the tune that it is learned.
    import numpy as np

    from companion.dicestore import DiceStore
    from companion.teach import DiceTeacher
    from tests.test_teach import EMPTY
    from vision.synth.dice import render_face_photo, render_tray

    rng = np.random.default_rng(5)
    with Panel.from_config(Config.defaults()["gpio"], pin_factory=mock_factory) as panel:
        leds = LedObserver(panel)
        beeps, greens = [], []
        panel.beep = beeps.append
        panel.flash_status = lambda colour, times=3: greens.append((colour, times))
        teacher = DiceTeacher("dragon", "CG", looks=1, save=DiceStore(tmp_path).save_templates)
        leds.follow_teaching({"state": "idle", "active": False})
        two_dice = render_tray(rng, kind="fandooble", faces=["G", "C"], size=(320, 240), die_px=(60, 60)).image
        for picture in (render_face_photo(rng, "C"), two_dice, render_face_photo(rng, "G")):
            for image in [EMPTY] + [picture] * 4:  # a hand sets the die down, then it lies still
                teacher.feed(image)
                leds.follow_teaching(teacher.status())
        assert teacher.status()["state"] == "done"
        assert beeps == ["short", "refused", "victory"]
        assert greens == [("green", 1), ("green", 3)]
        leds.follow_teaching(teacher.status())  # the same status again, as each turn of the main loop gives it
        assert beeps == ["short", "refused", "victory"]
        photos = DiceTeacher("dragon", "C", looks=1, photos=True)
        leds.follow_teaching(photos.status())
        photos.photo(render_face_photo(rng, "C"))
        leds.follow_teaching(photos.status())  # photos are taken on a phone, anywhere: no sound at the table
        assert photos.status()["state"] == "done" and beeps == ["short", "refused", "victory"]
