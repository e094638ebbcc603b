"""Bad input: every odd picture is counted and shown, nothing crashes, nothing becomes a change."""

import cv2
import numpy as np
import pytest

from vision import cards, overlay
from vision.reader import TagReader
from vision.stabiliser import TableWatcher
from vision.synth import table as synth

VIEW = synth.View(size=(2304, 1296), px_per_mm=2.6)


def _render(scene):
    return synth.render(scene, VIEW)


def _watch(watcher, image, frames, start):
    return [s for i in range(frames) if (s := watcher.update(work=image, now=start + i * 0.3)) is not None]


def test_foreign_codes_are_counted_and_drawn_grey():
    scene = synth.Scene(stacks=(synth.Stack((300, 200), 0, ((7, 2),)),), stickers=(
        synth.Sticker("HTTPS://EXAMPLE.ORG/MENU", (550, 150), 30), synth.Sticker("FF:7:2", (550, 320), 25)))
    frame, _ = _render(scene)
    reading = TagReader().read(frame)
    snap = cards.snapshot(reading.sightings)
    assert snap.ignored == 2 and set(snap.ignored_texts) == {"HTTPS://EXAMPLE.ORG/MENU", "FF:7:2"}
    assert snap.top_copies() == {7: 2}
    drawn = overlay.draw(frame, reading, snap)
    for foreign in reading.ignored:
        x, y = np.round(foreign.corners[0]).astype(int)
        patch = drawn[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3)
        assert any(tuple(p) == overlay.FOREIGN for p in patch)
    assert not np.array_equal(drawn, frame)


def test_two_stickers_with_the_same_payload_are_named_and_drawn_red():
    scene = synth.Scene(stacks=(synth.Stack((200, 200), 0, ((12, 3),)), synth.Stack((600, 250), 20, ((12, 3),))))
    frame, _ = _render(scene)
    reading = TagReader().read(frame)
    snap = cards.snapshot(reading.sightings)
    assert snap.duplicates == ("FF:12:3",) and len(snap.stacks) == 2
    assert "FF:12:3 is on two stickers" in snap.problems[0]
    drawn = overlay.draw(frame, reading, snap)
    corner = np.round(next(t for t in reading.tags if t.text == "FF:12:3").corners[0]).astype(int)
    patch = drawn[corner[1] - 2:corner[1] + 3, corner[0] - 2:corner[0] + 3].reshape(-1, 3)
    assert any(tuple(p) == overlay.DUPLICATE for p in patch)


@pytest.mark.parametrize("torn", [0.2, 0.45, 0.7])
def test_a_torn_sticker_is_read_right_or_not_at_all(torn):
    scene = synth.Scene(stacks=(), stickers=(synth.Sticker("FF:21:3", (400, 225), 40, 15, torn=torn),))
    frame, _ = _render(scene)
    texts = [s.text for s in TagReader().read(frame).sightings if not s.text.startswith("TB:")]
    assert texts in ([], ["FF:21:3"])
    if torn >= 0.45:  # past what level H can repair
        assert texts == []


def test_a_half_covered_tag_is_never_misread():
    rng = np.random.default_rng(21)
    misread = 0
    for _ in range(3):
        scene = synth.random_scene(rng, n_stacks=10, table_mm=(760, 400), tag_mm=30, partly_covering=10)
        frame, truth = synth.render(scene, VIEW, rng)
        on_table = {t.payload for t in truth.tags}
        misread += len({s.text for s in TagReader().read(frame).sightings} - on_table)
    assert misread == 0


@pytest.mark.parametrize("picture", ["noise", "black", "white"])
def test_noise_black_and_white_frames_read_nothing_and_change_nothing(picture):
    frame, _ = _render(synth.first_game(tag_mm=30))
    watcher = TableWatcher(width_mm=800, height_mm=450, still_frames=2, persist_s=0.5)
    assert len(_watch(watcher, frame, 5, 0)) == 1
    rng = np.random.default_rng(0)
    for i in range(10):
        if picture == "noise":
            bad = rng.integers(0, 256, frame.shape, dtype=np.uint8)
        else:
            bad = np.full(frame.shape, 0 if picture == "black" else 255, np.uint8)
        assert watcher.update(work=bad, now=10 + i * 0.3) is None
        assert watcher.latest.stacks == () and watcher.latest.ignored == 0
    assert {s.location for s in watcher.stable.stacks if s.hidden} == set(range(1, 7))
    assert _watch(watcher, frame, 5, 20) == []  # the table comes back as it was: no change at all


@pytest.mark.parametrize("work, why", [
    (np.zeros((8, 8, 3), np.uint8), "too small"),
    (np.zeros((480, 640, 3), np.float32), "not an 8-bit image"),
    (np.zeros((480, 640, 5), np.uint8), "unexpected shape"),
    (None, "no picture"),
])
def test_unreadable_frames_give_an_empty_reading_with_the_reason(work, why):
    reading = TagReader().read(work)
    assert reading.sightings == () and why in reading.problems[0]
    watcher = TableWatcher()
    assert watcher.update(work=work, now=0) is None
    assert why in watcher.latest.problems[0]


def test_a_full_frame_of_the_wrong_shape_is_not_used():
    frame, _ = _render(synth.first_game(tag_mm=18))  # small tags: a full-resolution look is wanted
    work = cv2.resize(frame, (1152, 648), interpolation=cv2.INTER_AREA)
    wrong = np.zeros((1000, 1000, 3), np.uint8)
    reading = TagReader().read(work, wrong)
    assert "not the same picture" in reading.problems[0]
    assert reading.scale is None
    broken = TagReader().read(work, lambda: (_ for _ in ()).throw(RuntimeError("sensor gone")))
    assert "could not be fetched: sensor gone" in broken.problems[0]


def test_working_image_changing_size_forgets_the_old_geometry():
    frame, _ = _render(synth.first_game(tag_mm=30))
    watcher = TableWatcher(width_mm=800, height_mm=450)
    watcher.update(work=frame, now=0)
    assert watcher.geometry.source == "corners"
    half = cv2.resize(frame, (1152, 648), interpolation=cv2.INTER_AREA)
    covered = half.copy()
    cv2.rectangle(covered, (0, 0), (200, 150), (0, 0, 0), -1)  # TB:NW hidden in the new size
    watcher.update(work=covered, now=1)
    assert watcher.geometry is None or watcher.geometry.source != "remembered"


from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


@settings(max_examples=60)
@given(hnp.arrays(dtype=st.sampled_from([np.uint8, np.uint16, np.float32, np.int8]),
                  shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=64)))
def test_any_array_as_a_frame_never_raises(array):
    reader = TagReader()
    reading = reader.read(array, array)
    assert reading.sightings == () or all(s.tag is not None or s.text for s in reading.sightings)
    snap = cards.snapshot(reading.sightings, problems=reading.problems)
    assert snap.stacks == ()
    overlay_input = array if array.dtype == np.uint8 and array.ndim == 3 and array.shape[2] == 3 else None
    if overlay_input is not None:
        assert overlay.draw(overlay_input, reading, snap).shape == array.shape
