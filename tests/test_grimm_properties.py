"""Properties of The Grimm Forest over random games (hypothesis): resource tokens are conserved between
the supply, the locations and the players; no build breaks the order or the limits; the game ends exactly
at the end of the construction phase in which someone completes a third house."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import grimm
from companion.games.grimm.moves import Build
from companion.games.grimm.state import PARTS

NAMES = ["Anne", "Paul", "Rachel", "Tom"]

games = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "players": st.integers(2, 4),
    "builder": st.sampled_from([0.3, 0.8, 1.0]),
})


def random_game(spec):
    """Every (before, move, after) of one random game, played to its end."""
    rng = random.Random(spec["seed"])
    state = grimm.setup(NAMES[:spec["players"]])
    steps = []
    for _ in range(5000):
        if grimm.outcome(state) is not None:
            return steps
        move = grimm.random_move(state, rng, builder=spec["builder"])
        after = grimm.apply(state, move)
        steps.append((state, move, after))
        state = after
    raise AssertionError("a random game did not end")


@settings(max_examples=25, deadline=None)
@given(games)
def test_resources_are_conserved_between_supply_locations_and_players(spec):
    steps = random_game(spec)
    start = grimm.tokens(steps[0][0])
    for before, move, after in steps:
        assert grimm.tokens(after) == start, move.to_text()
        assert min(after.supply) >= 0 and all(min(s.hand) >= 0 for s in after.seats)
        assert all(min(here) >= 0 for here in after.stock)


@settings(max_examples=25, deadline=None)
@given(games)
def test_no_build_breaks_the_order_or_the_limits(spec):
    for before, move, after in random_game(spec):
        for b, a in zip(before.seats, after.seats):
            assert a.under_construction <= 5 and all(stage in (0, 1, 2) for stage in a.building)
            for k in range(3):
                # A house advances one section at a time: floor -> walls -> roof (complete), never skipping.
                if a.complete[k] > b.complete[k]:
                    assert isinstance(move, Build) and move.part == "roof" and b.building[k] == 2 and a.building[k] == 0
                elif a.building[k] != b.building[k]:
                    assert isinstance(move, Build) and a.building[k] == b.building[k] + 1
        if isinstance(move, Build):
            k = grimm.RESOURCES.index(move.kind)
            paid = before.at(move.player).hand[k] - after.at(move.player).hand[k]
            back = 1 if move.reward == "resources" else 0  # the First Builder's reward: one of each
            assert paid == before.costs[PARTS.index(move.part)] - back, "a section is paid in its own resource"


@settings(max_examples=25, deadline=None)
@given(games)
def test_the_game_ends_exactly_at_the_end_of_the_construction_phase_of_a_third_house(spec):
    steps = random_game(spec)
    for before, move, after in steps:
        third = any(s.houses >= 3 for s in after.seats)
        end_of_construction = before.phase == "construction" and after.phase != "construction" or after.over
        if after.over:
            assert third and before.phase == "construction" and grimm.GAME.to_act(after) == ()
            # Nobody had an action left: the last player's second action ended the phase.
            assert before.actions_left == 1 and len(before.done) == len(before.seats) - 1
        elif end_of_construction:
            assert not third, "someone had three houses at the end of construction and the game went on"
    final = steps[-1][2]
    out = grimm.outcome(final)
    assert out.winners and all(final.at(w).houses >= 3 for w in out.winners)
