"""The Grimm Forest's rules (shared/seeds/004_afc2f8f2d9ea9f9a.txt and the notes' facts), pure functions on State.

A round: (two players: the Prince Regal) -> collect (secret, simultaneous) -> fables (each Fable
played, in turn order) -> before (Cinderella) -> draft (a shared Market, one token at a time) ->
after (the Frog Prince) -> construction (two actions each, in turn order) -> cleanup (the table).
Steps nobody is concerned by are skipped.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from companion.errors import IllegalMove, SetupError
from companion.flow import Flow, Phase
from companion.games import Outcome, _and, check_players, int_option, unknown_options

from .moves import Build, Cleanup, Draft, Draw, Fable, FriendGot, FriendUse, Gain, Gather, Move, Prince, Special
from .state import (NONE, PARTS, RESOURCES, Res, Seat, Split, State, add, count, data, friend_effect, friend_name,
                    location_name, one, res_text, resource_of, sub)

NAME = "grimm"
TITLE = "The Grimm Forest"
# Each option in a player's words, with its default (the Setup page lists them under the options box).
OPTIONS = {
    "advanced": "yes or no: the advanced Friend and Fable cards in the decks (default yes)",
    "costs": "what a floor, walls and roof cost, in resources of the house's own kind, e.g. 2,4,6 (default "
             + ",".join(str(data()["costs"][p]) for p in ("floor", "walls", "roof")) + ")",
    "start": "straw, wood and brick tokens on the Fields, Forest and Brickyard at the start (default "
             + ",".join(str(data()["locations"][loc]["start"]) for loc in ("fields", "forest", "brickyard")) + ")",
    "supply": f"tokens of each resource in the box (default {data()['supply_per_resource']})",
    "first": "the first player's name (default the first seat)",
    "mega": f"the lowest and highest mega-resource token, e.g. 3-5 (default {data()['mega']['min']}-{data()['mega']['max']})",
}
MARKET = "market"

FLOW = Flow(
    Phase("prince", frozenset({"prince"}), table=True, next="collect"),
    Phase("collect", frozenset({"gather"}), simultaneous=True, next="fables"),
    Phase("fables", frozenset({"fable"}), next="before"),
    Phase("before", frozenset({"friend"}), next="draft"),
    Phase("draft", frozenset({"draft"}), next="after"),
    Phase("after", frozenset({"friend"}), next="construction"),
    Phase("construction", frozenset({"draw", "gain", "build", "special"}), actions=data()["actions_per_turn"],
          next="cleanup"),
    Phase("cleanup", frozenset({"cleanup"}), table=True, next="prince"),
)
KIND = {Prince: "prince", Gather: "gather", Fable: "fable", FriendUse: "friend", Draft: "draft", Draw: "draw",
        Gain: "gain", Build: "build", Special: "special", Cleanup: "cleanup"}


# -- setup ------------------------------------------------------------------------


def _triple(options: Mapping[str, str], key: str, default: tuple[int, int, int]) -> tuple[int, int, int]:
    raw = options.get(key)
    if raw is None:
        return default
    try:
        values = tuple(int(v) for v in str(raw).replace("/", ",").split(","))
    except ValueError:
        values = ()
    if len(values) != 3 or min(values) < 0:
        raise SetupError(f"option {key}={raw!r}: give three whole numbers, e.g. {key}={','.join(map(str, default))}")
    return values  # type: ignore[return-value]


def setup(players, options: Mapping[str, str] | None = None) -> State:
    """A new game for 2-4 players. Options: ``advanced`` (yes/no: the advanced Friend and Fable cards in
    the decks), ``costs`` (floor,walls,roof: 2,4,6), ``start`` (straw,wood,brick on Fields, Forest,
    Brickyard: 5,4,3), ``supply`` (tokens of each resource in the box), ``first`` (the first player),
    ``mega`` (lowest,highest mega-resource token: 3,5)."""
    options = dict(options or {})
    unknown_options(options, OPTIONS, TITLE)
    players = check_players(players, minimum=2, maximum=4, game=TITLE)
    facts = data()
    locs = tuple(loc for loc, f in facts["locations"].items() if len(players) >= f.get("players", 0))
    start = _triple(options, "start", tuple(facts["locations"][loc]["start"] for loc in ("fields", "forest", "brickyard")))
    stock = [one(i, start[i]) for i in range(3)]
    if MARKET in locs:
        stock.append((1, 1, 1))
    supply_each = int_option(options, "supply", facts["supply_per_resource"], minimum=1)
    supply = sub((supply_each,) * 3, _sum(stock))
    if min(supply) < 0:
        raise SetupError(f"option supply={supply_each}: fewer tokens than the locations start with")
    costs = _triple(options, "costs", tuple(facts["costs"][p] for p in PARTS))
    mega = str(options.get("mega", f"{facts['mega']['min']}-{facts['mega']['max']}")).split("-")
    try:
        low, high = int(mega[0]), int(mega[-1])
    except ValueError:
        raise SetupError(f"option mega={options['mega']!r}: write the lowest and highest token, e.g. mega=3-5") from None
    if not 1 <= low <= high:
        raise SetupError(f"option mega={options['mega']!r}: the lowest token must be at least 1 and not above the highest")
    advanced = str(options.get("advanced", "yes")).lower()
    if advanced not in ("yes", "no"):
        raise SetupError(f"option advanced={options['advanced']!r}: say yes or no")
    first = options.get("first", players[0])
    if first not in players:
        raise SetupError(f"option first={first!r}: the first player must be one of {_and(players)}")
    state = State(seats=tuple(Seat(p) for p in players), locations=locs, stock=tuple(stock), supply=supply,
                  first=players.index(first), costs=costs, mega=(low, high), advanced=advanced == "yes",
                  fable_deck=facts["fable_deck"], phase="prince")
    return _enter(state, "prince")


def _sum(values) -> Res:
    total = NONE
    for v in values:
        total = add(total, v)
    return total


def tokens(state: State) -> Res:
    """Every resource token in the game: the supply, the locations, the players (conserved by every move)."""
    return _sum([state.supply, *state.stock, *(s.hand for s in state.seats)])


# -- who acts -----------------------------------------------------------------------


def turn_order(state: State) -> tuple[str, ...]:
    return FLOW.turn_order(state.players, state.first)


def concerned(state: State) -> tuple[str, ...]:
    """The players the current step concerns."""
    phase = state.phase
    if phase == "fables":
        return tuple(s.name for s in state.seats if s.fable_played)
    if phase == "before":
        return tuple(s.name for s in state.seats if friend_effect(s.friend) == "cinderella"
                     and s.pick not in state.monsters and sum(state.stock_at(s.pick)) > 0)
    if phase == "after":
        return tuple(s.name for s in state.seats if friend_effect(s.friend) == "frog-prince" and not alone(state, s.name))
    return state.players


def alone(state: State, player: str) -> bool:
    pick = state.at(player).pick
    return sum(1 for s in state.seats if s.pick == pick) == 1


def to_act(state: State) -> tuple[str, ...]:
    if state.over:
        return ()
    if state.phase == "draft":
        return state.draft_order[:1]
    return FLOW.to_act(state.phase, state.players, state.first, state.done, among=concerned(state))


def deciding(state: State) -> tuple[str, ...]:
    """Seats still choosing their collection card: their LEDs pulse."""
    return to_act(state) if state.phase == "collect" else ()


# -- checking --------------------------------------------------------------------------


def why_illegal(state: State, move: Move) -> str | None:
    if state.over:
        return "the game is over"
    kind = KIND.get(type(move))
    who = getattr(move, "player", None)
    if who is not None and state.seat(who) is None:
        return f"nobody called '{who}' plays: the players are {_and(state.players)}"
    if kind not in FLOW[state.phase].moves:
        return f"{_phase_words(state)}, not {_kind_words(kind)}"
    if who is not None and who not in to_act(state):
        acting = to_act(state)
        if state.phase == "collect":
            return f"{who} has already chosen a collection card this round (take it back with undo to change it)"
        return f"{who} cannot play now: the game waits for {_and(acting) if acting else 'the table'}"
    check = _CHECKS[kind]
    return check(state, move)


def _phase_words(state: State) -> str:
    return {
        "prince": "the round starts with the Prince Regal's die",
        "collect": "everyone is choosing a collection card",
        "fables": "the Fables played are being resolved",
        "before": "Cinderella may take her 2 resources before anyone collects",
        "draft": "the shared Market is being drafted",
        "after": "the Frog Prince is being swapped at the end of Gather",
        "construction": "it is the construction phase",
        "cleanup": "the round ends with the cleanup: lay the mega-resource tokens",
    }[state.phase]


def _kind_words(kind: str | None) -> str:
    return {"prince": "the Prince Regal's die", "gather": "a collection card", "fable": "a Fable",
            "friend": "a Friend's timing window", "draft": "a Market draft", "draw": "a construction action",
            "gain": "a construction action", "build": "a build", "special": "a Friend's special action",
            "cleanup": "the cleanup"}.get(kind or "", "that move")


def _check_prince(state: State, move: Prince) -> str | None:
    full = fullest(state)
    if full is not None and location_for(move.resource) != full:
        return (f"{location_name(full)} holds more than 10 resources: the Prince Regal skips the die and "
                f"takes from it (say 'prince {RESOURCES[resource_of(full)]}')")
    return None


def fullest(state: State) -> str | None:
    """The location the Prince must visit without rolling (one holds more than 10), or None."""
    over = [loc for loc in state.locations if loc != MARKET and sum(state.stock_at(loc)) > 10]
    if not over:
        return None
    # Ties prefer Brick, then Wood, then Straw.
    return max(over, key=lambda loc: (sum(state.stock_at(loc)), resource_of(loc)))


def location_for(resource: str) -> str:
    return next(loc for loc, f in data()["locations"].items() if f["resource"] == resource)


def _check_gather(state: State, move: Gather) -> str | None:
    if move.location not in state.locations:
        return f"{move.player} cannot gather at the {location_name(move.location)}: it is in play only with four players"
    if move.fable and state.at(move.player).fables < 1:
        return f"{move.player} holds no Fable card to lay on the collection card"
    return None


def _check_fable(state: State, move: Fable) -> str | None:
    if move.location is not None:
        if move.location not in state.locations:
            return f"the {location_name(move.location)} is not in play"
        if move.location in state.monsters:
            return f"a monster is already on the {location_name(move.location)}: only one monster per location"
    return None


def _check_friend(state: State, move: FriendUse) -> str | None:
    seat = state.at(move.player)
    if state.phase == "before":
        if move.kind == "pass":
            return None
        if move.kind != "take":
            return f"{move.player}'s Cinderella takes 2 resources now ('friend {move.player} take ...') or passes"
        if len(move.resources) > 2:
            return "Cinderella takes at most 2 resources"
        here = state.stock_at(seat.pick)
        wanted = count(move.resources)
        if any(w > h for w, h in zip(wanted, here)):
            return f"the {location_name(seat.pick)} holds only {res_text(here)}"
        return None
    if move.kind != "frog":
        return (f"{move.player} was not alone: the Frog Prince is discarded for a new Friend and 1 resource "
                f"('friend {move.player} frog NEWFRIEND gain RESOURCE')")
    if move.friend == "frog-prince":
        return "the new Friend cannot be the Frog Prince again: draw another"
    return _check_supply(state, count(move.resources))


def _check_supply(state: State, wanted: Res) -> str | None:
    short = [RESOURCES[i] for i in range(3) if wanted[i] > state.supply[i]]
    if short:
        return f"the supply has no {' or '.join(short)} left"
    return None


def _check_draft(state: State, move: Draft) -> str | None:
    if state.stock_at(MARKET)[RESOURCES.index(move.resource)] < 1:
        return f"the Market holds no {move.resource} (it holds {res_text(state.stock_at(MARKET))})"
    return None


def _check_draw(state: State, move: Draw) -> str | None:
    if state.fable_deck + state.fable_discard < 1:
        return "there is no Fable card left to draw"
    return None


def _check_gain(state: State, move: Gain) -> str | None:
    return _check_supply(state, one(RESOURCES.index(move.resource)))


def _check_build(state: State, move: Build) -> str | None:
    seat = state.at(move.player)
    k = RESOURCES.index(move.kind)
    stage = seat.building[k]
    part = PARTS.index(move.part)
    house = f"{move.kind} house"
    if part == 0:
        if stage:
            return (f"{move.player} already has a {house} under construction: finish it before starting another "
                    f"{move.kind} house")
        if seat.under_construction >= data()["max_under_construction"]:
            return f"{move.player} already has {seat.under_construction} houses under construction, the most allowed"
    elif stage == 0:
        return f"{move.player} has no {house} under construction: build its floor first"
    elif stage != part:
        need = PARTS[stage]
        return f"the {house} of {move.player} needs its {need} next: floor, then walls, then roof"
    cost = state.costs[part]
    if seat.hand[k] < cost:
        return f"{move.player} needs {cost} {move.kind} for the {move.part} and has {seat.hand[k]}"
    if move.part == "walls":
        if move.reward or move.friend is None:
            return f"walls draw a Friend card: name it ('build {move.player} walls {move.kind} friend NAME')"
        return _check_friend_got(state, move.friend)
    if move.part == "roof":
        holder = state.first_builders[k]
        if holder is None:
            if move.reward is None:
                return (f"{move.player} is the first to finish a {house}: take the {move.kind} First Builder token "
                        "and choose the reward (reward resources, fables, or friend NAME)")
            if move.reward == "friend":
                return _check_friend_got(state, move.friend)
            if move.reward == "fables":
                return None if state.fable_deck + state.fable_discard >= 2 else "fewer than 2 Fable cards are left"
            return None
        if move.reward:
            return f"the {move.kind} First Builder token went to {holder}: no reward for this roof"
    elif move.friend or move.reward:
        return "a floor draws no card and earns no reward"
    return None


def _check_friend_got(state: State, got: FriendGot | None) -> str | None:
    if got is None:
        return "name the Friend card"
    if got.to is not None and state.seat(got.to) is None:
        return f"nobody called '{got.to}' plays: give the Friend to one of {_and(state.players)}"
    return None


def _check_special(state: State, move: Special) -> str | None:
    seat = state.at(move.player)
    if seat.friend is None:
        return f"{move.player} holds no Friend card"
    if state.special_used:
        return "a Friend's special action may be used once a turn"
    effect = friend_effect(seat.friend)
    name = friend_name(seat.friend)
    if effect == "fairy-godmother":
        if move.kind == "fables":
            return None if state.fable_deck + state.fable_discard >= 2 else "fewer than 2 Fable cards are left"
        if move.kind == "resources":
            if seat.fables < 2:
                return f"the Fairy Godmother's second choice discards 2 Fables, and {move.player} holds {seat.fables}"
            return _check_supply(state, count(move.resources))
        return "the Fairy Godmother gives 2 Fables ('special NAME fables') or 2 resources ('special NAME resources R R')"
    if effect is not None:
        return f"{name} has no special action: her effect comes in its own timing window"
    if move.kind != "other":
        return f"the companion does not know {name}'s special action: record it ('special {move.player} other WHAT')"
    return None


_CHECKS = {"prince": _check_prince, "gather": _check_gather, "fable": _check_fable, "friend": _check_friend,
           "draft": _check_draft, "draw": _check_draw, "gain": _check_gain, "build": _check_build,
           "special": _check_special, "cleanup": lambda state, move: _check_cleanup(state, move)}


def _check_cleanup(state: State, move: Cleanup) -> str | None:
    low, high = state.mega
    bad = [v for v in move.values if not low <= v <= high]
    if bad:
        return f"a mega-resource token is worth {low} to {high}, not {bad[0]}"
    return None


# -- applying ----------------------------------------------------------------------------


def apply(state: State, move: Move) -> State:
    reason = why_illegal(state, move)
    if reason:
        raise IllegalMove(f"{getattr(move, 'player', None) or 'the table'} cannot play '{move.to_text()}': {reason}")
    return _APPLY[KIND[type(move)]](state, move)


def _enter(state: State, phase: str) -> State:
    """Start ``phase`` (its on-entry work done), skipping the steps nobody is concerned by."""
    state = replace(state, phase=phase, done=())
    if phase == "prince" and not state.two_player:
        return _enter(state, "collect")
    if phase == "fables":
        seats = tuple(replace(s, fables=s.fables - 1) if s.fable_played else s for s in state.seats)
        state = replace(state, seats=seats)
    if phase == "before":
        picks = tuple((s.pick, s.fable_played) for s in state.seats)
        state = replace(state, revealed_rounds=state.round, history=state.history + (picks,))
    if phase == "draft":
        state = _collect(state)
        if not state.draft_order:
            return _enter(state, "after")
        return state
    if phase == "construction":
        played = sum(1 for s in state.seats if s.fable_played)  # the Fables resolved are discarded now
        return replace(state, fable_discard=state.fable_discard + played, actions_left=FLOW["construction"].actions,
                       special_used=False)
    if phase in ("fables", "before", "after") and not concerned(state):
        return _enter(state, FLOW.next(phase))
    return state


def _step_done(state: State, player: str) -> State:
    state = replace(state, done=state.done + (player,))
    if to_act(state):
        return state
    return _enter(state, FLOW.next(state.phase))


def _apply_prince(state: State, move: Prince) -> State:
    loc = location_for(move.resource)
    here = state.stock_at(loc)
    back = one(resource_of(loc), sum(here) // 2)
    state = state.with_stock(loc, sub(here, back))
    state = replace(state, supply=add(state.supply, back), prince=loc)
    return _enter(state, "collect")


def _apply_gather(state: State, move: Gather) -> State:
    state = state.with_seat(move.player, pick=move.location, fable_played=move.fable)
    return _step_done(state, move.player)


def _apply_fable(state: State, move: Fable) -> State:
    if move.location:
        note = f"{move.player}'s monster blocks the {location_name(move.location)}" + (f" ({move.text})" if move.text else "")
        state = replace(state, monsters=state.monsters + (move.location,))
    else:
        note = f"{move.player}'s Fable: {move.text or 'effect played at the table'}"
    state = replace(state, notes=state.notes + (f"round {state.round}: {note}",))
    return _step_done(state, move.player)


def _apply_friend(state: State, move: FriendUse) -> State:
    seat = state.at(move.player)
    if move.kind == "take":
        got = count(move.resources)
        state = state.with_stock(seat.pick, sub(state.stock_at(seat.pick), got))
        state = state.with_seat(move.player, hand=add(seat.hand, got))
        state = _note(state, f"{move.player}'s Cinderella took {res_text(got)} from the {location_name(seat.pick)}")
    elif move.kind == "frog":
        got = count(move.resources)
        state = replace(state, supply=sub(state.supply, got))
        state = state.with_seat(move.player, hand=add(seat.hand, got), friend=move.friend)
        state = _note(state, f"{move.player}'s Frog Prince left for {friend_name(move.friend)} and {res_text(got)}")
    return _step_done(state, move.player)


def _note(state: State, text: str) -> State:
    return replace(state, notes=state.notes + (f"round {state.round}: {text}",))


def _collect(state: State) -> State:
    """Every location's resources to the pigs on it: alone takes all, shared splits equally rounded down
    (the rest stays); a shared Market is drafted in turn order; a monster's location gives nothing."""
    order = turn_order(state)
    splits, draft = [], ()
    for loc in state.locations:
        pigs = tuple(p for p in order if state.at(p).pick == loc)
        here = state.stock_at(loc)
        if not pigs or loc in state.monsters:
            splits.append(Split(loc, pigs, (NONE,) * len(pigs), here, blocked=bool(pigs) and loc in state.monsters))
            continue
        if len(pigs) == 1:
            took = (here,)
        elif loc == MARKET:
            share = sum(here) // len(pigs)
            draft = pigs * share
            splits.append(Split(loc, pigs, (NONE,) * len(pigs), here, share=share))
            continue
        else:
            each = tuple(n // len(pigs) for n in here)
            took = (each,) * len(pigs)
        for p, got in zip(pigs, took):
            state = state.with_seat(p, hand=add(state.at(p).hand, got))
        left = sub(here, _sum(took))
        state = state.with_stock(loc, left)
        splits.append(Split(loc, pigs, took, left))
    return replace(state, splits=tuple(splits), draft_order=draft)


def _apply_draft(state: State, move: Draft) -> State:
    got = one(RESOURCES.index(move.resource))
    state = state.with_stock(MARKET, sub(state.stock_at(MARKET), got))
    state = state.with_seat(move.player, hand=add(state.at(move.player).hand, got))
    splits = []
    for sp in state.splits:
        if sp.location == MARKET:
            i = sp.pigs.index(move.player)
            took = sp.took[:i] + (add(sp.took[i], got),) + sp.took[i + 1:]
            sp = replace(sp, took=took, left=state.stock_at(MARKET))
        splits.append(sp)
    state = replace(state, splits=tuple(splits), draft_order=state.draft_order[1:])
    if not state.draft_order:
        return _enter(state, "after")
    return state


def _apply_action(state: State, player: str) -> State:
    """One of the two construction actions spent; after the last player's second one, the end check."""
    left = state.actions_left - 1
    if left:
        return replace(state, actions_left=left)
    state = replace(state, done=state.done + (player,), actions_left=FLOW["construction"].actions, special_used=False)
    if to_act(state):
        return state
    result = end_check(state)
    if result is not None:
        return replace(state, result=result)
    return _enter(state, "cleanup")


def _draw_fables(state: State, player: str, n: int) -> State:
    deck, discard = state.fable_deck, state.fable_discard
    for _ in range(n):
        if deck == 0:  # the discarded Fables are shuffled into a new deck (the rules do not say)
            deck, discard = discard, 0
        deck -= 1
    state = replace(state, fable_deck=deck, fable_discard=discard)
    return state.with_seat(player, fables=state.at(player).fables + n)


def _apply_draw(state: State, move: Draw) -> State:
    return _apply_action(_draw_fables(state, move.player, 1), move.player)


def _apply_gain(state: State, move: Gain) -> State:
    got = one(RESOURCES.index(move.resource))
    state = replace(state, supply=sub(state.supply, got))
    state = state.with_seat(move.player, hand=add(state.at(move.player).hand, got))
    return _apply_action(state, move.player)


def _give_friend(state: State, drawer: str, got: FriendGot) -> State:
    keeper = got.to or drawer
    old = state.at(keeper).friend
    state = state.with_seat(keeper, friend=got.friend)
    said = f"{drawer} drew {friend_name(got.friend)}" + (f" and gave it to {keeper}" if keeper != drawer else "")
    if old:
        said += f"; {keeper}'s {friend_name(old)} is discarded"
    return _note(state, said)


def _apply_build(state: State, move: Build) -> State:
    seat = state.at(move.player)
    k = RESOURCES.index(move.kind)
    part = PARTS.index(move.part)
    paid = one(k, state.costs[part])
    building = list(seat.building)
    complete = list(seat.complete)
    if part == 2:
        building[k] = 0
        complete[k] += 1
    else:
        building[k] = part + 1
    state = state.with_seat(move.player, hand=sub(seat.hand, paid), building=tuple(building), complete=tuple(complete))
    state = replace(state, supply=add(state.supply, paid))
    if move.part == "walls":
        state = _give_friend(state, move.player, move.friend)
    if move.part == "roof" and state.first_builders[k] is None:
        builders = list(state.first_builders)
        builders[k] = move.player
        state = replace(state, first_builders=tuple(builders))
        state = _note(state, f"{move.player} is the first to finish a {move.kind} house: First Builder token")
        if move.reward == "resources":
            got = tuple(min(1, n) for n in state.supply)
            state = replace(state, supply=sub(state.supply, got))
            state = state.with_seat(move.player, hand=add(state.at(move.player).hand, got))
        elif move.reward == "fables":
            state = _draw_fables(state, move.player, 2)
        else:
            state = _give_friend(state, move.player, move.friend)
    return _apply_action(state, move.player)


def _apply_special(state: State, move: Special) -> State:
    seat = state.at(move.player)
    if move.kind == "fables":
        state = _draw_fables(state, move.player, 2)
    elif move.kind == "resources":
        got = count(move.resources)
        state = replace(state, supply=sub(state.supply, got), fable_discard=state.fable_discard + 2)
        state = state.with_seat(move.player, hand=add(seat.hand, got), fables=seat.fables - 2, friend=None)
    else:
        state = _note(state, f"{move.player}'s {friend_name(seat.friend)}: {move.text or 'special action played at the table'}")
    return _apply_action(replace(state, special_used=True), move.player)


def _apply_cleanup(state: State, move: Cleanup) -> State:
    stock = list(state.stock)
    supply = state.supply
    for i, value in enumerate(move.values):
        got = one(i, min(value, supply[i]))  # what the box still holds
        stock[i] = add(stock[i], got)
        supply = sub(supply, got)
    if MARKET in state.locations:
        got = tuple(min(1, n) for n in supply)
        stock[state.locations.index(MARKET)] = add(stock[state.locations.index(MARKET)], got)
        supply = sub(supply, got)
    seats = tuple(replace(s, pick=None, fable_played=False) for s in state.seats)
    state = replace(state, stock=tuple(stock), supply=supply, seats=seats, first=(state.first + 1) % len(seats),
                    round=state.round + 1, monsters=(), splits=(), prince=None, draft_order=())
    return _enter(state, "prince")


_APPLY = {"prince": _apply_prince, "gather": _apply_gather, "fable": _apply_fable, "friend": _apply_friend,
          "draft": _apply_draft, "draw": _apply_draw, "gain": _apply_gain, "build": _apply_build,
          "special": _apply_special, "cleanup": _apply_cleanup}


# -- the end -------------------------------------------------------------------------------


def end_check(state: State) -> tuple[tuple[str, ...], str] | None:
    """At the end of the construction phase: anyone with three complete houses ends the game. Ties: most
    brick houses, then most wood houses, then the brick First Builder token."""
    goal = data()["houses_to_win"]
    done = [s for s in state.seats if s.houses >= goal]
    if not done:
        return None
    if len(done) == 1:
        return (done[0].name,), f"{done[0].name} completed {goal} houses"
    brick_token = state.first_builders[2]

    def key(s: Seat):
        return (s.complete[2], s.complete[1], s.name == brick_token)

    best = max(key(s) for s in done)
    winners = tuple(s.name for s in done if key(s) == best)
    names = _and([s.name for s in done])
    if len(winners) > 1:
        return winners, f"{names} completed {goal} houses in the same round and stay tied after every tie-break"
    w = state.at(winners[0])
    others = [s for s in done if s.name != w.name]
    if all(s.complete[2] < w.complete[2] for s in others):
        why = f"the most brick houses ({w.complete[2]})"
    elif all(key(s)[:2] < key(w)[:2] for s in others):
        why = f"as many brick houses and the most wood houses ({w.complete[1]})"
    else:
        why = "as many brick and wood houses and the brick First Builder token"
    return winners, f"{names} completed {goal} houses in the same round: {w.name} wins with {why}"


def outcome(state: State) -> Outcome | None:
    if state.result is None:
        return None
    winners, reason = state.result
    return Outcome(winners, reason)
