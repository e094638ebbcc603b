"""Campaigns on the dashboard: a group's deck across games, park and resume, export and import."""

from __future__ import annotations

import random

import pytest

from companion.config import Config
from companion.eventlog import EventLog
from companion.games import fable
from companion.runtime import Runtime
from tests.test_web_support import (  # noqa: F401  (fixtures)
    app,
    client,
    make_app,
    runtime,
    with_token,
)

GROUP = ["Anne", "Paul", "Rachel"]


def _new(client, group=GROUP, title="Tuesday"):
    response = client.post("/api/campaigns", json={"group": group, "title": title})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _play_to_the_end(client, runtime, seed=3):
    rng = random.Random(seed)
    while not runtime.session.state.over:
        move = fable.random_move(runtime.session.state, rng).to_text()
        assert client.post("/api/move", json={"move": move}).status_code == 200, move


def test_a_new_campaign_says_how_to_lay_out_its_cards(client):
    created = _new(client)
    assert created["instructions"]["title"] == "Set up 'Tuesday'"
    assert any("6 stacks" in step for step in created["instructions"]["steps"])
    assert created["campaign"]["display_count"] == 24 and created["campaign"]["group"] == GROUP
    listed = client.get("/api/campaigns").get_json()
    assert [(c["title"], c["on_table"], c["playing"]) for c in listed] == [("Tuesday", True, False)]


def test_only_one_campaign_is_on_the_table(client):
    _new(client)
    response = client.post("/api/campaigns", json={"group": ["Lola", "Grace"]})
    assert response.status_code == 400 and "park it first" in response.get_json()["error"]


def test_a_campaign_game_is_opened_on_the_table_and_its_result_recorded(client, runtime):
    campaign_id = _new(client)["campaign"]["campaign_id"]
    response = client.post(f"/api/campaigns/{campaign_id}/games", json={"players": ["Anne", "Paul"]})
    assert response.status_code == 201
    game = runtime.snapshot()["game"]
    assert game["campaign_id"] == campaign_id and game["title"] == "Tuesday: game 1"
    assert client.get(f"/api/campaigns/{campaign_id}").get_json()["in_play"] is True
    assert client.get(f"/api/campaigns/{campaign_id}").get_json()["next_steps"] is None
    _play_to_the_end(client, runtime)
    # The end reached the campaign with the last move: nobody has to record it.
    campaign = client.get(f"/api/campaigns/{campaign_id}").get_json()
    assert campaign["current_game"] is None and campaign["games"][0]["status"] == "finished"
    winners = campaign["games"][0]["winners"]
    assert all(campaign["scores"][w] == 2 for w in winners)
    assert campaign["bag_size"] == sum(campaign["games"][0]["juices"].values())
    assert campaign["next_steps"]["title"] == "Game 1 is over"
    assert any("bag" in step for step in campaign["next_steps"]["steps"])
    again = client.post(f"/api/campaigns/{campaign_id}/finish", json={})
    assert again.status_code == 400 and "no game" in again.get_json()["error"]
    undo = client.post("/api/undo", json={})  # the result is kept: the game is sealed
    assert undo.status_code == 409 and "campaign" in undo.get_json()["error"]


def test_players_outside_the_group_cannot_play_its_game(client):
    campaign_id = _new(client)["campaign"]["campaign_id"]
    response = client.post(f"/api/campaigns/{campaign_id}/games", json={"players": ["Anne", "Zoe"]})
    assert response.status_code == 400 and "Zoe" in response.get_json()["error"]


def test_park_and_resume_list_the_cards(client):
    first = _new(client)["campaign"]["campaign_id"]
    response = client.post(f"/api/campaigns/{first}/park", json={})
    assert response.status_code == 200
    steps = " ".join(response.get_json()["instructions"]["steps"])
    assert "1:1" in steps and response.get_json()["campaign"]["on_table"] is False
    second = _new(client, ["Lola", "Grace"], "Friday")["campaign"]["campaign_id"]
    assert client.post(f"/api/campaigns/{first}/resume", json={}).status_code == 400  # Friday's cards are out
    client.post(f"/api/campaigns/{second}/park", json={})
    resumed = client.post(f"/api/campaigns/{first}/resume", json={})
    assert resumed.status_code == 200 and resumed.get_json()["campaign"]["on_table"] is True
    assert resumed.get_json()["instructions"]["steps"]


def test_a_campaign_cannot_be_parked_mid_game(client):
    campaign_id = _new(client)["campaign"]["campaign_id"]
    client.post(f"/api/campaigns/{campaign_id}/games", json={"players": ["Anne", "Paul"]})
    response = client.post(f"/api/campaigns/{campaign_id}/park", json={})
    assert response.status_code == 400 and "still being played" in response.get_json()["error"]


def test_reset_and_abandon_are_the_game_masters(runtime, tmp_path):
    app = make_app(runtime, Config.from_mapping({"server": {"pin": "8642"}}, str(tmp_path / "config.toml")))
    client = with_token(app.test_client())
    campaign_id = _new(client)["campaign"]["campaign_id"]
    client.post(f"/api/campaigns/{campaign_id}/games", json={"players": ["Anne", "Paul"]})
    assert client.post(f"/api/campaigns/{campaign_id}/abandon", json={}).status_code == 403
    assert client.post(f"/api/campaigns/{campaign_id}/reset", json={}).status_code == 403
    assert client.post("/api/campaigns/import", json={"document": {}}).status_code == 403
    client.post("/api/unlock", json={"pin": "8642"})
    abandoned = client.post(f"/api/campaigns/{campaign_id}/abandon", json={"reason": "the cat"})
    assert abandoned.status_code == 200 and abandoned.get_json()["campaign"]["games"][0]["status"] == "abandoned"
    reset = client.post(f"/api/campaigns/{campaign_id}/reset", json={})
    assert reset.status_code == 200 and reset.get_json()["campaign"]["resets"] == 1


def test_export_then_import_on_another_companion(client, runtime, tmp_path):
    campaign_id = _new(client)["campaign"]["campaign_id"]
    client.post(f"/api/campaigns/{campaign_id}/games", json={"players": ["Anne", "Paul"]})
    _play_to_the_end(client, runtime)
    exported = client.get(f"/api/campaigns/{campaign_id}/export")
    assert 'filename="Tuesday.campaign.json"' in exported.headers["Content-Disposition"]
    document = exported.get_json()
    assert client.post("/api/campaigns/import", json={"document": document}).status_code == 400  # already here
    with EventLog(tmp_path / "other" / "companion.db") as other_log, Runtime(Config.defaults(), other_log) as other:
        elsewhere = with_token(make_app(other).test_client())
        tampered = {**document, "campaign": {**document["campaign"], "title": "Stolen"}}
        refused = elsewhere.post("/api/campaigns/import", json={"document": tampered})
        assert refused.status_code == 400 and "checksum" in refused.get_json()["error"]
        assert elsewhere.get("/api/campaigns").get_json() == []
        imported = elsewhere.post("/api/campaigns/import", json={"document": document})
        assert imported.status_code == 201
        assert imported.get_json()["campaign"]["games"] == client.get(f"/api/campaigns/{campaign_id}").get_json()["games"]
        assert elsewhere.get(f"/api/campaigns/{campaign_id}/export").get_json() == document


@pytest.mark.parametrize("path", ["/api/campaigns/nope", "/api/campaigns/" + "x" * 80])
def test_an_unknown_campaign_is_a_404(client, path):
    response = client.get(path)
    assert response.status_code == 404 and response.get_json()["error"]


def test_the_campaigns_page(client):
    _new(client)
    page = client.get("/campaigns")
    assert page.status_code == 200 and 'src="/static/campaigns.js"' in page.get_data(as_text=True)
