"""The games the dashboard offers: every registered engine that imports and names itself."""

from __future__ import annotations

import logging

from companion import games

_log = logging.getLogger(__name__)


def available_games() -> list[dict]:
    """``[{"name", "title", "options"}]``; an engine that cannot be loaded is left out (and logged)."""
    result = []
    for name in games.names():
        try:
            rules = games.get(name)
            title = rules.TITLE
        except Exception:  # a broken or half-installed engine must not take the dashboard down
            _log.exception("the %s engine cannot be loaded; it is not offered", name)
            continue
        result.append({"name": name, "title": title, "options": sorted(getattr(rules, "OPTIONS", ()))})
    return result
