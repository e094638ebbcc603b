"""Real photos of pip dice (../shared/data/dice/nell-byler-d6): aggregate floors on the test split.

The pip reader's networks learned from renders and part of the train split (tools/train_dice.py),
its confidence threshold was chosen on the rest of the train split; the test split is never
trained or tuned on. The floors sit just below what the reader reaches on the
author's 50-image test split (bench/dice_bench.py prints the figures), and it must stay well
ahead of the plain SimpleBlobDetector count. COMPANION_LONG=1 adds the train split.
"""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dice_bench import (AUDIT, HELD_OUT_LOOKS, IDENTITIES, LOOKS, SPENT_HELD_OUT_LOOKS,  # noqa: E402
                        BlobDetectorReader, audited_faces, identity_photos, read_photos, real, scored, taught_real)

from tests.test_web_support import app, client, runtime  # noqa: E402,F401  (fixtures)
from tools import dice_photos  # noqa: E402
from vision.dice import PipReader  # noqa: E402

# Measured on the test split, read once with these networks (retrained for issue 13 so that tools/train_dice.py
# reproduces them), the finder's closer look at the whole picture (vision.dice.net.FAR_TINY), and the threshold the
# calibration rule chose with it (pips.UNSURE, 0.58, on three fifths of the train split): 306 of 308 found (99.4%),
# 294 read right (95.5%), 4 wrong faces (1.3%), 3 false dice. The 95% right is met; its wrong-face target (at
# most 1%, 3 dice) is missed by one. Two of the four are dice labelled with another face than the photo shows: an
# audit by eye of all 308 dice, made without any reader's output (bench/data/nell-byler-test-audit.csv), found those
# two and no other clear label error. With them corrected: 296 right (96.1%), 2 wrong (0.65%). The same networks with
# the closer look only around the dice first marked, at 0.70, read 290 right and 4 wrong (292 and 2 audited).
FOUND, RIGHT, WRONG, FALSE = 0.97, 0.95, 0.015, 0.02
AUDITED_RIGHT, AUDITED_WRONG = 0.95, 0.01
# Taught dice: measured 62 of 63 read right (98.4%), none wrong; the issue asks for 98% and at most 0.5%. One choice
# of teaching photos is luck: over six choices 380 of 403 are read right (94.3%), 1 wrong (the next test). 63 dice,
# not 72: teaching refuses some photos (a rival die in the crop: the other dice painted over leave marks the finder
# may take for a die) and the next photos of those faces teach instead. The networks trained again for issue 13 (the
# script's own, reproduced) refuse 16 of these 144 photos, those before 12; with those, 63 of 68 here and 390 of 417
# over six choices, 2 wrong. Each picture also taught as seen at a slant (vision/dice/faces.py, SLANT) and the
# shapes' second opinion (vision/dice/shapes.py) are measured in bench/dice_bench.py.
TAUGHT_READ, TAUGHT_RIGHT, TAUGHT_WRONG = 63, 0.9, 0.005


def test_real_pip_photos_floors(dice_data):
    read = read_photos(dice_data, PipReader(), "test")
    ours = scored(read)
    plain = real(dice_data, BlobDetectorReader(), "test")
    assert ours["dice"] == 308
    assert ours["found"] / ours["dice"] >= FOUND, ours
    assert ours["right"] / ours["dice"] >= RIGHT, ours
    assert ours["right"] > plain["right"]
    assert ours["wrong"] <= WRONG * ours["dice"], ours
    assert ours["false"] <= FALSE * ours["dice"], ours
    audited = scored(read, audited_faces())  # the same reading against the audit's labels
    assert audited["right"] == ours["right"] + 2, "the two dice whose labels the audit corrects are read as shown"
    assert audited["right"] / audited["dice"] >= AUDITED_RIGHT, audited
    assert audited["wrong"] <= AUDITED_WRONG * audited["dice"], audited


def test_the_test_split_audit_names_test_photos_and_what_their_label_files_say(dice_data):
    test = set(dice_photos.names(dice_data, "test"))
    with open(AUDIT, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 and len(audited_faces()) == 2  # two clear label errors, two dice it could not call
    for row in rows:
        assert row["image"] in test, f"{row['image']}: the audit is of the test split"
        line = dice_photos.label_lines(dice_data, row["image"])[int(row["die"])]
        assert str(int(line.split()[0]) + 1) == row["labelled"] != row["seen"]


def test_the_taught_dice_files_name_whole_train_dice_each_once_with_enough_photos_of_every_face(dice_data):
    # Checked without reading any die: the files a person wrote by eye name dice of the train split as labelled,
    # no die in two files (a die taught or read in one set is new to the reader in the next), every face of every
    # die or look pictured, and each look at least four times: three photos to teach, one or more to read.
    train = set(dice_photos.names(dice_data, "train"))
    seen: dict[tuple[str, str], str] = {}
    for identities in (IDENTITIES, LOOKS, HELD_OUT_LOOKS, *SPENT_HELD_OUT_LOOKS):
        with open(identities, newline="") as f:
            rows = list(csv.DictReader(f))
        photos: dict[str, dict[str, int]] = {}
        for row in rows:
            assert row["image"] in train, f"{identities.name}: {row['image']} is not a train photo"
            key = (row["image"], row["index"])
            assert key not in seen, f"{row['image']} die {row['index']}: in {seen.get(key)} and {identities.name}"
            seen[key] = identities.name
            height, width = cv2.imread(str(dice_data / "images" / row["image"])).shape[:2]
            die = dice_photos.labels(dice_data, row["image"], (width, height))[int(row["index"])]
            assert die.face == row["face"] and not die.partial, f"{identities.name}: {row}"
            faces = photos.setdefault(row["die"], {})
            faces[row["face"]] = faces.get(row["face"], 0) + 1
        for die, faces in photos.items():
            assert sorted(faces) == list("123456"), (identities.name, die, faces)
            assert identities == IDENTITIES or min(faces.values()) >= 4, (identities.name, die, faces)
    assert len(seen) == 144 + 277 + 210 + 213 + 128


@pytest.mark.slow
def test_real_pip_photos_train_split(dice_data):
    if os.environ.get("COMPANION_LONG") != "1":
        pytest.skip("the train split runs with COMPANION_LONG=1")
    ours = real(dice_data, PipReader(), "calibrate")  # the train split's photos the networks never saw
    assert ours["right"] / ours["dice"] >= 0.94, ours  # measured 95.5% (fold 0; the closer look only around the
    # dice first marked, at 0.70: 92.5%)
    assert ours["false"] <= FALSE * ours["dice"], ours


def test_real_dice_taught_with_the_pictures_a_face_the_companion_asks_for_are_read_in_other_photos(dice_data):
    # Four physical dice of the train split told apart by eye (bench/data/nell-byler-train-dice.csv), each face
    # taught from as many photos as teaching asks for by default (companion.teach.DEFAULT_LOOKS): with one fewer,
    # 3 of 91 are read with a wrong face.
    ours, teach_ms = taught_real(dice_data)
    assert ours["dice"] == TAUGHT_READ
    assert ours["right"] / ours["dice"] >= TAUGHT_RIGHT, ours
    assert ours["wrong"] <= TAUGHT_WRONG * ours["dice"], ours


def test_real_taught_dice_are_read_whichever_photos_taught_them(dice_data):
    # The same, six times over, each face taught from other photos of it: one choice leaves 68 dice to
    # read, where one die is 1.6%; six give a steadier figure (measured: 380 of 403 right, 1 wrong, where
    # the first choice alone has none wrong; 378 without the shapes' second opinion, vision/dice/shapes.py).
    ours, _ = taught_real(dice_data, ways=6)
    assert ours["right"] / ours["dice"] >= 0.91, ours
    assert ours["wrong"] <= 0.01 * ours["dice"], ours
    # A die read "face unclear" carries the face it looks most like, which the referee proposes for a person to
    # accept with one tap: measured 21 of the 22 unreadable dice, 15 of those proposals right.
    assert ours["guessed"] >= 0.5 * ours["unreadable"], ours
    assert ours["guessed_right"] >= 0.7 * ours["guessed"], ours


def test_real_taught_pictures_of_another_face_are_framed_and_right_ones_not(dice_data):
    # Each face of the four real dice taught from three photos, and each face's first photo swapped for a photo of
    # another face, learned as the first (the die set down wrong, photos chosen out of order): the others read it
    # as another face and it is framed for a look (companion.teach.read_by_the_others). Measured on this choice of
    # photos: right pictures framed 1 of 69; wrong ones 72 of 100, where refusing within LOOKS_LIKE_ANOTHER of their
    # face (once it is taught) catches 35 (with the networks before issue 13's retraining: 0 of 69 and 84 of 100; over
    # six choices 3 of 414 and 444 of 600 now, 0 and 431 before: bench/wrong_face_bench.py, and the alike dice).
    from wrong_face_bench import marked_afterwards

    from companion.teach import READ_AS_ANOTHER

    counts = marked_afterwards(identity_photos(dice_data), ways=1)
    assert counts["right"] >= 60 and counts["wrong"] >= 90, counts
    assert counts["right", READ_AS_ANOTHER] <= 0.015 * counts["right"], counts
    assert counts["wrong", READ_AS_ANOTHER] >= 0.7 * counts["wrong"], counts
    assert counts["wrong", READ_AS_ANOTHER] >= 2 * counts["wrong near"], counts


def test_real_alike_dice_taught_once_for_all_of_them_are_read(dice_data):
    # A game's alike dice are taught once: four more kinds of dice, several alike dice of each in the train split
    # (bench/data/nell-byler-train-looks.csv), taught from 3 photos a face six ways. Measured: 1037 of 1181 read
    # right (87.8%), 4 wrong (0.34%); without the shapes' second opinion 1033 and 4; without each picture also
    # taught as seen at a slant 1003 and 3 (with the networks before issue 13's retraining: 1020 of 1185, 1014,
    # and 974 and 12 wrong without the slant, which was chosen then). Still short of the 98% right. These four kinds chose the slant
    # and the shapes' margin (bench/dice_bench.py), so the figures are not held out: the next test's are.
    ours, _ = taught_real(dice_data, LOOKS, ways=6)
    assert ours["dice"] == 1181
    assert ours["right"] / ours["dice"] >= 0.84, ours
    assert ours["wrong"] <= 0.005 * ours["dice"], ours
    # A face unclear for a narrow margin whose drawing's shape is surely that face's is read: more dice read right,
    # no more wrong.
    before, _ = taught_real(dice_data, LOOKS, ways=6, by_shape=False)
    assert ours["right"] >= before["right"] + 4 and ours["wrong"] <= before["wrong"], (ours, before)
    # Proposed faces for the dice read "face unclear": measured 129 of 140, 84 of them right (65%; 66% without the
    # shapes' second opinion, 76% without the slanted samples).
    assert ours["guessed"] >= 0.6 * ours["unreadable"], ours
    assert ours["guessed_right"] >= 0.6 * ours["guessed"], ours


def test_real_alike_dice_new_to_the_reader_are_read(dice_data):
    # Two more kinds of alike dice in the train split, grouped by eye by someone who ran no reader, after the
    # reader was built and before the slanted teaching samples were measured on them
    # (bench/data/nell-byler-train-looks-heldout.csv): a marbled blue-and-black die whose swirl differs from die
    # to die, and an ivory one with black pips. Measured: 689 of 1016 right (67.8%), 29 wrong (2.85%); without the
    # shapes' second opinion 668 and 29 (this set was read before that was built, so it is spent for judging it);
    # without the slanted samples 591 and 34 (the test after this one compares them). With the networks before
    # issue 13's retraining: 646 of 1019, 27 wrong; 627 and 27; 584 and 43. Far from the issue's 98% / 0.5%.
    # Each kind taught alone, without the shapes (the networks before): the marbled dice 273 of 480 right, 2 wrong,
    # 205 unread (three photos a face do not show every swirl); the ivory ones 366 of 539, 26 wrong (pips at this
    # size: pip dice are read better by their pips, and teaching says so: tests/test_teach.py).
    ours, _ = taught_real(dice_data, HELD_OUT_LOOKS, ways=6)
    assert ours["dice"] == 1016
    assert ours["wrong"] <= 0.03 * ours["dice"], ours
    assert ours["right"] >= 0.6 * ours["dice"], ours


@pytest.mark.slow
def test_real_alike_dice_new_to_the_reader_are_read_with_fewer_wrong_faces_than_before_slanted_samples(dice_data):
    if os.environ.get("COMPANION_LONG") != "1":
        pytest.skip("teaching without the slanted samples, to compare, runs with COMPANION_LONG=1")
    ours, _ = taught_real(dice_data, HELD_OUT_LOOKS, ways=6)
    before, _ = taught_real(dice_data, HELD_OUT_LOOKS, ways=6, slanted=False)
    assert ours["wrong"] < before["wrong"] and ours["right"] > before["right"], (ours, before)


def test_label_fixes_touch_only_train_photos_and_replace_what_their_label_files_say(dice_data):
    train = set(dice_photos.names(dice_data, "train"))
    assert dice_photos.label_fixes()
    for (name, die), (labelled, face) in dice_photos.label_fixes().items():
        assert name in train, f"{name} is not a train-split photo: the test split's labels are never fixed"
        line = dice_photos.label_lines(dice_data, name)[die]
        assert str(int(line.split()[0]) + 1) == labelled != face
        image = cv2.imread(str(dice_data / "images" / name))
        assert dice_photos.labels(dice_data, name, image.shape[1::-1])[die].face == face


def test_a_label_fix_is_dropped_once_the_data_set_says_otherwise(dice_data, tmp_path):
    (name, die), (labelled, face) = next(iter(dice_photos.label_fixes().items()))
    lines = dice_photos.label_lines(dice_data, name)
    other = next(f for f in "123456" if f not in (labelled, face))
    lines[die] = " ".join([str(int(other) - 1)] + lines[die].split()[1:])
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / name).with_suffix(".txt").write_text("\n".join(lines) + "\n")
    assert dice_photos.labels(tmp_path, name, (640, 480))[die].face == other


def one_real_die(dice_data):
    """Real photos of one die (train split), as a camera over the tray sees a person set it down with each face up
    in turn: the first die (by name) of bench/data/nell-byler-train-dice.csv with more photos of every face than
    teaching takes, each face's first photos that teaching accepts (a person shown a refusal sets the die down
    again; a replay cannot), padded to one size as one camera's pictures are. Returns (the pictures to teach,
    face by face; the picture of the empty tray; the die's other photos as taken, with their faces)."""
    import numpy as np

    from companion.teach import DEFAULT_LOOKS
    from vision.dice.faces import FaceTemplates

    def accepted(picture) -> bool:
        try:
            FaceTemplates().describe_single(picture)
        except ValueError:
            return False
        return True

    photos = identity_photos(dice_data)
    taught = rest = None
    for die in sorted({name for name, _ in photos}):
        shown = {face: sorted(photos.get((die, face), []), key=lambda p: p[0]) for face in "123456"}
        ok = {face: [p for p in shown[face] if accepted(p[1])] for face in shown}
        if all(len(ok[face]) > DEFAULT_LOOKS for face in ok):
            taught = [(face, p[1]) for face in ok for p in ok[face][:DEFAULT_LOOKS]]
            used = {p[0] for face in ok for p in ok[face][:DEFAULT_LOOKS]}
            rest = [(face, p[2]) for face in shown for p in shown[face] if p[0] not in used]
            break
    assert taught, "no die of the identities file has enough photos of every face"
    side = max(max(picture.shape[:2]) for _, picture in taught)

    def padded(picture):
        h, w = picture.shape[:2]
        top, left = (side - h) // 2, (side - w) // 2
        return cv2.copyMakeBorder(picture, top, side - h - top, left, side - w - left, cv2.BORDER_REPLICATE)

    empty = np.full((side, side, 3), np.median(taught[0][1].reshape(-1, 3), axis=0), np.uint8)
    return [padded(picture) for _, picture in taught], empty, rest


def read_right_and_wrong(templates, rest) -> tuple[int, int]:
    """How many of the die's other photos (as taken, other dice and all) what was taught reads right, and wrong."""
    import numpy as np

    from vision.dice.faces import TaughtReader

    reader = TaughtReader(templates)
    right = wrong = 0
    for face, picture in rest:
        h, w = picture.shape[:2]
        dice = reader.read(picture).dice
        die = min(dice, key=lambda d: np.hypot(d.center[0] - w / 2, d.center[1] - h / 2)) if dice else None
        right += die is not None and die.face == face
        wrong += die is not None and die.readable and die.face != face
    return right, wrong


def test_teaching_with_the_file_camera_finishes_on_real_photos(dice_data, data_dir, tmp_path, capsys):
    # `companion dice teach` with the file camera replaying real photos of one die (one_real_die), each lying
    # still for four frames.
    from companion.cli import main
    from companion.dicestore import DiceStore
    from companion.teach import DEFAULT_LOOKS

    taught, empty, rest = one_real_die(dice_data)
    frames = tmp_path / "frames"
    frames.mkdir()
    pictures = [empty] * 4 + [picture for picture in taught for _ in range(4)]
    for i, picture in enumerate(pictures):
        cv2.imwrite(str(frames / f"{i:03d}.png"), picture)
    (data_dir / "config.toml").write_text(f'[camera]\nbackend = "file"\nfile_path = "{frames}"\nfps = 30.0\n')
    code = main(["dice", "teach", "--die", "real", "--faces", "123456", "--timeout", "20",
                 "--data-dir", str(data_dir)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"[{6 * DEFAULT_LOOKS}/{6 * DEFAULT_LOOKS}] got it" in err and "try again" not in err
    templates = DiceStore(data_dir).load_templates()
    assert templates.dice == {"real": "123456"} and templates.pictures == {"real": 6 * DEFAULT_LOOKS}
    right, wrong = read_right_and_wrong(templates, rest)
    assert right >= 0.8 * len(rest) and wrong <= 1, (right, wrong, len(rest))  # measured 20 of 22 right, none wrong


def test_teaching_from_the_setup_page_finishes_on_real_photos(dice_data, tmp_path, runtime, client):
    # The same die taught from the dashboard (the Setup page's requests), the running companion's camera showing
    # each photo until the teacher has taken it: the same teacher as the command line's, fed by the pipeline's
    # frames rather than a camera it opens.
    from companion.dicestore import DiceStore
    from companion.teach import DEFAULT_LOOKS
    from tests.test_web_dice import Camera, wait_for

    taught, empty, rest = one_real_die(dice_data)
    camera = Camera(runtime, empty)
    try:
        started = client.post("/api/dice/teach", json={"die": "real", "faces": "123456", "looks": DEFAULT_LOOKS})
        assert started.status_code == 202, started.get_json()
        for number, picture in enumerate(taught, start=1):
            camera.scene = picture  # the die set down (or turned) with the face asked for up
            status = wait_for(client, lambda s, n=number: s["learned"] == n or s["state"] == "failed")
            assert status["state"] != "failed", status
        assert status["state"] == "done", status
    finally:
        camera.stop()
    templates = DiceStore(tmp_path).load_templates()
    assert templates.dice == {"real": "123456"} and templates.pictures == {"real": 6 * DEFAULT_LOOKS}
    right, wrong = read_right_and_wrong(templates, rest)
    assert right >= 0.8 * len(rest) and wrong <= 1, (right, wrong, len(rest))


def test_teaching_from_photos_sent_from_a_phone_finishes_on_real_photos(dice_data, tmp_path, runtime, client):
    # The same die taught from photos on the Setup page (its requests), no camera running: each photo sent as a
    # phone sends it, a JPEG file.
    from companion.dicestore import DiceStore
    from companion.teach import DEFAULT_LOOKS

    taught, _, rest = one_real_die(dice_data)
    started = client.post("/api/dice/teach", json={"die": "real", "faces": "123456", "looks": DEFAULT_LOOKS,
                                                   "photos": True})
    assert started.status_code == 202, started.get_json()
    for number, picture in enumerate(taught, start=1):
        jpeg = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
        sent = client.post("/api/dice/teach/photo", data=jpeg, content_type="image/jpeg")
        assert sent.status_code == 200 and sent.get_json()["teaching"]["learned"] == number, sent.get_json()
    assert sent.get_json()["teaching"]["state"] == "done"
    templates = DiceStore(tmp_path).load_templates()
    assert templates.dice == {"real": "123456"} and templates.pictures == {"real": 6 * DEFAULT_LOOKS}
    right, wrong = read_right_and_wrong(templates, rest)
    assert right >= 0.8 * len(rest) and wrong <= 1, (right, wrong, len(rest))


def test_photos_of_ones_own_dice_are_measured_as_the_real_ones_are(tmp_path, capsys):
    # A game master with picture dice photographs the tray with each face up a few times, as the camera over the
    # table sees it, names the photos as teaching takes them, and the bench teaches three of each face and reads
    # the others, six ways, beside the target.
    from dice_bench import folder_photos, main, taught_and_read
    from vision.synth.dice import render_tray

    rng = np.random.default_rng(11)
    for number, face in enumerate("CGR", start=1):
        for look in range(1, 5):
            tray = render_tray(rng, faces=[face], kind="fandooble", size=(640, 480), die_px=(44, 48), table="felt")
            cv2.imwrite(str(tmp_path / f"dragon_{face}_{number}_{look}.png"), tray.image)
    (tmp_path / "notes.txt").write_text("not a photo")
    photos = folder_photos(tmp_path)
    assert sorted(photos) == [("dragon", "C"), ("dragon", "G"), ("dragon", "R")]
    assert all(len(taken) == 4 for taken in photos.values())
    totals, ms = taught_and_read(photos, ways=2)
    assert totals["dice"] == 2 * 3  # each way, each face's fourth photo
    assert totals["found"] == totals["right"] == totals["dice"] and ms > 0
    assert main(["--taught-photos", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert f"| your dice ({tmp_path.name}: 3 faces, 12 photos), chosen 6 ways (summed) / ours (taught) | 18 |" \
        in printed
    assert "target: at least 98% right, at most 0.5% wrong" in printed
    (tmp_path / "dragon_G_2_4.png").unlink()
    with pytest.raises(SystemExit):
        main(["--taught-photos", str(tmp_path)])
    assert "each face needs at least 4 photos (3 to teach, the others to read); too few of dragon G (3)" \
        in capsys.readouterr().err


def test_a_real_die_thrown_in_a_darker_light_than_teaching_is_said_and_in_its_own_light_is_not(dice_data):
    # One real die taught from its photos, then thrown again and again: as the photos were taken nothing is said
    # (measured: its light 0.86 to 1.10 times the taught light, bench/dice_bench.py --light-meter); under a light
    # 0.6 times as bright, the companion says the tray has grown darker.
    import numpy as np

    from companion.teach import DEFAULT_LOOKS
    from vision.dice.faces import FaceTemplates, TaughtReader
    from vision.dice.light import LightWatch
    from vision.synth.effects import relit

    taught, _, rest = one_real_die(dice_data)
    templates = FaceTemplates()
    for i, picture in enumerate(taught):
        templates.learn("real", "123456"[i // DEFAULT_LOOKS], picture, new_face=i % DEFAULT_LOOKS == 0)
    reader = TaughtReader(templates)

    def verdicts(light):
        watch, said = LightWatch(templates.taught_lights()), []
        for _, picture in rest:
            image = relit(picture, light)
            h, w = image.shape[:2]
            dice = reader.read(image).dice
            die = min(dice, key=lambda d: np.hypot(d.center[0] - w / 2, d.center[1] - h / 2)) if dice else None
            said.append(watch.update(image, [(die.die, die.box)] if die else []))
        return said

    assert set(verdicts(None)) == {None}
    dark = verdicts((0.6, 0.6, 0.6))
    assert all(dark[2:]) and all(0.5 < said.share < 0.7 for said in dark[2:]), dark  # from the third die on


def test_teaching_pictures_a_face_are_compared_on_the_same_dice(tmp_path):
    # The bench's --looks: each choice of how many pictures a face teaches reads the very same other photos, so
    # the figures differ by the teaching alone; a face with too few photos to keep and read one is left out.
    from dice_bench import folder_photos, looks_compared
    from vision.synth.dice import render_tray

    rng = np.random.default_rng(12)
    for number, (face, photos) in enumerate((("C", 6), ("G", 6), ("R", 6), ("F", 3)), start=1):
        for look in range(1, photos + 1):
            tray = render_tray(rng, faces=[face], kind="fandooble", size=(640, 480), die_px=(44, 48), table="felt")
            cv2.imwrite(str(tmp_path / f"dragon_{face}_{number}_{look}.png"), tray.image)
    compared = looks_compared(folder_photos(tmp_path, looks=2), choices=(1, 3), ways=2)
    assert sorted(compared) == [1, 3]
    assert compared[1]["dice"] == compared[3]["dice"] == 2 * 3 * 3  # two ways, three faces, three photos read
    assert compared[3]["right"] == compared[3]["dice"]
