"""``companion run``: camera, rules, LEDs and the dashboard on the local network."""

from __future__ import annotations

import logging
import secrets
import signal
import threading
from pathlib import Path

from companion.cli.common import add_data_dir, data_dir
from companion.config import CONFIG_NAME, Config

_log = logging.getLogger(__name__)


def register(sub) -> None:
    p = sub.add_parser("run", help="run the companion: camera, rules, LEDs and the dashboard")
    add_data_dir(p)
    p.add_argument("--host", help="address to listen on (default from the configuration: 0.0.0.0)")
    p.add_argument("--port", type=int, help="dashboard port (default from the configuration: 8080)")
    p.add_argument("--camera", choices=["auto", "picamera2", "usb", "file", "demo"],
                   help="which camera to use (default: COMPANION_CAMERA, else [camera] backend, else auto)")
    p.add_argument("--no-gpio", action="store_true", help="run without LEDs and buttons")
    p.add_argument("--demo", metavar="GAME",
                   help="with the demo camera: the game its table plays (default [camera] demo_game, else the "
                        "first demo; e.g. fandooble: picture dice rolled into the tray)")
    p.add_argument("--record", type=Path, metavar="DIR",
                   help="record this game night into the new folder DIR (replay it with 'companion replay DIR')")
    p.set_defaults(handler=run)


def first_start_pin(directory) -> str | None:
    """On the very first start (no configuration file yet) a fresh six-digit PIN; None otherwise.

    No device ships with a guessable default: the PIN is made here and shown only
    on the Pi's own console (and journal). A PIN removed later on purpose stays removed.
    """
    if (Path(directory) / CONFIG_NAME).exists():
        return None
    return f"{secrets.randbelow(10**6):06d}"


def keep_first_start_pin(config: Config, directory) -> None:
    """Write the first start's configuration (with its PIN) once the companion has started.

    Only then: a start that is refused (locked database, another companion, a port in use)
    changes nothing in the data folder.
    """
    from companion.backups import refusal
    from companion.eventlog import unavailable

    path = Path(directory) / CONFIG_NAME
    try:
        config.save(path)
    except OSError as exc:  # a read-only or full card, another user's folder: a refusal, not a traceback
        raise refusal(unavailable(path, exc)) from None


def run(args) -> int:
    from companion.appliance import tell_systemd
    from companion.errors import CompanionError

    logging.captureWarnings(True)  # camera fallbacks and pin-factory warnings go to the journal
    try:
        return _run(args)
    except CompanionError as exc:
        tell_systemd(f"refused to start: {exc}")  # shown by systemctl status; the unit does not retry exit 2
        raise


def _run(args) -> int:
    from companion.appliance import Appliance, database_detail

    directory = data_dir(args)
    config = Config.in_dir(directory)  # a bad value stops here with file, key and reason
    made_pin = first_start_pin(directory)
    if made_pin:
        config = config.with_changes({"server": {"pin": made_pin}})
        saved = config
    overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    if overrides:
        config = config.with_changes({"server": overrides})
    appliance = Appliance(config, directory, camera_backend=args.camera, use_gpio=not args.no_gpio,
                          record_dir=args.record, demo_game=args.demo)
    if appliance.boot.fault:
        print(f"companion: {database_detail(appliance.boot)}", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        appliance.start()
        if made_pin:
            keep_first_start_pin(saved, directory)
    except BaseException:
        appliance.stop()
        raise
    if made_pin:
        print(f"First start: the game master's PIN is {made_pin}. It guards the configuration, imports and "
              f"resets; change it on the dashboard's Setup page or in {directory / CONFIG_NAME}.", flush=True)
    print(f"Table Companion is running: open {appliance.url} on a phone at the table (Ctrl+C stops it)", flush=True)
    if appliance.recording.active:
        print(f"Recording this game night to {appliance.recording.recorder.directory} "
              "(replay it with 'companion replay DIR')", flush=True)
    try:
        appliance.serve_until(stop)
    finally:
        appliance.stop()
    return 0
