"""The Grimm Forest through the dashboard's JSON API: each phone picks only for its own seat, the table screen
enters the pick of a seat without a phone, and the page is offered."""

from __future__ import annotations

import json

from tests.seated_web import PIN, app, client, move, phone  # noqa: F401  (fixtures)
from tests.test_web_support import runtime, with_token  # noqa: F401  (fixtures)


def test_phones_pick_for_their_own_seat_and_the_table_for_a_seat_without_a_phone(app, client):
    response = client.post("/api/games", json={"game": "grimm", "players": ["Anne", "Paul", "Rachel"], "options": {}})
    assert response.status_code == 201, response.get_json()
    anne, paul = phone(app, "Anne", "/grimm"), phone(app, "Paul", "/grimm")
    refused = move(anne, "gather Anne fable forest")  # no Fable in her hand: said why
    assert refused.status_code == 409 and "holds no Fable card" in json.dumps(refused.get_json())
    assert move(anne, "gather Paul forest").status_code == 403  # not her seat
    assert move(client, "gather Anne forest").status_code == 403  # the table screen: not a seat a phone holds
    assert move(anne, "gather Anne forest").status_code == 200
    assert move(client, "gather Rachel brickyard").status_code == 200  # Rachel has no phone
    seen = paul.get("/api/state").get_json()["game"]
    assert seen["state"]["players"][0]["chosen"] and seen["state"]["players"][0]["pick"] is None
    assert "gather Anne forest" not in json.dumps(seen) and "gather Rachel brickyard" not in json.dumps(seen)
    assert move(paul, "gather Paul forest").status_code == 200
    seen = client.get("/api/state").get_json()["game"]
    assert [p["pick"] for p in seen["state"]["players"]] == ["forest", "forest", "brickyard"]
    assert seen["to_act"] == ["Anne"] and seen["state"]["phase"] == "construction"


def test_the_grimm_page_is_offered(client):
    page = client.get("/grimm")
    assert page.status_code == 200 and b'href="/grimm"' in page.data and b"grimm.js" in page.data
