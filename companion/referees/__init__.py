"""Referees turn what the camera saw into moves for the engine, or into alerts for a person.

Vision never decides game facts. A referee gets each *stable* observation of the
table (see :mod:`vision.cards` and :mod:`vision.dice`) together with the game
session, and answers with verdicts:

* :class:`Apply` -- a move in text form the engine should apply (source ``camera``);
* :class:`Alert` -- something a person must look at; it names what was expected and
  what was seen, and may propose a move a person can accept.

The runtime applies the verdicts on its one writer thread. A move the engine
refuses becomes an alert too, so nothing reaches the log unless the engine
accepted it.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Apply:
    """Apply ``move`` (text form) to the game."""

    move: str
    payload: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Alert:
    """Ask a person: ``text`` says what was expected and what was seen; ``move`` may be proposed."""

    text: str
    move: str | None = None
    payload: dict = field(default_factory=dict)


Verdict = Apply | Alert


class Referee(Protocol):
    """One per game session; keeps whatever it needs between observations."""

    def observe(self, session: Any, observation: Any) -> list[Verdict]:
        """Verdicts for a new stable observation of the table."""


def for_game(game: str, **kwargs) -> Referee | None:
    """A new referee for ``game`` (the module ``companion.referees.<game>``, found by name), or None
    when the game has none: it is played on the dashboard."""
    if not game.isidentifier():
        return None
    module_name = f"{__name__}.{game}"
    if importlib.util.find_spec(module_name) is None:
        return None
    return importlib.import_module(module_name).make_referee(**kwargs)
