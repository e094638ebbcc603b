"""Long-lived answers: the server-sent event stream of state changes and the MJPEG live view.

Every open stream holds one server thread until it ends, so both kinds are capped
(``[server] max_streams`` and ``max_video_streams``). A stream beyond the cap is
answered 503 with ``Retry-After`` at once, never queued: the pages and the JSON
API always keep threads to answer with. A stream's slot is released exactly once,
when the server closes it (a client that went away is noticed at the next write,
which the heartbeat bounds), and no stream lives longer than ``max_life_s``: the
browser's EventSource reconnects by itself and catches up at once.
"""

from __future__ import annotations

import json
import threading
import time
from functools import cache
from typing import Callable, Iterator

from flask import Blueprint, Response, current_app, request

from web import patch, seats
from web.runtime_ref import runtime
from web.security import refuse

bp = Blueprint("streams", __name__, url_prefix="/api")

HEARTBEAT_S = 15.0
MAX_LIFE_S = 15 * 60.0
RETRY_MS = 2000
BOUNDARY = "frame"


class StreamGate:
    """At most ``cap`` streams of one kind at a time; a non-blocking :class:`threading.BoundedSemaphore`."""

    def __init__(self, name: str, cap: int):
        self.name = name
        self.cap = cap
        self._slots = threading.BoundedSemaphore(cap) if cap > 0 else None
        self._open = 0
        self._lock = threading.Lock()

    def try_enter(self) -> bool:
        if self._slots is None or not self._slots.acquire(blocking=False):
            return False
        with self._lock:
            self._open += 1
        return True

    def leave(self) -> None:
        with self._lock:
            self._open -= 1
        self._slots.release()

    @property
    def open(self) -> int:
        return self._open

    def to_json(self) -> dict:
        return {"open": self._open, "cap": self.cap}


class SlotStream:
    """An answer's body that holds a gate slot: the slot is released exactly once, when the body ends
    or the server closes it, even if the body was never started."""

    def __init__(self, chunks: Iterator[bytes], gate: StreamGate):
        self._chunks = chunks
        self._gate = gate
        self._closed = False
        self._lock = threading.Lock()

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        try:
            return next(self._chunks)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            close = getattr(self._chunks, "close", None)
            if close is not None:
                close()
        finally:
            self._gate.leave()


def _gate(kind: str) -> StreamGate:
    return current_app.extensions["companion_stream_gates"][kind]


def _enter_or_refuse(kind: str, what: str) -> StreamGate:
    gate = _gate(kind)
    if not gate.try_enter():
        if gate.cap == 0:
            refuse(503, f"{what} is switched off in the configuration", "stream_disabled",
                   headers={"Retry-After": "60"})
        refuse(503, f"too many {what} open at once ({gate.cap}): try again in a few seconds", "busy",
               headers={"Retry-After": "5"})
    return gate


def _timing() -> tuple[float, float]:
    return (current_app.config.get("COMPANION_HEARTBEAT_S", HEARTBEAT_S),
            current_app.config.get("COMPANION_STREAM_LIFE_S", MAX_LIFE_S))


# -- server-sent events --------------------------------------------------------------


class SnapshotEncoder:
    """Encodes each viewer's snapshots once, however many streams send them: the whole state as
    JSON, and the patch from the version before (:mod:`web.patch`)."""

    KEEP = 64  # encoded texts kept (a few versions of at most seven viewers)

    def __init__(self):
        self._lock = threading.Lock()
        self._texts: dict[tuple, str] = {}

    def _cached(self, key: tuple, make: Callable[[], str]) -> str:
        with self._lock:
            text = self._texts.get(key)
        if text is None:
            text = make()
            with self._lock:
                self._texts[key] = text
                while len(self._texts) > self.KEEP:
                    self._texts.pop(next(iter(self._texts)))
        return text

    def encode(self, snapshot: dict) -> str:
        """The whole snapshot as JSON."""
        return self._cached(("full", snapshot.get("viewer"), snapshot.get("version")),
                            lambda: _dumps(snapshot))

    def encode_patch(self, old: dict, new: dict) -> str:
        """What changed from ``old`` to ``new`` (same viewer) as JSON: ``{"from", "version", "ops"}``."""
        key = ("patch", new.get("viewer"), old.get("version"), new.get("version"))
        return self._cached(key, lambda: _dumps({"from": old.get("version"), "version": new.get("version"),
                                                 "ops": patch.diff(old, new)}))


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def state_events(rt, encoder: SnapshotEncoder, heartbeat_s: float, max_life_s: float,
                 clock: Callable[[], float] = time.monotonic, viewer: Callable[[], str | None] = lambda: None
                 ) -> Iterator[bytes]:
    """The SSE body: a comment at once (flushes the headers), the whole state, then each change as a
    ``patch`` event (what changed since the version before; ``id:`` carries the version).

    ``viewer()`` says whose view this stream carries now (a seat's player or None); when it
    changes (a seat released) the whole state is sent again. A client that reconnects gets
    the whole state first, so it catches up with whatever it missed.
    """
    yield f": connected\nretry: {RETRY_MS}\n\n".encode()
    started = clock()
    sent: dict | None = None
    while clock() - started < max_life_s:
        wait = min(heartbeat_s, max(0.0, max_life_s - (clock() - started)))
        who = viewer()
        if sent is None:
            snapshot = rt.snapshot(who)
        else:
            snapshot = rt.wait_for_change(sent.get("version", 0), wait, viewer=viewer())
        if snapshot is None:
            yield b": keepalive\n\n"
            continue
        version = snapshot.get("version", 0)
        if sent is None or sent.get("viewer") != snapshot.get("viewer") or sent.get("game") is None \
                or snapshot.get("game") is None or sent["game"].get("session_id") != snapshot["game"].get("session_id"):
            yield f"id: {version}\nevent: state\ndata: {encoder.encode(snapshot)}\n\n".encode()
        else:
            yield f"id: {version}\nevent: patch\ndata: {encoder.encode_patch(sent, snapshot)}\n\n".encode()
        sent = snapshot
    yield b"event: bye\ndata: {}\n\n"


@bp.get("/stream")
def stream():
    """Server-sent events for this phone's view: the whole state, then a ``patch`` event per change."""
    gate = _enter_or_refuse("events", "live connections")
    heartbeat, life = _timing()
    body = state_events(runtime(), current_app.extensions["companion_snapshot_encoder"], heartbeat, life,
                        viewer=seats.holder_check())
    return Response(
        SlotStream(body, gate),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        direct_passthrough=True,
    )


# -- the live view -------------------------------------------------------------------


@cache
def placeholder_jpeg(text: str = "No picture from the camera yet") -> bytes:
    """A grey picture saying that the camera has sent nothing (so a viewer never waits on a blank)."""
    import cv2
    import numpy as np

    image = np.full((360, 640, 3), 90, np.uint8)
    cv2.putText(image, text, (40, 190), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (235, 235, 235), 2, cv2.LINE_AA)
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return buffer.tobytes()


def _part(jpeg: bytes) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n".encode()
            + jpeg + b"\r\n")


def video_parts(live_view, heartbeat_s: float, max_life_s: float, first_wait_s: float = 1.0,
                clock: Callable[[], float] = time.monotonic) -> Iterator[bytes]:
    """MJPEG parts: every new picture; the last one again after ``heartbeat_s`` of silence (so a
    viewer that left is noticed); the placeholder while the camera has sent nothing."""
    started = clock()
    latest = live_view.wait_for_jpeg(0, first_wait_s)
    number, jpeg = latest if latest else (0, placeholder_jpeg())
    yield _part(jpeg)
    while clock() - started < max_life_s:
        wait = min(heartbeat_s, max(0.0, max_life_s - (clock() - started)))
        fresh = live_view.wait_for_jpeg(number, wait)
        if fresh is not None:
            number, jpeg = fresh
        yield _part(jpeg)


@bp.get("/live.mjpg")
def live_video():
    """The camera's live view with the detections drawn on it, as MJPEG (capped like the event stream)."""
    gate = _enter_or_refuse("video", "camera views")
    heartbeat, life = _timing()
    body = video_parts(runtime().live_view, heartbeat, life)
    return Response(
        SlotStream(body, gate),
        mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        direct_passthrough=True,
    )


@bp.get("/live.jpg")
def live_still():
    """One picture of the live view (for calibration: a still to click on). Not a stream, not capped.

    ``?wait=S`` (0 to 5 seconds, default 2) is how long to wait for the camera's first picture.
    """
    wait = request.args.get("wait", 2.0, type=float)
    wait = 2.0 if wait is None or not 0 <= wait <= 5 else wait
    latest = runtime().live_view.wait_for_jpeg(0, wait)
    response = Response(placeholder_jpeg() if latest is None else latest[1], mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Companion-Placeholder"] = "1" if latest is None else "0"
    return response


@bp.get("/roll/<name>.jpg")
def roll_picture(name: str):
    """The tray as a recent roll was read (dice boxed and labelled), named by the alerts about that roll.
    Kept in memory for the last few rolls: an older name gets 404 and a picture saying so."""
    jpeg = runtime().roll_pictures.jpeg(name)
    if jpeg is None:
        response = Response(placeholder_jpeg("This roll's picture is gone"), status=404, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "no-store"
    else:
        response = Response(jpeg, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "private, max-age=3600"  # a roll's picture never changes
    return response
