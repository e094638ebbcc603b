"""Rolls under lamps that flicker with the mains, side by side: motion judged with each row brought to one light
(ours, :func:`vision.motion.row_light`) and the plain difference of pictures (before).

    .venv/bin/python bench/flicker_bench.py [--throws 20]

A rolling shutter exposes a picture's rows one after another, so a lamp flickering 100 times a second (50 Hz mains)
darkens it in bands (:func:`vision.synth.effects.mains_flicker`). Where the bands lie in the next picture the
companion reads depends on the camera's frame rate:

* a USB webcam sends 30 pictures a second and the companion reads the newest when it is ready, about 10 a second:
  the bands lie anywhere from one picture read to the next;
* a Pi camera at 15 pictures a second: the bands roll by two thirds of a band a picture;
* a Pi camera at its default 10 a second: 10 flicker periods a picture, the bands all but still (a mains' frequency
  drifts: a hundredth of a band a picture here).

Each throw (renders of pip dice on a light wood table, two to six dice) is three pictures of the empty tray, then
ten of the dice lying still, under bands taking ``depth`` of the light at their darkest. A roll counts as read
when the roll detector reports it, right when it reports every die's face. Then a die sliding 12 px a picture
across the tray under the same bands: a picture judged still there is one more towards reading dice on the move (a
slow slide, three probe pixels a picture, is near what the probe sees at all: some are judged still without bands
too, the row ``0%``).
Last, the time to compare two motion probes (160 x 120), ours against the plain difference: of a still table (only
sensor noise moves: not brought to one light) and of pictures that differ.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads it: one core

import argparse  # noqa: E402
import sys  # noqa: E402
import timeit  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision import motion  # noqa: E402
from vision.dice import PipReader  # noqa: E402
from vision.motion import Stillness  # noqa: E402
from vision.roll import RollDetector  # noqa: E402
from vision.synth.dice import render_tray  # noqa: E402
from vision.synth.effects import mains_flicker  # noqa: E402

CAMERAS = (("webcam 30/s, the newest read", None), ("Pi camera at 15/s", 2 / 3), ("Pi camera at 10/s", 0.01))
DEPTHS = (0.0, 0.1, 0.25, 0.5)  # 0: no bands, how motion was judged without them


@contextmanager
def plain_difference():
    """Motion judged as before: the pictures compared as they are."""
    ours = motion.row_light
    motion.row_light = lambda b, a: b
    try:
        yield
    finally:
        motion.row_light = ours


def phases(step: float | None, count: int, rng: np.random.Generator) -> list[float]:
    if step is None:
        return list(rng.random(count))
    start = float(rng.random())
    return [start + step * i for i in range(count)]


def throws(step: float | None, depth: float, count: int, seed: int = 3) -> dict:
    rng = np.random.default_rng(seed)
    reader = PipReader()
    read = right = 0
    for _ in range(count):
        faces = [str(f) for f in rng.integers(1, 7, int(rng.integers(2, 7)))]
        thrown = render_tray(rng, kind="pips", faces=faces, table="wood", blur_sigma=0.5)
        empty = render_tray(rng, kind="pips", faces=[], table="wood", blur_sigma=0.5)
        detector = RollDetector(reader, vote_frames=3, stillness=Stillness(still_frames=2))
        pictures = [empty.image] * 3 + [thrown.image] * 10
        seen = [detector.update(mains_flicker(p, depth, phase), t)
                for t, (p, phase) in enumerate(zip(pictures, phases(step, len(pictures), rng)))]
        observations = [o for o in seen if o is not None]
        read += bool(observations)
        right += bool(observations) and sorted(observations[0].faces, key=str) == sorted(faces)
    return {"throws": count, "read": read, "right": right}


def sliding(step: float | None, depth: float, count: int, seed: int = 4) -> tuple[int, int]:
    """(pictures judged still, pictures) while one die slides across the tray."""
    rng = np.random.default_rng(seed)
    still = pictures = 0
    for _ in range(count):
        scene = render_tray(rng, kind="pips", faces=[str(rng.integers(1, 7))], table="wood", blur_sigma=0.5)
        (die,) = scene.dice
        x, y, w, h = die.box
        stillness = Stillness(still_frames=2)
        for t, phase in enumerate(phases(step, 8, rng)):
            picture = scene.image.copy()
            picture[y - 5:y + h + 5] = np.roll(scene.image[y - 5:y + h + 5], 12 * t, axis=1)
            still += stillness.update(mains_flicker(picture, depth, phase)) and t > 0
            pictures += t > 0
    return still, pictures


def probe_time(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Milliseconds to compare probes ``a`` and ``b``: ours, and the plain difference."""
    ours = min(timeit.repeat(lambda: motion.changed_fraction(a, b), number=300, repeat=5)) / 300
    with plain_difference():
        before = min(timeit.repeat(lambda: motion.changed_fraction(a, b), number=300, repeat=5)) / 300
    return ours * 1000, before * 1000


def probe_pairs() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Two motion probes of a still table (sensor noise only) and of pictures that differ (bands rolled on)."""
    scene = render_tray(np.random.default_rng(6), kind="pips", faces=["2", "5"], table="wood", blur_sigma=0.5).image
    rng = np.random.default_rng(0)
    noisy = lambda: np.clip(scene + rng.normal(0, 2, scene.shape), 0, 255).astype(np.uint8)  # noqa: E731
    return {"a still table": (motion.probe(noisy()), motion.probe(noisy())),
            "pictures that differ": (motion.probe(mains_flicker(scene, 0.25, 0.0)),
                                     motion.probe(mains_flicker(scene, 0.25, 1 / 3)))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throws", type=int, default=20, help="throws per camera and depth of the bands")
    args = parser.parse_args(argv)
    print(f"{args.throws} throws per row; rolls read (right) | pictures judged still while a die slides")
    print(f"{'camera':30} {'bands':>6} | {'ours':>16} | {'before (plain)':>16} | {'ours':>7} | {'before':>7}")
    for name, step in CAMERAS:
        for depth in DEPTHS:
            ours, ours_sliding = throws(step, depth, args.throws), sliding(step, depth, args.throws // 2)
            with plain_difference():
                before, before_sliding = throws(step, depth, args.throws), sliding(step, depth, args.throws // 2)
            cell = lambda t: f"{t['read']:>3} ({t['right']:>3}) of {t['throws']:<3}"  # noqa: E731
            print(f"{name:30} {depth:>6.0%} | {cell(ours):>16} | {cell(before):>16} | "
                  f"{ours_sliding[0]:>3}/{ours_sliding[1]:<3} | {before_sliding[0]:>3}/{before_sliding[1]:<3}",
                  flush=True)
    for what, (a, b) in probe_pairs().items():
        ours_ms, before_ms = probe_time(a, b)
        print(f"comparing two probes of {what}: ours {ours_ms:.3f} ms, before {before_ms:.3f} ms "
              f"({ours_ms / before_ms:.1f} x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
