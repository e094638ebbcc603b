"""What a button press means: "next turn / bank" ends the turn, "undo" takes back the last move.

Presses arrive on gpiozero's threads and are only enqueued on the runtime (its
one writer thread applies them). With one button per seat a press counts only
for the seat whose turn it is, except while the game waits for a choice among the
other seats: Fandooble's Fandooble steals from the player whose button is pressed.

The game says what a press means (:class:`companion.games.Game`): ``end_turn_move``
for "next turn" and ``seat_choice_move`` for another seat's button while someone
decides. Seats are physical: a game at seats 1, 3 and 5 listens to those buttons.
"""

from __future__ import annotations

import logging
from typing import Callable

from companion.errors import CompanionError

_log = logging.getLogger(__name__)


def next_move(session, seat: int | None) -> tuple[str | None, str]:
    """The move a "next turn" press at physical ``seat`` (None: the shared button) asks for, or None and why not."""
    if session is None:
        return None, "no game is in play"
    if session.outcome() is not None:
        return None, "the game is over"
    rules, state = session.rules, session.state
    pressed = session.player_at(seat) if seat is not None else None
    if seat is not None and pressed is None:
        return None, f"nobody sits at seat {seat + 1} in this game"
    deciding = rules.deciding(state)
    if deciding:
        chooser = deciding[0]
        if pressed is None or pressed in deciding:
            return None, f"{chooser} must choose first: press the seat button of the player to pick, or use the dashboard"
        move = _text(rules.seat_choice_move(state, chooser, pressed))
        return (move, "") if move else (None, "this game cannot take that choice from a button")
    acting = rules.to_act(state)
    if pressed is not None and pressed not in acting:
        whose = " and ".join(acting) if acting else "nobody"
        return None, f"it is {whose}'s turn, not seat {seat + 1}'s"
    move = _text(rules.end_turn_move(state))
    return (move, "") if move else (None, "this game has no end-of-turn move for the button")


def _text(move) -> str | None:
    return move.to_text() if move is not None and not isinstance(move, str) else move


class ButtonInputs:
    """Connects a panel's buttons to the runtime: ``ButtonInputs(runtime, panel, refused=leds.refused)``.

    :param refused: called on the runtime thread with ``(seat, reason)`` when a press changes nothing.
    """

    def __init__(self, runtime, panel, *, refused: Callable[[int | None, str], None] | None = None):
        self.runtime = runtime
        self.refused = refused
        panel.on_next = self.next_pressed
        panel.on_undo = self.undo_pressed

    # gpiozero's threads: enqueue and return.

    def next_pressed(self, seat: int | None = None) -> None:
        self.runtime.submit(self._next, seat)

    def undo_pressed(self) -> None:
        self.runtime.submit(self._undo)

    # The runtime thread.

    def _next(self, seat: int | None) -> str | None:
        session = self.runtime.session
        move, reason = next_move(session, seat)
        if move is None:
            self._refuse(seat, reason)
            return None
        try:
            self.runtime.play(move, source="button")  # on the runtime thread: runs at once, and is recorded
        except CompanionError as exc:  # e.g. bank before the first roll of the turn
            self._refuse(seat, str(exc))
            return None
        return move

    def _undo(self) -> None:
        # This is the runtime thread: runtime.undo() runs at once (and a recording hears it).
        if self.runtime.session is None:
            self._refuse(None, "no game is in play")
            return
        try:
            self.runtime.undo(source="button")
        except CompanionError as exc:
            self._refuse(None, str(exc))

    def _refuse(self, seat: int | None, reason: str) -> None:
        _log.info("button press refused: %s", reason)
        if self.refused is not None:
            self.refused(seat, reason)
