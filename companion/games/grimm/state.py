"""The Grimm Forest's state: frozen, resources as (straw, wood, brick) triples."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources as _files

RESOURCES = ("straw", "wood", "brick")
PARTS = ("floor", "walls", "roof")
Res = tuple[int, int, int]
NONE: Res = (0, 0, 0)


@lru_cache(maxsize=1)
def data() -> dict:
    """The shipped facts (``data.json``): locations, costs, Friends, decisions where the rules are silent."""
    return json.loads(_files.files(__package__).joinpath("data.json").read_text("utf-8"))


def location_ids() -> tuple[str, ...]:
    return tuple(data()["locations"])  # fields, forest, brickyard, market


def location_name(loc: str) -> str:
    return data()["locations"][loc]["name"]


def resource_of(loc: str) -> int | None:
    """The index of the resource a location holds (None for the Market, which holds all three)."""
    r = data()["locations"][loc]["resource"]
    return None if r is None else RESOURCES.index(r)


def friend_name(friend: str) -> str:
    known = data()["friends"].get(friend)
    return known["name"] if known else friend.replace("-", " ").title()


def friend_effect(friend: str | None) -> str | None:
    known = data()["friends"].get(friend or "")
    return known["effect"] if known else None


def add(a: Res, b: Res) -> Res:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Res, b: Res) -> Res:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def one(r: int, n: int = 1) -> Res:
    return tuple(n if i == r else 0 for i in range(3))  # type: ignore[return-value]


def count(names) -> Res:
    out = [0, 0, 0]
    for n in names:
        out[RESOURCES.index(n)] += 1
    return tuple(out)  # type: ignore[return-value]


def res_text(r: Res) -> str:
    parts = [f"{n} {name}" for n, name in zip(r, RESOURCES) if n]
    return ", ".join(parts) if parts else "nothing"


@dataclass(frozen=True)
class Seat:
    name: str
    hand: Res = NONE
    fables: int = 0  # Fable cards in hand: how many is public, which ones the companion never knows
    friend: str | None = None
    complete: Res = NONE  # finished houses per type
    building: Res = NONE  # the house under construction per type: 0 none, 1 floor, 2 walls
    pick: str | None = None  # this round's secret collection card
    fable_played: bool = False  # a Fable laid face down on it (its count leaves the hand at the reveal)

    @property
    def houses(self) -> int:
        return sum(self.complete)

    @property
    def under_construction(self) -> int:
        return sum(1 for stage in self.building if stage)


@dataclass(frozen=True)
class Split:
    """What one location gave this round: who went there, what each took, what stayed (the picture)."""

    location: str
    pigs: tuple[str, ...]
    took: tuple[Res, ...]
    left: Res
    blocked: bool = False
    share: int = 0  # tokens each pig drafts at a shared Market


@dataclass(frozen=True)
class State:
    seats: tuple[Seat, ...]
    locations: tuple[str, ...]  # in play: the Market only with four players
    stock: tuple[Res, ...]  # resources lying on each location in play
    supply: Res
    first: int = 0  # seat holding the First Player token
    round: int = 1
    phase: str = "collect"
    done: tuple[str, ...] = ()  # who has finished the current phase's step
    actions_left: int = 0
    special_used: bool = False
    monsters: tuple[str, ...] = ()  # locations a monster blocks this round
    fable_deck: int = 56
    fable_discard: int = 0
    first_builders: tuple[str | None, str | None, str | None] = (None, None, None)
    revealed_rounds: int = 0  # rounds whose collection cards are face up
    splits: tuple[Split, ...] = ()  # this round's collection, for the picture
    draft_order: tuple[str, ...] = ()  # the Market draft still to come, one token per entry
    prince: str | None = None  # the Prince Regal's location this round (two players)
    notes: tuple[str, ...] = ()  # effects recorded as the players entered them
    history: tuple[tuple[tuple[str, bool], ...], ...] = ()  # each revealed round's (card, Fable laid) per seat
    advanced: bool = True
    costs: tuple[int, int, int] = (2, 4, 6)
    mega: tuple[int, int] = (3, 5)
    result: tuple[tuple[str, ...], str] | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats)

    def seat(self, name: str | None) -> int | None:
        for i, s in enumerate(self.seats):
            if s.name == name:
                return i
        return None

    def at(self, name: str) -> Seat:
        return self.seats[self.seat(name)]  # type: ignore[index]

    def with_seat(self, name: str, **changes) -> "State":
        i = self.seat(name)
        seats = list(self.seats)
        seats[i] = replace(seats[i], **changes)  # type: ignore[index]
        return replace(self, seats=tuple(seats))

    def stock_at(self, loc: str) -> Res:
        return self.stock[self.locations.index(loc)]

    def with_stock(self, loc: str, value: Res) -> "State":
        stock = list(self.stock)
        stock[self.locations.index(loc)] = value
        return replace(self, stock=tuple(stock))

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def two_player(self) -> bool:
        return len(self.seats) == 2
