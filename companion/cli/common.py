"""Arguments and helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Iterator

from companion.errors import DatabaseDamaged, DatabaseUnavailable, SetupError
from companion.eventlog import DB_NAME, EventLog, default_data_dir
from companion.faults import steps


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
    """The event log named by ``--db``, else the one in the data directory; a file that cannot be used
    is refused in one line with what to do."""
    db = getattr(args, "db", None)
    try:
        return EventLog(db) if db else EventLog(data_dir(args) / DB_NAME)
    except DatabaseDamaged as exc:
        kind = "not_a_database" if db else "damaged"
        raise DatabaseDamaged(f"{exc}. {steps(kind)}") from None
    except DatabaseUnavailable as exc:
        raise DatabaseUnavailable(f"{exc}. {steps(exc.kind)}", exc.kind) from None


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


MAX_DOCUMENT_BYTES = 16 * 1024 * 1024  # a campaign of years is a few MB; more would not fit a Pi's memory


def read_document(path, *, limit: int = MAX_DOCUMENT_BYTES):
    """An import: JSON from ``path`` (``-`` for stdin); SetupError saying what is wrong with it.

    Refused before it is parsed when larger than ``limit`` bytes; refused when it is not
    UTF-8, holds NaN or Infinity (no export writes them) or nests too deep to read.
    """
    try:
        if str(path) == "-":
            raw = sys.stdin.buffer.read(limit + 1)
        else:
            size = path.stat().st_size
            if size > limit:
                raise SetupError(f"{path} is {size / 2**20:.1f} MB: an export is at most {limit / 2**20:.0f} MB")
            raw = path.read_bytes()
    except OSError as exc:
        raise SetupError(f"cannot read {path}: {exc.strerror}") from None
    if len(raw) > limit:
        raise SetupError(f"the document is larger than {limit / 2**20:.0f} MB: not an export of this companion")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SetupError(f"{path} is not UTF-8 text (byte {exc.start}): not an export of this companion") from None
    return parse_json(text, str(path))


def parse_json(text: str, name: str):
    """JSON as exports write it: no NaN or Infinity, nesting a person could read."""
    def no_constants(word):
        raise ValueError(f"{word} is not a number an export holds")

    try:
        return json.loads(text, parse_constant=no_constants)
    except RecursionError:
        raise SetupError(f"{name} nests too deeply to be an export of this companion") from None
    except ValueError as exc:
        raise SetupError(f"{name} is not JSON: {exc}") from None
