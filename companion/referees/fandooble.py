"""The Fandooble referee: a still tray after a roll becomes a ``roll`` move, or an alert for a person.

It knows which dice the player had to throw. The engine's uncountered dragons stay on
the table (``State.dragons``); every other die is thrown: the free Dragon/Treasure dice
and always the one Fandooble/Knight/Wizard die. So the tray after a roll must hold the
dragons that were lying there, where they lay, plus exactly the thrown dice.

The observation is :class:`vision.roll.DiceObservation` (duck-typed here: ``dice``, each
with ``face``, ``confidence``, ``box_px``, ``position_mm``, ``reason``; and ``die_px``).
Faces are Fandooble's letters (taught faces or ArUco face tables name them ``C G R F K W``).

Verdicts:

* :class:`Apply` ``roll FACES`` (the new faces only) when everything matches;
* :class:`Alert` naming what was expected and what was seen when it does not: too many or
  too few dice, a die that cannot be read, a dragon that moved, a face the dice do not
  have, a reading the reader was unsure of. The alert proposes the move only when the
  dice say it without doubt (a dragon merely nudged, an unsure but consistent reading),
  or when every die that could not be read lies flat with a face it looks most like (its
  ``guess``) and those faces make a roll the rules allow: a person accepts it with one tap
  instead of entering the whole roll by hand. A guess is never applied by itself.

A tray that shows the same dice at the same places as the last reading (a hand passed
over, the table was bumped) is ignored. The referee never applies ``steal`` or ``bank``:
those come from the dashboard and the seat buttons.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from companion.games.fandooble.moves import Roll
from companion.games.fandooble.state import DRAGON_FACES, FACE_ORDER, SPECIAL_FACES, face_name
from companion.referees import Alert, Apply

MIN_CONFIDENCE = 0.5
SAME_PLACE_MM = 12.0  # a dragon that stayed put: its centre moved less than this (a die is 16 mm)
SAME_PLACE_DIE_SIDES = 0.6  # the same, in die sides, when the table geometry is unknown


def make_referee(config: Any = None, min_confidence: float = MIN_CONFIDENCE, **_ignored) -> "FandoobleReferee":
    return FandoobleReferee(min_confidence=min_confidence)


def _among(die, dice) -> bool:
    return any(die is d for d in dice)


def _remedy(unreadable) -> str:
    """What the players can do about dice the camera could not read, by why it could not: a leaning die is
    straightened, one on the tray's edge pushed in; a die lying flat whose face was unclear is nudged, the
    same face up, for the camera to see it better (a lamp's glare, a shadow)."""
    remedies = []
    for die in unreadable:
        remedy = ("straighten the die" if "not lying flat" in die.reason else
                  "push the die into the tray" if "out of the tray" in die.reason else
                  "nudge the die (the same face up) so the camera sees its face")
        if remedy not in remedies:
            remedies.append(remedy)
    return "; ".join(remedies)


def _names(faces) -> str:
    faces = [f for f in faces]
    if not faces:
        return "nothing"
    return ", ".join(face_name(f) if f in FACE_ORDER else repr(f) for f in faces)


class FandoobleReferee:
    def __init__(self, min_confidence: float = MIN_CONFIDENCE):
        self.min_confidence = min_confidence
        # Where the dragons lay after each roll, keyed by the state that roll led to.
        self._dragon_places: dict[tuple, list[tuple[str, Any]]] = {}
        self._last_seen: list[tuple[str | None, Any]] | None = None
        self._last_die_px = 0.0

    # -- the verdict -----------------------------------------------------------------

    def observe(self, session: Any, observation: Any) -> list:
        state = session.state
        dice = list(observation.dice)
        die_px = float(getattr(observation, "die_px", 0.0) or self._last_die_px or 20.0)
        seen = [(d.face, self._place(d)) for d in dice]
        if self._same_as_last(seen, die_px):
            return []
        self._last_die_px = die_px
        verdicts = self._verdicts(session, state, observation, dice, die_px)
        if any(isinstance(v, Apply) or v.move for v in verdicts):
            self._last_seen = seen  # these dice are used: seeing them again is no new roll
        return verdicts

    def _verdicts(self, session, state, observation, dice, die_px) -> list:
        if state.over:
            return []
        who = state.player
        if state.pending_steals:
            return [Alert(f"{who} rolled, but must first choose whom the Fandooble steals from "
                          "(on the dashboard or with a seat button); the dice were not read as a roll",
                          payload=self._payload(observation))]
        held = state.dragons
        throw = state.dragon_dice_to_throw()
        expected = (f"{len(held) + throw + 1} dice: {_names(held)} lying there and {throw + 1} thrown"
                    if held else f"{throw + 1} dice thrown")
        unreadable = [d for d in dice if d.face is None]
        if unreadable:
            why = "; ".join(sorted({d.reason or "unclear" for d in unreadable}))
            refusal = Alert(f"expected {expected}; saw {len(dice)}, of which {len(unreadable)} could not be read "
                            f"({why}): {_remedy(unreadable)}, or enter the roll by hand",
                            payload=self._payload(observation))
            if not all(getattr(d, "guess", None) for d in unreadable):
                return [refusal]
            # Every such die lies flat and looks most like some face: propose the roll those faces make, if
            # it is one; any other mismatch is better told about the dice as read than about guesses.
            taken = [replace(d, face=d.guess) if d.face is None else d for d in dice]
            guessed = [t for t, d in zip(taken, dice) if d.face is None]
            verdicts = self._judge(session, state, observation, taken, die_px, expected, guessed)
            return verdicts if any(v.move for v in verdicts) else [refusal]
        return self._judge(session, state, observation, dice, die_px, expected, [])

    def _judge(self, session, state, observation, dice, die_px, expected, guessed) -> list:
        """The verdict on dice that all have a face, ``guessed`` among them being dice that could not be read
        taken for the face they look most like: such a roll is only ever proposed."""
        held, throw = state.dragons, state.dragon_dice_to_throw()
        faces_seen = _names(d.face for d in dice)
        unknown = sorted({d.face for d in dice if d.face not in FACE_ORDER})
        if unknown:
            return [Alert(f"expected {expected}; saw faces that are not Fandooble's ({', '.join(unknown)}): "
                          "are the taught dice in use?", payload=self._payload(observation))]
        if len(dice) != len(held) + throw + 1:
            return [Alert(f"expected {expected}; saw {len(dice)} dice ({faces_seen})",
                          payload=self._payload(observation))]
        new, moved = self._match_held(state, dice, die_px)
        if new is None:
            return [Alert(f"expected {expected}; saw {faces_seen}: the {_names(moved)} that must stay on the "
                          "table is not among them", payload=self._payload(observation))]
        thrown_special = [d for d in new if d.face in SPECIAL_FACES]
        thrown_dragon = [d for d in new if d.face in DRAGON_FACES]
        move = Roll("".join(d.face for d in new)).to_text()
        if len(thrown_special) != 1 or len(thrown_dragon) != throw:
            return [Alert(f"expected {expected}; the thrown dice show {_names(d.face for d in new)}: "
                          f"that is {len(thrown_special)} Fandooble/Knight/Wizard "
                          f"{'die' if len(thrown_special) == 1 else 'dice'} instead of 1",
                          payload=self._payload(observation))]
        reason = session.why_illegal(move)
        if reason is not None:
            return [Alert(f"the camera saw '{move}', but {reason}", payload=self._payload(observation))]
        self._remember(state, session, move, dice)
        unsure = guessed + [d for d in new if d.confidence < self.min_confidence and not _among(d, guessed)]
        detail = ", ".join(f"{face_name(d.face)} (not readable; the face it looks most like)" if _among(d, guessed)
                           else f"{face_name(d.face)} ({d.confidence:.0%})" for d in unsure)
        if moved:
            return [Alert(f"the {_names(moved)} from the last roll moved (a dragon stays where it lay)"
                          + (f"; unsure of {detail}" if guessed else "")
                          + f"; if it was only nudged, accept '{move}'", move=move, payload=self._payload(observation))]
        if unsure:
            return [Alert(f"unsure of the roll: read {detail}; accept '{move}' if that is what lies there",
                          move=move, payload=self._payload(observation))]
        return [Apply(move, payload=self._payload(observation))]

    # -- matching ----------------------------------------------------------------------

    def _match_held(self, state, dice, die_px) -> tuple[list | None, list[str]]:
        """Set aside a die for every dragon lying there: (the thrown dice, dragons that moved).

        Returns (None, missing) when a held dragon's face is not on the table at all.
        """
        places = self._dragon_places.get(self._key(state))
        remaining = list(dice)
        moved: list[str] = []
        for letter in state.dragons:
            candidates = [d for d in remaining if d.face == letter]
            if not candidates:
                return None, [letter]
            spots = [p for f, p in (places or []) if f == letter and p is not None]
            still = [d for d in candidates if any(self._near(self._place(d), s, die_px) for s in spots)]
            if still:
                remaining.remove(still[0])
            else:
                # Without a remembered place (e.g. after a restart) any die with the face will do.
                remaining.remove(candidates[0])
                if spots:
                    moved.append(letter)
        return remaining, moved

    def _remember(self, state, session, move: str, dice) -> None:
        after = session.rules.apply(state, session.rules.parse_move(move))
        if after.dragons:
            self._dragon_places[self._key(after)] = [(d.face, self._place(d)) for d in dice if d.face in "GR"]
        while len(self._dragon_places) > 8:
            self._dragon_places.pop(next(iter(self._dragon_places)))

    @staticmethod
    def _key(state) -> tuple:
        return (state.turn, state.rolls_this_turn, state.dragons, state.current)

    @staticmethod
    def _place(die) -> tuple[str, tuple[float, float]]:
        if getattr(die, "position_mm", None) is not None:
            return ("mm", tuple(die.position_mm))
        x, y, w, h = die.box_px
        return ("px", (x + w / 2, y + h / 2))

    @staticmethod
    def _near(a, b, die_px) -> bool:
        if a[0] != b[0]:
            return False
        limit = SAME_PLACE_MM if a[0] == "mm" else SAME_PLACE_DIE_SIDES * die_px
        return math.dist(a[1], b[1]) <= limit

    def _same_as_last(self, seen, die_px) -> bool:
        last = self._last_seen
        if last is None or len(last) != len(seen) or not seen:
            return False
        unmatched = list(last)
        for face, place in seen:
            match = next((o for o in unmatched if o[0] == face and self._near(o[1], place, die_px)), None)
            if match is None:
                return False
            unmatched.remove(match)
        return True

    @staticmethod
    def _payload(observation) -> dict:
        to_json = getattr(observation, "to_json", None)
        return {"dice": to_json()["dice"]} if callable(to_json) else {}
