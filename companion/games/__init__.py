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
import unicodedata
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


MAX_NAME = 40
# Scripts whose letters look alike: a name mixing them ("Аnne", a Cyrillic А) is refused.
LOOKALIKE_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")


def check_players(players, *, minimum: int, maximum: int, game: str) -> tuple[str, ...]:
    """Validate seat names: the right count, each a name a person can read and type, none twice.

    Names are stored NFC-normalised. Refused: blank or too long names; invisible, bidirectional
    and control characters; spaces other than the ordinary one; commas and ``#`` (lists and
    move scripts use them); letters of Latin, Greek and Cyrillic mixed in one name; two names
    equal after Unicode normalisation (NFKC) and case folding. Look-alikes across scripts
    ("Anne" and a Cyrillic "Аnnе") are refused by :func:`companion.names.check_lookalikes`,
    which needs Unicode's confusables data.
    """
    players = tuple(unicodedata.normalize("NFC", str(p).strip()) for p in players)
    if not minimum <= len(players) <= maximum:
        raise SetupError(f"{game} is for {minimum} to {maximum} players, not {len(players)}")
    for p in players:
        if why := why_bad_name(p):
            raise SetupError(why)
    seen: dict[str, str] = {}
    for p in players:
        key = name_key(p)
        if key in seen:
            same = f"'{p}'" if seen[key] == p else f"'{seen[key]}' and '{p}' (the same name to the companion)"
            raise SetupError(f"two players are called {same}: give each a different name")
        seen[key] = p
    return players


def name_key(name: str) -> str:
    """What makes two names the same: NFKC normalisation and case folding (``Ａnne`` is ``anne``)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def why_bad_name(name: str) -> str | None:
    """Why ``name`` cannot be a player's name (None when it can)."""
    if not name:
        return "every player needs a name"
    if len(name) > MAX_NAME:
        return f"'{name[:MAX_NAME]}...': a player's name can have at most {MAX_NAME} characters"
    for ch in name:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            what = {"Cc": "a control character", "Cf": "an invisible or text-direction character"}.get(
                category, "a character that cannot be shown")
            return f"{_shown(name)}: a player's name may not contain {what} (U+{ord(ch):04X})"
        if category == "Zs" and ch != " ":
            return f"{_shown(name)}: use an ordinary space in a player's name (U+{ord(ch):04X} looks the same)"
        if ch in ",#":
            return f"'{name}': a player's name may not contain '{ch}' (lists of players and move scripts use it)"
    if unicodedata.category(name[0]).startswith("M"):
        return f"{_shown(name)}: a player's name may not start with an accent on its own"
    scripts = sorted({unicodedata.name(ch, "").split(" ")[0] for ch in name if ch.isalpha()} & set(LOOKALIKE_SCRIPTS))
    if len(scripts) > 1:
        return (f"'{name}' mixes {' and '.join(s.title() for s in scripts)} letters, which look alike: "
                "write the name in one alphabet")
    return None


def _shown(name: str) -> str:
    return repr(name)  # escapes what cannot be seen, so the refusal shows where it is


def unknown_options(options: Mapping[str, str], known: set[str], game: str) -> None:
    """Refuse options the game does not have, so a typo is not silently ignored."""
    extra = sorted(set(options) - known)
    if extra:
        raise SetupError(
            f"{game} has no option {', '.join(extra)}; its options are {', '.join(sorted(known)) or 'none'}"
        )
