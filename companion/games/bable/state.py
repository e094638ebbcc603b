"""Bable's state: supplies, hands of Word symbols, the tower, the Idea decks, the piles. Frozen and plain.

Counts are tuples in a fixed order (resources: stone, cement, tools, wood; symbols:
build, gather, give, reveal; Confusion effects: the rulebook's C1-C7). What the
companion cannot see is never guessed: a card in a deck whose identity nobody has
seen is only counted (Word cards in the Idea decks, Building cards not drawn yet,
resources of a deck whose mix the players have not entered).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cards import EFFECTS, RESOURCES, SYMBOLS, Facts, data

LAYERS: tuple[int, ...] = tuple(data()["layers"])
TOWER = sum(LAYERS)
SUPPLY_LIMIT: int = data()["supply_limit"]
ACTIONS: int = data()["actions"]

Counts = tuple[int, ...]

# A hand slot per symbol: the player's own starting Word card, a Word card taken since, or none (Confusion C6).
START, NEW, MISSING = "start", "new", ""


def zeros(n: int = 4) -> Counts:
    return (0,) * n


def add(a: Counts, b: Counts) -> Counts:
    return tuple(x + y for x, y in zip(a, b))


def sub(a: Counts, b: Counts) -> Counts:
    return tuple(x - y for x, y in zip(a, b))


def bump(counts: Counts, index: int, by: int = 1) -> Counts:
    return counts[:index] + (counts[index] + by,) + counts[index + 1:]


def covers(have: Counts, need: Counts) -> bool:
    return all(h >= n for h, n in zip(have, need))


def resource_counts(names) -> Counts:
    """``("stone", "stone", "wood")`` -> (2, 0, 0, 1)."""
    counts = [0] * len(RESOURCES)
    for name in names:
        counts[RESOURCES.index(name)] += 1
    return tuple(counts)


def resource_names(counts: Counts) -> tuple[str, ...]:
    return tuple(r for r, n in zip(RESOURCES, counts) for _ in range(n))


@dataclass(frozen=True)
class Building:
    """A Building card in someone's supply: which one, and whether everyone can see it."""

    number: int
    face_up: bool = False


@dataclass(frozen=True)
class Seat:
    """One player's cards: the supply (resources face up, buildings up or down) and the hand of Word cards."""

    resources: Counts = zeros()
    buildings: tuple[Building, ...] = ()
    hand: tuple[str, ...] = (START,) * len(SYMBOLS)
    words_down: bool = False  # Confusion C7: nobody may command this player until their next turn starts

    @property
    def resource_total(self) -> int:
        return sum(self.resources)

    def building(self, number: int) -> Building | None:
        return next((b for b in self.buildings if b.number == number), None)

    def holds(self, symbol: str) -> bool:
        return self.hand[SYMBOLS.index(symbol)] != MISSING

    @property
    def hand_size(self) -> int:
        return sum(1 for slot in self.hand if slot != MISSING)

    def with_buildings(self, buildings) -> "Seat":
        return replace(self, buildings=tuple(sorted(buildings, key=lambda b: b.number)))


@dataclass(frozen=True)
class IdeaDeck:
    """One Idea deck: Word cards and Building cards nobody has seen, plus buildings shuffled back in (Confusion C1)."""

    words: int
    buildings: int
    returned: tuple[int, ...] = ()

    @property
    def size(self) -> int:
        return self.words + self.buildings + len(self.returned)


@dataclass(frozen=True)
class Pile:
    """The face-down Resource deck: cards of known type by type, and cards whose type is unknown
    (the whole deck while the players have not entered the resource mix)."""

    known: Counts = zeros()
    unknown: int = 0

    @property
    def size(self) -> int:
        return sum(self.known) + self.unknown


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    facts: Facts
    advanced: bool
    first: int
    seats: tuple[Seat, ...]
    dealt: tuple[bool, ...]
    decks: tuple[IdeaDeck, ...]
    resource_deck: Pile
    resource_discard: Counts = zeros()
    word_discard: Counts = zeros()  # face down: symbols only the companion knows
    words_box: int = 0  # Word cards neither dealt nor in an Idea deck (symbols unknown)
    words_taken: Counts = zeros()  # Word cards (not starting ones) taken from the decks, per symbol
    buildings_box: int = 0  # Building cards neither dealt nor in an Idea deck (unseen)
    confusion_out: Counts = zeros(len(EFFECTS))  # Confusion cards drawn since the deck was last shuffled
    tower: tuple[int, ...] = ()
    # Word cards shown to everyone (an answer, a Reveal), oldest first: (player, symbol, turn).
    shown: tuple[tuple[int, str, int], ...] = ()
    overseer: int = 0
    turn: int = 1
    actions: int = 0
    commanded: int | None = None  # waiting for this player's answer
    confused: int | None = None  # waiting for this player's Confusion card
    discards: Counts = ()  # per player: resources still to discard down to the limit
    # What the companion took on the players' word because a card fact is not entered, in words, oldest first.
    trusted: tuple[str, ...] = ()
    result: str | None = None  # "won" or "lost"
    reason: str = ""

    # -- derived --------------------------------------------------------------------

    def seat(self, name: str | None) -> int | None:
        if name is None:
            return None
        return next((i for i, p in enumerate(self.players) if p.casefold() == str(name).casefold()), None)

    @property
    def dealing(self) -> bool:
        return not all(self.dealt)

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def phase(self) -> str:
        """deal, answer, confusion, discard, act, idea or over."""
        if self.over:
            return "over"
        if self.dealing:
            return "deal"
        if self.commanded is not None:
            return "answer"
        if self.confused is not None:
            return "confusion"
        if any(self.discards):
            return "discard"
        return "idea" if self.actions >= ACTIONS else "act"

    def layer_sizes(self) -> tuple[int, ...]:
        """How many buildings each layer holds now (the tower fills from the bottom)."""
        sizes, left = [], len(self.tower)
        for size in LAYERS:
            sizes.append(min(size, left))
            left -= sizes[-1]
        return tuple(sizes)

    def layer_done(self, layer: int) -> bool:
        return self.layer_sizes()[layer] == LAYERS[layer]

    @property
    def current_layer(self) -> int | None:
        """The lowest unfinished layer (where the next building goes), None when the tower is finished."""
        return next((i for i, size in enumerate(self.layer_sizes()) if size < LAYERS[i]), None)

    def layer_buildings(self, layer: int) -> tuple[int, ...]:
        start = sum(LAYERS[:layer])
        return self.tower[start:start + LAYERS[layer]]

    @property
    def current_deck(self) -> int | None:
        """The deck the next Idea card comes from: the lowest that still has cards."""
        return next((i for i, deck in enumerate(self.decks) if deck.size), None)

    def seen_buildings(self) -> set[int]:
        """Buildings whose whereabouts the companion knows (supplies, tower, shuffled back into a deck)."""
        seen = set(self.tower)
        for seat in self.seats:
            seen.update(b.number for b in seat.buildings)
        for deck in self.decks:
            seen.update(deck.returned)
        return seen

    def unseen_buildings(self) -> list[int]:
        """Buildings in a deck or the box whose identity nobody has seen, by number."""
        seen = self.seen_buildings()
        return [b.number for b in self.facts.buildings if b.number not in seen]

    def left_of(self, index: int) -> int:
        """Play goes clockwise: the player to your left plays after you."""
        return (index + 1) % len(self.players)

    def right_of(self, index: int) -> int:
        return (index - 1) % len(self.players)
