"""The pages people open on their phones. Each is a template plus one script; the data comes from the
runtime's snapshot (embedded for the first paint, then kept live by the event stream)."""

from __future__ import annotations

from flask import Blueprint, render_template

from web import security
from web.gamelist import available_games
from web.runtime_ref import runtime

bp = Blueprint("pages", __name__)

# (endpoint, path, label): the navigation, in the order a game night uses it.
PAGES = (
    ("table", "/", "Table"),
    ("fable", "/fable", "Fabled Fruit"),
    ("fandooble", "/fandooble", "Fandooble"),
    ("campaigns", "/campaigns", "Campaigns"),
    ("cards", "/cards", "Cards"),
    ("setup", "/setup", "Setup"),
)


def _page(name: str, title: str, **extra):
    return render_template(
        f"{name}.html",
        page=name,
        title=title,
        pages=PAGES,
        snapshot=runtime().snapshot(),
        csrf=security.csrf_token(),
        pin_required=bool(security.configured_pin()),
        games=available_games(),
        **extra,
    )


@bp.get("/")
def table():
    return _page("table", "Table")


@bp.get("/fandooble")
def fandooble():
    return _page("fandooble", "Fandooble")


@bp.get("/fable")
def fable():
    return _page("fable", "Fabled Fruit")


@bp.get("/campaigns")
def campaigns():
    return _page("campaigns", "Campaigns")


@bp.get("/cards")
def cards():
    return _page("cards", "Card data")


@bp.get("/setup")
def setup():
    return _page("setup", "Setup")
