"""Recording the game night from the Setup page: see whether it records, switch it on or off.

The recording itself is :class:`companion.film.recorder.Recording`, which the running
companion (``companion run``) hands the dashboard; a dashboard without it (tests, a
one-shot command) answers 404. While it records, the Table page's health line says so.
Switching needs the game master's PIN: a film keeps pictures of the table and uses disk.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from companion.errors import SetupError
from web.bodies import json_body
from web.security import game_master, refuse

bp = Blueprint("recording_api", __name__, url_prefix="/api/recording")


def _recording():
    recording = current_app.extensions.get("companion_recording")
    if recording is None:
        refuse(404, "recording is part of the running companion (companion run)", "not_available")
    return recording


@bp.get("")
def status():
    """``{"recording": true, "folder": ..., "megabytes": ..., "pictures_dropped": ...}``"""
    return jsonify(_recording().status())


@bp.post("")
@game_master
def switch():
    """``{"record": true}`` starts a new film (in ``[recording] folder``); ``{"record": false}`` stops it."""
    record = json_body().get("record")
    if not isinstance(record, bool):
        refuse(400, "'record' must be true or false", "bad_field", field="record")
    recording = _recording()
    if record and not recording.active:
        try:
            recording.start()
        except SetupError as exc:
            refuse(409, str(exc), "not_recording")
    elif not record:
        recording.stop()
    return jsonify(recording.status())
