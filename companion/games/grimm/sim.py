"""Random play of The Grimm Forest: the moves allowed now (for tests, the leak checker and the buttons)
and the table's chance moves (the Prince Regal's die, the mega-resource tokens)."""

from __future__ import annotations

import random

from .moves import Build, Cleanup, Draft, Draw, Fable, FriendGot, FriendUse, Gain, Gather, Prince, Special
from .rules import apply, fullest, outcome, setup, to_act, why_illegal
from .state import RESOURCES, State, data

FRIENDS = tuple(data()["friends"])


def _candidates(state: State, who: str) -> list:
    seat = state.at(who)
    phase = state.phase
    if phase == "collect":
        return [Gather(who, loc, fable) for loc in state.locations for fable in (False, True)]
    if phase == "fables":
        return [Fable(who, loc) for loc in state.locations] + [Fable(who, None, "recorded")]
    if phase == "before":
        here = state.stock_at(seat.pick)
        kinds = [RESOURCES[i] for i in range(3) if here[i]]
        return [FriendUse(who, "pass")] + [FriendUse(who, "take", (a, b)) for a in kinds for b in kinds if a <= b] \
            + [FriendUse(who, "take", (a,)) for a in kinds]
    if phase == "draft":
        return [Draft(who, r) for r in RESOURCES]
    if phase == "after":
        return [FriendUse(who, "frog", (r,), f) for r in RESOURCES for f in FRIENDS[:3]]
    if phase == "construction":
        moves = [Draw(who)] + [Gain(who, r) for r in RESOURCES]
        others = [p for p in state.players if p != who]
        for r in RESOURCES:
            moves.append(Build(who, "floor", r))
            moves += [Build(who, "walls", r, FriendGot(f)) for f in FRIENDS]
            moves.append(Build(who, "walls", r, FriendGot(FRIENDS[0], others[0])))
            moves.append(Build(who, "roof", r))
            moves += [Build(who, "roof", r, None, reward) for reward in ("resources", "fables")]
            moves.append(Build(who, "roof", r, FriendGot("fairy-godmother"), "friend"))
        moves += [Special(who, "fables"), Special(who, "other", text="recorded")]
        moves += [Special(who, "resources", (a, b)) for a in RESOURCES for b in RESOURCES if a <= b]
        return moves
    return []


def legal_moves(state: State) -> list:
    if outcome(state) is not None:
        return []
    return [m for who in to_act(state) for m in _candidates(state, who) if why_illegal(state, m) is None]


def random_chance(state: State, rng: random.Random):
    if outcome(state) is not None:
        return None
    if state.phase == "prince":
        full = fullest(state)
        return Prince(data()["locations"][full]["resource"] if full else rng.choice(RESOURCES))
    if state.phase == "cleanup":
        low, high = state.mega
        return Cleanup(tuple(rng.randint(low, high) for _ in range(3)))
    return None


def random_move(state: State, rng: random.Random, *, builder: float = 0.8):
    """A move for random play that leans to building (``builder``: how often a possible build is taken),
    so random games end in a few dozen rounds."""
    chance = random_chance(state, rng)
    if chance is not None:
        return chance
    moves = legal_moves(state)
    if not moves:
        return None
    builds = [m for m in moves if isinstance(m, Build)]
    if builds and rng.random() < builder:
        return rng.choice(builds)
    if state.phase == "construction" and rng.random() < 0.8:
        gains = [m for m in moves if isinstance(m, Gain)]
        seat = state.at(to_act(state)[0])
        # Gather what the most advanced house needs: random play that ends.
        wanted = max(range(3), key=lambda k: (seat.building[k], -seat.complete[k]))
        pick = [m for m in gains if m.resource == RESOURCES[wanted]]
        if pick:
            return pick[0]
    return rng.choice(moves)


def play_random_game(players, rng: random.Random, options=None, *, max_moves: int = 3000):
    """A whole random game from setup: (final state, moves played)."""
    state = setup(players, options or {})
    played = []
    for _ in range(max_moves):
        if outcome(state) is not None:
            break
        move = random_move(state, rng)
        if move is None:
            break
        state = apply(state, move)
        played.append(move)
    return state, played

