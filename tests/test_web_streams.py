"""The event stream and the live view: every change pushed, reconnects catch up, streams capped."""

from __future__ import annotations

import http.client
import json

import cv2
import numpy as np
import pytest

from companion.config import Config
from web import patch
from web.streams import BOUNDARY, SlotStream, StreamGate, placeholder_jpeg, state_events
from tests.test_web_support import (  # noqa: F401  (fixtures)
    Served,
    app,
    client,
    make_app,
    read_stream,
    runtime,
    start_fandooble,
)
from tests.waiting import wait_until


def _states(text: str) -> list[str]:
    return [block for block in text.split("\n\n") if "event: state" in block]


def test_the_stream_flushes_at_once_then_sends_the_state(client):
    start_fandooble(client)
    response = client.get("/api/stream", buffered=False)
    assert response.mimetype == "text/event-stream" and response.headers["Cache-Control"] == "no-store"
    chunks = iter(response.response)
    first = next(chunks).decode()
    assert first.startswith(": connected") and "retry: 2000" in first
    second = next(chunks).decode()
    assert second.startswith("id: ") and "event: state" in second and '"name":"Lola"' in second
    response.close()


def _data(chunk: bytes) -> dict:
    return json.loads(next(line for line in chunk.decode().splitlines() if line.startswith("data: "))[6:])


def test_every_change_is_pushed_to_an_open_stream_as_a_patch_of_what_changed(client, runtime):
    start_fandooble(client)
    response = client.get("/api/stream", buffered=False)
    chunks = iter(response.response)
    next(chunks)  # the comment
    page = _data(next(chunks))  # the whole state, once
    client.post("/api/move", json={"move": "roll CCGF"})
    pushed = next(chunks)
    assert b"event: patch" in pushed
    change = _data(pushed)
    assert change["from"] == page["version"]
    page = patch.apply(page, change["ops"])
    assert page == runtime.snapshot()  # the phone's copy is the companion's state
    assert page["game"]["state"]["loot"] == 3 and page["game"]["log"][-1]["text"] == "roll CCGF"
    runtime.raise_alert("expected 3 dice, saw 4", source="camera")
    page = patch.apply(page, _data(next(chunks))["ops"])
    assert page["alerts"][-1]["text"] == "expected 3 dice, saw 4"
    response.close()


def test_a_health_change_sends_a_few_bytes_not_the_whole_state(client, runtime):
    start_fandooble(client)
    for move in ("roll CCGF", "bank", "roll CCCF"):
        client.post("/api/move", json={"move": move})
    response = client.get("/api/stream", buffered=False)
    chunks = iter(response.response)
    next(chunks)
    whole = next(chunks)
    runtime.set_health("camera", "degraded", "restarting the camera")
    small = next(chunks)
    assert b"event: patch" in small and len(small) < 300 < len(whole)
    response.close()


def test_a_page_that_reconnects_catches_up_on_what_it_missed(client):
    start_fandooble(client)
    response = client.get("/api/stream", buffered=False)
    read_stream(response, "event: state")
    response.close()  # the phone lost the Wi-Fi...
    client.post("/api/move", json={"move": "roll CCCF"})
    client.post("/api/move", json={"move": "bank"})
    again = client.get("/api/stream", buffered=False, headers={"Last-Event-ID": "3"})
    caught_up = read_stream(again, "event: state")
    again.close()
    assert '"stash":14' in caught_up  # the bank it missed


def test_a_quiet_stream_sends_heartbeats_and_ends_after_its_life(runtime):
    app = make_app(runtime, COMPANION_HEARTBEAT_S=0.05, COMPANION_STREAM_LIFE_S=0.3)
    response = app.test_client().get("/api/stream", buffered=False)
    text = "".join(c.decode() for c in response.response)  # ends by itself
    response.close()
    assert text.count(": keepalive") >= 2
    assert text.rstrip().endswith("event: bye\ndata: {}")
    assert app.extensions["companion_stream_gates"]["events"].open == 0


def test_one_stream_more_than_the_cap_is_refused_at_once_and_a_closed_one_frees_its_slot(runtime):
    config = Config.from_mapping({"server": {"max_streams": 2}})
    app = make_app(runtime, config)
    client = app.test_client()
    gate = app.extensions["companion_stream_gates"]["events"]
    first, second = client.get("/api/stream", buffered=False), client.get("/api/stream", buffered=False)
    assert gate.open == 2
    third = client.get("/api/stream", buffered=False)
    assert third.status_code == 503 and third.headers["Retry-After"] == "5"
    assert third.get_json()["reason"] == "busy"
    assert client.get("/api/state").status_code == 200  # the rest keeps answering
    first.close()
    assert gate.open == 1
    fourth = client.get("/api/stream", buffered=False)
    assert fourth.status_code == 200
    second.close(), fourth.close()
    assert gate.open == 0


def test_a_stream_closed_before_it_started_releases_its_slot():
    gate = StreamGate("events", 1)
    assert gate.try_enter()
    body = SlotStream(iter([b"never read"]), gate)
    assert not gate.try_enter()
    body.close()
    body.close()  # twice: released once
    assert gate.try_enter() and gate.open == 1


def test_the_snapshot_is_encoded_once_for_all_streams(runtime, monkeypatch):
    from web import streams

    encoder = streams.SnapshotEncoder()
    calls = []
    real = streams.json.dumps
    monkeypatch.setattr(streams.json, "dumps", lambda *a, **k: calls.append(1) or real(*a, **k))
    for _ in range(5):
        body = state_events(runtime, encoder, 1.0, 10.0)
        next(body), next(body)
        body.close()
    assert len(calls) == 1


# -- the live view -------------------------------------------------------------------


def _parts(response, count):
    data = b""
    chunks = iter(response.response)
    while data.count(f"--{BOUNDARY}".encode()) < count:
        data += next(chunks)
    return [p for p in data.split(f"--{BOUNDARY}\r\n".encode()) if p]


def _jpeg_of(part: bytes) -> np.ndarray:
    head, _, body = part.partition(b"\r\n\r\n")
    length = int(next(line for line in head.split(b"\r\n") if line.startswith(b"Content-Length")).split(b":")[1])
    return cv2.imdecode(np.frombuffer(body[:length], np.uint8), cv2.IMREAD_COLOR)


def test_the_live_view_shows_a_placeholder_until_the_camera_sends_a_picture(client, runtime):
    response = client.get("/api/live.mjpg", buffered=False)
    assert response.mimetype == "multipart/x-mixed-replace"
    first = _jpeg_of(_parts(response, 1)[0])
    assert first.shape == (360, 640, 3)
    runtime.live_view.publish(np.full((540, 960, 3), (0, 0, 255), np.uint8))  # watched: encoded
    picture = _jpeg_of(_parts(response, 1)[0])
    response.close()
    assert picture.shape == (540, 960, 3) and picture[270, 480, 2] > 200 and picture[270, 480, 0] < 60


def test_the_live_view_is_capped_and_can_be_switched_off(runtime):
    runtime.live_view.publish(np.zeros((90, 160, 3), np.uint8), force=True)
    app = make_app(runtime)
    client = app.test_client()
    viewers = [client.get("/api/live.mjpg", buffered=False) for _ in range(2)]
    extra = client.get("/api/live.mjpg")
    assert extra.status_code == 503 and extra.headers["Retry-After"] == "5"
    for viewer in viewers:
        viewer.close()
    assert app.extensions["companion_stream_gates"]["video"].open == 0
    off = make_app(runtime, Config.from_mapping({"server": {"max_video_streams": 0}})).test_client()
    response = off.get("/api/live.mjpg")
    assert response.status_code == 503 and response.get_json()["reason"] == "stream_disabled"


def test_a_still_of_the_live_view_for_calibration(client, runtime):
    response = client.get("/api/live.jpg?wait=0")
    assert response.headers["X-Companion-Placeholder"] == "1"
    assert response.data == placeholder_jpeg()
    runtime.live_view.publish(np.full((270, 480, 3), 200, np.uint8), force=True)
    response = client.get("/api/live.jpg?wait=nonsense")
    assert response.headers["X-Companion-Placeholder"] == "0" and response.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR).shape == (270, 480, 3)


def test_the_picture_of_a_roll_is_served_until_newer_rolls_push_it_out(client, runtime):
    tray = np.full((300, 400, 3), 120, np.uint8)
    first = runtime.roll_pictures.add(tray)
    response = client.get(f"/api/roll/{first}.jpg")
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR).shape == (300, 400, 3)
    for _ in range(runtime.roll_pictures.keep):
        runtime.roll_pictures.add(tray)
    gone = client.get(f"/api/roll/{first}.jpg")
    assert gone.status_code == 404 and gone.data == placeholder_jpeg("This roll's picture is gone")
    assert client.get("/api/roll/not-a-roll.jpg").status_code == 404


# -- on a real server: streams never starve the API ---------------------------------------


@pytest.fixture
def served(runtime):
    """The dashboard on waitress with the appliance's sizing: threads = caps + 4."""
    config = Config.from_mapping({"server": {"max_streams": 3, "max_video_streams": 1}})
    app = make_app(runtime, config, COMPANION_HEARTBEAT_S=0.2, TESTING=False)
    runtime.live_view.publish(np.zeros((90, 160, 3), np.uint8), force=True)
    server = Served(app)
    assert server.threads == 3 + 1 + 4
    yield app, server.port
    server.close()


def _open_stream(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    if response.status == 200:
        response.fp.readline()  # the first line of the body: the stream is running
    return conn, response


def test_streams_beyond_the_caps_get_503_while_the_state_api_answers(served):
    app, port = served
    opened = [_open_stream(port, "/api/stream") for _ in range(5)] + [_open_stream(port, "/api/live.mjpg") for _ in range(2)]
    statuses = [response.status for _, response in opened]
    assert statuses == [200, 200, 200, 503, 503, 200, 503]
    for _, response in opened:
        if response.status == 503:
            assert response.getheader("Retry-After") == "5"
    for _ in range(20):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/state")
        assert conn.getresponse().status == 200
        conn.close()
    for conn, response in opened:  # every phone leaves
        response.close()
        conn.close()
    gates = app.extensions["companion_stream_gates"]
    # A client that left is noticed at the next write, which the heartbeat (0.2 s here) bounds.
    wait_until(lambda: gates["events"].open == 0 and gates["video"].open == 0)
