"""Game films: a game night recorded while it is played, and replayed exactly.

The recordings under tests/films/ are fixtures: each was recorded from a live (threaded)
companion by tests/film_fixtures.py, and its live.jsonl holds the lines the evening
produced; the replay must give them again, as recorded and with the pictures read anew.
"""

from __future__ import annotations

import json
import random
import shutil
import threading
import time

import pytest

from companion.cli import main
from companion.film import lines as film_lines
from companion.film.replay import parse_time, replay
from companion.film.store import FRAMES, HEADER, RecordedFilm
from tests.film_fixtures import FILMS, record_demo

DEMO_FILM = FILMS / "demo-4-turns"


def comparable(found):
    return film_lines.comparable(found)


@pytest.mark.parametrize("reread", [False, True], ids=["as read at the table", "pictures read again"])
def test_a_recorded_evening_replays_to_the_lines_it_produced(reread):
    film = RecordedFilm(DEMO_FILM)
    result = replay(film, reread=reread)
    assert comparable(result.lines) == comparable(film.live_lines())
    camera = [line["text"] for line in result.lines if line.get("source") == "camera"]
    assert camera == ["buy Anne 4:1", "draw 7:1", "draw 7:1"]  # the draw undone by a person comes back
    kinds = {line["kind"] for line in result.lines}
    assert {"game", "move", "undo", "alert", "resolve", "correct", "state"} <= kinds
    refused = [line for line in result.lines if line["kind"] == "refused"]
    assert [line["text"].split(":")[0] for line in refused] == ["redo redo", "play move Paul 99"]
    assert result.reread == (8 if reread else 0)


def test_the_same_film_gives_the_same_lines_at_any_speed(monkeypatch):
    film = RecordedFilm(DEMO_FILM)
    quick = replay(film).lines
    # A slow, uneven machine: every frame and every referee verdict takes a random while.
    from companion.pipeline import Pipeline
    from companion.referees.fable import FableReferee

    rng = random.Random(4)
    frame, observe = Pipeline.__call__, FableReferee.observe
    monkeypatch.setattr(Pipeline, "__call__", lambda self, f: (time.sleep(rng.random() / 500), frame(self, f))[1])
    monkeypatch.setattr(FableReferee, "observe",
                        lambda self, s, o: (time.sleep(rng.random() / 100), observe(self, s, o))[1])
    slow = replay(RecordedFilm(DEMO_FILM)).lines
    assert slow == quick  # frames, times, digests: every line, every field


def test_a_recording_made_now_replays_exactly(tmp_path):
    directory = record_demo(tmp_path / "film")
    film = RecordedFilm(directory)
    live = film.live_lines()
    assert [line["text"] for line in live if line.get("source") == "camera"] == ["buy Anne 4:1", "draw 7:1",
                                                                                 "draw 7:1"]
    assert replay(film).lines == [line for line in replay(film).lines]
    assert comparable(replay(film).lines) == comparable(live)
    header = json.loads((directory / HEADER).read_text())
    assert header["versions"]["companion"] and "pin" not in header["config"]["server"]
    assert header["pictures"] == 8 and header["pictures_dropped"] == 0 and header["table_mm"] == [800.0, 450.0]


def test_over_budget_pictures_are_dropped_never_the_frames(tmp_path):
    directory = record_demo(tmp_path / "film", budget_mb_per_hour=0.001)
    header = json.loads((directory / HEADER).read_text())
    assert header["pictures"] == 0 and header["pictures_dropped"] == 8
    assert not any((directory / "images").iterdir())
    film = RecordedFilm(directory)
    assert comparable(replay(film).lines) == comparable(film.live_lines())  # what the reader saw is kept
    # Read again, a frame without its picture stands as it was read at the table.
    assert comparable(replay(film, reread=True).lines) == comparable(film.live_lines())


def test_the_recorder_never_holds_up_the_camera(tmp_path, log):
    """A writer stuck on a slow card: frames go on at once, pictures beyond two are dropped and counted,
    and every frame's line is written once the card answers again."""
    from companion.config import Config
    from companion.film.recorder import MAX_PICTURES_WAITING, Recorder
    from companion.runtime import Runtime
    from hardware.camera.base import Frame
    from vision.reader import TagReader
    from vision.synth import table as synth

    scene = synth.first_game()
    view = synth.View(size=(1280, 720), px_per_mm=1.4)
    bought = synth.Scene(scene.stacks[:5] + (synth.Stack((700, 400), 0, ((9, 1),)),), scene.table_mm, scene.tag_mm)
    pictures = [synth.render(scene, view)[0], synth.render(bought, view)[0]]
    with Runtime(Config.defaults(), log) as runtime:
        recorder = Recorder(tmp_path / "film", runtime, Config.defaults()).start()
        stuck = threading.Event()
        keep = recorder._keep_picture

        def slow_card(*args):
            stuck.wait(30)
            keep(*args)

        recorder._keep_picture = slow_card
        reader = TagReader()

        def camera():
            for number in range(1, 41):  # the table changes every other frame: each change settles
                image = pictures[(number // 2) % 2]
                recorder.frame(Frame(work=image, timestamp=number / 10, number=number), reader.read(image))

        fed = threading.Thread(target=camera)
        fed.start()
        fed.join(20)
        assert not fed.is_alive()  # all 40 frames taken while the writer was stuck
        assert recorder.stats["pictures_dropped"] >= 5
        stuck.set()
        recorder.stop()
    lines = (tmp_path / "film" / FRAMES).read_text().splitlines()
    assert [json.loads(line)["n"] for line in lines] == list(range(1, 41))
    assert recorder.stats["pictures"] <= MAX_PICTURES_WAITING + 1


def test_a_recording_cut_short_by_a_power_cut_replays_up_to_its_last_whole_line(tmp_path):
    directory = tmp_path / "film"
    shutil.copytree(DEMO_FILM, directory)
    frames = (directory / FRAMES).read_text().splitlines(keepends=True)
    (directory / FRAMES).write_text("".join(frames[:60]) + frames[60][:25])
    result = replay(RecordedFilm(directory))
    assert result.frames == 60
    assert [line["text"] for line in result.lines if line.get("source") == "camera"] == []  # bought at frame 72
    # The inputs recorded after the last whole frame are still delivered, in order.
    assert [line["text"] for line in result.lines if line["kind"] == "alert"] == ["the deck looks uneven"]


def test_companion_replay_prints_lines_json_and_checks_them(capsys):
    assert main(["replay", str(DEMO_FILM), "--check"]) == 0
    out, err = capsys.readouterr()
    assert "camera    move    buy Anne 4:1" in out
    assert "check: the replay gives the evening's 27 lines exactly" in err
    assert main(["replay", str(DEMO_FILM), "--json", "--until", "0:07.2"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr()[0].splitlines()]
    assert lines[0]["kind"] == "game" and lines[-1]["t"] <= 7.2
    assert [line["text"] for line in lines if line.get("source") == "camera"] == ["buy Anne 4:1", "draw 7:1"]
    assert main(["replay", str(DEMO_FILM), "--json", "--game", "2"]) == 0
    assert capsys.readouterr()[0] == ""  # the evening had one game
    assert main(["replay", str(DEMO_FILM), "--json", "--game", "fable"]) == 0
    assert len(capsys.readouterr()[0].splitlines()) == 29


def test_companion_replay_explains_what_it_cannot_play(tmp_path, capsys):
    assert main(["replay", str(tmp_path)]) == 2
    assert "is not a recording: it has no film.json" in capsys.readouterr()[1]
    assert main(["replay", str(DEMO_FILM), "--until", "soon"]) == 2
    assert "write seconds (90), M:SS (1:30) or H:MM:SS" in capsys.readouterr()[1]
    directory = tmp_path / "changed"
    shutil.copytree(DEMO_FILM, directory)
    live = (directory / "live.jsonl").read_text().replace("buy Anne 4:1", "buy Anne 4:2")
    (directory / "live.jsonl").write_text(live)
    assert main(["replay", str(directory), "--check"]) == 1
    assert "differs from the evening at line 12" in capsys.readouterr()[1]


def test_times_are_read_as_people_write_them():
    assert parse_time("90") == 90.0 and parse_time("1:30") == 90.0 and parse_time("0:01:30.5") == 90.5
    for bad in ("", "1::2", "-3", "1:2:3:4", "ten"):
        with pytest.raises(ValueError):
            parse_time(bad)


def test_companion_run_records_the_evening_and_the_dashboard_says_so(data_dir, mock_factory):
    import functools

    from companion.appliance import Appliance
    from companion.config import Config
    from hardware.camera.demo import DemoCamera, SyntheticTable
    from tests.waiting import wait_until

    config = Config.defaults().with_changes({"server": {"host": "127.0.0.1"}})
    appliance = Appliance(config, data_dir, pin_factory=mock_factory, port=0, record_dir=data_dir / "tonight",
                          camera_factory=functools.partial(DemoCamera, SyntheticTable((640, 360)), fps=20))
    appliance.start()
    try:
        appliance.runtime.new_game("fable", ["Anne", "Paul"])
        appliance.runtime.play("move Anne 1", source="dashboard")
        wait_until(lambda: appliance.recording.status()["frames"] >= 10, timeout=20)
        health = appliance.runtime.snapshot()["health"]["recording"]
        assert health["detail"] == "recording this game night (film tonight)"
    finally:
        appliance.stop()
    film = RecordedFilm(data_dir / "tonight")
    assert [i.kind for f in film.frames() for i in f.inputs] + [i.kind for i in film.start] != []
    result = replay(film)
    assert [line["text"] for line in result.lines if line["kind"] == "move"][:1] == ["move Anne 1"]


def test_the_setup_page_switches_recording_with_the_pin(runtime, tmp_path):
    from companion.config import Config
    from companion.film.recorder import Recording
    from tests.test_web_support import make_app, with_token

    config = Config.defaults().with_changes({"server": {"pin": "4321"}})
    app = make_app(runtime, config)
    client = with_token(app.test_client())
    assert client.get("/api/recording").status_code == 404  # not a running companion
    app.extensions["companion_recording"] = Recording(runtime, config, tmp_path)
    assert client.get("/api/recording").get_json() == {"recording": False, "folder": None}
    assert client.post("/api/recording", json={"record": True}).status_code == 403
    assert client.post("/api/unlock", json={"pin": "4321"}).status_code == 200
    assert client.post("/api/recording", json={"record": "yes"}).status_code == 400
    status = client.post("/api/recording", json={"record": True}).get_json()
    assert status["recording"] and (tmp_path / "recordings" / status["folder"] / HEADER).exists()
    assert "recording this game night" in runtime.snapshot()["health"]["recording"]["detail"]
    assert client.post("/api/recording", json={"record": False}).get_json()["recording"] is False
    assert "stopped" in runtime.snapshot()["health"]["recording"]["detail"]


@pytest.fixture
def runtime(log):
    from companion.config import Config
    from companion.runtime import Runtime

    with Runtime(Config.defaults(), log) as rt:
        yield rt


def test_button_presses_are_recorded_as_the_inputs_they_made(runtime, tmp_path):
    from types import SimpleNamespace

    from companion.buttons import ButtonInputs
    from companion.config import Config
    from companion.film.recorder import Recorder

    runtime.new_game("fandooble", ["Lola", "Grace"])
    recorder = Recorder(tmp_path / "film", runtime, Config.defaults()).start()
    buttons = ButtonInputs(runtime, SimpleNamespace())
    runtime.play("roll CCGK", source="dashboard")
    buttons.next_pressed()  # bank
    buttons.undo_pressed()
    runtime.call(lambda: None)
    recorder.stop()
    film = RecordedFilm(tmp_path / "film")
    assert [(i.kind, i.args.get("move"), i.args.get("source")) for i in film.start] == [
        ("open", None, None), ("play", "roll CCGK", "dashboard"), ("play", "bank", "button"), ("undo", None, "button")]
    assert [line["text"] for line in film.live_lines() if line["kind"] in ("move", "undo")] == [
        "roll CCGK", "bank", "undo bank"]


def test_a_recorded_dice_roll_replays_as_it_was_read(runtime, tmp_path):
    """Fandooble: the roll the camera read goes into the film, and the replay hands the referee that roll."""
    import numpy as np

    from companion.config import Config
    from companion.film.recorder import Recorder
    from companion.pipeline import Pipeline
    from hardware.camera.base import Frame
    from tests.test_referee_fandooble import seen

    runtime.new_game("fandooble", ["Lola", "Grace"])
    pipeline = Pipeline(runtime, Config.defaults(), tmp_path)
    rolls = {5: seen(("C", 10, 10), ("C", 60, 10), ("G", 110, 10), ("F", 10, 60))}
    pipeline.read_dice = lambda frame: rolls.get(frame.number)  # what the dice reader saw, frame by frame
    recorder = Recorder(tmp_path / "film", runtime, Config.defaults()).start()
    tray = np.full((240, 320, 3), 150, np.uint8)
    for number in range(1, 9):
        pipeline(Frame(work=tray, timestamp=number / 10, number=number))
        runtime.call(lambda: None)
    recorder.stop()
    film = RecordedFilm(tmp_path / "film")
    assert [f.number for f in film.frames() if f.roll] == [5]
    lines = replay(film).lines
    assert [line["text"] for line in lines if line.get("source") == "camera"] == ["roll CCGF"]
    assert comparable(lines) == comparable(film.live_lines())
