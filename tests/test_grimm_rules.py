"""The Grimm Forest's rules as players meet them: the scenario files for two, three and four players
replayed move by move, and the rules a player would notice (sharing with remainders, the Market draft,
monsters, build order and limits, Friends, First Builders, the end and every tie-break)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from companion.errors import IllegalMove, InvalidMove, SetupError
from companion.games import get, grimm

SCENARIOS = Path(__file__).parent / "scenarios"
THREE = ["Anne", "Paul", "Rachel"]
FOUR = ["Anne", "Paul", "Rachel", "Tom"]


def play(state, *texts):
    for text in texts:
        state = grimm.apply(state, grimm.parse_move(text))
    return state


def scenario(name: str, players, until: str | None = None, nth: int = 1):
    """The state after the scenario file's moves (up to the ``nth`` line ``until``, not played)."""
    state = grimm.setup(players)
    for line in (SCENARIOS / name).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line == until:
            nth -= 1
            if not nth:
                return state
        state = play(state, line)
    return state


def res(state, name):
    return dict(zip(grimm.RESOURCES, state.at(name).hand))


def split(state, location):
    return next(sp for sp in state.splits if sp.location == location)


# -- setup --------------------------------------------------------------------------------


def test_setup_by_player_count():
    two, four = grimm.setup(["Anne", "Paul"]), grimm.setup(FOUR)
    assert two.locations == ("fields", "forest", "brickyard") and two.phase == "prince"
    assert four.locations == ("fields", "forest", "brickyard", "market") and four.phase == "collect"
    assert four.stock == ((5, 0, 0), (0, 4, 0), (0, 0, 3), (1, 1, 1))
    assert grimm.GAME.to_act(four) == tuple(FOUR)  # everyone chooses at once
    assert grimm.setup(THREE, {"first": "Paul"}).first == 1
    with pytest.raises(SetupError, match="2 to 4 players"):
        grimm.setup(["Anne"])
    with pytest.raises(SetupError, match="first player must be one of"):
        grimm.setup(THREE, {"first": "Zoe"})
    with pytest.raises(IllegalMove, match="only with four players"):
        play(grimm.setup(THREE), "gather Anne market")
    assert get("grimm") is grimm.GAME and get("fable").NAME == "fable"  # never Fabled Fruit's package


def test_the_rulebooks_quarry_is_the_brickyard():
    assert grimm.parse_move("gather Anne quarry").to_text() == "gather Anne brickyard"
    with pytest.raises(InvalidMove, match="not a location"):
        grimm.parse_move("gather Anne swamp")


# -- the scenario files ------------------------------------------------------------------------


def test_two_players_the_prince_regal_returns_half_and_visits_a_location_above_ten():
    s = scenario("grimm_two_players.txt", ["Anne", "Paul"], until="gather Anne fields")
    assert s.stock_at("forest") == (0, 2, 0)  # 4 wood, half went back
    s = scenario("grimm_two_players.txt", ["Anne", "Paul"], until="build Anne floor straw")
    assert res(s, "Anne")["straw"] == res(s, "Paul")["straw"] == 2 and s.stock_at("fields") == (1, 0, 0)
    before = scenario("grimm_two_players.txt", ["Anne", "Paul"], until="prince brick", nth=2)
    end = scenario("grimm_two_players.txt", ["Anne", "Paul"])
    assert before.stock_at("brickyard") == (0, 0, 12) and before.round == 4
    with pytest.raises(IllegalMove, match="Brickyard holds more than 10 resources"):
        play(before, "prince straw")
    assert end.stock_at("brickyard") == (0, 0, 6) and end.phase == "collect"


def test_two_players_a_monster_blocks_the_fields_and_a_recorded_fable_changes_nothing():
    before = scenario("grimm_two_players.txt", ["Anne", "Paul"], until="fable Anne other Share the Wealth: played at the table")
    after = scenario("grimm_two_players.txt", ["Anne", "Paul"], until="gain Anne straw")
    assert before.phase == "fables" and grimm.GAME.to_act(before) == ("Anne",)  # turn order: Anne first
    assert res(after, "Anne") == res(before, "Anne")  # blocked: nothing collected
    assert split(after, "fields").blocked and after.stock_at("fields") == (2, 0, 0)
    assert res(after, "Paul")["wood"] == res(before, "Paul")["wood"] + 3
    assert any("Share the Wealth" in n for n in after.notes)
    assert after.fable_discard == 2 and after.at("Anne").fables == 1


def test_three_players_sharing_with_remainders_and_the_friends():
    s = scenario("grimm_three_players.txt", THREE, until="build Anne floor straw")
    assert split(s, "fields").took == ((2, 0, 0), (2, 0, 0)) and split(s, "fields").left == (1, 0, 0)
    assert res(s, "Rachel")["wood"] == 4 and s.stock_at("forest") == (0, 0, 0)  # alone: all of it
    # Round 2: the monster on the Brickyard.
    s = scenario("grimm_three_players.txt", THREE, until="gain Paul wood")
    assert s.monsters == ("brickyard",) and split(s, "brickyard").pigs == ("Rachel", "Anne")  # in turn order
    assert s.stock_at("brickyard") == (0, 0, 8) and res(s, "Anne")["brick"] == 0
    # Round 3: Cinderella takes 2 before the split of the 6 left (2 each, none stays).
    s = scenario("grimm_three_players.txt", THREE, until="gain Rachel wood", nth=3)
    assert res(s, "Rachel")["straw"] == 4 and res(s, "Anne")["straw"] == 5 and s.stock_at("fields") == (0, 0, 0)
    # Round 4: the Frog Prince swapped; the Fairy Godmother given to Rachel replaces her Cinderella.
    end = scenario("grimm_three_players.txt", THREE)
    assert end.at("Anne").friend == "wish" and end.at("Rachel").friend == "fairy-godmother"
    assert end.at("Paul").friend is None and end.at("Rachel").fables == 2
    assert "Rachel's Cinderella is discarded" in " ".join(end.notes)
    assert end.round == 5 and end.first == 1  # the First Player token went round: Anne, Paul, Rachel, Anne, Paul


def test_four_players_the_market_is_drafted_one_token_at_a_time_in_turn_order():
    s = scenario("grimm_four_players.txt", FOUR, until="draft Anne brick")
    assert s.phase == "draft" and grimm.GAME.to_act(s) == ("Anne",)
    with pytest.raises(IllegalMove, match="waits for Anne"):
        play(s, "draft Paul wood")
    s = play(s, "draft Anne brick")
    with pytest.raises(IllegalMove, match="Market holds no brick"):
        play(s, "draft Paul brick")
    s = play(s, "draft Paul wood")
    assert s.phase == "construction" and s.stock_at("market") == (1, 0, 0)  # 3 tokens, 2 pigs: 1 stays
    end = scenario("grimm_four_players.txt", FOUR)
    assert end.stock_at("market") == (1, 1, 2)  # 1 brick stayed in round 2, and one of each was added
    r2 = scenario("grimm_four_players.txt", FOUR, until="build Paul floor wood")
    assert split(r2, "market").took == ((1, 0, 0), (1, 0, 0), (0, 1, 0)) and split(r2, "forest").blocked


# -- construction -------------------------------------------------------------------------------


def building(players=THREE, **hands):
    """A game at the construction phase of round 1, each named player holding ``(straw, wood, brick)``."""
    state = play(grimm.setup(players), *(f"gather {p} fields" for p in players))
    seats = tuple(replace(s, hand=hands.get(s.name, (0, 0, 0))) for s in state.seats)
    return replace(state, seats=seats)


def test_houses_are_built_floor_then_walls_then_roof_in_their_own_resource():
    s = building(Anne=(12, 0, 2), Paul=(1, 1, 1))
    with pytest.raises(IllegalMove, match="build its floor first"):
        play(s, "build Anne walls straw friend wish")
    with pytest.raises(IllegalMove, match="needs 2 wood for the floor and has 0"):
        play(s, "build Anne floor wood")
    s = play(s, "build Anne floor straw")
    with pytest.raises(IllegalMove, match="needs its walls next"):
        play(s, "build Anne roof straw reward fables")
    with pytest.raises(IllegalMove, match="already has a straw house under construction"):
        play(s, "build Anne floor straw")
    with pytest.raises(IllegalMove, match="walls draw a Friend card"):
        play(s, "build Anne walls straw")
    s = play(s, "build Anne walls straw friend wish")
    assert s.at("Anne").building == (2, 0, 0) and s.at("Anne").hand == (6, 0, 2) and s.at("Anne").friend == "wish"
    assert grimm.GAME.to_act(s) == ("Paul",)  # two actions, then the next player


def test_at_most_five_houses_under_construction():
    s = building(Anne=(0, 0, 2))
    s = s.with_seat("Anne", building=(1, 1, 0))
    s = play(s, "build Anne floor brick")  # a third type: allowed
    assert s.at("Anne").under_construction == 3
    with pytest.raises(IllegalMove, match="already has a brick house under construction"):
        play(s, "build Anne floor brick")


def test_a_friend_replaces_the_one_held_and_may_be_given_to_another_player():
    s = building(Anne=(4, 0, 0))
    s = s.with_seat("Anne", building=(1, 0, 0), friend="cinderella").with_seat("Paul", friend="wish")
    s = play(s, "build Anne walls straw friend frog-prince to Paul")
    assert s.at("Anne").friend == "cinderella" and s.at("Paul").friend == "frog-prince"
    s = building(Anne=(4, 0, 0))
    s = play(s.with_seat("Anne", building=(1, 0, 0), friend="cinderella"), "build Anne walls straw friend wish")
    assert s.at("Anne").friend == "wish"


def test_the_first_builder_takes_the_token_and_one_reward_later_roofs_none():
    s = building(Anne=(6, 0, 0), Paul=(6, 0, 0))
    s = s.with_seat("Anne", building=(2, 0, 0)).with_seat("Paul", building=(2, 0, 0))
    with pytest.raises(IllegalMove, match="first to finish a straw house"):
        play(s, "build Anne roof straw")
    s = play(s, "build Anne roof straw reward resources")
    assert s.first_builders == ("Anne", None, None) and s.at("Anne").hand == (1, 1, 1) and s.at("Anne").complete == (1, 0, 0)
    s = play(s, "gain Anne wood")
    with pytest.raises(IllegalMove, match="straw First Builder token went to Anne"):
        play(s, "build Paul roof straw reward fables")
    s = play(s, "build Paul roof straw")
    assert s.first_builders == ("Anne", None, None) and s.at("Paul").complete == (1, 0, 0)
    # The other rewards: two Fables, or a Friend (kept or given).
    t = building(Anne=(0, 6, 6)).with_seat("Anne", building=(0, 2, 2))
    t = play(t, "build Anne roof wood reward fables", "build Anne roof brick reward friend evil-queen to Rachel")
    assert t.at("Anne").fables == 2 and t.at("Rachel").friend == "evil-queen"
    assert t.first_builders == (None, "Anne", "Anne")


def test_the_fairy_godmother_special_action_once_a_turn():
    s = building().with_seat("Anne", friend="fairy-godmother", fables=2)
    s = play(s, "special Anne resources wood brick")
    assert s.at("Anne").friend is None and s.at("Anne").fables == 0 and s.at("Anne").hand == (0, 1, 1)
    s = building().with_seat("Anne", friend="fairy-godmother")
    s = play(s, "special Anne fables")
    with pytest.raises(IllegalMove, match="once a turn"):
        play(s, "special Anne fables")
    u = building().with_seat("Anne", friend="cinderella")
    with pytest.raises(IllegalMove, match="Cinderella has no special action"):
        play(u, "special Anne other anything")
    v = play(building().with_seat("Anne", friend="ali-baba"), "special Anne other took a brick from Paul")
    assert "took a brick from Paul" in v.notes[-1] and v.at("Anne").hand == (0, 0, 0)


def test_a_pick_can_be_made_once_and_a_fable_needs_a_fable_in_hand():
    s = grimm.setup(THREE)
    with pytest.raises(IllegalMove, match="holds no Fable card"):
        play(s, "gather Anne fable fields")
    s = play(s, "gather Anne fields")
    with pytest.raises(IllegalMove, match="already chosen a collection card"):
        play(s, "gather Anne forest")


def test_at_most_one_monster_per_location():
    s = grimm.setup(THREE)
    s = replace(s, seats=tuple(replace(x, fables=1) for x in s.seats))
    s = play(s, "gather Anne fable fields", "gather Paul fable forest", "gather Rachel forest")
    s = play(s, "fable Anne monster forest")
    with pytest.raises(IllegalMove, match="already on the Forest"):
        play(s, "fable Paul monster forest")
    s = play(s, "fable Paul monster fields")
    assert s.phase == "construction" and all(sp.blocked for sp in s.splits if sp.pigs)


# -- the end and its tie-breaks -------------------------------------------------------------------


def last_round(**seats):
    """Round 1 construction, each named player with (complete houses, house under construction, hand)."""
    s = building()
    for name, (complete, stage, hand) in seats.items():
        s = s.with_seat(name, complete=complete, building=stage, hand=hand)
    return s


def finish(state, *moves):
    """Play the round's construction moves; the game must not end before the last one."""
    for i, text in enumerate(moves):
        state = play(state, text)
        if i < len(moves) - 1:
            assert grimm.outcome(state) is None, f"the game ended before the end of the construction phase ({text})"
    return state


def test_a_third_house_ends_the_game_only_at_the_end_of_the_construction_phase():
    s = last_round(Anne=((2, 0, 0), (0, 2, 0), (0, 6, 0)))
    s = finish(s, "build Anne roof wood reward resources", "gain Anne straw", "gain Paul straw", "gain Paul straw",
               "gain Rachel straw", "gain Rachel brick")
    assert grimm.outcome(s).winners == ("Anne",) and "completed 3 houses" in grimm.outcome(s).reason
    assert grimm.GAME.to_act(s) == () and s.phase == "construction"


def test_tie_break_most_brick_houses():
    s = last_round(Anne=((1, 1, 0), (0, 0, 2), (0, 0, 6)), Paul=((0, 1, 1), (0, 0, 2), (0, 0, 6)))
    s = finish(s, "build Anne roof brick reward fables", "gain Anne straw", "build Paul roof brick", "gain Paul wood",
               "gain Rachel straw", "gain Rachel straw")
    out = grimm.outcome(s)
    assert out.winners == ("Paul",) and "most brick houses (2)" in out.reason


def test_tie_break_most_wood_houses():
    s = last_round(Anne=((1, 1, 0), (0, 0, 2), (0, 0, 6)), Paul=((2, 0, 0), (0, 0, 2), (0, 0, 6)))
    s = finish(s, "build Anne roof brick reward fables", "gain Anne straw", "build Paul roof brick", "gain Paul wood",
               "gain Rachel straw", "gain Rachel straw")
    out = grimm.outcome(s)
    assert out.winners == ("Anne",) and "most wood houses (1)" in out.reason


def test_tie_break_the_brick_first_builder_token():
    s = last_round(Anne=((1, 1, 0), (0, 0, 2), (0, 0, 6)), Paul=((1, 1, 0), (0, 0, 2), (0, 0, 6)))
    s = finish(s, "gain Anne straw", "build Anne roof brick reward fables", "build Paul roof brick", "gain Paul wood",
               "gain Rachel straw", "gain Rachel straw")
    out = grimm.outcome(s)
    assert out.winners == ("Anne",) and "brick First Builder token" in out.reason


def test_a_tie_after_every_tie_break_is_shared():
    s = last_round(Anne=((1, 1, 0), (2, 0, 0), (6, 0, 0)), Paul=((1, 1, 0), (2, 0, 0), (6, 0, 0)))
    s = replace(s, first_builders=("Rachel", None, None))
    s = finish(s, "build Anne roof straw", "gain Anne straw", "build Paul roof straw", "gain Paul wood",
               "gain Rachel straw", "gain Rachel straw")
    out = grimm.outcome(s)
    assert out.winners == ("Anne", "Paul") and "stay tied" in out.reason
    with pytest.raises(IllegalMove, match="game is over"):
        play(s, "gain Anne straw")
