"""The dice networks' training data (tools/train_dice.py): what the reader is shown besides dice.

Training itself needs PyTorch and runs outside the suite; these check the pieces that decide what
the reader learns, with the project's own OpenCV."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.train_dice import STREAK_SHARE, _augment_crops, _streak, _strays  # noqa: E402
from vision.dice.net import READER_PX  # noqa: E402
from vision.dice.types import box_iou  # noqa: E402
from vision.synth.dice import render_tray  # noqa: E402


def test_a_highlight_streak_is_a_long_narrow_stroke_not_a_pip():
    rng = np.random.default_rng(5)
    for _ in range(50):
        stroke = _streak(READER_PX, rng).max(axis=2)
        lit = (stroke > 0.3 * stroke.max()).astype(np.uint8)
        points = cv2.findNonZero(lit)
        (_, _), (a, b), _ = cv2.minAreaRect(points)
        assert max(a, b) >= 2 * max(1.0, min(a, b)), (a, b)  # a pip is round
        assert stroke.max() >= 40  # bright enough to be taken for a pip by a reader never shown one


def test_some_training_cut_outs_carry_a_streak_and_none_loses_its_die():
    rng = np.random.default_rng(9)
    grey = np.full((400, READER_PX, READER_PX, 3), 60, np.uint8)
    out = _augment_crops(grey, rng)
    brightened = [(crop.astype(int) - 60 * 1.4).max() > 30 for crop in out]  # above any light change
    assert 0.5 * STREAK_SHARE <= np.mean(brightened) <= 2 * STREAK_SHARE
    assert out.shape == grey.shape


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
