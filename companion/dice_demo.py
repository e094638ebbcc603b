"""The dice demo: a scripted game of Fandooble rolled into the demo camera's tray, read by the camera path.

Without a camera, ``companion run --demo fandooble`` (or the Setup page's demo choice)
plays it: rendered picture dice land in the tray, lie still, and the real pipeline reads
them (tray zone, roll detector, taught reader), the Fandooble referee turns the tray into a
``roll`` move, the engine scores it, and the dashboard, LEDs and buzzer follow. Between
rolls a hand reaches into the tray; the uncountered dragons stay where they lay, as the
rules ask. Banking and stealing are entered as a person would (on the dashboard).

The script is worked out with the game's own rules before the show (the rolls are drawn
with a fixed seed), and played by :class:`companion.film.player.LiveShow`: each picture
is handed to the camera only once the runtime has taken what the last one caused, so the
film advances on the game's state, never on time.

The demo's dice must be taught for the camera to read them: when no faces are taught in
the data directory, the demo teaches its own rendered dice (as ``companion dice teach``
would from photos). Its tray (``tray_px``) is read until a tray is marked on the Setup page; it is
never saved, so a camera attached later does not inherit it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from companion.film.store import FilmFrame, FilmInput, ScriptFilm

DEMO_GAME = "fandooble"
DEMO_TITLE = "Demo dice"
TABLE = "felt"


@dataclass(frozen=True)
class RollStep:
    """One roll of the script: the moves entered before it (bank, steal), the faces thrown (in the
    engine's order) and every die lying in the tray after it: ``(face, centre, angle)``."""

    entered: tuple[str, ...]
    faces: str
    lying: tuple[tuple[str, tuple[float, float], float], ...]
    kept: tuple[tuple[str, tuple[float, float], float], ...]  # the dragons lying there before the throw


class DiceScript:
    """``rolls`` rolls of a Fandooble game for ``players``, in pictures of ``size`` (the working image)."""

    def __init__(self, players: tuple[str, ...] = ("Lola", "Grace"), *, rolls: int = 50,
                 size: tuple[int, int] = (2304, 1296), seed: int = 5, still_frames: int = 8, hand_frames: int = 2):
        self.players = tuple(players)
        self.size = size
        self.seed = seed
        self.still_frames = still_frames
        self.hand_frames = hand_frames
        w, h = size
        self.side = max(28, round(w / 36))  # a 16 mm die seen from the camera's height
        self.tray = (round(w * 0.3), round(h * 0.22), round(w * 0.7), round(h * 0.82))
        self.steps = self._script(rolls)

    @property
    def tray_px(self) -> list[list[float]]:
        x0, y0, x1, y1 = self.tray
        return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]

    def _script(self, rolls: int) -> list[RollStep]:
        from companion.games.fandooble import parse_move, rules

        rng = random.Random(self.seed)
        state = rules.setup(self.players)
        lying: list = []
        steps: list[RollStep] = []
        while len(steps) < rolls and not state.over:
            entered = []
            while state.pending_steals:
                move = rules.legal_moves(state)[0]
                entered.append(move.to_text())
                state = rules.apply(state, move)
            if state.rolls_this_turn and rng.random() < 0.4:
                entered.append("bank")
                state = rules.apply(state, parse_move("bank"))
            if not state.dragons:
                lying = []  # a new turn: the tray was cleared
            roll = rules.random_chance(state, rng)
            if roll is None:
                break
            after = rules.apply(state, roll)
            thrown = self._place(roll.faces, lying, rng)
            steps.append(RollStep(tuple(entered), roll.faces, tuple(lying + thrown), tuple(lying)))
            lying = _keep(lying + thrown, after.dragons)
            state = after
        return steps

    def _place(self, faces: str, lying: list, rng: random.Random) -> list:
        x0, y0, x1, y1 = self.tray
        margin = self.side * 1.2
        placed: list = []
        for face in faces:
            for _ in range(500):
                centre = (rng.uniform(x0 + margin, x1 - margin), rng.uniform(y0 + margin, y1 - margin))
                if all(math.dist(centre, c) > self.side * 2.0 for _, c, _ in lying + placed):
                    break
            placed.append((face, centre, rng.uniform(0, 90)))
        return placed

    def picture(self, dice, *, hand: tuple[float, float] | None = None) -> np.ndarray:
        from vision.synth.dice import render_placed

        return render_placed(list(dice), size=self.size, side=self.side, table=TABLE, hand=hand)

    def frames(self) -> Iterator[tuple[RollStep, np.ndarray]]:
        """Each picture with the roll it belongs to: the hand over the tray, then the dice lying still."""
        x0, y0, x1, y1 = self.tray
        for step in self.steps:
            for k in range(self.hand_frames):
                reach = (x1 - (k + 1) * (x1 - x0) / (self.hand_frames + 1), (y0 + y1) / 2)
                yield step, self.picture(step.kept, hand=reach)
            still = self.picture(step.lying)
            for _ in range(self.still_frames):
                yield step, still


def script_film(script: DiceScript, *, fps: float = 10.0, title: str = DEMO_TITLE,
                options: dict[str, str] | None = None) -> ScriptFilm:
    """The script as a film: a new game first (with ``options``), each roll's entered moves delivered before
    its hand comes."""
    start = [FilmInput(0, "new_game", {"game": DEMO_GAME, "players": list(script.players),
                                       "options": dict(options or {}), "title": title})]
    header = {"title": title, "fps": fps}

    def frames() -> Iterator[FilmFrame]:
        previous: FilmFrame | None = None
        current = None
        for number, (step, image) in enumerate(script.frames(), start=1):
            frame = FilmFrame(number=number, t=number / fps, image=image)
            if previous is not None:
                if step is not current and step.entered:
                    previous.inputs = [FilmInput(previous.number, "play", {"move": move, "source": "dashboard"})
                                       for move in step.entered]
                yield previous
            previous, current = frame, step
        if previous is not None:
            yield previous

    return ScriptFilm(header, start, frames)


def teach_demo_dice(store, script: DiceScript) -> bool:
    """Teach the demo's rendered dice into ``store`` (a :class:`companion.dicestore.DiceStore`) when no
    usable faces are taught there (none, or taught by an older version that cut dice out otherwise);
    True when it did."""
    from companion.teach import DEFAULT_LOOKS
    from vision.dice.faces import FaceTemplates
    from vision.synth.dice import render_face_photo

    if store.has_usable_templates():
        return False
    from companion import games

    rng = np.random.default_rng(script.seed)
    templates = FaceTemplates()
    for die, faces in games.get(DEMO_GAME).DICE.dice.items():
        for face in faces:
            for look in range(DEFAULT_LOOKS):  # as teaching does: the Setup page has nothing to advise
                photo = render_face_photo(rng, face, size=(script.side * 5, script.side * 4), die_px=script.side,
                                          table=TABLE)
                templates.learn(die, face, photo, new_face=look == 0)
    store.save_templates(templates)
    return True


def _keep(dice: list, dragons: str) -> list:
    """The dice still lying after a roll: the uncountered dragons (``dragons``), the earlier ones first."""
    wanted = list(dragons)
    kept = []
    for die in dice:
        if die[0] in wanted:
            wanted.remove(die[0])
            kept.append(die)
    return kept


class DiceDemoTable:
    """Builds the dice demo's film and plays it through the demo camera (as :class:`companion.demo.DemoTable`)."""

    def __init__(self, runtime, *, size: tuple[int, int] = (2304, 1296), rolls: int = 50, **script_options):
        from companion.film.player import LiveShow

        self.runtime = runtime
        self.script = DiceScript(size=size, rolls=rolls, **script_options)
        self.film = script_film(self.script)
        self.show = LiveShow(runtime, self.film)
        self.table_mm = None
        self._t = 0.0
        self.teaching = TeachingTray(self.script)

    @property
    def tray_px(self) -> list[list[float]]:
        return self.script.tray_px

    def prepare(self, store) -> None:
        """Teach the demo's dice (when none are taught); its games then take the taught dice's face counts,
        as new games on the Setup page do, so the odds are exact and say so."""
        from companion.film.player import LiveShow

        teach_demo_dice(store, self.script)
        self.film = script_film(self.script, options=store.options_for(DEMO_GAME))
        self.show = LiveShow(self.runtime, self.film)

    @property
    def games_started(self) -> int:
        return self.show.loops

    def camera(self, *, fps: float = 10.0, work_width: int | None = None):
        from hardware.camera.demo import DemoCamera

        return DemoCamera(self.next_image, fps=fps, work_width=work_width)

    def next_image(self, number: int):
        """The next picture: the film's, or while dice are being taught, the face asked for alone in the
        tray (a hand sets it down, then it lies still), so teaching with the demo camera finishes."""
        teaching = self.runtime.snapshot_part("teaching")
        if isinstance(teaching, dict) and teaching.get("active") and teaching.get("face"):
            self._t += 0.1
            return self.teaching.picture(teaching), self._t
        shown = self.show(number)
        if shown is not None:
            self._t = max(self._t + 0.1, shown[1])
            shown = (shown[0], self._t)
        return shown


class TeachingTray:
    """The demo table while a die is taught: the face the teacher asks for (its status, as
    :class:`companion.teach.DiceTeacher` gives it) set down alone in the tray by a hand, then lying still,
    turned a little more for each further picture of a face."""

    def __init__(self, script: DiceScript):
        self.script = script
        self._asked = None
        self._hand = 0

    def picture(self, teaching: dict):
        x0, y0, x1, y1 = self.script.tray
        middle = ((x0 + x1) / 2, (y0 + y1) / 2)
        asked = (teaching.get("die"), teaching.get("step"), teaching.get("retries"))
        if asked != self._asked:
            self._asked, self._hand = asked, self.script.hand_frames
        if self._hand:
            self._hand -= 1
            return self.script.picture([], hand=middle)
        turn = 20.0 * (teaching.get("look", 1) - 1)
        return self.script.picture([(teaching["face"], middle, 10.0 + turn)])


def teaching_camera(status, *, size: tuple[int, int], fps: float = 10.0):
    """The demo camera for teaching without a dashboard (``companion dice teach``): pictures of ``size``
    showing the face ``status()`` asks for, in the demo table's tray. Returns (camera, the tray's corners)."""
    from hardware.camera.demo import DemoCamera

    teaching = TeachingTray(DiceScript(size=size, rolls=1))
    camera = DemoCamera(lambda number: teaching.picture(status()), fps=fps)
    return camera, teaching.script.tray_px


DEMO_TABLE = DiceDemoTable
