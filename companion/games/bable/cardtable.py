"""Bable's card table as :class:`companion.carddata.CardData` sees it (the generic card-facts hook).

Four kinds of entry share one table: ``B1``-``B16`` (a Building card: name, cost,
details), ``R-stone`` ... (how many Resource cards of that type), ``W-build`` ...
(how many Word cards carry that symbol), ``C1``-``C7`` (how many Confusion cards
carry that effect). Each entry's JSON holds only its own fields, so the Cards page
shows and edits just those.
"""

from __future__ import annotations

from typing import Any, Mapping

from . import cards

TITLE = "card"
PLURAL = "cards"
FIELDS = cards.FIELDS
OPTION = "cards"

_ABOUT = {"building": "Building card", "resource": "Resource cards of this type (of {total})",
          "words": "Word cards with this symbol (of {total})", "confusion": "Confusion cards: {text}"}


def defaults() -> dict[str, dict]:
    """The shipped entries (every key; only the rulebook's facts filled in)."""
    return merged({})


def check_key(key: Any) -> str:
    return cards.check_key(key)


def parse_field(field: str, text: str) -> Any:
    return cards.parse_field(field, text)


def check_field(field: str, value: Any) -> Any:
    return cards.check_field(field, value)


def merged(overrides: Mapping[str, Mapping[str, Any]]) -> dict[str, dict]:
    """Every entry as a game will use it, JSON-ready: its own fields, ``verified``, ``missing``, ``sources``.
    ValueError when the players' entries do not fit the box (counts adding up to more than it holds)."""
    shipped = cards.shipped_entries()
    entered = cards.checked_entries(overrides)
    table = _combined(shipped, entered)
    kind_sources = cards.shipped()["sources"]
    known_sources = {k: v["source"] for k, v in cards.shipped()["known"].items()}
    effects = cards.data()["confusion"]
    result = {}
    for key in cards.keys():
        kind = cards.kind_of(key)
        fields = cards.FIELDS_OF[kind]
        values = table.get(key, {})
        entry: dict[str, Any] = {"key": key, "kind": kind}
        for field in fields:
            entry[field] = values.get(field)
        if kind == "building":
            entry["cost_text"] = cards.cost_text(entry["cost"])
            entry["details_text"] = cards.details_text(entry["details"])
        total = cards.COMPONENTS[cards.COUNTED[kind][1]] if kind in cards.COUNTED else None
        text = effects[int(key[1:]) - 1]["text"] if kind == "confusion" else ""
        entry["about"] = _ABOUT[kind].format(total=total, text=text)
        entry["missing"] = [f for f in fields if entry[f] is None]
        entry["verified"] = not entry["missing"]
        entry["sources"] = {f: ("entered by the players" if f in entered.get(key, {}) else
                                known_sources.get(key) if f in shipped.get(key, {}) else kind_sources[kind])
                            for f in fields}
        result[key] = entry
    return result


def to_option(overrides: Mapping[str, Mapping[str, Any]] | None) -> str:
    """The setup option value: every known fact pinned, so the game replays the same after upgrades."""
    return cards.pinned(_combined(cards.shipped_entries(), cards.checked_entries(overrides or {})))


def _combined(shipped: Mapping[str, dict], entered: Mapping[str, dict]) -> dict[str, dict]:
    """The shipped facts with the players' entries over them, checked as a whole (totals fit the box)."""
    return cards.checked_entries({k: {**shipped.get(k, {}), **entered.get(k, {})} for k in set(shipped) | set(entered)})


def describe(entry: Mapping[str, Any]) -> str:
    """One line for ``companion cards show``."""
    mark = "ok" if entry["verified"] else "to fill in: " + ", ".join(entry["missing"])
    if entry["kind"] == "building":
        facts = (f"{entry['name'] or '?'}; cost {entry['cost_text'] or '?'}; details {entry['details_text'] or '?'}")
    else:
        facts = f"{'?' if entry['count'] is None else entry['count']} {entry['about']}"
    return f"{entry['key']:<10} {facts}  [{mark}]"
