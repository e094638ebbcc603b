"""Dice large in the picture: dice under a camera hung low, and close-ups taught from, side by side.

    .venv/bin/python bench/large_dice_bench.py [--throws 20] [--photos 12] [--seed 9]

Three tables, on renders (no real photo of large dice is at hand; the train split's dice are 20-60 px):

* Fandooble's two dice taught with a 640 x 480 camera that sees them 48 to 140 px wide, then thrown into the tray
  (one to three dice a throw) and read: with the size the camera taught them at (ours: the finder looks for dice
  that large at that size, :func:`vision.dice.net.size_to_look_for`) and without it, as dice taught from photos are
  (the finder's first look, which knows dice of about 54 px in a 640 px picture, then its farther look: below);
  and, the camera's working width doubled after teaching (the dice twice as many pixels), with the size placed on
  the picture (ours: :meth:`vision.dice.FaceTemplates.taught_side` scales it by the picture it was measured on)
  against the size taken as it is;
* pip dice, and Fandooble's dice taught from photos (no size kept), thrown at those sizes and read with no size
  known: ours (dice too large for the finder's first look looked for again farther, where they are of the size it
  knows: :func:`vision.dice.net.with_large_dice`) against the first look alone (which marks their pips or the
  drawing on them as dice); and the time to read a tray of dice of the usual size, where the farther look finds
  nothing to add;
* photos of one die, a twentieth to two fifths of the photo's shorter side, on six tables and three shapes of photo,
  as teaching takes them: the die cut out at its size (within a quarter), refused, or cut out at another size (the
  drawing on its face taken for the die: a wrong sample taught); ours (the die looked for again as larger,
  :mod:`vision.dice.single`) against the finder's first look alone. Also the median time to find the die.
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

from dice_bench import FANDOOBLE_DICE, HEADER, _totals, add, row, score, timing  # noqa: E402
from vision.dice import FaceTemplates, PipReader, TaughtReader  # noqa: E402
from vision.dice.single import NotOneDie, single_die  # noqa: E402
from vision.synth.dice import render_face_photo, render_tray  # noqa: E402

SIZES = (48, 80, 110, 140)  # dice sides in a 640 x 480 camera picture
SHARES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.42)  # a photo's die, as a share of its shorter side
PHOTO_SHAPES = ((1024, 768), (768, 1024), (1024, 1024))
TABLES = ("grey", "wood", "felt", "white", "navy", "black")


def taught_with_camera(px: int) -> FaceTemplates:
    rng = np.random.default_rng(5)
    templates = FaceTemplates()
    for die, faces in FANDOOBLE_DICE.items():
        for face in faces:
            templates.learn(die, face, render_face_photo(rng, face, size=(640, 480), die_px=px), picture=(640, 480))
    return templates


def thrown(templates: FaceTemplates, px: int, throws: int, size: tuple[int, int] = (640, 480)) -> dict:
    return thrown_at(TaughtReader(templates), "fandooble", px, throws, size)


def thrown_at(reader, kind: str, px: int, throws: int, size: tuple[int, int] = (640, 480), seed: int = 9) -> dict:
    """``throws`` throws of one to three (four for dice up to 100 px) ``kind`` dice ``px`` wide, read by ``reader``."""
    total, rng = _totals(), np.random.default_rng(seed)
    for _ in range(throws):
        faces = _faces(rng, kind, int(rng.integers(1, 3 if px > 100 else 4)))
        try:
            scene = render_tray(rng, kind=kind, faces=faces, size=size, die_px=(px, int(px * 1.1)))
        except ValueError:
            continue  # the dice drawn did not fit in the tray apart: a throw fewer
        add(total, score([(d.face, d.box) for d in scene.dice if not d.partial], reader.read(scene.image)))
    return total


def _faces(rng: np.random.Generator, kind: str, count: int) -> list[str]:
    if kind == "pips":
        return [str(int(f)) for f in rng.integers(1, 7, size=count)]
    return [str(f) for f in rng.choice(list("CGRFKW"), size=count)]


def taught_large(throws: int) -> None:
    print(HEADER)
    for px in SIZES:
        taught = taught_with_camera(px)
        without = FaceTemplates(samples=taught.samples, dice=taught.dice)  # as from photos: no size kept
        print(row(f"Fandooble dice of {px} px in 640, taught with the camera / ours (the size taught)",
                  thrown(taught, px, throws)))
        print(row(f"Fandooble dice of {px} px in 640, taught with the camera / without the size (from photos)",
                  thrown(without, px, throws)))
    # The camera's working width doubled after teaching: the same dice are twice as many pixels in its pictures.
    taught = taught_with_camera(110)
    as_taught = FaceTemplates(samples=taught.samples, dice=taught.dice, sides=taught.sides)  # no picture kept
    print(row("taught at 110 px in 640 x 480, thrown at 220 px in 1280 x 960 (work_width doubled) / ours (the size "
              "placed on the picture)", thrown(taught, 220, throws, size=(1280, 960))))
    print(row("taught at 110 px in 640 x 480, thrown at 220 px in 1280 x 960 (work_width doubled) / the size taken "
              "as it is", thrown(as_taught, 220, throws, size=(1280, 960))))


def close_ups(photos: int, larger: bool) -> tuple[dict, float]:
    """For each share, (at the die's size, refused, another size); and the median ms to find the die."""
    counts, times = {}, []
    for share in SHARES:
        whole = refused = other = 0
        for shape in PHOTO_SHAPES:
            rng = np.random.default_rng(int(share * 100) + shape[1])
            side = int(min(shape) * share)
            for i in range(photos):
                photo = render_face_photo(rng, "CGRFKW"[i % 6], size=shape, die_px=side, table=TABLES[i % len(TABLES)])
                start = time.perf_counter()
                try:
                    die = single_die(photo, larger=larger)
                except NotOneDie:
                    refused += 1
                    continue
                finally:
                    times.append((time.perf_counter() - start) * 1000)
                if abs(max(die.size) - side) < 0.25 * side:
                    whole += 1
                else:
                    other += 1
        counts[share] = (whole, refused, other)
    return counts, statistics.median(times)


def taught_close_ups(photos: int) -> None:
    ours, ours_ms = close_ups(photos, larger=True)
    first, first_ms = close_ups(photos, larger=False)
    print("| the die, share of the photo | photos | ours: at its size / refused / another size "
          "| first look alone: at its size / refused / another size |")
    print("|---|---|---|---|")
    for share in SHARES:
        n = sum(ours[share])
        print(f"| {share:.2f} | {n} | {' / '.join(map(str, ours[share]))} | {' / '.join(map(str, first[share]))} |")
    a, b = (tuple(map(sum, zip(*c.values()))) for c in (ours, first))
    print(f"| all | {sum(a)} | {' / '.join(map(str, a))} | {' / '.join(map(str, b))} |")
    print(f"median time to find the die: ours {ours_ms:.0f} ms, first look alone {first_ms:.0f} ms "
          f"({ours_ms / first_ms:.2f}x)")


def no_size_known(throws: int, seed: int) -> None:
    """Pip dice and dice taught from photos, large, read with no size known: ours against the first look alone."""
    print(HEADER)
    photos = taught_with_camera(80)
    photos = FaceTemplates(samples=photos.samples, dice=photos.dice)  # as taught from photos: no size kept
    readers = (("pip dice", "pips", PipReader),
               ("Fandooble dice taught from photos", "fandooble", lambda larger: TaughtReader(photos, larger=larger)))
    for px in SIZES + (180,):
        for name, kind, reader in readers:
            for larger, how in ((True, "ours (the farther look)"), (False, "the first look alone")):
                print(row(f"{name} of {px} px in 640, no size known / {how}",
                          thrown_at(reader(larger=larger), kind, px, throws, seed=seed)))
    ms = {larger: timing(PipReader(larger=larger), throws)[0] for larger in (True, False)}  # dice of 34-48 px
    print(f"reading a 640 x 480 tray of pip dice of the usual size (median of {throws} trays, the fastest of 3 reads "
          f"each): ours {ms[True]:.1f} ms, the first look alone {ms[False]:.1f} ms ({ms[True] / ms[False]:.2f}x)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throws", type=int, default=20, help="throws of one to three dice per size")
    parser.add_argument("--photos", type=int, default=12, help="photos per share of the photo and shape")
    parser.add_argument("--seed", type=int, default=9, help="the throws of dice read with no size known")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    taught_large(args.throws)
    print()
    no_size_known(args.throws, args.seed)
    print()
    taught_close_ups(args.photos)
    return 0


if __name__ == "__main__":
    sys.exit(main())
