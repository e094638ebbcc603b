"""Fandooble's exact odds against the rulebook by hand and against the engine itself, roll by roll."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from fractions import Fraction

import pytest

from companion.games import fandooble as g
from companion.games.fandooble.odds import odds


def brute_force(state: g.State) -> tuple[Fraction, Fraction, Fraction]:
    """Throw every face of every die (each face of a die equally likely) through the engine itself."""
    roller = state.current
    before = state.stashes[roller] + state.loot
    dragon_faces, special_faces = state.dice.dragon, state.dice.special
    throws = list(itertools.product(*[dragon_faces] * state.dragon_dice_to_throw(), special_faces))
    p = Fraction(1, len(throws))
    bust = wipe = gain = Fraction(0)
    for faces in throws:
        after = g.apply(state, g.Roll("".join(faces)))
        if after.last_event in ("bust", "wipe"):
            bust += p
        if after.last_event == "wipe":
            wipe += p
        while after.pending_steals:  # every choice of victim brings exactly one coin
            after = g.apply(after, g.legal_moves(after)[0])
        loot = after.loot if after.current == roller and after.rolls_this_turn else 0
        gain += p * (after.stashes[roller] + loot - before)
    return bust, wipe, gain


def test_first_roll_of_default_dice_matches_the_count_by_hand():
    # Bust: all three dice dragons and the special die counters none of them:
    # any 3 dragons with a Fandooble (8/81), RRR with a knight (1/81), GGG with a wizard (1/81).
    result = odds(g.setup(["Lola", "Grace"]))
    assert result.bust == Fraction(10, 81)
    assert result.wipe == Fraction(2, 81)  # RRR with a Fandooble or a knight
    # No loot yet: the roll's coins are what it brings, and a wipe costs Lola's stash of 10.
    brought = Fraction(0)
    for faces in itertools.product("CCGGRR", "CCGGRR", "CCGGRR", "FFKKWW"):
        after = g.apply(g.setup(["Lola", "Grace"]), g.Roll("".join(faces)))
        brought += Fraction(after.loot, 6 ** 4)
    assert result.expected_gain == brought - result.wipe * 10


def test_two_green_dragons_held_bust_one_roll_in_three():
    state = g.apply(g.setup(["Lola", "Grace"]), g.parse_move("roll GGCF"))
    assert state.dragons == "GG"
    # One die and the special die: G without a knight or R with a Fandooble busts.
    assert odds(state).bust == Fraction(1, 3)
    assert odds(state).wipe == 0
    # Loot 2 (chest + Fandooble steal) is at stake.
    assert odds(state).expected_gain == brute_force(state)[2]
    assert odds(state).expected_gain < 0


def test_wipe_costs_the_stash_too():
    state = g.apply(g.setup(["Lola", "Grace"]), g.parse_move("roll RRCF"))
    result = odds(state)
    assert result.wipe > 0
    rich = replace(state, stashes=(50, state.stashes[1]), pile=state.pile - 40)
    # Same dice, same loot: only the stash differs, so only the wipe term moves.
    assert odds(rich).bust == result.bust
    assert result.expected_gain - odds(rich).expected_gain == result.wipe * 40


def test_chests_pay_only_what_the_pile_holds():
    state = g.setup(["Lola", "Grace"])
    empty_pile = replace(state, pile=1, stashes=(state.stashes[0], state.stashes[1] + state.pile - 1))
    assert odds(empty_pile).expected_gain < odds(state).expected_gain
    assert odds(empty_pile).expected_gain == brute_force(empty_pile)[2]


def test_fandooble_steal_is_lost_when_no_opponent_has_coins():
    state = g.setup(["Lola", "Grace"])
    poor = replace(state, stashes=(state.stashes[0], 0), pile=state.pile + state.stashes[1])
    throws = list(itertools.product(*[state.dice.dragon] * 3, state.dice.special))
    fandooble_pays = sum(
        (Fraction(1, len(throws)) for f in throws
         if "F" in f and g.apply(state, g.Roll("".join(f))).last_event not in ("bust", "wipe")),
        Fraction(0),
    )
    # The only difference: a Fandooble on a roll that does not bust brings a coin, or nothing.
    assert odds(state).expected_gain - odds(poor).expected_gain == fandooble_pays
    assert odds(poor).expected_gain == brute_force(poor)[2]


def test_pending_steal_counts_as_a_coin():
    state = g.setup(["Lola", "Grace", "Anne"])
    assert len(state.opponents_with_coins()) == 2
    assert odds(state).expected_gain == brute_force(state)[2]


@pytest.mark.parametrize("faces", ["CCGGRR/FFKKWW", "CCCGGR/FFFKKW", "CGR/KW", "CCCCGR/FKW", "GGRRRR/KWWWWW"])
def test_odds_equal_the_engine_on_every_state_of_random_games(faces):
    rng = random.Random(faces)
    checked = 0
    for game in range(6):
        state = g.setup(["Lola", "Grace", "Anne"][: 2 + game % 2], {"faces": faces})
        for _ in range(40):
            if state.over:
                break
            if not state.pending_steals:
                assert (odds(state).bust, odds(state).wipe, odds(state).expected_gain) == brute_force(state)
                checked += 1
            else:
                assert odds(state) is None
            moves = g.legal_moves(state)
            bank = [m for m in moves if isinstance(m, g.Bank)]
            move = bank[0] if bank and rng.random() < 0.3 else (
                g.random_chance(state, rng) if not state.pending_steals else rng.choice(moves))
            state = g.apply(state, move)
    assert checked > 100


def test_json_state_carries_the_odds_next_to_the_faces():
    state = g.apply(g.setup(["Lola", "Grace"]), g.parse_move("roll GGCF"))
    shown = g.to_json(state)
    assert shown["odds"] == {"bust": pytest.approx(1 / 3, abs=1e-6), "wipe": 0.0,
                             "expected_gain": pytest.approx(float(odds(state).expected_gain), abs=1e-6)}
    assert shown["faces"]["dragon"] == {"C": 2, "G": 2, "R": 2}


def test_no_odds_while_a_steal_waits_or_after_the_game():
    state = g.apply(g.setup(["Lola", "Grace", "Anne"]), g.parse_move("roll CCCF"))
    assert state.pending_steals == 1
    assert g.to_json(state)["odds"] is None
    over = replace(g.setup(["Lola", "Grace"]), over=True)
    assert odds(over) is None
