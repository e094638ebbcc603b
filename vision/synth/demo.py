"""A scripted Fabled Fruit game for the demo camera: the table as the camera would see it, turn by turn.

The script starts from a new campaign's first game -- the deck sorted 1..59 (four
copies each, eight of #59), locations 1-6 laid out as six stacks of four -- and
plays turns for the players in seat order: a turn either gathers fruit (the
player's animal moves, nothing on the table changes but the animal) or buys a
juice (the top copy of a stack disappears) followed by the draw (the deck's next
card appears on its stack, or as a new stack on a free spot). Between the still
pictures a hand reaches over the table.

The demo camera plays :func:`frames`: each item is a :class:`DemoFrame` with
``image`` (the full-resolution BGR frame), ``truth`` (what is on the picture) and
``step`` (the turn being shown, with the moves in the game's notation: what a
person enters on the dashboard, and what the camera should find).

Nothing here imports the game engine: the script is its own small model of the
table, and ``tests/test_synth_table.py`` checks it against the engine.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from vision import tags
from vision.synth import table as synth

FIRST_DISPLAY = range(1, 7)
LOCATIONS = 59
HAND_START = 2
GATHER_AT = 1  # location 1: "draw 2 fruits" (the one action the engine knows for certain)
JUICES_TO_WIN = {2: 5, 3: 4, 4: 3, 5: 3}  # shared/notes/games.md; the game ends after that round
DEMO_PRICE = 4  # fruits per juice; the real prices are on the players' cards (the data ships them unknown)


def copies(location: int) -> int:
    return 8 if location == LOCATIONS else 4


@dataclass(frozen=True)
class DemoStep:
    """One turn of the script.

    ``entered`` are the moves people enter (animal moves, actions); ``camera`` the
    moves the camera should produce (``buy Anne 5:1``, ``draw 7:1``), empty on a
    gathering turn. ``display`` is the table after the turn: (location, copies top first);
    ``animals`` where each player's animal stands after it.
    """

    number: int
    player: str
    location: int | None  # where the player's animal went (the stack a hand reaches for)
    entered: tuple[str, ...]
    camera: tuple[str, ...]
    display: tuple[tuple[int, tuple[int, ...]], ...]
    animals: tuple[int | None, ...]


@dataclass
class DemoFrame:
    image: np.ndarray
    truth: synth.Truth
    step: DemoStep
    phase: str  # "hands" while a hand is over the table, "still" after
    index: int

    def __iter__(self):
        """``image, truth = frame`` also works."""
        return iter((self.image, self.truth))


class DemoGame:
    """The script and its pictures. ``size`` is the full frame; the demo camera scales it down.

    ``turns`` turns are played (then the script ends; the demo camera starts it
    again). ``hand_frames`` pictures show a hand crossing the table before each
    turn's result has settled, then ``still_frames`` pictures of the still table.
    """

    def __init__(self, players: tuple[str, ...] = ("Anne", "Paul"), *, turns: int = 40,
                 size: tuple[int, int] = (2304, 1296), px_per_mm: float | None = None, tag_mm: float | None = None,
                 table_mm: tuple[float, float] = (800.0, 450.0), hand_frames: int = 10, still_frames: int = 40,
                 noise_sigma: float = 2.0, seed: int = 1, second_sticker: bool = False, animals: str = "clear",
                 clutter: float = 0.0, resting_hands: float = 0.0):
        if not 2 <= len(players) <= 5:
            raise ValueError("Fabled Fruit is played by 2 to 5 players")
        if animals not in ("clear", "anywhere"):
            raise ValueError(f"animals {animals!r}: 'clear' (off the sticker) or 'anywhere' (as players put them)")
        self.players = tuple(players)
        self.size = size
        self.table_mm = table_mm
        self.second_sticker = second_sticker
        self.tag_mm = tag_mm or (tags.PAIR_SYMBOL_MM if second_sticker else tags.DEFAULT_SYMBOL_MM)
        self.animals = animals
        self.clutter = clutter
        self.resting_hands = resting_hands
        self.px_per_mm = px_per_mm or min(size[0] / (table_mm[0] + 120), size[1] / (table_mm[1] + 110))
        self.hand_frames = hand_frames
        self.still_frames = still_frames
        self.noise_sigma = noise_sigma
        self.seed = seed
        self._spots = synth.display_spots(table_mm, 24)
        self.steps = self._script(turns)
        self._stills: dict[int, tuple[np.ndarray, synth.Truth]] = {}

    # --- the script --------------------------------------------------------------------------

    def options(self) -> dict[str, str]:
        """Setup options for the engine that make the script's purchases valid: each location's
        juice costs :data:`DEMO_PRICE` fruits of any kind (invented for the demo)."""
        prices = {str(n): {"price": {"smoothies": DEMO_PRICE}} for n in range(1, LOCATIONS + 1)}
        return {"locations": json.dumps(prices, separators=(",", ":"))}

    def _script(self, turns: int) -> list[DemoStep]:
        rng = np.random.default_rng(self.seed)
        display: list[list[int]] = [[loc, *range(1, copies(loc) + 1)] for loc in FIRST_DISPLAY]  # [loc, top..]
        first = set(FIRST_DISPLAY)
        deck = [(loc, c) for loc in range(1, LOCATIONS + 1) if loc not in first for c in range(1, copies(loc) + 1)]
        hands = [HAND_START] * len(self.players)
        animals: list[int | None] = [None] * len(self.players)
        juices = [0] * len(self.players)
        ending = False
        steps = [DemoStep(0, self.players[0], None, (), (), self._display(display), tuple(animals))]
        seat = 0
        for number in range(1, turns + 1):
            who = self.players[seat]
            here = animals[seat]
            shown = [s[0] for s in display]

            def fees(loc: int) -> int:
                return sum(1 for i, at in enumerate(animals) if at == loc and i != seat)

            buyable = [loc for loc in shown if loc not in (here, GATHER_AT) and hands[seat] - fees(loc) >= DEMO_PRICE]
            entered: list[str] = []
            camera: list[str] = []
            if buyable:
                target = buyable[int(rng.integers(len(buyable)))]
                self._walk(seat, target, animals, hands, entered, who)
                stack = next(s for s in display if s[0] == target)
                bought = stack.pop(1)
                hands[seat] -= DEMO_PRICE
                juices[seat] += 1
                ending = ending or juices[seat] >= JUICES_TO_WIN[len(self.players)]
                camera.append(f"buy {who} {target}:{bought}")
                if len(stack) == 1:  # used up: the stack leaves, animals there go home
                    display.remove(stack)
                    animals = [None if at == target else at for at in animals]
                if deck:
                    loc, c = deck.pop(0)
                    camera.append(f"draw {loc}:{c}")
                    existing = next((s for s in display if s[0] == loc), None)
                    if existing is not None:
                        existing.insert(1, c)
                    else:
                        display.append([loc, c])
            else:
                # Gather: location 1 draws 2 fruits; from location 1, a location whose action the
                # engine takes as entered (not 2 or 3, whose exact rules need fruit kinds).
                places = [GATHER_AT] if GATHER_AT in shown and here != GATHER_AT else []
                places += [loc for loc in shown if loc not in (here, GATHER_AT, 2, 3)]
                places = [loc for loc in places if fees(loc) <= hands[seat]]
                if not places:
                    break  # nothing the script can play for certain: it ends here
                target = places[0]
                self._walk(seat, target, animals, hands, entered, who)
                entered.append(f"action {who} draw 2")
                hands[seat] += 2
            steps.append(DemoStep(number, who, target, tuple(entered), tuple(camera), self._display(display),
                                  tuple(animals)))
            if ending and seat == len(self.players) - 1:
                break  # the round is complete: the game is over
            seat = (seat + 1) % len(self.players)
        self._spot_index = self._spots_by_step(steps)
        return steps

    def _walk(self, seat, target, animals, hands, entered, who) -> None:
        occupants = [i for i, at in enumerate(animals) if at == target and i != seat]
        for i in occupants:  # the entry fee: one fruit to each animal already there
            hands[seat] -= 1
            hands[i] += 1
        animals[seat] = target
        entered.append(f"move {who} {target}")

    @staticmethod
    def _display(display) -> tuple[tuple[int, tuple[int, ...]], ...]:
        return tuple((s[0], tuple(s[1:])) for s in display)

    def _spots_by_step(self, steps: list[DemoStep]) -> list[dict[int, int]]:
        """Which spot each stack lies on at every step (a stack keeps its spot; a new one takes the first free)."""
        out = []
        spot_of: dict[int, int] = {}
        for step in steps:
            shown = [loc for loc, _ in step.display]
            spot_of = {loc: i for loc, i in spot_of.items() if loc in shown}
            for loc in shown:
                if loc not in spot_of:
                    spot_of[loc] = next(i for i in range(len(self._spots)) if i not in spot_of.values())
            out.append(dict(spot_of))
        return out

    # --- the pictures -------------------------------------------------------------------------

    def scene(self, index: int) -> synth.Scene:
        """The table after step ``index``: stacks on their spots, each player's animal on its location."""
        step = self.steps[index]
        spots = self._spot_index[index]
        stacks = []
        for loc, tops in step.display:
            centre, angle = self._spots[spots[loc]]
            stacks.append(synth.Stack(centre, angle, tuple((loc, c) for c in reversed(tops))))
        animals = []
        colours = [(40, 40, 200), (200, 60, 30), (40, 170, 60), (20, 200, 230), (160, 40, 160)]
        tops = dict(step.display)
        for seat, at in enumerate(step.animals):
            if at is None or at not in spots:
                continue
            (x, y), angle = self._spots[spots[at]]
            if self.animals == "anywhere":
                # Wherever its player put it on the top card; put back elsewhere when that card is bought.
                rng = np.random.default_rng([self.seed, seat, at, tops[at][0], 11])
                figure = synth.animal_on(synth.Stack((x, y), angle, ()), rng)
                animals.append(synth.Occluder("animal", figure.center_mm, figure.size_mm, figure.angle_deg,
                                              colours[seat]))
            else:
                # On the card's lower half, clear of the sticker in its top-left corner.
                animals.append(synth.Occluder("animal", (x + 10 - 12 * seat, y + 24), 28.0, 30.0 * seat,
                                              colours[seat]))
        return synth.Scene(tuple(stacks), self.table_mm, self.tag_mm, occluders=tuple(animals + self._clutter(index)),
                           seed=self.seed, second_sticker=self.second_sticker)

    def _clutter(self, index: int) -> list:
        """Coins and dice lying on stickers' corners at step ``index``: each put down at some step and left
        there for three steps (where it fell, even if the card under it is bought meanwhile)."""
        found = []
        for start in range(max(0, index - 2), index + 1):
            rng = np.random.default_rng([self.seed, start, 23])
            if rng.random() >= self.clutter:
                continue
            display = self.steps[start].display
            location = display[int(rng.integers(len(display)))][0]
            (x, y), angle = self._spots[self._spot_index[start][location]]
            second = self.second_sticker and rng.random() < 0.5
            centre = synth.card_tag_centre((x, y), angle + 180 * second, self.tag_mm)
            found.append(synth.nick(centre, angle + 180 * second, self.tag_mm, rng))
        return found

    def still(self, index: int) -> tuple[np.ndarray, synth.Truth]:
        """The rendered still after step ``index`` (cached: rendering a full frame takes a while)."""
        if index not in self._stills:
            view = synth.View(size=self.size, px_per_mm=self.px_per_mm, noise_sigma=self.noise_sigma,
                              light_darkest=0.85, light_direction_deg=20.0, blur_sigma=0.5)
            rng = np.random.default_rng(self.seed * 1000 + index)
            # Only this still and the one before are ever needed (a step's hand pass shows both): any
            # other, such as the last ones of a script that started over, goes (each is a full frame).
            for old in [k for k in self._stills if k not in (index - 1, index)]:
                del self._stills[old]
            self._stills[index] = synth.render(self.scene(index), view, rng)
        return self._stills[index]

    def frames(self) -> Iterator[DemoFrame]:
        """Every picture of the script once: for each step a hand pass, then the still table."""
        count = 0
        for index, step in enumerate(self.steps):
            before = self.still(max(0, index - 1))
            after = self.still(index)
            if index > 0:
                for k in range(self.hand_frames):
                    image, truth = before if k < self.hand_frames // 2 else after
                    yield DemoFrame(self._hand(image, truth, index, k), truth, step, "hands", count)
                    count += 1
            image, truth = after
            resting = self._resting(index, image, truth)
            for k in range(self.still_frames):
                if resting is not None and k < self.still_frames // 3:
                    yield DemoFrame(resting, truth, step, "resting", count)
                else:
                    yield DemoFrame(image, truth, step, "still", count)
                count += 1

    def _resting(self, index: int, image: np.ndarray, truth: synth.Truth) -> np.ndarray | None:
        """Now and then a hand rests over a stack for the first third of a still stretch."""
        rng = np.random.default_rng([self.seed, index, 37])
        if index == 0 or rng.random() >= self.resting_hands:
            return None
        display = self.steps[index].display
        location = display[int(rng.integers(len(display)))][0]
        (x, y), _ = self._spots[self._spot_index[index][location]]
        centre = (x + float(rng.uniform(-30, 30)), y + float(rng.uniform(10, 60)))
        frame = image.copy()
        synth.draw_occluder(frame, truth.table_to_px, synth.Occluder("hand", centre, 130.0, float(rng.uniform(-40, 40))))
        return frame

    def _hand(self, image: np.ndarray, truth: synth.Truth, index: int, k: int) -> np.ndarray:
        """A hand sweeping from the players' edge to the stack that changes and back."""
        location = self.steps[index].location
        # The stack's spot now, or before this turn when the purchase used it up.
        spot = self._spot_index[index].get(location, self._spot_index[index - 1].get(location, 0))
        (tx, ty), _ = self._spots[spot]
        start = (self.table_mm[0] * (0.3 + 0.4 * (index % 2)), self.table_mm[1] + 160)
        t = math.sin(math.pi * (k + 0.5) / self.hand_frames)  # out and back
        centre = (start[0] + (tx - start[0]) * t, start[1] + (ty + 60 - start[1]) * t)
        angle = math.degrees(math.atan2(ty - start[1], tx - start[0])) + 90
        frame = image.copy()
        synth.draw_occluder(frame, truth.table_to_px, synth.Occluder("hand", centre, 150.0, angle))
        return frame


def frames(**options) -> Iterator[DemoFrame]:
    """The default demo: :class:`DemoGame` with ``options``, every picture once (the camera loops it)."""
    return DemoGame(**options).frames()
