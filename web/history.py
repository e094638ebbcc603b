"""A game's numbers over time, derived by replay: each player's gold, juices or fruits after every move.

The log is the history: nothing extra is stored. The states after each move in
effect come from the session's replay (undone moves are not part of the story).
"""

from __future__ import annotations

from typing import Any

MAX_POINTS = 2000


def game_series(session: Any, viewer: str | None = None) -> dict:
    """``{"players": [...], "fields": [...], "points": [{"index", "text", "source", "values"}]}``.

    ``values`` maps each player to their numeric fields (``{"Lola": {"stash": 12}}``);
    point 0 is the start of the game. Built for ``viewer`` (None: the shared table view):
    the states as they may see them, someone else's secret moves in their public words.
    """
    if session is None:
        return {"game": None, "players": [], "fields": [], "points": []}
    rules = session.rules
    played = session.played[-MAX_POINTS:]
    points = [_point(0, "start", "", rules.player_view(session.initial, viewer))]
    first = len(session.played) - len(played)
    for offset, step in enumerate(played, start=first + 1):
        points.append(_point(offset, session.text_for(step, viewer), step.source,
                             rules.player_view(step.after, viewer)))
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
