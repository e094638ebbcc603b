"""Does the companion's memory stay flat over a game night? (issue 15: under 10 MB per hour after warm-up,
within 200 MB however long it runs.)

Runs the whole appliance in this process, as ``companion run`` does on a machine without a camera:
the demo camera playing its scripted Fabled Fruit game through the vision pipeline, the referee and
the event log, simulated LEDs, the dashboard on a free port with one phone following the event
stream and another asking for the state every few seconds. Every minute it samples the resident
memory (RSS), the event count and, with tracemalloc, the places whose allocations grew most since
the last sample and since the end of the warm-up. At the end it prints the RSS curve and the
growth per hour fitted over the samples after the warm-up.

    .venv/bin/python bench/soak.py                 # 5 minutes (warm-up 1)
    nice -n 10 .venv/bin/python bench/soak.py --minutes 60          # the long one (warm-up 5)
    .venv/bin/python bench/soak.py --minutes 10 --no-tracemalloc    # RSS without tracemalloc's own cost

RSS includes tracemalloc's bookkeeping when it is on; the table shows it separately.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import tracemalloc
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.appliance import Appliance  # noqa: E402
from companion.config import Config  # noqa: E402

TOP = 6


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Quiet:
    def notify(self, text: str) -> None:
        pass


def follow_stream(url: str, stop: threading.Event, counts: dict) -> None:
    """A phone on the Table page: reads the event stream until told to stop (reconnects like EventSource)."""
    while not stop.is_set():
        try:
            with urllib.request.urlopen(url, timeout=30) as stream:
                for line in stream:
                    counts["stream_bytes"] += len(line)
                    if stop.is_set():
                        return
        except OSError:
            stop.wait(1)


def poll_state(url: str, stop: threading.Event, counts: dict) -> None:
    """A second phone that reloads now and then."""
    while not stop.wait(5):
        try:
            with urllib.request.urlopen(url, timeout=10) as reply:
                counts["state_bytes"] += len(reply.read())
        except OSError:
            pass


def growth_per_hour(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (minutes, MB), in MB per hour."""
    if len(samples) < 2:
        return float("nan")
    n = len(samples)
    mean_t = sum(t for t, _ in samples) / n
    mean_m = sum(m for _, m in samples) / n
    var = sum((t - mean_t) ** 2 for t, _ in samples)
    return 60 * sum((t - mean_t) * (m - mean_m) for t, m in samples) / var if var else float("nan")


def sparkline(values: list[float]) -> str:
    bars = "▁▂▃▄▅▆▇█"
    lo, hi = min(values), max(values)
    return "".join(bars[int((v - lo) / (hi - lo or 1) * (len(bars) - 1))] for v in values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to run (default 5)")
    parser.add_argument("--warmup", type=float, default=None, help="minutes before growth counts (default 5, "
                                                                     "or 1 for runs under 15 minutes)")
    parser.add_argument("--sample", type=float, default=60.0, help="seconds between samples (default 60)")
    parser.add_argument("--no-tracemalloc", action="store_true", help="RSS only (no growth sites)")
    parser.add_argument("--work-width", type=int, default=None, help="the demo camera's width (default: as run)")
    parser.add_argument("--no-phones", action="store_true", help="no stream reader or state poller (to tell "
                                                                "the dashboard's share of any growth)")
    args = parser.parse_args()
    warmup = args.warmup if args.warmup is not None else (5.0 if args.minutes >= 15 else 1.0)
    if not args.no_tracemalloc:
        tracemalloc.start(8)
    from hardware.gpio import make_pin_factory

    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder)
        changes = {"server": {"host": "127.0.0.1", "pin": "123456"}}
        if args.work_width:
            changes["camera"] = {"work_width": args.work_width}
        config = Config.defaults().with_changes(changes)
        appliance = Appliance(config, data_dir, camera_backend="demo", pin_factory=make_pin_factory("mock"),
                              port=0, notifier=Quiet())
        appliance.start()
        stop = threading.Event()
        counts = {"stream_bytes": 0, "state_bytes": 0}
        base = f"http://127.0.0.1:{appliance.port}"
        phones = [threading.Thread(target=follow_stream, args=(f"{base}/api/stream", stop, counts), daemon=True),
                  threading.Thread(target=poll_state, args=(f"{base}/api/state", stop, counts), daemon=True)]
        for phone in [] if args.no_phones else phones:
            phone.start()
        loop = threading.Thread(target=appliance.serve_until, args=(stop,), name="main-loop", daemon=True)
        loop.start()
        started = time.monotonic()
        print(f"soak: {args.minutes:g} min, warm-up {warmup:g} min, sample every {args.sample:g} s, "
              f"tracemalloc {'off' if args.no_tracemalloc else 'on'}; dashboard {base}", flush=True)
        print(f"{'min':>5} {'RSS MB':>7} {'tm MB':>6} {'events':>7} {'frames':>7} {'games':>5}  top growth since last sample",
              flush=True)
        samples: list[tuple[float, float]] = []
        previous = warm = None
        try:
            while True:
                elapsed = (time.monotonic() - started) / 60
                rss = rss_mb()
                overhead = tracemalloc.get_tracemalloc_memory() / 1e6 if tracemalloc.is_tracing() else 0.0
                events = appliance.log.count_events()
                frames = appliance.supervisor.frames if appliance.supervisor else 0
                games = appliance.demo.games_started if appliance.demo else 0
                line = f"{elapsed:>5.1f} {rss:>7.1f} {overhead:>6.1f} {events:>7} {frames:>7} {games:>5}"
                if tracemalloc.is_tracing():
                    snap = tracemalloc.take_snapshot().filter_traces(
                        [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen*>")])
                    if previous is not None:
                        top = snap.compare_to(previous, "lineno")[:2]
                        line += "  " + "; ".join(f"{_site(s)} {s.size_diff / 1024:+.0f} KB" for s in top)
                    previous = snap
                    if warm is None and elapsed >= warmup:
                        warm = snap
                print(line, flush=True)
                if elapsed >= warmup:
                    samples.append((elapsed, rss - overhead))
                if elapsed >= args.minutes:
                    break
                time.sleep(max(0.0, args.sample - (time.monotonic() - started) % args.sample))
        finally:
            stop.set()
            loop.join(5)
            appliance.stop()
        print()
        curve = [m for _, m in samples]
        if curve:
            print(f"RSS after warm-up (minus tracemalloc): {curve[0]:.1f} -> {curve[-1]:.1f} MB, peak {max(curve):.1f} MB")
            print(f"curve: {sparkline(curve)}  ({min(curve):.1f} .. {max(curve):.1f} MB)")
            rate = growth_per_hour(samples)
            print(f"growth after warm-up: {rate:+.1f} MB/hour (target < 10), peak RSS {max(curve):.1f} MB "
                  f"(target < 200)")
        if warm is not None and previous is not None and previous is not warm:
            print(f"\ntop {TOP} growth sites since the end of the warm-up (tracemalloc):")
            for stat in previous.compare_to(warm, "traceback")[:TOP]:
                print(f"  {stat.size_diff / 1024:+8.0f} KB in {stat.count_diff:+6d} blocks")
                for frame in stat.traceback.format(limit=4, most_recent_first=True):
                    print(f"      {frame}")
        print(json.dumps({"stream_bytes": counts["stream_bytes"], "state_bytes": counts["state_bytes"]}))
    return 0


def _site(stat) -> str:
    frame = stat.traceback[0]
    parts = Path(frame.filename).parts
    short = "/".join(parts[-2:])
    return f"{short}:{frame.lineno}"


if __name__ == "__main__":
    raise SystemExit(main())
