"""The Grimm Forest for 2-4 players (shared/seeds/004_afc2f8f2d9ea9f9a.txt): rounds of secret collection,
the sharing arithmetic, building, Friends, Grimm fables (Fable cards), First Builders and the tie-breaks.

Named ``grimm`` so it never meets Fabled Fruit's ``fable``. The companion knows which Fable cards a
player holds only by their number; a Fable's effect is entered when it is revealed (a monster on a
location, or another card recorded as the players say). Move notation (one line each):

``prince wood``                       two players: the Prince Regal's die (the table)
``gather Anne forest`` / ``gather Anne fable market``   the secret collection card (and a Fable on it)
``fable Anne monster brickyard`` / ``fable Anne other Share the Wealth: ...``
``friend Anne take straw straw`` / ``friend Anne pass``          Cinderella, after the reveal
``friend Anne frog cinderella gain wood``                        the Frog Prince, not alone
``draft Anne brick``                  a shared Market, one token at a time in turn order
``draw Anne fable`` · ``gain Anne wood`` · ``build Anne floor straw``
``build Anne walls straw friend frog-prince [to Paul]``
``build Anne roof straw reward resources|fables|friend NAME [to Paul]`` (the first roof of its type)
``special Anne fables`` / ``special Anne resources wood brick`` / ``special Anne other ...``
``cleanup fields 4 forest 3 brickyard 5``   the table: the mega-resource tokens laid

>>> from companion.games import grimm as g
>>> s = g.setup(["Anne", "Paul", "Rachel"])
>>> g.GAME.to_act(s)
('Anne', 'Paul', 'Rachel')
>>> s = g.apply(s, g.parse_move("gather Anne forest"))
>>> g.GAME.public_text(g.parse_move("gather Anne forest"), s, s)
'Anne chose a collection card'
"""

from .game import GAME, GrimmForest
from .moves import (Build, Cleanup, Draft, Draw, Fable, FriendGot, FriendUse, Gain, Gather, Move, Prince, Special,
                    parse_move)
from .rules import FLOW, NAME, OPTIONS, TITLE, apply, end_check, outcome, setup, to_act, tokens, why_illegal
from .sim import legal_moves, play_random_game, random_chance, random_move
from .state import RESOURCES, Seat, Split, State
from .view import player_view, public_text, scramble_secrets, to_json

__all__ = [
    "GAME", "GrimmForest", "NAME", "TITLE", "OPTIONS", "FLOW", "State", "Seat", "Split", "RESOURCES", "Move",
    "Prince", "Gather", "Fable", "FriendUse", "FriendGot", "Draft", "Draw", "Gain", "Build", "Special", "Cleanup",
    "parse_move", "setup", "apply", "why_illegal", "outcome", "to_act", "end_check", "tokens", "legal_moves",
    "random_chance", "random_move", "play_random_game", "player_view", "public_text", "scramble_secrets", "to_json",
]
