"""Recording a game night while it is played, without ever holding up the camera.

The camera's reader thread hands every frame to :meth:`Recorder.frame`, which only
builds a small record and queues it; a writer thread (at a lower priority) encodes
pictures and appends lines. When the writer falls behind, pictures are dropped,
never frames to the reader: the lines (what the reader saw, a few hundred bytes)
always go in, so the film replays exactly even without its pictures.

Which pictures are kept ("around changes"): the working image of the frame the
table settled on after a motion, when what it read differs from the last picture
kept, with the full-resolution crops the reader looked at; and the frame a dice
roll was read on. A byte budget (``[recording] budget_mb_per_hour``, measured in
the film's own time) keeps a long evening bounded: a picture that would overdraw
it is dropped and counted.

The runtime tells the recorder about every input (:meth:`input`, on its thread)
and every game it opens (:meth:`attached`: a copy of the database goes with it),
and the events it stores become the film's ``live.jsonl``, the lines the replay
must give again.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import platform
import queue
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from companion import __version__
from companion.errors import SetupError
from companion.film import lines as film_lines
from companion.film.store import (CROPS, DATABASES, FORMAT, FRAMES, HEADER, IMAGES, INPUTS, LIVE, VERSION,
                                  roll_to_json)

_log = logging.getLogger(__name__)

JPEG_QUALITY = 90
MAX_PICTURES_WAITING = 2  # more than this queued for the writer: the next picture is dropped
MAX_LINES_WAITING = 100_000
BURST_S = 600.0  # the budget may be drawn ahead by this many seconds' worth (a busy stretch)
HEALTH_EVERY_S = 60.0
PACKAGES = ("numpy", "opencv-python-headless", "zxing-cpp", "pyzbar", "segno")


def versions() -> dict[str, str]:
    found = {"companion": __version__, "python": platform.python_version(), "machine": platform.machine()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return found


class Recorder:
    """Records into ``directory`` (made new; a folder that already holds a film is refused).

    ``runtime``: the running :class:`~companion.runtime.Runtime`; ``config``: saved in the film
    without the PIN; ``budget_mb_per_hour``: pictures beyond it are dropped.
    """

    def __init__(self, directory: str | Path, runtime, config, *, budget_mb_per_hour: float = 200.0,
                 table_mm: tuple[float, float] | None = None):
        self.directory = Path(directory)
        self.runtime = runtime
        self.config = config
        self.rate = budget_mb_per_hour * 1e6 / 3600.0  # bytes per second of film time
        self.table_mm = table_mm
        self.work_size: tuple[int, int] | None = None
        self._jobs: queue.Queue = queue.Queue()
        self._writer: threading.Thread | None = None
        self._files: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._held: tuple | None = None  # the last decoded frame, until the next frame says whether it settled
        self._kept_key: tuple | None = None  # what the last kept picture read
        self._pending: collections.deque = collections.deque()  # (frame, future) of observations not yet taken
        self._pictures_waiting = 0
        self._tokens = self.rate * BURST_S
        self._last_t: float | None = None
        self._health_at = time.monotonic()
        self.t0: float | None = None
        self.done = 0  # the last frame handed over in full
        self.games = 0
        self.started_at = 0.0
        self.stats = collections.Counter()
        self._was_over = False
        self.running = False

    # -- start and stop ------------------------------------------------------------------------

    def start(self) -> "Recorder":
        if (self.directory / HEADER).exists():
            raise SetupError(f"{self.directory} already holds a recording: choose a new folder")
        try:
            for sub in (IMAGES, CROPS, DATABASES):
                (self.directory / sub).mkdir(parents=True, exist_ok=True)
            for name in (FRAMES, INPUTS, LIVE):
                self._files[name] = (self.directory / name).open("a", encoding="utf-8")
        except OSError as exc:
            raise SetupError(f"cannot record into {self.directory}: {exc.strerror or exc}") from None
        self.started_at = time.time()
        self._write_header()
        self._writer = threading.Thread(target=self._write_loop, name="film-writer", daemon=True)
        self._writer.start()
        self.running = True
        runtime = self.runtime

        def attach() -> None:
            runtime.recorder = self
            if runtime.session is not None:
                self.attached(runtime.session)

        runtime.call(attach)
        runtime.add_observer(self._event)
        runtime.set_health("recording", "ok", f"recording this game night (film {self.directory.name})")
        return self

    def stop(self) -> None:
        """Stops recording; everything queued is written first."""
        if not self.running:
            return
        self.running = False
        runtime = self.runtime

        def detach() -> None:
            if runtime.recorder is self:
                runtime.recorder = None

        try:
            runtime.call(detach)
        except Exception:  # a stopped runtime: detach here
            detach()
        with self._lock:
            self._release_held(settled=False)
        self._jobs.put(None)
        if self._writer is not None:
            self._writer.join(30)
        for stream in self._files.values():
            stream.close()
        self._write_header(stopped=time.time())
        runtime.set_health("recording", "ok", f"stopped; film {self.directory.name} holds the evening "
                                              f"({self.stats['bytes'] / 1e6:.0f} MB)")

    def status(self) -> dict:
        return {
            "recording": self.running, "folder": self.directory.name, "since": self.started_at,
            "frames": self.stats["frames"], "pictures": self.stats["pictures"],
            "pictures_dropped": self.stats["pictures_dropped"], "lines_dropped": self.stats["lines_dropped"],
            "megabytes": round(self.stats["bytes"] / 1e6, 1),
        }

    def _write_header(self, stopped: float | None = None) -> None:
        values = self.config.to_dict()
        values.get("server", {}).pop("pin", None)  # a film may be shared; the PIN never is
        header = {
            "format": FORMAT, "version": VERSION, "started": self.started_at, "stopped": stopped,
            "t0": self.t0, "versions": versions(), "config": values,
            "table_mm": list(self.table_mm) if self.table_mm else None,
            "work_size": list(self.work_size) if self.work_size else None,
            "frames": self.stats["frames"], "pictures": self.stats["pictures"],
            "pictures_dropped": self.stats["pictures_dropped"], "lines_dropped": self.stats["lines_dropped"],
        }
        path = self.directory / HEADER
        tmp = path.with_name(HEADER + ".new")
        tmp.write_text(json.dumps(header, indent=1) + "\n", "utf-8")
        tmp.replace(path)

    # -- the camera's thread ---------------------------------------------------------------------

    def frame(self, frame, reading, *, stable=None, roll=None, observed=None) -> None:
        """One frame the pipeline has taken (``reading``: the reader's :class:`~vision.reader.FrameReading`;
        ``observed``: the future of the observation it handed the runtime, if any). Never blocks."""
        if not self.running:
            return
        try:
            self._frame(frame, reading, stable, roll, observed)
        except Exception:  # the recording must never stop the camera
            _log.exception("recording frame %s failed", getattr(frame, "number", "?"))

    def _frame(self, frame, reading, stable, roll, observed) -> None:
        t = float(frame.timestamp)
        with self._lock:
            # The film numbers its own frames: a camera restarted by its supervisor counts from 1 again.
            number = self.done + 1
            record: dict[str, Any] = {"n": number, "t": t}
            if self.t0 is None:
                self.t0 = t
                self.work_size = (frame.work.shape[1], frame.work.shape[0])
            if observed is not None:
                self._pending.append((number, observed))
            self._refill(t)
            still = reading is None or reading.reused
            # The previous decoded frame settled when this one is still: that is the picture worth keeping.
            self._release_held(settled=still)
            # Objects go into the queue as they are (frozen); the writer turns them into JSON on its thread.
            if still:
                record["still"] = 1
            else:
                record["reading"] = reading
            if stable is not None:
                record["stable"] = stable
            picture = None
            if roll is not None:
                record["roll"] = roll
                picture = (frame.work, ())
            if not still and roll is None:
                self._held = (record, frame, reading)
            else:
                self._queue(record, picture)
            self.done = number
            self.stats["frames"] += 1

    def _release_held(self, settled: bool) -> None:
        if self._held is None:
            return
        record, frame, reading = self._held
        self._held = None
        picture = None
        key = tuple(sorted(s.text for s in reading.sightings))
        if settled and key != self._kept_key:
            self._kept_key = key
            full = getattr(frame, "_full_cache", None)  # fetched by the reader: no new request to the camera
            crops = ()
            if full is not None and reading.looks:
                record["full_size"] = [full.shape[1], full.shape[0]]
                crops = tuple((x0, y0, full[y0:y1, x0:x1].copy()) for x0, y0, x1, y1 in reading.looks)
            picture = (frame.work, crops)
        self._queue(record, picture)

    def _queue(self, record: dict, picture) -> None:
        if picture is not None and self._pictures_waiting >= MAX_PICTURES_WAITING:
            self.stats["pictures_dropped"] += 1
            picture = None
        if self._jobs.qsize() >= MAX_LINES_WAITING:
            self.stats["lines_dropped"] += 1
            return
        if picture is not None:
            self._pictures_waiting += 1
        self._jobs.put((FRAMES, record, picture))

    def _refill(self, t: float) -> None:
        if self._last_t is not None and t > self._last_t:
            self._tokens = min(self.rate * BURST_S, self._tokens + (t - self._last_t) * self.rate)
        self._last_t = t

    # -- the runtime's thread --------------------------------------------------------------------

    def stamp(self) -> int:
        """The frame after which whatever runs on the runtime thread now is replayed: the last frame
        taken, or the one before an observation still waiting in the runtime's queue (it runs later)."""
        with self._lock:
            while self._pending and self._pending[0][1].done():
                self._pending.popleft()
            return self._pending[0][0] - 1 if self._pending else self.done

    def _event_stamp(self) -> int:
        with self._lock:
            while self._pending and self._pending[0][1].done():
                self._pending.popleft()
            return self._pending[0][0] if self._pending else self.done

    def input(self, kind: str, args: dict) -> None:
        """An input the runtime is about to run (on its thread)."""
        if not self.running:
            return
        try:
            args = dict(args)
            log = self.runtime.log
            for key in ("target", "alert"):
                if args.get(key):
                    event = log.event(args[key])
                    args[key] = event.seq if event is not None else None  # ids differ in a replay; seqs do not
            self._jobs.put((INPUTS, {"frame": self.stamp(), "kind": kind, "args": args}, None))
        except Exception:
            _log.exception("recording the input %s failed", kind)

    def attached(self, session) -> None:
        """A game was opened: keep a copy of the database as it stands, so the replay starts from it."""
        if not self.running:
            return
        self.games += 1
        name = f"{DATABASES}/{self.games:04d}.sqlite"
        try:
            self.runtime.log.backup_to(self.directory / name)
        except Exception:
            _log.exception("copying the database into the recording failed")
            name = None
        self._jobs.put((INPUTS, {"frame": self.stamp(), "kind": "open",
                                 "args": {"session": session.session_id, "db": name}}, None))

    def _event(self, runtime, session, event) -> None:
        """Every stored event (and every game opened) as the lines the replay must give again."""
        if not self.running:
            return
        frame = self._event_stamp()
        t = (self._last_t or 0.0) - (self.t0 or 0.0)
        if event is None:
            found = [film_lines.game_line(session, frame=frame, t=t, game=self.games)]
        else:
            found = film_lines.event_lines(session, event, frame=frame, t=t, game=self.games,
                                           was_over=self._was_over)
        self._was_over = session.outcome() is not None
        for line in found:
            self._jobs.put((LIVE, line, None))

    # -- the writer thread ------------------------------------------------------------------------

    def _write_loop(self) -> None:
        try:  # Linux: a thread is a task with its own nice value; the camera loop goes first
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):
            pass
        while True:
            job = self._jobs.get()
            if job is None:
                break
            if time.monotonic() - self._health_at >= HEALTH_EVERY_S:  # here, not on the camera's thread
                self._health_at = time.monotonic()
                self.runtime.set_health("recording", "ok", f"recording this game night (film {self.directory.name}): "
                                        f"{self.stats['bytes'] / 1e6:.0f} MB so far")
            name, record, picture = job
            try:
                if picture is not None:
                    with self._lock:
                        self._pictures_waiting -= 1
                    self._keep_picture(record, *picture)
                line = json.dumps(_as_json(record), separators=(",", ":")) + "\n"
                stream = self._files[name]
                stream.write(line)
                stream.flush()
                self.stats["bytes"] += len(line)
            except Exception:  # a full disk: count it, keep the camera and the game going
                self.stats["lines_dropped"] += 1
                if self.stats["lines_dropped"] in (1, 100, 10_000):
                    _log.exception("the recording cannot write (%d lines lost so far)", self.stats["lines_dropped"])

    def _keep_picture(self, record: dict, work, crops) -> None:
        import cv2

        grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY) if work.ndim == 3 and "roll" not in record else work
        encoded = [cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])[1]]
        for _, _, crop in crops:
            crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
            encoded.append(cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])[1])
        size = sum(len(e) for e in encoded)
        with self._lock:
            if size > self._tokens:
                self.stats["pictures_dropped"] += 1
                return
            self._tokens -= size
        number = record["n"]
        name = f"{IMAGES}/{number:08d}.jpg"
        (self.directory / name).write_bytes(encoded[0].tobytes())
        record["image"] = name
        names = []
        for index, ((x0, y0, _), data) in enumerate(zip(crops, encoded[1:])):
            crop_name = f"{CROPS}/{number:08d}-{index}.jpg"
            (self.directory / crop_name).write_bytes(data.tobytes())
            names.append([x0, y0, crop_name])
        if names:
            record["crops"] = names
        self.stats["bytes"] += size
        self.stats["pictures"] += 1


def _as_json(record: dict) -> dict:
    """A frame record with the reader's, the stabiliser's and the dice's objects as JSON."""
    out = dict(record)
    for key in ("reading", "stable"):
        if key in out:
            out[key] = out[key].to_json()
    if "roll" in out:
        out["roll"] = roll_to_json(out["roll"])
    return out


class Recording:
    """Recording on and off in a running companion (``--record``, the configuration, the Setup page).

    Films go to ``[recording] folder`` (default ``recordings/`` in the data directory), one folder
    per evening named by its start time, unless a folder is given.
    """

    def __init__(self, runtime, config, data_dir: str | Path, *, table_mm: tuple[float, float] | None = None):
        self.runtime = runtime
        self.config = config
        self.data_dir = Path(data_dir)
        self.table_mm = table_mm
        self.recorder: Recorder | None = None
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        return self.recorder is not None and self.recorder.running

    def start(self, folder: str | Path | None = None) -> Recorder:
        with self._lock:
            if self.active:
                raise SetupError(f"already recording to {self.recorder.directory}")
            settings = self.config["recording"]
            directory = Path(folder) if folder else self._new_folder(settings["folder"])
            recorder = Recorder(directory, self.runtime, self.config, table_mm=self.table_mm,
                                budget_mb_per_hour=settings["budget_mb_per_hour"])
            recorder.start()
            self.recorder = recorder
            _log.info("recording this game night to %s", directory)
            return recorder

    def stop(self) -> None:
        with self._lock:
            if self.recorder is not None:
                self.recorder.stop()

    def status(self) -> dict:
        if self.recorder is None:
            return {"recording": False, "folder": None}
        return self.recorder.status()

    def _new_folder(self, base: str) -> Path:
        root = Path(base) if base else self.data_dir / "recordings"
        name = time.strftime("%Y-%m-%d_%H-%M-%S")
        directory, n = root / name, 1
        while directory.exists():
            n += 1
            directory = root / f"{name}_{n}"
        return directory
