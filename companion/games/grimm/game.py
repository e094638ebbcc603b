"""The Grimm Forest behind the one game interface (:class:`companion.games.Game`)."""

from __future__ import annotations

import random
from types import MappingProxyType

from companion.games import Game, Signal

from . import rules, sim, view
from .moves import Build, parse_move


class GrimmForest(Game):
    NAME = rules.NAME
    TITLE = rules.TITLE
    OPTIONS = MappingProxyType(rules.OPTIONS)
    PLAYERS = (2, 4)
    # Every pick revealed at once is worth a look; a finished house is good news for its builder.
    SIGNALS = {"reveal": "cheer", "house": "cheer"}

    setup = staticmethod(rules.setup)
    parse_move = staticmethod(parse_move)
    why_illegal = staticmethod(rules.why_illegal)
    apply = staticmethod(rules.apply)
    outcome = staticmethod(rules.outcome)
    to_act = staticmethod(rules.to_act)
    deciding = staticmethod(rules.deciding)
    legal_moves = staticmethod(sim.legal_moves)
    random_chance = staticmethod(sim.random_chance)
    to_json = staticmethod(view.to_json)

    def player_view(self, state, viewer):
        return view.player_view(state, viewer)

    def mover(self, state, move):
        return move.player

    def public_text(self, move, after, now):
        return view.public_text(move, after, now)

    def scramble_secrets(self, state, viewer, rng: random.Random):
        return view.scramble_secrets(state, viewer, rng)

    def signal(self, before, after, move):
        if after.revealed_rounds > before.revealed_rounds:
            return Signal("reveal", after.players)
        if isinstance(move, Build) and move.part == "roof" and after.result is None:
            return Signal("house", (move.player,))
        return None


GAME = GrimmForest()
