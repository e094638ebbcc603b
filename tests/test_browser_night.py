"""A whole game night on a phone: forms that stay open while the camera keeps the state changing,
alerts that stay few, every page usable at 390 x 844, campaigns run from their page alone."""

from __future__ import annotations

import pytest

from tests.test_browser_dashboard import (  # noqa: F401  (fixtures)
    PHONE, SMALL_PHONE, _live, browser_type_launch_args, dashboard, page, runtime, until)

pytestmark = pytest.mark.browser


def _caught_up(page, runtime) -> None:
    """Wait until the page holds the companion's latest version (the update has arrived)."""
    until(page, f"TC.snapshot.version >= {runtime.version}")


def test_a_form_keeps_its_typed_text_through_20_state_updates(dashboard, page, runtime):
    url, _ = dashboard
    runtime.new_game("fable", ["Anne", "Paul"])
    runtime.play("move Anne 2", source="dashboard")  # location 2's action needs words: its form opens
    page.set_viewport_size(PHONE)
    page.goto(url + "/fable")
    _live(page)
    assert "(last turn)" not in page.text_content("#players")  # round 1: nobody's last turn yet
    page.click("#use-action")
    page.fill("#action-text", "give Paul banana take Paul 2")
    # A location's unknown facts being filled in, further down the page.
    page.click(".stack[data-location='4'] summary")
    page.fill(".stack[data-location='4'] input[name=name]", "Bakery")
    page.focus("#action-text")
    page.evaluate("window.scrollTo(0, 120)")
    where = page.locator("#action-text").bounding_box()["y"]
    for n in range(20):  # what a running camera does: health, its reading, an alert now and then, the LEDs
        if n % 5 == 4:
            runtime.raise_alert("the table does not match the game: 9:1 seen", source="camera")
        else:
            runtime.set_health("camera", "ok" if n % 2 else "degraded", f"frame {n}")
        _caught_up(page, runtime)
    assert page.is_visible("#action-form")
    assert page.input_value("#action-text") == "give Paul banana take Paul 2"
    assert page.evaluate("document.activeElement.id") == "action-text"
    assert page.input_value(".stack[data-location='4'] input[name=name]") == "Bakery"
    # Alerts appeared above it, yet the form stays where the player was looking.
    assert abs(page.locator("#action-text").bounding_box()["y"] - where) < 2
    assert page.text_content("#alerts .alert .meta").startswith("camera · 4 times")


def test_an_alerts_correction_stays_open_while_new_alerts_arrive(dashboard, page, runtime):
    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace"])
    page.goto(url + "/")
    _live(page)
    runtime.raise_alert("a die is cocked", source="camera")
    page.click("#alerts .alert button >> text=Correct")
    page.select_option("#alerts .correct-row select", "roll CCGK")  # one of the rolls the game allows now
    for n in range(5):
        runtime.raise_alert(f"die {n} could not be read", source="camera")
        _caught_up(page, runtime)
    # Older than the three newest, yet still in sight while it is being corrected.
    being_corrected = page.locator("#alerts .newest-alerts .alert", has_text="a die is cocked")
    assert being_corrected.locator("select").input_value() == "roll CCGK"
    being_corrected.locator(".correct-row button").click()
    until(page, "document.querySelectorAll('#alerts .alert').length === 5")
    assert [e.text for e in runtime.log.events(runtime.session.session_id) if e.kind == "move"] == ["roll CCGK"]


def test_thirty_repeated_camera_problems_are_one_alert_with_its_count(dashboard, page, runtime):
    url, _ = dashboard
    runtime.new_game("fable", ["Anne", "Paul"])
    page.set_viewport_size(PHONE)
    page.goto(url + "/fable")
    _live(page)
    for _ in range(30):
        runtime.raise_alert("location 3 lies on the table as two stacks: put its cards on one stack", source="camera")
    for n in range(6):
        runtime.raise_alert(f"the camera saw card {n}:1 it cannot place", source="camera")
    _caught_up(page, runtime)
    until(page, "document.querySelector('#alerts h2').textContent === '7 things need a person'")
    shown = page.locator("#alerts .newest-alerts .alert")
    assert shown.count() == 3  # the newest few; the others are folded away
    assert page.text_content("#alerts .older-alerts summary") == "4 older alerts"
    merged = page.locator("#alerts .alert >> text=two stacks")
    assert merged.count() == 1
    assert page.evaluate("document.getElementById('alerts').getBoundingClientRect().height") < 844
    page.click("#alerts .older-alerts summary")
    assert "30 times" in page.locator("#alerts .alert", has_text="two stacks").text_content()
    page.click("#dismiss-all")
    page.wait_for_selector("#alerts", state="hidden")
    assert runtime.snapshot()["alerts"] == []


def _inside_the_screen(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 0.5 \
        and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]


@pytest.mark.parametrize("path", ["/", "/fandooble", "/fable", "/campaigns", "/cards", "/setup"])
def test_every_tab_is_in_sight_on_a_phone_and_the_page_never_scrolls_sideways(dashboard, page, runtime, path):
    url, _ = dashboard
    runtime.new_game("fable", ["Anne", "Bartholomew-Maximilian-Ferdinand", "Paul"],
                     title="Supercalifragilisticexpialidocious-evening-with-the-whole-family")
    page.set_viewport_size(PHONE)
    page.goto(url + path)
    tabs = page.locator("nav.tabs a")
    assert tabs.count() >= 6
    for i in range(tabs.count()):
        assert _inside_the_screen(page, f"nav.tabs a >> nth={i}"), tabs.nth(i).text_content()
    assert _inside_the_screen(page, "nav.tabs a[aria-current=page]")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_while_a_page_scrolls_on_a_phone_what_stays_on_the_screen_takes_a_quarter_at_most(dashboard, page, runtime):
    # The seven tabs wrap to three to five rows on a phone; kept on the screen as a page scrolled, with the header
    # and the undo bar they covered 387 of a 320 x 568 phone's 568 pixels.
    url, _ = dashboard
    runtime.new_game("fable", ["Anne", "Paul"])
    for size in (PHONE, SMALL_PHONE, {"width": 360, "height": 640}):
        page.set_viewport_size(size)
        page.goto(url + "/fable")
        page.wait_for_selector("#players table")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
        until(page, "window.scrollY > 0")
        covered = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter((e) => ['fixed', 'sticky'].includes(getComputedStyle(e).position) && e.getClientRects().length)
            .map((e) => e.getBoundingClientRect())
            .filter((box) => box.bottom > 0 && box.top < window.innerHeight)
            .reduce((sum, box) => sum + Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0), 0)""")
        assert covered <= size["height"] / 4, size
        assert _inside_the_screen(page, "header.top")  # the header, its way home, stays
        page.evaluate("window.scrollTo(0, 0)")
        until(page, "window.scrollY === 0")
        assert _inside_the_screen(page, "nav.tabs a >> nth=-1"), size  # every tab is at the top of the page


def test_the_fandooble_decision_is_in_sight_without_scrolling(dashboard, page, runtime):
    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace", "Paul"])
    runtime.play("roll CCCF", source="camera")  # the Fandooble: Lola chooses whom it steals from
    page.set_viewport_size(PHONE)
    page.goto(url + "/fandooble")
    page.wait_for_selector("#steal:not([hidden])")
    _caught_up(page, runtime)  # the page laid out from the companion's latest state, not an earlier one
    assert page.evaluate("window.scrollY") == 0
    assert _inside_the_screen(page, "#steal-buttons button >> nth=-1"), _layout(page, "#steal-buttons button:last-child")
    assert _inside_the_screen(page, "#steal-title"), _layout(page, "#steal-title")


def _layout(page, selector: str) -> str:
    """Where ``selector`` is and how tall each part above it is: what pushed it out of sight, when it is."""
    return str(page.evaluate("""(selector) => {
        const at = (el) => el ? JSON.stringify(el.getBoundingClientRect()) : "absent";
        const part = (s) => document.querySelector(s);
        return {target: at(part(selector)), header: at(part("header")), banner: at(part("#banner")),
                alerts: at(part("#alerts")), alertTexts: part("#alerts") ? part("#alerts").innerText.slice(0, 300) : "",
                connection: part("#conn") ? part("#conn").textContent : "", firstCard: at(part("#fandooble .card")),
                shown: Array.from(document.querySelectorAll("body *")).filter((el) => el.offsetParent !== null
                    && el.getBoundingClientRect().top < 844 && el.children.length === 0 && el.textContent.trim())
                    .map((el) => `${el.tagName}#${el.id}@${Math.round(el.getBoundingClientRect().top)}`).join(" ")};
    }""", selector))


def test_a_card_is_edited_on_a_phone(dashboard, page, runtime):
    url, _ = dashboard
    page.set_viewport_size(PHONE)
    page.goto(url + "/cards")
    page.select_option("#card-game", "fable")
    page.click("article[data-key='5'] button >> text=Edit")
    form = ".edit-row[data-key='5']"
    for name in ("name", "price", "action"):
        box = page.locator(f"{form} input[name={name}]").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.click("article[data-key='6'] button >> text=Edit")  # one form at a time
    assert page.locator(".edit-row").count() == 1
    page.click("article[data-key='5'] button >> text=Edit")
    page.fill(f"{form} input[name=price]", "2 bananas + 1 smoothie")
    page.click(f"{form} button[type=submit] >> text=Save")
    page.wait_for_selector("article[data-key='5'] >> text=2 bananas + 1 smoothie")
    # Facts in words: the engine's rule names (draw2) are not shown.
    assert "draw2" not in page.text_content("#card-table")
    assert "the companion plays this action" in page.text_content("article[data-key='1']")


def test_a_campaign_is_parked_and_a_new_one_started_from_the_campaigns_page_alone(dashboard, page, runtime):
    url, _ = dashboard
    page.set_viewport_size(PHONE)
    page.goto(url + "/campaigns")
    page.click("#new-campaign summary")
    page.fill("#campaign-group", "Anne, Paul")
    page.fill("#campaign-title", "Tuesday group")
    page.click("#new-campaign-form button[type=submit]")
    page.wait_for_selector("#instructions-title >> text=Tuesday group")
    # A second group: the page says what to do and offers the button, no terminal command.
    page.click("#new-campaign summary")
    page.fill("#campaign-group", "Rachel, Tom")
    page.fill("#campaign-title", "Friday group")
    page.click("#new-campaign-form button[type=submit]")
    page.wait_for_selector("#toast.error >> text=park it first")
    assert "companion campaign" not in page.text_content("#toast")
    page.click("#campaign-actions button >> text=Park")
    page.wait_for_selector("#instructions-title >> text=Park 'Tuesday group'")
    parked = page.text_content("#instructions-steps")
    assert "Keep this campaign's bag aside" in parked or "no juices in a bag" in parked
    page.fill("#campaign-group", "Rachel, Tom")
    page.fill("#campaign-title", "Friday group")
    page.click("#new-campaign-form button[type=submit]")
    page.wait_for_selector("#instructions-title >> text=Friday group")
    # Its own players offered, never the parked group's (the page hides those at once).
    page.wait_for_selector("#start-game:not([hidden]) #start-players button >> text=Rachel")
    assert page.text_content("#start-players") == "RachelTom"
    page.click("#start-button")
    page.wait_for_url("**/fable")
    assert runtime.session is not None and runtime.session.players == ("Rachel", "Tom")


def test_the_first_purchase_of_a_location_with_an_unknown_price_asks_the_buyer_for_it(dashboard, page, runtime):
    url, _ = dashboard
    runtime.new_game("fable", ["Anne", "Paul"])
    for move in ("move Anne 1", "action Anne", "move Paul 5", "action Paul", "move Anne 4"):
        runtime.play(move, source="dashboard")
    page.set_viewport_size(PHONE)
    page.goto(url + "/fable")
    _live(page)
    page.click("#buy-juice")
    page.fill("#buy-price", "5 smoothies")  # more than Anne holds: refused, nothing stored
    page.click("#buy-form button[type=submit]")
    page.wait_for_selector("#toast.error >> text=Anne holds")
    page.fill("#buy-price", "4 smoothies")
    page.click("#buy-form button[type=submit]")
    page.wait_for_selector("#toast >> text=kept for every later game")
    moves = [e.text for e in runtime.log.events(runtime.session.session_id) if e.kind == "move"]
    assert moves[-1] == "buy Anne 4 price 4 smoothies"
    stored = page.evaluate("fetch('/api/cards/fable').then((r) => r.json()).then((d) => d.entries['4'])")
    assert stored["price_text"] == "4 smoothies" and "entered by the players" in stored["sources"]["price"]


def test_starting_a_game_while_one_is_in_play_asks_first_and_the_old_game_stays_stored(dashboard, page, runtime):
    url, _ = dashboard
    first = runtime.new_game("fandooble", ["Lola", "Grace"])["session_id"]
    runtime.play("roll CCCF", source="camera")
    page.set_viewport_size(PHONE)
    page.goto(url + "/setup")
    questions = []

    def answer(dialog):
        questions.append(dialog.message)
        dialog.dismiss() if len(questions) == 1 else dialog.accept()

    page.on("dialog", answer)
    page.select_option("#game-name", "fandooble")
    page.fill("#seat-1", "Anne")
    page.fill("#seat-2", "Paul")
    page.click("#new-game button[type=submit]")  # "no": the game in play stays
    until(page, "document.querySelector('#toast').textContent.includes('the game in play goes on')")
    assert runtime.session.session_id == first
    page.click("#new-game button[type=submit]")  # "yes"
    page.wait_for_url("**/fandooble")
    assert "Lola, Grace" in questions[0] and runtime.session.players == ("Anne", "Paul")
    assert first in [r.session_id for r in runtime.log.sessions(kind="game")]  # it can be opened again
