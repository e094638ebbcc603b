"""The synthetic table: real tags where the truth says, reproducible from the seed."""

import cv2
import numpy as np
import pytest

from vision import tags
from vision.qr import get_decoder
from vision.synth import table as synth


def test_first_game_shows_six_stacks_and_four_corners():
    scene = synth.first_game()
    assert [s.top for s in scene.stacks] == [(loc, 1) for loc in range(1, 7)]  # dealt from the sorted deck
    assert sum(len(s.cards) for s in scene.stacks) == 24
    frame, truth = synth.render(scene, synth.View(size=(2304, 1296), px_per_mm=2.6))
    assert frame.shape == (1296, 2304, 3) and frame.dtype == np.uint8
    visible = sorted(t.payload for t in truth.visible())
    assert visible == sorted([f"FF:{loc:02d}:1" for loc in range(1, 7)] + [f"TB:{c}" for c in tags.CORNERS])


def test_truth_matches_what_a_decoder_reads():
    rng = np.random.default_rng(3)
    scene = synth.random_scene(rng, n_stacks=10, table_mm=(700, 380), tag_mm=30)
    frame, truth = synth.render(scene, synth.View(size=(2304, 1296), px_per_mm=2.9, roll_deg=4), rng)
    found = {d.text: d for d in get_decoder("zxing").decode(frame)}
    for t in truth.visible():
        assert t.payload in found
        assert np.hypot(*np.subtract(found[t.payload].center, t.center_px)) < 3
        assert found[t.payload].side_px / 21 == pytest.approx(t.module_px, rel=0.1)


def test_same_seed_same_picture():
    a = synth.render(synth.random_scene(np.random.default_rng(5), n_stacks=6), synth.View(size=(640, 360), px_per_mm=0.7,
                                                                                          noise_sigma=3))[0]
    b = synth.render(synth.random_scene(np.random.default_rng(5), n_stacks=6), synth.View(size=(640, 360), px_per_mm=0.7,
                                                                                          noise_sigma=3))[0]
    assert np.array_equal(a, b)


def test_occluders_cover_tags_and_the_truth_says_how_much():
    rng = np.random.default_rng(8)
    scene = synth.random_scene(rng, n_stacks=12, partly_covering=4)
    frame, truth = synth.render(scene, synth.View(size=(2304, 1296), px_per_mm=2.5), rng)
    partly = [t for t in truth.tags if 0 < t.covered < 1]
    assert len(partly) >= 2
    hand = synth.Scene(scene.stacks, occluders=(synth.Occluder("hand", scene.stacks[0].center_mm, 200),))
    _, covered = synth.render(hand, synth.View(size=(2304, 1296), px_per_mm=2.5))
    top = tags.format_location(*scene.stacks[0].top)
    assert top not in {t.payload for t in covered.visible()}


def test_tilt_blur_noise_and_light_change_the_picture_as_asked():
    scene = synth.first_game()
    flat, _ = synth.render(scene, synth.View(size=(1152, 648), px_per_mm=1.3))
    dim, _ = synth.render(scene, synth.View(size=(1152, 648), px_per_mm=1.3, light_darkest=0.6))
    left, right = dim[:, :100].mean(), dim[:, -100:].mean()
    assert min(left, right) < 0.8 * max(left, right)
    tilted, truth = synth.render(scene, synth.View(size=(1152, 648), px_per_mm=1.0, tilt_deg=15))
    sides = [t.module_px for t in truth.tags if t.payload.startswith("TB")]
    assert max(sides) > 1.1 * min(sides)  # the far side is smaller
    blurred, _ = synth.render(scene, synth.View(size=(1152, 648), px_per_mm=1.3, blur_sigma=1.0))
    assert cv2.Laplacian(blurred, cv2.CV_64F).var() < cv2.Laplacian(flat, cv2.CV_64F).var()


def test_full_camera_frame_renders_in_bounded_time_and_size():
    rng = np.random.default_rng(2)
    frame, truth = synth.render(synth.random_scene(rng), synth.View(px_per_mm=4.6, noise_sigma=6, blur_sigma=1), rng)
    assert frame.shape == (2592, 4608, 3)
    assert len(truth.visible()) >= 24


# --- the demo script -------------------------------------------------------------------------------

def test_demo_script_is_a_legal_game_for_the_engine():
    from companion.games import fable
    from vision.synth.demo import DemoGame

    demo = DemoGame(("Anne", "Paul", "Rachel"), turns=60)
    state = fable.setup(list(demo.players), demo.options())
    assert demo.steps[0].display == tuple((s.number, tuple(c.copy for c in s.cards)) for s in state.display)
    purchases = 0
    for step in demo.steps[1:]:
        for move in step.entered + step.camera:
            state = fable.apply(state, fable.parse_move(move))
        purchases += any(m.startswith("buy") for m in step.camera)
        assert step.display == tuple((s.number, tuple(c.copy for c in s.cards)) for s in state.display)
        assert sum(len(c) for _, c in step.display) == 24
    assert purchases >= 8
    assert state.over  # the script plays the game to its end


def test_demo_frames_show_the_scripted_table_with_hands_between_stills():
    from vision.reader import TagReader
    from vision.synth.demo import DemoGame

    demo = DemoGame(turns=4, size=(1920, 1080), hand_frames=4, still_frames=2)
    frames = list(demo.frames())
    assert [f.phase for f in frames[:8]] == ["still", "still", "hands", "hands", "hands", "hands", "still", "still"]
    assert all(f.image.shape == (1080, 1920, 3) for f in frames)
    assert [f.index for f in frames] == list(range(len(frames)))
    image, truth = frames[0]
    assert image is frames[0].image and truth is frames[0].truth
    reader = TagReader(reuse_when_still=False)
    for f in frames:
        if f.phase != "still":
            continue
        seen = {s.text for s in reader.read(f.image).sightings}
        tops = {f"FF:{loc:02d}:{copies[0]}" for loc, copies in f.step.display}
        assert tops <= seen, (f.step, seen)
        assert {t.payload for t in f.truth.visible()} <= seen | {t.payload for t in f.truth.tags if t.covered}


def test_demo_camera_plays_the_script():
    from hardware.camera.demo import DemoCamera

    camera = DemoCamera(fps=0)
    camera.start()
    try:
        frame = camera.read()
        assert frame.work.ndim == 3 and frame.work.shape[1] >= 1280
    finally:
        camera.stop()


def test_cards_with_two_stickers_show_both_and_each_points_to_the_cards_centre():
    from vision.reader import TagReader

    stacks = (synth.Stack((150, 120), 25, ((12, 3),)), synth.Stack((350, 150), -60, ((40, 1),)))
    scene = synth.Scene(stacks, (500, 300), tags.PAIR_SYMBOL_MM, corners=(), second_sticker=True)
    image, truth = synth.render(scene, synth.View(size=(1600, 1000), px_per_mm=3.0, noise_sigma=0))
    assert {t.payload for t in truth.tags} == {"FF:12:3", "FF:12:3:B", "FF:40:1", "FF:40:1:B"}
    assert {t.card for t in truth.tags} == {(12, 3), (40, 1)}
    reading = TagReader(reuse_when_still=False).read(image)
    assert {s.text for s in reading.sightings} == {t.payload for t in truth.tags}
    mm_per_px = 1 / 3.0
    for sighting in reading.sightings:
        stack = next(s for s in stacks if s.top == sighting.tag.card)
        x, y = tags.card_centre(sighting.corners * mm_per_px)
        centre = np.array(stack.center_mm) - np.array(scene.table_mm) / 2 + np.array([800, 500]) * mm_per_px
        assert np.hypot(x - centre[0], y - centre[1]) < 2.0
    with pytest.raises(ValueError, match="two 30 mm tags do not fit"):
        synth.render(synth.Scene(stacks, (500, 300), 30.0, second_sticker=True), synth.View(size=(800, 500)))


def test_animals_coins_and_resting_hands_in_the_demo_script_are_the_same_every_time():
    from vision.synth.demo import DemoGame

    options = dict(turns=6, size=(960, 540), hand_frames=2, still_frames=6, second_sticker=True,
                   animals="anywhere", clutter=0.5, resting_hands=0.5, seed=4)
    first, second = DemoGame(**options), DemoGame(**options)
    assert [s.occluders for s in map(first.scene, range(len(first.steps)))] == \
        [s.occluders for s in map(second.scene, range(len(second.steps)))]
    kinds = {o.kind for i in range(len(first.steps)) for o in first.scene(i).occluders}
    assert {"animal", "coin"} <= kinds or {"animal", "die"} <= kinds
    phases = [f.phase for f in first.frames()]
    assert "resting" in phases and phases.count("resting") < phases.count("still")
    with pytest.raises(ValueError, match="animals"):
        DemoGame(animals="on the floor")
