"""Fabled Fruit's state: the display, the deck, the juices, the fruit, the animals and the round."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, Table
from .fruits import Fruits

MOVE, ACT, DRAW, OVER = "move", "act", "draw", "over"


@dataclass(frozen=True, slots=True)
class Stack:
    """A small location stack on display: one location number, its cards from top to bottom."""

    number: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class State:
    """Everything a game of Fabled Fruit knows. Never mutated.

    Cards: ``deck + display + juices + bag`` hold every location card exactly once
    (``bag`` = juices of earlier games of the campaign, out of play). Fruits:
    ``pile + discard + hands`` hold every fruit card exactly once.
    """

    players: tuple[str, ...]
    kinds: tuple[str, ...]  # fruit kinds, in the order of every Fruits' counts
    fruit_counts: tuple[int, ...]  # how many fruit cards of each kind the box holds
    table: Table
    goal: int  # juices that end the game
    start: int  # seat of the start player
    display: tuple[Stack, ...]
    deck: tuple[Card, ...]  # top first
    bag: tuple[Card, ...]
    juices: tuple[tuple[Card, ...], ...]
    hands: tuple[Fruits, ...]
    pile: Fruits  # the face-down fruit stack
    discard: Fruits
    animals: tuple[int | None, ...]  # the location each animal stands on (None: in front of its owner)
    turns: tuple[int, ...]  # turns each player has completed
    current: int = 0
    phase: str = MOVE
    ending: str = ""  # why the round being played is the last one ("" while it is not)
    last: str = ""  # what the last move did, in words, for the dashboard log and the LEDs
    returned: tuple[str, ...] = ()  # animals sent back to their owners by the last purchase
    passes: int = 0  # turns passed in a row (nobody could move elsewhere)

    @property
    def player(self) -> str:
        return self.players[self.current]

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def last_seat(self) -> int:
        """The player to the right of the start player: the last turn of every round is theirs."""
        return (self.start - 1) % len(self.players)

    def seat(self, name: str) -> int | None:
        folded = name.casefold()
        for i, p in enumerate(self.players):
            if p.casefold() == folded:
                return i
        return None

    def stack(self, number: int | None) -> Stack | None:
        for s in self.display:
            if s.number == number:
                return s
        return None

    def display_count(self) -> int:
        return sum(len(s.cards) for s in self.display)

    def destinations(self) -> list[int]:
        """Where the current player's animal may go: any stack but the one it stands on."""
        here = self.animals[self.current]
        return [s.number for s in self.display if s.number != here]

    def occupants(self, number: int) -> list[int]:
        """Seats of the other players whose animals stand on location ``number``, in seat order."""
        return [i for i, at in enumerate(self.animals) if at == number and i != self.current]

    def kind_index(self, kind: str) -> int | None:
        try:
            return self.kinds.index(kind)
        except ValueError:
            return None
