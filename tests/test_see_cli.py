"""``companion see``: one JSON line per image, tags in full-image pixels and table millimetres."""

import json
import sys
import types

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision.synth import table as synth


@pytest.fixture(scope="module")
def table_png(tmp_path_factory):
    """A 3072 x 1728 photo of the first game's table (800 x 450 mm between the corner tags)."""
    frame, truth = synth.render(synth.first_game(tag_mm=25), synth.View(size=(3072, 1728), px_per_mm=3.1,
                                                                        noise_sigma=3, blur_sigma=0.6))
    path = tmp_path_factory.mktemp("photos") / "table.png"
    cv2.imwrite(str(path), frame)
    return path, truth


def _lines(capsys):
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("decoder", ["zxing", "pyzbar"])
def test_reads_tags_stacks_and_millimetres(table_png, data_dir, capsys, decoder):
    (data_dir / "config.toml").write_text("[table]\nwidth_mm = 800.0\nheight_mm = 450.0\n")
    path, truth = table_png
    assert main(["see", str(path), "--decoder", decoder, "--work-width", "1536", "--data-dir", str(data_dir)]) == 0
    (line,) = _lines(capsys)
    assert line["image"] == str(path) and line["work_size"] == [1536, 864] and line["ms"] > 0
    seen = {t["payload"]: t for t in line["tags"]}
    assert set(seen) == {t.payload for t in truth.visible()}
    for t in truth.visible():
        assert np.hypot(*np.subtract(seen[t.payload]["center_px"], t.center_px)) < 4  # full-image pixels
        assert np.hypot(*np.subtract(seen[t.payload]["table_mm"], t.center_mm)) < 3
    assert [(s["location"], s["top_copy"]) for s in line["stacks"]] == [(loc, 1) for loc in range(1, 7)]
    assert line["ignored"] == 0 and line["geometry"] == "corners"


def test_pictures_show_each_tag_outlined_where_it_was_read(table_png, data_dir, tmp_path, capsys):
    from vision import overlay

    path, truth = table_png
    assert main(["see", str(path), "--work-width", "1536", "--pictures", str(tmp_path / "seen"),
                 "--data-dir", str(data_dir)]) == 0
    (line,) = _lines(capsys)
    drawn = cv2.imread(line["picture"])
    assert drawn.shape[1] == 1536  # the working image the tags were read on
    at = 1536 / 3072
    for tag in line["tags"]:  # an outline in the overlay's colour around each tag's middle
        x, y = (round(v * at) for v in tag["center_px"])
        around = drawn[y - 40:y + 41, x - 40:x + 41].reshape(-1, 3).astype(int)
        assert sum(abs(p - np.array(overlay.OURS)).sum() < 90 for p in around) > 20


def test_without_corner_tags_or_calibration_table_mm_is_null(tmp_path, data_dir, capsys):
    scene = synth.Scene(stacks=(synth.Stack((400, 200), 0, ((9, 1),)),), corners=())
    frame, _ = synth.render(scene, synth.View(size=(2304, 1296), px_per_mm=2.6))
    path = tmp_path / "no_corners.jpg"
    cv2.imwrite(str(path), frame)
    assert main(["see", str(path), "--work-width", "0", "--data-dir", str(data_dir)]) == 0
    (line,) = _lines(capsys)
    assert line["tags"][0]["payload"] == "FF:09:1" and line["tags"][0]["table_mm"] is None
    assert line["stacks"] == [{"location": 9, "top_copy": 1, "table_mm": None}]
    assert any("not seen" in p for p in line["problems"])


def test_stored_calibration_gives_millimetres(tmp_path, data_dir, capsys):
    scene = synth.Scene(stacks=(synth.Stack((400, 225), 0, ((9, 1),)),), corners=())
    view = synth.View(size=(2304, 1296), px_per_mm=2.6)
    frame, _ = synth.render(scene, view)
    corners = synth.effects.map_points(np.array([[0, 0], [800, 0], [800, 450], [0, 450]], float),
                                       synth.table_homography(scene, view)) / 2  # working pixels at 1152
    (data_dir / "config.toml").write_text(
        "[table]\nwidth_mm = 800.0\nheight_mm = 450.0\ncorners_px = " + json.dumps(corners.round(1).tolist()) + "\n")
    path = tmp_path / "calibrated.png"
    cv2.imwrite(str(path), frame)
    assert main(["see", str(path), "--work-width", "1152", "--data-dir", str(data_dir)]) == 0
    (line,) = _lines(capsys)
    assert line["geometry"] == "calibration"
    # The stack lies where its card's centre is (its sticker says where that is).
    assert np.hypot(*np.subtract(line["stacks"][0]["table_mm"], scene.stacks[0].center_mm)) < 3


def test_unreadable_files_are_reported_and_the_rest_still_read(table_png, tmp_path, data_dir, capsys):
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not a picture")
    status = main(["see", str(tmp_path / "missing.png"), str(junk), str(table_png[0]), "--data-dir", str(data_dir)])
    assert status == 1
    missing, bad, good = _lines(capsys)
    assert "no such file" in missing["error"] and "not an image" in bad["error"]
    assert len(good["stacks"]) == 6


def test_dice_flag_hands_over_to_the_dice_reader(monkeypatch, table_png, data_dir):
    seen = {}
    fake = types.ModuleType("companion.cli.see_dice")
    fake.run = lambda args: seen.update(kind=args.dice_kind, images=args.images) or 0
    monkeypatch.setitem(sys.modules, "companion.cli.see_dice", fake)
    import companion.cli

    monkeypatch.setattr(companion.cli, "see_dice", fake, raising=False)
    assert main(["see", str(table_png[0]), "--dice", "--dice-kind", "aruco", "--data-dir", str(data_dir)]) == 0
    assert seen["kind"] == "aruco" and [str(p) for p in seen["images"]] == [str(table_png[0])]
