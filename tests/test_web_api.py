"""The dashboard's JSON API and pages on the Flask test client: what a person at the table can do."""

from __future__ import annotations

import pytest

from companion.config import Config
from tests.test_web_support import (  # noqa: F401  (fixtures)
    app,
    client,
    make_app,
    runtime,
    start_fandooble,
    with_token,
)

PAGES = ("/", "/fandooble", "/setup")


@pytest.mark.parametrize("path", PAGES)
def test_every_page_opens_with_the_navigation_and_the_state(client, path):
    start_fandooble(client)
    page = client.get(path)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert 'href="/fandooble"' in text and 'href="/setup"' in text and 'aria-current="page"' in text
    assert '"name": "Lola"' in text  # the snapshot for the first paint


def test_the_state_api_answers_without_a_game(client):
    snapshot = client.get("/api/state").get_json()
    assert snapshot["game"] is None and snapshot["alerts"] == [] and snapshot["version"] >= 1


def test_the_games_on_offer_name_their_options(client):
    offered = {g["name"]: g for g in client.get("/api/games").get_json()}
    assert offered["fandooble"]["title"] == "Fandooble"
    assert offered["fandooble"]["options"]["coins"] == "all the gold in the game (default 80)"


def test_a_game_with_options_and_a_title(client, runtime):
    response = client.post("/api/games", json={"game": "fandooble", "players": ["A", "B", "C"],
                                               "options": {"coins": 60, "stash": "4"}, "title": "Friday"})
    assert response.status_code == 201
    state = response.get_json()["state"]
    assert [p["stash"] for p in state["players"]] == [4, 4, 4] and state["pile"] == 48
    assert response.get_json()["title"] == "Friday"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "fandooble", "players": "A, B", "options": {"coins": [1]}}, "options"),
        ({"game": "fandooble", "players": "A, B", "options": "coins=3"}, "options"),
        ({"game": "fandooble", "players": ["x" * 41, "B"]}, "players"),
        ({"game": "fandooble", "players": [f"P{i}" for i in range(13)]}, "players"),
        ({"game": "", "players": "A, B"}, "game"),
        ({"players": "A, B"}, "game"),
    ],
)
def test_a_bad_new_game_is_refused_naming_the_field(client, body, field):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert response.get_json()["field"] == field


def test_the_engine_refuses_a_bad_setup_with_its_reason(client):
    response = client.post("/api/games", json={"game": "fandooble", "players": ["Lola"]})
    assert response.status_code == 400
    assert "2 to 6 players" in response.get_json()["error"]


def test_the_legal_moves_are_listed_for_quick_buttons(client):
    start_fandooble(client)
    client.post("/api/move", json={"move": "roll CCCF"})
    legal = client.get("/api/game/legal").get_json()
    assert "bank" in legal["moves"] and legal["count"] == len(legal["moves"])


def test_a_steal_then_bank_shows_in_each_players_gold_over_the_game(client):
    start_fandooble(client, ["Lola", "Grace", "Paul"])
    for move in ("roll CCCF", "steal Paul", "bank"):
        assert client.post("/api/move", json={"move": move}).status_code == 200
    series = client.get("/api/game/series").get_json()
    assert series["players"] == ["Lola", "Grace", "Paul"] and series["fields"] == ["stash"]
    gold = {name: [p["values"][name]["stash"] for p in series["points"]] for name in series["players"]}
    assert gold == {"Lola": [5, 5, 5, 9], "Grace": [5, 5, 5, 5], "Paul": [5, 5, 4, 4]}
    assert [p["text"] for p in series["points"]] == ["start", "roll CCCF", "steal Paul", "bank"]


def test_an_undone_move_leaves_the_chart(client):
    start_fandooble(client)
    client.post("/api/move", json={"move": "roll CCCF"})
    client.post("/api/move", json={"move": "bank"})
    client.post("/api/undo", json={})
    series = client.get("/api/game/series").get_json()
    assert [p["text"] for p in series["points"]] == ["start", "roll CCCF"]


def test_correcting_a_misread_roll(client, runtime):
    start_fandooble(client)
    event = runtime.play("roll CCGF", source="camera")
    response = client.post("/api/correct", json={"target": event.event_id, "move": "roll CCCF"})
    assert response.status_code == 200
    assert response.get_json()["state"]["game"]["state"]["loot"] == 4
    assert response.get_json()["event"]["text"] == "correct roll CCGF -> roll CCCF"


def test_a_correction_offers_the_moves_allowed_in_the_misread_moves_place(client, runtime):
    start_fandooble(client, ["Lola", "Grace", "Paul"])
    first = runtime.play("roll CCCF", source="camera")
    client.post("/api/move", json={"move": "steal Paul"})
    choices = client.get(f"/api/game/legal?instead_of={first.event_id}").get_json()
    assert "roll CCGF" in choices["moves"] and "steal Paul" not in choices["moves"]
    assert choices["count"] == len(choices["moves"])
    response = client.get("/api/game/legal?instead_of=nonsense")
    assert response.status_code == 409 and "not in effect" in response.get_json()["error"]


def test_a_correction_that_makes_later_moves_illegal_is_refused(client, runtime):
    start_fandooble(client, ["Lola", "Grace", "Paul"])
    first = runtime.play("roll CCCF", source="camera")
    client.post("/api/move", json={"move": "steal Paul"})
    response = client.post("/api/correct", json={"target": first.event_id, "move": "roll CCCK"})
    assert response.status_code == 409 and "steal Paul" in response.get_json()["error"]


def _alert(runtime, move=None):
    return runtime.raise_alert("expected 3 dice, saw 4", source="camera", payload={"move": move} if move else {})


def test_an_alert_is_accepted_from_the_dashboard(client, runtime):
    start_fandooble(client)
    alert = _alert(runtime, "roll CCGF")
    assert [a["event_id"] for a in client.get("/api/state").get_json()["alerts"]] == [alert.event_id]
    response = client.post(f"/api/alerts/{alert.event_id}/resolve", json={"resolution": "accept"})
    assert response.status_code == 200
    state = response.get_json()["state"]
    assert state["alerts"] == [] and state["game"]["state"]["loot"] == 3


def test_an_alert_is_corrected_or_dismissed(client, runtime):
    start_fandooble(client)
    first = _alert(runtime, "roll CCGF")
    response = client.post(f"/api/alerts/{first.event_id}/resolve", json={"resolution": "correct", "move": "roll CCCF"})
    assert response.get_json()["state"]["game"]["state"]["loot"] == 4
    second = _alert(runtime)
    response = client.post(f"/api/alerts/{second.event_id}/resolve", json={"resolution": "dismiss"})
    assert response.status_code == 200 and response.get_json()["state"]["alerts"] == []
    assert response.get_json()["state"]["game"]["state"]["loot"] == 4


@pytest.mark.parametrize(
    ("body", "status", "reason"),
    [
        ({"resolution": "maybe"}, 400, "bad_field"),
        ({"resolution": "correct"}, 400, "bad_field"),
        ({"resolution": "accept"}, 409, "IllegalMove"),  # the alert proposes no move
    ],
)
def test_bad_alert_resolutions_are_refused(client, runtime, body, status, reason):
    start_fandooble(client)
    alert = _alert(runtime)
    response = client.post(f"/api/alerts/{alert.event_id}/resolve", json=body)
    assert response.status_code == status and response.get_json()["reason"] == reason


def test_resolving_an_alert_twice_is_a_409(client, runtime):
    start_fandooble(client)
    alert = _alert(runtime)
    assert client.post(f"/api/alerts/{alert.event_id}/resolve", json={"resolution": "dismiss"}).status_code == 200
    response = client.post(f"/api/alerts/{alert.event_id}/resolve", json={"resolution": "dismiss"})
    assert response.status_code == 409 and "already resolved" in response.get_json()["error"]


def test_the_same_alert_said_again_is_one_alert_with_its_count_and_latest_time(client, runtime):
    start_fandooble(client)
    repeated = [_alert(runtime) for _ in range(30)]
    other = runtime.raise_alert("the light is too dim to read the dice", source="camera")
    alerts = client.get("/api/state").get_json()["alerts"]
    assert [(a["text"], a["count"]) for a in alerts] == [("expected 3 dice, saw 4", 30),
                                                         ("the light is too dim to read the dice", 1)]
    assert alerts[0]["event_id"] == repeated[-1].event_id and alerts[0]["first_time"] == repeated[0].time
    # Dismissing the merged alert (by any of its ids) dismisses all thirty.
    response = client.post(f"/api/alerts/{repeated[3].event_id}/resolve", json={"resolution": "dismiss"})
    assert [a["event_id"] for a in response.get_json()["state"]["alerts"]] == [other.event_id]


def test_dismiss_all_clears_the_panel_in_one_step(client, runtime):
    start_fandooble(client)
    for n in range(5):
        runtime.raise_alert(f"die {n} could not be read", source="camera")
    response = client.post("/api/alerts/dismiss-all", json={})
    assert response.status_code == 200 and response.get_json()["state"]["alerts"] == []
    assert client.post("/api/alerts/dismiss-all", json={}).get_json()["event"] is None  # nothing left: no event


def test_moves_need_a_game_in_play(client):
    for path, body in (("/api/move", {"move": "bank"}), ("/api/undo", {}), ("/api/redo", {}),
                       ("/api/correct", {"target": "x", "move": "bank"})):
        response = client.post(path, json=body)
        assert response.status_code == 409 and "no game is in play" in response.get_json()["error"], path


def test_a_stored_game_is_opened_again(client, runtime):
    first = start_fandooble(client)
    client.post("/api/move", json={"move": "roll CCCF"})
    # Starting another while one is in play is a question first; the replaced game stays stored.
    refused = client.post("/api/games", json={"game": "fandooble", "players": ["Anne", "Paul"]})
    assert refused.status_code == 409 and refused.get_json()["reason"] == "game_in_play"
    assert "Lola, Grace" in refused.get_json()["error"] and runtime.session.session_id == first["session_id"]
    replaced = client.post("/api/games", json={"game": "fandooble", "players": ["Anne", "Paul"], "replace": True})
    assert replaced.status_code == 201
    history = client.get("/api/games/history").get_json()
    assert [g["players"] for g in history] == [["Anne", "Paul"], ["Lola", "Grace"]]
    assert [g["in_play"] for g in history] == [True, False]
    assert client.post(f"/api/games/{first['session_id']}/open", json={}).get_json()["reason"] == "game_in_play"
    response = client.post(f"/api/games/{first['session_id']}/open", json={"replace": True})
    assert response.status_code == 200 and response.get_json()["state"]["loot"] == 4
    assert client.post("/api/games/nope/open", json={}).status_code == 404


def test_health_reports_the_runtime_the_camera_and_the_streams(client, runtime):
    runtime.set_health("camera", "degraded", "no table in view")
    health = client.get("/api/health").get_json()
    assert health["runtime"] == "ok"
    assert health["health"]["camera"]["status"] == "degraded"
    assert health["streams"] == {"events": {"open": 0, "cap": 12}, "video": {"open": 0, "cap": 2}}


def test_a_busy_runtime_is_a_503_not_a_hang(client, runtime, monkeypatch):
    from concurrent.futures import TimeoutError as FutureTimeout

    def busy(*args, **kwargs):
        raise FutureTimeout()

    monkeypatch.setattr(runtime, "play", busy)
    response = client.post("/api/move", json={"move": "bank"})
    assert response.status_code == 503 and response.headers["Retry-After"] == "2"


# -- configuration and calibration -----------------------------------------------------


@pytest.fixture
def configured(runtime, tmp_path):
    path = tmp_path / "config.toml"
    config = Config.from_mapping({"camera": {"work_width": 960}}, str(path))
    return with_token(make_app(runtime, config).test_client()), path


def test_the_configuration_is_listed_with_help_and_defaults(configured):
    client, path = configured
    described = client.get("/api/config").get_json()
    assert described["path"] == str(path)
    port = next(k for s in described["sections"] if s["name"] == "server" for k in s["keys"] if k["key"] == "port")
    assert port == {"key": "port", "value": 8080, "is_set": None, "secret": False, "default": 8080, "type": "int",
                    "help": "port of the dashboard", "applies": "restart", "choices": None}
    mains = next(k for s in described["sections"] if s["name"] == "camera" for k in s["keys"] if k["key"] == "mains_hz")
    assert mains["choices"] == ["auto", 50, 60, 0] and mains["value"] == "auto"  # picked, not typed


def test_a_configuration_change_is_checked_saved_and_reported(configured, runtime):
    client, path = configured
    response = client.post("/api/config", json={"changes": {"server": {"port": 8081, "trusted_hosts": ["games.lan"]}}})
    assert response.status_code == 200
    assert response.get_json()["restart_needed"] == ["server.port"]
    saved = Config.load(path)
    assert saved.get("server", "port") == 8081 and saved.get("camera", "work_width") == 960
    assert runtime.config.get("server", "port") == 8081
    # A trusted host name applies at once.
    assert client.get("/api/state", headers={"Host": "games.lan:8080"}).status_code == 200


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"server": {"port": 80000}}, "server.port"),
        ({"server": {"pin": "12ab"}}, "server.pin"),
        ({"camera": {"backend": "webcam"}}, "camera.backend"),
        ({"server": {"colour": "red"}}, "server.colour"),
        ({"lights": {"on": True}}, None),
    ],
)
def test_a_bad_configuration_is_refused_with_the_key_and_nothing_is_saved(configured, changes, field):
    client, path = configured
    response = client.post("/api/config", json={"changes": changes})
    assert response.status_code == 400 and response.get_json()["reason"] == "bad_config"
    assert response.get_json().get("field") == field
    assert not path.exists()


@pytest.mark.parametrize("changes", [None, [], {}, {"server": 5}])
def test_a_malformed_configuration_change_is_a_400(configured, changes):
    client, _ = configured
    response = client.post("/api/config", json={"changes": changes})
    assert response.status_code == 400 and response.get_json()["field"] == "changes"


def _camera_shows(runtime, width: int, height: int) -> None:
    """The live view shows a picture of the camera's working ``width`` x ``height`` picture (drawn 960 wide)."""
    import numpy as np

    shown = round(height * min(1.0, runtime.live_view.width / width))
    runtime.live_view.publish(np.full((shown, min(width, runtime.live_view.width), 3), 120, np.uint8), force=True,
                              picture=(width, height))


def test_the_table_corners_clicked_on_the_live_view_are_stored_in_working_image_pixels(configured, runtime):
    client, path = configured
    _camera_shows(runtime, 960, 540)
    body = {"corners": [[10, 10], [470, 12], [475, 260], [8, 258]], "image_size": [480, 270]}
    response = client.post("/api/calibration", json=body)
    assert response.status_code == 200
    expected = [[20.0, 20.0], [940.0, 24.0], [950.0, 520.0], [16.0, 516.0]]
    assert response.get_json()["corners_px"] == expected
    assert Config.load(path).get("table", "corners_px") == expected
    assert client.delete("/api/calibration", json={}).get_json()["corners_px"] == []
    assert Config.load(path).get("table", "corners_px") == []


def test_the_dice_tray_tapped_on_the_live_view_is_stored_and_read_at_once(configured, runtime):
    client, path = configured
    _camera_shows(runtime, 960, 540)
    body = {"corners": [[100, 50], [300, 52], [302, 200], [98, 198]], "image_size": [480, 270]}
    response = client.post("/api/tray", json=body)
    assert response.status_code == 200
    expected = [[200.0, 100.0], [600.0, 104.0], [604.0, 400.0], [196.0, 396.0]]
    assert response.get_json()["tray_px"] == expected
    assert Config.load(path).get("table", "tray_px") == expected
    assert Config.load(path).get("table", "picture_px") == [960, 540]  # what its pixels are of
    assert runtime.config.get("table", "tray_px") == expected  # the camera pipeline reads it from the next frame
    assert client.delete("/api/tray", json={}).get_json()["tray_px"] == []
    assert runtime.config.get("table", "tray_px") == []


def test_a_tray_marked_towards_the_edge_of_the_cameras_view_is_saved_with_a_word_on_why_fewer_dice_are_read(
        configured, runtime):
    client, path = configured
    _camera_shows(runtime, 960, 540)
    middle = {"corners": [[180, 100], [300, 100], [300, 170], [180, 170]], "image_size": [480, 270]}
    assert "warning" not in client.post("/api/tray", json=middle).get_json()
    corner = {"corners": [[340, 170], [470, 170], [470, 262], [340, 262]], "image_size": [480, 270]}
    answer = client.post("/api/tray", json=corner).get_json()
    assert answer["saved"] and Config.load(path).get("table", "tray_px") == answer["tray_px"]
    assert answer["warning"].startswith("the tray lies towards the edge of the camera's view, where the dice are seen")


def test_a_tray_tapped_out_of_order_is_refused_saying_how(configured, runtime):
    client, path = configured
    _camera_shows(runtime, 960, 540)
    body = {"corners": [[100, 50], [302, 200], [300, 52], [98, 198]], "image_size": [480, 270]}
    response = client.post("/api/tray", json=body)
    assert response.status_code == 400 and "round the tray in order NW, NE, SE, SW" in response.get_json()["error"]
    assert not path.exists()


def test_corners_tapped_before_the_camera_showed_a_picture_are_refused(configured):
    # The phone showed the placeholder: its corners say nothing about the table.
    client, path = configured
    body = {"corners": [[100, 50], [300, 52], [302, 200], [98, 198]], "image_size": [480, 270]}
    for url in ("/api/tray", "/api/calibration"):
        response = client.post(url, json=body)
        assert response.status_code == 409 and "no picture yet" in response.get_json()["error"]
    assert not path.exists()


def test_the_tray_tapped_on_a_new_picture_size_carries_the_tables_corners_over_or_forgets_them(configured, runtime):
    client, path = configured
    _camera_shows(runtime, 2304, 1296)
    table = {"corners": [[96, 54], [864, 54], [864, 486], [96, 486]], "image_size": [960, 540]}
    assert client.post("/api/calibration", json=table).status_code == 200
    assert Config.load(path).get("table", "corners_px") == [[230.4, 129.6], [2073.6, 129.6], [2073.6, 1166.4],
                                                            [230.4, 1166.4]]
    # work_width halved: the same camera, the same view, half the pixels. The corners are carried over.
    _camera_shows(runtime, 1152, 648)
    tray = {"corners": [[300, 200], [600, 200], [600, 400], [300, 400]], "image_size": [960, 540]}
    assert client.post("/api/tray", json=tray).status_code == 200
    saved = Config.load(path)["table"]
    assert saved["picture_px"] == [1152, 648] and saved["tray_px"][2] == [720.0, 480.0]
    assert saved["corners_px"][2] == [1036.8, 583.2]
    # Another camera, 4:3: another view of the table. The corners clicked on the old one are forgotten.
    _camera_shows(runtime, 640, 480)
    assert client.post("/api/tray", json=tray).status_code == 200
    saved = Config.load(path)["table"]
    assert saved["picture_px"] == [640, 480] and saved["corners_px"] == []


@pytest.mark.parametrize(
    ("corners", "size", "field"),
    [
        ([[10, 10], [470, 12], [475, 260]], [480, 270], "corners"),                 # three corners
        ([[10, 10], [470, 12], [475, 260], [8, 300]], [480, 270], "corners"),       # outside the picture
        ([[10, 10], [475, 260], [470, 12], [8, 258]], [480, 270], "corners"),       # crossed over
        ([[8, 258], [475, 260], [470, 12], [10, 10]], [480, 270], "corners"),       # anticlockwise
        ([[10, 10], [12, 10], [12, 12], [10, 12]], [480, 270], "corners"),          # a tiny square
        ([[10, 10], [470, 12], [475, 260], ["8", 258]], [480, 270], "corners"),     # text, not a number
        ([[10, 10], [470, 12], [475, 260], [8, 258]], [0, 270], "image_size"),
        ([[10, 10], [470, 12], [475, 260], [8, 258]], None, "image_size"),
    ],
)
def test_corners_that_do_not_go_round_the_table_are_refused(configured, runtime, corners, size, field):
    client, path = configured
    _camera_shows(runtime, 960, 540)
    response = client.post("/api/calibration", json={"corners": corners, "image_size": size})
    assert response.status_code == 400 and response.get_json()["field"] == field
    assert not path.exists()


def test_ending_the_turn_does_what_the_next_turn_button_does(client, runtime):
    start_fandooble(client)
    assert client.get("/api/game/legal").get_json()["end_turn"] is None
    refused = client.post("/api/end-turn", json={})
    assert refused.status_code == 409 and "cannot end the turn now" in refused.get_json()["error"]
    client.post("/api/move", json={"move": "roll CCGF"})
    assert client.get("/api/game/legal").get_json()["end_turn"] == "bank"
    response = client.post("/api/end-turn", json={})
    assert response.status_code == 200 and response.get_json()["event"]["text"] == "bank"
    assert runtime.session.state.stashes == (13, 9)


def test_a_game_without_an_end_of_turn_move_says_so(client):
    client.post("/api/games", json={"game": "fable", "players": ["Anne", "Paul"]})
    assert client.post("/api/end-turn", json={}).status_code == 409
    assert client.post("/api/end-turn", json={}).get_json()["reason"] == "IllegalMove"
