"""The pages people open on their phones."""

from flask import Blueprint, render_template

from companion import games
from web.runtime_ref import runtime

bp = Blueprint("pages", __name__)


@bp.get("/")
def table():
    return render_template(
        "table.html",
        snapshot=runtime().snapshot(),
        games=[{"name": n, "title": games.get(n).TITLE} for n in games.names()],
    )
