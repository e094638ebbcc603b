"""A campaign's state, derived by replaying its events and its games' moves. Nothing here is stored.

Campaign events (kind: payload):

``game_started``   {"session_id", "number", "players", "start"}: a game session (its
                   ``parent_id`` is the campaign) was set up from the campaign's layout.
``game_finished``  {"session_id", "through_seq", "winners", "juices", "scores"}: the game's
                   moves up to ``through_seq`` end it; its juices go to the bag, its display stays.
``game_abandoned`` {"session_id", "through_seq", "reason"}: stopped early; the cards it moved stay moved.
``parked``         {"display", "bag"}: the 24 display cards went back on top of the deck and
                   the bag was put aside; the campaign's cards are off the table.
``resumed``        {}: laid out again; the campaign is on the table.
``reset``          {}: every card back in number order; the next game is a first game.

The payloads repeat what the replay computes so a changed log is caught: the replay
must agree with them or loading stops with :class:`EventLogError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import Iterable

from companion.errors import EventLogError, IllegalMove, InvalidMove, SetupError
from companion.eventlog import Event, EventLog, SessionRecord
from companion.games import fable
from companion.games.fable.cards import Card, Table, format_cards
from companion.games.fable.fruits import data as fable_data
from companion.games.fable.state import Stack
from companion.session import replay

GAME = "fable"
STARTED, FINISHED, ABANDONED = "game_started", "game_finished", "game_abandoned"
PARKED, RESUMED, RESET = "parked", "resumed", "reset"
KINDS = (STARTED, FINISHED, ABANDONED, PARKED, RESUMED, RESET)


@dataclass(frozen=True)
class GameRecord:
    """One game of the campaign: who played, and (once over) juices, winners and session scores."""

    number: int
    session_id: str
    players: tuple[str, ...]
    start: str
    started: float
    status: str = "playing"  # playing, finished, abandoned
    ended: float | None = None
    juices: tuple[tuple[str, tuple[Card, ...]], ...] = ()
    winners: tuple[str, ...] = ()
    losers: tuple[str, ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    reason: str = ""

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "session_id": self.session_id,
            "players": list(self.players),
            "start_player": self.start,
            "started": self.started,
            "status": self.status,
            "ended": self.ended,
            "juices": {p: len(cards) for p, cards in self.juices},
            "juice_cards": {p: [c.to_text() for c in cards] for p, cards in self.juices},
            "winners": list(self.winners),
            "losers": list(self.losers),
            "scores": dict(self.scores),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class CampaignState:
    """Where a campaign stands: its cards, its games and whether its cards are on the table."""

    campaign_id: str
    title: str
    group: tuple[str, ...]
    created: float
    display: tuple[Stack, ...]
    deck: tuple[Card, ...]
    bag: tuple[Card, ...]
    games: tuple[GameRecord, ...] = ()
    on_table: bool = True
    resets: int = 0
    history: tuple[tuple[float, str], ...] = ()
    # What the last park put aside (the physical box state while no campaign is on the table).
    parked_bag: tuple[Card, ...] | None = None
    events: int = 0

    @property
    def current(self) -> GameRecord | None:
        """The game being played (started, neither finished nor abandoned)."""
        if self.games and self.games[-1].status == "playing":
            return self.games[-1]
        return None

    @property
    def finished(self) -> tuple[GameRecord, ...]:
        return tuple(g for g in self.games if g.status == "finished")

    def scores(self) -> dict[str, int]:
        """Session scores summed over the finished games (winners 2, last 0, others 1)."""
        totals = {p: 0 for p in self.group}
        for g in self.finished:
            for p, n in g.scores:
                totals[p] = totals.get(p, 0) + n
        return totals

    def next_start(self) -> tuple[str, ...]:
        """Who starts the next game: the loser of the last finished game (several when they tied)."""
        return self.finished[-1].losers if self.finished else ()


def initial(record: SessionRecord, table: Table) -> CampaignState:
    display, deck = first_layout(table)
    setup = record.setup
    return CampaignState(
        campaign_id=record.session_id,
        title=record.title,
        group=tuple(setup.get("group", ())),
        created=float(setup.get("created", record.created)),
        display=display,
        deck=deck,
        bag=(),
    )


def first_layout(table: Table) -> tuple[tuple[Stack, ...], tuple[Card, ...]]:
    """The first game: locations 1-6 as stacks, every other card in the deck in number order."""
    numbers = fable_data()["first_display"]
    display = tuple(Stack(n, tuple(Card(n, c) for c in range(1, table[n].copies + 1))) for n in numbers)
    used = {c for s in display for c in s.cards}
    return display, tuple(c for c in table.all_cards() if c not in used)


def sorted_stacks(cards: Iterable[Card]) -> tuple[Stack, ...]:
    """Cards laid out from a sorted deck: one stack per number, lowest number first, copy 1 on top."""
    by_number: dict[int, list[Card]] = {}
    for card in sorted(cards):
        by_number.setdefault(card.number, []).append(card)
    return tuple(Stack(n, tuple(cs)) for n, cs in sorted(by_number.items()))


def display_option(display: Iterable[Stack]) -> str:
    return " / ".join(format_cards(s.cards) for s in display)


@cache
def shipped_table() -> Table:
    """Which cards exist does not depend on the players' entries (copies are fixed by the box)."""
    return Table.build(None, components=fable_data()["components"])


def derive(log: EventLog, record: SessionRecord) -> CampaignState:
    """The campaign's state from its events and its games' moves; EventLogError when they disagree."""
    state = initial(record, shipped_table())
    games = {g.session_id: g for g in log.sessions(kind="game", parent_id=record.session_id)}
    for event in log.events(record.session_id):
        state = step(log, state, event, games)
    return state


def step(log: EventLog, state: CampaignState, event: Event, games: dict | None = None) -> CampaignState:
    """The state after one more campaign event (``games``: the campaign's game records by id, when known)."""
    if games is None:
        games = {g.session_id: g for g in log.sessions(kind="game", parent_id=state.campaign_id)}
    try:
        state = _step(log, state, event, games, shipped_table())
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, EventLogError):
            raise
        raise EventLogError(f"campaign event {event.seq} ({event.kind}) is damaged: {exc}") from exc
    return replace(state, events=event.seq)


def _step(log: EventLog, s: CampaignState, e: Event, games: dict, table: Table) -> CampaignState:
    p = e.payload
    history = s.history + ((e.time, e.text),)
    if e.kind == STARTED:
        if s.current is not None:
            raise EventLogError(f"campaign event {e.seq} starts a game while game {s.current.number} is running")
        if not s.on_table:
            raise EventLogError(f"campaign event {e.seq} starts a game while the campaign is parked")
        record = games.get(p["session_id"])
        if record is None:
            raise EventLogError(f"campaign event {e.seq} starts game {p['session_id']}, which is not in the log")
        _check_layout(s, record, e)
        game = GameRecord(
            number=len(s.games) + 1,
            session_id=record.session_id,
            players=tuple(record.setup["players"]),
            start=record.setup["options"].get("start", record.setup["players"][0]),
            started=e.time,
        )
        return replace(s, games=s.games + (game,), history=history)
    if e.kind in (FINISHED, ABANDONED):
        game = s.current
        if game is None or game.session_id != p["session_id"]:
            raise EventLogError(f"campaign event {e.seq} ends a game that is not the one being played")
        final = game_state(log, games[game.session_id], p["through_seq"])
        juices = tuple((name, final.juices[i]) for i, name in enumerate(final.players))
        bag = s.bag + tuple(c for _, cards in juices for c in cards)
        ended = replace(game, status="abandoned", ended=e.time, juices=juices, reason=p.get("reason", ""))
        if e.kind == FINISHED:
            result = fable.outcome(final)
            if result is None:
                raise EventLogError(f"campaign event {e.seq} says game {game.number} is over, but its moves do not end it")
            scores = fable.session_scores(final)
            if list(result.winners) != p["winners"] or scores != p["scores"]:
                raise EventLogError(
                    f"campaign event {e.seq}: game {game.number}'s moves give winners {', '.join(result.winners)}, "
                    f"not the recorded {', '.join(p['winners'])}"
                )
            ended = replace(
                ended, status="finished", winners=result.winners, losers=fable.losers(final),
                scores=tuple(scores.items()), reason=result.reason,
            )
        return replace(
            s, games=s.games[:-1] + (ended,), bag=bag, display=final.display, deck=final.deck, history=history,
        )
    if e.kind == PARKED:
        if s.current is not None or not s.on_table:
            raise EventLogError(f"campaign event {e.seq} parks a campaign that is not between games on the table")
        return replace(s, on_table=False, parked_bag=s.bag, history=history)
    if e.kind == RESUMED:
        if s.on_table:
            raise EventLogError(f"campaign event {e.seq} resumes a campaign that is already on the table")
        # Laid out again from the sorted deck: stacks in number order, copy 1 on top.
        return replace(s, on_table=True, display=sorted_stacks(c for st in s.display for c in st.cards), history=history)
    if e.kind == RESET:
        if s.current is not None:
            raise EventLogError(f"campaign event {e.seq} resets the cards during a game")
        display, deck = first_layout(table)
        return replace(s, display=display, deck=deck, bag=(), resets=s.resets + 1, history=history)
    return replace(s, history=history)  # notes and other events change nothing


@lru_cache(maxsize=8)
def _setup(players: tuple[str, ...], options: str):
    """A game's start (cached: the campaign checks it when the game starts and replays it when it ends)."""
    return fable.setup(players, json.loads(options))


def start_of(record: SessionRecord):
    """The state a game session starts from; EventLogError when its setup is refused."""
    try:
        return _setup(tuple(record.setup["players"]), json.dumps(record.setup.get("options", {}), sort_keys=True))
    except SetupError as exc:
        raise EventLogError(f"game {record.session_id} cannot be set up: {exc}") from exc


def _check_layout(s: CampaignState, record: SessionRecord, e: Event) -> None:
    """A campaign game must start from the campaign's cards exactly."""
    initial_state = start_of(record)
    if initial_state.display != s.display or set(initial_state.bag) != set(s.bag) or initial_state.deck != s.deck:
        raise EventLogError(
            f"campaign event {e.seq}: game {record.session_id} was not set up from the campaign's cards"
        )


def game_state(log: EventLog, record: SessionRecord, through_seq: int | None = None):
    """A game's state after its events up to ``through_seq`` (all of them when None)."""
    rules = fable.GAME
    start = start_of(record)
    events = log.events(record.session_id)
    if through_seq is not None:
        if through_seq > (events[-1].seq if events else 0):
            raise EventLogError(f"game {record.session_id} has no event {through_seq}")
        events = [ev for ev in events if ev.seq <= through_seq]
    try:
        return replay(rules, start, events).state
    except (InvalidMove, IllegalMove) as exc:
        raise EventLogError(f"game {record.session_id} does not replay: {exc}") from exc


__all__ = [
    "CampaignState", "GameRecord", "derive", "step", "game_state", "first_layout", "sorted_stacks", "display_option",
    "shipped_table", "KINDS", "STARTED", "FINISHED", "ABANDONED", "PARKED", "RESUMED", "RESET", "GAME",
]
