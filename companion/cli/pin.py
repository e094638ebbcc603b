"""``companion pin reset``: a new game-master PIN, set on the Pi itself.

The dashboard's PIN is rate-limited against guessing, per phone and overall; a phone
that keeps guessing can therefore lock everyone out for a while. Whoever has the Pi
(its console or SSH) gets back in here: the new PIN is written to the configuration,
the running companion applies it within a second, and every wrong guess so far is
forgotten. Phones unlocked with the old PIN are locked again.
"""

from __future__ import annotations

import secrets

from companion.cli.common import add_data_dir, data_dir


def register(sub) -> None:
    p = sub.add_parser("pin", help="reset the game master's PIN (on the Pi: the way in no phone can block)",
                       description=__doc__)
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True
    reset = verbs.add_parser("reset", help="make a new PIN (six random digits unless --pin gives one)")
    add_data_dir(reset)
    reset.add_argument("--pin", help="the new PIN: 4 to 12 digits")
    reset.set_defaults(handler=run_reset)


def run_reset(args) -> int:
    from companion.backups import refusal
    from companion.config import CONFIG_NAME, Config
    from companion.eventlog import unavailable

    directory = data_dir(args)
    path = directory / CONFIG_NAME
    pin = args.pin if args.pin is not None else f"{secrets.randbelow(10**6):06d}"
    updated = Config.in_dir(directory).with_changes({"server": {"pin": pin}})  # checked like every PIN
    try:
        updated.save(path)
    except OSError as exc:
        raise refusal(unavailable(path, exc)) from None
    print(f"The game master's PIN is now {pin}. A running companion uses it within a second; "
          "every wrong guess so far is forgotten and phones unlocked with the old PIN are locked again.")
    return 0
