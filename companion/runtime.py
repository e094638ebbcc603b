"""The runtime: one thread owns the game session; everything else only enqueues inputs.

Camera callbacks, GPIO callbacks and HTTP handlers call :meth:`Runtime.submit`
(or the helpers built on it) from their own threads. The runtime thread runs each
input in turn, so the session has exactly one writer.

Any change (an input, a health report, an LED) only bumps a version number. A
snapshot (a JSON-ready dict) is built when someone reads it, once per version and
viewer: the shared table screen (``viewer=None``) or one seat's player, each
seeing only what the game lets them see. Readers such as the dashboard's event
stream wait for a newer version.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable

from concurrent.futures import TimeoutError as FutureTimeout

from companion import referees
from companion.config import Config
from companion.errors import (CompanionError, DatabaseUnavailable, IllegalMove, InvalidMove, NotYourSeat,
                              UnknownSession)
from companion.eventkinds import ALERT, RESOLVE
from companion.eventlog import Event, EventLog
from companion.faults import steps
from companion.liveview import LatestFrame, LiveView, RollPictures
from companion.session import Session

_log = logging.getLogger(__name__)

ACTIVE_SESSION = "active_session"


class Busy(FutureTimeout):
    """Raised when an input waited too long for the runtime and was withdrawn: it was not applied."""


@dataclass(frozen=True)
class Entrant:
    """Who enters an input from the dashboard: the player whose seat the phone holds (None: a phone
    without a seat) and whether the game master unlocked it with the PIN (then any seat's move)."""

    seat: str | None = None
    master: bool = False


def _entrant_args(entrant: Entrant | None) -> dict:
    """How a recording keeps who entered an input (nothing for the camera, buttons, command line)."""
    return {} if entrant is None else {"seat": entrant.seat, "master": entrant.master}


def entrant_from(args: dict) -> Entrant | None:
    """The entrant a recording kept (see :func:`_entrant_args`), or None."""
    if "seat" not in args and "master" not in args:
        return None
    return Entrant(seat=args.get("seat"), master=bool(args.get("master")))

Observer = Callable[["Runtime", Session, Event], None]


class Runtime:
    """The companion's single writer. Start it, feed it inputs, read its snapshots."""

    def __init__(self, config: Config, log: EventLog, *, clock: Callable[[], float] = time.monotonic):
        self.config = config
        self.log = log
        self.clock = clock
        self._inputs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._running = threading.Event()
        # How long an input waits for the runtime before it is withdrawn (the page says "busy").
        self.input_timeout = 10.0
        self._changed = threading.Condition()
        self._building = threading.Lock()
        self._version = 0
        self._views: dict[str | None, dict] = {}  # viewer -> their newest snapshot
        self._shared: dict = {"version": -1}
        self._health: dict[str, dict] = {}
        self._health_lock = threading.Lock()
        # Games that could not be resumed at start, with the reason: the dashboard shows them.
        self.problems: list[dict] = []
        self._storage_fault: float | None = None  # when storing last failed for a reason outside the log
        self._extras: dict[str, Callable[[], Any]] = {}
        self._observers: list[Observer] = []
        self._unsubscribe: Callable[[], None] | None = None
        self.heartbeat = clock()
        self.session: Session | None = None
        self.referee: referees.Referee | None = None
        self.last_observation: Any = None
        # While a game night is recorded (companion.film.recorder): told every input and every game opened.
        self.recorder = None
        # Where the table's dice are known (a companion.dicestore.DiceStore); None: the data directory's own.
        # The demo camera's table keeps its rendered dice apart.
        self.dice_store = None
        # The camera pipeline publishes pictures here; the dashboard's live view reads them.
        self.live_view = LiveView()
        # The newest clean frame (no overlay), for teaching dice from the dashboard.
        self.frames = LatestFrame()
        # The tray as each recent roll was read, shown with the alerts about that roll.
        self.roll_pictures = RollPictures()
        active = log.get_setting(ACTIVE_SESSION)
        if active:
            try:
                self._attach(Session.resume(log, active))
            except (UnknownSession, CompanionError) as exc:
                _log.warning("cannot resume the game in play (%s); starting with no game", exc)
                self.problems.append({
                    "session_id": active,
                    "text": f"The game in play could not be resumed: {exc}. Its moves are kept in the log; "
                            "start or open another game, and run 'companion doctor' to check the database.",
                })
                self._health["game"] = {"status": "degraded", "since": time.time(), "detail": (
                    f"the game in play could not be resumed ({exc}); open it again from the history")}
        self._publish()

    # -- lifetime ---------------------------------------------------------------

    def start(self) -> "Runtime":
        if self._thread is None:
            self._running.set()
            self._thread = threading.Thread(target=self._loop, name="companion-runtime", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        if self._thread is not None:
            self._running.clear()
            self._inputs.put(None)
            self._thread.join(timeout)
            self._thread = None
        if self._unsubscribe:
            self._unsubscribe()
            self._unsubscribe = None

    def __enter__(self) -> "Runtime":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def alive(self) -> bool:
        """True while the runtime thread runs and took an input or idled within the last few seconds."""
        return self._thread is not None and self._thread.is_alive() and self.clock() - self.heartbeat < 5.0

    def _loop(self) -> None:
        while self._running.is_set():
            self.heartbeat = self.clock()
            try:
                item = self._inputs.get(timeout=0.5)
            except queue.Empty:
                continue
            if item is None:
                break
            future, fn, args, kwargs = item
            if not future.set_running_or_notify_cancel():
                continue
            self._run(future, fn, args, kwargs)

    def _run(self, future: Future, fn, args, kwargs) -> None:
        # Publish before answering, so a caller that reads the snapshot next sees its own change.
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:  # handed to the caller, never kills the loop
            if isinstance(exc, DatabaseUnavailable):  # a full card mid-game: on every screen, with what to do
                self._storage_fault = time.monotonic()
                self.set_health("database", "failed", f"{exc}. What to do: {steps(exc.kind)}")
            self._publish()
            future.set_exception(exc)
        else:
            if self._storage_fault is not None and getattr(self.log, "last_append", 0) > self._storage_fault:
                self._storage_fault = None  # a move was stored again: the fault is over
                self.set_health("database", "ok", "moves are stored again")
            self._publish()
            future.set_result(result)

    # -- inputs -------------------------------------------------------------------

    def submit(self, fn: Callable[..., Any], *args, **kwargs) -> Future:
        """Run ``fn(*args, **kwargs)`` on the runtime thread; returns its future."""
        future: Future = Future()
        if self._thread is None:
            # Not started (tests, one-shot commands): run here.
            future.set_running_or_notify_cancel()
            self._run(future, fn, args, kwargs)
            return future
        self._inputs.put((future, fn, args, kwargs))
        return future

    def call(self, fn: Callable[..., Any], *args, timeout: float | None = None, **kwargs) -> Any:
        """Submit and wait for the result (re-raising the input's error).

        On the runtime thread itself (an observer, a button handler) it runs at once:
        waiting for the queue there would wait for itself. An input still queued after
        ``timeout`` is withdrawn and :class:`Busy` raised: it will never be applied later
        (a second tap on a busy page cannot apply the same roll twice). One already running
        is waited for, so the caller always learns its outcome.
        """
        if threading.current_thread() is self._thread:
            return fn(*args, **kwargs)
        future = self.submit(fn, *args, **kwargs)
        try:
            return future.result(self.input_timeout if timeout is None else timeout)
        except FutureTimeout:
            if future.cancel():
                raise Busy("the companion is busy: nothing was changed, try again in a moment") from None
            return future.result()

    # -- game commands (run on the runtime thread) ------------------------------

    def new_game(self, game: str, players: list[str], options: dict | None = None, *,
                 parent_id: str | None = None, title: str = "", seats=None) -> dict:
        def start() -> dict:
            session = Session.create(self.log, game, players, options, seats=seats, parent_id=parent_id,
                                     title=title)
            self._attach(session)
            self.log.set_setting(ACTIVE_SESSION, session.session_id)
            return session.to_json()

        return self.call(start)

    def open_game(self, session_id: str) -> dict:
        def resume() -> dict:
            session = Session.resume(self.log, session_id)
            self._attach(session)
            self.log.set_setting(ACTIVE_SESSION, session_id)
            return session.to_json()

        return self.call(resume)

    def play(self, move: Any, *, source: str, event_id: str | None = None, entrant: "Entrant | None" = None) -> Event:
        """Apply ``move``. ``entrant`` is the phone that asks (None: the camera, a button, the command
        line): a seat's phone may enter only its own player's moves and the table's."""

        def play() -> Event:
            self._heard("play", move=move if isinstance(move, str) else move.to_text(), source=source,
                        event_id=event_id, **_entrant_args(entrant))
            session = self._require_session()
            self._check_entrant(session, move, entrant)
            return session.apply(move, source=source, event_id=event_id)

        return self.call(play)

    @staticmethod
    def _check_entrant(session: Session, move: Any, entrant: "Entrant | None") -> None:
        if entrant is not None and not entrant.master:
            reason = session.why_not_yours(move, entrant.seat)
            if reason is not None:
                raise NotYourSeat(reason)

    def undo(self, *, source: str, event_id: str | None = None, entrant: "Entrant | None" = None) -> Event:
        """Take back the last move; a seat's phone takes back only its own player's move."""
        seat = entrant.seat if entrant is not None and not entrant.master else None

        def undo() -> Event:
            self._heard("undo", source=source, event_id=event_id, **_entrant_args(entrant))
            return self._require_session().undo(source=source, event_id=event_id, seat=seat)

        return self.call(undo)

    def claim_seat(self, player: str, claim_id: str, *, source: str) -> Event:
        def claim() -> Event:
            self._heard("claim_seat", player=player, claim=claim_id, source=source)
            return self._require_session().claim(player, claim_id, source=source)

        return self.call(claim)

    def release_seat(self, player: str, *, source: str) -> Event:
        def release() -> Event:
            self._heard("release_seat", player=player, source=source)
            return self._require_session().release(player, source=source)

        return self.call(release)

    def redo(self, *, source: str, event_id: str | None = None) -> Event:
        def redo() -> Event:
            self._heard("redo", source=source, event_id=event_id)
            return self._require_session().redo(source=source, event_id=event_id)

        return self.call(redo)

    def correct(self, target_event_id: str, move: Any, *, source: str, event_id: str | None = None,
                entrant: "Entrant | None" = None) -> Event:
        def correct() -> Event:
            self._heard("correct", target=target_event_id, move=move if isinstance(move, str) else move.to_text(),
                        source=source, event_id=event_id, **_entrant_args(entrant))
            session = self._require_session()
            self._check_entrant(session, move, entrant)
            return session.correct(target_event_id, move, source=source, event_id=event_id)

        return self.call(correct)

    def raise_alert(self, text: str, *, source: str, payload: dict | None = None) -> Event:
        """Log something a person must look at (a misread, an impossible change)."""
        def alert() -> Event:
            self._heard("raise_alert", text=text, source=source, payload=payload)
            return self._require_session().note(ALERT, text, source=source, payload=payload)

        return self.call(alert)

    def resolve_alert(self, alert_id: str, resolution: str, *, source: str, move: str | None = None,
                      event_id: str | None = None, entrant: "Entrant | None" = None) -> Event:
        """Close an alert: ``accept`` (apply the move the alert proposed), ``correct`` (apply ``move``
        instead) or ``dismiss`` (nothing changes)."""

        def resolve() -> Event:
            self._heard("resolve_alert", alert=alert_id, resolution=resolution, move=move, source=source,
                        event_id=event_id, **_entrant_args(entrant))
            session = self._require_session()
            if (known := self.log.retried(event_id, session.session_id, RESOLVE)) is not None:
                return known
            alert = next((a for a in self.pending_alerts() if alert_id in a["ids"]), None)
            if alert is None:
                raise IllegalMove("that alert is already resolved or does not exist")
            if resolution == "accept":
                proposed = alert["payload"].get("move")
                if not proposed:
                    raise IllegalMove("this alert proposes no move to accept: correct it or dismiss it")
                self._check_entrant(session, proposed, entrant)
                session.apply(proposed, source=source)
            elif resolution == "correct":
                if not move:
                    raise IllegalMove("say what really happened: a move in text form")
                self._check_entrant(session, move, entrant)
                session.apply(move, source=source)
            elif resolution != "dismiss":
                raise IllegalMove(f"'{resolution}' is not a way to resolve an alert: accept, correct or dismiss")
            return session.note(
                RESOLVE, f"{resolution} {alert['text']}", source=source,
                payload={"target": alert_id, "targets": alert["ids"], "resolution": resolution, "move": move},
                event_id=event_id,
            )

        return self.call(resolve)

    def dismiss_all_alerts(self, *, source: str, event_id: str | None = None) -> Event | None:
        """Dismiss every pending alert at once (one event); None when there was none."""

        def dismiss() -> Event | None:
            self._heard("dismiss_all_alerts", source=source, event_id=event_id)
            session = self._require_session()
            if (known := self.log.retried(event_id, session.session_id, RESOLVE)) is not None:
                return known
            ids = [i for alert in self.pending_alerts() for i in alert["ids"]]
            if not ids:
                return None
            return session.note(RESOLVE, f"dismiss all {len(ids)} alerts", source=source,
                                payload={"targets": ids, "resolution": "dismiss", "move": None}, event_id=event_id)

        return self.call(dismiss)

    def observe(self, observation: Any, *, picture: str | None = None, note: str | None = None) -> Future:
        """Hand a stable observation of the table (cards or dice) to the game's referee.

        ``picture``: the name of the picture it was read from (:attr:`roll_pictures`), which the alerts
        it raises carry; ``note``: what the camera knew of the reading then (the tray darker than teaching), which
        they carry too. Returns the future of the verdicts. Called from the camera pipeline's thread.
        """
        return self.submit(self._observe, observation, picture, note)

    def _observe(self, observation: Any, picture: str | None = None, note: str | None = None) -> list:
        self.last_observation = observation
        session, referee = self.session, self.referee
        if session is None or referee is None:
            return []
        verdicts = referee.observe(session, observation)
        shown = {key: value for key, value in (("picture", picture), ("note", note)) if value is not None}
        for verdict in verdicts:
            payload = dict(verdict.payload)
            if isinstance(verdict, referees.Apply):
                try:
                    session.apply(verdict.move, source="camera", payload=payload)
                except (IllegalMove, InvalidMove) as exc:
                    # The engine has the last word: a refused reading waits for a person.
                    session.note(ALERT, f"the camera saw '{verdict.move}', but {exc}", source="camera",
                                 payload={**payload, **shown, "move": verdict.move})
            else:
                session.note(ALERT, verdict.text, source="camera", payload={**payload, **shown, "move": verdict.move})
        return verdicts

    def _heard(self, kind: str, **args) -> None:
        """Tell the recorder about an input about to run (on the runtime thread, in the order they run)."""
        if self.recorder is not None:
            self.recorder.input(kind, args)

    def pending_alerts(self) -> list[dict]:
        session = self.session
        return [] if session is None else session.pending_alerts()

    def _require_session(self) -> Session:
        if self.session is None:
            raise IllegalMove("no game is in play: start one first")
        return self.session

    def _attach(self, session: Session) -> None:
        if "game" in self._health:  # a game is in play again: the failed resume is history
            with self._health_lock:
                self._health = {k: v for k, v in self._health.items() if k != "game"}
        self.problems.clear()
        if self._unsubscribe:
            self._unsubscribe()
        self.session = session
        self.referee = referees.for_game(session.game, config=self.config)
        self._unsubscribe = session.subscribe(self._on_event)
        if session.record.parent_id is not None:
            self._watch_campaign(session)
        if self.recorder is not None:
            self.recorder.attached(session)
        for observer in list(self._observers):
            self._notify(observer, session, None)

    def _watch_campaign(self, session: Session) -> None:
        """A campaign game: its end is recorded in the campaign at once, and from then on it is sealed."""
        from companion.campaign import Campaign

        stop_watching = Campaign(self.log, session.record.parent_id).watch(session)
        unsubscribe = self._unsubscribe

        def both() -> None:
            unsubscribe()
            stop_watching()

        self._unsubscribe = both

        def sealed() -> str | None:
            if session.outcome() is None:
                return None
            return "the game is over and its result is kept in its campaign, which later games start from"

        session.sealed = sealed

    def _on_event(self, session: Session, event: Event) -> None:
        for observer in list(self._observers):
            self._notify(observer, session, event)

    def _notify(self, observer: Observer, session: Session, event: Event | None) -> None:
        try:
            observer(self, session, event)
        except Exception:  # LEDs or a buzzer failing must not stop the game
            _log.exception("observer %r failed", observer)

    # -- extension points ---------------------------------------------------------

    def add_observer(self, observer: Observer) -> None:
        """Call ``observer(runtime, session, event)`` on the runtime thread after every event
        (``event`` is None when a game is opened)."""
        self._observers.append(observer)
        if self.session is not None:
            self.call(lambda: self._notify(observer, self.session, None))

    def add_snapshot_part(self, name: str, part: Callable[[], Any]) -> None:
        """Include ``part()`` under ``name`` in every published snapshot (LED mirror, camera view, ...)."""
        self._extras[name] = part
        self._publish()

    def snapshot_part(self, name: str) -> Any:
        """The extension part ``name`` as it is now (not waiting for a snapshot), or None."""
        part = self._extras.get(name)
        try:
            return part() if part is not None else None
        except Exception:
            _log.exception("snapshot part %s failed", name)
            return None

    def set_health(self, component: str, status: str, detail: str = "") -> None:
        """Report a component's health: ``ok``, ``degraded`` or ``failed``, with a sentence."""
        with self._health_lock:  # the camera, pipeline and main loop report from their own threads
            current = self._health.get(component)
            if current and current["status"] == status and current["detail"] == detail:
                return
            self._health = {**self._health, component: {"status": status, "detail": detail, "since": time.time()}}
        self._publish()

    # -- snapshots ------------------------------------------------------------------

    def _publish(self) -> None:
        """Say that something changed: a new version. Cheap from any thread; snapshots are built on reading."""
        with self._changed:
            self._version += 1
            self._changed.notify_all()

    def refresh(self) -> None:
        """Publish a new version now (after a change outside the session, e.g. the LEDs)."""
        self._publish()

    @property
    def version(self) -> int:
        return self._version

    def viewer(self, name: str | None) -> str | None:
        """``name`` when it is a player of the game in play, else None (the shared view)."""
        session = self.session
        return None if session is None or name is None else session.player(name)

    def snapshot(self, viewer: str | None = None) -> dict:
        """The latest state as ``viewer`` (a player of the game in play, or None: the shared table
        screen) may see it; built once per version and viewer. Safe from any thread."""
        viewer = self.viewer(viewer)
        with self._building:
            version = self._version
            cached = self._views.get(viewer)
            if cached is not None and cached["version"] == version:
                return cached
            shared = self._shared_parts(version)
            session = self.session
            snapshot = {
                "game": session.view(viewer) if session is not None else None,
                **shared,
                "viewer": viewer,
                "version": version,
            }
            if session is None or viewer is None:
                self._views = {k: v for k, v in self._views.items() if k is None or session is None}
            self._views[viewer] = snapshot
            return snapshot

    def _shared_parts(self, version: int) -> dict:
        """What every viewer sees alike (alerts, health, the LED mirror, the camera), once per version."""
        if self._shared["version"] == version:
            return self._shared["parts"]
        session = self.session
        parts: dict[str, Any] = {
            "alerts": session.pending_alerts() if session is not None else [],
            "health": dict(self._health),
            "problems": list(self.problems),
        }
        for name, part in list(self._extras.items()):
            try:
                parts[name] = part()
            except Exception as exc:
                _log.exception("snapshot part %s failed", name)
                parts[name] = {"error": str(exc)}
        self._shared = {"version": version, "parts": parts}
        return parts

    def wait_for_change(self, after_version: int, timeout: float, viewer: str | None = None) -> dict | None:
        """The first snapshot newer than ``after_version`` for ``viewer``, or None after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._version <= after_version:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)
        return self.snapshot(viewer)
