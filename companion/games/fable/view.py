"""What ``companion play fable`` prints and the dashboard shows: the state as JSON, and each player's view."""

from __future__ import annotations

from .cards import Table
from .rules import NAME, losers, outcome, session_scores
from .state import MOVE, State


def components_needed(table: Table, numbers) -> dict:
    """The extra components the given locations call for, and the locations whose card does not say yet."""
    needed: list[str] = []
    unknown: list[int] = []
    for n in numbers:
        comps = table[n].components
        if comps is None:
            unknown.append(n)
        else:
            needed.extend(c for c in comps if c not in needed)
    return {"needed": needed, "unknown": sorted(set(unknown))}


def to_json(state: State) -> dict:
    """The whole state as JSON-ready data."""
    result = outcome(state)
    kinds = state.kinds
    return {
        "game": NAME,
        "players": [
            {
                "name": p,
                "seat": i,
                "location": state.animals[i],
                "juices": len(state.juices[i]),
                "juice_cards": [c.to_text() for c in state.juices[i]],
                "fruits": state.hands[i].total,
                "hand": state.hands[i].to_json(kinds),
                "turns": state.turns[i],
            }
            for i, p in enumerate(state.players)
        ],
        "current": None if state.over else state.player,
        "start_player": state.players[state.start],
        "phase": state.phase,
        "round": min(state.turns) + (0 if state.over else 1),
        "goal": state.goal,
        "display": {str(s.number): [c.to_text() for c in s.cards] for s in state.display},
        "display_count": state.display_count(),
        "stacks": [
            {
                "number": s.number,
                "cards": [c.to_text() for c in s.cards],
                "count": len(s.cards),
                "animals": [p for i, p in enumerate(state.players) if state.animals[i] == s.number],
                "location": state.table[s.number].to_json(),
            }
            for s in state.display
        ],
        "deck_size": len(state.deck),
        "deck_next": [c.number for c in state.deck[:10]],
        "deck_top": state.deck[0].to_text() if state.deck else None,
        "bag_size": len(state.bag),
        "bag": [c.to_text() for c in state.bag],
        "fruit_kinds": list(kinds),
        "fruit_stack": state.pile.total,
        "discard_pile": state.discard.total,
        "fruit_stack_kinds": state.pile.to_json(kinds),
        "discard_kinds": state.discard.to_json(kinds),
        "destinations": state.destinations() if state.phase == MOVE else [],
        "can_pass": state.phase == MOVE and not state.destinations(),
        "final_round": bool(state.ending) and not state.over,
        "ending": state.ending,
        "last_turn": state.players[state.last_seat],
        "last": state.last,
        "returned": list(state.returned),
        "components": components_needed(state.table, [s.number for s in state.display]),
        "over": state.over,
        "winners": list(result.winners) if result else [],
        "reason": result.reason if result else "",
        "scores": session_scores(state),
        "losers": list(losers(state)),
    }


def player_view(state: State, player: str | None) -> dict:
    """The JSON state as ``player`` may see it (None: the shared table screen): other hands and the
    fruit stack show counts only."""
    view = to_json(state)
    me = state.seat(player) if player is not None else None
    for i, entry in enumerate(view["players"]):
        if i != me:
            entry["hand"] = {"unknown": entry["fruits"]}
    view["fruit_stack_kinds"] = {"unknown": state.pile.total}
    return view
