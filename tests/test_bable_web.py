"""Bable on the dashboard, through the JSON API: each phone claims its seat and sees only its own secrets."""

from __future__ import annotations

import json

from tests.bable_table import facts_entries
from tests.seated_web import PIN, app, client, move, phone  # noqa: F401  (fixtures)
from tests.test_web_support import runtime, with_token  # noqa: F401  (fixtures)


def start(client, players=("Anne", "Paul"), **options):
    """A new game with the (made-up) card facts of tests/bable_table.py entered on the Cards page."""
    master = with_token(client.application.test_client())
    assert master.post("/api/unlock", json={"pin": PIN}).status_code == 200
    document = {"format": "table-companion/card-facts", "version": 1, "game": "bable", "entries": facts_entries()}
    assert master.post("/api/cards/bable/import", json={"document": document}).status_code == 200
    response = client.post("/api/games", json={"game": "bable", "players": list(players), "options": options})
    assert response.status_code == 201, response.get_json()


def test_each_phone_sees_its_own_hand_and_the_table_sees_none(app, client):
    start(client)
    anne, paul = phone(app, "Anne", "/bable"), phone(app, "Paul", "/bable")
    assert move(anne, "deal Anne stone stone wood word give B1").status_code == 200
    assert move(paul, "deal Paul cement tools wood word build B2").status_code == 200
    assert move(anne, "command Anne Paul").status_code == 200
    assert move(paul, "answer Paul no").status_code == 200
    assert move(anne, "reveal Anne word build").status_code == 200
    assert move(anne, "idea Anne word gather").status_code == 200
    views = {who: c.get("/api/state").get_json()["game"] for who, c in (("Anne", anne), ("Paul", paul), (None, client))}
    assert [slot["card"] for slot in views["Anne"]["state"]["you"]["hand"]] == ["start", "new", "new", "start"]
    assert views["Anne"]["state"]["you"]["buildings"] == [{"card": "B1", "face_up": False, "affordable": True}]
    assert views["Paul"]["state"]["you"]["buildings"][0]["card"] == "B2"
    assert views[None]["state"]["you"] is None and views[None]["viewer"] is None
    for who in ("Paul", None):
        state = views[who]["state"]
        assert "idea Anne word gather" not in json.dumps(views[who]["log"])
        assert "Anne drew an Idea card: a Word card" in [e["text"] for e in views[who]["log"]]
        assert "deal Anne stone stone wood word give B1" not in json.dumps(views[who]["log"])
        assert state["players"][0]["face_down"] == 1 and "B1" not in json.dumps(state["players"])
    assert views["Anne"]["to_act"] == ["Paul"] and views["Anne"]["state"]["current"] == "Paul"


def test_a_phone_cannot_answer_for_another_seat(app, client):
    start(client)
    anne, paul = phone(app, "Anne", "/bable"), phone(app, "Paul", "/bable")
    move(anne, "deal Anne stone stone wood word give B1")
    move(paul, "deal Paul cement tools wood word build B2")
    move(anne, "command Anne Paul")
    refused = move(anne, "answer Paul build B2 pay cement tools")
    assert refused.status_code == 403 and "only Paul's phone" in refused.get_json()["error"]
    assert anne.get("/api/state").get_json()["game"]["to_act"] == ["Paul"]
    # The shared screen enters moves only for players whose phone has not joined.
    assert move(client, "answer Paul no").status_code == 403


def test_the_shared_screen_enters_moves_for_a_player_without_a_phone(app, client):
    start(client, ("Anne", "Paul", "Rachel"), advanced="yes")
    anne = phone(app, "Anne", "/bable")
    move(anne, "deal Anne stone stone wood word give B1")
    assert move(client, "deal Paul cement tools wood word build B2").status_code == 200
    assert move(client, "deal Rachel stone cement tools word gather B3").status_code == 200
    move(anne, "command Anne Paul")
    assert move(client, "answer Paul no").status_code == 200
    game = client.get("/api/state").get_json()["game"]
    assert game["to_act"] == ["Paul"] and game["deciding"] == ["Paul"] and game["state"]["phase"] == "confusion"
    assert move(client, "confusion Paul words-down").status_code == 200
    refused = move(anne, "command Anne Paul")
    assert refused.status_code == 409 and "face down" in refused.get_json()["error"]


def test_the_bable_page_is_offered_and_the_cards_page_lists_its_table(client):
    games = {g["name"]: g for g in client.get("/api/games").get_json()}
    assert games["bable"]["page"] == "/bable" and games["bable"]["cooperative"] is True
    page = client.get("/bable")
    assert page.status_code == 200 and b"bable.js" in page.data and b"bable.css" in page.data
    tables = {t["game"]: t for t in client.get("/api/cards").get_json()}
    assert tables["bable"]["fields"] == ["name", "cost", "details", "count"]


def test_the_game_plays_with_the_card_facts_entered_on_the_cards_page(client, runtime):
    start(client)
    assert runtime.session.state.facts.resource_mix == (9, 9, 9, 9)
    game = client.get("/api/state").get_json()["game"]
    assert game["cooperative"] is True and game["state"]["unknown_facts"] == []
