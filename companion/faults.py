"""What to do after each fault the companion meets at start: one text, said everywhere.

The refusal on the terminal (and in ``systemctl status``), the dashboard's banner,
``companion doctor`` and the README's "When something goes wrong" section all name
the same steps; ``tests/test_faults.py`` checks that the README holds every one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fault:
    """One kind of fault: a short title and the steps that get the table going again."""

    kind: str
    title: str
    steps: str


FAULTS: dict[str, Fault] = {f.kind: f for f in (
    Fault("in_use", "another companion uses this data folder",
          "Stop the other companion first (sudo systemctl stop companion, or Ctrl+C in its terminal), "
          "or give this one its own folder with --data-dir. Nothing was changed."),
    Fault("locked", "another program holds the database",
          "Close the program that holds companion.db (a sqlite3 shell, a backup tool, another companion), "
          "then start again. Nothing was changed."),
    Fault("full", "the disk is full",
          "Free some space on the card (old files in backups/ or damaged/, or sudo journalctl --vacuum-size=50M), "
          "then start again. Nothing was changed."),
    Fault("readonly", "the data folder is on a read-only file system",
          "Make the file system writable again (sudo mount -o remount,rw on its mount point; a card that "
          "turned itself read-only is failing: copy the data folder off it) or choose another --data-dir. "
          "Nothing was changed."),
    Fault("permission", "the companion may not write its files",
          "Give the files back to the user the companion runs as: sudo chown -R companion:companion "
          "/var/lib/companion (or the data folder shown), then start again. Nothing was changed."),
    Fault("restored", "the database was damaged and a backup was restored",
          "Check the last games on the dashboard: what was played after the backup is lost. The damaged file "
          "is kept in damaged/ (sqlite3 FILE .recover may rescue more from it). Replace the SD card if this "
          "happens again."),
    Fault("lost", "moves were lost from the database",
          "Check the game in play and enter again the moves it is missing. Never delete companion.db-wal: "
          "it holds the newest moves until they are copied into companion.db."),
    Fault("empty", "the database was damaged and no good backup was found",
          "The companion started with an empty database. The damaged file is kept in damaged/: "
          "sqlite3 FILE .recover may rescue games from it. Replace the SD card if this happens again."),
    Fault("damaged", "the database is damaged",
          "Start the companion (companion run, or sudo systemctl restart companion): it moves the damaged file "
          "to damaged/ and restores the newest good backup."),
    Fault("io", "the card reports read or write errors",
          "The SD card is failing: stop the companion, copy the data folder to another card or computer, "
          "and replace the card."),
    Fault("path", "the path cannot hold a database",
          "Give a file name in a folder that exists and that the companion may write (--db, --data-dir)."),
    Fault("not_a_database", "the file is not a companion database",
          "Give --db a database the companion wrote (companion.db in the data folder), or a name that does "
          "not exist yet for a new one."),
)}


def steps(kind: str) -> str:
    """The steps for ``kind`` (empty for a kind without advice)."""
    fault = FAULTS.get(kind)
    return fault.steps if fault else ""
