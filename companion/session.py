"""One live game: moves are validated, appended durably, then published. State is the log's replay.

Undo, redo and the correction of a misread are events appended like moves, so the
log tells the whole story of the evening and a restart resumes exactly where the
table was. Who holds which seat (a phone's claim) is recorded the same way.

Each device sees the game through :meth:`Session.view`: the engine's
``player_view`` for that viewer, and the log with every secret move someone else
made shown in its public words until the game reveals it.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from companion import games
from companion.eventkinds import (ALERT, CLAIM, CORRECT, MOVE, REDO, RELEASE, RESOLVE, STATE_CHANGES, UNDO)
from companion.errors import EventLogError, IllegalMove, InvalidMove, NothingToUndo, SetupError
from companion.eventlog import Event, EventLog
from companion.names import check_lookalikes

_log = logging.getLogger(__name__)

MAX_SEATS = 6


@dataclass(frozen=True)
class Played:
    """A move in effect: the event that made it, the move, who made it and the state after it."""

    event_id: str
    move: Any
    source: str
    time: float
    after: Any
    player: str | None = None

    @property
    def text(self) -> str:
        return self.move.to_text()


@dataclass(frozen=True)
class Replay:
    """The result of replaying a session's events: the state, the moves in effect, the redo stack."""

    state: Any
    played: tuple[Played, ...]
    undone: tuple[Played, ...]


def replay(rules: games.Game, initial: Any, events: Iterable[Event],
           seen: dict[str, Played] | None = None) -> Replay:
    """Rebuild a session from its start and its events. Needs no random generator.

    ``seen`` (if given) collects every move ever played, undone ones too, by event id: the
    log's texts for each viewer are built from it. Raises :class:`EventLogError` when the log
    holds a move the rules refuse (a log written by an incompatible version, or damaged by hand).
    """
    played: list[Played] = []
    undone: list[Played] = []
    seen = {} if seen is None else seen
    for event in events:
        if event.kind == MOVE:
            state = played[-1].after if played else initial
            played.append(_replay_move(rules, state, event, event.text))
            seen[event.event_id] = played[-1]
            undone.clear()
        elif event.kind == UNDO:
            target = event.payload.get("target")
            index = next((i for i, p in enumerate(played) if p.event_id == target), None)
            if index is None:
                raise EventLogError(f"event {event.seq} undoes a move that is not in effect")
            taken = played[index]
            if index < len(played) - 1:  # a player's own choice taken back in a simultaneous step
                played = _without(rules, initial, played, index, event)
            else:
                played.pop()
            undone.append(taken)
        elif event.kind == REDO:
            if not undone or undone[-1].event_id != event.payload.get("target"):
                raise EventLogError(f"event {event.seq} redoes a move that was not the last one undone")
            again = undone.pop()
            state = played[-1].after if played else initial
            played.append(_replay_move(rules, state, event, again.text, event_id=again.event_id, source=again.source))
            seen[again.event_id] = played[-1]
        elif event.kind == CORRECT:
            played = _rebuild(rules, initial, played, event.payload.get("target"), event.payload.get("move"), event)
            seen.update((p.event_id, p) for p in played)
            undone.clear()
    return Replay(state=played[-1].after if played else initial, played=tuple(played), undone=tuple(undone))


def _replay_move(rules, state, event: Event, text: str, *, event_id=None, source=None) -> Played:
    try:
        move = rules.parse_move(text)
        after = rules.apply(state, move)
    except (InvalidMove, IllegalMove) as exc:
        raise EventLogError(f"event {event.seq} ('{text}') cannot be replayed: {exc}") from exc
    return Played(event_id or event.event_id, move, source or event.source, event.time, after,
                  rules.mover(state, move))


def _rebuild(rules, initial, played: list[Played], target: str, text: str, event: Event) -> list[Played]:
    """The moves in effect with ``target`` replaced by the move ``text``; later moves re-validated."""
    index = next((i for i, p in enumerate(played) if p.event_id == target), None)
    if index is None:
        raise EventLogError(f"event {event.seq} corrects a move that is not in effect")
    first = rules.parse_move(text)
    return _revalidate(rules, initial, played[:index], [first] + [p.move for p in played[index + 1:]],
                       played[index:], "after the correction")


def _without(rules, initial, played: list[Played], index: int, event: Event) -> list[Played]:
    """The moves in effect without the one at ``index``; the later ones re-validated."""
    return _revalidate(rules, initial, played[:index], [p.move for p in played[index + 1:]],
                       played[index + 1:], "without that move")


def _revalidate(rules, initial, kept: list[Played], moves: list, old: list[Played], why: str) -> list[Played]:
    rebuilt = list(kept)
    state = rebuilt[-1].after if rebuilt else initial
    for move, before in zip(moves, old):
        reason = rules.why_illegal(state, move)
        if reason is not None:
            raise IllegalMove(f"{why}, '{move.to_text()}' would be illegal: {reason}")
        after = rules.apply(state, move)
        rebuilt.append(Played(before.event_id, move, before.source, before.time, after, rules.mover(state, move)))
        state = after
    return rebuilt


def seat_numbers(raw: Any, players: int) -> tuple[int, ...]:
    """The physical seats (1 to 6) the players sit at, in player order; raises SetupError saying why not.

    >>> seat_numbers("1,3,5", 3)
    (1, 3, 5)
    """
    if raw in (None, "", []):
        if players > MAX_SEATS:
            raise SetupError(f"the table has {MAX_SEATS} seats, not {players}")
        return tuple(range(1, players + 1))
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    try:
        seats = tuple(int(str(s).strip()) for s in items)
    except ValueError:
        raise SetupError(f"seats {raw!r}: give the seat numbers 1 to {MAX_SEATS}, e.g. 1,3,5") from None
    if len(seats) != players:
        raise SetupError(f"{players} players need {players} seat numbers, not {len(seats)}")
    if any(not 1 <= s <= MAX_SEATS for s in seats):
        raise SetupError(f"seats {raw!r}: the table's seats are numbered 1 to {MAX_SEATS}")
    if len(set(seats)) != len(seats):
        raise SetupError(f"seats {raw!r}: two players cannot sit at the same seat")
    return seats


Subscriber = Callable[["Session", Event], None]


class Session:
    """A game being played, backed by the event log. Use :meth:`create` or :meth:`resume`."""

    def __init__(self, log: EventLog, session_id: str):
        record = log.session(session_id)
        self.log = log
        self.session_id = session_id
        self.record = record
        self.rules: games.Game = games.get(record.game)
        self.players: tuple[str, ...] = tuple(record.setup["players"])
        self.options: dict = dict(record.setup.get("options", {}))
        # 0-based physical seat of each player, in player order (seat LEDs and buttons).
        self.seats: tuple[int, ...] = tuple(n - 1 for n in seat_numbers(record.setup.get("seats"), len(self.players)))
        self.initial = self.rules.setup(self.players, self.options)
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        # Set by whoever keeps a record of this game elsewhere (a campaign): the reason the game
        # may no longer change, or None. Checked before undo, redo and corrections.
        self.sealed: Callable[[], str | None] | None = None
        # The log in memory: pages and snapshots never read the database again.
        self._events: list[Event] = log.events(session_id)
        self._moves: dict[str, Played] = {}
        self._claims: tuple[int, dict[str, str]] = (-1, {})
        self._replay = replay(self.rules, self.initial, self._events, self._moves)

    @classmethod
    def create(
        cls,
        log: EventLog,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        *,
        seats: Any = None,
        parent_id: str | None = None,
        title: str = "",
    ) -> "Session":
        """Set up a new game and store it; a bad player list, seat list or option is refused before
        anything is written. ``seats`` are the physical seat numbers (1-6) in player order."""
        rules = games.get(game)
        options = dict(options or {})
        players = [unicodedata.normalize("NFC", str(p).strip()) for p in players]  # as check_players keeps them
        rules.setup(players, options)
        check_lookalikes(players)
        setup: dict[str, Any] = {"players": players, "options": options}
        if seats not in (None, "", []):
            setup["seats"] = list(seat_numbers(seats, len(players)))
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
    def events(self) -> tuple[Event, ...]:
        """Every event of this game, oldest first (kept in memory)."""
        with self._lock:
            return tuple(self._events)

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

    def to_act(self) -> tuple[str, ...]:
        return self.rules.to_act(self.state)

    def player(self, name: str | None) -> str | None:
        """The player called ``name`` (any case), or None."""
        if name is None:
            return None
        return next((p for p in self.players if p.casefold() == str(name).casefold()), None)

    def seat_index(self, name: str | None) -> int | None:
        """The physical seat (0 = seat 1) where ``name`` sits, or None."""
        player = self.player(name)
        return None if player is None else self.seats[self.players.index(player)]

    def player_at(self, seat: int) -> str | None:
        """The player sitting at physical seat ``seat`` (0 = seat 1), or None."""
        return self.players[self.seats.index(seat)] if seat in self.seats else None

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

    def mover(self, move: Any) -> str | None:
        """The player on whose behalf ``move`` would be made now (None: the table's move)."""
        return self.player(self.rules.mover(self.state, self.parse(move)))

    def why_not_yours(self, move: Any, seat: str | None) -> str | None:
        """Why the phone at ``seat`` may not enter ``move`` (None when it may). A phone without a
        seat enters the table's moves and those of players whose seat no phone holds."""
        mover = self.mover(move)
        if mover is None or seat == mover:
            return None
        holder = self.claims().get(mover)
        if seat is None and holder is None:
            return None
        if seat is None:
            return f"{mover}'s own phone enters {mover}'s moves (or the game master, with the PIN)"
        return f"this phone is {seat}'s: only {mover}'s phone or the game master can enter {mover}'s moves"

    # -- changes ----------------------------------------------------------------

    def _known(self, event_id: str | None, kind: str, text: str | None = None) -> Event | None:
        """The stored event with ``event_id`` when the same change is sent again; a different change
        under a known id raises :class:`~companion.errors.EventConflict` (nothing is applied)."""
        return self.log.retried(event_id, self.session_id, kind, text)

    def _append(self, kind: str, text: str, *, source: str, payload: dict | None, event_id: str | None) -> Event:
        event = self.log.append(self.session_id, kind, text, source=source, event_id=event_id, payload=payload)
        self._events.append(event)
        return event

    def apply(self, move: Any, *, source: str, event_id: str | None = None, payload: dict | None = None) -> Event:
        """Validate ``move`` (text or object), append it durably, then publish it.

        Raises InvalidMove or IllegalMove, and then nothing is written. A known
        ``event_id`` sent again with the same move returns the stored event (nothing
        changes); with another move it raises :class:`~companion.errors.EventConflict`. ``payload`` keeps
        the evidence with the move (what the camera saw, with what confidence).
        """
        with self._lock:
            move = self.parse(move)
            if (known := self._known(event_id, MOVE, move.to_text())) is not None:
                return known
            before = self.state
            after = self.rules.apply(before, move)  # validates; raises IllegalMove with the reason
            event = self._append(MOVE, move.to_text(), source=source, event_id=event_id, payload=payload)
            played = Played(event.event_id, move, source, event.time, after, self.rules.mover(before, move))
            self._moves[event.event_id] = played
            self._replay = Replay(after, self._replay.played + (played,), ())
        self._publish(event)
        return event

    def undo(self, *, source: str, event_id: str | None = None, seat: str | None = None) -> Event:
        """Take back the last move in effect (an appended ``undo`` event).

        ``seat``: a player's phone takes back only that player's own move: the last move, or
        their choice in a simultaneous step still open while others have chosen since.
        """
        with self._lock:
            if (known := self._known(event_id, UNDO)) is not None:
                return known
            self._refuse_if_sealed("undo")
            if not self._replay.played:
                raise NothingToUndo("nothing to undo: no move has been played yet")
            index = len(self._replay.played) - 1 if seat is None else self._own_move(seat)
            target = self._replay.played[index]
            if index == len(self._replay.played) - 1:
                played = list(self._replay.played[:-1])
            else:
                probe = Event("", self.session_id, 0, 0.0, source, UNDO, "", {})
                played = _without(self.rules, self.initial, list(self._replay.played), index, probe)
            event = self._append(UNDO, f"undo {target.text}", source=source, payload={"target": target.event_id},
                                 event_id=event_id)
            self._replay = Replay(played[-1].after if played else self.initial, tuple(played),
                                  self._replay.undone + (target,))
        self._publish(event)
        return event

    def _own_move(self, seat: str) -> int:
        """The index of ``seat``'s move a phone may take back, or IllegalMove saying why none."""
        played = self._replay.played
        mine = [i for i, p in enumerate(played) if p.player == seat]
        last = played[-1]
        if not mine:
            raise NothingToUndo(f"{seat} has no move to take back")
        index = mine[-1]
        if index == len(played) - 1:
            return index
        later = played[index + 1:]
        befores = [played[i - 1].after if i else self.initial for i in range(index, len(played))]
        step_open = (all(len(self.rules.to_act(b)) > 1 for b in befores)
                     and all(p.player not in (None, seat) for p in later)
                     and set(self.to_act()) <= set(self.rules.to_act(befores[0])) and self.to_act())
        if not step_open:
            who = last.player or "the table"
            raise IllegalMove(f"the last move is {who}'s ('{last.text}'): only the game master can take back "
                              f"{seat}'s earlier move now")
        return index

    def redo(self, *, source: str, event_id: str | None = None) -> Event:
        """Bring back the move undone last, if no other move was played since."""
        with self._lock:
            if (known := self._known(event_id, REDO)) is not None:
                return known
            self._refuse_if_sealed("redo")
            if not self._replay.undone:
                raise NothingToUndo("nothing to redo: no move was undone since the last one played")
            again = self._replay.undone[-1]
            before = self.state
            after = self.rules.apply(before, again.move)
            event = self._append(REDO, f"redo {again.text}", source=source, payload={"target": again.event_id},
                                 event_id=event_id)
            played = Played(again.event_id, again.move, again.source, again.time, after,
                            self.rules.mover(before, again.move))
            self._moves[again.event_id] = played
            self._replay = Replay(after, self._replay.played + (played,), self._replay.undone[:-1])
        self._publish(event)
        return event

    def correct(self, target_event_id: str, move: Any, *, source: str, event_id: str | None = None) -> Event:
        """Replace a misread move by what really happened; later moves must stay legal.

        A correction is not an undo: the log keeps both the reading and its correction.
        """
        with self._lock:
            move = self.parse(move)
            old = next((p for p in self._replay.played if p.event_id == target_event_id), None)
            text = f"correct {old.text} -> {move.to_text()}" if old is not None else None
            if (known := self._known(event_id, CORRECT, text)) is not None:
                return known
            self._refuse_if_sealed("correct a move")
            if old is None:
                raise IllegalMove("only a move in effect can be corrected (it may have been undone)")
            probe = Event("", self.session_id, 0, 0.0, source, CORRECT, text, {})
            played = _rebuild(self.rules, self.initial, list(self._replay.played), target_event_id, move.to_text(), probe)
            event = self._append(CORRECT, text, source=source,
                                 payload={"target": target_event_id, "move": move.to_text()}, event_id=event_id)
            self._moves.update((p.event_id, p) for p in played)
            self._replay = Replay(played[-1].after, tuple(played), ())
        self._publish(event)
        return event

    def _refuse_if_sealed(self, action: str) -> None:
        reason = self.sealed() if self.sealed is not None else None
        if reason:
            raise IllegalMove(f"cannot {action}: {reason}")

    def note(self, kind: str, text: str, *, source: str, payload: dict | None = None,
             event_id: str | None = None) -> Event:
        """Log something that changes no state (an alert, its resolution, a seat claim) and publish it."""
        if kind in STATE_CHANGES:
            raise ValueError(f"'{kind}' events change the game: use apply, undo, redo or correct")
        with self._lock:
            if (known := self._known(event_id, kind, text)) is not None:
                return known
            event = self._append(kind, text, source=source, payload=payload, event_id=event_id)
        self._publish(event)
        return event

    # -- seats ------------------------------------------------------------------

    def claims(self) -> dict[str, str]:
        """Each claimed seat's player and the id of the phone's claim."""
        with self._lock:
            if self._claims[0] == len(self._events):
                return dict(self._claims[1])
            held: dict[str, str] = {}
            for event in self._events:
                if event.kind == CLAIM:
                    held[event.payload["player"]] = event.payload["claim"]
                elif event.kind == RELEASE:
                    held.pop(event.payload.get("player"), None)
            self._claims = (len(self._events), held)
            return dict(held)

    def claim(self, player: str, claim_id: str, *, source: str) -> Event:
        """A phone takes ``player``'s seat (refused while another phone holds it)."""
        with self._lock:
            name = self.player(player)
            if name is None:
                raise IllegalMove(f"nobody called '{player}' plays this game ({', '.join(self.players)} do)")
            holder = self.claims().get(name)
            if holder == claim_id:
                return self._events[-1]
            if holder is not None:
                raise IllegalMove(f"{name}'s seat is already taken by another phone: the game master can "
                                  "release it on the Table page")
            return self.note(CLAIM, f"{name}'s phone joined", source=source,
                             payload={"player": name, "claim": claim_id})

    def release(self, player: str, *, source: str) -> Event:
        """Free ``player``'s seat: the phone that held it becomes a spectator."""
        with self._lock:
            name = self.player(player)
            if name is None or name not in self.claims():
                raise IllegalMove(f"{player}'s seat is not taken by any phone")
            return self.note(RELEASE, f"{name}'s seat was released", source=source, payload={"player": name})

    def pending_alerts(self) -> list[dict]:
        """The alerts nobody has resolved yet, oldest first, the same alert said again merged into one.

        Alerts of the same kind about the same thing (same source, same words, same proposed
        move: a camera that keeps seeing the same stray card) are one alert: the latest one's
        fields, with ``count``, ``first_time`` and ``ids`` (every merged alert; resolving the
        merged alert resolves them all)."""
        events = self.events
        resolved: set = set()
        for e in events:
            if e.kind == RESOLVE:
                resolved.add(e.payload.get("target"))
                resolved.update(e.payload.get("targets") or ())
        merged: dict[tuple, dict] = {}
        for e in events:
            if e.kind != ALERT or e.event_id in resolved:
                continue
            key = (e.source, e.text, (e.payload or {}).get("move"))
            earlier = merged.pop(key, None)  # popped and put back: the dict stays ordered by latest time
            alert = e.to_json()
            alert["count"] = 1 + (earlier["count"] if earlier else 0)
            alert["first_time"] = earlier["first_time"] if earlier else alert["time"]
            alert["ids"] = (earlier["ids"] if earlier else []) + [e.event_id]
            merged[key] = alert
        return list(merged.values())

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
        """The whole game as the companion knows it (``companion play``): not for a device at the table."""
        return self._json(self.rules.to_json(self.state), None, log_limit, everything=True)

    def view(self, viewer: str | None, *, log_limit: int | None = 100) -> dict:
        """The game as ``viewer`` (a player, or None for the shared table screen) may see it."""
        with self._lock:
            state = self.state
        return self._json(self.rules.player_view(state, viewer), viewer, log_limit, everything=False)

    def _json(self, state_json: dict, viewer: str | None, log_limit: int | None, *, everything: bool) -> dict:
        with self._lock:
            events = list(self._events)
            state = self.state
            can_undo, can_redo = self.can_undo, self.can_redo
        if log_limit is not None:
            events = events[-log_limit:]
        result = self.rules.outcome(state)
        claims = self.claims()
        return {
            "session_id": self.session_id,
            "game": self.game,
            "title": self.record.title,
            "campaign_id": self.record.parent_id,
            "cooperative": self.rules.COOPERATIVE,
            "state": state_json,
            "viewer": viewer,
            "to_act": list(self.rules.to_act(state)),
            "deciding": list(self.rules.deciding(state)),
            "seats": [{"player": p, "seat": s + 1, "claimed": p in claims} for p, s in zip(self.players, self.seats)],
            "can_undo": can_undo,
            "can_redo": can_redo,
            "outcome": None if result is None else {"winners": list(result.winners), "reason": result.reason,
                                                     "lost": result.lost},
            "log": [e.to_json() if everything else self._event_for(e, viewer, state) for e in events],
        }

    def text_for(self, played: Played, viewer: str | None) -> str:
        """The text of a move in effect as ``viewer`` may read it."""
        return self._secret(played, viewer, self.state) or played.text

    def _secret(self, played: Played | None, viewer: str | None, now: Any) -> str | None:
        """The public words for ``played`` when ``viewer`` may not read it, else None."""
        if played is None or (viewer is not None and played.player == viewer):
            return None
        return self.rules.public_text(played.move, played.after, now)

    def _event_for(self, event: Event, viewer: str | None, now: Any) -> dict:
        """One log line as ``viewer`` may read it: someone else's secret move in its public words."""
        entry = event.to_json()
        if event.kind == MOVE:
            hidden = self._secret(self._moves.get(event.event_id), viewer, now)
            words = hidden
        elif event.kind in (UNDO, REDO, CORRECT):
            target = self._moves.get(event.payload.get("target"))
            hidden = self._secret(target, viewer, now)
            words = f"{event.kind}: {hidden}" if hidden else None
        else:
            words = None
        if words is not None:
            entry["text"] = words
            entry["payload"] = {}
        return entry

    def legal_moves(self, viewer: str | None = None, *, instead_of: str | None = None) -> list | None:
        """The moves allowed now that ``viewer`` may enter (None when they cannot be listed).

        A seat's phone lists its own moves and the table's; the shared screen lists the table's
        and those of every player whose seat no phone holds (it enters them). ``instead_of``
        (a move's event id): the moves that were allowed in its place, for a correction."""
        with self._lock:
            state = self.state
            if instead_of is not None:
                played = self._replay.played
                index = next((i for i, p in enumerate(played) if p.event_id == instead_of), None)
                if index is None:
                    raise IllegalMove("that move is not in effect: only a move in effect can be corrected")
                state = played[index - 1].after if index else self.initial
        moves = self.rules.legal_moves(state)
        if moves is None:
            return None
        claimed = self.claims()
        result = []
        for move in moves:
            mover = self.player(self.rules.mover(state, move))
            if mover is None or mover == viewer or (viewer is None and mover not in claimed):
                result.append(move)
        return result
