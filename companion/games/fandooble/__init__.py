"""Fandooble: push-your-luck dice for 2-6 players (shared/seeds/003_f4de6afecb524eb6.txt).

>>> from companion.games import fandooble as g
>>> s = g.setup(["Lola", "Grace"])
>>> s = g.apply(s, g.parse_move("roll CCGF"))
>>> s.loot, s.dragons, s.stashes
(3, 'G', (10, 9))
"""

from .moves import Bank, Move, Roll, Steal, parse_move
from .rules import (
    NAME,
    OPTIONS,
    TITLE,
    apply,
    awaiting_decision,
    end_turn_move,
    current_player,
    legal_moves,
    outcome,
    player_view,
    random_chance,
    setup,
    to_json,
    why_illegal,
)
from .state import Dice, State
from .game import GAME, Fandooble

__all__ = [
    "NAME", "TITLE", "OPTIONS", "State", "Dice", "Move", "Roll", "Steal", "Bank", "parse_move",
    "setup", "why_illegal", "apply", "legal_moves", "outcome", "current_player", "player_view",
    "random_chance", "to_json", "awaiting_decision", "end_turn_move", "GAME", "Fandooble",
]
