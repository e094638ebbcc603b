"""The frame reader: every tag, small ones from the full frame, nothing decoded twice while still."""

import cv2
import numpy as np
import pytest

from vision import tags
from vision.qr import DECODERS
from vision.reader import TagReader, edge_dense_boxes
from vision.synth import table as synth


def _frame(module_work_px: float, seed: int, n_stacks: int = 12, **view):
    """A 2304 x 1296 full frame and its 1152 x 648 working image."""
    rng = np.random.default_rng(seed)
    ppm = 2.6
    scene = synth.random_scene(rng, n_stacks=n_stacks, table_mm=(2304 / ppm * 0.8, 1296 / ppm * 0.75),
                               tag_mm=module_work_px * 2 * 21 / ppm)
    full, truth = synth.render(scene, synth.View(size=(2304, 1296), px_per_mm=ppm, **view), rng)
    return cv2.resize(full, (1152, 648), interpolation=cv2.INTER_AREA), full, truth


@pytest.fixture(params=DECODERS)
def decoder(request):
    return request.param


def test_small_tags_are_read_from_the_full_frame(decoder):
    work, full, truth = _frame(1.6, seed=4, blur_sigma=0.5, noise_sigma=2)
    wanted = {t.payload for t in truth.visible()}
    work_only = TagReader(decoder=decoder).read(work)
    both = TagReader(decoder=decoder).read(work, full)
    assert {s.text for s in work_only.sightings} < wanted  # too small for the working image alone
    assert {s.text for s in both.sightings} == wanted
    assert both.candidates > 0 and any(s.from_full for s in both.sightings)
    assert both.scale == 2.0


def test_positions_are_in_working_pixels(decoder):
    work, full, truth = _frame(2.3, seed=5)
    reading = TagReader(decoder=decoder).read(work, full)
    by_text = {s.text: s for s in reading.sightings}
    for t in truth.visible():
        seen = by_text[t.payload]
        assert np.hypot(*np.subtract(seen.center, np.divide(t.center_px, 2))) < 2.5
        assert seen.module_px == pytest.approx(t.module_px / 2, rel=0.12)
        assert seen.tag == tags.parse(t.payload)


def test_a_still_table_is_not_decoded_again():
    work, full, truth = _frame(2.5, seed=6, noise_sigma=2)
    fetched = []

    def full_frame():
        fetched.append(1)
        return full

    reader = TagReader()
    first = reader.read(work, full_frame)
    calls = len(fetched)
    again = reader.read(work.copy(), full_frame)
    assert not first.reused and again.reused
    assert again.sightings == first.sightings and again.candidates == 0
    assert len(fetched) == calls  # nothing fetched or decoded for the still frame
    moved, moved_full = work.copy(), full.copy()  # a hand over part of the table, in both pictures
    cv2.rectangle(moved, (100, 100), (600, 500), (0, 0, 255), -1)
    cv2.rectangle(moved_full, (200, 200), (1200, 1000), (0, 0, 255), -1)
    third = reader.read(moved, moved_full)
    assert not third.reused
    assert 0 < len(third.sightings) < len(first.sightings)


def test_full_frame_is_fetched_only_when_something_was_missed():
    rng = np.random.default_rng(1)
    scene = synth.Scene(stacks=(), table_mm=(800, 450), corner_tag_mm=60)
    full, _ = synth.render(scene, synth.View(size=(2304, 1296), px_per_mm=2.5), rng)
    work = cv2.resize(full, (1152, 648), interpolation=cv2.INTER_AREA)

    def must_not_be_called():
        raise AssertionError("the full frame was fetched although every tag was read")

    reading = TagReader().read(work, must_not_be_called)
    assert sorted(s.text for s in reading.tags) == sorted(f"TB:{c}" for c in tags.CORNERS)


def test_edge_dense_boxes_find_codes_not_card_art():
    work, _, truth = _frame(2.0, seed=9)
    half = cv2.resize(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), (576, 324), interpolation=cv2.INTER_AREA)
    boxes = [tuple(2 * v for v in b) for b in edge_dense_boxes(half)]
    centres = [np.divide(t.center_px, 2) for t in truth.visible()]
    hits = sum(any(b[0] <= c[0] <= b[2] and b[1] <= c[1] <= b[3] for b in boxes) for c in centres)
    assert hits >= 0.9 * len(centres)
    assert len(boxes) <= 2 * len(centres)  # card art does not flood the full-resolution pass


def test_foreign_codes_are_listed_as_ignored():
    scene = synth.Scene(stacks=(synth.Stack((300, 200), 10, ((7, 2),)),),
                        stickers=(synth.Sticker("HTTPS://SHOP.EXAMPLE/1", (560, 220), 30),))
    full, _ = synth.render(scene, synth.View(size=(2304, 1296), px_per_mm=2.6))
    reading = TagReader().read(full)
    assert [s.text for s in reading.ignored] == ["HTTPS://SHOP.EXAMPLE/1"]
    assert "FF:07:2" in {s.text for s in reading.tags}


def test_a_region_is_done_only_when_the_codes_read_leave_no_room_for_another():
    """The reader skips a region when codes read fill it; checked against the plain definition on
    random maps: codes in the region and no free square of most of a code's side left in it."""
    from vision.reader import _Known

    rng = np.random.default_rng(5)
    for _ in range(40):
        known = _Known([], (400, 640))
        known.map[:] = rng.random(known.map.shape) < rng.uniform(0.2, 0.9)
        known._sides = [float(rng.uniform(20, 80))]
        side = max(2, int(known.ROOM * known.code_cells))
        boxes = [tuple(int(v) for v in (x, y, x + rng.integers(0, 300), y + rng.integers(0, 300)))
                 for x, y in rng.integers(-20, 640, (30, 2))]
        for box, covered in zip(boxes, known.covers_all(boxes)):
            x0, y0, x1, y1 = (max(0, v // known.CELL) for v in box)
            part = known.map[y0:y1 + 1, x0:x1 + 1]
            free = ~part
            room = any(free[r:r + side, c:c + side].all()
                       for r in range(part.shape[0] - side + 1) for c in range(part.shape[1] - side + 1))
            assert covered == (part.any() and not room), box
