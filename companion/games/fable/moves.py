"""Fabled Fruit's moves and their one-line text form (see the package docstring for the notation)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import InvalidMove

from .cards import Price
from .fruits import UNKNOWN_WORDS, FruitList, kind_key

CLAUSES = ("draw", "discard", "give", "take", "deal")
VERBS = ("move", "buy", "action", "draw", "pass")
# Words a player's name may not be, so every move reads one way only.
RESERVED = frozenset(VERBS + CLAUSES + ("pay", "price", "nothing", "nobody") + UNKNOWN_WORDS)


@dataclass(frozen=True)
class Payment:
    """One fruit of the entry fee: who gets it, and its kind when someone said it (else None)."""

    to: str
    kind: str | None = None

    def to_text(self) -> str:
        return self.to if self.kind is None else f"{self.to} {self.kind}"


@dataclass(frozen=True)
class MoveAnimal:
    """``move Anne 4 pay Paul``: the animal goes to location 4; the fee goes to those already there.

    ``fees`` is None when the move does not say: everyone there then gets one fruit of unknown kind.
    """

    location: int
    player: str | None = None
    fees: tuple[Payment, ...] | None = None

    def to_text(self) -> str:
        text = _verb("move", self.player) + f" {self.location}"
        if self.fees is not None:
            text += " pay " + (", ".join(p.to_text() for p in self.fees) or "nobody")
        return text


@dataclass(frozen=True)
class Buy:
    """``buy Camille 3:1 pay 3 grapes banana``: the juice of the location the animal stands on.

    ``copy`` names the card taken when the camera saw it; ``pay`` is None when the move does not say
    what was paid (then the price's count of fruits of unknown kind).
    """

    location: int
    copy: int | None = None
    player: str | None = None
    pay: FruitList | None = None
    price: Price | None = None  # the price printed on the card, said by the buyer when the table does not know it

    def to_text(self) -> str:
        text = _verb("buy", self.player) + f" {self.location}"
        if self.copy is not None:
            text += f":{self.copy}"
        if self.price is not None:
            text += f" price {self.price.to_text()}"
        if self.pay is not None:
            text += f" pay {self.pay.to_text()}"
        return text


@dataclass(frozen=True)
class Clause:
    """One fruit change of an action: ``draw``/``discard`` for the player acting,
    ``give``/``take`` between them and ``other``, ``deal`` from the fruit stack to ``other``."""

    verb: str
    fruits: FruitList
    other: str | None = None

    def to_text(self) -> str:
        who = f" {self.other}" if self.other is not None else ""
        return f"{self.verb}{who} {self.fruits.to_text()}"


@dataclass(frozen=True)
class Action:
    """``action Rachel draw coconut grapes``: use the location's action; the clauses say what moved."""

    clauses: tuple[Clause, ...] = ()
    player: str | None = None

    def to_text(self) -> str:
        return " ".join([_verb("action", self.player), *(c.to_text() for c in self.clauses)])


@dataclass(frozen=True)
class Draw:
    """``draw 7:1``: the top card of the location deck goes onto its stack or starts a new one.

    Without a card the deck's top card is meant (the companion knows the deck's order);
    with one, it is checked against the deck.
    """

    number: int | None = None
    copy: int | None = None

    def to_text(self) -> str:
        if self.number is None:
            return "draw"
        return f"draw {self.number}" + (f":{self.copy}" if self.copy is not None else "")


@dataclass(frozen=True)
class Pass:
    """``pass Anne``: only when no location other than the animal's own is left on display."""

    player: str | None = None

    def to_text(self) -> str:
        return _verb("pass", self.player)


Move = MoveAnimal | Buy | Action | Draw | Pass


def _verb(verb: str, player: str | None) -> str:
    return verb if player is None else f"{verb} {player}"


HELP = "expected move, buy, action, draw or pass (e.g. 'move Anne 4', 'buy 3 pay 4', 'action draw 2', 'draw 7:1')"


def parse_move(text: str) -> Move:
    """Read one move in text form.

    >>> parse_move("move Anne 4 pay Paul")
    MoveAnimal(location=4, player='Anne', fees=(Payment(to='Paul', kind=None),))
    >>> parse_move("buy 3:1 pay 3 grapes banana").to_text()
    'buy 3:1 pay banana 3 grapes'
    """
    words = text.replace(",", " , ").split()
    if not words:
        raise InvalidMove(f"empty move: {HELP}")
    verb, rest = words[0].lower(), words[1:]
    try:
        if verb == "move":
            return _parse_move_animal(rest)
        if verb == "buy":
            return _parse_buy(rest)
        if verb == "action":
            return _parse_action(rest)
        if verb == "draw":
            return _parse_draw(rest)
        if verb == "pass":
            if len(rest) > 1:
                raise ValueError("pass takes at most the player's name")
            return Pass(rest[0] if rest else None)
    except ValueError as exc:
        raise InvalidMove(f"'{text.strip()}': {exc}") from None
    raise InvalidMove(f"'{words[0]}' is not a Fabled Fruit move: {HELP}")


def _player(rest: list[str]) -> tuple[str | None, list[str]]:
    """An optional player name before the location number."""
    if rest and not rest[0][:1].isdigit() and rest[0].lower() not in RESERVED:
        return rest[0], rest[1:]
    return None, rest


def _number(word: str, what: str) -> int:
    if not word.isdigit():
        raise ValueError(f"'{word}' is not a {what} number")
    return int(word)


def _parse_move_animal(rest: list[str]) -> MoveAnimal:
    player, rest = _player(rest)
    if not rest:
        raise ValueError("to which location? write e.g. move Anne 4")
    location = _number(rest[0], "location")
    rest = rest[1:]
    if not rest:
        return MoveAnimal(location, player)
    if rest[0].lower() != "pay":
        raise ValueError(f"after the location comes 'pay NAME' (who gets a fruit), not '{rest[0]}'")
    items = " ".join(rest[1:]).split(",")
    if [w.lower() for w in rest[1:]] == ["nobody"]:
        return MoveAnimal(location, player, ())
    fees = []
    for item in items:
        parts = item.split()
        if not parts or len(parts) > 2:
            raise ValueError("write pay NAME, or pay NAME KIND for each player who gets a fruit, separated by commas")
        kind = None
        if len(parts) == 2 and parts[1].lower() not in UNKNOWN_WORDS:
            kind = kind_key(parts[1])
        fees.append(Payment(parts[0], kind))
    return MoveAnimal(location, player, tuple(fees))


def _parse_buy(rest: list[str]) -> Buy:
    player, rest = _player(rest)
    if not rest:
        raise ValueError("which location's juice? write e.g. buy 3 or buy 3:1")
    number, sep, copy = rest[0].partition(":")
    location = _number(number, "location")
    copy_number = _number(copy, "copy") if sep else None
    rest = rest[1:]
    price = pay = None
    if rest and rest[0].lower() == "price":
        words = [w.lower() for w in rest]
        end = words.index("pay") if "pay" in words else len(rest)
        if end == 1:
            raise ValueError("'price' is followed by the price printed on the card, e.g. price 3 grapes + 1 smoothie")
        price = Price.from_text(" ".join(rest[1:end]))
        rest = rest[end:]
    if rest:
        if rest[0].lower() != "pay":
            raise ValueError(f"after the location comes 'price PRICE' or 'pay FRUITS', not '{rest[0]}'")
        pay = FruitList.parse(rest[1:])
    return Buy(location, copy_number, player, pay, price)


def _parse_action(rest: list[str]) -> Action:
    player = None
    if rest and rest[0].lower() not in CLAUSES:
        player, rest = rest[0], rest[1:]
    clauses = []
    while rest:
        verb = rest[0].lower()
        if verb not in CLAUSES:
            raise ValueError(f"'{rest[0]}': an action lists fruit changes: {', '.join(CLAUSES)}")
        rest = rest[1:]
        other = None
        if verb in ("give", "take", "deal"):
            if not rest or rest[0].lower() in CLAUSES:
                raise ValueError(f"{verb} needs a player's name, e.g. {verb} Paul banana")
            other, rest = rest[0], rest[1:]
        end = next((i for i, w in enumerate(rest) if w.lower() in CLAUSES), len(rest))
        clauses.append(Clause(verb, FruitList.parse(rest[:end]), other))
        rest = rest[end:]
    return Action(tuple(clauses), player)


def _parse_draw(rest: list[str]) -> Draw:
    if not rest:
        return Draw()
    if len(rest) > 1 or not rest[0][:1].isdigit():
        raise ValueError(
            "draw takes the location card drawn from the deck (e.g. draw 7:1); "
            "to draw fruits as the action write 'action draw 2'"
        )
    number, sep, copy = rest[0].partition(":")
    return Draw(_number(number, "location"), _number(copy, "copy") if sep else None)
