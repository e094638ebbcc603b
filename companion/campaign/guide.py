"""What to tell the players, in words: which cards go where when a campaign is parked, resumed,
reset or started, what to do between games, and a campaign summary people read at a glance."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable

from companion.games.fable.cards import Card, Table, format_cards
from companion.games.fable.fruits import data as fable_data
from companion.games.fable.state import Stack
from companion.games.fable.view import components_needed

from .model import CampaignState


@dataclass(frozen=True)
class Instructions:
    """Steps for the players, and the cards they move (for the dashboard to draw)."""

    title: str
    steps: tuple[str, ...]

    def to_text(self) -> str:
        lines = [self.title]
        lines += [f"  {i}. {step}" for i, step in enumerate(self.steps, start=1)]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"title": self.title, "steps": list(self.steps)}


@dataclass(frozen=True)
class Box:
    """The cards off the table: the deck in number order, and a bag put aside by the campaign last parked."""

    aside: tuple[Card, ...] = ()
    owner: str | None = None  # the title of the campaign whose bag is aside


def count(n: int, word: str, plural: str | None = None) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def cards_text(cards: Iterable[Card]) -> str:
    text = format_cards(sorted(cards)).replace(" ", ", ")
    return text or "none"


def stacks_text(stacks: Iterable[Stack]) -> str:
    return "; ".join(f"#{s.number}: {format_cards(s.cards)}" for s in stacks)


def _lay_out(stacks: tuple[Stack, ...], deck_size: int) -> list[str]:
    cards = sum(len(s.cards) for s in stacks)
    steps = [
        f"Take the top {cards} cards of the deck and lay them out as {len(stacks)} "
        f"{'stack' if len(stacks) == 1 else 'stacks'}, "
        f"top card first: {stacks_text(stacks)}."
    ]
    steps.append(f"The deck now holds {deck_size} cards in number order." if deck_size else "The deck is now empty.")
    return steps


def set_up(state: CampaignState, box: Box, verb: str) -> Instructions:
    """Bring the box from ``box`` to this campaign's cards: its bag aside, its display laid out."""
    title = f"{verb} '{state.title}'"
    target = set(state.bag)
    aside = set(box.aside)
    steps = []
    same = box.owner == state.title
    back = aside - target
    if back:
        if same:
            steps.append(f"Put these cards from its bag back into the deck, each in its place in number order: {cards_text(back)}.")
        else:  # the other campaign's juices are kept by the companion: resuming it takes them out again
            steps.append(f"Put these cards from the bag of '{box.owner}' back into the deck, each in its place in number "
                         f"order: {cards_text(back)}. The companion keeps '{box.owner}''s bag in its records: "
                         "resuming that campaign takes them out of the deck again.")
    keep = aside & target
    if keep and not same:
        steps.append(f"Move these cards from the bag of '{box.owner}' into this campaign's bag: {cards_text(keep)}.")
    out = target - aside
    if out:
        steps.append(f"Take these cards out of the deck into this campaign's bag (its juices): {cards_text(out)}.")
    if target:
        steps.append(f"Keep the bag aside, labelled '{state.title}': it holds {count(len(target), 'card')}.")
    if not steps:
        steps.append("Start from the whole deck in number order, 1:1 on top.")
    steps += _lay_out(state.display, len(state.deck))
    return Instructions(title, tuple(steps))


def park(state: CampaignState) -> Instructions:
    on_display = sorted(c for s in state.display for c in s.cards)
    steps = [
        f"Put the {len(on_display)} display cards on top of the deck in number order, lowest on top "
        f"(top card first): {cards_text(on_display)}.",
        f"Keep this campaign's bag aside, labelled '{state.title}': it holds {count(len(state.bag), 'card')}. "
        "If another campaign is set up meanwhile, its steps say which of these cards go back into the deck; "
        "resuming this campaign takes them out again."
        if state.bag else "This campaign has no juices in a bag yet.",
        f"The deck now holds {len(on_display) + len(state.deck)} cards in number order.",
    ]
    return Instructions(f"Park '{state.title}'", tuple(steps))


def reset(old: CampaignState, new: CampaignState) -> Instructions:
    """Every card back in number order, then the first game's layout."""
    if not old.on_table:
        return Instructions(
            f"Reset '{new.title}'",
            ("Recorded: the next time this campaign is resumed, it starts again from the first game's layout.",),
        )
    steps = []
    if old.bag:
        steps.append(f"Put the {count(len(old.bag), 'juice')} from the bag back into the deck, each in its place: {cards_text(old.bag)}.")
    on_display = [c for s in old.display for c in s.cards]
    steps.append(f"Put the {len(on_display)} display cards back into the deck, each in its place: {cards_text(on_display)}.")
    steps.append("The deck now holds every card in number order, 1:1 on top.")
    steps += _lay_out(new.display, len(new.deck))
    return Instructions(f"Reset '{new.title}'", tuple(steps))


def between_games(state: CampaignState, table: Table, players: tuple[str, ...]) -> Instructions:
    """After a game: juices to the bag, the display stays, fruits reshuffled and dealt, components checked."""
    game = state.games[-1]
    juices = [c for _, cards in game.juices for c in cards]
    size = fable_data()["hand_size"]
    steps = []
    if juices:
        steps.append(f"Put the {count(len(juices), 'juice')} bought this game into the campaign's bag (never back on the deck): {cards_text(juices)}.")
    steps.append(f"Leave the {sum(len(s.cards) for s in state.display)} display cards where they are: the next game starts with them.")
    steps.append(f"Shuffle all the fruits and deal {size} to each player.")
    starters = state.next_start()
    if len(starters) == 1:
        steps.append(f"{starters[0]} lost this game and starts the next one.")
    elif starters:
        steps.append(f"{' and '.join(starters)} share last place: one of them starts the next game.")
    steps.append(components_text(state, table))
    return Instructions(f"Game {game.number} is over", tuple(steps))


def components_text(state: CampaignState, table: Table) -> str:
    needed = components_needed(table, [s.number for s in state.display])
    if needed["needed"]:
        text = "The locations on display call for: " + ", ".join(needed["needed"]) + "."
    else:
        text = "The locations on display call for no extra components."
    if needed["unknown"]:
        numbers = ", ".join(str(n) for n in needed["unknown"])
        text += f" Check the cards of locations {numbers}: whether they need one is not entered yet (companion cards set N components=...)."
    return text


def summary(state: CampaignState, table: Table, *, live=None) -> str:
    """``companion campaign show``: stacks, deck, bag, scores and history at a glance."""
    where = "on the table" if state.on_table else "parked (its cards are not on the table)"
    lines = [f"{state.title}  [{state.campaign_id[:8]}]  {where}"]
    lines.append(f"Group: {', '.join(state.group)}")
    display, deck = (live.display, live.deck) if live is not None else (state.display, state.deck)
    cards = sum(len(s.cards) for s in display)
    heading = "Display during the game" if live is not None else "Display"
    lines.append(f"{heading}: {count(cards, 'card')} in {count(len(display), 'stack')}")
    for s in display:
        loc = table[s.number]
        name = loc.name or "name not entered"
        price = loc.price.to_text() if loc.price else "price not entered"
        lines.append(f"  #{s.number:<3} x{len(s.cards)}  {format_cards(s.cards):<12}  {name}; {price}")
    nxt = " ".join(str(c.number) for c in deck[:10])
    lines.append(f"Deck: {len(deck)} cards" + (f"; next: {nxt}" if deck else ""))
    lines.append(f"Bag: {count(len(state.bag), 'juice')}" + (f" ({cards_text(state.bag)})" if state.bag else ""))
    scores = state.scores()
    if state.finished:
        lines.append("Session scores: " + ", ".join(f"{p} {n}" for p, n in sorted(scores.items(), key=lambda kv: -kv[1])))
    starters = state.next_start()
    if starters:
        lines.append(f"Next start player: {' or '.join(starters)}")
    lines.append(components_text(state, table))
    lines.append(f"Games: {len(state.finished)} finished" + (f", {state.resets} reset(s)" if state.resets else ""))
    for g in state.games:
        when = time.strftime("%Y-%m-%d", time.localtime(g.started))
        if g.status == "finished":
            juices = ", ".join(f"{p} {len(c)}" for p, c in g.juices)
            scores_text = ", ".join(f"{p} {n}" for p, n in g.scores)
            lines.append(f"  {g.number:>3}. {when}  won by {' and '.join(g.winners)}; juices {juices}; scores {scores_text}")
        elif g.status == "abandoned":
            lines.append(f"  {g.number:>3}. {when}  abandoned ({', '.join(g.players)})" + (f": {g.reason}" if g.reason else ""))
        else:
            lines.append(f"  {g.number:>3}. {when}  being played: {', '.join(g.players)} (game {g.session_id[:8]})")
    return "\n".join(lines)
