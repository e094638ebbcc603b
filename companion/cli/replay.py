"""``companion replay DIR``: a recorded game night played again through the camera pipeline and the rules."""

from __future__ import annotations

import sys
from pathlib import Path

from companion.errors import SetupError


def register(sub) -> None:
    p = sub.add_parser(
        "replay", help="play a recorded game night again: every move, alert and state change, as it went",
        description="Plays a recording (companion run --record DIR) through the same pipeline, stabiliser, "
                    "referee and engine, frame by frame in the recording's own time: the same lines on any "
                    "machine at any speed. Nothing is written to your games.")
    p.add_argument("film", type=Path, metavar="DIR", help="the recording's folder")
    p.add_argument("--until", metavar="TIME", help="stop this far into the recording: seconds, M:SS or H:MM:SS")
    p.add_argument("--game", metavar="GAME",
                   help="show only one game of the evening: its number (1 = the first one opened) or its kind (fable)")
    p.add_argument("--json", action="store_true", help="one JSON object per line, for comparing and scripts")
    p.add_argument("--reread", action="store_true",
                   help="decode the pictures the recording kept with this companion's tag reader, instead of "
                        "using what the reader saw at the table (to check whether a fix reads them right)")
    p.add_argument("--check", action="store_true",
                   help="compare with the lines the evening produced live; exit 1 when they differ")
    p.set_defaults(handler=run)


def run(args) -> int:
    from companion.film import lines as film_lines
    from companion.film.replay import parse_time, replay
    from companion.film.store import RecordedFilm

    try:
        until = parse_time(args.until) if args.until is not None else None
    except ValueError as exc:
        raise SetupError(f"--until {exc}") from None
    film = RecordedFilm(args.film)
    chosen = _GameFilter(args.game)

    def show(line: dict) -> None:
        if not chosen(line):
            return
        print(film_lines.dumps(line) if args.json else film_lines.human(line), flush=True)

    result = replay(film, reread=args.reread, until=until, on_line=show)
    moves = sum(1 for line in result.lines if line["kind"] == "move")
    alerts = sum(1 for line in result.lines if line["kind"] == "alert")
    print(f"replayed {result.frames} frames ({result.film_s / 60:.1f} min of the recording) in {result.wall_s:.1f} s "
          f"({result.speed:.0f}x real time): {moves} moves, {alerts} alerts"
          + (f"; {result.reread} pictures read again" if args.reread else ""), file=sys.stderr)
    if args.check:
        return _check(result.lines, film.live_lines(), until is not None)
    return 0


class _GameFilter:
    """--game N (the N-th game opened) or --game KIND (every game of that kind)."""

    def __init__(self, text: str | None):
        self.text = text
        self.kinds: dict[int, str] = {}

    def __call__(self, line: dict) -> bool:
        if line["kind"] == "game":
            self.kinds[line["game"]] = line["text"].split(":", 1)[0]
        if self.text is None:
            return True
        if self.text.isdigit():
            return line["game"] == int(self.text)
        return self.kinds.get(line["game"]) == self.text


def _check(replayed: list[dict], live: list[dict], partial: bool) -> int:
    from companion.film import lines as film_lines

    if not live:
        print("check: the recording holds no live lines to compare with", file=sys.stderr)
        return 1
    replayed = [line for line in replayed if line["kind"] != "refused"]
    ours, theirs = film_lines.comparable(replayed), film_lines.comparable(live)
    if partial:
        theirs = theirs[:len(ours)]
    if ours == theirs:
        print(f"check: the replay gives the evening's {len(theirs)} lines exactly", file=sys.stderr)
        return 0
    first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    print(f"check: the replay differs from the evening at line {first + 1} "
          f"({len(ours)} lines replayed, {len(theirs)} recorded live)", file=sys.stderr)
    for label, found in (("live  ", live), ("replay", replayed)):
        if first < len(found):
            print(f"  {label}: {film_lines.human(found[first])}", file=sys.stderr)
    return 1
