"""Trying the dice on the Setup page: after teaching, the game master throws the dice into the tray and sees what
the camera reads, with no game in play, before the evening depends on it.

``POST /api/dice/try`` ``{"on": true}`` starts it for TRY_S seconds, ``{"on": false}`` stops it. With no dice game
in play the camera reads no dice (a Pi's work spared); while trying it does, and the camera pipeline keeps each
throw in its ``vision`` part (``last_roll``, and ``tried``: the throw's number and picture), playing it in no game.
The runtime's snapshot part ``dice_try`` says whether it is on, so every phone on the Setup page follows.
"""

from __future__ import annotations

import threading
import time

from flask import Blueprint, jsonify

from web.bodies import json_body
from web.runtime_ref import runtime
from web.security import refuse

bp = Blueprint("dice_try_api", __name__, url_prefix="/api/dice/try")

TRY_S = 600.0  # trying ends by itself after this long: a phone put away does not keep the camera reading


class Trying:
    """Whether the dice are being tried, until when; the runtime publishes a new snapshot when it ends by itself."""

    def __init__(self, runtime, clock=time.monotonic):
        self.runtime = runtime
        self.clock = clock
        self._until: float | None = None
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def status(self) -> dict:
        return {"active": self._until is not None and self.clock() < self._until}

    def start(self, seconds: float) -> dict:
        with self._lock:
            self._until = self.clock() + seconds
            self._timed(seconds)
        self.runtime.refresh()
        return self.status()

    def stop(self) -> dict:
        with self._lock:
            self._until = None
            self._timed(None)
        self.runtime.refresh()
        return self.status()

    def _timed(self, seconds: float | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        if seconds is not None:  # the phones learn that it ended
            self._timer = threading.Timer(seconds, self.runtime.refresh)
            self._timer.daemon = True
            self._timer.start()


@bp.record_once
def _trying_part(state) -> None:
    trying = Trying(state.app.extensions["companion_runtime"])
    state.app.extensions["companion_dice_trying"] = trying
    trying.runtime.add_snapshot_part("dice_try", trying.status)


def _trying() -> Trying:
    from flask import current_app

    return current_app.extensions["companion_dice_trying"]


@bp.get("")
def trying_status():
    return jsonify(trying=_trying().status())


@bp.post("")
def try_the_dice():
    """``{"on": true}``: read the throws in the tray and show them, playing none; ``{"on": false}``: stop."""
    on = json_body().get("on")
    if not isinstance(on, bool):
        refuse(400, "'on' is true (read the throws and show them) or false (stop)", "bad_field", field="on")
    if not on:
        return jsonify(trying=_trying().stop())
    session = runtime().session
    reads = session.rules.CAMERA if session is not None and session.outcome() is None else None
    if reads == "dice":
        refuse(409, f"a {session.rules.TITLE} game is in play: throw for it, and its page shows what the camera read",
               "camera_in_use")
    if reads is not None:
        refuse(409, f"a {session.rules.TITLE} game is in play and the camera reads its table: try the dice once it "
               "is over", "camera_in_use")
    teaching = runtime().snapshot_part("teaching")
    if isinstance(teaching, dict) and teaching.get("active"):
        refuse(409, "the dice are being taught: try them once teaching ends", "busy")
    return jsonify(trying=_trying().start(TRY_S))
