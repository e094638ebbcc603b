"""Bable: the cooperative tower of words for 2-5 players (shared/seeds/002_e4a135fcf562d181.txt).

The physical cards stay the truth for the words: the companion never knows a word,
only the command symbols. It keeps the Idea-deck clock, the tower, the supplies and
the rules honest. Move notation (one line each; every move names its player):

``deal Anne stone stone wood word give B3``
    Setup, each player on their own phone: the three resources dealt face up, the
    symbol of the dealt Word card (it replaces the starting card with that symbol)
    and the dealt Building card (``B?`` for one whose facts were never entered).
``command Anne Paul``
    An action of the overseer Anne: she speaks a word to Paul, who answers next.
``reveal Anne word build`` / ``reveal Anne B3``
    The overseer's other action: show a Word card, or turn a Building card face up.
``answer Paul no``
    Paul has no card with that word (advanced game: he draws a Confusion card next).
``answer Paul build B3 pay stone stone wood`` (or ``build nothing``)
``answer Paul gather stone wood``  (the two resources drawn, in order)
``answer Paul give stone wood to Anne, B3 to Rachel`` (up to three cards)
``answer Paul reveal word gather, B3`` (up to two cards)
``discard Paul stone``
    Down to 7 resources after a Gather, a Give or a Confusion card, the player's choice.
``confusion Paul EFFECT ...``
    The Confusion card drawn and how it was carried out: ``return-building B3``,
    ``discard-resources stone wood``, ``redraw-word give``, ``buildings-left``,
    ``resources-right``, ``drop-word build``, ``words-down``.
``idea Anne word gather`` / ``idea Anne B7`` (``B?``)
    The Idea card ending the overseer's turn, from the lowest deck that has cards.
``pass Anne``
    Only when the overseer has nothing to reveal and nobody may be commanded.

>>> from companion.games import bable as g
>>> s = g.setup(["Anne", "Paul"])
>>> s = g.apply(s, g.parse_move("deal Anne stone stone wood word give B?"))
>>> s = g.apply(s, g.parse_move("deal Paul cement tools wood word build B?"))
>>> s = g.apply(s, g.parse_move("command Anne Paul"))
>>> g.GAME.to_act(s)
('Paul',)
"""

from . import cardtable as CARDS
from .cards import BuildingCard, Facts
from .moves import (AnswerBuild, AnswerGather, AnswerGive, AnswerNo, AnswerReveal, Command, Confusion, Deal, Discard,
                    Idea, Move, Pass, Reveal, parse_move)
from .rules import NAME, OPTIONS, TITLE, apply, outcome, setup, to_act, why_illegal
from .sim import play_random_game, random_chance, random_move
from .state import Building, IdeaDeck, Pile, Seat, State
from .view import clock, player_view, public_text, scramble_secrets, to_json
from .game import GAME, Bable

__all__ = [
    "NAME", "TITLE", "OPTIONS", "CARDS", "GAME", "Bable", "State", "Seat", "Building", "IdeaDeck", "Pile", "Facts",
    "BuildingCard", "Move", "Deal", "Command", "Reveal", "Pass", "AnswerNo", "AnswerBuild", "AnswerGather",
    "AnswerGive", "AnswerReveal", "Discard", "Confusion", "Idea", "parse_move", "setup", "apply", "why_illegal",
    "outcome", "to_act", "random_move", "random_chance", "play_random_game", "player_view", "public_text",
    "scramble_secrets", "to_json", "clock",
]
