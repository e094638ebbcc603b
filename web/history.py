"""A game's numbers over time, derived by replay: each player's gold, juices or fruits after every move.

The log is the history: nothing extra is stored. The states after each move in
effect come from the session's replay (undone moves are not part of the story).
"""

from __future__ import annotations

from typing import Any

MAX_POINTS = 2000


def game_series(session: Any) -> dict:
    """``{"players": [...], "fields": [...], "points": [{"index", "text", "source", "values"}]}``.

    ``values`` maps each player to their numeric fields (``{"Lola": {"stash": 12}}``);
    point 0 is the start of the game.
    """
    if session is None:
        return {"game": None, "players": [], "fields": [], "points": []}
    rules = session.rules
    played = session.played[-MAX_POINTS:]
    points = [_point(0, "start", "", rules.to_json(session.initial))]
    first = len(session.played) - len(played)
    for offset, step in enumerate(played, start=first + 1):
        points.append(_point(offset, step.text, step.source, rules.to_json(step.after)))
    fields = sorted({f for p in points for values in p["values"].values() for f in values})
    return {"game": session.game, "players": list(session.players), "fields": fields, "points": points}


def _point(index: int, text: str, source: str, state: dict) -> dict:
    values = {}
    for player in state.get("players", []):
        if not isinstance(player, dict) or "name" not in player:
            continue
        values[player["name"]] = {
            key: value for key, value in player.items()
            if key != "seat" and isinstance(value, (int, float)) and not isinstance(value, bool)
        }
    return {"index": index, "text": text, "source": source, "values": values}
