"""The light the taught dice are thrown in, against the light they were taught in: an evening grown dark is said."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.dicestore import DiceStore
from vision.dice import FaceTemplates, TaughtReader
from vision.dice.light import LightWatch
from vision.synth.dice import FANDOOBLE_FACES, render_face_photo, render_tray
from vision.synth.effects import relit

DIMMER = (0.6, 0.6, 0.6)


@pytest.fixture(scope="module")
def taught():
    rng = np.random.default_rng(7)
    templates = FaceTemplates()
    for face in FANDOOBLE_FACES:
        for look in range(3):
            templates.learn("dragon" if face in "CGR" else "special", face, render_face_photo(rng, face),
                            new_face=look == 0)
    return templates


def _throw(reader, seed: int, light=None):
    """A throw of four dice into the tray under ``light``: the picture and its dice as the pipeline passes them."""
    image = relit(render_tray(np.random.default_rng(seed), kind="fandooble", faces=["C", "C", "G", "F"]).image, light)
    return image, [(die.die, die.box) for die in reader.read(image).dice]


def test_a_tray_grown_darker_than_teaching_is_said_until_the_light_comes_back(taught):
    reader = TaughtReader(taught)
    watch = LightWatch(taught.taught_lights())
    for seed in (11, 12, 13):
        assert watch.update(*_throw(reader, seed)) is None  # the light dice were taught in
    for seed in (14, 15):
        darker = watch.update(*_throw(reader, seed, DIMMER))
    assert darker is not None and 0.5 < darker.share < 0.7
    assert "darker than when they were taught (about 60% of that light)" in darker.message
    assert "teach the dice again in this light" in darker.message
    for seed in (16, 17, 18):
        back = watch.update(*_throw(reader, seed))
    assert back is None and watch.verdict is None


def test_one_die_in_a_shadow_is_no_evening(taught):
    reader = TaughtReader(taught)
    watch = LightWatch(taught.taught_lights())
    for seed in (11, 12, 13):
        image, dice = _throw(reader, seed)
        x, y, w, h = dice[-1][1]
        image = image.copy()
        image[y:y + h, x:x + w] = (image[y:y + h, x:x + w] * 0.4).astype(np.uint8)  # a glass's shadow on one die
        assert watch.update(image, dice) is None


def test_a_die_not_taught_or_taught_before_lights_were_kept_is_not_judged(taught):
    reader = TaughtReader(taught)
    watch = LightWatch({"dragon": taught.taught_lights()["dragon"]})  # the special die: taught before
    for seed in (14, 15, 16):
        image, dice = _throw(reader, seed, DIMMER)
        watch.update(image, [(die if die == "dragon" else None, box) for die, box in dice])  # unclear: no die
    assert watch.verdict is not None and watch.verdict.share < 0.7
    never = LightWatch({})
    for seed in (14, 15, 16):
        assert never.update(*_throw(reader, seed, DIMMER)) is None


def test_the_taught_light_is_kept_with_the_dice_and_older_dice_files_still_read(taught, tmp_path):
    store = DiceStore(tmp_path)
    store.save_templates(taught)
    assert store.load_templates().taught_lights() == taught.taught_lights()
    assert set(taught.taught_lights()) == {"dragon", "special"}
    settings = json.loads((tmp_path / "dice" / "dice.json").read_text())
    settings.pop("lights")  # dice taught before the light was kept
    (tmp_path / "dice" / "dice.json").write_text(json.dumps(settings))
    older = store.load_templates()
    assert older.taught_lights() == {} and len(older.samples) == len(taught.samples)
    settings["lights"] = {"dragon": ["bright", -3, True, float("inf"), 180.0], "special": "dim", "lost": [100.0]}
    (tmp_path / "dice" / "dice.json").write_text(json.dumps(settings))  # edited by hand
    assert store.load_templates().taught_lights() == {"dragon": 180.0}


def test_teaching_a_die_again_replaces_its_light(taught):
    from companion.teach import without_die

    kept = without_die(taught, "dragon")
    assert set(kept.taught_lights()) == {"special"}
    assert kept.lights["special"] == taught.lights["special"] and kept.lights["special"] is not taught.lights["special"]
