"""The Grimm Forest in a real browser: two phones pick their collection cards in secret; neither phone nor the
table screen sees the other's pick before the reveal, all see both after it; then a build is entered and
checked (Debian's chromium, Playwright)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser_seats import PIN, dashboard, runtime, screen  # noqa: F401  (fixtures)
from tests.test_browser_dashboard import (  # noqa: F401  (fixtures)
    LAPTOP,
    PHONE,
    SMALL_PHONE,
    broken_words,
    hidden_sideways,
    browser_type_launch_args,
    not_blank,
    until,
)

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("COMPANION_SHOTS")  # a folder to keep the screenshots in, to look at them


def seat(page, player: str) -> tuple[str, str]:
    tile = page.locator(f".grimm-seat[data-player={player}]")
    return tile.get_attribute("data-state"), tile.locator(".what").inner_text()


def test_two_phones_pick_in_secret_and_everyone_sees_both_after_the_reveal(dashboard, browser, runtime):
    url = dashboard
    runtime.new_game("grimm", ["Anne", "Paul"], {})
    runtime.play("prince wood", source="dashboard")  # two players: the Prince Regal's die first
    table, table_errors = screen(browser, url, "/grimm", LAPTOP)
    links = {s["player"]: "/join/" + s["code"] for s in table.request.get(url + "/api/seats").json()["seats"]}
    anne, anne_errors = screen(browser, url, links["Anne"], PHONE)
    paul, paul_errors = screen(browser, url, links["Paul"], PHONE)
    until(table, "document.querySelectorAll('.grimm-seat[data-state=choosing]').length === 2")

    # Anne picks the Forest on her phone, then changes her mind to the Fields before the reveal.
    anne.click(".pick-location[data-location=forest]")
    until(anne, "document.querySelector('.grimm-seat[data-player=Anne] .what').textContent === 'you chose Forest'")
    for page in (table, paul):
        until(page, "document.querySelector('.grimm-seat[data-player=Anne]').dataset.state === 'chosen'")
        assert seat(page, "Anne") == ("chosen", "chosen")
        assert "gather Anne" not in page.inner_text("main") and "Anne chose a collection card" in page.inner_text("#log")
        assert page.locator(".grimm-pig").count() == 0
    anne.click("text=Change my card")
    until(table, "document.querySelector('.grimm-seat[data-player=Anne]').dataset.state === 'choosing'")
    anne.click(".pick-location[data-location=fields]")
    until(anne, "document.querySelector('.grimm-seat[data-player=Anne] .what').textContent === 'you chose Fields'")
    until(table, "document.querySelector('.grimm-seat[data-player=Anne]').dataset.state === 'chosen'")
    assert seat(paul, "Anne") == ("chosen", "chosen") and "Fields" not in paul.inner_text("#choosing")
    assert "gather Anne" not in table.inner_text("main") and "gather Anne" not in paul.inner_text("main")

    # Paul picks the Fields too: the last pick reveals both at once, on every screen, with the split.
    paul.click(".pick-location[data-location=fields]")
    for page in (table, anne, paul):
        until(page, "document.querySelectorAll('.grimm-seat[data-state=revealed]').length === 2")
        assert seat(page, "Anne") == ("revealed", "Fields") and seat(page, "Paul") == ("revealed", "Fields")
        until(page, "document.querySelectorAll('.grimm-location[data-location=fields] .grimm-pig').length === 2")
        took = page.locator(".grimm-location[data-location=fields] .grimm-took").inner_text()
        assert "Anne took 2 straw" in took and "Paul took 2 straw" in took
        assert "holds 1 straw" in page.locator(".grimm-location[data-location=fields]").inner_text()  # the rest stays
        assert "gather Anne fields" in page.inner_text("#log") and "gather Paul fields" in page.inner_text("#log")

    # Construction: Anne builds her straw floor on her phone; the companion checks and logs it.
    form = anne.locator(".grimm-form[data-phase=construction]")
    form.locator("select[name=part]").select_option("floor")
    form.locator("select[name=kind]").select_option("straw")
    form.locator("button >> text=Build").click()
    until(table, "document.getElementById('log').textContent.includes('build Anne floor straw')")
    anne.locator(".grimm-form[data-phase=construction] button >> text=Build").click()  # again: refused, said why
    anne.wait_for_selector("#toast >> text=already has a straw house under construction")
    assert runtime.session.state.at("Anne").building == (1, 0, 0)
    assert paul.locator("#actions").is_hidden()  # not his turn: nothing to enter on his phone

    for page, name in ((table, "table"), (anne, "anne"), (paul, "paul")):
        png = page.screenshot(full_page=True)
        assert not_blank(png)
        if SHOTS:
            (Path(SHOTS) / f"grimm-{name}.png").write_bytes(png)
    for page, size in ((table, LAPTOP), (anne, PHONE), (paul, PHONE)):
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        assert hidden_sideways(page) == []  # the players' table shown whole, row by row on a phone
    assert table_errors == anne_errors == paul_errors == []


@pytest.mark.parametrize("game, options, first", [("bable", {}, "Setup: each player"),
                                                  ("grimm", {}, "Round 1")])
def test_on_the_narrowest_phone_a_game_fits_the_screen_with_no_word_broken(dashboard, browser, runtime, game,
                                                                          options, first):
    # A seat's phone says whose phone it is in the header as well: on a 320-pixel phone that squeezed "Table
    # Compa / nion", and Bable's tower clock ran off the screen's edge.
    runtime.new_game(game, ["Anne", "Paul"], options)
    table, _ = screen(browser, dashboard, f"/{game}", SMALL_PHONE)
    links = {s["player"]: "/join/" + s["code"] for s in table.request.get(dashboard + "/api/seats").json()["seats"]}
    phone, _ = screen(browser, dashboard, links["Anne"], SMALL_PHONE)
    for page in (table, phone):
        until(page, f"document.getElementById('turn').textContent.startsWith({first!r})")
        assert page.evaluate("document.documentElement.scrollWidth") <= SMALL_PHONE["width"]
        assert broken_words(page) == []
        assert hidden_sideways(page) == []
    assert phone.text_content("#me") == "Anne's phone"
