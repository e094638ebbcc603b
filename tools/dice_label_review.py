"""Dice whose label and the pip reader disagree, gathered into one picture for a person to check by eye.

This is how the train split's label fixes (``tools/dice_photo_fixes.csv``) were found, and what whoever
keeps the photos would look at to audit a split's labels:

    .venv/bin/python tools/dice_label_review.py [--split train|calibrate|test] [--root DATASET] [--out review.png]

It prints one line per disagreement (photo, the die's line in its label file, the face labelled,
the face read and the reader's certainty) and writes a contact sheet with the same numbers: each die
enlarged with a little of the table around it, captioned ``#n L<labelled> R<read>``. It changes nothing. A die that the photo shows with
another face than labelled goes into ``dice_photo_fixes.csv`` (train split only, with what was seen);
the test split's labels are the data set's owner's to correct, since the project never fixes the
labels its headline figures are measured on. (Looking only where a reader disagrees can only favour
that reader; bench/data/nell-byler-test-audit.csv is instead an audit by eye of every test die, made
without any reader's output, and the benchmark prints its figures beside the labels' own.) Most
disagreements are the reader's mistakes: only what a person sees in the photo decides.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools import dice_photos  # noqa: E402
from tools.dice_identity import ROOT, sheet  # noqa: E402
from vision.dice import PipReader  # noqa: E402
from vision.dice.types import box_iou  # noqa: E402

SAME_DIE = 0.4  # a reading and a label overlapping this much (IoU) are one die, as in bench/dice_bench.py
AROUND = 0.5  # the picture of a die shows this share of its side of the table on each side
CELL = 200  # pixels a side of each die's picture on the sheet: a pip's edge and a highlight told apart


@dataclass(frozen=True)
class Disagreement:
    image: str
    die: int  # the die's line in the photo's label file
    labelled: str
    read: str
    certainty: float
    picture: np.ndarray  # the die and a little of the table around it (BGR)


def disagreements(root: Path, split: str, reader: PipReader | None = None) -> list[Disagreement]:
    """Every whole labelled die of ``split`` that ``reader`` reads with another face than its label."""
    reader = reader or PipReader()
    found = []
    for name in dice_photos.names(root, split):
        photo = cv2.imread(str(root / "images" / name), cv2.IMREAD_COLOR)
        h, w = photo.shape[:2]
        reading = reader.read(photo)
        for i, die in enumerate(dice_photos.labels(root, name, (w, h))):
            hits = [d for d in reading.dice if box_iou(d.box, die.box) >= SAME_DIE]
            if die.partial or not hits or not hits[0].readable or hits[0].face == die.face:
                continue
            x, y, bw, bh = die.box
            margin = int(AROUND * max(bw, bh))
            picture = photo[max(0, y - margin):y + bh + margin, max(0, x - margin):x + bw + margin]
            found.append(Disagreement(name, i, die.face, hits[0].face, hits[0].confidence, picture))
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="train", choices=["train", "calibrate", "test"])
    parser.add_argument("--root", type=Path, default=ROOT, help="the nell-byler-d6 folder")
    parser.add_argument("--out", type=Path, default=Path("dice-label-review.png"), help="the contact sheet")
    args = parser.parse_args(argv)
    if not (args.root / "counts.csv").is_file():
        print(f"no labelled photos at {args.root}: give the data set's folder with --root", file=sys.stderr)
        return 2
    found = disagreements(args.root, args.split)
    print("n,image,die,labelled,read,certainty")
    for n, d in enumerate(found):
        print(f"{n},{d.image},{d.die},{d.labelled},{d.read},{d.certainty:.2f}")
    if found:
        cv2.imwrite(str(args.out), sheet([(f"#{n} L{d.labelled} R{d.read}", d.picture)
                                          for n, d in enumerate(found)], cell=CELL))
        print(f"{len(found)} dice to check by eye: {args.out}")
    else:
        print("the reader agrees with every label it reads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
