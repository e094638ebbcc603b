"""The flow helper: a round's phases as data (which moves each allows, who acts, what comes next)."""

from __future__ import annotations

import pytest

from companion.flow import Flow, Phase

PLAYERS = ("Anne", "Paul", "Rachel")
FLOW = Flow(
    Phase("choose", frozenset({"pick"}), simultaneous=True, next="resolve"),
    Phase("resolve", frozenset({"fable"}), next="build"),
    Phase("build", frozenset({"gain", "build"}), actions=2, next="cleanup"),
    Phase("cleanup", frozenset({"cleanup"}), table=True, next="choose"),
)


def test_a_simultaneous_phase_waits_for_everyone_not_done_in_seat_order():
    assert FLOW.to_act("choose", PLAYERS, first=2) == PLAYERS
    assert FLOW.to_act("choose", PLAYERS, first=2, done=("Anne",)) == ("Paul", "Rachel")
    assert FLOW.to_act("choose", PLAYERS, first=0, done=PLAYERS) == ()


def test_turns_go_clockwise_from_the_first_player_and_may_concern_only_some():
    assert FLOW.turn_order(PLAYERS, 1) == ("Paul", "Rachel", "Anne")
    assert FLOW.to_act("build", PLAYERS, first=1) == ("Paul",)
    assert FLOW.to_act("build", PLAYERS, first=1, done=("Paul", "Rachel")) == ("Anne",)
    assert FLOW.to_act("resolve", PLAYERS, first=1, among=("Anne", "Rachel")) == ("Rachel",)


def test_a_table_step_waits_for_nobody_and_each_phase_names_its_moves_and_successor():
    assert FLOW.to_act("cleanup", PLAYERS, first=0) == ()
    assert FLOW.allows("build", "gain") and not FLOW.allows("choose", "gain")
    assert FLOW.why_not("choose", "gain") == "'gain' is not a move of the choose phase (it allows pick)"
    assert FLOW["build"].actions == 2 and FLOW.next("cleanup") == "choose"


def test_a_phase_followed_by_an_unknown_one_is_refused():
    with pytest.raises(ValueError, match="unknown phase"):
        Flow(Phase("a", frozenset(), next="b"))
