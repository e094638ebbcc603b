"""The game master's settings: the configuration file and the table calibration (both need the PIN)."""

from __future__ import annotations

import re

from flask import Blueprint, current_app, jsonify

from companion.errors import ConfigError
from web.bodies import json_body
from web.runtime_ref import runtime
from web.security import game_master, is_unlocked, refuse

bp = Blueprint("setup_api", __name__, url_prefix="/api")

CORNER_NAMES = ("NW", "NE", "SE", "SW")


def _store():
    return current_app.extensions["companion_config"]


def _save(changes: dict):
    try:
        updated, later = _store().update(changes)
    except ConfigError as exc:
        refuse(400, str(exc), "bad_config", field=_refused_key(changes, str(exc)))
    except OSError as exc:
        refuse(409, f"the configuration could not be saved: {exc.strerror or exc}", "not_saved")
    return updated, later


def _refused_key(changes: dict, message: str) -> str | None:
    """The changed key the refusal names (``[gpio] seat_leds[1] and buzzer are both on GPIO5``: buzzer)."""
    named = [f"{s}.{k}" for s, keys in changes.items() if isinstance(keys, dict) for k in keys
             if f"[{s}]" in message and re.search(rf"(?<![\w.]){re.escape(k)}(?![\w])", message)]
    exact = [f for f in named if "[{}] {}".format(*f.split(".", 1)) in message]
    return (exact or named or [None])[0]


@bp.get("/config")
def read_config():
    """Every key with its value, default and help (the PIN is never shown, only whether one is set);
    the file's place on the Pi only with the PIN."""
    described = _store().describe()
    if not is_unlocked():
        described["path"] = None
    return jsonify(described)


@bp.post("/config")
@game_master
def change_config():
    """``{"changes": {"server": {"port": 8081}}}``: checked like the file, saved, applied."""
    changes = json_body().get("changes")
    if not isinstance(changes, dict) or not all(isinstance(v, dict) for v in changes.values()) or not changes:
        refuse(400, "'changes' must be sections of keys, e.g. {\"server\": {\"port\": 8081}}", "bad_field",
               field="changes")
    if "pin" in changes.get("server", {}) and changes["server"]["pin"] is None:
        changes["server"].pop("pin")  # "keep the PIN as it is"
    _, later = _save(changes)
    return jsonify(saved=True, restart_needed=later, config=_store().describe())


def corners_from_clicks(corners, image_size, picture: tuple[int, int], what: str = "table") -> list[list[float]]:
    """Four clicked corners (NW, NE, SE, SW) on a live-view picture of ``image_size``, in the pixels of the
    camera's working ``picture`` (width, height) it shows; refused unless they make a convex quadrilateral in
    that order.

    >>> corners_from_clicks([[10, 10], [470, 12], [475, 260], [8, 258]], [480, 270], (960, 540))
    [[20.0, 20.0], [940.0, 24.0], [950.0, 520.0], [16.0, 516.0]]
    """
    if (not isinstance(image_size, list) or len(image_size) != 2
            or not all(_number(v) and 16 <= v <= 10000 for v in image_size)):
        refuse(400, "'image_size' must be the picture's [width, height] in pixels", "bad_field", field="image_size")
    width, height = image_size
    if (not isinstance(corners, list) or len(corners) != 4
            or not all(isinstance(p, list) and len(p) == 2 and all(_number(v) for v in p) for p in corners)):
        refuse(400, "click the four corners: NW, NE, SE, SW, each as [x, y]", "bad_field", field="corners")
    for name, (x, y) in zip(CORNER_NAMES, corners):
        if not (0 <= x <= width and 0 <= y <= height):
            refuse(400, f"the {name} corner lies outside the picture", "bad_field", field="corners")
    turns = []
    for i in range(4):
        (ax, ay), (bx, by), (cx, cy) = corners[i], corners[(i + 1) % 4], corners[(i + 2) % 4]
        turns.append((bx - ax) * (cy - by) - (by - ay) * (cx - bx))
    area = sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(corners, corners[1:] + corners[:1])) / 2
    if not all(t > 0 for t in turns) or area < (0.02 if what == "table" else 0.002) * width * height:
        refuse(400, f"the corners must go round the {what} in order NW, NE, SE, SW (clockwise on the picture) "
               f"and enclose {'the play area' if what == 'table' else 'it'}", "bad_field", field="corners")
    scale = picture[0] / width
    return [[round(x * scale, 1), round(y * scale, 1)] for x, y in corners]


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) < 1e6


def _live_picture() -> tuple[int, int]:
    """The camera's working picture the live view shows, whose pixels tapped corners are kept in: a USB webcam's
    may be smaller than [camera] work_width (a picture is never enlarged)."""
    picture = runtime().live_view.picture_size
    if picture is None:
        refuse(409, "the camera has shown no picture yet: tap the corners on the live view once it shows the table",
               "no_picture")
    return picture


def _tapped(key: str, corners: list, picture: tuple[int, int]) -> dict:
    """The changes that keep ``key``'s ``corners`` with the ``picture`` they were tapped on; the other tapped
    corners (the tray's, the table's) are carried over onto that picture, or forgotten where they were tapped on
    a picture of another shape (another view of the table: they no longer say where anything is)."""
    from vision.geometry import on_picture

    table = _store()()["table"]
    changes = {key: corners, "picture_px": list(picture)}
    other = "tray_px" if key == "corners_px" else "corners_px"
    if table[other] and table["picture_px"] and list(table["picture_px"]) != list(picture):
        placed = on_picture(table[other], table["picture_px"], picture)
        changes[other] = [] if placed is None else [[round(x, 1), round(y, 1)] for x, y in placed]
    return {"table": changes}


@bp.post("/calibration")
@game_master
def calibrate():
    """``{"corners": [[x, y] x 4], "image_size": [w, h]}`` clicked on the live view -> ``table.corners_px``."""
    data = json_body()
    picture = _live_picture()
    corners = corners_from_clicks(data.get("corners"), data.get("image_size"), picture)
    _, later = _save(_tapped("corners_px", corners, picture))
    return jsonify(saved=True, corners_px=corners, restart_needed=later)


@bp.delete("/calibration")
@game_master
def forget_calibration():
    """Forget the stored corners (the corner tags are used again)."""
    json_body()
    _, later = _save({"table": {"corners_px": []}})
    return jsonify(saved=True, corners_px=[], restart_needed=later)


@bp.post("/tray")
@game_master
def mark_tray():
    """``{"corners": [[x, y] x 4], "image_size": [w, h]}``: the dice tray's corners tapped on the live view ->
    ``table.tray_px`` (applies at once: only dice inside it are read)."""
    data = json_body()
    picture = _live_picture()
    corners = corners_from_clicks(data.get("corners"), data.get("image_size"), picture, what="tray")
    _save(_tapped("tray_px", corners, picture))
    from companion.pipeline import tray_towards_edge

    answer = {"saved": True, "tray_px": corners}
    edge = tray_towards_edge(corners, picture)
    if edge:
        answer["warning"] = edge
    return jsonify(answer)


@bp.delete("/tray")
@game_master
def forget_tray():
    """Forget the tapped tray (no dice are read until a tray is marked again)."""
    json_body()
    _save({"table": {"tray_px": []}})
    return jsonify(saved=True, tray_px=[])
