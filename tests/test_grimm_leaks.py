"""The generic leak checker on The Grimm Forest: no seat and no table screen sees another seat's collection
card, or whether a Fable lies on it, before the reveal (views, log, stream, legal moves, history)."""

from __future__ import annotations

import pytest

from companion.games import grimm
from tests.leakcheck import LeakFound, check_game_night, check_views

PLAYERS = {2: ["Anne", "Paul"], 3: ["Anne", "Paul", "Rachel"], 4: ["Anne", "Paul", "Rachel", "Tom"]}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_view_can_tell_apart_what_its_viewer_may_not_see(players):
    assert check_views(grimm.GAME, PLAYERS[players], games_played=3, seed=21 + players) > 0


@pytest.mark.parametrize("players", [2, 4])
def test_nothing_sent_to_a_phone_or_the_table_shows_another_seats_pick_before_the_reveal(players):
    assert check_game_night(grimm.GAME, PLAYERS[players], seed=31 + players, moves=60) > 0


def test_a_view_that_showed_the_picks_would_be_caught():
    class LeakyPicks(type(grimm.GAME)):
        def player_view(self, state, viewer):
            return {**super().player_view(state, viewer), "picks": [s.pick for s in state.seats]}

    with pytest.raises(LeakFound, match="can tell apart"):
        check_views(LeakyPicks(), PLAYERS[3], games_played=2, seed=41)


def test_a_log_that_named_a_pick_would_be_caught():
    class LoudPicks(type(grimm.GAME)):
        NAME = "grimm_loud"  # played through the runtime as a game of its own

        def public_text(self, move, after, now):
            return None

    with pytest.raises(LeakFound, match="secret move 'gather "):
        check_game_night(LoudPicks(), PLAYERS[3], seed=42, moves=30)
