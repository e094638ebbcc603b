"""Every game the companion discovers plays by the whole Game interface: none leaves a rule to the
base class, whose methods only say that a game must give them."""

from __future__ import annotations

import pytest

from companion import games

REQUIRED = ("setup", "parse_move", "why_illegal", "apply", "outcome", "to_act", "to_json", "player_view")


@pytest.mark.parametrize("name", games.names())
def test_every_discovered_game_gives_every_rule_the_interface_requires(name):
    game = games.get(name)
    missing = [method for method in REQUIRED
               if getattr(type(game), method) is getattr(games.Game, method)]
    assert not missing, f"{name} leaves {', '.join(missing)} to the base class"
    state = game.setup(["Anne", "Paul"])
    assert game.outcome(state) is None and isinstance(game.to_json(state), dict)
    assert isinstance(game.player_view(state, None), dict)


def test_the_four_games_are_discovered():
    assert {"bable", "fable", "fandooble", "grimm"} <= set(games.names())
