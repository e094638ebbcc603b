"""Reading request bodies safely: JSON objects only, bounded, every problem a 400 naming the field."""

from __future__ import annotations

import json
from typing import Any

from flask import request

from web.security import refuse

MAX_TEXT = 500


def json_body(*, limit: int | None = None) -> dict:
    """The request's JSON object (``{}`` for an empty body).

    ``limit`` raises the body size allowed for this request (imports); everything
    else keeps the app's ``MAX_CONTENT_LENGTH``.
    """
    if limit is not None:
        request.max_content_length = limit
    raw = request.get_data(cache=True)  # over the limit: 413 before anything is parsed
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        refuse(400, "the request is not valid JSON", "bad_json")
    if not isinstance(data, dict):
        refuse(400, "send a JSON object, e.g. {\"move\": \"bank\"}", "bad_json")
    return data


def _no_constants(word: str):
    raise ValueError(f"{word} is not JSON")  # NaN and Infinity: Python reads them, JSON has none


def text(data: dict, key: str, *, required: bool = True, max_len: int = MAX_TEXT) -> str | None:
    """A non-empty text field (stripped)."""
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        refuse(400, f"'{key}' must be non-empty text", "bad_field", field=key)
    if len(value) > max_len:
        refuse(400, f"'{key}' is too long (at most {max_len} characters)", "bad_field", field=key)
    return value.strip()


def names(value: Any, key: str = "players") -> list[str]:
    """Player names: a list of text, or one text separated by commas."""
    if isinstance(value, str):
        value = [p.strip() for p in value.split(",")]
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value) or len(value) > 12:
        refuse(400, f"'{key}' must be a list of names (at most 12)", "bad_field", field=key)
    if any(len(p) > 40 for p in value):
        refuse(400, "a player's name can have at most 40 characters", "bad_field", field=key)
    return [p.strip() for p in value]


def options(value: Any, key: str = "options") -> dict[str, str]:
    """Game options: an object of short texts (numbers are accepted and written as text)."""
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > 20:
        refuse(400, f"'{key}' must be an object such as {{\"coins\": \"80\"}}", "bad_field", field=key)
    result = {}
    for k, v in value.items():
        if isinstance(v, bool) or not isinstance(v, (str, int, float)) or len(str(v)) > 100 or len(k) > 40:
            refuse(400, f"option '{k[:40]}' must be a short text or number", "bad_field", field=key)
        result[k] = str(v)
    return result


def seat_list(data: dict) -> list[int] | None:
    """``seats``: the table's seats (1-6) the players sit at, in player order; None when not given."""
    seats = data.get("seats")
    if seats is None:
        return None
    if not (isinstance(seats, list) and len(seats) <= 6
            and all(isinstance(n, int) and not isinstance(n, bool) for n in seats)):
        refuse(400, "'seats' must be a list of seat numbers 1 to 6, one per player", "bad_field", field="seats")
    return seats
