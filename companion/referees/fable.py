"""The Fabled Fruit referee: what changed on the table becomes ``buy`` and ``draw``, or an alert.

Each stable snapshot of the table (:class:`vision.cards.TableSnapshot`, duck-typed
here: ``stacks`` with ``location``, ``top_copy``, ``hidden``, ``copies``; and
``duplicates``) is compared with the display *the engine* holds, not with the
previous snapshot, so the referee needs no memory and survives a restart.

What it may find, for the player whose turn it is:

* a **purchase**: the player's animal stands on location N (they moved it on the
  dashboard or with a button) and stack N's top copy is gone -- the next copy
  shows, or the stack is used up. The card taken is the one that was on top:
  ``buy Anne 5:1``.
* the **draw** that follows: the deck's next card shows, on its own stack or as a
  new stack: ``draw 7:1``. The deck is never shuffled, so any other card is an
  alert ("expected location 12 from the deck, saw 14: check the deck order").

Every move is checked with the engine before it is proposed (``why_illegal``).
Anything else -- a change where no animal stands, a change before the animal
moved, a copy that cannot be on top, two stickers with one code -- is an
:class:`Alert` that names what was expected and what was seen, proposing a move
where one is plausible. A stack whose tags are covered (``hidden``: an animal, a
hand) is taken to be unchanged, and an occlusion never becomes a move: when the
stack the player is buying from is covered and the deck's next card already
shows, the referee waits for the stack to show again (the stabiliser reports it
then) rather than guess the purchase or call it an error. (The stabiliser cannot
tell a stack used up from a covered one; the deck's next card showing while the
bought stack had only its last card is what tells: that purchase is applied.) A
covered stack that reappears changed is judged like any other change. Animal moves and actions never
come from the camera.

The same table seen twice against the same game gives nothing the second time,
so the pipeline may hand the referee the last stable snapshot again after every
move (a purchase seen before the animal's move was entered is then recognised).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.games.fable import state as fable_state
from companion.referees import Alert, Apply


def make_referee(config: Any = None, **_ignored) -> "FableReferee":
    return FableReferee()


@dataclass(frozen=True)
class _Difference:
    kind: str  # "changed" (another copy on top), "gone" (stack not seen), "new" (a location not on display)
    location: int
    expected: int | None  # the engine's top copy
    seen: int | None  # the camera's top copy (None: two copies show)

    def describe(self) -> str:
        n = self.location
        if self.kind == "gone":
            return f"stack {n} ({n}:{self.expected} on top) is not on the table"
        if self.kind == "new":
            return f"location {n} ({_card(n, self.seen)}) appeared, but it is not on display"
        return f"stack {n} shows {_card(n, self.seen)} on top instead of {n}:{self.expected}"


def _card(location: int, copy: int | None) -> str:
    return f"{location}:{copy}" if copy is not None else f"{location}:? (two copies show)"


def _display(state) -> dict[int, tuple[int, ...]]:
    """The engine's display: location -> copies, top first."""
    return {s.number: tuple(c.copy for c in s.cards) for s in state.display}


def _seen(snapshot) -> tuple[dict[int, int | None], set[int], set[int]]:
    """(visible location -> top copy, hidden locations, locations seen on two separate stacks)."""
    visible: dict[int, int | None] = {}
    hidden: set[int] = set()
    twice: set[int] = set()
    for stack in getattr(snapshot, "stacks", ()):
        if getattr(stack, "hidden", False):
            hidden.add(stack.location)
            continue
        if stack.location in visible:
            twice.add(stack.location)
        visible[stack.location] = stack.top_copy
    return visible, hidden - set(visible), twice


def _differences(display, visible, hidden) -> list[_Difference]:
    out = []
    for location, copies in display.items():
        if location in visible:
            if visible[location] != copies[0]:
                out.append(_Difference("changed", location, copies[0], visible[location]))
        elif location not in hidden:
            out.append(_Difference("gone", location, copies[0], None))
    for location, top in visible.items():
        if location not in display:
            out.append(_Difference("new", location, None, top))
    return out


class FableReferee:
    def __init__(self):
        self._last_key: tuple | None = None
        self._alerted: tuple[tuple, set[str]] = ((), set())  # the table seen, alerts already raised for it

    def observe(self, session: Any, snapshot: Any) -> list:
        """Verdicts for this stable snapshot; an alert is not raised twice for the same table."""
        verdicts = self._judge(session, snapshot)
        seen_key = self._last_key[4:] if self._last_key else ()
        if self._alerted[0] != seen_key:
            self._alerted = (seen_key, set())
        out = []
        for verdict in verdicts:
            if isinstance(verdict, Alert):
                what = verdict.payload.get("differences", verdict.text)  # the same stray card, said anew
                if what in self._alerted[1]:
                    continue
                self._alerted[1].add(what)
            out.append(verdict)
        return out

    def _judge(self, session: Any, snapshot: Any) -> list:
        state = session.state
        if state.over:
            return []
        visible, hidden, twice = _seen(snapshot)
        key = (tuple(sorted(_display(state).items())), state.phase, state.current, len(state.deck),
               tuple(sorted(visible.items(), key=lambda kv: kv[0])), tuple(sorted(hidden)),
               tuple(getattr(snapshot, "duplicates", ())))
        if key == self._last_key:
            return []  # the same table against the same game: already judged
        self._last_key = key
        payload = _payload(snapshot)

        problems = []
        duplicates = [p for p in getattr(snapshot, "duplicates", ()) if p.startswith("FF:")]
        if duplicates:
            problems.append(Alert(
                f"{', '.join(duplicates)} {'is' if len(duplicates) == 1 else 'are'} on two stickers at once: "
                "one card carries a copied sticker; the camera cannot tell these stacks apart until it is replaced",
                payload=payload))
        for location in sorted(twice - {int(p[3:5]) for p in duplicates}):
            problems.append(Alert(f"location {location} lies on the table as two stacks: put its cards on one stack",
                                  payload=payload))

        differences = _differences(_display(state), visible, hidden)
        if _deck_card_shows_while_bought_stack_unseen(state, differences, hidden):
            if len(state.stack(state.animals[state.current]).cards) > 1:
                return problems  # covered: its next card will show when the cover goes
            # Its last card: the stack is used up (not covered), which the deck's next card proves.
            hidden = hidden - {state.animals[state.current]}
            differences = _differences(_display(state), visible, hidden)
        if not differences:
            return problems
        verdicts, state, differences = self._purchase(session, state, differences, visible, hidden, payload)
        if verdicts and isinstance(verdicts[-1], Alert):
            return problems + verdicts
        draw, state, differences = self._draw(session, state, differences, visible, hidden, payload)
        verdicts += draw
        if draw and isinstance(draw[-1], Alert):
            return problems + verdicts
        if differences:
            verdicts.append(self._unexplained(state, differences, payload))
        return problems + verdicts

    # -- the purchase ---------------------------------------------------------------------

    def _purchase(self, session, state, differences, visible, hidden, payload):
        """A ``buy`` when the animal's stack lost its top copy: (verdicts, state after, differences left)."""
        if state.phase != fable_state.ACT:
            return [], state, differences
        here = state.animals[state.current]
        at_here = [d for d in differences if d.location == here and d.kind in ("changed", "gone")]
        if not at_here:
            return [], state, differences
        who = state.player
        copies = state.stack(here).cards
        taken = copies[0]
        move = f"buy {who} {here}:{taken.copy}"
        seen = at_here[0].seen
        deck_top = state.deck[0] if state.deck else None
        left = copies[1:]
        consistent = (
            (at_here[0].kind == "gone" and not left)
            or (left and seen == left[0].copy)
            or (deck_top is not None and deck_top.number == here and seen == deck_top.copy)
        )
        if not consistent:
            expected = f"{here}:{left[0].copy} on top" if left else "the stack used up"
            saw = "no card there" if at_here[0].kind == "gone" else f"{_card(here, seen)} on top"
            return [Alert(
                f"{who}'s animal stands on location {here}: after buying its juice, expected {expected}; "
                f"saw {saw}. If {who} bought {taken.to_text()}, accept '{move}'",
                move=move if session.why_illegal(move) is None else None, payload=payload)], state, differences
        reason = session.why_illegal(move)
        if reason is not None:
            return [Alert(f"the camera saw the juice of location {here} bought ({taken.to_text()}), but {reason}",
                          payload=payload)], state, differences
        after = session.rules.apply(state, session.rules.parse_move(move))
        return [Apply(move, payload=payload)], after, _differences(_display(after), visible, hidden)

    # -- the draw -------------------------------------------------------------------------

    def _draw(self, session, state, differences, visible, hidden, payload):
        """The ``draw`` of the deck's next card once it shows: (verdicts, state after, differences left)."""
        if state.phase != fable_state.DRAW or not state.deck:
            return [], state, differences
        top = state.deck[0]
        if visible.get(top.number) == top.copy:
            move = f"draw {top.number}:{top.copy}"
            reason = session.rules.why_illegal(state, session.rules.parse_move(move))
            if reason is not None:
                return [Alert(f"the camera saw {top.to_text()} drawn, but {reason}", payload=payload)], state, differences
            after = session.rules.apply(state, session.rules.parse_move(move))
            return [Apply(move, payload=payload)], after, _differences(_display(after), visible, hidden)
        appeared = [d for d in differences if d.kind in ("new", "changed")]
        if not appeared:
            return [], state, differences  # not drawn yet: wait for the card
        seen = ", ".join(_card(d.location, d.seen) for d in appeared)
        return [Alert(
            f"expected location {top.number} from the deck ({top.to_text()}), saw {seen}: check the deck order",
            payload=payload)], state, differences

    # -- anything else --------------------------------------------------------------------

    def _unexplained(self, state, differences, payload) -> Alert:
        who = state.player
        seen = "; ".join(d.describe() for d in differences)
        move = None
        if state.phase == fable_state.MOVE:
            bought = [d for d in differences if d.kind in ("changed", "gone")]
            context = f"{who} has not moved an animal yet this turn (a juice is bought after moving there)"
            if len(bought) == 1 and len(differences) <= 2 and bought[0].location in state.destinations():
                move = f"move {who} {bought[0].location}"
                context += f"; if {who} went to location {bought[0].location}, accept '{move}'"
        elif state.phase == fable_state.ACT:
            here = state.animals[state.current]
            context = f"only location {here}, where {who}'s animal stands, can change now"
        elif state.phase == fable_state.DRAW:
            top = state.deck[0] if state.deck else None
            context = f"expected only the deck's next card ({top.to_text()})" if top else "the deck is empty"
        else:
            context = "nothing can change now"
        return Alert(f"the table does not match the game: {seen}; {context}", move=move,
                     payload={**payload, "differences": seen})


def _deck_card_shows_while_bought_stack_unseen(state, differences, hidden) -> bool:
    """The player's animal stands on a stack that is not seen (covered, or gone), and all that changed
    elsewhere is the deck's next card showing: a juice was bought there. With cards left in it, the
    referee waits until the stack shows its next card; with its last card bought, it is used up."""
    if (not differences or state.phase != fable_state.ACT or state.animals[state.current] not in hidden
            or not state.deck):
        return False
    top = state.deck[0]
    return all(d.location == top.number and d.kind in ("new", "changed") and d.seen == top.copy
               for d in differences)


def _payload(snapshot) -> dict:
    to_json = getattr(snapshot, "to_json", None)
    if not callable(to_json):
        return {}
    data = to_json()
    return {"stacks": [{k: s[k] for k in ("location", "top_copy", "hidden") if k in s} for s in data.get("stacks", [])]}
