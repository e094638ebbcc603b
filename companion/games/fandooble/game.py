"""Fandooble behind the one game interface (:class:`companion.games.Game`)."""

from __future__ import annotations

from types import MappingProxyType

from companion.games import Game, PictureDice, Signal

from . import rules
from .moves import Bank, Roll, Steal, parse_move
from .state import DRAGON_FACES, FACE_ORDER, SPECIAL_FACES, Dice, data, face_name


def faces_option(taught: dict[str, str]) -> str | None:
    """The ``faces`` option (``CCGGRR/FFKKWW``) from taught dice ``{name: faces}``.

    None unless both types of die are taught and the dice of one type agree (the three
    Dragon/Treasure dice are alike: teaching one is enough).
    """
    spelled = {"".join(sorted(f, key=FACE_ORDER.index)) for f in taught.values() if f and set(f) <= set(FACE_ORDER)}
    dragon = [f for f in spelled if set(f) <= set(DRAGON_FACES)]
    special = [f for f in spelled if set(f) <= set(SPECIAL_FACES)]
    if len(dragon) != 1 or len(special) != 1:
        return None
    return f"{dragon[0]}/{special[0]}"


class Fandooble(Game):
    NAME = rules.NAME
    TITLE = rules.TITLE
    OPTIONS = MappingProxyType(rules.OPTIONS)
    PLAYERS = (2, 6)
    CAMERA = "dice"
    DICE = PictureDice({"dragon": DRAGON_FACES, "special": SPECIAL_FACES}, {f: face_name(f) for f in FACE_ORDER},
                       labels={die: data()["dice"][die]["name"] for die in ("dragon", "special")},
                       usual={"dragon": Dice.default().dragon, "special": Dice.default().special})
    # A bust costs the roller the loot; a wipe (three red dragons) costs the stash too: nobody may miss it.
    SIGNALS = {"bust": "setback", "wipe": "disaster"}

    setup = staticmethod(rules.setup)
    parse_move = staticmethod(parse_move)
    why_illegal = staticmethod(rules.why_illegal)
    apply = staticmethod(rules.apply)
    outcome = staticmethod(rules.outcome)
    legal_moves = staticmethod(rules.legal_moves)
    random_chance = staticmethod(rules.random_chance)
    to_json = staticmethod(rules.to_json)

    def dice_option(self, taught):
        faces = faces_option(dict(taught))
        return {"faces": faces} if faces else {}

    def to_act(self, state) -> tuple[str, ...]:
        return () if state.over else (state.player,)

    def player_view(self, state, viewer):
        return rules.player_view(state, viewer)

    def mover(self, state, move):
        if isinstance(move, Roll) and move.player is None:
            return None  # dice read by the camera or typed by anyone at the table
        return move.player or (None if state.over else state.player)

    def deciding(self, state) -> tuple[str, ...]:
        return (state.player,) if rules.awaiting_decision(state) else ()

    def end_turn_move(self, state):
        return rules.end_turn_move(state)

    def seat_choice_move(self, state, chooser: str, chosen: str):
        if chooser in self.deciding(state) and chosen != chooser:
            return Steal(chosen)
        return None

    def signal(self, before, after, move):
        if isinstance(move, Roll) and after.last_event in self.SIGNALS:
            return Signal(after.last_event, (before.player,))
        return None


GAME = Fandooble()

__all__ = ["Fandooble", "GAME", "Bank", "Roll", "Steal"]
