"""What each viewer sees of a Bable game, the clock, and the words others read for a secret move.

Private to a player: their hand (which symbols hold a new Word card, which one a
Confusion card took), their face-down buildings, what they drew. Shared: the tower,
the Idea decks as a clock, supplies' resources and face-up buildings, counts of
everything face down.
"""

from __future__ import annotations

import random
from dataclasses import replace

from .cards import EFFECTS, RESOURCES, SYMBOLS, data
from .moves import AnswerGive, Confusion, Deal, Idea, resources_text
from .rules import ACTIONS, confusion_left, doors_and_stairs, overseer, to_act, waiting
from .state import LAYERS, MISSING, NEW, START, Building, State

DECISIONS: tuple[str, ...] = tuple(data()["decisions"])




def _counts(counts) -> dict:
    return dict(zip(RESOURCES, counts))


def clock(state: State) -> list[dict]:
    """Per layer: buildings still missing against the Idea draws left before its deck runs out.

    ``draws_left`` counts every card in this deck and the decks below it (they are drawn
    first); the draw that takes the deck's last card loses the game unless the layer is
    finished. ``level``: done, ok, amber (the deadline falls within a round of turns),
    red (the next Idea draw is the deadline), or lost.
    """
    sizes = state.layer_sizes()
    rows, draws = [], 0
    for k, size in enumerate(LAYERS):
        deck = state.decks[k]
        draws += deck.size
        missing = size - sizes[k]
        if missing == 0:
            level = "done"
        elif state.result == "lost" and deck.size == 0:
            level = "lost"
        elif draws <= 1:
            level = "red"
        elif draws <= len(state.players):
            level = "amber"
        else:
            level = "ok"
        rows.append({"layer": k + 1, "size": size, "built": sizes[k], "missing": missing, "deck": k + 1,
                     "deck_cards": deck.size, "draws_left": draws, "level": level})
    return rows


def player_view(state: State, viewer: str | None) -> dict:
    """The JSON ``viewer`` may see (None: the shared table screen)."""
    me = state.seat(viewer)
    view = _shared(state)
    view["you"] = None if me is None else _private(state, me)
    return view


def to_json(state: State) -> dict:
    """Everything the companion knows (``companion play``): the shared view plus every player's secrets."""
    view = _shared(state)
    view["you"] = None
    view["secrets"] = {p: _private(state, i) for i, p in enumerate(state.players)}
    view["word_discard"] = dict(zip(SYMBOLS, state.word_discard))
    view["words_taken"] = dict(zip(SYMBOLS, state.words_taken))
    view["idea_decks_returned"] = [[f"B{b}" for b in d.returned] for d in state.decks]
    return view


def _shared(state: State) -> dict:
    sizes = state.layer_sizes()
    known, unknown = doors_and_stairs(state)
    players = []
    for i, (name, seat) in enumerate(zip(state.players, state.seats)):
        players.append({
            "name": name,
            "dealt": state.dealt[i],
            "resources": _counts(seat.resources),
            "resource_total": seat.resource_total,
            "face_up": [f"B{b.number}" for b in seat.buildings if b.face_up],
            "face_down": sum(1 for b in seat.buildings if not b.face_up),
            "hand_size": seat.hand_size,
            "words_down": seat.words_down,
            "to_discard": state.discards[i],
            "shown": {s: t for j, s, t in state.shown if j == i},  # each symbol's card last shown, by turn
        })
    deck = state.resource_deck
    start = 0
    tower = []
    for k, size in enumerate(LAYERS):
        tower.append({"layer": k + 1, "size": size, "buildings": [f"B{b}" for b in state.tower[start:start + sizes[k]]]})
        start += sizes[k]
    phase = state.phase
    view = {
        "players": players,
        "advanced": state.advanced,
        "phase": phase,
        "waiting": waiting(state),
        "to_act": list(to_act(state)),
        "overseer": overseer(state),
        "current": overseer(state),
        "over": state.over,
        "first": state.players[state.first],
        "turn": state.turn,
        "actions_left": max(0, ACTIONS - state.actions) if phase not in ("deal", "over") else 0,
        "commanded": None if state.commanded is None else state.players[state.commanded],
        "confused": None if state.confused is None else state.players[state.confused],
        "tower": tower,
        "tower_built": len(state.tower),
        "shown": [{"player": state.players[j], "symbol": s, "turn": t} for j, s, t in state.shown],
        "clock": clock(state),
        "idea_decks": [{"deck": k + 1, "cards": d.size, "words": d.words, "buildings": d.buildings + len(d.returned)}
                       for k, d in enumerate(state.decks)],
        "current_deck": None if state.current_deck is None else state.current_deck + 1,
        "resources": {"deck": deck.size, "deck_mix": None if deck.unknown else _counts(deck.known),
                      "discard": _counts(state.resource_discard), "discard_total": sum(state.resource_discard)},
        "word_discard": sum(state.word_discard),
        "doors_stairs": {"counted": known, "unknown_buildings": unknown},
        "buildings_unseen": state.buildings_box + sum(d.buildings for d in state.decks),
        "public_buildings": sorted(_public_buildings(state)),
        "buildings": {f"B{b.number}": b.to_json() for b in state.facts.buildings},
        "unknown_facts": state.facts.unknown(),
        "trusted": list(state.trusted),
        "decisions": list(DECISIONS),
        "limits": {"supply": data()["supply_limit"], "gather": data()["gather"], "give": data()["give"],
                   "reveal": data()["reveal"], "start_supply": data()["start_supply"]},
        "symbols": list(SYMBOLS),
        "resource_types": list(RESOURCES),
        "result": state.result,
        "reason": state.reason,
    }
    if state.advanced:
        out = state.confusion_out
        view["confusion"] = {
            "deck": confusion_left(state),
            "used": dict(zip(EFFECTS, out)),
            "cards": [{**c, "count": state.facts.confusion[k]} for k, c in enumerate(data()["confusion"])],
        }
    return view


def _public_buildings(state: State) -> set[int]:
    """Buildings everyone knows the place of: the tower and face-up supply cards."""
    shown = set(state.tower)
    for seat in state.seats:
        shown.update(b.number for b in seat.buildings if b.face_up)
    return shown


def _private(state: State, i: int) -> dict:
    seat = state.seats[i]
    mine = []
    for b in seat.buildings:
        cost = state.facts.building(b.number).cost
        mine.append({"card": f"B{b.number}", "face_up": b.face_up,
                     "affordable": None if cost is None else all(h >= n for h, n in zip(seat.resources, cost))})
    known_elsewhere = _public_buildings(state) | {b.number for b in seat.buildings}
    return {
        "name": state.players[i],
        "hand": [{"symbol": s, "card": {START: "start", NEW: "new", MISSING: None}[slot]}
                 for s, slot in zip(SYMBOLS, seat.hand)],
        "buildings": mine,
        "to_discard": state.discards[i],
        # Buildings this player cannot place: any of them may be the one they draw.
        "could_draw": [f"B{b.number}" for b in state.facts.buildings if b.number not in known_elsewhere],
    }


# -- the log as others read it ---------------------------------------------------------------


def public_text(move, after: State, now: State) -> str | None:
    """The words everyone but the mover reads for a move that hides something; None when its text is public."""
    if isinstance(move, Deal):
        return (f"{move.player} was dealt {resources_text(move.resources)} face up, a Word card and a face-down "
                "Building card")
    if isinstance(move, Idea):
        return f"{move.player} drew an Idea card: a {'Word' if move.word else 'Building'} card"
    if isinstance(move, Confusion) and move.effect == "redraw-word":
        return f"confusion {move.player} redraw-word: a Word card drawn from the discard pile"
    if isinstance(move, Confusion) and move.effect == "drop-word":
        return f"confusion {move.player} drop-word: a Word card discarded face down"
    if isinstance(move, AnswerGive) and any(isinstance(c, int) for c in move.cards):
        if all(after.seats[after.seat(who)].building(c).face_up for who, cards in move.gifts for c in cards
               if isinstance(c, int)):
            return None  # every building given lay face up: nothing hidden
        parts = []
        for who, cards in move.gifts:
            j = after.seat(who)
            named = []
            for card in cards:
                if isinstance(card, str):
                    named.append(card)
                else:
                    held = after.seats[j].building(card)
                    named.append(f"B{card}" if held is not None and held.face_up else "a face-down Building card")
            parts.append(f"{' '.join(named)} to {who}")
        return f"answer {move.player} give {', '.join(parts)}"
    return None


# -- the leak checker's other worlds --------------------------------------------------------


def scramble_secrets(state: State, viewer: str | None, rng: random.Random) -> State:
    """``state`` with what ``viewer`` cannot see dealt again: other players' hands (which symbols hold
    a new card, which one is missing), their face-down buildings, the face-down Word discard pile."""
    me = state.seat(viewer)
    own = {b.number for b in state.seats[me].buildings} if me is not None else set()
    pool = [b.number for b in state.facts.buildings if b.number not in _public_buildings(state) | own]
    rng.shuffle(pool)
    seats = list(state.seats)
    for i, seat in enumerate(seats):
        if i == me:
            continue
        slots = [MISSING] * (len(SYMBOLS) - seat.hand_size) + [rng.choice((START, NEW)) for _ in range(seat.hand_size)]
        rng.shuffle(slots)
        hidden = [Building(pool.pop(), False) for b in seat.buildings if not b.face_up]
        seats[i] = replace(seat, hand=tuple(slots)).with_buildings([b for b in seat.buildings if b.face_up] + hidden)
    total = sum(state.word_discard)
    cuts = sorted(rng.randint(0, total) for _ in range(len(SYMBOLS) - 1))
    discard = tuple(b - a for a, b in zip([0] + cuts, cuts + [total]))
    return replace(state, seats=tuple(seats), word_discard=discard)


__all__ = ["player_view", "to_json", "public_text", "scramble_secrets", "clock"]
