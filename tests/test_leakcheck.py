"""The leak checker on every game the companion ships, on a toy game with secrets, and its must-fail twins."""

from __future__ import annotations

import random

import pytest

from companion import games
from companion.games.fable import random_deal
from tests.leakcheck import LeakFound, check_game_night, check_views
from tests.toygame import TOY, LeakyLog, LeakyView

SHIPPED = [("fable", ["Anne", "Paul", "Rachel"]), ("fandooble", ["Lola", "Grace", "Ben"])]


@pytest.mark.parametrize(("name", "players"), SHIPPED, ids=[n for n, _ in SHIPPED])
def test_no_seat_and_no_table_screen_sees_what_another_seat_may_not(name, players):
    game = games.get(name)
    # Fabled Fruit with every dealt fruit named, so the hands' kinds are known and private.
    options = {"deal": random_deal(players, random.Random(7))} if name == "fable" else None
    differed = check_views(game, players, options, games_played=6, seed=1)
    if name == "fable":
        assert differed > 0  # other hands' fruit kinds are private: the check varied them
    check_game_night(game, players, options, seed=2, moves=60)


def test_the_toy_games_hands_and_secret_picks_stay_with_their_seat():
    assert check_views(TOY, ["Anne", "Paul", "Rachel"], games_played=10, seed=3) > 0
    assert check_game_night(TOY, ["Anne", "Paul", "Rachel"], seed=4, moves=40) > 0


def test_a_view_that_leaks_a_hand_is_caught():
    with pytest.raises(LeakFound, match="can tell apart"):
        check_views(LeakyView(), ["Anne", "Paul"], games_played=3, seed=5)


def test_a_log_that_shows_a_secret_pick_is_caught():
    with pytest.raises(LeakFound, match="secret move '(pick|deal) "):
        check_game_night(LeakyLog(), ["Anne", "Paul", "Rachel"], seed=6, moves=20)
