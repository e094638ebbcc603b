"""The games the dashboard offers: every engine the registry discovers, with its page if it has one."""

from __future__ import annotations

import logging
from pathlib import Path

from companion import games
from companion.campaign.model import GAME as CAMPAIGN_GAME

_log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).parent / "templates"


def has_page(name: str) -> bool:
    """Whether game ``name`` has a page of its own (``templates/<name>.html``)."""
    return name.isidentifier() and (TEMPLATES / f"{name}.html").is_file()


def available_games() -> list[dict]:
    """``[{"name", "title", "options", "players", "cooperative", "camera", "page", "campaigns"}]``, ``options``
    mapping each option to what it does; an engine that cannot be loaded is left out (and logged)."""
    result = []
    for name in games.names():
        try:
            rules = games.get(name)
            entry = {"name": name, "title": rules.TITLE, "options": dict(sorted(rules.OPTIONS.items())),
                     "players": list(rules.PLAYERS), "cooperative": rules.COOPERATIVE,
                     "camera": rules.CAMERA, "page": f"/{name}" if has_page(name) else None,
                     "campaigns": name == CAMPAIGN_GAME}
        except Exception:  # a broken or half-installed engine must not take the dashboard down
            _log.exception("the %s engine cannot be loaded; it is not offered", name)
            continue
        result.append(entry)
    return result
