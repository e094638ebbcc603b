"""What the browser tests of games played with seats share: a dashboard with a game master's PIN (so
a seat's phone enters only its own moves) and a screen that is live before the test looks at it."""

from __future__ import annotations

import pytest

from companion.config import Config
from tests.test_browser_dashboard import TIMEOUT_MS, until
from tests.test_web_support import Served, make_app, runtime  # noqa: F401  (fixtures)

PIN = "246810"


@pytest.fixture
def dashboard(runtime, tmp_path):
    config = Config.from_mapping({"server": {"pin": PIN}}, str(tmp_path / "config.toml"))
    served = Served(make_app(runtime, config, TESTING=False, COMPANION_HEARTBEAT_S=0.5))
    yield served.url
    served.close()


def screen(browser, url: str, path: str, size: dict):
    """A page in a context of its own (a phone or the table screen) and the errors its scripts raise."""
    context = browser.new_context(viewport=size)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + path)
    if path.startswith("/join/"):  # the seat link takes the seat, then opens the game's page
        page.wait_for_url(lambda address: "/join/" not in address)
    until(page, "document.getElementById('conn').dataset.state === 'live'")
    return page, errors
