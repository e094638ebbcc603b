"""The JSON API: state, moves, undo and redo, new games; the live event stream."""

from __future__ import annotations

import json
import threading
import time

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context
from werkzeug.exceptions import BadRequest

from companion import games
from web.runtime_ref import runtime

bp = Blueprint("api", __name__, url_prefix="/api")

SOURCE = "dashboard"
HEARTBEAT_S = 15.0


def _body() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadRequest("send a JSON object")
    return data


def _text(data: dict, key: str, *, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(f"'{key}' must be non-empty text")
    return value.strip()


@bp.get("/state")
def state():
    return jsonify(runtime().snapshot())


@bp.get("/games")
def game_list():
    return jsonify([{"name": n, "title": games.get(n).TITLE} for n in games.names()])


@bp.post("/games")
def new_game():
    data = _body()
    players = data.get("players")
    if isinstance(players, str):
        players = [p.strip() for p in players.split(",")]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise BadRequest("'players' must be a list of names")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest("'options' must be an object")
    return jsonify(runtime().new_game(_text(data, "game"), players, {k: str(v) for k, v in options.items()})), 201


@bp.post("/move")
def move():
    data = _body()
    event = runtime().play(_text(data, "move"), source=SOURCE, event_id=_text(data, "event_id", required=False))
    return jsonify(event=event.to_json(), state=runtime().snapshot())


@bp.post("/undo")
def undo():
    data = request.get_json(silent=True) or {}
    event = runtime().undo(source=SOURCE, event_id=data.get("event_id") if isinstance(data, dict) else None)
    return jsonify(event=event.to_json(), state=runtime().snapshot())


@bp.post("/redo")
def redo():
    data = request.get_json(silent=True) or {}
    event = runtime().redo(source=SOURCE, event_id=data.get("event_id") if isinstance(data, dict) else None)
    return jsonify(event=event.to_json(), state=runtime().snapshot())


def _stream_slots() -> threading.BoundedSemaphore:
    slots = current_app.extensions.get("companion_stream_slots")
    if slots is None:
        cap = current_app.config["COMPANION_CONFIG"].get("server", "max_streams")
        slots = current_app.extensions.setdefault("companion_stream_slots", threading.BoundedSemaphore(cap))
    return slots


@bp.get("/stream")
def stream():
    """Server-sent events: one ``state`` event per change; a client reconnecting catches up at once."""
    slots = _stream_slots()
    if not slots.acquire(blocking=False):
        response = jsonify(error="too many live connections: try again in a few seconds")
        response.status_code = 503
        response.headers["Retry-After"] = "5"
        return response
    rt = runtime()
    heartbeat = current_app.config.get("COMPANION_HEARTBEAT_S", HEARTBEAT_S)
    max_life = current_app.config.get("COMPANION_STREAM_LIFE_S", 900.0)

    def events():
        try:
            yield ": connected\n\nretry: 2000\n\n"
            last = -1
            started = time.monotonic()
            while time.monotonic() - started < max_life:
                snap = rt.wait_for_change(last, heartbeat)
                if snap is None:
                    yield ": keepalive\n\n"
                    continue
                last = snap["version"]
                yield f"id: {last}\nevent: state\ndata: {json.dumps(snap, separators=(',', ':'))}\n\n"
        finally:
            slots.release()

    return Response(
        stream_with_context(events()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
