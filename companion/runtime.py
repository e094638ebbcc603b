"""The runtime: one thread owns the game session; everything else only enqueues inputs.

Camera callbacks, GPIO callbacks and HTTP handlers call :meth:`Runtime.submit`
(or the helpers built on it) from their own threads. The runtime thread runs each
input in turn, so the session has exactly one writer. After every input it
publishes a fresh snapshot (a JSON-ready dict) with a version number; readers such
as the dashboard's event stream wait for a newer version.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future
from typing import Any, Callable

from companion.config import Config
from companion import referees
from companion.errors import CompanionError, IllegalMove, InvalidMove, UnknownSession
from companion.eventlog import Event, EventLog
from companion.liveview import LatestFrame, LiveView
from companion.session import Session

_log = logging.getLogger(__name__)

ACTIVE_SESSION = "active_session"
ALERT, RESOLVE = "alert", "resolve"

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
        self._changed = threading.Condition()
        self._publishing = threading.RLock()
        self._version = 0
        self._snapshot: dict = {}
        self._health: dict[str, dict] = {}
        self._extras: dict[str, Callable[[], Any]] = {}
        self._observers: list[Observer] = []
        self._unsubscribe: Callable[[], None] | None = None
        self.heartbeat = clock()
        self.session: Session | None = None
        self.referee: referees.Referee | None = None
        self.last_observation: Any = None
        # While a game night is recorded (companion.film.recorder): told every input and every game opened.
        self.recorder = None
        # The camera pipeline publishes pictures here; the dashboard's live view reads them.
        self.live_view = LiveView()
        # The newest clean frame (no overlay), for teaching dice from the dashboard.
        self.frames = LatestFrame()
        active = log.get_setting(ACTIVE_SESSION)
        if active:
            try:
                self._attach(Session.resume(log, active))
            except (UnknownSession, CompanionError) as exc:
                _log.warning("cannot resume the game in play (%s); starting with no game", exc)
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
            self._publish()
            future.set_exception(exc)
        else:
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

    def call(self, fn: Callable[..., Any], *args, timeout: float = 10.0, **kwargs) -> Any:
        """Submit and wait for the result (re-raising the input's error).

        On the runtime thread itself (an observer, a button handler) it runs at once:
        waiting for the queue there would wait for itself.
        """
        if threading.current_thread() is self._thread:
            return fn(*args, **kwargs)
        return self.submit(fn, *args, **kwargs).result(timeout)

    # -- game commands (run on the runtime thread) ------------------------------

    def new_game(self, game: str, players: list[str], options: dict | None = None, *,
                 parent_id: str | None = None, title: str = "") -> dict:
        def start() -> dict:
            session = Session.create(self.log, game, players, options, parent_id=parent_id, title=title)
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

    def play(self, move: Any, *, source: str, event_id: str | None = None) -> Event:
        def apply() -> Event:
            self._heard("play", move=move if isinstance(move, str) else move.to_text(), source=source,
                        event_id=event_id)
            return self._require_session().apply(move, source=source, event_id=event_id)

        return self.call(apply)

    def undo(self, *, source: str, event_id: str | None = None) -> Event:
        def undo() -> Event:
            self._heard("undo", source=source, event_id=event_id)
            return self._require_session().undo(source=source, event_id=event_id)

        return self.call(undo)

    def redo(self, *, source: str, event_id: str | None = None) -> Event:
        def redo() -> Event:
            self._heard("redo", source=source, event_id=event_id)
            return self._require_session().redo(source=source, event_id=event_id)

        return self.call(redo)

    def correct(self, target_event_id: str, move: Any, *, source: str, event_id: str | None = None) -> Event:
        def correct() -> Event:
            self._heard("correct", target=target_event_id, move=move if isinstance(move, str) else move.to_text(),
                        source=source, event_id=event_id)
            return self._require_session().correct(target_event_id, move, source=source, event_id=event_id)

        return self.call(correct)

    def raise_alert(self, text: str, *, source: str, payload: dict | None = None) -> Event:
        """Log something a person must look at (a misread, an impossible change)."""
        def alert() -> Event:
            self._heard("raise_alert", text=text, source=source, payload=payload)
            return self._require_session().note(ALERT, text, source=source, payload=payload)

        return self.call(alert)

    def resolve_alert(self, alert_id: str, resolution: str, *, source: str, move: str | None = None,
                      event_id: str | None = None) -> Event:
        """Close an alert: ``accept`` (apply the move the alert proposed), ``correct`` (apply ``move``
        instead) or ``dismiss`` (nothing changes)."""

        def resolve() -> Event:
            self._heard("resolve_alert", alert=alert_id, resolution=resolution, move=move, source=source,
                        event_id=event_id)
            session = self._require_session()
            alert = next((a for a in self.pending_alerts() if a["event_id"] == alert_id), None)
            if alert is None:
                raise IllegalMove("that alert is already resolved or does not exist")
            if resolution == "accept":
                proposed = alert["payload"].get("move")
                if not proposed:
                    raise IllegalMove("this alert proposes no move to accept: correct it or dismiss it")
                session.apply(proposed, source=source)
            elif resolution == "correct":
                if not move:
                    raise IllegalMove("say what really happened: a move in text form")
                session.apply(move, source=source)
            elif resolution != "dismiss":
                raise IllegalMove(f"'{resolution}' is not a way to resolve an alert: accept, correct or dismiss")
            return session.note(
                RESOLVE, f"{resolution} {alert['text']}", source=source,
                payload={"target": alert_id, "resolution": resolution, "move": move}, event_id=event_id,
            )

        return self.call(resolve)

    def observe(self, observation: Any) -> Future:
        """Hand a stable observation of the table (cards or dice) to the game's referee.

        Returns the future of the verdicts. Called from the camera pipeline's thread.
        """
        return self.submit(self._observe, observation)

    def _observe(self, observation: Any) -> list:
        self.last_observation = observation
        session, referee = self.session, self.referee
        if session is None or referee is None:
            return []
        verdicts = referee.observe(session, observation)
        for verdict in verdicts:
            payload = dict(verdict.payload)
            if isinstance(verdict, referees.Apply):
                try:
                    session.apply(verdict.move, source="camera", payload=payload)
                except (IllegalMove, InvalidMove) as exc:
                    # The engine has the last word: a refused reading waits for a person.
                    session.note(ALERT, f"the camera saw '{verdict.move}', but {exc}", source="camera",
                                 payload={**payload, "move": verdict.move})
            else:
                session.note(ALERT, verdict.text, source="camera", payload={**payload, "move": verdict.move})
        return verdicts

    def _heard(self, kind: str, **args) -> None:
        """Tell the recorder about an input about to run (on the runtime thread, in the order they run)."""
        if self.recorder is not None:
            self.recorder.input(kind, args)

    def pending_alerts(self) -> list[dict]:
        session = self.session
        if session is None:
            return []
        events = self.log.events(session.session_id)
        resolved = {e.payload.get("target") for e in events if e.kind == RESOLVE}
        return [e.to_json() for e in events if e.kind == ALERT and e.event_id not in resolved]

    def _require_session(self) -> Session:
        if self.session is None:
            raise IllegalMove("no game is in play: start one first")
        return self.session

    def _attach(self, session: Session) -> None:
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

    def set_health(self, component: str, status: str, detail: str = "") -> None:
        """Report a component's health: ``ok``, ``degraded`` or ``failed``, with a sentence."""
        current = self._health.get(component)
        if current and current["status"] == status and current["detail"] == detail:
            return
        self._health[component] = {"status": status, "detail": detail, "since": time.time()}
        self._publish()

    # -- snapshots ------------------------------------------------------------------

    def _publish(self) -> None:
        # Built and numbered under one lock: two threads publishing at once (the runtime and a camera
        # health report) must never hand out an older picture under a newer version number.
        with self._publishing:
            snapshot = {
                "game": self.session.to_json() if self.session is not None else None,
                "alerts": self.pending_alerts(),
                "health": dict(self._health),
            }
            for name, part in list(self._extras.items()):
                try:
                    snapshot[name] = part()
                except Exception as exc:
                    _log.exception("snapshot part %s failed", name)
                    snapshot[name] = {"error": str(exc)}
            with self._changed:
                self._version += 1
                snapshot["version"] = self._version
                self._snapshot = snapshot
                self._changed.notify_all()

    def refresh(self) -> None:
        """Publish a new snapshot now (after a change outside the session, e.g. the LEDs)."""
        self._publish()

    @property
    def version(self) -> int:
        return self._version

    def snapshot(self) -> dict:
        """The latest published state; safe from any thread."""
        with self._changed:
            return self._snapshot

    def wait_for_change(self, after_version: int, timeout: float) -> dict | None:
        """The first snapshot newer than ``after_version``, or None after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._version <= after_version:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)
            return self._snapshot
