"""The ``companion`` command. Each subcommand lives in its own module with ``register(subparsers)``."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import sys

from companion import __version__
from companion.errors import CompanionError

# Subcommand modules, in the order ``companion --help`` lists them. A module that is
# not there yet is left out, so the command always starts.
COMMANDS = ["run", "replay", "play", "campaign", "cards", "see", "tags", "dice", "doctor", "pin"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table Companion: reads the table, referees the rules, keeps the campaign.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more detail")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        module_name = f"{__name__}.{name}"
        if importlib.util.find_spec(module_name) is None:
            continue
        importlib.import_module(module_name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        return int(args.handler(args) or 0)
    except CompanionError as exc:
        print(f"companion {args.command}: {exc}", file=sys.stderr)
        return getattr(exc, "exit_status", 2)
    except KeyboardInterrupt:
        return 130
