"""``companion play fable``: the rulebook scenario through the command line, and what it prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCENARIOS = Path(__file__).parent / "scenarios"


def companion(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "companion", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def scenario_setup(name):
    players, options = None, []
    for line in (SCENARIOS / name).read_text().splitlines():
        if line.startswith("#! players "):
            players = line.split(None, 2)[2]
        elif line.startswith("#! option "):
            options += ["--option", line.split(None, 2)[2]]
    return ["--players", players, *options]


def test_the_rulebook_scenario_plays_through_the_command_line_and_prints_the_table():
    script = (SCENARIOS / "fable_rulebook_examples.txt").read_text()
    result = companion("play", "fable", *scenario_setup("fable_rulebook_examples.txt"), stdin=script)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    for key in ("display", "deck_size", "deck_next", "bag_size", "players", "current", "start_player", "over", "winners"):
        assert key in state
    assert state["display"]["3"] == ["3:2", "3:3", "3:4"] and state["display"]["7"] == ["7:1"]
    assert state["deck_size"] == 215 and state["deck_next"] == [7, 7, 7, 8, 8, 8, 8, 9, 9, 9]
    assert state["bag_size"] == 0
    assert [(p["name"], p["location"], p["juices"], p["fruits"]) for p in state["players"]] == [
        ("Anne", 4, 0, 0), ("Paul", 6, 0, 4), ("Camille", 3, 1, 0), ("Rachel", 1, 0, 5)]
    assert state["current"] == "Anne" and state["start_player"] == "Anne"
    assert state["over"] is False and state["winners"] == []


def test_an_illegal_line_stops_with_its_number_and_the_reason():
    script = "move Anne 5\naction Anne\nmove Paul 5\naction Paul\nmove Anne 5\n"
    result = companion("play", "fable", "--players", "Anne,Paul", stdin=script)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "line 5: Anne cannot move Anne 5: Anne's animal already stands on location 5: move to another one"
    )
    assert json.loads(result.stdout)["players"][1]["fruits"] == 1  # Paul paid Anne the fee
