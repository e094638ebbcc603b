"""The synthetic dice trays: reproducible, varied, and true to their own ground truth."""

from __future__ import annotations

import numpy as np

from vision.synth.dice import FANDOOBLE_FACES, TABLE_COLOURS, picture_face, render_tray


def test_same_seed_same_scene_and_truth_inside_the_picture():
    a = render_tray(np.random.default_rng(4), kind="pips")
    b = render_tray(np.random.default_rng(4), kind="pips")
    assert np.array_equal(a.image, b.image) and a.dice == b.dice
    h, w = a.image.shape[:2]
    for die in a.dice:
        x, y, bw, bh = die.box
        assert 0 <= x and 0 <= y and x + bw <= w and y + bh <= h
        assert die.face in "123456"


def test_scenes_cover_every_table_colour_and_face():
    tables, faces = set(), set()
    for seed in range(60):
        scene = render_tray(np.random.default_rng(seed), kind="pips")
        tables.add(scene.table)
        faces.update(d.face for d in scene.dice)
    assert tables == set(TABLE_COLOURS) and faces == set("123456")


def test_the_six_fandooble_drawings_differ_and_dragons_differ_only_by_colour():
    drawings = {f: picture_face(f, 48)[0].astype(np.int16) for f in FANDOOBLE_FACES}
    for a in FANDOOBLE_FACES:
        for b in FANDOOBLE_FACES:
            if a < b:
                assert np.abs(drawings[a] - drawings[b]).mean() > 3, (a, b)
    grey = {f: drawings[f].mean(axis=2) for f in "GR"}
    inked = (np.abs(drawings["G"] - drawings["R"]).sum(axis=2) > 60)
    assert inked.any()
    # The same shape: where one dragon is drawn, so is the other.
    assert np.abs((grey["G"] < 200) ^ (grey["R"] < 200)).mean() < 0.1


def test_cocked_dice_have_no_face_in_the_truth():
    scene = render_tray(np.random.default_rng(1), kind="pips", faces=["3", "4"], cocked=1)
    assert [d.face for d in scene.dice] == ["3", "4", None]
    assert scene.dice[2].cocked
