"""The GPIO panel on gpiozero's mock pins: pin checks, buttons, LED modes and timings."""

from __future__ import annotations

import statistics
import threading
import time

import pytest

from companion.config import Config
from hardware.gpio import FLASH_TIMES, Panel, PinConflict, check_pins
from tests.waiting import wait_until


def defaults() -> dict:
    return Config.defaults()["gpio"]


@pytest.fixture
def panel(mock_factory):
    with Panel.from_config(defaults(), pin_factory=mock_factory) as p:
        yield p


def values(factory, pin) -> list[float]:
    return [float(s.state) for s in factory.pin(pin).states]


def test_two_devices_on_one_pin_is_an_error_naming_both(mock_factory):
    section = {**defaults(), "buzzer": 13}
    with pytest.raises(PinConflict, match=r"seat_leds\[3\] and buzzer are both on GPIO13"):
        check_pins(section, mock_factory.board_info)
    # The same pin under another name is the same pin: physical pin 29 is GPIO5, seat 1's LED.
    with pytest.raises(PinConflict, match=r"seat_leds\[1\] and undo_button are both on GPIO5"):
        Panel.from_config({**defaults(), "undo_button": "BOARD29"}, pin_factory=mock_factory)
    with pytest.raises(PinConflict, match="three pins"):
        check_pins({"status_led": [16, 20]})
    with pytest.raises(PinConflict, match="not a usable GPIO pin"):
        check_pins({"buzzer": "BOARD1"}, mock_factory.board_info)  # 3.3 V, not a GPIO
    # A failed panel released what it had claimed: the default panel still builds.
    Panel.from_config(defaults(), pin_factory=mock_factory).close()


def test_the_default_pin_map_is_free_of_conflicts(mock_factory):
    pins = check_pins(defaults(), mock_factory.board_info)
    assert pins["seat_leds[1]"] == "GPIO5" and pins["next_buttons"] == "GPIO23" and len(set(pins.values())) == len(pins)


def test_a_shared_next_button_and_the_undo_button_reach_their_handlers(panel, mock_factory):
    pressed = []
    done = threading.Event()
    panel.on_next = lambda seat: pressed.append(("next", seat))
    panel.on_undo = lambda: (pressed.append(("undo",)), done.set())
    mock_factory.pin(23).drive_low()
    mock_factory.pin(23).drive_high()
    mock_factory.pin(24).drive_low()
    assert done.wait(2)
    assert pressed == [("next", None), ("undo",)]


def test_per_seat_buttons_report_their_seat(mock_factory):
    section = {**defaults(), "next_buttons": [23, 22, 27]}
    with Panel.from_config(section, pin_factory=mock_factory) as p:
        got = []
        event = threading.Event()
        p.on_next = lambda seat: (got.append(seat), event.set())
        mock_factory.pin(27).drive_low()
        assert event.wait(2) and got == [2] and p.buttons_per_seat


def test_steady_modes_light_the_right_seats_and_repeating_them_does_not_flicker(panel, mock_factory):
    panel.show(["off", "on", "off"])
    assert values(mock_factory, 6) == [0.0, 1.0] and values(mock_factory, 5) == [0.0]
    before = {pin: len(mock_factory.pin(pin).states) for pin in (5, 6, 13, 19, 26, 21)}
    panel.show(["off", "on", "off"])
    panel.show(["off", "on"])  # seats beyond the list are off, as before
    assert {pin: len(mock_factory.pin(pin).states) for pin in before} == before
    assert panel.state()["seats"][1] == {"seat": 2, "mode": "on", "flashing": False}


def test_a_pulsing_seat_fades_up_and_down(panel, mock_factory):
    panel.show(["pulse"])
    # A pulse passes through many brightness levels (waited for: a loaded machine runs its thread late).
    wait_until(lambda: len({round(v, 2) for v in values(mock_factory, 5)}) > 4)
    assert 0.0 < max(values(mock_factory, 5)) <= 1.0


def test_a_flash_is_fast_then_the_steady_mode_returns(panel, mock_factory):
    panel.show(["on", "off"])
    panel.show(["off", "on"], flash=[0])
    assert panel.state()["effect"] == "flash" and panel.state()["seats"][0]["flashing"]
    assert panel.wait_effects(5)
    history = mock_factory.pin(5).states
    ons = [i for i, s in enumerate(history) if s.state == 1.0]
    # The steady 'on', then the flashes (the first flash's 'on' is no change for a lit LED).
    assert len(ons) == FLASH_TIMES
    # Each flash is lit for a short moment (MockPin stamps each change with the time since the last).
    lit = [history[i + 1].timestamp for i in ons[1:] if i + 1 < len(history)]
    assert statistics.median(lit) < 0.3
    assert history[-1].state == 0.0  # back to its steady mode: off
    assert values(mock_factory, 6)[-1] == 1.0 and panel.state()["effect"] is None


def test_the_victory_chase_runs_round_every_seat_then_the_winners_blink(panel, mock_factory):
    panel.show(["off", "blink", "off"], chase=True)
    assert panel.wait_effects(5)
    for pin in (5, 13, 19, 26, 21):  # every seat was lit once by the chase, losers end dark
        assert values(mock_factory, pin).count(1.0) >= 1 and values(mock_factory, pin)[-1] == 0.0
    wait_until(lambda: values(mock_factory, 6).count(1.0) >= 2)  # the winner keeps blinking


def test_the_status_led_shows_colours_and_a_red_flash_returns_to_the_steady_colour(panel, mock_factory):
    panel.set_status("green")
    assert (values(mock_factory, 16)[-1], values(mock_factory, 20)[-1]) == (0.0, 0.6)
    panel.flash_status("red", 2)
    assert panel.state()["status_flash"] == "red"
    panel.set_status("amber")  # health changed meanwhile: remembered, shown after the flash
    deadline = time.monotonic() + 5
    while panel.state()["status_flash"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert values(mock_factory, 16).count(1.0) >= 2  # red blinked
    assert (values(mock_factory, 16)[-1], values(mock_factory, 20)[-1]) == (1.0, 0.35)
    assert panel.state()["status"] == "amber"


def test_the_buzzer_beeps_a_wipe_three_times(panel, mock_factory):
    panel.beep("wipe")
    deadline = time.monotonic() + 5
    while values(mock_factory, 18).count(1.0) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert values(mock_factory, 18).count(1.0) == 3


def test_the_wiring_walk_lights_each_device_in_turn(panel, mock_factory):
    said = []
    panel.walk(step=0.01, say=said.append)
    assert said[0] == "seat 1 LED (GPIO5)" and said[6] == "status LED red (GPIO16)" and said[-1] == "buzzer (GPIO18)"
    for pin in (5, 6, 13, 19, 26, 21, 18):
        assert values(mock_factory, pin) == [0.0, 1.0, 0.0]


def test_closing_the_panel_frees_its_pins(mock_factory):
    Panel.from_config(defaults(), pin_factory=mock_factory).close()
    with Panel.from_config(defaults(), pin_factory=mock_factory) as again:
        assert again.seats == 6


def test_two_shows_during_a_cancel_leave_one_effect_running_not_two(panel, mock_factory):
    """Two threads ask for a flash while the old one is being cancelled. Only the newest effect may run
    afterwards: another one, untracked, would flash its seats under the steady modes (and the
    dashboard's mirror), and nobody would wait for it."""
    gate, old_cancelled = threading.Event(), threading.Event()
    real_flash, calls = panel._flash, []

    def flash(seats, times, cancel):
        calls.append(seats)
        if len(calls) == 1:  # the first effect is slow to notice its cancel (an LED write in progress)
            cancel.wait(5)
            old_cancelled.set()
            gate.wait(5)
            return
        real_flash(seats, times, cancel)

    panel._flash = flash
    panel.show(["on"], flash=[0], flash_times=10_000)
    other = threading.Thread(target=panel.show, args=(["on"],), kwargs={"flash": [1], "flash_times": 10_000})
    other.start()
    assert old_cancelled.wait(5)
    panel.show(["on"], flash=[2], flash_times=10_000)  # while the other show may still be waiting
    other.join(5)
    gate.set()

    def running():
        return [t for t in threading.enumerate() if t.name.startswith("leds-flash")]

    wait_until(lambda: len(calls) == 3 and len(running()) == 1)  # before the fix: two, for ever
    assert running() == [panel._effect_thread]
    panel.close()
    wait_until(lambda: not running())


def test_a_status_flash_that_fails_for_another_reason_than_closing_is_reported(panel, caplog):
    def broken(**_):
        raise RuntimeError("the PWM driver went away")

    panel.status_led.blink = broken
    panel.flash_status("red", 2)
    panel._status_thread.join(2)
    assert "the PWM driver went away" in caplog.text  # not swallowed


def test_an_evening_of_button_presses_keeps_no_growing_record(panel, mock_factory):
    import tracemalloc

    pressed = [0]

    def on_next(seat):
        pressed[0] += 1  # counts without keeping anything

    panel.on_next = on_next

    def press_many(times):
        pin = mock_factory.pin(23)
        for _ in range(times):
            pin.drive_low()
            pin.drive_high()

    press_many(200)  # warm up gpiozero's own structures
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    press_many(3000)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename")
                if s.traceback[0].filename.endswith("hardware/gpio.py"))
    assert pressed[0] >= 3000
    assert grown < 4096, f"the panel kept {grown} bytes for 3000 presses"


def test_simulated_pins_off_a_pi_keep_a_bounded_history():
    from hardware.gpio import make_pin_factory

    factory = make_pin_factory("mock")
    with Panel([5], pin_factory=factory) as panel:
        led = panel.seat_leds[0]
        for n in range(500):
            led.value = (n % 10) / 10  # a pulsing LED writes like this all evening
        assert len(factory.pin(5).states) <= 64
