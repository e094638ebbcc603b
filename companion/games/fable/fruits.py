"""Fruit cards: kinds, the fruit lists moves carry, and the piles and hands that hold them.

The companion does not see the fruit in players' hands, so every pile or hand is
*counts per kind plus a number of fruits of unknown kind*. At a real table every
fruit is unknown and only counts are checked; in tests and simulations every kind
is known and checked exactly. Nothing is guessed: when a fruit of unknown kind
leaves a pile whose kinds were known, that pile's kinds are forgotten.

Fruit lists in moves: ``3 grapes banana`` (three grapes and a banana), ``2 fruits``
(two of unknown kind), ``nothing``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

UNKNOWN_WORDS = ("fruit", "fruits", "?")


@cache
def data() -> dict:
    """The shipped facts about Fabled Fruit (``data.json``)."""
    return json.loads(resources.files(__package__).joinpath("data.json").read_text("utf-8"))


@cache
def _aliases() -> dict[str, str]:
    aliases = {}
    for kind in data()["fruits"]["kinds"]:
        for word in (kind["name"], kind["plural"], *kind.get("aliases", ())):
            aliases[word.lower()] = kind["name"]
    return aliases


def kind_key(word: str) -> str:
    """The one spelling of a fruit kind: ``Bananas`` -> ``banana``, ``grape`` -> ``grapes``."""
    word = word.strip().lower()
    if word in _aliases():
        return _aliases()[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and len(word) > 3:
        return word[:-1]
    return word


def plural(kind: str) -> str:
    for k in data()["fruits"]["kinds"]:
        if k["name"] == kind:
            return k["plural"]
    return kind[:-1] + "ies" if kind.endswith("y") else kind + "s"


@dataclass(frozen=True)
class FruitList:
    """Fruits named in a move: (kind, count) pairs sorted by kind, plus a count of unknown kind."""

    kinds: tuple[tuple[str, int], ...] = ()
    unknown: int = 0

    @property
    def total(self) -> int:
        return sum(n for _, n in self.kinds) + self.unknown

    def count(self, kind: str) -> int:
        return dict(self.kinds).get(kind, 0)

    def to_text(self) -> str:
        parts = [kind if n == 1 else f"{n} {plural(kind)}" for kind, n in self.kinds]
        if self.unknown:
            parts.append("1 fruit" if self.unknown == 1 else f"{self.unknown} fruits")
        return " ".join(parts) or "nothing"

    @classmethod
    def of(cls, counts: dict[str, int], unknown: int = 0) -> "FruitList":
        return cls(tuple(sorted((k, n) for k, n in counts.items() if n)), unknown)

    @classmethod
    def parse(cls, words: list[str]) -> "FruitList":
        """Read ``["3", "grapes", "banana"]``; raises ValueError with the reason."""
        counts: dict[str, int] = {}
        unknown = 0
        pending: int | None = None
        for word in words:
            low = word.lower()
            if low.isdigit():
                if pending is not None:
                    raise ValueError(f"two numbers in a row ({pending} {word}): write e.g. 3 grapes")
                pending = int(low)
                continue
            n = 1 if pending is None else pending
            pending = None
            if low == "nothing":
                if n != 1 or counts or unknown:
                    raise ValueError("'nothing' stands alone")
                continue
            if low in UNKNOWN_WORDS:
                unknown += n
            else:
                key = kind_key(low)
                counts[key] = counts.get(key, 0) + n
        if pending is not None:
            unknown += pending  # a bare number counts fruits of unknown kind: "draw 2"
        return cls.of(counts, unknown)


@dataclass(frozen=True, slots=True)
class Fruits:
    """A pile or hand: counts per kind in the game's kind order, plus fruits of unknown kind."""

    known: tuple[int, ...]
    unknown: int = 0

    @property
    def total(self) -> int:
        return sum(self.known) + self.unknown

    @classmethod
    def empty(cls, kinds: int) -> "Fruits":
        return cls((0,) * kinds, 0)

    def plus(self, other: "Fruits") -> "Fruits":
        return Fruits(tuple(a + b for a, b in zip(self.known, other.known)), self.unknown + other.unknown)

    def symbols(self, kinds: tuple[str, ...]) -> dict[str, int]:
        """Counts by kind name, with unknown ones under ``"?"`` (for listing choices)."""
        result = {k: n for k, n in zip(kinds, self.known) if n}
        if self.unknown:
            result["?"] = self.unknown
        return result

    def to_json(self, kinds: tuple[str, ...]) -> dict:
        result = {k: n for k, n in zip(kinds, self.known)}
        result["unknown"] = self.unknown
        return result


class Short(Exception):
    """Raised when a pile or hand does not hold the fruits asked for; ``kind`` is None for a count."""

    def __init__(self, kind: str | None, have: int):
        super().__init__(kind, have)
        self.kind = kind
        self.have = have


def remove(zone: Fruits, want: Fruits, kinds: tuple[str, ...]) -> Fruits:
    """``zone`` without ``want``. A named kind comes from that kind, else from the unknown ones
    (the kind is then revealed). Fruits of unknown kind come from the unknown ones, else the
    zone's kinds are forgotten (which ones left is not known). Raises :class:`Short`.
    """
    if want.total > zone.total:
        raise Short(None, zone.total)
    known = list(zone.known)
    unknown = zone.unknown
    for k, n in enumerate(want.known):
        if not n:
            continue
        mine = min(n, known[k])
        known[k] -= mine
        rest = n - mine
        if rest:
            if unknown < rest:
                raise Short(kinds[k], zone.known[k])
            unknown -= rest
    need = want.unknown
    if need:
        mine = min(need, unknown)
        unknown -= mine
        need -= mine
        if need:
            return Fruits((0,) * len(known), sum(known) + unknown - need)
    return Fruits(tuple(known), unknown)


def drain_then_draw(pile: Fruits, want: Fruits) -> Fruits:
    """When a draw takes the whole fruit stack and more: the part of ``want`` still to come
    from the reshuffled discards, matching what the stack held against what was named.
    Raises :class:`Short` when the stack held kinds the draw does not name.
    """
    rest = list(want.known)
    rest_unknown = want.unknown
    for k, held in enumerate(pile.known):
        matched = min(rest[k], held)
        rest[k] -= matched
        extra = held - matched
        if extra:  # named as "fruit": fine, the drawer did not say which kind
            if rest_unknown < extra:
                raise Short(None, pile.total)
            rest_unknown -= extra
    hidden = pile.unknown
    matched = min(hidden, rest_unknown)
    rest_unknown -= matched
    hidden -= matched
    for k in range(len(rest)):
        if not hidden:
            break
        matched = min(hidden, rest[k])
        rest[k] -= matched
        hidden -= matched
    return Fruits(tuple(rest), rest_unknown)
