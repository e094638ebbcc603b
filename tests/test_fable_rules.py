"""Fabled Fruit's rules: the rulebook's examples move by move, then each rule a player would notice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.errors import IllegalMove, InvalidMove, SetupError
from companion.games import fable as g

SCENARIOS = Path(__file__).parent / "scenarios"
KNOWN_DEAL = "Anne=banana grapes; Paul=coconut coconut"


def play(state, *moves):
    for text in moves:
        state = g.apply(state, g.parse_move(text))
    return state


def view(state):
    return g.to_json(state)


def player(state, name):
    return next(p for p in view(state)["players"] if p["name"] == name)


def lookup(data, path):
    for part in path.split("."):
        if isinstance(data, list):
            data = next(item for item in data if item.get("name") == part)
        else:
            data = data[part]
    return data


def load_scenario(name):
    """A scenario file: its players, options, and (line, move, checks after it) in order."""
    players, options, steps = None, {}, []
    for number, raw in enumerate((SCENARIOS / name).read_text().splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#! players "):
            players = line.split(None, 2)[2].split(",")
        elif line.startswith("#! option "):
            key, _, value = line.split(None, 2)[2].partition("=")
            options[key] = value
        elif line.startswith("#= ") and steps:
            path, value = line[3:].split(None, 1)
            steps[-1][2].append((path, json.loads(value)))
        elif line and not line.startswith("#"):
            steps.append((number, line, []))
    return players, options, steps


# -- the rulebook's examples -----------------------------------------------------------------


def setup_checks(name):
    """Checks written before the first move."""
    checks = []
    for raw in (SCENARIOS / name).read_text().splitlines():
        if raw.startswith("#= "):
            path, value = raw[3:].split(None, 1)
            checks.append((path, json.loads(value)))
        elif raw.strip() and not raw.startswith("#"):
            break
    return checks


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.glob("fable_*.txt")))
def test_the_scenarios_replay_move_by_move_with_every_check(name):
    players, options, steps = load_scenario(name)
    state = g.setup(players, options)
    for path, expected in setup_checks(name):
        assert lookup(view(state), path) == expected, path
    checked = 0
    for number, text, checks in steps:
        move = g.parse_move(text)
        assert g.why_illegal(state, move) is None, f"line {number}: {text}"
        state = g.apply(state, move)
        assert not g.accounting_problems(state), f"line {number}"
        for path, expected in checks:
            assert lookup(view(state), path) == expected, f"line {number}: {path}"
            checked += 1
    assert checked >= 15


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.glob("fable_*.txt")))
def test_every_move_of_the_scenarios_reads_back_as_the_same_text(name):
    _, _, steps = load_scenario(name)
    for _, text, _ in steps:
        move = g.parse_move(text)
        assert g.parse_move(move.to_text()) == move


def test_camille_cannot_buy_location_3_without_the_three_grapes():
    # She pays the smoothie with a banana, but only two grapes: the price asks for three.
    state = g.setup(["Camille", "Anne"], {"deal": "Camille=grapes banana; Anne=coconut coconut"})
    state = play(state, "move Camille 1", "action Camille draw grapes coconut", "move Anne 2",
                 "action Anne draw coconut")  # Anne's signpost draw: she has no banana
    state = play(state, "move Camille 3")
    with pytest.raises(IllegalMove, match="does not pay 3 grapes \\+ 1 smoothie"):
        play(state, "buy Camille 3 pay 2 grapes banana coconut")
    with pytest.raises(IllegalMove, match="costs 3 grapes \\+ 1 smoothie"):
        play(state, "buy Camille 3")


# -- setup ---------------------------------------------------------------------------------------


def test_the_first_game_lays_out_1_to_6_and_keeps_the_deck_sorted():
    state = g.setup(["Anne", "Paul", "Rachel"])
    j = view(state)
    assert j["display"] == {str(n): [f"{n}:{c}" for c in range(1, 5)] for n in range(1, 7)}
    assert j["deck_size"] == 216 and j["deck_next"] == [7, 7, 7, 7, 8, 8, 8, 8, 9, 9]
    assert j["bag_size"] == 0
    assert [p["fruits"] for p in j["players"]] == [2, 2, 2]
    assert j["current"] == j["start_player"] == "Anne"
    assert j["goal"] == 4 and j["over"] is False and j["winners"] == []
    assert state.deck[-8:] == tuple(g.Card(59, c) for c in range(1, 9))
    assert len(state.table.all_cards()) == 240


@pytest.mark.parametrize(("count", "goal"), [(2, 5), (3, 4), (4, 3), (5, 3)])
def test_juices_to_win_follow_the_player_count(count, goal):
    assert g.setup([f"P{i}" for i in range(count)]).goal == goal


@pytest.mark.parametrize(
    ("players", "options", "reason"),
    [
        (["Solo"], {}, "2 to 5 players"),
        (["Anne", "Paul"], {"start": "Rachel"}, "not one of the players"),
        (["Anne", "Paul"], {"display": "1:1-4/1:1"}, "named twice|two stacks"),
        (["Anne", "Paul"], {"display": "1:1-4 2:1"}, "mixes"),
        (["Anne", "Paul"], {"display": "1/2/3"}, "holds 12 cards, but while the deck lasts it holds 24"),
        (["Anne", "Paul"], {"bag": "60:1"}, "no location 60|no card 60:1"),
        (["Anne", "Paul"], {"bag": "1:1"}, "named twice"),
        (["Anne", "Paul"], {"deal": "Anne=banana"}, "dealt 2 fruits, Anne 1"),
        (["Anne", "Paul"], {"deal": "Anne=kiwi kiwi"}, "kiwi is not a fruit"),
        (["Anne", "Paul"], {"fruits": "banana=1 grapes=59", "deal": "Anne=2 bananas"}, "2 bananas dealt, but the box holds 1"),
        (["Anne Marie", "Paul"], {}, "one word"),
        (["Draw", "Paul"], {}, "word of the move notation"),
        (["Banana", "Paul"], {}, "fruit"),
        (["7up", "Paul"], {}, "digit"),
        (["Anne", "Paul"], {"locations": '{"7": {"price": {"fruits": {"kiwi": 2}}}}'}, "asks for kiwi"),
        (["Anne", "Paul"], {"colour": "red"}, "no option colour"),
    ],
)
def test_setup_refuses_what_cannot_be_played_with_the_reason(players, options, reason):
    with pytest.raises(SetupError, match=reason):
        g.setup(players, options)


def test_a_campaign_layout_with_a_bag_leaves_the_rest_in_number_order():
    display = "7:2 7:1 / 8 / 9 / 10 / 11 / 12 / 13:1-2"
    state = g.setup(["Anne", "Paul"], {"display": display, "bag": "1:1-4 2 3 4 5 6 7:3-4 13:3-4"})
    assert view(state)["display"]["7"] == ["7:2", "7:1"]
    assert state.deck[0] == g.Card(14, 1)
    assert len(state.deck) + state.display_count() + len(state.bag) == 240


# -- moving and the entry fee ----------------------------------------------------------------------


def test_the_first_move_may_go_anywhere_and_later_ones_must_go_elsewhere():
    state = play(g.setup(["Anne", "Paul"]), "move Anne 5", "action Anne", "move Paul 2", "action Paul draw 1")
    with pytest.raises(IllegalMove, match="already stands on location 5"):
        play(state, "move Anne 5")
    with pytest.raises(IllegalMove, match="not on display"):
        play(state, "move Anne 9")


def test_the_fee_goes_one_fruit_to_each_player_already_there():
    state = g.setup(["Anne", "Paul", "Rachel"])
    state = play(state, "move Anne 4", "action Anne", "move Paul 4", "action Paul")
    assert [p["fruits"] for p in view(state)["players"]] == [3, 1, 2]
    state = play(state, "move Rachel 4")
    assert [p["fruits"] for p in view(state)["players"]] == [4, 2, 0]


def test_with_too_few_fruits_the_mover_chooses_who_gets_them_and_never_one_player_twice():
    state = g.setup(["Anne", "Paul", "Rachel"])
    state = play(state, "move Anne 4", "action Anne", "move Paul 4", "action Paul",
                 "move Rachel 5", "action Rachel discard 1", "move Anne 6", "action Anne", "move Paul 6", "action Paul")
    assert [p["fruits"] for p in view(state)["players"]] == [4, 0, 1]
    with pytest.raises(IllegalMove, match="Rachel holds 1 fruit for 2 players on location 6: say who gets it"):
        play(state, "move Rachel 6")
    with pytest.raises(IllegalMove, match="all of it goes, one each, to 1 of Anne and Paul"):
        play(state, "move Rachel 6 pay Anne, Paul")
    with pytest.raises(IllegalMove, match="Paul would get two fruits"):
        play(state, "move Rachel 6 pay Paul, Paul")
    after = play(state, "move Rachel 6 pay Paul")
    assert [p["fruits"] for p in view(after)["players"]] == [4, 1, 0]


def test_with_no_fruit_the_mover_pays_nothing():
    state = g.setup(["Anne", "Paul"])
    state = play(state, "move Anne 4", "action Anne", "move Paul 5", "action Paul discard 2")
    state = play(state, "move Anne 6", "action Anne", "move Paul 6")
    assert player(state, "Paul")["fruits"] == 0 and player(state, "Anne")["fruits"] == 2
    assert "had no fruit to pay" in view(state)["last"]


def test_the_fee_goes_only_to_players_standing_there():
    state = play(g.setup(["Anne", "Paul", "Rachel"]), "move Anne 4", "action Anne", "move Paul 5", "action Paul")
    with pytest.raises(IllegalMove, match="Paul is not on location 4; the fee goes only to Anne"):
        play(state, "move Rachel 4 pay Paul")


def test_a_named_fruit_must_be_in_the_hand():
    state = g.setup(["Anne", "Paul"], {"deal": KNOWN_DEAL})
    state = play(state, "move Anne 4", "action Anne")
    with pytest.raises(IllegalMove, match="Paul holds 2 coconuts, not banana"):
        play(state, "move Paul 4 pay Anne banana")


# -- whose turn, and what comes when ---------------------------------------------------------------


def test_moves_come_in_the_turns_order_with_reasons():
    state = g.setup(["Anne", "Paul"])
    with pytest.raises(IllegalMove, match="it is Anne's turn, not Paul's"):
        play(state, "move Paul 4")
    with pytest.raises(IllegalMove, match="must first move their animal"):
        play(state, "action Anne")
    with pytest.raises(IllegalMove, match="no location card is due"):
        play(state, "draw 7:1")
    state = play(state, "move Anne 1")
    with pytest.raises(IllegalMove, match="already moved to location 1"):
        play(state, "move Anne 2")
    with pytest.raises(IllegalMove, match="only that juice"):
        play(state, "buy Anne 2 pay 4")


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "empty move"), ("jump 4", "not a Fabled Fruit move"), ("move", "which location"),
     ("move Anne 4 give Paul", "pay NAME"), ("buy", "which location"), ("draw banana", "action draw 2"),
     ("action Anne fly 2", "fruit changes"), ("action give", "needs a player's name"),
     ("buy 3 pay 2 3", "two numbers"), ("buy 3:x", "not a copy number")],
)
def test_unreadable_moves_say_why(text, reason):
    with pytest.raises(InvalidMove, match=reason):
        g.parse_move(text)


# -- the locations' actions --------------------------------------------------------------------------


def test_location_1_draws_two_and_plain_action_draws_two_of_unknown_kind():
    state = play(g.setup(["Anne", "Paul"]), "move Anne 1", "action Anne")
    assert player(state, "Anne")["fruits"] == 4
    assert view(state)["fruit_stack"] == 54
    state = play(state, "move Paul 2")
    with pytest.raises(IllegalMove, match="give NAME banana"):
        play(state, "action Paul")


def test_location_1_draws_exactly_two():
    state = play(g.setup(["Anne", "Paul"]), "move Anne 1")
    with pytest.raises(IllegalMove, match="draws 2 fruits, not 3"):
        play(state, "action Anne draw 3")


def test_location_2_trades_a_banana_for_two_other_fruits():
    state = g.setup(["Anne", "Paul"], {"deal": "Anne=banana grapes; Paul=coconut coconut"})
    state = play(state, "move Anne 2")
    with pytest.raises(IllegalMove, match="Paul has other fruits, so gives back no banana"):
        play(state, "action Anne give Paul banana take Paul banana coconut")
    with pytest.raises(IllegalMove, match="gives back 2 fruits, not 1"):
        play(state, "action Anne give Paul banana take Paul coconut")
    with pytest.raises(IllegalMove, match="Anne has a banana, so the trade is the action"):
        play(state, "action Anne draw 1")
    state = play(state, "action Anne give Paul banana take Paul 2 coconuts")
    assert player(state, "Anne")["hand"] == {"banana": 0, "coconut": 2, "grapes": 1, "pineapple": 0,
                                             "strawberry": 0, "unknown": 0}
    assert player(state, "Paul")["hand"]["banana"] == 1 and player(state, "Paul")["fruits"] == 1


def test_location_2_lets_a_banana_come_back_when_the_other_player_lacks_other_fruits():
    state = g.setup(["Anne", "Paul"], {"deal": "Anne=banana grapes; Paul=coconut banana"})
    state = play(state, "move Anne 2", "action Anne give Paul banana take Paul coconut banana")
    assert player(state, "Anne")["hand"]["banana"] == 1 and player(state, "Paul")["hand"]["banana"] == 1


def test_location_2_signpost_draws_one_without_a_banana():
    state = g.setup(["Anne", "Paul"], {"deal": "Anne=grapes grapes; Paul=coconut coconut"})
    state = play(state, "move Anne 2")
    with pytest.raises(IllegalMove, match="Anne holds 2 grapes, not banana"):
        play(state, "action Anne give Paul banana take Paul 2 coconuts")
    state = play(state, "action Anne draw strawberry")
    assert player(state, "Anne")["hand"]["strawberry"] == 1


def test_location_3_draws_one_then_swaps_three_with_a_player_holding_three():
    state = g.setup(["Anne", "Paul", "Rachel"])
    state = play(state, "move Anne 1", "action Anne", "move Paul 5", "action Paul", "move Rachel 3")
    assert [p["fruits"] for p in view(state)["players"]] == [4, 2, 2]
    with pytest.raises(IllegalMove, match="Paul holds 2 fruits: take 3 from a player who has 3 \\(Anne\\)"):
        play(state, "action Rachel draw 1 take Paul 3 give Paul 3")
    with pytest.raises(IllegalMove, match="first draws 1 fruit"):
        play(state, "action Rachel draw 2 take Anne 3 give Anne 3")
    state = play(state, "action Rachel draw 1 take Anne 3 give Anne 3")
    assert [p["fruits"] for p in view(state)["players"]] == [4, 2, 3]


def test_location_3_with_nobody_holding_three_records_what_the_players_enter():
    state = play(g.setup(["Anne", "Paul"]), "move Anne 3")
    state = play(state, "action Anne draw 1 take Paul 2 give Paul 1")
    assert [p["fruits"] for p in view(state)["players"]] == [4, 1]


def test_an_unknown_action_records_the_fruit_changes_entered():
    state = g.setup(["Anne", "Paul", "Rachel"])
    state = play(state, "move Anne 5", "action Anne draw 2 give Paul 1 discard 1")
    assert [p["fruits"] for p in view(state)["players"]] == [2, 3, 2]
    assert view(state)["discard_pile"] == 1
    assert "not known yet" in view(state)["last"]
    state = play(state, "move Paul 6")
    with pytest.raises(IllegalMove, match="Rachel holds 2 fruits of unknown kind, not 3 fruits"):
        play(state, "action Paul take Rachel 3")


def test_the_discards_are_reshuffled_when_the_fruit_stack_runs_out():
    # 2 players, 5 fruits in play: 4 dealt, 1 in the stack.
    state = g.setup(["Anne", "Paul"], {"fruits": "banana=3 grapes=2"})
    state = play(state, "move Anne 5", "action Anne discard 2", "move Paul 5", "action Paul")
    assert (view(state)["fruit_stack"], view(state)["discard_pile"]) == (1, 2)
    state = play(state, "move Anne 1", "action Anne draw 2")  # the last one, then one from the reshuffled discards
    assert (view(state)["fruit_stack"], view(state)["discard_pile"]) == (1, 0)
    assert player(state, "Anne")["fruits"] == 3


def test_every_card_of_a_kind_known_elsewhere_cannot_be_revealed_again():
    state = g.setup(["Anne", "Paul"], {"fruits": "banana=2 grapes=10", "deal": "Anne=2 bananas"})
    state = play(state, "move Anne 4", "action Anne")
    with pytest.raises(IllegalMove, match="all 2 bananas are already accounted for"):
        play(state, "move Paul 4 pay Anne banana")


# -- juices -----------------------------------------------------------------------------------------


def test_a_juice_with_an_unknown_price_must_say_what_was_paid():
    state = play(g.setup(["Anne", "Paul"]), "move Anne 1", "action Anne", "move Paul 5", "action Paul",
                 "move Anne 4")
    with pytest.raises(IllegalMove, match="price of location 4 is not known yet"):
        play(state, "buy Anne 4")
    state = play(state, "buy Anne 4:3 pay 4")
    j = view(state)
    assert player(state, "Anne")["juice_cards"] == ["4:3"] and j["display"]["4"] == ["4:1", "4:2", "4:4"]
    assert j["phase"] == "draw" and j["deck_top"] == "7:1"


def test_the_buyer_says_the_price_printed_on_the_card_and_the_payment_is_checked_against_it():
    state = play(g.setup(["Anne", "Paul"]), "move Anne 1", "action Anne", "move Paul 5", "action Paul",
                 "move Anne 4")
    with pytest.raises(IllegalMove, match="every juice costs fruits"):
        play(state, "buy Anne 4 pay nothing")
    with pytest.raises(IllegalMove, match="costs 4 fruits .*not 3"):
        play(state, "buy Anne 4 price 4 smoothies pay 3")
    bought = play(state, "buy Anne 4 price 4 smoothies")
    assert player(bought, "Anne")["fruits"] == 0 and bought.table[4].price.to_text() == "4 smoothies"
    assert g.parse_move("buy Anne 4 price 3 grapes + 1 smoothie pay 4").to_text() == \
        "buy Anne 4 price 3 grapes + 1 smoothie pay 4 fruits"
    # The price is known from then on: a later purchase there is checked without being told.
    later = play(bought, "draw", "move Paul 4 pay Anne")
    with pytest.raises(IllegalMove, match="says its juice costs 4 smoothies, not 2 smoothies"):
        play(later, "buy Paul 4 price 2 smoothies")


def test_a_known_price_is_paid_in_counts_when_the_kinds_are_unknown():
    state = play(g.setup(["Anne", "Paul"]), "move Anne 1", "action Anne", "move Paul 5", "action Paul",
                 "move Anne 3")
    with pytest.raises(IllegalMove, match="costs 4 fruits .*not 3"):
        play(state, "buy Anne 3 pay 3")
    state = play(state, "buy Anne 3")
    assert player(state, "Anne")["fruits"] == 0 and view(state)["discard_pile"] == 4


def test_the_entered_card_facts_reach_the_game_as_data():
    facts = '{"4": {"price": {"fruits": {}, "smoothies": 4}}}'
    state = play(g.setup(["Anne", "Paul"], {"locations": facts}), "move Anne 1", "action Anne", "move Paul 5",
                 "action Paul", "move Anne 4", "buy Anne 4")
    assert player(state, "Anne")["juices"] == 1
    assert view(state)["stacks"][3]["location"]["price_text"] == "4 smoothies"


def test_the_drawn_location_card_must_be_the_top_of_the_deck():
    state = play(g.setup(["Anne", "Paul"]), "move Anne 1", "action Anne", "move Paul 5", "action Paul",
                 "move Anne 3", "buy Anne 3:1")
    with pytest.raises(IllegalMove, match="the next card of the deck is 7:1, not 8:1"):
        play(state, "draw 8:1")
    with pytest.raises(IllegalMove, match="not 7:2"):
        play(state, "draw 7:2")
    with pytest.raises(IllegalMove, match="first the top card of the deck is drawn \\(draw 7:1\\)"):
        play(state, "move Anne 2")
    assert view(play(state, "draw"))["display"]["7"] == ["7:1"]
    assert view(play(state, "draw 7"))["display"]["7"] == ["7:1"]


def test_a_drawn_card_of_a_location_on_display_goes_on_top_of_its_stack():
    options = {"display": "7:1 / 1 / 2 / 3 / 4 / 5 / 6:1-3"}
    state = g.setup(["Anne", "Paul"], {**options, "bag": "6:4"})
    assert state.deck[0] == g.Card(7, 2)
    state = play(state, "move Anne 1", "action Anne", "move Paul 2", "action Paul draw 1", "move Anne 3",
                 "buy Anne 3", "draw 7:2")
    assert view(state)["display"]["7"] == ["7:2", "7:1"]


def test_a_used_up_stack_sends_every_animal_there_back_and_they_may_then_go_anywhere():
    options = {"display": "1 / 2 / 3 / 4 / 5 / 6:1-3 / 7:1", "bag": "6:4"}
    state = g.setup(["Anne", "Paul", "Rachel"], options)
    assert state.deck[0] == g.Card(7, 2)
    state = play(state, "move Anne 1", "action Anne", "move Paul 7", "action Paul", "move Rachel 7",
                 "action Rachel")
    state = play(state, "move Anne 7")  # pays Paul and Rachel
    assert [p["fruits"] for p in view(state)["players"]] == [2, 4, 2]
    state = play(state, "buy Anne 7 pay 2")  # location 7's price is not entered: the players say what was paid
    j = view(state)
    assert "7" not in j["display"] and j["returned"] == ["Anne", "Paul", "Rachel"]
    assert [p["location"] for p in j["players"]] == [None, None, None]
    assert "stack 7 is used up" in j["last"]
    state = play(state, "draw 7:2")
    assert view(state)["display"]["7"] == ["7:2"]  # a new stack for the next copy
    # Back in front of him, Paul may move anywhere, even to the new stack 7.
    assert g.why_illegal(state, g.parse_move("move Paul 7")) is None


def test_pass_only_when_no_other_location_is_left():
    state = g.setup(["Anne", "Paul"])
    state = play(state, "move Anne 1")
    with pytest.raises(IllegalMove, match="moved to location 1"):
        play(state, "pass Anne")
    state = play(state, "action Anne")
    with pytest.raises(IllegalMove, match="Paul can move to another location, so Paul cannot pass"):
        play(state, "pass Paul")


# -- the end ------------------------------------------------------------------------------------------

# Goal of one juice; locations 4 and 5 cost a single smoothie.
FAST = {"goal": "1", "locations": '{"4": {"price": {"smoothies": 1}}, "5": {"price": {"smoothies": 1}}}'}


def test_the_round_is_finished_after_the_goal_so_everyone_has_the_same_number_of_turns():
    state = g.setup(["Anne", "Paul", "Rachel"], {**FAST, "start": "Paul"})
    assert view(state)["last_turn"] == "Anne"  # to the right of the start player
    state = play(state, "move Paul 4", "buy Paul 4", "draw")
    j = view(state)
    assert j["final_round"] and j["ending"] == "Paul has 1 juice" and not j["over"]
    state = play(state, "move Rachel 4", "buy Rachel 4", "draw")  # Rachel pays Paul the fee, then the juice
    assert not state.over and view(state)["current"] == "Anne"
    state = play(state, "move Anne 1", "action Anne")
    j = view(state)
    assert j["over"] and j["current"] is None and [p["turns"] for p in j["players"]] == [1, 1, 1]
    # Paul and Rachel tie on one juice; Paul holds 2 fruits (1 + Rachel's fee), Rachel none.
    assert j["winners"] == ["Paul"] and "most fruits left in hand (2)" in j["reason"]
    assert j["scores"] == {"Anne": 0, "Paul": 2, "Rachel": 1} and j["losers"] == ["Anne"]
    with pytest.raises(IllegalMove, match="the game is over: Paul won"):
        play(state, "move Paul 1")


def test_the_goal_reached_on_the_last_turn_of_a_round_ends_the_game_at_once():
    state = g.setup(["Anne", "Paul"], FAST)
    state = play(state, "move Anne 1", "action Anne", "move Paul 4", "buy Paul 4", "draw")
    j = view(state)
    assert j["over"] and j["winners"] == ["Paul"] and j["reason"].startswith("Paul has 1 juice")


def test_tied_players_with_as_many_fruits_share_the_victory():
    state = g.setup(["Anne", "Paul"], FAST)
    state = play(state, "move Anne 4", "buy Anne 4", "draw", "move Paul 5", "buy Paul 5", "draw")
    j = view(state)
    assert j["over"] and j["winners"] == ["Anne", "Paul"] and "share the victory" in j["reason"]
    assert j["scores"] == {"Anne": 2, "Paul": 2} and j["losers"] == ["Anne", "Paul"]


def test_the_game_ends_after_the_round_in_which_nobody_can_move_on():
    # The legacy deck ran out: one card is left on display.
    everything = " ".join(str(n) for n in range(3, 60))
    state = g.setup(["Anne", "Paul"], {"display": "1:1", "bag": f"1:2-4 2 {everything}"})
    state = play(state, "move Anne 1", "action Anne", "move Paul 1", "action Paul")
    assert view(state)["can_pass"] and g.legal_moves(state) == [g.Pass("Anne")]
    state = play(state, "pass Anne")
    assert not state.over
    state = play(state, "pass Paul")
    j = view(state)
    assert j["over"] and j["ending"] == "no animal can move to another location"
    assert j["winners"] == ["Anne"]  # Anne holds 5 fruits (her draws and Paul's fee), Paul 3


# -- listing moves, chance and views ---------------------------------------------------------------


def test_legal_moves_are_exactly_the_moves_the_rules_allow():
    deal = "Anne=banana grapes; Paul=2 coconuts; Rachel=grapes banana"
    price = '{"2": {"price": {"fruits": {"banana": 2}, "smoothies": 2}}}'  # entered, so buys can be listed
    state = g.setup(["Anne", "Paul", "Rachel"], {"deal": deal, "locations": price})
    state = play(state, "move Anne 2", "action Anne give Rachel banana take Rachel grapes banana")
    moves = g.legal_moves(state)
    # Six locations; on 2 Anne stands, and Paul can only give her a coconut.
    assert [m.to_text() for m in moves][:2] == ["move Paul 1", "move Paul 2 pay Anne coconut"]
    assert len(moves) == 6 and all(g.why_illegal(state, m) is None for m in moves)
    state = play(state, "move Paul 2 pay Anne coconut")
    texts = {m.to_text() for m in g.legal_moves(state)}
    assert "action Paul draw strawberry" in texts  # the signpost: Paul has no banana
    assert not any(t.startswith("buy") or "give" in t for t in texts)
    state = play(state, "action Paul draw strawberry", "move Rachel 3")
    moves = g.legal_moves(state)
    assert moves and all(g.why_illegal(state, m) is None for m in moves)
    assert all(" take Anne 3" in m.to_text() or " take Anne " in m.to_text() for m in moves if "take" in m.to_text())
    assert not any("take Paul" in m.to_text() for m in moves)  # Paul holds 2 fruits, Anne 4


def test_legal_moves_cannot_list_what_the_players_enter():
    state = play(g.setup(["Anne", "Paul"]), "move Anne 5")
    assert g.legal_moves(state) is None  # location 5's action and price are not known
    state = play(g.setup(["Anne", "Paul"]), "move Anne 3")
    assert g.legal_moves(state) is None  # nobody else holds 3 fruits: the rules do not say what happens


def test_random_chance_is_the_top_card_of_the_deck_after_a_juice():
    import random

    state = play(g.setup(["Anne", "Paul"]), "move Anne 1", "action Anne", "move Paul 5", "action Paul",
                 "move Anne 3")
    assert g.random_chance(state, random.Random(1)) is None
    state = play(state, "buy Anne 3")
    assert g.random_chance(state, random.Random(1)) == g.Draw(7, 1)


def test_player_view_hides_other_hands_and_the_fruit_stack():
    state = g.setup(["Anne", "Paul"], {"deal": KNOWN_DEAL})
    mine = g.player_view(state, "Anne")
    assert mine["players"][0]["hand"]["banana"] == 1
    assert mine["players"][1]["hand"] == {"unknown": 2} and mine["players"][1]["fruits"] == 2
    assert mine["fruit_stack_kinds"] == {"unknown": 56}
    assert g.to_json(state)["players"][1]["hand"]["coconut"] == 2


def test_the_dashboard_sees_stacks_with_their_facts_and_the_end_of_game_state():
    j = view(g.setup(["Anne", "Paul"]))
    first = j["stacks"][0]
    assert first["number"] == 1 and first["count"] == 4
    assert first["location"]["action"] == "Draw 2 fruits." and first["location"]["price"] is None
    assert j["stacks"][4]["location"]["action"] == "unknown"
    assert j["stacks"][2]["location"]["price_text"] == "3 grapes + 1 smoothie"
    assert j["components"] == {"needed": [], "unknown": []}
    assert j["final_round"] is False and j["last_turn"] == "Paul" and j["destinations"] == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize(
    "module", ["companion.games.fable", "companion.games.fable.moves", "companion.games.fable.cards", "companion.carddata"]
)
def test_the_documented_examples_work(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted and result.failed == 0
