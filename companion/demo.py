"""The demo table: a scripted Fabled Fruit game played as a film through the real companion.

On a machine without a camera, ``companion run`` shows the whole loop working:
the demo camera plays :mod:`vision.synth.demo`'s pictures (a hand reaching over
the table, a juice bought, the next card drawn from the deck), the pipeline reads
the tags, the stabiliser settles, the Fable referee turns the change into
``buy`` and ``draw`` moves, the engine checks them and the dashboard shows them.
What a person would type at the table (the animal's move, an action) is part of
the film: an input delivered after the last picture before the hand reaches out.

The script is played by :class:`companion.film.player.LiveShow`: the next picture
is handed to the camera only once the runtime has taken everything the last one
caused, and pictures carry the script's own time. However slow or busy the machine,
the table, the moves entered and the game stay in step (a slow machine only plays
the film more slowly).

The demo plays the first game of its own campaign (titled :data:`DEMO_TITLE`),
again each time the script starts over; when a person starts another game, the
demo stops entering moves and leaves that game alone.
"""

from __future__ import annotations

import json
import logging
from typing import Iterator

from companion.film.store import FilmFrame, FilmInput, ScriptFilm

_log = logging.getLogger(__name__)

DEMO_GAME = "fable"
DEMO_TITLE = "Demo table"
DEMO_START = "demo_campaign"


def script_film(script, *, fps: float = 10.0, title: str = DEMO_TITLE, campaign: bool = True) -> ScriptFilm:
    """A :class:`vision.synth.demo.DemoGame` as a film: its pictures at ``fps`` in the script's time, each
    turn's entered moves delivered after the last picture before that turn, and the demo campaign's first
    game as its start (``campaign=False``: a plain new game)."""
    if campaign:
        start = [FilmInput(0, DEMO_START, {"title": title, "players": list(script.players),
                                           "options": script.options()})]
    else:
        start = [FilmInput(0, "new_game", {"game": "fable", "players": list(script.players),
                                           "options": script.options(), "title": title})]
    header = {"title": title, "table_mm": list(script.table_mm), "fps": fps}

    def frames() -> Iterator[FilmFrame]:
        previous: FilmFrame | None = None
        step = None
        for shot in script.frames():
            frame = FilmFrame(number=shot.index + 1, t=shot.index / fps, image=shot.image)
            if previous is not None:
                if shot.step.number != step:
                    previous.inputs = [FilmInput(previous.number, "play", {"move": move, "source": "dashboard"})
                                       for move in shot.step.entered]
                yield previous
            previous, step = frame, shot.step.number
        if previous is not None:
            yield previous

    return ScriptFilm(header, start, frames)


class DemoTable:
    """Builds the demo camera and plays the demo film through it."""

    def __init__(self, runtime, *, players: tuple[str, ...] = ("Anne", "Paul"), turns: int = 40,
                 size: tuple[int, int] = (2304, 1296), hand_frames: int = 10, still_frames: int = 30,
                 fps: float = 10.0):
        from companion.film.player import LiveShow
        from vision.synth.demo import DemoGame

        self.runtime = runtime
        # The table as the README asks for it: two stickers per card, animals standing anywhere on the cards.
        self.script = DemoGame(players=players, turns=turns, size=size, hand_frames=hand_frames,
                               still_frames=still_frames, second_sticker=True, animals="anywhere")
        self.film = script_film(self.script, fps=fps)
        self.show = LiveShow(runtime, self.film, starts=STARTS)

    @property
    def table_mm(self) -> tuple[float, float]:
        return self.script.table_mm

    tray_px = None  # no dice on this table

    @property
    def games_started(self) -> int:
        return self.show.loops

    def prepare(self, store) -> None:
        """Nothing to teach: the demo table's cards carry their tags."""

    def camera(self, *, fps: float = 10.0, work_width: int | None = None):
        """The demo camera playing this film (hardware's :class:`DemoCamera`)."""
        from hardware.camera.demo import DemoCamera

        return DemoCamera(self.next_image, fps=fps, work_width=work_width)

    def next_image(self, number: int):
        """The demo camera's source: ``(picture, time)`` once the runtime has taken the last one."""
        return self.show(number)


# -- the demo's start (on the runtime thread) ------------------------------------------------------


def start_demo_game(runtime, *, title: str, players: list[str], options: dict) -> str | None:
    """The first game of the demo's campaign (made on first use, reset each time); None while a person's
    game is in play (the demo then only shows its pictures)."""
    session = runtime.session
    if session is not None and not _is_demo(runtime, session, title) and session.outcome() is None:
        _log.info("a game is in play: the demo table only shows its pictures")
        return None
    campaign = _demo_campaign(runtime.log, players, title)
    if campaign is None:
        # Another group's campaign is on the table: the demo plays a game of its own instead.
        return runtime.new_game("fable", list(players), options, title=title)["session_id"]
    # Every loop of the script is a first game: abandon the last one, sort the cards, lay out 1-6.
    if campaign.state.current is not None:
        campaign.abandon_game(reason="the demo script starts again", source="system")
    campaign.reset(source="system")
    facts = json.loads(options["locations"])
    game = campaign.start_game(list(players), start=players[0], card_facts=facts, source="system")
    runtime.open_game(game.session_id)
    return game.session_id


STARTS = {DEMO_START: start_demo_game}


def _is_demo(runtime, session, title: str) -> bool:
    if session.record.title == title:
        return True
    parent = session.record.parent_id
    return parent is not None and runtime.log.session(parent).title == title


def _demo_campaign(log, players, title: str):
    """The demo's own campaign (made on first use), or None when another campaign's cards are on the table."""
    from companion.campaign import Campaign, on_table

    busy = on_table(log)
    if busy is not None and busy.title != title:
        return None
    if busy is not None:
        return Campaign(log, busy.session_id)
    for record in log.sessions(kind="campaign"):
        if record.title == title:
            return None  # parked: a person put the demo's cards away
    return Campaign.new(log, list(players), title=title)


DEMO_TABLE = DemoTable
