"""The Fabled Fruit campaign: games on one deck, the bag, scores, parking and resuming, reset, export and import."""

from __future__ import annotations

import copy
import json
import random

import pytest

from companion.campaign import Campaign, export_campaign, import_campaign, list_campaigns, on_table
from companion.campaign.guide import cards_text
from companion.campaign.model import STARTED
from companion.campaign.transfer import checksum
from companion.errors import EventLogError, SetupError, UnknownSession
from companion.eventlog import EventLog
from companion.games import fable
from companion.session import Session

GROUP = ["Anne", "Paul", "Rachel", "Camille"]
# Cheap juices so a scripted game ends quickly: location 4 costs one smoothie, the goal is the rulebook's.
CHEAP = {"4": {"price": {"smoothies": 1}}, "5": {"price": {"smoothies": 1}}, "6": {"price": {"smoothies": 1}}}


def play_out(session, rng):
    """Random legal moves until the game is over."""
    while session.outcome() is None:
        session.apply(fable.random_move(session.state, rng), source="system")
    return session


def cards_everywhere(state):
    return sorted(list(state.deck) + [c for s in state.display for c in s.cards] + list(state.bag))


@pytest.fixture
def memlog():
    with EventLog(":memory:") as log:
        yield log


def test_a_new_campaign_is_on_the_table_with_the_first_games_layout(memlog):
    campaign = Campaign.new(memlog, GROUP, title="Friday")
    s = campaign.state
    assert s.on_table and s.title == "Friday" and s.group == tuple(GROUP)
    assert [st.number for st in s.display] == [1, 2, 3, 4, 5, 6] and len(s.deck) == 216 and s.bag == ()
    assert on_table(memlog).session_id == campaign.campaign_id
    steps = campaign.setup_instructions().to_text()
    assert "#1: 1:1-4; #2: 2:1-4" in steps and "216 cards" in steps


def test_exactly_one_campaign_is_on_the_table(memlog):
    friday = Campaign.new(memlog, GROUP, title="Friday")
    with pytest.raises(SetupError, match="the cards of campaign 'Friday' are on the table: park it first"):
        Campaign.new(memlog, ["Xena", "Yuri"])
    friday.park()
    sunday = Campaign.new(memlog, ["Xena", "Yuri"], title="Sunday")
    with pytest.raises(SetupError, match="not on the table: resume it first"):
        friday.start_game(["Anne", "Paul"])
    with pytest.raises(SetupError, match="'Sunday' are on the table: park it first"):
        friday.resume()
    sunday.park()
    friday.resume()
    assert [c["on_table"] for c in list_campaigns(memlog)] == [True, False]


def test_a_game_starts_from_the_campaign_cards_and_replays_on_its_own(memlog):
    campaign = Campaign.new(memlog, GROUP)
    session = campaign.start_game(["Paul", "Anne"], start="Anne", card_facts=CHEAP)
    assert session.record.parent_id == campaign.campaign_id
    assert session.options["start"] == "Anne" and session.options["display"].startswith("1:1-4 / 2:1-4")
    session.apply("move Anne 4", source="cli")
    session.apply("buy Anne 4", source="cli")
    again = Session.resume(memlog, session.session_id)
    assert again.state == session.state and again.state.table[4].price.total == 1
    assert campaign.state.current.session_id == session.session_id
    with pytest.raises(SetupError, match="game 1 of .* is still being played"):
        campaign.start_game(["Paul", "Anne"])
    with pytest.raises(SetupError, match="Bob is not in the group"):
        Campaign.new(EventLog(":memory:"), GROUP).start_game(["Anne", "Bob"])


def test_after_a_game_the_juices_go_to_the_bag_and_the_display_stays(memlog):
    rng = random.Random(5)
    campaign = Campaign.new(memlog, GROUP)
    session = play_out(campaign.start_game(GROUP, card_facts=CHEAP), rng)
    final = session.state
    juices = [c for j in final.juices for c in j]
    steps = campaign.finish_game(card_facts=CHEAP)
    s = campaign.state
    assert sorted(s.bag) == sorted(juices) and juices
    assert s.display == final.display and s.deck == final.deck
    assert cards_everywhere(s) == sorted(fable.setup(["A", "B"]).table.all_cards())
    game = s.games[0]
    assert game.status == "finished" and game.winners == fable.outcome(final).winners
    assert dict(game.scores) == fable.session_scores(final) and s.scores() == fable.session_scores(final)
    text = steps.to_text()
    assert "into the campaign's bag (never back on the deck)" in text and "Shuffle all the fruits and deal 2" in text
    assert "call for" in text
    # The next game starts with that display, and the loser starts it.
    loser = fable.losers(final)
    nxt = campaign.start_game(GROUP, start=loser[0] if len(loser) > 1 else None)
    assert nxt.state.display == final.display and set(nxt.state.bag) == set(juices)
    assert nxt.state.players[nxt.state.start] == loser[0]
    assert all(h.total == 2 for h in nxt.state.hands) and nxt.state.pile.total == 60 - 8


# Juices at locations 2, 4, 5 and 6 cost one smoothie, so a scripted three-player game ends in five rounds.
ONE_SMOOTHIE = {n: {"price": {"smoothies": 1}} for n in ("2", "4", "5", "6")}
FIVE_ROUNDS = [
    "move Anne 4", "buy Anne 4", "draw", "move Paul 1", "action Paul", "move Rachel 5", "buy Rachel 5", "draw",
    "move Anne 6", "buy Anne 6", "draw", "move Paul 4", "buy Paul 4", "draw", "move Rachel 1", "action Rachel",
    "move Anne 1", "action Anne", "move Paul 5", "buy Paul 5", "draw", "move Rachel 4", "buy Rachel 4", "draw",
    "move Anne 2", "buy Anne 2", "draw", "move Paul 6", "buy Paul 6", "draw", "move Rachel 5", "buy Rachel 5", "draw",
    "move Anne 1", "action Anne", "move Paul 2", "buy Paul 2", "draw", "move Rachel 6",
]


def scripted_game(campaign, last_action):
    session = campaign.start_game(["Anne", "Paul", "Rachel"], card_facts=ONE_SMOOTHIE)
    for text in FIVE_ROUNDS + [last_action]:
        session.apply(text, source="cli")
    assert session.outcome() is not None
    return session


def test_the_scores_are_two_for_winners_nothing_for_the_last_and_one_for_the_others(memlog):
    campaign = Campaign.new(memlog, ["Anne", "Paul", "Rachel"])
    # Paul: 4 juices. Anne: 3 juices and 3 fruits. Rachel: 3 juices and 2 fruits.
    scripted_game(campaign, "action Rachel draw 1")
    campaign.finish_game()
    game = campaign.state.games[0]
    assert game.winners == ("Paul",) and dict(game.scores) == {"Anne": 1, "Paul": 2, "Rachel": 0}
    assert campaign.state.next_start() == ("Rachel",)
    assert campaign.start_game(["Anne", "Paul", "Rachel"]).state.start == 2  # Rachel lost, Rachel starts
    assert campaign.state.scores() == {"Anne": 1, "Paul": 2, "Rachel": 0}


def test_tied_losers_must_say_who_starts(memlog):
    campaign = Campaign.new(memlog, ["Anne", "Paul", "Rachel"])
    # Rachel ends with 3 juices and 3 fruits, level with Anne: both are last.
    scripted_game(campaign, "action Rachel draw 2")
    campaign.finish_game()
    assert dict(campaign.state.games[0].scores) == {"Anne": 0, "Paul": 2, "Rachel": 0}
    with pytest.raises(SetupError, match="Anne and Rachel shared last place in the last game: say which of them starts"):
        campaign.start_game(["Anne", "Paul", "Rachel"])
    assert campaign.start_game(["Anne", "Paul", "Rachel"], start="Rachel").state.start == 2


def test_the_loser_starts_only_when_playing(memlog):
    campaign = Campaign.new(memlog, ["Anne", "Paul", "Rachel"])
    scripted_game(campaign, "action Rachel draw 1")
    assert campaign.start_game(["Paul", "Anne"]).state.players[0] == "Paul"  # Rachel is not playing


def test_the_end_of_a_game_is_recorded_when_its_last_move_is_played(memlog):
    rng = random.Random(2)
    campaign = Campaign.new(memlog, GROUP)
    session = campaign.start_game(GROUP[:2])
    campaign.watch(session)
    play_out(session, rng)
    assert campaign.state.current is None and campaign.state.games[0].status == "finished"
    assert [e.kind for e in memlog.events(campaign.campaign_id)] == ["game_started", "game_finished"]


def test_a_finished_game_not_yet_recorded_is_recorded_before_the_next_one(memlog):
    rng = random.Random(3)
    campaign = Campaign.new(memlog, GROUP)
    play_out(campaign.start_game(GROUP[:3]), rng)
    campaign.start_game(GROUP[:3], start="Anne")
    assert [g.status for g in campaign.state.games] == ["finished", "playing"]


def test_an_abandoned_game_keeps_its_cards_moved_but_scores_nothing(memlog):
    campaign = Campaign.new(memlog, GROUP)
    session = campaign.start_game(["Anne", "Paul"], card_facts=CHEAP)
    for text in ["move Anne 4", "buy Anne 4:2", "draw 7:1"]:
        session.apply(text, source="cli")
    with pytest.raises(SetupError, match="not over yet"):
        campaign.finish_game()
    steps = campaign.abandon_game(reason="pizza arrived")
    s = campaign.state
    assert s.bag == (fable.Card(4, 2),) and "7" in {str(st.number) for st in s.display}
    assert s.games[0].status == "abandoned" and s.scores() == {p: 0 for p in GROUP}
    assert "Put its 1 juice into the campaign's bag: 4:2" in steps.to_text()


def test_park_and_resume_tell_which_cards_go_where(memlog):
    rng = random.Random(4)
    friday = Campaign.new(memlog, GROUP, title="Friday")
    play_out(friday.start_game(GROUP), rng)
    park = friday.park().to_text()
    display = sorted(c for st in friday.state.display for c in st.cards)
    assert "on top of the deck in number order, lowest on top" in park
    assert cards_text(display) in park
    with pytest.raises(SetupError, match="already parked"):
        friday.park()
    # Resuming straight away: the bag stays aside, the top 24 cards are laid out again.
    resume = friday.resume().to_text()
    assert "Take the top 24 cards of the deck" in resume and "back into the deck" not in resume
    assert sorted(c for st in friday.state.display for c in st.cards) == display
    # Another group used the box in between: its bag goes back, ours comes out.
    friday.park()
    sunday = Campaign.new(memlog, ["Xena", "Yuri"], title="Sunday")
    play_out(sunday.start_game(["Xena", "Yuri"]), random.Random(9))
    sunday.park()
    resume = friday.resume().to_text()
    assert "from the bag of 'Sunday' back into the deck" in resume
    assert "into this campaign's bag" in resume


def test_reset_puts_every_card_back_in_number_order_and_keeps_the_history(memlog):
    rng = random.Random(6)
    campaign = Campaign.new(memlog, GROUP)
    play_out(campaign.start_game(GROUP), rng)
    campaign.finish_game()
    before = campaign.state
    steps = campaign.reset().to_text()
    s = campaign.state
    assert [st.number for st in s.display] == [1, 2, 3, 4, 5, 6] and s.bag == () and len(s.deck) == 216
    assert len(s.games) == 1 and s.scores() == before.scores() and s.resets == 1
    assert "juices from the bag back into the deck" in steps and "#1: 1:1-4" in steps


def test_the_campaign_is_the_replay_of_the_log(tmp_path):
    rng = random.Random(7)
    path = tmp_path / "companion.db"
    with EventLog(path) as log:
        campaign = Campaign.new(log, GROUP)
        for players in (GROUP, GROUP[:2], GROUP[1:]):
            play_out(campaign.start_game(players, start=players[0]), rng)
        campaign.park()
        live = campaign.state
    with EventLog(path) as log:
        assert Campaign.find(log, live.campaign_id[:6]).state == live
        assert Campaign.find(log, live.title).state == live


def test_a_changed_result_in_the_log_stops_the_replay(memlog):
    rng = random.Random(8)
    campaign = Campaign.new(memlog, GROUP)
    session = play_out(campaign.start_game(GROUP[:2]), rng)
    winners = fable.outcome(session.state).winners
    loser = next(p for p in GROUP[:2] if p not in winners)
    memlog.append(campaign.campaign_id, "game_finished", "game 1 finished", source="cli", payload={
        "session_id": session.session_id, "through_seq": 1, "winners": [loser], "juices": {}, "scores": {},
    })
    with pytest.raises(EventLogError, match="its moves do not end it|winners"):
        Campaign.load(memlog, campaign.campaign_id)


def test_find_says_which_campaigns_exist(memlog):
    Campaign.new(memlog, GROUP, title="Friday")
    with pytest.raises(UnknownSession, match="no campaign 'Monday' \\(campaigns: .* Friday\\)"):
        Campaign.find(memlog, "Monday")


# -- export and import -------------------------------------------------------------------------------


def campaign_with_history(log):
    rng = random.Random(11)
    campaign = Campaign.new(log, GROUP, title="Friday")
    play_out(campaign.start_game(GROUP), rng)
    play_out(campaign.start_game(GROUP[:2], start="Anne", card_facts=CHEAP), rng)
    session = campaign.start_game(GROUP[:3], start="Paul")
    session.apply("move Paul 1", source="camera")
    session.undo(source="dashboard")
    session.apply("move Paul 2", source="dashboard")
    session.note("alert", "saw an unknown tag", source="camera")
    return campaign


def test_export_and_import_round_trip_exactly(memlog):
    campaign = campaign_with_history(memlog)
    document = json.loads(json.dumps(export_campaign(campaign)))
    with EventLog(":memory:") as other:
        imported = import_campaign(other, document)
        assert export_campaign(imported) == document
        assert imported.state == campaign.state  # same games, bag, display, scores and history
        # The game being played goes on where it stopped.
        live = Session.resume(other, imported.state.current.session_id)
        assert live.state == campaign.session().state and live.can_redo is False


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d.update(format="zip"), "not a campaign export"),
        (lambda d: d.update(version=2), "version 2"),
        (lambda d: d["games"][0]["events"][0].update(text="move Anne 9"), "changed after it was exported"),
        (lambda d: d.pop("games"), "expected the fields"),
        (lambda d: d["events"][0].update(seq=5), "not numbered"),
    ],
)
def test_a_bad_or_changed_export_is_refused_and_changes_nothing(memlog, change, reason):
    document = export_campaign(campaign_with_history(memlog))
    change(document)
    with EventLog(":memory:") as other:
        with pytest.raises(SetupError, match=reason):
            import_campaign(other, document)
        assert other.sessions() == [] and other.count_events() == 0


def test_a_changed_export_with_a_recomputed_checksum_is_refused_because_it_does_not_replay(memlog):
    document = export_campaign(campaign_with_history(memlog))
    forged = copy.deepcopy(document)
    finished = next(e for e in forged["events"] if e["kind"] == "game_finished")
    finished["payload"]["winners"] = ["Nobody"]
    forged["sha256"] = checksum(forged)
    cheat = copy.deepcopy(document)
    first_move = next(e for e in cheat["games"][0]["events"] if e["kind"] == "move")
    first_move["text"] = "buy 1 pay 2"
    cheat["sha256"] = checksum(cheat)
    with EventLog(":memory:") as other:
        with pytest.raises(SetupError, match="does not replay: .*winners"):
            import_campaign(other, forged)
        with pytest.raises(SetupError, match="does not replay"):
            import_campaign(other, cheat)
        assert other.count_events() == 0


def test_importing_twice_or_onto_a_busy_table_is_refused(memlog):
    document = export_campaign(campaign_with_history(memlog))
    with pytest.raises(SetupError, match="already holds session"):
        import_campaign(memlog, document)
    with EventLog(":memory:") as other:
        Campaign.new(other, ["Xena", "Yuri"], title="Sunday")
        with pytest.raises(SetupError, match="'Sunday' is on this one: park it first"):
            import_campaign(other, document)


def test_every_started_game_is_exported_in_order(memlog):
    campaign = campaign_with_history(memlog)
    document = export_campaign(campaign)
    started = [e["payload"]["session_id"] for e in document["events"] if e["kind"] == STARTED]
    assert [g["session_id"] for g in document["games"]] == started and len(started) == 3
