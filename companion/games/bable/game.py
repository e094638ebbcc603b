"""Bable behind the one game interface (:class:`companion.games.Game`)."""

from __future__ import annotations

import random
from types import MappingProxyType

from companion.games import Game, Signal

from . import cardtable, rules, sim, view
from .moves import AnswerNo, parse_move


class Bable(Game):
    NAME = rules.NAME
    TITLE = rules.TITLE
    OPTIONS = MappingProxyType(rules.OPTIONS)
    PLAYERS = (2, 5)
    CARDS = cardtable
    COOPERATIVE = True
    # A head shake in the advanced game costs a Confusion card; a finished layer is good news for everyone.
    SIGNALS = {"confused": "setback", "layer": "cheer"}

    setup = staticmethod(rules.setup)
    parse_move = staticmethod(parse_move)
    why_illegal = staticmethod(rules.why_illegal)
    apply = staticmethod(rules.apply)
    outcome = staticmethod(rules.outcome)
    to_act = staticmethod(rules.to_act)
    deciding = staticmethod(rules.deciding)
    random_chance = staticmethod(sim.random_chance)
    legal_moves = staticmethod(sim.legal_moves)
    to_json = staticmethod(view.to_json)

    def player_view(self, state, viewer):
        return view.player_view(state, viewer)

    def current_player(self, state):
        """The overseer, also while another player answers their command (their seat stays lit)."""
        return rules.overseer(state)

    def mover(self, state, move):
        return move.player

    def public_text(self, move, after, now):
        return view.public_text(move, after, now)

    def scramble_secrets(self, state, viewer, rng: random.Random):
        return view.scramble_secrets(state, viewer, rng)

    def signal(self, before, after, move):
        if isinstance(move, AnswerNo) and after.confused is not None:
            return Signal("confused", (move.player,))
        finished = [k for k in range(len(after.layer_sizes())) if after.layer_done(k) and not before.layer_done(k)]
        if finished and after.result is None:
            return Signal("layer", after.players)
        return None


GAME = Bable()
