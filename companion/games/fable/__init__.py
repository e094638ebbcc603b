"""Fabled Fruit: the legacy fruit-juice game for 2-5 players (shared/seeds/000_1522af4a5ffdc56e.txt).

Move notation (one line each; the dashboard log shows it; a player's name after the
verb is optional and, when given, must be the player whose turn it is):

``move Anne 4``
    Anne's animal goes to location 4. Every other animal already there gets one fruit
    from her hand, of unknown kind. ``move Anne 4 pay Paul`` names who gets a fruit (needed
    when she holds fewer fruits than there are animals); ``pay Paul banana, Rachel grapes``
    also names the kinds; ``pay nobody`` when her hand is empty.
``action Rachel draw coconut grapes``
    Use the location's action. Clauses list what moved: ``draw FRUITS`` (from the fruit
    stack), ``discard FRUITS``, ``give NAME FRUITS``, ``take NAME FRUITS``, ``deal NAME FRUITS``
    (from the stack to NAME). Location 1: ``action draw 2 fruits`` (plain ``action`` draws 2
    of unknown kind). Location 2: ``action give Paul banana take Paul 2 fruits``, or with no
    banana the signpost ``action draw 1 fruit``. Location 3: ``action draw 1 take Paul 3 give Paul 3``.
    A location whose action is not known yet takes whatever changes the players enter.
``buy Camille 3 pay 3 grapes banana``
    Buy the juice of the location the animal stands on: pay, and take a card of that stack.
    ``buy 3:1`` names the card taken (as the camera sees it); without ``pay`` the price's
    number of fruits of unknown kind is paid (only when the price is known).
    ``buy Camille 4 price 3 grapes + 1 smoothie``: a price the table does not know yet, read
    from the card by the buyer; the payment is checked against it, and the game knows it from then on.
``draw 7:1``
    After a juice: the deck's top card goes onto its stack or starts a new one. The deck is
    never shuffled, so ``draw`` alone means the top card and a named card is checked against it.
``pass Anne``
    Only when no location but the animal's own is left on display.

Fruit lists: ``3 grapes banana``, ``2 fruits`` (unknown kinds), ``4`` (= 4 fruits), ``nothing``.
Cards: ``7:2`` is location 7, copy 2 (the tag ``FF:07:2``).

>>> from companion.games import fable as g
>>> s = g.setup(["Anne", "Paul"])
>>> s = g.apply(s, g.parse_move("move Anne 1"))
>>> s = g.apply(s, g.parse_move("action Anne draw 2"))
>>> s.hands[0].total, s.player
(4, 'Paul')
"""

from .cards import Card, Location, Price, Table, format_cards, parse_card, parse_cards
from .fruits import FruitList, Fruits
from .moves import Action, Buy, Clause, Draw, Move, MoveAnimal, Pass, Payment, parse_move
from .rules import (
    NAME,
    OPTIONS,
    TITLE,
    accounting_problems,
    apply,
    check_names,
    current_player,
    losers,
    outcome,
    session_scores,
    setup,
    why_illegal,
)
from .sim import legal_moves, play_random_game, random_chance, random_deal, random_move
from .state import Stack, State
from .view import components_needed, player_view, to_json
from . import cardtable as CARDS
from .game import GAME, FabledFruit

__all__ = [
    "NAME", "TITLE", "OPTIONS", "CARDS", "State", "Stack", "Card", "Location", "Price", "Table", "FruitList",
    "Fruits", "Move", "MoveAnimal", "Buy", "Action", "Clause", "Draw", "Pass", "Payment", "parse_move",
    "parse_card", "parse_cards", "format_cards", "setup", "why_illegal", "apply", "legal_moves", "outcome",
    "current_player", "player_view", "random_chance", "random_move", "random_deal", "play_random_game",
    "to_json", "GAME", "FabledFruit", "check_names", "session_scores", "losers", "accounting_problems", "components_needed",
]
