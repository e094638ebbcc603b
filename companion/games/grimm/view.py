"""What each viewer sees of The Grimm Forest: everything is open but this round's collection cards and the
Fables laid on them, which only their player sees until the reveal."""

from __future__ import annotations

import random
from dataclasses import replace

from .moves import Gather
from .rules import FLOW, fullest, to_act, tokens, turn_order
from .state import PARTS, RESOURCES, Res, State, data, friend_name, location_name

STAGES = {0: None, 1: "floor", 2: "walls"}


def _res(r: Res) -> dict:
    return dict(zip(RESOURCES, r))


def picks_revealed(state: State) -> bool:
    return state.revealed_rounds == state.round


def fables_revealed(state: State) -> bool:
    return state.phase != "collect"


def to_json(state: State) -> dict:
    """Everything, the secrets too (the command line prints it; never sent to a device as is)."""
    view = _view(state, viewer=None, secrets=True)
    return view


def player_view(state: State, viewer: str | None) -> dict:
    return _view(state, viewer, secrets=False)


def _view(state: State, viewer: str | None, secrets: bool) -> dict:
    open_picks = secrets or picks_revealed(state)
    open_fables = secrets or fables_revealed(state)
    acting = to_act(state)
    seats = []
    for s in state.seats:
        mine = s.name == viewer
        seats.append({
            "name": s.name,
            "resources": _res(s.hand),
            "fables": s.fables,
            "friend": s.friend and {"id": s.friend, "name": friend_name(s.friend)},
            "houses": _res(s.complete),
            "house_count": s.houses,
            "building": {r: STAGES[stage] for r, stage in zip(RESOURCES, s.building)},
            "first_builder": [r for r, holder in zip(RESOURCES, state.first_builders) if holder == s.name],
            "chosen": s.pick is not None,
            "pick": s.pick if (open_picks or mine) else None,
            "fable_played": s.fable_played if (open_fables or mine) else None,
            "first_player": state.players[state.first] == s.name,
        })
    locations = []
    for loc, here in zip(state.locations, state.stock):
        facts = data()["locations"][loc]
        locations.append({
            "id": loc, "name": facts["name"], "resource": facts["resource"], "stock": _res(here), "total": sum(here),
            "monster": loc in state.monsters, "prince": state.prince == loc,
            "pigs": [s.name for s in state.seats if s.pick == loc] if open_picks else [],
        })
    view = {
        "game": "grimm",
        "round": state.round,
        "phase": state.phase,
        "phase_moves": sorted(FLOW[state.phase].moves),
        "first_player": state.players[state.first],
        "turn_order": list(turn_order(state)),
        "to_act": list(acting),
        "actions_left": state.actions_left if state.phase == "construction" else None,
        "special_used": state.special_used,
        "waiting": _waiting(state, acting),
        "players": seats,
        "locations": locations,
        "supply": _res(state.supply),
        "fable_deck": state.fable_deck,
        "fable_discard": state.fable_discard,
        "picks_revealed": open_picks,
        "split": [{"location": sp.location, "name": location_name(sp.location), "pigs": list(sp.pigs),
                   "took": [_res(t) for t in sp.took], "left": _res(sp.left), "blocked": sp.blocked, "share": sp.share}
                  for sp in state.splits],
        "draft_order": list(state.draft_order),
        "history": [{"round": state.revealed_rounds - len(state.history[-3:]) + 1 + i,
                     "picks": [{"player": p, "location": loc, "fable": fable} for p, (loc, fable) in zip(state.players, h)]}
                    for i, h in enumerate(state.history[-3:])],
        "first_builders": dict(zip(RESOURCES, state.first_builders)),
        "costs": dict(zip(PARTS, state.costs)),
        "mega": list(state.mega),
        "two_player": state.two_player,
        "advanced": state.advanced,
        "friends": {k: {"name": f["name"], "timing": f["timing"], "text": f["text"], "known": f["effect"] is not None}
                    for k, f in data()["friends"].items()},
        "notes": list(state.notes[-30:]),
        "decisions": data()["decisions"],
        "over": state.over,
        "winners": list(state.result[0]) if state.result else [],
        "reason": state.result[1] if state.result else None,
        "fullest": None,
    }
    if state.phase == "prince":
        view["fullest"] = fullest(state)  # the location the Prince must visit, if one holds more than 10
    if secrets:
        view["tokens"] = _res(tokens(state))
    if viewer is not None and state.seat(viewer) is not None:
        me = state.at(viewer)
        view["you"] = {"name": viewer, "pick": me.pick, "fable": me.fable_played}
    return view


def _waiting(state: State, acting) -> str:
    if state.over:
        return ""
    names = ", ".join(acting)
    return {
        "prince": "the table: roll the Prince Regal's die",
        "collect": f"{names} to choose a collection card",
        "fables": f"{names} to resolve the Fable played",
        "before": f"{names} to use Cinderella (or pass)",
        "draft": f"{names} to take a token from the Market",
        "after": f"{names} to swap the Frog Prince",
        "construction": f"{names}: {state.actions_left} action{'s' if state.actions_left != 1 else ''} left",
        "cleanup": "the table: lay a mega-resource token on each location",
    }[state.phase]


def public_text(move, after: State, now: State) -> str | None:
    """A collection card stays "X chose a collection card" for the others until the reveal."""
    if not isinstance(move, Gather):
        return None
    if now.revealed_rounds >= after.round:
        return None
    if now.round == after.round and fables_revealed(now) and move.fable:
        return f"{move.player} chose a collection card and laid a Fable on it"
    return f"{move.player} chose a collection card"


def scramble_secrets(state: State, viewer: str | None, rng: random.Random) -> State:
    if picks_revealed(state):
        return state
    seats = []
    for s in state.seats:
        if s.name == viewer or s.pick is None:
            seats.append(s)
            continue
        fable = s.fable_played
        if not fables_revealed(state):
            fable = s.fables > 0 and rng.random() < 0.5
        seats.append(replace(s, pick=rng.choice(state.locations), fable_played=fable))
    return replace(state, seats=tuple(seats))

