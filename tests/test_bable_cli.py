"""Bable on the command line: ``companion play bable`` and ``companion cards --game bable``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bable_table import facts_entries
from tests.test_cli_play import companion

SCENARIOS = Path(__file__).parent / "scenarios"


def _facts_file(tmp_path: Path) -> Path:
    document = {"format": "table-companion/card-facts", "version": 1, "game": "bable", "entries": facts_entries()}
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(document))
    return path


def test_the_won_game_plays_through_the_command_line_with_the_facts_entered(tmp_path, data_dir):
    result = companion("cards", "import", "--game", "bable", "--data-dir", str(data_dir), str(_facts_file(tmp_path)))
    assert result.returncode == 0, result.stderr
    script = (SCENARIOS / "bable_won.txt").read_text()
    result = companion("play", "bable", "--players", "Anne,Paul", "--data-dir", str(data_dir), stdin=script)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["result"] == "won" and state["tower_built"] == 10
    assert state["reason"] == "the tower is finished: Paul placed B10 Hall10 in the top layer"
    assert [row["level"] for row in state["clock"]] == ["done"] * 4
    assert set(state["secrets"]) == {"Anne", "Paul"}  # the command line sees everything; a phone never does


def test_a_lost_game_plays_through_the_command_line_and_is_everyones(tmp_path, data_dir):
    companion("cards", "import", "--game", "bable", "--data-dir", str(data_dir), str(_facts_file(tmp_path)))
    script = (SCENARIOS / "bable_lost_layer1.txt").read_text()
    result = companion("play", "bable", "--players", "Anne,Paul,Rachel", "--data-dir", str(data_dir), stdin=script)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["result"] == "lost" and state["over"] and state["to_act"] == []
    assert state["reason"].startswith("Anne drew the last Idea card of deck 1 while layer 1")
    assert [row["level"] for row in state["clock"]] == ["lost", "ok", "ok", "ok"]


def test_a_cost_the_players_entered_is_checked_on_the_command_line(tmp_path, data_dir):
    companion("cards", "set", "--game", "bable", "--data-dir", str(data_dir), "B2", "cost=2 cement")
    script = "deal Anne stone stone wood word give B1\ndeal Paul cement tools wood word build B2\ncommand Anne Paul\n" \
             "answer Paul build B2 pay cement tools\n"
    result = companion("play", "bable", "--players", "Anne,Paul", "--data-dir", str(data_dir), stdin=script)
    assert result.returncode == 2
    assert result.stderr.strip() == "line 4: B2 costs 2 cement, not cement tools"
    assert json.loads(result.stdout)["commanded"] == "Paul"


def test_the_card_table_shows_what_is_still_to_fill_in(data_dir):
    result = companion("cards", "show", "--game", "bable", "--unknown", "--data-dir", str(data_dir))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("B1 ") and "to fill in: name, cost, details" in lines[0]
    assert not any(line.startswith("C1 ") for line in lines)  # the rulebook prints its count: 1x
    assert lines[-1].startswith("1 cards complete, 30 with facts to fill in")
    result = companion("cards", "set", "--game", "bable", "--data-dir", str(data_dir), "b7",
                       "cost=2 stone + wood", "details=statue", "name=Lighthouse")
    assert result.stdout.strip() == "B7         Lighthouse; cost 2 stone + 1 wood; details statue  [ok]"
    result = companion("cards", "set", "--game", "bable", "--data-dir", str(data_dir), "stone", "count=40")
    assert result.returncode == 2 and "the box has 36 Resource cards" in result.stderr
