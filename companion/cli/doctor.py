"""``companion doctor``: checks camera, GPIO wiring, database and service; exits 1 when something fails."""

from __future__ import annotations

from companion.cli.common import add_data_dir, data_dir, print_json


def register(sub) -> None:
    p = sub.add_parser("doctor", help="check the camera, LEDs and buttons, database and service")
    add_data_dir(p)
    p.add_argument("--camera", choices=["auto", "picamera2", "usb", "file", "demo"],
                   help="which camera to check (default: as `companion run` would choose)")
    p.add_argument("--no-blink", action="store_true", help="do not light the LEDs in turn")
    p.add_argument("--step", type=float, default=0.5, help="seconds each LED stays lit during the wiring walk")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.set_defaults(handler=run)


def run(args) -> int:
    from companion.config import Config
    from companion.doctor import FAIL, Check, failed, report, run_doctor
    from companion.errors import ConfigError

    directory = data_dir(args)
    unreadable = None
    try:
        config = Config.in_dir(directory)
    except ConfigError as exc:  # reported like every other check; the rest is checked with the defaults
        unreadable = Check("configuration", "settings", FAIL, f"{exc}: companion run refuses to start with it")
        config = Config.defaults()
    say = (lambda text: None) if args.json else (lambda text: print(text, flush=True))
    checks = run_doctor(config, directory, backend=args.camera, blink=not args.no_blink, step=args.step, say=say)
    if unreadable is not None:
        checks[0] = unreadable
    if args.json:
        print_json([c.to_json() for c in checks])
    else:
        print(report(checks))
    return 1 if failed(checks) else 0
