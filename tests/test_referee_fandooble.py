"""The Fandooble referee: what the camera saw after a roll becomes a move, or an alert naming the mismatch."""

from __future__ import annotations

import pytest

from companion.referees import Alert, Apply, for_game
from companion.session import Session
from vision.roll import DiceObservation, SeenDie


def seen(*dice, die_px=40.0) -> DiceObservation:
    """Dice as (face, x_mm, y_mm) or (face, x_mm, y_mm, confidence); face None = unreadable."""
    out = []
    for d in dice:
        face, x, y = d[:3]
        confidence = d[3] if len(d) > 3 else 0.95
        out.append(SeenDie(face, confidence if face else 0.0, (int(x * 2), int(y * 2), 40, 40), (float(x), float(y)),
                           reason="" if face else "not lying flat (cocked or stacked)"))
    return DiceObservation(tuple(out), frames=3, kind="taught", die_px=die_px)


@pytest.fixture
def game(log):
    session = Session.create(log, "fandooble", ["Lola", "Grace"])
    return session, for_game("fandooble")


def play(session, verdicts):
    for v in verdicts:
        if isinstance(v, Apply):
            session.apply(v.move, source="camera", payload=v.payload)


def test_first_roll_of_four_dice_is_applied(game):
    session, referee = game
    verdicts = referee.observe(session, seen(("C", 10, 10), ("C", 60, 10), ("G", 110, 10), ("F", 10, 60)))
    assert verdicts == [Apply("roll CCGF", payload=verdicts[0].payload)]
    assert len(verdicts[0].payload["dice"]) == 4
    play(session, verdicts)
    assert session.state.loot == 3 and session.state.dragons == "G"


def test_dragon_left_in_place_is_matched_and_only_new_faces_are_rolled(game):
    session, referee = game
    play(session, referee.observe(session, seen(("C", 10, 10), ("C", 60, 10), ("G", 110, 10), ("F", 10, 60))))
    # Lola picks up three dice and throws them; the green dragon lies where it was.
    verdicts = referee.observe(session, seen(("G", 111, 11), ("R", 30, 90), ("G", 70, 80), ("K", 150, 60)))
    assert [v.move for v in verdicts] == ["roll GRK"]
    assert isinstance(verdicts[0], Apply)
    play(session, verdicts)
    assert session.state.dragons == "GR"  # the knight took out one green dragon


def test_five_dice_raise_an_alert_naming_expected_and_seen(game):
    session, referee = game
    play(session, referee.observe(session, seen(("C", 10, 10), ("C", 60, 10), ("G", 110, 10), ("F", 10, 60))))
    verdicts = referee.observe(session, seen(("G", 110, 10), ("C", 30, 90), ("C", 70, 80), ("K", 150, 60),
                                             ("W", 150, 120)))
    assert len(verdicts) == 1 and isinstance(verdicts[0], Alert)
    assert "expected 4 dice: green dragon lying there and 3 thrown" in verdicts[0].text
    assert "saw 5 dice" in verdicts[0].text
    assert verdicts[0].move is None
    assert session.state.rolls_this_turn == 1  # nothing applied


def test_missing_die_is_not_applied(game):
    session, referee = game
    verdicts = referee.observe(session, seen(("C", 10, 10), ("G", 110, 10), ("F", 10, 60)))
    assert isinstance(verdicts[0], Alert) and "saw 3 dice" in verdicts[0].text and verdicts[0].move is None


def test_dragon_that_moved_is_an_alert_that_proposes_the_roll(game):
    session, referee = game
    play(session, referee.observe(session, seen(("C", 10, 10), ("C", 60, 10), ("G", 110, 10), ("F", 10, 60))))
    verdicts = referee.observe(session, seen(("G", 200, 150), ("C", 30, 90), ("C", 70, 80), ("K", 150, 60)))
    assert isinstance(verdicts[0], Alert)
    assert "green dragon from the last roll moved" in verdicts[0].text
    assert verdicts[0].move == "roll CCK"


def test_held_dragon_missing_from_the_tray_is_an_alert(game):
    session, referee = game
    play(session, referee.observe(session, seen(("C", 10, 10), ("C", 60, 10), ("G", 110, 10), ("F", 10, 60))))
    verdicts = referee.observe(session, seen(("C", 110, 10), ("C", 30, 90), ("C", 70, 80), ("K", 150, 60)))
    assert isinstance(verdicts[0], Alert) and "green dragon that must stay" in verdicts[0].text
    assert verdicts[0].move is None


def test_unreadable_die_is_reported_not_guessed(game):
    session, referee = game
    verdicts = referee.observe(session, seen(("C", 10, 10), (None, 60, 10), ("G", 110, 10), ("F", 10, 60)))
    assert isinstance(verdicts[0], Alert) and verdicts[0].move is None
    assert "1 could not be read (not lying flat (cocked or stacked))" in verdicts[0].text


def unclear(guess, x, y):
    """A die lying flat whose face the reader could not be sure of; it looks most like ``guess``."""
    return SeenDie(None, 0.0, (int(x * 2), int(y * 2), 40, 40), (float(x), float(y)), reason="face unclear",
                   guess=guess)


def with_dice(*dice) -> DiceObservation:
    return DiceObservation(tuple(SeenDie(d[0], 0.95, (int(d[1] * 2), int(d[2] * 2), 40, 40), (float(d[1]), float(d[2])))
                                 if isinstance(d, tuple) else d for d in dice), frames=3, kind="taught", die_px=40.0)


def test_a_die_read_unclear_is_proposed_as_the_face_it_looks_like_never_applied(game):
    session, referee = game
    verdicts = referee.observe(session, with_dice(("C", 10, 10), unclear("K", 60, 10), ("G", 110, 10), ("C", 10, 60)))
    assert len(verdicts) == 1 and isinstance(verdicts[0], Alert)
    assert verdicts[0].move == "roll CCGK"
    assert "knight (not readable; the face it looks most like)" in verdicts[0].text
    assert "accept 'roll CCGK' if that is what lies there" in verdicts[0].text
    assert session.state.rolls_this_turn == 0  # a person accepts it; nothing was applied


def test_guesses_that_make_no_roll_are_reported_as_unreadable_dice(game):
    session, referee = game
    # Taken for a knight, the die would make two Fandooble/Knight/Wizard dice: no roll to propose.
    verdicts = referee.observe(session, with_dice(("C", 10, 10), unclear("K", 60, 10), ("G", 110, 10), ("F", 10, 60)))
    assert verdicts[0].move is None
    assert ("1 could not be read (face unclear): nudge the die (the same face up) so the camera sees its face, "
            "or enter the roll by hand") in verdicts[0].text


def test_a_die_without_a_guess_beside_a_guessed_one_is_reported_not_proposed(game):
    session, referee = game
    cocked = SeenDie(None, 0.0, (120, 20, 40, 40), (60.0, 10.0), reason="not lying flat (cocked or stacked)")
    verdicts = referee.observe(session, with_dice(("C", 10, 10), cocked, unclear("G", 110, 10), ("F", 10, 60)))
    assert verdicts[0].move is None
    assert "2 could not be read (face unclear; not lying flat (cocked or stacked))" in verdicts[0].text
    # What to do, for each: the leaning die straightened, the unclear one nudged (in the order they lie).
    assert verdicts[0].text.endswith(": straighten the die; nudge the die (the same face up) so the camera sees "
                                     "its face, or enter the roll by hand")


def test_a_guessed_dragon_lying_where_it_lay_is_still_only_proposed(game):
    session, referee = game
    play(session, referee.observe(session, seen(("C", 10, 10), ("C", 60, 10), ("G", 110, 10), ("F", 10, 60))))
    # The green dragon stayed; the reader cannot be sure of it now, though it looks green.
    verdicts = referee.observe(session, with_dice(unclear("G", 111, 11), ("R", 30, 90), ("G", 70, 80), ("K", 150, 60)))
    assert len(verdicts) == 1 and isinstance(verdicts[0], Alert) and verdicts[0].move == "roll GRK"
    assert "green dragon (not readable; the face it looks most like)" in verdicts[0].text
    assert session.state.rolls_this_turn == 1


def test_two_special_faces_cannot_be_a_roll(game):
    session, referee = game
    verdicts = referee.observe(session, seen(("C", 10, 10), ("K", 60, 10), ("G", 110, 10), ("F", 10, 60)))
    assert isinstance(verdicts[0], Alert) and "2 Fandooble/Knight/Wizard dice instead of 1" in verdicts[0].text


def test_unsure_reading_is_proposed_not_applied(game):
    session, referee = game
    verdicts = referee.observe(session, seen(("C", 10, 10), ("C", 60, 10, 0.2), ("G", 110, 10), ("F", 10, 60)))
    assert isinstance(verdicts[0], Alert) and verdicts[0].move == "roll CCGF"
    assert "treasure chest (20%)" in verdicts[0].text


def test_same_dice_seen_again_are_no_new_roll(game):
    session, referee = game
    play(session, referee.observe(session, seen(("C", 10, 10), ("C", 60, 10), ("G", 110, 10), ("F", 10, 60))))
    # A hand passed over the tray: the same dice, where they were.
    assert referee.observe(session, seen(("C", 11, 10), ("C", 60, 11), ("G", 110, 10), ("F", 10, 60))) == []
    assert session.state.rolls_this_turn == 1


def test_roll_while_a_steal_waits_is_an_alert(log):
    session = Session.create(log, "fandooble", ["Lola", "Grace", "Anne"])
    referee = for_game("fandooble")
    play(session, referee.observe(session, seen(("C", 10, 10), ("C", 60, 10), ("C", 110, 10), ("F", 10, 60))))
    assert session.state.pending_steals == 1
    verdicts = referee.observe(session, seen(("C", 20, 10), ("G", 60, 50), ("C", 110, 90), ("K", 10, 90)))
    assert isinstance(verdicts[0], Alert) and "choose whom the Fandooble steals from" in verdicts[0].text


def test_bust_from_the_camera_ends_the_turn(game):
    session, referee = game
    play(session, referee.observe(session, seen(("R", 10, 10), ("R", 60, 10), ("C", 110, 10), ("F", 10, 60))))
    verdicts = referee.observe(session, seen(("R", 10, 10), ("R", 60, 10), ("R", 40, 90), ("F", 90, 60)))
    assert [v.move for v in verdicts] == ["roll RF"]
    play(session, verdicts)
    assert session.state.last_event == "wipe" and session.state.player == "Grace"


def test_runtime_applies_the_referees_move_through_the_engine(log):
    from companion.config import Config
    from companion.runtime import Runtime

    with Runtime(Config.defaults(), log) as runtime:
        runtime.new_game("fandooble", ["Lola", "Grace"])
        runtime.observe(seen(("C", 10, 10), ("C", 60, 10), ("G", 110, 10), ("F", 10, 60))).result(timeout=5)
        assert runtime.call(lambda: runtime.session.state.loot) == 3


def test_positions_in_pixels_work_without_table_geometry(game):
    session, referee = game

    def px(*dice):
        return DiceObservation(tuple(SeenDie(f, 0.9, (x, y, 40, 40), None) for f, x, y in dice), die_px=40.0)

    play(session, referee.observe(session, px(("C", 10, 10), ("C", 100, 10), ("G", 200, 10), ("F", 10, 100))))
    verdicts = referee.observe(session, px(("G", 300, 300), ("C", 30, 200), ("C", 120, 200), ("K", 200, 200)))
    assert isinstance(verdicts[0], Alert) and "moved" in verdicts[0].text
    verdicts = referee.observe(session, px(("G", 204, 12), ("C", 30, 220), ("C", 120, 220), ("K", 200, 220)))
    assert [type(v) for v in verdicts] == [Apply] and verdicts[0].move == "roll CCK"
