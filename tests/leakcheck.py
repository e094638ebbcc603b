"""The generic leak checker: nothing private to one seat reaches another seat's phone or the table screen.

Used by the tests of every game. Two checks, both on states reached by random play:

* **The views** (:func:`check_views`): each game declares what is private to whom by
  ``scramble_secrets(state, viewer, rng)``, the same state with everything ``viewer`` may
  not see drawn again at random. ``player_view(state, viewer)`` must not tell the
  difference: whatever it shows does not depend on what the viewer may not know.
* **Everything sent** (:func:`check_game_night`): a game is played through a real
  runtime; after every move each viewer's snapshot (the state API and the page's first
  paint), its log, its legal moves, its history series and the event stream's patches
  are searched for the private text of every secret move another player made that the
  game has not revealed yet.

Both raise :class:`LeakFound` naming the game, the viewer and what leaked.
"""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

from companion import games
from companion.config import Config
from companion.eventlog import EventLog
from companion.runtime import Runtime
from web import patch
from web.history import game_series


class LeakFound(AssertionError):
    """Raised when a viewer is sent something private to someone else."""


def random_states(game: games.Game, players: list[str], options: dict | None, rng: random.Random, *,
                  moves: int = 60) -> Iterator[tuple[Any, list[Any]]]:
    """States of one random game (with the moves that led there): chance from ``random_chance``,
    choices from ``legal_moves``. Stops at the end, or where nothing can be listed."""
    state = game.setup(players, options or {})
    played: list[Any] = []
    yield state, list(played)
    for _ in range(moves):
        if game.outcome(state) is not None:
            return
        move = _next_move(game, state, rng)
        if move is None:
            return
        state = game.apply(state, move)
        played.append(move)
        yield state, list(played)


def _next_move(game: games.Game, state, rng: random.Random):
    chance = game.random_chance(state, rng)
    acting = game.to_act(state)
    if chance is not None and (not acting or rng.random() < 0.3):
        return chance
    listed = game.legal_moves(state) or []
    if listed:
        return rng.choice(listed)
    return chance


def viewers(players: list[str]) -> list[str | None]:
    return [None, *players]


def check_views(game: games.Game, players: list[str], options: dict | None = None, *, games_played: int = 20,
                seed: int = 0, tries: int = 3) -> int:
    """Play ``games_played`` random games; at every state, for the shared view and each seat, the view of
    ``tries`` scrambled twins must equal the view of the state. Returns how many twins differed from
    their state at all (0 for a game without secrets; a game with secrets must make some)."""
    rng = random.Random(seed)
    differed = 0
    for _ in range(games_played):
        for state, moves in random_states(game, players, options, rng):
            for viewer in viewers(players):
                seen = _canonical(game.player_view(state, viewer))
                for _ in range(tries):
                    twin = game.scramble_secrets(state, viewer, rng)
                    if twin != state:
                        differed += 1
                    if _canonical(game.player_view(twin, viewer)) != seen:
                        raise LeakFound(
                            f"{game.NAME}: {_who(viewer)} can tell apart two states that differ only in what "
                            f"{_who(viewer)} may not see (after {' / '.join(m.to_text() for m in moves) or 'setup'})")
    return differed


def check_game_night(game: games.Game, players: list[str], options: dict | None = None, *, seed: int = 0,
                     moves: int = 80, claim: bool = True) -> int:
    """Play one random game through a runtime (with every seat claimed by a phone when ``claim``) and
    search everything each viewer is sent for other players' unrevealed secret moves. Returns how
    many secret moves were checked while still secret."""
    rng = random.Random(seed)
    registered = game.NAME not in games.names()
    if registered:
        games.register(game)
    try:
        with EventLog(":memory:") as log:
            runtime = Runtime(Config.defaults(), log)
            runtime.new_game(game.NAME, players, options or {})
            session = runtime.session
            if claim:
                for player in players:
                    runtime.claim_seat(player, f"phone-of-{player}", source="dashboard")
            last: dict[str | None, dict] = {v: runtime.snapshot(v) for v in viewers(players)}
            checked = 0
            for _ in range(moves):
                if session.outcome() is not None:
                    break
                move = _next_move(game, session.state, rng)
                if move is None:
                    break
                runtime.play(move.to_text(), source="dashboard")
                checked += _check_sent(game, runtime, players, last)
            return checked
    finally:
        if registered:
            games.unregister(game.NAME)


def _check_sent(game: games.Game, runtime: Runtime, players: list[str], last: dict) -> int:
    session = runtime.session
    now = session.state
    secrets = []  # (owner, event id, private text) of every secret move not yet revealed
    revealed = set()  # texts anyone may read (the same words may be secret again in a later round)
    played = session.played
    for i, step in enumerate(played):
        if game.public_text(step.move, step.after, now) is not None:
            secrets.append((step.player, step.event_id, step.text, None))
        else:
            revealed.add(step.text)
            for viewer in _cannot_tell(game, session, i, players):
                secrets.append((step.player, step.event_id, step.text, viewer))
    for viewer in viewers(players):
        snapshot = runtime.snapshot(viewer)
        if snapshot["game"]["state"] != json.loads(json.dumps(game.player_view(now, viewer))):
            raise LeakFound(f"{game.NAME}: the state sent to {_who(viewer)} is not the game's view for them")
        log = {entry["event_id"]: entry for entry in snapshot["game"]["log"]}
        sent = {
            "snapshot": {k: v for k, v in snapshot.items() if k != "game"},
            "game": {k: v for k, v in snapshot["game"].items() if k != "log"},
            "patch": patch.diff(last[viewer], snapshot),
            "legal": [m.to_text() for m in session.legal_moves(viewer) or []],
            "history": game_series(session, viewer),
        }
        last[viewer] = snapshot
        for owner, event_id, private, only in secrets:
            if owner == viewer or (only is not None and only != viewer):
                continue
            if event_id in log and private in json.dumps(log[event_id], ensure_ascii=False):
                raise LeakFound(f"{game.NAME}: {_who(viewer)}'s log shows {_whose(owner)} secret move '{private}' "
                                "before the game revealed it")
            if private in revealed:
                continue  # the same words were a move everyone saw: they cannot be told apart here
            for part, value in sent.items():
                if private in json.dumps(value, ensure_ascii=False):
                    raise LeakFound(f"{game.NAME}: {_who(viewer)}'s {part} shows {_whose(owner)} secret move "
                                    f"'{private}' before the game revealed it")
    return len(secrets)


def _cannot_tell(game: games.Game, session, index: int, players: list[str], alternatives: int = 3) -> list:
    """The viewers who could not tell from what they saw right after it, and still cannot from what
    they see now (the rest of the game replayed after it), whether the move at ``index`` or another
    one its player could have made instead was played: the move is a secret for them, whatever the
    game's ``public_text`` says."""
    played = session.played
    step = played[index]
    before = played[index - 1].after if index else session.initial
    rng = random.Random(index)
    chances = [m for m in (game.random_chance(before, rng) for _ in range(8)) if m is not None]
    if step.player is None:
        others = {m.to_text(): m for m in chances}
    else:
        # A player's choices, and the cards they could have drawn (a draw that names its drawer).
        others = {m.to_text(): m for m in (game.legal_moves(before) or []) + chances
                  if game.mover(before, m) == step.player}
    others.pop(step.text, None)
    blind = set()
    for other in list(others.values())[:alternatives]:
        try:
            then = state = game.apply(before, other)
            for p in played[index + 1:]:
                state = game.apply(state, p.move)
        except ValueError:
            continue  # the rest of the game could not have followed: the move shows in what came after
        for viewer in viewers(players):
            if viewer != step.player and _same_view(game, viewer, then, step.after) \
                    and _same_view(game, viewer, state, session.state):
                blind.add(viewer)
    return sorted(blind, key=lambda v: (v is not None, v or ""))


def _same_view(game: games.Game, viewer, one, other) -> bool:
    return _canonical(game.player_view(one, viewer)) == _canonical(game.player_view(other, viewer))


def _whose(owner: str | None) -> str:
    return "the table's" if owner is None else f"{owner}'s"


def _who(viewer: str | None) -> str:
    return "the table screen" if viewer is None else f"{viewer}'s phone"


def _canonical(view: Any) -> str:
    return json.dumps(view, sort_keys=True, ensure_ascii=False, default=str)
