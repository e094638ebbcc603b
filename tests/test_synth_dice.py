"""The synthetic dice trays: reproducible, varied, and true to their own ground truth."""

from __future__ import annotations

import numpy as np

from vision.synth.dice import (FANDOOBLE_FACES, PHOTO_BODIES, PHOTO_INKS, TABLE_COLOURS, picture_face,
                               random_photo_style, render_photo, render_tray)


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


def test_photo_like_trays_are_reproducible_and_their_truth_fits_the_picture():
    a = render_photo(np.random.default_rng(3), size=(640, 640))
    b = render_photo(np.random.default_rng(3), size=(640, 640))
    assert np.array_equal(a.image, b.image) and a.dice == b.dice
    assert a.image.shape == (640, 640, 3)
    for die in a.dice:
        x, y, w, h = die.box
        inside = 0 <= x and 0 <= y and x + w <= 640 and y + h <= 640
        assert inside != die.partial
        assert (die.face is None) == die.cocked


def test_photo_like_trays_vary_like_real_photos():
    sizes, counts, tables, faces, light = [], [], set(), set(), 0
    for seed in range(30):
        scene = render_photo(np.random.default_rng(seed))
        counts.append(len(scene.dice))
        tables.add(scene.table)
        light += scene.table in ("white paper", "light grey", "off-white")
        faces.update(d.face for d in scene.dice if d.face)
        sizes += [max(d.box[2], d.box[3]) for d in scene.dice if not d.partial and not d.cocked]
    assert faces == set("123456") and len(tables) >= 5
    assert min(counts) <= 3 and max(counts) >= 12
    assert min(sizes) < 40 and max(sizes) > 80
    assert light >= 10  # light tables are common in homes


def test_photo_like_dice_touch_and_cluster():
    touching = 0
    for seed in range(10):
        scene = render_photo(np.random.default_rng(seed), count=12, cocked=0)
        boxes = [d.box for d in scene.dice]
        for i, (x, y, w, h) in enumerate(boxes):
            for (x2, y2, w2, h2) in boxes[i + 1:]:
                gap = max(x2 - (x + w), x - (x2 + w2), y2 - (y + h), y - (y2 + h2))
                touching += gap <= 2
    assert touching >= 10


def test_photo_styles_include_translucent_marbled_and_marked_ones():
    styles = [random_photo_style(np.random.default_rng(s)) for s in range(200)]
    assert sum(s.opacity < 1 for s in styles) >= 20
    assert sum(s.marble is not None for s in styles) >= 15
    assert {s.one_face for s in styles} == {"pip", "big pip", "symbol"}
    assert any(s.body == PHOTO_BODIES["black"] and s.ink == PHOTO_INKS["white"] for s in styles)
