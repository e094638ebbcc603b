"""Arguments and helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Iterator

from companion.errors import SetupError
from companion.eventlog import DB_NAME, EventLog, default_data_dir


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help=f"where the database and configuration live (default {default_data_dir()}; env COMPANION_DATA_DIR)",
    )


def data_dir(args) -> Path:
    return Path(args.data_dir) if getattr(args, "data_dir", None) else default_data_dir()


def open_log(args) -> EventLog:
    """The event log named by ``--db``, else the one in the data directory."""
    db = getattr(args, "db", None)
    return EventLog(db) if db else EventLog(data_dir(args) / DB_NAME)


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """``["coins=80", "stash=10"]`` -> ``{"coins": "80", "stash": "10"}``."""
    options: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SetupError(f"--option {pair!r}: write KEY=VALUE, e.g. --option coins=80")
        options[key.strip()] = value.strip()
    return options


def parse_players(text: str | None) -> list[str]:
    if not text:
        raise SetupError("name the players in seat order: --players Anne,Paul")
    return [name.strip() for name in text.split(",")]


def numbered_lines(stream) -> Iterator[tuple[int, str]]:
    """Numbered non-blank lines of a move script, without ``#`` comments."""
    for number, line in enumerate(stream, start=1):
        line = line.split("#", 1)[0].strip()
        if line:
            yield number, line


def print_json(value) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    sys.stdout.flush()


def write_document(output, document) -> None:
    """An export: to the file named by ``-o`` (saying so), else as JSON on stdout."""
    if output:
        output.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"Wrote {output}")
    else:
        print_json(document)


def read_document(path):
    """An import: JSON from ``path`` (``-`` for stdin); SetupError saying what is wrong with it."""
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise SetupError(f"{path} is not JSON: {exc}") from None
