"""What the seat LEDs, the status LED and the buzzer say about the game.

* the current player's seat is lit; it pulses while the game waits for that
  player's decision (Fandooble: whom the Fandooble steals from);
* a fast flash on the seat when a camera reading is refused (an ``alert``) or the
  player busts; a wipe (three red dragons) flashes every seat, blinks the status LED
  red and sounds the buzzer, so nobody misses it;
* at the end the winners' seats blink after a light has run round the table;
* the status LED is green while the camera sees the table, amber while degraded
  (camera restarting, table not in view), red on a failure.

Games may opt in with two optional rules-module hooks, read with ``getattr``:
``awaiting_decision(state) -> bool``.

The observer runs on the runtime thread after every event; a game opened or
resumed (``event is None``) shows its steady picture with no flash, so a restart
lights the current seat without any intermediate flicker.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

_log = logging.getLogger(__name__)

# Events that come from the table (not undo/notes): only these may flash or beep.
PLAYED = ("move", "redo", "correct")


@dataclass(frozen=True)
class Scene:
    """What the seat LEDs show: steady modes seat 1 first, plus one-off effects."""

    modes: tuple[str, ...] = ()
    flash: tuple[int, ...] = ()
    flash_times: int = 6
    chase: bool = False
    beep: str | None = None
    status_flash: str | None = None


def seat_of(session, name: str | None) -> int | None:
    if name is None:
        return None
    for i, player in enumerate(session.players):
        if player.casefold() == str(name).casefold():
            return i
    return None


def awaiting_decision(rules, state) -> bool:
    """Whether the game waits for the current player's choice (the engine's optional hook)."""
    hook = getattr(rules, "awaiting_decision", None)
    return bool(hook(state)) if callable(hook) else False


def _state_before(session, event) -> Any:
    """The state before ``event`` when it is the last move in effect (for who busted)."""
    played = session.played
    if not played:
        return None
    last = played[-1]
    if event.kind == "move" and last.event_id != event.event_id:
        return None
    return played[-2].after if len(played) > 1 else session.initial


def scene_for(session, event=None) -> Scene:
    """The LED scene for ``session`` after ``event`` (None: opened or resumed, steady picture only)."""
    if session is None:
        return Scene()
    players = len(session.players)
    result = session.outcome()
    fresh = event is not None and event.kind in PLAYED
    if result is not None:
        winners = {seat_of(session, w) for w in result.winners}
        modes = tuple("blink" if i in winners else "off" for i in range(players))
        return Scene(modes, chase=fresh, beep="victory" if fresh else None)
    state = session.state
    current = seat_of(session, session.current_player())
    mode = "pulse" if awaiting_decision(session.rules, state) else "on"
    modes = tuple(mode if i == current else "off" for i in range(players))
    if event is None:
        return Scene(modes)
    if event.kind == "alert":
        return Scene(modes, flash=() if current is None else (current,), beep="alert")
    if fresh:
        happened = getattr(state, "last_event", "")
        if happened in ("bust", "wipe"):
            before = _state_before(session, event)
            loser = seat_of(session, session.rules.current_player(before)) if before is not None else None
            if happened == "wipe":
                return Scene(modes, flash=tuple(range(players)), flash_times=10, beep="wipe", status_flash="red")
            return Scene(modes, flash=() if loser is None else (loser,), beep="short")
    return Scene(modes)


def status_colour(health: dict) -> str:
    """``red`` on any failure, ``amber`` while anything is degraded or the camera has not reported, else ``green``."""
    statuses = [part.get("status") for part in health.values()]
    if "failed" in statuses:
        return "red"
    if "degraded" in statuses or "camera" not in health:
        return "amber"
    return "green"


class LedObserver:
    """Drives a :class:`hardware.gpio.Panel` from the runtime: ``runtime.add_observer(LedObserver(panel))``."""

    def __init__(self, panel):
        self.panel = panel
        self.last_scene: Scene | None = None
        self.modes: tuple[str, ...] = ()

    def attach(self, runtime) -> "LedObserver":
        """Observe ``runtime`` and publish the LED states in its snapshots (the dashboard's mirror)."""
        runtime.add_snapshot_part("leds", self.panel.state)
        runtime.add_observer(self)
        return self

    def __call__(self, runtime, session, event) -> None:
        self.show(scene_for(session, event))

    def show(self, scene: Scene) -> None:
        self.last_scene = scene
        self.modes = scene.modes
        self.panel.show(scene.modes, flash=scene.flash, chase=scene.chase, flash_times=scene.flash_times)
        if scene.beep:
            self.panel.beep(scene.beep)
        if scene.status_flash:
            self.panel.flash_status(scene.status_flash, 3)

    def refused(self, seat: int | None, reason: str) -> None:
        """A button press the game refused: flash that seat (or the current one) and beep twice."""
        _log.info("button refused: %s", reason)
        flash = [seat] if seat is not None else [i for i, m in enumerate(self.modes) if m != "off"]
        self.panel.show(self.modes, flash=flash, flash_times=3)
        self.panel.beep("refused")

    def update_status(self, health: dict) -> bool:
        """Set the status LED from the runtime's health; True when its colour changed."""
        colour = status_colour(health)
        if colour == self.panel.status:
            return False
        self.panel.set_status(colour)
        return True
