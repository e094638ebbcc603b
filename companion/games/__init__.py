"""The rules-engine contract every game follows, and the registry that discovers the games.

Each game is a pure package ``companion/games/<name>/`` that imports only the
standard library, this module and its own data. It exposes ``GAME``: an instance
of a :class:`Game` subclass. That object is the one interface the generic code
(session, runtime, referees, web, LEDs, buttons, command line) talks to; the
generic code never names a game and never looks for optional hooks.

The interface in short (each method is documented on :class:`Game`):

* identity and data: ``NAME``, ``TITLE``, ``OPTIONS``, ``PLAYERS``, ``CARDS``,
  ``CAMERA``, ``DICE`` (picture dice taught to the camera, and ``dice_option``),
  ``SIGNALS``, ``COOPERATIVE``;
* rules: ``setup``, ``parse_move``, ``why_illegal``, ``apply`` (always validates),
  ``outcome``, ``legal_moves``, ``random_chance``;
* who acts: ``to_act`` (everyone the game waits for now: several during a
  simultaneous step, none while it waits for chance or the table), ``mover``
  (whose move a move is), ``deciding`` (who must make a choice rather than a
  physical action: their seat LEDs pulse), ``current_player`` (one-actor games);
* what each viewer sees: ``player_view(state, viewer)`` (``viewer=None`` is the
  shared table screen), ``public_text`` (the log line others see for a secret
  move), ``scramble_secrets`` (what the generic leak checker varies);
* the table's hardware: ``end_turn_move`` (the "next turn" button),
  ``seat_choice_move`` (a seat button pressed while someone decides),
  ``signal`` (a named event the LEDs and buzzer react to, e.g. a bust).

Every move names the player who makes it (``move.player``), or the engine knows
it from the state (whose turn it is); a move by a player the game is not waiting
for is refused with a reason. Chance (dice faces, a drawn card) is part of a
move, so replaying a log never needs a random generator.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
import threading
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from companion.errors import SetupError


@dataclass(frozen=True)
class Outcome:
    """How a game ended: who won (ties share the win; everyone in a cooperative win) and why, in words.

    A cooperative game that is lost has no winners and ``lost=True``.
    """

    winners: tuple[str, ...]
    reason: str
    lost: bool = False


@dataclass(frozen=True)
class PictureDice:
    """The picture dice a game is played with, as the camera is taught them.

    ``dice`` maps each die's name to the faces it may show, one letter each
    (``{"dragon": "CGR"}``); ``names`` says each face letter in words (``{"C": "treasure chest"}``).
    ``labels`` says each die in words (``{"dragon": "Dragon/Treasure die"}``), and ``usual`` its faces
    as a die is usually made, one letter per physical face (``{"dragon": "CCGGRR"}``): what teaching
    offers to show until the game master writes the faces of their own die.
    Teaching checks a die's faces against ``dice``; the taught face counts become the game's
    setup option through :meth:`Game.dice_option`.
    """

    dice: Mapping[str, str]
    names: Mapping[str, str]
    labels: Mapping[str, str] = field(default_factory=dict)
    usual: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Signal:
    """Something that just happened that the table should notice (a bust, a wipe), and to whom."""

    name: str
    players: tuple[str, ...] = ()


class Game:
    """One game's rules behind the interface the generic code uses. Subclass it once per game package.

    Class attributes:

    ``NAME`` / ``TITLE``
        The id used on the command line and in the event log, and the name people read.
    ``OPTIONS``
        The options ``setup`` understands (typed after ``--option``, or on the Setup page), each mapped to
        what it does in a player's words, with its default: ``{"coins": "all the gold in the game (default 80)"}``.
    ``PLAYERS``
        The smallest and largest number of players, e.g. ``(2, 6)``.
    ``CARDS``
        The card-fact table players fill in from their own cards (the Cards page and
        ``companion cards``), or None. It offers ``defaults()``, ``check_key(key)``,
        ``parse_field(field, text)``, ``check_field(field, value)``, ``merged(overrides)``,
        ``to_option(overrides)`` and ``describe(entry)`` (one line of ``companion cards show``);
        ``OPTION`` names the setup option that carries the facts. An entry's JSON holds the
        fields that apply to it (a table with several kinds of card omits the others).
    ``CAMERA``
        What the camera reads for this game: ``"cards"`` (tagged cards), ``"dice"`` (dice in
        the tray) or None (played on the dashboard).
    ``DICE``
        The :class:`PictureDice` the game is played with, or None (pip dice, or no dice).
    ``SIGNALS``
        Each signal name this game raises, mapped to the LED pattern that shows it (a name
        from :data:`companion.leds.PATTERNS`), e.g. ``{"bust": "setback", "wipe": "disaster"}``.
    ``COOPERATIVE``
        True when everyone wins or loses together (the pages say "you all won").
    """

    NAME: str = ""
    TITLE: str = ""
    OPTIONS: Mapping[str, str] = {}
    PLAYERS: tuple[int, int] = (2, 6)
    CARDS: Any = None
    CAMERA: str | None = None
    DICE: PictureDice | None = None
    SIGNALS: Mapping[str, str] = {}
    COOPERATIVE: bool = False

    # -- the rules (every game implements these) -----------------------------------

    def setup(self, players: Iterable[str], options: Mapping[str, str] | None = None) -> Any:
        """A new game's state; ``players`` in seat order. Raises :class:`SetupError` saying why not."""
        raise NotImplementedError

    def parse_move(self, text: str) -> Any:
        """The move written as ``text`` (one line), or :class:`~companion.errors.InvalidMove` saying why not."""
        raise NotImplementedError

    def why_illegal(self, state: Any, move: Any) -> str | None:
        """None when ``move`` is allowed now, else the reason in a player's words."""
        raise NotImplementedError

    def apply(self, state: Any, move: Any) -> Any:
        """The state after ``move``. Always validates: raises :class:`IllegalMove` with the reason."""
        raise NotImplementedError

    def outcome(self, state: Any) -> Outcome | None:
        """None while the game runs."""
        raise NotImplementedError

    def to_act(self, state: Any) -> tuple[str, ...]:
        """Everyone the game waits for now, in seat order; empty when it waits for chance or is over."""
        raise NotImplementedError

    def to_json(self, state: Any) -> dict:
        """The whole state as JSON-ready data (``companion play`` prints it). Never sent to a device as is."""
        raise NotImplementedError

    def player_view(self, state: Any, viewer: str | None) -> dict:
        """The JSON state as ``viewer`` may see it; ``None`` is the shared table screen."""
        raise NotImplementedError

    # -- what most games leave as it is ---------------------------------------------

    def current_player(self, state: Any) -> str | None:
        """The one player the game waits for, or None (nobody, or several at once)."""
        acting = self.to_act(state)
        return acting[0] if len(acting) == 1 else None

    def mover(self, state: Any, move: Any) -> str | None:
        """The player on whose behalf ``move`` is made in ``state``; None for a move of the table
        (chance read by the camera, a card drawn from the deck) that any phone may enter."""
        named = getattr(move, "player", None)
        return named if named else self.current_player(state)

    def deciding(self, state: Any) -> tuple[str, ...]:
        """Players whose choice (not a physical action) the game waits for: their seat LEDs pulse."""
        return ()

    def legal_moves(self, state: Any) -> list | None:
        """The moves allowed now where they can be listed; None where they cannot."""
        return None

    def random_chance(self, state: Any, rng: random.Random) -> Any:
        """For simulation: the next chance move sampled with ``rng``, or None when none is due."""
        return None

    def dice_option(self, taught: Mapping[str, str]) -> dict[str, str]:
        """The setup options a new game takes from the taught dice ``{die name: its faces, one letter per
        physical face}`` (the face counts its odds need); {} when they do not make the game's set."""
        return {}

    def end_turn_move(self, state: Any) -> Any:
        """What the "next turn" button plays now, or None."""
        return None

    def seat_choice_move(self, state: Any, chooser: str, chosen: str) -> Any:
        """What pressing ``chosen``'s seat button plays while ``chooser`` decides, or None."""
        return None

    def signal(self, before: Any, after: Any, move: Any) -> Signal | None:
        """The signal ``move`` raised (one of ``SIGNALS``), or None."""
        return None

    def public_text(self, move: Any, after: Any, now: Any) -> str | None:
        """The log line everyone but the mover sees for a secret ``move``; None when its own text is public.

        ``after`` is the state right after the move, ``now`` the current state: a secret move
        returns None once the game has revealed it.
        """
        return None

    def scramble_secrets(self, state: Any, viewer: str | None, rng: random.Random) -> Any:
        """``state`` with everything ``viewer`` may not see drawn again at random (what is private to
        other players, hidden decks). A game without secrets returns ``state``. The leak checker
        asserts that ``player_view`` cannot tell the difference."""
        return state

    # -- built on the above ------------------------------------------------------

    def check_mover(self, state: Any, move: Any) -> str | None:
        """Why the player who makes ``move`` may not act now (they are not in ``to_act``), or None."""
        who = getattr(move, "player", None)
        if not who:
            return None
        acting = self.to_act(state)
        if who in acting:
            return None
        if not acting:
            return f"{who} cannot play now: the game is not waiting for a player"
        return f"{who} cannot play now: the game waits for {_and(acting)}"

    def __repr__(self) -> str:
        return f"<game {self.NAME}>"


def _and(names: Iterable[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# -- the registry -----------------------------------------------------------------

_lock = threading.Lock()
_found: dict[str, Game] | None = None
_extra: dict[str, Game] = {}


def _discover() -> dict[str, Game]:
    """Every package under ``companion/games`` that exposes ``GAME``, by name (imported once)."""
    global _found
    with _lock:
        if _found is None:
            found = {}
            for info in pkgutil.iter_modules(__path__):
                if not info.ispkg:
                    continue
                module = importlib.import_module(f"{__name__}.{info.name}")
                game = getattr(module, "GAME", None)
                if isinstance(game, Game):
                    found[game.NAME] = game
            _found = found
        return {**_found, **_extra}


def register(game: Game) -> None:
    """Make ``game`` known beside the discovered ones (tests register toy games this way)."""
    with _lock:
        _extra[game.NAME] = game


def unregister(name: str) -> None:
    with _lock:
        _extra.pop(name, None)


def names() -> list[str]:
    """The games the companion knows."""
    return sorted(_discover())


def all_games() -> list[Game]:
    return [get(name) for name in names()]


def get(name: str) -> Game:
    """The rules of game ``name``; raises :class:`SetupError` for an unknown game."""
    game = _discover().get(name)
    if game is None:
        raise SetupError(f"unknown game '{name}': the companion knows {', '.join(names())}")
    return game


def picture_dice() -> dict[str, str]:
    """Every game's picture dice: die name -> the faces it may show."""
    return {die: faces for game in all_games() if game.DICE for die, faces in game.DICE.dice.items()}


def face_names() -> dict[str, str]:
    """Every game's picture-dice face letters in words."""
    return {letter: name for game in all_games() if game.DICE for letter, name in game.DICE.names.items()}


def face_words(die: str | None = None) -> dict[str, str]:
    """Face letters in words, those of the game whose picture die is ``die`` first (two games may use one letter
    for different faces), then every game's (:func:`face_names`)."""
    words = face_names()
    for game in all_games():
        if game.DICE and die in game.DICE.dice:
            words.update(game.DICE.names)
    return words


def dice_to_teach() -> list[dict]:
    """Every game's picture dice as teaching offers them, in the games' order: ``die`` (its name), ``label``
    (in words), ``game`` (the game's title), ``faces`` (the faces it may show), ``words`` (each of those in
    the game's words: two games may use one letter) and ``usual`` (one letter per physical face, as the die is
    usually made; the faces it may show once each where the game does not say)."""
    return [{"die": die, "label": game.DICE.labels.get(die, die), "game": game.TITLE, "faces": faces,
             "words": [game.DICE.names.get(face, face) for face in faces], "usual": game.DICE.usual.get(die, faces)}
            for game in all_games() if game.DICE for die, faces in game.DICE.dice.items()]


# -- helpers the engines share ----------------------------------------------------


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


def unknown_options(options: Mapping[str, str], known: Iterable[str], game: str) -> None:
    """Refuse options the game does not have, so a typo is not silently ignored."""
    extra = sorted(set(options) - set(known))
    if extra:
        raise SetupError(
            f"{game} has no option {', '.join(extra)}; its options are {', '.join(sorted(known)) or 'none'}"
        )

