"""``companion play``: moves on stdin, the state as JSON on stdout, errors as ``line N: reason``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCENARIOS = Path(__file__).parent / "scenarios"


def companion(*args, stdin="", cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "companion", *args], input=stdin, capture_output=True, text=True, timeout=60, cwd=cwd
    )


def test_the_rulebook_example_replays_exactly_through_the_command_line():
    script = (SCENARIOS / "fandooble_lola_grace.txt").read_text()
    result = companion("play", "fandooble", "--players", "Lola,Grace", stdin=script)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert {p["name"]: p["stash"] for p in state["players"]} == {"Lola": 12, "Grace": 13}
    assert state["pile"] == 55
    assert state["current"] == "Grace"
    assert state["loot"] == 0 and state["dragons"] == [] and state["pending_steals"] == 0
    assert state["over"] is False and state["winners"] == []
    assert state["last_event"] == "bust"


def test_the_first_bad_line_stops_with_its_number_and_the_state_before_it():
    script = "# Lola starts\nroll CCGF\n\nroll CCCF\nbank\n"
    result = companion("play", "fandooble", "--players", "Lola,Grace", stdin=script)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "line 4: Lola cannot roll CCCF: Lola throws 2 Dragon/Treasure dice "
        "(green dragon stays on the table), but the roll shows 3"
    )
    state = json.loads(result.stdout)
    assert state["loot"] == 3 and state["dragons"] == ["G"]


def test_an_unreadable_line_is_reported_the_same_way():
    result = companion("play", "fandooble", "--players", "Lola,Grace", stdin="roll CCGF\nroll ZZZF\n")
    assert result.returncode == 2
    assert result.stderr.startswith("line 2: 'Z' is not a face")
    assert json.loads(result.stdout)["loot"] == 3


def test_options_reach_the_game():
    result = companion("play", "fandooble", "--players", "A,B", "--option", "coins=30", "--option", "stash=5")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["pile"] == 20


def test_bad_setup_is_a_clear_error():
    result = companion("play", "fandooble", "--players", "Solo")
    assert result.returncode == 2
    assert "Fandooble is for 2 to 6 players, not 1" in result.stderr
    result = companion("play", "chess", "--players", "A,B")
    assert result.returncode == 2 and "unknown game 'chess'" in result.stderr


def test_a_game_stored_with_db_resumes_where_it_stopped(tmp_path):
    db = tmp_path / "night.db"
    first = companion("play", "fandooble", "--players", "Lola,Grace", "--db", str(db), stdin="roll CCGF\n")
    assert first.returncode == 0, first.stderr
    session = json.loads(first.stdout)["session_id"]
    second = companion("play", "fandooble", "--db", str(db), "--session", session, stdin="roll RGK\nbank\n")
    assert second.returncode == 0, second.stderr
    state = json.loads(second.stdout)
    assert {p["name"]: p["stash"] for p in state["players"]} == {"Lola": 13, "Grace": 9}


def test_the_help_says_what_each_games_options_do():
    # --option KEY=VALUE named no key: a player at a terminal could not learn them without reading the code.
    result = companion("play", "--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "costs: what a floor, walls and roof cost" in text and "(default 2,4,6)" in text
    assert "coins: all the gold in the game (default 80)" in text
