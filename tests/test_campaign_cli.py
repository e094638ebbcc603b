"""``companion campaign`` and ``companion cards`` as a group would use them on a game night."""

from __future__ import annotations

import json
import random

import pytest

from companion.cli import main
from companion.eventlog import EventLog
from companion.games import fable
from companion.session import Session


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_game_night_from_new_campaign_to_park(data_dir, capsys):
    code, out, _ = run(capsys, "campaign", "new", "--group", "Anne,Paul,Rachel", "--title", "Friday")
    assert code == 0 and "Campaign 'Friday'" in out and "#1: 1:1-4; #2: 2:1-4" in out
    code, out, _ = run(capsys, "cards", "set", "4", "price=1 smoothie")
    assert code == 0 and "price 1 smoothie" in out
    code, out, _ = run(capsys, "campaign", "game", "--players", "Anne,Paul")
    assert code == 0 and "Anne starts" in out
    game_id = out.split("Game id: ")[1].split()[0]
    with EventLog(data_dir / "companion.db") as log:
        session = Session.resume(log, game_id)
        assert session.state.table[4].price.total == 1  # the entered fact went into the game
        rng = random.Random(3)
        while session.outcome() is None:
            session.apply(fable.random_move(session.state, rng), source="cli")
    code, out, _ = run(capsys, "campaign", "show")
    assert code == 0 and "being played" in out and "'companion campaign finish' records it" in out
    code, out, _ = run(capsys, "campaign", "finish")
    assert code == 0 and "Game 1 is over" in out and "Shuffle all the fruits" in out
    code, out, _ = run(capsys, "campaign", "show", "--json")
    shown = json.loads(out)
    assert shown["games"][0]["status"] == "finished" and shown["bag_size"] > 0
    assert shown["display_count"] == 24 and len(shown["deck_next"]) == 10
    code, out, _ = run(capsys, "campaign", "show")
    assert "Display: 24 cards" in out and "Deck: " in out and "Session scores: " in out and "won by" in out
    code, out, _ = run(capsys, "campaign", "park")
    assert code == 0 and "on top of the deck in number order" in out
    code, out, _ = run(capsys, "campaign", "list")
    assert "Friday" in out and "parked" in out and "1 game;" in out


def test_refusals_say_why(data_dir, capsys):
    run(capsys, "campaign", "new", "--group", "Anne,Paul", "--title", "Friday")
    code, _, err = run(capsys, "campaign", "new", "--group", "Xena,Yuri")
    assert code == 2 and "park it first" in err
    code, _, err = run(capsys, "campaign", "reset")
    assert code == 2 and "--yes" in err
    code, _, err = run(capsys, "campaign", "resume", "Friday")
    assert code == 2 and "already on the table" in err
    code, _, err = run(capsys, "campaign", "show", "Monday")
    assert code == 2 and "no campaign 'Monday'" in err
    code, _, err = run(capsys, "cards", "set", "7", "price=3 kiwis")
    assert code == 2 and "kiwi is not a fruit of the box" in err


def test_export_and_import_through_files(data_dir, tmp_path, capsys, monkeypatch):
    run(capsys, "campaign", "new", "--group", "Anne,Paul", "--title", "Friday")
    run(capsys, "campaign", "game", "--players", "Anne,Paul")
    target = tmp_path / "friday.json"
    code, out, _ = run(capsys, "campaign", "export", "Friday", "-o", str(target))
    assert code == 0 and target.is_file()
    other = tmp_path / "other"
    code, out, _ = run(capsys, "campaign", "import", str(target), "--data-dir", str(other))
    assert code == 0 and "Imported 'Friday'" in out and "with 1 game; on the table" in out
    code, out, _ = run(capsys, "campaign", "export", "Friday", "--data-dir", str(other))
    assert json.loads(out) == json.loads(target.read_text())
    tampered = json.loads(target.read_text())
    tampered["campaign"]["title"] = "Saturday"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(tampered))
    code, _, err = run(capsys, "campaign", "import", str(bad), "--data-dir", str(tmp_path / "third"))
    assert code == 2 and "changed after it was exported" in err
    code, _, err = run(capsys, "campaign", "import", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_cards_show_set_clear_export_import(data_dir, tmp_path, capsys):
    code, out, _ = run(capsys, "cards", "show", "--unknown")
    assert code == 0 and "0 cards complete, 59 with facts to fill in" in out
    code, out, _ = run(capsys, "cards", "set", "7", "name=Pineapple Palace", "price=6 smoothies", "signpost=no",
                       "components=none", "action=Give 2 pineapples, receive 5 fruits.")
    assert code == 0 and "[ok]" in out
    code, out, _ = run(capsys, "cards", "show", "7")
    assert "Pineapple Palace; price 6 smoothies; signpost no; components none" in out
    assert "price: entered by the players" in out
    target = tmp_path / "cards.json"
    run(capsys, "cards", "export", "-o", str(target))
    run(capsys, "cards", "clear", "7")
    code, out, _ = run(capsys, "cards", "show", "7")
    assert "price ?" in out
    code, out, _ = run(capsys, "cards", "import", str(target))
    assert code == 0 and "Imported facts for 1 card." in out
    code, out, _ = run(capsys, "cards", "show", "7", "--json")
    assert json.loads(out)["price"] == {"fruits": {}, "smoothies": 6}


@pytest.mark.parametrize("verb", ["new", "list", "show", "game", "finish", "abandon", "park", "resume", "reset",
                                  "export", "import"])
def test_every_campaign_verb_has_help(verb, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["campaign", verb, "--help"])
    assert stop.value.code == 0 and "--data-dir" in capsys.readouterr().out
