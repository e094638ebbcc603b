"""The Fabled Fruit referee: purchases and draws from stable snapshots, alerts for everything else."""

import pytest

from companion.config import Config
from companion.referees import Alert, Apply, for_game
from companion.runtime import Runtime
from companion.session import Session
from vision.cards import StackView, TableSnapshot
from vision.synth.demo import DemoGame

PRICED = DemoGame().options()  # every juice costs 4 fruits of any kind (so 'buy' needs no payment)
FIRST = {loc: 1 for loc in range(1, 7)}


def table(tops: dict, hidden=(), duplicates=()):
    """A stable snapshot with ``tops`` (location -> top copy) laid out in a row."""
    stacks = []
    for i, (loc, top) in enumerate(sorted(tops.items())):
        spot = (60.0 + 120 * i, 60.0)
        copies = (top,) if top is not None else (1, 2)
        stacks.append(StackView(loc, top, spot, spot, copies, hidden=loc in hidden))
    return TableSnapshot(stacks=tuple(stacks), duplicates=tuple(duplicates), stable=True)


@pytest.fixture
def game(log):
    return Session.create(log, "fable", ["Anne", "Paul"], PRICED)


def referee():
    return for_game("fable")


def test_the_first_display_as_laid_out_gives_nothing(game):
    assert referee().observe(game, table(FIRST)) == []


def test_a_purchase_the_player_cannot_afford_is_an_alert(game):
    game.apply("move Anne 1", source="dashboard")
    game.apply("action Anne draw 2", source="dashboard")
    game.apply("move Paul 5", source="dashboard")
    game.apply("action Paul draw 2", source="dashboard")
    game.apply("move Anne 5", source="dashboard")  # Anne pays Paul 1 fruit to enter; holds 4 - 1 = 3 ...
    verdicts = referee().observe(game, table({**FIRST, 5: 2, 7: 1}))
    assert [type(v) for v in verdicts] == [Alert]  # ... too few for a 4-fruit juice: nothing applied
    assert verdicts[0].text.startswith("the camera saw the juice of location 5 bought (5:1), but Anne holds 3")


def test_purchase_then_draw_as_two_stable_snapshots(game):
    game.apply("move Anne 1", source="dashboard")
    game.apply("action Anne draw 2", source="dashboard")
    game.apply("move Paul 1", source="dashboard")
    game.apply("action Paul draw 2", source="dashboard")
    game.apply("move Anne 4", source="dashboard")
    ref = referee()
    first = ref.observe(game, table({**FIRST, 4: 2}))
    assert first == [Apply("buy Anne 4:1", payload=first[0].payload)]
    game.apply(first[0].move, source="camera")
    assert ref.observe(game, table({**FIRST, 4: 2})) == []  # the card has not been drawn yet
    second = ref.observe(game, table({**FIRST, 4: 2, 7: 1}))
    assert [v.move for v in second] == ["draw 7:1"]
    game.apply(second[0].move, source="camera")
    assert game.state.player == "Paul" and game.state.stack(7).cards[0].to_text() == "7:1"


def test_purchase_and_draw_together(game):
    for move in ("move Anne 1", "action Anne draw 2", "move Paul 1", "action Paul draw 2", "move Anne 6"):
        game.apply(move, source="dashboard")
    verdicts = referee().observe(game, table({**FIRST, 6: 2, 7: 1}))
    assert [type(v) for v in verdicts] == [Apply, Apply]
    assert [v.move for v in verdicts] == ["buy Anne 6:1", "draw 7:1"]


def test_the_wrong_card_from_the_deck_is_an_alert_naming_both(game):
    for move in ("move Anne 1", "action Anne draw 2", "move Paul 1", "action Paul draw 2", "move Anne 6"):
        game.apply(move, source="dashboard")
    verdicts = referee().observe(game, table({**FIRST, 6: 2, 14: 1}))
    assert [v.move for v in verdicts if isinstance(v, Apply)] == ["buy Anne 6:1"]
    (alert,) = [v for v in verdicts if isinstance(v, Alert)]
    assert alert.text == "expected location 7 from the deck (7:1), saw 14:1: check the deck order"
    assert alert.move is None


def test_a_card_taken_before_the_animal_moved_proposes_the_move(game):
    ref = referee()
    snapshot = table({**FIRST, 3: 2})
    (alert,) = ref.observe(game, snapshot)
    assert isinstance(alert, Alert)
    assert "stack 3 shows 3:2 on top instead of 3:1" in alert.text
    assert "Anne has not moved an animal yet" in alert.text and alert.move == "move Anne 3"
    assert ref.observe(game, snapshot) == []  # the same table again: no second alert
    game.apply(alert.move, source="dashboard")  # a person accepts; the pipeline shows the referee the table again
    verdicts = ref.observe(game, snapshot)
    assert [type(v) for v in verdicts] == [Alert]  # Anne holds 2 fruits: the juice costs 4
    assert "holds" in verdicts[0].text and "4" in verdicts[0].text


def test_a_change_away_from_the_animal_is_not_a_purchase(game):
    for move in ("move Anne 1", "action Anne draw 2", "move Paul 1", "action Paul draw 2", "move Anne 4"):
        game.apply(move, source="dashboard")
    (alert,) = referee().observe(game, table({**FIRST, 5: 2}))
    assert "stack 5 shows 5:2 on top instead of 5:1" in alert.text
    assert "only location 4, where Anne's animal stands, can change now" in alert.text


def test_an_impossible_copy_on_top_is_not_bought_but_proposed(game):
    for move in ("move Anne 1", "action Anne draw 2", "move Paul 1", "action Paul draw 2", "move Anne 4"):
        game.apply(move, source="dashboard")
    (alert,) = referee().observe(game, table({**FIRST, 4: 3}))
    assert "expected 4:2 on top; saw 4:3 on top" in alert.text and alert.move == "buy Anne 4:1"


def test_an_alert_is_not_repeated_while_the_table_stays_the_same(game):
    ref = referee()
    wrong = table({**FIRST, 14: 1})  # a card appeared with no juice bought
    (alert,) = ref.observe(game, wrong)
    assert "location 14 (14:1) appeared, but it is not on display" in alert.text
    game.apply("move Anne 1", source="dashboard")  # the game goes on; the stray card is still there
    again = ref.observe(game, wrong)
    assert all("14:1" not in v.text for v in again)


def test_hidden_stacks_are_not_changes(game):
    assert referee().observe(game, table(FIRST, hidden={2, 5})) == []
    missing = {k: v for k, v in FIRST.items() if k != 2}
    (alert,) = referee().observe(game, table(missing))
    assert "stack 2 (2:1 on top) is not on the table" in alert.text


def test_a_purchase_under_a_covered_stack_waits_for_the_stack_to_show_again(game):
    for move in ("move Anne 1", "action Anne draw 2", "move Paul 1", "action Paul draw 2", "move Anne 4"):
        game.apply(move, source="dashboard")
    ref = referee()
    # A hand over stack 4 while the next card from the deck (7:1) already lies on the table.
    assert ref.observe(game, table({**FIRST, 7: 1}, hidden={4})) == []
    assert game.state.phase == "act"  # nothing was guessed
    verdicts = ref.observe(game, table({**FIRST, 4: 2, 7: 1}))  # the hand is gone: 4:1 was bought
    assert [v.move for v in verdicts] == ["buy Anne 4:1", "draw 7:1"]


def test_the_last_card_of_a_stack_bought_shows_as_the_stack_gone_and_the_deck_card_proves_it(log):
    game = Session.create(log, "fable", ["Anne", "Paul"], PRICED)
    for move in ("move Anne 1", "action Anne draw 2", "move Paul 5", "action Paul draw 2", "move Anne 4",
                 "buy Anne 4:1", "draw 7:1", "move Paul 7"):
        game.apply(move, source="dashboard")
    assert len(game.state.stack(7).cards) == 1
    ref = referee()
    # Stack 7 vanished (the stabiliser keeps it as covered: it cannot tell), and 7:2 lies as a new stack.
    tops = {**FIRST, 4: 2}
    assert ref.observe(game, table({**tops, 7: 1}, hidden={7})) == []  # no deck card yet: nothing to go on
    verdicts = ref.observe(game, table({**tops, 7: 2}))
    assert [v.move for v in verdicts] == ["buy Paul 7:1", "draw 7:2"]


def test_a_covered_stack_that_reappears_changed_is_judged_like_any_change(game):
    ref = referee()
    assert ref.observe(game, table(FIRST, hidden={3})) == []
    (alert,) = ref.observe(game, table({**FIRST, 3: 2}))  # nobody stands on 3: not a purchase
    assert "stack 3 shows 3:2 on top instead of 3:1" in alert.text
    assert game.played == ()


def test_unknown_price_asks_what_was_paid(log):
    game = Session.create(log, "fable", ["Anne", "Paul"])
    for move in ("move Anne 1", "action Anne draw 2", "move Paul 1", "action Paul draw 2", "move Anne 4"):
        game.apply(move, source="dashboard")
    (alert,) = referee().observe(game, table({**FIRST, 4: 2}))
    assert "the camera saw the juice of location 4 bought (4:1), but" in alert.text
    assert "price of location 4 is not known" in alert.text


def test_copied_stickers_and_unclear_stacks_are_reported(game):
    verdicts = referee().observe(game, table({**FIRST, 2: None}, duplicates=("FF:03:1",)))
    texts = " | ".join(v.text for v in verdicts)
    assert "FF:03:1 is on two stickers" in texts
    assert "2:? (two copies show)" in texts
    assert all(isinstance(v, Alert) for v in verdicts)


def test_restarted_referee_picks_up_from_the_engine(game):
    for move in ("move Anne 1", "action Anne draw 2", "move Paul 1", "action Paul draw 2", "move Anne 4",
                 "buy Anne 4:1"):
        game.apply(move, source="dashboard")
    resumed = Session.resume(game.log, game.session_id)
    verdicts = referee().observe(resumed, table({**FIRST, 4: 2, 7: 1}))  # a fresh referee after a restart
    assert [v.move for v in verdicts] == ["draw 7:1"]


def test_through_the_runtime_alerts_are_logged_and_misreads_change_nothing(log):
    with Runtime(Config.defaults(), log) as runtime:
        runtime.new_game("fable", ["Anne", "Paul"], PRICED)
        for move in ("move Anne 1", "action Anne draw 2", "move Paul 1", "action Paul draw 2", "move Anne 6"):
            runtime.play(move, source="dashboard")
        runtime.observe(table({**FIRST, 6: 2, 9: 3})).result(5)
        session = runtime.session
        assert [p.move.to_text() for p in session.played][-1] == "buy Anne 6:1"
        assert session.state.phase == "draw"  # the wrong card was not drawn
        (alert,) = runtime.pending_alerts()
        assert "expected location 7 from the deck (7:1), saw 9:3" in alert["text"]
        runtime.observe(table({**FIRST, 6: 2, 7: 1})).result(5)
        assert session.state.player == "Paul" and session.state.stack(7) is not None


def test_the_demo_game_runs_through_camera_watcher_and_referee(log):
    """The whole loop on the demo table: frames -> stable snapshots -> referee -> campaign, no alerts."""
    from vision.stabiliser import TableWatcher

    demo = DemoGame(turns=10, size=(1920, 1080), hand_frames=4, still_frames=6)
    game = Session.create(log, "fable", list(demo.players), demo.options())
    ref = referee()
    watcher = TableWatcher(width_mm=800, height_mm=450, still_frames=3, persist_s=0.3)
    alerts = []
    entered_for = -1
    for frame in demo.frames():
        if frame.step.number != entered_for:
            for move in frame.step.entered:  # what the players enter on the dashboard this turn
                game.apply(move, source="dashboard")
            entered_for = frame.step.number
        stable = watcher.update(work=frame.image, now=frame.index * 0.1)
        if stable is None:
            continue
        for verdict in ref.observe(game, stable):
            if isinstance(verdict, Apply):
                game.apply(verdict.move, source="camera")
            else:
                alerts.append(verdict.text)
    assert alerts == []
    camera_moves = [p.move.to_text() for p in game.played if p.source == "camera"]
    assert camera_moves == [m for step in demo.steps for m in step.camera]
    assert tuple((s.number, tuple(c.copy for c in s.cards)) for s in game.state.display) == demo.steps[-1].display
