"""A toy game for the platform's tests: a hidden hand and a simultaneous secret pick.

Each round the table deals every player three cards (numbers 1-9, a chance move:
``deal Anne 3 7 9``), then every player secretly picks one card of their hand at the
same time (``pick Anne 7``; the log shows others "Anne chose a card"). When the last
player has picked, the picks are revealed: the highest card scores a point (ties
score for everyone tied), the picked cards are discarded and the next round deals.
After ``rounds`` rounds the most points win.

It is registered by the tests that need it (``games.register(TOY)``), never shipped.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from companion.errors import IllegalMove, InvalidMove
from companion.games import Game, Outcome, check_players

HAND = 3


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    rounds: int
    round: int = 1
    hands: tuple[tuple[int, ...], ...] = ()
    picks: tuple[int | None, ...] = ()
    revealed: tuple[tuple[int, ...], ...] = ()  # each finished round's picks, in seat order
    points: tuple[int, ...] = ()

    def seat(self, name: str | None) -> int | None:
        return self.players.index(name) if name in self.players else None

    @property
    def dealing(self) -> bool:
        return any(len(h) == 0 for h in self.hands)

    @property
    def over(self) -> bool:
        return self.round > self.rounds


@dataclass(frozen=True)
class Deal:
    player: str
    cards: tuple[int, ...]

    def to_text(self) -> str:
        return f"deal {self.player} {' '.join(map(str, self.cards))}"


@dataclass(frozen=True)
class Pick:
    player: str
    card: int

    def to_text(self) -> str:
        return f"pick {self.player} {self.card}"


class ToyGame(Game):
    NAME = "toy"
    TITLE = "Toy secrets"
    OPTIONS = {"rounds": "rounds to play"}
    PLAYERS = (2, 4)

    def setup(self, players, options=None):
        players = check_players(players, minimum=2, maximum=4, game=self.TITLE)
        rounds = int((options or {}).get("rounds", 3))
        n = len(players)
        return State(players, rounds, hands=((),) * n, picks=(None,) * n, points=(0,) * n)

    def parse_move(self, text):
        words = text.split()
        try:
            if words[0] == "deal" and len(words) == 2 + HAND:
                return Deal(words[1], tuple(int(w) for w in words[2:]))
            if words[0] == "pick" and len(words) == 3:
                return Pick(words[1], int(words[2]))
        except (ValueError, IndexError):
            pass
        raise InvalidMove(f"'{text}': expected 'deal NAME A B C' or 'pick NAME CARD'")

    def why_illegal(self, state, move):
        if state.over:
            return "the game is over"
        seat = state.seat(move.player)
        if seat is None:
            return f"nobody called '{move.player}' plays"
        if isinstance(move, Deal):
            if state.hands[seat]:
                return f"{move.player} already holds a hand"
            if not all(1 <= c <= 9 for c in move.cards):
                return "cards are numbered 1 to 9"
            return None
        if state.dealing:
            return "the cards are being dealt"
        if state.picks[seat] is not None:
            return f"{move.player} has already picked a card this round"
        if move.card not in state.hands[seat]:
            return f"{move.player} holds no {move.card}"
        return None

    def apply(self, state, move):
        reason = self.why_illegal(state, move)
        if reason:
            raise IllegalMove(f"{move.player} cannot {move.to_text()}: {reason}")
        seat = state.seat(move.player)
        if isinstance(move, Deal):
            return replace(state, hands=_put(state.hands, seat, tuple(sorted(move.cards))))
        picks = _put(state.picks, seat, move.card)
        if any(p is None for p in picks):
            return replace(state, picks=picks)
        best = max(picks)
        points = tuple(p + (1 if c == best else 0) for p, c in zip(state.points, picks))
        n = len(state.players)
        return replace(state, picks=(None,) * n, hands=((),) * n, points=points, round=state.round + 1,
                       revealed=state.revealed + (tuple(picks),))

    def outcome(self, state):
        if not state.over:
            return None
        best = max(state.points)
        return Outcome(tuple(p for p, s in zip(state.players, state.points) if s == best), "most points")

    def to_act(self, state):
        if state.over or state.dealing:
            return ()
        return tuple(p for p, c in zip(state.players, state.picks) if c is None)

    def mover(self, state, move):
        return None if isinstance(move, Deal) else move.player

    def deciding(self, state):
        return self.to_act(state)

    def legal_moves(self, state):
        if state.over or state.dealing:
            return []
        return [Pick(p, c) for i, p in enumerate(state.players) if state.picks[i] is None for c in state.hands[i]]

    def random_chance(self, state, rng):
        for i, p in enumerate(state.players):
            if not state.hands[i] and not state.over:
                return Deal(p, tuple(rng.randint(1, 9) for _ in range(HAND)))
        return None

    def to_json(self, state):
        return {"players": [{"name": p, "hand": list(h), "pick": c, "points": s}
                            for p, h, c, s in zip(state.players, state.hands, state.picks, state.points)],
                "round": state.round, "revealed": [list(r) for r in state.revealed]}

    def player_view(self, state, viewer):
        view = self.to_json(state)
        for entry in view["players"]:
            if entry["name"] != viewer:
                entry["hand"] = len(entry["hand"])
                entry["pick"] = None if entry["pick"] is None else "chosen"
        return view

    def public_text(self, move, after, now):
        if isinstance(move, Deal):
            return f"{move.player} was dealt {HAND} cards"
        pending = after.picks[after.seat(move.player)] is not None  # not the pick that revealed them all
        return f"{move.player} chose a card" if pending and now.round == after.round else None

    def scramble_secrets(self, state, viewer, rng: random.Random):
        me = state.seat(viewer)
        hands, picks = list(state.hands), list(state.picks)
        for i in range(len(state.players)):
            if i == me or not hands[i]:
                continue
            hands[i] = tuple(sorted(rng.randint(1, 9) for _ in hands[i]))
            if picks[i] is not None:
                picks[i] = rng.choice(hands[i])
        return replace(state, hands=tuple(hands), picks=tuple(picks))


class LeakyView(ToyGame):
    """A must-fail twin: the shared screen and other seats see how many of each card a hand holds."""

    NAME = "toy_leaky_view"

    def player_view(self, state, viewer):
        view = super().player_view(state, viewer)
        for entry, hand in zip(view["players"], state.hands):
            entry["hand_total"] = sum(hand)
        return view


class LeakyLog(ToyGame):
    """A must-fail twin: a secret pick is shown to everybody in the log."""

    NAME = "toy_leaky_log"

    def public_text(self, move, after, now):
        return None


def _put(values: tuple, index: int, value) -> tuple:
    return values[:index] + (value,) + values[index + 1:]


TOY = ToyGame()
