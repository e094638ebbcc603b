"""Bable test helpers: a complete set of made-up card facts and short ways to set up and play.

The facts here are invented for the tests (the rulebook does not give them): they
make every check of the engine active. The shipped game knows none of them.
"""

from __future__ import annotations

import json

from companion.games import bable

RESOURCE_MIX = {"stone": 9, "cement": 9, "tools": 9, "wood": 9}
WORD_MIX = {"build": 7, "gather": 6, "give": 6, "reveal": 6}
CONFUSION_MIX = (1, 2, 1, 1, 2, 1, 1)
_COSTS = ["stone wood", "cement tools", "stone cement", "tools wood", "stone stone", "wood wood", "cement cement",
          "tools tools"]
_DETAILS = [["statue"], ["doors"], ["relief"], ["stairs"], [], ["doors", "stairs"], ["statue", "doors"], []]


def facts_entries() -> dict:
    entries = {}
    for n in range(1, 17):
        entries[f"B{n}"] = {"name": f"Hall{n}", "cost": _cost(_COSTS[(n - 1) % 8]), "details": _DETAILS[(n - 1) % 8]}
    for kind, mix in (("R", RESOURCE_MIX), ("W", WORD_MIX)):
        for name, count in mix.items():
            entries[f"{kind}-{name}"] = {"count": count}
    for k, count in enumerate(CONFUSION_MIX):
        entries[f"C{k + 1}"] = {"count": count}
    return entries


def _cost(text: str) -> dict:
    counts: dict[str, int] = {}
    for name in text.split():
        counts[name] = counts.get(name, 0) + 1
    return counts


FACTS = json.dumps(facts_entries())


def options(advanced: bool = False, facts: bool = True, **extra) -> dict:
    result = {"advanced": "yes" if advanced else "no", **extra}
    if facts:
        result["cards"] = FACTS
    return result


def play(state, *lines: str):
    """Apply each move written as text, in order."""
    for line in lines:
        state = bable.apply(state, bable.parse_move(line))
    return state


def dealt(players=("Anne", "Paul"), *, advanced: bool = False, facts: bool = True, deals=None, **extra):
    """A game past the deal. Default deals: Anne stone stone wood, word give, B1; Paul cement tools wood,
    word build, B2; Rachel stone cement tools, word gather, B3; then tools wood wood / reveal / B4, ..."""
    defaults = ["stone stone wood word give B1", "cement tools wood word build B2", "stone cement tools word gather B3",
                "tools wood wood word reveal B4", "stone cement wood word give B5"]
    state = bable.setup(list(players), options(advanced, facts, **extra))
    for name, deal in zip(players, deals or defaults):
        state = play(state, f"deal {name} {deal}")
    return state
