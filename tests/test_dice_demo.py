"""The Fandooble dice demo: rendered picture dice rolled into the demo tray, read by the camera path
(tray zone, roll detector, taught reader), scored by the referee and the engine."""

from __future__ import annotations

import os

import pytest

from companion import demos
from companion.config import Config
from companion.dice_demo import DiceDemoTable
from companion.dicestore import DiceStore
from companion.errors import ConfigError
from companion.pipeline import tray_towards_edge
from companion.pipeline import Pipeline
from companion.runtime import Runtime
from hardware.camera.base import Frame

ROLLS = 50 if os.environ.get("COMPANION_LONG") == "1" else 12


@pytest.fixture
def runtime(log):
    with Runtime(Config.defaults(), log) as rt:
        yield rt


def play_all(demo, pipeline, runtime) -> None:
    """What the demo camera does: ask for each picture (the film waits for the runtime) and hand it on."""
    number = 0
    for number in range(sum(1 for _ in demo.script.frames())):
        image, t = demo.next_image(number)
        pipeline(Frame(work=image, timestamp=t, number=number + 1))
    demo.show.inputs.settle(30)
    runtime.call(lambda: None)


def test_every_roll_of_the_demo_is_read_and_scored_as_rendered(runtime, log, tmp_path):
    demo = DiceDemoTable(runtime, size=(1280, 720), rolls=ROLLS)
    demo.prepare(DiceStore(tmp_path))
    play_all(demo, Pipeline(runtime, Config.defaults(), tmp_path, demo_tray_px=demo.tray_px), runtime)
    session = runtime.session
    assert session.game == "fandooble"
    faces = session.view(None)["state"]["faces"]  # the taught dice's counts: the odds are exact and say so
    assert faces["verified"] and faces["dragon"] == {"C": 1, "G": 1, "R": 1}
    camera = [e.text for e in log.events(session.session_id) if e.source == "camera"]
    assert camera == [f"roll {step.faces}" for step in demo.script.steps] and len(camera) == ROLLS
    assert runtime.pending_alerts() == []
    # In the light its dice were taught in: nothing to say about the tray's light
    assert runtime.snapshot()["health"]["dice"] == {**runtime.snapshot()["health"]["dice"], "status": "ok",
                                                    "detail": "reading taught dice"}
    banked = [e.text for e in log.events(session.session_id) if e.text == "bank"]
    assert banked  # the turns pass: banking is entered as a person would


def test_the_demo_teaches_its_dice_only_when_none_are_and_saves_no_tray(runtime, tmp_path):
    store = DiceStore(tmp_path)
    demo = DiceDemoTable(runtime, size=(1280, 720), rolls=2)
    demo.prepare(store)
    assert store.kind == "taught" and store.options_for("fandooble")
    assert "advice" not in store.describe()  # taught as the Setup page would: nothing to teach again
    assert runtime.config.get("table", "tray_px") == []  # a camera attached later must not inherit the demo's tray
    taught_at = store.changed_at()
    DiceDemoTable(runtime, size=(1280, 720), rolls=2).prepare(store)
    assert store.changed_at() == taught_at  # the table's own dice stay taught
    settings = store.settings()
    del settings["descriptor"]  # dice taught by an older version, which cut them out otherwise, cannot be read
    store._write_settings(settings)
    DiceDemoTable(runtime, size=(1280, 720), rolls=2).prepare(store)
    assert store.has_usable_templates() and store.load_templates() is not None


def test_the_demo_reads_its_own_tray_until_one_is_marked_whatever_else_is_saved(runtime, tmp_path):
    # The game master saves a setting on the dashboard while the demo plays (the runtime is given the
    # saved configuration): the demo's dice are still read in its tray. A tray marked later wins.
    demo = DiceDemoTable(runtime, size=(1280, 720), rolls=2)
    demo.prepare(DiceStore(tmp_path))
    runtime.new_game("fandooble", ["Lola", "Grace"])
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path, demo_tray_px=demo.tray_px)
    image, t = demo.next_image(0)
    pipeline(Frame(work=image, timestamp=t, number=1))
    assert runtime.snapshot()["tray"] == {"corners": [[round(x), round(y)] for x, y in demo.tray_px],
                                          "source": "demo", "picture": [1280, 720], "edge": None}
    runtime.config = Config.defaults().with_changes({"recording": {"budget_mb_per_hour": 150}})
    pipeline(Frame(work=image, timestamp=t + 0.1, number=2))
    assert runtime.snapshot()["tray"]["source"] == "demo"
    assert runtime.snapshot()["health"]["dice"]["status"] == "ok"
    marked = [[10, 10], [300, 10], [300, 200], [10, 200]]
    runtime.config = runtime.config.with_changes({"table": {"tray_px": marked}})
    pipeline(Frame(work=image, timestamp=t + 0.2, number=3))
    # Marked in the picture's top left corner: the Setup page says why fewer dice are read there.
    edge = tray_towards_edge(marked, (1280, 720))
    assert edge and edge.startswith("the tray lies towards the edge of the camera's view")
    assert runtime.snapshot()["tray"] == {"corners": marked, "source": "marked", "picture": [1280, 720], "edge": edge}


def test_the_demo_is_chosen_by_its_game_and_an_unknown_one_is_refused(runtime):
    assert list(demos.available()) == ["fable", "fandooble"]
    assert isinstance(demos.table_for("fandooble", runtime, size=(1280, 720)), DiceDemoTable)
    with pytest.raises(ConfigError, match="no demo of 'chess': the demos play fable, fandooble"):
        demos.table_for("chess", runtime, size=(1280, 720))


def test_teaching_with_the_demo_camera_finishes(runtime, tmp_path):
    import numpy as np

    from companion.teach import DONE, DiceTeacher

    store = DiceStore(tmp_path)
    demo = DiceDemoTable(runtime, size=(1280, 720), rolls=2)
    teacher = DiceTeacher("dragon", "CCGGRR", looks=2, save=store.save_templates,
                          zone=np.asarray(demo.script.tray_px, np.float64))
    runtime.add_snapshot_part("teaching", teacher.status)
    for number in range(400):
        if not teacher.active:
            break
        image, _ = demo.next_image(number)
        teacher.feed(image)
    assert teacher.state == DONE and teacher.retries == 0
    assert store.options_for("fandooble") == {}  # one die of two taught
    assert store.face_counts() == {"dragon": {"C": 2, "G": 2, "R": 2}}


def test_the_demo_keeps_its_rendered_dice_apart_from_the_tables_own(data_dir, mock_factory):
    # Real dice were taught on this table. The Fandooble demo reads its rendered dice with its own templates
    # (the real ones read no rendered face), and leaves the table's as they were: a camera attached later
    # reads with what was taught for it, not with renders.
    import numpy as np

    from companion.appliance import Appliance
    from tests.waiting import wait_until
    from vision.dice.faces import FaceTemplates
    from vision.synth.dice import render_face_photo

    table = DiceStore(data_dir)
    real = FaceTemplates()
    rng = np.random.default_rng(3)
    for face in "GR":
        real.learn("mine", face, render_face_photo(rng, face, table="wood"))
    table.save_templates(real)
    before = (table.settings(), table.changed_at())
    config = Config.defaults().with_changes({"server": {"host": "127.0.0.1"}, "camera": {"fps": 30.0}})
    appliance = Appliance(config, data_dir, pin_factory=mock_factory, camera_backend="demo",
                          demo_game="fandooble", port=0)
    appliance.start()
    try:
        runtime = appliance.runtime
        assert runtime.dice_store.demo and set(runtime.dice_store.face_counts()) == {"dragon", "special"}
        shown = appliance.app.test_client().get("/api/dice").get_json()
        assert shown["demo"] and set(shown["dice"]) == {"dragon", "special"}
        def a_roll_scored():
            session = runtime.session
            return session is not None and any(e.source == "camera" and e.text.startswith("roll ")
                                               for e in runtime.log.events(session.session_id))

        wait_until(a_roll_scored, timeout=120)
        assert runtime.pending_alerts() == []
    finally:
        appliance.stop()
    assert (table.settings(), table.changed_at()) == before
