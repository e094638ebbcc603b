"""Bable's rules as the rulebook states them (shared/seeds/002_e4a135fcf562d181.txt), move by move."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from companion.errors import IllegalMove, InvalidMove, SetupError
from companion.games import bable
from companion.games.bable.state import Building, IdeaDeck, Pile
from tests.bable_table import FACTS, dealt, options, play

SCENARIOS = Path(__file__).parent / "scenarios"
GAME = bable.GAME


def refused(state, line: str, match: str) -> None:
    assert bable.why_illegal(state, bable.parse_move(line)) is not None
    with pytest.raises(IllegalMove, match=match):
        play(state, line)


def seat(state, name):
    return state.seats[state.seat(name)]


# -- setup --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "deck1_words", "deck1_buildings"), [(2, 6, 7), (3, 7, 6), (4, 8, 5), (5, 9, 5)])
def test_setup_builds_the_idea_decks_for_the_player_count(players, deck1_words, deck1_buildings):
    names = ["Anne", "Paul", "Rachel", "Tom", "Zoe"][:players]
    state = bable.setup(names)
    decks = [(d.words, d.buildings) for d in state.decks]
    assert decks == [(deck1_words, deck1_buildings), (5, 2), (3, 1), (2, 0)]
    # Whatever is not in a deck stays in the box: 25 Word and 16 Building cards in all, one of each dealt per player.
    assert state.words_box == 25 - deck1_words - 10
    assert state.buildings_box == 16 - deck1_buildings - 3
    assert state.resource_deck.size == 36
    assert GAME.to_act(state) == tuple(names)  # every player enters their deal at once
    state = dealt(tuple(names))
    assert state.words_box == 25 - deck1_words - 10 - players
    assert state.buildings_box == 16 - deck1_buildings - 3 - players
    assert state.resource_deck.size == 36 - 3 * players
    assert all(s.resource_total == 3 and len(s.buildings) == 1 and not s.buildings[0].face_up for s in state.seats)
    assert sum(state.word_discard) == players  # each replaced starting Word card, face down
    assert GAME.to_act(state) == ("Anne",) and state.phase == "act"


@pytest.mark.parametrize("count", [1, 6])
def test_bable_is_for_two_to_five_players(count):
    with pytest.raises(SetupError, match="2 to 5 players"):
        bable.setup([f"P{i}" for i in range(count)])


def test_a_name_the_notation_uses_or_an_unknown_option_is_refused():
    with pytest.raises(SetupError, match="notation"):
        bable.setup(["Anne", "give"])
    with pytest.raises(SetupError, match="notation"):
        bable.setup(["Anne", "B7"])
    with pytest.raises(SetupError, match="no option"):
        bable.setup(["Anne", "Paul"], {"timer": "5"})
    with pytest.raises(SetupError, match="first=Zoe"):
        bable.setup(["Anne", "Paul"], {"first": "Zoe"})


def test_the_starting_player_may_be_any_player():
    state = dealt(("Anne", "Paul", "Rachel"), first="Rachel")
    assert GAME.to_act(state) == ("Rachel",)
    state = play(state, "command Rachel Anne", "answer Anne no", "command Rachel Anne", "answer Anne no",
                 "idea Rachel word build")
    assert GAME.to_act(state) == ("Anne",)  # clockwise: after Rachel comes the first seat again


def test_the_deal_replaces_the_starting_word_card_with_the_same_symbol():
    state = dealt()
    anne = seat(state, "Anne")
    assert anne.hand == ("start", "start", "new", "start")  # build, gather, give (dealt), reveal
    assert state.word_discard == (1, 0, 1, 0)  # Anne's Give and Paul's Build starting cards
    assert anne.resources == (2, 0, 0, 1)


def test_a_deal_is_checked_against_the_box():
    state = bable.setup(["Anne", "Paul"], options())
    refused(state, "deal Anne stone wood word give B1", "3 Resource cards")
    state = play(state, "deal Anne stone stone wood word give B1")
    refused(state, "deal Anne stone stone wood word give B2", "cannot enter a deal now")
    refused(state, "deal Paul stone cement tools word build B1", "already in play")
    refused(state, "command Anne Paul", "Paul still has to enter the cards dealt")


# -- a turn ------------------------------------------------------------------------------------------


def test_a_turn_is_two_actions_then_an_idea_card_from_the_lowest_deck():
    state = dealt()
    state = play(state, "command Anne Paul")
    assert GAME.to_act(state) == ("Paul",) and GAME.deciding(state) == ("Paul",)
    assert GAME.current_player(state) == "Anne"  # the overseer stays lit while Paul answers
    refused(state, "command Anne Paul", "Paul has not answered Anne's command yet")
    state = play(state, "answer Paul no", "reveal Anne word build")
    assert state.phase == "idea" and GAME.to_act(state) == ("Anne",)
    refused(state, "command Anne Paul", "draws an Idea card to end the turn")
    state = play(state, "idea Anne word gather")
    assert state.decks[0].words == 5 and state.overseer == 1 and state.turn == 2
    assert seat(state, "Anne").hand == ("start", "new", "new", "start")
    assert state.word_discard == (1, 1, 1, 0)  # her Gather starting card, face down


def test_the_overseer_commands_another_player_only():
    state = dealt()
    refused(state, "command Anne Anne", "cannot command themselves")
    refused(state, "command Anne Zoe", "nobody of that name")
    refused(state, "command Paul Anne", "it is Anne's turn")
    refused(state, "answer Paul no", "cannot answer now")


def test_a_building_revealed_by_the_overseer_stays_face_up():
    state = play(dealt(), "reveal Anne B1")
    assert seat(state, "Anne").buildings == (Building(1, True),)
    refused(state, "reveal Anne B1", "already face up")
    refused(state, "reveal Anne B2", "no B2 in their supply")


# -- the commands -------------------------------------------------------------------------------------------


def test_build_pays_the_cost_and_fills_the_lowest_unfinished_layer():
    state = play(dealt(), "command Anne Paul")  # Paul holds B2 (cement + tools) and cement, tools, wood
    refused(state, "answer Paul build B2 pay cement wood", "costs 1 cement \\+ 1 tools")
    refused(state, "answer Paul build nothing", "can pay for B2")
    refused(state, "answer Paul build B1 pay stone wood", "no B1")
    state = play(state, "answer Paul build B2 pay cement tools")
    assert state.tower == (2,) and seat(state, "Paul").resources == (0, 0, 0, 1) and not seat(state, "Paul").buildings
    assert state.resource_discard == (0, 1, 1, 0)
    full = replace(state, tower=(3, 4, 5, 6), seats=tuple(replace(s, buildings=(Building(7),), resources=(2, 2, 2, 2))
                                                         for s in state.seats))
    full = play(full, "command Anne Paul", "answer Paul build B7 pay cement cement")
    assert full.layer_sizes() == (4, 1, 0, 0)
    # The building that finishes a layer is good news for every seat.
    three = replace(play(dealt(), "command Anne Paul"), tower=(3, 4, 5))
    four = play(three, "answer Paul build B2 pay cement tools")
    assert GAME.signal(three, four, bable.parse_move("answer Paul build B2 pay cement tools")).players == ("Anne", "Paul")
    assert GAME.SIGNALS["layer"] == "cheer"


def test_build_with_an_unknown_cost_takes_what_the_player_paid_and_says_so():
    state = play(dealt(facts=False), "command Anne Paul")
    refused(state, "answer Paul build B2 pay nothing", "every building costs resources")  # never for free
    state = play(state, "answer Paul build B2 pay wood")
    assert state.tower == (2,)
    assert "the cost of 16 of the 16 Building cards" in GAME.player_view(state, None)["unknown_facts"]
    # Each move taken on the players' word is listed for everyone, with its turn.
    assert GAME.player_view(state, None)["trusted"] == ["turn 1: Paul paid wood for B2: its cost is not entered"]
    state = play(dealt(facts=False), "command Anne Paul", "answer Paul build nothing")
    assert state.trusted[-1] == "turn 1: Paul could build nothing: not checked, 16 Building cards' costs are not entered"
    checked = play(dealt(), "command Anne Paul", "answer Paul build B2 pay cement tools", "command Anne Paul",
                   "answer Paul build nothing")
    assert checked.trusted == ()  # with the facts entered, everything was checked


def test_gather_draws_two_and_the_supply_is_cut_back_to_seven_by_its_owner():
    state = dealt()
    state = replace(state, seats=(state.seats[0], replace(state.seats[1], resources=(2, 2, 1, 1))))
    state = play(state, "command Anne Paul")
    refused(state, "answer Paul gather stone", "draws 2")
    state = play(state, "answer Paul gather stone wood")
    assert seat(state, "Paul").resource_total == 8
    assert state.phase == "discard" and GAME.to_act(state) == ("Paul",)
    refused(state, "command Anne Paul", "must first discard down to 7")
    refused(state, "discard Paul stone wood", "discard exactly 1")
    refused(state, "discard Paul tools tools", "discard exactly 1")
    state = play(state, "discard Paul cement")
    assert seat(state, "Paul").resources == (3, 1, 1, 2) and state.phase == "act"


def test_gather_reshuffles_the_discard_pile_when_the_deck_runs_out():
    state = dealt()
    state = replace(state, resource_deck=Pile((0, 0, 0, 1), 0), resource_discard=(3, 0, 2, 0))
    state = play(state, "command Anne Paul")
    refused(state, "answer Paul gather stone wood", "holds no stone")  # the deck's last card is the wood
    state = play(state, "answer Paul gather wood tools")
    assert state.resource_deck == Pile((3, 0, 1, 0), 0) and state.resource_discard == (0, 0, 0, 0)


def test_gather_with_nothing_left_draws_what_there_is():
    state = dealt()
    state = replace(state, resource_deck=Pile((0, 0, 0, 0), 0), resource_discard=(0, 1, 0, 0))
    state = play(state, "command Anne Paul")
    refused(state, "answer Paul gather cement stone", "draws 1 Resource card")
    state = play(state, "answer Paul gather cement")
    assert state.resource_deck.size == 0


def test_give_splits_up_to_three_cards_between_players_and_buildings_keep_their_side():
    state = dealt(("Anne", "Paul", "Rachel"))
    state = play(state, "reveal Anne B1", "command Anne Paul")
    state = replace(state, seats=(state.seats[0], replace(state.seats[1], buildings=(Building(2), Building(9, True))),
                                  state.seats[2]))
    refused(state, "answer Paul give cement tools wood B2 to Anne", "up to 3 cards")
    refused(state, "answer Paul give cement to Paul", "not to themselves")
    refused(state, "answer Paul give stone to Anne", "not enough stone")
    state = play(state, "answer Paul give cement B9 to Anne, B2 to Rachel")
    assert seat(state, "Anne").buildings == (Building(1, True), Building(9, True))
    assert seat(state, "Rachel").buildings == (Building(2, False), Building(3, False))
    assert seat(state, "Anne").resources == (2, 1, 0, 1) and seat(state, "Paul").resources == (0, 0, 1, 1)


def test_a_gift_over_the_limit_is_discarded_by_the_one_who_receives_it():
    state = dealt(("Anne", "Paul", "Rachel"))
    state = replace(state, seats=(replace(state.seats[0], resources=(2, 2, 2, 1)), state.seats[1],
                                  replace(state.seats[2], resources=(1, 1, 2, 3))))
    state = play(state, "command Anne Paul", "answer Paul give cement to Anne, tools wood to Rachel")
    assert GAME.to_act(state) == ("Anne", "Rachel") and GAME.deciding(state) == ("Anne", "Rachel")
    state = play(state, "discard Rachel wood wood")
    assert GAME.to_act(state) == ("Anne",)
    state = play(state, "discard Anne stone")
    assert [s.resource_total for s in state.seats] == [7, 0, 7] and state.phase == "act"


def test_reveal_shows_up_to_two_cards_words_go_back_to_the_hand():
    state = play(dealt(), "command Anne Paul")
    refused(state, "answer Paul reveal word build, word gather, B2", "up to 2 cards")
    refused(state, "answer Paul reveal B2 B2", "once")
    state = play(state, "answer Paul reveal word build, B2")
    paul = seat(state, "Paul")
    assert paul.buildings == (Building(2, True),) and paul.hand_size == 4


def test_an_answer_names_a_command_of_a_card_in_hand():
    state = dealt(advanced=True)
    state = replace(state, seats=(state.seats[0], replace(state.seats[1], hand=("", "start", "start", "start"))))
    state = play(state, "command Anne Paul")
    refused(state, "answer Paul build B2 pay cement tools", "holds no Build Word card")


# -- the Idea cards and the end ---------------------------------------------------------------------------


def test_an_idea_building_goes_face_down_into_the_supply():
    state = play(dealt(), "command Anne Paul", "answer Paul no", "command Anne Paul", "answer Paul no")
    refused(state, "idea Anne B2", "already in play")
    state = play(state, "idea Anne B11")
    assert seat(state, "Anne").buildings == (Building(1), Building(11)) and state.decks[0].buildings == 6


def test_a_building_never_entered_is_drawn_as_b_question_mark():
    state = play(dealt(facts=False), "command Anne Paul", "answer Paul no", "command Anne Paul", "answer Paul no",
                 "idea Anne B?")
    assert seat(state, "Anne").buildings == (Building(1), Building(3))


def test_when_a_deck_is_empty_the_next_one_up_is_drawn_from():
    state = replace(dealt(), decks=(IdeaDeck(0, 0), IdeaDeck(1, 1), IdeaDeck(3, 1), IdeaDeck(2, 0)), tower=(5, 6, 7, 8))
    state = play(state, "reveal Anne word build", "reveal Anne word give", "idea Anne word give")
    assert state.decks[1] == IdeaDeck(0, 1) and state.result is None


def test_the_game_is_lost_when_a_deck_runs_out_beside_an_unfinished_layer():
    state = replace(dealt(), decks=(IdeaDeck(1, 0), IdeaDeck(5, 2), IdeaDeck(3, 1), IdeaDeck(2, 0)), tower=(5, 6, 7))
    state = play(state, "reveal Anne word build", "reveal Anne word give")
    assert GAME.player_view(state, None)["clock"][0]["level"] == "red"
    state = play(state, "idea Anne word reveal")
    outcome = GAME.outcome(state)
    assert outcome.lost and outcome.winners == ()
    assert outcome.reason == "Anne drew the last Idea card of deck 1 while layer 1 of the tower was unfinished (3 of 4 buildings)"
    assert GAME.to_act(state) == ()
    refused(state, "command Paul Anne", "the game is over")


def test_the_last_deck_lost_with_the_tower_unfinished():
    state = replace(dealt(), decks=(IdeaDeck(0, 0), IdeaDeck(0, 0), IdeaDeck(0, 0), IdeaDeck(1, 0)),
                    tower=(3, 4, 5, 6, 7, 8, 9, 10, 11))
    state = play(state, "reveal Anne word build", "reveal Anne word give", "idea Anne word build")
    assert GAME.outcome(state).lost
    assert GAME.outcome(state).reason == "Anne drew the last Idea card of the final deck with the tower unfinished"


def test_a_deck_may_run_out_beside_a_finished_layer():
    state = replace(dealt(), decks=(IdeaDeck(1, 0), IdeaDeck(5, 2), IdeaDeck(3, 1), IdeaDeck(2, 0)), tower=(5, 6, 7, 8))
    state = play(state, "reveal Anne word build", "reveal Anne word give", "idea Anne word reveal")
    assert GAME.outcome(state) is None and state.current_deck == 1


def test_the_last_building_in_the_top_layer_wins_at_once():
    state = replace(dealt(), tower=(3, 4, 5, 6, 7, 8, 9, 10, 11))
    state = play(state, "command Anne Paul", "answer Paul build B2 pay cement tools")
    outcome = GAME.outcome(state)
    assert not outcome.lost and outcome.winners == ("Anne", "Paul")
    assert outcome.reason == "the tower is finished: Paul placed B2 Hall2 in the top layer"
    assert GAME.to_act(state) == ()


def scenario(name: str, *, before: str | None = None) -> list[str]:
    """The moves of a scenario file (the lines before the comment ``before`` only, when given)."""
    lines = (SCENARIOS / name).read_text().splitlines()
    if before is not None:
        lines = lines[:lines.index(before)]
    return [line for line in lines if line.strip() and not line.startswith("#")]


def test_a_whole_won_game_replays_move_by_move():
    state = bable.setup(["Anne", "Paul"], options())
    finished = []
    for line in scenario("bable_won.txt"):
        assert GAME.outcome(state) is None
        before = state.layer_sizes()
        state = play(state, line)
        finished += [k + 1 for k in range(4) if state.layer_done(k) and before[k] < state.layer_sizes()[k]]
    assert finished == [1, 2, 3, 4]
    assert GAME.outcome(state).winners == ("Anne", "Paul") and state.turn == 15
    assert [d.size for d in state.decks] == [0, 6, 4, 2]


def replay_clock(state, lines: list[str], layer: int) -> tuple[object, list[str]]:
    """Play ``lines`` one by one (the game must not end before the last); the clock level of ``layer``
    after each Idea card, each change once."""
    levels: list[str] = []
    for n, line in enumerate(lines):
        assert GAME.outcome(state) is None, f"the game ended before line {n + 1}: {state.reason}"
        state = play(state, line)
        if line.startswith("idea"):
            level = GAME.player_view(state, None)["clock"][layer - 1]["level"]
            levels += [level] if not levels or levels[-1] != level else []
    return state, levels


def test_a_game_lost_when_deck_1_runs_out_beside_an_unfinished_layer_move_by_move():
    state = bable.setup(["Anne", "Paul", "Rachel"], options())
    lines = scenario("bable_lost_layer1.txt")
    # The rulebook's N.B.: the same command twice to the same player, then commands to two different players.
    turn1 = play(state, *lines[:7])
    assert seat(turn1, "Paul").resource_total == 7 and turn1.phase == "idea"
    state, levels = replay_clock(state, lines, layer=1)
    assert levels == ["ok", "amber", "red", "lost"]  # amber within a round (3 draws for 3 players), red at 1
    outcome = GAME.outcome(state)
    assert outcome.lost and outcome.winners == () and state.turn == 13
    assert outcome.reason == ("Anne drew the last Idea card of deck 1 while layer 1 of the tower was unfinished "
                              "(2 of 4 buildings)")
    assert [d.size for d in state.decks] == [0, 7, 4, 2] and state.tower == (1, 2)
    assert GAME.to_act(state) == () and GAME.legal_moves(state) == []


def test_a_game_lost_when_the_final_deck_runs_out_with_the_tower_unfinished_move_by_move():
    turn_14 = scenario("bable_won.txt", before="# Turn 15: Anne is the overseer.")
    state = play(bable.setup(["Anne", "Paul"], options()), *turn_14)
    assert state.layer_sizes() == (4, 3, 2, 0) and [d.size for d in state.decks] == [0, 6, 4, 2]
    lines = scenario("bable_lost_top.txt")
    passed_deck_2 = play(state, *lines[:lines.index("idea Paul word give") + 1])
    assert passed_deck_2.decks[1].size == 0 and passed_deck_2.current_deck == 2 and GAME.outcome(passed_deck_2) is None
    state, levels = replay_clock(state, lines, layer=4)
    assert levels == ["ok", "amber", "red", "lost"]
    outcome = GAME.outcome(state)
    assert outcome.lost and outcome.winners == () and state.turn == 26
    assert outcome.reason == "Paul drew the last Idea card of the final deck with the tower unfinished"
    assert [d.size for d in state.decks] == [0, 0, 0, 0] and state.layer_sizes() == (4, 3, 2, 0)


# -- the advanced game: Confusion cards -------------------------------------------------------------------


def confused(*players, **kw):
    state = dealt(players or ("Anne", "Paul", "Rachel"), advanced=True, **kw)
    return play(state, "command Anne Paul", "answer Paul no")


def test_a_head_shake_in_the_basic_game_costs_nothing():
    state = play(dealt(), "command Anne Paul", "answer Paul no")
    assert state.phase == "act" and state.actions == 1


def test_a_head_shake_in_the_advanced_game_draws_a_confusion_card():
    state = confused()
    assert state.phase == "confusion" and GAME.to_act(state) == ("Paul",) and GAME.deciding(state) == ("Paul",)
    assert GAME.signal(play(dealt(("Anne", "Paul", "Rachel"), advanced=True), "command Anne Paul"), state,
                       bable.parse_move("answer Paul no")).name == "confused"


def test_confusion_return_building_takes_a_statue_or_relief_from_the_current_layer_into_the_current_deck():
    state = replace(confused(), tower=(2, 4, 5, 8, 1, 6))  # layer 2 holds B1 (statue) and B6 (doors, stairs)
    refused(state, "confusion Paul return-building nothing", "B1 with a Statue or Relief: take one")
    refused(state, "confusion Paul return-building B6", "no Statue or Relief")
    refused(state, "confusion Paul return-building B2", "not in the current layer")
    state = play(state, "confusion Paul return-building B1")
    assert state.tower == (2, 4, 5, 8, 6) and state.decks[0].returned == (1,)
    assert state.decks[0].size == 14
    # It may come out again: the Idea card names it, and it goes face down into the supply.
    state = play(state, "command Anne Rachel", "answer Rachel no", "confusion Rachel words-down")
    state = play(state, "idea Anne B1")
    assert Building(1) in seat(state, "Anne").buildings and state.decks[0].returned == ()


def test_confusion_return_building_with_no_statue_or_relief_does_nothing():
    state = replace(confused(), tower=(2, 4, 5, 8, 6))
    state = play(state, "confusion Paul return-building nothing")
    assert state.tower == (2, 4, 5, 8, 6) and state.confusion_out == (1, 0, 0, 0, 0, 0, 0)


def test_confusion_discard_resources_counts_doors_and_stairs_in_the_tower():
    state = replace(confused(), tower=(2, 6))  # B2 doors, B6 doors and stairs: 3
    refused(state, "confusion Paul discard-resources cement", "shows 3 Doors/Stairs: Paul discards 3")
    state = play(state, "confusion Paul discard-resources cement tools wood")
    assert seat(state, "Paul").resource_total == 0 and state.resource_discard == (0, 1, 1, 1)


def test_confusion_redraw_word_takes_a_word_card_from_the_discard_pile():
    state = confused()  # the pile: Anne's Give, Paul's Build, Rachel's Gather starting cards
    refused(state, "confusion Paul redraw-word reveal", "no Word card with the Reveal symbol")
    state = play(state, "confusion Paul redraw-word give")
    assert seat(state, "Paul").hand == ("new", "start", "new", "start")
    assert state.word_discard == (1, 1, 1, 0)  # Give taken, Paul's old Give card discarded


def test_confusion_buildings_left_and_resources_right():
    state = play(replace(confused(), seats=tuple(replace(s, resources=(2, 2, 1, 1)) for s in confused().seats)),
                 "confusion Paul buildings-left")
    assert seat(state, "Rachel").buildings == (Building(2), Building(3)) and not seat(state, "Paul").buildings
    state = play(state, "command Anne Paul", "answer Paul no", "confusion Paul resources-right")
    assert seat(state, "Anne").resource_total == 12 and seat(state, "Paul").resource_total == 0
    assert GAME.to_act(state) == ("Anne",) and state.phase == "discard"
    state = play(state, "discard Anne stone stone cement cement tools")
    assert seat(state, "Anne").resource_total == 7 and state.phase == "idea"


def test_confusion_drop_word_leaves_a_hand_of_three_until_that_symbol_is_drawn():
    state = play(confused(), "confusion Paul drop-word gather")
    assert seat(state, "Paul").hand == ("new", "", "start", "start") and seat(state, "Paul").hand_size == 3
    state = play(state, "command Anne Paul")
    refused(state, "answer Paul gather stone stone", "holds no Gather Word card")
    state = play(state, "answer Paul no", "confusion Paul words-down", "idea Anne word build")
    # Paul's turn: his Idea card brings the Gather symbol back.
    state = play(state, "reveal Paul word build", "reveal Paul word give", "idea Paul word reveal")
    assert seat(state, "Paul").hand_size == 3
    state = play(state, "reveal Rachel word build", "reveal Rachel word give", "idea Rachel word build",
                 "reveal Anne word build", "reveal Anne word give", "idea Anne word build",
                 "reveal Paul word build", "reveal Paul word give", "idea Paul word gather")
    assert seat(state, "Paul").hand == ("new", "new", "start", "new")


def test_confusion_words_down_until_the_players_next_turn():
    state = play(confused(facts=False), "confusion Paul words-down")
    refused(state, "command Anne Paul", "face down until their next turn")
    state = play(state, "command Anne Rachel", "answer Rachel no", "confusion Rachel words-down", "idea Anne word build")
    assert seat(state, "Paul").words_down is False  # his turn has started
    assert seat(state, "Rachel").words_down is True
    refused(state, "command Paul Rachel", "face down")


def test_an_overseer_nobody_may_hear_reveals_or_passes():
    state = dealt(advanced=True)
    state = replace(state, seats=(replace(state.seats[0], hand=("", "", "", ""), buildings=(Building(1, True),)),
                                  replace(state.seats[1], words_down=True)))
    refused(state, "command Anne Paul", "face down")
    state = play(state, "pass Anne", "pass Anne")
    assert state.phase == "idea"
    fresh = dealt()
    state = replace(fresh, seats=(fresh.seats[0], replace(fresh.seats[1], words_down=True)))
    refused(state, "pass Anne", "can still act")


def test_the_confusion_deck_holds_nine_cards_and_is_shuffled_again_when_used_up():
    state = replace(confused(), confusion_out=(1, 2, 1, 1, 2, 1, 0))
    state = play(state, "confusion Paul words-down")
    assert state.confusion_out == (1, 2, 1, 1, 2, 1, 1) and bable.view.confusion_left(state) == 0
    state = play(state, "command Anne Rachel", "answer Rachel no")
    state = play(state, "confusion Rachel return-building nothing")
    assert state.confusion_out == (1, 0, 0, 0, 0, 0, 0)


def test_a_confusion_card_the_box_has_no_more_of_is_refused():
    state = replace(confused(), confusion_out=(1, 0, 0, 0, 0, 0, 0))
    refused(state, "confusion Paul return-building nothing", "no more return-building card")
    # Only C1's count is printed: the other eight cards may carry any of the six other effects.
    unknown = replace(confused(facts=False), confusion_out=(0, 2, 2, 1, 2, 1, 0))
    refused(unknown, "confusion Paul words-down", "no more words-down card")
    assert play(unknown, "confusion Paul return-building nothing").confusion_out == (1, 2, 2, 1, 2, 1, 0)


# -- text form --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "deal Anne stone stone wood word give B3", "deal Anne cement tools wood word build B?", "command Anne Paul",
    "reveal Anne word build", "reveal Anne B3", "pass Anne", "answer Paul no", "answer Paul build B3 pay stone wood",
    "answer Paul build nothing", "answer Paul gather wood stone", "answer Paul give stone wood to Anne, B3 to Rachel",
    "answer Paul give nothing", "answer Paul reveal word gather, B3", "answer Paul reveal nothing",
    "discard Paul stone tools", "confusion Paul return-building B3", "confusion Paul return-building nothing",
    "confusion Paul discard-resources stone wood", "confusion Paul redraw-word give", "confusion Paul buildings-left",
    "confusion Paul resources-right", "confusion Paul drop-word build", "confusion Paul words-down",
    "idea Anne word gather", "idea Anne B7", "idea Anne B?",
])
def test_every_move_reads_back_as_written(text):
    assert bable.parse_move(text).to_text() == text


@pytest.mark.parametrize(("text", "match"), [
    ("", "empty move"), ("jump Anne", "not a Bable move"), ("command Anne", "command OVERSEER PLAYER"),
    ("answer Paul fly", "not an answer"), ("answer Paul gather gold", "not a resource"),
    ("answer Paul give stone", "whom the cards go to"), ("idea Anne word dance", "not a command symbol"),
    ("idea Anne B", "not a Building card"), ("confusion Paul sneeze", "effect"), ("reveal Anne B?", "name the Building"),
])
def test_a_move_that_cannot_be_read_says_why(text, match):
    with pytest.raises(InvalidMove, match=match):
        bable.parse_move(text)


def test_the_card_facts_option_is_checked():
    with pytest.raises(SetupError, match="36 Resource cards"):
        bable.setup(["Anne", "Paul"], {"cards": '{"R-stone": {"count": 40}}'})
    with pytest.raises(SetupError, match="B7 has no fact 'count'"):
        bable.setup(["Anne", "Paul"], {"cards": '{"B7": {"count": 4}}'})
    assert bable.setup(["Anne", "Paul"], {"cards": FACTS}).facts.resource_mix == (9, 9, 9, 9)


# -- the moves allowed, counted (perft-style) -----------------------------------------------------------


def test_the_moves_allowed_are_counted_from_known_positions():
    state = dealt()
    moves = [m.to_text() for m in GAME.legal_moves(state)]
    assert moves == ["command Anne Paul", "reveal Anne word build", "reveal Anne word gather", "reveal Anne word give",
                     "reveal Anne word reveal", "reveal Anne B1"]
    answers = GAME.legal_moves(play(state, "command Anne Paul"))  # Paul: cement tools wood, B2 (cement + tools)
    kinds = {}
    for move in answers:
        kinds[type(move).__name__] = kinds.get(type(move).__name__, 0) + 1
    # no; build B2 (he can pay, so "nothing" is not allowed); 10 pairs off a full deck; 15 gifts of up to
    # three of his four cards to Anne; 16 ways to reveal up to two of four Word cards and B2.
    assert kinds == {"AnswerNo": 1, "AnswerBuild": 1, "AnswerGather": 10, "AnswerGive": 15, "AnswerReveal": 16}
    over = replace(state, seats=(state.seats[0], replace(state.seats[1], resources=(3, 3, 1, 1))), discards=(0, 1))
    assert sorted(m.to_text() for m in GAME.legal_moves(over)) == ["discard Paul cement", "discard Paul stone",
                                                                     "discard Paul tools", "discard Paul wood"]
