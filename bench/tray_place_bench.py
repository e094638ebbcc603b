"""Picture dice in a tray in the middle of the camera's view and towards its edge, side by side: marks the reader
network is unsure of kept for the taught faces to judge (ours, :func:`vision.dice.net.kind_of_mark` with
``dice_together``) and left out as before (a mark is a die only when one kind of die is likelier than none).

    .venv/bin/python bench/tray_place_bench.py [--throws 40] [--seed 5]

The camera over a table sees the whole table; the dice tray lies where the players put it, often towards the edge
of the view. A die there is seen from the side as well as from above: a Camera Module 3 (66 degrees across) sees a
side face as wide as a third of the die's top 20 degrees off its axis, two thirds at the picture's edge, whatever its
height. Renders (:func:`vision.synth.dice.render_photo`: cubes through a pinhole camera looking straight down, 66
degrees across a 640 x 480 picture, dice 36 px wide) of Fandooble's two dice (each picture on two faces): each
die's faces taught in the tray as the Setup page does (three pictures a face, a refused one shown again), then
throws of two to four of one die read in the tray. Trays: in the middle of the view, at its right edge, in its
bottom right corner (about 10, 25 and 28 degrees off the axis at the tray's middle), on a light grey and a wood
table. ``counted`` is the throws whose every die was found (the Fandooble referee needs the number of dice thrown);
``refused`` the teaching pictures refused.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads it: one core

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_bench import FANDOOBLE_DICE, _totals, add, score  # noqa: E402
from vision.dice import FaceTemplates, TaughtReader  # noqa: E402
from vision.dice.scan import scan_marks  # noqa: E402
from vision.dice.zone import rect_zone  # noqa: E402
from vision.synth.dice import PHOTO_BODIES, PHOTO_INKS, PhotoStyle, render_photo  # noqa: E402

SIZE = (640, 480)
FOV_DEG = 66.0  # Camera Module 3
DIE_PX = (36.0, 36.0)
TRAYS = {"middle": (0.3, 0.28, 0.7, 0.72), "right edge": (0.68, 0.28, 0.99, 0.72),
         "bottom right": (0.68, 0.5, 0.99, 0.99)}  # left, top, right, bottom: shares of the picture
TABLES = ("light grey", "wood")
LOOKS = 3


class OneKindReader(TaughtReader):
    """The taught reader as before: a mark is a die only where one kind of die is likelier than none."""

    def read(self, image, zone=None):
        return scan_marks(image, zone, self.die_px, self._read_faces,
                          taught_side=self.templates.taught_side((image.shape[1], image.shape[0])), larger=self.larger)


def style(faces: str) -> PhotoStyle:
    return PhotoStyle(body=PHOTO_BODIES["ivory"], ink=PHOTO_INKS["black"], pip_ratio=0.19, spacing=0.28,
                      corner=0.12, pictures=faces)


def thrown(rng, faces: str, tray, table: str, count: int | None = None, values=None):
    return render_photo(rng, size=SIZE, count=count, faces=values, cocked=0, style=style(faces), fov_deg=FOV_DEG,
                        die_px=DIE_PX, area=tray, table=table)


def taught(rng, tray, table: str) -> tuple[FaceTemplates, int]:
    templates, refused = FaceTemplates(), 0
    for die, faces in FANDOOBLE_DICE.items():
        for value in range(1, 7):
            look = 0
            while look < LOOKS:
                scene = thrown(rng, faces, tray, table, values=[str(value)])
                try:
                    templates.learn(die, faces[value - 1], scene.image, new_face=look == 0)
                except ValueError:
                    refused += 1
                    continue
                look += 1
    return templates, refused


def tray_zone(tray) -> np.ndarray:
    x0, y0, x1, y1 = tray
    w, h = SIZE
    return rect_zone(x0 * w, y0 * h, (x1 - x0) * w, (y1 - y0) * h)


def measure(tray, table: str, throws: int, seed: int = 5) -> tuple[dict, dict, int]:
    rng = np.random.default_rng(seed)
    templates, refused = taught(rng, tray, table)
    readers = {"ours": TaughtReader(templates), "before": OneKindReader(templates)}
    totals = {name: {**_totals(), "throws": 0, "counted": 0} for name in readers}
    for i in range(throws):
        faces = FANDOOBLE_DICE[list(FANDOOBLE_DICE)[i % 2]]
        scene = thrown(rng, faces, tray, table, count=int(rng.integers(2, 5)))
        truth = [(faces[int(d.face) - 1], d.box) for d in scene.dice if not d.partial]
        for name, reader in readers.items():
            part = score(truth, reader.read(scene.image, tray_zone(tray)))
            add(totals[name], part)
            totals[name]["throws"] += 1
            totals[name]["counted"] += part["found"] == len(truth)
    return totals["ours"], totals["before"], refused


def cells(t: dict) -> str:
    share = lambda k: f"{t[k]:>4} ({100 * t[k] / max(t['dice'], 1):5.1f}%)"  # noqa: E731
    return (f"{t['dice']:>5} {share('found')} {share('right')} {t['wrong']:>5} {t['false']:>5} {t['unreadable']:>5} "
            f"{t['counted']:>4} of {t['throws']:<4}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throws", type=int, default=40, help="throws read per tray and table")
    parser.add_argument("--seed", type=int, default=5, help="renders of another seed: other throws, taught afresh")
    args = parser.parse_args(argv)
    print(f"{'table':11} {'tray':13} {'reader':7} {'dice':>5} {'found':>12} {'right':>12} {'wrong':>5} {'false':>5} "
          f"{'unread':>6} {'counted':>12} refused")
    for table in TABLES:
        for name, tray in TRAYS.items():
            ours, before, refused = measure(tray, table, args.throws, args.seed)
            print(f"{table:11} {name:13} {'ours':7} {cells(ours)} {refused:>3}", flush=True)
            print(f"{table:11} {name:13} {'before':7} {cells(before)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
