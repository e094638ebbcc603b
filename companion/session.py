"""One live game: moves are validated, appended durably, then published. State is the log's replay.

Undo, redo and the correction of a misread are events appended like moves, so the
log tells the whole story of the evening and a restart resumes exactly where the
table was.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Iterable, Mapping, Sequence

from companion import games
from companion.errors import EventLogError, IllegalMove, InvalidMove, NothingToUndo
from companion.eventlog import Event, EventLog
from companion.names import check_lookalikes

_log = logging.getLogger(__name__)

# Event kinds that change the state; every other kind (alert, resolve, note, ...) is only recorded.
MOVE, UNDO, REDO, CORRECT = "move", "undo", "redo", "correct"


@dataclass(frozen=True)
class Played:
    """A move in effect: the event that made it, the move and the state after it."""

    event_id: str
    move: Any
    source: str
    time: float
    after: Any

    @property
    def text(self) -> str:
        return self.move.to_text()


@dataclass(frozen=True)
class Replay:
    """The result of replaying a session's events: the state, the moves in effect, the redo stack."""

    state: Any
    played: tuple[Played, ...]
    undone: tuple[Played, ...]


def replay(rules: ModuleType, initial: Any, events: Iterable[Event]) -> Replay:
    """Rebuild a session from its start and its events. Needs no random generator.

    Raises :class:`EventLogError` when the log holds a move the rules refuse (a log
    written by an incompatible version, or damaged by hand).
    """
    played: list[Played] = []
    undone: list[Played] = []
    for event in events:
        if event.kind == MOVE:
            state = played[-1].after if played else initial
            played.append(_replay_move(rules, state, event, event.text))
            undone.clear()
        elif event.kind == UNDO:
            if not played or played[-1].event_id != event.payload.get("target"):
                raise EventLogError(f"event {event.seq} undoes a move that is not the last one in effect")
            undone.append(played.pop())
        elif event.kind == REDO:
            if not undone or undone[-1].event_id != event.payload.get("target"):
                raise EventLogError(f"event {event.seq} redoes a move that was not the last one undone")
            again = undone.pop()
            state = played[-1].after if played else initial
            played.append(_replay_move(rules, state, event, again.text, event_id=again.event_id, source=again.source))
        elif event.kind == CORRECT:
            played = _rebuild(rules, initial, played, event.payload.get("target"), event.payload.get("move"), event)
            undone.clear()
    return Replay(state=played[-1].after if played else initial, played=tuple(played), undone=tuple(undone))


def _replay_move(rules, state, event: Event, text: str, *, event_id=None, source=None) -> Played:
    try:
        move = rules.parse_move(text)
        after = rules.apply(state, move)
    except (InvalidMove, IllegalMove) as exc:
        raise EventLogError(f"event {event.seq} ('{text}') cannot be replayed: {exc}") from exc
    return Played(event_id or event.event_id, move, source or event.source, event.time, after)


def _rebuild(rules, initial, played: list[Played], target: str, text: str, event: Event) -> list[Played]:
    """The moves in effect with ``target`` replaced by the move ``text``; later moves re-validated."""
    index = next((i for i, p in enumerate(played) if p.event_id == target), None)
    if index is None:
        raise EventLogError(f"event {event.seq} corrects a move that is not in effect")
    rebuilt = played[:index]
    state = rebuilt[-1].after if rebuilt else initial
    for i, old in enumerate(played[index:]):
        move = rules.parse_move(text) if i == 0 else old.move
        reason = rules.why_illegal(state, move)
        if reason is not None:
            raise IllegalMove(f"after the correction, '{move.to_text()}' would be illegal: {reason}")
        state = rules.apply(state, move)
        rebuilt.append(Played(old.event_id, move, old.source, old.time, state))
    return rebuilt


Subscriber = Callable[["Session", Event], None]


class Session:
    """A game being played, backed by the event log. Use :meth:`create` or :meth:`resume`."""

    def __init__(self, log: EventLog, session_id: str):
        record = log.session(session_id)
        self.log = log
        self.session_id = session_id
        self.record = record
        self.rules = games.get(record.game)
        self.players: tuple[str, ...] = tuple(record.setup["players"])
        self.options: dict = dict(record.setup.get("options", {}))
        self.initial = self.rules.setup(self.players, self.options)
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        # Set by whoever keeps a record of this game elsewhere (a campaign): the reason the game
        # may no longer change, or None. Checked before undo, redo and corrections.
        self.sealed: Callable[[], str | None] | None = None
        self._replay = replay(self.rules, self.initial, log.events(session_id))

    @classmethod
    def create(
        cls,
        log: EventLog,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        *,
        parent_id: str | None = None,
        title: str = "",
    ) -> "Session":
        """Set up a new game and store it; a bad player list or option is refused before anything is written."""
        rules = games.get(game)
        options = dict(options or {})
        players = [unicodedata.normalize("NFC", str(p).strip()) for p in players]  # as check_players keeps them
        rules.setup(players, options)
        check_lookalikes(players)
        setup = {"players": players, "options": options}
        session_id = log.create_session(game, setup, parent_id=parent_id, title=title)
        return cls(log, session_id)

    @classmethod
    def resume(cls, log: EventLog, session_id: str) -> "Session":
        """The game as it stood at its last event, rebuilt by replay."""
        return cls(log, session_id)

    # -- what the table sees --------------------------------------------------

    @property
    def game(self) -> str:
        return self.record.game

    @property
    def state(self) -> Any:
        return self._replay.state

    @property
    def played(self) -> tuple[Played, ...]:
        return self._replay.played

    @property
    def can_undo(self) -> bool:
        return bool(self._replay.played)

    @property
    def can_redo(self) -> bool:
        return bool(self._replay.undone)

    def outcome(self):
        return self.rules.outcome(self.state)

    def current_player(self) -> str | None:
        return self.rules.current_player(self.state)

    def parse(self, move: Any) -> Any:
        """A move object from text (raises InvalidMove) or the move itself."""
        if isinstance(move, str):
            return self.rules.parse_move(unicodedata.normalize("NFC", move))  # names are stored NFC
        return move

    def why_illegal(self, move: Any) -> str | None:
        try:
            move = self.parse(move)
        except InvalidMove as exc:
            return str(exc)
        return self.rules.why_illegal(self.state, move)

    # -- changes ----------------------------------------------------------------

    def apply(self, move: Any, *, source: str, event_id: str | None = None, payload: dict | None = None) -> Event:
        """Validate ``move`` (text or object), append it durably, then publish it.

        Raises InvalidMove or IllegalMove, and then nothing is written. A known
        ``event_id`` sent with the same move is a no-op that returns the stored event;
        with another move it is refused (:class:`~companion.errors.EventConflict`).
        ``payload`` keeps the evidence with the move (what the camera saw, with what confidence).
        """
        with self._lock:
            move = self.parse(move)
            if (known := self.log.retried(event_id, self.session_id, MOVE, move.to_text())) is not None:
                return known
            after = self.rules.apply(self.state, move)  # validates; raises IllegalMove with the reason
            event = self.log.append(
                self.session_id, MOVE, move.to_text(), source=source, event_id=event_id, payload=payload
            )
            played = Played(event.event_id, move, source, event.time, after)
            self._replay = Replay(after, self._replay.played + (played,), ())
        self._publish(event)
        return event

    def undo(self, *, source: str, event_id: str | None = None) -> Event:
        """Take back the last move in effect (an appended ``undo`` event)."""
        with self._lock:
            if (known := self.log.retried(event_id, self.session_id, UNDO)) is not None:
                return known
            self._refuse_if_sealed("undo")
            if not self._replay.played:
                raise NothingToUndo("nothing to undo: no move has been played yet")
            last = self._replay.played[-1]
            event = self.log.append(
                self.session_id, UNDO, f"undo {last.text}", source=source, payload={"target": last.event_id},
                event_id=event_id,
            )
            played = self._replay.played[:-1]
            self._replay = Replay(played[-1].after if played else self.initial, played, self._replay.undone + (last,))
        self._publish(event)
        return event

    def redo(self, *, source: str, event_id: str | None = None) -> Event:
        """Bring back the move undone last, if no other move was played since."""
        with self._lock:
            if (known := self.log.retried(event_id, self.session_id, REDO)) is not None:
                return known
            self._refuse_if_sealed("redo")
            if not self._replay.undone:
                raise NothingToUndo("nothing to redo: no move was undone since the last one played")
            again = self._replay.undone[-1]
            after = self.rules.apply(self.state, again.move)
            event = self.log.append(
                self.session_id, REDO, f"redo {again.text}", source=source, payload={"target": again.event_id},
                event_id=event_id,
            )
            played = Played(again.event_id, again.move, again.source, again.time, after)
            self._replay = Replay(after, self._replay.played + (played,), self._replay.undone[:-1])
        self._publish(event)
        return event

    def correct(self, target_event_id: str, move: Any, *, source: str, event_id: str | None = None) -> Event:
        """Replace a misread move by what really happened; later moves must stay legal.

        A correction is not an undo: the log keeps both the reading and its correction.
        """
        with self._lock:
            if (known := self.log.retried(event_id, self.session_id, CORRECT)) is not None:
                return known
            self._refuse_if_sealed("correct a move")
            move = self.parse(move)
            old = next((p for p in self._replay.played if p.event_id == target_event_id), None)
            if old is None:
                raise IllegalMove("only a move in effect can be corrected (it may have been undone)")
            text = f"correct {old.text} -> {move.to_text()}"
            probe = Event("", self.session_id, 0, 0.0, source, CORRECT, text, {})
            played = _rebuild(self.rules, self.initial, list(self._replay.played), target_event_id, move.to_text(), probe)
            event = self.log.append(
                self.session_id, CORRECT, text, source=source,
                payload={"target": target_event_id, "move": move.to_text()}, event_id=event_id,
            )
            self._replay = Replay(played[-1].after, tuple(played), ())
        self._publish(event)
        return event

    def _refuse_if_sealed(self, action: str) -> None:
        reason = self.sealed() if self.sealed is not None else None
        if reason:
            raise IllegalMove(f"cannot {action}: {reason}")

    def note(self, kind: str, text: str, *, source: str, payload: dict | None = None,
             event_id: str | None = None) -> Event:
        """Log something that changes no state (an alert, its resolution, a note) and publish it."""
        if kind in (MOVE, UNDO, REDO, CORRECT):
            raise ValueError(f"'{kind}' events change the game: use apply, undo, redo or correct")
        with self._lock:
            event = self.log.append(self.session_id, kind, text, source=source, payload=payload, event_id=event_id)
        self._publish(event)
        return event

    # -- subscribers ------------------------------------------------------------

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call ``subscriber(session, event)`` after every stored event; returns the unsubscribe function."""
        with self._lock:
            self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with self._lock:
                if subscriber in self._subscribers:
                    self._subscribers.remove(subscriber)

        return unsubscribe

    def _publish(self, event: Event) -> None:
        for subscriber in list(self._subscribers):
            try:
                subscriber(self, event)
            except Exception:  # a broken dashboard or LED must never lose a stored move
                _log.exception("subscriber %r failed on event %s", subscriber, event.seq)

    # -- JSON -------------------------------------------------------------------

    def to_json(self, *, log_limit: int | None = 100) -> dict:
        """The game's state plus its session facts and the recent log, for the CLI and the dashboard."""
        events = self.log.events(self.session_id)
        if log_limit is not None:
            events = events[-log_limit:]
        result = self.outcome()
        return {
            "session_id": self.session_id,
            "game": self.game,
            "title": self.record.title,
            "campaign_id": self.record.parent_id,
            "state": self.rules.to_json(self.state),
            "can_undo": self.can_undo,
            "can_redo": self.can_redo,
            "outcome": None if result is None else {"winners": list(result.winners), "reason": result.reason},
            "log": [e.to_json() for e in events],
        }
