"""companion dice teach/show/aruco/use and companion see --dice, on rendered photos."""

from __future__ import annotations

import argparse
import json
import shlex

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.cli import see_dice
from companion.dicestore import DiceStore
from companion.games.fandooble.game import faces_option as fandooble_faces
from companion.errors import ConfigError, SetupError
from companion.games import fandooble
from tests.test_teach import read_as_framed
from vision import overlay
from vision.synth.dice import render_face_photo, render_tray


@pytest.fixture
def photos(tmp_path):
    folder = tmp_path / "faces"
    folder.mkdir()
    rng = np.random.default_rng(3)
    for die, faces in (("dragon", "CCCGGR"), ("special", "FKKWWW")):
        for number, face in enumerate(faces, start=1):
            cv2.imwrite(str(folder / f"{die}_{face}_{number}.png"), render_face_photo(rng, face))
    return folder


def test_teach_from_photos_records_face_counts_and_the_game_option(photos, data_dir, capsys):
    assert main(["dice", "teach", "--images", str(photos), "--data-dir", str(data_dir)]) == 0
    out, err = capsys.readouterr()
    assert "[1/12] die dragon, face 1: C (treasure chest)" in err and "[12/12]" in err
    shown = json.loads(out)
    assert shown["kind"] == "taught"
    assert shown["dice"]["dragon"]["counts"] == {"C": 3, "G": 2, "R": 1}
    assert shown["game_options"] == {"fandooble": "faces=CCCGGR/FKKWWW"}
    assert DiceStore(data_dir).load_templates().taught_lights() == {}  # photos: not the tray camera's light
    assert DiceStore(data_dir).load_templates().taught_side() is None  # nor its size
    # The option the teaching produced is one the engine takes, and the odds follow it.
    state = fandooble.setup(["Lola", "Grace"], {"faces": shown["game_options"]["fandooble"].split("=", 1)[1]})
    assert fandooble.to_json(state)["faces"]["dragon"] == {"C": 3, "G": 2, "R": 1}
    assert DiceStore(data_dir).load_templates().face_counts("special") == {"F": 1, "K": 2, "W": 3}


def test_a_photo_named_for_another_face_than_its_die_shows_is_refused_and_nothing_is_stored(tmp_path, data_dir,
                                                                                            capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    rng = np.random.default_rng(3)
    for name, face in (("dragon_C_1", "C"), ("dragon_G_2", "C"), ("dragon_R_3", "R")):  # a chest named green
        cv2.imwrite(str(folder / f"{name}.png"), render_face_photo(rng, face))
    assert main(["dice", "teach", "--images", str(folder), "--data-dir", str(data_dir)]) == 2
    assert "dragon_G_2.png: its die shows the treasure chest, taught already, not the green dragon: name each " \
           "photo for the face on top (nothing was stored)" in capsys.readouterr().err
    assert DiceStore(data_dir).load_templates() is None


def green_named_as_the_chests(tmp_path, lamp_lit: bool = False):
    """A folder of photos of the dragon die, two a face, the chest's second a photo of the green dragon (under a warm
    lamp with ``lamp_lit``)."""
    from vision.synth.effects import relit

    folder = tmp_path / "photos"
    folder.mkdir()
    rng = np.random.default_rng(3)
    for name, face in (("dragon_C_1_1", "C"), ("dragon_C_1_2", "G"), ("dragon_G_2_1", "G"), ("dragon_G_2_2", "G"),
                       ("dragon_R_3_1", "R"), ("dragon_R_3_2", "R")):
        photo = render_face_photo(rng, face)
        cv2.imwrite(str(folder / f"{name}.png"),
                    relit(photo, (0.5, 0.8, 1.3)) if lamp_lit and name == "dragon_C_1_2" else photo)
    return folder


def test_a_photo_named_for_a_face_taught_after_it_is_named_when_that_face_is_refused(tmp_path, data_dir, capsys):
    # The green dragon named as the chest's second photo: no green dragon was taught yet, so it was learned, and the
    # green dragon's own photo is then refused as the chest. The words name the photo it looks like.
    folder = green_named_as_the_chests(tmp_path)
    assert main(["dice", "teach", "--images", str(folder), "--data-dir", str(data_dir)]) == 2
    assert "dragon_G_2_1.png: its die shows the treasure chest, taught already, not the green dragon: name each photo " \
           "for the face on top (nothing was stored); it looks most like dragon_C_1_2.png: if that photo shows the " \
           "green dragon, name it so" in capsys.readouterr().err
    assert DiceStore(data_dir).load_templates() is None


def test_a_photo_the_others_read_as_another_face_is_said_and_marked_on_the_sheet(tmp_path, data_dir, capsys):
    # The green dragon named as the chest's second photo, taken under a warm lamp: too unlike the green dragon's own
    # photos to be refused as it, so the die is taught; the other photos read it as the green dragon, and it is said
    # and framed on the sheet of pictures learned, to look at.
    folder = green_named_as_the_chests(tmp_path, lamp_lit=True)
    drawn = tmp_path / "drawn"
    assert main(["dice", "teach", "--images", str(folder), "--pictures", str(drawn), "--data-dir", str(data_dir)]) == 0
    err = capsys.readouterr().err
    assert "look at dragon_C_1_2.png: learned as the treasure chest, the other photos read it as the green dragon; if " \
           "it shows that, name it so and teach again" in err
    assert err.count("look at ") == 1
    for sheet in (cv2.imread(str(drawn / "dragon_learned.seen.jpg")),
                  cv2.imdecode(np.frombuffer(DiceStore(data_dir).pictures_of("dragon"), np.uint8), cv2.IMREAD_COLOR)):
        assert [read_as_framed(sheet, "CGR", 2, step) for step in range(6)] == [False, True, False, False, False, False]


def test_the_photos_faces_were_learned_from_are_drawn_with_their_die_boxed_to_look_over(photos, tmp_path, data_dir,
                                                                                        capsys):
    from tests.test_teach import boxed_around, sheet_shows

    drawn = tmp_path / "learned"
    assert main(["dice", "teach", "--images", str(photos), "--pictures", str(drawn), "--data-dir", str(data_dir)]) == 0
    err = capsys.readouterr().err
    assert f"[1/12] die dragon, face 1: C (treasure chest) learned from dragon_C_1.png (drawn in " \
           f"{drawn / 'dragon_C_1.seen.jpg'})" in err
    assert sorted(p.name for p in drawn.iterdir()) == sorted([f"{p.stem}.seen.jpg" for p in photos.iterdir()] + [
        "dragon_learned.seen.jpg", "special_learned.seen.jpg"])
    # Each die's pictures on one sheet too, a row for each face, as the Setup page shows them
    assert f"every picture of the dragon die learned: {drawn / 'dragon_learned.seen.jpg'}" in err
    sheet = cv2.imread(str(drawn / "dragon_learned.seen.jpg"))
    assert [sheet_shows(sheet, "CCCGGR", 1, step) for step in range(6)] == list("CCCGGR")
    photo = cv2.imread(str(photos / "special_W_6.png"))
    seen = cv2.imread(str(drawn / "special_W_6.seen.jpg"))
    h, w = photo.shape[:2]
    assert boxed_around(seen, photo, (w // 4, h // 4, w // 2, h // 2))  # the die, in the photo's middle


def test_a_refused_teaching_photo_says_how_to_see_what_was_found(tmp_path, data_dir, capsys):
    folder = tmp_path / "my photos"  # a space in the path: the command given still works when copied
    folder.mkdir()
    scene = render_tray(np.random.default_rng(4), kind="fandooble", faces=["C", "G", "R"])
    cv2.imwrite(str(folder / "dragon_C_1.png"), scene.image)
    assert main(["dice", "teach", "--images", str(folder), "--data-dir", str(data_dir)]) == 2
    err = capsys.readouterr().err
    assert "dragon_C_1.png: show exactly one die, lying flat in the tray: saw 3 dice (at " in err  # by their pixels
    command = shlex.split(err.split("To see it drawn on the photo: ")[1])
    assert main(command[1:] + ["--data-dir", str(data_dir)]) == 0  # the command given works as given
    assert (folder / "seen" / "dragon_C_1.seen.jpg").is_file() and DiceStore(data_dir).load_templates() is None


def test_faces_taught_by_an_older_version_are_refused_with_what_to_do(photos, data_dir, capsys):
    assert main(["dice", "teach", "--images", str(photos), "--data-dir", str(data_dir)]) == 0
    store = DiceStore(data_dir)
    settings = store.settings()
    del settings["descriptor"]  # as the versions before dice were cut out by their outline wrote it
    store._write_settings(settings)
    assert not store.has_usable_templates()
    with pytest.raises(ConfigError, match="older version .* teach them again"):
        store.load_templates()
    capsys.readouterr()
    assert main(["dice", "show", "--data-dir", str(data_dir)]) == 0
    assert "teach them again" in json.loads(capsys.readouterr().out)["problem"]


def test_see_dice_prints_one_json_line_per_image(photos, data_dir, tmp_path, capsys):
    main(["dice", "teach", "--images", str(photos), "--data-dir", str(data_dir)])
    capsys.readouterr()
    tray = tmp_path / "tray.png"
    cv2.imwrite(str(tray), render_tray(np.random.default_rng(8), kind="fandooble", faces=list("GRK"),
                                       table="wood").image)
    pips = tmp_path / "pips.png"
    cv2.imwrite(str(pips), render_tray(np.random.default_rng(9), kind="pips", faces=["2", "6"]).image)
    args = argparse.Namespace(images=[str(tray)], dice_kind="taught", data_dir=str(data_dir))
    assert see_dice.run(args) == 0
    line = json.loads(capsys.readouterr().out)
    assert sorted(d["face"] for d in line["dice"]) == ["G", "K", "R"]
    assert line["unreadable"] == 0 and line["ms"] > 0
    assert all(len(d["box_px"]) == 4 and 0 <= d["confidence"] <= 1 for d in line["dice"])
    args = argparse.Namespace(images=[str(pips), str(tray)], dice_kind="pips", data_dir=str(data_dir), work_width=320)
    see_dice.run(args)
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 2 and sorted(d["face"] for d in lines[0]["dice"]) == ["2", "6"]
    assert max(d["box_px"][0] for d in lines[0]["dice"]) > 320  # boxes in the photo's own pixels


def test_see_dice_reads_a_tray_between_its_own_tags_and_never_a_code(data_dir, tmp_path, capsys):
    from tests.test_pipeline import _tray_with_tags

    scene = render_tray(np.random.default_rng(9), kind="pips", faces=["2", "5"])
    beside = render_tray(np.random.default_rng(10), kind="pips", faces=["6"], size=(240, 180)).image
    # An 1800 x 1000 picture: with the tags hidden, the whole of it is the tray, and the dice are 6-11 px wide in the
    # finder's first look (it marks two of the three there, one as a box three times its size; its closer look at the
    # whole picture finds all three: vision.dice.net.FAR_TINY)
    for hidden, expected in (("", ["2", "5"]), ("NW NE SE SW", ["2", "5", "6"])):
        photo = _tray_with_tags(scene.image, (200, 150), hidden=hidden)
        photo[780:960, 1500:1740] = beside  # a die left on the table beside the tray
        path = tmp_path / "table.png"
        cv2.imwrite(str(path), photo)
        assert see_dice.run(argparse.Namespace(images=[str(path)], dice_kind="pips", data_dir=str(data_dir))) == 0
        line = json.loads(capsys.readouterr().out)
        assert sorted(d["face"] for d in line["dice"] if d["face"]) == expected
        assert line["unreadable"] == 0  # and no code taken for a die
        assert line.get("tray") == (None if hidden else "between its tags")


def test_taught_kind_without_teaching_says_what_to_do(data_dir, tmp_path, capsys):
    args = argparse.Namespace(images=[], dice_kind="taught", data_dir=str(data_dir))
    with pytest.raises(Exception, match="companion dice teach"):
        see_dice.run(args)


def test_aruco_table_and_kind_are_stored(data_dir, capsys):
    assert main(["dice", "aruco", "0=C", "1=g", "--data-dir", str(data_dir)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["kind"] == "aruco" and shown["face_table"] == {"0": "C", "1": "G"}
    assert main(["dice", "use", "pips", "--data-dir", str(data_dir)]) == 0
    assert json.loads(capsys.readouterr().out)["kind"] == "pips"
    assert main(["dice", "aruco", "zero=C", "--data-dir", str(data_dir)]) == 2
    assert "write ID=FACE" in capsys.readouterr().err


def test_badly_named_photo_folder_is_refused(tmp_path, data_dir, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["dice", "teach", "--images", str(tmp_path / "empty"), "--data-dir", str(data_dir)]) == 2
    assert f"--images {tmp_path / 'empty'}: no photos named <die>_<face>_<n>.png" in capsys.readouterr().err
    assert main(["dice", "teach", "--images", str(tmp_path / "missing"), "--data-dir", str(data_dir)]) == 2
    assert f"--images {tmp_path / 'missing'}: no such folder" in capsys.readouterr().err


def test_teach_with_the_camera_follows_the_die_being_set_down(tmp_path, data_dir, capsys):
    # A file camera replays: empty tray, then each face set down and left still for a few frames.
    frames = tmp_path / "frames"
    frames.mkdir()
    rng = np.random.default_rng(5)
    empty = np.zeros((240, 320, 3), np.uint8)
    empty[:] = (150, 150, 146)
    pictures = [empty] * 4
    for face in "CGR":
        pictures += [render_face_photo(rng, face)] * 5
    for i, picture in enumerate(pictures):
        cv2.imwrite(str(frames / f"{i:03d}.png"), picture)
    (data_dir / "config.toml").write_text(f'[camera]\nbackend = "file"\nfile_path = "{frames}"\n')
    code = main(["dice", "teach", "--die", "dragon", "--faces", "CGR", "--looks", "1", "--timeout", "20",
                 "--pictures", str(tmp_path / "learned"), "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "[1/3] die dragon, face 1 of 3: put C (treasure chest) face up" in err
    assert json.loads(out)["dice"]["dragon"]["faces"] == "CGR"
    # Each picture taken, its die boxed, to look over
    assert f"[3/3] got it (drawn in {tmp_path / 'learned' / 'dragon_R_3_1.seen.jpg'})" in err
    assert sorted(p.name for p in (tmp_path / "learned").iterdir()) == \
        ["dragon_C_1_1.seen.jpg", "dragon_G_2_1.seen.jpg", "dragon_R_3_1.seen.jpg", "dragon_learned.seen.jpg"]
    # and all of them on one sheet, a row for each face
    sheet = cv2.imread(str(tmp_path / "learned" / "dragon_learned.seen.jpg"))
    assert f"every picture of the dragon die learned: {tmp_path / 'learned' / 'dragon_learned.seen.jpg'}" in err
    assert sheet.shape[0] > sheet.shape[1] and sheet.shape[0] >= 3 * overlay.CLOSEUP_PX


def _teaching_frames(tmp_path, faces: str):
    """A file camera's frames (640 x 480): the tray in the picture's right half, the die set down there with each
    face of ``faces`` in turn; on the left, outside the tray, another die lies all along."""
    frames = tmp_path / "frames"
    frames.mkdir()
    rng = np.random.default_rng(5)
    empty = np.zeros((480, 640, 3), np.uint8)
    empty[:] = (150, 150, 146)
    empty[120:360, 0:320] = render_face_photo(rng, "F")
    pictures = [empty] * 4
    for face in faces:
        picture = empty.copy()
        picture[120:360, 320:640] = render_face_photo(rng, face)
        pictures += [picture] * 5
    for i, picture in enumerate(pictures):
        cv2.imwrite(str(frames / f"{i:03d}.png"), picture)
    return frames


@pytest.mark.parametrize("tapped_on, said", [
    ([1280, 960], None),  # twice the pixels (a larger work_width then): placed on today's picture, taught
    ([1280, 720], "tapped on a 1280 x 720 picture and the camera's is 640 x 480, another view of the table"),
    ([], "the dice tray lies outside the camera's 640 x 480 picture"),  # tapped before the size was kept with it
])
def test_teach_with_the_camera_looks_in_the_tray_tapped_on_a_picture_of_another_size(tmp_path, data_dir, capsys,
                                                                                       tapped_on, said):
    # The tray was tapped on the Setup page while the camera gave another picture: it is placed on the camera's
    # picture of today, or refused saying why (teaching divided by zero in a tray off the picture).
    frames = _teaching_frames(tmp_path, "CG")
    w, h = tapped_on or [1280, 960]
    (data_dir / "config.toml").write_text(
        f'[camera]\nbackend = "file"\nfile_path = "{frames}"\n'
        f'[table]\ntray_px = [[{w // 2}, 0], [{w}, 0], [{w}, {h}], [{w // 2}, {h}]]\npicture_px = {tapped_on}\n')
    code = main(["dice", "teach", "--die", "dragon", "--faces", "CG", "--looks", "1", "--timeout", "20",
                 "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    if said is None:
        assert code == 0, err
        assert json.loads(out)["dice"]["dragon"]["faces"] == "CG"
        return
    assert code != 0 and f"{said}: tap the tray's four corners again" in err and "or teach from photos" in err
    assert DiceStore(data_dir).load_templates() is None  # nothing taught


def test_teach_with_the_demo_camera_finishes_on_the_demo_tables_die(data_dir, capsys):
    # No camera on this machine: the demo table's die is set down with each face the teacher asks for.
    (data_dir / "config.toml").write_text("[camera]\nfps = 30.0\nwork_width = 1280\n")
    code = main(["dice", "teach", "--die", "dragon", "--faces", "CGR", "--looks", "1", "--camera", "demo",
                 "--timeout", "60", "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "the demo camera" in err and "[3/3] got it" in err and "try again" not in err
    shown = json.loads(out)
    assert shown["dice"]["dragon"]["faces"] == "CGR" and shown["demo"]
    # The rendered die is kept with the demo table's dice: the table's own are not taught by it.
    assert DiceStore(data_dir, demo=True).face_counts() == {"dragon": {"C": 1, "G": 1, "R": 1}}
    assert DiceStore(data_dir).load_templates() is None and DiceStore(data_dir).kind == "pips"


def test_teaching_a_games_die_without_its_faces_takes_them_as_the_die_is_usually_made(data_dir, capsys):
    # --faces was required; a game's die is usually made one way (its data), which the teacher now starts from.
    (data_dir / "config.toml").write_text("[camera]\nfps = 30.0\nwork_width = 1280\n")
    code = main(["dice", "teach", "--die", "special", "--looks", "1", "--camera", "demo", "--timeout", "60",
                 "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "[1/6] die special, face 1 of 6: put F (Fandooble) face up" in err and "[6/6] got it" in err
    assert json.loads(out)["dice"]["special"]["faces"] == "FFKKWW"
    # A die no game names has no usual faces: the command says what to add.
    assert main(["dice", "teach", "--die", "spinner", "--camera", "demo", "--data-dir", str(data_dir)]) == 2
    assert "say which faces the spinner die has, in the order you will show them: --faces" in capsys.readouterr().err


def test_fandooble_option_needs_both_dice_and_accepts_three_alike():
    assert fandooble_faces({"d1": "GCRCGR", "d2": "CCGGRR", "s": "WKFFKW"}) == "CCGGRR/FFKKWW"
    assert fandooble_faces({"d1": "CCGGRR"}) is None
    assert fandooble_faces({"d1": "CCGGRR", "d2": "CCCGGR", "s": "FFKKWW"}) is None


def test_see_dice_reads_only_inside_the_tray_given(photos, data_dir, tmp_path, capsys):
    main(["dice", "teach", "--images", str(photos), "--data-dir", str(data_dir)])
    scene = render_tray(np.random.default_rng(8), kind="fandooble", faces=list("GRK"), table="wood")
    tray = tmp_path / "tray.png"
    cv2.imwrite(str(tray), scene.image)
    left = min(scene.dice, key=lambda d: d.center[0])
    x, y, w, h = left.box
    capsys.readouterr()
    args = argparse.Namespace(images=[str(tray)], dice_kind="taught", data_dir=str(data_dir),
                              tray=f"{x - 20},{y - 20},{w + 40},{h + 40}")
    assert see_dice.run(args) == 0
    line = json.loads(capsys.readouterr().out)
    assert [d["face"] for d in line["dice"]] == [left.face]
    with pytest.raises(SetupError, match="X,Y,W,H"):
        see_dice.run(argparse.Namespace(images=[str(tray)], dice_kind="taught", data_dir=str(data_dir), tray="1,2"))


def test_see_dice_draws_what_it_read_for_a_player_to_look_at(photos, data_dir, tmp_path, capsys):
    from vision import overlay

    main(["dice", "teach", "--images", str(photos), "--data-dir", str(data_dir)])
    scene = render_tray(np.random.default_rng(8), kind="fandooble", faces=list("GRK"), table="wood")
    tray = tmp_path / "tray.png"
    cv2.imwrite(str(tray), scene.image)
    capsys.readouterr()
    h, w = scene.image.shape[:2]
    args = argparse.Namespace(images=[str(tray)], dice_kind="taught", data_dir=str(data_dir),
                              tray=f"10,10,{w - 20},{h - 20}", pictures=tmp_path / "seen")
    assert see_dice.run(args) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["picture"] == str(tmp_path / "seen" / "tray.seen.jpg")
    drawn = cv2.imread(line["picture"])
    assert drawn.shape == scene.image.shape

    def near(points, colour):
        return sum(abs(p.astype(int) - np.array(colour)).sum() < 90 for p in points)

    for die in line["dice"]:  # each die boxed in the overlay's colour where it lies
        x, y, bw, bh = die["box_px"]
        assert near(drawn[y:y + bh, x], overlay.OURS) > bh // 2
    assert near(drawn[10, w // 4:3 * w // 4], overlay.TRAY) > w // 4  # the tray's top edge outlined


def test_a_label_at_the_right_edge_stays_whole_in_the_picture():
    from vision import overlay

    image = np.zeros((60, 200, 3), np.uint8)
    overlay._label(image, "? partly out of the tray", (190, 30), (255, 255, 255), 0.5, 1)
    columns = np.flatnonzero(image[:, :, 0].max(axis=0) == 255)
    assert columns.min() < 100 and columns.max() < 200  # moved left, not cut off at the edge


def test_teaching_with_the_camera_while_the_companion_runs_on_the_folder_says_where_to_teach(photos, data_dir, capsys):
    # On a Pi the running service holds the camera: opened again it is busy, and 'auto' found no camera and taught
    # the demo table's rendered die instead of the one in the tray.
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from companion.instance import DataFolderLock; "
         "lock = DataFolderLock(sys.argv[1]).acquire(); lock.announce(8123); print('held', flush=True); sys.stdin.read()",
         str(data_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["dice", "teach", "--die", "dragon", "--faces", "CG", "--looks", "1",
                     "--data-dir", str(data_dir)]) == 2
        err = capsys.readouterr().err
        assert f"the companion is running on this data folder (PID {holder.pid}, dashboard port 8123)" in err, err
        assert "Setup page" in err and "--images" in err
        assert not (data_dir / "dice").exists() and not (data_dir / "demo-dice").exists()
        # From photos it teaches while the companion runs (which takes the new dice up within seconds).
        assert main(["dice", "teach", "--images", str(photos), "--data-dir", str(data_dir)]) == 0
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
        holder.stdout.close()
    assert main(["dice", "teach", "--die", "dragon", "--faces", "CG", "--looks", "1", "--camera", "demo",
                 "--data-dir", str(data_dir)]) == 0  # and with the camera once it is stopped
