"""The JSON API for the game in play: state, moves, undo and redo, corrections, alerts, new games.

Every change goes through the runtime (the one writer) with source ``dashboard``;
the answer carries the new snapshot so the page that asked updates at once, and
every other page gets it from the event stream.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from companion import games
from companion.errors import IllegalMove
from web import security
from web.api_cards import card_options
from web.api_dice import dice_options
from web.bodies import json_body, names, options, seat_list, text
from web.gamelist import available_games
from web.history import game_series
from web.runtime_ref import runtime
from web.seats import entrant, viewer
from web.security import refuse

bp = Blueprint("api", __name__, url_prefix="/api")

SOURCE = "dashboard"
MAX_LEGAL_SHOWN = 40
MAX_CHOICES_SHOWN = 300  # a correction's choices: every roll of a Fandooble turn fits


def _changed(event) -> tuple:
    return jsonify(event=event.to_json(), state=runtime().snapshot(viewer())), 200


# -- reading --------------------------------------------------------------------


@bp.get("/state")
def state():
    """The state as this phone may see it: its seat's private view, or the shared table view."""
    return jsonify(runtime().snapshot(viewer()))


@bp.get("/session")
def browser_session():
    """This browser's security token and whether the game master's actions are unlocked."""
    return jsonify(csrf=security.csrf_token(), pin_required=bool(security.configured_pin()),
                   unlocked=security.is_unlocked(), seat=viewer())


@bp.get("/health")
def health():
    rt = runtime()
    gates = current_app.extensions["companion_stream_gates"]
    snapshot = rt.snapshot(viewer())
    return jsonify(
        runtime="ok" if rt.alive else "stopped",
        health=snapshot.get("health", {}),
        streams={name: gate.to_json() for name, gate in gates.items()},
        version=snapshot.get("version"),
    )


@bp.get("/games")
def game_list():
    return jsonify(available_games())


@bp.get("/games/history")
def past_games():
    """Every game stored, newest first, to open one again."""
    rt = runtime()
    current = rt.session.session_id if rt.session is not None else None
    result = [
        {"session_id": r.session_id, "game": r.game, "title": r.title, "players": r.setup.get("players", []),
         "created": r.created, "campaign_id": r.parent_id, "in_play": r.session_id == current}
        for r in rt.log.sessions(kind="game")
    ]
    return jsonify(list(reversed(result))[:50])


@bp.get("/game/legal")
def legal():
    """The moves allowed now that this phone may enter, in text form, when the game can list them
    (``moves`` is null otherwise); ``end_turn`` is what the "next turn" button would play.
    ``?instead_of=EVENT_ID``: the moves allowed in that move's place (the choices of a correction)."""
    session = runtime().session
    if session is None:
        return jsonify(moves=None, count=0, end_turn=None)
    end_turn = _end_turn_move(session)
    if end_turn is not None and session.why_not_yours(end_turn, viewer()) is not None:
        end_turn = None  # another player's phone: no button the companion would refuse
    instead_of = request.args.get("instead_of") or None
    if instead_of is not None and len(instead_of) > 64:
        raise IllegalMove("that move is not in effect: only a move in effect can be corrected")
    moves = session.legal_moves(viewer(), instead_of=instead_of)
    if moves is None:
        return jsonify(moves=None, count=0, end_turn=end_turn)
    shown = MAX_CHOICES_SHOWN if instead_of is not None else MAX_LEGAL_SHOWN
    return jsonify(moves=[m.to_text() for m in moves[:shown]], count=len(moves), end_turn=end_turn)


def _end_turn_move(session) -> str | None:
    """What the "next turn" button would play now (the game's end-of-turn move), if anything."""
    move = session.rules.end_turn_move(session.state) if session.outcome() is None else None
    if move is None or session.why_illegal(move) is not None:
        return None
    return move if isinstance(move, str) else move.to_text()


@bp.get("/game/series")
def series():
    """Each player's numbers after every move in effect (gold, juices, ...), for the charts."""
    return jsonify(game_series(runtime().session, viewer()))


# -- changing the game -----------------------------------------------------------


def confirm_replacing(data: dict, opening: str | None = None) -> None:
    """Starting or opening a game while another is in play needs ``"replace": true`` (the page asks the
    players first); the replaced game stays in the history, to be opened again later."""
    session = runtime().session
    if session is None or data.get("replace") is True or session.outcome() is not None \
            or session.session_id == opening:
        return
    title = session.record.title or session.game
    refuse(409, f"'{title}' ({', '.join(session.players)}) is in play: replace it? It stays in the list of "
                "stored games and can be opened again later", "game_in_play")


@bp.post("/games")
def new_game():
    data = json_body()
    game = text(data, "game", max_len=40)
    players = names(data.get("players"))
    title = text(data, "title", required=False, max_len=80) or ""
    games.get(game)  # an unknown game is refused as such, before any question about the one in play
    confirm_replacing(data)
    # The players' card facts and the taught dice come with every new game unless the request says otherwise.
    chosen = {**card_options(game), **dice_options(game), **options(data.get("options"))}
    started = runtime().new_game(game, players, chosen, title=title, seats=seat_list(data))
    return jsonify(started), 201


@bp.post("/games/<session_id>/open")
def open_game(session_id: str):
    data = json_body()
    if len(session_id) > 64:
        refuse(404, "no such game", "not_found")
    runtime().log.session(session_id)  # an unknown game is a 404 before any question
    confirm_replacing(data, opening=session_id)
    return jsonify(runtime().open_game(session_id))


@bp.post("/move")
def move():
    data = json_body()
    event = runtime().play(text(data, "move"), source=SOURCE, entrant=entrant(),
                           event_id=text(data, "event_id", required=False, max_len=64))
    return _changed(event)


@bp.post("/undo")
def undo():
    data = json_body()
    return _changed(runtime().undo(source=SOURCE, entrant=entrant(),
                                   event_id=text(data, "event_id", required=False, max_len=64)))


@bp.post("/redo")
def redo():
    data = json_body()
    return _changed(runtime().redo(source=SOURCE, event_id=text(data, "event_id", required=False, max_len=64)))


@bp.post("/end-turn")
def end_turn():
    """What the "next turn / bank" button does: the game's end-of-turn move (Fandooble: bank)."""
    data = json_body()
    session = runtime().session
    if session is None:
        raise IllegalMove("no game is in play: start one first")
    move = _end_turn_move(session)
    if move is None:
        raise IllegalMove(f"{session.current_player() or 'nobody'} cannot end the turn now: "
                          "play the move the game waits for (the turn ends by itself after it)")
    return _changed(runtime().play(move, source=SOURCE, entrant=entrant(),
                                   event_id=text(data, "event_id", required=False, max_len=64)))


@bp.post("/correct")
def correct():
    """Replace a misread move (``target`` is its event id) by what really happened."""
    data = json_body()
    event = runtime().correct(text(data, "target", max_len=64), text(data, "move"), source=SOURCE,
                              entrant=entrant(), event_id=text(data, "event_id", required=False, max_len=64))
    return _changed(event)


@bp.post("/alerts/<alert_id>/resolve")
def resolve_alert(alert_id: str):
    """``resolution``: ``accept`` the proposed move, ``correct`` it with ``move``, or ``dismiss``."""
    data = json_body()
    resolution = text(data, "resolution", max_len=20)
    if resolution not in ("accept", "correct", "dismiss"):
        refuse(400, "'resolution' must be accept, correct or dismiss", "bad_field", field="resolution")
    move_text = text(data, "move", required=resolution == "correct")
    if len(alert_id) > 64:
        raise IllegalMove("that alert is already resolved or does not exist")
    event = runtime().resolve_alert(alert_id, resolution, source=SOURCE, move=move_text, entrant=entrant(),
                                    event_id=text(data, "event_id", required=False, max_len=64))
    return _changed(event)


@bp.post("/alerts/dismiss-all")
def dismiss_all_alerts():
    """Dismiss every pending alert at once (the panel's "Dismiss all")."""
    data = json_body()
    event = runtime().dismiss_all_alerts(source=SOURCE, event_id=text(data, "event_id", required=False, max_len=64))
    if event is None:
        return jsonify(event=None, state=runtime().snapshot(viewer())), 200
    return _changed(event)


# -- the game master's lock ---------------------------------------------------------


@bp.post("/unlock")
def unlock():
    data = json_body()
    pin = data.get("pin")
    if not isinstance(pin, str) or len(pin) > 32:
        refuse(400, "'pin' must be the PIN as text", "bad_field", field="pin")
    security.unlock(pin)
    return jsonify(unlocked=True)


@bp.post("/lock")
def lock():
    json_body()
    security.lock()
    return jsonify(unlocked=security.is_unlocked())
