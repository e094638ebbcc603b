"""The generic leak checker on Bable: no seat and no table screen sees another seat's hand, face-down
buildings or drawn cards, in the views, the log, the stream, the legal moves or the history."""

from __future__ import annotations

import random

import pytest

from companion.games import bable
from tests.bable_table import FACTS, dealt, play
from tests.leakcheck import LeakFound, check_game_night, check_views

PLAYERS = ["Anne", "Paul", "Rachel"]


@pytest.mark.parametrize("advanced", [False, True], ids=["basic", "advanced"])
@pytest.mark.parametrize("facts", [True, False], ids=["facts", "no-facts"])
def test_no_view_can_tell_apart_what_its_viewer_may_not_see(advanced, facts):
    options = {"advanced": "yes" if advanced else "no", **({"cards": FACTS} if facts else {})}
    assert check_views(bable.GAME, PLAYERS, options, games_played=4, seed=11) > 0


@pytest.mark.parametrize("advanced", [False, True], ids=["basic", "advanced"])
def test_nothing_sent_to_a_phone_or_the_table_shows_another_seats_secret_move(advanced):
    options = {"cards": FACTS, "advanced": "yes" if advanced else "no"}
    assert check_game_night(bable.GAME, PLAYERS, options, seed=12, moves=70) > 0


def test_a_bable_view_that_showed_the_hands_would_be_caught():
    class LeakyHands(type(bable.GAME)):
        def player_view(self, state, viewer):
            return {**super().player_view(state, viewer), "hands": [seat.hand for seat in state.seats]}

    with pytest.raises(LeakFound, match="can tell apart"):
        check_views(LeakyHands(), PLAYERS, {"cards": FACTS}, games_played=2, seed=13)


def test_a_bable_log_that_named_a_drawn_card_would_be_caught():
    class LoudDraws(type(bable.GAME)):
        NAME = "bable_loud"  # played through the runtime as a game of its own

        def public_text(self, move, after, now):
            return None  # every move's own text for everyone: the Idea cards drawn too

    with pytest.raises(LeakFound, match="secret move '(deal|idea) "):
        check_game_night(LoudDraws(), PLAYERS, {"cards": FACTS}, seed=14, moves=30)


def test_the_legal_moves_never_list_a_card_draw():
    # Which Building cards a draw could name would tell who holds which face down.
    state = dealt(tuple(PLAYERS))
    assert bable.GAME.legal_moves(bable.setup(PLAYERS)) is None
    state = play(state, "reveal Anne word build", "reveal Anne word give")
    assert bable.GAME.legal_moves(state) is None and state.phase == "idea"
    rng = random.Random(3)
    assert bable.GAME.random_chance(state, rng).to_text().startswith("idea Anne ")
