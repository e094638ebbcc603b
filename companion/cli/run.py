"""``companion run``: the runtime and the dashboard on the local network."""

from __future__ import annotations

import logging
import signal
import threading

from companion.cli.common import add_data_dir, data_dir
from companion.config import Config
from companion.eventlog import EventLog

_log = logging.getLogger(__name__)


def register(sub) -> None:
    p = sub.add_parser("run", help="run the companion: camera, rules, LEDs and the dashboard")
    add_data_dir(p)
    p.add_argument("--host", help="address to listen on (default from the configuration: 0.0.0.0)")
    p.add_argument("--port", type=int, help="dashboard port (default from the configuration: 8080)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from companion.appliance import Appliance

    directory = data_dir(args)
    config = Config.in_dir(directory)
    overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    if overrides:
        config = config.with_changes({"server": overrides})
    appliance = Appliance(config, directory)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    appliance.start()
    print(f"Table Companion is running: open {appliance.url} on a phone at the table (Ctrl+C stops it)", flush=True)
    try:
        appliance.serve_until(stop)
    finally:
        appliance.stop()
    return 0
