"""Dice small in a large picture, no die size known: the finder's closer look at the whole picture against around
the dice it saw, side by side.

    .venv/bin/python bench/small_dice_bench.py [--scenes 40] [--seed 9000]

A tray taken as the whole view of a camera hung high, or a phone photo given to ``companion see --dice`` without
``--tray``: the finder first sees the picture with its longer side at 320 px, where pip dice may be 8-16 px wide.
Dice that small it misses now and then, and its boxes of them run large. Ours (:data:`vision.dice.net.FAR_TINY`):
where its far first look marks a die that small, its closer look sees the whole picture; before (FAR_TINY 0): only
windows around the dice it marked, so a die unmarked far from the others stays unseen. Also FAR_TINY at 0.7 and 0.9,
the choices either side, and dice of 16-24 px in the first look, where the closer look should change nothing.
Rendered plain trays of pip dice (seeds from ``--seed``, none the ones FAR_TINY was first tried on), read by the pip
reader without its farther look for large dice; the median time to read one picture.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads it: one core, as the bench says

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_bench import HEADER, add, row, score  # noqa: E402
from vision.dice import PipReader, net  # noqa: E402
from vision.synth.dice import render_tray  # noqa: E402

PICTURES = ((900, 700), (1280, 960), (1800, 1000), (2304, 1296))
FIRST_LOOK_PX = ((8, 12), (12, 16), (16, 24))  # the dice's side in the finder's first look
CHOICES = ((f"ours (FAR_TINY {net.FAR_TINY})", net.FAR_TINY), ("before (windows only)", 0.0),
           ("FAR_TINY 0.7", 0.7), ("FAR_TINY 0.9", 0.9))


def scenes(size: tuple[int, int], first_look_px: tuple[int, int], count: int, seed: int):
    """Plain trays filling a ``size`` picture, their dice ``first_look_px`` wide in the finder's first look."""
    scale = net.first_look_scale((size[1], size[0]))
    made = []
    for i in range(count):
        rng = np.random.default_rng(seed + i)
        side = int(rng.uniform(*first_look_px) / scale)
        try:
            made.append(render_tray(rng, kind="pips", size=size, die_px=(side, side + 2)))
        except ValueError:  # that many dice of that size do not fit: the next seed
            continue
    return made


def compare(count: int, seed: int) -> None:
    top, rule = HEADER.replace("set / reader", "dice in the first look, picture / finder").split("\n")
    print(f"{top} median ms |\n{rule}---|")
    for first_look_px in FIRST_LOOK_PX:
        totals = {name: {} for name, _ in CHOICES}
        times = {name: [] for name, _ in CHOICES}
        for size in PICTURES:
            trays = scenes(size, first_look_px, count, seed)
            for name, far_tiny in CHOICES:
                net.FAR_TINY = far_tiny
                part: dict = {}
                for scene in trays:
                    start = time.perf_counter()
                    reading = PipReader(larger=False).read(scene.image)
                    times[name].append(1000 * (time.perf_counter() - start))
                    add(part, score([(d.face, d.box) for d in scene.dice if d.face is not None], reading))
                add(totals[name], part)
                print(row(f"{first_look_px[0]}-{first_look_px[1]} px, {size[0]} x {size[1]} / {name}", part)
                      + f" {statistics.median(times[name][-len(trays):]):.1f} |")
        net.FAR_TINY = CHOICES[0][1]
        for name, _ in CHOICES:
            print(row(f"**{first_look_px[0]}-{first_look_px[1]} px, all pictures / {name}**", totals[name])
                  + f" {statistics.median(times[name]):.1f} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=40, help="trays per picture size and dice size")
    parser.add_argument("--seed", type=int, default=9000, help="the first tray's seed")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    compare(args.scenes, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
