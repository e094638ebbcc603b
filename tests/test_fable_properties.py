"""Random games of Fabled Fruit: every card and fruit stays in exactly one place, and no game ends early.

Two kinds of table: every fruit's kind known (a simulation: prices checked exactly), and every
fruit unknown (a real table: only counts). Each example plays one whole game with random legal moves.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import fable as g

NAMES = ["Anne", "Paul", "Rachel", "Camille", "Bob"]


def new_game(seed: int, players: int, known: bool):
    rng = random.Random(seed)
    names = NAMES[:players]
    options = {"deal": g.random_deal(names, rng), "start": rng.choice(names)} if known else {}
    return rng, g.setup(names, options)


def check_cards(state):
    everything = Counter(state.table.all_cards())
    places = Counter(state.deck)
    places.update(c for s in state.display for c in s.cards)
    places.update(c for j in state.juices for c in j)
    places.update(state.bag)
    assert places == everything  # all 240, each exactly once
    assert sum(everything.values()) == 240
    if state.deck and state.phase != "draw":
        assert state.display_count() == 24  # the display holds 24 while the deck lasts


def check_fruits(state, known: bool):
    zones = list(state.hands) + [state.pile, state.discard]
    assert sum(z.total for z in zones) == 60
    per_kind = [sum(z.known[k] for z in zones) for k in range(len(state.kinds))]
    assert all(n <= 12 for n in per_kind)
    assert all(min(z.known) >= 0 and z.unknown >= 0 for z in zones)
    if known:
        assert per_kind == [12] * 5 and all(z.unknown == 0 for z in zones)


def check_round(state):
    """Turns differ by at most one, and only the players already past in this round are ahead."""
    order = [(state.start + i) % len(state.players) for i in range(len(state.players))]
    done = [state.turns[s] for s in order]
    assert max(done) - min(done) <= 1
    assert done == sorted(done, reverse=True)
    if state.over:
        assert len(set(state.turns)) == 1  # the round was completed
        assert state.ending


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5), known=st.booleans())
def test_random_games_keep_every_card_and_fruit_in_one_place_and_finish_the_round(seed, players, known):
    rng, state = new_game(seed, players, known)
    moves = 0
    reached = False
    while not state.over:
        move = g.random_move(state, rng)
        assert g.why_illegal(state, move) is None
        state = g.apply(state, move)
        moves += 1
        check_cards(state)
        check_fruits(state, known)
        check_round(state)
        if any(len(j) >= state.goal for j in state.juices):
            reached = True
        elif not state.over:
            assert not state.ending  # the last round starts only when someone reaches the goal
        assert moves < 5000
    assert reached and g.outcome(state).winners
    best = max(len(j) for j in state.juices)
    assert all(len(state.juices[state.seat(w)]) == best for w in g.outcome(state).winners)


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_every_listed_move_is_allowed_and_the_text_form_reads_back(seed, players):
    rng, state = new_game(seed, players, True)
    for _ in range(60):
        if state.over:
            break
        listed = g.legal_moves(state)
        if listed is not None:  # None: an action or price the players enter
            assert listed, "a running game always has a move"
            for move in rng.sample(listed, min(len(listed), 100)):
                assert g.why_illegal(state, move) is None, move.to_text()
                assert g.parse_move(move.to_text()) == move
        move = g.random_move(state, rng)
        assert g.parse_move(move.to_text()) == move
        state = g.apply(state, move)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_a_game_replays_from_its_move_texts_to_the_same_state(seed, players):
    rng, state = new_game(seed, players, False)
    start = state
    texts = []
    while not state.over:
        move = g.random_move(state, rng)
        texts.append(move.to_text())
        state = g.apply(state, move)
    again = start
    for text in texts:
        again = g.apply(again, g.parse_move(text))
    assert again == state and g.to_json(again) == g.to_json(state)
