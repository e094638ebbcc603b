"""What a button press means: "next turn / bank" ends the turn, "undo" takes back the last move.

Presses arrive on gpiozero's threads and are only enqueued on the runtime (its
one writer thread applies them). With one button per seat a press counts only
for the seat whose turn it is, except while the game waits for a choice among the
other seats: Fandooble's Fandooble steals from the player whose button is pressed.

Games opt in with optional rules-module hooks, read with ``getattr``:

* ``end_turn_move(state) -> move | None``: what "next turn" plays (Fandooble: ``bank``);
* ``seat_choice_move(state, seat) -> move | None``: what pressing another seat's
  button plays while ``awaiting_decision(state)`` is true (Fandooble: ``steal NAME``).
"""

from __future__ import annotations

import logging
from typing import Callable

from companion.errors import CompanionError
from companion.leds import awaiting_decision, seat_of

_log = logging.getLogger(__name__)

def next_move(session, seat: int | None) -> tuple[str | None, str]:
    """The move a "next turn" press at ``seat`` (None: the shared button) asks for, or None and why not."""
    if session is None:
        return None, "no game is in play"
    if session.outcome() is not None:
        return None, "the game is over"
    rules, state = session.rules, session.state
    current = seat_of(session, session.current_player())
    if awaiting_decision(rules, state):
        if seat is None or seat == current:
            who = session.current_player()
            return None, f"{who} must choose first: press the seat button of the player to pick, or use the dashboard"
        choose = getattr(rules, "seat_choice_move", None)
        move = _text(choose(state, seat)) if choose else None
        return (move, "") if move else (None, "this game cannot take that choice from a button")
    if seat is not None and seat != current:
        return None, f"it is {session.current_player()}'s turn, not seat {seat + 1}'s"
    end_turn = getattr(rules, "end_turn_move", None)
    move = _text(end_turn(state)) if end_turn else None
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
