"""Fandooble's moves and their text form: ``roll CCGF``, ``steal Grace``, ``bank``."""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import InvalidMove

from .state import FACE_ORDER, face_name, sort_faces


@dataclass(frozen=True)
class Roll:
    """The faces of every die thrown in one roll, in the log's order (``CCGF``)."""

    faces: str

    def __post_init__(self):
        object.__setattr__(self, "faces", sort_faces(self.faces))

    def to_text(self) -> str:
        return f"roll {self.faces}"


@dataclass(frozen=True)
class Steal:
    """Whom a rolled Fandooble takes one coin from."""

    victim: str

    def to_text(self) -> str:
        return f"steal {self.victim}"


@dataclass(frozen=True)
class Bank:
    """Put the loot in the stash and pass the dice."""

    def to_text(self) -> str:
        return "bank"


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
        faces = "".join(rest.split()).upper()
        if not faces:
            raise InvalidMove(f"'{text.strip()}': say which faces came up, e.g. roll CCGF; faces are {_face_list()}")
        bad = sorted({f for f in faces if f not in FACE_ORDER})
        if bad:
            raise InvalidMove(f"'{''.join(bad)}' is not a face of the Fandooble dice; faces are {_face_list()}")
        return Roll(faces)
    if verb == "steal":
        if not rest:
            raise InvalidMove("steal from whom? write steal NAME")
        return Steal(rest)
    if verb == "bank":
        if rest:
            raise InvalidMove(f"'{text.strip()}': bank takes nothing after it")
        return Bank()
    raise InvalidMove(f"'{words[0]}' is not a Fandooble move: expected roll FACES, steal NAME or bank")
