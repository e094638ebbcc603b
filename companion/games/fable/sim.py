"""Listing and sampling moves: ``legal_moves`` where the choices can be listed, and random play for simulation.

Chance in Fabled Fruit is part of the moves that meet it: the fruits an action draws are
named in the action, and the location card drawn after a juice is the deck's top card
(the deck is never shuffled, so the companion knows it). ``random_chance`` gives that
draw; ``random_move`` samples a whole legal move, fruit draws included, for simulations.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Iterable

from .fruits import FruitList, Fruits, data
from .moves import Action, Buy, Clause, Draw, Move, MoveAnimal, Pass, Payment
from .rules import apply, setup, why_illegal
from .state import DRAW, MOVE, State

UNKNOWN = "?"


def _symbols(state: State, zone: Fruits) -> list[str]:
    """The fruits of a zone as a list of kind names, ``?`` for each of unknown kind."""
    out: list[str] = []
    for kind, n in zip(state.kinds, zone.known):
        out.extend([kind] * n)
    out.extend([UNKNOWN] * zone.unknown)
    return out


def _listed(symbols: Iterable[str]) -> FruitList:
    counts = Counter(symbols)
    unknown = counts.pop(UNKNOWN, 0)
    return FruitList.of(dict(counts), unknown)


def _submultisets(symbols: list[str], size: int) -> list[FruitList]:
    return [_listed(combo) for combo in sorted(set(itertools.combinations(sorted(symbols), size)))]


def _draws(state: State, size: int) -> list[FruitList]:
    """Every fruit list a draw of ``size`` from the fruit stack can show (the discards reshuffled when it runs out)."""
    pile = _symbols(state, state.pile)
    if size <= len(pile):
        return _submultisets(pile, size)
    return [_listed(pile + list(_flatten(rest))) for rest in _submultisets(_symbols(state, state.discard), size - len(pile))]


def _flatten(listed: FruitList) -> list[str]:
    return [k for k, n in listed.kinds for _ in range(n)] + [UNKNOWN] * listed.unknown


# -- listing -------------------------------------------------------------------------------------


def legal_moves(state: State) -> list[Move] | None:
    """Every move allowed now, or None when a choice is free-form (an action or a price the
    companion does not know yet: the players enter what happened)."""
    if state.over:
        return []
    if state.phase == DRAW:
        top = state.deck[0]
        return [Draw(top.number, top.copy)]
    if state.phase == MOVE:
        if not state.destinations():
            return [Pass(state.player)]
        return [m for n in state.destinations() for m in _moves_to(state, n)]
    return _act_moves(state)


def _moves_to(state: State, number: int) -> list[Move]:
    who = state.player
    occupants = state.occupants(number)
    hand = state.hands[state.current]
    due = min(hand.total, len(occupants))
    if due == 0:
        return [MoveAnimal(number, who)]
    symbols = sorted(set(_symbols(state, hand)))
    if symbols == [UNKNOWN] and due == len(occupants):
        return [MoveAnimal(number, who)]
    moves = []
    for seats in itertools.combinations(occupants, due):
        for kinds in itertools.product(symbols, repeat=due):
            fees = tuple(Payment(state.players[s], None if k == UNKNOWN else k) for s, k in zip(seats, kinds))
            move = MoveAnimal(number, who, fees)
            if why_illegal(state, move) is None:
                moves.append(move)
    return moves


def _act_moves(state: State) -> list[Move] | None:
    here = state.animals[state.current]
    location = state.table[here]
    who = state.player
    moves: list[Move] = []
    price = location.price
    if price is None or price.special is not None:
        return None
    hand = state.hands[state.current]
    symbols = _symbols(state, hand)
    if not any(hand.known):
        buy = Buy(here, None, who)
        if why_illegal(state, buy) is None:
            moves.append(buy)
    elif len(symbols) >= price.total:
        for pay in _submultisets(symbols, price.total):
            buy = Buy(here, None, who, pay)
            if why_illegal(state, buy) is None:
                moves.append(buy)
    actions = _actions(state, location.rule)
    if actions is None:
        return None
    return moves + actions


def _actions(state: State, rule: str | None) -> list[Move] | None:
    who = state.player
    available = state.pile.total + state.discard.total
    others = [i for i in range(len(state.players)) if i != state.current]
    if rule == "draw2":
        return [Action((Clause("draw", d),), who) for d in _draws(state, min(2, available))]
    if rule == "banana_for_two":
        found = []
        for i in others:
            name = state.players[i]
            after = state.hands[i].plus(Fruits(tuple(int(k == "banana") for k in state.kinds), 0))
            for back in _submultisets(_symbols(state, after), min(2, after.total)):
                found.append(Action((Clause("give", FruitList((("banana", 1),)), name), Clause("take", back, name)), who))
        for d in _draws(state, min(1, available)):
            found.append(Action((Clause("draw", d),), who))
        return [a for a in found if why_illegal(state, a) is None]
    if rule == "draw_and_swap3":
        holders = [i for i in others if state.hands[i].total >= 3]
        if not holders:
            return None
        found = []
        for d in _draws(state, min(1, available)):
            for i in holders:
                name = state.players[i]
                for took in _submultisets(_symbols(state, state.hands[i]), 3):
                    mine = _symbols(state, state.hands[state.current]) + _flatten(d) + _flatten(took)
                    for back in _submultisets(mine, 3):
                        found.append(Action((Clause("draw", d), Clause("take", took, name), Clause("give", back, name)), who))
        return found
    return None


# -- sampling ----------------------------------------------------------------------------------------


def random_chance(state: State, rng: random.Random) -> Draw | None:
    """The chance move due now: after a juice, the deck's top card (known: the deck is never shuffled)."""
    if state.phase != DRAW:
        return None
    top = state.deck[0]
    return Draw(top.number, top.copy)


def _sample(state: State, zone: Fruits, size: int, rng: random.Random, *, avoid: str | None = None) -> FruitList:
    symbols = _symbols(state, zone)
    if avoid is not None:
        # fruits other than ``avoid`` first, then ``avoid`` only when nothing else is left
        preferred = [s for s in symbols if s != avoid]
        rng.shuffle(preferred)
        rest = [s for s in symbols if s == avoid]
        return _listed((preferred + rest)[:size])
    return _listed(rng.sample(symbols, size))


def _sample_draw(state: State, size: int, rng: random.Random) -> FruitList:
    if size <= state.pile.total:
        return _sample(state, state.pile, size, rng)
    rest = _sample(state, state.discard, size - state.pile.total, rng)
    return _listed(_symbols(state, state.pile) + _flatten(rest))


def random_move(state: State, rng: random.Random, *, buy_rate: float = 0.8) -> Move | None:
    """A legal move sampled with ``rng`` (None when the game is over). Prices the companion does not
    know are paid with 4 to 6 fruits, as players would enter them."""
    if state.over:
        return None
    if state.phase == DRAW:
        top = state.deck[0]
        return Draw(top.number, top.copy) if rng.random() < 0.5 else Draw()
    who = state.player
    if state.phase == MOVE:
        destinations = state.destinations()
        if not destinations:
            return Pass(who)
        number = rng.choice(destinations)
        occupants = state.occupants(number)
        hand = state.hands[state.current]
        seats = occupants if hand.total >= len(occupants) else rng.sample(occupants, hand.total)
        given = rng.sample(_symbols(state, hand), len(seats))
        if all(g == UNKNOWN for g in given) and len(seats) == len(occupants) and rng.random() < 0.5:
            return MoveAnimal(number, who)
        return MoveAnimal(number, who, tuple(
            Payment(state.players[s], None if g == UNKNOWN else g) for s, g in zip(seats, given)
        ))
    for candidate in _act_candidates(state, rng, buy_rate):
        if why_illegal(state, candidate) is None:
            return candidate
    return Action((), who)  # an unknown action with nothing entered is always allowed


def _act_candidates(state: State, rng: random.Random, buy_rate: float) -> Iterable[Move]:
    here = state.animals[state.current]
    location = state.table[here]
    who = state.player
    hand = state.hands[state.current]
    if rng.random() < buy_rate:
        yield from _buys(state, rng, here, hand)
    rule = location.rule
    available = state.pile.total + state.discard.total
    others = [i for i in range(len(state.players)) if i != state.current]
    if rule == "draw2":
        yield Action((Clause("draw", _sample_draw(state, min(2, available), rng)),), who)
    elif rule == "banana_for_two":
        other = rng.choice(others)
        after = state.hands[other].plus(Fruits(tuple(int(k == "banana") for k in state.kinds), 0))
        back = _sample(state, after, min(2, after.total), rng, avoid="banana")
        name = state.players[other]
        yield Action((Clause("give", FruitList((("banana", 1),)), name), Clause("take", back, name)), who)
        yield Action((Clause("draw", _sample_draw(state, min(1, available), rng)),), who)
    elif rule == "draw_and_swap3":
        holders = [i for i in others if state.hands[i].total >= 3]
        drawn = _sample_draw(state, min(1, available), rng)
        if holders:
            other = rng.choice(holders)
            took = _sample(state, state.hands[other], 3, rng)
            mine = hand.plus(_fruits(state, drawn)).plus(_fruits(state, took))
            back = _sample(state, mine, 3, rng)
            name = state.players[other]
            yield Action((Clause("draw", drawn), Clause("take", took, name), Clause("give", back, name)), who)
        yield Action((Clause("draw", drawn),), who)
    yield from _free_actions(state, rng, others, available)


def _fruits(state: State, listed: FruitList) -> Fruits:
    counts = dict(listed.kinds)
    return Fruits(tuple(counts.get(k, 0) for k in state.kinds), listed.unknown)


def _buys(state: State, rng: random.Random, here: int, hand: Fruits) -> Iterable[Move]:
    who = state.player
    price = state.table[here].price
    symbols = _symbols(state, hand)
    if price is None or price.special is not None:
        if len(symbols) >= 4:
            yield Buy(here, None, who, _listed(rng.sample(symbols, rng.randint(4, min(6, len(symbols))))))
        return
    if not any(hand.known):
        yield Buy(here, None, who)
        return
    pool = list(symbols)
    paid: list[str] = []
    for kind, n in price.fruits:
        for _ in range(n):
            source = kind if kind in pool else UNKNOWN
            if source not in pool:
                return
            pool.remove(source)
            paid.append(source)
    if len(pool) < price.smoothies:
        return
    paid.extend(rng.sample(pool, price.smoothies))
    yield Buy(here, None, who, _listed(paid))


def _free_actions(state: State, rng: random.Random, others: list[int], available: int) -> Iterable[Move]:
    """What players might enter for an action the companion does not know: mostly draws."""
    who = state.player
    hand = state.hands[state.current]
    clauses = [Clause("draw", _sample_draw(state, min(rng.randint(0, 2), available), rng))]
    roll = rng.random()
    mine = hand.plus(_fruits(state, clauses[0].fruits))
    if roll < 0.15 and mine.total:
        clauses.append(Clause("give", _sample(state, mine, 1, rng), state.players[rng.choice(others)]))
    elif roll < 0.3:
        other = rng.choice(others)
        if state.hands[other].total:
            clauses.append(Clause("take", _sample(state, state.hands[other], 1, rng), state.players[other]))
    elif roll < 0.4 and mine.total:
        clauses.append(Clause("discard", _sample(state, mine, 1, rng)))
    yield Action(tuple(clauses), who)


def random_deal(players, rng: random.Random) -> str:
    """The ``deal`` option for a game where every fruit's kind is known: the shuffled fruits, two each."""
    fruits = [k["name"] for k in data()["fruits"]["kinds"] for _ in range(k["count"])]
    rng.shuffle(fruits)
    size = data()["hand_size"]
    return "; ".join(
        f"{p}={' '.join(fruits[i * size:(i + 1) * size])}" for i, p in enumerate(players)
    )


def play_random_game(players, rng: random.Random, options: dict | None = None, *, max_moves: int = 20000):
    """Play a whole game with random moves; returns (moves, final state). For tests and benchmarks."""
    state = setup(players, options or {})
    moves = []
    while not state.over:
        if len(moves) >= max_moves:
            raise RuntimeError(f"the game did not end within {max_moves} moves")
        move = random_move(state, rng)
        state = apply(state, move)
        moves.append(move)
    return moves, state


__all__ = ["legal_moves", "random_chance", "random_move", "random_deal", "play_random_game"]
