"""Fandooble's state and its dice: what is on the table, in the stashes and in the pile."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

DRAGON_FACES = "CGR"  # treasure chest, green dragon, red dragon
SPECIAL_FACES = "FKW"  # Fandooble, knight, wizard
FACE_ORDER = DRAGON_FACES + SPECIAL_FACES


@cache
def data() -> dict:
    """The shipped facts about Fandooble's dice and coins (``data.json``)."""
    return json.loads(resources.files(__package__).joinpath("data.json").read_text("utf-8"))


def face_name(letter: str) -> str:
    return data()["faces"][letter]["name"]


@dataclass(frozen=True)
class Dice:
    """How many faces of each kind each die has, and whether a person checked it.

    ``dragon`` and ``special`` list every face of one die, e.g. ``CCGGRR``.
    """

    dragon: str
    special: str
    verified: bool = False

    @classmethod
    def default(cls) -> "Dice":
        dice = data()["dice"]
        return cls(
            dragon=_spell(dice["dragon"]["faces"]),
            special=_spell(dice["special"]["faces"]),
            verified=bool(dice["dragon"]["verified"] and dice["special"]["verified"]),
        )

    def counts(self, die: str) -> dict[str, int]:
        faces = self.dragon if die == "dragon" else self.special
        kinds = DRAGON_FACES if die == "dragon" else SPECIAL_FACES
        return {k: faces.count(k) for k in kinds}

    def to_text(self) -> str:
        return f"{self.dragon}/{self.special}"

    def to_json(self) -> dict:
        return {
            "dragon": self.counts("dragon"),
            "special": self.counts("special"),
            "verified": self.verified,
        }


def _spell(counts: dict[str, int]) -> str:
    return "".join(letter * n for letter, n in sorted(counts.items(), key=lambda kv: FACE_ORDER.index(kv[0])))


def sort_faces(faces: str) -> str:
    """Faces in the one order the log uses: chests, green, red, then the special die."""
    return "".join(sorted(faces, key=FACE_ORDER.index))


@dataclass(frozen=True)
class State:
    """Everything Fandooble knows. Coins are conserved: pile + stashes + loot == coins."""

    players: tuple[str, ...]
    stashes: tuple[int, ...]
    pile: int
    coins: int
    dice: Dice = field(default_factory=Dice.default)
    current: int = 0
    turn: int = 1
    loot: int = 0
    # Uncountered dragons lying on the table, as letters (G green, R red), sorted.
    dragons: str = ""
    pending_steals: int = 0
    rolls_this_turn: int = 0
    last_roll: str = ""
    # What the last move did, for the LEDs and the dashboard: roll, bank, bust, wipe, steal.
    last_event: str = ""
    over: bool = False

    @property
    def player(self) -> str:
        return self.players[self.current]

    def seat(self, name: str) -> int | None:
        for i, p in enumerate(self.players):
            if p.casefold() == name.casefold():
                return i
        return None

    def dragon_dice_to_throw(self) -> int:
        """Dragon/Treasure dice the current player throws: those not held by a dragon."""
        return data()["dice"]["dragon"]["count"] - len(self.dragons)

    def opponents_with_coins(self) -> list[int]:
        return [i for i, s in enumerate(self.stashes) if i != self.current and s > 0]
