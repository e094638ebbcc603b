"""Campaigns in the event log: create, find, start and end games, park, resume, reset.

A campaign is a session of kind ``campaign`` (game ``fable``); its games are game
sessions whose ``parent_id`` is the campaign. Every change is an appended event;
:class:`Campaign` holds the state derived from them, rebuilt after each change.
Exactly one campaign is on the table at a time: a campaign's games can only be
started while its cards are on the table.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Mapping, Sequence

from companion.errors import EventLogError, SetupError, UnknownSession
from companion.eventlog import Event, EventLog, SessionRecord
from companion.games import check_players, fable
from companion.games.fable import cardtable
from companion.games.fable.cards import Table, format_cards, parse_cards
from companion.games.fable.fruits import data as fable_data
from companion.session import Session

from . import guide
from .guide import Box, Instructions
from .model import (
    ABANDONED, FINISHED, GAME, PARKED, RESET, RESUMED, STARTED, CampaignState, GameRecord, derive, step,
    display_option, game_state,
)

_log = logging.getLogger(__name__)


class Campaign:
    """One group's Fabled Fruit campaign, as the log tells it. Use :meth:`new`, :meth:`load` or :meth:`find`."""

    def __init__(self, log: EventLog, campaign_id: str):
        record = log.session(campaign_id)
        if record.kind != "campaign" or record.game != GAME:
            raise UnknownSession(f"{campaign_id} is a {record.game} {record.kind}, not a Fabled Fruit campaign")
        self.log = log
        self.record = record
        self.state: CampaignState = derive(log, record)

    # -- finding ------------------------------------------------------------------------

    @classmethod
    def new(cls, log: EventLog, group: Sequence[str], *, title: str = "",
            how_to_park: str = "companion campaign park") -> "Campaign":
        """A campaign for ``group``, on the table from the start (no other campaign may be on it).

        ``how_to_park``: where the refusal sends the players (the command, or the page's button)."""
        group = check_group(group)
        busy = on_table(log)
        if busy is not None:
            raise SetupError(f"the cards of campaign '{busy.title}' are on the table: park it first ({how_to_park})")
        title = title.strip() or ", ".join(group)
        setup = {"group": list(group), "created": time.time(), "format": 1}
        campaign_id = log.create_session(GAME, setup, kind="campaign", title=title)
        return cls(log, campaign_id)

    @classmethod
    def load(cls, log: EventLog, campaign_id: str) -> "Campaign":
        return cls(log, campaign_id)

    @classmethod
    def find(cls, log: EventLog, ref: str | None = None) -> "Campaign":
        """By id, unique id prefix or title; without ``ref``, the campaign on the table."""
        if ref is None:
            current = on_table(log)
            if current is None:
                raise UnknownSession("no campaign is on the table: name one (companion campaign list)")
            return cls(log, current.session_id)
        records = log.sessions(kind="campaign")
        exact = [r for r in records if r.session_id == ref]
        matches = exact or [r for r in records if r.title.casefold() == ref.strip().casefold()]
        if not matches and len(ref) >= 4:
            matches = [r for r in records if r.session_id.startswith(ref)]
        if len(matches) == 1:
            return cls(log, matches[0].session_id)
        if not matches:
            known = "; ".join(f"{r.session_id[:8]} {r.title}" for r in records) or "none yet"
            raise UnknownSession(f"no campaign '{ref}' (campaigns: {known})")
        raise UnknownSession(f"'{ref}' names {len(matches)} campaigns: use more of the id")

    # -- facts --------------------------------------------------------------------------

    @property
    def campaign_id(self) -> str:
        return self.record.session_id

    @property
    def title(self) -> str:
        return self.state.title

    def refresh(self) -> CampaignState:
        """Replay the campaign again from the log."""
        self.state = derive(self.log, self.record)
        return self.state

    def _fresh(self) -> CampaignState:
        """The state, replayed again only when another writer (a command, the dashboard) added events."""
        if self.log.count_events(self.campaign_id) != self.state.events:
            self.refresh()
        return self.state

    def session(self) -> Session | None:
        """The game being played, resumed from the log (None between games)."""
        game = self.state.current
        return None if game is None else Session.resume(self.log, game.session_id)

    # -- games ---------------------------------------------------------------------------

    def start_game(
        self,
        players: Sequence[str],
        *,
        start: str | None = None,
        card_facts: Mapping[str, Mapping[str, Any]] | None = None,
        deal: str | None = None,
        source: str = "cli",
        seats: Any = None,
    ) -> Session:
        """Set up the next game from the campaign's cards and return its session.

        ``card_facts`` are the players' location entries (``CardData.overrides()``): with the
        shipped facts, pinned in the game's options so it replays with them. ``deal`` names dealt fruits (simulations).
        The start player is the loser of the last game unless ``start`` says otherwise.
        ``seats`` are the table's seats (1-6) the players sit at, in player order.
        """
        self._record_finish_if_over(source)
        s = self.state
        if not s.on_table:
            raise SetupError(
                f"the cards of '{s.title}' are not on the table: resume it first (companion campaign resume)"
            )
        if s.current is not None:
            raise SetupError(
                f"game {s.current.number} of '{s.title}' is still being played: finish it or abandon it first"
            )
        if not s.display:
            raise SetupError(f"'{s.title}' has been played through: nothing is left on display; reset it to play again")
        players = [p.strip() for p in players]
        group = {p.casefold(): p for p in s.group}
        outsiders = [p for p in players if p.casefold() not in group]
        if outsiders:
            raise SetupError(f"{', '.join(outsiders)} {'is' if len(outsiders) == 1 else 'are'} not in the group of '{s.title}' ({', '.join(s.group)})")
        players = [group[p.casefold()] for p in players]
        start = self._start_player(players, start)
        options = {"start": start, "display": display_option(s.display)}
        if s.bag:
            options["bag"] = format_cards(sorted(s.bag))
        # Every known card fact goes into the game, so it replays the same after any upgrade.
        options["locations"] = cardtable.to_option(card_facts)
        if deal:
            options["deal"] = deal
        number = len(s.games) + 1
        session = Session.create(self.log, GAME, players, options, seats=seats, parent_id=self.campaign_id,
                                 title=f"{s.title}: game {number}")
        self._append(
            STARTED,
            f"game {number} started: {', '.join(players)}; {start} starts",
            {"session_id": session.session_id, "number": number, "players": players, "start": start},
            source,
        )
        return session

    def _start_player(self, players: list[str], start: str | None) -> str:
        if start is not None:
            seat = next((p for p in players if p.casefold() == start.strip().casefold()), None)
            if seat is None:
                raise SetupError(f"the start player {start} is not playing ({', '.join(players)})")
            return seat
        starters = [p for p in self.state.next_start() if p in players]
        if len(starters) == 1:
            return starters[0]
        if len(starters) > 1:
            raise SetupError(f"{' and '.join(starters)} shared last place in the last game: say which of them starts")
        return players[0]

    def finish_game(self, *, source: str = "cli", card_facts=None) -> Instructions:
        """Record that the game being played is over (its moves must end it) and say what to do next."""
        game = self._current_or_refuse()
        final = game_state(self.log, self.log.session(game.session_id))
        result = fable.outcome(final)
        if result is None:
            raise SetupError(f"game {game.number} is not over yet: {final.player} is to play")
        through = self._last_seq(game.session_id)
        self._append(
            FINISHED,
            f"game {game.number} finished: {' and '.join(result.winners)} won",
            {
                "session_id": game.session_id,
                "through_seq": through,
                "winners": list(result.winners),
                "juices": {p: len(final.juices[i]) for i, p in enumerate(final.players)},
                "scores": fable.session_scores(final),
            },
            source,
        )
        return guide.between_games(self.state, _table(card_facts), final.players)

    def abandon_game(self, *, reason: str = "", source: str = "cli") -> Instructions:
        """Stop the game being played without a result; the juices it bought still leave the deck."""
        game = self._current_or_refuse()
        through = self._last_seq(game.session_id)
        self._append(
            ABANDONED,
            f"game {game.number} abandoned" + (f": {reason}" if reason else ""),
            {"session_id": game.session_id, "through_seq": through, "reason": reason},
            source,
        )
        bought = [c for _, cards in self.state.games[-1].juices for c in cards]
        steps = ["The game is recorded without winners or scores."]
        if bought:
            steps.append(f"Put its {guide.count(len(bought), 'juice')} into the campaign's bag: {guide.cards_text(bought)}.")
        steps.append("Leave the display as it is: the next game starts with it.")
        return Instructions(f"Game {game.number} abandoned", tuple(steps))

    def watch(self, session: Session) -> Callable[[], None]:
        """Record the end of ``session`` as soon as a move ends it; returns the unsubscribe function."""

        def on_event(live: Session, event: Event) -> None:
            if live.outcome() is None:
                return
            current = self._fresh().current
            if current is not None and current.session_id == live.session_id:
                self.finish_game(source="system")

        return session.subscribe(on_event)

    def _record_finish_if_over(self, source: str) -> None:
        game = self._fresh().current
        if game is not None:
            if fable.outcome(game_state(self.log, self.log.session(game.session_id))) is not None:
                self.finish_game(source=source)

    def _current_or_refuse(self) -> GameRecord:
        game = self._fresh().current
        if game is None:
            raise SetupError(f"no game of '{self.title}' is being played")
        return game

    def _last_seq(self, session_id: str) -> int:
        events = self.log.events(session_id)
        return events[-1].seq if events else 0

    # -- the box -------------------------------------------------------------------------------

    def park(self, *, source: str = "cli") -> Instructions:
        """Put this campaign's cards away so another group can use the box."""
        self._record_finish_if_over(source)
        s = self.state
        if not s.on_table:
            raise SetupError(f"'{s.title}' is already parked")
        if s.current is not None:
            raise SetupError(f"game {s.current.number} is still being played: finish it or abandon it before parking")
        instructions = guide.park(s)
        on_display = sorted(c for st in s.display for c in st.cards)
        self._append(
            PARKED,
            f"parked with {len(on_display)} display cards and {len(s.bag)} juices in the bag",
            {"display": format_cards(on_display), "bag": format_cards(sorted(s.bag))},
            source,
        )
        return instructions

    def resume(self, *, source: str = "cli") -> Instructions:
        """Bring this campaign's cards back to the table (no other campaign may be on it)."""
        s = self._fresh()
        if s.on_table:
            raise SetupError(f"'{s.title}' is already on the table")
        busy = on_table(self.log)
        if busy is not None:
            raise SetupError(f"the cards of campaign '{busy.title}' are on the table: park it first")
        box = box_state(self.log)
        self._append(RESUMED, "resumed: its cards are on the table", {}, source)
        return guide.set_up(self.state, box, "Resume")

    def reset(self, *, source: str = "cli") -> Instructions:
        """Every card back in number order; the next game is a first game again (history and scores stay)."""
        self._record_finish_if_over(source)
        old = self.state
        if old.current is not None:
            raise SetupError(f"game {old.current.number} is still being played: finish it or abandon it before a reset")
        self._append(RESET, "reset: every card back in number order", {}, source)
        return guide.reset(old, self.state)

    def setup_instructions(self) -> Instructions:
        """How to lay out this campaign's cards from the box as it is now (after :meth:`new`)."""
        return guide.set_up(self.state, box_state(self.log, before=self.campaign_id), "Set up")

    # -- views ---------------------------------------------------------------------------------

    def to_json(self, card_facts: Mapping[str, Mapping[str, Any]] | None = None) -> dict:
        s = self.state
        table = _table(card_facts)
        live = None
        if s.current is not None:
            live = game_state(self.log, self.log.session(s.current.session_id))
        display, deck = (live.display, live.deck) if live is not None else (s.display, s.deck)
        return {
            "campaign_id": s.campaign_id,
            "title": s.title,
            "group": list(s.group),
            "created": s.created,
            "on_table": s.on_table,
            "display": {str(st.number): [c.to_text() for c in st.cards] for st in display},
            "stacks": [
                {"number": st.number, "cards": [c.to_text() for c in st.cards], "count": len(st.cards),
                 "location": table[st.number].to_json()}
                for st in display
            ],
            "display_count": sum(len(st.cards) for st in display),
            "deck_size": len(deck),
            "deck_next": [c.number for c in deck[:10]],
            "bag_size": len(s.bag),
            "bag": [c.to_text() for c in s.bag],
            "games": [g.to_json() for g in s.games],
            "current_game": None if s.current is None else s.current.session_id,
            "current_over": live is not None and live.over,
            "scores": s.scores(),
            "next_start": list(s.next_start()),
            "components": fable.components_needed(table, [st.number for st in display]),
            "resets": s.resets,
            "history": [{"time": t, "text": text} for t, text in s.history],
        }

    def summary(self, card_facts: Mapping[str, Mapping[str, Any]] | None = None) -> str:
        s = self.state
        live = None if s.current is None else game_state(self.log, self.log.session(s.current.session_id))
        return guide.summary(s, _table(card_facts), live=live)

    # -- writing ----------------------------------------------------------------------------------

    def _append(self, kind: str, text: str, payload: dict, source: str) -> Event:
        """Append a campaign event, then fold it into the state (a full replay when others wrote meanwhile)."""
        known = self.state.events
        event = self.log.append(self.campaign_id, kind, text, source=source, payload=payload)
        try:
            if event.seq == known + 1:
                self.state = step(self.log, self.state, event)
            else:
                self.refresh()
        except EventLogError:
            _log.exception("campaign %s no longer replays after event %s", self.campaign_id, event.seq)
            raise
        return event


def check_group(group: Sequence[str]) -> tuple[str, ...]:
    """A campaign's group: names as every game checks them, which the Fabled Fruit notation can express."""
    from companion.names import check_lookalikes

    group = check_players(group, minimum=2, maximum=60, game="a campaign group")
    fable.check_names(group)
    check_lookalikes(group)
    return group


def _table(card_facts) -> Table:
    return Table.build(card_facts or None, components=fable_data()["components"])


def table_status(log: EventLog, record: SessionRecord) -> tuple[bool, float | None, dict | None]:
    """Whether a campaign's cards are on the table, when it was last parked and what that park put aside.

    Reads only the campaign's own events (no game replay), so it is cheap for every campaign.
    """
    on = True
    parked_at = None
    payload = None
    for event in log.events(record.session_id):
        if event.kind == PARKED:
            on, parked_at, payload = False, event.time, event.payload
        elif event.kind == RESUMED:
            on = True
    return on, parked_at, payload


def on_table(log: EventLog) -> SessionRecord | None:
    """The campaign whose cards are on the table, if any."""
    for record in log.sessions(kind="campaign"):
        if record.game == GAME and table_status(log, record)[0]:
            return record
    return None


def box_state(log: EventLog, *, before: str | None = None) -> Box:
    """The cards off the table: the bag the campaign parked last put aside (none when no park is known)."""
    latest: tuple[float, SessionRecord, dict] | None = None
    for record in log.sessions(kind="campaign"):
        if record.session_id == before or record.game != GAME:
            continue
        on, parked_at, payload = table_status(log, record)
        if not on and parked_at is not None and (latest is None or parked_at > latest[0]):
            latest = (parked_at, record, payload)
    if latest is None:
        return Box()
    return Box(aside=parse_cards(latest[2].get("bag", "")), owner=latest[1].title)


def list_campaigns(log: EventLog) -> list[dict]:
    """Every campaign, cheaply: title, group, games started and finished, whether it is on the table."""
    result = []
    for record in log.sessions(kind="campaign"):
        if record.game != GAME:
            continue
        events = log.events(record.session_id)
        on = table_status(log, record)[0]
        started = sum(1 for e in events if e.kind == STARTED)
        ended = sum(1 for e in events if e.kind in (FINISHED, ABANDONED))
        result.append({
            "campaign_id": record.session_id,
            "title": record.title,
            "group": record.setup.get("group", []),
            "created": record.setup.get("created", record.created),
            "games": sum(1 for e in events if e.kind == FINISHED),
            "playing": started > ended,
            "on_table": on,
            "last_activity": events[-1].time if events else record.setup.get("created", record.created),
        })
    return result
