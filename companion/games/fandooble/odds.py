"""Exact odds of Fandooble's next roll: bust, wipe, and what rolling once more is worth.

Every die is fair over its own faces (``State.dice``: e.g. ``CCGGRR`` for a
Dragon/Treasure die, ``FFKKWW`` for the Fandooble die), so the next roll's
outcomes and their probabilities can be listed completely: at most 3 Dragon/Treasure
dice with 3 kinds of face and one special die, 30 multisets of faces. The sums
are done in exact fractions and cached by the few features of the state that
matter, so a dashboard refresh costs a dictionary lookup.

``expected_gain`` -- the expected change of the player's loot, precisely:

    E[ (loot + stash of the player who rolls, after the roll)
       - (loot + stash of that player, before the roll) ]

over the next roll, where

* a chest adds one coin, but never more chests pay than coins left in the Dragon's pile;
* a Fandooble adds one coin when at least one opponent has a coin: taken at once when only
  one opponent can pay, and counted as well when the player must still choose whom it
  steals from (every such choice ends in exactly one coin); it adds nothing when no
  opponent has a coin (the steal is lost);
* a bust (3 dragons nothing counters) returns the loot to the pile: ``-loot``, and the
  roll's chests and Fandooble bring nothing;
* a wipe (those 3 dragons all red) returns the loot and the stash: ``-(loot + stash)``.

Banking instead changes loot + stash by nothing, so ``expected_gain > 0`` means one more
roll is worth it on average, looking one roll ahead. ``bust`` includes ``wipe`` (a wipe
is a bust that also takes the stash).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from .state import DRAGON_FACES, SPECIAL_FACES, State


@dataclass(frozen=True)
class Odds:
    """Exact probabilities of the next roll and the expected change of loot + stash (see module doc)."""

    bust: Fraction
    wipe: Fraction
    expected_gain: Fraction

    def to_json(self) -> dict:
        return {
            "bust": round(float(self.bust), 6),
            "wipe": round(float(self.wipe), 6),
            "expected_gain": round(float(self.expected_gain), 6),
        }


def odds(state: State) -> Odds | None:
    """The odds of the roll the current player may make now; None when the next move cannot be a roll
    (the game is over, or a Fandooble is still waiting to be told whom it steals from)."""
    if state.over or state.pending_steals:
        return None
    throw = state.dragon_dice_to_throw()
    return _odds(
        state.dragons,
        throw,
        tuple(state.dice.counts("dragon")[f] for f in DRAGON_FACES),
        tuple(state.dice.counts("special")[f] for f in SPECIAL_FACES),
        state.loot,
        state.stashes[state.current],
        # Only whether the pile can pay every chest of this roll matters.
        min(state.pile, throw),
        bool(state.opponents_with_coins()),
    )


def odds_json(state: State) -> dict | None:
    """``{bust, wipe, expected_gain}`` for the JSON state, or None when no roll can come next."""
    result = odds(state)
    return result.to_json() if result else None


@lru_cache(maxsize=4096)
def _odds(held: str, throw: int, dragon_counts: tuple[int, ...], special_counts: tuple[int, ...], loot: int, stash: int,
          pile: int, someone_to_rob: bool) -> Odds:
    dragon_total, special_total = sum(dragon_counts), sum(special_counts)
    bust = wipe = gain = Fraction(0)
    for thrown in itertools.combinations_with_replacement(range(len(DRAGON_FACES)), throw):
        p_thrown = _multiset_probability(thrown, dragon_counts, dragon_total)
        if not p_thrown:
            continue
        for s, special_count in enumerate(special_counts):
            if not special_count:
                continue
            p = p_thrown * Fraction(special_count, special_total)
            faces = "".join(DRAGON_FACES[i] for i in thrown) + SPECIAL_FACES[s]
            outcome = roll_outcome(held, faces)
            if outcome == "wipe":
                wipe += p
                bust += p
                gain -= p * (loot + stash)
            elif outcome == "bust":
                bust += p
                gain -= p * loot
            else:
                won = min(faces.count("C"), pile) + (1 if "F" in faces and someone_to_rob else 0)
                gain += p * won
    return Odds(bust=bust, wipe=wipe, expected_gain=gain)


def _multiset_probability(thrown: tuple[int, ...], counts: tuple[int, ...], total: int) -> Fraction:
    """Probability that independent dice show exactly this multiset of faces (multinomial)."""
    arrangements = math.factorial(len(thrown))
    p = Fraction(1)
    for kind in set(thrown):
        n = thrown.count(kind)
        arrangements //= math.factorial(n)
        p *= Fraction(counts[kind], total) ** n
    return arrangements * p


def roll_outcome(held: str, faces: str) -> str:
    """'bust', 'wipe' or 'roll' for ``faces`` thrown while dragons ``held`` lie on the table.

    A knight takes out one green dragon and a wizard one red, old or new (the engine's rule).
    """
    dragons = list(held + "".join(f for f in faces if f in "GR"))
    if "K" in faces and "G" in dragons:
        dragons.remove("G")
    if "W" in faces and "R" in dragons:
        dragons.remove("R")
    if len(dragons) >= 3:
        return "wipe" if all(d == "R" for d in dragons) else "bust"
    return "roll"
