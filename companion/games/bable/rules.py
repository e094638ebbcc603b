"""Bable's rules (shared/seeds/002_e4a135fcf562d181.txt, basic and advanced game) as pure functions on State.

One function, :func:`_play`, carries a move out or refuses it with the reason; the
refusal is what :func:`why_illegal` returns and what :func:`apply` raises, so the
check and the change can never disagree.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Callable, Mapping

from companion.errors import IllegalMove, SetupError
from companion.games import Outcome, check_players, unknown_options

from .cards import COMPONENTS, EFFECTS, RESOURCES, SYMBOLS, Facts, cost_text, data
from .moves import (RESERVED, AnswerBuild, AnswerGather, AnswerGive, AnswerNo, AnswerReveal, Command, Confusion,
                    Deal, Discard, Idea, Move, Pass, Reveal, resources_text)
from .state import (ACTIONS, LAYERS, MISSING, NEW, SUPPLY_LIMIT, TOWER, Building, IdeaDeck, Pile, Seat, State, add,
                    bump, covers, resource_counts, sub, zeros)

NAME = "bable"
TITLE = "Bable"
# Each option in a player's words, with its default (the Setup page lists them under the options box).
OPTIONS = {
    "advanced": "yes to play with the Confusion cards (default no)",
    "first": "the starting player's name (default the first seat)",
    "cards": "the card facts entered on the Cards page (the companion fills this in)",
}
CARDS_OPTION = "cards"


class Refused(Exception):
    """A move the rules do not allow now; the message says why, in a player's words."""


def _no(reason: str):
    raise Refused(reason)


# -- setup ------------------------------------------------------------------------------


def setup(players, options: Mapping[str, str] | None = None) -> State:
    """A new game: the Idea decks built for the player count, supplies and hands waiting for the deal.

    Options: ``advanced=yes`` (the Confusion cards), ``first=NAME`` (the starting player;
    default the first named), ``cards=JSON`` (the card facts the players entered).
    """
    options = dict(options or {})
    unknown_options(options, OPTIONS, TITLE)
    rules = data()
    players = check_players(players, minimum=rules["players"]["minimum"], maximum=rules["players"]["maximum"],
                            game=TITLE)
    check_names(players)
    advanced = _yes_no("advanced", options.get("advanced", "no"))
    first = 0
    if options.get("first"):
        found = [i for i, p in enumerate(players) if p.casefold() == str(options["first"]).strip().casefold()]
        if not found:
            raise SetupError(f"option first={options['first']}: the starting player must be one of {', '.join(players)}")
        first = found[0]
    facts = _facts(options.get(CARDS_OPTION))
    count = str(len(players))
    decks = []
    for deck in rules["idea_decks"]:
        words, buildings = deck["words"], deck["buildings"]
        decks.append(IdeaDeck(words[count] if isinstance(words, dict) else words,
                              buildings[count] if isinstance(buildings, dict) else buildings))
    mix = facts.resource_mix
    return State(
        players=players,
        facts=facts,
        advanced=advanced,
        first=first,
        seats=(Seat(),) * len(players),
        dealt=(False,) * len(players),
        decks=tuple(decks),
        resource_deck=Pile(mix, 0) if mix else Pile(zeros(), COMPONENTS["resources"]),
        words_box=COMPONENTS["words"] - sum(d.words for d in decks),
        buildings_box=COMPONENTS["buildings"] - sum(d.buildings for d in decks),
        overseer=first,
        discards=zeros(len(players)),
    )


def check_names(players) -> None:
    """Refuse names the move notation could not read back (SetupError with the reason)."""
    for name in players:
        if any(ch.isspace() for ch in name) or any(ch in name for ch in ",:;=/?"):
            raise SetupError(f"'{name}': a player's name is one word without , : ; = / ? (moves name players)")
        low = name.lower()
        if low in RESERVED or low[0].isdigit() or (low[0] == "b" and low[1:].isdigit()):
            raise SetupError(f"'{name}' is a word of Bable's move notation: choose another name")


def _yes_no(key: str, value) -> bool:
    text = str(value).strip().lower()
    if text in ("yes", "true", "1", "on"):
        return True
    if text in ("no", "false", "0", "off", ""):
        return False
    raise SetupError(f"option {key}={value}: write yes or no")


def _facts(text: str | None) -> Facts:
    if text is None:
        return Facts.shipped()
    try:
        entries = json.loads(text)
        if not isinstance(entries, dict):
            raise ValueError("expected {card: {fact: value}}")
        return Facts.from_entries(entries)
    except ValueError as exc:
        raise SetupError(f"option {CARDS_OPTION}: {exc}") from None


# -- who acts ---------------------------------------------------------------------------


def to_act(state: State) -> tuple[str, ...]:
    """Everyone the game waits for: the players still to enter their deal, the commanded player,
    those who must discard down to 7, or the overseer."""
    phase = state.phase
    if phase == "over":
        return ()
    if phase == "deal":
        return tuple(p for p, done in zip(state.players, state.dealt) if not done)
    if phase == "answer":
        return (state.players[state.commanded],)
    if phase == "confusion":
        return (state.players[state.confused],)
    if phase == "discard":
        return tuple(p for p, n in zip(state.players, state.discards) if n)
    return (state.players[state.overseer],)


def deciding(state: State) -> tuple[str, ...]:
    """Players whose answer or choice the game waits for while the overseer's turn goes on (their seats pulse)."""
    return to_act(state) if state.phase in ("answer", "confusion", "discard") else ()


def overseer(state: State) -> str | None:
    """Whose turn it is (also while someone answers their command); None while dealing or after the end."""
    return None if state.phase in ("over", "deal") else state.players[state.overseer]


def waiting(state: State) -> str:
    """What the game waits for, in words."""
    phase = state.phase
    names = to_act(state)
    who = state.players[state.overseer]
    if phase == "over":
        return f"the game is over: {state.reason}"
    if phase == "deal":
        return f"{_and(names)} still {'has' if len(names) == 1 else 'have'} to enter the cards dealt at setup"
    if phase == "answer":
        return f"{names[0]} has not answered {who}'s command yet"
    if phase == "confusion":
        return f"{names[0]} has not drawn the Confusion card yet"
    if phase == "discard":
        return f"{_and(names)} must first discard down to {SUPPLY_LIMIT} resources"
    if phase == "idea":
        return f"{who} draws an Idea card to end the turn"
    return f"it is {who}'s turn (action {state.actions + 1} of {ACTIONS})"


def _and(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# -- checking and applying ---------------------------------------------------------------


def why_illegal(state: State, move: Move) -> str | None:
    try:
        _play(state, move)
    except Refused as exc:
        return str(exc)
    return None


def apply(state: State, move: Move) -> State:
    """The state after ``move``; raises :class:`IllegalMove` with the reason when it is not allowed."""
    try:
        return _play(state, move)
    except Refused as exc:
        raise IllegalMove(str(exc)) from None


def outcome(state: State) -> Outcome | None:
    if state.result == "won":
        return Outcome(state.players, state.reason)
    if state.result == "lost":
        return Outcome((), state.reason, lost=True)
    return None


_PHASE = {Deal: "deal", Command: "act", Reveal: "act", Pass: "act", AnswerNo: "answer", AnswerBuild: "answer",
          AnswerGather: "answer", AnswerGive: "answer", AnswerReveal: "answer", Confusion: "confusion",
          Discard: "discard", Idea: "idea"}
_VERB = {Deal: "enter a deal", Command: "give a command", Reveal: "reveal a card", Pass: "pass",
         AnswerNo: "answer", AnswerBuild: "answer", AnswerGather: "answer", AnswerGive: "answer",
         AnswerReveal: "answer", Confusion: "draw a Confusion card", Discard: "discard", Idea: "draw an Idea card"}


def _play(state: State, move: Move) -> State:
    if state.over:
        _no(f"the game is over: {state.reason}")
    i = state.seat(move.player)
    if i is None:
        _no(f"nobody called '{move.player}' plays this game ({', '.join(state.players)} do)")
    name = state.players[i]
    kind = type(move)
    if _PHASE[kind] != state.phase or name not in to_act(state):
        _no(f"{name} cannot {_VERB[kind]} now: {waiting(state)}")
    return _HANDLERS[kind](state, i, move)


# -- setup deal --------------------------------------------------------------------------


def _deal(state: State, i: int, move: Deal) -> State:
    name = state.players[i]
    start = data()["start_supply"]
    if len(move.resources) != start:
        _no(f"{name} is dealt {start} Resource cards, not {len(move.resources)}: name all {start}")
    deck, discard = _draw(state.resource_deck, state.resource_discard, move.resources)
    state = _take_word(state, move.word, source="box")
    number, state = _take_building(state, move.building, None, name)
    seat = _hand_gets(state.seats[i], move.word)
    seat = replace(seat, resources=resource_counts(move.resources)).with_buildings([Building(number)])
    return replace(state, seats=_set(state.seats, i, seat), resource_deck=deck, resource_discard=discard,
                   word_discard=bump(state.word_discard, SYMBOLS.index(move.word)),
                   dealt=_set(state.dealt, i, True))


# -- the overseer's actions ------------------------------------------------------------


def _command(state: State, i: int, move: Command) -> State:
    name = state.players[i]
    j = state.seat(move.target)
    if j is None:
        _no(f"{name} cannot command '{move.target}': nobody of that name plays ({', '.join(state.players)} do)")
    if j == i:
        _no(f"{name} cannot command themselves: the overseer commands another player")
    if state.seats[j].words_down:
        _no(f"{name} cannot command {state.players[j]}: their Word cards lie face down until their next turn "
            "(a Confusion card)")
    return replace(state, actions=state.actions + 1, commanded=j)


def _reveal(state: State, i: int, move: Reveal) -> State:
    seat = _show(state, i, move.card, "reveal")
    return replace(_shown(state, i, [move.card]), seats=_set(state.seats, i, seat), actions=state.actions + 1)


def _shown(state: State, i: int, cards) -> State:
    """Word cards everyone saw (a Building card shown stays face up: the supply says so)."""
    words = [(i, c, state.turn) for c in cards if isinstance(c, str)]
    return replace(state, shown=state.shown + tuple(words)) if words else state


def _pass(state: State, i: int, move: Pass) -> State:
    if _can_act(state, i):
        _no(f"{state.players[i]} can still act: give a command to another player or reveal a card")
    return replace(state, actions=state.actions + 1)


def _can_act(state: State, i: int) -> bool:
    seat = state.seats[i]
    others = any(not s.words_down for j, s in enumerate(state.seats) if j != i)
    return others or seat.hand_size > 0 or any(not b.face_up for b in seat.buildings)


def _show(state: State, i: int, card, verb: str) -> Seat:
    """The seat after showing ``card``: a Word card goes back to the hand, a Building card stays face up."""
    name, seat = state.players[i], state.seats[i]
    if isinstance(card, str):
        if not seat.holds(card):
            _no(f"{name} has no {card.capitalize()} Word card in hand to {verb} (a Confusion card took it)")
        return seat
    building = seat.building(card)
    if building is None:
        _no(f"{name} has no B{card} in their supply to {verb}")
    if building.face_up:
        _no(f"B{card} in {name}'s supply is already face up: {verb} another card")
    return seat.with_buildings([b if b.number != card else Building(card, True) for b in seat.buildings])


# -- answers ---------------------------------------------------------------------------------


def _answered(state: State, i: int, symbol: str) -> State:
    """The state once the commanded player has shown the Word card they understood."""
    seat = state.seats[i]
    if not seat.holds(symbol):
        _no(f"{state.players[i]} holds no {symbol.capitalize()} Word card (a Confusion card took it), so the word "
            f"cannot have been understood as {symbol.capitalize()}: answer no, or the command of a card in hand")
    return _shown(state, i, [symbol])


def _answer_no(state: State, i: int, move: AnswerNo) -> State:
    return replace(state, commanded=None, confused=i if state.advanced else None)


def _answer_build(state: State, i: int, move: AnswerBuild) -> State:
    state = _answered(state, i, "build")
    name, seat = state.players[i], state.seats[i]
    if move.building is None:
        for b in seat.buildings:
            cost = state.facts.building(b.number).cost
            if cost is not None and covers(seat.resources, cost):
                _no(f"{name} can pay for B{b.number} ({cost_text(state.facts.building(b.number).cost_dict())}): "
                    "an understood Build command is carried out")
        # Said from what everyone knows (the box's gaps), never from which cards this player holds face down.
        unknown = sum(1 for b in state.facts.buildings if b.cost is None)
        if seat.buildings and unknown:
            state = _trust(state, f"{name} could build nothing: not checked, {unknown} Building cards' costs are "
                                  "not entered")
        return replace(state, commanded=None)
    if seat.building(move.building) is None:
        _no(f"{name} has no B{move.building} in their supply to build")
    if not move.pay:
        _no(f"every building costs resources: name what {name} paid for B{move.building} (pay stone wood ...)")
    pay = resource_counts(move.pay)
    if not covers(seat.resources, pay):
        _no(f"{name} cannot pay {resources_text(move.pay)}: their supply holds {_resources_held(seat)}")
    card = state.facts.building(move.building)
    if card.cost is not None and tuple(card.cost) != pay:
        _no(f"B{move.building} costs {cost_text(card.cost_dict())}, not {resources_text(move.pay)}")
    if card.cost is None:
        state = _trust(state, f"{name} paid {resources_text(move.pay)} for {card.label}: its cost is not entered")
    seat = replace(seat, resources=sub(seat.resources, pay)).with_buildings(
        [b for b in seat.buildings if b.number != move.building])
    state = replace(state, seats=_set(state.seats, i, seat), resource_discard=add(state.resource_discard, pay),
                    tower=state.tower + (move.building,), commanded=None)
    if len(state.tower) == TOWER:
        return replace(state, result="won",
                       reason=f"the tower is finished: {name} placed {card.label} in the top layer")
    return state


def _answer_gather(state: State, i: int, move: AnswerGather) -> State:
    state = _answered(state, i, "gather")
    name, seat = state.players[i], state.seats[i]
    count = data()["gather"]
    available = state.resource_deck.size + sum(state.resource_discard)
    need = min(count, available)
    if len(move.drawn) != need:
        _no(f"{name} draws {need} Resource card{'s' if need != 1 else ''}: name "
            f"{'both' if need == 2 else 'the card drawn' if need == 1 else 'nothing (none is left)'} in the order drawn")
    deck, discard = _draw(state.resource_deck, state.resource_discard, move.drawn)
    seat = replace(seat, resources=add(seat.resources, resource_counts(move.drawn)))
    return _over_limit(replace(state, seats=_set(state.seats, i, seat), resource_deck=deck,
                               resource_discard=discard, commanded=None), [i])


def _answer_give(state: State, i: int, move: AnswerGive) -> State:
    state = _answered(state, i, "give")
    name = state.players[i]
    limit = data()["give"]
    if len(move.cards) > limit:
        _no(f"{name} gives up to {limit} cards, not {len(move.cards)}")
    seats = list(state.seats)
    given_buildings: set[int] = set()
    recipients = []
    for who, cards in move.gifts:
        j = state.seat(who)
        if j is None:
            _no(f"nobody called '{who}' plays this game ({', '.join(state.players)} do)")
        if j == i:
            _no(f"{name} gives to other players, not to themselves")
        for card in cards:
            if isinstance(card, int):
                building = seats[i].building(card)
                if building is None or card in given_buildings:
                    _no(f"{name} has no B{card} in their supply to give")
                given_buildings.add(card)
                seats[i] = seats[i].with_buildings([b for b in seats[i].buildings if b.number != card])
                seats[j] = seats[j].with_buildings(seats[j].buildings + (building,))
            else:
                t = RESOURCES.index(card)
                if seats[i].resources[t] == 0:
                    _no(f"{name} has not enough {card} to give: their supply holds {_resources_held(state.seats[i])}")
                seats[i] = replace(seats[i], resources=bump(seats[i].resources, t, -1))
                seats[j] = replace(seats[j], resources=bump(seats[j].resources, t))
        recipients.append(j)
    return _over_limit(replace(state, seats=tuple(seats), commanded=None), recipients)


def _answer_reveal(state: State, i: int, move: AnswerReveal) -> State:
    state = _answered(state, i, "reveal")
    limit = data()["reveal"]
    if len(move.cards) > limit:
        _no(f"{state.players[i]} reveals up to {limit} cards, not {len(move.cards)}")
    if len(set(move.cards)) != len(move.cards):
        _no("each card is revealed once: name two different cards")
    seats = list(state.seats)
    for card in move.cards:
        seats[i] = _show(replace(state, seats=tuple(seats)), i, card, "reveal")
    return replace(_shown(state, i, move.cards), seats=tuple(seats), commanded=None)


def _discard(state: State, i: int, move: Discard) -> State:
    name, seat = state.players[i], state.seats[i]
    owed = state.discards[i]
    if len(move.resources) != owed:
        _no(f"{name} holds {seat.resource_total} resources: discard exactly {owed} to keep {SUPPLY_LIMIT}")
    counts = resource_counts(move.resources)
    if not covers(seat.resources, counts):
        _no(f"{name} cannot discard {resources_text(move.resources)}: their supply holds {_resources_held(seat)}")
    seat = replace(seat, resources=sub(seat.resources, counts))
    return replace(state, seats=_set(state.seats, i, seat), resource_discard=add(state.resource_discard, counts),
                   discards=_set(state.discards, i, 0))


def _over_limit(state: State, players) -> State:
    """Everyone in ``players`` over the supply limit owes a discard down to it (their own choice)."""
    discards = list(state.discards)
    for j in players:
        discards[j] = max(0, state.seats[j].resource_total - SUPPLY_LIMIT)
    return replace(state, discards=tuple(discards))


# -- Confusion cards (advanced game) --------------------------------------------------------


def confusion_left(state: State) -> int:
    return COMPONENTS["confusion"] - sum(state.confusion_out)


def _confusion(state: State, i: int, move: Confusion) -> State:
    name = state.players[i]
    out = state.confusion_out if confusion_left(state) else zeros(len(EFFECTS))  # used cards shuffled again
    e = EFFECTS.index(move.effect)
    counts = state.facts.confusion
    if counts[e] is not None:
        if out[e] >= counts[e]:
            _no(f"the Confusion deck holds no more {move.effect} card: the box has {counts[e]} and "
                f"{'it is' if counts[e] == 1 else 'all are'} used")
    else:
        unknown_total = COMPONENTS["confusion"] - sum(c for c in counts if c is not None)
        unknown_out = sum(o for o, c in zip(out, counts) if c is None)
        if unknown_out >= unknown_total:
            _no(f"the Confusion deck holds no more {move.effect} card")
    state = replace(_EFFECTS[move.effect](state, i, move), confusion_out=bump(out, e), confused=None)
    return state


def _return_building(state: State, i: int, move: Confusion) -> State:
    layer = state.current_layer
    here = state.layer_buildings(layer)
    facts = state.facts
    marked = [b for b in here if facts.building(b).count("statue", "relief")]
    unknown = [f"B{b}" for b in here if facts.building(b).details is None]
    if move.building is None:
        if marked:
            _no(f"layer {layer + 1} holds {', '.join(f'B{b}' for b in marked)} with a Statue or Relief: take one")
        if unknown:
            state = _trust(state, f"{state.players[i]} took no building from layer {layer + 1}: the details of "
                                  f"{', '.join(unknown)} are not entered")
        return state
    if move.building not in here:
        _no(f"B{move.building} is not in the current layer of the tower (layer {layer + 1}: "
            f"{', '.join(f'B{b}' for b in here) or 'no building yet'})")
    if facts.building(move.building).count("statue", "relief") == 0:
        _no(f"B{move.building} has no Statue or Relief")
    if facts.building(move.building).details is None:
        state = _trust(state, f"{state.players[i]} took B{move.building} from the tower for its Statue or Relief: "
                              "its details are not entered")
    deck = state.current_deck
    decks = list(state.decks)
    decks[deck] = replace(decks[deck], returned=tuple(sorted(decks[deck].returned + (move.building,))))
    return replace(state, tower=tuple(b for b in state.tower if b != move.building), decks=tuple(decks))


def doors_and_stairs(state: State) -> tuple[int, int]:
    """Doors and Stairs counted in the tower, and how many of its buildings' details are not known."""
    counts = [state.facts.building(b).count("doors", "stairs") for b in state.tower]
    return sum(c for c in counts if c is not None), sum(1 for c in counts if c is None)


def _discard_resources(state: State, i: int, move: Confusion) -> State:
    name, seat = state.players[i], state.seats[i]
    known, unknown = doors_and_stairs(state)
    least = min(known, seat.resource_total)
    paid = len(move.resources)
    if unknown == 0 and paid != least:
        _no(f"the tower shows {known} Doors/Stairs: {name} discards {least} resource{'s' if least != 1 else ''}")
    if unknown and paid < least:
        _no(f"the tower shows at least {known} Doors/Stairs: {name} discards at least {least} resources")
    counts = resource_counts(move.resources)
    if not covers(seat.resources, counts):
        _no(f"{name} cannot discard {resources_text(move.resources)}: their supply holds {_resources_held(seat)}")
    if unknown:
        state = _trust(state, f"{name} discarded {paid} resource{'s' if paid != 1 else ''} for the Doors/Stairs: the "
                              f"details of {unknown} building{'s' if unknown != 1 else ''} in the tower are not entered")
    seat = replace(seat, resources=sub(seat.resources, counts))
    return replace(state, seats=_set(state.seats, i, seat), resource_discard=add(state.resource_discard, counts))


def _redraw_word(state: State, i: int, move: Confusion) -> State:
    if move.symbol is None:
        if sum(state.word_discard):
            _no("the discard pile holds Word cards: name the symbol of the one drawn")
        return state
    s = SYMBOLS.index(move.symbol)
    if state.word_discard[s] == 0:
        _no(f"the discard pile holds no Word card with the {move.symbol.capitalize()} symbol: check the card drawn")
    state = replace(state, word_discard=bump(state.word_discard, s, -1))
    return _word_to_hand(state, i, move.symbol)


def _buildings_left(state: State, i: int, move: Confusion) -> State:
    j = state.left_of(i)
    seats = list(state.seats)
    seats[j] = seats[j].with_buildings(seats[j].buildings + seats[i].buildings)
    seats[i] = seats[i].with_buildings(())
    return replace(state, seats=tuple(seats))


def _resources_right(state: State, i: int, move: Confusion) -> State:
    j = state.right_of(i)
    seats = list(state.seats)
    seats[j] = replace(seats[j], resources=add(seats[j].resources, seats[i].resources))
    seats[i] = replace(seats[i], resources=zeros())
    return _over_limit(replace(state, seats=tuple(seats)), [j])


def _drop_word(state: State, i: int, move: Confusion) -> State:
    seat = state.seats[i]
    if move.symbol is None:
        if seat.hand_size:
            _no(f"{state.players[i]} discards a Word card of their choice: name its symbol")
        return state
    if not seat.holds(move.symbol):
        _no(f"{state.players[i]} holds no {move.symbol.capitalize()} Word card to discard")
    s = SYMBOLS.index(move.symbol)
    seat = replace(seat, hand=_set(seat.hand, s, MISSING))
    return replace(state, seats=_set(state.seats, i, seat), word_discard=bump(state.word_discard, s))


def _words_down(state: State, i: int, move: Confusion) -> State:
    return replace(state, seats=_set(state.seats, i, replace(state.seats[i], words_down=True)))


_EFFECTS: dict[str, Callable[[State, int, Confusion], State]] = {
    "return-building": _return_building, "discard-resources": _discard_resources, "redraw-word": _redraw_word,
    "buildings-left": _buildings_left, "resources-right": _resources_right, "drop-word": _drop_word,
    "words-down": _words_down,
}


# -- the Idea card ------------------------------------------------------------------------


def _idea(state: State, i: int, move: Idea) -> State:
    name = state.players[i]
    k = state.current_deck
    deck = state.decks[k]
    if move.word is not None:
        if not deck.words:
            _no(f"deck {k + 1} holds no Word card now, only Building cards")
        state = _take_word(state, move.word, source=k)
        state = _word_to_hand(state, i, move.word)
    else:
        number, state = _take_building(state, move.building, k, name)
        seat = state.seats[i]
        state = replace(state, seats=_set(state.seats, i, seat.with_buildings(seat.buildings + (Building(number),))))
    if state.decks[k].size == 0 and not state.layer_done(k):
        built, size = state.layer_sizes()[k], LAYERS[k]
        if k == len(LAYERS) - 1:
            reason = f"{name} drew the last Idea card of the final deck with the tower unfinished"
        else:
            reason = (f"{name} drew the last Idea card of deck {k + 1} while layer {k + 1} of the tower was "
                      f"unfinished ({built} of {size} buildings)")
        return replace(state, result="lost", reason=reason)
    following = state.left_of(state.overseer)
    seats = _set(state.seats, following, replace(state.seats[following], words_down=False))
    return replace(state, seats=seats, overseer=following, turn=state.turn + 1, actions=0)


# -- cards moving between zones ------------------------------------------------------------


def _draw(deck: Pile, discard, names) -> tuple[Pile, tuple]:
    """Resources drawn one by one, the discard pile shuffled into a new deck when the deck is empty."""
    for name in names:
        t = RESOURCES.index(name)
        if deck.size == 0:
            deck, discard = Pile(tuple(discard), 0), zeros()
            if deck.size == 0:
                _no("no Resource card is left to draw: the deck and the discard pile are empty")
        if deck.known[t]:
            deck = Pile(bump(deck.known, t, -1), deck.unknown)
        elif deck.unknown:
            deck = Pile(deck.known, deck.unknown - 1)
        else:
            held = resources_text(tuple(r for r, n in zip(RESOURCES, deck.known) for _ in range(n)))
            _no(f"the Resource deck holds no {name} now (it holds {held}): check the card drawn")
    return deck, discard


def _take_word(state: State, symbol: str, *, source) -> State:
    """A Word card (not a starting one) with ``symbol`` leaves the box (``"box"``) or Idea deck ``source``."""
    s = SYMBOLS.index(symbol)
    known = state.facts.words[s]
    if known is not None and state.words_taken[s] >= known:
        _no(f"all {known} Word cards with the {symbol.capitalize()} symbol are already out of the decks "
            "(as entered on the Cards page): check the card's symbol")
    state = replace(state, words_taken=bump(state.words_taken, s))
    if source == "box":
        return replace(state, words_box=state.words_box - 1)
    return replace(state, decks=_set(state.decks, source, replace(state.decks[source],
                                                                  words=state.decks[source].words - 1)))


def _take_building(state: State, number: int | None, deck: int | None, name: str) -> tuple[int, State]:
    """A Building card out of the box (``deck`` None, at setup) or Idea deck ``deck``: which one, and the state."""
    where = "the box" if deck is None else f"deck {deck + 1}"
    unseen_here = state.buildings_box if deck is None else state.decks[deck].buildings
    returned = () if deck is None else state.decks[deck].returned
    if number is None:
        blank = [b for b in state.unseen_buildings() if state.facts.building(b).blank]
        if unseen_here and blank:
            number = blank[0]
        elif not unseen_here and len(returned) == 1:
            number = returned[0]
        else:
            _no(f"name the Building card {name} drew (B1 to B16): B? stands only for a card whose facts were "
                "never entered, and none is left")
    if number in returned:
        decks = list(state.decks)
        decks[deck] = replace(decks[deck], returned=tuple(b for b in returned if b != number))
        return number, replace(state, decks=tuple(decks))
    if not 1 <= number <= COMPONENTS["buildings"]:
        _no(f"there is no B{number}: the Building cards are B1 to B{COMPONENTS['buildings']}")
    if number not in state.unseen_buildings():
        _no(f"B{number} cannot come from {where}: it is already in play. Check which card {name} drew")
    if not unseen_here:
        _no(f"{where} holds no Building card of unknown identity: check the card")
    if deck is None:
        return number, replace(state, buildings_box=state.buildings_box - 1)
    decks = list(state.decks)
    decks[deck] = replace(decks[deck], buildings=decks[deck].buildings - 1)
    return number, replace(state, decks=tuple(decks))


def _hand_gets(seat: Seat, symbol: str) -> Seat:
    return replace(seat, hand=_set(seat.hand, SYMBOLS.index(symbol), NEW))


def _word_to_hand(state: State, i: int, symbol: str) -> State:
    """A Word card with ``symbol`` replaces the hand's card of that symbol (discarded face down) or fills its gap."""
    s = SYMBOLS.index(symbol)
    seat = state.seats[i]
    discard = state.word_discard if seat.hand[s] == MISSING else bump(state.word_discard, s)
    return replace(state, seats=_set(state.seats, i, _hand_gets(seat, symbol)), word_discard=discard)


def _trust(state: State, what: str) -> State:
    """Note a move taken on the players' word because a card fact is not entered (the page lists them)."""
    return replace(state, trusted=state.trusted + (f"turn {state.turn}: {what}",))


def _resources_held(seat: Seat) -> str:
    return resources_text(tuple(r for r, n in zip(RESOURCES, seat.resources) for _ in range(n)))


def _set(values: tuple, index: int, value) -> tuple:
    return values[:index] + (value,) + values[index + 1:]


_HANDLERS: dict[type, Callable] = {
    Deal: _deal, Command: _command, Reveal: _reveal, Pass: _pass, AnswerNo: _answer_no, AnswerBuild: _answer_build,
    AnswerGather: _answer_gather, AnswerGive: _answer_give, AnswerReveal: _answer_reveal, Discard: _discard,
    Confusion: _confusion, Idea: _idea,
}

__all__ = ["NAME", "TITLE", "OPTIONS", "setup", "why_illegal", "apply", "outcome", "to_act", "deciding", "overseer",
           "waiting", "check_names"]
