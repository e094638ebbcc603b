"""Fabled Fruit campaigns on the dashboard, through :mod:`companion.campaign`.

Every change runs on the runtime thread (``runtime.call``): the log has one writer,
and the runtime publishes a new snapshot afterwards, so every open page refreshes.
Starting a campaign game opens it in the runtime, where the camera's referee and the
buttons act on it. Park, resume and finishing a game answer with the steps for the
players (which cards go where). Reset, import and abandoning a game are the game
master's.
"""

from __future__ import annotations

from flask import Blueprint, jsonify

from web.api import confirm_replacing
from web.api_cards import card_overrides
from web.bodies import json_body, names, seat_list, text
from web.runtime_ref import runtime
from web.security import game_master, refuse

bp = Blueprint("campaigns_api", __name__, url_prefix="/api/campaigns")

SOURCE = "dashboard"
# companion.campaign is imported inside the views: a fault there closes these routes, never the dashboard.
IMPORT_LIMIT = 1024 * 1024  # the appliance's waitress refuses larger bodies anyway


def _campaign(campaign_id: str):
    from companion.campaign import Campaign

    if len(campaign_id) > 64:
        refuse(404, "no such campaign", "not_found")
    return Campaign.find(runtime().log, campaign_id)


def _on_runtime(fn):
    """Run a campaign change on the runtime thread (the log's one writer); the runtime publishes after it."""
    return runtime().call(fn)


def _described(campaign) -> dict:
    facts = card_overrides()
    result = campaign.to_json(card_facts=facts)
    result["summary"] = campaign.summary(card_facts=facts)
    session = runtime().session
    result["in_play"] = session is not None and session.session_id == result["current_game"]
    result["next_steps"] = _between_games(campaign, facts)
    return result


def _between_games(campaign, facts) -> dict | None:
    """What to do now that the last game is over (its end is recorded the moment it ends): None otherwise."""
    from companion.campaign import guide
    from companion.games.fable.cards import Table
    from companion.games.fable.fruits import data

    state = campaign.state
    if state.current is not None or not state.games or state.games[-1].status != "finished":
        return None
    table = Table.build(facts or None, components=data()["components"])
    return guide.between_games(state, table, tuple(state.games[-1].players)).to_json()


@bp.get("")
def listing():
    """Every campaign, with which one's cards are on the table."""
    from companion.campaign import list_campaigns

    return jsonify(list_campaigns(runtime().log))


@bp.post("")
def create():
    """``{"group": ["Anne", "Paul"], "title": "Tuesday group"}``: a new campaign, its cards on the table."""
    from companion.campaign import Campaign

    data = json_body()
    group = names(data.get("group"), "group")
    title = text(data, "title", required=False, max_len=80) or ""

    log = runtime().log  # the closure runs on the runtime thread, outside this request

    def make():
        campaign = Campaign.new(log, group, title=title, how_to_park="its Park button on this page")
        return campaign, campaign.setup_instructions()

    campaign, steps = _on_runtime(make)
    return jsonify(campaign=_described(campaign), instructions=steps.to_json()), 201


@bp.get("/<campaign_id>")
def show(campaign_id: str):
    return jsonify(_described(_campaign(campaign_id)))


@bp.post("/<campaign_id>/games")
def start_game(campaign_id: str):
    """``{"players": [...], "start": "Paul"}``: the campaign's next game, opened on the table."""
    data = json_body()
    confirm_replacing(data)
    players = names(data.get("players"))
    start = text(data, "start", required=False, max_len=40)
    seats = seat_list(data)
    campaign = _campaign(campaign_id)
    facts = card_overrides()

    def begin() -> str:
        return campaign.start_game(players, start=start, card_facts=facts or None, source=SOURCE,
                                   seats=seats).session_id

    game = runtime().open_game(_on_runtime(begin))  # then the table plays it (camera, buttons, pages)
    campaign.refresh()
    return jsonify(game=game, campaign=_described(campaign)), 201


def _steps(campaign_id: str, action) -> tuple:
    campaign = _campaign(campaign_id)
    instructions = _on_runtime(lambda: action(campaign))
    campaign.refresh()
    return jsonify(instructions=instructions.to_json(), campaign=_described(campaign))


@bp.post("/<campaign_id>/finish")
def finish_game(campaign_id: str):
    """Record the result of the campaign's game that has ended (the runtime records it at once for a game
    played on the table; this is for one that ended elsewhere); answers what to do between games."""
    json_body()
    facts = card_overrides()
    return _steps(campaign_id, lambda c: c.finish_game(source=SOURCE, card_facts=facts or None))


@bp.post("/<campaign_id>/abandon")
@game_master
def abandon_game(campaign_id: str):
    """Stop the campaign's game without a result (its juices still leave the deck)."""
    reason = text(json_body(), "reason", required=False, max_len=200) or ""
    return _steps(campaign_id, lambda c: c.abandon_game(reason=reason, source=SOURCE))


@bp.post("/<campaign_id>/park")
def park(campaign_id: str):
    """Put the campaign's cards away: the answer lists the display cards to put back on the deck."""
    json_body()
    return _steps(campaign_id, lambda c: c.park(source=SOURCE))


@bp.post("/<campaign_id>/resume")
def resume(campaign_id: str):
    """Bring the campaign's cards back: the answer lists the cards to lay out, stack by stack."""
    json_body()
    return _steps(campaign_id, lambda c: c.resume(source=SOURCE))


@bp.post("/<campaign_id>/reset")
@game_master
def reset(campaign_id: str):
    """Every card back in number order (history and scores stay)."""
    json_body()
    return _steps(campaign_id, lambda c: c.reset(source=SOURCE))


@bp.get("/<campaign_id>/export")
def export(campaign_id: str):
    from companion.campaign import export_campaign

    campaign = _campaign(campaign_id)
    response = jsonify(export_campaign(campaign))
    safe = "".join(ch if ch.isalnum() else "-" for ch in campaign.title)[:40] or "campaign"
    response.headers["Content-Disposition"] = f'attachment; filename="{safe}.campaign.json"'
    return response


@bp.post("/import")
@game_master
def import_():
    """``{"document": <an export>}``: checked completely (checksum, shape, replay) before anything is stored."""
    from companion.campaign import import_campaign

    document = json_body(limit=IMPORT_LIMIT).get("document")
    log = runtime().log
    campaign = _on_runtime(lambda: import_campaign(log, document))
    return jsonify(campaign=_described(campaign)), 201
