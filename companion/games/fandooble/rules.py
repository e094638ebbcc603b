"""Fandooble's rules (shared/seeds/003_f4de6afecb524eb6.txt), as pure functions on State."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from typing import Mapping

from companion.errors import IllegalMove, SetupError
from companion.games import Outcome, check_players, int_option, unknown_options

from .moves import Bank, Move, Roll, Steal
from .odds import odds_json
from .state import DRAGON_FACES, SPECIAL_FACES, Dice, State, data, face_name, sort_faces

NAME = "fandooble"
TITLE = "Fandooble"
# Each option in a player's words, with its default (the Setup page lists them under the options box).
OPTIONS = {
    "coins": f"all the gold in the game (default {data()['coins']})",
    "stash": "each player's gold at the start (default by the number of players: "
             + ", ".join(f"{n} for {p}" for p, n in data()["stash_by_players"].items()) + ")",
    "faces": "every face of a Dragon/Treasure die, a slash, then every face of the Fandooble die, e.g. "
             "CCGGRR/FFKKWW (default: the taught dice's faces, once both dice are taught)",
}


def setup(players, options: Mapping[str, str] | None = None) -> State:
    """A new game: stashes dealt by player count, the rest of the coins in the Dragon's pile.

    Options: ``coins`` (all the gold, 80), ``stash`` (each player's start), ``faces`` (every
    face of a Dragon/Treasure die, then of the Fandooble die: ``CCGGRR/FFKKWW``).
    """
    options = dict(options or {})
    unknown_options(options, OPTIONS, TITLE)
    players = check_players(players, minimum=2, maximum=6, game=TITLE)
    coins = int_option(options, "coins", data()["coins"], minimum=1)
    stash = int_option(options, "stash", data()["stash_by_players"][str(len(players))])
    if stash * len(players) > coins:
        raise SetupError(
            f"{len(players)} stashes of {stash} need {stash * len(players)} coins, but there are only {coins}"
        )
    dice = _dice_option(options["faces"]) if "faces" in options else Dice.default()
    return State(
        players=players,
        stashes=(stash,) * len(players),
        pile=coins - stash * len(players),
        coins=coins,
        dice=dice,
    )


def _dice_option(text: str) -> Dice:
    parts = text.upper().replace(" ", "").split("/")
    if len(parts) != 2:
        raise SetupError(
            f"option faces={text!r}: list every face of a Dragon/Treasure die, a slash, then every face "
            "of the Fandooble die, e.g. faces=CCGGRR/FFKKWW"
        )
    dragon, special = parts
    for die, faces, allowed in (("Dragon/Treasure", dragon, DRAGON_FACES), ("Fandooble", special, SPECIAL_FACES)):
        if not faces:
            raise SetupError(f"option faces={text!r}: the {die} die needs at least one face")
        bad = sorted(set(faces) - set(allowed))
        if bad:
            raise SetupError(f"option faces={text!r}: the {die} die has only {', '.join(allowed)} faces, not {''.join(bad)}")
    return Dice(dragon=sort_faces(dragon), special=sort_faces(special), verified=True)


def current_player(state: State) -> str | None:
    return None if state.over else state.player


def awaiting_decision(state: State) -> bool:
    """True while the roller must choose whom a Fandooble steals from (the seat LED pulses)."""
    return not state.over and state.pending_steals > 0


def end_turn_move(state: State) -> Move | None:
    """What the "next turn / bank" button plays: bank."""
    return None if state.over else Bank()



def why_illegal(state: State, move: Move) -> str | None:
    """The reason ``move`` is not allowed now, in words a player understands; None if it is."""
    if state.over:
        result = outcome(state)
        return f"the game is over: {' and '.join(result.winners)} won"
    who = state.player
    named = getattr(move, "player", None)
    if named is not None and named.casefold() != who.casefold():
        if state.seat(named) is None:
            return f"nobody called '{named}' is playing ({', '.join(state.players)} are)"
        return f"it is {who}'s turn, not {named}'s"
    if isinstance(move, Roll):
        if state.pending_steals:
            return f"{who} must first choose whom the Fandooble steals from (steal NAME)"
        return _why_roll_illegal(state, move)
    if isinstance(move, Steal):
        if not state.pending_steals:
            return "no Fandooble is waiting to steal: it steals only on the roll that shows it"
        victim = state.seat(move.victim)
        if victim is None:
            return f"nobody called '{move.victim}' is playing ({', '.join(state.players)} are)"
        if victim == state.current:
            return f"{who} cannot steal from their own stash: choose an opponent"
        if state.stashes[victim] == 0:
            return f"{state.players[victim]} has no coins in their stash to steal"
        return None
    if isinstance(move, Bank):
        if state.pending_steals:
            return f"{who} must first choose whom the Fandooble steals from (steal NAME)"
        if state.rolls_this_turn == 0:
            return f"{who} has not rolled yet: a turn starts with a roll of the dice"
        return None
    return f"{move!r} is not a Fandooble move"


def _why_roll_illegal(state: State, roll: Roll) -> str | None:
    who = state.player
    thrown_dragon = sum(1 for f in roll.faces if f in DRAGON_FACES)
    thrown_special = len(roll.faces) - thrown_dragon
    expected = state.dragon_dice_to_throw()
    held = ""
    if state.dragons:
        names = " and ".join(face_name(d) for d in state.dragons)
        held = f" ({names} stay{'s' if len(state.dragons) == 1 else ''} on the table)"
    if thrown_special != 1:
        return (
            f"every roll throws the one Fandooble/Knight/Wizard die, but this roll shows "
            f"{thrown_special} of its faces"
        )
    if thrown_dragon != expected:
        return (
            f"{who} throws {expected} Dragon/Treasure {'die' if expected == 1 else 'dice'}{held}, "
            f"but the roll shows {thrown_dragon}"
        )
    for die, kinds in (("dragon", DRAGON_FACES), ("special", SPECIAL_FACES)):
        counts = state.dice.counts(die)
        for face in set(roll.faces) & set(kinds):
            if counts[face] == 0:
                return f"the dice configured for this game have no {face_name(face)} face"
    return None


def apply(state: State, move: Move) -> State:
    """The state after ``move``; raises IllegalMove with the reason when it is not allowed."""
    reason = why_illegal(state, move)
    if reason is not None:
        raise IllegalMove(f"{state.player if not state.over else 'nobody'} cannot {move.to_text()}: {reason}")
    if isinstance(move, Roll):
        return _roll(state, move)
    if isinstance(move, Steal):
        return _steal(replace(state, pending_steals=state.pending_steals - 1), state.seat(move.victim))
    return _end_turn(replace(state, stashes=_add(state.stashes, state.current, state.loot), loot=0), "bank")


def _roll(state: State, roll: Roll) -> State:
    faces = roll.faces
    dragons = list(state.dragons + "".join(f for f in faces if f in "GR"))
    # A knight takes out one green dragon and a wizard one red, old or new; the freed die is thrown again.
    if "K" in faces and "G" in dragons:
        dragons.remove("G")
    if "W" in faces and "R" in dragons:
        dragons.remove("R")
    state = replace(state, rolls_this_turn=state.rolls_this_turn + 1, last_roll=faces)
    if len(dragons) >= 3:
        # Nothing else on a busting roll counts: its chests and Fandooble bring nothing.
        pile = state.pile + state.loot
        stashes = state.stashes
        event = "bust"
        if all(d == "R" for d in dragons):
            pile += stashes[state.current]
            stashes = _add(stashes, state.current, -stashes[state.current])
            event = "wipe"
        return _end_turn(replace(state, pile=pile, stashes=stashes, loot=0, dragons=""), event)
    chests = min(faces.count("C"), state.pile)
    state = replace(
        state,
        pile=state.pile - chests,
        loot=state.loot + chests,
        dragons=sort_faces("".join(dragons)),
        last_event="roll",
    )
    for _ in range(faces.count("F")):
        victims = state.opponents_with_coins()
        if len(victims) == 1:
            state = _steal(state, victims[0])
        elif len(victims) > 1:
            state = replace(state, pending_steals=state.pending_steals + 1)
        # With no opponent holding coins, the Fandooble's steal is lost.
    return replace(state, last_event="roll")


def _steal(state: State, victim: int) -> State:
    return replace(state, stashes=_add(state.stashes, victim, -1), loot=state.loot + 1, last_event="steal")


def _end_turn(state: State, event: str) -> State:
    over = state.pile == 0
    return replace(
        state,
        current=state.current if over else (state.current + 1) % len(state.players),
        turn=state.turn if over else state.turn + 1,
        loot=0,
        dragons="",
        pending_steals=0,
        rolls_this_turn=0,
        last_event=event,
        over=over,
    )


def _add(values: tuple[int, ...], index: int, amount: int) -> tuple[int, ...]:
    return values[:index] + (values[index] + amount,) + values[index + 1 :]


def outcome(state: State) -> Outcome | None:
    """Most gold wins; tied players share the win."""
    if not state.over:
        return None
    best = max(state.stashes)
    winners = tuple(p for p, s in zip(state.players, state.stashes) if s == best)
    return Outcome(winners=winners, reason=f"the Dragon's pile is empty; most gold: {best}")


def legal_moves(state: State) -> list[Move]:
    """Every move allowed now; each distinct roll (as a set of faces) appears once."""
    if state.over:
        return []
    if state.pending_steals:
        return [Steal(state.players[i]) for i in state.opponents_with_coins()]
    dragon_faces = [f for f, n in state.dice.counts("dragon").items() if n]
    special_faces = [f for f, n in state.dice.counts("special").items() if n]
    moves: list[Move] = [
        Roll("".join(combo) + special)
        for combo in itertools.combinations_with_replacement(dragon_faces, state.dragon_dice_to_throw())
        for special in special_faces
    ]
    if state.rolls_this_turn:
        moves.append(Bank())
    return moves


def random_chance(state: State, rng: random.Random) -> Roll | None:
    """A roll of the dice the current player must throw, sampled from the dice's faces."""
    if state.over or state.pending_steals:
        return None
    faces = [rng.choice(state.dice.dragon) for _ in range(state.dragon_dice_to_throw())]
    faces.append(rng.choice(state.dice.special))
    return Roll("".join(faces))


def to_json(state: State) -> dict:
    """The state as printed by ``companion play fandooble`` and shown on the dashboard."""
    result = outcome(state)
    return {
        "game": NAME,
        "players": [
            {"name": p, "seat": i, "stash": s} for i, (p, s) in enumerate(zip(state.players, state.stashes))
        ],
        "current": current_player(state),
        "turn": state.turn,
        "pile": state.pile,
        "coins": state.coins,
        "loot": state.loot,
        "dragons": list(state.dragons),
        "dice_to_throw": state.dragon_dice_to_throw() + 1 if not state.over else 0,
        "pending_steals": state.pending_steals,
        "rolls_this_turn": state.rolls_this_turn,
        "last_roll": state.last_roll,
        "last_event": state.last_event,
        "over": state.over,
        "winners": list(result.winners) if result else [],
        "faces": state.dice.to_json(),
        "odds": odds_json(state),
    }


def player_view(state: State, player: str) -> dict:
    """Fandooble hides nothing: every player sees the whole table."""
    return to_json(state)
