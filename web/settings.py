"""The configuration as the dashboard edits it: validated by :class:`companion.config.Config`, saved, applied.

Changes are checked with ``Config.with_changes`` and then
:func:`companion.configcheck.check_config`, the very check ``companion run`` makes
at start, so the dashboard never saves what the next start would refuse (the
answer names the key and the reason); then written with ``Config.save``. The PIN
and the trusted host names apply at once, also when the file is edited on the Pi
(``companion pin reset``); everything else is read by the camera, GPIO and server
at start, so the answer says which keys wait for a restart.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Callable

from companion.config import CONFIG_NAME, SCHEMA, Config
from companion.configcheck import check_config
from companion.errors import ConfigError

_log = logging.getLogger(__name__)
RELOAD_CHECK_S = 1.0  # how often the file is looked at for a PIN changed on the Pi

APPLIES_AT_ONCE = {("server", "pin"), ("server", "trusted_hosts"), ("table", "tray_px"), ("table", "picture_px")}
SECRET_KEYS = {("server", "pin")}


def config_path(config: Config, log_path: str | None) -> Path | None:
    """Where the configuration is saved: the file it was read from, else ``config.toml`` beside the
    event log; None when there is neither (an in-memory test setup)."""
    if config.source.endswith(".toml"):
        return Path(config.source)
    if log_path and log_path != ":memory:":
        return Path(log_path).parent / CONFIG_NAME
    return None


class ConfigStore:
    """The current configuration, shared by every request; changes are serialised."""

    def __init__(self, config: Config, path: Path | None, *, on_change: Callable[[Config], None] = lambda c: None):
        self._config = config
        self.path = path
        self._on_change = on_change
        self._lock = threading.Lock()
        self._stamp = self._file_stamp()
        self._looked = time.monotonic()

    def __call__(self) -> Config:
        return self._config

    def _file_stamp(self):
        try:
            stat = os.stat(self.path) if self.path is not None else None
        except OSError:
            return None
        return None if stat is None else (stat.st_mtime_ns, stat.st_size, stat.st_ino)

    def reload_if_changed(self) -> None:
        """Adopt the keys that apply at once (the PIN, trusted host names) when the file was changed on
        the Pi, e.g. by ``companion pin reset``: the game master's way in that no phone can block."""
        now = time.monotonic()
        if self.path is None or now - self._looked < RELOAD_CHECK_S:
            return
        self._looked = now
        stamp = self._file_stamp()
        if stamp == self._stamp or stamp is None:
            return
        try:
            on_disk = Config.load(self.path)
        except ConfigError as exc:
            _log.warning("the configuration file changed but is refused (%s); keeping the running one", exc)
            self._stamp = stamp
            return
        changes: dict[str, dict] = {}
        for section, key in APPLIES_AT_ONCE:
            changes.setdefault(section, {})[key] = on_disk.get(section, key)
        with self._lock:
            self._stamp = stamp
            updated = self._config.with_changes(changes)
            if updated.to_dict() == self._config.to_dict():
                return
            self._config = updated
        _log.info("the PIN or trusted host names were changed in %s: applied", self.path)
        self._on_change(updated)

    def describe(self) -> dict:
        """Every key with its value, default and help, for the settings form (the PIN itself is never sent)."""
        defaults = Config.defaults()
        sections = []
        for section, keys in SCHEMA.items():
            rows = []
            for key, spec in keys.items():
                value = self._config.get(section, key)
                secret = (section, key) in SECRET_KEYS
                rows.append({
                    "key": key,
                    "value": "" if secret else value,
                    "is_set": bool(value) if secret else None,
                    "secret": secret,
                    "default": "" if secret else defaults.get(section, key),
                    "type": _kind(defaults.get(section, key)),
                    "choices": list(getattr(spec.check, "choices", ())) or None,
                    "help": spec.help,
                    "applies": "now" if (section, key) in APPLIES_AT_ONCE else "restart",
                })
            sections.append({"name": section, "keys": rows})
        return {"sections": sections, "path": str(self.path) if self.path else None}

    def update(self, changes: dict) -> tuple[Config, list[str]]:
        """Check, save and apply ``changes`` (``{"server": {"port": 8081}}``).

        Raises :class:`~companion.errors.ConfigError` naming the key and the reason;
        then nothing is saved. Returns the new configuration and the keys that take
        effect only after a restart.
        """
        with self._lock:
            updated = self._config.with_changes(changes)
            check_config(updated)  # what companion run would refuse at the next start is never saved
            if self.path is not None:
                updated.save(self.path)
                self._stamp = self._file_stamp()
            previous, self._config = self._config, updated
        later = [
            f"{section}.{key}"
            for section, keys in SCHEMA.items()
            for key in keys
            if previous.get(section, key) != updated.get(section, key) and (section, key) not in APPLIES_AT_ONCE
        ]
        self._on_change(updated)
        return updated, later


def _kind(default) -> str:
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, list):
        return "list"
    return "text"
