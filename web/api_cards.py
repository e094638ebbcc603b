"""Card facts the players fill in from their own cards (Fabled Fruit's location table and any other
game with a card table), through :class:`companion.carddata.CardData`.

Filling in a fact is open to everyone at the table; forgetting entries and importing
a file are the game master's (they can undo other people's work). A game in play
keeps the facts it was started with, so its replay never changes: new entries count
from the next game on.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, jsonify

from web.bodies import json_body
from web.gamelist import available_games
from web.runtime_ref import runtime
from web.security import game_master, refuse

bp = Blueprint("cards_api", __name__, url_prefix="/api/cards")

IMPORT_LIMIT = 1024 * 1024
# companion.carddata is imported inside the views: a fault there closes these routes, never the dashboard.


def _data_dir() -> Path:
    path = getattr(runtime().log, "path", ":memory:")
    if path == ":memory:":
        refuse(409, "this companion has no data directory to keep card facts in", "no_data_dir")
    return Path(path).parent


def _tables() -> dict[str, object]:
    """The games that have a card table, by name: their CARDS module."""
    from companion import games

    tables = {}
    for game in available_games():
        table = games.get(game["name"]).CARDS
        if table is not None:
            tables[game["name"]] = table
    return tables


def _cards(game: str):
    from companion.carddata import CardData

    if game not in _tables():
        refuse(404, f"'{game[:40]}' has no card table to fill in", "not_found")
    return CardData(_data_dir(), game)


@bp.get("")
def tables():
    """Every game with a card table: what an entry is called, its fields, how many are still unknown."""
    result = []
    for game, table in _tables().items():
        cards = _cards(game)
        result.append({"game": game, "entry": table.TITLE, "entries": table.PLURAL, "fields": list(table.FIELDS),
                       "unverified": len(cards.unverified())})
    return jsonify(result)


@bp.get("/<game>")
def table(game: str):
    """Every entry as the next game will use it, each marked ``verified`` or with its ``missing`` facts."""
    cards = _cards(game)
    entries = cards.merged()
    return jsonify(game=game, fields=list(cards.table.FIELDS), entries=entries,
                   unverified=[k for k, e in entries.items() if not e.get("verified", True)],
                   entered=sorted(cards.overrides(), key=_sort_key))


@bp.post("/<game>/<key>")
def fill_in(game: str, key: str):
    """``{"fields": {"price": "3 grapes + 1 smoothie", "name": "Market"}}`` as written on the card."""
    cards = _cards(game)
    fields = json_body().get("fields")
    if (not isinstance(fields, dict) or not fields or len(fields) > 10
            or not all(isinstance(v, str) and len(v) <= 300 for v in fields.values())):
        refuse(400, "'fields' must map each fact to the text on the card, e.g. {\"price\": \"6 smoothies\"}",
               "bad_field", field="fields")
    entry = cards.set_text(key[:20], fields)
    return jsonify(entry=entry, applies="next_game" if _in_play(game) else "now")


@bp.delete("/<game>/<key>")
@game_master
def forget(game: str, key: str):
    """Forget the players' entries for one card (the shipped facts apply again)."""
    cards = _cards(game)
    json_body()
    return jsonify(entry=cards.clear(key[:20]))


@bp.get("/<game>/export")
def export(game: str):
    response = jsonify(_cards(game).export())
    response.headers["Content-Disposition"] = f'attachment; filename="{game}-card-facts.json"'
    return response


@bp.post("/<game>/import")
@game_master
def import_(game: str):
    """``{"document": <an export>, "replace": false}``; a bad document changes nothing."""
    cards = _cards(game)
    body = json_body(limit=IMPORT_LIMIT)
    replace = body.get("replace", False)
    if not isinstance(replace, bool):
        refuse(400, "'replace' must be true or false", "bad_field", field="replace")
    imported = cards.import_(body.get("document"), replace=replace)
    return jsonify(imported=len(imported), unverified=len(cards.unverified()))


def card_options(game: str) -> dict[str, str]:
    """The setup option that carries the players' card facts into a new game of ``game`` ({} if none)."""
    from companion import games
    from companion.carddata import CardData

    path = getattr(runtime().log, "path", ":memory:")
    if path == ":memory:" or games.get(game).CARDS is None:
        return {}
    return CardData(Path(path).parent, game).options()


def card_overrides(game: str = "fable") -> dict:
    """The players' entries for ``game`` ({} when none, or no data directory)."""
    from companion.carddata import CardData

    path = getattr(runtime().log, "path", ":memory:")
    if path == ":memory:":
        return {}
    return CardData(Path(path).parent, game).overrides()


def _in_play(game: str) -> bool:
    session = runtime().session
    return session is not None and session.game == game and session.outcome() is None


def _sort_key(key: str):
    return (0, int(key)) if key.isdigit() else (1, key)

