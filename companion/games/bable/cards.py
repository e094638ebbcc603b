"""Bable's card facts: the rulebook's fixed facts (``data.json``) and the card table players fill in.

The rulebook gives the rules and the component counts, but not what is printed on
each card: the 16 Building cards' costs and details (Relief, Statue, Doors, Stairs),
how many Resource cards of each type there are, how many Word cards carry each
command symbol, how many Confusion cards carry each effect (only the first is
marked "1x"). Those are :class:`Facts`, filled in from the players' own box and
carried into a game by its ``cards`` option; a fact still unknown is None and the
engine does not check what depends on it.

Card table keys: ``B1``-``B16`` (buildings: ``name``, ``cost``, ``details``),
``R-stone`` ... (resources: ``count``), ``W-build`` ... (Word cards: ``count``),
``C1``-``C7`` (Confusion effects in the rulebook's order: ``count``).

>>> parse_cost("2 stone + wood")
{'stone': 2, 'wood': 1}
>>> Facts.shipped().confusion[0]
1
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Mapping


@functools.cache
def data() -> dict:
    """The rulebook's facts (``data.json``)."""
    return json.loads(resources.files(__package__).joinpath("data.json").read_text("utf-8"))


@functools.cache
def shipped() -> dict:
    """The card facts shipped with the package (``cards.json``): sources per kind and the few known facts."""
    return json.loads(resources.files(__package__).joinpath("cards.json").read_text("utf-8"))


SYMBOLS: tuple[str, ...] = tuple(data()["symbols"])
RESOURCES: tuple[str, ...] = tuple(data()["resources"])
DETAILS: tuple[str, ...] = tuple(data()["details"])
EFFECTS: tuple[str, ...] = tuple(c["effect"] for c in data()["confusion"])
COMPONENTS: dict = data()["components"]
BUILDINGS = COMPONENTS["buildings"]

# What each kind of entry counts, and the total the rulebook gives for it.
COUNTED = {"resource": (RESOURCES, "resources", "Resource cards"),
           "words": (SYMBOLS, "words", "Word cards"),
           "confusion": (EFFECTS, "confusion", "Confusion cards")}
FIELDS_OF = {"building": ("name", "cost", "details"), "resource": ("count",), "words": ("count",),
             "confusion": ("count",)}
FIELDS = ("name", "cost", "details", "count")

_ALIASES = {"stones": "stone", "tool": "tools", "woods": "wood", "cements": "cement",
            "reliefs": "relief", "statues": "statue", "door": "doors", "stair": "stairs"}


def _word(text: str) -> str:
    low = text.strip().lower()
    return _ALIASES.get(low, low)


# -- keys -------------------------------------------------------------------------


def keys() -> list[str]:
    """Every key of the card table, in the order people read it."""
    return ([f"B{n}" for n in range(1, BUILDINGS + 1)] + [f"R-{r}" for r in RESOURCES]
            + [f"W-{s}" for s in SYMBOLS] + [f"C{n}" for n in range(1, len(EFFECTS) + 1)])


def kind_of(key: str) -> str:
    return {"B": "building", "R": "resource", "W": "words", "C": "confusion"}[key[0]]


def check_key(key: Any) -> str:
    """A key as the table spells it (``b7`` -> ``B7``, ``stone`` -> ``R-stone``); ValueError when there is none."""
    text = str(key).strip()
    low = _word(text.lower().removeprefix("r-").removeprefix("w-"))
    if low in RESOURCES:
        return f"R-{low}"
    if low in SYMBOLS:
        return f"W-{low}"
    match = re.fullmatch(r"([bc])\s*(\d+)", text.lower()) or re.fullmatch(r"(building|confusion)\s*(\d+)", text.lower())
    if match:
        letter = match.group(1)[0].upper()
        number = int(match.group(2))
        top = BUILDINGS if letter == "B" else len(EFFECTS)
        if 1 <= number <= top:
            return f"{letter}{number}"
    raise ValueError(
        f"'{text}' is not a card of Bable's table: B1-B{BUILDINGS} (buildings), R-stone, R-cement, R-tools, "
        f"R-wood (resource counts), W-build, W-gather, W-give, W-reveal (Word cards per symbol), "
        f"C1-C{len(EFFECTS)} (Confusion effects)"
    )


# -- fields as typed and as stored ---------------------------------------------------


def parse_cost(text: str) -> dict[str, int]:
    """A building's cost as printed (``2 stone + 1 wood``, ``stone stone wood``) -> {resource: count}."""
    counts: dict[str, int] = {}
    pending = None
    for token in re.split(r"[\s,+&]+|\band\b", text.strip().lower()):
        if not token:
            continue
        if token.isdigit() or re.fullmatch(r"\d+x", token):
            if pending is not None:
                raise ValueError(f"'{text}': a number must be followed by a resource")
            pending = int(token.rstrip("x"))
            continue
        name = _word(token)
        if name not in RESOURCES:
            raise ValueError(f"'{token}' is not a resource of Bable ({', '.join(RESOURCES)})")
        counts[name] = counts.get(name, 0) + (1 if pending is None else pending)
        pending = None
    if pending is not None:
        raise ValueError(f"'{text}': a number must be followed by a resource")
    return check_cost(counts)


def check_cost(value: Any) -> dict[str, int]:
    if not isinstance(value, dict) or not value:
        raise ValueError("a cost names at least one resource, e.g. 2 stone + 1 wood")
    result = {}
    for name, count in value.items():
        if name not in RESOURCES:
            raise ValueError(f"'{name}' is not a resource of Bable ({', '.join(RESOURCES)})")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= COMPONENTS["resources"]:
            raise ValueError(f"{name}: a cost counts whole cards, at least 1")
        result[name] = count
    return {r: result[r] for r in RESOURCES if r in result}


def cost_text(cost: Mapping[str, int] | None) -> str | None:
    if cost is None:
        return None
    return " + ".join(f"{n} {r}" for r, n in cost.items() if n)


def parse_details(text: str) -> list[str]:
    """The images on a Building card (``statue, doors``; ``none``) -> a list of details."""
    low = text.strip().lower()
    if low in ("none", "no", "nothing", "-"):
        return []
    return check_details([_word(t) for t in re.split(r"[\s,/+&]+|\band\b", low) if t])


def check_details(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise ValueError("details are a list: relief, statue, doors, stairs, or none")
    for item in value:
        if item not in DETAILS:
            raise ValueError(f"'{item}' is not a building detail of Bable ({', '.join(DETAILS)}, or none)")
    return sorted(value, key=DETAILS.index)


def details_text(details: list[str] | tuple[str, ...] | None) -> str | None:
    if details is None:
        return None
    return ", ".join(details) if details else "none"


def check_count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError("a count is a whole number, 0 or more")
    return value


def check_name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > 40:
        raise ValueError("a name is the card's title, 1 to 40 characters")
    return value.strip()


def parse_field(field: str, text: str) -> Any:
    """A fact as typed (``cost=2 stone + wood``) in its stored form; ``unknown`` forgets it. ValueError with the reason."""
    _known_field(field)
    text = text.strip()
    if text.lower() in ("", "unknown", "?"):
        return None
    if field == "cost":
        return parse_cost(text)
    if field == "details":
        return parse_details(text)
    if field == "count":
        if not text.isdigit():
            raise ValueError(f"'{text}': a count is a whole number, e.g. 9")
        return int(text)
    return check_name(text)


def check_field(field: str, value: Any) -> Any:
    """A stored fact checked (from an imported file); ValueError with the reason."""
    _known_field(field)
    if value is None:
        return None
    return {"cost": check_cost, "details": check_details, "count": check_count, "name": check_name}[field](value)


def _known_field(field: str) -> None:
    if field not in FIELDS:
        raise ValueError(f"'{field}' is not a fact of a Bable card; the facts are {', '.join(FIELDS)} "
                         "(buildings: name, cost, details; the others: count)")


# -- the facts a game plays with -------------------------------------------------------


@dataclass(frozen=True)
class BuildingCard:
    """One Building card as far as it is known (None: not entered yet)."""

    number: int
    name: str | None = None
    cost: tuple[int, ...] | None = None  # by RESOURCES
    details: tuple[str, ...] | None = None

    @property
    def label(self) -> str:
        return f"B{self.number} {self.name}" if self.name else f"B{self.number}"

    @property
    def blank(self) -> bool:
        """Nothing about this card has been entered (any such card will do for a draw entered as B?)."""
        return self.name is None and self.cost is None and self.details is None

    def cost_dict(self) -> dict[str, int] | None:
        return None if self.cost is None else {r: n for r, n in zip(RESOURCES, self.cost) if n}

    def count(self, *names: str) -> int | None:
        """How many of these details the card shows (None when its details are not known)."""
        return None if self.details is None else sum(1 for d in self.details if d in names)

    def to_json(self) -> dict:
        return {"card": f"B{self.number}", "name": self.name, "cost": self.cost_dict(),
                "cost_text": cost_text(self.cost_dict()), "details": None if self.details is None else list(self.details)}


@dataclass(frozen=True)
class Facts:
    """Every card fact a game plays with; a None is a fact the players have not entered."""

    buildings: tuple[BuildingCard, ...]
    resources: tuple[int | None, ...]
    words: tuple[int | None, ...]
    confusion: tuple[int | None, ...]

    @classmethod
    def from_entries(cls, entries: Mapping[str, Mapping[str, Any]]) -> "Facts":
        """Facts from ``{key: {field: value}}`` (the ``cards`` option); ValueError saying what does not fit."""
        table = {k: dict(v) for k, v in checked_entries(entries).items()}
        buildings = []
        for n in range(1, BUILDINGS + 1):
            entry = table.get(f"B{n}", {})
            cost = entry.get("cost")
            buildings.append(BuildingCard(
                n, entry.get("name"), None if cost is None else tuple(cost.get(r, 0) for r in RESOURCES),
                None if entry.get("details") is None else tuple(entry["details"])))
        counted = {kind: tuple(table.get(_counted_key(kind, i, name), {}).get("count") for i, name in enumerate(names))
                   for kind, (names, _, _) in COUNTED.items()}
        return cls(tuple(buildings), counted["resource"], counted["words"], counted["confusion"])

    @classmethod
    def shipped(cls) -> "Facts":
        return cls.from_entries(shipped_entries())

    def building(self, number: int) -> BuildingCard:
        return self.buildings[number - 1]

    @property
    def resource_mix(self) -> tuple[int, ...] | None:
        """How many Resource cards of each type, when all four counts are known."""
        return None if None in self.resources else tuple(self.resources)  # type: ignore[arg-type]

    def unknown(self) -> list[str]:
        """What the engine cannot check because the players have not entered it, in words."""
        gaps = []
        costs = sum(1 for b in self.buildings if b.cost is None)
        details = sum(1 for b in self.buildings if b.details is None)
        if costs:
            gaps.append(f"the cost of {costs} of the {BUILDINGS} Building cards")
        if details:
            gaps.append(f"the details (Relief, Statue, Doors, Stairs) of {details} Building cards")
        if self.resource_mix is None:
            gaps.append("how many Resource cards of each type there are")
        if None in self.words:
            gaps.append("how many Word cards carry each command symbol")
        if None in self.confusion:
            gaps.append("how many Confusion cards carry each effect")
        return gaps


def _counted_key(kind: str, index: int, name: str) -> str:
    return {"resource": f"R-{name}", "words": f"W-{name}", "confusion": f"C{index + 1}"}[kind]


def shipped_entries() -> dict[str, dict]:
    return {key: {f: v for f, v in entry.items() if f != "source"} for key, entry in shipped()["known"].items()}


def checked_entries(entries: Mapping[str, Mapping[str, Any]]) -> dict[str, dict]:
    """Entries with every key, field and total checked against the box; ValueError saying what does not fit."""
    result: dict[str, dict] = {}
    for raw_key, fields in entries.items():
        key = check_key(raw_key)
        if not isinstance(fields, Mapping):
            raise ValueError(f"{key}: expected {{field: value}}")
        allowed = FIELDS_OF[kind_of(key)]
        entry = {}
        for field, value in fields.items():
            if field not in allowed:
                raise ValueError(f"{key} has no fact '{field}' (its facts: {', '.join(allowed)})")
            value = check_field(field, value)
            if value is not None:
                entry[field] = value
        if entry:
            result[key] = entry
    for kind, (names, component, label) in COUNTED.items():
        counts = [result.get(_counted_key(kind, i, n), {}).get("count") for i, n in enumerate(names)]
        total = COMPONENTS[component]
        known = sum(c for c in counts if c is not None)
        if known > total:
            raise ValueError(f"the box has {total} {label}, but the counts entered add up to {known}")
        if None not in counts and known != total:
            raise ValueError(f"the box has {total} {label}, but the counts entered add up to {known}: "
                             "check each count against your cards")
    return result


def pinned(entries: Mapping[str, Mapping[str, Any]]) -> str:
    """The ``cards`` option: every known fact as JSON, so a game replays the same whatever a later version ships."""
    return json.dumps(checked_entries(entries), sort_keys=True, separators=(",", ":"))
