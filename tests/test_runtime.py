"""The runtime: one writer thread, snapshots for readers, alerts a person resolves."""

from __future__ import annotations

import threading

import pytest

from companion.config import Config
from companion.errors import IllegalMove
from companion.runtime import Runtime


@pytest.fixture
def runtime(log):
    with Runtime(Config.defaults(), log) as rt:
        yield rt


def test_inputs_from_many_threads_are_applied_one_at_a_time_on_the_runtime_thread(runtime):
    runtime.new_game("fandooble", ["Ann", "Bob"])
    seen_threads = set()
    runtime.add_observer(lambda rt, s, e: seen_threads.add(threading.current_thread().name))
    errors = []

    def press():
        try:
            runtime.play("roll CCCK", source="button")
        except IllegalMove as exc:
            errors.append(exc)

    threads = [threading.Thread(target=press) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Every roll is legal (no dragons stay on the table), so all five are stored in some order.
    assert not errors and runtime.session.state.loot == 15
    assert seen_threads == {"companion-runtime"}


def test_a_snapshot_is_published_after_each_change_and_waiters_wake(runtime):
    runtime.new_game("fandooble", ["Ann", "Bob"])
    version = runtime.version
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(runtime.wait_for_change(version, 5.0)))
    waiter.start()
    runtime.play("roll CCCF", source="dashboard")
    waiter.join(5)
    assert woke and woke[0]["game"]["state"]["loot"] == 4
    assert runtime.wait_for_change(runtime.version, 0.05) is None


def test_the_game_in_play_is_resumed_when_the_companion_restarts(tmp_path):
    from companion.eventlog import EventLog

    with EventLog(tmp_path / "c.db") as log:
        with Runtime(Config.defaults(), log) as rt:
            rt.new_game("fandooble", ["Ann", "Bob"])
            rt.play("roll CCGF", source="camera")
    with EventLog(tmp_path / "c.db") as log:
        with Runtime(Config.defaults(), log) as rt:
            assert rt.snapshot()["game"]["state"]["loot"] == 3


def test_alerts_wait_for_a_person_and_accepting_one_applies_its_move(runtime):
    runtime.new_game("fandooble", ["Ann", "Bob"])
    alert = runtime.raise_alert("saw five dice: is it roll CCCF?", source="camera", payload={"move": "roll CCCF"})
    assert [a["text"] for a in runtime.snapshot()["alerts"]] == ["saw five dice: is it roll CCCF?"]
    runtime.resolve_alert(alert.event_id, "accept", source="dashboard")
    assert runtime.snapshot()["alerts"] == []
    assert runtime.session.state.loot == 4
    with pytest.raises(IllegalMove, match="already resolved"):
        runtime.resolve_alert(alert.event_id, "dismiss", source="dashboard")


def test_a_corrected_alert_applies_what_really_happened(runtime):
    runtime.new_game("fandooble", ["Ann", "Bob"])
    alert = runtime.raise_alert("unreadable die", source="camera")
    with pytest.raises(IllegalMove, match="proposes no move"):
        runtime.resolve_alert(alert.event_id, "accept", source="dashboard")
    runtime.resolve_alert(alert.event_id, "correct", source="dashboard", move="roll CGRK")
    assert runtime.session.state.dragons == "R"


def test_moves_without_a_game_are_refused(runtime):
    with pytest.raises(IllegalMove, match="no game is in play"):
        runtime.play("bank", source="button")


def test_health_is_part_of_the_snapshot(runtime):
    runtime.set_health("camera", "degraded", "no table in view")
    assert runtime.snapshot()["health"]["camera"]["detail"] == "no table in view"
