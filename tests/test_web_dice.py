"""The dice on the dashboard: what the camera knows, which kind it reads, and taught faces in new games."""

from __future__ import annotations

import json

from companion.config import Config
from tests.test_web_support import (  # noqa: F401  (fixtures)
    app,
    client,
    make_app,
    runtime,
    with_token,
)


def test_what_the_camera_knows_about_the_dice(client):
    dice = client.get("/api/dice").get_json()
    assert dice["kind"] == "pips" and dice["dice"] == {} and dice["fandooble_option"] is None
    assert dice["kinds"] == ["pips", "taught", "aruco"]


def test_the_sticker_table_is_saved_and_read(client):
    response = client.post("/api/dice/aruco", json={"table": {"0": "c", "1": "G", "2": "R"}})
    assert response.status_code == 200
    assert response.get_json()["kind"] == "aruco" and response.get_json()["face_table"] == {"0": "C", "1": "G", "2": "R"}
    assert client.post("/api/dice/kind", json={"kind": "pips"}).get_json()["kind"] == "pips"


def test_bad_dice_settings_are_refused(client):
    assert client.post("/api/dice/aruco", json={"table": {"x": "C"}}).status_code == 400
    assert client.post("/api/dice/aruco", json={"table": []}).status_code == 400
    response = client.post("/api/dice/kind", json={"kind": "taught"})  # nothing taught yet
    assert response.status_code == 400 and "teach" in response.get_json()["error"]
    assert client.post("/api/dice/kind", json={"kind": "crystal ball"}).status_code == 400


def test_changing_the_dice_is_the_game_masters(runtime, tmp_path):
    app = make_app(runtime, Config.from_mapping({"server": {"pin": "9753"}}, str(tmp_path / "config.toml")))
    client = with_token(app.test_client())
    assert client.post("/api/dice/kind", json={"kind": "pips"}).status_code == 403
    assert client.post("/api/dice/aruco", json={"table": {"0": "C"}}).status_code == 403
    assert client.get("/api/dice").status_code == 200


def test_a_new_fandooble_game_uses_the_taught_face_counts(client, runtime, tmp_path):
    # What 'companion dice teach' leaves in the data directory for two taught dice.
    folder = tmp_path / "dice"
    folder.mkdir()
    (folder / "dice.json").write_text(json.dumps({
        "kind": "taught", "dice": {"dragon": "CCCGGR", "special": "FFKKWW"}, "face_table": {}, "samples": []}))
    assert client.get("/api/dice").get_json()["fandooble_option"] == "faces=CCCGGR/FFKKWW"
    client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"]})
    faces = runtime.snapshot()["game"]["state"]["faces"]
    assert faces["dragon"] == {"C": 3, "G": 2, "R": 1} and faces["verified"] is True
    # A game started with its own faces keeps them.
    client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"], "options": {"faces": "CCGGRR/FFKKWW"}})
    assert runtime.snapshot()["game"]["state"]["faces"]["dragon"] == {"C": 2, "G": 2, "R": 2}
