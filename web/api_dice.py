"""The table's dice on the dashboard, through :class:`companion.dicestore.DiceStore`: what the camera
knows about them, which kind it reads, the ArUco sticker table, and the taught face counts that a new
game with picture dice (and its odds) uses, through the game's ``dice_option``.

Teaching the dice (``/api/dice/teach``) takes the clean frames the running camera
pipeline publishes (``runtime.frames``): a daemon thread feeds them to a
:class:`companion.teach.DiceTeacher`, one session at a time, and its status is the
runtime's snapshot part ``teaching``, so every phone follows the progress on the
event stream. Taught from photos instead (``"photos": true``), the session waits for
no camera: each photo a phone sends (``/api/dice/teach/photo``) is the next picture.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify, request

from web.bodies import json_body, text
from web.runtime_ref import runtime
from web.security import game_master, is_unlocked, refuse

_log = logging.getLogger(__name__)

bp = Blueprint("dice_api", __name__, url_prefix="/api/dice")

# companion.dicestore is imported inside the views: a fault there closes these routes, never the dashboard.


def _store():
    from companion.dicestore import DiceStore

    if runtime().dice_store is not None:  # the demo camera's table: its rendered dice, kept apart
        return runtime().dice_store
    path = getattr(runtime().log, "path", ":memory:")
    if path == ":memory:":
        refuse(409, "this companion has no data directory to keep what it knows about the dice", "no_data_dir")
    return DiceStore(Path(path).parent)


def dice_options(game: str) -> dict[str, str]:
    """The setup options a new game takes from the taught dice (its face counts; {} when not taught)."""
    from companion import games

    rules = games.get(game)
    kept = runtime().dice_store is not None or getattr(runtime().log, "path", ":memory:") != ":memory:"
    if rules.DICE is None or not kept:
        return {}
    from companion.errors import ConfigError

    try:
        return _store().options_for(game)
    except ConfigError:  # damaged dice files (the Setup page says so): the game starts with its own counts
        return {}


def _described(store) -> dict:
    from companion.dicestore import KINDS
    from companion.games import dice_to_teach, face_names, face_words

    described = store.describe()
    if not is_unlocked():  # where the companion keeps its files is the game master's to know
        described["directory"] = None
    to_teach = dice_to_teach()
    return {**described, "kinds": list(KINDS), "face_names": face_names(), "dice_to_teach": to_teach,
            "face_words": {die: face_words(die) for die in described["dice"]},  # each taught die in its game's words
            "teach_commands": [f"companion dice teach --die {d['die']} --faces {d['usual']}" for d in to_teach]}


@bp.get("")
def show():
    """What the camera knows: the kind it reads, the taught dice and their face counts, the sticker table."""
    return jsonify(_described(_store()))


@bp.get("/pictures/<die>.jpg")
def taught_pictures(die: str):
    """The pictures ``die`` was last taught from, a row for each face, to look over before a game night depends on
    it. 404 (and a picture saying so) where none are kept (taught by an older version, or not taught)."""
    from web.streams import placeholder_jpeg

    jpeg = _store().pictures_of(die)
    response = Response(jpeg or placeholder_jpeg("No pictures kept"), status=200 if jpeg else 404,
                        mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-cache"  # the page names each version (?v=): a new one is fetched anew
    return response


@bp.post("/kind")
@game_master
def use_kind():
    """``{"kind": "pips" | "taught" | "aruco"}``: which dice the camera reads."""
    store = _store()
    store.set_kind(text(json_body(), "kind", max_len=20))
    _teaching().dice_changed()
    return jsonify(_described(store))


@bp.post("/aruco")
@game_master
def aruco_table():
    """``{"table": {"0": "C", "1": "G"}}``: which face each ArUco sticker stands for."""
    table = json_body().get("table")
    if not isinstance(table, dict) or not table or len(table) > 250:
        refuse(400, "'table' maps sticker numbers to faces, e.g. {\"0\": \"C\"}", "bad_field", field="table")
    parsed: dict[int, str] = {}
    for key, face in table.items():
        if not str(key).isdigit() or int(key) > 999 or not isinstance(face, str) or not face.strip() or len(face) > 8:
            refuse(400, f"sticker {str(key)[:10]!r} = {str(face)[:10]!r}: write a sticker number and a face letter",
                   "bad_field", field="table")
        parsed[int(key)] = face.strip().upper()
    store = _store()
    store.save_face_table(parsed)
    _teaching().dice_changed()
    return jsonify(_described(store))


# -- teaching the dice with the running camera ------------------------------------------------

IDLE = {"state": "idle", "active": False}
FIRST_FRAME_S = 3.0  # a running camera delivers several frames a second; none in this time: no camera
POLL_S = 0.5  # how often the feeding thread looks at the clock when no frame comes


class Teaching:
    """The dashboard's one teaching session: the teacher, the thread feeding it the camera's frames,
    and its status, published as the runtime's snapshot part ``teaching``.

    The status is kept as a finished dict, replaced whole after every change, so the
    runtime thread reads it without waiting for a picture being learned.
    """

    def __init__(self, runtime):
        self.runtime = runtime
        self._lock = threading.Lock()  # one start at a time; the teacher changes under it
        self._teacher = None
        self._feeder: threading.Thread | None = None  # feeding the teacher the camera's frames, while one does
        self._starting = False
        self._warning: str | None = None
        self._status: dict = dict(IDLE)

    def status(self) -> dict:
        return self._status

    def start(self, make_teacher, *, first_frame_s: float = FIRST_FRAME_S, warning: str | None = None) -> dict:
        """Start a session with ``make_teacher()`` once a fresh camera frame shows the camera runs."""
        with self._lock:
            self._refuse_if_busy()
            self._starting = True
        try:
            teacher = make_teacher()
            frames = self.runtime.frames
            latest = frames.wait_for_frame(0, 0)
            fresh = frames.wait_for_frame(latest[0] if latest else 0, first_frame_s)
            if fresh is None:
                refuse(409, f"no pictures came from the camera in {first_frame_s:g} s: check that the camera is "
                            "connected and the companion runs it (the Table page shows its health)", "no_camera")
            with self._lock:
                self._teacher, self._warning = teacher, warning
                self._publish(teacher.status())
                self._start_feeding(teacher, fresh)
        finally:
            with self._lock:
                self._starting = False
        return self._status

    def start_photos(self, make_teacher) -> dict:
        """Start a session taught from photos (:meth:`photo`): no camera is needed."""
        with self._lock:
            self._refuse_if_busy()
            self._teacher, self._warning = make_teacher(), None
            self._publish(self._teacher.status())
        return self._status

    def photo(self, image) -> dict:
        """The next photo of a session taught from photos."""
        with self._lock:
            teacher = self._teacher
            if teacher is None or not teacher.active or not teacher.photos:
                refuse(409, "no die is being taught from photos: start with 'Teach from photos'", "not_teaching")
            self._publish(teacher.photo(image))
        return self._status

    def _refuse_if_busy(self) -> None:
        """409 while a session is starting or going on. A session taught from photos has no camera thread to
        notice its time-out: noticed here first, so that a phone put away mid-way does not hold teaching for ever."""
        if self._teacher is not None and self._teacher.active and self._teacher.photos:
            self._publish(self._teacher.tick())
        if not self._starting and (self._teacher is None or not self._teacher.active):
            return
        current = self._status
        where = f" (die {current['die']}, picture {current['step']} of {current['total']})" \
            if current.get("active") else ""
        refuse(409, f"the dice are being taught already{where}: cancel that first", "busy")

    def take_back(self, step: int | None = None) -> dict:
        """Picture ``step`` (by default the last learned) is forgotten and its face asked for again
        (:meth:`DiceTeacher.take_back`)."""
        from companion.teach import BadTeaching

        with self._lock:
            teacher = self._teacher
            if teacher is None:
                refuse(409, "there is no picture to take back: teaching is not going on", "nothing_to_take_back")
            try:
                status = teacher.take_back(step)
            except BadTeaching as exc:
                self._publish(teacher.status())  # a session that timed out meanwhile says so
                refuse(409, str(exc), "nothing_to_take_back")
            self._publish(status)
            if not teacher.photos and self._feeder is None:  # taken back once the die was stored: the camera again
                self._start_feeding(teacher, self.runtime.frames.wait_for_frame(0, 0))
        return self._status

    def seen(self):
        """The last picture teaching took, with what was seen drawn (BGR): what was taken for dice where it was
        refused, the die a face was learned from; None when there is none."""
        teacher = self._teacher
        return None if teacher is None else teacher.seen

    def picture(self, step: int):
        """The close-up of picture ``step``'s die, boxed (:meth:`DiceTeacher.picture`, BGR); None where there is
        none."""
        teacher = self._teacher
        return None if teacher is None else teacher.picture(step)

    def dice_changed(self) -> None:
        """The dice settings changed: a finished session's pictures can no longer be taken back
        (:attr:`DiceTeacher.can_take_back`), and every phone is told."""
        with self._lock:
            if self._teacher is not None:
                self._publish(self._teacher.status())

    def cancel(self) -> dict:
        with self._lock:
            if self._teacher is not None and self._teacher.active:
                self._publish(self._teacher.cancel())
        return self._status

    def _start_feeding(self, teacher, first: tuple | None) -> None:
        """A thread feeding ``teacher`` the camera's frames from ``first`` (number, frame; None: the next one) on
        (:meth:`_feed`). Called holding the lock."""
        self._feeder = threading.Thread(target=self._feed, args=(teacher, first), name="dice-teaching", daemon=True)
        self._feeder.start()

    def _feed(self, teacher, first: tuple | None) -> None:
        """The camera's frames to the teacher, from ``first`` (number, frame; None: the next) on, until the session
        ends (done, failed, cancelled). The thread says it has stopped under the lock, so that a picture taken back
        once the die is stored starts feeding again (:meth:`take_back`)."""
        frames = self.runtime.frames
        number, got = (first[0], first) if first is not None else (0, None)
        try:
            while True:
                with self._lock:
                    if self._teacher is not teacher or not teacher.active:
                        if self._feeder is threading.current_thread():
                            self._feeder = None
                        return
                    if got is None:
                        status = teacher.tick()
                    else:
                        number = got[0]
                        status = teacher.feed(got[1].work)
                    self._publish(status)
                got = frames.wait_for_frame(number, POLL_S)
        except Exception:  # noqa: BLE001 (the camera or the store failing ends the session, never the dashboard)
            _log.exception("teaching the dice stopped")
            with self._lock:
                if self._feeder is threading.current_thread():
                    self._feeder = None
                if self._teacher is teacher and teacher.active:
                    teacher.cancel()
                    failed = {**teacher.status(), "state": "failed",
                              "message": "teaching stopped after an error inside the companion: "
                                         "nothing was stored; try again"}
                    try:
                        self._publish(failed)
                    except Exception:  # noqa: BLE001 (the runtime itself fails: the log has both errors)
                        _log.exception("the end of the teaching could not be published")

    def _publish(self, status: dict) -> None:
        if self._warning and status.get("active"):
            status = {**status, "warning": self._warning}
        if status != self._status:
            self._status = status
            self.runtime.refresh()


@bp.record_once
def _teaching_part(state) -> None:
    teaching = Teaching(state.app.extensions["companion_runtime"])
    state.app.extensions["companion_dice_teaching"] = teaching
    teaching.runtime.add_snapshot_part("teaching", teaching.status)


def _teaching() -> Teaching:
    return current_app.extensions["companion_dice_teaching"]


def _teaching_answer(status: dict, code: int = 200):
    """The teaching ``status`` and the state it is part of: the phone takes that state as its own, so an older
    state still on its way from the event stream cannot show the form again over the session just started."""
    from web.seats import viewer

    return jsonify(teaching=status, state=runtime().snapshot(viewer())), code


@bp.get("/teach")
def teaching_status():
    """Where teaching is: ``{"teaching": {"state", "step", "total", "prompt", "message", ...}}``."""
    return jsonify(teaching=_teaching().status())


@bp.get("/teach/seen.jpg")
def seen_picture():
    """The tray as the last teaching picture showed it: refused, each thing taken for a die boxed and named (what
    "saw 3 dice" means, to look at rather than read); learned, the die its face was learned from boxed (a box around
    something else is a wrong sample, to take back). 404 (and a picture saying so) when there is none."""
    return _picture_answer(_teaching().seen(), "No teaching picture")


@bp.get("/teach/picture/<int:step>.jpg")
def learned_picture(step: int):
    """A close-up of the die picture ``step`` of this teaching session was learned from, boxed: the Setup page shows
    them all, a row for each face, so that a photo of another face, or a box around something else, stands out in its
    row. 404 (and a picture saying so) where that picture is not learned."""
    return _picture_answer(_teaching().picture(step), "No such picture")


def _picture_answer(picture, missing: str):
    """``picture`` (BGR) as a JPEG never kept by the browser (the next one has another name anyway), or a 404 with a
    picture saying ``missing``."""
    from companion.liveview import encode_jpeg
    from web.streams import placeholder_jpeg

    jpeg = None if picture is None else encode_jpeg(picture, 960, 80)
    response = Response(jpeg or placeholder_jpeg(missing), status=200 if jpeg else 404, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/teach")
@game_master
def start_teaching():
    """``{"die": "dragon", "faces": "CCGGRR", "looks": 3, "add": true}``: teach one die with the camera; with
    ``"photos": true``, from photos sent to ``/api/dice/teach/photo`` instead; with ``"another_light": true``, a
    taught die again in this light, keeping what it was taught."""
    from companion.teach import DEFAULT_LOOKS, PHOTO_TIMEOUT_S, BadTeaching, DiceTeacher

    body = json_body()
    die = text(body, "die", max_len=20)
    faces = text(body, "faces", max_len=60)
    looks = body.get("looks", DEFAULT_LOOKS)
    if isinstance(looks, bool) or not isinstance(looks, int):
        refuse(400, "'looks' is the number of pictures per face: a whole number from 1 to 5", "bad_field",
               field="looks")
    add, photos, another_light = body.get("add", False), body.get("photos", False), body.get("another_light", False)
    if not isinstance(add, bool):
        refuse(400, "'add' is true (keep what was taught before) or false", "bad_field", field="add")
    if not isinstance(another_light, bool):
        refuse(400, "'another_light' is true (teach a taught die again in this light, keeping what it was taught) "
                    "or false", "bad_field", field="another_light")
    if not isinstance(photos, bool):
        refuse(400, "'photos' is true (teach from photos) or false (with the camera)", "bad_field", field="photos")
    store = _store()
    if photos:
        photo_timeout_s = current_app.config.get("COMPANION_TEACH_PHOTO_TIMEOUT_S", PHOTO_TIMEOUT_S)

        def photo_teacher():
            try:
                return DiceTeacher(die, faces, looks=looks, timeout_s=photo_timeout_s, save=store.save_templates,
                                   keep=store.load_templates() if add or another_light else None, photos=True,
                                   another_light=another_light, stored_at=store.changed_at)
            except BadTeaching as exc:
                refuse(400, str(exc), "bad_field", field=exc.field)

        return _teaching_answer(_teaching().start_photos(photo_teacher), 202)
    timeout_s = current_app.config.get("COMPANION_TEACH_TIMEOUT_S", 60.0)

    def make_teacher():
        try:
            zone, tags = _tray()
            return DiceTeacher(die, faces, looks=looks, timeout_s=timeout_s, save=store.save_templates,
                               keep=store.load_templates() if add or another_light else None, zone=zone, tags=tags,
                               another_light=another_light, stored_at=store.changed_at)
        except BadTeaching as exc:
            refuse(400, str(exc), "bad_field", field=exc.field)

    status = _teaching().start(make_teacher, warning=_game_warning(),
                               first_frame_s=current_app.config.get("COMPANION_TEACH_FIRST_FRAME_S", FIRST_FRAME_S))
    return _teaching_answer(status, 202)


PHOTO_BYTES = 25 * 1024 * 1024  # a phone's photo is 2-10 MB


@bp.post("/teach/photo")
@game_master
def teach_photo():
    """The next photo of a die taught from photos: the image file itself as the body (JPEG, PNG, ...)."""
    from hardware.camera.files import ImageTooLarge, decode_image

    request.max_content_length = PHOTO_BYTES  # over it: 413 before the photo is read
    try:
        image = decode_image(request.get_data(cache=False))
    except ImageTooLarge as exc:
        refuse(413, str(exc), "too_large")
    if image is None:
        refuse(400, "that is not a photo the companion can read: send a JPEG or PNG picture", "not_a_photo")
    return _teaching_answer(_teaching().photo(image))


@bp.post("/teach/back")
@game_master
def take_back_picture():
    """Forget the last picture learned (its box was not around the die), or ``{"step": n}`` picture n, and ask for that
    face again first. 409 when no picture of this session is left to take back, or picture n is not learned."""
    step = json_body().get("step")
    if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step < 1):
        refuse(400, "'step' is the number of the picture to take back, counted from 1", "bad_field", field="step")
    return _teaching_answer(_teaching().take_back(step))


@bp.post("/teach/cancel")
@game_master
def cancel_teaching():
    """Stop teaching now; nothing is stored. Answers the status (also when nothing was being taught)."""
    return _teaching_answer(_teaching().cancel())


def _tray():
    """The dice tray the camera reads rolls in (working-image pixels), or None (the whole picture), and the
    tags lying in it (its own corner tags, when the tray is between them)."""
    import numpy as np

    from companion.pipeline import place_tapped_tray

    in_use = runtime().snapshot_part("tray")  # the pipeline's: its own tags, placed on the table, the demo's
    table = runtime().config["table"]
    corners = table["tray_px"]  # tapped: applies at once, before the next frame
    if in_use and in_use["source"] == "tags":  # the tray's own tags come first
        return np.asarray(in_use["corners"], np.float64), in_use["tags"]
    latest = runtime().frames.wait_for_frame(0, 0)
    if corners and latest is not None:  # on the camera's picture (tapped on one of another size, scaled)
        picture = (latest[1].work.shape[1], latest[1].work.shape[0])
        corners, why = place_tapped_tray(corners, table["picture_px"], picture)
        if corners is None:
            refuse(409, why, "tray_elsewhere")
    if not corners:
        corners = in_use["corners"] if in_use else None  # (a tapped tray not on the picture has none)
    return (np.asarray(corners, np.float64) if corners else None), []


def _game_warning() -> str | None:
    """While a dice game is in play, its rolls are not read while teaching (companion.pipeline): the table is told,
    so that nobody throws for the game meanwhile."""
    session = runtime().session
    if session is None or session.rules.CAMERA != "dice" or session.outcome() is not None:
        return None
    return (f"a {session.rules.TITLE} game is in play: its rolls are not read until teaching ends, and the die "
            "you leave in the tray is not taken for a roll")
