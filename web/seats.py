"""Seats at the table: which player a phone is, and who may enter whose moves.

The Table page shows a seat card per player: a QR code and a short link
(``/join/K7Q2MX``). A phone that opens it takes that player's seat: the claim is
recorded in the game's log and its id kept in the phone's signed session cookie,
bound to that game. From then on the phone sees the player's private view and
enters the player's moves; another seat's moves are refused (403) unless the game
master unlocked the phone with the PIN. A phone without a seat is a spectator of
the shared view. The game master can release a seat; its phone becomes a spectator
and the seat's link works again for another phone.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import secrets

from flask import Blueprint, Response, current_app, jsonify, render_template, request, session, url_for

from companion.runtime import Entrant
from web import security
from web.bodies import json_body, text
from web.runtime_ref import runtime
from web.security import refuse

bp = Blueprint("seats", __name__)

CODE_LEN = 6
_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: easy to type from a screen


def join_code(session_id: str, player: str) -> str:
    """The short code of ``player``'s seat in game ``session_id``: unguessable without the app's key."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    digest = hmac.new(key, f"seat\0{session_id}\0{player}".encode(), hashlib.sha256).digest()
    return "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:CODE_LEN])


def _player_for_code(game, code: str) -> str | None:
    code = code.strip().upper()
    for player in game.players:
        if hmac.compare_digest(join_code(game.session_id, player), code):
            return player
    return None


def seat() -> str | None:
    """The player whose seat this phone holds in the game in play, or None (a spectator)."""
    game = runtime().session
    held = session.get("seat")
    if game is None or not isinstance(held, dict) or held.get("game") != game.session_id:
        return None
    player, claim = held.get("player"), held.get("claim")
    if not isinstance(player, str) or not isinstance(claim, str):
        return None
    return player if game.claims().get(player) == claim else None


def holder_check():
    """A function telling, outside this request, whose view this phone may still get (for a stream):
    its seat's player while the claim it made holds, else None."""
    rt = runtime()
    game = rt.session
    held = session.get("seat")
    if game is None or not isinstance(held, dict) or seat() is None:
        return lambda: None
    game_id, player, claim_id = game.session_id, held["player"], held["claim"]

    def current() -> str | None:
        now = rt.session
        if now is None or now.session_id != game_id or now.claims().get(player) != claim_id:
            return None
        return player

    return current


def entrant() -> Entrant:
    """Who is asking: this phone's seat, and whether the game master unlocked it with the PIN. Without a
    PIN nobody is the game master for seats: each seat's moves come from its own phone (or, once the
    seat is released, from any phone)."""
    return Entrant(seat=seat(), master=bool(security.configured_pin()) and security.is_unlocked())


def viewer() -> str | None:
    """Whose view this phone gets: its seat's player, else the shared table view."""
    return seat()


# -- pages and API ----------------------------------------------------------------


@bp.get("/join/<code>")
def join_page(code: str):
    """The page a seat's QR code opens: it takes the seat (a POST from its script) and goes to the game."""
    return render_template("join.html", page="join", title="Join the game", pages=(), code=code[:16],
                           snapshot=runtime().snapshot(viewer()), csrf=security.csrf_token(),
                           pin_required=bool(security.configured_pin()), games=[])


@bp.get("/api/seats")
def seats():
    """Every seat of the game in play: who sits there, whether a phone holds it, and this phone's seat.
    Free seats carry their join link (the table screen shows it as a QR code)."""
    game = runtime().session
    if game is None:
        return jsonify(game=None, seats=[], mine=None)
    claims = game.claims()
    result = []
    for player, number in zip(game.players, game.seats):
        entry = {"player": player, "seat": number + 1, "claimed": player in claims}
        if player not in claims:
            code = join_code(game.session_id, player)
            entry.update(code=code, link=url_for("seats.join_page", code=code, _external=True))
        result.append(entry)
    return jsonify(game=game.session_id, seats=result, mine=seat())


@bp.get("/api/seats/<code>/qr.svg")
def seat_qr(code: str):
    """The QR code of a seat's join link, drawn by segno (as the stickers are)."""
    import segno

    game = runtime().session
    if game is None or _player_for_code(game, code[:16]) is None:
        refuse(404, "no free seat has that code in the game in play", "not_found")
    buffer = io.BytesIO()
    segno.make(url_for("seats.join_page", code=code.upper(), _external=True), error="m").save(
        buffer, kind="svg", scale=6, border=2, dark="#111", light="#fff")
    response = Response(buffer.getvalue(), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/api/seats/claim")
def claim():
    """Take the seat whose code the phone was given; answers the seat and where to go next."""
    data = json_body()
    code = text(data, "code", max_len=16)
    game = runtime().session
    if game is None:
        refuse(409, "no game is in play: the seat links work once a game is started", "no_game")
    player = _player_for_code(game, code)
    if player is None:
        refuse(404, "that seat link is not for the game in play: scan the seat card on the table screen again",
               "not_found")
    if seat() == player:
        return jsonify(player=player, game=game.session_id, page=_game_page(game))
    claim_id = secrets.token_urlsafe(12)
    runtime().claim_seat(player, claim_id, source="dashboard")
    session["seat"] = {"game": game.session_id, "player": player, "claim": claim_id}
    return jsonify(player=player, game=game.session_id, page=_game_page(game))


@bp.post("/api/seats/leave")
def leave():
    """This phone gives up its seat (it becomes a spectator)."""
    json_body()
    mine = seat()
    if mine is not None:
        runtime().release_seat(mine, source="dashboard")
    session.pop("seat", None)
    return jsonify(player=None)


@bp.post("/api/seats/<player>/release")
@security.game_master
def release(player: str):
    """The game master frees a seat: its phone becomes a spectator; another phone may take the seat."""
    json_body()
    event = runtime().release_seat(player[:80], source="dashboard")
    return jsonify(event=event.to_json())


def _game_page(game) -> str:
    """The game's own page, or the Table page for a game without one."""
    from web.gamelist import has_page

    return url_for("pages.game_page", name=game.game) if has_page(game.game) else url_for("pages.table")
