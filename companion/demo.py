"""The demo table: a scripted Fabled Fruit game played through the real companion.

On a machine without a camera, ``companion run`` shows the whole loop working:
the demo camera plays :mod:`vision.synth.demo`'s pictures (a hand reaching over
the table, a juice bought, the next card drawn from the deck), the pipeline reads
the tags, the stabiliser settles, the Fable referee turns the change into
``buy`` and ``draw`` moves, the engine checks them and the dashboard shows them.
What a person would type at the table (the animal's move, an action) this class
enters on the dashboard's behalf, at the moment the script's hand reaches out.

The demo plays the first game of its own campaign (titled :data:`DEMO_TITLE`),
again each time the script starts over; when a person starts another game, the
demo stops entering moves and leaves that game alone.
"""

from __future__ import annotations

import json
import logging
from typing import Iterator

from companion.errors import CompanionError
from companion.session import Session

_log = logging.getLogger(__name__)

DEMO_TITLE = "Demo table"


class DemoTable:
    """Builds the demo camera and drives the demo game in step with its pictures."""

    def __init__(self, runtime, *, players: tuple[str, ...] = ("Anne", "Paul"), turns: int = 40,
                 size: tuple[int, int] = (2304, 1296), hand_frames: int = 10, still_frames: int = 30):
        from vision.synth.demo import DemoGame

        self.runtime = runtime
        self.script = DemoGame(players=players, turns=turns, size=size, hand_frames=hand_frames,
                               still_frames=still_frames)
        self._frames: Iterator | None = None
        self._step: int | None = None
        self.games_started = 0

    @property
    def table_mm(self) -> tuple[float, float]:
        return self.script.table_mm

    def camera(self, *, fps: float = 10.0, work_width: int | None = None):
        """The demo camera playing this script (hardware's :class:`DemoCamera`)."""
        from hardware.camera.demo import DemoCamera

        return DemoCamera(self.next_image, fps=fps, work_width=work_width)

    # -- the camera's reader thread -------------------------------------------------------

    def next_image(self, number: int):
        """The demo camera's source: the next picture, entering the script's moves as it goes."""
        if number == 0 or self._frames is None:
            self._frames = self.script.frames()
            self._step = None
            self.runtime.submit(self._new_game)
        try:
            frame = next(self._frames)
        except StopIteration:
            self._frames = None
            return None  # the camera starts the script again
        if frame.step.number != self._step:
            self._step = frame.step.number
            if frame.step.entered:
                self.runtime.submit(self._enter, frame.step.entered)
        return frame.image

    # -- the runtime thread ------------------------------------------------------------------

    def _is_demo(self, session) -> bool:
        if session is None:
            return False
        if session.record.title == DEMO_TITLE:
            return True
        parent = session.record.parent_id
        return parent is not None and self.runtime.log.session(parent).title == DEMO_TITLE

    def _new_game(self) -> None:
        session = self.runtime.session
        if session is not None and not self._is_demo(session) and session.outcome() is None:
            _log.info("a game is in play: the demo table only shows its pictures")
            return
        campaign = self._demo_campaign()
        if campaign is None:
            # Another group's campaign is on the table: the demo plays a game of its own instead.
            self.runtime.new_game("fable", list(self.script.players), self.script.options(), title=DEMO_TITLE)
        else:
            # Every loop of the script is a first game: abandon the last one, sort the cards, lay out 1-6.
            if campaign.state.current is not None:
                campaign.abandon_game(reason="the demo script starts again", source="system")
            campaign.reset(source="system")
            facts = json.loads(self.script.options()["locations"])
            game = campaign.start_game(list(self.script.players), start=self.script.players[0], card_facts=facts,
                                       source="system")
            self.runtime.open_game(game.session_id)
        self.games_started += 1

    def _demo_campaign(self):
        """The demo's own campaign (made on first use), or None when another campaign's cards are on the table."""
        from companion.campaign import Campaign, on_table

        log = self.runtime.log
        busy = on_table(log)
        if busy is not None and busy.title != DEMO_TITLE:
            return None
        if busy is not None:
            return Campaign(log, busy.session_id)
        for record in log.sessions(kind="campaign"):
            if record.title == DEMO_TITLE:
                return None  # parked: a person put the demo's cards away
        return Campaign.new(log, list(self.script.players), title=DEMO_TITLE)

    def _enter(self, moves: tuple[str, ...]) -> None:
        session: Session | None = self.runtime.session
        if not self._is_demo(session):
            return
        for move in moves:
            try:
                session.apply(move, source="dashboard")
            except CompanionError as exc:
                _log.warning("demo table: '%s' was refused (%s); the demo waits for its next game", move, exc)
                return
