"""The rules-engine contract every game follows, and the registry of games.

Each game is a pure package ``companion/games/<name>/`` that imports only the
standard library and its own data. It exposes these module-level names:

``NAME`` / ``TITLE``
    The id used on the command line and in the event log, and the name people read.
``State``
    A frozen dataclass; everything the game knows. Never mutated.
Move kinds
    Small frozen dataclasses, each with ``to_text()`` giving one line such as
    ``roll CCGF``; ``parse_move(text)`` turns that line back into the move or
    raises :class:`~companion.errors.InvalidMove` saying why it cannot be read.
``setup(players, options) -> State``
    ``players`` are names in seat order; ``options`` maps option names to text
    (as typed after ``--option``). Raises :class:`~companion.errors.SetupError`.
``why_illegal(state, move) -> str | None``
    ``None`` when the move is allowed now, else the reason in a player's words.
``apply(state, move) -> State``
    Always validates (raises :class:`~companion.errors.IllegalMove` with the
    reason of ``why_illegal``), then returns the new state.
``legal_moves(state) -> list | None``
    The moves allowed now where they can be listed (chance moves listed by
    kind, e.g. every possible roll); ``None`` where they cannot.
``outcome(state) -> Outcome | None``
    ``None`` while the game runs.
``current_player(state) -> str | None``
    Whose decision the game waits for (``None`` when it is over).
``player_view(state, player) -> dict``
    The JSON state with what ``player`` may not see removed.
``random_chance(state, rng) -> move | None``
    For simulation: the next chance move (a roll with its faces, a drawn card)
    sampled with ``rng``. Chance is always part of a move, so replaying a log
    never needs a random generator.
``to_json(state) -> dict``
    The state as JSON-ready data: what ``companion play`` prints and the
    dashboard shows.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Mapping

from companion.errors import SetupError

# Module paths are imported on first use so the command line starts fast on a Pi.
_GAMES = {
    "fandooble": "companion.games.fandooble",
    "fable": "companion.games.fable",
}


@dataclass(frozen=True)
class Outcome:
    """How a game ended: who won (ties share the win) and why, in words."""

    winners: tuple[str, ...]
    reason: str


def names() -> list[str]:
    """The games the companion knows, whether or not their package is installed yet."""
    return sorted(name for name in _GAMES if _importable(name))


def _importable(name: str) -> bool:
    return importlib.util.find_spec(_GAMES[name]) is not None


def get(name: str) -> ModuleType:
    """The rules module of game ``name``; raises :class:`SetupError` for an unknown game."""
    if name not in _GAMES or not _importable(name):
        known = ", ".join(names())
        raise SetupError(f"unknown game '{name}': the companion knows {known}")
    return importlib.import_module(_GAMES[name])


def int_option(options: Mapping[str, str], key: str, default: int, *, minimum: int = 0) -> int:
    """Read an integer option typed as text, refusing nonsense with the option's name."""
    raw = options.get(key)
    if raw is None:
        return default
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise SetupError(f"option {key}={raw!r}: expected a whole number") from None
    if value < minimum:
        raise SetupError(f"option {key}={value}: must be at least {minimum}")
    return value


def check_players(players, *, minimum: int, maximum: int, game: str) -> tuple[str, ...]:
    """Validate seat names: the right count, none blank, none twice."""
    players = tuple(str(p).strip() for p in players)
    if not minimum <= len(players) <= maximum:
        raise SetupError(f"{game} is for {minimum} to {maximum} players, not {len(players)}")
    if any(not p for p in players):
        raise SetupError("every player needs a name")
    seen = set()
    for p in players:
        if p.casefold() in seen:
            raise SetupError(f"two players are called '{p}': give each a different name")
        seen.add(p.casefold())
    return players


def unknown_options(options: Mapping[str, str], known: set[str], game: str) -> None:
    """Refuse options the game does not have, so a typo is not silently ignored."""
    extra = sorted(set(options) - known)
    if extra:
        raise SetupError(
            f"{game} has no option {', '.join(extra)}; its options are {', '.join(sorted(known)) or 'none'}"
        )
