"""Seat LEDs, the RGB status LED, the buzzer and the buttons, on gpiozero with an injectable pin factory.

The panel only shows and listens; it knows nothing of games. ``companion.leds``
decides what to show and ``companion.buttons`` what a press means. Button
callbacks run on gpiozero's threads and must only enqueue work (``on_next`` and
``on_undo`` are expected to hand the press to the runtime's queue and return).

Off a Raspberry Pi the pins are gpiozero's mock pins, so everything runs
unchanged; :meth:`Panel.state` describes what the LEDs show so the dashboard can
mirror them.
"""

from __future__ import annotations

import collections
import logging
import os
import threading
import time
from typing import Any, Callable, Iterable, Mapping, Sequence

_log = logging.getLogger(__name__)

MAX_SEATS = 6
SEAT_MODES = ("off", "on", "pulse", "blink")

# RGB status colours (red, green, blue), dimmed where full brightness glares at the table.
COLOURS: dict[str, tuple[float, float, float]] = {
    "off": (0.0, 0.0, 0.0),
    "green": (0.0, 0.6, 0.0),
    "amber": (1.0, 0.35, 0.0),
    "red": (1.0, 0.0, 0.0),
    "blue": (0.0, 0.0, 0.8),
    "white": (0.6, 0.6, 0.6),
}

# Buzzer patterns: (on seconds, off seconds, times).
BEEPS: dict[str, tuple[float, float, int]] = {
    "short": (0.08, 0.1, 1),
    "refused": (0.05, 0.08, 2),
    "alert": (0.15, 0.1, 2),
    "wipe": (0.45, 0.2, 3),
    "victory": (0.1, 0.08, 4),
}

# Seat LED timings in seconds.
FLASH_ON, FLASH_OFF, FLASH_TIMES = 0.08, 0.08, 6
PULSE_FADE = 0.7
BLINK_ON, BLINK_OFF = 0.5, 0.5
CHASE_STEP = 0.12


def _simulated_pin_class():
    """gpiozero's PWM mock pin keeping only its last changes: the stock one records every change for
    ever, and a pulsing LED changes dozens of times a second (megabytes an hour off a Pi)."""
    from gpiozero.pins.mock import MockPWMPin

    class SimulatedPin(MockPWMPin):
        def clear_states(self):
            super().clear_states()
            self.states = collections.deque(self.states, maxlen=64)

    return SimulatedPin


class PinConflict(ValueError):
    """Two devices are configured on the same GPIO pin (or a pin is not a GPIO)."""


def on_raspberry_pi() -> bool:
    try:
        with open("/proc/device-tree/model", "rb") as f:
            return b"Raspberry Pi" in f.read()
    except OSError:
        return False


def make_pin_factory(name: str = ""):
    """The gpiozero pin factory named ``name``.

    ``""`` lets gpiozero choose on a Pi (lgpio first) and uses the mock pins elsewhere
    (unless ``GPIOZERO_PIN_FACTORY`` says otherwise); ``"mock"`` forces mock pins that
    also support PWM, so the LEDs can pulse.
    """
    if name == "mock" or (not name and not on_raspberry_pi() and not os.environ.get("GPIOZERO_PIN_FACTORY")):
        from gpiozero.pins.mock import MockFactory

        return MockFactory(pin_class=_simulated_pin_class())
    if not name:
        from gpiozero import Device

        return Device._default_pin_factory()
    factories = {
        "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
        "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
        "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
        "native": ("gpiozero.pins.native", "NativeFactory"),
    }
    module_name, class_name = factories[name]
    module = __import__(module_name, fromlist=[class_name])
    return getattr(module, class_name)()


def is_mock(factory) -> bool:
    from gpiozero.pins.mock import MockFactory

    return isinstance(factory, MockFactory)


def _present(pin) -> bool:
    return pin is not None and pin != ""


def assignments(section: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Every configured pin as (configuration key, pin), e.g. ``("seat_leds[2]", 6)``."""
    result: list[tuple[str, Any]] = []
    for i, pin in enumerate(section.get("seat_leds") or []):
        if _present(pin):
            result.append((f"seat_leds[{i + 1}]", pin))
    for colour, pin in zip(("red", "green", "blue"), section.get("status_led") or []):
        if _present(pin):
            result.append((f"status_led {colour}", pin))
    if _present(section.get("buzzer")):
        result.append(("buzzer", section["buzzer"]))
    next_pins = section.get("next_buttons") or []
    for i, pin in enumerate(next_pins):
        if _present(pin):
            result.append(("next_buttons" if len(next_pins) == 1 else f"next_buttons[{i + 1}]", pin))
    if _present(section.get("undo_button")):
        result.append(("undo_button", section["undo_button"]))
    return result


def check_pins(section: Mapping[str, Any], board_info=None) -> dict[str, str]:
    """Each key's pin as gpiozero's canonical name (``GPIO17``); raises PinConflict on a clash.

    ``board_info`` (a factory's ``board_info``) maps names such as ``BOARD11`` or
    ``J8:11`` to GPIO numbers; without it pins are compared as BCM numbers.
    """
    status = [p for p in section.get("status_led") or [] if _present(p)]
    if status and len(status) != 3:
        raise PinConflict(f"status_led needs three pins (red, green, blue) or none, not {len(status)}")
    canonical: dict[str, str] = {}
    owner: dict[str, str] = {}
    for key, pin in assignments(section):
        name = _canonical(pin, board_info, key)
        if name in owner:
            raise PinConflict(f"{owner[name]} and {key} are both on {name}: give each device its own pin")
        owner[name] = key
        canonical[key] = name
    return canonical


def _canonical(pin, board_info, key: str) -> str:
    if board_info is not None:
        try:
            return board_info.to_gpio(pin)
        except Exception as exc:
            raise PinConflict(f"{key} = {pin!r} is not a usable GPIO pin on this board: {exc}") from None
    if isinstance(pin, int):
        return f"GPIO{pin}"
    text = str(pin).strip().upper()
    for prefix in ("GPIO", "BCM"):
        if text.startswith(prefix) and text[len(prefix):].isdigit():
            return f"GPIO{int(text[len(prefix):])}"
    if text.isdigit():
        return f"GPIO{int(text)}"
    return text


class Panel:
    """The devices of one table.

    :param seat_pins: one LED per seat, seat 1 first (PWM-capable pins let them pulse).
    :param status_pins: red, green, blue pins of the status LED, or empty.
    :param next_pins: one shared "next turn / bank" button, or one per seat.
    :param pin_factory: a gpiozero pin factory; None picks one with :func:`make_pin_factory`.
    """

    def __init__(self, seat_pins: Sequence = (), status_pins: Sequence = (), buzzer_pin=None,
                 next_pins: Sequence = (), undo_pin=None, *, pin_factory=None, bounce_time: float | None = 0.05):
        from gpiozero import Button, Buzzer, PWMLED, RGBLED

        self.factory = pin_factory if pin_factory is not None else make_pin_factory()
        section = {"seat_leds": list(seat_pins), "status_led": list(status_pins), "buzzer": buzzer_pin,
                   "next_buttons": list(next_pins), "undo_button": undo_pin}
        self.pins = check_pins(section, getattr(self.factory, "board_info", None))
        self.on_next: Callable[[int | None], None] | None = None
        self.on_undo: Callable[[], None] | None = None
        self._lock = threading.RLock()
        self._devices: list = []
        self.seat_leds: list = []
        self.status_led = None
        self.buzzer = None
        self.next_buttons: list = []
        self.undo_button = None
        self._modes: list[str] = []
        self._shown: list[str | None] = []
        self._status = "off"
        self._status_flashing: str | None = None
        self._status_thread: threading.Thread | None = None
        self._effect: str | None = None
        self._effect_seats: set[int] = set()
        self._effect_thread: threading.Thread | None = None
        self._cancel = threading.Event()
        try:
            for pin in seat_pins:
                if _present(pin):
                    self.seat_leds.append(self._add(PWMLED(pin, pin_factory=self.factory)))
            if any(_present(p) for p in status_pins):
                red, green, blue = status_pins
                self.status_led = self._add(RGBLED(red, green, blue, pin_factory=self.factory))
            if _present(buzzer_pin):
                self.buzzer = self._add(Buzzer(buzzer_pin, pin_factory=self.factory))
            present_next = [p for p in next_pins if _present(p)]
            for index, pin in enumerate(present_next):
                button = self._add(Button(pin, bounce_time=bounce_time, pin_factory=self.factory))
                button.when_pressed = self._next_handler(None if len(present_next) == 1 else index)
                self.next_buttons.append(button)
            if _present(undo_pin):
                self.undo_button = self._add(Button(undo_pin, bounce_time=bounce_time, pin_factory=self.factory))
                self.undo_button.when_pressed = self._undo_pressed
        except BaseException:
            self.close()
            raise
        self._modes = ["off"] * len(self.seat_leds)
        self._shown = ["off"] * len(self.seat_leds)

    @classmethod
    def from_config(cls, section: Mapping[str, Any], *, pin_factory=None, **kwargs) -> "Panel":
        """A panel from the ``[gpio]`` section (``pin_factory`` there is used when none is passed)."""
        factory = pin_factory if pin_factory is not None else make_pin_factory(section.get("pin_factory", ""))
        return cls(section.get("seat_leds") or [], section.get("status_led") or [], section.get("buzzer"),
                   section.get("next_buttons") or [], section.get("undo_button"), pin_factory=factory, **kwargs)

    def _add(self, device):
        self._devices.append(device)
        return device

    # -- inputs -------------------------------------------------------------------

    @property
    def buttons_per_seat(self) -> bool:
        return len(self.next_buttons) > 1

    def _next_handler(self, seat: int | None):
        def pressed() -> None:  # gpiozero's thread: hand on, nothing more
            if self.on_next is not None:
                self.on_next(seat)

        return pressed

    def _undo_pressed(self) -> None:
        if self.on_undo is not None:
            self.on_undo()

    # -- seat LEDs -------------------------------------------------------------------

    @property
    def seats(self) -> int:
        return len(self.seat_leds)

    def show(self, modes: Sequence[str], *, flash: Iterable[int] = (), chase: bool = False,
             flash_times: int = FLASH_TIMES) -> None:
        """Set the seat LEDs' steady modes (``off``, ``on``, ``pulse``, ``blink``), seat 1 first.

        ``flash`` seats flash fast ``flash_times`` times first; ``chase`` runs a light
        around every seat first (the victory). LEDs whose mode does not change are not
        touched, so repeating a scene never flickers.
        """
        modes = [m if m in SEAT_MODES else "off" for m in list(modes)[: self.seats]]
        modes += ["off"] * (self.seats - len(modes))
        flash = sorted({s for s in flash if 0 <= s < self.seats})
        with self._lock:
            self._modes = modes
            if chase and self.seats:
                self._start_effect("chase", set(range(self.seats)), self._chase)
            elif flash:
                seats = set(flash)
                if self._effect == "chase":
                    seats = set(range(self.seats))
                self._start_effect("flash", seats, lambda cancel: self._flash(flash, flash_times, cancel))
            self._apply_steady()

    def _apply_steady(self) -> None:
        with self._lock:
            for seat, (led, mode) in enumerate(zip(self.seat_leds, self._modes)):
                if seat in self._effect_seats or self._shown[seat] == mode:
                    continue
                self._shown[seat] = mode
                if mode == "on":
                    led.on()
                elif mode == "pulse":
                    led.pulse(fade_in_time=PULSE_FADE, fade_out_time=PULSE_FADE)
                elif mode == "blink":
                    led.blink(on_time=BLINK_ON, off_time=BLINK_OFF)
                else:
                    led.off()

    def _start_effect(self, name: str, seats: set[int], body: Callable[[threading.Event], None]) -> None:
        """Runs ``body(cancel)`` on its own thread. Called with the lock held, which is never let go
        part-way: the running effect is cancelled (it writes no LED after that, see :meth:`_write`)
        and the new one started in one step, so two effects never run at once."""
        self._cancel.set()
        cancel = self._cancel = threading.Event()
        self._effect = name
        self._effect_seats = set(seats)
        for seat in seats:
            self._shown[seat] = None  # the effect takes the LED over; steady mode is re-applied after

        def run() -> None:
            try:
                body(cancel)
            finally:
                with self._lock:
                    if self._cancel is cancel:
                        self._effect = None
                        self._effect_seats = set()
                        self._apply_steady()

        self._effect_thread = threading.Thread(target=run, name=f"leds-{name}", daemon=True)
        self._effect_thread.start()

    def _write(self, leds, value: float, cancel: threading.Event) -> bool:
        """Set ``leds`` unless the effect was cancelled meanwhile (False then: the effect ends)."""
        with self._lock:
            if cancel.is_set():
                return False
            for led in leds:
                led.value = value
        return True

    def _flash(self, seats: Sequence[int], times: int, cancel: threading.Event) -> None:
        leds = [self.seat_leds[s] for s in seats]
        for _ in range(times):
            if not self._write(leds, 1, cancel) or cancel.wait(FLASH_ON):
                return
            if not self._write(leds, 0, cancel) or cancel.wait(FLASH_OFF):
                return

    def _chase(self, cancel: threading.Event) -> None:
        for _ in range(2):
            for led in self.seat_leds:
                if not self._write([led], 1, cancel) or cancel.wait(CHASE_STEP):
                    return
                if not self._write([led], 0, cancel):
                    return

    def wait_effects(self, timeout: float = 5.0) -> bool:
        """Wait until a running flash or chase has finished (tests, the doctor). True when idle."""
        thread = self._effect_thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    # -- status LED and buzzer -------------------------------------------------------------

    def set_status(self, colour: str) -> None:
        """The status LED's steady colour (``green``, ``amber``, ``red``, ``blue``, ``off``)."""
        colour = colour if colour in COLOURS else "off"
        with self._lock:
            changed = colour != self._status
            self._status = colour
            if self.status_led is not None and changed and self._status_flashing is None:
                self.status_led.color = COLOURS[colour]

    def flash_status(self, colour: str, times: int = 3) -> None:
        """Blink the status LED in ``colour`` (the wipe's triple red), then go back to the steady colour."""
        with self._lock:
            if self.status_led is None or colour not in COLOURS:
                return
            self._status_flashing = colour
        self._status_thread = threading.Thread(target=self._status_flash, args=(COLOURS[colour], times),
                                               name="leds-status", daemon=True)
        self._status_thread.start()

    def _status_flash(self, rgb: tuple[float, float, float], times: int) -> None:
        from gpiozero.exc import GPIODeviceClosed

        led = self.status_led
        try:
            led.blink(on_time=0.2, off_time=0.15, on_color=rgb, n=times, background=False)
        except GPIODeviceClosed:  # the panel was closed meanwhile
            return
        except Exception:  # anything else is a fault worth knowing about, not a reason to stop the game
            _log.exception("the status LED's flash failed")
        finally:
            with self._lock:
                self._status_flashing = None
                if self._devices:
                    led.color = COLOURS[self._status]

    @property
    def status(self) -> str:
        return self._status

    def beep(self, pattern: str = "short") -> None:
        """Sound a buzzer pattern in the background (``short``, ``refused``, ``alert``, ``wipe``, ``victory``)."""
        if self.buzzer is None or pattern not in BEEPS:
            return
        on, off, times = BEEPS[pattern]
        self.buzzer.beep(on_time=on, off_time=off, n=times, background=True)

    # -- the doctor's wiring check ----------------------------------------------------------

    def walk(self, step: float = 0.5, say: Callable[[str], None] = print) -> None:
        """Light each LED in turn and sound the buzzer, naming each, so a person can check the wiring."""
        for seat, led in enumerate(self.seat_leds):
            say(f"seat {seat + 1} LED ({self.pins.get(f'seat_leds[{seat + 1}]', '?')})")
            led.on()
            time.sleep(step)
            led.off()
        if self.status_led is not None:
            for colour in ("red", "green", "blue"):
                say(f"status LED {colour} ({self.pins.get(f'status_led {colour}', '?')})")
                self.status_led.color = (colour == "red", colour == "green", colour == "blue")
                time.sleep(step)
            self.status_led.off()
        if self.buzzer is not None:
            say(f"buzzer ({self.pins.get('buzzer', '?')})")
            self.buzzer.on()
            time.sleep(min(step, 0.2))
            self.buzzer.off()
        self._shown = [None] * self.seats
        self._apply_steady()

    # -- the dashboard's mirror -----------------------------------------------------------

    def state(self) -> dict:
        """What the LEDs show, for the dashboard: steady modes, the running effect, the status colour."""
        with self._lock:
            return {
                "seats": [
                    {"seat": i + 1, "mode": mode, "flashing": i in self._effect_seats}
                    for i, mode in enumerate(self._modes)
                ],
                "effect": self._effect,
                "status": self._status,
                "status_flash": self._status_flashing,
                "buzzer": bool(self.buzzer is not None and self.buzzer.value),
                "simulated": is_mock(self.factory),
            }

    def close(self) -> None:
        """Switch everything off and release the pins. Safe to call twice."""
        with self._lock:
            self._cancel.set()
            effect = self._effect_thread
        if effect is not None and effect is not threading.current_thread():
            effect.join(1.0)  # it writes nothing more; the join only lets it finish its last wait
        for device in reversed(self._devices):
            try:
                device.close()
            except Exception:
                _log.exception("closing %r failed", device)
        self._devices = []
        if self._status_thread is not None:
            self._status_thread.join(2.0)

    def __enter__(self) -> "Panel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
