"""Fandooble's rules: the rulebook's worked example, the bust rules, the steals, the end."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import IllegalMove, InvalidMove, SetupError
from companion.games import fandooble as g


def play(state, *moves):
    for text in moves:
        state = g.apply(state, g.parse_move(text))
    return state


def stashes(state):
    return dict(zip(state.players, state.stashes))


def total(state):
    return state.pile + sum(state.stashes) + state.loot


# -- setup ---------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "stash"), [(2, 10), (3, 5), (4, 5), (5, 3), (6, 3)])
def test_setup_deals_the_rulebook_stash_and_the_rest_is_the_pile(players, stash):
    names = [f"P{i}" for i in range(players)]
    state = g.setup(names)
    assert state.stashes == (stash,) * players
    assert state.pile == 80 - stash * players
    assert g.current_player(state) == "P0"


def test_setup_options_change_coins_and_stash():
    state = g.setup(["Lola", "Grace"], {"coins": "40", "stash": "4"})
    assert state.pile == 32 and state.stashes == (4, 4)


@pytest.mark.parametrize(
    ("players", "options", "reason"),
    [
        (["Solo"], {}, "2 to 6 players"),
        ([f"P{i}" for i in range(7)], {}, "2 to 6 players"),
        (["Lola", "lola"], {}, "two players are called"),
        (["Lola", "Grace"], {"coins": "many"}, "whole number"),
        (["Lola", "Grace"], {"coins": "10", "stash": "6"}, "only 10"),
        (["Lola", "Grace"], {"colour": "red"}, "no option colour"),
        (["Lola", "Grace"], {"faces": "CCGGRR"}, "a slash"),
        (["Lola", "Grace"], {"faces": "CCGGRX/FFKKWW"}, "only C, G, R"),
    ],
)
def test_setup_refuses_bad_players_and_options_with_the_reason(players, options, reason):
    with pytest.raises(SetupError, match=reason):
        g.setup(players, options)


# -- the rulebook's worked example -------------------------------------------------


def test_lola_and_grace_play_the_rulebook_example_move_by_move():
    state = g.setup(["Lola", "Grace"])

    # Lola: 2 chests, a green dragon and a Fandooble: 2 from the pile, 1 from Grace.
    state = play(state, "roll CCGF")
    assert (state.loot, state.pile, stashes(state)["Grace"], state.dragons) == (3, 58, 9, "G")
    assert state.dragon_dice_to_throw() == 2  # the green dragon stays on the sideline
    # She rethrows the other three: red, green, knight. The knight takes out a green dragon.
    state = play(state, "roll RGK")
    assert state.dragons == "GR" and state.player == "Lola"
    assert state.dragon_dice_to_throw() == 1  # "could have continued to roll with 2 dice"
    state = play(state, "bank")
    assert stashes(state) == {"Lola": 13, "Grace": 9} and state.player == "Grace"

    # Grace: 3 chests and a Fandooble, the best roll: 3 from the pile and 1 from Lola.
    state = play(state, "roll CCCF")
    assert (state.loot, state.pile, stashes(state)["Lola"]) == (4, 55, 12)
    # All four again: 2 red, 1 green and a wizard, who counters a red dragon.
    state = play(state, "roll RRGW")
    assert state.dragons == "GR" and state.loot == 4
    state = play(state, "bank")
    assert stashes(state) == {"Lola": 12, "Grace": 13} and state.player == "Lola"

    # Lola: 2 green dragons, a chest and a wizard, who does not help against green.
    state = play(state, "roll GGCW")
    assert (state.loot, state.pile, state.dragons) == (1, 54, "GG")
    # Two dice left: a red dragon and a Fandooble. Three dragons, nothing to counter: bust.
    state = play(state, "roll RF")
    assert state.last_event == "bust"
    assert state.pile == 55 and state.loot == 0
    assert stashes(state) == {"Lola": 12, "Grace": 13}  # the Fandooble stole nothing
    assert state.player == "Grace" and state.dragons == ""
    assert total(state) == 80


# -- the three bust rules ------------------------------------------------------------


def test_three_uncountered_dragons_send_the_loot_back_to_the_pile():
    state = play(g.setup(["Lola", "Grace"]), "roll CCCK", "roll GGRK")
    # The knight counters one green: two dragons left, no bust yet.
    assert state.dragons == "GR" and state.loot == 3
    state = play(state, "roll GF")
    assert state.last_event == "bust"
    assert state.pile == 60 and stashes(state) == {"Lola": 10, "Grace": 10}
    assert state.player == "Grace"


def test_three_red_dragons_wipe_the_loot_and_the_stash():
    state = play(g.setup(["Lola", "Grace"]), "roll CCCK", "roll RRRK")
    assert state.last_event == "wipe"
    assert stashes(state) == {"Lola": 0, "Grace": 10}
    assert state.pile == 70 and total(state) == 80
    assert state.player == "Grace"


def test_a_countered_dragon_does_not_bust_and_its_die_is_thrown_again():
    state = play(g.setup(["Lola", "Grace"]), "roll RRRW")
    assert state.last_event == "roll" and state.dragons == "RR"
    assert state.dragon_dice_to_throw() == 1


def test_two_red_and_a_green_bust_without_wiping_the_stash():
    state = play(g.setup(["Lola", "Grace"]), "roll CCCK", "roll RRGF")
    assert state.last_event == "bust"
    assert stashes(state)["Lola"] == 10 and stashes(state)["Grace"] == 10


def test_a_busting_roll_brings_nothing_not_even_its_fandooble():
    state = play(g.setup(["Ann", "Bob", "Cy"]), "roll GGCK")  # knight takes out a green
    state = play(state, "roll GGF")  # now three dragons: G, G, G
    assert state.last_event == "bust" and state.pending_steals == 0
    assert stashes(state) == {"Ann": 5, "Bob": 5, "Cy": 5}


def test_wizard_and_knight_only_counter_their_own_colour():
    state = play(g.setup(["Lola", "Grace"]), "roll RRCK")
    assert state.dragons == "RR"  # the knight found no green dragon to take out
    state = play(state, "roll GW")  # wizard takes out one red; G + R remain
    assert state.dragons == "GR" and state.last_event == "roll"


# -- steals --------------------------------------------------------------------------


def test_with_several_opponents_holding_coins_the_roller_chooses_whom_to_steal_from():
    state = play(g.setup(["Ann", "Bob", "Cy"]), "roll CGRF")
    assert state.pending_steals == 1 and state.loot == 1
    assert g.legal_moves(state) == [g.Steal("Bob"), g.Steal("Cy")]
    with pytest.raises(IllegalMove, match="must first choose whom"):
        g.apply(state, g.parse_move("roll CCF"))
    with pytest.raises(IllegalMove, match="must first choose whom"):
        g.apply(state, g.parse_move("bank"))
    state = play(state, "steal Cy")
    assert stashes(state) == {"Ann": 5, "Bob": 5, "Cy": 4} and state.loot == 2
    assert state.pending_steals == 0


def test_the_steal_is_automatic_when_only_one_opponent_has_coins():
    state = g.setup(["Ann", "Bob", "Cy"])
    state = play(state, "roll CCCK", "bank")  # Ann 8
    state = play(state, "roll CCCK", "roll RRRK")  # Bob is wiped out
    assert stashes(state)["Bob"] == 0 and state.player == "Cy"
    state = play(state, "roll CCCF")
    assert state.pending_steals == 0
    assert stashes(state) == {"Ann": 7, "Bob": 0, "Cy": 5} and state.loot == 4


def test_the_steal_is_lost_when_no_opponent_has_coins():
    state = g.setup(["Ann", "Bob"], {"stash": "0", "coins": "20"})
    state = play(state, "roll CCCF")
    assert state.loot == 3 and state.pending_steals == 0 and stashes(state)["Bob"] == 0


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("steal Ann", "cannot steal from their own stash"),
        ("steal Dora", "nobody called 'Dora'"),
    ],
)
def test_illegal_steals_name_the_reason(move, reason):
    state = play(g.setup(["Ann", "Bob", "Cy"]), "roll CGRF")
    with pytest.raises(IllegalMove, match=reason):
        g.apply(state, g.parse_move(move))


def test_stealing_from_an_empty_stash_is_refused():
    state = replace(g.setup(["Ann", "Bob", "Cy", "Dee"]), stashes=(5, 0, 5, 5), pile=65)
    state = play(state, "roll CCCF")
    assert state.pending_steals == 1  # Cy and Dee both have coins
    with pytest.raises(IllegalMove, match="Bob has no coins in their stash"):
        g.apply(state, g.parse_move("steal Bob"))


def test_steal_with_nothing_pending_is_refused():
    with pytest.raises(IllegalMove, match="no Fandooble is waiting"):
        g.apply(g.setup(["Ann", "Bob"]), g.parse_move("steal Bob"))


# -- rolls and banking -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("moves", "bad", "reason"),
    [
        ([], "roll CCGFF", "shows 2 of its faces"),
        ([], "roll CCG", "shows 0 of its faces"),
        ([], "roll CCF", "throws 3 Dragon/Treasure dice"),
        (["roll CCGF"], "roll CCCF", r"throws 2 Dragon/Treasure dice \(green dragon stays on the table\)"),
        (["roll GRCF"], "roll CCF", r"throws 1 Dragon/Treasure die \(green dragon and red dragon stay on the table\)"),
    ],
)
def test_a_roll_with_the_wrong_dice_is_illegal_with_the_reason(moves, bad, reason):
    state = play(g.setup(["Lola", "Grace"]), *moves)
    with pytest.raises(IllegalMove, match=reason):
        g.apply(state, g.parse_move(bad))


def test_bank_before_rolling_is_illegal():
    with pytest.raises(IllegalMove, match="has not rolled yet"):
        g.apply(g.setup(["Lola", "Grace"]), g.Bank())


def test_chests_take_no_more_than_the_pile_holds():
    state = g.setup(["Ann", "Bob"], {"coins": "22", "stash": "10"})
    state = play(state, "roll CCCK")
    assert state.pile == 0 and state.loot == 2


def test_dice_configured_without_a_face_refuse_rolls_showing_it():
    state = g.setup(["Ann", "Bob"], {"faces": "CCCGGR/FFFKKK"})
    with pytest.raises(IllegalMove, match="no wizard face"):
        g.apply(state, g.parse_move("roll CCCW"))


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "empty move"), ("dance", "not a Fandooble move"), ("roll", "which faces"), ("roll CCXF", "'X' is not a face"),
     ("steal", "from whom"), ("bank Lola now", "at most the banker")],
)
def test_unreadable_moves_say_why(text, reason):
    with pytest.raises(InvalidMove, match=reason):
        g.parse_move(text)


def test_move_text_round_trips_in_the_logs_order():
    assert g.parse_move("roll fgcc").to_text() == "roll CCGF"
    assert g.parse_move("steal Grace").to_text() == "steal Grace"
    assert g.parse_move("bank") == g.Bank()


# -- the end ---------------------------------------------------------------------------


def test_the_game_ends_when_the_pile_is_empty_at_the_end_of_a_turn_and_most_gold_wins():
    state = g.setup(["Ann", "Bob"], {"coins": "23", "stash": "10"})
    state = play(state, "roll CCCK")  # the pile is empty now, but the turn goes on
    assert not state.over and g.outcome(state) is None
    state = play(state, "roll CCCK", "bank")
    assert state.over
    assert g.outcome(state).winners == ("Ann",)
    assert g.current_player(state) is None
    with pytest.raises(IllegalMove, match="the game is over: Ann won"):
        g.apply(state, g.parse_move("roll CCCK"))
    assert g.legal_moves(state) == []


def test_a_bust_that_refills_the_pile_keeps_the_game_going():
    state = g.setup(["Ann", "Bob"], {"coins": "23", "stash": "10"})
    state = play(state, "roll CCCK", "roll GGGF")
    assert state.last_event == "bust" and state.pile == 3 and not state.over


def test_most_gold_wins_and_tied_players_share_the_victory():
    single = play(g.setup(["Ann", "Bob", "Cy"], {"coins": "16", "stash": "5"}), "roll CGRK", "bank")
    assert single.over and g.outcome(single).winners == ("Ann",)
    tie = g.setup(["Ann", "Bob"], {"coins": "22", "stash": "10"})
    tie = play(tie, "roll CGRK", "bank")
    assert not tie.over  # one coin is still in the pile
    tie = play(tie, "roll CGRK", "bank")
    assert tie.over and tie.stashes == (11, 11)
    assert g.outcome(tie).winners == ("Ann", "Bob")


# -- enumeration and simulation ----------------------------------------------------------


def test_legal_moves_list_every_distinct_roll_and_bank_once_rolled():
    start = g.setup(["Ann", "Bob"])
    # 3 dragon dice with 3 kinds: 10 multisets, times 3 special faces.
    assert len(g.legal_moves(start)) == 30
    after = play(start, "roll CCGF")
    rolls = [m for m in g.legal_moves(after) if isinstance(m, g.Roll)]
    assert len(rolls) == 6 * 3 and g.Bank() in g.legal_moves(after)


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6))
def test_random_games_conserve_coins_and_only_make_legal_moves(seed, players):
    rng = random.Random(seed)
    state = g.setup([f"P{i}" for i in range(players)])
    for _ in range(400):
        if state.over:
            break
        moves = g.legal_moves(state)
        assert moves
        if state.pending_steals:
            move = rng.choice(moves)
        elif state.rolls_this_turn and rng.random() < 0.4:
            move = g.Bank()
        else:
            move = g.random_chance(state, rng)
        assert g.why_illegal(state, move) is None
        state = g.apply(state, move)
        assert total(state) == 80
        assert all(s >= 0 for s in state.stashes) and state.pile >= 0
        assert len(state.dragons) < 3
