"""Card facts the players enter from their own cards, kept in the data directory.

The rulebooks leave many card facts unknown (Fabled Fruit's prices, names and
actions beyond locations 1-3). Games ship those fields empty; players fill them in
from the cards in their box. Their entries live in ``<data dir>/cards/<game>.json``,
apart from the installed package, so upgrades never touch them, and they can be
exported and imported as JSON.

Any game with such a table exposes a ``CARDS`` module (see
:mod:`companion.games.fable.cardtable`): ``defaults()``, ``check_key``,
``parse_field``, ``check_field``, ``merged(overrides)``, ``to_option``, ``describe`` and ``OPTION``.
Engines never read these files: :meth:`CardData.options` gives the setup option that
carries the entries into a game, so a game replays with the facts it was played with.

>>> import tempfile
>>> cards = CardData(tempfile.mkdtemp(), "fable")
>>> cards.set_text("7", {"price": "6 smoothies"})["price"]
{'fruits': {}, 'smoothies': 6}
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator, Mapping

from companion import games
from companion.errors import ConfigError, SetupError
from companion.files import make_folder, owned_by_folder, replace_file

FORMAT = "table-companion/card-facts"
VERSION = 1


class CardData:
    """The players' card facts for one game: read, change, export, import."""

    def __init__(self, data_dir: str | os.PathLike, game: str):
        rules = games.get(game)
        table = rules.CARDS
        if table is None:
            raise SetupError(f"{rules.TITLE} has no card table to fill in")
        self.game = game
        self.table: ModuleType = table
        self.path = Path(data_dir) / "cards" / f"{game}.json"

    # -- reading ------------------------------------------------------------------

    def overrides(self) -> dict[str, dict[str, Any]]:
        """The players' entries: {key: {field: value}} (empty when none were made)."""
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot read the card facts ({exc})") from None
        try:
            document = json.loads(text)
            if not isinstance(document, dict) or document.get("format") != FORMAT:
                raise ValueError(f"not a {FORMAT} file")
            return self._checked(document.get("entries"))
        except ValueError as exc:
            raise ConfigError(
                f"{self.path}: the card facts are damaged ({exc}); restore it from an export or delete it"
            ) from None

    def merged(self) -> dict[str, dict]:
        """Every entry as a game will use it: shipped facts with the players' entries, marked where unknown."""
        return self.table.merged(self.overrides())

    def entry(self, key: Any) -> dict:
        key = self._key(key)
        return self.merged()[key]

    def unverified(self) -> list[str]:
        """Keys whose card still has unknown facts."""
        return [k for k, e in self.merged().items() if not e["verified"]]

    def options(self) -> dict[str, str]:
        """The setup option carrying every known fact (shipped and entered) into a new game."""
        return {self.table.OPTION: self.table.to_option(self.overrides())}

    # -- changing -----------------------------------------------------------------

    def set(self, key: Any, fields: Mapping[str, Any]) -> dict:
        """Store facts in their JSON form; a None value forgets the entry (the shipped fact applies again)."""
        key = self._key(key)
        checked = {}
        for name, value in fields.items():
            try:
                checked[name] = self.table.check_field(name, value)
            except ValueError as exc:
                raise SetupError(f"{self.table.TITLE} {key}: {exc}") from None
        with self._locked():
            overrides = self.overrides()
            entry = dict(overrides.get(key, {}))
            for name, value in checked.items():
                if value is None:
                    entry.pop(name, None)
                else:
                    entry[name] = value
            if entry:
                overrides[key] = entry
            else:
                overrides.pop(key, None)
            self._validate_merge(overrides)
            self._write(overrides)
        return self.merged()[key]

    def set_text(self, key: Any, fields: Mapping[str, str]) -> dict:
        """Store facts as typed on the command line (``price=3 grapes + 1 smoothie``)."""
        key = self._key(key)
        parsed = {}
        for name, text in fields.items():
            try:
                parsed[name] = self.table.parse_field(name, text)
            except ValueError as exc:
                raise SetupError(f"{self.table.TITLE} {key}: {name}={text}: {exc}") from None
        return self.set(key, parsed)

    def clear(self, key: Any, fields: list[str] | None = None) -> dict:
        """Forget the players' entries for ``key`` (all of them, or the named fields)."""
        key = self._key(key)
        with self._locked():
            overrides = self.overrides()
            entry = dict(overrides.get(key, {}))
            for name in fields or list(entry):
                if name not in self.table.FIELDS:
                    raise SetupError(f"'{name}' is not a fact of a {self.table.TITLE} card ({', '.join(self.table.FIELDS)})")
                entry.pop(name, None)
            if entry:
                overrides[key] = entry
            else:
                overrides.pop(key, None)
            self._write(overrides)
        return self.merged()[key]

    # -- export and import ------------------------------------------------------------

    def export(self) -> dict:
        """The players' entries as a JSON document :meth:`import_` reads back exactly."""
        return {"format": FORMAT, "version": VERSION, "game": self.game, "entries": self.overrides()}

    def import_(self, document: Any, *, replace: bool = False) -> dict[str, dict]:
        """Take entries from an exported document, merged over ours (or replacing them all).

        A document that is not an export of this game's card facts, or holds a fact that
        does not check, is refused with the reason and nothing changes.
        """
        if not isinstance(document, dict):
            raise SetupError("not a card-facts export: expected a JSON object")
        if document.get("format") != FORMAT:
            raise SetupError(f"not a card-facts export (format should be '{FORMAT}')")
        if document.get("version") != VERSION:
            raise SetupError(f"card-facts export version {document.get('version')!r}: this companion reads version {VERSION}")
        if document.get("game") != self.game:
            raise SetupError(f"these card facts are for {document.get('game')!r}, not {self.game}")
        extra = set(document) - {"format", "version", "game", "entries"}
        if extra:
            raise SetupError(f"card-facts export: unexpected field {', '.join(sorted(extra))}")
        try:
            incoming = self._checked(document.get("entries"))
        except ValueError as exc:
            raise SetupError(f"card-facts export: {exc}") from None
        with self._locked():
            overrides = {} if replace else self.overrides()
            for key, fields in incoming.items():
                overrides[key] = {**overrides.get(key, {}), **fields}
            self._validate_merge(overrides)
            self._write(overrides)
        return incoming

    # -- internals ----------------------------------------------------------------------

    def _key(self, key: Any) -> str:
        try:
            return self.table.check_key(key)
        except ValueError as exc:
            raise SetupError(str(exc)) from None

    def _checked(self, value: Any) -> dict[str, dict[str, Any]]:
        """Entries as stored, every key and field checked; ValueError with the reason."""
        if not isinstance(value, dict):
            raise ValueError("expected {key: {field: value}}")
        result = {}
        for key, fields in value.items():
            checked_key = self.table.check_key(key)
            if not isinstance(fields, dict):
                raise ValueError(f"{self.table.TITLE} {key}: expected {{field: value}}")
            entry = {}
            for name, field_value in fields.items():
                try:
                    checked = self.table.check_field(name, field_value)
                except ValueError as exc:
                    raise ValueError(f"{self.table.TITLE} {key}: {exc}") from None
                if checked is not None:
                    entry[name] = checked
            if entry:
                result[checked_key] = entry
        return result

    def _validate_merge(self, overrides: dict) -> None:
        try:
            self.table.merged(overrides)
        except ValueError as exc:
            raise SetupError(str(exc)) from None

    def _write(self, overrides: dict) -> None:
        """Replace the file atomically: a power cut leaves the old facts or the new ones, never half."""
        document = {"format": FORMAT, "version": VERSION, "game": self.game, "entries": overrides}
        text = json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        replace_file(self.path, lambda handle: handle.write(text.encode("utf-8")))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer at a time (the dashboard and a command may both change facts)."""
        make_folder(self.path.parent)
        lock_path = self.path.parent / f".{self.game}.lock"
        new = not lock_path.exists()
        with open(lock_path, "a") as lock:
            if new:
                owned_by_folder(lock_path)  # a lock made by 'sudo companion cards ...' is the service's to take too
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
