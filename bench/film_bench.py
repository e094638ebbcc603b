"""Game films: whole Fabled Fruit games through the camera, animals and hands included, ours beside zxing-cpp.

Run from the project root (one core, as a Pi would give the camera loop):

    .venv/bin/python bench/film_bench.py                  # everything: about 10 minutes here
    .venv/bin/python bench/film_bench.py --films 3        # a quicker look
    .venv/bin/python bench/film_bench.py --layout one     # the films with one sticker per card

1. Where animals cover the stickers. A Fabled Fruit animal (a 22 mm figure) is
   stood anywhere on a 63 x 88 mm card, as players put them, 20,000 times: how
   often it touches the code, a finder pattern, or leaves no sticker whole, for
   the README's old layout (one 30 mm sticker top left) and for the new one (28 mm
   stickers top left and bottom right, the second turned half round). A hand
   resting on the table (90-140 mm) over a card hides every sticker of it: that
   is the stabiliser's business (the stack is kept as it was), counted apart.

2. Whole games. ``--films`` (20) rendered films of complete games (seeds 1..20,
   2-4 players; vision.synth.demo with animals standing anywhere on the top
   cards, a hand crossing the table at every turn, coins and dice lying on
   stickers' corners, hands resting over stacks, used-up stacks), replayed frame
   by frame through the pipeline, the stabiliser, the Fable referee and the
   engine, twice in lockstep: with our tag reader and with plain zxing-cpp in its
   place (the same motion check, so the stabiliser treats both alike). Every
   purchase and draw must be found, with no other camera move and no alert.

3. Recording. The first film is recorded (companion.film.recorder) while it
   plays: bytes per hour of film, what a two-hour night comes to, and what the
   recorder costs the camera's thread per frame beside the pipeline's own time.

4. Replay. That recording repeated to one hour of film and replayed as recorded
   (and with its pictures read again): faster than real time?
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.config import Config  # noqa: E402
from companion.demo import script_film  # noqa: E402
from companion.eventlog import EventLog  # noqa: E402
from companion.film.player import FilmPlayer, Inputs  # noqa: E402
from companion.pipeline import Pipeline  # noqa: E402
from companion.runtime import Runtime  # noqa: E402
from vision import tags  # noqa: E402
from vision.qr import get_decoder  # noqa: E402
from vision.reader import FrameReading, TagReader, _sighting  # noqa: E402
from vision.synth.demo import DemoGame  # noqa: E402

ANIMAL_MM = 22.0
PLAYERS = ("Anne", "Paul", "Rachel", "Camille")


# -- 1. occlusion at the sticker positions ------------------------------------------------------------


def occlusion(placements: int, seed: int) -> None:
    px = 8  # raster, pixels per millimetre of card
    width, height = tags.CARD_MM

    def code_and_finders(symbol_mm: float, second: bool):
        quiet = symbol_mm * tags.QUIET_MODULES / tags.MODULES
        x0 = y0 = tags.STICKER_INSET_MM + quiet
        finder = symbol_mm * 7 / tags.MODULES
        squares = [(x0, y0, symbol_mm)] + [(x0 + dx, y0 + dy, finder) for dx, dy in
                                            ((0, 0), (symbol_mm - finder, 0), (0, symbol_mm - finder))]
        masks = []
        for x, y, side in squares:
            if second:  # turned half round the card's centre
                x, y = width - x - side, height - y - side
            mask = np.zeros((int(height * px), int(width * px)), np.uint8)
            cv2.rectangle(mask, (int(x * px), int(y * px)), (int((x + side) * px), int((y + side) * px)), 255, -1)
            masks.append(mask)
        return masks[0], masks[1:]

    layouts = {"one 30 mm sticker, top left (README until now)": [code_and_finders(30.0, False)],
               f"two {tags.PAIR_SYMBOL_MM:g} mm stickers, opposite corners": [code_and_finders(tags.PAIR_SYMBOL_MM, False),
                                                                          code_and_finders(tags.PAIR_SYMBOL_MM, True)]}
    rng = np.random.default_rng(seed)
    figures = []
    for _ in range(placements):
        margin = ANIMAL_MM / 2
        cx, cy = rng.uniform(margin, width - margin), rng.uniform(margin, height - margin)
        mask = np.zeros((int(height * px), int(width * px)), np.uint8)
        cv2.ellipse(mask, (int(cx * px), int(cy * px)), (int(ANIMAL_MM * 0.5 * px), int(ANIMAL_MM * 0.38 * px)),
                    float(rng.uniform(0, 180)), 0, 360, 255, -1)
        figures.append(mask)
    print(f"\n1. A {ANIMAL_MM:g} mm animal standing anywhere on a {width:g} x {height:g} mm card "
          f"({placements} placements, seed {seed})")
    print(f"{'':<48}{'code touched':>14}{'a finder touched':>18}{'over 1/3 hidden':>17}{'no sticker whole':>18}")
    for name, stickers in layouts.items():
        touched = finder = third = none_whole = 0
        for figure in figures:
            states = []
            for code, finders in stickers:
                covered = np.count_nonzero(figure & code) / np.count_nonzero(code)
                nicked = any(np.count_nonzero(figure & f) for f in finders)
                states.append((covered > 0, nicked, covered > 1 / 3))
            touched += all(s[0] for s in states)
            finder += all(s[1] for s in states)
            third += all(s[2] for s in states)
            none_whole += all(s[1] or s[2] for s in states)
        cells = [f"{100 * n / placements:.2f}%" for n in (touched, finder, third, none_whole)]
        print(f"{name:<48}{cells[0]:>14}{cells[1]:>18}{cells[2]:>17}{cells[3]:>18}")
    print("(with two stickers: every sticker of the card must be touched, nicked or a third hidden to count)")
    print("A hand resting on the table (90-140 mm) over a card hides both stickers: the stabiliser keeps the "
          "stack as it was until the hand goes.")


# -- 2. whole games ------------------------------------------------------------------------------------


class PlainZxing(TagReader):
    """Plain zxing-cpp (library defaults) on the grey working image, behind the same motion check."""

    def __post_init__(self):
        super().__post_init__()
        self._plain = get_decoder("zxing", thorough=True).decode

    def _decode_frame(self, grey, half, full, start):
        found = [_sighting(d) for d in self._plain(grey) if d.valid]
        return FrameReading(tuple(found), (grey.shape[1], grey.shape[0]), None)


class Side:
    """One companion replaying a film: its own database, runtime, pipeline and reader."""

    def __init__(self, name: str, reader, film, workdir: Path):
        directory = workdir / name
        directory.mkdir(parents=True)
        self.log = EventLog(directory / "companion.db")
        self.runtime = Runtime(Config.defaults(), self.log).start()
        self.pipeline = Pipeline(self.runtime, Config.defaults(), directory, table_mm=tuple(film.header["table_mm"]))
        self.player = FilmPlayer(self.runtime, self.pipeline)
        self.player.reader.live = reader
        self.inputs = Inputs(self.runtime, film=film, refused=self.player._refused)
        self.pipeline_ms: list[float] = []

    def show(self, frame) -> None:
        start = time.perf_counter()
        self.player.show(frame)
        self.pipeline_ms.append((time.perf_counter() - start) * 1000)
        self.inputs.settle()

    def deliver(self, items) -> None:
        for item in items:
            self.inputs.deliver(item)
        if items:
            self.inputs.settle()

    def close(self) -> None:
        self.runtime.stop()
        self.log.close()


def films(count: int, two: bool, record_into: Path | None) -> tuple[bool, dict]:
    print(f"\n2. Whole games, {'two stickers' if two else 'one sticker'} per card: {count} rendered films, "
          "ours beside plain zxing-cpp in the same pipeline")
    print(f"{'film':<6}{'players':>8}{'frames':>8}{'moves':>7}{'found (ours)':>14}{'false':>7}{'alerts':>8}"
          f"{'found (zxing)':>15}{'false':>7}{'alerts':>8}{'render s':>10}")
    totals = {"expected": 0, "ours": [0, 0, 0], "zxing": [0, 0, 0]}
    recording = {}
    for seed in range(1, count + 1):
        players = PLAYERS[:2 + seed % 3]
        script = DemoGame(players, turns=300, seed=seed, second_sticker=two, animals="anywhere", clutter=0.25,
                          resting_hands=0.2, hand_frames=8, still_frames=20)
        film = script_film(script, campaign=False)
        expected = [m for step in script.steps for m in step.camera]
        with tempfile.TemporaryDirectory(prefix="film-bench-") as tmp:
            sides = {"ours": Side("ours", TagReader(), film, Path(tmp)),
                     "zxing": Side("zxing", PlainZxing(), film, Path(tmp))}
            recorder = None
            if record_into is not None and seed == 1:
                from companion.film.recorder import Recorder

                recorder = Recorder(record_into, sides["ours"].runtime, Config.defaults(),
                                    table_mm=tuple(film.header["table_mm"])).start()
                recorder_ms = _time_recorder(recorder)
            for side in sides.values():
                side.deliver(film.start)
            frames = 0
            render = 0.0
            shots = film.frames()
            while True:
                start = time.perf_counter()
                frame = next(shots, None)
                if frame is None:
                    break
                frame.image = frame.picture()
                render += time.perf_counter() - start
                frames += 1
                for side in sides.values():
                    side.show(frame)
                    side.deliver(frame.inputs)
            if recorder is not None:
                recorder.stop()
                recording = {"film_s": frames / film.header["fps"], "pipeline_ms": sides["ours"].pipeline_ms,
                             "recorder_ms": recorder_ms}
            row = [f"{seed:<6}{len(players):>8}{frames:>8}{len(expected):>7}"]
            for name, side in sides.items():
                lines = side.player.lines
                camera = [line["text"] for line in lines if line.get("source") == "camera" and line["kind"] == "move"]
                alerts = sum(1 for line in lines if line["kind"] == "alert")
                found = _found_in_order(expected, camera)
                false = len(camera) - found
                totals[name][0] += found
                totals[name][1] += false
                totals[name][2] += alerts
                row.append(f"{found:>14}{false:>7}{alerts:>8}" if name == "ours" else f"{found:>15}{false:>7}{alerts:>8}")
                side.close()
            totals["expected"] += len(expected)
            print("".join(row) + f"{render:>10.0f}", flush=True)
    ours, zx = totals["ours"], totals["zxing"]
    print(f"{'all':<29}{totals['expected']:>7}{ours[0]:>14}{ours[1]:>7}{ours[2]:>8}{zx[0]:>15}{zx[1]:>7}{zx[2]:>8}")
    met = ours[0] == totals["expected"] and ours[1] == 0 and ours[2] == 0
    print(f"  ours: every purchase and draw found, no false move, no false alert: {'met' if met else 'NOT MET'}")
    return met, recording


def _found_in_order(expected: list[str], seen: list[str]) -> int:
    """How many of ``expected`` appear in ``seen`` in their order (a false move in between does not hide them)."""
    found, at = 0, 0
    for move in seen:
        if at < len(expected) and move == expected[at]:
            found += 1
            at += 1
    return found


def _time_recorder(recorder) -> list[float]:
    """Wrap the recorder's per-frame hook to time it on the camera's thread."""
    times: list[float] = []
    hook = recorder.frame

    def timed(*args, **kwargs):
        start = time.perf_counter()
        hook(*args, **kwargs)
        times.append((time.perf_counter() - start) * 1000)

    recorder.frame = timed
    return times


# -- 3 and 4. recording and replay ---------------------------------------------------------------------


def recording_figures(directory: Path, measured: dict) -> None:
    header = json.loads((directory / "film.json").read_text())
    size = sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())
    hours = measured["film_s"] / 3600
    pictures = sum(p.stat().st_size for p in (directory / "images").iterdir()) + \
        sum(p.stat().st_size for p in (directory / "crops").iterdir())
    print(f"\n3. Recording the first film ({measured['film_s'] / 60:.1f} min of film, a change every few seconds: "
          "far busier than a real evening)")
    print(f"  {size / 1e6:.1f} MB: pictures {pictures / 1e6:.1f} MB ({header['pictures']} kept, "
          f"{header['pictures_dropped']} dropped), lines and database copies {(size - pictures) / 1e6:.1f} MB")
    per_hour = size / hours / 1e6
    budget = Config.defaults().get("recording", "budget_mb_per_hour")
    two_hours = 2 * min(per_hour, budget + (size - pictures) / hours / 1e6)
    print(f"  {per_hour:.0f} MB per hour of film at this pace; the picture budget holds pictures to {budget:g} MB "
          f"an hour, so a two-hour night stays under {two_hours:.0f} MB (target 500 MB: "
          f"{'met' if two_hours <= 500 else 'NOT MET'})")
    pipeline, recorder = measured["pipeline_ms"], measured["recorder_ms"]
    print(f"  camera thread per frame: pipeline median {statistics.median(pipeline):.2f} ms (p99 "
          f"{np.percentile(pipeline, 99):.1f}), of which the recorder median {statistics.median(recorder):.3f} ms "
          f"(p99 {np.percentile(recorder, 99):.2f}, max {max(recorder):.2f}): pictures are encoded on its own thread")


def replay_hour(directory: Path, workdir: Path) -> bool:
    from companion.film.replay import replay
    from companion.film.store import FRAMES, INPUTS, RecordedFilm, read_lines

    frames = list(read_lines(directory / FRAMES))
    inputs = list(read_lines(directory / INPUTS))
    span = frames[-1]["t"] - frames[0]["t"] + 0.1
    last = frames[-1]["n"]
    repeats = math.ceil(3600 / span)
    hour = workdir / "hour"
    shutil.copytree(directory, hour)
    with (hour / FRAMES).open("w") as out_frames, (hour / INPUTS).open("w") as out_inputs:
        for k in range(repeats):
            for data in frames:
                out_frames.write(json.dumps({**data, "n": data["n"] + k * last, "t": data["t"] + k * span}) + "\n")
            for data in inputs:
                out_inputs.write(json.dumps({**data, "frame": data["frame"] + k * last if data["frame"] else
                                             (k * last)}) + "\n")
    print(f"\n4. Replaying one hour of recording ({repeats} x the first film: {repeats * len(frames)} frames, "
          f"{repeats * span / 60:.0f} min)")
    ok = True
    for reread in (False, True):
        result = replay(RecordedFilm(hour), reread=reread, workdir=workdir)
        moves = sum(1 for line in result.lines if line["kind"] == "move")
        faster = result.speed > 1
        ok &= faster
        print(f"  {'pictures read again' if reread else 'as recorded':<22} {result.wall_s:7.1f} s for "
              f"{result.film_s / 60:.0f} min of film: {result.speed:5.1f}x real time, {moves} moves "
              f"(target faster than real time: {'met' if faster else 'NOT MET'})")
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--films", type=int, default=20)
    parser.add_argument("--layout", choices=["two", "one"], default="two")
    parser.add_argument("--placements", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"film_bench: OpenCV {cv2.__version__}, numpy {np.__version__}, one OpenCV thread; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    occlusion(args.placements, args.seed)
    with tempfile.TemporaryDirectory(prefix="film-bench-rec-") as tmp:
        recorded = Path(tmp) / "film"
        ok, measured = films(args.films, args.layout == "two", recorded)
        if measured:
            recording_figures(recorded, measured)
            ok &= replay_hour(recorded, Path(tmp))
    print(f"\nAll targets met: {'yes' if ok else 'NO (see NOT MET above)'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
