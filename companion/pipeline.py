"""The camera pipeline: every frame -> what vision sees -> the referee of the game in play.

Runs on the camera supervisor's reader thread (``Appliance(on_frame=pipeline)``)
and only enqueues on the runtime: stable table snapshots and dice rolls go to
``runtime.observe``, where the game's referee turns them into moves or alerts.
Vision never decides a game fact.

* Every frame goes through :class:`vision.stabiliser.TableWatcher`: the corner
  tags give the table's geometry (and the dice tray's place); in a Fabled Fruit
  game its stable snapshots are the observations.
* In a dice game (``CAMERA == "dice"``) the working image also goes to a
  :class:`vision.roll.RollDetector` with the dice reader chosen by
  ``companion dice use`` (:class:`companion.dicestore.DiceStore`).
* While someone watches the live view, the frame is drawn over with what was found.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from companion.config import Config
from companion.eventkinds import STATE_CHANGES

_log = logging.getLogger(__name__)

DICE_CHECK_S = 2.0  # how often the taught dice are looked for on disk while a dice game is played
NO_TRAY = ("no dice tray is marked: tap the tray's four corners on the live view (Setup page, Dice tray), or "
           "stick its four tray tags in its corners ('companion tags tray'); nothing outside the tray is read as a die")
TRAY_TAGS_GONE_S = 30.0  # no tray tag seen for this long: they were taken off, and the tray is found otherwise
NO_TABLE_FOR_TRAY = ("the dice tray is given in table millimetres but the table's corners are not seen: "
                     "show the corner tags, or tap the tray's corners on the Setup page")


class Pipeline:
    """``pipeline(frame)`` for each camera frame. Thread-safe against the runtime's observer calls."""

    def __init__(self, runtime, config: Config, data_dir: str | Path, *, table_mm: tuple[float, float] | None = None,
                 demo_tray_px: list | None = None):
        from vision.stabiliser import TableWatcher

        self.runtime = runtime
        self.config = config
        self.data_dir = Path(data_dir)
        table = dict(config["table"])
        if table_mm is not None:
            table["width_mm"], table["height_mm"] = table_mm
        self.watcher = TableWatcher.from_settings(table)
        self.tray_mm = table.get("tray_mm") or None
        self.tray_px = table.get("tray_px") or None
        # The demo camera's table brings its own tray, read until one is marked; never saved, so a camera
        # attached later does not inherit it and a setting saved on the dashboard does not drop it.
        self.demo_tray_px = demo_tray_px or None
        self._started_with = getattr(runtime, "config", None)  # replaced when the dashboard changes a setting
        self._lock = threading.Lock()
        self._dice = None
        self._dice_taught: float | None = None
        self._dice_store = None
        self._dice_checked = float("-inf")
        self.last_roll = None
        self._light = None  # the taught dice's light against teaching's (vision.dice.light.LightWatch)
        self._tried = None  # the dice tried, the tray watched: the last throw's number (0: none yet), picture, dice,
        # and the dice of every throw so far: how many, and how many of them were not read
        self._unwatched = False  # the tray was not watched for rolls (no dice game, dice taught) since the last read
        self.frames = 0
        self._status = self._describe(None)
        self._tagged_tray = None  # where the tray's four tags were last all seen (working-image pixels)
        self._tray_tags = None  # and the tags themselves then (four 4 x 2 corners), painted over when teaching
        self._tray_tags_seen_at: float | None = None
        self.picture: tuple[int, int] | None = None  # the working picture's (width, height), from the last frame
        self.zone = self._tray_source = None
        self._place_tray()  # the tray in use, worked out once a frame
        self._tray = self._tray_for_the_page()
        # How a frame's dice are read; a replay puts the roll the recording kept in its place.
        self.read_dice = self._read_dice
        runtime.add_observer(self._after_event)
        runtime.add_snapshot_part("vision", self.status)
        runtime.add_snapshot_part("tray", lambda: self._tray)

    # -- every frame (the camera's reader thread) ------------------------------------

    def __call__(self, frame) -> None:
        self.runtime.frames.publish(frame)
        with self._lock:
            self.frames += 1
            picture = self.picture if frame.work is None else (frame.work.shape[1], frame.work.shape[0])
            resized, self.picture = picture != self.picture, picture  # what the tray's pixels are of (a replay
            # without pictures keeps the last)
            reads = self._reads()
            trying = reads is None and self._trying()
            if trying:
                reads = "dice"  # the dice are tried on the Setup page: read as in a game, played in none
            stable = self.watcher.update(frame)
            self._follow_tray_tags(frame.timestamp)
            placed = self._place_tray()
            self._report_table(reads)
            roll = observed = None
            tried = self._tried
            if reads == "dice" and not self._teaching():
                roll = self.read_dice(frame)
                if roll is not None and roll.dice:
                    self._watch_light(frame, roll)
                if trying and self._tried is None and not self._unwatched:
                    self._tried = {"throw": 0, "picture": None, "dice": [], "seen": 0, "unread": 0}  # watched: throw
                if roll is not None and not trying:
                    self.last_roll = roll
                    darker = self._light.verdict if self._light is not None else None
                    observed = self.runtime.observe(roll, picture=self._roll_picture(frame, roll),
                                                    note=darker.message if darker is not None else None)
                elif roll is not None and roll.dice:  # tried; the dice taken out of the tray are no throw
                    self.last_roll = roll
                    before = self._tried or {}
                    self._tried = {"throw": before.get("throw", 0) + 1, "picture": self._roll_picture(frame, roll),
                                   "dice": roll.to_json()["dice"], "seen": before.get("seen", 0) + len(roll.dice),
                                   "unread": before.get("unread", 0) + roll.unreadable}
            else:
                # No dice game, or dice taught: what is set down meanwhile is no roll, nor what lies there after.
                self._unwatched = True
                if stable is not None and reads == "cards":
                    observed = self.runtime.observe(stable)
            if not trying:
                self._tried = None
            recorder = self.runtime.recorder
            if recorder is not None:  # a game night being recorded (companion.film)
                recorder.frame(frame, self.watcher.reading, stable=stable, roll=roll, observed=observed)
            if self.runtime.live_view.watched:
                self.runtime.live_view.publish(self._overlay(frame, reads), picture=self.picture)
            self._status = self._describe(reads)  # one consistent picture, read by the runtime without waiting
            tray = self._tray
            if placed or resized:
                self._tray = self._tray_for_the_page()
        if tray != self._tray or tried != self._tried:
            self.runtime.refresh()  # a tray marked, forgotten or placed by the table's corners, a throw tried: on
            # the Setup page now

    def _reads(self) -> str | None:
        """What the camera reads for the game in play (its ``CAMERA``: cards, dice) or None."""
        session = self.runtime.session
        return session.rules.CAMERA if session is not None and session.outcome() is None else None

    def _needs_table(self, reads: str | None) -> bool:
        """Cards are placed on the table; dice need it only to place a tray given in table millimetres."""
        return reads == "cards" or (reads == "dice" and bool(self.tray_mm) and not self._tapped_tray()[0]
                                    and not self.demo_tray_px and self._tagged_tray is None)

    def _report_table(self, reads: str | None) -> None:
        geometry = self.watcher.geometry
        if geometry is not None:
            self.runtime.set_health("table", "ok", f"table in view ({geometry.source})")
        elif self._needs_table(reads):
            self.runtime.set_health("table", "degraded",
                                    "no table in view: the four corner tags are not all seen and no calibration is stored")
        else:
            self.runtime.set_health("table", "ok", "no table corners in view (not needed for this game)")

    def _trying(self) -> bool:
        """While the dice are tried on the Setup page (no game in play), the throws are read and shown, never played."""
        trying = self.runtime.snapshot_part("dice_try")
        return isinstance(trying, dict) and bool(trying.get("active"))

    def _teaching(self) -> bool:
        """While dice are taught on the dashboard with the camera, the faces shown are not rolls (taught from
        photos, the tray is not looked at)."""
        teaching = self.runtime.snapshot_part("teaching")
        return isinstance(teaching, dict) and bool(teaching.get("active")) and not teaching.get("photos")

    def _read_dice(self, frame):
        detector = self._dice_detector()
        if detector is None:
            return None
        geometry = self.watcher.geometry
        detector.image_to_table = None if geometry is None else geometry.px_to_mm
        detector.zone = self.zone
        if detector.zone is None:
            # A new install asks for the tray: read on the whole frame, the corner tags, cards and the
            # table's wood grain would be taken for dice.
            self.runtime.set_health("dice", "degraded", self._why_no_tray())
            return None
        reading = self.watcher.reading
        detector.tags = [s.corners for s in reading.sightings] if reading is not None else []
        if self._unwatched:
            detector.restart()
            self._unwatched = False
        return detector.update(frame.work, frame.timestamp)

    def _tray_for_the_page(self) -> dict[str, Any] | None:
        """The tray in use for the Setup page; a tapped one not on this picture says why, where the page would draw
        the stored taps as if read."""
        if self._tray_source == "misplaced":
            return {"corners": None, "source": "misplaced", "why": self._why_no_tray(), "picture": list(self.picture)}
        return _described_tray(self.zone, self._tray_source, self._tray_tags, self.picture)

    def _why_no_tray(self) -> str:
        if self._tray_source == "misplaced":
            return place_tapped_tray(*self._tapped_tray(), self.picture)[1]
        return NO_TRAY if not self.tray_mm else NO_TABLE_FOR_TRAY

    def _follow_tray_tags(self, now: float) -> None:
        """Where the tray's own tags are: all four seen, the tray is between them from now on; some hidden (a hand
        over the tray), it stays where they were last all seen; none seen for TRAY_TAGS_GONE_S, they were taken off."""
        from vision.dice.zone import tray_from_tags
        from vision.tags import TrayTag

        reading = self.watcher.reading
        sightings = reading.tags if reading is not None else []
        if any(isinstance(s.tag, TrayTag) for s in sightings):
            self._tray_tags_seen_at = now
            seen = tray_from_tags(sightings)
            if seen is not None:
                self._tagged_tray, self._tray_tags = seen
        elif self._tray_tags_seen_at is not None and now - self._tray_tags_seen_at > TRAY_TAGS_GONE_S:
            self._tagged_tray = self._tray_tags_seen_at = self._tray_tags = None

    def _place_tray(self) -> bool:
        """Work out the tray in use (``zone``, ``_tray_source``); True when it is new. One that has not
        :func:`~vision.dice.zone.moved` stays as it was, its tags too: a pixel's wander is no news for the phones."""
        from vision.dice.zone import moved

        zone, source = self._tray_and_source()
        if source == self._tray_source and not moved(zone, self.zone):
            return False
        self.zone, self._tray_source = zone, source
        return True

    def _tray_and_source(self):
        """The tray in use as a polygon in working-image pixels (None when none is known), and where it comes
        from: the tray's own corner tags ("tags"), else the tapped corners ("marked"), else the tray in table
        millimetres placed by the table's corners ("table"), else the demo table's own ("demo")."""
        import numpy as np

        if self._tagged_tray is not None:  # on the tray itself: it follows the tray wherever it is moved
            return self._tagged_tray, "tags"
        tray_px, tapped_on = self._tapped_tray()
        if tray_px:
            placed = tray_px if self.picture is None else place_tapped_tray(tray_px, tapped_on, self.picture)[0]
            if placed is None:  # not on this picture: the dice health says why
                return None, "misplaced"
            return np.asarray(placed, np.float64), "marked"
        geometry = self.watcher.geometry
        if self.tray_mm and geometry is not None:
            from vision.dice import zone_polygon

            left, top, right, bottom = self.tray_mm
            return zone_polygon((left, top, right - left, bottom - top), _inverse(geometry.px_to_mm)), "table"
        if self.demo_tray_px:
            return np.asarray(self.demo_tray_px, np.float64), "demo"
        return None, None

    def _tapped_tray(self):
        """The tray's corners tapped on the Setup page and the (width, height) of the picture they were tapped on
        (None: not known, then they are the picture's own pixels); (None, None) when none were tapped."""
        live = getattr(self.runtime, "config", None)  # the Setup page's tapped tray applies at once
        config = self.config if live is None or (live is self._started_with and self.tray_px) else live
        return config.get("table", "tray_px") or None, config.get("table", "picture_px") or None

    def _dice_detector(self):
        from companion.dicestore import DiceStore

        now = time.monotonic()
        if now - self._dice_checked < DICE_CHECK_S:
            return self._dice  # no file looked at on every frame: teaching is noticed within seconds
        self._dice_checked = now
        store = self._dice_store = (self._dice_store or getattr(self.runtime, "dice_store", None)
                                    or DiceStore(self.data_dir))
        taught = store.changed_at()
        if self._dice is not None and taught == self._dice_taught:
            return self._dice
        from vision.dice import make_reader
        from vision.dice.light import LightWatch
        from vision.roll import RollDetector

        self._dice_taught = taught  # dice taught or settings changed meanwhile: build the reader again
        try:
            kind = store.kind
            templates = store.load_templates() if kind == "taught" else None
            reader = make_reader(kind, templates=templates, face_table=store.face_table() if kind == "aruco" else None)
        except (ValueError, OSError) as exc:
            self.runtime.set_health("dice", "degraded", f"the dice cannot be read: {exc}")
            return None
        session = self.runtime.session
        if kind == "pips" and session is not None and session.rules.DICE is not None:
            self.runtime.set_health("dice", "degraded", f"the dice reader reads pip dice: teach {session.rules.TITLE}'s "
                                    "picture faces with 'companion dice teach' (or use ArUco stickers)")
        else:
            self.runtime.set_health("dice", "ok", _reading(kind))
        self._light = LightWatch(templates.taught_lights()) if templates is not None else None
        self._dice = RollDetector(reader)
        return self._dice

    def _watch_light(self, frame, roll) -> None:
        """Taught dice read in a darker tray than teaching's: the dice health says so (and back when it is light
        again), on the Table page and beside the dice tried on the Setup page."""
        light = self._light
        if light is None or frame.work is None:
            return
        was = light.verdict
        now = light.update(frame.work, [(die.die, die.box_px) for die in roll.dice])
        if now is not None:
            self.runtime.set_health("dice", "degraded", now.message)
        elif was is not None:
            self.runtime.set_health("dice", "ok", _reading("taught"))

    def _overlay(self, frame, reads: str | None):
        from hardware.camera.base import shrink
        from vision import overlay

        # Drawn on the live view's small copy, not the working image: a fraction of the work on a Pi.
        small = shrink(frame.work, self.runtime.live_view.width)
        at = small.shape[1] / frame.work.shape[1]
        watcher = self.watcher
        if reads != "dice":
            return overlay.draw(small, watcher.reading, watcher.stable or watcher.latest, watcher.geometry, at=at)
        roll = self.last_roll  # a dice game: the tray and the last roll, not the cards' counts
        status = ("no roll read yet" if roll is None
                  else "last roll: " + (" ".join(d.face or "?" for d in roll.dice) or "no dice"))
        image = overlay.draw(small, watcher.reading, None, watcher.geometry, status=status, at=at)
        return overlay.draw_dice(image, roll, at=at, tray=self.zone)

    def _roll_picture(self, frame, roll) -> str | None:
        """Keep the tray as this roll was read (its dice boxed and labelled, the rest of the table cut
        away) for the alerts about it; returns the picture's name (None for a replay without pictures)."""
        import numpy as np

        from vision import overlay

        if frame.work is None:
            return None
        zone = self._dice.zone if self._dice is not None else None
        drawn = overlay.draw_dice(frame.work, roll, at=1.0, tray=zone)
        if zone is not None:  # (a replayed roll may come without its tray: then the whole picture)
            # The tray with a die's width around it, so a die lying on its edge is seen whole.
            corners = np.asarray(zone, np.float64)
            height, width = drawn.shape[:2]
            left, top = np.maximum(np.floor(corners.min(axis=0) - roll.die_px), 0).astype(int)
            right, bottom = np.minimum(np.ceil(corners.max(axis=0) + roll.die_px), (width, height)).astype(int)
            if right > left and bottom > top:
                drawn = drawn[top:bottom, left:right]  # a view: the pictures keep a copy
        return self.runtime.roll_pictures.add(drawn)

    # -- the runtime thread ------------------------------------------------------------

    def _after_event(self, runtime, session, event) -> None:
        """After a move a person entered, show the referee the table again.

        The camera may have seen a purchase before the buyer's animal move was
        typed; the referee repeats no verdict, so a second look is safe.
        """
        if event is None:
            with self._lock:
                self._dice = None  # a new game may use other dice
                self._dice_checked = float("-inf")
            return
        if event.source == "camera" or event.kind not in STATE_CHANGES or session.rules.CAMERA != "cards":
            return
        stable = self.watcher.stable
        if stable is not None:
            runtime.observe(stable)

    def status(self) -> dict[str, Any]:
        """What the dashboard shows next to the live view (as of the last frame)."""
        return self._status

    def _describe(self, reads: str | None) -> dict[str, Any]:
        latest = self.watcher.latest
        geometry = self.watcher.geometry
        return {
            "frames": self.frames,
            "table": None if geometry is None else geometry.source,
            "tags_seen": 0 if latest is None else len(latest.tags),
            # Foreign QR codes and malformed payloads: counted and shown, never a game fact.
            "ignored": 0 if latest is None else latest.ignored,
            "duplicates": [] if latest is None else list(latest.duplicates),
            "problems": [] if latest is None else self._problems(latest.problems, reads),
            "stable_stacks": None if self.watcher.stable is None else len(self.watcher.stable.stacks),
            "last_roll": None if self.last_roll is None else self.last_roll.to_json(),
            "tried": self._tried,
        }

    def _problems(self, problems, reads: str | None) -> list[str]:
        # Missing corner tags are no problem while a game plays that does not need the table.
        if reads is None or self._needs_table(reads):
            return list(problems)
        return [p for p in problems if p != self.watcher.locator.problem]


def _reading(kind: str) -> str:
    """The dice health when all is well: which dice the camera reads."""
    return f"reading {kind} dice"


TAP_AGAIN = "tap the tray's four corners again on the live view (Setup page, Dice tray)"


def place_tapped_tray(tray_px, tapped_on, picture) -> tuple[list | None, str | None]:
    """The tray's corners tapped on a picture ``tapped_on`` (width, height; None or []: the picture's own pixels)
    placed on the camera's ``picture`` (:func:`vision.geometry.on_picture`), and None; or None and why they cannot be:
    tapped on a picture of another shape (another view of the table), or lying outside this picture (tapped for
    another camera before the picture's size was kept, or written by hand)."""
    from vision.geometry import on_picture, within_picture

    placed = on_picture(tray_px, tapped_on, picture)
    if placed is None:
        return None, (f"the dice tray was tapped on a {tapped_on[0]} x {tapped_on[1]} picture and the camera's is "
                      f"{picture[0]} x {picture[1]}, another view of the table: {TAP_AGAIN}")
    if not within_picture(placed, picture):
        return None, f"the dice tray lies outside the camera's {picture[0]} x {picture[1]} picture: {TAP_AGAIN}"
    return placed, None


# A tray whose middle lies farther from the picture's middle than this share of the way to its corner is said to lie
# towards the edge (bench/tray_place_bench.py: picture dice there, 0.53 and 0.61 of the way, 87-89% found; in the
# middle, 97%).
TRAY_OFF_MIDDLE = 0.5


def tray_towards_edge(corners, picture) -> str | None:
    """What to say of a tray with ``corners`` on a ``picture`` (width, height) that lies towards the edge of the
    camera's view (:func:`vision.geometry.off_middle`); None where it does not."""
    from vision.geometry import off_middle

    if not picture or off_middle(corners, picture) <= TRAY_OFF_MIDDLE:
        return None
    return ("the tray lies towards the edge of the camera's view, where the dice are seen from the side as well as "
            "from above and fewer are read: move it nearer the middle of the view if the table allows")


def _described_tray(zone, source: str | None, tags=None, picture=None) -> dict[str, Any] | None:
    """The tray the dice are read in, for the Setup page to draw (working-image pixels of a ``picture`` (width,
    height) picture); between its own tags, the tags too, which teaching paints over. ``edge``: what to say where
    it lies towards the edge of the camera's view (:func:`tray_towards_edge`)."""
    if zone is None:
        return None
    described = {"corners": [[round(x), round(y)] for x, y in zone.tolist()], "source": source,
                 "picture": list(picture) if picture else None, "edge": tray_towards_edge(zone.tolist(), picture)}
    if source == "tags":
        described["tags"] = [[[round(x), round(y)] for x, y in quad.tolist()] for quad in tags]
    return described


def _inverse(homography):
    import numpy as np

    return np.linalg.inv(homography)
