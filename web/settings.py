"""The configuration as the dashboard edits it: validated by :class:`companion.config.Config`, saved, applied.

Changes are checked with ``Config.with_changes`` (so the dashboard refuses exactly
what the file would refuse, naming the key and the reason) and written with
``Config.save``. The PIN and the trusted host names apply at once; everything
else is read by the camera, GPIO and server at start, so the answer says which
keys wait for a restart.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from companion.config import CONFIG_NAME, SCHEMA, Config

APPLIES_AT_ONCE = {("server", "pin"), ("server", "trusted_hosts")}
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

    def __call__(self) -> Config:
        return self._config

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
            if self.path is not None:
                updated.save(self.path)
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
