"""Recording short game nights for the tests: the demo table played live, with a person's inputs in it.

The films under ``tests/films/`` were made with this module and are replayed by
``tests/test_film.py``: each one's ``live.jsonl`` (the lines the evening produced as
it was recorded) is what its replay must give again. Make them anew (after a
deliberate change to what the lines say) from the project root with::

    .venv/bin/python -m tests.film_fixtures
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

FILMS = Path(__file__).resolve().parent / "films"

# The person's part of the evening: after frame N (the picture number the camera gave), do this.
# The camera has bought 4:1 and drawn 7:1 by frame 73 in the 4-turn demo below.
INTERVENTIONS = {
    74: [("undo", {}), ("redo", {})],
    80: [("raise_alert", {"text": "the deck looks uneven"})],
    82: [("resolve_alert", {"resolution": "dismiss"})],
    84: [("correct_last_action", {})],
    86: [("play", {"move": "move Paul 99"})],  # refused: there is no location 99
}


def record_demo(directory: Path, *, turns: int = 4, size: tuple[int, int] = (1920, 1080), hand_frames: int = 4,
                still_frames: int = 16, interventions: dict | None = None, budget_mb_per_hour: float = 200.0) -> Path:
    """Play the demo table through a threaded runtime and the real pipeline while recording it."""
    from companion.config import Config
    from companion.demo import DemoTable
    from companion.errors import CompanionError
    from companion.eventlog import EventLog
    from companion.film.recorder import Recorder
    from companion.pipeline import Pipeline
    from companion.runtime import Runtime
    from hardware.camera.base import Frame

    interventions = INTERVENTIONS if interventions is None else interventions
    work = Path(tempfile.mkdtemp(prefix="film-fixture-"))
    try:
        with EventLog(work / "companion.db") as log, Runtime(Config.defaults(), log) as runtime:
            demo = DemoTable(runtime, turns=turns, size=size, hand_frames=hand_frames, still_frames=still_frames)
            pipeline = Pipeline(runtime, Config.defaults(), work, table_mm=demo.table_mm)
            recorder = Recorder(directory, runtime, Config.defaults(), table_mm=demo.table_mm,
                                budget_mb_per_hour=budget_mb_per_hour).start()
            number = shown = 0
            while (picture := demo.next_image(number)) is not None:
                image, t = picture
                shown += 1
                pipeline(Frame(work=image, timestamp=t, number=shown))
                for kind, args in interventions.get(shown, ()):
                    try:
                        _do(runtime, kind, args)
                    except CompanionError:
                        pass  # a refused input is part of the evening too
                number += 1
            runtime.call(lambda: None)
            recorder.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return directory


def _do(runtime, kind: str, args: dict) -> None:
    if kind == "undo":
        runtime.undo(source="dashboard")
    elif kind == "redo":
        runtime.redo(source="dashboard")
    elif kind == "play":
        runtime.play(args["move"], source="dashboard")
    elif kind == "raise_alert":
        runtime.raise_alert(args["text"], source="dashboard")
    elif kind == "resolve_alert":
        alert = runtime.pending_alerts()[-1]
        runtime.resolve_alert(alert["event_id"], args["resolution"], source="dashboard")
    elif kind == "correct_last_action":
        played = runtime.session.played
        target = next(p for p in reversed(played) if p.text.startswith("action"))
        runtime.correct(target.event_id, target.text, source="dashboard")


def main() -> int:
    target = FILMS / "demo-4-turns"
    if target.exists():
        shutil.rmtree(target)
    record_demo(target)
    print(f"wrote {target} ({sum(p.stat().st_size for p in target.rglob('*') if p.is_file()) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
