"""Teaching a die's faces step by step (companion.teach.DiceTeacher) on rendered pictures of Fandooble's dice."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.dicestore import DiceStore
from companion.errors import ConfigError
from vision import overlay
from companion.teach import (
    CANCELLED,
    DEFAULT_LOOKS,
    DONE,
    FAILED,
    LEARNED,
    WAITING_FOR_MOTION,
    WAITING_FOR_STILL,
    BadTeaching,
    DiceTeacher,
    checked_request,
    without_die,
)
from vision.dice.faces import FaceTemplates, TaughtReader
from vision.synth.dice import random_style, render_face_photo, render_tray
from vision.synth.table import with_corner_tags

EMPTY = np.full((240, 320, 3), (150, 150, 146), np.uint8)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def hand_then(teacher, picture, *, still=4, clock=None, seconds_per_frame=0.1):
    """A hand passes over the tray (the empty tray is seen), then ``picture`` lies still for ``still`` frames."""
    statuses = []
    for image in [EMPTY] + [picture] * still:
        if clock is not None:
            clock.now += seconds_per_frame
        statuses.append(teacher.feed(image))
    return statuses


@pytest.fixture
def rng():
    return np.random.default_rng(11)


@pytest.fixture
def store(data_dir):
    return DiceStore(data_dir)


def test_each_face_is_asked_for_and_taken_once_the_die_lies_still(rng, store):
    teacher = DiceTeacher("dragon", "ccggrr", looks=1, save=store.save_templates)
    first = teacher.status()
    assert first["state"] == WAITING_FOR_MOTION and (first["step"], first["total"]) == (1, 6)
    assert first["prompt"] == "die dragon, face 1 of 6: put the treasure chest face up in the tray"
    assert (first["face"], first["face_name"]) == ("C", "treasure chest")

    chest = render_face_photo(rng, "C")
    statuses = hand_then(teacher, chest)
    assert [s["state"] for s in statuses] == [WAITING_FOR_MOTION, WAITING_FOR_STILL, WAITING_FOR_STILL,
                                              WAITING_FOR_STILL, LEARNED]
    after = statuses[-1]
    assert after["learned"] == 1 and after["step"] == 2 and after["message"] == "got it: C (treasure chest)"
    assert after["prompt"] == "die dragon, face 2 of 6: put the treasure chest face up in the tray"

    # The chest left lying there is not taken again for face 2: nothing moved.
    for _ in range(10):
        assert teacher.feed(chest)["learned"] == 1

    for number, face in enumerate("CGGRR", start=2):
        status = hand_then(teacher, render_face_photo(rng, face))[-1]
        assert status["learned"] == number
    assert status["state"] == DONE and not status["active"]
    assert status["message"] == "die dragon learned: 2× treasure chest, 2× green dragon, 2× red dragon"
    assert store.face_counts() == {"dragon": {"C": 2, "G": 2, "R": 2}}
    assert store.kind == "taught"


def test_a_lamp_switched_on_is_not_a_die_set_down(rng, store):
    # The whole tray brighter at once: no picture is taken and nothing is refused; the die set down next is taken.
    teacher = DiceTeacher("dragon", "c", looks=1, save=store.save_templates)
    statuses = [teacher.feed(image) for image in [EMPTY] * 2 + [cv2.add(EMPTY, (40, 40, 40, 0))] * 6]
    assert {s["state"] for s in statuses} == {WAITING_FOR_MOTION} and statuses[-1]["retries"] == 0
    assert hand_then(teacher, render_face_photo(rng, "C"))[-1]["state"] == DONE


def test_a_flat_die_refused_as_leaning_in_a_tray_towards_the_edge_of_the_view_is_told_why(store):
    # Far off the camera's axis a flat die shows a side face, and is sometimes taken for a leaning one: the teacher
    # is told that too, and what to do (bench/tray_place_bench.py: 1 to 3 of 39 pictures at the edge).
    import sys
    from pathlib import Path

    from vision.dice.single import NotOneDie, single_die_read

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from tray_place_bench import TRAYS, thrown, tray_zone

    rng = np.random.default_rng(5)
    for _ in range(60):  # pictures as teaching in that tray takes them, until one is refused as leaning
        picture = thrown(rng, "CCGGRR", TRAYS["bottom right"], "light grey", values=["1"]).image
        try:
            single_die_read(crop_in(picture, tray_zone(TRAYS["bottom right"])), None)
        except NotOneDie as refused:
            if "not lying flat" in str(refused):
                break
    else:
        raise AssertionError("no picture of a flat die at the edge was refused as leaning")
    teacher = DiceTeacher("dragon", "c", looks=1, zone=tray_zone(TRAYS["bottom right"]))
    for image in [np.zeros_like(picture)] + [picture] * 4:
        status = teacher.feed(image)
    assert status["retries"] == 1 and "is not lying flat (cocked or stacked). If it does lie flat: the tray lies " \
        "towards the edge of the camera's view" in status["message"] and status["message"].endswith("; try again")


def crop_in(image, zone):
    from vision.dice.zone import crop_to_zone

    return crop_to_zone(image, zone, 0)[0]


def test_a_face_is_taken_under_a_lamp_flickering_with_the_mains(rng, store):
    # A rolling shutter under a lamp on the mains: dark bands roll down the pictures, a third of a band from one to the
    # next (tests/test_roll.py). The die lying still is taken; before, the bands kept the tray from lying still.
    from vision.synth.effects import mains_flicker

    teacher = DiceTeacher("dragon", "cg", looks=1, save=store.save_templates)
    shown = 0
    for face in "CG":
        picture = render_face_photo(rng, face)
        for image in [EMPTY] + [picture] * 6:
            status = teacher.feed(mains_flicker(image, 0.25, shown / 3))
            shown += 1
        assert status["learned"] == "CG".index(face) + 1
    assert status["state"] == DONE and store.face_counts() == {"dragon": {"C": 1, "G": 1}}


def test_dice_taught_from_fewer_pictures_a_face_than_teaching_takes_now_are_advised_to_be_taught_again(rng, store):
    templates = FaceTemplates()
    for look in range(DEFAULT_LOOKS):
        for face in "FKW":
            templates.learn("special", face, render_face_photo(rng, face), new_face=look == 0)
        if look == DEFAULT_LOOKS - 2:  # one picture a face fewer than teaching takes
            store.save_templates(templates)
            advice = store.describe()["advice"]
            assert f"special ({DEFAULT_LOOKS - 1} a face)" in advice and "Teach them again" in advice
            tray = render_tray(rng, kind="fandooble", faces=["K"]).image  # still read, as a game reads them
            assert TaughtReader(store.load_templates()).read(tray).dice[0].face == "K"
    store.save_templates(templates)
    assert "advice" not in store.describe()


def test_dice_taught_before_slanted_samples_still_read_and_are_advised_to_be_taught_again(rng, store):
    templates = FaceTemplates(slanted=False)  # one sample a picture, as a version before taught them
    for look in range(DEFAULT_LOOKS):
        for face in "FKW":
            templates.learn("special", face, render_face_photo(rng, face), new_face=look == 0)
    store.save_templates(templates)
    settings = json.loads(store._json.read_text("utf-8"))
    del settings["pictures"], settings["read_by_pips"]  # what that version wrote
    store._json.write_text(json.dumps(settings), "utf-8")
    shown = store.describe()
    assert "taught before teaching also learned each face as seen at a slant: special." in shown["advice"]
    assert "Teach them again" in shown["advice"] and "fewer pictures" not in shown["advice"]
    assert shown["pictures"] == shown["samples"] == 3 * DEFAULT_LOOKS
    loaded = store.load_templates()
    assert loaded.pictures == {"special": 3 * DEFAULT_LOOKS} and loaded.read_by_pips == {}
    assert "pip_dice" not in shown
    tray = render_tray(rng, kind="fandooble", faces=["W"]).image
    assert TaughtReader(loaded).read(tray).dice[0].face == "W"
    # Another die taught now, the old one kept: the advice still names the old one only, then none.
    for die, faces in (("dragon", "CGR"), ("special", "FKW")):
        templates = without_die(store.load_templates(), die)
        for look in range(DEFAULT_LOOKS):
            for face in faces:
                templates.learn(die, face, render_face_photo(rng, face), new_face=look == 0)
        store.save_templates(templates)
        advice = store.describe().get("advice", "")
        assert "dragon" not in advice
        assert ("slant: special." in advice) if die == "dragon" else advice == ""


def test_dice_taught_before_shapes_were_kept_still_read_and_are_advised_to_be_taught_again(rng, store):
    # A version before kept no shape of each face: its dice read as they did, and teaching them again is advised.
    templates = FaceTemplates()
    for look in range(DEFAULT_LOOKS):
        for die, faces in (("dragon", "CGR"), ("special", "FKW")):
            for face in faces:
                templates.learn(die, face, render_face_photo(rng, face), new_face=look == 0)
    store.save_templates(templates)
    assert store.describe().get("advice") is None
    kept = store.load_templates()
    assert kept.without_shapes() == [] and all(np.allclose(a, b) for a, b in zip(kept.shapes, templates.shapes))
    with np.load(store._npz) as archive:  # what that version wrote: the descriptors alone
        descriptors = archive["descriptors"]
    np.savez_compressed(store._npz, descriptors=descriptors)
    settings = json.loads(store._json.read_text("utf-8"))
    del settings["without_shapes"]
    store._json.write_text(json.dumps(settings), "utf-8")
    old = store.load_templates()
    assert old.without_shapes() == ["dragon", "special"] and old.shape_list() == [None] * len(old.samples)
    assert "taught before the shapes of their faces were kept: dragon, special." in store.describe()["advice"]
    tray = render_tray(rng, kind="fandooble", faces=["W", "G"])
    assert sorted(TaughtReader(old).read(tray.image).faces) == ["G", "W"]
    # One die taught again: the other is still named; its faces take no part in the shapes' second opinion.
    again = without_die(old, "special")
    for look in range(DEFAULT_LOOKS):
        for face in "FKW":
            again.learn("special", face, render_face_photo(rng, face), new_face=look == 0)
    store.save_templates(again)
    assert store.load_templates().without_shapes() == ["dragon"]
    assert "kept: dragon." in store.describe()["advice"]
    assert TaughtReader(store.load_templates())._shapes() == (None, None)


def test_pip_dice_taught_as_their_pips_are_advised_to_be_read_by_their_pips(rng, store):
    style = random_style(rng)  # one die: the same body and pips in every picture
    templates = FaceTemplates()
    for look in range(DEFAULT_LOOKS):
        for face in "123456":
            tray = render_tray(rng, kind="pips", faces=[face], style=style, die_px=(44, 48)).image
            templates.learn("white", face, tray, new_face=look == 0)
    for face in "FKW":  # Fandooble's special die beside it, its faces pictures: no pip reader reads them
        for look in range(DEFAULT_LOOKS):
            templates.learn("special", face, render_face_photo(rng, face), new_face=look == 0)
    store.save_templates(templates)
    advice = store.describe()["pip_dice"]
    read = templates.read_by_pips["white"]
    assert read > 6 * DEFAULT_LOOKS / 2 and "special" not in templates.read_by_pips
    assert advice.startswith(f"The die white is a pip die: the pip reader reads {read} of {6 * DEFAULT_LOOKS} "
                             "of white's teaching pictures as the faces taught")
    assert "special" not in advice and store.describe()["pip_dice_command"] == "companion dice use pips"
    assert store.load_templates().read_by_pips == templates.read_by_pips  # kept with the taught faces
    assert without_die(store.load_templates(), "white").read_by_pips == {}
    store.set_kind("pips")  # taken: the camera reads them by their pips, nothing more to advise
    assert "pip_dice" not in store.describe()


def test_pip_dice_taught_as_other_faces_are_not_advised_to_be_read_by_their_pips(rng, store):
    style = random_style(rng)  # a pip die standing in for a picture die: pips 1 and 2 are chests, and so on
    templates = FaceTemplates()
    for pips, face in zip("123456", "CCGGRR"):
        tray = render_tray(rng, kind="pips", faces=[pips], style=style, die_px=(44, 48)).image
        templates.learn("dragon", face, tray)
    store.save_templates(templates)
    assert templates.read_by_pips == {} and "pip_dice" not in store.describe()


def test_several_looks_per_face_count_each_face_once_and_read_new_pictures(rng, store):
    teacher = DiceTeacher("special", "FKW", looks=2, save=store.save_templates)
    prompts = []
    for face in "FKW":
        for _ in range(2):
            prompts.append(teacher.status()["prompt"])
            # The camera's 640 x 480 picture, as the tray read below (the die's size is kept in its pixels).
            hand_then(teacher, render_face_photo(rng, face, size=(640, 480)))
    assert teacher.state == DONE
    assert prompts[1] == "die special, face 1 of 3: put the Fandooble face up in the tray (turn the die a little)"
    assert prompts[4] == "die special, face 3 of 3: put the wizard face up in the tray"
    special = store.describe()["dice"]["special"]
    assert {k: special[k] for k in ("faces", "counts")} == {"faces": "FKW", "counts": {"F": 1, "K": 1, "W": 1}}
    # The pictures it was taught from are kept with it, a row for each face, to look over on another evening
    sheet = cv2.imdecode(np.frombuffer(store.pictures_of("special"), np.uint8), cv2.IMREAD_COLOR)
    assert special["pictures_kept"] and sheet.shape[:2] == overlay.learned_sheet({}, "FKW", 2, None).shape[:2]
    assert store.describe()["pictures"] == 6
    # What was taught reads dice it has never seen.
    reader = TaughtReader(store.load_templates())
    tray = render_tray(np.random.default_rng(4), kind="fandooble", faces=list("KWF"), table="grey").image
    assert sorted(d.face for d in reader.read(tray).dice) == ["F", "K", "W"]


def test_a_picture_without_one_flat_die_asks_again_for_the_same_face(rng, store):
    teacher = DiceTeacher("dragon", "CG", looks=1, save=store.save_templates)
    hand_then(teacher, render_face_photo(rng, "C"))
    status = hand_then(teacher, EMPTY)[-1]  # the die was taken away: no die to learn
    assert status["state"] == WAITING_FOR_MOTION and status["step"] == 2 and status["retries"] == 1
    assert status["message"].startswith("show exactly one die") and status["message"].endswith("try again")
    assert status["prompt"] == "die dragon, face 2 of 2: put the green dragon face up in the tray"
    render_tray(rng, kind="fandooble", faces=["G", "C"], size=(320, 240), die_px=(60, 60), table="grey")  # not shown
    first_seen = status["seen"]
    scene = render_tray(rng, kind="fandooble", faces=["G", "C"], size=(320, 240), die_px=(60, 60), table="grey")
    status = hand_then(teacher, scene.image)[-1]
    assert status["retries"] == 2 and status["learned"] == 1
    # The refused picture is kept, what was taken for dice boxed in magenta: a box around each of the two dice. The
    # words point there (a command line, with no picture, names their pixels: tests/test_dice_cli.py).
    assert status["message"] == "show exactly one die, lying flat in the tray: saw 2 dice (boxed in the picture); " \
        "try again"
    assert status["seen"] and status["seen"] != first_seen and teacher.seen.shape == scene.image.shape
    assert not status["seen_learned"]
    for die in scene.dice:
        assert boxed_around(teacher.seen, scene.image, die.box), f"no box drawn around the die at {die.center}"
    status = hand_then(teacher, render_face_photo(rng, "G"))[-1]
    assert status["state"] == DONE and status["seen_learned"]  # the last, learned
    assert store.face_counts() == {"dragon": {"C": 1, "G": 1}}
    assert set(store.load_templates().taught_lights()) == {"dragon"}  # the camera's light, to compare a tray with
    assert 40 < store.load_templates().taught_side() < 80  # the camera's size of the die, to look for large dice at
    h, w = scene.image.shape[:2]
    assert store.load_templates().sides_on == {"dragon": (w, h)}  # and the picture that size was measured on


def boxed_around(seen: np.ndarray, image: np.ndarray, box) -> bool:
    """Whether ``seen`` (``image`` drawn on) has a magenta box around ``box`` (x, y, w, h), within half its size."""
    magenta = np.abs(seen.astype(int) - overlay.SEEN).max(axis=2) < 60
    boxed = magenta & np.any(seen != image, axis=2)
    x, y, w, h = box
    around = boxed[max(0, y - h // 2):y + h + h // 2, max(0, x - w // 2):x + w + w // 2]
    return around.sum() > 2 * (w + h)


def one_die(rng, face: str, **render):
    """A photo of one Fandooble die, ``face`` up, on a grey table: the scene (its ``image``, its die's ``box``)."""
    return render_tray(rng, kind="fandooble", faces=[face], size=(320, 240), die_px=(60, 60), table="grey", **render)


def test_the_die_a_face_was_learned_from_is_shown_boxed_and_a_wrong_photo_is_taken_back(rng, store):
    # A photo of the wrong face, chosen by mistake: seen on the phone (the die boxed, the face named), taken back,
    # and the face asked for again. The die is taught as if that photo had never been sent.
    chest, dragon, dragon_again, red = (one_die(rng, face) for face in "CGGR")
    teacher = DiceTeacher("dragon", "CGR", looks=1, save=store.save_templates, photos=True)
    status = teacher.photo(dragon.image)  # the green dragon up, where the treasure chest was asked for
    assert status["learned"] == 1 and status["seen"] and status["seen_learned"] and status["can_take_back"]
    assert boxed_around(teacher.seen, dragon.image, dragon.dice[0].box)
    status = teacher.take_back()
    assert (status["state"], status["learned"], status["step"]) == (WAITING_FOR_MOTION, 0, 1)
    assert status["message"] == "picture 1 was taken back: choose another photo"
    assert status["prompt"] == "die dragon, face 1 of 3: a photo of the die alone with the treasure chest face up"
    assert status["seen"] == "" and not status["can_take_back"] and teacher.templates.samples == []
    with pytest.raises(BadTeaching, match="there is no picture to take back: no picture was learned yet"):
        teacher.take_back()

    shown = teacher.photo(chest.image)
    assert boxed_around(teacher.seen, chest.image, chest.dice[0].box) and shown["seen"] != status["seen"]
    teacher.photo(dragon_again.image)
    assert teacher.take_back()["prompt"].endswith("the green dragon face up") and teacher.status()["can_take_back"]
    teacher.photo(dragon_again.image)  # taken back by mistake: taken again
    assert teacher.photo(red.image)["state"] == DONE

    # Taught as if only the three right photos had been sent, sample for sample.
    clean = DiceTeacher("dragon", "CGR", looks=1, photos=True)
    for scene in (chest, dragon_again, red):
        clean.photo(scene.image)
    taught = store.load_templates()
    assert taught.dice == {"dragon": "CGR"} and taught.pictures == {"dragon": 3}
    assert [face for _, face, _ in taught.samples] == [face for _, face, _ in clean.templates.samples]
    assert all(np.allclose(a, b) for (_, _, a), (_, _, b) in zip(taught.samples, clean.templates.samples))


def sheet_shows(sheet: np.ndarray, faces: str, looks: int, step: int) -> str:
    """The Fandooble face picture ``step`` (0-based) on the sheet shows (:func:`drawn_face`)."""
    left, top, side = overlay.sheet_cell(len(faces), looks, step)
    return drawn_face(sheet[top:top + side, left:left + side])


def drawn_face(picture: np.ndarray) -> str:
    """The Fandooble face a close-up shows, by the colour of its drawing: the chest's brown, the dragon's green, the
    red dragon's red ("" where it is grey: a place still to come)."""
    inside = picture[4:-4, 4:-4]  # within the next place's outline
    hsv = cv2.cvtColor(inside, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(int)
    drawn = hsv[(hsv[:, 1] > 100) & (hsv[:, 2] > 60) & ((hsv[:, 0] < 135) | (hsv[:, 0] > 160))]  # not the box
    if len(drawn) < picture.shape[0]:
        return ""
    hue = np.median(drawn[:, 0])
    return "G" if 35 < hue < 85 else "R" if hue < 8 or hue > 165 else "C" if hue <= 30 else "?"


def test_every_picture_learned_is_shown_a_row_for_each_face_and_any_one_can_be_taken_back(rng, store):
    # A batch of photos is looked over at once: each picture learned is a close-up of its die in the row of the face
    # it was learned as. One seen to be wrong is taken back where it lies, the others kept: its face is asked for
    # again first, then teaching goes on where it was. The sheet stays once the die is stored.
    scenes = [one_die(rng, face) for face in "CCGGRR"]
    teacher = DiceTeacher("dragon", "CGR", looks=2, save=store.save_templates, photos=True)
    assert teacher.status()["pictures"] == [] and teacher.sheet() is None
    for scene in scenes[:3]:
        teacher.photo(scene.image)
    pictures = teacher.status()["pictures"]
    assert [(p["step"], p["face"]) for p in pictures] == [(1, "C"), (2, "C"), (3, "G")]
    assert len({p["name"] for p in pictures}) == 3  # each close-up fetched by its own name
    assert [sheet_shows(teacher.sheet(), "CGR", 2, step) for step in range(6)] == ["C", "C", "G", "", "", ""]
    side = overlay.CLOSEUP_PX
    assert teacher.picture(3).shape == (side, side, 3) and drawn_face(teacher.picture(3)) == "G"
    # A row for each face, its pictures side by side, the faces in the order taught
    places = [overlay.sheet_cell(3, 2, step) for step in range(6)]
    tops, lefts = [top for _, top, _ in places], [left for left, _, _ in places]
    assert tops[0] == tops[1] < tops[2] == tops[3] < tops[4] == tops[5] and lefts == lefts[:2] * 3

    status = teacher.take_back(2)  # the second chest picture: the box was around a speck
    assert status["message"] == "picture 2 was taken back: choose another photo"
    assert (status["learned"], status["step"], status["face"]) == (2, 2, "C")
    assert status["prompt"].endswith("with the treasure chest face up (another one, the die turned a little)")
    assert [p["step"] for p in status["pictures"]] == [1, 3] and teacher.picture(2) is None
    assert [sheet_shows(teacher.sheet(), "CGR", 2, step) for step in range(4)] == ["C", "", "G", ""]  # grey again
    with pytest.raises(BadTeaching, match="picture 4 is not learned, so it cannot be taken back: the pictures "
                                          "learned are 1, 3"):
        teacher.take_back(4)
    status = teacher.photo(scenes[1].image)
    assert (status["learned"], status["step"]) == (3, 4)  # and on where it was: the green dragon's second picture
    assert status["prompt"].endswith("with the green dragon face up (another one, the die turned a little)")
    for scene in scenes[3:]:
        teacher.photo(scene.image)
    assert teacher.status()["state"] == DONE and len(teacher.status()["pictures"]) == 6
    assert [sheet_shows(teacher.sheet(), "CGR", 2, step) for step in range(6)] == list("CCGGRR")
    # Taught as if the photos had come in order, none taken back, sample for sample
    clean = DiceTeacher("dragon", "CGR", looks=2, photos=True)
    for scene in scenes:
        clean.photo(scene.image)
    taught = store.load_templates()
    assert taught.dice == {"dragon": "CGR"} and taught.pictures == {"dragon": 6}
    assert [face for _, face, _ in taught.samples] == [face for _, face, _ in clean.templates.samples]
    assert all(np.allclose(a, b) for (_, _, a), (_, _, b) in zip(taught.samples, clean.templates.samples))


def read_as_framed(sheet: np.ndarray, faces: str, looks: int, step: int) -> bool:
    """Whether picture ``step`` (0-based) is framed on the sheet as one the others read as another face."""
    left, top, side = overlay.sheet_cell(len(faces), looks, step)
    frame = np.abs(sheet[top:top + side, left:left + 2].astype(int) - overlay.READ_AS).max(axis=2) < 40
    return frame.mean() > 0.8


def test_a_picture_learned_as_a_face_not_taught_yet_that_shows_another_is_pointed_at_and_marked(rng, store):
    # The red dragon's photo chosen where the green dragon is asked for, before any red dragon was taught: nothing
    # taught says it is the red dragon, so it is learned. Then each red dragon shown looks like that picture and is
    # refused as the green dragon: the words point at picture 3, to take it back. Shown again and again, the red dragon
    # is taken; the others then read picture 3 as the red dragon, which is marked on the grid and the sheet and said.
    # Before: each red dragon was refused as the green dragon, and no word or mark led to picture 3.
    chest, chest_again, red_by_mistake, dragon, red, red_again, dragon_again = (
        one_die(rng, face) for face in "CCRGRRG")
    teacher = DiceTeacher("dragon", "CGR", looks=2, save=store.save_templates, photos=True)
    for scene in (chest, chest_again, red_by_mistake, dragon):
        status = teacher.photo(scene.image)
    assert status["learned"] == 4 and status["message"].startswith("got it: G (green dragon)")
    assert [p["step"] for p in status["pictures"] if p["read_as"]] in ([], [3])  # no right picture marked
    refused = teacher.photo(red.image)
    assert refused["learned"] == 4 and refused["message"] == (
        "this die shows the green dragon, taught already, not the red dragon: choose a photo with the red dragon face "
        "up")
    refused = teacher.photo(red.image)  # shown again: the picture it looks like may be the wrong one
    assert refused["learned"] == 4 and refused["message"].endswith(
        "the two faces may then be read alike). It looks most like picture 3: if picture 3 shows the red dragon, take "
        "it back")
    status = teacher.photo(red.image)  # insisted: taken as it is
    assert status["learned"] == 5
    assert ("picture 3, learned as the green dragon, reads as the red dragon") in status["message"]
    assert (3, "the red dragon") in [(p["step"], p["read_as"]) for p in status["pictures"]]
    assert [read_as_framed(teacher.sheet(), "CGR", 2, step) for step in range(3)] == [False, False, True]

    status = teacher.take_back(3)
    assert not any(p["read_as"] for p in status["pictures"])  # the red dragon's picture no longer reads as green
    teacher.photo(dragon_again.image)
    status = teacher.photo(red_again.image)
    assert status["state"] == DONE and not any(p["read_as"] for p in status["pictures"])
    assert "Look at" not in status["message"]
    assert not any(read_as_framed(teacher.sheet(), "CGR", 2, step) for step in range(6))


def test_pictures_the_others_read_as_another_face_are_marked_on_the_die_stored_and_said_when_it_is(rng, store):
    # A die of two faces, each shown twice, one picture of the chest swapped for the green dragon's with both faces
    # taught from other pictures first (here: read by the two green dragons): once done, the swapped picture is marked
    # on the sheet kept with the die, and the last words say to look at it.
    chest, chest_again, dragon, dragon_again, swapped = (one_die(rng, face) for face in "CCGGG")
    teacher = DiceTeacher("dragon", "CGR", looks=2, save=store.save_templates, photos=True)
    status = None
    for scene in (chest, chest_again, dragon, dragon_again):
        status = teacher.photo(scene.image)
    teacher.take_back(2)
    for scene in (swapped, swapped, swapped):  # refused twice as the green dragon, then taken as the chest
        status = teacher.photo(scene.image)
    assert status["learned"] == 4
    for scene in (one_die(rng, "R"), one_die(rng, "R")):
        status = teacher.photo(scene.image)
    assert status["state"] == DONE
    marked = {p["step"]: p["read_as"] for p in status["pictures"] if p["read_as"]}
    assert marked.pop(2) == "the green dragon"
    # A right picture of the green dragon may read as the chest to the others too, the swapped one among them (two
    # green dragons to read by, one learned as the chest): never the chest's own or the red dragons'.
    assert set(marked) <= {3, 4} and set(marked.values()) <= {"the treasure chest"}, marked
    assert ". Look at the pictures marked: picture 2, learned as the treasure chest, reads as the green dragon" \
           in status["message"]
    assert status["message"].endswith(" to the others (take it back if it shows that)")
    kept = cv2.imdecode(np.frombuffer(store.pictures_of("dragon"), np.uint8), cv2.IMREAD_COLOR)
    assert [read_as_framed(kept, "CGR", 2, step) for step in range(6)] == [
        False, True, 3 in marked, 4 in marked, False, False]


def test_a_picture_taken_back_once_the_die_is_stored_is_taught_again_and_the_die_stored_anew(rng, store):
    # Looking the pictures over after the last one, the teacher sees a wrong one: tapped, it is taken back and its
    # face asked for again, without teaching the whole die again; the die reads as stored meanwhile.
    chest, dragon, red, dragon_again = (one_die(rng, face) for face in "CGRG")
    teacher = DiceTeacher("dragon", "CGR", looks=1, save=store.save_templates, stored_at=store.changed_at,
                          photos=True)
    for scene in (chest, dragon, red):
        teacher.photo(scene.image)
    assert teacher.status()["state"] == DONE and teacher.status()["can_take_back"]
    stored = store.load_templates().samples
    status = teacher.take_back(2)
    assert (status["state"], status["active"], status["step"], status["learned"]) == (WAITING_FOR_MOTION, True, 2, 2)
    assert status["message"] == "picture 2 was taken back: choose another photo (the die reads as stored until that " \
        "picture is learned, and is then stored again)"
    assert len(store.load_templates().samples) == len(stored)  # as stored, until then
    assert teacher.photo(dragon_again.image)["state"] == DONE
    clean = DiceTeacher("dragon", "CGR", looks=1, photos=True)
    for scene in (chest, dragon_again, red):
        clean.photo(scene.image)
    taught = store.load_templates()
    assert taught.pictures == {"dragon": 3} and len(taught.samples) == len(clean.templates.samples)
    assert all(np.allclose(a, b) for (_, _, a), (_, _, b) in zip(taught.samples, clean.templates.samples))
    # Taken back again and cancelled: the die stays as it was stored.
    teacher.take_back(1)
    assert teacher.cancel()["message"] == "teaching was cancelled: the die stays as it was stored"
    assert len(store.load_templates().samples) == len(taught.samples)
    assert not teacher.status()["can_take_back"]

    # Once something else changed the dice (here the kind read), the session is over: taught again instead.
    again = DiceTeacher("dragon", "CGR", looks=1, save=store.save_templates, stored_at=store.changed_at, photos=True)
    for scene in (chest, dragon, red):
        again.photo(scene.image)
    assert again.status()["can_take_back"]
    store.set_kind("pips")
    assert not again.status()["can_take_back"]
    with pytest.raises(BadTeaching, match=r"the dice were changed since this die was learned \(teach it again\)"):
        again.take_back(1)
    assert store.kind == "pips"


def test_a_photo_of_a_face_taught_already_is_refused_where_another_face_is_asked_for(rng, store):
    # Photos chosen out of order, or the same photo twice: the chest shown where the green dragon is asked for is
    # not learned as the green dragon; the phone is told what the photo shows, and shown it.
    chest, chest_again, dragon, red = (one_die(rng, face) for face in "CCGR")
    teacher = DiceTeacher("dragon", "CGR", looks=1, save=store.save_templates, photos=True)
    teacher.photo(chest.image)
    status = teacher.photo(chest_again.image)
    assert (status["state"], status["learned"], status["retries"]) == (WAITING_FOR_MOTION, 1, 1)
    assert status["message"] == "this die shows the treasure chest, taught already, not the green dragon: choose " \
        "a photo with the green dragon face up"
    assert status["seen"] and not status["seen_learned"] and boxed_around(teacher.seen, chest_again.image,
                                                                          chest_again.dice[0].box)
    assert {face for _, face, _ in teacher.templates.samples} == {"C"}  # nothing of it learned
    teacher.photo(dragon.image)
    assert teacher.photo(red.image)["state"] == DONE
    assert store.face_counts() == {"dragon": {"C": 1, "G": 1, "R": 1}}
    # Another die taught before: its face is not taken for this die's.
    special = DiceTeacher("special", "FKW", looks=1, keep=store.load_templates(), photos=True)
    status = special.photo(one_die(rng, "G").image)
    assert status["learned"] == 0 and status["message"].startswith("this die shows the green dragon of the dragon "
                                                                   "die, taught already, not the Fandooble")
    assert special.photo(one_die(rng, "F").image)["learned"] == 1


def test_a_face_that_looks_like_one_taught_already_is_taken_when_shown_again_and_again(rng, store):
    # A die whose faces differ only by a turn (N and Z) shows a face taught already whatever is done: told twice, the
    # teacher is not stuck; the third picture is taken, saying the two faces may be read alike.
    teacher = DiceTeacher("dragon", "CGR", looks=1, save=store.save_templates, photos=True)
    teacher.photo(one_die(rng, "C").image)
    first = teacher.photo(one_die(rng, "C").image)["message"]
    assert first.endswith("not the green dragon: choose a photo with the green dragon face up")
    second = teacher.photo(one_die(rng, "C").image)["message"]
    assert second == first + " (if it is the green dragon, the same once more is taken as it is: the two faces may " \
        "then be read alike). It looks most like picture 1: if picture 1 shows the green dragon, take it back"
    status = teacher.photo(one_die(rng, "C").image)
    assert (status["state"], status["learned"], status["retries"]) == (LEARNED, 2, 2)
    assert status["message"] == "got it: G (green dragon); it looks like the treasure chest: the two may be read alike"
    again = teacher.photo(one_die(rng, "C").image)  # the next face is checked afresh
    assert again["retries"] == 3 and again["learned"] == 2 and "(if it is" not in again["message"]


def test_a_picture_taken_back_while_teaching_with_the_camera_is_taken_again_once_the_die_is_set_down(rng, store):
    teacher = DiceTeacher("dragon", "CG", looks=1, save=store.save_templates)
    dragon = one_die(rng, "G")
    assert hand_then(teacher, dragon.image)[-1]["seen_learned"]  # the wrong face was up (nothing to tell it by)
    assert teacher.take_back()["message"] == "picture 1 was taken back: set the die down again"
    for _ in range(5):  # it still lies there: nothing moved, nothing taken
        assert teacher.feed(dragon.image)["learned"] == 0
    chest = one_die(rng, "C")
    status = hand_then(teacher, chest.image)[-1]
    assert status["learned"] == 1 and status["message"] == "got it: C (treasure chest)"
    assert boxed_around(teacher.seen, chest.image, chest.dice[0].box)
    status = hand_then(teacher, one_die(rng, "C").image)[-1]  # the chest left up: told, as the buzzer says
    assert status["learned"] == 1 and status["retries"] == 1
    assert status["message"] == "this die shows the treasure chest, taught already, not the green dragon: put the " \
        "green dragon face up in the tray"


def test_teaching_from_photos_takes_each_photo_as_it_comes_and_asks_again_for_a_refused_one(rng, store):
    # Photos from a phone: no hand passes, no die is set down; each photo is the next picture, a large one scaled.
    teacher = DiceTeacher("dragon", "CG", looks=2, save=store.save_templates, photos=True)
    first = teacher.status()
    assert first["photos"] and first["prompt"] == "die dragon, face 1 of 2: a photo of the die alone with the " \
        "treasure chest face up"
    assert first["message"] == "waiting for a photo"
    big = cv2.resize(render_face_photo(rng, "C"), (3200, 2400), interpolation=cv2.INTER_LINEAR)
    status = teacher.photo(big)
    assert status["state"] == LEARNED and status["learned"] == 1 and status["message"] == "got it: C (treasure chest)"
    assert status["prompt"].endswith("the treasure chest face up (another one, the die turned a little)")
    two = render_tray(rng, kind="fandooble", faces=["G", "C"], size=(320, 240), die_px=(60, 60), table="grey").image
    status = teacher.photo(two)
    assert status["state"] == WAITING_FOR_MOTION and status["learned"] == 1 and status["retries"] == 1
    assert "2 dice" in status["message"] and status["message"].endswith("choose another photo") and status["seen"]
    for face in "CGG":
        status = teacher.photo(render_face_photo(rng, face))
    assert status["state"] == DONE and store.face_counts() == {"dragon": {"C": 1, "G": 1}}
    assert store.load_templates().pictures == {"dragon": 4}
    assert store.load_templates().taught_lights() == {}  # a phone's exposure: no light to compare the camera's with
    assert store.load_templates().taught_side() is None  # nor a size: a phone is held anywhere
    assert store.load_templates().sides_on == {}
    clock = Clock()  # a phone put away: the next photo, a quarter of an hour later, finds the session over
    teacher = DiceTeacher("dragon", "CG", looks=1, save=store.save_templates, photos=True, timeout_s=900, clock=clock)
    clock.now += 901
    status = teacher.photo(render_face_photo(rng, "C"))
    assert status["state"] == "failed" and status["learned"] == 0
    assert status["message"] == "no photo came within 15 min: teaching stopped, nothing was stored"


def test_a_face_not_shown_in_time_ends_the_session_and_nothing_is_stored(rng, store):
    clock = Clock()
    teacher = DiceTeacher("dragon", "CGR", looks=1, save=store.save_templates, timeout_s=60, clock=clock)
    hand_then(teacher, render_face_photo(rng, "C"), clock=clock)
    clock.now += 59
    assert teacher.tick()["state"] == LEARNED
    clock.now += 1.5  # no frame brought the green dragon for a minute
    status = teacher.feed(EMPTY)
    assert status["state"] == FAILED and not status["active"]
    assert status["message"] == "no die was set down within 60 s: teaching stopped, nothing was stored"
    assert status["prompt"] == "die dragon: teaching stopped, nothing was stored"
    assert hand_then(teacher, render_face_photo(rng, "G"))[-1]["learned"] == 1  # too late: nothing is taken
    assert store.settings()["dice"] == {} and store.load_templates() is None


def test_the_time_counts_from_the_last_picture_and_the_camera_going_quiet_also_ends_it(rng, store):
    clock = Clock()
    teacher = DiceTeacher("dragon", "CG", looks=1, save=store.save_templates, timeout_s=30, clock=clock)
    clock.now += 25
    hand_then(teacher, render_face_photo(rng, "C"), clock=clock)  # in time: the next face has 30 s again
    clock.now += 25
    assert teacher.tick()["state"] == LEARNED
    clock.now += 6
    assert teacher.tick()["state"] == FAILED  # no frames at all
    assert store.load_templates() is None


def test_cancelling_stops_at_once_and_stores_nothing(rng, store):
    teacher = DiceTeacher("special", "FFKKWW", looks=1, save=store.save_templates)
    for face in "FFKKW":
        hand_then(teacher, render_face_photo(rng, face))
    status = teacher.cancel()
    assert status["state"] == CANCELLED and status["learned"] == 5
    assert status["message"] == "teaching was cancelled: nothing was stored"
    assert hand_then(teacher, render_face_photo(rng, "W"))[-1]["state"] == CANCELLED
    assert store.load_templates() is None


def test_adding_keeps_the_other_die_and_teaching_a_die_again_replaces_it(rng, store):
    def teach(die, faces, add):
        teacher = DiceTeacher(die, faces, looks=1, save=store.save_templates,
                              keep=store.load_templates() if add else None)
        for face in faces:
            hand_then(teacher, render_face_photo(rng, face))
        assert teacher.state == DONE

    teach("special", "FFKKWW", add=False)
    teach("dragon", "CCGGRR", add=True)
    assert store.options_for("fandooble") == {"faces": "CCGGRR/FFKKWW"}
    teach("dragon", "CCCGGR", add=True)  # a corrected dragon die replaces the first one
    assert store.options_for("fandooble") == {"faces": "CCCGGR/FFKKWW"} and store.describe()["pictures"] == 12
    teach("dragon", "CGR", add=False)  # not adding: only this die is known
    assert store.face_counts() == {"dragon": {"C": 1, "G": 1, "R": 1}}


def test_a_store_that_cannot_be_written_fails_the_session_with_the_reason(rng):
    def broken(templates, pictures):
        raise OSError("No space left on device")

    teacher = DiceTeacher("dragon", "C", looks=1, save=broken)
    status = hand_then(teacher, render_face_photo(rng, "C"))[-1]
    assert status["state"] == FAILED and "No space left on device" in status["message"]


@pytest.mark.parametrize("die, faces, looks, field, words", [
    ("dragon", "CCGGRK", 2, "faces", "K is not one of them"),
    ("special", "FFKKWC", 2, "faces", "Fandooble"),
    ("d20", "A" * 21, 1, "faces", "at most 20"),
    ("dragon", "", 1, "faces", "e.g. CCGGRR"),
    ("dragon", "C?G", 1, "faces", "one letter"),
    ("../dice", "CG", 1, "die", "name the die"),
    ("dragon", "CG", 0, "looks", "1 to 5"),
    ("dragon", "CG", True, "looks", "1 to 5"),
])
def test_requests_that_cannot_be_taught_say_what_to_fix(die, faces, looks, field, words):
    with pytest.raises(BadTeaching, match=words) as refused:
        checked_request(die, faces, looks)
    assert refused.value.field == field


def test_other_dice_take_any_letters_and_fandooble_dice_are_named_in_lower_case():
    assert checked_request("pips", "1 2 3 4 5 6", 1) == ("pips", "123456", 1)
    assert checked_request("Dragon", "c,c,g,g,r,r", 2) == ("dragon", "CCGGRR", 2)


def test_a_game_declares_its_picture_dice_and_teaching_and_the_store_follow_it(store):
    from companion import games
    from vision.dice.faces import FaceTemplates

    class CoinFlip(games.Game):
        NAME, TITLE, CAMERA = "coinflip", "Coin flip", "dice"
        DICE = games.PictureDice({"coin": "HT"}, {"H": "heads", "T": "tails"})

        def dice_option(self, taught):
            return {"coin": taught["coin"]} if "coin" in taught else {}

    games.register(CoinFlip())
    try:
        with pytest.raises(BadTeaching, match=r"the coin die's faces are H \(heads\), T \(tails\); X is not"):
            checked_request("Coin", "HX", 1)
        teacher = DiceTeacher("coin", "HT", looks=1)
        assert teacher.prompt() == "die coin, face 1 of 2: put the heads face up in the tray"
        store.save_templates(FaceTemplates(dice={"coin": "HHT"}))
        assert store.options_for("coinflip") == {"coin": "HHT"}
        assert store.describe()["game_options"] == {"coinflip": "coin=HHT"}
    finally:
        games.unregister("coinflip")


def test_a_face_letter_another_game_also_uses_is_said_in_its_own_dies_game_words(rng, store):
    # Face letters were one list for every game: a coin's R ("rim") was named as Fandooble's R, "red dragon",
    # in the teaching prompt, its refusals and what was learned.
    from companion import games

    class CoinFlip(games.Game):
        NAME, TITLE, CAMERA = "coinflip", "Coin flip", "dice"
        DICE = games.PictureDice({"coin": "HTR"}, {"H": "heads", "T": "tails", "R": "rim"})

    games.register(CoinFlip())
    try:
        with pytest.raises(BadTeaching, match=r"faces are H \(heads\), T \(tails\), R \(rim\); X is not"):
            checked_request("coin", "RX", 1)
        teacher = DiceTeacher("coin", "R", looks=1, save=store.save_templates)
        assert teacher.prompt() == "die coin, face 1 of 1: put the rim face up in the tray"
        assert teacher.status()["face_name"] == "rim"
        assert DiceTeacher("dragon", "R", looks=1).status()["face_name"] == "red dragon"
        status = hand_then(teacher, render_face_photo(rng, "R"))[-1]
        assert status["state"] == DONE and "1× rim" in status["message"], status
    finally:
        games.unregister("coinflip")


def test_teaching_again_replaces_damaged_dice_files_and_keeps_the_damaged_settings_aside(rng, store):
    # "teach the dice again" must be possible where it is said: the damaged settings are kept beside the new.
    teacher = DiceTeacher("dragon", "CG", looks=1, save=store.save_templates)
    for face in "CG":
        hand_then(teacher, render_face_photo(rng, face))
    store._json.write_text("{half a fi", "utf-8")
    (store.root / "templates.npz").write_bytes(b"PK\x03\x04")
    with pytest.raises(ConfigError, match="teach the dice again"):
        store.load_templates()
    teacher = DiceTeacher("dragon", "CGR", looks=1, save=store.save_templates)
    for face in "CGR":
        hand_then(teacher, render_face_photo(rng, face))
    assert teacher.state == DONE and store.face_counts() == {"dragon": {"C": 1, "G": 1, "R": 1}}
    assert store.load_templates().pictures == {"dragon": 3}
    assert (store.root / "dice.json.damaged").read_text("utf-8") == "{half a fi"


def test_the_trays_own_tags_are_not_taken_for_dice_while_teaching(rng, store):
    # The tray is between its four corner tags: teaching paints them over, as the dice reader does, where
    # their black-and-white squares were taken for four more dice ("saw 5 dice").
    from tests.test_pipeline import _tray_with_tags
    from vision.dice.zone import tray_from_tags
    from vision.reader import TagReader

    empty = _tray_with_tags(np.full((480, 640, 3), (150, 150, 146), np.uint8), (200, 150))
    zone, tags = tray_from_tags(TagReader(reuse_when_still=False).read(empty).tags)
    hand = empty.copy()
    hand[250:700, 300:900] = (120, 160, 210)  # a hand sets the die down: the motion teaching waits for
    teacher = DiceTeacher("dragon", "CG", looks=1, save=store.save_templates, zone=zone, tags=tags)
    for face in "CG":
        picture = _tray_with_tags(render_face_photo(rng, face, size=(640, 480)), (200, 150))
        for image in [hand] + [picture] * 4:
            status = teacher.feed(image)
    assert status["state"] == DONE and status["retries"] == 0, status["message"]


def test_the_teachers_phone_is_told_where_the_tray_lies_in_the_picture_so_it_can_show_the_tray_up_close():
    # A far camera shows the whole table, the die a few pixels of it: the phone's live view while teaching is cut
    # to the tray, with a margin to see its rim and a hand coming in.
    tray = [[200, 100], [440, 110], [430, 300], [210, 290]]  # on a 640 x 480 picture
    teacher = DiceTeacher("dragon", "CG", looks=1, zone=np.array(tray, np.float64))
    assert teacher.status()["view"] is None  # no picture yet: its size is not known
    view = teacher.feed(EMPTY.repeat(2, axis=0).repeat(2, axis=1))["view"]  # 640 x 480
    margin = 0.08 * 240  # of the tray's larger side
    assert view["aspect"] == pytest.approx(640 / 480, abs=1e-3)
    assert view["box"] == pytest.approx([(200 - margin) / 640, (100 - margin) / 480,
                                         (440 + margin) / 640, (300 + margin) / 480], abs=1e-3)
    # A tray at the picture's edge is cut at the edge; with no tray the whole picture is shown.
    edge = DiceTeacher("dragon", "CG", looks=1, zone=np.array([[0, 0], [300, 0], [300, 200], [0, 200]], np.float64))
    assert edge.feed(EMPTY)["view"]["box"] == pytest.approx([0, 0, 1, (200 + 24) / 240], abs=1e-3)
    whole = DiceTeacher("dragon", "CG", looks=1)
    assert whole.feed(EMPTY)["view"] == {"box": [0.0, 0.0, 1.0, 1.0], "aspect": pytest.approx(320 / 240, abs=1e-3)}


def test_a_die_taught_again_in_a_darker_light_keeps_what_it_was_taught_and_the_evening_is_no_longer_darker(rng, store):
    # By day the dragon die is taught; the evening grows dark and the companion says so; the game master teaches it
    # again "in this light too": the day's pictures stay, and the evening's tray is a light it was taught in.
    from vision.dice.light import LightWatch
    from vision.synth.effects import relit

    dim = (0.6, 0.6, 0.6)
    day = DiceTeacher("dragon", "CGR", looks=2, save=store.save_templates)
    for face in "CCGGRR":
        status = hand_then(day, render_face_photo(rng, face))[-1]
    assert status["state"] == DONE
    by_day = store.load_templates()
    evening = DiceTeacher("dragon", "CGR", looks=2, save=store.save_templates, keep=store.load_templates(),
                          another_light=True)
    for face in "CCGGRR":
        status = hand_then(evening, relit(render_face_photo(rng, face), dim))[-1]
    assert status["state"] == DONE and status["message"].startswith("die dragon learned in this light too: ")
    both = store.load_templates()
    assert len(both.samples) == 2 * len(by_day.samples) and both.dice == {"dragon": "CGR"}
    assert both.pictures == {"dragon": 12} and len(both.lights["dragon"]) == 6  # one light: the evening's
    assert both.taught_lights()["dragon"] < 0.7 * by_day.taught_lights()["dragon"]
    assert store.face_counts() == {"dragon": {"C": 1, "G": 1, "R": 1}}  # the same die, not one with six faces
    reader = TaughtReader(both)
    since_day, since_evening = LightWatch(by_day.taught_lights()), LightWatch(both.taught_lights())
    for seed in (21, 22, 23):
        image = relit(render_tray(np.random.default_rng(seed), kind="fandooble", faces=["C", "G", "R"]).image, dim)
        dice = [(die.die, die.box) for die in reader.read(image).dice]
        assert since_evening.update(image, dice) is None
        darker = since_day.update(image, dice)
    assert darker is not None


def test_a_die_is_taught_again_in_another_light_only_once_taught_and_with_the_same_faces(rng, store):
    with pytest.raises(BadTeaching, match="not taught yet: teach it first") as refused:
        DiceTeacher("dragon", "CGR", another_light=True)
    assert refused.value.field == "another_light"
    taught = FaceTemplates()
    for face in "CGR":
        taught.learn("dragon", face, render_face_photo(rng, face))
    with pytest.raises(BadTeaching, match="was taught with the faces CGR: show the same faces") as refused:
        DiceTeacher("dragon", "CCGGRR", keep=taught, another_light=True)
    assert refused.value.field == "faces"
    # Taught again in this light from photos: the camera's light of the first teaching stays, the phone's is not kept
    photos = DiceTeacher("dragon", "CGR", looks=1, keep=taught, another_light=True, photos=True,
                         save=store.save_templates)
    for face in "CGR":
        status = photos.photo(render_face_photo(rng, face))
    assert status["state"] == DONE and store.load_templates().lights == taught.lights


def test_with_no_tray_marked_the_tables_corner_tags_are_not_taken_for_dice_while_teaching(rng, store):
    # A new install teaches before its tray is marked: the whole picture is looked at, and the four corner tags
    # of the table were taken for dice ("saw 5 dice", "the die at 57,660 is not lying flat"), every picture.
    teacher = DiceTeacher("dragon", "CGR", looks=1, save=store.save_templates)
    for face in "CGR":
        picture = with_corner_tags(render_face_photo(rng, face, size=(1280, 720)))
        status = hand_then(teacher, picture)[-1]
    assert status["state"] == DONE and status["retries"] == 0, status["message"]
    from vision.dice.faces import TaughtReader

    thrown = render_tray(rng, kind="fandooble", faces=["G", "R", "C"], size=(1280, 720)).image
    assert sorted(die.face for die in TaughtReader(store.load_templates()).read(thrown).dice) == ["C", "G", "R"]
