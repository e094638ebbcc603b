"""Fabled Fruit behind the one game interface (:class:`companion.games.Game`)."""

from __future__ import annotations

import random
from dataclasses import replace
from types import MappingProxyType

from companion.games import Game

from . import cardtable, rules, sim, view
from .fruits import Fruits
from .moves import Draw, parse_move
from .state import DRAW


class FabledFruit(Game):
    NAME = rules.NAME
    TITLE = rules.TITLE
    OPTIONS = MappingProxyType(rules.OPTIONS)
    PLAYERS = (2, 5)
    CARDS = cardtable
    CAMERA = "cards"

    setup = staticmethod(rules.setup)
    parse_move = staticmethod(parse_move)
    why_illegal = staticmethod(rules.why_illegal)
    apply = staticmethod(rules.apply)
    outcome = staticmethod(rules.outcome)
    legal_moves = staticmethod(sim.legal_moves)
    random_chance = staticmethod(sim.random_chance)
    to_json = staticmethod(view.to_json)

    def to_act(self, state) -> tuple[str, ...]:
        # After a juice the game waits for the table: the deck's top card is drawn (the camera sees it).
        return () if state.over or state.phase == DRAW else (state.player,)

    def current_player(self, state):
        """Whose turn it is, also while the deck's card is being drawn after their juice."""
        return rules.current_player(state)

    def mover(self, state, move):
        if isinstance(move, Draw):
            return None  # the deck's top card: the table's, whoever lays it out
        return move.player or rules.current_player(state)

    def player_view(self, state, viewer):
        return view.player_view(state, viewer)

    def scramble_secrets(self, state, viewer, rng: random.Random):
        """The fruit kinds in other players' hands and in the face-down fruit stack dealt again."""
        me = state.seat(viewer) if viewer is not None else None
        hidden = [i for i in range(len(state.players)) if i != me]
        zones = [state.hands[i] for i in hidden] + [state.pile]
        pool = [k for zone in zones for k, n in enumerate(zone.known) for _ in range(n)]
        rng.shuffle(pool)
        dealt = []
        for zone in zones:
            take, pool = pool[:sum(zone.known)], pool[sum(zone.known):]
            counts = [0] * len(state.kinds)
            for k in take:
                counts[k] += 1
            dealt.append(Fruits(tuple(counts), zone.unknown))
        hands = list(state.hands)
        for i, zone in zip(hidden, dealt):
            hands[i] = zone
        return replace(state, hands=tuple(hands), pile=dealt[-1])


GAME = FabledFruit()
