"""Bable's moves and their one-line text form. Every move names the player who makes it.

Cards in moves: a Building card is ``B7`` (``B?`` when its facts were never entered
and any such card will do), a Word card is ``word build`` (its command symbol: the
words themselves stay on the cards), resources are ``stone cement tools wood``
(repeat a name or give a count: ``2 stone wood``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from companion.errors import InvalidMove

from .cards import EFFECTS, RESOURCES, SYMBOLS, _word

CardRef = Union[str, int]  # a Word card's symbol, or a Building card's number


def card_text(card: CardRef | None) -> str:
    if card is None:
        return "B?"
    return f"B{card}" if isinstance(card, int) else f"word {card}"


def resources_text(names: tuple[str, ...]) -> str:
    return " ".join(sorted(names, key=RESOURCES.index)) if names else "nothing"


def _sorted_cards(cards) -> tuple:
    words = [c for c in cards if isinstance(c, str)]
    buildings = [c for c in cards if isinstance(c, int)]
    return tuple(sorted(words, key=SYMBOLS.index)) + tuple(sorted(buildings))


@dataclass(frozen=True)
class Deal:
    """Setup, one per player: the three resources dealt face up, the dealt Word card's symbol (it
    replaces the starting card with that symbol) and the dealt Building card (face down)."""

    player: str
    resources: tuple[str, ...]
    word: str
    building: int | None  # None: a building whose facts were never entered (B?)

    def __post_init__(self):
        object.__setattr__(self, "resources", tuple(sorted(self.resources, key=RESOURCES.index)))

    def to_text(self) -> str:
        return f"deal {self.player} {resources_text(self.resources)} word {self.word} {card_text(self.building)}"


@dataclass(frozen=True)
class Command:
    """The overseer speaks a word to another player, who answers next."""

    player: str
    target: str

    def to_text(self) -> str:
        return f"command {self.player} {self.target}"


@dataclass(frozen=True)
class Reveal:
    """The overseer's other action: show one Word card, or turn one Building card of the supply face up."""

    player: str
    card: CardRef

    def to_text(self) -> str:
        return f"reveal {self.player} {card_text(self.card)}"


@dataclass(frozen=True)
class Pass:
    """An action the overseer cannot take (no card to reveal, nobody who may be commanded)."""

    player: str

    def to_text(self) -> str:
        return f"pass {self.player}"


@dataclass(frozen=True)
class AnswerNo:
    """The commanded player shakes their head: no Word card of theirs has the spoken word."""

    player: str
    symbol = None

    def to_text(self) -> str:
        return f"answer {self.player} no"


@dataclass(frozen=True)
class AnswerBuild:
    """Understood as Build: pay a supply building's cost and place it in the tower (None: nothing to build)."""

    player: str
    building: int | None
    pay: tuple[str, ...] = ()
    symbol = "build"

    def __post_init__(self):
        object.__setattr__(self, "pay", tuple(sorted(self.pay, key=RESOURCES.index)))

    def to_text(self) -> str:
        if self.building is None:
            return f"answer {self.player} build nothing"
        return f"answer {self.player} build B{self.building} pay {resources_text(self.pay)}"


@dataclass(frozen=True)
class AnswerGather:
    """Understood as Gather: the two resources drawn from the deck (in the order drawn)."""

    player: str
    drawn: tuple[str, ...]
    symbol = "gather"

    def to_text(self) -> str:
        return f"answer {self.player} gather {' '.join(self.drawn) or 'nothing'}"


@dataclass(frozen=True)
class AnswerGive:
    """Understood as Give: up to three supply cards to other players, split as the giver likes."""

    player: str
    gifts: tuple[tuple[str, tuple[CardRef, ...]], ...]
    symbol = "give"

    def __post_init__(self):
        object.__setattr__(self, "gifts", tuple((who, _sorted_gift(cards)) for who, cards in self.gifts))

    def to_text(self) -> str:
        if not self.gifts:
            return f"answer {self.player} give nothing"
        parts = [f"{' '.join(_gift_text(c) for c in cards)} to {who}" for who, cards in self.gifts]
        return f"answer {self.player} give {', '.join(parts)}"

    @property
    def cards(self) -> tuple[CardRef, ...]:
        return tuple(c for _, cards in self.gifts for c in cards)


@dataclass(frozen=True)
class AnswerReveal:
    """Understood as Reveal: up to two cards from the hand (Word cards) or the supply (Building cards)."""

    player: str
    cards: tuple[CardRef, ...]
    symbol = "reveal"

    def __post_init__(self):
        object.__setattr__(self, "cards", _sorted_cards(self.cards))

    def to_text(self) -> str:
        return f"answer {self.player} reveal {', '.join(card_text(c) for c in self.cards) or 'nothing'}"


@dataclass(frozen=True)
class Discard:
    """Down to the supply limit of 7 resources: the player chooses which go to the discard pile."""

    player: str
    resources: tuple[str, ...]

    def __post_init__(self):
        object.__setattr__(self, "resources", tuple(sorted(self.resources, key=RESOURCES.index)))

    def to_text(self) -> str:
        return f"discard {self.player} {resources_text(self.resources)}"


@dataclass(frozen=True)
class Confusion:
    """Advanced game: the Confusion card drawn after a head shake, and how its effect was carried out.

    ``return-building B3`` (or ``nothing``), ``discard-resources stone wood``, ``redraw-word give``
    (the symbol of the Word card drawn from the discard pile), ``buildings-left``, ``resources-right``,
    ``drop-word build`` (the Word card discarded), ``words-down``.
    """

    player: str
    effect: str
    building: int | None = None
    resources: tuple[str, ...] = ()
    symbol: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "resources", tuple(sorted(self.resources, key=RESOURCES.index)))

    def to_text(self) -> str:
        head = f"confusion {self.player} {self.effect}"
        if self.effect == "return-building":
            return f"{head} {card_text(self.building) if self.building else 'nothing'}"
        if self.effect == "discard-resources":
            return f"{head} {resources_text(self.resources)}"
        if self.effect in ("redraw-word", "drop-word"):
            return f"{head} {self.symbol or 'nothing'}"
        return head


@dataclass(frozen=True)
class Idea:
    """The overseer's Idea card at the end of the turn: a Word card (its symbol) or a Building card."""

    player: str
    word: str | None = None
    building: int | None = None  # with word None: None is a building whose facts were never entered (B?)

    def to_text(self) -> str:
        card = f"word {self.word}" if self.word else card_text(self.building)
        return f"idea {self.player} {card}"


Move = Union[Deal, Command, Reveal, Pass, AnswerNo, AnswerBuild, AnswerGather, AnswerGive, AnswerReveal,
             Discard, Confusion, Idea]
ANSWERS = (AnswerNo, AnswerBuild, AnswerGather, AnswerGive, AnswerReveal)

# Words of the notation: no player may be called one of these.
RESERVED = frozenset({"deal", "command", "reveal", "pass", "answer", "no", "nothing", "pay", "to", "word", "discard",
                      "confusion", "idea", *SYMBOLS, *RESOURCES, *EFFECTS})


def _gift_text(card: CardRef) -> str:
    return f"B{card}" if isinstance(card, int) else card


def _sorted_gift(cards) -> tuple:
    resources = [c for c in cards if isinstance(c, str)]
    return tuple(sorted(resources, key=RESOURCES.index)) + tuple(sorted(c for c in cards if isinstance(c, int)))


# -- reading -------------------------------------------------------------------------

_FORMS = ("deal NAME RESOURCES word SYMBOL B7, command NAME NAME, reveal NAME word SYMBOL (or B7), "
          "answer NAME no|build B7 pay RESOURCES|gather RESOURCES|give CARDS to NAME|reveal CARDS, "
          "discard NAME RESOURCES, confusion NAME EFFECT ..., idea NAME word SYMBOL (or B7), pass NAME")


def _building(token: str, *, unknown: bool = False) -> int | None:
    match = re.fullmatch(r"b(\d{1,2}|\?)", token.lower())
    if not match:
        hint = " (or B? for one whose facts were never entered)" if unknown else ""
        raise InvalidMove(f"'{token}' is not a Building card: write B1 to B16{hint}")
    if match.group(1) == "?":
        if not unknown:
            raise InvalidMove("name the Building card (B1 to B16): B? only stands for a card just drawn")
        return None
    return int(match.group(1))


def _is_building(token: str) -> bool:
    return re.fullmatch(r"b(\d{1,2}|\?)", token.lower()) is not None


def _symbol(token: str | None) -> str:
    low = (token or "").lower()
    if low not in SYMBOLS:
        raise InvalidMove(f"'{token or ''}' is not a command symbol: {', '.join(SYMBOLS)}")
    return low


def _resources(tokens: list[str]) -> tuple[str, ...]:
    """``2 stone wood`` or ``stone stone wood`` or ``nothing``."""
    if [t.lower() for t in tokens] in (["nothing"], ["none"]):
        return ()
    names: list[str] = []
    count = None
    for token in tokens:
        if token.isdigit():
            count = int(token)
            continue
        name = _word(token)
        if name not in RESOURCES:
            raise InvalidMove(f"'{token}' is not a resource: {', '.join(RESOURCES)}")
        names.extend([name] * (1 if count is None else count))
        count = None
    if count is not None:
        raise InvalidMove("a number must be followed by a resource, e.g. 2 stone")
    return tuple(names)


def _cards(tokens: list[str], what: str) -> tuple[CardRef, ...]:
    """``word build, B3`` -> ("build", 3)."""
    cards: list[CardRef] = []
    i = 0
    while i < len(tokens):
        token = tokens[i].lower()
        if token == "word":
            cards.append(_symbol(tokens[i + 1] if i + 1 < len(tokens) else None))
            i += 2
        elif _is_building(token):
            cards.append(_building(token))
            i += 1
        elif token in ("nothing", "none") and len(tokens) == 1:
            i += 1
        else:
            raise InvalidMove(f"'{tokens[i]}' is not a card to {what}: write word SYMBOL or B7")
    return tuple(cards)


def _gifts(tokens: list[str]) -> tuple[tuple[str, tuple[CardRef, ...]], ...]:
    """``stone wood to Anne B3 to Rachel`` -> (("Anne", ("stone", "wood")), ("Rachel", (3,)))."""
    if [t.lower() for t in tokens] in (["nothing"], ["none"]):
        return ()
    gifts: list[tuple[str, tuple[CardRef, ...]]] = []
    items: list[CardRef] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.lower() == "to":
            if i + 1 >= len(tokens):
                raise InvalidMove("give ... to whom? write give stone wood to NAME")
            if not items:
                raise InvalidMove(f"give what to {tokens[i + 1]}? name the cards before 'to'")
            gifts.append((tokens[i + 1], tuple(items)))
            items = []
            i += 2
            continue
        if token.isdigit():
            if i + 1 >= len(tokens):
                raise InvalidMove("a number must be followed by a resource, e.g. 2 stone")
            items.extend(_resources([token, tokens[i + 1]]))
            i += 2
            continue
        items.append(_building(token) if _is_building(token) else _resources([token])[0])
        i += 1
    if items:
        raise InvalidMove("say whom the cards go to: give stone wood to NAME")
    return tuple(gifts)


def parse_move(text: str) -> Move:
    """Read one move in text form.

    >>> parse_move("answer Paul give stone, wood to Anne, B3 to Rachel").gifts
    (('Anne', ('stone', 'wood')), ('Rachel', (3,)))
    >>> parse_move("idea Anne B?")
    Idea(player='Anne', word=None, building=None)
    """
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    if not tokens:
        raise InvalidMove(f"empty move: expected {_FORMS}")
    verb = tokens[0].lower()
    if len(tokens) < 2:
        raise InvalidMove(f"'{text.strip()}': name the player after '{verb}' ({_FORMS})")
    player, rest = tokens[1], tokens[2:]
    low = [t.lower() for t in rest]
    if verb == "deal":
        if "word" not in low or len(low) < low.index("word") + 3:
            raise InvalidMove(f"'{text.strip()}': write deal NAME stone stone wood word SYMBOL B7")
        at = low.index("word")
        if len(rest) != at + 3:
            raise InvalidMove(f"'{text.strip()}': after the Word card's symbol comes only the Building card (B7 or B?)")
        return Deal(player, _resources(rest[:at]), _symbol(rest[at + 1]), _building(rest[at + 2], unknown=True))
    if verb == "command":
        if len(rest) != 1:
            raise InvalidMove(f"'{text.strip()}': write command OVERSEER PLAYER, e.g. command Anne Paul")
        return Command(player, rest[0])
    if verb == "reveal":
        cards = _cards(rest, "reveal")
        if len(cards) != 1:
            raise InvalidMove(f"'{text.strip()}': the overseer reveals one card: reveal NAME word SYMBOL, or reveal NAME B7")
        return Reveal(player, cards[0])
    if verb == "pass":
        if rest:
            raise InvalidMove(f"'{text.strip()}': write pass NAME")
        return Pass(player)
    if verb == "answer":
        return _answer(text, player, rest)
    if verb == "discard":
        return Discard(player, _resources(rest))
    if verb == "confusion":
        return _confusion(text, player, rest)
    if verb == "idea":
        if low[:1] == ["word"] and len(rest) == 2:
            return Idea(player, word=_symbol(rest[1]))
        if len(rest) == 1:
            return Idea(player, building=_building(rest[0], unknown=True))
        raise InvalidMove(f"'{text.strip()}': write idea NAME word SYMBOL, or idea NAME B7 (B? for a building "
                          "whose facts were never entered)")
    raise InvalidMove(f"'{tokens[0]}' is not a Bable move: {_FORMS}")


def _answer(text: str, player: str, rest: list[str]) -> Move:
    if not rest:
        raise InvalidMove(f"'{text.strip()}': answer NAME no, or the command understood (build, gather, give, reveal)")
    what, args = rest[0].lower(), rest[1:]
    if what in ("no", "shake"):
        if args:
            raise InvalidMove(f"'{text.strip()}': a head shake is just answer NAME no")
        return AnswerNo(player)
    if what == "build":
        if [a.lower() for a in args] in (["nothing"], ["none"], []):
            return AnswerBuild(player, None)
        if len(args) < 2 or args[1].lower() != "pay":
            raise InvalidMove(f"'{text.strip()}': write answer NAME build B7 pay stone stone wood (or build nothing)")
        return AnswerBuild(player, _building(args[0]), _resources(args[2:]))
    if what == "gather":
        return AnswerGather(player, _resources(args))
    if what == "give":
        return AnswerGive(player, _gifts(args))
    if what == "reveal":
        return AnswerReveal(player, _cards(args, "reveal"))
    raise InvalidMove(f"'{rest[0]}' is not an answer: no, build, gather, give or reveal")


def _confusion(text: str, player: str, rest: list[str]) -> Confusion:
    if not rest or rest[0].lower() not in EFFECTS:
        raise InvalidMove(f"'{text.strip()}': name the Confusion card's effect: {', '.join(EFFECTS)}")
    effect, args = rest[0].lower(), rest[1:]
    nothing = [a.lower() for a in args] in (["nothing"], ["none"])
    if effect == "return-building":
        if len(args) != 1:
            raise InvalidMove(f"'{text.strip()}': write confusion NAME return-building B3 (or nothing)")
        return Confusion(player, effect, building=None if nothing else _building(args[0]))
    if effect == "discard-resources":
        return Confusion(player, effect, resources=_resources(args))
    if effect in ("redraw-word", "drop-word"):
        if len(args) != 1:
            raise InvalidMove(f"'{text.strip()}': write confusion NAME {effect} SYMBOL")
        return Confusion(player, effect, symbol=None if nothing else _symbol(args[0]))
    if args:
        raise InvalidMove(f"'{text.strip()}': {effect} needs nothing more")
    return Confusion(player, effect)
