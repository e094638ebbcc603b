"""Random campaigns: whatever the groups do, every card is in one place, the log replays to the same
campaign, exports round-trip, and at most one campaign is on the table."""

from __future__ import annotations

import os
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.campaign import Campaign, export_campaign, import_campaign
from companion.campaign.store import table_status
from companion.errors import SetupError
from companion.eventlog import EventLog
from companion.games import fable

GROUP = ["Anne", "Paul", "Rachel", "Camille", "Bob"]
ALL_CARDS = Counter(fable.setup(["A", "B"]).table.all_cards())


def check(log, campaign):
    s = campaign.state
    places = Counter(s.deck)
    places.update(c for st_ in s.display for c in st_.cards)
    places.update(s.bag)
    assert places == ALL_CARDS
    if s.deck:
        assert sum(len(st_.cards) for st_ in s.display) == 24
    assert Campaign.load(log, campaign.campaign_id).state == s
    assert sum(1 for r in log.sessions(kind="campaign") if table_status(log, r)[0]) <= 1


def play_game(campaign, rng, known, card_facts=None):
    players = rng.sample(GROUP, rng.randint(2, 5))
    starters = [p for p in campaign.state.next_start() if p in players]
    start = None if len(starters) == 1 else rng.choice(players)
    deal = fable.random_deal(players, rng) if known else None
    session = campaign.start_game(players, start=start, deal=deal, card_facts=card_facts)
    while session.outcome() is None:
        session.apply(fable.random_move(session.state, rng), source="system")
    campaign.finish_game()
    final = session.state
    assert len(set(final.turns)) == 1


OPERATIONS = ["play", "play", "play", "abandon", "park_resume", "other_group", "reset", "round_trip"]


@settings(max_examples=int(os.environ.get("CAMPAIGN_EXAMPLES", "15")))
@given(seed=st.integers(0, 2**32 - 1), operations=st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=6))
def test_random_campaigns_keep_their_cards_and_replay_from_the_log(seed, operations):
    rng = random.Random(seed)
    with EventLog(":memory:") as log:
        campaign = Campaign.new(log, GROUP, title="Friday")
        for op in operations:
            if op == "play":
                play_game(campaign, rng, known=rng.random() < 0.5)
            elif op == "abandon":
                session = campaign.start_game(GROUP[:3], start="Anne")
                for _ in range(rng.randint(0, 40)):
                    if session.outcome() is not None:
                        break
                    session.apply(fable.random_move(session.state, rng), source="system")
                if session.outcome() is None:
                    campaign.abandon_game(reason="time to go")
                else:
                    campaign.finish_game()
            elif op == "park_resume":
                before = campaign.state
                campaign.park()
                campaign.resume()
                assert sorted(c for s in campaign.state.display for c in s.cards) == sorted(
                    c for s in before.display for c in s.cards
                )
            elif op == "other_group":
                campaign.park()
                other = Campaign.new(log, ["Xena", "Yuri"], title=f"Sunday {len(log.sessions())}")
                play_game_for(other, rng)
                other.park()
                try:
                    campaign.start_game(GROUP[:2])
                    raise AssertionError("a parked campaign's game must be refused")
                except SetupError:
                    pass
                campaign.resume()
            elif op == "reset":
                campaign.reset()
                assert [s.number for s in campaign.state.display] == [1, 2, 3, 4, 5, 6]
            elif op == "round_trip":
                document = export_campaign(campaign)
                with EventLog(":memory:") as other:
                    assert export_campaign(import_campaign(other, document)) == document
            check(log, campaign)


def play_game_for(campaign, rng):
    session = campaign.start_game(["Xena", "Yuri"], start="Xena")
    while session.outcome() is None:
        session.apply(fable.random_move(session.state, rng), source="system")
    campaign.finish_game()


def test_a_campaign_played_until_the_deck_runs_out_is_reset_and_goes_on():
    rng = random.Random(12)
    # Every juice costs two smoothies, so the random players buy until nothing is left.
    cheap = {str(n): {"price": {"smoothies": 2}} for n in range(1, 60)}
    with EventLog(":memory:") as log:
        campaign = Campaign.new(log, GROUP)
        played_through = False
        shown = 24
        for _ in range(80):
            try:
                play_game(campaign, rng, known=False, card_facts=cheap)
            except SetupError as exc:
                assert "played through" in str(exc)
                played_through = True
                break
            if not campaign.state.deck:  # the display only shrinks once the deck is gone
                now = sum(len(s.cards) for s in campaign.state.display)
                assert now <= shown
                shown = now
        assert played_through and not campaign.state.deck and not campaign.state.display
        assert len(campaign.state.bag) == 240
        campaign.reset()
        play_game(campaign, rng, known=True)
        check(log, campaign)
