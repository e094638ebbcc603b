"""The dice on the dashboard: what the camera knows, which kind it reads, and taught faces in new games."""

from __future__ import annotations

import json
import threading
import time

import cv2
import numpy as np
import pytest

from companion.config import Config
from companion.teach import DEFAULT_LOOKS
from hardware.camera.base import Frame
from web import MAX_BODY
from tests.test_web_support import (  # noqa: F401  (fixtures)
    app,
    client,
    make_app,
    runtime,
    with_token,
)
from vision import overlay
from vision.synth.dice import render_face_photo


def test_what_the_camera_knows_about_the_dice(client):
    dice = client.get("/api/dice").get_json()
    assert dice["kind"] == "pips" and dice["dice"] == {} and dice["game_options"] == {}
    assert dice["kinds"] == ["pips", "taught", "aruco"]


def test_the_setup_page_offers_every_games_picture_dice_as_each_game_declares_them(client):
    # Teaching offered Fandooble's two dice, written into the page; a game with other dice could not be taught
    # from it. Now each game's dice come from its declaration: their words, faces and usual faces, each in its
    # own game's words (both games here call a face R).
    from companion import games

    class Spinner(games.Game):
        NAME, TITLE, CAMERA = "spinner", "Spinner Race", "dice"
        DICE = games.PictureDice({"arrow": "LRS"}, {"L": "left", "R": "right turn", "S": "stop"},
                                 labels={"arrow": "Arrow die"}, usual={"arrow": "LLRRRS"})

    games.register(Spinner())
    try:
        page = client.get("/setup").get_data(as_text=True)
        dice = client.get("/api/dice").get_json()
    finally:
        games.unregister("spinner")
    assert '<option value="arrow" data-faces="LLRRRS">Arrow die (Spinner Race: left, right turn, stop)</option>' in page
    assert ('<option value="dragon" data-faces="CCGGRR">Dragon/Treasure die '
            '(Fandooble: treasure chest, green dragon, red dragon)</option>') in page  # from Fandooble's data
    assert "S stop" in page and "F Fandooble" in page  # what each letter means, under the faces
    assert "companion dice teach --die arrow --faces LLRRRS" in dice["teach_commands"]
    assert {"die": "arrow", "label": "Arrow die", "game": "Spinner Race", "faces": "LRS",
            "words": ["left", "right turn", "stop"], "usual": "LLRRRS"} in dice["dice_to_teach"]


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
    assert client.get("/api/dice").get_json()["game_options"] == {"fandooble": "faces=CCCGGR/FFKKWW"}
    client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"]})
    faces = runtime.snapshot()["game"]["state"]["faces"]
    assert faces["dragon"] == {"C": 3, "G": 2, "R": 1} and faces["verified"] is True
    # A game started with its own faces keeps them.
    client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"], "options": {"faces": "CCGGRR/FFKKWW"},
                                    "replace": True})
    assert runtime.snapshot()["game"]["state"]["faces"]["dragon"] == {"C": 2, "G": 2, "R": 2}
    # Damaged dice settings (a failing card): the dashboard says to teach again, and a new game still
    # starts, with the counts nobody has checked (its odds say so).
    (folder / "dice.json").write_text("{", "utf-8")
    refused = client.get("/api/dice")
    assert refused.status_code >= 400 and "dice/dice.json: cannot read the dice settings" in refused.get_json()["error"]
    assert str(tmp_path) not in refused.get_json()["error"]  # where the files are is the game master's to know
    assert client.post("/api/games", json={"game": "fandooble", "players": ["Lola", "Grace"],
                                           "replace": True}).status_code == 201
    assert runtime.snapshot()["game"]["state"]["faces"]["verified"] is False


# -- teaching the dice from the dashboard ----------------------------------------------------------------


class Camera:
    """Publishes ``scene`` to ``runtime.frames`` every few milliseconds, as the camera pipeline does."""

    def __init__(self, runtime, scene):
        self.runtime = runtime
        self.scene = scene
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        number = 0
        while not self._stop.wait(0.01):
            number += 1
            self.runtime.frames.publish(Frame(self.scene, time.monotonic(), number))

    def stop(self):
        self._stop.set()
        self._thread.join(2)


@pytest.fixture
def camera(runtime):
    cam = Camera(runtime, EMPTY_TRAY)
    yield cam
    cam.stop()


def test_teaching_looks_in_the_tray_the_dice_are_read_in(app, runtime):
    from web.api_dice import _tray

    demo = [[100, 50], [300, 50], [300, 200], [100, 200]]
    in_use = {"corners": demo, "source": "demo"}
    with app.app_context():
        assert _tray() == (None, [])  # no tray anywhere: the whole picture
        runtime.add_snapshot_part("tray", lambda: in_use)
        assert _tray()[0].tolist() == demo  # the demo table's own, as the camera reads its rolls
        marked = [[0, 0], [50, 0], [50, 40], [0, 40]]
        runtime.config = runtime.config.with_changes({"table": {"tray_px": marked}})
        assert _tray()[0].tolist() == marked  # marked a moment ago, before the camera's next frame
        # The tray's own tags come first, and teaching paints them over as the dice reader does.
        tags = [[[0, 0], [10, 0], [10, 10], [0, 10]]] * 4
        in_use = {"corners": demo, "source": "tags", "tags": tags}
        zone, hidden = _tray()
        assert zone.tolist() == demo and hidden == tags


def test_teaching_looks_in_the_tray_tapped_on_a_picture_of_another_size_where_it_is_on_the_cameras(app, runtime):
    from werkzeug.exceptions import HTTPException

    from web.api_dice import _tray

    tapped = {"tray_px": [[100, 50], [300, 50], [300, 200], [100, 200]], "picture_px": [640, 480]}
    runtime.config = runtime.config.with_changes({"table": tapped})
    with app.app_context():
        runtime.frames.publish(Frame(work=np.zeros((240, 320, 3), np.uint8), timestamp=0.0, number=1))
        assert _tray()[0].tolist() == [[50, 25], [150, 25], [150, 100], [50, 100]]  # half the pixels: scaled
        runtime.frames.publish(Frame(work=np.zeros((180, 320, 3), np.uint8), timestamp=0.1, number=2))
        with pytest.raises(HTTPException) as refused:  # 16:9 after 4:3: another view of the table
            _tray()
    answer = refused.value.response
    assert answer.status_code == 409 and answer.get_json()["reason"] == "tray_elsewhere"
    assert "tapped on a 640 x 480 picture and the camera's is 320 x 180" in answer.get_json()["error"]


EMPTY_TRAY = np.full((240, 320, 3), (150, 150, 146), np.uint8)


def wait_for(client, check, *, limit=500):
    """The teaching status once ``check(status)`` holds (polled as a phone would, every 20 ms)."""
    for _ in range(limit):
        status = client.get("/api/dice/teach").get_json()["teaching"]
        if check(status):
            return status
        time.sleep(0.02)
    raise AssertionError(f"teaching never reached the expected state: {status}")


def test_the_dice_are_taught_from_the_dashboard_with_the_running_camera(client, runtime, camera):
    assert client.get("/api/dice/teach").get_json()["teaching"] == {"state": "idle", "active": False}
    response = client.post("/api/dice/teach", json={"die": "dragon", "faces": "cgr", "looks": 1})
    assert response.status_code == 202
    started = response.get_json()["teaching"]
    assert started["state"] == "waiting_for_motion" and (started["step"], started["total"]) == (1, 3)
    assert started["prompt"] == "die dragon, face 1 of 3: put the treasure chest face up in the tray"
    rng = np.random.default_rng(2)
    for number, face in enumerate("CGR", start=1):
        camera.scene = render_face_photo(rng, face)  # the die set down with this face up
        status = wait_for(client, lambda s, n=number: s["learned"] == n)
    assert status["state"] == "done" and status["message"].startswith("die dragon learned")
    # Every phone has it in the live state, and the dice panel shows what was learned.
    assert runtime.snapshot()["teaching"]["state"] == "done"
    dice = client.get("/api/dice").get_json()
    assert dice["kind"] == "taught" and dice["dice"]["dragon"]["counts"] == {"C": 1, "G": 1, "R": 1}
    assert dice["face_words"]["dragon"]["R"] == "red dragon"  # in its own game's words, for the page to name it
    # Looking the pictures over, the green dragon's was wrong: taken back, the camera watches the tray again, and the
    # die set down anew is learned and stored again.
    back = client.post("/api/dice/teach/back", json={"step": 2})
    assert back.status_code == 200 and back.get_json()["teaching"]["active"]
    assert back.get_json()["teaching"]["message"].startswith("picture 2 was taken back: set the die down again")
    camera.scene = render_face_photo(rng, "G")
    status = wait_for(client, lambda s: s["state"] == "done")
    assert status["learned"] == 3 and [p["step"] for p in status["pictures"]] == [1, 2, 3]
    assert client.get("/api/dice").get_json()["dice"]["dragon"]["counts"] == {"C": 1, "G": 1, "R": 1}


def test_the_dice_are_taught_from_photos_a_phone_sends_without_the_camera(client, runtime, tmp_path):
    # No camera runs: the game master picks photos of the die on a phone, one face after the other.
    from tests.test_cli_refusals import _png_header_only
    from vision.synth.dice import render_tray

    started = client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG", "looks": 1, "photos": True})
    assert started.status_code == 202
    status = started.get_json()["teaching"]
    assert status["photos"] and status["state"] == "waiting_for_motion" and (status["step"], status["total"]) == (1, 2)
    assert status["prompt"] == "die dragon, face 1 of 2: a photo of the die alone with the treasure chest face up"
    assert "warning" not in status

    def send(image=None, *, data=None):
        data = cv2.imencode(".jpg", image)[1].tobytes() if data is None else data
        return client.post("/api/dice/teach/photo", data=data, content_type="image/jpeg")

    rng = np.random.default_rng(6)
    photo = cv2.imencode(".jpg", cv2.resize(render_face_photo(rng, "C"), (2400, 1800)))[1].tobytes()
    assert len(photo) > MAX_BODY  # a phone's photo is larger than any other request the dashboard takes
    learned = send(data=photo).get_json()["teaching"]
    assert learned["learned"] == 1 and learned["message"] == "got it: C (treasure chest)"
    assert runtime.snapshot()["teaching"]["learned"] == 1  # every phone follows
    assert learned["seen_learned"] and learned["can_take_back"]  # the photo is shown with the die boxed
    shown = client.get(f"/api/dice/teach/seen.jpg?n={learned['seen']}")
    picture = cv2.imdecode(np.frombuffer(shown.data, np.uint8), cv2.IMREAD_COLOR)
    assert shown.status_code == 200 and picture.shape == (720, 960, 3)  # the photo, made small enough for a phone
    assert (np.abs(picture.astype(int) - overlay.SEEN).max(axis=2) < 60).sum() > 1000  # and its die boxed in magenta
    assert [(p["step"], p["face"]) for p in learned["pictures"]] == [(1, "C")]  # every picture learned, a row a face
    closeup = client.get(f"/api/dice/teach/picture/1.jpg?n={learned['pictures'][0]['name']}")
    assert closeup.status_code == 200 and closeup.headers["Cache-Control"] == "no-store"
    side = overlay.CLOSEUP_PX
    assert cv2.imdecode(np.frombuffer(closeup.data, np.uint8), cv2.IMREAD_COLOR).shape == (side, side, 3)
    assert client.get("/api/dice/teach/picture/2.jpg").status_code == 404  # not learned
    back = client.post("/api/dice/teach/back", json={})  # the box was not around the die: taken back, asked again
    assert back.status_code == 200 and back.get_json()["state"]["teaching"]["learned"] == 0
    assert back.get_json()["teaching"]["message"] == "picture 1 was taken back: choose another photo"
    assert client.get("/api/dice/teach/seen.jpg").status_code == 404
    assert back.get_json()["teaching"]["pictures"] == []
    assert client.get("/api/dice/teach/picture/1.jpg").status_code == 404
    again = client.post("/api/dice/teach/back", json={})
    assert again.status_code == 409 and again.get_json()["reason"] == "nothing_to_take_back"
    assert again.get_json()["error"] == "there is no picture to take back: no picture was learned yet"
    assert send(data=photo).get_json()["teaching"]["learned"] == 1
    two = render_tray(rng, kind="fandooble", faces=["G", "C"], size=(320, 240), die_px=(60, 60), table="grey").image
    refused = send(two).get_json()["teaching"]
    assert refused["learned"] == 1 and "saw 2 dice (boxed in the picture)" in refused["message"]
    assert refused["message"].endswith("choose another photo")
    seen = client.get(f"/api/dice/teach/seen.jpg?n={refused['seen']}")  # the photo, each die it saw boxed
    assert seen.status_code == 200
    assert cv2.imdecode(np.frombuffer(seen.data, np.uint8), cv2.IMREAD_COLOR).shape == two.shape
    not_a_photo = send(data=b"GIF89a, or rather not")
    assert not_a_photo.status_code == 400 and not_a_photo.get_json()["reason"] == "not_a_photo"
    _png_header_only(tmp_path / "huge.png", 40000, 40000)
    huge = send(data=(tmp_path / "huge.png").read_bytes())
    assert huge.status_code == 413 and "has 1600 MP" in huge.get_json()["error"]
    assert send(data=bytes(26 * 1024 * 1024)).status_code == 413  # more bytes than any phone's photo
    assert client.get("/api/dice/teach").get_json()["teaching"]["learned"] == 1  # none of those counted
    done = send(render_face_photo(rng, "G")).get_json()["teaching"]
    assert done["state"] == "done" and done["message"] == "die dragon learned: 1× treasure chest, 1× green dragon"
    assert client.get("/api/dice").get_json()["dice"]["dragon"]["counts"] == {"C": 1, "G": 1}
    kept = client.get("/api/dice").get_json()["dice"]["dragon"]["pictures_kept"]  # to look over another evening
    sheet = client.get(f"/api/dice/pictures/dragon.jpg?v={kept}")
    assert sheet.status_code == 200 and sheet.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(sheet.data, np.uint8), cv2.IMREAD_COLOR).shape[0] >= 2 * overlay.CLOSEUP_PX
    assert client.get("/api/dice/pictures/special.jpg").status_code == 404  # not taught
    late = send(render_face_photo(rng, "R"))
    assert late.status_code == 409 and late.get_json()["reason"] == "not_teaching"


def test_a_photo_session_left_behind_on_a_phone_ends_by_itself_when_another_starts(runtime, camera):
    client = with_token(make_app(runtime, COMPANION_TEACH_PHOTO_TIMEOUT_S=0.05).test_client())
    assert client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG", "photos": True}).status_code == 202
    deadline = time.monotonic() + 10
    while (started := client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG"})).status_code == 409:
        assert started.get_json()["reason"] == "busy" and time.monotonic() < deadline
        time.sleep(0.02)
    assert started.status_code == 202 and not started.get_json()["teaching"]["photos"]
    client.post("/api/dice/teach/cancel")


def test_photos_are_refused_while_the_camera_teaches_and_a_dice_game_goes_on_reading_rolls(client, runtime, camera):
    from types import SimpleNamespace

    from companion.pipeline import Pipeline

    def rolls_wait() -> bool:  # what the camera pipeline asks before reading a roll
        return Pipeline._teaching(SimpleNamespace(runtime=runtime))

    runtime.new_game("fandooble", ["Lola", "Grace"])
    client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG", "photos": True})
    assert not rolls_wait()  # the tray is not looked at: the game's rolls go on being read
    busy = client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG"})
    assert busy.status_code == 409 and busy.get_json()["reason"] == "busy"
    client.post("/api/dice/teach/cancel")
    client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG"})
    assert rolls_wait()  # taught with the camera: the rolls wait
    photo = client.post("/api/dice/teach/photo", data=cv2.imencode(".jpg", EMPTY_TRAY)[1].tobytes(),
                        content_type="image/jpeg")
    assert photo.status_code == 409 and photo.get_json()["reason"] == "not_teaching"
    client.post("/api/dice/teach/cancel")


def test_teaching_during_a_dice_game_tells_the_table_that_its_rolls_wait(client, runtime, camera):
    # The camera reads no rolls while teaching (companion.pipeline): whoever watches the progress is told so.
    assert "warning" not in client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG"}).get_json()["teaching"]
    client.post("/api/dice/teach/cancel")
    runtime.new_game("fandooble", ["Lola", "Grace"])
    started = client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG"}).get_json()["teaching"]
    assert started["warning"] == ("a Fandooble game is in play: its rolls are not read until teaching ends, and the die "
                                  "you leave in the tray is not taken for a roll")
    assert "warning" not in client.post("/api/dice/teach/cancel").get_json()["teaching"]  # said while teaching only


def test_the_live_state_follows_each_step(client, runtime, camera):
    version = runtime.version
    client.post("/api/dice/teach", json={"die": "special", "faces": "FKW", "looks": 1})
    camera.scene = render_face_photo(np.random.default_rng(3), "F")
    seen = []
    while len(seen) < 50 and not any(s["teaching"].get("learned") == 1 for s in seen):
        snapshot = runtime.wait_for_change(version, 10)
        assert snapshot is not None, "the live state stopped changing"
        version = snapshot["version"]
        seen.append(snapshot)
    states = [s["teaching"]["state"] for s in seen]
    assert "waiting_for_still" in states and states[-1] == "learned"
    assert seen[-1]["teaching"]["prompt"] == "die special, face 2 of 3: put the knight face up in the tray"
    assert client.post("/api/dice/teach/cancel").get_json()["teaching"]["state"] == "cancelled"


def test_one_teaching_at_a_time_and_cancel_stores_nothing(client, runtime, camera):
    assert client.post("/api/dice/teach", json={"die": "dragon", "faces": "CCGGRR"}).status_code == 202
    busy = client.post("/api/dice/teach", json={"die": "special", "faces": "FFKKWW"})
    assert busy.status_code == 409 and busy.get_json()["reason"] == "busy"
    assert f"picture 1 of {6 * DEFAULT_LOOKS}" in busy.get_json()["error"]  # six faces, the default looks each
    camera.scene = render_face_photo(np.random.default_rng(4), "C")
    wait_for(client, lambda s: s["learned"] == 1)
    cancelled = client.post("/api/dice/teach/cancel")
    assert cancelled.status_code == 200
    assert cancelled.get_json()["teaching"]["state"] == "cancelled"
    assert client.get("/api/dice").get_json()["dice"] == {}
    assert runtime.snapshot()["teaching"]["state"] == "cancelled"
    # Cancelling again changes nothing; a new session may start.
    assert client.post("/api/dice/teach/cancel").get_json()["teaching"]["state"] == "cancelled"
    assert client.post("/api/dice/teach", json={"die": "special", "faces": "FFKKWW"}).status_code == 202
    client.post("/api/dice/teach/cancel")


def test_a_picture_without_a_die_asks_again_and_a_face_not_shown_in_time_fails(runtime, camera):
    client = with_token(make_app(runtime, COMPANION_TEACH_TIMEOUT_S=1.0).test_client())
    assert client.get("/api/dice/teach/seen.jpg").status_code == 404  # nothing refused yet
    client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG", "looks": 1})
    pencil = EMPTY_TRAY.copy()  # something was put down in the tray, then all is still again: but no die
    cv2.line(pencil, (40, 200), (200, 212), (40, 60, 180), 4)
    camera.scene = pencil
    status = wait_for(client, lambda s: s.get("retries", 0) >= 1)
    assert status["message"] == "show exactly one die, lying flat in the tray: saw no die; try again"
    # The refused picture, as the camera saw it, for every phone to look at.
    seen = client.get(f"/api/dice/teach/seen.jpg?n={status['seen']}")
    assert status["seen"] and seen.status_code == 200 and seen.mimetype == "image/jpeg"
    picture = cv2.imdecode(np.frombuffer(seen.data, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == EMPTY_TRAY.shape and abs(float(picture.mean()) - float(camera.scene.mean())) < 3
    assert status["state"] == "waiting_for_motion" and status["step"] == 1
    status = wait_for(client, lambda s: s["state"] == "failed")  # and nobody sets a die down
    assert status["message"] == "no die was set down within 1 s: teaching stopped, nothing was stored"
    assert status["learned"] == 0 and client.get("/api/dice").get_json()["dice"] == {}


def test_no_camera_no_teaching(runtime):
    client = with_token(make_app(runtime, COMPANION_TEACH_FIRST_FRAME_S=0.2).test_client())
    response = client.post("/api/dice/teach", json={"die": "dragon", "faces": "CCGGRR"})
    assert response.status_code == 409 and response.get_json()["reason"] == "no_camera"
    assert "camera" in response.get_json()["error"]
    # A frame from long ago is not a running camera either.
    runtime.frames.publish(Frame(EMPTY_TRAY, time.monotonic(), 1))
    response = client.post("/api/dice/teach", json={"die": "dragon", "faces": "CCGGRR"})
    assert response.status_code == 409 and response.get_json()["reason"] == "no_camera"
    assert client.get("/api/dice/teach").get_json()["teaching"]["state"] == "idle"


@pytest.mark.parametrize("body, field", [
    ({"die": "dragon", "faces": "CCGGRK"}, "faces"),
    ({"die": "special", "faces": "CCGGRR"}, "faces"),
    ({"die": "dragon", "faces": "C" * 61}, "faces"),
    ({"die": "dragon", "faces": "C" * 21}, "faces"),
    ({"die": "dragon"}, "faces"),
    ({"faces": "CCGGRR"}, "die"),
    ({"die": "drag on", "faces": "CCGGRR"}, "die"),
    ({"die": "dragon", "faces": "CCGGRR", "looks": "two"}, "looks"),
    ({"die": "dragon", "faces": "CCGGRR", "looks": 9}, "looks"),
    ({"die": "dragon", "faces": "CCGGRR", "add": "yes"}, "add"),
    ({"die": "dragon", "faces": "CCGGRR", "photos": "yes"}, "photos"),
    ({"die": "dragon", "faces": "CCGGRR", "another_light": 1}, "another_light"),
    ({"die": "dragon", "faces": "CCGGRR", "another_light": True}, "another_light"),  # not taught yet
    ({"die": "dragon", "faces": "CCGGRR", "another_light": True, "photos": True}, "another_light"),
    ({"die": "dragon", "faces": "CCGGRK", "photos": True}, "faces"),
    ({"die": ["dragon"], "faces": "CCGGRR"}, "die"),
])
def test_bad_teaching_requests_are_refused_with_the_field(client, camera, body, field):
    response = client.post("/api/dice/teach", json=body)
    assert response.status_code == 400, response.get_json()
    assert response.get_json()["field"] == field and response.get_json()["error"]
    assert client.get("/api/dice/teach").get_json()["teaching"]["state"] == "idle"


def test_any_picture_learned_is_taken_back_by_its_number_and_its_face_asked_for_again(client):
    # The phone shows every picture learned; the one tapped is taken back, the others kept.
    client.post("/api/dice/teach", json={"die": "dragon", "faces": "CGR", "looks": 1, "photos": True})
    rng = np.random.default_rng(4)
    for face in "CG":
        client.post("/api/dice/teach/photo", data=cv2.imencode(".jpg", render_face_photo(rng, face))[1].tobytes(),
                    content_type="image/jpeg")
    back = client.post("/api/dice/teach/back", json={"step": 1})
    status = back.get_json()["teaching"]
    assert back.status_code == 200 and status["message"] == "picture 1 was taken back: choose another photo"
    assert [p["step"] for p in status["pictures"]] == [2] and status["step"] == 1 and status["face"] == "C"
    assert back.get_json()["state"]["teaching"]["pictures"] == status["pictures"]  # every phone follows
    missing = client.post("/api/dice/teach/back", json={"step": 3})
    assert missing.status_code == 409 and missing.get_json()["reason"] == "nothing_to_take_back"
    assert missing.get_json()["error"] == "picture 3 is not learned, so it cannot be taken back: the pictures " \
        "learned are 2"
    for bad in (0, "1", True, 1.5):
        refused = client.post("/api/dice/teach/back", json={"step": bad})
        assert refused.status_code == 400 and refused.get_json()["field"] == "step", bad
    assert client.get("/api/dice/teach").get_json()["teaching"]["learned"] == 1  # none of those changed anything
    for face in "CR":
        status = client.post("/api/dice/teach/photo", data=cv2.imencode(".jpg", render_face_photo(rng, face))[1]
                             .tobytes(), content_type="image/jpeg").get_json()["teaching"]
    assert status["state"] == "done" and status["can_take_back"]  # stored; a picture may still be taken back
    client.post("/api/dice/kind", json={"kind": "pips"})  # until the dice change: every phone is told at once
    assert not client.get("/api/dice/teach").get_json()["teaching"]["can_take_back"]
    assert not client.get("/api/state").get_json()["teaching"]["can_take_back"]


def test_teaching_is_the_game_masters(runtime, camera, tmp_path):
    app = make_app(runtime, Config.from_mapping({"server": {"pin": "9753"}}, str(tmp_path / "config.toml")))
    client = with_token(app.test_client())
    refused = client.post("/api/dice/teach", json={"die": "dragon", "faces": "CCGGRR"})
    assert refused.status_code == 403 and refused.get_json()["reason"] == "pin"
    assert client.post("/api/dice/teach/cancel").status_code == 403
    assert client.post("/api/dice/teach/photo", data=b"a photo", content_type="image/jpeg").status_code == 403
    assert client.post("/api/dice/teach/back").status_code == 403
    assert client.get("/api/dice/teach").status_code == 200
    assert client.post("/api/unlock", json={"pin": "9753"}).status_code == 200
    assert client.post("/api/dice/teach", json={"die": "dragon", "faces": "CCGGRR"}).status_code == 202
    assert client.post("/api/dice/teach/cancel").status_code == 200


def test_a_broken_camera_frame_ends_teaching_with_a_reason_not_a_dead_thread(client, runtime, camera):
    client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG", "looks": 1})
    camera.scene = np.zeros((0, 0, 3), np.uint8)  # a frame the camera delivered empty
    status = wait_for(client, lambda s: not s["active"])
    assert status["state"] == "failed" and "error inside the companion" in status["message"]
    assert runtime.snapshot()["teaching"]["state"] == "failed"
    # Starting again is answered (never a server error) and ends the same way while the camera stays broken.
    assert client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG"}).status_code == 202
    assert wait_for(client, lambda s: not s["active"])["state"] == "failed"


# -- trying the dice with no game in play ----------------------------------------------------------------


def test_the_dice_are_tried_when_no_game_reads_the_camera(client, runtime, camera):
    assert client.get("/api/dice/try").get_json()["trying"] == {"active": False}
    assert client.post("/api/dice/try", json={"on": True}).get_json()["trying"] == {"active": True}
    assert runtime.snapshot()["dice_try"] == {"active": True}  # every phone on the Setup page follows
    assert client.post("/api/dice/try", json={"on": False}).get_json()["trying"] == {"active": False}
    assert client.post("/api/dice/try", json={"on": "yes"}).status_code == 400
    # Teaching and trying at once would read the faces shown as throws.
    client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG"})
    busy = client.post("/api/dice/try", json={"on": True})
    assert busy.status_code == 409 and busy.get_json()["error"] == "the dice are being taught: try them once teaching ends"
    client.post("/api/dice/teach/cancel")
    # A game whose table the camera reads comes first; a game without a camera does not stop it.
    runtime.new_game("fandooble", ["Lola", "Grace"])
    refused = client.post("/api/dice/try", json={"on": True})
    assert refused.status_code == 409 and refused.get_json()["reason"] == "camera_in_use"  # no game to replace
    assert refused.get_json()["error"] == "a Fandooble game is in play: throw for it, and its page shows what the camera read"
    runtime.new_game("fable", ["Anne", "Paul"])
    assert "reads its table" in client.post("/api/dice/try", json={"on": True}).get_json()["error"]
    runtime.new_game("bable", ["Anne", "Paul"])
    assert client.post("/api/dice/try", json={"on": True}).get_json()["trying"] == {"active": True}
    client.post("/api/dice/try", json={"on": False})


def test_trying_the_dice_ends_by_itself_and_the_phones_are_told(runtime):
    from web.api_dice_try import Trying

    now = [0.0]
    trying = Trying(runtime, clock=lambda: now[0])
    assert trying.start(0.2) == {"active": True}
    version = runtime.version
    now[0] = 0.3
    assert trying.status() == {"active": False}
    assert runtime.wait_for_change(version, 10) is not None  # a new snapshot when the time is up


def test_each_answer_about_teaching_brings_the_state_it_is_part_of(client, runtime):
    # A phone takes an answer's state as its own (app.js publish), and drops any older state still on its way from
    # the event stream: one sent just before teaching started used to arrive after the answer and show the form
    # again, the photo button hidden under the teacher's finger (seen once in the browser test on a loaded machine).
    before = runtime.version
    answers = [client.post("/api/dice/teach", json={"die": "dragon", "faces": "CG", "looks": 1, "photos": True})]
    answers.append(client.post("/api/dice/teach/photo", data=b"not a photo"))
    answers.append(client.post("/api/dice/teach/photo", data=cv2.imencode(".png", render_face_photo(
        np.random.default_rng(1), "C"))[1].tobytes()))
    answers.append(client.post("/api/dice/teach/cancel", json={}))
    started, _, taken, cancelled = [answer.get_json() for answer in answers]
    assert started["state"]["version"] > before and started["state"]["teaching"] == started["teaching"]
    assert started["teaching"]["active"]
    assert taken["state"]["teaching"] == taken["teaching"] and taken["teaching"]["learned"] == 1
    assert taken["state"]["version"] > started["state"]["version"]
    assert cancelled["state"]["teaching"] == cancelled["teaching"] and not cancelled["teaching"]["active"]
