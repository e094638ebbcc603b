"""The dashboard's first page and API on the Flask test client."""

from __future__ import annotations

import pytest

from tests.test_web_support import app, client, read_stream, runtime  # noqa: F401  (fixtures: a browser with its token)


def test_a_game_started_from_the_dashboard_is_played_and_shown(client, runtime):
    response = client.post("/api/games", json={"game": "fandooble", "players": "Lola, Grace"})
    assert response.status_code == 201
    response = client.post("/api/move", json={"move": "roll CCGF"})
    assert response.status_code == 200
    state = client.get("/api/state").get_json()["game"]["state"]
    assert state["loot"] == 3 and state["current"] == "Lola"
    page = client.get("/").get_data(as_text=True)
    assert "roll CCGF" in page and "Lola" in page


def test_an_illegal_move_is_a_409_with_the_reason(client):
    client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"]})
    response = client.post("/api/move", json={"move": "bank"})
    assert response.status_code == 409
    assert response.get_json()["error"] == "Lola cannot bank: Lola has not rolled yet: a turn starts with a roll of the dice"


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/api/move", {"move": "jump"}, 400),
        ("/api/move", {}, 400),
        ("/api/move", [1, 2], 400),
        ("/api/games", {"game": "chess", "players": ["A", "B"]}, 400),
        ("/api/games", {"game": "fandooble", "players": 7}, 400),
        ("/api/undo", {}, 409),
    ],
)
def test_refusals_are_4xx_with_a_json_reason(client, path, body, status):
    client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"]})
    response = client.post(path, json=body)
    assert response.status_code == status
    assert response.get_json()["error"]


def test_undo_and_redo_from_the_dashboard(client, runtime):
    client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"]})
    client.post("/api/move", json={"move": "roll CCGF"})
    assert client.post("/api/undo").status_code == 200
    assert runtime.session.state.loot == 0
    assert client.post("/api/redo").status_code == 200
    assert runtime.session.state.loot == 3


def test_a_retried_move_with_the_same_event_id_is_applied_once(client, runtime):
    client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"]})
    for _ in range(2):
        assert client.post("/api/move", json={"move": "roll CCCF", "event_id": "tap-42"}).status_code == 200
    assert runtime.session.state.loot == 4


def test_the_event_stream_sends_the_state_at_once(client, runtime):
    client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"]})
    response = client.get("/api/stream", buffered=False)
    assert response.mimetype == "text/event-stream"
    received = read_stream(response, "event: state")
    response.close()
    assert '"name":"Lola"' in received and '"name":"Grace"' in received
