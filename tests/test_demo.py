"""The demo table: the scripted game's pictures through the real pipeline, referee, engine and campaign."""

from __future__ import annotations

import pytest

from companion.campaign import Campaign, on_table
from companion.config import Config
from companion.demo import DEMO_TITLE, DemoTable
from companion.pipeline import Pipeline
from companion.runtime import Runtime
from hardware.camera.base import Frame


@pytest.fixture
def runtime(log):
    with Runtime(Config.defaults(), log) as rt:
        yield rt


def play(demo: DemoTable, pipeline: Pipeline, runtime: Runtime, count: int, start: int = 0) -> int:
    """What the demo camera does: ask for the next picture (the demo waits for the runtime), stamp it
    with the script's time and hand it to the pipeline."""
    number = start
    shown = 0
    for _ in range(count):
        picture = demo.next_image(number)
        if picture is None:
            number = 0
            continue
        image, t = picture
        shown += 1
        pipeline(Frame(work=image, timestamp=t, number=shown))
        number += 1
    runtime.call(lambda: None)
    return number


def test_the_demo_plays_its_campaigns_first_game_through_the_camera(runtime, log, tmp_path):
    demo = DemoTable(runtime, turns=4, hand_frames=4, still_frames=16)
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path, table_mm=demo.table_mm)
    play(demo, pipeline, runtime, len(list(demo.script.frames())))
    session = runtime.session
    assert session.record.title == f"{DEMO_TITLE}: game 1"
    camera = [e.text for e in log.events(session.session_id) if e.source == "camera"]
    expected = [move for step in demo.script.steps for move in step.camera]
    assert expected and camera == expected  # every purchase and draw, seen by the camera alone
    assert runtime.pending_alerts() == []
    assert on_table(log).title == DEMO_TITLE


def test_when_the_script_starts_over_the_demo_campaign_starts_a_new_first_game(runtime, log, tmp_path):
    demo = DemoTable(runtime, turns=3, hand_frames=2, still_frames=6)
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path, table_mm=demo.table_mm)
    frames = len(list(demo.script.frames()))
    play(demo, pipeline, runtime, frames + 3)  # the whole script, then the start of its second showing
    campaign = Campaign.find(log)
    assert [g.status for g in campaign.state.games] == ["abandoned", "playing"]
    assert runtime.session.record.title == f"{DEMO_TITLE}: game 2"


def test_the_demo_leaves_a_game_a_person_started_alone(runtime, log, tmp_path):
    runtime.new_game("fandooble", ["Lola", "Grace"])
    demo = DemoTable(runtime, turns=2, hand_frames=2, still_frames=4)
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path, table_mm=demo.table_mm)
    play(demo, pipeline, runtime, 10)
    assert runtime.session.game == "fandooble"
    assert log.count_events(runtime.session.session_id) == 0


def test_the_demo_keeps_two_rendered_stills_however_often_its_script_starts_over():
    from vision.synth.demo import DemoGame

    game = DemoGame(turns=8, size=(320, 180), hand_frames=2, still_frames=1)
    for stop_after in (9, 14, 5, 11, 100):  # a camera that restarts at one step, then another
        for count, _ in enumerate(game.frames()):
            assert len(game._stills) <= 2
            if count == stop_after:
                break
