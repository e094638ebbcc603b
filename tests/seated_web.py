"""What the JSON API tests of games played with seats share: the dashboard with a game master's PIN (a
seat's phone enters only its own player's moves), the shared table screen, and a phone on its seat."""

from __future__ import annotations

import pytest

from companion.config import Config
from tests.test_web_support import make_app, with_token

PIN = "246810"


@pytest.fixture
def app(runtime, tmp_path):
    return make_app(runtime, Config.from_mapping({"server": {"pin": PIN}}, str(tmp_path / "config.toml")))


@pytest.fixture
def client(app):
    """The shared table screen: no seat, not unlocked."""
    return with_token(app.test_client())


def phone(app, player: str, page: str):
    """A phone that opened ``player``'s seat link, sent on to the game's ``page``."""
    spectator = with_token(app.test_client())
    code = next(s["code"] for s in spectator.get("/api/seats").get_json()["seats"] if s["player"] == player)
    response = spectator.post("/api/seats/claim", json={"code": code})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["page"] == page
    return spectator


def move(client, text: str):
    return client.post("/api/move", json={"move": text})
