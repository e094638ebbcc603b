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


@pytest.mark.parametrize("name", games.names())
def test_every_option_of_every_game_says_what_it_does_and_is_understood_by_its_setup(name):
    # The Setup page lists a game's options under the box they are typed in: each says what it does (with its
    # default, or who fills it in), and an option named there is one setup knows.
    game = games.get(name)
    assert game.OPTIONS, f"{name} has no options to list"
    for option, help in game.OPTIONS.items():
        assert len(help.split()) >= 4 and ("default" in help or "fill this in" in help or "fills this in" in help), (option, help)
    with pytest.raises(games.SetupError, match="has no option"):
        game.setup(["Anne", "Paul"], {"colour": "blue"})


def test_the_four_games_are_discovered():
    assert {"bable", "fable", "fandooble", "grimm"} <= set(games.names())
