"""Labelled photos of real pip dice (the nell-byler-d6 folder's layout), for training and the benchmark.

The folder holds ``images/<name>.jpg``, ``labels/<name>.txt`` (YOLO: ``class cx cy w h``,
class = face - 1) and ``counts.csv`` naming each photo's split (``train`` or ``test``).
Only the ``train`` split may be trained or tuned on; it is cut once more, by a fixed seed,
into the photos the networks learn from (``fit``) and the photos the reader's confidence
threshold is chosen on (``calibrate``). The ``test`` split is for the headline figures only.

A few labels of the train split name another face than the photo shows (found where a reader
disagreed with its label, ``tools/dice_label_review.py``, then checked by eye).
``dice_photo_fixes.csv`` beside this file holds their faces, for training and for choosing the
threshold; a fix applies only while the label file still says what the fix replaces, so a
corrected data set makes it a no-op. The ``test`` split's labels are read as they are: its
figures are never helped by a look at the reader's mistakes.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

CALIBRATION_SHARE = 0.2  # of the train split's photos, kept out of training to choose the threshold on
SPLIT_SEED = 613
FIXES = Path(__file__).resolve().parent / "dice_photo_fixes.csv"


@dataclass(frozen=True)
class LabelledDie:
    face: str  # "1".."6"
    box: tuple[int, int, int, int]  # x, y, w, h in the photo's pixels
    partial: bool  # cut by the photo's edge: neither counted nor held against a reader


def names(root: Path, split: str, fold: int = 0) -> list[str]:
    """Photo names of ``split``: ``train``, ``test``, or the train split's ``fit`` / ``calibrate`` parts.

    ``fold`` picks which fifth of the train split is ``calibrate`` (the shipped networks: fold 0); a
    network trained on another fold's ``fit`` is checked on that fold's ``calibrate``, so that more
    real dice than one fifth measure a threshold's wrong faces."""
    wanted = "train" if split in ("fit", "calibrate") else split
    with open(Path(root) / "counts.csv", newline="") as f:
        found = sorted(row["image"] for row in csv.DictReader(f) if row["split"] == wanted)
    if split not in ("fit", "calibrate"):
        return found
    order = np.random.default_rng(SPLIT_SEED).permutation(len(found))
    share = round(CALIBRATION_SHARE * len(found))
    held = set(order[fold * share:(fold + 1) * share].tolist())
    return [n for i, n in enumerate(found) if (i in held) == (split == "calibrate")]


def labels(root: Path, name: str, size: tuple[int, int]) -> list[LabelledDie]:
    """The labelled dice of photo ``name`` whose picture is ``size`` = (width, height)."""
    w, h = size
    fixes = label_fixes()
    out = []
    for i, line in enumerate(label_lines(root, name)):
        cls, cx, cy, bw, bh = (float(v) for v in line.split())
        box = (round((cx - bw / 2) * w), round((cy - bh / 2) * h), round(bw * w), round(bh * h))
        whole = box[0] >= 0 and box[1] >= 0 and box[0] + box[2] <= w and box[1] + box[3] <= h
        face = str(int(cls) + 1)
        labelled, fixed = fixes.get((name, i), (face, face))
        out.append(LabelledDie(fixed if labelled == face else face, box, not whole))
    return out


def label_lines(root: Path, name: str) -> list[str]:
    """The label file's lines of photo ``name``, one die each (YOLO: ``class cx cy w h``)."""
    return [line for line in (Path(root) / "labels" / name).with_suffix(".txt").read_text().split("\n") if line.strip()]


@lru_cache(maxsize=1)
def label_fixes() -> dict[tuple[str, int], tuple[str, str]]:
    """(photo, die's line in its label file) -> (the face labelled, the face the photo shows)."""
    with open(FIXES, newline="") as f:
        return {(row["image"], int(row["die"])): (row["labelled"], row["face"]) for row in csv.DictReader(f)}
