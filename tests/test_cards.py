"""Tags into stacks: one stack per location spot, its top copy, foreign codes counted, duplicates named."""

import numpy as np
import pytest

from vision import cards, geometry, tags
from vision.reader import TagReader, TagSighting
from vision.synth import table as synth


def _sight(payload, centre, side=40.0):
    x, y = centre
    h = side / 2
    corners = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], float)
    return TagSighting(payload, tags.parse(payload), corners)


def _geo():
    return geometry.from_corners([[0, 0], [800, 0], [800, 450], [0, 450]], 800, 450, "calibration")


def test_rendered_table_gives_its_stacks_and_top_copies():
    rng = np.random.default_rng(12)
    scene = synth.random_scene(rng, n_stacks=14, table_mm=(760, 400), tag_mm=30)
    frame, truth = synth.render(scene, synth.View(size=(2304, 1296), px_per_mm=2.6), rng)
    reading = TagReader().read(frame)
    geo = geometry.TableLocator(760, 400).update(reading.sightings)
    snap = cards.snapshot(reading.sightings, geo)
    assert snap.top_copies() == {s.top[0]: s.top[1] for s in scene.stacks}
    assert snap.corners == tags.CORNERS and snap.geometry == "corners"
    assert snap.ignored == 0 and snap.duplicates == ()
    for stack in scene.stacks:  # a stack lies where its top card's centre is, as its sticker says
        seen = snap.stack(stack.top[0])
        assert np.hypot(seen.table_mm[0] - stack.center_mm[0], seen.table_mm[1] - stack.center_mm[1]) < 4


def test_foreign_codes_are_counted_not_used():
    sightings = [_sight("FF:07:2", (100, 100)), _sight("HTTPS://X.EXAMPLE", (300, 100)), _sight("FF:7:2", (500, 100))]
    snap = cards.snapshot(sightings, _geo())
    assert [(s.location, s.top_copy) for s in snap.stacks] == [(7, 2)]
    assert snap.ignored == 2 and set(snap.ignored_texts) == {"HTTPS://X.EXAMPLE", "FF:7:2"}


def test_two_stickers_with_one_payload_are_named():
    snap = cards.snapshot([_sight("FF:12:3", (100, 100)), _sight("FF:12:3", (600, 300))], _geo())
    assert snap.duplicates == ("FF:12:3",)
    assert any("FF:12:3 is on two stickers" in p for p in snap.problems)
    assert len(snap.stacks) == 2  # both are shown; the referee decides


def test_two_copies_on_one_spot_make_one_stack_with_unknown_top():
    snap = cards.snapshot([_sight("FF:05:1", (200, 200)), _sight("FF:05:3", (230, 210))], _geo())
    assert len(snap.stacks) == 1
    stack = snap.stacks[0]
    assert stack.location == 5 and stack.top_copy is None and stack.copies == (1, 3)


def test_without_geometry_stacks_group_by_tag_size_and_have_no_millimetres():
    snap = cards.snapshot([_sight("FF:05:1", (200, 200)), _sight("FF:05:2", (260, 200)),
                           _sight("FF:05:4", (900, 200))], None)
    assert [(s.copies, s.table_mm) for s in snap.stacks] == [((1, 2), None), ((4,), None)]
    assert snap.geometry is None
    assert snap.to_json()["stacks"][0]["table_mm"] is None


def test_snapshot_json_is_plain_data():
    import json

    snap = cards.snapshot([_sight("FF:07:2", (100, 100)), _sight("TB:NW", (0, 0))], _geo(), timestamp=5.0, frame=3)
    data = json.loads(json.dumps(snap.to_json()))
    # The 40 mm code sits in its card's top-left corner: the card's centre is 2.8 mm right, 15.3 mm down.
    assert data["stacks"][0] == {"location": 7, "top_copy": 2, "table_mm": [102.8, 115.3], "center_px": [102.8, 115.3],
                                 "copies": [2], "hidden": False}
    assert data["corners"] == ["NW"] and data["frame"] == 3


@pytest.mark.parametrize("payload", ["FF:01:1", "TB:SE"])
def test_corner_tags_are_not_stacks(payload):
    snap = cards.snapshot([_sight(payload, (10, 10))], _geo())
    assert len(snap.stacks) == (1 if payload.startswith("FF") else 0)


def _second(payload, card_centre, side=30.0, angle_deg=0.0):
    """The card's second sticker (bottom right, turned half round), for a card centred at ``card_centre``."""
    ox, oy = tags.card_offset(side)
    a = np.radians(angle_deg + 180)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    h = side / 2
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) - [ox, oy]  # the code, around the card's centre
    return TagSighting(payload, tags.parse(payload), local @ rot.T + card_centre)


@pytest.mark.parametrize("seen", [["A"], ["B"], ["A", "B"]])
def test_either_sticker_of_a_card_or_both_make_one_stack_at_the_cards_centre(seen):
    ox, oy = tags.card_offset(30.0)
    sightings = {"A": _sight("FF:07:2", (300 - ox, 200 - oy), side=30.0), "B": _second("FF:07:2:B", (300, 200))}
    snap = cards.snapshot([sightings[k] for k in seen], _geo())
    (stack,) = snap.stacks
    assert (stack.location, stack.top_copy, stack.copies) == (7, 2, (2,))
    assert np.allclose(stack.table_mm, (300, 200), atol=0.01) and snap.duplicates == ()


def test_the_second_sticker_of_another_copy_on_the_same_spot_is_a_fanned_stack():
    snap = cards.snapshot([_sight("FF:07:2", (100, 100), side=30.0), _second("FF:07:3:B", (110, 118))], _geo())
    assert [(s.location, s.top_copy, s.copies) for s in snap.stacks] == [(7, None, (2, 3))]
