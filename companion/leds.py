"""What the seat LEDs, the status LED and the buzzer say about the game.

* the current player's seat is lit; it pulses while the game waits for that
  player's decision (Fandooble: whom the Fandooble steals from); a seat whose
  answer the game waits for during someone else's turn pulses while the turn's
  player stays lit (a player answering the command of the one whose turn it is);
* a fast flash on the seat when a camera reading is refused (an ``alert``) or the
  player busts; a wipe (three red dragons) flashes every seat, blinks the status LED
  red and sounds the buzzer, so nobody misses it;
* at the end the winners' seats blink after a light has run round the table;
* the status LED is green while the camera sees the table, amber while degraded
  (camera restarting, table not in view), red on a failure.

Games name their own signals (:attr:`companion.games.Game.SIGNALS`: Fandooble's
``bust`` and ``wipe``) and map each to one of the patterns below; this module
knows the patterns, never the games. Seats are the physical seats the players sit
at (a game at seats 1, 3 and 5 lights those), and every player the game waits for
is lit: in a simultaneous step the seats go dark one by one as their players choose.

The observer runs on the runtime thread after every event; a game opened or
resumed (``event is None``) shows its steady picture with no flash, so a restart
lights the current seat without any intermediate flicker.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from companion import eventkinds

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Scene:
    """What the seat LEDs show: steady modes seat 1 first, plus one-off effects."""

    modes: tuple[str, ...] = ()
    flash: tuple[int, ...] = ()
    flash_times: int = 6
    chase: bool = False
    beep: str | None = None
    status_flash: str | None = None


def _setback(modes, seats, everyone) -> Scene:
    """One player lost something (a bust): their seat flashes, a short beep."""
    return Scene(modes, flash=seats, beep="short")


def _disaster(modes, seats, everyone) -> Scene:
    """Something nobody may miss (a wipe): every seat flashes, the status LED blinks red, the buzzer sounds."""
    return Scene(modes, flash=everyone, flash_times=10, beep="wipe", status_flash="red")


def _cheer(modes, seats, everyone) -> Scene:
    """Good news for some players: their seats flash, the victory tune."""
    return Scene(modes, flash=seats, beep="victory")


# Pattern name -> how it looks. Games refer to these names in their SIGNALS.
PATTERNS = {"setback": _setback, "disaster": _disaster, "cheer": _cheer}


def seat_of(session, name: str | None) -> int | None:
    """The physical seat (0 = seat 1) where player ``name`` sits, or None."""
    return None if name is None else session.seat_index(name)


def _seats(session, names) -> tuple[int, ...]:
    return tuple(sorted(i for i in (seat_of(session, n) for n in names) if i is not None))


def _last_signal(session, event):
    """The signal raised by ``event`` when it is the last move in effect."""
    played = session.played
    if not played or (event.kind == eventkinds.MOVE and played[-1].event_id != event.event_id):
        return None
    before = played[-2].after if len(played) > 1 else session.initial
    return session.rules.signal(before, played[-1].after, played[-1].move)


def scene_for(session, event=None) -> Scene:
    """The LED scene for ``session`` after ``event`` (None: opened or resumed, steady picture only)."""
    if session is None:
        return Scene()
    width = max(session.seats) + 1
    everyone = tuple(sorted(session.seats))
    result = session.outcome()
    fresh = event is not None and event.kind in eventkinds.FROM_THE_TABLE
    if result is not None:
        winners = set(_seats(session, result.winners))
        modes = tuple("blink" if i in winners else "off" for i in range(width))
        return Scene(modes, chase=fresh, beep="victory" if fresh else None)
    rules, state = session.rules, session.state
    # Everyone the game waits for, and the player whose turn it is while others answer them.
    acting = rules.to_act(state) + tuple(p for p in (rules.current_player(state),) if p)
    deciding = set(_seats(session, rules.deciding(state)))
    lit = set(_seats(session, acting))
    modes = tuple("pulse" if i in deciding else "on" if i in lit else "off" for i in range(width))
    if event is None:
        return Scene(modes)
    if event.kind == eventkinds.ALERT:
        return Scene(modes, flash=tuple(sorted(lit)), beep="alert")
    if event.kind == eventkinds.CLAIM:
        seat = seat_of(session, event.payload.get("player"))
        return Scene(modes, flash=() if seat is None else (seat,), flash_times=2)
    if fresh:
        signal = _last_signal(session, event)
        if signal is not None:
            pattern = PATTERNS.get(rules.SIGNALS.get(signal.name, ""))
            if pattern is not None:
                return pattern(modes, _seats(session, signal.players), everyone)
    return Scene(modes)


def status_colour(health: dict) -> str:
    """``red`` on any failure, ``amber`` while anything is degraded or the camera has not reported, else ``green``."""
    statuses = [part.get("status") for part in health.values()]
    if "failed" in statuses:
        return "red"
    if "degraded" in statuses or "camera" not in health:
        return "amber"
    return "green"


def teaching_cue(before: dict | None, now: dict | None) -> str | None:
    """The buzzer pattern for a die being taught with the camera, from its teaching status ``before`` and ``now``
    (:meth:`companion.teach.DiceTeacher.status`): ``short`` as each picture is taken, ``refused`` when one is refused
    (the phones say why), ``victory`` when the die is learned, ``alert`` when teaching stops unfinished (no face
    shown in time); None otherwise. The teacher looks at the die in the tray, not at a phone. Teaching from photos
    has none: they are chosen on a phone, anywhere."""
    if not now or now.get("photos") or now == before:
        return None
    was = before if before and before.get("active") else {}  # a session started since: counted from nothing
    if now.get("state") in ("done", "failed") and was.get("state") != now.get("state"):
        return "victory" if now["state"] == "done" else "alert"
    if now.get("retries", 0) > was.get("retries", 0):
        return "refused"
    if now.get("learned", 0) > was.get("learned", 0):
        return "short"
    return None


class LedObserver:
    """Drives a :class:`hardware.gpio.Panel` from the runtime: ``runtime.add_observer(LedObserver(panel))``."""

    def __init__(self, panel):
        self.panel = panel
        self.last_scene: Scene | None = None
        self.modes: tuple[str, ...] = ()
        self._teaching: dict | None = None  # the teaching status last followed (follow_teaching)

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

    def follow_teaching(self, status: dict | None) -> None:
        """Sound :func:`teaching_cue` for the teaching ``status`` now (the runtime's ``teaching`` part), the status LED
        blinking green with each picture taken and the die learned."""
        cue = teaching_cue(self._teaching, status)
        self._teaching = status if isinstance(status, dict) else None
        if cue is None:
            return
        self.panel.beep(cue)
        if cue in ("short", "victory"):
            self.panel.flash_status("green", 1 if cue == "short" else 3)

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
