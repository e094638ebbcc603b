"""Fabled Fruit's rules (shared/seeds/000_1522af4a5ffdc56e.txt), as pure functions on State."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Mapping

from companion.errors import IllegalMove, SetupError
from companion.games import Outcome, check_players, int_option, unknown_options

from .cards import Card, Table, format_cards, overrides_from_option, parse_cards
from .fruits import FruitList, Fruits, Short, data, drain_then_draw, kind_key, plural, remove
from .moves import RESERVED, Action, Buy, Clause, Draw, Move, MoveAnimal, Pass
from .state import ACT, DRAW, MOVE, OVER, Stack, State

NAME = "fable"
TITLE = "Fabled Fruit"
# Each option in a player's words, with its default (the Setup page lists them under the options box).
OPTIONS = {
    "start": "the start player's name (default the first seat)",
    "display": "the stacks on display, top to bottom, separated by /, e.g. 1:1-4/2/7:2 7:1 (default the first "
               "game's: locations 1 to 6)",
    "bag": "cards out of play, e.g. the juices of earlier games (default none)",
    "deal": "the fruits dealt, e.g. Anne=banana grapes; Paul=2 fruits (default two fruits each)",
    "fruits": "the fruit kinds and counts, e.g. banana=12 coconut=12 (default the game's fruits)",
    "goal": "the juices that end the game (default by the number of players: "
            + ", ".join(f"{n} for {p}" for p, n in data()["juices_to_win"].items()) + ")",
    "locations": "the location cards' facts (the Cards page and campaigns fill this in)",
}


class _Refused(Exception):
    """Raised inside a transition with the reason the move is not allowed."""


# -- setup -----------------------------------------------------------------------------


def setup(players, options: Mapping[str, str] | None = None) -> State:
    """A new game. Without options: the first game (deck sorted, 1-6 as six stacks of four).

    Options (text): ``start`` (the start player's name; default the first seat),
    ``display`` (stacks top to bottom, separated by ``/``: ``1:1-4/2/7:2 7:1``; a bare
    number is every copy), ``bag`` (cards out of play: juices of earlier games), ``deal``
    (``Anne=banana grapes; Paul=2 fruits``; default two fruits of unknown kind each),
    ``fruits`` (kinds and counts, ``banana=12 coconut=12 ...``), ``goal`` (juices that end
    the game) and ``locations`` (card facts as JSON: ``{"7": {"price": ...}}`` over the shipped
    table, or ``{"pinned": {...}}`` with every fact, as campaigns and the card store record them).
    The deck is every other card in number order, as the never-shuffled deck always is.
    """
    options = dict(options or {})
    unknown_options(options, OPTIONS, TITLE)
    facts = data()
    limits = facts["players"]
    players = check_players(players, minimum=limits["minimum"], maximum=limits["maximum"], game=TITLE)
    kinds, counts = _fruit_kinds(options.get("fruits"))
    check_names(players, kinds)
    table = _table(options.get("locations") or "", kinds)
    goal = int_option(options, "goal", facts["juices_to_win"][str(len(players))], minimum=1)
    start = 0
    if options.get("start"):
        seat = _seat(players, options["start"])
        if seat is None:
            raise SetupError(f"option start={options['start']}: not one of the players ({', '.join(players)})")
        start = seat
    display = _display_option(options.get("display"), table)
    bag = _cards_option("bag", options.get("bag", ""), table)
    on_display = [c for s in display for c in s.cards]
    seen: set[Card] = set()
    for card in on_display + list(bag):
        if card in seen:
            raise SetupError(f"card {card.to_text()} is named twice in the display and the bag")
        seen.add(card)
    deck = tuple(c for c in table.all_cards() if c not in seen)
    if not display:
        raise SetupError("nothing is on display: there is no location to play (reset the campaign to play again)")
    if deck and len(on_display) != facts["display_size"]:
        raise SetupError(
            f"the display holds {len(on_display)} cards, but while the deck lasts it holds {facts['display_size']}"
        )
    hands, pile = _deal(options.get("deal"), players, kinds, counts)
    n = len(players)
    return State(
        players=players,
        kinds=kinds,
        fruit_counts=counts,
        table=table,
        goal=goal,
        start=start,
        display=display,
        deck=deck,
        bag=bag,
        juices=((),) * n,
        hands=hands,
        pile=pile,
        discard=Fruits.empty(len(kinds)),
        animals=(None,) * n,
        turns=(0,) * n,
        current=start,
    )


@lru_cache(maxsize=32)
def _table(locations: str, kinds: tuple[str, ...]) -> Table:
    """The location table for a ``locations`` option; cached, as every game of a campaign repeats it."""
    overrides, pinned = overrides_from_option(locations) if locations else (None, False)
    table = Table.build(overrides, components=data()["components"], pinned=pinned)
    _check_prices(table, kinds)
    return table


def _seat(players, name: str) -> int | None:
    folded = name.strip().casefold()
    return next((i for i, p in enumerate(players) if p.casefold() == folded), None)


def _fruit_kinds(text: str | None) -> tuple[tuple[str, ...], tuple[int, ...]]:
    if not text:
        shipped = data()["fruits"]["kinds"]
        return tuple(k["name"] for k in shipped), tuple(k["count"] for k in shipped)
    kinds: dict[str, int] = {}
    for item in text.replace(",", " ").split():
        kind, sep, count = item.partition("=")
        if not sep or not count.isdigit() or int(count) < 1:
            raise SetupError(f"option fruits: '{item}' should be KIND=COUNT, e.g. banana=12")
        kinds[kind_key(kind)] = int(count)
    if not kinds:
        raise SetupError("option fruits: name at least one kind, e.g. banana=12")
    names = tuple(sorted(kinds))
    return names, tuple(kinds[k] for k in names)


def check_names(players, kinds: tuple[str, ...] | None = None) -> None:
    """Refuse names the move notation could not read back (SetupError with the reason)."""
    kinds = kinds if kinds is not None else _fruit_kinds(None)[0]
    for name in players:
        low = name.lower()
        if any(ch.isspace() for ch in name) or any(ch in name for ch in ",:;=/?"):
            raise SetupError(f"'{name}': a player's name is one word without , : ; = / ? (moves name players)")
        if name[0].isdigit():
            raise SetupError(f"'{name}': a player's name may not start with a digit (moves name locations by number)")
        if low in RESERVED or kind_key(low) in kinds:
            raise SetupError(f"'{name}' is a word of the move notation or a fruit: choose another name")


def _check_prices(table: Table, kinds: tuple[str, ...]) -> None:
    for loc in table.locations.values():
        if loc.price is not None:
            for kind, _ in loc.price.fruits:
                if kind not in kinds:
                    raise SetupError(f"location {loc.number}'s price asks for {kind}, not a fruit of this game")


def _cards_option(name: str, text: str, table: Table) -> tuple[Card, ...]:
    try:
        cards = parse_cards(text, table.copies())
    except ValueError as exc:
        raise SetupError(f"option {name}: {exc}") from None
    for card in cards:
        if card.number not in table or not 1 <= card.copy <= table[card.number].copies:
            raise SetupError(f"option {name}: there is no card {card.to_text()} in the box")
    return cards


def _display_option(text: str | None, table: Table) -> tuple[Stack, ...]:
    if text is None:
        first = data()["first_display"]
        return tuple(Stack(n, tuple(Card(n, c) for c in range(1, table[n].copies + 1))) for n in first)
    stacks = []
    for part in text.split("/"):
        if not part.strip():
            continue
        cards = _cards_option("display", part, table)
        numbers = {c.number for c in cards}
        if len(numbers) != 1:
            raise SetupError(f"option display: a stack holds one location, but '{part.strip()}' mixes {sorted(numbers)}")
        number = numbers.pop()
        if any(s.number == number for s in stacks):
            raise SetupError(f"option display: location {number} has two stacks; one stack per location")
        stacks.append(Stack(number, cards))
    return tuple(stacks)


def _deal(text: str | None, players: tuple[str, ...], kinds, counts) -> tuple[tuple[Fruits, ...], Fruits]:
    """Two fruits for each player; the rest is the fruit stack (its kinds known only if every deal was)."""
    size = data()["hand_size"]
    zero = (0,) * len(kinds)
    hands = {i: Fruits(zero, size) for i in range(len(players))}
    for item in (text or "").split(";"):
        if not item.strip():
            continue
        name, sep, fruits = item.partition("=")
        seat = _seat(players, name)
        if not sep or seat is None:
            raise SetupError(f"option deal: '{item.strip()}' should be NAME=FRUITS for one of {', '.join(players)}")
        try:
            listed = FruitList.parse(fruits.split())
        except ValueError as exc:
            raise SetupError(f"option deal for {players[seat]}: {exc}") from None
        if listed.total != size:
            raise SetupError(f"option deal: each player is dealt {size} fruits, {players[seat]} {listed.total}")
        try:
            hands[seat] = _to_fruits(kinds, listed)
        except _Refused as exc:
            raise SetupError(f"option deal for {players[seat]}: {exc}") from None
    dealt = [sum(h.known[k] for h in hands.values()) for k in range(len(kinds))]
    for k, kind in enumerate(kinds):
        if dealt[k] > counts[k]:
            raise SetupError(f"option deal: {dealt[k]} {plural(kind)} dealt, but the box holds {counts[k]}")
    left = sum(counts) - size * len(players)
    if any(h.unknown for h in hands.values()):
        pile = Fruits(zero, left)
    else:
        pile = Fruits(tuple(c - d for c, d in zip(counts, dealt)), 0)
    return tuple(hands[i] for i in range(len(players))), pile


# -- the transition ----------------------------------------------------------------------


def current_player(state: State) -> str | None:
    return None if state.over else state.player


def why_illegal(state: State, move: Move) -> str | None:
    """The reason ``move`` is not allowed now, in words a player understands; None if it is."""
    try:
        _play(state, move)
    except _Refused as exc:
        return str(exc)
    return None


def apply(state: State, move: Move) -> State:
    """The state after ``move``; raises IllegalMove with the reason when it is not allowed."""
    try:
        return _play(state, move)
    except _Refused as exc:
        who = "nobody" if state.over else state.player
        raise IllegalMove(f"{who} cannot {move.to_text()}: {exc}") from None


def _play(s: State, move: Move) -> State:
    if s.over:
        result = outcome(s)
        raise _Refused(f"the game is over: {' and '.join(result.winners)} won")
    named = getattr(move, "player", None)
    if named is not None and named.casefold() != s.player.casefold():
        raise _Refused(f"it is {s.player}'s turn, not {named}'s")
    who = s.player
    if s.phase == DRAW:
        if isinstance(move, Draw):
            return _draw_location(s, move)
        raise _Refused(f"{who} bought a juice: first the top card of the deck is drawn (draw {s.deck[0].to_text()})")
    if isinstance(move, Draw):
        raise _Refused("no location card is due: the deck is drawn right after a juice is bought")
    if s.phase == MOVE:
        if isinstance(move, MoveAnimal):
            return _move_animal(s, move)
        if isinstance(move, Pass):
            if s.destinations():
                raise _Refused(f"{who} can move to another location, so {who} cannot pass")
            return _end_turn(s, last=f"{who} passed: no other location is left", passed=True)
        raise _Refused(f"{who} must first move their animal to a location (move {who} N)")
    # ACT: the animal has moved; now the action or the juice.
    here = s.animals[s.current]
    if isinstance(move, Buy):
        return _buy(s, move)
    if isinstance(move, Action):
        return _action(s, move)
    if isinstance(move, MoveAnimal):
        raise _Refused(f"{who} already moved to location {here}: now use its action or buy its juice")
    raise _Refused(f"{who} moved to location {here}: now use its action or buy its juice")


def _to_fruits(kinds: tuple[str, ...], listed: FruitList) -> Fruits:
    counts = [0] * len(kinds)
    for kind, n in listed.kinds:
        if kind not in kinds:
            raise _Refused(f"{kind} is not a fruit of this game ({', '.join(kinds)})")
        counts[kinds.index(kind)] += n
    return Fruits(tuple(counts), listed.unknown)


def _one(s: State, kind: str | None) -> Fruits:
    if kind is None:
        return Fruits((0,) * len(s.kinds), 1)
    return _to_fruits(s.kinds, FruitList(((kind, 1),)))


def describe(kinds: tuple[str, ...], zone: Fruits) -> str:
    """``2 grapes and banana``, ``3 fruits``, ``no fruit``."""
    listed = FruitList.of(dict(zip(kinds, zone.known)), zone.unknown)
    if listed.total == 0:
        return "no fruit"
    if not listed.kinds:
        return "1 fruit" if listed.unknown == 1 else f"{listed.unknown} fruits of unknown kind"
    return listed.to_text()


def _take(s: State, zone: Fruits, want: Fruits, owner: str) -> Fruits:
    try:
        return remove(zone, want, s.kinds)
    except Short:
        wanted = describe(s.kinds, want)
        raise _Refused(f"{owner} holds {describe(s.kinds, zone)}, not {wanted}") from None


def _draw_fruits(s: State, pile: Fruits, discard: Fruits, want: Fruits) -> tuple[Fruits, Fruits]:
    """The fruit stack and discard pile after drawing ``want``; the discards are reshuffled when the stack runs out."""
    if want.total <= pile.total:
        return _take(s, pile, want, "the fruit stack"), discard
    if want.total > pile.total + discard.total:
        raise _Refused(f"only {pile.total + discard.total} fruits are left in the fruit stack and the discard pile")
    try:
        rest = drain_then_draw(pile, want)
    except Short:
        raise _Refused(
            f"the fruit stack's last cards were {describe(s.kinds, pile)}: the draw must include them"
        ) from None
    return _take(s, discard, rest, "the reshuffled discard pile"), Fruits.empty(len(s.kinds))


def _fruit_check(s: State, zones: list[Fruits]) -> None:
    """Refuse a revealed kind when every card of that kind is already known to be elsewhere."""
    for k, kind in enumerate(s.kinds):
        known = sum(z.known[k] for z in zones)
        if known > s.fruit_counts[k]:
            raise _Refused(f"all {s.fruit_counts[k]} {plural(kind)} are already accounted for elsewhere")


def _move_animal(s: State, m: MoveAnimal) -> State:
    who = s.player
    if not s.destinations():
        raise _Refused(f"no location other than {who}'s own is on display: {who} passes (pass {who})")
    if s.stack(m.location) is None:
        on_display = ", ".join(str(x.number) for x in s.display)
        raise _Refused(f"location {m.location} is not on display (on display: {on_display})")
    if m.location == s.animals[s.current]:
        raise _Refused(f"{who}'s animal already stands on location {m.location}: move to another one")
    occupants = s.occupants(m.location)
    names = " and ".join(s.players[i] for i in occupants)
    hand = s.hands[s.current]
    if m.fees is None:
        if hand.total >= len(occupants):
            fees = [(i, None) for i in occupants]
        elif hand.total == 0:
            fees = []
        else:
            raise _Refused(
                f"{who} holds {hand.total} fruit{'s' if hand.total != 1 else ''} for {len(occupants)} players "
                f"on location {m.location}: say who gets {'it' if hand.total == 1 else 'them'} (pay NAME, NAME)"
            )
    else:
        fees = []
        for payment in m.fees:
            seat = s.seat(payment.to)
            if seat is None:
                raise _Refused(f"nobody called '{payment.to}' is playing ({', '.join(s.players)} are)")
            if seat not in occupants:
                there = f"only to {names}" if occupants else "to nobody: no other animal is there"
                raise _Refused(f"{s.players[seat]} is not on location {m.location}; the fee goes {there}")
            if any(seat == other for other, _ in fees):
                raise _Refused(f"{s.players[seat]} would get two fruits: each player there gets one")
            fees.append((seat, payment.kind))
        due = min(hand.total, len(occupants))
        if len(fees) != due:
            if due == len(occupants):
                raise _Refused(f"one fruit goes to each player already there: {names}")
            raise _Refused(f"{who} holds {hand.total} fruit{'s' if hand.total != 1 else ''}: all of it goes, one each, to {due} of {names}")
    hands = list(s.hands)
    for seat, kind in fees:
        fruit = _one(s, kind)
        hands[s.current] = _take(s, hands[s.current], fruit, who)
        hands[seat] = hands[seat].plus(fruit)
    _fruit_check(s, hands + [s.pile, s.discard])
    animals = list(s.animals)
    animals[s.current] = m.location
    paid = ""
    if fees:
        paid = "; paid " + ", ".join(
            f"{s.players[seat]} {'a fruit' if kind is None else 'a ' + kind}" for seat, kind in fees
        )
    elif occupants:
        paid = "; had no fruit to pay"
    return replace(
        s, hands=tuple(hands), animals=tuple(animals), phase=ACT, returned=(),
        last=f"{who} moved to location {m.location}{paid}",
    )


# -- actions ---------------------------------------------------------------------------------


def _action(s: State, a: Action) -> State:
    who = s.player
    here = s.animals[s.current]
    location = s.table[here]
    clauses = a.clauses
    for c in clauses:
        if c.other is not None:
            seat = s.seat(c.other)
            if seat is None:
                raise _Refused(f"nobody called '{c.other}' is playing ({', '.join(s.players)} are)")
            if c.verb in ("give", "take") and seat == s.current:
                raise _Refused(f"{who} cannot {c.verb} fruits to or from themselves: name another player")
        _to_fruits(s.kinds, c.fruits)
    rule = location.rule
    available = s.pile.total + s.discard.total
    if rule == "draw2":
        clauses = _rule_draw(s, clauses, 2, here)
    elif rule == "banana_for_two":
        clauses = _rule_banana(s, clauses, here)
    elif rule == "draw_and_swap3":
        clauses = _rule_swap(s, clauses, here, available)
    hands, pile, discard = _run_clauses(s, clauses)
    changes = "; ".join(c.to_text() for c in clauses) or "no fruit changed hands"
    kind = "" if rule else " (action not known yet: the changes entered)"
    return _end_turn(
        replace(s, hands=hands, pile=pile, discard=discard, returned=()),
        last=f"{who} used location {here}'s action{kind}: {changes}",
    )


def _rule_draw(s: State, clauses: tuple[Clause, ...], count: int, here: int) -> tuple[Clause, ...]:
    due = min(count, s.pile.total + s.discard.total)
    if not clauses:
        return (Clause("draw", FruitList(unknown=due)),)
    if len(clauses) != 1 or clauses[0].verb != "draw":
        raise _Refused(f"location {here}'s action is to draw {count} fruits: write action draw ...")
    if clauses[0].fruits.total != due:
        raise _Refused(f"location {here} draws {due} fruit{'s' if due != 1 else ''}, not {clauses[0].fruits.total}")
    return clauses


def _rule_banana(s: State, clauses: tuple[Clause, ...], here: int) -> tuple[Clause, ...]:
    who = s.player
    hint = (f"write action give NAME banana take NAME 2 fruits; without a banana the signpost lets {who} "
            "draw 1 fruit instead (action draw 1)")
    b = s.kind_index("banana")
    if b is None:
        raise _Refused("this game has no bananas, so location 2's action cannot be used")
    hand = s.hands[s.current]
    if len(clauses) == 1 and clauses[0].verb == "draw":
        if s.table[here].signpost is not True:
            raise _Refused(f"location {here} has no signpost: its action is the banana trade ({hint})")
        if hand.known[b]:
            raise _Refused(f"{who} has a banana, so the trade is the action; the signpost draw is for players without one")
        due = min(1, s.pile.total + s.discard.total)
        if clauses[0].fruits.total != due:
            raise _Refused(f"the signpost draws {due} fruit, not {clauses[0].fruits.total}")
        return clauses
    shape = [c.verb for c in clauses]
    if shape != ["give", "take"] or s.seat(clauses[0].other) != s.seat(clauses[1].other):
        raise _Refused(hint)
    give, take = clauses
    if give.fruits != FruitList((("banana", 1),)):
        raise _Refused(f"{who} gives exactly 1 banana (give {give.other} banana)")
    other = s.seat(give.other)
    after = s.hands[other].plus(_one(s, "banana"))
    due = min(2, after.total)
    if take.fruits.total != due:
        raise _Refused(f"{s.players[other]} gives back {due} fruit{'s' if due != 1 else ''}, not {take.fruits.total}")
    bananas_back = take.fruits.count("banana")
    others_certain = after.total - after.known[b] - after.unknown
    if bananas_back and others_certain >= due:
        raise _Refused(f"{s.players[other]} has other fruits, so gives back no banana")
    return clauses


def _rule_swap(s: State, clauses: tuple[Clause, ...], here: int, available: int) -> tuple[Clause, ...]:
    who = s.player
    holders = [i for i, h in enumerate(s.hands) if i != s.current and h.total >= 3]
    if not holders:
        # The rulebooks do not say what happens when no other player holds 3 fruits:
        # the companion records the changes the players enter, as for an unknown action.
        return clauses
    names = ", ".join(s.players[i] for i in holders)
    shape = [c.verb for c in clauses]
    if shape != ["draw", "take", "give"] or s.seat(clauses[1].other) != s.seat(clauses[2].other):
        raise _Refused(f"write action draw 1 take NAME 3 give NAME 3 (players holding 3 fruits: {names})")
    draw, take, give = clauses
    due = min(1, available)
    if draw.fruits.total != due:
        raise _Refused(f"location {here} first draws {due} fruit, not {draw.fruits.total}")
    other = s.seat(take.other)
    if other not in holders:
        raise _Refused(f"{s.players[other]} holds {s.hands[other].total} fruits: take 3 from a player who has 3 ({names})")
    if take.fruits.total != 3 or give.fruits.total != 3:
        raise _Refused(f"{who} takes 3 fruits and gives 3 back")
    return clauses


def _run_clauses(s: State, clauses: tuple[Clause, ...]) -> tuple[tuple[Fruits, ...], Fruits, Fruits]:
    hands = list(s.hands)
    pile, discard = s.pile, s.discard
    me = s.current
    for c in clauses:
        fruit = _to_fruits(s.kinds, c.fruits)
        other = None if c.other is None else s.seat(c.other)
        if c.verb == "draw":
            pile, discard = _draw_fruits(s, pile, discard, fruit)
            hands[me] = hands[me].plus(fruit)
        elif c.verb == "deal":
            pile, discard = _draw_fruits(s, pile, discard, fruit)
            hands[other] = hands[other].plus(fruit)
        elif c.verb == "discard":
            hands[me] = _take(s, hands[me], fruit, s.player)
            discard = discard.plus(fruit)
        elif c.verb == "give":
            hands[me] = _take(s, hands[me], fruit, s.player)
            hands[other] = hands[other].plus(fruit)
        else:  # take
            hands[other] = _take(s, hands[other], fruit, s.players[other])
            hands[me] = hands[me].plus(fruit)
    _fruit_check(s, hands + [pile, discard])
    return tuple(hands), pile, discard


# -- juices and the deck ---------------------------------------------------------------------


def _buy(s: State, b: Buy) -> State:
    who = s.player
    here = s.animals[s.current]
    if b.location != here:
        raise _Refused(f"{who}'s animal stands on location {here}: only that juice can be bought now")
    stack = s.stack(here)
    if b.copy is None:
        card = stack.cards[0]
    else:
        card = Card(here, b.copy)
        if card not in stack.cards:
            raise _Refused(f"card {card.to_text()} is not in stack {here} (it holds {format_cards(stack.cards)})")
    price = s.table[here].price
    hand = s.hands[s.current]
    if b.price is not None:
        if price is not None and price != b.price:
            raise _Refused(f"the card of location {here} says its juice costs {price.to_text()}, "
                           f"not {b.price.to_text()}: check the card, or correct the card data")
        if price is None:  # the buyer read it from the card: this game knows it from now on
            price = b.price
            s = replace(s, table=Table({**s.table.locations, here: replace(s.table[here], price=price)}))
    if b.pay is None:
        if price is None:
            raise _Refused(
                f"the price of location {here} is not known yet: say the price printed on the card "
                f"(buy {here} price 3 grapes + 1 smoothie) or what was paid (buy {here} pay 4 fruits)"
            )
        if price.special is not None:
            raise _Refused(f"location {here} has a special price ({price.special}): say what was paid")
        _check_afford(s, hand, price, here)
        pay = Fruits((0,) * len(s.kinds), price.total)
    else:
        pay = _to_fruits(s.kinds, b.pay)
        if price is not None and price.special is None:
            _check_payment(s, pay, price, here)
        elif pay.total == 0:
            raise _Refused(f"every juice costs fruits: say what {who} paid for the juice of location {here}, "
                           "or the price printed on its card")
    hands = list(s.hands)
    hands[s.current] = _take(s, hand, pay, who)
    discard = s.discard.plus(pay)
    _fruit_check(s, hands + [s.pile, discard])
    juices = list(s.juices)
    juices[s.current] = juices[s.current] + (card,)
    left = tuple(c for c in stack.cards if c != card)
    animals = list(s.animals)
    returned: tuple[str, ...] = ()
    if left:
        display = tuple(Stack(x.number, left) if x.number == here else x for x in s.display)
    else:  # used up: its action is gone and every animal there goes back to its owner
        display = tuple(x for x in s.display if x.number != here)
        returned = tuple(s.players[i] for i, at in enumerate(animals) if at == here)
        animals = [None if at == here else at for at in animals]
    ending = s.ending
    if not ending and len(juices[s.current]) >= s.goal:
        n = len(juices[s.current])
        ending = f"{who} has {n} {'juice' if n == 1 else 'juices'}"
    last = f"{who} bought the juice of location {here} ({card.to_text()}), paying {describe(s.kinds, pay)}"
    if returned:
        last += f"; stack {here} is used up and {' and '.join(returned)} take{'s' if len(returned) == 1 else ''} their animal back"
    s = replace(
        s, hands=tuple(hands), discard=discard, juices=tuple(juices), display=display,
        animals=tuple(animals), returned=returned, ending=ending, last=last,
    )
    if s.deck:
        return replace(s, phase=DRAW)
    return _end_turn(s, last=last + "; the deck is empty, so no card is drawn")


def _check_afford(s: State, hand: Fruits, price, here: int) -> None:
    need = _price_counts(s, price)
    short = sum(max(0, n - have) for n, have in zip(need, hand.known))
    if hand.total < price.total or short > hand.unknown:
        raise _Refused(
            f"{s.player} holds {describe(s.kinds, hand)}: the juice of location {here} costs {price.to_text()}"
        )


def _check_payment(s: State, pay: Fruits, price, here: int) -> None:
    if pay.total != price.total:
        raise _Refused(f"the juice of location {here} costs {price.total} fruits ({price.to_text()}), not {pay.total}")
    need = _price_counts(s, price)
    spare = sum(max(0, paid - n) for paid, n in zip(pay.known, need))
    if spare > price.smoothies:
        raise _Refused(
            f"{describe(s.kinds, pay)} does not pay {price.to_text()}: only smoothies may be paid with other fruits"
        )
    missing = sum(max(0, n - paid) for paid, n in zip(pay.known, need))
    if missing > pay.unknown:
        raise _Refused(f"{describe(s.kinds, pay)} does not pay {price.to_text()}")


def _price_counts(s: State, price) -> list[int]:
    need = [0] * len(s.kinds)
    for kind, n in price.fruits:
        need[s.kinds.index(kind)] += n
    return need


def _draw_location(s: State, d: Draw) -> State:
    top = s.deck[0]
    if d.number is not None and (d.number != top.number or (d.copy is not None and d.copy != top.copy)):
        raise _Refused(
            f"the next card of the deck is {top.to_text()}, not {d.to_text()[5:]}: check the deck's order"
        )
    stack = s.stack(top.number)
    if stack is None:
        display = s.display + (Stack(top.number, (top,)),)
        where = f"starts a new stack {top.number}"
    else:
        display = tuple(Stack(x.number, (top,) + x.cards) if x.number == top.number else x for x in s.display)
        where = f"goes on stack {top.number}"
    return _end_turn(
        replace(s, display=display, deck=s.deck[1:]),
        last=f"{s.last}; drew {top.to_text()}, which {where}",
    )


def _end_turn(s: State, *, last: str, passed: bool = False) -> State:
    """The next player's turn, or the end when the last round is complete (the start player's right-hand
    neighbour has had the last turn).

    Two ends the rulebook does not cover, for when the legacy deck runs out: with no location
    left on display, or after every player in a row had to pass (all animals on the one location
    left), the round being played is the last one.
    """
    turns = s.turns[: s.current] + (s.turns[s.current] + 1,) + s.turns[s.current + 1 :]
    passes = s.passes + 1 if passed else 0
    ending = s.ending
    if not ending and not s.display:
        ending = "no location is left on display"
    elif not ending and passes >= len(s.players):
        ending = "no animal can move to another location"
    if ending and s.current == s.last_seat:
        return replace(s, turns=turns, ending=ending, passes=passes, phase=OVER, last=last)
    return replace(
        s, turns=turns, ending=ending, passes=passes, current=(s.current + 1) % len(s.players), phase=MOVE, last=last
    )


# -- the end ---------------------------------------------------------------------------------------


def _rank_key(s: State, seat: int) -> tuple[int, int]:
    return len(s.juices[seat]), s.hands[seat].total


def outcome(state: State) -> Outcome | None:
    """Most juices wins; then most fruits in hand; then the tied players share the victory."""
    if not state.over:
        return None
    best = max(_rank_key(state, i) for i in range(len(state.players)))
    winners = tuple(p for i, p in enumerate(state.players) if _rank_key(state, i) == best)
    juices, fruits = best
    tied_on_juices = sum(1 for i in range(len(state.players)) if len(state.juices[i]) == juices)
    if len(winners) > 1:
        reason = f"{' and '.join(winners)} share the victory with {juices} juices and {fruits} fruits each"
    elif tied_on_juices > 1:
        reason = f"{juices} juices, and the most fruits left in hand ({fruits}) break the tie"
    else:
        reason = f"the most juices: {juices}"
    return Outcome(winners=winners, reason=f"{state.ending}; {reason}")


def session_scores(state: State) -> dict[str, int]:
    """The rulebook's scoring over several games: winners 2, last player(s) 0, everyone else 1."""
    result = outcome(state)
    if result is None:
        return {}
    worst = min(_rank_key(state, i) for i in range(len(state.players)))
    scores = {}
    for i, p in enumerate(state.players):
        if p in result.winners:
            scores[p] = 2
        elif _rank_key(state, i) == worst:
            scores[p] = 0
        else:
            scores[p] = 1
    return scores


def losers(state: State) -> tuple[str, ...]:
    """The player(s) ranked last; the loser starts the next game."""
    if not state.over:
        return ()
    worst = min(_rank_key(state, i) for i in range(len(state.players)))
    return tuple(p for i, p in enumerate(state.players) if _rank_key(state, i) == worst)


# -- accounting ------------------------------------------------------------------------------------


def accounting_problems(state: State) -> list[str]:
    """What is wrong with the card and fruit accounting (empty when every card and fruit is in one place)."""
    problems = []
    everything = state.table.all_cards()
    places = list(state.deck) + [c for st in state.display for c in st.cards] + list(state.bag)
    places += [c for j in state.juices for c in j]
    if len(places) != len(everything) or set(places) != set(everything):
        problems.append(f"{len(places)} card places for {len(everything)} cards ({len(set(places))} distinct)")
    zones = list(state.hands) + [state.pile, state.discard]
    if sum(z.total for z in zones) != sum(state.fruit_counts):
        problems.append(f"{sum(z.total for z in zones)} fruits for {sum(state.fruit_counts)}")
    for k, kind in enumerate(state.kinds):
        if sum(z.known[k] for z in zones) > state.fruit_counts[k]:
            problems.append(f"more {plural(kind)} known than the box holds")
    if any(min(z.known + (z.unknown,)) < 0 for z in zones):
        problems.append("a negative fruit count")
    return problems
