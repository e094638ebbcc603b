"""The table's dice on the dashboard, through :class:`companion.dicestore.DiceStore`: what the camera
knows about them, which kind it reads, the ArUco sticker table, and the taught face counts that a new
Fandooble game (and its odds) uses.

Teaching a face needs clean pictures from the overhead camera, which the running
companion's camera pipeline owns; until it hands the dashboard such pictures, faces
are taught with ``companion dice teach`` (the page says so).
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, jsonify

from web.bodies import json_body, text
from web.runtime_ref import runtime
from web.security import game_master, refuse

bp = Blueprint("dice_api", __name__, url_prefix="/api/dice")

# companion.dicestore is imported inside the views: a fault there closes these routes, never the dashboard.
FANDOOBLE_FACES = {"C": "treasure chest", "G": "green dragon", "R": "red dragon",
                   "F": "Fandooble", "K": "knight", "W": "wizard"}


def _store():
    from companion.dicestore import DiceStore

    path = getattr(runtime().log, "path", ":memory:")
    if path == ":memory:":
        refuse(409, "this companion has no data directory to keep what it knows about the dice", "no_data_dir")
    return DiceStore(Path(path).parent)


def dice_options(game: str) -> dict[str, str]:
    """The setup option a new game takes from the taught dice: Fandooble's ``faces`` ({} when not taught)."""
    if game != "fandooble" or getattr(runtime().log, "path", ":memory:") == ":memory:":
        return {}
    faces = _store().fandooble_faces()
    return {"faces": faces} if faces else {}


def _described(store) -> dict:
    from companion.dicestore import KINDS

    return {**store.describe(), "kinds": list(KINDS), "face_names": FANDOOBLE_FACES,
            "teach_command": "companion dice teach --die dragon --faces CCGGRR"}


@bp.get("")
def show():
    """What the camera knows: the kind it reads, the taught dice and their face counts, the sticker table."""
    return jsonify(_described(_store()))


@bp.post("/kind")
@game_master
def use_kind():
    """``{"kind": "pips" | "taught" | "aruco"}``: which dice the camera reads."""
    store = _store()
    store.set_kind(text(json_body(), "kind", max_len=20))
    return jsonify(_described(store))


@bp.post("/aruco")
@game_master
def aruco_table():
    """``{"table": {"0": "C", "1": "G"}}``: which face each ArUco sticker stands for."""
    table = json_body().get("table")
    if not isinstance(table, dict) or not table or len(table) > 250:
        refuse(400, "'table' maps sticker numbers to faces, e.g. {\"0\": \"C\"}", "bad_field", field="table")
    parsed: dict[int, str] = {}
    for key, face in table.items():
        if not str(key).isdigit() or int(key) > 999 or not isinstance(face, str) or not face.strip() or len(face) > 8:
            refuse(400, f"sticker {str(key)[:10]!r} = {str(face)[:10]!r}: write a sticker number and a face letter",
                   "bad_field", field="table")
        parsed[int(key)] = face.strip().upper()
    store = _store()
    store.save_face_table(parsed)
    return jsonify(_described(store))
