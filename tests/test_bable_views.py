"""What each viewer sees of a Bable game: their own hand and face-down buildings, nobody else's;
the clock on the shared screen; the log in public words; the LEDs of the overseer and the commanded."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import leds
from companion.eventlog import EventLog
from companion.games import bable
from companion.games.bable.state import IdeaDeck
from companion.session import Session
from tests.bable_table import FACTS, dealt, options, play

GAME = bable.GAME


def test_a_player_sees_their_own_hand_and_face_down_building_and_no_one_elses():
    state = play(dealt(("Anne", "Paul", "Rachel")), "command Anne Paul", "answer Paul no",
                 "command Anne Paul", "answer Paul no", "idea Anne word reveal")
    anne = GAME.player_view(state, "Anne")
    assert [slot["card"] for slot in anne["you"]["hand"]] == ["start", "start", "new", "new"]
    assert [b["card"] for b in anne["you"]["buildings"]] == ["B1"]
    assert anne["buildings"]["B1"]["cost_text"] == "1 stone + 1 wood" and anne["you"]["buildings"][0]["affordable"]
    paul = GAME.player_view(state, "Paul")
    assert [b["card"] for b in paul["you"]["buildings"]] == ["B2"]
    table = GAME.player_view(state, None)
    assert table["you"] is None
    for view in (table, paul):
        text = json.dumps({k: v for k, v in view.items() if k not in ("you", "buildings")})
        assert "B1" not in text  # Anne's face-down building
        assert view["players"][0]["face_down"] == 1 and view["players"][0]["hand_size"] == 4


def test_the_shared_screen_shows_the_clock_per_layer():
    state = play(dealt(), "command Anne Paul", "answer Paul build B2 pay cement tools")
    rows = GAME.player_view(state, None)["clock"]
    assert [(r["layer"], r["built"], r["missing"], r["deck_cards"], r["draws_left"]) for r in rows] == [
        (1, 1, 3, 13, 13), (2, 0, 3, 7, 20), (3, 0, 2, 4, 24), (4, 0, 1, 2, 26)]
    assert [r["level"] for r in rows] == ["ok"] * 4
    near = play(dealt(), "reveal Anne word build", "reveal Anne word give")
    from dataclasses import replace
    near = replace(near, decks=(IdeaDeck(2, 0), IdeaDeck(5, 2), IdeaDeck(3, 1), IdeaDeck(2, 0)))
    assert [r["level"] for r in GAME.player_view(near, None)["clock"]] == ["amber", "ok", "ok", "ok"]
    near = play(near, "idea Anne word build")
    assert GAME.player_view(near, None)["clock"][0]["level"] == "red"
    lost = play(near, "reveal Paul word build", "reveal Paul word give", "idea Paul word build")
    assert GAME.player_view(lost, None)["clock"][0]["level"] == "lost"


@pytest.mark.parametrize("moves", [
    ["deal Anne stone stone wood word give B1", "deal Anne stone stone wood word build B5",
     "deal Anne stone stone wood word reveal B?"],
    ["idea Anne word give", "idea Anne word build", "idea Anne word reveal"],
    ["idea Anne B7", "idea Anne B?", "idea Anne B12"],  # that it is a Building card everyone sees
    ["confusion Paul redraw-word give", "confusion Paul redraw-word build"],
    ["confusion Paul drop-word give", "confusion Paul drop-word reveal"],
])
def test_a_secret_moves_public_words_do_not_depend_on_the_secret(moves):
    state = dealt()
    words = {GAME.public_text(bable.parse_move(move), state, state) for move in moves}
    assert len(words) == 1 and None not in words
    assert not any(f"B{n}" in next(iter(words)) for n in range(1, 17))
    assert GAME.public_text(bable.parse_move("command Anne Paul"), state, state) is None


def test_a_face_down_building_given_away_is_not_named_to_the_others():
    state = play(dealt(("Anne", "Paul", "Rachel")), "command Anne Paul")
    after = play(state, "answer Paul give B2 cement to Rachel")
    words = GAME.public_text(bable.parse_move("answer Paul give B2 cement to Rachel"), after, after)
    assert words == "answer Paul give cement a face-down Building card to Rachel"
    shown = play(dealt(("Anne", "Paul", "Rachel")), "command Anne Paul", "answer Paul reveal B2", "command Anne Paul")
    after = play(shown, "answer Paul give B2 to Rachel")
    assert GAME.public_text(bable.parse_move("answer Paul give B2 to Rachel"), after, after) is None


def test_the_log_shows_each_phone_only_its_own_secrets(tmp_path):
    with EventLog(tmp_path / "log.db") as log:
        session = Session.create(log, "bable", ["Anne", "Paul"], options())
        for line in ["deal Anne stone stone wood word give B1", "deal Paul cement tools wood word build B2",
                     "command Anne Paul", "answer Paul no", "reveal Anne word build", "idea Anne word gather"]:
            session.apply(line, source="dashboard")
        texts = {viewer: [e["text"] for e in session.view(viewer)["log"]] for viewer in ("Anne", "Paul", None)}
    assert "idea Anne word gather" in texts["Anne"]
    assert "Anne drew an Idea card: a Word card" in texts["Paul"] and "Anne drew an Idea card: a Word card" in texts[None]
    assert "deal Paul cement tools wood word build B2" in texts["Paul"]
    for viewer in ("Anne", None):
        assert not any("word build B2" in t or "gather" in t.split() for t in texts[viewer] if "Paul" in t)
    assert "reveal Anne word build" in texts[None]  # shown to everyone


def test_the_overseer_is_lit_and_the_commanded_seat_pulses(tmp_path):
    with EventLog(tmp_path / "log.db") as log:
        session = Session.create(log, "bable", ["Anne", "Paul", "Rachel"], options(), seats="1,3,5")
        for line in ["deal Anne stone stone wood word give B1", "deal Paul cement tools wood word build B2"]:
            session.apply(line, source="dashboard")
        assert leds.scene_for(session).modes == ("off", "off", "off", "off", "on")  # Rachel still to deal
        session.apply("deal Rachel stone cement tools word gather B3", source="dashboard")
        assert leds.scene_for(session).modes == ("on", "off", "off", "off", "off")
        session.apply("command Anne Rachel", source="dashboard")
        assert leds.scene_for(session).modes == ("on", "off", "off", "off", "pulse")
        session.apply("answer Rachel no", source="dashboard")
        assert leds.scene_for(session).modes == ("on", "off", "off", "off", "off")


# -- the leak check, directly: other worlds the viewer cannot tell apart -----------------------------------


def _states(seed: int, players: int, advanced: bool):
    rng = random.Random(seed)
    state = bable.setup(["Anne", "Paul", "Rachel", "Tom", "Zoe"][:players], options(advanced, seed % 2 == 0))
    states = [state]
    for _, state in bable.play_random_game(state, rng, eager=True, misunderstand=0.3):
        states.append(state)
    return states[:: max(1, len(states) // 12)]


@settings(max_examples=25)
@given(st.integers(0, 10**6), st.integers(2, 5), st.booleans())
def test_no_view_can_tell_the_secrets_of_others_apart(seed, players, advanced):
    rng = random.Random(seed)
    changed = 0
    for state in _states(seed, players, advanced):
        for viewer in (None, *state.players):
            other = GAME.scramble_secrets(state, viewer, rng)
            assert GAME.player_view(other, viewer) == GAME.player_view(state, viewer)
            changed += other != state
    assert changed  # the secrets really were dealt again


def test_a_view_that_showed_a_secret_would_be_caught():
    state = dealt(("Anne", "Paul", "Rachel"))
    rng = random.Random(1)
    leaky = lambda s, viewer: {**GAME.player_view(s, viewer), "hands": [seat.hand for seat in s.seats]}  # noqa: E731
    assert any(leaky(GAME.scramble_secrets(state, "Anne", rng), "Anne") != leaky(state, "Anne") for _ in range(20))


def test_the_card_facts_reach_the_view_for_everyone_to_read():
    view = GAME.player_view(bable.setup(["Anne", "Paul"], {"cards": FACTS}), None)
    assert view["buildings"]["B1"] == {"card": "B1", "name": "Hall1", "cost": {"stone": 1, "wood": 1},
                                    "cost_text": "1 stone + 1 wood", "details": ["statue"]}
    assert view["unknown_facts"] == []
    blank = GAME.player_view(bable.setup(["Anne", "Paul"]), None)
    assert "how many Resource cards of each type there are" in blank["unknown_facts"]
    assert any("Confusion deck runs out" in d for d in blank["decisions"])
