"""The whole companion in one process, as ``companion run`` and the systemd service start it.

Start-up order, each step before the next:

1. the configuration is checked beyond its types (:func:`companion.configcheck.check_config`,
   the same check as ``companion doctor`` and the dashboard's settings): refused with file, key, reason;
2. the data folder is locked for this process (:mod:`companion.instance`): a second companion
   is refused, naming the first one's PID and port;
3. the database passes its full check or is restored from the newest good backup
   (:mod:`companion.backups`); a fault that is not damage (locked, full, read-only, another
   user's files) is a refusal that changes nothing, and a backup is taken when one is due;
4. the runtime (the one writer), the GPIO panel with the LED and button observers,
   the camera supervisor and the dashboard (waitress) start;
5. systemd is told ``READY=1``.

Every refusal is :class:`~companion.errors.StartRefused` or
:class:`~companion.errors.ConfigError`: one line with the steps that fix it
(:mod:`companion.faults`), told to systemd as ``STATUS=`` before the process exits
with status 2 (which the unit does not restart: retrying cannot help) or 75 when
retrying may help (a database another program holds).

While it runs the main loop also keeps the database safe: a checkpoint at the end
of each game and after a quiet minute (so the main file holds everything and a lost
``-wal`` cannot lose more than the last minute), and a checked backup after every
game and hourly while moves are being added.

The main loop then pings systemd's watchdog (``WATCHDOG=1``) only while the
runtime, the web server thread and the camera supervisor are all alive; a frozen
loop or a dead part stops the pings and systemd restarts the service. A camera that
is merely down is not a dead part: the supervisor keeps restarting it and the game
goes on by hand.

Vision attaches through ``on_frame``: a callable the camera supervisor's reader
thread calls with every :class:`hardware.camera.Frame`; by default the
:class:`companion.pipeline.Pipeline`, which hands stable table snapshots and dice
rolls to the game's referee. When the camera is the demo camera (no camera found),
:class:`companion.demo.DemoTable` plays a scripted Fabled Fruit game through it.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable

from companion import backups
from companion.config import Config
from companion.configcheck import check_config
from companion.errors import ConfigError, DatabaseUnavailable
from companion.eventlog import DB_NAME, EventLog
from companion.faults import steps
from companion.instance import DataFolderLock
from companion.runtime import Runtime

_log = logging.getLogger(__name__)

BACKUP_CHECK_S = 60.0  # how often the main loop asks whether a backup is due
QUIET_S = 60.0  # a minute without a new event: the -wal is copied into the database file


def tame_malloc() -> bool:
    """Keep freed image buffers from staying in the process (glibc only; a no-op elsewhere).

    Every frame allocates and frees images of several megabytes on the camera, pipeline and web
    threads. By default glibc raises its mmap threshold after such a free, so the next buffers come
    from per-thread heaps that keep the memory after it is freed: the resident size creeps up for
    hours. A fixed 1 MB threshold returns every large buffer to the system when it is freed, and two
    arenas keep the threads from holding a heap each.
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = libc.mallopt if libc is not None else None
    except (OSError, AttributeError):
        return False
    if mallopt is None:
        return False
    m_mmap_threshold, m_arena_max = -3, -8  # from glibc's malloc.h
    return bool(mallopt(m_mmap_threshold, 1024 * 1024)) and bool(mallopt(m_arena_max, 2))


def trim_memory() -> None:
    """Hand the free parts of the heap back to the system (glibc's ``malloc_trim``; a no-op elsewhere)."""
    import ctypes
    import ctypes.util

    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def watchdog_interval(env=os.environ) -> float | None:
    """systemd's watchdog interval in seconds (``WATCHDOG_USEC``), or None when there is none."""
    try:
        usec = int(env.get("WATCHDOG_USEC", "0"))
    except ValueError:
        return None
    if usec <= 0:
        return None
    pid = env.get("WATCHDOG_PID")
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None  # meant for another process
    return usec / 1_000_000


def close_trigger_after_last_pull(trigger) -> None:
    """Make waitress' wake-up pipe close only between two pulls, never during one.

    A worker thread that has just answered a request wakes the server's loop by writing to a pipe.
    Stopping closes that pipe from another thread; a worker already past the check would write to
    a closed descriptor (EBADF, a traceback in the journal) or, worse, to whatever file reused its
    number. One lock around the write and the close, and no write once the pipe is gone.
    """
    lock = threading.Lock()
    pull, close = trigger._physical_pull, trigger._close

    def pull_while_open() -> None:
        with lock:
            if trigger._fds:
                pull()

    def close_between_pulls() -> None:
        with lock:
            close()

    trigger._physical_pull, trigger._close = pull_while_open, close_between_pulls


def _cannot_listen(host: str, port: int) -> str | None:
    """Why a server could not listen on ``host:port`` and what to do (None when it can), asked as waitress binds."""
    if port == 0:
        return None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            why = exc.strerror or str(exc)
            if exc.errno == errno.EADDRINUSE:
                return (f"{why}; is another companion running? Choose another port with --port "
                        "or in the configuration")
            if exc.errno == errno.EADDRNOTAVAIL:
                return f"{why}: this machine has no address {host}; use 0.0.0.0 (every network) or one of its addresses"
            if exc.errno == errno.EACCES:
                return f"{why}: ports below 1024 need root; use a port such as 8080"
            return why
    return None


class Appliance:
    """The runtime, dashboard, camera and GPIO of one table.

    :param camera_backend: picamera2, usb, file or demo; None follows the configuration and ``COMPANION_CAMERA``.
    :param camera_factory: builds an unstarted camera (tests); overrides ``camera_backend``.
    :param pin_factory: a gpiozero pin factory (tests pass the mock); None follows ``[gpio] pin_factory``.
    :param on_frame: called with every frame on the camera's reader thread; default the vision pipeline.
    :param notifier: anything with ``notify(text)``; default ``sdnotify.SystemdNotifier()``.
    :param port: overrides ``[server] port``; 0 picks a free port (tests).
    :param record_dir: record the evening into this new folder (``companion run --record DIR``).
    :param demo_game: which demo the demo camera plays (``companion run --demo GAME``); None follows
        ``[camera] demo_game``.
    """

    def __init__(self, config: Config, data_dir: Path, *, camera_backend: str | None = None,
                 camera_factory: Callable[[], Any] | None = None, pin_factory=None,
                 on_frame: Callable[[Any], None] | None = None, notifier=None, use_gpio: bool = True,
                 use_camera: bool = True, port: int | None = None, record_dir: Path | None = None,
                 demo_game: str | None = None):
        from companion.film.recorder import Recording
        from web import create_app

        check_config(config)
        tame_malloc()
        self.config = config
        self.data_dir = Path(data_dir)
        self.lock = DataFolderLock(self.data_dir).acquire()
        try:
            self.boot = backups.check_at_start(self.data_dir)
            if self.boot.fault:
                _log.error("%s", self.boot.detail)
            try:
                self.log = EventLog(self.data_dir / DB_NAME)
            except DatabaseUnavailable as exc:
                raise backups.refusal(exc) from None
        except BaseException:
            self.lock.release()
            raise
        backups.record(self.log, self.boot)
        self.runtime = Runtime(config, self.log)
        self.runtime.set_health("database", self.boot.health, database_detail(self.boot))
        self.runtime.add_observer(self._after_event)
        self.app = create_app(config, self.runtime)
        self.recording = Recording(self.runtime, config, self.data_dir)
        self.app.extensions["companion_recording"] = self.recording  # the Setup page's switch
        self.record_dir = record_dir
        self.camera_backend = camera_backend
        self.camera_factory = camera_factory
        self.pin_factory = pin_factory
        self.on_frame = on_frame
        self.use_gpio = use_gpio
        self.use_camera = use_camera
        self.notifier = notifier
        self.listen_port = config.get("server", "port") if port is None else port
        self.panel = None
        self.leds = None
        self.supervisor = None
        self.demo = None
        self.demo_game = demo_game
        self.pipeline = None
        # Called at the top of every main-loop turn; tests freeze the loop with one.
        self.loop_hooks: list[Callable[[], None]] = []
        self._server = None
        self._stopping = False
        self._server_thread: threading.Thread | None = None
        self._last_backup_check = 0.0
        self._game_ended = threading.Event()
        self._unhealthy_since: float | None = None

    # -- start and stop --------------------------------------------------------------

    @property
    def url(self) -> str:
        host = self.config.get("server", "host")
        shown = socket.gethostname() + ".local" if host in ("0.0.0.0", "::") else host
        return f"http://{shown}:{self.port}/"

    @property
    def port(self) -> int:
        if self._server is not None:
            return self._server.effective_port
        return self.config.get("server", "port")

    def start(self) -> None:
        self.runtime.start()
        self._backup()
        if self.use_gpio:
            self._start_gpio()
        if self.use_camera:
            self._start_camera()
        if self.record_dir is not None or self.config.get("recording", "enabled"):
            self.recording.start(self.record_dir)
        self._start_web()

    def _backup(self, *, force: bool = False) -> None:
        self._last_backup_check = time.monotonic()
        try:
            taken = backups.backup_if_due(self.log, self.data_dir, force=force)
        except Exception as exc:  # a full disk must not stop the game: said in the health line
            _log.exception("the backup failed")
            self.runtime.set_health("backups", "degraded", f"the last backup failed: {exc}")
            return
        if taken is not None:
            _log.info("backup taken: %s", taken)
            self.runtime.set_health("backups", "ok", f"newest backup {taken.name}")

    def _after_event(self, runtime, session, event) -> None:
        """On the runtime thread: note the end of a game (the main loop saves it)."""
        if event is not None and event.kind in ("move", "correct", "redo") and session.outcome() is not None:
            self._game_ended.set()

    def maintain(self) -> None:
        """Checkpoint and back up when due (called from the main loop, never from the runtime thread)."""
        log = self.log
        if self._game_ended.is_set():
            self._game_ended.clear()
            log.checkpoint()
            self._backup(force=True)
        elif log.appended_since_checkpoint and time.monotonic() - log.last_append >= QUIET_S:
            log.checkpoint()
        if time.monotonic() - self._last_backup_check > BACKUP_CHECK_S:
            self._backup()  # once a minute
            trim_memory()

    def _start_gpio(self) -> None:
        from hardware.gpio import PinConflict, Panel, is_mock
        from companion.buttons import ButtonInputs
        from companion.leds import LedObserver

        try:
            self.panel = Panel.from_config(self.config["gpio"], pin_factory=self.pin_factory)
        except PinConflict as exc:
            raise ConfigError(f"{self.config.source} [gpio] {exc}") from None
        except Exception as exc:  # pins held by another program, no pin library: play on without LEDs
            _log.error("LEDs and buttons are off: %s", exc)
            self.runtime.set_health("gpio", "degraded", f"LEDs and buttons are off: {exc}")
            return
        self.leds = LedObserver(self.panel).attach(self.runtime)
        ButtonInputs(self.runtime, self.panel, refused=self.leds.refused)
        simulated = is_mock(self.panel.factory)
        self.runtime.set_health("gpio", "ok", "simulated pins (not a Raspberry Pi)" if simulated
                                else f"{self.panel.seats} seat LEDs and {len(self.panel.next_buttons)} next buttons")

    def _start_camera(self) -> None:
        from hardware.camera.select import camera_factory
        from hardware.supervisor import CameraSupervisor

        factory = self.camera_factory or camera_factory(self.config, self.camera_backend)
        table_mm = demo_tray_px = None
        if self.camera_factory is None and getattr(factory, "backend", None) == "demo":
            from companion import demos
            from companion.dicestore import DiceStore

            camera = self.config["camera"]
            self.demo = demos.table_for(self.demo_game or camera["demo_game"], self.runtime,
                                        size=(camera["work_width"], camera["work_width"] * 9 // 16))
            self.runtime.dice_store = DiceStore(self.data_dir, demo=True)  # its rendered dice, not the table's
            self.demo.prepare(self.runtime.dice_store)
            table_mm, demo_tray_px = self.demo.table_mm, self.demo.tray_px
            def factory():
                return self.demo.camera(fps=camera["fps"], work_width=camera["work_width"])

            factory.backend = "demo"
        if self.on_frame is None:
            from companion.pipeline import Pipeline

            self.pipeline = Pipeline(self.runtime, self.config, self.data_dir, table_mm=table_mm,
                                     demo_tray_px=demo_tray_px)
            self.on_frame = self.pipeline
            locator = self.pipeline.watcher.locator
            self.recording.table_mm = (locator.width_mm, locator.height_mm)
        self.supervisor = CameraSupervisor(
            factory, on_frame=self._frame, on_health=self._camera_health,
            frame_timeout=self.config.get("camera", "frame_timeout_s"),
        )
        self.supervisor.start()

    def _frame(self, frame) -> None:
        self.on_frame(frame)

    def _camera_health(self, status: str, detail: str) -> None:
        # The runtime knows ok, degraded and failed; starting and stopped are degraded moments.
        self.runtime.set_health("camera", status if status in ("ok", "failed") else "degraded", detail)

    def _start_web(self) -> None:
        from waitress.server import create_server

        server = self.config["server"]
        # Every open stream holds a thread: size the pool so streams can never starve the API.
        threads = server["max_streams"] + server["max_video_streams"] + 4
        # Asked first with a plain socket: waitress leaks its own sockets when its bind fails.
        why = _cannot_listen(server["host"], self.listen_port)
        if why:
            raise ConfigError(
                f"{self.config.source} [server] port = {self.listen_port}: the dashboard cannot listen on "
                f"{server['host']}:{self.listen_port} ({why})"
            )
        self._server = create_server(
            self.app, host=server["host"], port=self.listen_port, threads=threads,
            max_request_body_size=1024 * 1024, outbuf_high_watermark=2 * 1024 * 1024,
        )
        close_trigger_after_last_pull(self._server.trigger)
        self._server_thread = threading.Thread(target=self._serve, name="companion-web", daemon=True)
        self._server_thread.start()
        self.lock.announce(self.port)

    def _serve(self) -> None:
        try:
            self._server.run()
        except OSError:
            # Closing the listening socket from stop() can wake the server's select() on a closed
            # descriptor; that is the server stopping, not failing.
            if not self._stopping:
                raise

    def stop(self) -> None:
        self._stopping = True
        if self.notifier is not None:
            self.notifier.notify("STOPPING=1")
        self.recording.stop()
        if self._server is not None:
            self._server.close()
            if self._server_thread is not None:
                self._server_thread.join(5)
        if self.supervisor is not None:
            self.supervisor.stop()
        self.runtime.stop()
        if self.panel is not None:
            self.panel.close()
        self.log.close()
        self.lock.release()
        sock = getattr(self.notifier, "socket", None)
        if sock is not None:
            sock.close()

    # -- the main loop ------------------------------------------------------------------

    def problems(self) -> list[str]:
        """What is not alive: empty while the runtime, the web thread and the camera supervisor all answer."""
        found = []
        if not self.runtime.alive:
            found.append("the runtime thread stopped answering")
        if self._server_thread is None or not self._server_thread.is_alive():
            found.append("the web server thread stopped")
        if self.supervisor is not None and not self.supervisor.alive:
            found.append("the camera supervisor stopped answering")
        return found

    def healthy(self) -> bool:
        return not self.problems()

    def serve_until(self, stop: threading.Event) -> None:
        """Tells systemd READY=1, then runs the main loop until ``stop`` is set."""
        if self.notifier is None:
            import sdnotify

            self.notifier = sdnotify.SystemdNotifier()
        interval = watchdog_interval()
        # Ping at least twice per watchdog interval (systemd's advice), and look around every second.
        tick = min(1.0, interval / 2) if interval else 1.0
        self.notifier.notify("READY=1")
        self.notifier.notify(f"STATUS=serving {self.url}")
        while not stop.wait(tick):
            self.turn()

    def turn(self) -> None:
        """One turn of the main loop."""
        for hook in list(self.loop_hooks):
            hook()
        problems = self.problems()
        if not problems:
            self._unhealthy_since = None
            self.notifier.notify("WATCHDOG=1")
        else:
            if self._unhealthy_since is None:
                self._unhealthy_since = time.monotonic()
                _log.error("withholding the watchdog ping: %s", "; ".join(problems))
                self.notifier.notify("STATUS=" + "; ".join(problems))
        if self.leds is not None:
            if self.leds.update_status(self.runtime.snapshot()["health"]):
                self.runtime.refresh()
            self.leds.follow_teaching(self.runtime.snapshot_part("teaching"))
        self.maintain()


def database_detail(boot: backups.BootCheck) -> str:
    """The health line of the database: what the start found, and for a fault what to do. (The line
    stays for the whole run: a database the start created is said as in use, not as missing.)"""
    if boot.status == "new":
        return "created at this start; moves are stored in it"
    if boot.fault is None:
        return boot.detail
    return f"{boot.detail}. What to do: {steps(boot.fault)}"


def tell_systemd(text: str, notifier=None) -> None:
    """``STATUS=text`` for ``systemctl status`` (nothing happens outside systemd)."""
    try:
        if notifier is None:
            import sdnotify

            notifier = sdnotify.SystemdNotifier()
        notifier.notify(f"STATUS={text}")
    except Exception:  # telling systemd is a courtesy: never a reason to fail
        _log.debug("could not tell systemd", exc_info=True)
