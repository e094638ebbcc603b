"""A round's phases as data: which moves each phase allows, who acts in it, and what comes next.

Games with rounds of phases (a simultaneous secret choice, then turns in seat order from a
first player, then a step of the table) describe them once with :class:`Flow` instead of
spelling out ``to_act`` and "may this move be played now" for every phase. Pure: no I/O,
no game's name.

>>> f = Flow(Phase("choose", frozenset({"pick"}), simultaneous=True, next="play"),
...          Phase("play", frozenset({"act"}), actions=2, next="choose"))
>>> f.to_act("choose", ("Anne", "Paul", "Rachel"), first=1, done=("Paul",))
('Anne', 'Rachel')
>>> f.to_act("play", ("Anne", "Paul", "Rachel"), first=1, done=("Paul",))
('Rachel',)
>>> f.why_not("play", "pick")
"'pick' is not a move of the play phase (it allows act)"
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Phase:
    """One phase: its move kinds; everyone at once (``simultaneous``) or one after another in turn
    order from the first player; ``actions`` each actor takes; the phase that follows (``next``);
    ``table`` when nobody acts and the game waits for a move of the table (chance, a count)."""

    name: str
    moves: frozenset[str]
    simultaneous: bool = False
    actions: int = 1
    next: str = ""
    table: bool = False


class Flow:
    """The phases of a round, by name."""

    def __init__(self, *phases: Phase):
        self.phases = {p.name: p for p in phases}
        for p in phases:
            if p.next and p.next not in self.phases:
                raise ValueError(f"phase {p.name} is followed by an unknown phase {p.next}")

    def __getitem__(self, name: str) -> Phase:
        return self.phases[name]

    def allows(self, phase: str, kind: str) -> bool:
        return kind in self.phases[phase].moves

    def why_not(self, phase: str, kind: str) -> str | None:
        """None when a move of ``kind`` belongs to ``phase``, else the reason in words."""
        p = self.phases[phase]
        if kind in p.moves:
            return None
        return f"'{kind}' is not a move of the {p.name} phase (it allows {', '.join(sorted(p.moves))})"

    def next(self, phase: str) -> str:
        return self.phases[phase].next

    @staticmethod
    def turn_order(players: tuple[str, ...], first: int) -> tuple[str, ...]:
        """The players in turn order, starting from seat ``first`` and going clockwise (seat order)."""
        return tuple(players[first:]) + tuple(players[:first])

    def to_act(self, phase: str, players: tuple[str, ...], first: int, done: Iterable[str] = (),
               among: Iterable[str] | None = None) -> tuple[str, ...]:
        """Who acts now in ``phase``: everyone not ``done`` (in seat order) when it is simultaneous, else
        the first in turn order not ``done``; only the players ``among`` when given (those a step concerns)."""
        p = self.phases[phase]
        if p.table:
            return ()
        done = set(done)
        concerned = set(players if among is None else among)
        if p.simultaneous:
            return tuple(x for x in players if x in concerned and x not in done)
        for x in self.turn_order(players, first):
            if x in concerned and x not in done:
                return (x,)
        return ()
