"""The lines a film produces: one per move, alert and state change, the same live and in replay.

Each line is a small JSON object: the frame it happened at and the film's time
(seconds since the recording began), which game of the evening (1, 2, ...), what
kind of thing happened and its text. After every change to the game a ``state``
line names who is to act and a digest of the whole state, so two replays that
agree line for line agree on every fact of the game. Nothing in a line depends on
the wall clock or on random ids, so the same film gives the same lines anywhere.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from companion.session import CORRECT, MOVE, REDO, UNDO

STATE_CHANGES = (MOVE, UNDO, REDO, CORRECT)
# What --check compares: the frame may differ where an input and a settled table arrived together.
CONTENT = ("game", "kind", "source", "text", "to_act", "digest", "winners")


def _head(frame: int, t: float, game: int) -> dict:
    return {"frame": frame, "t": round(t, 3), "game": game}


def game_line(session, *, frame: int, t: float, game: int) -> dict:
    """A game was opened or started."""
    return {**_head(frame, t, game), "kind": "game", "text": f"{session.game}: {', '.join(session.players)}",
            "title": session.record.title}


def event_lines(session, event, *, frame: int, t: float, game: int, was_over: bool) -> list[dict]:
    """The line for a stored event, then a ``state`` line after a change, then ``over`` when it ended the game."""
    lines = [{**_head(frame, t, game), "kind": event.kind, "source": event.source, "text": event.text}]
    if event.kind in STATE_CHANGES:
        lines.append({**_head(frame, t, game), "kind": "state", "to_act": session.current_player(),
                      "digest": digest(session)})
        outcome = session.outcome()
        if outcome is not None and not was_over:
            lines.append({**_head(frame, t, game), "kind": "over", "winners": list(outcome.winners),
                          "text": outcome.reason})
    return lines


def refused_line(kind: str, args: dict, reason: str, *, frame: int, t: float, game: int) -> dict:
    """An input the game refused (nothing changed)."""
    what = args.get("move") or args.get("resolution") or kind
    return {**_head(frame, t, game), "kind": "refused", "source": args.get("source", ""),
            "text": f"{kind} {what}: {reason}"}


def digest(session) -> str:
    """A short fingerprint of the game's whole state."""
    state = json.dumps(session.rules.to_json(session.state), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(state.encode("utf-8")).hexdigest()[:12]


def comparable(lines: list[dict]) -> list[tuple]:
    """What a replay must give again: every line's content, except refusals (they change nothing, and
    a recording only hears the inputs, not whether the game took them)."""
    return [tuple(line.get(k) for k in CONTENT) for line in lines if line["kind"] != "refused"]


def human(line: dict) -> str:
    """``  2:03.4  #1234   game 1  camera     move    buy Anne 4:1``"""
    t = line.get("t", 0.0)
    minutes, seconds = divmod(t if t == t else 0.0, 60)  # NaN (no time) shows as 0
    if line["kind"] == "state":
        text = f"{line['to_act'] or 'nobody'} to act  [{line['digest']}]"
    elif line["kind"] == "over":
        text = f"game over: {', '.join(line['winners']) or 'nobody'} won ({line['text']})"
    else:
        text = line.get("text", "")
    return (f"{int(minutes):3d}:{seconds:04.1f}  #{line['frame']:<7} game {line['game']}  "
            f"{line.get('source', ''):<9} {line['kind']:<7} {text}")


def dumps(line: dict[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"))
