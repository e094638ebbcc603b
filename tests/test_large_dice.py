"""Dice large in the picture. A camera hung low over a small tray: taught dice are looked for at the size they were
taught at, where the finder's first look, which knows dice of about FINDER_DIE_PX, would miss them; dice of no known
size (pip dice, dice taught from photos) are looked for again farther. A phone's
close-up taught from: the die, not the drawing on its face."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from companion.dicestore import DiceStore  # noqa: E402
from large_dice_bench import taught_with_camera as taught_at  # noqa: E402  (Fandooble's dice taught at px wide)
from large_dice_bench import thrown_at  # noqa: E402
from vision.dice import FaceTemplates, PipReader, TaughtReader, net  # noqa: E402
from vision.dice.single import NotOneDie, single_die  # noqa: E402
from vision.synth.dice import render_face_photo, render_tray  # noqa: E402


def throws(px: int, count: int = 12):
    rng = np.random.default_rng(9)
    for _ in range(count):
        faces = [str(f) for f in rng.choice(list("CGRFKW"), size=int(rng.integers(1, 3 if px > 100 else 4)))]
        yield render_tray(rng, kind="fandooble", faces=faces, die_px=(px, int(px * 1.1)))


def read_right(templates: FaceTemplates, px: int, larger: bool = True) -> tuple[int, int, int]:
    """(dice thrown, read right, read as another face) over a dozen throws of dice ``px`` wide."""
    reader, dice, right, wrong = TaughtReader(templates, larger=larger), 0, 0, 0
    for scene in throws(px):
        reading = reader.read(scene.image)
        for die in scene.dice:
            dice += 1
            near = [d for d in reading.dice if abs(d.center[0] - die.center[0]) < px / 3
                    and abs(d.center[1] - die.center[1]) < px / 3]
            right += any(d.face == die.face for d in near)
            wrong += any(d.readable and d.face != die.face for d in near)
    return dice, right, wrong


@pytest.fixture(scope="module")
def large():
    return taught_at(115)


def test_large_dice_taught_with_the_camera_are_read_at_the_size_taught(large):
    assert 100 < large.taught_side() < 130
    dice, right, wrong = read_right(large, 115)
    assert right == dice and wrong == 0
    # Taught from photos (no size kept), the finder's first look alone loses most of the same throws' dice; its
    # farther look finds them.
    photos = FaceTemplates(samples=large.samples, dice=large.dice)
    dice, right, wrong = read_right(photos, 115, larger=False)
    assert right < dice / 2
    dice, right, wrong = read_right(photos, 115)
    assert right >= dice - 1 and wrong == 0


def test_dice_of_the_usual_size_are_looked_for_as_before(monkeypatch):
    taught = taught_at(60)
    sizes = []
    real_find = net.find
    monkeypatch.setattr(net, "find", lambda image, **kw: sizes.append(kw.get("die_px")) or real_find(image, **kw))
    farther = []
    monkeypatch.setattr(net, "with_large_dice", lambda image, spots: farther.append(image) or spots)
    dice, right, wrong = read_right(taught, 60)
    assert right == dice and wrong == 0
    assert set(sizes) == {None}  # no size given to the finder: its first and closer looks, as without one
    # The size taught says these dice are not too large: no farther look, which would mark a die far off the
    # camera's axis whole with its side face, and read it worse (bench/tray_place_bench.py)
    assert farther == []


def test_large_pip_dice_under_a_low_camera_are_read_not_their_pips():
    # No size is known for pip dice: the first look alone reads few large dice, leaving them unreadable or marking
    # their pips and corners as dice (measured here: 6 of 16 right, 2 false dice; the finder before marked more).
    ours = thrown_at(PipReader(), "pips", 140, 12)
    first_look = thrown_at(PipReader(larger=False), "pips", 140, 12)
    assert ours["right"] >= 0.85 * ours["dice"] and ours["wrong"] == 0 and ours["false"] <= 2
    assert first_look["right"] < ours["dice"] / 2 and first_look["right"] < ours["right"]


def test_the_farther_look_adds_no_die_where_the_first_look_marked_nothing():
    scene = next(s for s in (render_tray(np.random.default_rng(seed), faces=["5"], die_px=(140, 150))
                             for seed in range(20)) if s.dice[0].box[0] > 200)  # one large die, away from the left
    first_look = net.find(scene.image)
    assert len(net.with_large_dice(scene.image, first_look)) < len(first_look)  # its parts, replaced by the die
    elsewhere = net.Spot((40.0, 40.0), (20, 20, 40, 40), 0.9)  # a mark far from the die, none within it
    assert net.with_large_dice(scene.image, [elsewhere]) == [elsewhere]


def test_dice_of_the_usual_size_are_read_alike_with_or_without_the_farther_look():
    rng = np.random.default_rng(4)
    for _ in range(8):
        image = render_tray(rng).image
        assert PipReader().read(image) == PipReader(larger=False).read(image)
    assert net.with_large_dice(image, []) == []  # nothing seen: nothing looked for farther


def test_the_size_to_look_for_depends_on_the_picture_the_finder_sees():
    assert net.size_to_look_for((480, 640, 3), None) is None
    assert net.size_to_look_for((480, 640, 3), 60) is None  # 30 in the finder's first look: it knows those
    assert net.size_to_look_for((480, 640, 3), 110) == 110
    assert net.size_to_look_for((240, 320, 3), 60) == 60  # a small tray is seen as it is: 60 is large there


def test_the_taught_size_is_kept_with_the_dice_and_odd_values_are_left_out(large, tmp_path):
    store = DiceStore(tmp_path)
    store.save_templates(large)
    assert store.load_templates().taught_side() == pytest.approx(large.taught_side())
    settings = json.loads((tmp_path / "dice" / "dice.json").read_text())
    settings["sides"] = {"dragon": [float("nan"), -3, "big", 120.0], "ghost": [50.0]}
    (tmp_path / "dice" / "dice.json").write_text(json.dumps(settings))
    assert store.load_templates().sides == {"dragon": [120.0]}
    del settings["sides"]  # dice taught before sizes were kept
    (tmp_path / "dice" / "dice.json").write_text(json.dumps(settings))
    assert store.load_templates().taught_side() is None


TABLES = ("grey", "wood", "felt", "white", "navy", "black")


def close_ups(share: float, count: int = 12, size=(1024, 768)):
    """Phone photos of one Fandooble die, the die ``share`` of the photo's shorter side: (photo, die side)."""
    rng = np.random.default_rng(int(share * 100))
    side = int(min(size) * share)
    for i in range(count):
        yield render_face_photo(rng, "CGRFKW"[i % 6], size=size, die_px=side, table=TABLES[i % len(TABLES)]), side


def cut_out_sizes(share: float, size=(1024, 768), larger: bool = True) -> list[float | None]:
    """Each of a dozen close-ups' die as cut out, as a share of its side; None for a photo refused."""
    sizes = []
    for photo, side in close_ups(share, size=size):
        try:
            sizes.append(max(single_die(photo, larger=larger).size) / side)
        except NotOneDie:
            sizes.append(None)
    return sizes


def taught_as_whole_dice(share: float, larger: bool = True) -> tuple[int, int]:
    """(photos whose die is cut out at its size, photos refused) of a dozen close-ups."""
    sizes = cut_out_sizes(share, larger=larger)
    return sum(size is not None and abs(size - 1) < 0.25 for size in sizes), sizes.count(None)


CLOSE = (0.25, 0.35, 0.42)  # a quarter to two fifths of the photo's shorter side


def test_a_close_up_is_taught_as_the_whole_die_not_the_drawing_on_it():
    whole, refused = map(sum, zip(*(taught_as_whole_dice(share) for share in CLOSE)))
    assert whole >= 34 and refused <= 1  # of 36 (measured: 35, one refused)
    # Looked at only as the finder first sees it, the drawing is taken for the die, or for several dice.
    before, _ = map(sum, zip(*(taught_as_whole_dice(share, larger=False) for share in CLOSE)))
    assert before <= whole - 6  # (measured: 24)


def test_a_close_up_first_marked_by_a_speck_of_its_die_is_taught_whole():
    # A phone held close, upright, the die two fifths of the photo on wood grain or a dark cloth: the finder's first
    # look may mark a speck of it (a tenth of the die or less), farther than three steps of at most six times from
    # the die. Looked for up to 13 times as large, it is found whole.
    sizes = [size for size in cut_out_sizes(0.42, size=(768, 1024)) if size is not None]
    assert sum(abs(size - 1) < 0.25 for size in sizes) >= 9  # of 12 (measured: 9, one cut at 0.73, two refused;
    # the finder before issue 13's retraining: 11)
    assert min(sizes) > 0.2  # (with steps of at most 6: one die of 12 cut out at a tenth of its side)


def test_a_close_up_whose_round_drawing_is_marked_surer_than_the_die_is_taught_whole():
    # The finder may mark a round drawing surer than the die it is on; looked for as larger, the die is marked a
    # little less surely, but its outline cuts it out at the very size looked for: that is the die.
    sizes = [size for size in cut_out_sizes(0.35, size=(1024, 1024)) if size is not None]
    assert len(sizes) >= 11  # of 12 (measured: 11, a photo refused either way)
    assert all(abs(size - 1) < 0.25 for size in sizes)  # (surer only: one cut out at two fifths of the die, its drawing)


@pytest.mark.parametrize("share", [0.05, 0.1])
def test_a_die_of_the_usual_size_is_not_taken_for_a_drawing_on_a_larger_one(share):
    assert taught_as_whole_dice(share) == (12, 0)


def test_the_taught_size_follows_the_cameras_picture_when_its_working_width_changes(large, tmp_path):
    # Taught on 640 x 480 pictures at 115 px; the camera's work_width then doubled: the same dice are 230 px in its
    # 1280 x 960 pictures and are looked for at that size (taken as 115 px, most were missed).
    store = DiceStore(tmp_path)
    store.save_templates(large)
    kept = store.load_templates()
    assert kept.sides_on == {"dragon": (640, 480), "special": (640, 480)}
    assert kept.taught_side((1280, 960)) == pytest.approx(2 * large.taught_side())
    assert kept.taught_side((1280, 720)) is None  # another view of the table: its size says nothing there

    def doubled(templates):
        reader, dice, right = TaughtReader(templates), 0, 0
        rng = np.random.default_rng(9)
        for _ in range(8):
            faces = [str(f) for f in rng.choice(list("CGRFKW"), size=2)]
            scene = render_tray(rng, kind="fandooble", faces=faces, size=(1280, 960), die_px=(230, 253))
            reading = reader.read(scene.image)
            for die in scene.dice:
                dice += 1
                right += any(d.face == die.face and abs(d.center[0] - die.center[0]) < 70
                             and abs(d.center[1] - die.center[1]) < 70 for d in reading.dice)
        return dice, right

    dice, right = doubled(kept)
    assert right == dice
    unsized = FaceTemplates(samples=kept.samples, dice=kept.dice, sides=kept.sides)  # the size taken as it is
    assert doubled(unsized)[1] < dice / 2


def test_the_small_dice_bench_reads_its_trays_with_each_closer_look_side_by_side(capsys):
    import small_dice_bench

    trays = small_dice_bench.scenes((1800, 1000), (8, 12), 3, seed=9000)
    scale = net.first_look_scale((1000, 1800))
    # dice 8-12 px wide in the finder's first look: their boxes, turned and a side face in view, up to 1.6 times that
    assert trays and all(8 <= d.box[2] * scale <= 1.6 * 12.5 for t in trays for d in t.dice)
    small_dice_bench.compare(1, 9000)
    rows = [line for line in capsys.readouterr().out.splitlines() if "all pictures" in line]
    assert len(rows) == 3 * len(small_dice_bench.CHOICES)  # each choice, for each size of dice
    assert net.FAR_TINY == small_dice_bench.CHOICES[0][1]  # the shipped choice put back
