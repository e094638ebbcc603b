"""Fabled Fruit's card table as :class:`companion.carddata.CardData` sees it (the generic card-facts hook).

A game with a card table players fill in exposes a module like this one as ``CARDS``:
the shipped entries, how a typed fact is read and checked, and the setup option that
carries the players' entries into a game (so the engine itself never reads files).
"""

from __future__ import annotations

from typing import Any, Mapping

from companion.errors import SetupError

from . import cards
from .fruits import data

TITLE = "location"  # what one entry is called
PLURAL = "locations"
FIELDS = cards.EDITABLE
OPTION = "locations"  # the setup option that takes the players' entries as JSON


def defaults() -> dict[str, dict]:
    """The shipped entries keyed by location number as text."""
    return cards.default_entries()


def check_key(key: Any) -> str:
    """A location number as the table keys it; ValueError when the box has no such location."""
    text = str(key).strip().lstrip("#")
    if text not in defaults():
        raise ValueError(f"there is no location {key} in the box (locations 1 to {len(defaults())})")
    return text


def parse_field(field: str, text: str) -> Any:
    """A fact as typed (``price=3 grapes + 1 smoothie``) in its stored form; ValueError with the reason."""
    if field not in FIELDS:
        raise ValueError(f"'{field}' is not a fact of a location card; the facts are {', '.join(FIELDS)}")
    return _known_fruits(field, cards.parse_field(field, text, components=data()["components"]))


def check_field(field: str, value: Any) -> Any:
    """A stored fact checked (from an imported file); ValueError with the reason."""
    if field not in FIELDS:
        raise ValueError(f"'{field}' is not a fact of a location card; the facts are {', '.join(FIELDS)}")
    return _known_fruits(field, cards.check_field(field, value, components=data()["components"]))


def _known_fruits(field: str, value: Any) -> Any:
    if field == "price" and value is not None:
        kinds = [k["name"] for k in data()["fruits"]["kinds"]]
        for kind in value.get("fruits", {}):
            if kind not in kinds:
                raise ValueError(f"{kind} is not a fruit of the box ({', '.join(kinds)}; smoothies are wild)")
    return value


def merged(overrides: Mapping[str, Mapping[str, Any]]) -> dict[str, dict]:
    """Every entry as the engine will use it (shipped facts with the players' entries), JSON-ready."""
    try:
        table = cards.Table.build(overrides, components=data()["components"])
    except SetupError as exc:
        raise ValueError(str(exc)) from None
    result = {}
    for number, location in sorted(table.locations.items()):
        entry = location.to_json()
        entry["sources"] = dict(location.sources)
        result[str(number)] = entry
    return result


def to_option(overrides: Mapping[str, Mapping[str, Any]] | None) -> str:
    """The setup option value: every known fact pinned, so the game replays the same after upgrades."""
    return cards.pin(overrides, components=data()["components"])


def describe(entry: Mapping[str, Any]) -> str:
    """One line for ``companion cards show``."""
    price = entry["price_text"] or "?"
    components = "?" if entry["components"] is None else (", ".join(entry["components"]) or "none")
    signpost = {True: "yes", False: "no", None: "?"}[entry["signpost"]]
    mark = "ok" if entry["verified"] else "to fill in: " + ", ".join(entry["missing"])
    return (f"#{entry['number']:<3} x{entry['copies']}  {entry['name'] or '?'}; price {price}; signpost {signpost}; "
            f"components {components}; action: {entry['action']}  [{mark}]")
