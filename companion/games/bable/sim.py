"""Random play for simulation and property tests: a legal move for whoever the game waits for,
with chance (cards drawn) sampled from what the decks can hold."""

from __future__ import annotations

import itertools
import random

from .cards import EFFECTS, RESOURCES, SYMBOLS, data
from .moves import (AnswerBuild, AnswerGather, AnswerGive, AnswerNo, AnswerReveal, Command, Confusion, Deal, Discard,
                    Idea, Move, Pass, Reveal)
from .rules import _can_act, apply, confusion_left, doors_and_stairs, to_act, why_illegal
from .state import Pile, State, resource_names


def random_move(state: State, rng: random.Random, *, misunderstand: float = 0.3, eager: bool = False) -> Move | None:
    """A legal move for one of the players the game waits for (None when the game is over).

    ``eager``: the players understand the command that helps most (Build when they can pay,
    else Gather), as a table that knows its words would: such games are often won.
    """
    acting = to_act(state)
    if not acting:
        return None
    i = state.seat(rng.choice(acting))
    name = state.players[i]
    return {"deal": _deal, "act": _act, "answer": lambda s, i, r: _answer(s, i, r, misunderstand, eager),
            "confusion": _confusion, "discard": _discard, "idea": _idea}[state.phase](state, i, rng)


def random_chance(state: State, rng: random.Random) -> Move | None:
    """The next move that carries chance (a deal, an Idea card, a Confusion card), sampled; else None."""
    return random_move(state, rng) if state.phase in ("deal", "idea", "confusion") else None


def draw_resources(state: State, count: int, rng: random.Random) -> tuple[str, ...]:
    """Resources as they could come off the deck, the discard pile shuffled in when it runs out."""
    deck, discard, drawn = state.resource_deck, state.resource_discard, []
    for _ in range(count):
        if deck.size == 0:
            deck, discard = Pile(tuple(discard), 0), (0,) * len(RESOURCES)
            if deck.size == 0:
                break
        pick = rng.randrange(deck.size)
        if pick < deck.unknown:
            t = rng.randrange(len(RESOURCES))
            deck = Pile(deck.known, deck.unknown - 1)
        else:
            pick -= deck.unknown
            t = next(k for k in range(len(RESOURCES)) if pick < sum(deck.known[:k + 1]))
            deck = Pile(tuple(n - (k == t) for k, n in enumerate(deck.known)), deck.unknown)
        drawn.append(RESOURCES[t])
    return tuple(drawn)


def _word(state: State, rng: random.Random) -> str:
    """A symbol a Word card taken from the decks may carry (the counts entered, else any)."""
    room = [s for k, s in enumerate(SYMBOLS)
            if state.facts.words[k] is None or state.words_taken[k] < state.facts.words[k]]
    return rng.choice(room)


def _building(state: State, unseen_here: int, returned, rng: random.Random) -> int:
    choices = list(returned) + (state.unseen_buildings() if unseen_here else [])
    return rng.choice(choices)


def _deal(state: State, i: int, rng: random.Random) -> Move:
    return Deal(state.players[i], draw_resources(state, data()["start_supply"], rng), _word(state, rng),
                _building(state, state.buildings_box, (), rng))


def _act(state: State, i: int, rng: random.Random) -> Move:
    name, seat = state.players[i], state.seats[i]
    if not _can_act(state, i):
        return Pass(name)
    targets = [p for j, p in enumerate(state.players) if j != i and not state.seats[j].words_down]
    reveals = [s for s in SYMBOLS if seat.holds(s)] + [b.number for b in seat.buildings if not b.face_up]
    if targets and (not reveals or rng.random() < 0.85):
        return Command(name, rng.choice(targets))
    return Reveal(name, rng.choice(reveals))


def _answer(state: State, i: int, rng: random.Random, misunderstand: float, eager: bool) -> Move:
    name, seat = state.players[i], state.seats[i]
    held = [s for s in SYMBOLS if seat.holds(s)]
    if not held or rng.random() < misunderstand:
        return AnswerNo(name)
    symbol = rng.choice(held)
    if eager:
        payable = any(state.facts.building(b.number).cost is None
                      or all(h >= n for h, n in zip(seat.resources, state.facts.building(b.number).cost))
                      for b in seat.buildings)
        wish = "build" if payable else "gather" if seat.buildings else "give"
        symbol = wish if wish in held else symbol
    if symbol == "build":
        known, unknown = [], []
        for b in seat.buildings:
            cost = state.facts.building(b.number).cost
            if cost is None:
                if seat.resource_total:  # a building is never free
                    unknown.append((b.number, _some(seat.resources, rng, rng.randint(1, 4))))
            elif all(h >= n for h, n in zip(seat.resources, cost)):
                known.append((b.number, resource_names(cost)))
        if not known and (not unknown or rng.random() < 0.2):
            return AnswerBuild(name, None)
        number, pay = rng.choice(known + unknown)
        return AnswerBuild(name, number, pay)
    if symbol == "gather":
        return AnswerGather(name, draw_resources(state, data()["gather"], rng))
    if symbol == "give":
        cards = [*_some(seat.resources, rng, len(RESOURCES) * 9), *[b.number for b in seat.buildings]]
        rng.shuffle(cards)
        others = [p for j, p in enumerate(state.players) if j != i]
        gifts: dict[str, list] = {}
        for card in cards[:rng.randint(0, data()["give"])]:
            gifts.setdefault(rng.choice(others), []).append(card)
        return AnswerGive(name, tuple((who, tuple(c)) for who, c in gifts.items()))
    cards = held + [b.number for b in seat.buildings if not b.face_up]
    rng.shuffle(cards)
    return AnswerReveal(name, tuple(cards[:rng.randint(0, data()["reveal"])]))


def _some(counts, rng: random.Random, most: int) -> tuple[str, ...]:
    names = list(resource_names(counts))
    rng.shuffle(names)
    return tuple(names[:min(most, len(names))])


def _discard(state: State, i: int, rng: random.Random) -> Move:
    names = list(resource_names(state.seats[i].resources))
    rng.shuffle(names)
    return Discard(state.players[i], tuple(names[:state.discards[i]]))


def _confusion(state: State, i: int, rng: random.Random) -> Move:
    name, seat = state.players[i], state.seats[i]
    out = state.confusion_out if confusion_left(state) else (0,) * len(EFFECTS)
    counts = state.facts.confusion
    free = data()["components"]["confusion"] - sum(c for c in counts if c is not None)
    free_out = sum(o for o, c in zip(out, counts) if c is None)
    effects = [e for k, e in enumerate(EFFECTS)
               if (counts[k] is not None and out[k] < counts[k]) or (counts[k] is None and free_out < free)]
    effect = rng.choice(effects)
    if effect == "return-building":
        here = state.layer_buildings(state.current_layer)
        marked = [b for b in here if state.facts.building(b).count("statue", "relief")]
        maybe = [b for b in here if state.facts.building(b).details is None]
        choices = marked or maybe
        return Confusion(name, effect, building=rng.choice(choices) if choices and (marked or rng.random() < 0.5) else None)
    if effect == "discard-resources":
        known, unknown = doors_and_stairs(state)
        least = min(known, seat.resource_total)
        return Confusion(name, effect, resources=_some(seat.resources, rng, least + (rng.randint(0, 2) if unknown else 0)))
    if effect == "redraw-word":
        pile = [s for k, s in enumerate(SYMBOLS) for _ in range(state.word_discard[k])]
        return Confusion(name, effect, symbol=rng.choice(pile) if pile else None)
    if effect == "drop-word":
        held = [s for s in SYMBOLS if seat.holds(s)]
        return Confusion(name, effect, symbol=rng.choice(held) if held else None)
    return Confusion(name, effect)


def _idea(state: State, i: int, rng: random.Random) -> Move:
    deck = state.decks[state.current_deck]
    name = state.players[i]
    if rng.randrange(deck.size) < deck.words:
        return Idea(name, word=_word(state, rng))
    return Idea(name, building=_building(state, deck.buildings, deck.returned, rng))


def play_random_game(state: State, rng: random.Random, *, limit: int = 2000, misunderstand: float = 0.3,
                     eager: bool = False):
    """Play random moves until the game ends (or ``limit`` moves): yields (move, state after)."""
    for _ in range(limit):
        move = random_move(state, rng, misunderstand=misunderstand, eager=eager)
        if move is None:
            return
        state = apply(state, move)
        yield move, state


# -- the moves allowed now, where listing them tells the mover nothing they may not know ----------


def legal_moves(state: State) -> list[Move] | None:
    """Every move allowed now in the overseer's actions, the answers and the discards. None while a
    card is drawn (the deal, the Idea card, a Confusion card): which Building cards could still
    come out would tell the drawer which ones other players hold face down."""
    phase = state.phase
    if phase == "over":
        return []
    if phase in ("deal", "idea", "confusion"):
        return None
    moves: list[Move] = []
    for name in to_act(state):
        i = state.seat(name)
        moves += {"act": _acts, "answer": _answers, "discard": _discards}[phase](state, i)
    # Gifts are built legal (there are thousands with a full supply); the rest are few and checked.
    return [m for m in moves if isinstance(m, AnswerGive) or why_illegal(state, m) is None]


def _acts(state: State, i: int) -> list[Move]:
    name, seat = state.players[i], state.seats[i]
    if not _can_act(state, i):
        return [Pass(name)]
    commands = [Command(name, p) for j, p in enumerate(state.players) if j != i and not state.seats[j].words_down]
    reveals = [Reveal(name, s) for s in SYMBOLS if seat.holds(s)]
    return commands + reveals + [Reveal(name, b.number) for b in seat.buildings if not b.face_up]


def _answers(state: State, i: int) -> list[Move]:
    name, seat = state.players[i], state.seats[i]
    moves: list[Move] = [AnswerNo(name)]
    if seat.holds("build"):
        moves.append(AnswerBuild(name, None))
        for b in seat.buildings:
            cost = state.facts.building(b.number).cost
            pays = [cost] if cost is not None else [c for k in range(1, seat.resource_total + 1)
                                                    for c in submultisets(seat.resources, k)]
            moves += [AnswerBuild(name, b.number, resource_names(pay)) for pay in pays]
    if seat.holds("gather"):
        moves += _gathers(state, name)
    if seat.holds("give"):
        moves += _gives(state, i)
    if seat.holds("reveal"):
        cards = [s for s in SYMBOLS if seat.holds(s)] + [b.number for b in seat.buildings if not b.face_up]
        moves += [AnswerReveal(name, tuple(chosen)) for k in range(data()["reveal"] + 1)
                  for chosen in itertools.combinations(cards, k)]
    return moves


def _gathers(state: State, name: str) -> list[Move]:
    """The draws that could come off the deck, one per different outcome (the order matters only
    when the deck runs out between the two cards)."""
    count = min(data()["gather"], state.resource_deck.size + sum(state.resource_discard))
    outcomes: dict = {}
    for drawn in itertools.product(RESOURCES, repeat=count):
        move = AnswerGather(name, drawn)
        try:
            after = apply(state, move)
        except ValueError:
            continue
        outcomes.setdefault((after.resource_deck, after.resource_discard), move)
    return list(outcomes.values())


def _gives(state: State, i: int) -> list[Move]:
    """Up to three supply cards, split between the other players in every way."""
    name, seat = state.players[i], state.seats[i]
    others = [p for j, p in enumerate(state.players) if j != i]
    items = list(resource_names(seat.resources)) + [b.number for b in seat.buildings]
    moves = {}
    for k in range(data()["give"] + 1):
        for chosen in set(itertools.combinations(items, k)):
            for owners in itertools.product(others, repeat=k):
                gifts: dict[str, list] = {}
                for card, who in zip(chosen, owners):
                    gifts.setdefault(who, []).append(card)
                move = AnswerGive(name, tuple((who, tuple(gifts[who])) for who in others if who in gifts))
                moves.setdefault(move.to_text(), move)
    return list(moves.values())


def _discards(state: State, i: int) -> list[Move]:
    owed = state.discards[i]
    if not owed:
        return []
    return [Discard(state.players[i], resource_names(c)) for c in submultisets(state.seats[i].resources, owed)]


def submultisets(counts, size: int):
    """Every way to take ``size`` cards from piles of ``counts`` cards, as counts."""
    if not counts:
        if size == 0:
            yield ()
        return
    for take in range(min(counts[0], size) + 1):
        for rest in submultisets(counts[1:], size - take):
            yield (take,) + rest
