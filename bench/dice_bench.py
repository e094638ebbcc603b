"""Dice reading: accuracy on synthetic renders and on real photos, speed, and the odds' cost.

    .venv/bin/python bench/dice_bench.py [--scenes 300] [--real ../shared/data/dice/nell-byler-d6]

Prints one table. Ours (vision.dice; pips: two small networks trained on renders by
tools/train_dice.py) is compared side by side with the usual hobby approach: a die finder
by colour and outline (vision.dice.find, which the taught reader uses) with pips counted
by OpenCV's SimpleBlobDetector. Synthetic sets: the plain trays of the tests
(``render_tray``) and photo-like trays (``render_photo``: close camera, clusters, light
tables, translucent and marbled dice; seeds the training never used). The real photos are
evaluation only: nothing is tuned or trained on them. A die counts as found when a reported
box overlaps its label with IoU >= 0.4; a reported readable die that overlaps no label is a
false die; dice cut by the picture's edge are neither counted nor held against the reader.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.dice import FaceTemplates, PipReader, TaughtReader  # noqa: E402
from vision.dice.find import Candidate  # noqa: E402
from vision.dice.types import box_iou as iou  # noqa: E402
from vision.dice.scan import scan, upright_patch  # noqa: E402
from vision.synth.dice import FANDOOBLE_FACES, TABLE_COLOURS, render_face_photo, render_photo, render_tray  # noqa: E402

IOU_MATCH = 0.4


class BlobDetectorReader:
    """The simple alternative: our die finder, pips counted by cv2.SimpleBlobDetector (dark or light)."""

    kind = "pips (SimpleBlobDetector)"

    def __init__(self):
        params = cv2.SimpleBlobDetector_Params()
        params.filterByArea, params.minArea, params.maxArea = True, 12, 600
        params.filterByCircularity, params.minCircularity = True, 0.6
        params.filterByInertia, params.minInertiaRatio = True, 0.5
        params.filterByConvexity, params.minConvexity = True, 0.8
        self.detector = cv2.SimpleBlobDetector_create(params)

    def read(self, image, zone=None):
        return scan(image, zone, None, self._read_one)

    def _read_one(self, image, c: Candidate, die_px):
        patch, _ = upright_patch(image, c, 64)
        grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
        inner = grey[8:56, 8:56]
        light_die = float(np.median(inner)) > 110
        points = self.detector.detect(inner if light_die else 255 - inner)
        count = len(points)
        return (str(count), 1.0, "", None) if 1 <= count <= 6 else (None, 0.0, "no pips seen", None)




def score(truth: list[tuple[str | None, tuple]], reading) -> dict:
    """Greedy IoU matching of labelled dice (face, box) to reported dice."""
    pairs = sorted(((iou(t[1], d.box), ti, di) for ti, t in enumerate(truth) for di, d in enumerate(reading.dice)),
                   reverse=True)
    used_t, used_d, right = set(), set(), 0
    for overlap, ti, di in pairs:
        if overlap < IOU_MATCH or ti in used_t or di in used_d:
            continue
        used_t.add(ti)
        used_d.add(di)
        right += reading.dice[di].face == truth[ti][0]
    false = sum(1 for di, d in enumerate(reading.dice) if di not in used_d and d.readable)
    unreadable = sum(1 for d in reading.dice if not d.readable)
    return {"dice": len(truth), "found": len(used_t), "right": right, "false": false, "unreadable": unreadable}


def add(total: dict, part: dict) -> None:
    for k, v in part.items():
        total[k] = total.get(k, 0) + v


def synthetic(reader_for, kind: str, scenes: int) -> dict:
    total: dict = {}
    for seed in range(scenes):
        scene = render_tray(np.random.default_rng(10_000 + seed), kind=kind)
        truth = [(d.face, d.box) for d in scene.dice if d.face is not None]
        add(total, score(truth, reader_for().read(scene.image)))
    return total


def photo_like(reader, scenes: int, size=(640, 480)) -> dict:
    """Photo-like renders (seeds far from the training script's), scored like the real photos."""
    total: dict = {}
    for seed in range(scenes):
        scene = render_photo(np.random.default_rng(90_000_000 + seed), size=size)
        truth = [(d.face, d.box) for d in scene.dice if d.face is not None and not d.partial]
        aside = [d.box for d in scene.dice if d.face is None or d.partial]
        reading = reader.read(scene.image)
        kept = type(reading)(tuple(d for d in reading.dice if not any(iou(d.box, b) >= IOU_MATCH for b in aside)),
                             reading.die_px)
        add(total, score(truth, kept))
    return total


def taught_templates() -> FaceTemplates:
    """Teach each Fandooble face from two renders, as `companion dice teach` would on one table."""
    templates = FaceTemplates()
    rng = np.random.default_rng(7)
    for face in FANDOOBLE_FACES:
        for look in range(2):
            die = "dragon" if face in "CGR" else "special"
            templates.learn(die, face, render_face_photo(rng, face, table="grey"), new_face=look == 0)
    return templates


def real(root: Path, reader, split: str) -> dict:
    total: dict = {}
    with open(root / "counts.csv", newline="") as f:
        names = [row["image"] for row in csv.DictReader(f) if row["split"] == split]
    for name in names:
        image = cv2.imread(str(root / "images" / name), cv2.IMREAD_COLOR)
        h, w = image.shape[:2]
        truth, partial = [], []
        for line in (root / "labels" / name).with_suffix(".txt").read_text().split("\n"):
            if not line.strip():
                continue
            cls, cx, cy, bw, bh = (float(v) for v in line.split())
            box = (round((cx - bw / 2) * w), round((cy - bh / 2) * h), round(bw * w), round(bh * h))
            whole = box[0] >= 0 and box[1] >= 0 and box[0] + box[2] <= w and box[1] + box[3] <= h
            (truth if whole else partial).append((str(int(cls) + 1), box))
        reading = reader.read(image)
        # Dice cut by the picture's edge are neither counted nor held against the reader.
        kept = type(reading)(tuple(d for d in reading.dice
                                   if not any(iou(d.box, p[1]) >= IOU_MATCH for p in partial)), reading.die_px)
        add(total, score(truth, kept))
    return total


def timing(reader, scenes: int = 40, photo: bool = False) -> tuple[float, float]:
    cv2.setNumThreads(1)
    images = [(render_photo(np.random.default_rng(50_000 + i)) if photo else
               render_tray(np.random.default_rng(50_000 + i), kind="pips", size=(640, 480))).image
              for i in range(scenes)]
    reader.read(images[0])
    times = []
    for image in images:
        start = time.perf_counter()
        reader.read(image)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def odds_timing() -> tuple[float, float]:
    from companion.games import fandooble as g
    from companion.games.fandooble import odds as odds_module

    state = g.apply(g.setup(["Lola", "Grace", "Anne"]), g.parse_move("roll GCCK"))
    runs = 2000
    start = time.perf_counter()
    for _ in range(runs):
        odds_module._odds.cache_clear()
        odds_module.odds(state)
    cold = (time.perf_counter() - start) / runs * 1e6
    start = time.perf_counter()
    for _ in range(runs):
        odds_module.odds(state)
    warm = (time.perf_counter() - start) / runs * 1e6
    return cold, warm


def row(name: str, t: dict) -> str:
    dice = t.get("dice", 0) or 1
    found = t.get("found", 0) or 1
    return (f"| {name} | {t.get('dice', 0)} | {t.get('found', 0)} ({100 * t.get('found', 0) / dice:.1f}%) | "
            f"{100 * t.get('right', 0) / dice:.2f}% | {100 * t.get('right', 0) / found:.2f}% | "
            f"{t.get('false', 0)} | {t.get('unreadable', 0)} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=300, help="synthetic trays per kind")
    parser.add_argument("--real", type=Path,
                        default=Path(__file__).resolve().parent.parent.parent / "shared/data/dice/nell-byler-d6")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"tables: {', '.join(TABLE_COLOURS)}; {args.scenes} synthetic trays per kind; IoU match >= {IOU_MATCH}")
    print("| set / reader | dice | found | read right (of all) | right (of found) | false dice | unreadable |")
    print("|---|---|---|---|---|---|---|")
    print(row("synthetic pips / ours", synthetic(PipReader, "pips", args.scenes)))
    print(row("synthetic pips / SimpleBlobDetector", synthetic(BlobDetectorReader, "pips", args.scenes)))
    templates = taught_templates()
    print(row("synthetic Fandooble faces / ours (taught)",
              synthetic(lambda: TaughtReader(templates), "fandooble", args.scenes)))
    print(row("photo-like pips 640x480 / ours", photo_like(PipReader(), args.scenes)))
    print(row("photo-like pips 640x480 / SimpleBlobDetector", photo_like(BlobDetectorReader(), args.scenes)))
    if (args.real / "counts.csv").is_file():
        for split in ("test", "train"):
            print(row(f"real nell-byler-d6 {split} / ours", real(args.real, PipReader(), split)))
            print(row(f"real nell-byler-d6 {split} / SimpleBlobDetector", real(args.real, BlobDetectorReader(), split)))
    else:
        print(f"| real photos | not present at {args.real} | | | | | |")
    print()
    print("| 640x480 tray, one core | median ms | max ms |")
    print("|---|---|---|")
    for name, reader, photo in (("ours (pips), plain trays", PipReader(), False),
                                ("SimpleBlobDetector, plain trays", BlobDetectorReader(), False),
                                ("ours (taught faces, 12 samples), plain trays", TaughtReader(templates), False),
                                ("ours (pips), photo-like trays (1-25 dice)", PipReader(), True),
                                ("SimpleBlobDetector, photo-like trays (1-25 dice)", BlobDetectorReader(), True)):
        median, most = timing(reader, photo=photo)
        print(f"| {name} | {median:.1f} | {most:.1f} |")
    cold, warm = odds_timing()
    print()
    print(f"odds (exact fractions): {cold:.0f} us computed, {warm:.1f} us cached")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
