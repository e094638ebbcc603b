"""The dice networks' training data (tools/train_dice.py): what the reader is shown besides dice.

Training itself needs PyTorch and runs outside the suite; these check the pieces that decide what
the reader learns, with the project's own OpenCV."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
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


def test_a_die_labelled_with_a_face_it_does_not_show_is_put_before_a_person_with_its_label_and_reading(tmp_path):
    # A data set in the real photos' layout: two rendered trays, one die of the second labelled 6 though it shows 2.
    from tools.dice_label_review import disagreements, main

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    rows = ["image,split"]
    for n, faces in enumerate((["1", "3", "5"], ["2", "4", "6"])):
        scene = render_tray(np.random.default_rng(20 + n), kind="pips", faces=faces, table="felt")
        mislabelled_side = max(scene.dice[0].box[2:])  # of the second tray's first die, the 2
        name = f"tray{n}.png"
        cv2.imwrite(str(tmp_path / "images" / name), scene.image)
        h, w = scene.image.shape[:2]
        lines = []
        for die in scene.dice:
            x, y, bw, bh = die.box
            face = "6" if (n, die.face) == (1, "2") else die.face
            lines.append(f"{int(face) - 1} {(x + bw / 2) / w} {(y + bh / 2) / h} {bw / w} {bh / h}")
        (tmp_path / "labels" / f"tray{n}.txt").write_text("\n".join(lines) + "\n")
        rows.append(f"{name},train")
    (tmp_path / "counts.csv").write_text("\n".join(rows) + "\n")

    found = disagreements(tmp_path, "train")
    assert [(d.image, d.die, d.labelled, d.read) for d in found] == [("tray1.png", 0, "6", "2")]
    picture = found[0].picture
    assert found[0].certainty >= 0.56 and min(picture.shape[:2]) >= 1.5 * mislabelled_side  # the die and the table by it

    sheet = tmp_path / "review.png"
    assert main(["--root", str(tmp_path), "--out", str(sheet)]) == 0
    assert cv2.imread(str(sheet)) is not None
