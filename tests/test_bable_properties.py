"""Properties of Bable over random games (hypothesis): cards are conserved, supplies keep the limit,
hands hold one Word card per symbol, and the game ends exactly when the rulebook says."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import bable
from companion.games.bable.cards import COMPONENTS
from companion.games.bable.moves import AnswerBuild, Confusion, Idea
from companion.games.bable.state import LAYERS, MISSING, TOWER
from tests.bable_table import options

NAMES = ["Anne", "Paul", "Rachel", "Tom", "Zoe"]

games = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "players": st.integers(2, 5),
    "advanced": st.booleans(),
    "facts": st.booleans(),
    "eager": st.booleans(),
    "misunderstand": st.sampled_from([0.0, 0.2, 0.6]),
})


def random_game(spec):
    """Every (before, move, after) of one random game."""
    rng = random.Random(spec["seed"])
    state = bable.setup(NAMES[:spec["players"]], options(spec["advanced"], spec["facts"]))
    steps = []
    for move, after in bable.play_random_game(state, rng, eager=spec["eager"], misunderstand=spec["misunderstand"]):
        steps.append((state, move, after))
        state = after
    assert state.over, "a game always ends: every turn draws an Idea card"
    return steps


def check_cards(state) -> None:
    n = len(state.players)
    # Resources: supplies, deck, discard pile.
    total = sum(s.resource_total for s in state.seats) + state.resource_deck.size + sum(state.resource_discard)
    assert total == COMPONENTS["resources"]
    mix = state.facts.resource_mix
    if mix is not None:
        by_type = [sum(s.resources[t] for s in state.seats) + state.resource_deck.known[t] + state.resource_discard[t]
                   for t in range(4)]
        assert tuple(by_type) == mix and state.resource_deck.unknown == 0
    # Buildings: every one in exactly one place (tower, a supply, shuffled back, or unseen in a deck or the box).
    placed = list(state.tower) + [b.number for s in state.seats for b in s.buildings] + \
        [b for d in state.decks for b in d.returned]
    assert len(placed) == len(set(placed))
    unseen = state.buildings_box + sum(d.buildings for d in state.decks)
    assert len(placed) + unseen == COMPONENTS["buildings"] == len(placed) + len(state.unseen_buildings())
    # Word cards: the players' starting cards and the 25 Word cards, per symbol where the companion knows them.
    in_hands = sum(s.hand_size for s in state.seats)
    in_decks = sum(d.words for d in state.decks)
    assert in_hands + sum(state.word_discard) + in_decks + state.words_box == 4 * n + COMPONENTS["words"]
    for k in range(4):
        held = sum(1 for s in state.seats if s.hand[k] != MISSING)
        assert held + state.word_discard[k] == n + state.words_taken[k]
        if state.facts.words[k] is not None:
            assert state.words_taken[k] <= state.facts.words[k]
    # Confusion cards.
    assert 0 <= sum(state.confusion_out) <= COMPONENTS["confusion"]
    for out, count in zip(state.confusion_out, state.facts.confusion):
        assert count is None or out <= count


@settings(max_examples=60)
@given(games)
def test_every_card_is_conserved(spec):
    for _, _, after in random_game(spec):
        check_cards(after)


@settings(max_examples=60)
@given(games)
def test_no_supply_holds_more_than_seven_once_a_command_is_resolved(spec):
    for _, _, after in random_game(spec):
        if after.phase != "discard":
            assert all(s.resource_total <= 7 for s in after.seats)
        else:
            owing = [i for i, n in enumerate(after.discards) if n]
            assert all(after.seats[i].resource_total - after.discards[i] == 7 for i in owing)


@settings(max_examples=60)
@given(games)
def test_a_hand_holds_one_word_card_per_symbol_except_under_confusion(spec):
    dropped = {name: 0 for name in NAMES}
    for before, move, after in random_game(spec):
        if isinstance(move, Confusion) and move.effect == "drop-word" and move.symbol:
            dropped[move.player] += 1
        for name, seat in zip(after.players, after.seats):
            gaps = seat.hand.count(MISSING)
            assert gaps <= dropped[name]  # a gap only ever comes from the Confusion card
            if not spec["advanced"]:
                assert gaps == 0 and seat.hand_size == 4


@settings(max_examples=80)
@given(games)
def test_the_game_ends_exactly_when_the_rulebook_says(spec):
    for before, move, after in random_game(spec):
        if after.result == "won":
            assert isinstance(move, AnswerBuild) and len(after.tower) == TOWER == len(before.tower) + 1
        elif after.result == "lost":
            deck = before.current_deck
            assert isinstance(move, Idea) and after.decks[deck].size == 0
            assert after.layer_sizes()[deck] < LAYERS[deck]
        else:
            assert len(after.tower) < TOWER
            assert all(d.size or after.layer_done(k) for k, d in enumerate(after.decks))
            if isinstance(move, Idea):
                assert after.turn == before.turn + 1
        assert (bable.GAME.outcome(after) is None) == (after.result is None)
        assert (bable.GAME.to_act(after) == ()) == after.over


@settings(max_examples=40)
@given(games)
def test_every_move_reads_back_and_replays_to_the_same_state(spec):
    steps = random_game(spec)
    state = steps[0][0]
    for _, move, after in steps:
        again = bable.parse_move(move.to_text())
        assert again == move
        state = bable.apply(state, again)
        assert state == after


@settings(max_examples=20)
@given(games)
def test_every_move_listed_as_allowed_is_allowed(spec):
    rng = random.Random(spec["seed"])
    for before, _, _ in random_game(spec):
        listed = bable.GAME.legal_moves(before)
        if listed is None:
            assert before.phase in ("deal", "idea", "confusion")
            continue
        assert listed or before.over
        for move in rng.sample(listed, min(len(listed), 20)):
            bable.apply(before, move)
