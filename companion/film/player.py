"""Playing a film through the companion: the same pipeline, stabiliser, referee and engine as at the table.

:class:`FilmPlayer` replays a film on its own, frame after frame: each frame goes
through the pipeline, the player waits until the runtime has taken what it handed
over, then delivers the inputs that arrived after that frame (and waits again).
Time is the film's. Nothing depends on how fast the machine is, so the same film
gives the same lines everywhere.

:class:`LiveShow` plays a film to a running companion as its camera (the demo
table): it hands out the next picture only once the runtime has taken everything
the previous one caused and the inputs due after it, so however slow the machine,
the script and the game cannot fall out of step.

The inputs a film can hold are the runtime's (:data:`INPUTS`) and the starts
registered with the player: ``new_game``, or a game's own way to set the table up
(the demo table's campaign game, see :mod:`companion.demo`).
"""

from __future__ import annotations

import logging
import math
import sqlite3
from typing import Any, Callable, Iterable, Iterator

from companion.errors import CompanionError
from companion.runtime import entrant_from
from companion.film import lines as film_lines
from companion.film.store import FilmFrame, FilmInput, roll_from_json

_log = logging.getLogger(__name__)

# A start runs on the runtime thread and returns the session id of the game it opened (None: it declined).
Start = Callable[..., "str | None"]


def _new_game(runtime, *, game: str, players: list[str], options: dict | None = None, title: str = "") -> str:
    return runtime.new_game(game, players, options or {}, title=title)["session_id"]


class Inputs:
    """Delivers a film's inputs to a runtime, by the same methods phones, buttons and the CLI use.

    With ``own_game_only`` (the demo table), inputs go only to the game the film's start opened:
    once a person starts another game, the film leaves it alone.
    """

    def __init__(self, runtime, *, starts: dict[str, Start] | None = None, own_game_only: bool = False,
                 film=None, refused: Callable[[FilmInput, str], None] | None = None):
        self.runtime = runtime
        self.starts: dict[str, Start] = {"new_game": _new_game, **(starts or {})}
        self.own_game_only = own_game_only
        self.film = film
        self.refused = refused
        self.game: str | None = None  # the session the film's start opened

    def settle(self, timeout: float = 60.0) -> None:
        """Wait until the runtime has run everything queued so far (what the last picture caused)."""
        self.runtime.call(lambda: None, timeout=timeout)

    def deliver(self, item: FilmInput) -> None:
        try:
            self._deliver(item)
        except CompanionError as exc:
            if self.refused is not None:
                self.refused(item, str(exc))
            else:
                _log.warning("the film's input '%s %s' was refused: %s", item.kind, item.args, exc)

    def _deliver(self, item: FilmInput) -> None:
        rt, args, kind = self.runtime, dict(item.args), item.kind
        if kind in self.starts:
            self.game = rt.call(lambda: self.starts[kind](rt, **args))
            return
        if kind == "open":
            self._open(args)
            return
        if self.own_game_only and (rt.session is None or rt.session.session_id != self.game):
            return  # a person's game is in play: the film does not touch it
        source = args.pop("source", "dashboard")
        event_id = args.pop("event_id", None)
        entrant = entrant_from(args)
        if kind == "play":
            rt.play(args["move"], source=source, event_id=event_id, entrant=entrant)
        elif kind == "undo":
            rt.undo(source=source, event_id=event_id, entrant=entrant)
        elif kind == "redo":
            rt.redo(source=source, event_id=event_id)
        elif kind == "correct":
            rt.correct(self._event_id(args["target"]), args["move"], source=source, event_id=event_id,
                       entrant=entrant)
        elif kind == "resolve_alert":
            rt.resolve_alert(self._event_id(args["alert"]), args["resolution"], source=source,
                             move=args.get("move"), event_id=event_id, entrant=entrant)
        elif kind == "dismiss_all_alerts":
            rt.dismiss_all_alerts(source=source, event_id=event_id)
        elif kind == "claim_seat":
            rt.claim_seat(args["player"], args["claim"], source=source)
        elif kind == "release_seat":
            rt.release_seat(args["player"], source=source)
        elif kind == "raise_alert":
            rt.raise_alert(args["text"], source=source, payload=args.get("payload"))
        else:
            _log.warning("the film holds an input this companion does not know: %s", kind)

    def _event_id(self, seq) -> str:
        """A recorded event (by its number in the game) as this replay's event id."""
        session = self.runtime.session
        if session is not None and seq is not None:
            for event in self.runtime.log.events(session.session_id):
                if event.seq == seq:
                    return event.event_id
        return f"missing-{seq}"  # refused by the runtime as an unknown event, like the original

    def _open(self, args: dict) -> None:
        """A game opened during the recording: the database as it stood then, and that game."""
        rt = self.runtime
        if args.get("db") and self.film is not None and hasattr(self.film, "database"):
            path = self.film.database(args["db"])

            def restore() -> None:
                source = sqlite3.connect(path)
                try:
                    rt.log.restore_from(source)
                finally:
                    source.close()

            rt.call(restore)
        rt.open_game(args["session"])
        self.game = args["session"]


class FilmReader:
    """Stands in for the pipeline's tag reader during a replay.

    A recorded frame is read as the recording says: still (the last reading stands) or its
    recorded reading; with ``reread``, a frame whose picture the film kept is decoded again by
    today's reader (to see whether a fix reads what the camera got wrong). A rendered frame
    (a picture and nothing recorded) goes to a real :class:`~vision.reader.TagReader`.
    """

    def __init__(self, *, reread: bool = False, decoder: str = "zxing"):
        from vision.reader import TagReader

        self.reread = reread
        self.current: FilmFrame | None = None
        self.live = TagReader(decoder=decoder)
        self._again = TagReader(decoder=decoder)
        self._last = None
        self.reread_frames = 0

    def read(self, work, full=None):
        from vision.reader import FrameReading

        frame = self.current
        if frame is None or (frame.still is None and frame.reading is None):
            return self.live.read(work, full)
        last = self._last
        if frame.still:
            if last is None:
                return FrameReading((), (0, 0), None, reused=True)
            return FrameReading(last.sightings, last.work_size, last.scale, reused=True, problems=last.problems)
        picture = frame.picture() if self.reread and frame.image is not None else None
        if picture is not None:
            self.reread_frames += 1
            reading = self._again.reread(picture, frame.full(), last)
        elif frame.reading is not None:
            reading = FrameReading.from_json(frame.reading)
        else:
            reading = FrameReading((), (0, 0), None)
        self._last = reading
        return reading


class FilmPlayer:
    """Replays films through a started ``runtime`` and its ``pipeline``; :attr:`lines` collects what
    happened (also passed to ``on_line`` as it happens)."""

    def __init__(self, runtime, pipeline, *, reread: bool = False, starts: dict[str, Start] | None = None,
                 on_line: Callable[[dict], None] | None = None):
        self.runtime = runtime
        self.pipeline = pipeline
        self.reader = FilmReader(reread=reread)
        pipeline.watcher.reader = self.reader
        self._read_dice = pipeline.read_dice
        pipeline.read_dice = self._dice
        self.starts = starts
        self.on_line = on_line
        self.lines: list[dict] = []
        self.frame = 0
        self.t = 0.0
        self.t0: float | None = None
        self.game = 0
        self.frames_played = 0
        self._was_over = False
        runtime.add_observer(self._event)

    def play(self, film, *, until: float | None = None) -> list[dict]:
        """Every frame of ``film`` (up to ``until`` seconds into it); returns the lines."""
        inputs = Inputs(self.runtime, starts=self.starts, film=film, refused=self._refused)
        for item in film.start:
            inputs.deliver(item)
        for frame in film.frames():
            if not math.isnan(frame.t):
                if self.t0 is None:
                    self.t0 = frame.t
                if until is not None and frame.t - self.t0 > until:
                    break
                self.show(frame)
                inputs.settle()
            for item in frame.inputs:
                inputs.deliver(item)
            if frame.inputs:
                inputs.settle()
        return self.lines

    def show(self, frame: FilmFrame) -> None:
        """One frame through the pipeline."""
        from hardware.camera.base import Frame

        self.frame, self.t = frame.number, frame.t - (self.t0 or 0.0)
        self.reader.current = frame
        picture = frame.picture() if frame.still is None and frame.reading is None else None
        full = frame.full if picture is None else None
        self.pipeline(Frame(work=picture, timestamp=frame.t, number=frame.number, _full=full))
        self.frames_played += 1

    def _dice(self, frame):
        current = self.reader.current
        if current is not None and (current.still is not None or current.reading is not None):
            return roll_from_json(current.roll) if current.roll else None  # recorded: the roll as it was read
        return self._read_dice(frame)

    def _emit(self, found: Iterable[dict]) -> None:
        for line in found:
            self.lines.append(line)
            if self.on_line is not None:
                self.on_line(line)

    def _event(self, runtime, session, event) -> None:
        if event is None:
            self.game += 1
            self._emit([film_lines.game_line(session, frame=self.frame, t=self.t, game=self.game)])
        else:
            self._emit(film_lines.event_lines(session, event, frame=self.frame, t=self.t, game=self.game,
                                              was_over=self._was_over))
        self._was_over = session.outcome() is not None

    def _refused(self, item: FilmInput, reason: str) -> None:
        self._emit([film_lines.refused_line(item.kind, item.args, reason, frame=self.frame, t=self.t,
                                            game=self.game)])


class LiveShow:
    """A film as the picture source of a running companion's camera (``DemoCamera(LiveShow(...))``).

    Called with the camera's picture number (0 when the camera starts the show again), it
    returns the next ``(picture, time)``: first it waits until the runtime has taken what the
    previous picture caused, delivers the inputs due after it and waits again. Times run on
    across loops, so the stabiliser never sees the clock go back.
    """

    def __init__(self, runtime, film, *, starts: dict[str, Start] | None = None, wait_s: float = 60.0):
        self.runtime = runtime
        self.film = film
        self.inputs = Inputs(runtime, starts=starts, own_game_only=True, film=film)
        self.wait_s = wait_s
        self.loops = 0
        self._frames: Iterator[FilmFrame] | None = None
        self._previous: FilmFrame | None = None
        self._offset = 0.0
        self._last_t = 0.0

    def __call__(self, number: int) -> tuple[Any, float] | None:
        if number == 0 or self._frames is None:
            self._restart()
        else:
            self.inputs.settle(self.wait_s)
            if self._previous is not None and self._previous.inputs:
                for item in self._previous.inputs:
                    self.inputs.deliver(item)
                self.inputs.settle(self.wait_s)
        frame = next(self._frames, None)
        if frame is None:
            self._frames = None
            return None  # the camera starts the show again
        self._previous = frame
        self._last_t = self._offset + frame.t
        return frame.picture(), self._last_t

    def _restart(self) -> None:
        if self._previous is not None:
            self.inputs.settle(self.wait_s)
        self._frames = self.film.frames()
        self._previous = None
        self._offset = self._last_t + 1.0 if self.loops else 0.0
        self.loops += 1
        for item in self.film.start:
            self.inputs.deliver(item)
