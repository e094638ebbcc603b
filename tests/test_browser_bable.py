"""Bable in a real browser: the table screen and two seats' phones play a command, an answer and an
Idea card; each screen shows what its viewer may see and nothing more (Debian's chromium, Playwright)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.bable_table import FACTS
from tests.browser_seats import PIN, dashboard, runtime, screen  # noqa: F401  (fixtures)
from tests.test_browser_dashboard import (  # noqa: F401  (fixtures)
    LAPTOP,
    PHONE,
    browser_type_launch_args,
    hidden_sideways,
    not_blank,
    until,
)

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("COMPANION_SHOTS")  # a folder to keep the screenshots in, to look at them


def join_paths(page, url: str) -> dict[str, str]:
    """Each free seat's join link (the QR code on the Table page), as a path on this server."""
    seats = page.request.get(url + "/api/seats").json()["seats"]
    return {s["player"]: "/join/" + s["code"] for s in seats}


def text(page) -> str:
    return page.inner_text("main")


def test_a_command_an_answer_and_an_idea_card_each_screen_sees_its_own(dashboard, browser, runtime):
    url = dashboard
    runtime.new_game("bable", ["Anne", "Paul"], {"cards": FACTS})
    table, table_errors = screen(browser, url, "/bable", LAPTOP)
    links = join_paths(table, url)
    anne, anne_errors = screen(browser, url, links["Anne"], PHONE)
    paul, paul_errors = screen(browser, url, links["Paul"], PHONE)
    until(anne, "document.getElementById('who-am-i').textContent.includes(\"Anne's\")")

    # The deal: Anne on her phone (her dealt Word card and Building card are hers alone).
    form = anne.locator(".bable-form[data-phase=deal]")
    for n, resource in enumerate(["stone", "stone", "wood"], start=1):
        form.locator(f"select[name=resource-{n}]").select_option(resource)
    form.locator("select[name=word]").select_option("give")
    form.locator("select[name=building]").select_option("B1")
    form.locator("button[type=submit]").click()
    until(anne, "document.querySelector('#hand .bable-word.new b')?.textContent === 'Give'")
    paul_form = paul.locator(".bable-form[data-phase=deal]")
    for n, resource in enumerate(["cement", "tools", "wood"], start=1):
        paul_form.locator(f"select[name=resource-{n}]").select_option(resource)
    paul_form.locator("select[name=word]").select_option("build")
    paul_form.locator("select[name=building]").select_option("B2")
    paul_form.locator("button[type=submit]").click()

    # Anne commands Paul: Paul's phone asks him, the table waits for him, Anne's phone has nothing to answer.
    anne.click("button.command >> text=Command Paul")
    paul.wait_for_selector("text=Anne commands you")
    until(table, "document.getElementById('waiting').textContent.includes(\"Paul has not answered Anne's command yet\")")
    assert anne.locator("#actions").is_hidden()
    assert runtime.session.to_act() == ("Paul",) and runtime.session.current_player() == "Anne"

    # Paul understood it as Gather and draws two resources.
    paul.click("button.understood[data-symbol=gather]")
    paul.locator("select[name=drawn-1]").select_option("stone")
    paul.locator("select[name=drawn-2]").select_option("wood")
    paul.click("text=Gathered")
    until(table, "document.getElementById('waiting').textContent.includes(\"Anne's turn (action 2 of 2)\")")

    # Anne reveals a Word card, then draws her Idea card: a Word card with the Gather symbol.
    anne.click("text=Reveal: Build Word card")
    anne.click("button.idea-word[data-symbol=gather]")
    until(table, "document.getElementById('turn').textContent.startsWith('Turn 2: Paul is the overseer')")
    until(anne, "[...document.querySelectorAll('#hand .bable-word.new b')].map((b) => b.textContent).join() === 'Gather,Give'")

    # Anne's phone: her own secrets.
    assert "idea Anne word gather" in text(anne) and "Hall1" in text(anne)
    # Paul's phone and the table: the draw in public words, none of Anne's secrets.
    for page in (paul, table):
        until(page, "document.getElementById('log').textContent.includes('Anne drew an Idea card: a Word card')")
        body = text(page)
        assert "idea Anne word gather" not in body and "word give B1" not in body and "Hall1" not in body
    assert "Hall2" in text(paul) and "Hall2" not in text(table)
    assert table.locator("#mine").is_hidden()
    until(table, "document.querySelector('.bable-layer[data-layer=\"1\"] .deadline b')?.textContent === '12'")
    for page, name in ((table, "table"), (anne, "anne"), (paul, "paul")):
        png = page.screenshot(full_page=True)
        assert not_blank(png)
        if SHOTS:
            (Path(SHOTS) / f"bable-{name}.png").write_bytes(png)
    for page, size in ((table, LAPTOP), (anne, PHONE), (paul, PHONE)):
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        assert hidden_sideways(page) == []  # the players' table shown whole, row by row on a phone
    assert table_errors == anne_errors == paul_errors == []


def idea(state, me: str) -> str:
    return f"idea {me} word reveal" if state.decks[0].words else f"idea {me} B{state.unseen_buildings()[0]}"


def test_the_clock_turns_red_and_the_loss_is_everyones(dashboard, browser, runtime):
    url = dashboard
    runtime.new_game("bable", ["Anne", "Paul"], {"cards": FACTS})
    for move in ("deal Anne stone stone wood word give B1", "deal Paul cement tools wood word build B2"):
        runtime.play(move, source="dashboard")
    table, errors = screen(browser, url, "/bable", LAPTOP)
    turn = 0
    while runtime.session.state.decks[0].size > 1:
        me, you = ("Anne", "Paul") if turn % 2 == 0 else ("Paul", "Anne")
        for move in (f"reveal {me} word build", f"reveal {me} word give", idea(runtime.session.state, me)):
            runtime.play(move, source="dashboard")
        turn += 1
    until(table, "document.querySelector('.bable-layer[data-layer=\"1\"]')?.dataset.level === 'red'")
    me = runtime.session.state.players[runtime.session.state.overseer]
    for move in (f"reveal {me} word build", f"reveal {me} word give"):
        runtime.play(move, source="dashboard")
    state = runtime.session.state
    runtime.play(idea(state, me), source="dashboard")
    until(table, "!document.getElementById('outcome').hidden")
    assert table.inner_text("#outcome").startswith("You all lost: ")
    assert " won" not in table.inner_text("#outcome")
    assert table.locator(".bable-layer[data-layer=\"1\"]").get_attribute("data-level") == "lost"
    assert errors == []


def test_the_cards_page_fills_in_a_building_and_a_count(dashboard, browser, runtime):
    url = dashboard
    runtime.new_game("bable", ["Anne", "Paul"])
    page, errors = screen(browser, url, "/cards", PHONE)
    page.wait_for_selector("article[data-key='B7']")  # the game in play's cards come first
    keys = page.eval_on_selector_all("#card-table article", "(rows) => rows.map((r) => r.dataset.key)")
    assert keys[:3] == ["B1", "B2", "B3"] and keys[15] == "B16" and keys[16] == "C1" and "R-stone" in keys
    row = page.locator("article[data-key='B7']")
    assert "How many" not in row.inner_text()  # a building has no count
    row.locator("button >> text=Edit").click()
    inputs = page.eval_on_selector_all(".edit-row input", "(inputs) => inputs.map((i) => i.name)")
    assert inputs == ["name", "cost", "details"]
    page.fill(".edit-row input[name=cost]", "2 stone + wood")
    page.fill(".edit-row input[name=details]", "statue")
    page.click(".edit-row button[type=submit]")
    page.wait_for_selector("article[data-key='B7'] >> text=2 stone + 1 wood")
    page.locator("article[data-key='R-stone'] button >> text=Edit").click()
    assert page.eval_on_selector_all(".edit-row input", "(inputs) => inputs.map((i) => i.name)") == ["count"]
    page.fill(".edit-row input[name=count]", "40")
    page.click(".edit-row button[type=submit]")
    page.wait_for_selector("#toast >> text=the box has 36 Resource cards")
    assert errors == []


def test_a_head_shake_draws_a_confusion_card_on_the_phone_and_its_secret_stays_there(dashboard, browser, runtime):
    url = dashboard
    runtime.new_game("bable", ["Anne", "Paul"], {"cards": FACTS, "advanced": "yes"})
    for move in ("deal Anne stone stone wood word give B1", "deal Paul cement tools wood word build B2"):
        runtime.play(move, source="dashboard")
    table, table_errors = screen(browser, url, "/bable", LAPTOP)
    links = join_paths(table, url)
    anne, anne_errors = screen(browser, url, links["Anne"], PHONE)
    paul, paul_errors = screen(browser, url, links["Paul"], PHONE)

    # Anne's word means nothing to Paul: he shakes his head and draws a Confusion card on his phone.
    anne.click("button.command >> text=Command Paul")
    paul.click("text=No (shake head)")
    paul.wait_for_selector("text=Paul did not understand: draw the top Confusion card.")
    until(table, "document.getElementById('waiting').textContent.includes('Paul has not drawn the Confusion card yet')")
    paul.locator("select[name=effect]").select_option("words-down")
    paul.click("text=Carry it out")
    # His Word cards lie face down: nobody may command him until his next turn.
    until(anne, "document.querySelector('button.command')?.disabled === true")
    until(table, "document.getElementById('supplies').textContent.includes('words face down')")
    anne.click("text=Reveal: Build Word card")
    anne.click("button.idea-word[data-symbol=gather]")
    until(table, "!document.getElementById('supplies').textContent.includes('words face down')")

    # Paul's turn: Anne does not understand him and discards a Word card of her choice (a hand of three).
    paul.click("button.command >> text=Command Anne")
    anne.click("text=No (shake head)")
    anne.locator("select[name=effect]").select_option("drop-word")
    anne.locator("select[name=symbol]").select_option("build")
    anne.click("text=Carry it out")
    until(anne, "document.querySelector('#hand .bable-word.missing b')?.textContent === 'Build'")
    assert "confusion Anne drop-word build" in text(anne)
    for page in (paul, table):
        until(page, "document.getElementById('log').textContent.includes('confusion Anne drop-word: a Word card discarded face down')")
        assert "drop-word build" not in text(page)
    assert runtime.session.state.seats[0].hand_size == 3
    assert table_errors == anne_errors == paul_errors == []
