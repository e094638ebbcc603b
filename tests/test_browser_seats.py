"""Seats in real browsers: the table screen and two phones, each in its own browser context.

Each phone takes its seat by the link on the table screen's seat card; each sees its
own hand and only counts of the others; Paul's phone cannot enter Anne's move; the
shared screen never holds a private fact, neither on screen nor in the state its
script keeps. Played with the toy game of tests/toygame.py (a hidden hand and a
simultaneous secret pick). In Fandooble and Fabled Fruit a phone offers no button for
another player's choice.
"""

from __future__ import annotations

import contextlib

import pytest

from companion import games
from tests.test_browser_dashboard import (  # noqa: F401  (fixtures)
    LAPTOP,
    PHONE,
    TIMEOUT_MS,
    browser_type_launch_args,
    controls_off_screen,
    dashboard,
    hidden_sideways,
    runtime,
    until,
)
from tests.toygame import TOY

pytestmark = pytest.mark.browser

HANDS = {"Anne": "2 5 9", "Paul": "1 4 8"}


@pytest.fixture(autouse=True)
def toy_game():
    games.register(TOY)
    yield
    games.unregister(TOY.NAME)


def _open(browser, viewport, url, errors, *, lands_on: str | None = None):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    if lands_on is not None:
        page.wait_for_url(lands_on)  # the seat link takes the seat, then goes on to the game
    until(page, "document.getElementById('conn') && document.getElementById('conn').dataset.state === 'live'")
    return context, page


@contextlib.contextmanager
def _table(browser, url: str, players: tuple[str, ...]):
    """The table screen (a laptop) and ``join(player, lands_on)``: a phone that opens that player's seat link
    and lands on the page ``lands_on``. Yields (screen, join); every page is closed after, with no script errors."""
    errors: list[str] = []
    contexts = []
    context, screen = _open(browser, LAPTOP, url + "/", errors)
    contexts.append(context)
    screen.wait_for_selector(f".seat-card[data-player='{players[-1]}'] .seat-link")
    links = {p: screen.text_content(f".seat-card[data-player='{p}'] .seat-link") for p in players}

    def join(player: str, lands_on: str):
        context, phone = _open(browser, PHONE, links[player], errors, lands_on=url + lands_on)
        contexts.append(context)
        return phone

    yield screen, join
    for context in contexts:
        context.close()
    assert errors == [], f"script errors on the pages: {errors}"


def _hand_cell(page, player: str) -> str:
    """What the players table shows in the hand column for ``player``."""
    return page.evaluate(
        """(player) => {
            const table = document.querySelector('#players table');
            const column = [...table.querySelectorAll('thead th')].findIndex((th) => th.textContent === 'hand');
            const row = [...table.querySelectorAll('tbody tr')].find((tr) => tr.children[1].textContent === player);
            return row.children[column].textContent;
        }""", player)


def _log(page) -> list[str]:
    return page.eval_on_selector_all("#log li.kind-move .text", "(items) => items.map((i) => i.textContent)")


def test_the_table_screen_and_two_phones_each_see_only_what_they_may(dashboard, browser, runtime):
    url, _ = dashboard
    runtime.new_game("toy", ["Anne", "Paul"], {"rounds": "2"})
    runtime.play("deal Anne 2 5 9", source="camera")
    runtime.play("deal Paul 1 4 8", source="camera")
    with _table(browser, url, ("Anne", "Paul")) as (screen, join):
        assert screen.get_attribute(".seat-card[data-player='Anne'] img", "src").endswith("/qr.svg")
        phones = {}
        for player in ("Anne", "Paul"):
            phones[player] = join(player, "/")
            until(phones[player], f"document.getElementById('me').textContent === \"{player}'s phone\"")
        anne, paul = phones["Anne"], phones["Paul"]
        screen.wait_for_selector(".seat-card[data-player='Anne'].taken")  # the table screen sees Anne joined

        until(anne, "document.querySelector('#players table') !== null")
        assert _hand_cell(anne, "Anne") == HANDS["Anne"] and _hand_cell(anne, "Paul") == "3"
        until(paul, "document.querySelector('#players table') !== null")
        assert _hand_cell(paul, "Paul") == HANDS["Paul"] and _hand_cell(paul, "Anne") == "3"

        stored = runtime.log.count_events()
        paul.fill("#move", "pick Anne 9")
        paul.click("#play")
        paul.wait_for_selector("#toast.error >> text=only Anne's phone or the game master")
        assert runtime.log.count_events() == stored and runtime.session.to_act() == ("Anne", "Paul")

        anne.fill("#move", "pick Anne 9")
        anne.click("#play")
        anne.wait_for_selector("#log li.kind-move >> text=pick Anne 9")
        for page in (screen, paul):
            page.wait_for_selector("#log li.kind-move >> text=Anne chose a card")
        for page, viewer in ((screen, None), (paul, "Paul")):
            kept = page.evaluate("JSON.stringify(TC.snapshot)")  # what the page's script holds, not only shows
            assert "pick Anne 9" not in kept and "[2,5,9]" not in kept and "pick Anne 9" not in page.content()
        assert HANDS["Anne"] not in screen.content() and HANDS["Paul"] not in screen.content()

        paul.fill("#move", "pick Paul 8")
        paul.click("#play")  # the last pick: both are revealed on every screen
        for page in (screen, anne, paul):
            page.wait_for_selector("#log li.kind-move >> text=pick Anne 9")
            page.wait_for_selector("#log li.kind-move >> text=pick Paul 8")


def test_a_fandooble_phone_offers_only_the_choices_its_player_may_make(dashboard, browser, runtime):
    # Lola's turn, her loot to bank: her phone offers it; Grace's phone says whose choice it is instead of
    # a Bank button the companion would refuse. Both may still enter a roll by hand (the table's move).
    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace"])
    runtime.play("roll CCGK", source="camera")
    with _table(browser, url, ("Lola", "Grace")) as (_, join):
        lola, grace = join("Lola", "/fandooble"), join("Grace", "/fandooble")
        for phone in (lola, grace):
            phone.wait_for_selector("#actions-title >> text=Lola's choice")
        assert lola.is_visible("#bank") and lola.is_enabled("#bank") and not lola.is_visible("#actions-note")
        assert not grace.is_visible("#bank")
        assert grace.text_content("#actions-note") == "Lola banks or throws again on their phone."
        assert grace.is_visible("#manual")
        lola.click("#bank")  # her turn ends: now Grace's phone offers the choice, and Lola's does not
        grace.wait_for_selector("#actions-title >> text=Grace's choice")
        lola.wait_for_selector("#actions-title >> text=Grace's choice")
        assert grace.is_visible("#bank") and not lola.is_visible("#bank")
        for phone in (lola, grace):  # a seat's own view, whole on its phone
            assert hidden_sideways(phone) == [] and controls_off_screen(phone, PHONE["width"]) == []


def test_a_fabled_fruit_phone_offers_only_the_choices_its_player_may_make(dashboard, browser, runtime):
    url, _ = dashboard
    runtime.new_game("fable", ["Anne", "Paul"])
    current = runtime.session.current_player()
    other = "Paul" if current == "Anne" else "Anne"
    with _table(browser, url, ("Anne", "Paul")) as (_, join):
        theirs = join(other, "/fable")  # the mover's phone joins last: until then they choose on the shared screen
        theirs.wait_for_selector(f"#choices-title >> text={current}'s choice")
        assert theirs.text_content("#choices-help") == f"{current} chooses on the shared screen."
        mine = join(current, "/fable")
        mine.wait_for_selector("#choice-buttons button")
        theirs.wait_for_selector(f"#choices-help >> text={current} chooses on their phone.")
        assert theirs.locator("#choice-buttons button").count() == 0
        for phone in (mine, theirs):
            assert hidden_sideways(phone) == [] and controls_off_screen(phone, PHONE["width"]) == []
