"""The dice networks' training data (tools/train_dice.py): what the reader is shown besides dice.

Training itself needs PyTorch and runs outside the suite; these check the pieces that decide what
the reader learns, with the project's own OpenCV."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.train_dice import _strays, _targets  # noqa: E402
from vision.dice.net import NOT_A_DIE, READER_PX  # noqa: E402
from vision.dice.types import box_iou  # noqa: E402
from vision.synth.dice import render_tray  # noqa: E402


def test_a_thing_on_the_table_no_label_names_is_shown_to_the_reader_as_no_die():
    scene = render_tray(np.random.default_rng(3), kind="pips")
    boxes = [d.box for d in scene.dice]
    assert _strays(scene.image, boxes) == []  # every die the finder marks is labelled
    unlabelled = boxes[0]
    strays = _strays(scene.image, boxes[1:])  # as a photo whose labels miss a die (or a grey mark on the table)
    assert len(strays) == 1
    (cx, cy), side = strays[0]
    x, y, w, h = unlabelled
    assert abs(cx - (x + w / 2)) < w / 4 and abs(cy - (y + h / 2)) < h / 4
    assert box_iou((int(cx - side / 2), int(cy - side / 2), int(side), int(side)), unlabelled) > 0.5
    # ...and the reader's training samples of that picture show it as no die, besides the rest.
    dice = [(d.box, d.face, d.partial) for d in scene.dice[1:]]
    _, _, crops, labels = _targets(scene.image, dice, np.random.default_rng(1))
    _, _, crops_too, labels_too = _targets(scene.image, dice, np.random.default_rng(1), strays)
    assert labels_too == labels + [NOT_A_DIE]
    assert len(crops_too) == len(crops) + 1 and crops_too[-1].shape == (READER_PX, READER_PX, 3)
