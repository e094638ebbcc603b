"""What each viewer sees of The Grimm Forest, and the table's lights and command line: the picks stay on
their own phone until the last seat has chosen, then everyone sees all of them and the split."""

from __future__ import annotations

import json

from companion import leds
from companion.eventlog import EventLog
from companion.session import Session
from tests.test_cli_play import SCENARIOS, companion

THREE = ["Anne", "Paul", "Rachel"]


def test_a_pick_is_seen_only_by_its_seat_until_everyone_has_chosen(tmp_path):
    with EventLog(tmp_path / "log.db") as log:
        session = Session.create(log, "grimm", THREE, {})
        session.apply("gather Anne forest", source="dashboard")
        session.apply("gather Paul forest", source="dashboard")
        views = {v: session.view(v) for v in ("Anne", "Paul", "Rachel", None)}
        assert views["Anne"]["state"]["you"] == {"name": "Anne", "pick": "forest", "fable": False}
        for viewer in ("Paul", "Rachel", None):
            anne = views[viewer]["state"]["players"][0]
            assert anne["chosen"] is True and anne["pick"] is None and anne["fable_played"] is None
            texts = [e["text"] for e in views[viewer]["log"]]
            assert "Anne chose a collection card" in texts and "gather Anne forest" not in json.dumps(views[viewer])
        assert views[None]["state"]["players"][2]["chosen"] is False
        session.apply("gather Rachel fields", source="dashboard")
        for viewer in ("Anne", "Paul", "Rachel", None):
            view = session.view(viewer)
            assert [p["pick"] for p in view["state"]["players"]] == ["forest", "forest", "fields"]
            assert "gather Anne forest" in [e["text"] for e in view["log"]]
            forest = next(sp for sp in view["state"]["split"] if sp["location"] == "forest")
            assert forest["pigs"] == ["Anne", "Paul"] and forest["took"] == [{"straw": 0, "wood": 2, "brick": 0}] * 2


def test_a_fable_is_shown_as_laid_after_the_picks_are_all_in_but_its_card_stays_hidden(tmp_path):
    with EventLog(tmp_path / "log.db") as log:
        session = Session.create(log, "grimm", THREE, {})
        for line in ["gather Anne fields", "gather Paul fields", "gather Rachel fields"]:
            session.apply(line, source="dashboard")
        for line in ["draw Anne fable", "gain Anne straw", "gain Paul straw", "gain Paul straw", "gain Rachel straw",
                     "gain Rachel straw", "cleanup fields 3 forest 3 brickyard 3"]:
            session.apply(line, source="dashboard")
        session.apply("gather Anne fable forest", source="dashboard")
        assert session.view("Paul")["state"]["players"][0]["fables"] == 1  # still in her hand for the others
        session.apply("gather Paul forest", source="dashboard")
        session.apply("gather Rachel brickyard", source="dashboard")
        view = session.view("Paul")
        assert view["state"]["phase"] == "fables" and view["to_act"] == ["Anne"]
        assert view["state"]["players"][0]["fable_played"] is True and view["state"]["players"][0]["pick"] is None
        assert "Anne chose a collection card and laid a Fable on it" in [e["text"] for e in view["log"]]
        session.apply("fable Anne monster forest", source="dashboard")
        view = session.view("Paul")
        assert view["state"]["players"][0]["pick"] == "forest"
        assert next(loc for loc in view["state"]["locations"] if loc["id"] == "forest")["monster"] is True


def test_seats_still_choosing_pulse_and_the_acting_seat_is_lit_in_construction(tmp_path):
    with EventLog(tmp_path / "log.db") as log:
        session = Session.create(log, "grimm", THREE, {}, seats="1,3,5")
        assert leds.scene_for(session).modes == ("pulse", "off", "pulse", "off", "pulse")
        session.apply("gather Paul forest", source="dashboard")
        assert leds.scene_for(session).modes == ("pulse", "off", "off", "off", "pulse")
        session.apply("gather Anne fields", source="dashboard")
        session.apply("gather Rachel brickyard", source="dashboard")
        assert session.to_act() == ("Anne",)
        assert leds.scene_for(session).modes == ("on", "off", "off", "off", "off")
        session.apply("gain Anne straw", source="dashboard")
        session.apply("gain Anne straw", source="dashboard")
        assert leds.scene_for(session).modes == ("off", "off", "on", "off", "off")  # Paul's turn


def test_the_three_player_scenario_plays_through_the_command_line(data_dir):
    script = (SCENARIOS / "grimm_three_players.txt").read_text()
    result = companion("play", "grimm", "--players", "Anne,Paul,Rachel", "--data-dir", str(data_dir), stdin=script)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["round"] == 5 and state["first_player"] == "Paul" and state["phase"] == "collect"
    assert {p["name"]: p["friend"]["id"] if p["friend"] else None for p in state["players"]} == \
        {"Anne": "wish", "Paul": None, "Rachel": "fairy-godmother"}
    result = companion("play", "grimm", "--players", "Anne,Paul", "--data-dir", str(data_dir),
                       stdin="prince wood\ngather Anne market\n")
    assert result.returncode != 0 and "line 2" in result.stderr and "only with four players" in result.stderr
