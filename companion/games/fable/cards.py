"""Location cards and their facts: card identities (``7:2``), card lists, prices and the location table.

The table ships in ``locations.json`` with every fact the rulebooks do not give left
``null``; players' own entries arrive as *overrides* (a mapping number -> fields),
merged here without any I/O, so a game stores the facts it was played with and
replays the same way whatever is entered later.

>>> parse_cards("1:1-2 2:3 7", {7: 4})
(Card(number=1, copy=1), Card(number=1, copy=2), Card(number=2, copy=3), Card(number=7, copy=1), Card(number=7, copy=2), Card(number=7, copy=3), Card(number=7, copy=4))
>>> format_cards([Card(1, 1), Card(1, 2), Card(1, 3), Card(2, 3)])
'1:1-3 2:3'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Iterable, Mapping, NamedTuple

from companion.errors import SetupError

from .fruits import kind_key, plural

# The actions the engine implements exactly (games.md section 1: locations 1-3).
RULES = {
    "draw2": "draw 2 fruits",
    "banana_for_two": "give a banana to another player for 2 of their other fruits (signpost: draw 1)",
    "draw_and_swap3": "draw 1 fruit, take 3 from another player, give 3 back",
}
# Fields a player may fill in from their own card.
SMOOTHIE_WORDS = ("smoothie", "smoothies", "wild", "wilds", "any")
EDITABLE = ("name", "price", "action", "rule", "signpost", "components")


class Card(NamedTuple):
    """One physical location card: its location number and which copy it is (the tag says ``FF:07:2``)."""

    number: int
    copy: int

    def to_text(self) -> str:
        return f"{self.number}:{self.copy}"


def parse_card(text: str) -> Card:
    """``7:2`` -> Card(7, 2); raises ValueError with the reason."""
    number, sep, copy = text.strip().partition(":")
    if not sep or not number.isdigit() or not copy.isdigit():
        raise ValueError(f"'{text}' is not a card: write location:copy, e.g. 7:2")
    return Card(int(number), int(copy))


def parse_cards(text: str, copies: Mapping[int, int] | None = None) -> tuple[Card, ...]:
    """A card list: ``7:2``, a copy range ``1:1-4`` or a whole location ``7`` (needs ``copies``).

    Items are separated by spaces or commas; the order is kept.
    """
    cards: list[Card] = []
    for item in text.replace(",", " ").split():
        number, sep, rest = item.partition(":")
        if not number.isdigit():
            raise ValueError(f"'{item}' is not a card: write 7:2, 1:1-4 or a location number")
        n = int(number)
        if not sep:
            if copies is None or n not in copies:
                raise ValueError(f"'{item}': location {n} is not in the location table")
            cards.extend(Card(n, c) for c in range(1, copies[n] + 1))
            continue
        first, dash, last = rest.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ValueError(f"'{item}' is not a card: write 7:2 or a copy range such as 1:1-4")
        lo, hi = int(first), int(last) if dash else int(first)
        if hi < lo:
            raise ValueError(f"'{item}': the copy range runs backwards")
        cards.extend(Card(n, c) for c in range(lo, hi + 1))
    return tuple(cards)


def format_cards(cards: Iterable[Card]) -> str:
    """The shortest list text that :func:`parse_cards` reads back in the same order (runs of copies)."""
    parts: list[str] = []
    run: list[Card] = []
    for card in cards:
        if run and card.number == run[-1].number and card.copy == run[-1].copy + 1:
            run.append(card)
            continue
        if run:
            parts.append(_run_text(run))
        run = [card]
    if run:
        parts.append(_run_text(run))
    return " ".join(parts)


def _run_text(run: list[Card]) -> str:
    if len(run) == 1:
        return run[0].to_text()
    return f"{run[0].number}:{run[0].copy}-{run[-1].copy}"


@dataclass(frozen=True)
class Price:
    """What a juice costs: fruits of given kinds plus smoothies (any fruit), or a special price.

    ``fruits`` holds (kind, count) pairs sorted by kind. A special price is text the engine
    cannot check, so a purchase there must say what was paid.
    """

    fruits: tuple[tuple[str, int], ...] = ()
    smoothies: int = 0
    special: str | None = None

    @property
    def total(self) -> int:
        return sum(n for _, n in self.fruits) + self.smoothies

    def to_text(self) -> str:
        if self.special is not None:
            return f"special: {self.special}"
        parts = [f"{n} {kind if n == 1 else plural(kind)}" for kind, n in self.fruits]
        if self.smoothies:
            parts.append(f"{self.smoothies} {'smoothie' if self.smoothies == 1 else 'smoothies'}")
        return " + ".join(parts) or "free"

    def to_json(self) -> dict:
        if self.special is not None:
            return {"special": self.special}
        return {"fruits": dict(self.fruits), "smoothies": self.smoothies}

    @classmethod
    def from_json(cls, value: Any) -> "Price":
        if not isinstance(value, dict):
            raise ValueError("a price is {\"fruits\": {kind: count}, \"smoothies\": n} or {\"special\": text}")
        if "special" in value:
            if set(value) != {"special"} or not isinstance(value["special"], str) or not value["special"].strip():
                raise ValueError("a special price is {\"special\": \"what the card says\"}")
            return cls(special=value["special"].strip())
        extra = set(value) - {"fruits", "smoothies"}
        if extra:
            raise ValueError(f"a price has no field {', '.join(sorted(extra))}")
        fruits = value.get("fruits", {})
        smoothies = value.get("smoothies", 0)
        if not isinstance(fruits, dict) or not _count(smoothies):
            raise ValueError("a price needs fruit counts and a whole number of smoothies")
        pairs: dict[str, int] = {}
        for kind, n in fruits.items():
            if not _count(n):
                raise ValueError(f"price: {n!r} {kind} is not a whole number of fruits")
            if n:
                pairs[kind_key(kind)] = pairs.get(kind_key(kind), 0) + n
        price = cls(fruits=tuple(sorted(pairs.items())), smoothies=smoothies)
        if price.total == 0:
            raise ValueError("a price of no fruit at all is not a price: check the card")
        return price

    @classmethod
    def from_text(cls, text: str) -> "Price":
        """``3 grapes + 1 smoothie``, ``6 smoothies``, ``2 banana 2 coconut`` or ``special: ...``."""
        text = text.strip()
        if text.lower().startswith("special"):
            return cls.from_json({"special": text.partition(":")[2].strip() or text[7:].strip()})
        fruits: dict[str, int] = {}
        smoothies = 0
        count: int | None = None
        for word in text.replace("+", " ").replace(",", " ").split():
            if word.isdigit():
                if count is not None:
                    raise ValueError(f"price '{text}': two numbers in a row")
                count = int(word)
                continue
            key = "smoothie" if word.lower() in SMOOTHIE_WORDS else kind_key(word)
            n = 1 if count is None else count
            count = None
            if key == "smoothie":
                smoothies += n
            else:
                fruits[key] = fruits.get(key, 0) + n
        if count is not None:
            raise ValueError(f"price '{text}': {count} of what? e.g. '3 grapes + 1 smoothie'")
        return cls.from_json({"fruits": fruits, "smoothies": smoothies})


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True)
class Location:
    """What one location number is: how many copies, and what its card says (None = not known yet)."""

    number: int
    copies: int
    name: str | None = None
    price: Price | None = None
    action: str | None = None
    rule: str | None = None
    signpost: bool | None = None
    components: tuple[str, ...] | None = None
    sources: tuple[tuple[str, str], ...] = ()  # (field, where the fact comes from)

    @property
    def verified(self) -> bool:
        """Every fact is known (from the rulebooks or a player's own card)."""
        return None not in (self.name, self.price, self.action, self.signpost, self.components)

    def missing(self) -> list[str]:
        return [f for f in ("name", "price", "action", "signpost", "components") if getattr(self, f) is None]

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "copies": self.copies,
            "name": self.name,
            "price": None if self.price is None else self.price.to_json(),
            "price_text": None if self.price is None else self.price.to_text(),
            "action": self.action if self.action is not None else "unknown",
            "rule": self.rule,
            "signpost": self.signpost,
            "components": None if self.components is None else list(self.components),
            "verified": self.verified,
            "missing": self.missing(),
        }


@cache
def shipped() -> dict:
    """The location table shipped with the companion (``locations.json``)."""
    return json.loads(resources.files(__package__).joinpath("locations.json").read_text("utf-8"))


def default_entries() -> dict[str, dict]:
    """Shipped entries keyed by location number as text (the form overrides use)."""
    return {str(e["number"]): dict(e) for e in shipped()["locations"]}


def check_field(name: str, value: Any, *, components: Iterable[str]) -> Any:
    """A user-entered fact in its stored JSON form, or ValueError saying what is wrong with it."""
    if value is None:
        return None
    if name in ("name", "action"):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name} must be text")
        return value.strip()
    if name == "price":
        return Price.from_json(value).to_json()
    if name == "rule":
        if value not in RULES:
            raise ValueError(f"rule '{value}' is not an action the companion implements ({', '.join(RULES)})")
        return value
    if name == "signpost":
        if not isinstance(value, bool):
            raise ValueError("signpost is yes or no")
        return value
    if name == "components":
        known = list(components)
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise ValueError("components is a list of names")
        bad = [c for c in value if c not in known]
        if bad:
            raise ValueError(f"'{bad[0]}' is not a component of the box ({', '.join(known)})")
        return sorted(set(value), key=known.index)
    raise ValueError(f"'{name}' is not a fact of a location card; the facts are {', '.join(EDITABLE)}")


def parse_field(name: str, text: str, *, components: Iterable[str]) -> Any:
    """A fact typed on the command line (``price=3 grapes + 1 smoothie``) in its stored JSON form."""
    text = text.strip()
    if text.lower() in ("", "?", "unknown", "null"):
        return None
    if name == "price":
        return Price.from_text(text).to_json()
    if name == "signpost":
        low = text.lower()
        if low in ("yes", "y", "true", "1"):
            return True
        if low in ("no", "n", "false", "0"):
            return False
        raise ValueError(f"signpost={text}: write yes or no")
    if name == "components":
        if text.lower() in ("none", "-"):
            return []
        return check_field(name, [c.strip() for c in text.split(",") if c.strip()], components=components)
    return check_field(name, text, components=components)


@dataclass(frozen=True)
class Table:
    """The location table a game is played with: shipped facts merged with the players' entries."""

    locations: Mapping[int, Location] = field(default_factory=dict)

    def __getitem__(self, number: int) -> Location:
        return self.locations[number]

    def __contains__(self, number: int) -> bool:
        return number in self.locations

    def copies(self) -> dict[int, int]:
        return {n: loc.copies for n, loc in self.locations.items()}

    def all_cards(self) -> tuple[Card, ...]:
        """Every location card in the box, in the sorted deck order (1:1 on top)."""
        return tuple(Card(n, c) for n in sorted(self.locations) for c in range(1, self.locations[n].copies + 1))

    @classmethod
    def build(
        cls, overrides: Mapping[str, Mapping[str, Any]] | None, *, components: Iterable[str], pinned: bool = False
    ) -> "Table":
        """The shipped table with ``overrides`` ({"7": {"price": {...}}}) applied; SetupError on a bad entry.

        ``pinned``: the overrides are every fact there is (as a game recorded them when it started),
        so facts shipped by a later version do not change how an old game replays.
        """
        components = tuple(components)
        entries = default_entries()
        if pinned:
            for entry in entries.values():
                entry.update({f: None for f in EDITABLE}, source="")
        overrides = dict(overrides or {})
        for key, fields in overrides.items():
            if key not in entries:
                raise SetupError(f"card facts: there is no location {key} in the box")
            if not isinstance(fields, Mapping):
                raise SetupError(f"card facts for location {key}: expected field=value pairs")
            for name, value in fields.items():
                if name not in EDITABLE:
                    raise SetupError(f"card facts for location {key}: '{name}' cannot be changed ({', '.join(EDITABLE)} can)")
                try:
                    entries[key][name] = check_field(name, value, components=components)
                except ValueError as exc:
                    raise SetupError(f"card facts for location {key}: {exc}") from None
                entries[key].setdefault("_user", []).append(name)
        locations = {}
        given = "recorded with the game when it started" if pinned else "entered by the players"
        for key, e in entries.items():
            user = set(e.get("_user", ()))
            sources = tuple(
                (f, given if f in user else e.get("source", "") if e.get(f) is not None else "")
                for f in EDITABLE
            )
            locations[int(key)] = Location(
                number=int(key),
                copies=e["copies"],
                name=e.get("name"),
                price=None if e.get("price") is None else Price.from_json(e["price"]),
                action=e.get("action"),
                rule=e.get("rule"),
                signpost=e.get("signpost"),
                components=None if e.get("components") is None else tuple(e["components"]),
                sources=sources,
            )
        return cls(locations)


def overrides_from_option(text: str) -> tuple[dict, bool]:
    """The ``locations`` setup option: ``{"7": {...}}`` (entries over the shipped table) or
    ``{"pinned": {"7": {...}}}`` (every fact, as :func:`pin` recorded them). Returns (entries, pinned)."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise SetupError(f"option locations: not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise SetupError("option locations: expected {\"7\": {\"price\": ...}, ...}")
    if set(value) == {"pinned"}:
        if not isinstance(value["pinned"], dict):
            raise SetupError("option locations: 'pinned' holds {\"7\": {\"price\": ...}, ...}")
        return value["pinned"], True
    return value, False


def pin(overrides: Mapping[str, Mapping[str, Any]] | None, *, components: Iterable[str]) -> str:
    """The ``locations`` option holding every known fact (shipped and entered), so a game replays
    with exactly the facts it was played with, whatever a later version ships."""
    table = Table.build(overrides, components=components)
    facts = {}
    for number, location in sorted(table.locations.items()):
        entry = location.to_json()
        known = {f: entry[f] for f in EDITABLE if getattr(location, f) is not None}
        if known:
            facts[str(number)] = known
    return json.dumps({"pinned": facts}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
