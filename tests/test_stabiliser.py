"""Only settled, lasting changes reach the referee; a covered tag is not a change."""

import numpy as np

from vision import cards, geometry, tags
from vision.reader import TagSighting
from vision.stabiliser import Stabiliser, TableWatcher
from vision.synth import table as synth


def _sight(payload, centre, side=40.0):
    x, y = centre
    h = side / 2
    corners = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], float)
    return TagSighting(payload, tags.parse(payload), corners)


GEO = geometry.from_corners([[0, 0], [800, 0], [800, 450], [0, 450]], 800, 450, "calibration")


def _snap(*payload_spots):
    return cards.snapshot([_sight(p, c) for p, c in payload_spots], GEO)


def _feed(stab, snap, still, start, frames, step=0.5):
    out = []
    for i in range(frames):
        result = stab.update(snap, still, start + i * step)
        if result is not None:
            out.append(result)
    return out


TABLE = (("FF:01:4", (100, 100)), ("FF:02:4", (250, 100)), ("FF:03:4", (400, 100)))


def test_first_stable_snapshot_needs_stillness_and_time():
    stab = Stabiliser(still_frames=3, persist_s=1.0)
    assert _feed(stab, _snap(*TABLE), still=False, start=0, frames=10) == []
    emitted = _feed(stab, _snap(*TABLE), still=True, start=10, frames=4)
    assert len(emitted) == 1 and emitted[0].stable
    assert emitted[0].top_copies() == {1: 4, 2: 4, 3: 4}
    assert _feed(stab, _snap(*TABLE), still=True, start=20, frames=10) == []  # no change, nothing new


def test_a_purchase_is_reported_once_it_has_lasted():
    stab = Stabiliser(still_frames=3, persist_s=1.0)
    _feed(stab, _snap(*TABLE), True, 0, 5)
    bought = (("FF:01:3", (101, 99)),) + TABLE[1:]  # copy 4 taken, copy 3 shows
    assert _feed(stab, _snap(*bought), True, 10, 2) == []  # not yet long enough
    emitted = _feed(stab, _snap(*bought), True, 11, 4)
    assert [s.top_copies()[1] for s in emitted] == [3]


def test_a_flicker_during_motion_is_not_a_change():
    stab = Stabiliser(still_frames=3, persist_s=1.0)
    _feed(stab, _snap(*TABLE), True, 0, 5)
    wrong = (("FF:01:3", (101, 99)),) + TABLE[1:]
    assert _feed(stab, _snap(*wrong), False, 10, 20) == []  # seen only while the table moved
    assert _feed(stab, _snap(*TABLE), True, 30, 10) == []
    assert stab.stable.top_copies()[1] == 4


def test_an_animal_resting_on_a_tag_hides_the_stack_without_a_change():
    stab = Stabiliser(still_frames=3, persist_s=1.0)
    _feed(stab, _snap(*TABLE), True, 0, 5)
    covered = TABLE[1:]  # FF:01:4 under an animal for a minute
    assert _feed(stab, _snap(*covered), True, 10, 120) == []
    hidden = stab.stable.stack(1)
    assert hidden.hidden and hidden.top_copy == 4
    assert _feed(stab, _snap(*TABLE), True, 80, 5) == []
    assert not stab.stable.stack(1).hidden


def test_a_covered_stack_that_reappears_changed_is_reported_as_a_change():
    stab = Stabiliser(still_frames=3, persist_s=1.0)
    _feed(stab, _snap(*TABLE), True, 0, 5)
    assert _feed(stab, _snap(*TABLE[1:]), True, 10, 20) == []  # a hand rests on stack 1
    assert stab.stable.stack(1).top_copy == 4 and stab.stable.stack(1).hidden  # kept as it was
    bought = (("FF:01:3", (101, 99)),) + TABLE[1:]  # the hand goes: copy 4 was taken meanwhile
    emitted = _feed(stab, _snap(*bought), True, 30, 4)
    assert [(s.top_copies()[1], s.stack(1).hidden) for s in emitted] == [(3, False)]


def test_either_sticker_keeps_a_stack_in_view():
    """A card with two stickers: an animal on the first leaves the second, and the stack stays seen."""
    stab = Stabiliser(still_frames=3, persist_s=1.0)
    ox, oy = tags.card_offset(28.0)
    first = _sight("FF:01:4", (100 - ox, 100 - oy), side=28.0)
    turned = _sight("FF:01:4:B", (100 + ox, 100 + oy), side=28.0)
    second = TagSighting(turned.text, turned.tag, turned.corners[[2, 3, 0, 1]])  # stuck upside down
    _feed(stab, cards.snapshot([first, second], GEO), True, 0, 5)
    assert np.allclose(stab.stable.stack(1).table_mm, (100, 100))
    assert _feed(stab, cards.snapshot([second], GEO), True, 10, 10) == []
    assert not stab.stable.stack(1).hidden and stab.stable.stack(1).top_copy == 4
    assert np.allclose(stab.stable.stack(1).table_mm, (100, 100))


def test_a_stack_replaced_on_its_spot_is_gone():
    stab = Stabiliser(still_frames=3, persist_s=1.0)
    _feed(stab, _snap(*TABLE), True, 0, 5)
    replaced = (("FF:07:1", (105, 104)),) + TABLE[1:]
    emitted = _feed(stab, _snap(*replaced), True, 10, 5)
    assert len(emitted) == 1
    assert set(emitted[0].top_copies()) == {2, 3, 7}


def test_watcher_reads_a_rendered_table_and_ignores_a_passing_hand():
    scene = synth.first_game(tag_mm=30)
    view = synth.View(size=(2304, 1296), px_per_mm=2.4, noise_sigma=0)
    still, _ = synth.render(scene, view)
    hand_scene = synth.Scene(scene.stacks, scene.table_mm, scene.tag_mm,
                             occluders=(synth.Occluder("hand", scene.stacks[2].center_mm, 160),))
    with_hand, _ = synth.render(hand_scene, view)
    watcher = TableWatcher(width_mm=800, height_mm=450, still_frames=3, persist_s=0.5)
    stable = [s for i in range(6) if (s := watcher.update(work=still, now=i * 0.2)) is not None]
    assert len(stable) == 1 and stable[0].top_copies() == {loc: 1 for loc in range(1, 7)}
    assert stable[0].geometry == "corners"
    frames = [with_hand] * 8 + [still] * 6  # the hand rests, then leaves
    later = [s for i, f in enumerate(frames) if (s := watcher.update(work=f, now=2 + i * 0.2)) is not None]
    assert later == []
    assert watcher.stable.stack(3) is not None and not watcher.stable.stack(3).hidden
