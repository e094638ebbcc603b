"""Card data on the dashboard: players fill in facts from their cards; the next game plays with them."""

from __future__ import annotations

import pytest

from companion.config import Config
from tests.test_web_support import (  # noqa: F401  (fixtures)
    app,
    client,
    make_app,
    runtime,
    with_token,
)


def test_the_card_tables_on_offer(client):
    tables = {t["game"]: t for t in client.get("/api/cards").get_json()}
    assert tables["fable"]["entry"] == "location" and "price" in tables["fable"]["fields"]
    assert tables["fable"]["unverified"] > 0


def test_unknown_facts_are_marked_and_filled_in(client):
    before = client.get("/api/cards/fable").get_json()
    assert "7" in before["unverified"] and before["entries"]["7"]["price"] is None
    response = client.post("/api/cards/fable/7", json={"fields": {"price": "6 smoothies", "name": "Pineapple grove"}})
    assert response.status_code == 200
    entry = response.get_json()["entry"]
    assert entry["price_text"] == "6 smoothies" and entry["name"] == "Pineapple grove"
    assert entry["sources"]["price"] == "entered by the players"
    after = client.get("/api/cards/fable").get_json()
    assert after["entered"] == ["7"] and "price" not in after["entries"]["7"]["missing"]


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/api/cards/fable/7", {"fields": {"price": "3"}}, 400),
        ("/api/cards/fable/7", {"fields": {"colour": "red"}}, 400),
        ("/api/cards/fable/99", {"fields": {"name": "Nowhere"}}, 400),
        ("/api/cards/fable/7", {"fields": {}}, 400),
        ("/api/cards/fable/7", {"fields": {"name": 7}}, 400),
        ("/api/cards/fable/7", {"fields": {"name": "x" * 301}}, 400),
        ("/api/cards/chess/7", {"fields": {"name": "Rook"}}, 404),
        ("/api/cards/fandooble/7", {"fields": {"name": "x"}}, 404),
    ],
)
def test_a_fact_that_does_not_check_is_refused_with_the_reason(client, path, body, status):
    response = client.post(path, json=body)
    assert response.status_code == status
    assert response.get_json()["error"]
    assert client.get("/api/cards/fable").get_json()["entered"] == []


def test_a_new_game_plays_with_the_facts_entered_but_a_game_in_play_keeps_its_own(client, runtime):
    client.post("/api/cards/fable/1", json={"fields": {"price": "2 smoothies"}})
    client.post("/api/games", json={"game": "fable", "players": ["Anne", "Paul"]})
    stack = next(s for s in runtime.snapshot()["game"]["state"]["stacks"] if s["number"] == 1)
    assert stack["location"]["price_text"] == "2 smoothies"
    response = client.post("/api/cards/fable/2", json={"fields": {"price": "4 smoothies"}})
    assert response.get_json()["applies"] == "next_game"
    stack = next(s for s in runtime.snapshot()["game"]["state"]["stacks"] if s["number"] == 2)
    assert stack["location"]["price"] is None
    # The game can be bought at location 1 because its price came with the game.
    for move in ("move Anne 1", "buy Anne 1:1", "draw"):
        assert client.post("/api/move", json={"move": move}).status_code == 200, move


def test_export_then_import_round_trips(client, runtime, tmp_path):
    client.post("/api/cards/fable/7", json={"fields": {"price": "6 smoothies"}})
    exported = client.get("/api/cards/fable/export")
    assert "attachment" in exported.headers["Content-Disposition"]
    document = exported.get_json()
    client.delete("/api/cards/fable/7", json={})
    assert client.get("/api/cards/fable").get_json()["entered"] == []
    response = client.post("/api/cards/fable/import", json={"document": document})
    assert response.status_code == 200 and response.get_json()["imported"] == 1
    assert client.get("/api/cards/fable").get_json()["entries"]["7"]["price_text"] == "6 smoothies"


@pytest.mark.parametrize(
    "document",
    [
        {"format": "something else", "version": 1, "game": "fable", "entries": {}},
        {"format": "table-companion/card-facts", "version": 1, "game": "fandooble", "entries": {}},
        {"format": "table-companion/card-facts", "version": 1, "game": "fable", "entries": {"7": {"price": "lots"}}},
        "not an object",
    ],
)
def test_a_bad_import_is_refused_and_changes_nothing(client, document):
    client.post("/api/cards/fable/7", json={"fields": {"price": "6 smoothies"}})
    response = client.post("/api/cards/fable/import", json={"document": document, "replace": True})
    assert response.status_code == 400 and response.get_json()["error"]
    assert client.get("/api/cards/fable").get_json()["entered"] == ["7"]


def test_forgetting_and_importing_are_the_game_masters(runtime, tmp_path):
    app = make_app(runtime, Config.from_mapping({"server": {"pin": "1357"}}, str(tmp_path / "config.toml")))
    client = with_token(app.test_client())
    assert client.post("/api/cards/fable/7", json={"fields": {"price": "6 smoothies"}}).status_code == 200
    assert client.delete("/api/cards/fable/7", json={}).status_code == 403
    assert client.post("/api/cards/fable/import", json={"document": {}}).status_code == 403
    client.post("/api/unlock", json={"pin": "1357"})
    assert client.delete("/api/cards/fable/7", json={}).status_code == 200


def test_an_import_may_be_larger_than_an_ordinary_request(client):
    entries = {str(n): {"name": f"Location number {n} " + "x" * 200} for n in range(1, 60)}
    document = {"format": "table-companion/card-facts", "version": 1, "game": "fable", "entries": entries}
    assert client.post("/api/cards/fable/import", json={"document": document}).status_code == 200
    assert client.post("/api/move", json={"move": "x" * 20000}).status_code == 413


def test_the_cards_page(client):
    page = client.get("/cards")
    assert page.status_code == 200 and 'src="/static/cards.js"' in page.get_data(as_text=True)
