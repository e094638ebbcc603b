"""Teaching a die's picture faces: one session, fed with camera pictures, step by step.

A :class:`DiceTeacher` asks for each face of one die in turn (and for a few looks at
each face, the die turned a little between them). Before every picture it waits for
motion (a hand sets the die down or turns it) and then for stillness, so the picture
shows the die lying still and no hand. The command line (``companion dice teach``)
and the dashboard's Setup page both drive it: the command line with the camera it
opens, the dashboard with the frames of the running companion's camera.

The teacher is a small state machine with no I/O except the final save, and its own
clock, so a test drives it frame by frame. Its :meth:`~DiceTeacher.status` is ready
for JSON. Nothing is stored unless every face was learned.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from companion.errors import SetupError

MAX_FACES = 20  # a d20 is the most faces a die on the table has
MAX_LOOKS = 5
# Pictures of each face taught by default. Real dice taught from 2 photos a face read 492 of 548 other photos right
# (89.8%), 1 wrong, over six choices of teaching photos; from 3, 380 of 403 (94.3%), 1 wrong (bench/dice_bench.py, the
# real taught rows; with the networks before their retraining for issue 13, 2 photos a face read 3 of 93 wrong, 3
# photos 2 of 417): a die seen at an angle is cut out a little off-centre now and then, and a third look outvotes
# one such look.
DEFAULT_LOOKS = 3
DEFAULT_TIMEOUT_S = 60.0
PHOTO_TIMEOUT_S = 900.0  # teaching from photos: time to find or take the next photo on a phone
PHOTO_SIDE = 1024  # a photo is learned at most this many pixels on its longer side, about the camera's tray: a
# phone's 12 MP are far more than a die needs, and at 1600 px a photo took about two and a half times as long to learn
# A picture whose die is this near (the taught reader's distance) a face taught before, of another letter than the
# face asked for, shows that face: a photo chosen out of order, the die set down on the wrong face, another die. On the
# train split's real dice photos of one face lie 2.5 to 16 apart, of two faces 6.25 or more: at 5 (a fifth below), no
# right picture of 382 is refused (every other face taught), and 31 of 119 wrong ones of single dice and 19 of 254
# of alike dice are caught; rendered Fandooble dice 36 of 36 (bench/wrong_face_bench.py; chosen with the networks
# before their retraining for issue 13: none of 389 refused, 38 of 123 and 28 of 257 caught).
LOOKS_LIKE_ANOTHER = 5.0
# A picture learned that the die's other pictures read as another face this surely (the taught reader's confidence,
# :func:`vision.dice.faces.margin_confidence`) is marked for a look (read_by_the_others): most pictures learned as one
# face but showing another are not refused, their face not yet taught when they came, or farther from it than
# LOOKS_LIKE_ANOTHER. On the train split's real dice, each face taught from three pictures (bench/wrong_face_bench.py):
# right pictures marked 3 of 414 (single dice) and 0 of 432 (alike dice); a picture of another face learned in a face's
# place marked 444 of 600 and 480 of 720, where refusing within LOOKS_LIKE_ANOTHER of its face catches 180 and 70 (and
# only once that face is taught). At 0.4: 4 and 1 right marked, 488 and 568 wrong; at 0.6: 3 and 0 right, 416 and 387
# wrong. Rendered Fandooble dice: none right of 108, all 72 wrong. Chosen on those same photos, with the networks before
# their retraining for issue 13 (0 and 3 right marked, 431 and 468 wrong; at 0.4 0 and 6, 468 and 550; at 0.6 none
# right, 360 and 364): no held-out set remains.
READ_AS_ANOTHER = 0.5
INSISTED = 2  # pictures of one step refused so, after which the next one showing that face is taken
VIEW_MARGIN = 0.08  # the live view while teaching shows this share of the tray's size around it: its rim, a hand

WAITING_FOR_MOTION = "waiting_for_motion"
WAITING_FOR_STILL = "waiting_for_still"
LEARNED = "learned"
DONE = "done"
FAILED = "failed"
CANCELLED = "cancelled"
ACTIVE_STATES = (WAITING_FOR_MOTION, WAITING_FOR_STILL, LEARNED)

_DIE_NAME = re.compile(r"^[A-Za-z0-9-]{1,20}$")
# A teaching photo's name: the die, the face shown, which physical face (1, 2...), and optionally which picture of it
PHOTO_NAME = re.compile(r"^(?P<die>[A-Za-z0-9-]+)_(?P<face>[A-Za-z0-9]+)_(?P<n>\d+)(?:_(?P<look>\d+))?$")
_FACES = re.compile(r"^[A-Z0-9]+$")


def another_face_shown(before, lesson, face: str) -> tuple[str, str] | None:
    """The (die, face) taught ``before`` that the picture just learned shows (``lesson``: what it taught alone,
    :meth:`~vision.dice.faces.FaceTemplates.learn`), where that is another face than ``face``, the one asked for
    (LOOKS_LIKE_ANOTHER); None where it is not."""
    if not before.samples:
        return None
    die, shown, nearest, *_ = before.match([lesson.samples[0][2]])[0]
    return (die, shown) if shown != face and nearest <= LOOKS_LIKE_ANOTHER else None


def read_by_the_others(base, lessons: dict, sure: float = READ_AS_ANOTHER, *, taught=None) -> dict:
    """The pictures learned that the die's other pictures read as another face: ``lessons`` maps each picture's key
    (a teacher's step, a photo's name) to (what it taught alone, :meth:`~vision.dice.faces.FaceTemplates.learn`;
    the face it was learned as); ``base`` holds what was taught besides (other dice). Each picture's die is read
    against ``base`` and every other picture, its own left out, where its face has another picture to be read by:
    where it reads as a face of another letter at least ``sure`` (the taught reader's confidence), its key maps to
    that (die, face). A picture learned as the face asked for but showing another (the die set down wrong,
    photos named out of order) is caught here even where that face was not taught when it was learned.
    ``taught``: ``base`` with the lessons added in their order, where the caller holds it (what it matches against
    is then prepared once for both)."""
    from vision.dice.faces import margin_confidence

    templates = taught
    if templates is None:
        templates = without_die(base, None)
        for lesson, _ in lessons.values():
            templates.absorb(lesson, new_face=False)
    start = len(templates.samples) - sum(len(lesson.samples) for lesson, _ in lessons.values())
    spans = {}
    for key, (lesson, _) in lessons.items():
        spans[key] = slice(start, start + len(lesson.samples))
        start = spans[key].stop
    owners = [(die, face) for die, face, _ in templates.samples]
    judged = [key for key, (lesson, face) in lessons.items() if lesson.samples and any(
        owner == (lesson.samples[0][0], face) for owner in owners[:spans[key].start] + owners[spans[key].stop:])]
    if not judged:
        return {}
    hidden = np.zeros((len(judged), len(owners)), bool)
    for row, key in enumerate(judged):
        hidden[row, spans[key]] = True
    matches = templates.match([lessons[key][0].samples[0][2] for key in judged], hidden=hidden)
    return {key: (die, shown) for key, (die, shown, nearest, other, _) in zip(judged, matches)
            if shown != lessons[key][1] and margin_confidence(nearest, other) >= sure}


def looks_most_like(lessons: dict, lesson, shown: tuple[str, str]):
    """Of the pictures learned as ``shown`` (die, face) (``lessons``: each one's key -> what it taught alone), the one
    the die of ``lesson`` lies nearest, where within LOOKS_LIKE_ANOTHER (None: none, what was taught before is what it
    looks like). A wrong picture learned before its face was taught has every right picture of that face refused as
    the face it was learned as: the teacher is told which picture to take back or name again."""
    near = {key: learned.match([lesson.samples[0][2]])[0][2] for key, learned in lessons.items()
            if learned.samples and learned.samples[0][:2] == shown}
    key = min(near, key=near.get, default=None)
    return key if key is not None and near[key] <= LOOKS_LIKE_ANOTHER else None


def named_face(letter: str, die: str) -> str:
    """A face in words: ``the green dragon`` (a game's picture die), ``face 5`` (another die)."""
    name = face_name(letter, die)
    return f"the {name}" if name else f"face {letter}"


def shows_instead(shown: tuple[str, str], die: str, face: str) -> str:
    """Why a picture of ``face`` of ``die`` is refused that shows the face ``shown`` (die, face) taught already
    (:func:`another_face_shown`), in words."""
    return f"shows {named_face_of(shown, die)}, taught already, not {named_face(face, die)}"


def named_face_of(shown: tuple[str, str], die: str) -> str:
    """A face ``shown`` (die, face) in words, naming its die where it is another than ``die``."""
    whose = "" if shown[0] == die else f" of the {shown[0]} die"
    return named_face(shown[1], shown[0]) + whose


def photo_to_learn(image: np.ndarray) -> np.ndarray:
    """A photo (BGR) as it is learned: scaled down to at most PHOTO_SIDE pixels on its longer side."""
    import cv2

    scale = PHOTO_SIDE / max(image.shape[:2])
    if scale >= 1:
        return image
    return cv2.resize(image, (round(image.shape[1] * scale), round(image.shape[0] * scale)),
                      interpolation=cv2.INTER_AREA)


class BadTeaching(SetupError):
    """A teaching request that cannot start; ``field`` names what to fix (die, faces, looks)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def face_name(letter: str, die: str | None = None) -> str | None:
    """What a game's picture-dice face letter shows ("green dragon") on the die ``die`` (in its own game's words),
    None for other dice's faces."""
    from companion.games import face_words

    return face_words(die).get(letter)


def usual_faces(die: str) -> str | None:
    """The faces of a game's picture die ``die`` as the die is usually made (``CCGGRR``), None for other dice."""
    from companion.games import dice_to_teach

    return next((d["usual"] for d in dice_to_teach() if d["die"] == die.strip().lower()), None)


def example() -> tuple[str, str]:
    """A die and its faces to name in advice: the first game's first picture die, or a die of six letters."""
    from companion.games import dice_to_teach

    first = next(iter(dice_to_teach()), {"die": "red", "usual": "ABCDEF"})
    return first["die"], first["usual"]


def checked_request(die: str, faces: str, looks: int) -> tuple[str, str, int]:
    """``(die, FACES, looks)`` cleaned up, or :class:`BadTeaching` saying what is wrong."""
    example_die, example_faces = example()
    if not isinstance(die, str) or not _DIE_NAME.match(die.strip()):
        raise BadTeaching("die", f"name the die with up to 20 letters, digits or dashes, e.g. {example_die}")
    die = die.strip()
    if not isinstance(faces, str) or not faces.strip():
        raise BadTeaching("faces", f"write the die's faces in the order you will show them, e.g. {example_faces}")
    faces = re.sub(r"[\s,]", "", faces).upper()
    if len(faces) > MAX_FACES:
        raise BadTeaching("faces", f"a die has at most {MAX_FACES} faces: write one letter per face")
    if not _FACES.match(faces):
        raise BadTeaching("faces", f"write one letter (or digit) per face, e.g. {example_faces}")
    from companion.games import picture_dice

    allowed = picture_dice().get(die.lower())  # a die a game names (its faces are known)
    if allowed is not None:
        wrong = sorted(set(faces) - set(allowed))
        if wrong:
            names = ", ".join(f"{f} ({face_name(f, die.lower())})" for f in allowed)
            raise BadTeaching("faces", f"the {die.lower()} die's faces are {names}; "
                                       f"{', '.join(wrong)} is not one of them")
        die = die.lower()
    if isinstance(looks, bool) or not isinstance(looks, int) or not 1 <= looks <= MAX_LOOKS:
        raise BadTeaching("looks", f"looks is the number of pictures per face: 1 to {MAX_LOOKS}")
    return die, faces, looks


def teaching_photos(folder: Path) -> list[tuple[Path, str, str, str]]:
    """The photos in ``folder`` named as teaching photos (:data:`PHOTO_NAME`, e.g. ``dragon_C_1.png``), in name
    order: (path, die, face letter, the physical face's number). SetupError when there is no such folder or no such
    photo in it."""
    from hardware.camera.files import IMAGE_SUFFIXES

    if not folder.is_dir():
        raise SetupError(f"{folder}: no such folder")
    found = []
    for path in sorted(folder.iterdir()):
        match = PHOTO_NAME.match(path.stem)
        if path.suffix.lower() in IMAGE_SUFFIXES and match:
            found.append((path, match["die"], match["face"].upper(), match["n"]))
    if not found:
        raise SetupError(f"{folder}: no photos named <die>_<face>_<n>.png (e.g. dragon_C_1.png)")
    return found


def read_photo(path: Path) -> np.ndarray:
    """The photo at ``path`` (BGR); SetupError saying why where it cannot be read."""
    from hardware.camera.files import ImageTooLarge, read_image

    try:
        image = read_image(path)
    except ImageTooLarge as exc:
        raise SetupError(str(exc)) from None
    if image is None:
        raise SetupError(f"{path}: not a picture OpenCV can read")
    return image


def without_die(templates, die: str | None):
    """A copy of ``templates`` with every sample of ``die`` left out (teaching a die again replaces it); None leaves
    nothing out (teaching a die again in another light keeps what it was taught)."""
    from vision.dice.faces import FaceTemplates

    if templates is None:
        return FaceTemplates()
    kept = [i for i, sample in enumerate(templates.samples) if sample[0] != die]
    return FaceTemplates(samples=[templates.samples[i] for i in kept],
                         shapes=[templates.shape_list()[i] for i in kept],
                         dice={name: f for name, f in templates.dice.items() if name != die},
                         pictures={name: n for name, n in templates.pictures.items() if name != die},
                         read_by_pips={name: n for name, n in templates.read_by_pips.items() if name != die},
                         lights={name: list(n) for name, n in templates.lights.items() if name != die},
                         sides={name: list(n) for name, n in templates.sides.items() if name != die},
                         sides_on={name: n for name, n in templates.sides_on.items() if name != die})


class DiceTeacher:
    """One teaching session for one die.

    :param die: the die's name (a game's picture die, or any other).
    :param faces: its faces in the order they will be shown, one letter each (``CCGGRR``).
    :param looks: pictures per face; the die is turned a little between them.
    :param keep: what was taught before and stays (other dice); None starts afresh.
        Samples of this same die in it are replaced.
    :param save: called with the complete :class:`~vision.dice.faces.FaceTemplates` when every face is learned, and
        ``pictures``, the die's sheet of the pictures learned (:meth:`sheet`), to look over later
        (``DiceStore.save_templates``); again when a picture taken back after that is learned anew.
    :param stored_at: when the dice were last stored (``DiceStore.changed_at``): a picture is taken back after the
        die was stored only while nothing else changed the dice since (another die taught, the kind of dice set).
    :param timeout_s: seconds to wait for each picture; after that the session fails, nothing stored.
    :param clock: seconds, monotonic (tests pass their own).
    :param stillness: the motion tracker (``vision.motion.Stillness()`` by default).
    :param zone: the dice tray (a pixel polygon, ``table.tray_px``): only the die inside it is looked at,
        not the cards, tags and clutter around it. None: the whole picture.
    :param tags: tags lying in the tray (its own corner tags: each 4 x 2 corners), painted over before the die
        is looked for, as the dice reader does.
    :param photos: the session is taught from photos (:meth:`photo`), not the camera's pictures: its prompts ask
        for a photo.
    :param another_light: the die, taught before, is taught again in this light, keeping what it was taught (``keep``
        holds it, with the same faces): a tray that grew darker in the evening then reads better, and by day too
        (``bench/dice_bench.py --light-meter``).
    """

    def __init__(self, die: str, faces: str, *, looks: int = DEFAULT_LOOKS, keep=None,
                 save: Callable[[object], None] | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                 clock: Callable[[], float] = time.monotonic, stillness=None, die_px: float | None = None,
                 zone=None, tags=(), photos: bool = False, another_light: bool = False,
                 stored_at: Callable[[], float | None] | None = None):
        from vision.motion import Stillness

        self.die, self.faces, self.looks = checked_request(die, faces, looks)
        if not timeout_s > 0:
            raise BadTeaching("timeout", "the time to wait for each face must be more than 0 seconds")
        if another_light:
            taught = keep.dice.get(self.die) if keep is not None else None
            if taught is None:
                raise BadTeaching("another_light", f"the {self.die} die is not taught yet: teach it first, then again "
                                                   "in another light")
            if taught != self.faces:
                raise BadTeaching("faces", f"the {self.die} die was taught with the faces {taught}: show the same "
                                           "faces, in the same order, in this light")
        self.another_light = another_light
        self._base = without_die(keep, None if another_light else self.die)  # what stays of before
        self.templates = self._base  # that and each picture learned in this session (:meth:`_rebuild`)
        self._kept_lights = list(self._base.lights.get(self.die, ()))  # the camera's, from before (another light)
        self._kept_sides = list(self._base.sides.get(self.die, ()))
        self._save = save
        self._stored_at = stored_at
        self._stored: tuple | None = None  # (when,) this session last stored the die; None: it did not yet
        self.timeout_s = float(timeout_s)
        self.clock = clock
        self.stillness = stillness if stillness is not None else Stillness()
        self.die_px = die_px
        self.zone = zone
        self.tags = [np.asarray(quad, np.float64) for quad in tags]
        self.photos = photos
        self.total = len(self.faces) * self.looks
        self.state = WAITING_FOR_MOTION
        self.message = "waiting for a photo" if photos else "waiting for the die to be set down"
        self.retries = 0
        # The last picture with what was seen in it drawn: what was taken for dice (refused), or the die a face was
        # learned from (a box around a drawing or a speck instead is a wrong sample: take it back)
        self.seen: np.ndarray | None = None
        self._seen_name = ""
        self.seen_learned = False
        # Each picture learned in this session by its step: what it taught alone, a close-up of its die, and the
        # close-up's name (pages fetch it by that name). Kept apart, so that any one can be taken back.
        self._lessons: dict[int, tuple[object, np.ndarray, str]] = {}
        self._order: list[int] = []  # the steps learned, in the order they were (the last is taken back first)
        self._looked_like: list = []  # (step, (die, face)) of each picture refused as showing a face taught already
        self._read_as: dict[int, tuple[str, str]] = {}  # step -> the (die, face) the other pictures read it as
        self._picture_size: tuple[int, int] | None = None  # (width, height) of the pictures fed
        self._deadline = clock() + self.timeout_s

    # -- where we are -------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    @property
    def learned(self) -> int:
        """Pictures learned so far."""
        return len(self._lessons)

    @property
    def step(self) -> int:
        """The picture asked for now, 1-based: the first not learned (one taken back is asked for again first);
        ``total`` once all are."""
        return next((step for step in range(1, self.total + 1) if step not in self._lessons), self.total)

    @property
    def face_number(self) -> int:
        """Which physical face (1-based) the current step shows."""
        return (self.step - 1) // self.looks + 1

    @property
    def look(self) -> int:
        """Which look (1-based) at that face the current step is."""
        return (self.step - 1) % self.looks + 1

    @property
    def face(self) -> str:
        return self.faces[self.face_number - 1]

    def prompt(self) -> str:
        """What the person at the table does next, in words."""
        if self.state == DONE:
            return f"die {self.die}: all {len(self.faces)} faces learned"
        if self.state in (FAILED, CANCELLED):
            return f"die {self.die}: teaching stopped, {self._kept_words()}"
        name = face_name(self.face, self.die)
        shown = f"the {name}" if name else f"face {self.face}"
        where = f"die {self.die}, face {self.face_number} of {len(self.faces)}"
        if self.photos:
            again = " (another one, the die turned a little)" if self.look > 1 else ""
            return f"{where}: a photo of the die alone with {shown} face up{again}"
        turn = " (turn the die a little)" if self.look > 1 else ""
        return f"{where}: put {shown} face up in the tray{turn}"

    def status(self) -> dict:
        """JSON-ready: where the session is and what to do next."""
        return {
            "die": self.die,
            "faces": self.faces,
            "looks": self.looks,
            "step": self.step,
            "total": self.total,
            "learned": self.learned,
            "face_number": self.face_number,
            "look": self.look,
            "face": self.face,
            "face_name": face_name(self.face, self.die),
            "face_names": {f: face_name(f, self.die) for f in dict.fromkeys(self.faces) if face_name(f, self.die)},
            "prompt": self.prompt(),
            "state": self.state,
            "active": self.active,
            "message": self.message,
            "retries": self.retries,
            "seen": self._seen_name if self.seen is not None else "",  # names the last picture shown
            "seen_learned": self.seen is not None and self.seen_learned,  # a face was learned from it (else refused)
            "can_take_back": self.can_take_back,
            # every picture learned in this session: its step, the face it was learned as, its close-up's name
            # and, where the session's other pictures read it as another face, that face in words (read_by_the_others)
            "pictures": [{"step": step, "face": self.faces[(step - 1) // self.looks], "name": self._lessons[step][2],
                          "read_as": self._read_as_words(step)} for step in sorted(self._lessons)],
            "timeout_s": self.timeout_s,
            "photos": self.photos,
            "view": self.view(),
        }

    def sheet(self) -> np.ndarray | None:
        """Every picture learned in this session, a close-up of its die boxed, a row for each face
        (:func:`vision.overlay.learned_sheet`): a batch of photos is looked over at once, and a wrong one is seen
        in its row. Kept once the die is stored. None before the first picture is learned."""
        from vision import overlay

        if not self._lessons:
            return None
        closeups = {step - 1: closeup for step, (_, closeup, _) in self._lessons.items()}
        return overlay.learned_sheet(closeups, self.faces, self.looks, None if self.state == DONE else self.step - 1,
                                     {step - 1: face for step, (_, face) in self._read_as.items()})

    def picture(self, step: int) -> np.ndarray | None:
        """The close-up of the die of picture ``step`` (1-based), boxed; None where it is not learned."""
        lesson = self._lessons.get(step)
        return None if lesson is None else lesson[1]

    def view(self) -> dict | None:
        """Where a phone's live view is cut to while teaching: the tray with a margin, as shares of the picture
        (``box``: left, top, right, bottom) and the picture's width over its height (``aspect``). The whole picture
        when no tray is known; None before the first picture. A die on a far camera is a few pixels of the whole
        table: the teacher looks at the tray."""
        if self._picture_size is None:
            return None
        width, height = self._picture_size
        box = [0.0, 0.0, 1.0, 1.0]
        if self.zone is not None:
            zone = np.asarray(self.zone, np.float64).reshape(-1, 2)
            (left, top), (right, bottom) = zone.min(axis=0), zone.max(axis=0)
            margin = VIEW_MARGIN * max(right - left, bottom - top)
            box = [max(0.0, (left - margin) / width), max(0.0, (top - margin) / height),
                   min(1.0, (right + margin) / width), min(1.0, (bottom + margin) / height)]
        return {"box": [round(float(v), 4) for v in box], "aspect": round(width / height, 4)}

    # -- inputs ----------------------------------------------------------------------------

    def feed(self, image: np.ndarray) -> dict:
        """The next camera picture (the working image, BGR). Returns the status after it."""
        from vision.roll import watched_part

        if not self.active or self._timed_out():
            return self.status()
        if image.size:  # a broken frame (none of it) fails below, saying so; it gives no size
            self._picture_size = image.shape[1], image.shape[0]
        moving = not self.stillness.update(watched_part(image, self.zone))  # the tray, as for a roll
        if not self.stillness.moved_since_still:
            return self.status()  # nothing has moved since the last picture: the same face still lies there
        if moving:
            self._set(WAITING_FOR_STILL, "waiting for the die to lie still")
            return self.status()
        self.stillness.settled()
        self._take(image)
        return self.status()

    def photo(self, image: np.ndarray) -> dict:
        """A photo of the die with the face asked for up (teaching from photos, :attr:`photos`): learned as it is,
        with no waiting for the die to be set down, scaled to at most PHOTO_SIDE pixels first. Returns the status."""
        if not self.active or self._timed_out():
            return self.status()
        image = photo_to_learn(image)
        self._picture_size = image.shape[1], image.shape[0]
        self._take(image)
        return self.status()

    def tick(self) -> dict:
        """No new picture came: only the clock moves (a time-out may end the session)."""
        if self.active:
            self._timed_out()
        return self.status()

    @property
    def can_take_back(self) -> bool:
        """A picture of this session can be taken back: while teaching, and once the die is stored, while nothing
        else changed the dice since (taking one back then teaches that picture again, and stores the die anew)."""
        if not self._lessons:
            return False
        if self.active:
            return True
        return self.state == DONE and (self._stored_at is None or (self._stored_at(),) == self._stored)

    def take_back(self, step: int | None = None) -> dict:
        """Forget picture ``step`` of this session (by default the last learned) and ask for its face again first:
        the teacher saw on it that what was learned is not the die (a drawing on it, a speck, a coin beside it), or
        another face. The others stay learned. Raises :class:`BadTeaching` when there is none to take back."""
        if self.active:
            self._timed_out()
        if not self.can_take_back:
            why = "no picture was learned yet" if self.active else \
                "the dice were changed since this die was learned (teach it again)" if self.state == DONE \
                else "teaching is not going on"
            raise BadTeaching("take_back", f"there is no picture to take back: {why}")
        if step is None:
            step = self._order[-1]
        if step not in self._lessons:
            raise BadTeaching("take_back", f"picture {step} is not learned, so it cannot be taken back: the pictures "
                                           f"learned are {', '.join(map(str, sorted(self._lessons)))}")
        del self._lessons[step]
        self._order.remove(step)
        self._rebuild()
        self._show(None)
        self._deadline = self.clock() + self.timeout_s
        again = "choose another photo" if self.photos else "set the die down again"
        until = " (the die reads as stored until that picture is learned, and is then stored again)" \
            if self._stored else ""
        self._set(WAITING_FOR_MOTION, f"picture {step} was taken back: {again}{until}")
        return self.status()

    def cancel(self) -> dict:
        """Stop now; nothing more is stored."""
        if self.active:
            self._set(CANCELLED, f"teaching was cancelled: {self._kept_words()}")
        return self.status()

    # -- steps ------------------------------------------------------------------------------

    def _flat_far_off(self, refused: ValueError, image: np.ndarray) -> str:
        """For a die refused as not lying flat in a tray towards the edge of the camera's view: that a flat die
        there is seen from the side as well, and what to do (companion.pipeline.tray_towards_edge)."""
        from companion.pipeline import tray_towards_edge

        leaning = any(what == "not flat" for _, what in getattr(refused, "seen", ()))
        if self.photos or self.zone is None or not leaning:
            return ""
        edge = tray_towards_edge(np.asarray(self.zone, np.float64).tolist(), (image.shape[1], image.shape[0]))
        return f". If it does lie flat: {edge}" if edge else ""

    def _take(self, image: np.ndarray) -> None:
        from vision import overlay
        from vision.dice.faces import FaceTemplates
        from vision.dice.zone import codes_seen, crop_to_zone, hide_tags

        face = self.face
        # No tray marked: the whole picture is looked at, the table's corner tags and cards' codes in it too.
        tags = self.tags if self.zone is not None else [*self.tags, *(code.corners for code in codes_seen(image))]
        in_tray, _ = crop_to_zone(hide_tags(image, tags), self.zone, 0)
        lesson = FaceTemplates()
        try:
            die = lesson.learn(self.die, face, in_tray, die_px=self.die_px,
                               picture=None if self.photos else (image.shape[1], image.shape[0]))
        except ValueError as exc:
            # The tray as the refused picture was seen, what was taken for dice boxed: looked at, not read (the
            # words point there, not at pixels).
            said = exc.pointing_at_the_picture() if hasattr(exc, "pointing_at_the_picture") else str(exc)
            self._refuse(overlay.draw_seen(in_tray, getattr(exc, "seen", ())),
                         f"{said}{self._flat_far_off(exc, image)}; "
                         f"{'choose another photo' if self.photos else 'try again'}")
            return
        other = another_face_shown(self.templates, lesson, face)
        # A die whose faces differ only by a turn (N and Z) shows a face taught already whatever is done: after
        # INSISTED refusals of one picture for the same face, the next is taken as it is.
        insisted = other is not None and self._looked_like.count((self.step, other)) >= INSISTED
        if other is not None and not insisted:
            self._looked_like.append((self.step, other))
            asked = named_face(face, self.die)
            again = f"choose a photo with {asked} face up" if self.photos else f"put {asked} face up in the tray"
            last = self._looked_like.count((self.step, other)) == INSISTED
            # Shown again: perhaps the picture it looks like is the wrong one
            like = looks_most_like({step: learned for step, (learned, _, _) in self._lessons.items()}, lesson, other) \
                if last else None
            self._refuse(overlay.draw_seen(in_tray, [(die.box, f"looks like {other[1]}")]),
                         f"this die {shows_instead(other, self.die, face)}: {again}" + (
                             f" (if it is {asked}, the same once more is taken as it is: the two faces may then be "
                             "read alike)" if last else "") + (
                             f". It looks most like picture {like}: if picture {like} shows {asked}, take it back"
                             if like else ""))
            return
        step = self.step
        self._lessons[step] = (lesson, overlay.closeup(in_tray, die.box), secrets.token_hex(4))
        self._order.append(step)
        self._rebuild()
        name = face_name(face, self.die)
        self._show(overlay.draw_learned(in_tray, die.box, face), learned=True)
        got = f"got it: {face} ({name})" if name else f"got it: {face}"
        if insisted:
            got += f"; it looks like {named_face(other[1], other[0])}: the two may be read alike"
        got += self._read_as_said()
        if self.learned < self.total:
            self._deadline = self.clock() + self.timeout_s
            self._set(LEARNED, got)
            return
        self._keep_one_light()
        if self.photos:  # a phone's photo, taken from anywhere, tells nothing of the dice's size under the camera
            self.templates.sides[self.die] = self._kept_sides
        if not self.templates.sides.get(self.die):
            self.templates.sides.pop(self.die, None)
        try:
            if self._save is not None:
                self._save(self.templates, pictures={self.die: self.sheet()})
        except (OSError, ValueError) as exc:
            self._set(FAILED, f"the faces were learned but could not be stored: {exc}")
            return
        self._stored = (self._stored_at() if self._stored_at is not None else None,)
        counts = ", ".join(f"{n}× {face_name(f, self.die) or f}" for f, n in self.templates.face_counts(self.die).items())
        self._set(DONE, f"die {self.die} learned{' in this light too' if self.another_light else ''}: {counts}"
                        f"{self._read_as_said()}")

    def _refuse(self, drawn: np.ndarray, message: str) -> None:
        """A picture refused: counted, shown as ``drawn``, ``message`` said, and the time for the next one afresh."""
        self.retries += 1
        self._show(drawn)
        self._deadline = self.clock() + self.timeout_s
        self._set(WAITING_FOR_MOTION, message)

    def _show(self, drawn: np.ndarray | None, *, learned: bool = False) -> None:
        """Keep ``drawn`` as the last picture shown, under a new name (pages fetch it afresh, also in a later
        session); None shows none."""
        self.seen = drawn
        self._seen_name = secrets.token_hex(4) if drawn is not None else ""
        self.seen_learned = learned

    def _rebuild(self) -> None:
        """What is taught now: what stays of before, and each picture learned in this session in the order of the
        steps (as if learned one after the other, the one taken back never sent)."""
        templates = without_die(self._base, None)
        counted: set[int] = set()
        for step in sorted(self._lessons):
            face_number = (step - 1) // self.looks
            templates.absorb(self._lessons[step][0], new_face=face_number not in counted and not self.another_light)
            counted.add(face_number)
        self.templates = templates
        self._read_as = read_by_the_others(self._base, {step: (lesson, self.faces[(step - 1) // self.looks])
                                                        for step, (lesson, _, _) in sorted(self._lessons.items())},
                                           taught=templates)

    def _read_as_words(self, step: int) -> str | None:
        """The face the session's other pictures read picture ``step`` as, in words (None: its own, or not judged)."""
        shown = self._read_as.get(step)
        return None if shown is None else named_face_of(shown, self.die)

    def _read_as_said(self) -> str:
        """The pictures the others read as another face, and what to do, for the end of a message ("" for none)."""
        if not self._read_as:
            return ""
        said = "; ".join(f"picture {step}, learned as {named_face(self.faces[(step - 1) // self.looks], self.die)}, "
                         f"reads as {self._read_as_words(step)}" for step in sorted(self._read_as))
        return f". Look at the pictures marked: {said} to the others (take it back if it shows that)"

    def _kept_words(self) -> str:
        """What a session that stopped leaves stored, in words."""
        return "the die stays as it was stored" if self._stored else "nothing was stored"

    def _keep_one_light(self) -> None:
        """The die's light to judge a tray by: this teaching's, or taught again in another light, the dimmer of the
        two (:func:`~vision.dice.light.dimmer`); none from photos, whose phone sets its own exposure and tells
        nothing of the light the camera sees."""
        from vision.dice.light import dimmer

        kept = self._kept_lights
        new = [] if self.photos else self.templates.lights.get(self.die, [])[len(kept):]
        lights = dimmer(kept, new) if kept and new else kept or new
        self.templates.lights.pop(self.die, None)
        if lights:
            self.templates.lights[self.die] = list(lights)

    def _timed_out(self) -> bool:
        if self.clock() < self._deadline:
            return False
        waited = f"no photo came within {self.timeout_s / 60:g} min" if self.photos \
            else f"no die was set down within {self.timeout_s:.0f} s"
        self._set(FAILED, f"{waited}: teaching stopped, {self._kept_words()}")
        return True

    def _set(self, state: str, message: str) -> None:
        self.state = state
        self.message = message
