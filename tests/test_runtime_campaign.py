"""A campaign game played through the runtime: its end reaches the campaign at once and seals the game."""

from __future__ import annotations

import random

import pytest

from companion.campaign import Campaign
from companion.config import Config
from companion.errors import IllegalMove
from companion.games import fable
from companion.runtime import Runtime


def test_the_end_of_a_campaign_game_is_recorded_and_then_the_game_is_sealed(log):
    rng = random.Random(3)
    players = ["Anne", "Paul"]
    campaign = Campaign.new(log, players, title="Friday group")
    session = campaign.start_game(players, deal=fable.random_deal(players, rng), source="dashboard")
    with Runtime(Config.defaults(), log) as runtime:
        runtime.open_game(session.session_id)
        while runtime.session.outcome() is None:
            move = fable.random_move(runtime.session.state, rng)
            runtime.play(move.to_text(), source="dashboard")
        # The finishing move was recorded in the campaign without anyone asking.
        record = Campaign.find(log, campaign.campaign_id).state.games[-1]
        assert record.session_id == session.session_id and record.winners
        with pytest.raises(IllegalMove, match="result is kept in its campaign"):
            runtime.undo(source="button")
    # Campaign and game still agree after a restart.
    assert Campaign.find(log, campaign.campaign_id).state.games[-1].winners == record.winners
