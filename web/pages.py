"""The pages people open on their phones. Each is a template plus one script; the data comes from the
runtime's snapshot for this phone's viewer (embedded for the first paint, then kept live by the event
stream). Every game with a template of its own (``templates/<name>.html``) gets a page and a tab."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from web import security
from web.gamelist import available_games, has_page
from web.runtime_ref import runtime
from web.seats import viewer

bp = Blueprint("pages", __name__)


def _pages(games: list[dict]) -> list[tuple[str, str, str]]:
    """(endpoint, path, label): the navigation, in the order a game night uses it."""
    return ([("table", "/", "Table")]
            + [(g["name"], g["page"], g["title"]) for g in games if g["page"]]
            + [("campaigns", "/campaigns", "Campaigns"), ("cards", "/cards", "Cards"), ("setup", "/setup", "Setup")])


def _page(name: str, title: str, template: str | None = None, **extra):
    games = available_games()
    return render_template(
        template or f"{name}.html",
        page=name,
        title=title,
        pages=_pages(games),
        snapshot=runtime().snapshot(viewer()),
        csrf=security.csrf_token(),
        pin_required=bool(security.configured_pin()),
        games=games,
        **extra,
    )


@bp.get("/")
def table():
    return _page("table", "Table")


@bp.get("/campaigns")
def campaigns():
    return _page("campaigns", "Campaigns")


@bp.get("/cards")
def cards():
    return _page("cards", "Card data")


@bp.get("/setup")
def setup():
    from companion.games import dice_to_teach
    from companion.teach import DEFAULT_LOOKS, PHOTO_SIDE

    return _page("setup", "Setup", default_looks=DEFAULT_LOOKS, dice_to_teach=dice_to_teach(), photo_side=PHOTO_SIDE)


@bp.get("/<name>")
def game_page(name: str):
    """A game's own page (``/fable``, ``/fandooble``, ...)."""
    game = next((g for g in available_games() if g["name"] == name and has_page(name)), None)
    if game is None:
        abort(404)
    return _page(name, game["title"])
