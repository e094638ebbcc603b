"""Load on the dashboard: event-stream and live-view clients while the state API must keep answering.

Runs the real dashboard (``web.create_app``) on waitress on 127.0.0.1, sized as
``companion run`` sizes it (threads = event-stream cap + live-view cap + 4), with
a fake camera publishing 640x480 pictures at 10 fps and one Fandooble move per
second. The phases:

0. Quiet table (``--quiet-s`` seconds, default 60): three phones watch a Fabled Fruit game where
   nobody moves while the camera runs (its reading, the table's health changing, the same alert
   said again). Prints the bytes each phone receives a minute after its first whole state, beside
   what the whole state per change would have cost. Target: under 20 KB a minute. Then the same
   through the whole camera path: the appliance with the file camera showing a rendered table.

1. Game night (``--duration`` seconds, default 60): ``--sse`` event-stream clients
   (default 10), ``--video`` live-view clients (default 2) and one poller asking
   ``/api/state`` ``--poll-hz`` times a second. Prints the state API's latencies,
   how long a move takes to reach every event stream, and the live view's frame
   rate and longest gap.
2. Six seats (``--seats-s`` seconds, default 30): a six-player game with every seat
   claimed by a phone: six seat streams plus the table screen's, one move a second.
   Prints how long a move takes to reach every stream, and how many times each
   viewer's view was built per change (at most once: built once, sent to all).
3. Overload, side by side (``--overload-s`` seconds each, default 5): more event
   streams than the server has threads, once with the stream cap (ours: extras are
   answered 503 at once) and once without it (the alternative: every stream is
   accepted and holds a thread). Prints what the state API did in each case.

    .venv/bin/python bench/load_dashboard.py               # a minute of game night
    .venv/bin/python bench/load_dashboard.py --duration 10 # a quick look
    .venv/bin/python bench/load_dashboard.py --quiet-only  # bytes per phone with the camera running
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import random
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.config import Config  # noqa: E402
from companion.eventlog import EventLog  # noqa: E402
from companion.games import fandooble  # noqa: E402
from companion.runtime import Runtime  # noqa: E402
from web import create_app, patch  # noqa: E402


class Server:
    """The dashboard on waitress, as the appliance serves it."""

    def __init__(self, config: Config, data_dir: Path, *, threads: int | None = None):
        from waitress.server import create_server

        from companion.appliance import close_trigger_after_last_pull

        self.log = EventLog(data_dir / "companion.db")
        self.runtime = Runtime(config, self.log).start()
        self.app = create_app(config, self.runtime, {"COMPANION_HEARTBEAT_S": 2.0})
        server = config["server"]
        self.threads = threads or server["max_streams"] + server["max_video_streams"] + 4
        self.server = create_server(self.app, host="127.0.0.1", port=0, threads=self.threads,
                                    outbuf_high_watermark=2 * 1024 * 1024)
        close_trigger_after_last_pull(self.server.trigger)  # (as the appliance does: no traceback at close)
        self.port = self.server.effective_port
        self.closing = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.server.run()
        except OSError:
            if not self.closing.is_set():  # closing from this thread makes waitress's select fail: that is the stop
                raise

    def close(self) -> None:
        self.closing.set()
        self.server.close()
        self.runtime.stop()
        self.log.close()


class Camera(threading.Thread):
    """Publishes a busy 640x480 picture (about 40 KB as JPEG) ten times a second."""

    def __init__(self, runtime):
        super().__init__(daemon=True)
        self.runtime = runtime
        self.stop = threading.Event()
        rng = np.random.default_rng(1)
        self.frames = [rng.integers(0, 255, (480, 640, 3), np.uint8) for _ in range(4)]
        for frame in self.frames:
            cv2.GaussianBlur(frame, (0, 0), 2.0, dst=frame)

    def run(self) -> None:
        n = 0
        while not self.stop.wait(0.1):
            self.runtime.live_view.publish(self.frames[n % len(self.frames)])
            n += 1


class Mover(threading.Thread):
    """One Fandooble move a second, sampled from the rules; notes when each new state was published."""

    def __init__(self, runtime, players=("Lola", "Grace", "Paul")):
        super().__init__(daemon=True)
        self.runtime = runtime
        self.players = list(players)
        self.stop = threading.Event()
        self.published: dict[int, float] = {}
        self.rng = random.Random(7)

    def run(self) -> None:
        while not self.stop.wait(1.0):
            session = self.runtime.session
            state = session.state
            if state.over:
                self.runtime.new_game("fandooble", self.players)
                continue
            move = fandooble.random_chance(state, self.rng)
            if move is None or (state.rolls_this_turn and self.rng.random() < 0.4):
                legal = fandooble.legal_moves(state)
                move = next((m for m in legal if not isinstance(m, fandooble.Roll)), legal[0])
            started = time.perf_counter()
            self.runtime.play(move, source="cli")
            self.published[self.runtime.snapshot()["version"]] = started


def last_move_reached(mover: Mover, clients: list[EventClient], timeout: float = 5.0) -> None:
    """Wait until the mover's last state has reached every stream (one that does not within ``timeout``
    is counted as missing it)."""
    if mover.published:
        last = max(mover.published)
        deadline = time.monotonic() + timeout
        for client in clients:
            client.wait_for(last, max(0.0, deadline - time.monotonic()))


def get(port: int, path: str, timeout: float = 10.0) -> tuple[int, float]:
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        conn.close()


class EventClient(threading.Thread):
    """Reads the event stream; for every state it receives, when it arrived. ``cookie``: a phone's
    session (its seat)."""

    def __init__(self, port: int, cookie: str | None = None):
        super().__init__(daemon=True)
        self.port = port
        self.cookie = cookie
        self.status = None
        self.received: dict[int, float] = {}
        self.arrived = threading.Condition()  # notified with each state received
        self.stop = threading.Event()
        self.opened = threading.Event()
        self.bytes = 0  # everything read from the stream after its first whole state
        self.whole_bytes = 0  # what the same changes would have cost as whole states (the alternative)
        self.state = None

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", "/api/stream", headers={"Cookie": self.cookie} if self.cookie else {})
            response = conn.getresponse()
            self.status = response.status
            self.opened.set()
            if response.status != 200:
                response.read()
                return
            while not self.stop.is_set():
                line = response.fp.readline()
                if not line:
                    break
                if line.startswith(b"id: "):
                    with self.arrived:
                        self.received[int(line[4:])] = time.perf_counter()
                        self.arrived.notify_all()
                if self.state is not None:
                    self.bytes += len(line)
                if line.startswith(b"data: ") and line.strip() != b"data: {}":
                    self._take(json.loads(line[6:]))
            response.close()
        except OSError:
            self.opened.set()
        finally:
            conn.close()

    def wait_for(self, version: int, timeout: float) -> bool:
        """Whether the state ``version``, or a later one, arrived within ``timeout`` seconds (at once for a refused
        stream)."""
        with self.arrived:
            return self.arrived.wait_for(lambda: max(self.received, default=-1) >= version or self.status != 200,
                                         timeout)

    def _take(self, data: dict) -> None:
        if "ops" in data and self.state is not None:  # a patch: what it saved against the whole state
            self.state = patch.apply(self.state, data["ops"])
            self.whole_bytes += len(json.dumps(self.state, separators=(",", ":"), ensure_ascii=False).encode()) + 30
        elif "ops" not in data:
            self.state = data


class VideoClient(threading.Thread):
    """Reads the MJPEG live view; notes when each picture arrived."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.status = None
        self.arrivals: list[float] = []
        self.bytes = 0
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", "/api/live.mjpg")
            response = conn.getresponse()
            self.status = response.status
            if response.status != 200:
                response.read()
                return
            while not self.stop.is_set():
                line = response.fp.readline()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                    response.fp.readline()
                    self.bytes += len(response.fp.read(length))
                    self.arrivals.append(time.perf_counter())
            response.close()
        except OSError:
            pass
        finally:
            conn.close()


def poll(port: int, hz: float, duration: float, timeout: float) -> tuple[list[float], int, int]:
    """Ask /api/state ``hz`` times a second for ``duration`` seconds: latencies (s), errors, timeouts."""
    latencies, errors, timeouts = [], 0, 0
    end = time.perf_counter() + duration
    while time.perf_counter() < end:
        tick = time.perf_counter()
        try:
            status, took = get(port, "/api/state", timeout)
            latencies.append(took)
            errors += status != 200
        except (TimeoutError, OSError):
            timeouts += 1
        time.sleep(max(0.0, 1 / hz - (time.perf_counter() - tick)))
    return latencies, errors, timeouts


def ms(values: list[float], q: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]:.1f}"


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def game_night(args, data_dir: Path) -> None:
    server = Server(Config.defaults(), data_dir / "night")
    server.runtime.new_game("fandooble", ["Lola", "Grace", "Paul"])
    camera, mover = Camera(server.runtime), Mover(server.runtime)
    camera.start()
    rss_before, threads_before = rss_mb(), threading.active_count()
    events = [EventClient(server.port) for _ in range(args.sse)]
    videos = [VideoClient(server.port) for _ in range(args.video)]
    for client in events + videos:
        client.start()
    for client in events:
        client.opened.wait(5)
    mover.start()
    started = time.perf_counter()
    latencies, errors, timeouts = poll(server.port, args.poll_hz, args.duration, timeout=5.0)
    elapsed = time.perf_counter() - started
    mover.stop.set()
    mover.join(5)
    last_move_reached(mover, events)
    for client in events + videos:
        client.stop.set()
    rss_after = rss_mb()
    camera.stop.set()

    print(f"\nGame night: {args.sse} event streams, {args.video} live views, /api/state at {args.poll_hz:g} Hz, "
          f"one move a second, {elapsed:.0f} s (waitress, {server.threads} threads; "
          f"caps {Config.defaults().get('server', 'max_streams')} + {Config.defaults().get('server', 'max_video_streams')})")
    print(f"{'':<22}{'count':>8}{'errors':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    print(f"{'/api/state':<22}{len(latencies):>8}{errors + timeouts:>8}{ms(latencies, .5):>9}{ms(latencies, .95):>9}"
          f"{ms(latencies, .99):>9}{ms(latencies, 1.0):>9}")
    delays = []
    missed = 0
    for client in events:
        for version, sent in mover.published.items():
            if version in client.received:
                delays.append(client.received[version] - sent)
            elif client.status == 200:
                missed += 1
    refused = sum(c.status != 200 for c in events)
    print(f"{'move -> every stream':<22}{len(delays):>8}{missed + refused:>8}{ms(delays, .5):>9}{ms(delays, .95):>9}"
          f"{ms(delays, .99):>9}{ms(delays, 1.0):>9}")
    for i, video in enumerate(videos, 1):
        gaps = [b - a for a, b in zip(video.arrivals, video.arrivals[1:])]
        fps = len(video.arrivals) / elapsed
        kb = video.bytes / max(1, len(video.arrivals)) / 1024
        print(f"{f'live view {i}':<22}{len(video.arrivals):>8}{int(video.status != 200):>8}"
              f"   {fps:.1f} fps, {kb:.0f} KB a picture, longest gap {1000 * max(gaps, default=0):.0f} ms")
    print(f"memory {rss_before:.0f} -> {rss_after:.0f} MB; threads {threads_before} -> {threading.active_count()} "
          f"(the bench's own clients included)")
    server.close()


class QuietCamera(threading.Thread):
    """A camera watching a table where nobody moves, doing to the runtime what the pipeline does:
    pictures ten times a second, its reading (the ``vision`` part, a frame counter in it) on every
    picture, the table's health changing now and then (a hand over the corner tags), and the same
    problem said again every ``alert_s`` seconds (as the demo camera did)."""

    def __init__(self, runtime, flap_s: float = 1.3, alert_s: float = 11.0):
        super().__init__(daemon=True)
        self.runtime = runtime
        self.flap_s, self.alert_s = flap_s, alert_s
        self.stop = threading.Event()
        self.frames = 0
        self.picture = Camera(runtime).frames[0]
        runtime.add_snapshot_part("vision", lambda: {"frames": self.frames, "table": "tags", "tags_seen": 14,
                                                      "ignored": 0, "duplicates": [], "problems": [],
                                                      "stable_stacks": 6, "last_roll": None})

    def run(self) -> None:
        started = time.monotonic()
        flaps = alerts = 0
        while not self.stop.wait(0.1):
            self.frames += 1
            self.runtime.live_view.publish(self.picture)
            now = time.monotonic() - started
            if now >= (flaps + 1) * self.flap_s:
                flaps += 1
                in_view = flaps % 2 == 0
                self.runtime.set_health("table", "ok" if in_view else "degraded",
                                        "table in view (tags)" if in_view else
                                        "no table in view: the four corner tags are not all seen")
            if now >= (alerts + 1) * self.alert_s:
                alerts += 1
                self.runtime.raise_alert("the table does not match the game: 9:1 seen where nothing was laid out",
                                         source="camera")


def quiet_table(args, data_dir: Path) -> None:
    """Phones watching a game where nobody moves while the camera runs: bytes each phone receives."""
    server = Server(Config.defaults(), data_dir / "quiet")
    server.runtime.new_game("fable", ["Anne", "Paul", "Rachel"])
    camera = QuietCamera(server.runtime)
    phones = [EventClient(server.port) for _ in range(3)]
    for phone in phones:
        phone.start()
    for phone in phones:
        phone.opened.wait(5)
    first = server.runtime.version
    camera.start()
    time.sleep(args.quiet_s)
    camera.stop.set()
    changes = server.runtime.version - first
    for phone in phones:
        phone.stop.set()
    minutes = args.quiet_s / 60
    per_phone = sum(p.bytes for p in phones) / len(phones) / minutes / 1024
    whole = sum(p.whole_bytes for p in phones) / len(phones) / minutes / 1024
    print(f"\nQuiet table: 3 phones, the camera running (10 pictures a second, the table's health changing every "
          f"{camera.flap_s:g} s, the same alert every {camera.alert_s:g} s), no moves, {args.quiet_s:g} s: "
          f"{changes} changes")
    print(f"{'bytes per phone per minute':<30}{'KB/min':>10}")
    print(f"{'patches (ours)':<30}{per_phone:>10.1f}")
    print(f"{'whole state per change':<30}{whole:>10.1f}   ({whole / max(per_phone, 1e-9):.0f}x)")
    server.close()


def quiet_camera_path(args, data_dir: Path) -> None:
    """The quiet table through the whole camera path: ``companion run``'s appliance with the file camera
    showing one rendered picture of a Fabled Fruit table ten times a second (each picture read,
    stabilised and refereed as at a real table), a game in play and nobody moving."""
    from companion.appliance import Appliance
    from hardware.gpio import make_pin_factory
    from vision.synth.demo import DemoGame

    folder = data_dir / "camera-path"
    folder.mkdir()
    script = DemoGame(players=("Anne", "Paul"), second_sticker=True)
    picture = folder / "table.png"
    cv2.imwrite(str(picture), script.still(0)[0])
    config = Config.defaults().with_changes({"server": {"host": "127.0.0.1", "pin": "135790"},
                                            "camera": {"file_path": str(picture)}})
    appliance = Appliance(config, folder, camera_backend="file", pin_factory=make_pin_factory("mock"), port=0,
                          notifier=_Silent())
    appliance.start()
    stop = threading.Event()
    threading.Thread(target=appliance.serve_until, args=(stop,), daemon=True).start()
    try:
        appliance.runtime.new_game("fable", list(script.players), script.options())
        phones = [EventClient(appliance.port) for _ in range(3)]
        for phone in phones:
            phone.start()
        for phone in phones:
            phone.opened.wait(5)
        first, frames = appliance.runtime.version, appliance.supervisor.frames
        time.sleep(args.quiet_s)
        changes, frames = appliance.runtime.version - first, appliance.supervisor.frames - frames
        for phone in phones:
            phone.stop.set()
        alerts = appliance.runtime.snapshot().get("alerts", [])
    finally:
        stop.set()
        appliance.stop()
    minutes = args.quiet_s / 60
    per_phone = sum(p.bytes for p in phones) / len(phones) / minutes / 1024
    whole = sum(p.whole_bytes for p in phones) / len(phones) / minutes / 1024
    print(f"\nQuiet table through the camera path: 3 phones, the file camera showing a rendered Fabled Fruit "
          f"table ({frames} pictures read), no moves, {args.quiet_s:g} s: {changes} changes, "
          f"{len(alerts)} alerts on the panel")
    print(f"{'bytes per phone per minute':<30}{'KB/min':>10}")
    print(f"{'patches (ours)':<30}{per_phone:>10.1f}   target < 20")
    print(f"{'whole state per change':<30}{whole:>10.1f}   ({whole / max(per_phone, 1e-9):.0f}x)")


class _Silent:
    """systemd's notifier, for an appliance that is not a service."""

    def notify(self, text: str) -> None:
        pass


def claim_seat(port: int, player: str) -> str:
    """A phone taking ``player``'s seat by its link, as the seat card's QR code does: its session cookie."""
    import json

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/api/session")
        response = conn.getresponse()
        token = json.loads(response.read())["csrf"]
        cookie = response.getheader("Set-Cookie").split(";")[0]
        conn.request("GET", "/api/seats", headers={"Cookie": cookie})
        seats = json.loads(conn.getresponse().read())["seats"]
        code = next(seat["code"] for seat in seats if seat["player"] == player)
        conn.request("POST", "/api/seats/claim", body=json.dumps({"code": code}),
                     headers={"Cookie": cookie, "X-CSRF-Token": token, "Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status
        return (response.getheader("Set-Cookie") or cookie).split(";")[0]
    finally:
        conn.close()


def six_seats(args, data_dir: Path) -> None:
    """Every seat of a six-player game held by a phone, plus the table screen: a move a second."""
    from companion.session import Session

    players = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
    server = Server(Config.defaults(), data_dir / "seats")
    server.runtime.new_game("fandooble", players)
    builds: dict[tuple, int] = {}
    view = Session.view

    def counted(session, viewer, **kwargs):
        key = (server.runtime.version, viewer)
        builds[key] = builds.get(key, 0) + 1
        return view(session, viewer, **kwargs)

    Session.view = counted
    try:
        clients = [EventClient(server.port, claim_seat(server.port, p)) for p in players]
        clients.append(EventClient(server.port))  # the table screen
        for client in clients:
            client.start()
        for client in clients:
            client.opened.wait(5)
        mover = Mover(server.runtime, players)
        mover.start()
        time.sleep(args.seats_s)
        mover.stop.set()
        mover.join(5)
        last_move_reached(mover, clients)
        for client in clients:
            client.stop.set()
    finally:
        Session.view = view
    delays, missed = [], 0
    for client in clients:
        for version, sent in mover.published.items():
            if version in client.received:
                delays.append(client.received[version] - sent)
            else:
                missed += 1
    changes = len({version for version, _ in builds})
    print(f"\nSix seats: {len(players)} seat streams (each seat claimed by its phone) + the table screen, "
          f"one move a second, {args.seats_s:g} s")
    print(f"{'':<22}{'count':>8}{'missed':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    print(f"{'move -> every stream':<22}{len(delays):>8}{missed:>8}{ms(delays, .5):>9}{ms(delays, .95):>9}"
          f"{ms(delays, .99):>9}{ms(delays, 1.0):>9}")
    print(f"views built: {sum(builds.values())} for {changes} changes x {len(players) + 1} viewers; "
          f"most builds of one viewer's view for one change: {max(builds.values(), default=0)}")
    server.close()


def overload(args, data_dir: Path) -> None:
    """Side by side: more event streams than threads, with and without the cap."""
    threads = 8
    clients = threads + 4
    print(f"\nOverload: {clients} event streams on a server with {threads} threads, "
          f"then /api/state for {args.overload_s:g} s (2 s timeout)")
    print(f"{'':<24}{'streams 200':>12}{'refused 503':>12}{'answered':>10}{'timeouts':>10}{'p50 ms':>9}{'p95 ms':>9}")
    for label, cap in (("capped at 4 (ours)", 4), ("no cap (alternative)", 64)):
        config = Config.from_mapping({"server": {"max_streams": cap, "max_video_streams": 1}})
        server = Server(config, data_dir / label.split()[0], threads=threads)
        server.runtime.new_game("fandooble", ["Lola", "Grace"])
        streams = [EventClient(server.port) for _ in range(clients)]
        for client in streams:
            client.start()
        for client in streams:
            client.opened.wait(2)
        latencies, _, timeouts = poll(server.port, 10, args.overload_s, timeout=2.0)
        accepted = sum(c.status == 200 for c in streams)
        refused = sum(c.status == 503 for c in streams)
        print(f"{label:<24}{accepted:>12}{refused:>12}{len(latencies):>10}{timeouts:>10}"
              f"{ms(latencies, .5):>9}{ms(latencies, .95):>9}")
        for client in streams:
            client.stop.set()
        server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of game night (default 60)")
    parser.add_argument("--sse", type=int, default=10, help="event-stream clients (default 10)")
    parser.add_argument("--video", type=int, default=2, help="live-view clients (default 2)")
    parser.add_argument("--poll-hz", type=float, default=5.0, help="/api/state requests a second (default 5)")
    parser.add_argument("--overload-s", type=float, default=5.0, help="seconds of each overload run (default 5)")
    parser.add_argument("--seats-s", type=float, default=30.0, help="seconds of the six-seat run (default 30; 0: skip)")
    parser.add_argument("--quiet-s", type=float, default=60.0,
                        help="seconds of the quiet-table run (default 60; 0: skip)")
    parser.add_argument("--quiet-only", action="store_true", help="only the quiet-table run")
    args = parser.parse_args()
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # the uncapped run's queue warnings are the point
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        if args.quiet_s > 0:
            quiet_table(args, Path(tmp))
            quiet_camera_path(args, Path(tmp))
        if args.quiet_only:
            return 0
        game_night(args, Path(tmp))
        if args.seats_s > 0:
            six_seats(args, Path(tmp))
        if args.overload_s > 0:
            overload(args, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
