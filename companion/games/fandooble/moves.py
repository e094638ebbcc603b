"""Fandooble's moves and their text form: ``roll CCGF``, ``steal Grace``, ``bank``."""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import InvalidMove

from .state import FACE_ORDER, face_name, sort_faces


@dataclass(frozen=True)
class Roll:
    """The faces of every die thrown in one roll, in the log's order (``CCGF``).

    A roll is chance: read by the camera it names nobody (``roll CCGF``); typed by the
    roller it may name them (``roll Lola CCGF``), and must then be theirs.
    """

    faces: str
    player: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "faces", sort_faces(self.faces))

    def to_text(self) -> str:
        return f"roll {_named(self.player)}{self.faces}"


@dataclass(frozen=True)
class Steal:
    """Whom a rolled Fandooble takes one coin from (``steal Grace``; ``steal Lola from Grace`` names the thief)."""

    victim: str
    player: str | None = None

    def to_text(self) -> str:
        return f"steal {self.player} from {self.victim}" if self.player else f"steal {self.victim}"


@dataclass(frozen=True)
class Bank:
    """Put the loot in the stash and pass the dice (``bank`` or ``bank Lola``)."""

    player: str | None = None

    def to_text(self) -> str:
        return f"bank {self.player}" if self.player else "bank"


def _named(player: str | None) -> str:
    return f"{player} " if player else ""


Move = Roll | Steal | Bank


def _face_list() -> str:
    return ", ".join(f"{f} ({face_name(f)})" for f in FACE_ORDER)


def parse_move(text: str) -> Move:
    """Read one move in text form.

    >>> parse_move("roll gccf")
    Roll(faces='CCGF')
    """
    words = text.strip().split(None, 1)
    if not words:
        raise InvalidMove("empty move: expected roll FACES, steal NAME or bank")
    verb, rest = words[0].lower(), (words[1].strip() if len(words) > 1 else "")
    if verb == "roll":
        words = rest.split()
        player = None
        if len(words) > 1 and not set(words[0].upper()) <= set(FACE_ORDER):
            player, words = words[0], words[1:]
        faces = "".join(words).upper()
        if not faces:
            raise InvalidMove(f"'{text.strip()}': say which faces came up, e.g. roll CCGF; faces are {_face_list()}")
        bad = sorted({f for f in faces if f not in FACE_ORDER})
        if bad:
            raise InvalidMove(f"'{''.join(bad)}' is not a face of the Fandooble dice; faces are {_face_list()}")
        return Roll(faces, player)
    if verb == "steal":
        if not rest:
            raise InvalidMove("steal from whom? write steal NAME")
        thief, sep, victim = rest.partition(" from ")
        if sep:
            if not thief.strip() or not victim.strip():
                raise InvalidMove(f"'{text.strip()}': write steal NAME, or steal THIEF from NAME")
            return Steal(victim.strip(), thief.strip())
        return Steal(rest)
    if verb == "bank":
        if len(rest.split()) > 1:
            raise InvalidMove(f"'{text.strip()}': bank takes at most the banker's name after it")
        return Bank(rest or None)
    raise InvalidMove(f"'{words[0]}' is not a Fandooble move: expected roll FACES, steal NAME or bank")
