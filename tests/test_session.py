"""A game session: validated, durable, undoable, and always equal to the replay of its log."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from companion.errors import EventConflict, IllegalMove, InvalidMove, NothingToUndo, SetupError
from companion.eventlog import EventLog
from companion.games import fandooble
from companion.session import Session, replay


def new_game(log, players=("Lola", "Grace"), **options):
    return Session.create(log, "fandooble", list(players), options)


def test_a_move_is_validated_stored_then_published(log):
    session = new_game(log)
    seen = []
    session.subscribe(lambda s, e: seen.append((e.text, log.count_events(s.session_id))))
    session.apply("roll CCGF", source="camera")
    # Subscribers hear of the move only once it is in the log.
    assert seen == [("roll CCGF", 1)]
    assert session.state.loot == 3


def test_an_illegal_move_writes_nothing_and_says_why(log):
    session = new_game(log)
    with pytest.raises(IllegalMove, match="Lola cannot bank: Lola has not rolled yet"):
        session.apply("bank", source="dashboard")
    with pytest.raises(InvalidMove, match="not a Fandooble move"):
        session.apply("jump", source="dashboard")
    assert log.count_events(session.session_id) == 0


def test_bad_players_are_refused_before_anything_is_stored(log):
    with pytest.raises(SetupError):
        new_game(log, players=("Solo",))
    assert log.sessions() == []


def test_undo_and_redo_are_appended_events(log):
    session = new_game(log)
    session.apply("roll CCGF", source="cli")
    session.apply("roll RGK", source="cli")
    session.undo(source="button")
    assert session.state.dragons == "G" and session.can_redo
    session.redo(source="dashboard")
    assert session.state.dragons == "GR"
    kinds = [e.kind for e in log.events(session.session_id)]
    assert kinds == ["move", "move", "undo", "redo"]
    assert [e.text for e in log.events(session.session_id)][2:] == ["undo roll GRK", "redo roll GRK"]


def test_a_new_move_after_undo_clears_redo(log):
    session = new_game(log)
    session.apply("roll CCGF", source="cli")
    session.undo(source="cli")
    session.apply("roll CCCF", source="cli")
    assert not session.can_redo
    with pytest.raises(NothingToUndo, match="nothing to redo"):
        session.redo(source="cli")


def test_undo_with_nothing_played_is_refused(log):
    with pytest.raises(NothingToUndo, match="nothing to undo"):
        new_game(log).undo(source="button")


def test_a_correction_replaces_a_misread_and_keeps_both_in_the_log(log):
    session = new_game(log)
    misread = session.apply("roll CCGF", source="camera")  # really a red dragon, not a green one
    session.apply("roll CGK", source="camera")
    assert session.state.dragons == "G"  # the knight took out the (misread) green dragon
    session.correct(misread.event_id, "roll CCRF", source="dashboard")
    assert session.state.dragons == "R" and session.state.loot == 4
    assert [p.text for p in session.played] == ["roll CCRF", "roll CGK"]
    assert [e.kind for e in log.events(session.session_id)] == ["move", "move", "correct"]
    assert log.events(session.session_id)[-1].text == "correct roll CCGF -> roll CCRF"
    # After a restart the correction is replayed too.
    assert Session.resume(log, session.session_id).state == session.state


def test_a_correction_that_would_make_later_moves_illegal_is_refused(log):
    session = new_game(log)
    misread = session.apply("roll CCGF", source="camera")
    session.apply("roll CGK", source="camera")  # two dragon dice: right after a green dragon
    before = log.count_events(session.session_id)
    with pytest.raises(IllegalMove, match="would be illegal"):
        session.correct(misread.event_id, "roll CCCF", source="dashboard")
    assert log.count_events(session.session_id) == before


def test_a_session_resumes_after_a_restart_exactly_where_it_was(tmp_path):
    path = tmp_path / "companion.db"
    with EventLog(path) as log:
        session = new_game(log)
        for move in ("roll CCGF", "roll RGK", "bank", "roll CCCF"):
            session.apply(move, source="camera")
        session.undo(source="button")
        sid, state = session.session_id, session.state
    with EventLog(path) as log:
        resumed = Session.resume(log, sid)
        assert resumed.state == state and resumed.can_redo
        resumed.redo(source="button")
        assert resumed.state.loot == 4


def test_a_duplicate_event_id_changes_nothing(log):
    session = new_game(log)
    first = session.apply("roll CCGF", source="dashboard", event_id="tap-1")
    state = session.state
    assert session.apply("roll CCGF", source="dashboard", event_id="tap-1") == first
    # A different move under a known id is refused by name: the sender learns it was not applied.
    with pytest.raises(EventConflict, match="tap-1 was already used for 'roll CCGF'.*not applied"):
        session.apply("roll CCCF", source="dashboard", event_id="tap-1")
    with pytest.raises(EventConflict):
        session.undo(source="dashboard", event_id="tap-1")
    assert session.state == state and log.count_events(session.session_id) == 1


# -- property: replay of the log equals the live state ---------------------------------


ANY_TEXT = st.sampled_from(
    ["bank", "steal Grace", "steal Lola", "steal Ann", "roll CCCF", "roll CF", "roll GGF", "roll RRRW", "hop", "roll X"]
)


class SessionMachine(RuleBasedStateMachine):
    """Random legal and illegal moves, undos, redos, duplicates and restarts."""

    def __init__(self):
        super().__init__()
        import tempfile

        self.dir = tempfile.TemporaryDirectory()
        self.path = f"{self.dir.name}/companion.db"
        self.log = EventLog(self.path)
        self.session = Session.create(self.log, "fandooble", ["Lola", "Grace", "Ann"], {})
        self.sent_ids: list[str] = []

    def teardown(self):
        self.log.close()
        self.dir.cleanup()

    @rule(data=st.data())
    def legal_move(self, data):
        moves = fandooble.legal_moves(self.session.state)
        if moves:
            move = data.draw(st.sampled_from(moves))
            event = self.session.apply(move, source="cli")
            self.sent_ids.append(event.event_id)

    @rule(text=ANY_TEXT)
    def any_move(self, text):
        before = (self.session.state, self.log.count_events(self.session.session_id))
        try:
            self.session.apply(text, source="dashboard")
        except (IllegalMove, InvalidMove):
            assert (self.session.state, self.log.count_events(self.session.session_id)) == before

    @rule()
    def undo(self):
        try:
            self.session.undo(source="button")
        except NothingToUndo:
            assert not self.session.can_undo

    @rule()
    def redo(self):
        try:
            self.session.redo(source="button")
        except NothingToUndo:
            assert not self.session.can_redo

    @precondition(lambda self: self.sent_ids)
    @rule(data=st.data())
    def duplicate(self, data):
        event_id = data.draw(st.sampled_from(self.sent_ids))
        before = (self.session.state, self.log.count_events(self.session.session_id))
        sent = self.log.event(event_id).text
        move = data.draw(st.sampled_from([sent, "bank"]))
        try:
            assert self.session.apply(move, source="dashboard", event_id=event_id).text == sent
        except EventConflict:
            assert move != sent  # only another move under a known id is refused
        assert (self.session.state, self.log.count_events(self.session.session_id)) == before

    @rule()
    def restart(self):
        state = self.session.state
        self.log.close()
        self.log = EventLog(self.path)
        self.session = Session.resume(self.log, self.session.session_id)
        assert self.session.state == state

    @invariant()
    def live_state_equals_replay_of_the_log(self):
        rebuilt = replay(fandooble.GAME, self.session.initial, self.log.events(self.session.session_id))
        assert rebuilt.state == self.session.state
        assert [p.event_id for p in rebuilt.played] == [p.event_id for p in self.session.played]


TestSessionMachine = SessionMachine.TestCase
