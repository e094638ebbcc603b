"""The camera pipeline: what vision sees reaches the referee, and oddities are counted and shown."""

from __future__ import annotations

import pytest

from companion.config import Config
from companion.eventkinds import ALERT
from companion.pipeline import Pipeline
from companion.runtime import Runtime
from hardware.camera.base import Frame
from vision.synth import table as synth

VIEW = synth.View(size=(2304, 1296), px_per_mm=2.6)


@pytest.fixture
def runtime(log):
    with Runtime(Config.defaults(), log) as rt:
        yield rt


def test_foreign_codes_and_duplicate_stickers_are_shown_and_change_no_game(runtime, tmp_path):
    runtime.new_game("fable", ["Anne", "Paul"])
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path)
    scene = synth.Scene(
        stacks=(synth.Stack((200, 200), 0, ((12, 3),)), synth.Stack((600, 250), 20, ((12, 3),))),
        stickers=(synth.Sticker("HTTPS://EXAMPLE.ORG/MENU", (420, 120), 30),),
    )
    image, _ = synth.render(scene, VIEW)
    for number in range(1, 25):
        pipeline(Frame(work=image, timestamp=number / 10, number=number))
    runtime.call(lambda: None)
    vision = runtime.snapshot()["vision"]
    assert vision["duplicates"] == ["FF:12:3"] and vision["ignored"] == 1
    # Whatever the referee made of the odd table, nothing reached the game without the engine.
    assert {e.kind for e in runtime.log.events(runtime.session.session_id) if e.source == "camera"} <= {"alert"}
    assert runtime.session.played == ()


def test_a_fable_game_without_corner_tags_shows_the_table_as_degraded(runtime, tmp_path):
    runtime.new_game("fable", ["Anne", "Paul"])
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path)
    image, _ = synth.render(synth.Scene(stacks=(synth.Stack((300, 200), 0, ((1, 1),)),), corners=()), VIEW)
    pipeline(Frame(work=image, timestamp=0.1, number=1))
    health = runtime.snapshot()["health"]["table"]
    assert health["status"] == "degraded" and "corner tags" in health["detail"]
    assert any("corner tags" in p for p in runtime.snapshot()["vision"]["problems"])


@pytest.mark.parametrize("tray, needed", [({"tray_px": [[0, 0], [640, 0], [640, 480], [0, 480]]}, False),
                                          ({"tray_mm": [0, 0, 200, 150]}, True)])
def test_a_dice_game_warns_of_missing_corner_tags_only_when_its_tray_needs_the_table(runtime, tmp_path, tray,
                                                                                    needed):
    # Fandooble's dice lie in a tapped tray: the table's corners are not needed, and no warning says
    # otherwise; a tray given in table millimetres is placed by those corners, so then they are.
    runtime.new_game("fandooble", ["Lola", "Grace"])
    pipeline = Pipeline(runtime, Config.defaults().with_changes({"table": tray}), tmp_path)
    image, _ = synth.render(synth.Scene(stacks=(), corners=()), VIEW)
    pipeline(Frame(work=image, timestamp=0.1, number=1))
    snapshot = runtime.snapshot()
    assert (snapshot["health"]["table"]["status"] == "degraded") is needed
    assert any("corner tags" in p for p in snapshot["vision"]["problems"]) is needed


def test_dice_shown_while_teaching_are_not_rolls_and_new_teaching_is_picked_up(runtime, tmp_path, monkeypatch):
    import companion.pipeline
    from companion.dicestore import DiceStore

    monkeypatch.setattr(companion.pipeline, "DICE_CHECK_S", 0.0)  # look at every frame (normally every 2 s)
    runtime.new_game("fandooble", ["Lola", "Grace"])
    pipeline = Pipeline(runtime, _with_tray([[100, 100], [900, 100], [900, 700], [100, 700]]), tmp_path)
    teaching = {"active": True}
    runtime.add_snapshot_part("teaching", lambda: teaching)
    image, _ = synth.render(synth.Scene(stacks=()), VIEW)
    pipeline(Frame(work=image, timestamp=0.1, number=1))
    assert pipeline._dice is None  # no reader was even built while teaching
    teaching["active"] = False
    runtime.refresh()
    pipeline(Frame(work=image, timestamp=0.2, number=2))
    first = pipeline._dice
    assert first is not None and runtime.snapshot()["health"]["dice"]["status"] == "degraded"  # pips only
    DiceStore(tmp_path).save_face_table({0: "C", 1: "G", 2: "R", 3: "F", 4: "K", 5: "W"})
    DiceStore(tmp_path).set_kind("aruco")
    pipeline(Frame(work=image, timestamp=0.3, number=3))
    assert pipeline._dice is not first and runtime.snapshot()["health"]["dice"]["status"] == "ok"


@pytest.mark.parametrize("damaged", ["dice.json", "templates.npz"])
def test_damaged_dice_files_are_said_on_the_dashboard_and_the_camera_goes_on(runtime, tmp_path, damaged):
    # A failing card left the taught dice unreadable: every frame used to raise inside the pipeline (the live
    # view stood still and nothing said why). The dice health says what to do; the table is still watched.
    store = _taught_store(tmp_path)
    (store.root / damaged).write_bytes(b"PK\x03\x04 half a file")
    runtime.new_game("fandooble", ["Lola", "Grace"])
    pipeline = Pipeline(runtime, _with_tray([[100, 100], [900, 100], [900, 700], [100, 700]]), tmp_path)
    image, _ = synth.render(synth.Scene(stacks=()), VIEW)
    for number in (1, 2):
        pipeline(Frame(work=image, timestamp=number / 10, number=number))
    dice = runtime.snapshot()["health"]["dice"]
    assert dice["status"] == "degraded" and "teach the dice again" in dice["detail"] and damaged in dice["detail"]
    assert pipeline.status()["frames"] == 2


def test_frames_of_a_fandooble_game_look_at_no_file(runtime, tmp_path, monkeypatch):
    from companion.dicestore import DiceStore

    looked = []
    real = DiceStore.changed_at
    monkeypatch.setattr(DiceStore, "changed_at", lambda self: looked.append(1) or real(self))
    runtime.new_game("fandooble", ["Lola", "Grace"])
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path)
    image, _ = synth.render(synth.Scene(stacks=()), VIEW)
    for number in range(1, 31):
        pipeline(Frame(work=image, timestamp=number / 10, number=number))
    assert len(looked) == 1  # once for the reader, not on every frame
    assert pipeline.status()["frames"] == 30


def _taught_store(tmp_path):
    import numpy as np

    from companion.dicestore import DiceStore
    from vision.dice import FaceTemplates
    from vision.synth.dice import FANDOOBLE_FACES, render_face_photo

    rng = np.random.default_rng(7)
    taught = FaceTemplates()
    for face in FANDOOBLE_FACES:
        die = "dragon" if face in "CGR" else "special"
        taught.learn(die, face, render_face_photo(rng, face), new_face=True)
        taught.learn(die, face, render_face_photo(rng, face), new_face=False)
    store = DiceStore(tmp_path)
    store.save_templates(taught)
    store.set_kind("taught")
    return store


def _roll_on_the_table(runtime, tmp_path, config, *, tags: bool = False):
    """Dice thrown into a tray (rendered), the picture still for a moment; returns the pipeline.

    With ``tags`` the tray fills the camera's view and the table's four corner tags lie on it."""
    import cv2
    import numpy as np

    from vision.synth.dice import render_tray

    store = _taught_store(tmp_path)
    runtime.new_game("fandooble", ["Lola", "Grace"], store.options_for("fandooble"))
    pipeline = Pipeline(runtime, config, tmp_path)
    scene = render_tray(np.random.default_rng(11), kind="fandooble", faces=["C", "C", "G", "F"])
    if tags:
        from vision.reader import TagReader

        table, _ = synth.render(synth.Scene(stacks=()), VIEW)
        empty = np.empty_like(table)
        empty[:] = np.median(scene.image.reshape(-1, 3), axis=0)  # the felt of the tray, everywhere
        thrown = empty.copy()
        h, w = scene.image.shape[:2]
        thrown[400:400 + h, 800:800 + w] = scene.image
        for sighting in TagReader(reuse_when_still=False).read(table).sightings:
            middle = sighting.corners.mean(axis=0)
            sticker = np.zeros(table.shape[:2], np.uint8)
            cv2.fillConvexPoly(sticker, np.round(middle + (sighting.corners - middle) * 1.15).astype(np.int32), 255)
            thrown[sticker > 0] = empty[sticker > 0] = table[sticker > 0]
    else:
        thrown = scene.image
        empty = np.full_like(scene.image, int(scene.image[0, 0].mean()))
    frames = [empty] * 3 + [thrown] * 10  # the dice land, then lie still
    for number, image in enumerate(frames, start=1):
        pipeline(Frame(work=image, timestamp=number / 10, number=number))
    runtime.call(lambda: None)
    return pipeline


def _with_tray(corners):
    return Config.defaults().with_changes({"table": {"tray_px": corners}})


def test_a_roll_in_the_tray_reaches_the_fandooble_game_through_the_taught_dice(runtime, tmp_path):
    _roll_on_the_table(runtime, tmp_path, _with_tray([[0, 0], [640, 0], [640, 480], [0, 480]]))
    assert [p.text for p in runtime.session.played] == ["roll CCGF"]
    assert runtime.session.played[0].source == "camera"
    assert runtime.snapshot()["vision"]["last_roll"]["dice"]


def test_a_new_install_asks_for_the_tray_and_reads_no_dice_until_then(runtime, tmp_path):
    _roll_on_the_table(runtime, tmp_path, Config.defaults())
    assert runtime.session.played == ()
    health = runtime.snapshot()["health"]["dice"]
    assert health["status"] == "degraded" and "tap the tray's four corners" in health["detail"]


def test_the_corner_tags_are_never_dice_even_inside_the_tray(runtime, tmp_path):
    # The tray marked as the whole picture: the four corner tags lie inside it, yet the roll is the dice.
    w, h = VIEW.size
    _roll_on_the_table(runtime, tmp_path, _with_tray([[0, 0], [w, 0], [w, h], [0, h]]), tags=True)
    assert [p.text for p in runtime.session.played] == ["roll CCGF"]


def test_nothing_outside_the_tray_is_a_die(runtime, tmp_path):
    # The tray tapped around the left part of the picture: the dice to its right are not read at all.
    pipeline = _roll_on_the_table(runtime, tmp_path, _with_tray([[0, 0], [420, 0], [420, 480], [0, 480]]))
    seen = pipeline.status()["last_roll"]["dice"]
    assert len(seen) == 3 and all(d["box_px"][0] + d["box_px"][2] <= 420 for d in seen)
    assert runtime.session.played == ()  # three dice are not a Fandooble roll: the referee asks, nothing is guessed


def test_the_live_view_is_drawn_small_with_the_tags_where_they_are(runtime, tmp_path):
    import cv2
    import numpy as np

    from vision import overlay

    runtime.new_game("fable", ["Anne", "Paul"])
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path)
    image, _ = synth.render(synth.Scene(stacks=(synth.Stack((300, 200), 0, ((7, 2),)),)), VIEW)
    assert runtime.live_view.wait_for_jpeg(0, 0.01) is None  # someone starts watching
    pipeline(Frame(work=image, timestamp=0.1, number=1))
    number, jpeg = runtime.live_view.wait_for_jpeg(0, 30.0)  # (a bound on a failing wait only)
    shown = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape[1] == runtime.live_view.width
    # Each tag outline lands on the small picture where the tag is (working pixels times the scale).
    at = shown.shape[1] / image.shape[1]
    sighting = pipeline.watcher.reading.sightings[0]
    x, y = np.round(sighting.corners[0] * at).astype(int)
    patch = shown[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3).astype(int)
    assert any(abs(p - np.array(overlay.OURS)).sum() < 90 for p in patch)


def test_the_live_view_of_a_dice_game_outlines_the_tray_and_names_the_last_roll(runtime, tmp_path, monkeypatch):
    import cv2
    import numpy as np

    from vision import overlay

    texts = []
    real_label = overlay._label
    monkeypatch.setattr(overlay, "_label", lambda image, text, *a: texts.append(text) or real_label(image, text, *a))
    assert runtime.live_view.wait_for_jpeg(0, 0.01) is None  # someone starts watching
    pipeline = _roll_on_the_table(runtime, tmp_path, _with_tray([[4, 6], [636, 6], [636, 476], [4, 476]]))
    number, jpeg = runtime.live_view.wait_for_jpeg(0, 30.0)  # (a bound on a failing wait only)
    shown = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    at = shown.shape[1] / 640
    x, y = round(320 * at), round(6 * at)  # the middle of the tray's top edge
    patch = shown[y - 2:y + 3, x - 1:x + 2].reshape(-1, 3).astype(int)
    assert any(abs(p - np.array(overlay.TRAY)).sum() < 90 for p in patch)
    # The dice game's own status line (the faces in the order the dice lie), not the cards' counts.
    status = [t for t in texts if t.startswith("last roll: ")][-1]
    assert sorted(status.removeprefix("last roll: ").split()) == sorted("CCGF")
    assert not any("stacks" in t for t in texts)
    assert pipeline.status()["problems"] == []


def test_an_alert_about_a_roll_shows_the_tray_as_it_was_read(runtime, tmp_path):
    import cv2
    import numpy as np

    from vision import overlay

    # Three of the four dice lie in the tray (the left part of the picture): the referee asks a person.
    pipeline = _roll_on_the_table(runtime, tmp_path, _with_tray([[0, 0], [420, 0], [420, 480], [0, 480]]))
    (alert,) = runtime.pending_alerts()
    jpeg = runtime.roll_pictures.jpeg(alert["payload"]["picture"])
    shown = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    # The tray and a die's width around it, not the whole table: the die beyond it is cut away.
    seen = pipeline.status()["last_roll"]["dice"]
    margin = max(max(d["box_px"][2:]) for d in seen)
    assert shown.shape[1] <= 420 + margin < 640
    # Each die read is boxed in the overlay's colour where it lies (the tray starts at the picture's corner).
    for die in seen:
        x, y, w, h = die["box_px"]
        edge = shown[y:y + h, max(x - 2, 0):x + 3].reshape(-1, 3).astype(int)
        assert sum(abs(p - np.array(overlay.OURS)).sum() < 90 for p in edge) > h // 2



def _tray_with_tags(scene_image, at: tuple[int, int], hidden: str = "", size=(1800, 1000)):
    """A table with the rendered tray floor (``scene_image``) at ``at`` and the tray's four corner tags stuck on
    its corners around it (``hidden``: corners a hand covers)."""
    import cv2
    import numpy as np

    from vision import tags

    frame = np.empty((size[1], size[0], 3), np.uint8)
    frame[:] = (60, 90, 130)  # a wooden table
    h, w = scene_image.shape[:2]
    x, y = at
    frame[y:y + h, x:x + w] = scene_image
    sticker = cv2.cvtColor(tags.tag_image("DT:NW", 4, quiet_modules=2), cv2.COLOR_GRAY2BGR)
    s = sticker.shape[0]
    places = {"NW": (x - s, y - s), "NE": (x + w, y - s), "SE": (x + w, y + h), "SW": (x - s, y + h)}
    for corner, (tx, ty) in places.items():
        if corner not in hidden:
            frame[ty:ty + s, tx:tx + s] = cv2.cvtColor(tags.tag_image(f"DT:{corner}", 4, quiet_modules=2),
                                                       cv2.COLOR_GRAY2BGR)
    return frame


def test_the_tray_between_its_own_tags_is_read_and_followed_where_it_is_moved(runtime, tmp_path):
    # No tray marked: the tray's four tags say where it is. It is read there, followed when pushed across the
    # table, kept while a hand covers a tag, and forgotten once its tags are taken off.
    import numpy as np

    from vision.synth.dice import render_tray

    store = _taught_store(tmp_path)
    runtime.new_game("fandooble", ["Lola", "Grace"], store.options_for("fandooble"))
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path)
    scene = render_tray(np.random.default_rng(11), kind="fandooble", faces=["C", "C", "G", "F"])
    h, w = scene.image.shape[:2]
    empty_tray = np.full_like(scene.image, np.median(scene.image.reshape(-1, 3), axis=0).astype(np.uint8))
    frames = [_tray_with_tags(empty_tray, (200, 150))] * 3 + [_tray_with_tags(scene.image, (200, 150))] * 10
    t = 0.0
    for number, image in enumerate(frames, start=1):
        t = number / 10
        pipeline(Frame(work=image, timestamp=t, number=number))
    runtime.call(lambda: None)
    assert [p.text for p in runtime.session.played] == ["roll CCGF"]
    tray = runtime.snapshot()["tray"]
    assert tray["source"] == "tags" and len(tray["tags"]) == 4
    corners = np.array(tray["corners"])  # through each tag's outermost corner (its code, without the white)
    edge = 100 - 8  # a 25-module sticker of 4 px, 2 modules of white on each side
    assert np.abs(corners.min(axis=0) - (200 - edge, 150 - edge)).max() <= 3
    assert np.abs(corners.max(axis=0) - (200 + w + edge, 150 + h + edge)).max() <= 3
    assert runtime.snapshot()["health"]["dice"]["status"] == "ok"

    def shown(image, *, still=1):
        nonlocal t, number
        for _ in range(still):
            number, t = number + 1, t + 0.1
            pipeline(Frame(work=image, timestamp=t, number=number))
        return np.array(runtime.snapshot()["tray"]["corners"]) if runtime.snapshot()["tray"] else None

    moved = shown(_tray_with_tags(empty_tray, (700, 300)))  # pushed across the table
    assert np.abs(moved - corners - (500, 150)).max() <= 3
    # Its tags read a pixel or two off in another picture: the tray has not moved (nor does it for the phones).
    described = runtime.snapshot()["tray"]
    jittered = _tray_with_tags(empty_tray, (702, 301))
    jittered[0:250, 0:400] = (120, 160, 210)  # a hand elsewhere: the tags are decoded afresh
    assert (shown(jittered) == moved).all()
    assert runtime.snapshot()["tray"] == described  # its tags too: nothing new for the phones
    covered = shown(_tray_with_tags(empty_tray, (900, 350), hidden="SE"))  # moved again, a hand over one tag
    assert np.abs(covered - moved).max() <= 3  # where its four tags were last all seen
    assert shown(_tray_with_tags(empty_tray, (900, 350), hidden="NW NE SE SW"), still=1) is not None
    t += 31  # half a minute later, still no tray tag in view: they were taken off
    assert shown(_tray_with_tags(empty_tray, (900, 350), hidden="NW NE SE SW")) is None
    assert "no dice tray is marked" in runtime.snapshot()["health"]["dice"]["detail"]


@pytest.mark.parametrize("unwatched", ["teaching", "another game"])
def test_dice_set_down_while_the_tray_was_not_watched_are_not_a_roll(runtime, tmp_path, monkeypatch, unwatched):
    # The tray is not watched for rolls while dice are taught, nor while a game without dice is in play. A die
    # set down meanwhile (the face shown last, before teaching was cancelled; one left from another evening's game)
    # was taken for a roll once watching began again, a question for the table about a die nobody threw, since the
    # tray had changed since the camera last looked. The next real throw is read as usual.
    import numpy as np

    import companion.pipeline
    from vision.synth.dice import render_tray

    monkeypatch.setattr(companion.pipeline, "DICE_CHECK_S", 0.0)
    store = _taught_store(tmp_path)
    runtime.new_game("fandooble", ["Lola", "Grace"], store.options_for("fandooble"))
    pipeline = Pipeline(runtime, _with_tray([[0, 0], [640, 0], [640, 480], [0, 480]]), tmp_path)
    teaching = {"active": False}
    runtime.add_snapshot_part("teaching", lambda: teaching)
    shown = render_tray(np.random.default_rng(5), kind="fandooble", faces=["W"]).image
    thrown = render_tray(np.random.default_rng(11), kind="fandooble", faces=["C", "C", "G", "F"]).image
    empty = np.full_like(thrown, int(thrown[0, 0].mean()))
    frames = ([(empty, False)] * 4 + [(shown, True)] * 6  # the die set down while the tray is not watched
              + [(shown, False)] * 10  # watched again: it lies there still
              + [(empty, False)] * 2 + [(thrown, False)] * 10)  # a hand over the tray, then the dice thrown
    for number, (image, away) in enumerate(frames, start=1):
        if unwatched == "teaching":
            teaching["active"] = away
        elif away and runtime.session.rules.CAMERA == "dice":
            runtime.new_game("fable", ["Anne", "Paul"])
        elif not away and runtime.session.rules.CAMERA != "dice":
            runtime.new_game("fandooble", ["Lola", "Grace"], store.options_for("fandooble"))
        pipeline(Frame(work=image, timestamp=number / 10, number=number))
        runtime.call(lambda: None)
        if number == 20:
            assert pipeline.last_roll is None and runtime.session.played == ()
            assert not [e for e in runtime.log.events(runtime.session.session_id) if e.kind == "alert"]
    assert [p.text for p in runtime.session.played] == ["roll CCGF"]


def test_dice_tried_with_no_game_in_play_are_read_and_shown_but_played_in_no_game(runtime, tmp_path, monkeypatch):
    # After teaching, the game master throws the dice on the Setup page's "Try the dice" to see what the camera
    # reads. With no game in play the camera reads no dice at all, unless they are being tried.
    import numpy as np

    import companion.pipeline
    from vision.synth.dice import render_tray

    monkeypatch.setattr(companion.pipeline, "DICE_CHECK_S", 0.0)
    _taught_store(tmp_path)
    pipeline = Pipeline(runtime, _with_tray([[0, 0], [640, 0], [640, 480], [0, 480]]), tmp_path)
    trying = {"active": False}
    runtime.add_snapshot_part("dice_try", lambda: trying)
    thrown = render_tray(np.random.default_rng(11), kind="fandooble", faces=["C", "C", "G", "F"]).image
    again = render_tray(np.random.default_rng(12), kind="fandooble", faces=["R", "K"]).image
    empty = np.full_like(thrown, int(thrown[0, 0].mean()))
    frames = [(empty, False)] * 3 + [(thrown, False)] * 6 + [(empty, True)] * 3 + [(thrown, True)] * 6 + \
        [(empty, True)] * 2 + [(again, True)] * 6 + [(empty, True)] * 8  # at last the dice are taken out
    for number, (image, on) in enumerate(frames, start=1):
        trying["active"] = on
        pipeline(Frame(work=image, timestamp=number / 10, number=number))
        if number == 9:  # not tried: the throw is not read
            assert pipeline.last_roll is None and runtime.snapshot()["vision"]["tried"] is None
        if number == 10:  # the tray is watched from now on: the page says to throw
            assert runtime.snapshot()["vision"]["tried"] == {"throw": 0, "picture": None, "dice": [], "seen": 0,
                                                             "unread": 0}
        if number == 18:
            tried = runtime.snapshot()["vision"]["tried"]
            assert sorted(d["face"] for d in tried["dice"]) == ["C", "C", "F", "G"]
            assert tried["throw"] == 1 and runtime.roll_pictures.jpeg(tried["picture"])
    tried = runtime.snapshot()["vision"]["tried"]
    assert sorted(d["face"] for d in tried["dice"]) == ["K", "R"] and tried["throw"] == 2  # taking them out: no throw
    assert (tried["seen"], tried["unread"]) == (6, 0)  # every throw's dice counted, for the page's tally
    assert runtime.last_observation is None  # no referee saw a throw


def test_a_tray_darker_than_teaching_is_said_on_the_dice_health_and_the_rolls_still_play(runtime, tmp_path):
    # The evening grows dark over the tray: the taught dice read unclear more often, and the Table page says why
    # and what to do; the game goes on. The lamp switched on again, the warning goes.
    import numpy as np

    from vision.synth.dice import render_tray
    from vision.synth.effects import relit

    store = _taught_store(tmp_path)
    runtime.new_game("fandooble", ["Lola", "Grace"], store.options_for("fandooble"))
    pipeline = Pipeline(runtime, _with_tray([[0, 0], [640, 0], [640, 480], [0, 480]]), tmp_path)
    number = 0

    def throw(seed: int, light=None):
        nonlocal number
        thrown = relit(render_tray(np.random.default_rng(seed), kind="fandooble", faces=["C", "C", "G", "F"]).image,
                       light)
        empty = np.full_like(thrown, int(thrown[0, 0].mean()))
        for image in [empty] * 3 + [thrown] * 6:
            number += 1
            pipeline(Frame(work=image, timestamp=number / 10, number=number))
        runtime.call(lambda: None)
        assert pipeline.last_roll.timestamp == number / 10  # every throw read and passed on, the dark ones too
        return runtime.snapshot()["health"]["dice"]

    health = throw(11)
    assert (health["status"], health["detail"]) == ("ok", "reading taught dice")
    for seed in (12, 13, 14):
        health = throw(seed, (0.6, 0.6, 0.6))
    assert health["status"] == "degraded" and "the dice look darker than when they were taught" in health["detail"]
    assert runtime.session.played[0].text == "roll CCGF"
    # The dragon held, four dice thrown again: each throw asks a person, and once the tray is darker the question
    # says so where the players look.
    def notes():
        return [event.payload.get("note") for event in runtime.session.events if event.kind == ALERT]

    assert len(notes()) == 3 and notes()[0] is None and notes()[-1] == health["detail"], notes()
    for seed in (15, 16, 17):
        health = throw(seed)
    assert (health["status"], health["detail"]) == ("ok", "reading taught dice")
    assert len(notes()) == 6 and notes()[-1] is None


def _throw_into(runtime, tmp_path, config, size, at):
    """A Fandooble game, and the dice of ``_roll_on_the_table`` thrown into a tray (640 x 480) lying at ``at`` on a
    camera picture of ``size``: returns the pipeline, the picture before the throw and the picture thrown."""
    import numpy as np

    from vision.synth.dice import render_tray

    store = _taught_store(tmp_path)
    runtime.new_game("fandooble", ["Lola", "Grace"], store.options_for("fandooble"))
    pipeline = Pipeline(runtime, config, tmp_path)
    scene = render_tray(np.random.default_rng(11), kind="fandooble", faces=["C", "C", "G", "F"])
    h, w = scene.image.shape[:2]
    empty = np.empty((size[1], size[0], 3), np.uint8)
    empty[:] = np.median(scene.image.reshape(-1, 3), axis=0)
    thrown = empty.copy()
    thrown[at[1]:at[1] + h, at[0]:at[0] + w] = scene.image
    return pipeline, empty, thrown


def _played(runtime, pipeline, pictures, first: int = 1) -> list[str]:
    for number, image in enumerate(pictures, start=first):
        pipeline(Frame(work=image, timestamp=number / 10, number=number))
    runtime.call(lambda: None)
    return [p.text for p in runtime.session.played]


def test_a_tray_tapped_on_a_webcams_smaller_picture_is_where_its_dice_are(runtime, tmp_path):
    # A USB webcam gives 1280 x 720 though [camera] work_width asks 2304 (a picture is never enlarged): the tray
    # tapped on its live view lands on its own pixels, not on a 2304-wide picture's (off the picture: no dice).
    import cv2
    import numpy as np

    from tests.test_web_support import make_app, with_token

    config = Config.from_mapping({}, str(tmp_path / "config.toml"))
    assert config.get("camera", "work_width") == 2304
    client = with_token(make_app(runtime, config).test_client())
    left, top = 500, 150
    pipeline, empty, thrown = _throw_into(runtime, tmp_path, config, (1280, 720), (left, top))
    runtime.live_view.wait_for_jpeg(0, 0.01)  # the Setup page is open: the live view is drawn
    pipeline(Frame(work=empty, timestamp=0.1, number=1))
    shown = cv2.imdecode(np.frombuffer(client.get("/api/live.jpg").data, np.uint8), cv2.IMREAD_COLOR)
    at = shown.shape[1] / 1280  # the live view, as the phone shows it
    corners = [[left, top], [left + 640, top], [left + 640, top + 480], [left, top + 480]]
    taps = [[round(x * at), round(y * at)] for x, y in corners]
    answer = client.post("/api/tray", json={"corners": taps, "image_size": [shown.shape[1], shown.shape[0]]})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["tray_px"][2] == pytest.approx([left + 640, top + 480], abs=3)
    assert _played(runtime, pipeline, [empty] * 2 + [thrown] * 10, first=2) == ["roll CCGF"]
    assert runtime.snapshot()["tray"]["picture"] == [1280, 720]  # the Setup page draws the tray on this picture


def test_a_tray_tapped_before_work_width_changed_is_scaled_and_one_of_another_view_asked_again(runtime, tmp_path):
    # Tapped on a 2560 x 1920 picture around the tray in its lower right quarter; the camera then gives half the
    # pixels (work_width halved): the dice are read where they are. A 16:9 picture is another view: said so.
    import cv2

    marked = Config.defaults().with_changes({"table": {
        "tray_px": [[1280, 960], [2560, 960], [2560, 1920], [1280, 1920]], "picture_px": [2560, 1920]}})
    pipeline, empty, thrown = _throw_into(runtime, tmp_path, marked, (1280, 960), (640, 480))
    assert _played(runtime, pipeline, [empty] * 3 + [thrown] * 10) == ["roll CCGF"]
    assert runtime.snapshot()["tray"]["corners"][0] == [640, 480]
    pipeline(Frame(work=cv2.resize(thrown, (1280, 720)), timestamp=5.0, number=99))
    health = runtime.snapshot()["health"]["dice"]
    assert health["status"] == "degraded"
    assert "tapped on a 2560 x 1920 picture and the camera's is 1280 x 720" in health["detail"]
    assert "tap the tray's four corners again" in health["detail"]
    # The Setup page is told why rather than drawing the taps as if they were read.
    assert runtime.snapshot()["tray"] == {"corners": None, "source": "misplaced", "why": health["detail"],
                                          "picture": [1280, 720]}


def test_a_tray_tapped_for_another_camera_before_its_picture_was_kept_is_said_to_lie_outside(runtime, tmp_path):
    # Taps saved before the picture's size was kept with them are the picture's own pixels: on a smaller camera's
    # picture they lie outside it, and no die could be read there.
    outside = Config.defaults().with_changes({"table": {"tray_px": [[700, 0], [1280, 0], [1280, 480], [700, 480]]}})
    pipeline, empty, thrown = _throw_into(runtime, tmp_path, outside, (640, 480), (0, 0))
    assert _played(runtime, pipeline, [empty] * 3 + [thrown] * 10) == []
    health = runtime.snapshot()["health"]["dice"]
    assert health["status"] == "degraded" and health["detail"] == (
        "the dice tray lies outside the camera's 640 x 480 picture: tap the tray's four corners again on the live "
        "view (Setup page, Dice tray)")
