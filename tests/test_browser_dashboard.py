"""The dashboard in a real browser: Debian's chromium driven by Playwright (never a downloaded browser).

The dashboard runs on waitress as on the Pi (threads = stream caps + 4). The
camera is simulated where its pipeline is not part of the test: a reading the
camera would hand to the runtime is played with ``source="camera"`` (or through
``runtime.observe`` with the game's referee where one exists), and the live view
gets pictures through ``runtime.live_view.publish`` as the camera pipeline does.
"""

from __future__ import annotations

import contextlib
import random
import re
import shutil
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.config import Config
from companion.games import fable
from companion.pipeline import tray_towards_edge
from companion.runtime import Runtime
from tests.test_web_support import Served, make_app, with_token

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE, LAPTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}
SMALL_PHONE = {"width": 320, "height": 568}  # the narrowest phones still in use (iPhone SE, first generation)
TIMEOUT_MS = 30_000  # only ends a failing wait: generous, so a loaded machine is waited for

pytestmark = pytest.mark.browser


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium); no browser is downloaded")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture
def runtime(log):
    with Runtime(Config.defaults(), log) as rt:
        yield rt




@pytest.fixture
def dashboard(runtime, tmp_path):
    """The dashboard served on 127.0.0.1; yields (base url, app)."""
    config = Config.from_mapping({"camera": {"work_width": 960}}, str(tmp_path / "config.toml"))
    app = make_app(runtime, config, TESTING=False, COMPANION_HEARTBEAT_S=0.5)
    served = Served(app)
    yield served.url, app
    served.close()


@pytest.fixture
def page(page):
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # Playwright's browser sends a page's file choosers and finished requests only once asked to, and expect_*()
    # asks without waiting for the answer: asked just before the key or the answer it waits for, the event may
    # come first and be missed (the likeliest cause of a CI run's 30 s wait for a file chooser). Asked here,
    # with the page, they are in place long before.
    page.on("filechooser", lambda chooser: None)
    page.on("requestfinished", lambda request: None)
    yield page
    assert errors == [], f"script errors on the page: {errors}"


def not_blank(png: bytes) -> bool:
    """More than a handful of colours: text, cards and buttons were drawn."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    colours = np.unique(image.reshape(-1, 3)[::7], axis=0)
    return len(colours) > 20


def broken_words(page, selector: str = "body") -> list[tuple[str, str]]:
    """Words of up to 14 letters that a line break splits, in what ``selector`` matches and is shown: (the
    element's tag, id and class, the word). Longer runs (a file name, a long player name) and web addresses may
    break."""
    return [tuple(found) for found in page.evaluate("""(selector) => {
        const found = [];
        for (const root of document.querySelectorAll(selector)) {
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const el = node.parentElement;
                if (!el || el.offsetParent === null || node.textContent.includes("://")) continue;  // not shown, or
                // a web address, which breaks where it must
                for (const word of node.textContent.matchAll(/[A-Za-z0-9'-]+/g)) {
                    if (word[0].length < 2 || word[0].length > 14) continue;
                    const range = document.createRange();
                    range.setStart(node, word.index);
                    range.setEnd(node, word.index + word[0].length);
                    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                    if (lines.size > 1) found.push([`${el.tagName}#${el.id}.${el.className}`, word[0]]);
                }
            }
        }
        return found;
    }""", selector)]


def controls_off_screen(page, width: int) -> list[tuple[str, str, int]]:
    """Shown buttons, fields and links that reach past either side of a screen ``width`` wide, as (tag, text,
    right edge): a phone shows them only when the player scrolls a table sideways, if they think of it."""
    return [tuple(found) for found in page.evaluate("""(width) => [...document.querySelectorAll(
            'button, select, input, textarea, a')]
        .filter((e) => e.offsetParent !== null && e.getClientRects().length)
        .map((e) => [e, e.getBoundingClientRect()])
        .filter(([, box]) => box.left < -0.5 || box.right > width + 0.5)
        .map(([e, box]) => [e.tagName, (e.textContent || e.name || '').trim().slice(0, 30), Math.round(box.right)])""",
        width)]


def hidden_sideways(page) -> list[tuple[str, int, int]]:
    """Shown boxes whose content is wider than they are, to be scrolled sideways (a table's last columns, off a
    phone's screen): (id or class, content width, box width)."""
    return [tuple(found) for found in page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1
                && ['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX))
        .map((e) => [e.id || e.className, e.scrollWidth, e.clientWidth])""")]


def until(page, expression: str, timeout_ms: int = TIMEOUT_MS) -> None:
    """Wait until ``expression`` is true in the page. (Playwright's wait_for_function evaluates a string
    inside the page, which the dashboard's Content-Security-Policy rightly forbids.)"""
    for _ in range(timeout_ms // 50):
        if page.evaluate(expression):
            return
        page.wait_for_timeout(50)
    assert page.evaluate(expression), f"never true: {expression}"


@contextlib.contextmanager
def camera_running(show, every_s: float):
    """A camera for the page under test: ``show(number)`` every ``every_s`` seconds (numbered from 1), for as long as
    the block lasts."""
    stop = threading.Event()

    def run():
        number = 0
        while not stop.wait(every_s):
            number += 1
            show(number)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(2)


def _live(page):
    until(page, "document.getElementById('conn').dataset.state === 'live'")


# -- the table and Fandooble -------------------------------------------------------------


def test_a_game_started_elsewhere_appears_without_reloading(dashboard, page, runtime):
    url, _ = dashboard
    page.goto(url + "/")
    _live(page)
    assert page.text_content("#game-title") == "No game in play"
    runtime.new_game("fandooble", ["Lola", "Grace"])
    until(page, "document.getElementById('turn').textContent === \"Lola's turn\"")
    runtime.play("roll CCGF", source="camera")  # as the dice referee would
    page.wait_for_selector("#log li.kind-move >> text=roll CCGF")
    assert page.text_content("#log li .src") == "camera"
    page.click("#end-turn >> text=End the turn (bank)")  # what the seat button does
    until(page, "document.getElementById('turn').textContent === \"Grace's turn\"")
    assert runtime.session.state.stashes == (13, 9)


def test_fandooble_roll_by_hand_steal_bank_undo_and_the_gold_chart(dashboard, page, runtime):
    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace", "Paul"])
    page.set_viewport_size(PHONE)
    page.goto(url + "/fandooble")
    _live(page)
    page.click("#manual summary")
    for die, face in enumerate("CCCF"):
        page.click(f"#pickers .dice:nth-child({die + 1}) button.face-{face}")
    page.click("#play-roll")
    page.wait_for_selector("#steal:not([hidden])")
    assert page.text_content("#loot") == "3"
    page.click("#steal-buttons button >> text=Paul")
    until(page, "document.getElementById('loot').textContent === '4'")
    page.click("#bank")
    until(page, "document.getElementById('turn').textContent === \"Grace's turn\"")
    until(page, "document.querySelectorAll('#gold-chart polyline').length === 3")
    assert runtime.session.state.stashes == (9, 5, 4)
    page.click("#undo")
    until(page, "document.getElementById('turn').textContent === \"Lola's turn\"")
    assert runtime.session.state.loot == 4
    page.click("#redo")
    until(page, "document.getElementById('turn').textContent === \"Grace's turn\"")


def test_every_face_name_on_a_phone_fits_its_die_and_no_word_is_broken(dashboard, page, runtime):
    # "Red drago / n" on a chip of the dragons on the table, "Fandoo / ble" on a face to tap: a name is split
    # between its words only, and no word runs over its die's edge.
    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace"])
    runtime.play("roll CGRF", source="camera")  # the last roll's dice, and a dragon left on the table
    page.set_viewport_size(PHONE)
    page.goto(url + "/fandooble")
    _live(page)
    page.wait_for_selector("#dragons .die")
    page.click("#manual summary")  # every face, small, to tap
    page.wait_for_selector("#pickers button.face-F")
    faces = page.evaluate("[...document.querySelectorAll('.die')].map((d) => [d.textContent, d.scrollWidth <= d.clientWidth])")
    assert {"Chest", "Green dragon", "Red dragon", "Fandooble", "Knight", "Wizard"} <= {name for name, _ in faces}
    assert [name for name, fits in faces if not fits] == []  # none runs over its die's edge
    assert broken_words(page, ".die") == []


def test_the_dice_read_by_the_camera_are_told_apart_from_the_dragons_left_lying_in_the_tray(dashboard, page,
                                                                                           runtime):
    # The camera reads every die in the tray: the green and red dragons of the roll before still lie there, and
    # the roll is the chest and the Fandooble die. The page says which is which rather than list four dice
    # beside a roll of two.
    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace"])
    runtime.play("roll CGRF", source="camera")
    seen = [{"face": face, "confidence": confidence} for face, confidence in (("G", 0.97), ("C", 0.9), ("R", 1.0),
                                                                                ("F", 0.85))]
    runtime.call(lambda: runtime.session.apply("roll CF", source="camera", payload={"dice": seen}))
    page.set_viewport_size(PHONE)
    page.goto(url + "/fandooble")
    _live(page)
    until(page, "document.querySelectorAll('#last-roll .die').length === 2")
    assert page.text_content("#reading") == ("Read by the camera: Chest 90%, Fandooble 85%; lying on the table "
                                             "from before: Green dragon 97%, Red dragon 100%.")
    assert page.text_content("#last-roll-title") == "Last roll"
    # Once Lola banks, Grace has thrown nothing: the dice shown are said to be the turn before's, not hers.
    runtime.play("bank", source="dashboard")
    until(page, "document.getElementById('turn').textContent === \"Grace's turn\"")
    assert page.text_content("#last-roll-title") == "Last roll (the turn before)"
    assert page.locator("#last-roll .die").count() == 2


def test_the_odds_of_the_next_roll_are_shown_next_to_the_dice(dashboard, page, runtime):
    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace"])
    runtime.play("roll CGGK", source="camera")
    page.goto(url + "/fandooble")
    page.wait_for_selector("#odds .stat")
    shown = page.text_content("#odds")
    odds = runtime.snapshot()["game"]["state"]["odds"]
    assert f"{100 * odds['bust']:.0f}%" in shown
    assert page.locator("#dragons .die").count() == 1  # the green dragon the knight did not counter


def test_an_alert_is_resolved_on_any_page(dashboard, page, runtime):
    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace"])
    page.goto(url + "/fandooble")
    _live(page)
    runtime.raise_alert("the camera saw 5 dice; Lola throws 4", source="camera", payload={"move": "roll CCGF"})
    page.wait_for_selector("#alerts .alert >> text=the camera saw 5 dice")
    page.click("#alerts button.accept")
    page.wait_for_selector("#alerts", state="hidden")
    until(page, "document.getElementById('loot').textContent === '3'")
    runtime.raise_alert("a die is cocked", source="camera")
    page.wait_for_selector("#alerts .alert >> text=a die is cocked")
    page.click("#alerts button >> text=Correct")
    # The engine's legal moves to choose from; the knight counters the green dragon held.
    page.select_option("#alerts .correct-row select", "roll CCK")
    page.click("#alerts .correct-row button")
    page.wait_for_selector("#alerts", state="hidden")
    until(page, "document.getElementById('loot').textContent === '5'")
    assert runtime.session.state.dragons == ""


def test_an_alert_about_a_roll_shows_the_dice_as_the_camera_read_them(dashboard, page, runtime):
    import numpy as np

    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace"])
    page.goto(url + "/fandooble")
    _live(page)
    tray = runtime.roll_pictures.add(np.full((240, 320, 3), 90, np.uint8))
    runtime.raise_alert("unsure of the roll: read knight (not readable; the face it looks most like)",
                        source="camera", payload={"move": "roll CCGK", "picture": tray})
    picture = page.locator("#alerts .alert img.alert-picture")
    picture.wait_for(state="visible")
    until(page, "(() => { const i = document.querySelector('#alerts img.alert-picture');"
                " return i.complete && i.naturalWidth === 320; })()")
    assert page.locator("#alerts .alert .alert-note:visible").count() == 0
    runtime.raise_alert("a die is cocked", source="camera")  # no roll behind it: no picture
    page.wait_for_selector("#alerts .alert >> text=a die is cocked")
    assert page.locator("#alerts .alert img.alert-picture:visible").count() == 1
    # Read in a tray darker than the dice were taught in: the question says so, and what to do
    runtime.raise_alert("unsure of the roll", source="camera", payload={
        "move": "roll CCGG", "note": "the dice look darker than when they were taught (about 60% of that light)"})
    page.wait_for_selector("#alerts .alert .alert-note >> text=The dice look darker than when they were taught")


def test_a_refused_move_says_why(dashboard, page, runtime):
    url, _ = dashboard
    runtime.new_game("fandooble", ["Lola", "Grace"])
    page.goto(url + "/")
    page.fill("#move", "bank")
    page.click("#play")
    page.wait_for_selector("#toast.error >> text=has not rolled yet")


def test_the_page_reconnects_when_its_stream_ends_and_catches_up(page, runtime, tmp_path):
    app = make_app(runtime, Config.defaults(), TESTING=False, COMPANION_STREAM_LIFE_S=1.0, COMPANION_HEARTBEAT_S=0.3)
    served = Served(app)
    try:
        runtime.new_game("fandooble", ["Lola", "Grace"])
        page.goto(f"{served.url}/fandooble")
        _live(page)
        page.wait_for_timeout(2500)  # the stream has ended and been reopened at least once
        runtime.play("roll CCCF", source="camera")  # three chests and a coin stolen from Grace
        until(page, "document.getElementById('loot').textContent === '4'")
    finally:
        page.close()  # the browser leaves first, so the server has no stream left to wait for
        served.close()


def test_the_live_view_streams_the_cameras_pictures(dashboard, page, runtime):
    url, _ = dashboard
    page.goto(url + "/")
    page.click("#live-toggle")
    picture = np.zeros((540, 960, 3), np.uint8)
    cv2.rectangle(picture, (100, 100), (800, 400), (0, 200, 0), -1)

    def show(_):
        runtime.live_view.publish(picture)

    with camera_running(show, every_s=0.1):
        until(page, "document.getElementById('live-img').naturalWidth === 960")
    page.click("#live-toggle")  # stop watching: the slot is given back
    _, app = dashboard
    gate = app.extensions["companion_stream_gates"]["video"]
    for _ in range(100):
        if gate.open == 0:
            break
        page.wait_for_timeout(100)
    assert gate.open == 0


# -- setup: the PIN, the configuration and the calibration ---------------------------------


def test_the_pin_is_asked_once_then_the_configuration_is_saved(page, runtime, tmp_path):
    path = tmp_path / "config.toml"
    app = make_app(runtime, Config.from_mapping({"server": {"pin": "2468"}}, str(path)), TESTING=False)
    served = Served(app)
    try:
        page.goto(f"{served.url}/setup")
        page.wait_for_selector("#config-form details")
        page.click("#config-form summary >> text=[server]")
        page.fill("#cfg-server-port", "8090")
        page.click("#config-save")
        page.wait_for_selector("#pin-dialog[open]")
        page.fill("#pin-input", "1111")
        page.click("#pin-ok")
        page.wait_for_selector("#pin-message >> text=not the PIN")
        page.fill("#pin-input", "2468")
        page.click("#pin-ok")
        page.wait_for_selector("#config-result >> text=Restart the companion for: server.port")
        assert Config.load(path).get("server", "port") == 8090
        page.fill("#cfg-server-port", "99999")
        page.click("#config-save")  # unlocked now: no second question, but the value is refused
        page.wait_for_selector("#config-result >> text=must be between 1 and 65535")
        assert Config.load(path).get("server", "port") == 8090
    finally:
        page.close()  # the browser leaves first, so the server has no stream left to wait for
        served.close()


def test_a_setting_with_few_values_is_picked_from_a_list_and_saved_as_its_value(page, runtime, tmp_path):
    # The lamps' mains frequency is 50, 60, "auto" or 0: picked on a phone, not typed (typed, "60" was text, refused).
    path = tmp_path / "config.toml"
    served = Served(make_app(runtime, Config.from_mapping({}, str(path)), TESTING=False))
    try:
        page.goto(f"{served.url}/setup")
        page.wait_for_selector("#config-form details")
        page.click("#config-form summary >> text=[camera]")
        assert page.eval_on_selector_all("#cfg-camera-mains_hz option", "os => os.map((o) => o.textContent)") == \
            ["auto", "50", "60", "0"]
        page.select_option("#cfg-camera-mains_hz", label="60")
        page.click("#config-save")
        page.wait_for_selector("#config-result >> text=Restart the companion for: camera.mains_hz")
        assert Config.load(path).get("camera", "mains_hz") == 60
    finally:
        page.close()
        served.close()


def test_nothing_typed_into_the_configuration_while_it_is_saved_is_lost(page, runtime, tmp_path):
    # A busy Pi: the form is built again from what was saved, and that takes a while. The game master who
    # types meanwhile would type into an input about to be replaced (the loaded CI run lost "99999" so).
    path = tmp_path / "config.toml"
    served = Served(make_app(runtime, Config.from_mapping({}, str(path)), TESTING=False))
    held, armed = [], []
    page.route(re.compile(r".*/api/config$"),
               lambda route: held.append(route) if armed and route.request.method == "GET" else route.continue_())
    try:
        page.goto(f"{served.url}/setup")
        page.wait_for_selector("#config-form details")
        page.click("#config-form summary >> text=[server]")
        page.fill("#cfg-server-port", "8090")
        armed.append(True)
        page.click("#config-save")
        for _ in range(TIMEOUT_MS // 20):  # saved; the form's new contents held on their way
            if held:
                break
            page.wait_for_timeout(20)
        assert held and page.is_disabled("#cfg-server-port") and page.is_disabled("#config-save")
        assert page.text_content("#config-result") == ""  # not "Saved" until the form shows what was
        armed.clear()
        held[0].continue_()
        page.wait_for_selector("#config-result >> text=Restart the companion for: server.port")
        assert page.is_enabled("#cfg-server-port") and page.input_value("#cfg-server-port") == "8090"
        page.fill("#cfg-server-port", "99999")
        page.click("#config-save")
        page.wait_for_selector("#config-result >> text=must be between 1 and 65535")
        assert page.is_enabled("#cfg-server-port") and Config.load(path).get("server", "port") == 8090
    finally:
        page.close()
        served.close()


def test_the_table_corners_are_calibrated_by_tapping_the_live_view(dashboard, page, runtime, tmp_path):
    url, _ = dashboard
    runtime.live_view.publish(np.full((540, 960, 3), 120, np.uint8), force=True)
    page.set_viewport_size(PHONE)
    page.goto(url + "/setup")
    image = page.locator("#cal-img")
    until(page, "document.getElementById('cal-img').naturalWidth === 960")
    image.scroll_into_view_if_needed()
    box = image.bounding_box()
    assert page.is_disabled("#cal-back")
    for fx, fy in ((0.1, 0.1), (0.9, 0.12), (0.5, 0.5)):  # the third tapped wrong, as a thumb does
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    page.click("#cal-back")  # that corner alone is taken back
    page.wait_for_selector("#cal-status >> text=Tap the SE corner (3 of 4).")
    box = image.bounding_box()  # where it is now: reaching the button may have scrolled the page
    for fx, fy in ((0.92, 0.9), (0.08, 0.88)):
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    page.wait_for_selector("#cal-status >> text=All four corners marked")
    page.click("#cal-save")
    page.wait_for_selector("#cal-stored >> text=Stored corners")
    corners = Config.load(tmp_path / "config.toml").get("table", "corners_px")
    assert len(corners) == 4
    assert corners[0][0] == pytest.approx(96, abs=3) and corners[2] == pytest.approx([883, 486], abs=3)


def test_the_dice_tray_is_marked_by_tapping_its_corners_on_the_live_view(dashboard, page, runtime, tmp_path):
    url, _ = dashboard
    # A webcam's 1280 x 720 picture, shown 960 wide, where the working width asked for is 960: the tray is kept
    # in the camera picture's own pixels, and drawn where it was tapped.
    runtime.live_view.publish(np.full((540, 960, 3), 120, np.uint8), force=True, picture=(1280, 720))
    page.set_viewport_size(PHONE)
    page.goto(url + "/setup")
    page.wait_for_selector("#tray-stored >> text=No tray is marked")
    image = page.locator("#tray-img")
    until(page, "document.getElementById('tray-img').naturalWidth === 960")
    image.scroll_into_view_if_needed()
    box = image.bounding_box()
    for fx, fy in ((0.3, 0.3), (0.7, 0.3), (0.7, 0.8), (0.9, 0.9)):  # the last tapped wrong
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    page.click("#tray-back")
    page.wait_for_selector("#tray-status >> text=Tap the tray's SW corner (4 of 4).")
    box = image.bounding_box()  # where it is now: reaching the button may have scrolled the page
    page.mouse.click(box["x"] + 0.3 * box["width"], box["y"] + 0.8 * box["height"])
    page.wait_for_selector("#tray-status >> text=All four corners marked")
    page.click("#tray-save")
    page.wait_for_selector("#tray-stored >> text=dashed yellow")
    saved = Config.load(tmp_path / "config.toml")
    tray, picture = saved.get("table", "tray_px"), saved.get("table", "picture_px")
    assert picture == [1280, 720] and saved.get("camera", "work_width") == 960
    tapped = 4  # a tap lands within 3 of the still's pixels (960 wide): 4 of the picture's
    assert tray[0][0] == pytest.approx(0.3 * 1280, abs=tapped) and tray[2][1] == pytest.approx(0.8 * 720, abs=tapped)
    assert tray[3] == pytest.approx([0.3 * 1280, 0.8 * 720], abs=tapped)  # the corner tapped again
    assert runtime.config.get("table", "tray_px") == tray  # read from the next frame on, no restart
    # Drawn where it was tapped: its NE corner at 0.7 of the picture's width.
    until(page, "document.querySelectorAll('#tray-marks polygon').length === 1")
    right = page.evaluate("""() => {
        const marks = document.getElementById('tray-marks');
        const x = Number(marks.querySelector('polygon').getAttribute('points').split(' ')[1].split(',')[0]);
        return x / marks.viewBox.baseVal.width;
    }""")
    assert right == pytest.approx(0.7, abs=0.005)


def test_the_setup_page_shows_the_tray_the_demo_reads_until_one_is_marked(dashboard, page, runtime, tmp_path):
    # The demo camera's table brings its own tray: the page draws it and says it is the demo's, not
    # "no dice are read" while the demo's rolls are being read in it. Its dice are its own too.
    from companion.dicestore import DiceStore

    url, app = dashboard
    runtime.dice_store = DiceStore(tmp_path, demo=True)
    runtime.live_view.publish(np.full((540, 960, 3), 120, np.uint8), force=True)
    width = app.extensions["companion_config"]().get("camera", "work_width")  # the tray is in its pixels
    tray = {"corners": [[width * 0.3, 100], [width * 0.7, 100], [width * 0.7, 500], [width * 0.3, 500]],
            "source": "demo"}
    runtime.add_snapshot_part("tray", lambda: tray)
    page.set_viewport_size(PHONE)
    page.goto(url + "/setup")
    page.wait_for_selector("#tray-stored >> text=the demo table's own tray, drawn dashed yellow")
    until(page, "document.querySelectorAll('#tray-marks polygon').length === 1")
    # Drawn where it lies on the picture: its left edge at 0.3 of the picture's width.
    left = page.evaluate("""() => {
        const marks = document.getElementById('tray-marks');
        const x = Number(marks.querySelector('polygon').getAttribute('points').split(',')[0]);
        return x / marks.viewBox.baseVal.width;
    }""")
    assert left == pytest.approx(0.3, abs=0.002)
    page.wait_for_selector("#dice-demo >> text=kept apart from your table's own")
    # A tray with its own four tags: drawn where they put it, and said to follow the tray.
    tray.update(source="tags", tags=[])
    runtime.refresh()
    page.wait_for_selector("#tray-stored >> text=follows the tray wherever it is moved")
    assert page.text_content("#tray-status") == "The tray's own tags mark it: no need to tap its corners."


def test_a_tray_tapped_on_another_view_of_the_table_is_not_drawn_and_the_page_says_to_tap_it_again(
        dashboard, page, runtime):
    # Tapped on a 16:9 picture; the camera now gives 4:3 pictures: the taps say nothing about this picture.
    runtime.config = runtime.config.with_changes({"table": {
        "tray_px": [[300, 200], [900, 200], [900, 600], [300, 600]], "picture_px": [1280, 720]}})
    dashboard[1].extensions["companion_config"].update({"table": {
        "tray_px": [[300, 200], [900, 200], [900, 600], [300, 600]], "picture_px": [1280, 720]}})
    runtime.live_view.publish(np.full((480, 640, 3), 120, np.uint8), force=True)
    why = ("the dice tray was tapped on a 1280 x 720 picture and the camera's is 640 x 480, another view of the "
           "table: tap the tray's four corners again on the live view (Setup page, Dice tray)")
    runtime.add_snapshot_part("tray", lambda: {"corners": None, "source": "misplaced", "why": why,
                                               "picture": [640, 480]})
    page.set_viewport_size(PHONE)
    page.goto(dashboard[0] + "/setup")
    page.wait_for_selector("#tray-stored >> text=another view of the table: tap the tray's four corners again")
    assert page.text_content("#tray-stored") == why[0].upper() + why[1:] + "."
    assert page.evaluate("document.querySelectorAll('#tray-marks polygon').length") == 0


def test_a_tray_towards_the_edge_of_the_cameras_view_is_drawn_with_a_word_on_why_fewer_dice_are_read(
        dashboard, page, runtime):
    corners = [[440, 300], [630, 300], [630, 470], [440, 470]]  # the bottom right corner of a 640 x 480 picture
    runtime.live_view.publish(np.full((480, 640, 3), 120, np.uint8), force=True)
    runtime.add_snapshot_part("tray", lambda: {"corners": corners, "source": "tags", "picture": [640, 480],
                                               "edge": tray_towards_edge(corners, (640, 480))})
    page.set_viewport_size(PHONE)
    page.goto(dashboard[0] + "/setup")
    page.wait_for_selector("#tray-stored >> text=The tray lies towards the edge of the camera's view")
    assert page.text_content("#tray-stored").startswith("The tray between its four tray tags is drawn dashed yellow")
    until(page, "document.querySelectorAll('#tray-marks polygon').length === 1")


def test_pip_dice_read_are_drawn_with_their_pips_and_picture_dice_with_their_words(dashboard, page):
    page.set_viewport_size(PHONE)
    page.goto(dashboard[0] + "/setup")
    until(page, "typeof TC !== 'undefined' && typeof TC.dieFace === 'function'")
    drawn = page.evaluate("""() => ["1", "2", "3", "4", "5", "6"].map((face) => {
        const die = TC.dieFace(face, face);
        return [die.querySelectorAll("circle").length, die.getAttribute("aria-label"), die.textContent];
    })""")
    assert drawn == [[n, str(n), ""] for n in range(1, 7)]  # the pips, named for a screen reader
    chest = page.evaluate("""() => { const die = TC.dieFace("C", "treasure chest");
        return [die.querySelectorAll("circle").length, die.textContent]; }""")
    assert chest == [0, "treasure chest"]


def test_a_game_is_started_from_the_setup_page(dashboard, page, runtime):
    url, _ = dashboard
    page.set_viewport_size(PHONE)
    page.goto(url + "/setup")
    page.select_option("#game-name", "fandooble")
    page.fill("#seat-1", "Lola")
    page.fill("#seat-3", "Grace")
    page.fill("#options", "coins=60")
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r".*/fandooble$"))
    until(page, "document.getElementById('turn').textContent === \"Lola's turn\"")
    assert runtime.session.state.coins == 60 and runtime.session.players == ("Lola", "Grace")


def test_the_setup_page_lists_the_chosen_games_options_and_seats(dashboard, page, runtime):
    # The options box said "e.g. coins=80" (a Fandooble option) whatever the game, and offered six seats to a
    # game of four: a player starting The Grimm Forest could not know its options or its size.
    url, _ = dashboard
    page.set_viewport_size(PHONE)
    page.goto(url + "/setup")
    page.select_option("#game-name", "grimm")
    help = page.text_content("#option-help")
    assert "costs what a floor, walls and roof cost" in help and "(default 2,4,6)" in help and "coins" not in help
    assert page.is_visible("#seat-4") and not page.is_visible("#seat-5") and not page.is_visible("#seat-6")
    page.fill("#seat-1", "Anne")
    page.fill("#seat-2", "Paul")
    page.click("#option-help button:has-text('costs')")  # starts the option's line, ready for its value
    page.keyboard.type("2,3,5")
    assert page.input_value("#options") == "costs=2,3,5"
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r".*/grimm$"))
    assert runtime.session.state.costs == (2, 3, 5)
    # A seat already written in stays when a smaller game is chosen: no name vanishes from the form.
    page.goto(url + "/setup")
    page.select_option("#game-name", "fandooble")
    page.fill("#seat-6", "Zoe")
    page.select_option("#game-name", "grimm")
    assert page.is_visible("#seat-6") and not page.is_visible("#seat-5")
    assert "mega" in page.text_content("#option-help") and "coins" not in page.text_content("#option-help")


@pytest.mark.parametrize("observer", [True, False], ids=["resize-observer", "older-browser"])
def test_a_table_that_fits_stays_a_table_and_one_that_does_not_is_shown_row_by_row(dashboard, page, runtime, observer):
    url, _ = dashboard
    if not observer:  # a browser from before ResizeObserver (2020): the window's resizing is watched instead
        page.add_init_script("delete window.ResizeObserver")
    runtime.new_game("fable", ["Anne", "Maximilian", "Rachel", "Paul"])
    stacked = "document.querySelector('#players table').classList.contains('stacked')"
    page.set_viewport_size(SMALL_PHONE)
    page.goto(url + "/fable")
    page.wait_for_selector("#players table")
    # Five columns do not fit a 320-pixel phone: each player's row, its numbers under their names.
    assert page.evaluate(stacked) and hidden_sideways(page) == []
    cells = page.evaluate("""[...document.querySelectorAll('#players tbody tr:nth-child(2) td')].map((td) => {
        const box = td.getBoundingClientRect();
        return [td.dataset.label || null, td.textContent, box.left >= 0 && box.right <= window.innerWidth];
    })""")
    assert [(label, on_screen) for label, _, on_screen in cells] == [
        (None, True), ("At", True), ("Juices", True), ("Fruits", True), ("Turns", True)]
    assert cells[0][1] == "Maximilian"
    assert broken_words(page, "#players") == []
    page.set_viewport_size({"width": SMALL_PHONE["height"], "height": SMALL_PHONE["width"]})  # the phone turned
    until(page, f"!{stacked}")
    assert hidden_sideways(page) == []
    page.set_viewport_size(SMALL_PHONE)
    until(page, stacked)
    # Two columns fit: the Fandooble stashes stay a table on the narrowest phone.
    runtime.new_game("fandooble", ["Anne", "Maximilian"])
    page.goto(url + "/fandooble")
    page.wait_for_selector("#stashes table")
    assert not page.evaluate("document.querySelector('#stashes table').classList.contains('stacked')")
    assert hidden_sideways(page) == [] and broken_words(page, "#stashes") == []


# -- screenshots ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", [PHONE, SMALL_PHONE, LAPTOP], ids=["phone", "small-phone", "laptop"])
def test_every_page_draws_at_phone_and_laptop_width(dashboard, page, runtime, size, tmp_path):
    # One player's name is as long as names may be, in one word: it may break where names are listed, and no
    # page runs off the screen for it.
    from companion.games import MAX_NAME

    LONG = "Maximilian" * (MAX_NAME // 10)
    url, app = dashboard
    shots = Path(tmp_path) / "shots"
    shots.mkdir()
    page.set_viewport_size(size)
    runtime.live_view.publish(np.full((540, 960, 3), 90, np.uint8), force=True)

    def shoot(path: str, name: str) -> None:
        page.goto(url + path)
        page.wait_for_selector("#alerts .alert")
        page.wait_for_load_state("networkidle")
        png = page.screenshot(full_page=True)
        (shots / f"{name}-{size['width']}.png").write_bytes(png)
        assert not_blank(png), f"{path} is blank at {size}"
        # Nothing sticks out sideways: the page is as wide as the screen (a wide table is shown row by row).
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], path
        assert broken_words(page) == [], path  # "Op / en" on a button, "fandoo / ble" in a table
        assert controls_off_screen(page, size["width"]) == [], path  # "Open" at the end of a table scrolled sideways
        assert hidden_sideways(page) == [], path  # a table's last columns, to be scrolled to on a phone

    runtime.new_game("fandooble", ["Lola", "Grace", LONG, "Maximilian"])  # and a name of a usual length
    for move in ("roll CCCF", f"steal {LONG}", "bank", "roll CGRK"):
        runtime.play(move, source="camera")
    runtime.raise_alert("the camera saw 5 dice; Grace throws 4", source="camera", payload={"move": "roll CCGF"})
    for path, name in (("/", "table"), ("/fandooble", "fandooble"), ("/setup", "setup"), ("/cards", "cards")):
        shoot(path, name)
    # A campaign with one game played to the end and the next one under way.
    api = with_token(app.test_client())
    group = ["Anne", LONG, "Rachel", "Maximilian"]
    campaign = api.post("/api/campaigns", json={"group": group, "title": "Tuesday"}).get_json()
    games_url = f"/api/campaigns/{campaign['campaign']['campaign_id']}/games"
    api.post(games_url, json={"players": group, "replace": True})  # the Fandooble game is in play
    rng = random.Random(5)
    while not runtime.session.state.over:
        runtime.play(fable.random_move(runtime.session.state, rng).to_text(), source="dashboard")
    api.post(games_url, json={"players": group})
    first = runtime.session.state.player
    for move in (f"move {first} 1", f"action {first}"):
        runtime.play(move, source="dashboard")
    runtime.raise_alert("expected location 7 from the deck (7:1), saw 8:1: check the deck order", source="camera")
    # The Fandooble game replaced and the campaign's first game are stored, each with its "Open".
    for path, name in (("/fable", "fable"), ("/", "table-fable"), ("/campaigns", "campaigns"),
                       ("/setup", "setup-stored")):
        shoot(path, name)


# -- Fabled Fruit ---------------------------------------------------------------------------


def _table(tops: dict[int, int]):
    """What the camera's stabiliser hands the referee: the stacks it sees with their top copies."""
    from vision.cards import StackView, TableSnapshot

    return TableSnapshot(stacks=tuple(StackView(n, top, None, (100.0 * n, 100.0)) for n, top in tops.items()),
                         stable=True)


def test_a_game_chosen_while_the_first_games_cards_load_keeps_its_own_cards(dashboard, page):
    # A busy Pi answers out of order: the first game's cards, asked for as the page opens, arrive after
    # the game the player chose meanwhile. The chosen game's cards stay on the page.
    url, _ = dashboard
    held = []
    page.route(re.compile(r".*/api/cards/[a-z_]+$"),
               lambda route: route.continue_() if route.request.url.endswith("/fable") else held.append(route))
    page.goto(url + "/cards")
    page.wait_for_selector("#card-game option[value='fable']", state="attached")
    until(page, "document.querySelector('#card-game').value !== 'fable'")
    page.select_option("#card-game", "fable")
    page.wait_for_selector("article[data-key='1'] >> text=Edit")
    assert len(held) == 1  # the first game's answer, still on its way
    late = held[0].request.url
    with page.expect_request_finished(lambda request: request.url == late):
        held[0].continue_()
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert page.input_value("#card-game") == "fable"
    assert page.locator("article[data-key='1']").count() == 1
    assert page.text_content("#card-summary").startswith(page.evaluate(
        "fetch('/api/cards/fable').then((r) => r.json()).then((d) => `${Object.keys(d.entries).length - d.unverified.length} of`)"))


def test_a_purchase_seen_by_the_camera_appears_on_the_fable_page(dashboard, page, runtime):
    url, _ = dashboard
    page.set_viewport_size(PHONE)
    # The players fill in location 1's price from their card...
    page.goto(url + "/cards")
    page.select_option("#card-game", "fable")  # one of the games with a card table
    page.click("article[data-key='1'] button >> text=Edit")
    page.fill(".edit-row input[name=price]", "2 smoothies")
    page.click(".edit-row button[type=submit]")
    page.wait_for_selector("article[data-key='1'] >> text=2 smoothies")
    # ...start the campaign's first game...
    page.goto(url + "/setup")
    page.select_option("#game-name", "fable")
    page.fill("#seat-1", "Anne")
    page.fill("#seat-2", "Paul")
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r".*/fable$"))
    _live(page)
    # ...and Anne moves her animal on the dashboard.
    page.click("#choice-buttons button[data-location='1']")
    page.wait_for_selector("#buy-juice")
    # The camera sees 1:1 gone from stack 1 (the referee turns it into 'buy Anne 1:1').
    tops = {n: 1 for n in range(1, 7)}
    runtime.observe(_table({**tops, 1: 2})).result(5)
    page.wait_for_selector("#stacks .stack[data-location='1'] .copies >> text=×3")
    page.wait_for_selector("#draw-card >> text=Draw 7:1")
    assert page.text_content("#players tbody tr:first-child td:nth-child(3)") == "1"  # Anne's juice
    # Then the deck's next card, 7:1, lands as a new stack.
    runtime.observe(_table({**tops, 1: 2, 7: 1})).result(5)
    page.wait_for_selector("#stacks .stack[data-location='7']")
    assert [e.text for e in runtime.log.events(runtime.session.session_id) if e.source == "camera"] == [
        "buy Anne 1:1", "draw 7:1"]
    # A change where no animal stands waits for a person.
    runtime.observe(_table({**tops, 1: 2, 7: 1, 3: 2})).result(5)
    page.wait_for_selector("#alerts .alert >> text=3")
    page.click("#alerts .alert button >> text=Dismiss")
    page.wait_for_selector("#alerts", state="hidden")
    # Undo takes back the draw: stack 7 leaves the display on every phone.
    page.click("#undo")
    page.wait_for_selector("#stacks .stack[data-location='7']", state="detached")
    page.wait_for_selector("#draw-card")


def test_a_campaign_game_from_start_to_the_steps_between_games(dashboard, page, runtime):
    url, app = dashboard
    api = with_token(app.test_client())
    api.post("/api/campaigns", json={"group": ["Anne", "Paul"], "title": "Friday"})
    page.set_viewport_size(PHONE)
    page.goto(url + "/campaigns")
    page.wait_for_selector("#start-game:not([hidden])")
    page.click("#start-button")
    page.wait_for_url(re.compile(r".*/fable$"))
    page.wait_for_selector("#campaign-link >> text=Campaign: Friday")
    rng = random.Random(11)
    while not runtime.session.state.over:
        runtime.play(fable.random_move(runtime.session.state, rng).to_text(), source="dashboard")
    page.wait_for_selector("#finish-title >> text=Game 1 is over")
    assert "bag" in page.text_content("#finish-steps")
    # Between games the group parks its cards: the page lists what goes back on the deck.
    page.goto(url + "/campaigns")
    page.wait_for_selector("#next-steps-title >> text=Game 1 is over")
    page.click("#campaign-actions button >> text=Park")
    page.wait_for_selector("#instructions-steps li")
    page.wait_for_selector("#campaign-status >> text=Parked")
    page.wait_for_selector("#juice-chart rect")


class _QuietNotifier:
    def notify(self, text: str) -> None:
        pass


@pytest.fixture
def busy_machine():
    """Two processes burning a CPU each beside the test, as a Pi serving phones is a busy machine."""
    import subprocess
    import sys

    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield burners
    for burner in burners:
        burner.kill()
        burner.wait(10)


def test_the_demo_table_shows_a_purchase_the_camera_saw_without_reloading(page, tmp_path, busy_machine):
    """The whole loop of ``companion run`` without a camera: the demo camera's pictures go through
    the tag reader, the stabiliser and the Fable referee; the page shows the juice bought and the
    card drawn the moment the camera has seen them. Two CPU-burning processes run beside it: the
    demo waits for the runtime before each picture, so a slow machine only plays it more slowly."""
    from companion.appliance import Appliance

    config = Config.from_mapping(
        {"server": {"host": "127.0.0.1"}, "camera": {"backend": "demo", "fps": 20.0}}, str(tmp_path / "config.toml")
    )
    appliance = Appliance(config, tmp_path / "data", use_gpio=False, port=0, notifier=_QuietNotifier())
    appliance.start()
    try:
        page.set_viewport_size(PHONE)
        page.goto(f"http://127.0.0.1:{appliance.port}/fable")
        _live(page)
        # The script's third turn: Anne walks to location 4 (entered), the camera sees 4:1 leave
        # the display and 7:1 come from the deck as a new stack.
        page.wait_for_selector("#log li >> text=buy Anne 4:1", timeout=120_000)
        page.wait_for_selector("#stacks .stack[data-location='7']", timeout=60_000)
        camera_moves = [e.text for e in appliance.log.events(appliance.runtime.session.session_id)
                        if e.source == "camera"]
        assert camera_moves[:2] == ["buy Anne 4:1", "draw 7:1"]
        assert appliance.runtime.snapshot()["alerts"] == []
        assert not_blank(page.screenshot())
    finally:
        appliance.stop()


# -- setup: teaching the dice ----------------------------------------------------------------


def test_damaged_dice_settings_are_said_where_the_dice_are_set_up(dashboard, page, runtime, tmp_path):
    # A failing card left dice.json unreadable: the page says what to do, and teaching is still offered.
    url, _ = dashboard
    (tmp_path / "dice").mkdir()
    (tmp_path / "dice" / "dice.json").write_text("{", "utf-8")
    page.set_viewport_size(PHONE)
    page.goto(url + "/setup")
    page.wait_for_selector("#dice-problem >> text=cannot read the dice settings")
    assert "teach the dice again" in page.text_content("#dice-problem") and page.is_visible("#teach-start")


def test_the_dice_are_taught_on_the_setup_page_and_every_step_is_shown(dashboard, page, runtime):
    """The camera pipeline publishes every frame to ``runtime.frames``; here the test does, while the
    die is 'set down' with each face in turn. The page follows the steps without reloading."""
    import time

    from companion.teach import DEFAULT_LOOKS
    from hardware.camera.base import Frame
    from vision.synth.dice import render_face_photo

    url, _ = dashboard
    scene = {"image": np.full((240, 320, 3), (150, 150, 146), np.uint8)}

    def show(number):
        runtime.frames.publish(Frame(scene["image"], time.monotonic(), number))

    with camera_running(show, every_s=0.03):
        page.set_viewport_size(PHONE)
        page.goto(url + "/setup")
        _live(page)
        page.select_option("#teach-die", "special")
        assert page.input_value("#teach-faces") == "FFKKWW"
        page.fill("#teach-faces", "fkw")
        assert page.input_value("#teach-looks") == str(DEFAULT_LOOKS)  # what the form proposes
        page.fill("#teach-looks", "1")
        page.click("#teach-start")
        page.wait_for_selector("#teach-prompt >> text=die special, face 1 of 3: put the Fandooble face up in the tray")
        assert page.is_visible("#teach-cancel") and not page.is_visible("#teach-faces")
        rng = np.random.default_rng(6)
        # Two dice set down: refused, and the page shows the tray as the camera saw it, both dice boxed.
        from vision.synth.dice import render_tray

        scene["image"] = render_tray(rng, kind="fandooble", faces=["F", "K"], size=(320, 240), die_px=(60, 60),
                                     table="grey").image
        page.wait_for_selector("#teach-message >> text=saw 2 dice")
        page.wait_for_selector("#teach-seen", state="visible")
        until(page, "document.getElementById('teach-seen').complete && "
                    "document.getElementById('teach-seen').naturalWidth === 320")
        for face, next_prompt in (("F", "face 2 of 3: put the knight"), ("K", "face 3 of 3: put the wizard")):
            scene["image"] = render_face_photo(rng, face)
            page.wait_for_selector(f"#teach-prompt >> text={next_prompt}")
        assert page.text_content("#teach-count") == "2 of 3 pictures taken"
        # A picture was taken since: the last one is shown, its die boxed, with what to do if the box is wrong
        until(page, "document.getElementById('teach-seen-caption').textContent.startsWith('The last picture, as "
                    "the companion learned it')")
        assert page.is_visible("#teach-back")
        scene["image"] = render_face_photo(rng, "W")
        page.wait_for_selector("#teach-state >> text=Done: the companion knows this die.")
        assert page.text_content("#teach-prompt") == "die special learned: 1× Fandooble, 1× knight, 1× wizard"
        page.wait_for_selector("#teach li >> text=special: 1× Fandooble, 1× knight, 1× wizard")
        # one picture a face is fewer than teaching takes by default: the page says to teach again
        assert "special (1 a face)" in page.text_content("#dice-advice")
        assert page.text_content("#teach-count") == "3 of 3 pictures taken"
        assert page.is_visible("#teach-start") and not page.is_visible("#teach-cancel")
        # The evening grows dark: the same die taught again "in this light too", keeping what it was taught
        page.check("#teach-light")
        page.click("#teach-start")
        page.wait_for_selector("#teach-prompt >> text=die special, face 1 of 3: put the Fandooble face up in the tray")
        for taken, face in enumerate("FKW", start=1):
            scene["image"] = (render_face_photo(rng, face) * 0.6).astype(np.uint8)
            page.wait_for_selector(f"#teach-count >> text={taken} of 3 pictures taken")
        page.wait_for_selector("#teach-prompt >> text=die special learned in this light too: 1× Fandooble")
        from companion.dicestore import DiceStore

        assert DiceStore(Path(runtime.log.path).parent).load_templates().pictures == {"special": 6}


def teach_from_photos(page, url: str, faces: str) -> None:
    """On a phone's Setup page, "Teach from photos" pressed for the first die with ``faces``, one photo a face."""
    page.set_viewport_size(PHONE)
    page.goto(url + "/setup")
    _live(page)
    page.fill("#teach-faces", faces)
    page.fill("#teach-looks", "1")
    page.click("#teach-photos-start")


def test_the_dice_are_taught_from_photos_chosen_on_the_phone(dashboard, page, runtime, tmp_path):
    # No camera needed: the game master picks photos of the die on the phone. Two chosen at once are taken in
    # order; a photo with two dice is refused and shown with both boxed, and the next photo chosen is asked again.
    from vision.synth.dice import render_face_photo, render_tray

    url, _ = dashboard
    rng = np.random.default_rng(8)
    photos = {name: tmp_path / f"{name}.jpg" for name in ("chest", "two", "green")}
    cv2.imwrite(str(photos["chest"]), render_face_photo(rng, "C"))
    cv2.imwrite(str(photos["two"]), render_tray(rng, kind="fandooble", faces=["G", "C"], size=(320, 240),
                                                die_px=(60, 60), table="grey").image)
    cv2.imwrite(str(photos["green"]), render_face_photo(rng, "G"))
    teach_from_photos(page, url, "CG")
    page.wait_for_selector("#teach-prompt >> text=die dragon, face 1 of 2: a photo of the die alone with the treasure "
                           "chest face up")
    assert page.is_visible("text=Choose the photo") and not page.is_visible("#teach-watch")
    assert page.text_content("#teach-state").startswith("Choose a photo of the die alone, this face up")
    page.focus("#teach-photo")  # reached by the keyboard (and a screen reader), it opens the phone's chooser
    until(page, "document.activeElement === document.getElementById('teach-photo')")
    with page.expect_file_chooser() as chooser:
        page.keyboard.press("Space")
    assert chooser.value.is_multiple()
    chooser.value.set_files([str(photos["chest"]), str(photos["two"])])
    page.wait_for_selector("#teach-message >> text=saw 2 dice")
    assert page.text_content("#teach-count") == "1 of 2 pictures taken"
    page.wait_for_selector("#teach-seen", state="visible")
    until(page, "document.getElementById('teach-seen').complete && "
                "document.getElementById('teach-seen').naturalWidth === 320")
    assert page.text_content("#teach-seen-caption").startswith("The photo as the companion saw it")
    assert page.text_content("#teach-prompt").endswith("a photo of the die alone with the green dragon face up")
    # Every picture learned so far, a row for each face: the chest's so far, the green dragon's place next
    page.wait_for_selector("#teach-sheet img", state="visible")
    until(page, "[...document.querySelectorAll('#teach-sheet img')].every((i) => i.complete && i.naturalWidth === 96)")
    assert page.text_content("#teach-sheet-caption").startswith("Every picture learned so far, a row for each face")
    assert page.locator("#teach-sheet .sheet-row").all_text_contents() == ["1 C", "2 G2"]
    assert page.get_attribute("#teach-sheet img", "alt") == "picture 1, learned as C, treasure chest"
    assert page.get_attribute(".sheet-empty.next", "title") == "picture 2: not learned yet"
    # The chest photo was learned: taken back on the phone (its box would show a wrong cut), asked for again, and
    # shown learned with its die boxed.
    page.click("#teach-back")
    page.wait_for_selector("#teach-message >> text=picture 1 was taken back: choose another photo")
    assert page.text_content("#teach-count") == "0 of 2 pictures taken" and not page.is_visible("#teach-seen")
    assert page.text_content("#teach-prompt").endswith("a photo of the die alone with the treasure chest face up")
    assert not page.is_visible("#teach-back")  # nothing left to take back
    assert not page.is_visible("#teach-sheet")  # no picture learned now
    page.set_input_files("#teach-photo", [str(photos["chest"])])
    page.wait_for_selector("#teach-count >> text=1 of 2 pictures taken")
    page.wait_for_selector("#teach-seen", state="visible")
    assert page.text_content("#teach-seen-caption").startswith("The last picture, as the companion learned it")
    assert page.is_visible("#teach-back")
    page.set_input_files("#teach-photo", [str(photos["green"])])
    page.wait_for_selector("#teach-state >> text=Done: the companion knows this die.")
    assert not page.is_visible("#teach-back")
    assert page.is_visible("#teach-sheet")  # kept, to look the pictures over before playing
    assert page.text_content("#teach-sheet-caption") == "Every picture the die was learned from, a row for each " \
        "face. A wrong one? Tap it to take it back and show that face again."
    # The camera has never seen the die: the page says how to see the camera read it.
    assert "Try the dice" in page.text_content("#teach-state")
    page.wait_for_selector("#teach li >> text=dragon: 1× treasure chest, 1× green dragon")
    assert page.is_visible("#teach-photos-start") and not page.is_visible("#teach-photo-box")
    # What the camera knows keeps the pictures the die was taught from, to look over on another evening
    page.click("#teach li details.dice-pictures summary")
    until(page, "document.querySelector('#teach li details.dice-pictures img').complete && "
                "document.querySelector('#teach li details.dice-pictures img').naturalHeight >= 2 * 96")


def test_a_picture_tapped_on_the_phone_is_taken_back_and_the_others_kept(dashboard, page, runtime, tmp_path):
    # Three photos chosen at once, all learned; looking them over, the teacher sees the second is wrong, taps it and
    # takes it back: its face is asked for again, the first and third stay. The picture tapped stays chosen while
    # the page is sent new states. Once the die is stored, too.
    from vision.synth.dice import render_face_photo, render_tray

    url, _ = dashboard
    rng = np.random.default_rng(9)
    photos = []
    for face in "CGRG":
        photos.append(tmp_path / f"{len(photos)}.jpg")
        cv2.imwrite(str(photos[-1]), render_face_photo(rng, face))
    two = tmp_path / "two.jpg"
    cv2.imwrite(str(two), render_tray(rng, kind="fandooble", faces=["G", "C"], size=(320, 240), die_px=(60, 60),
                                      table="grey").image)
    teach_from_photos(page, url, "CGRR")
    page.wait_for_selector("#teach-prompt >> text=die dragon, face 1 of 4")
    page.set_input_files("#teach-photo", [str(p) for p in photos[:3]])
    page.wait_for_selector("#teach-count >> text=3 of 4 pictures taken")
    until(page, "document.querySelectorAll('#teach-sheet img').length === 3")
    assert not page.is_visible("#teach-back-chosen")
    # Tapped at the screen's foot (a phone shows a few rows at a time): the button it brings comes into sight
    page.evaluate("document.querySelector(\"#teach-sheet button[data-step='2']\").scrollIntoView({block: 'end'})")
    page.evaluate("document.querySelector(\"#teach-sheet button[data-step='2']\").click()")
    assert page.get_attribute("#teach-sheet button[data-step='2']", "aria-pressed") == "true"
    assert page.text_content("#teach-back-chosen") == "Take picture 2 (G, green dragon) back"
    assert page.evaluate("document.getElementById('teach-back-chosen').getBoundingClientRect().bottom") <= PHONE["height"]
    page.set_input_files("#teach-photo", [str(two)])  # meanwhile a photo of two dice: refused, a new state comes
    page.wait_for_selector("#teach-message >> text=saw 2 dice")
    assert page.get_attribute("#teach-sheet button[data-step='2']", "aria-pressed") == "true"  # still chosen
    page.click("#teach-back-chosen")
    page.wait_for_selector("#teach-message >> text=picture 2 was taken back: choose another photo")
    assert page.text_content("#teach-count") == "2 of 4 pictures taken"
    assert page.text_content("#teach-prompt").endswith("a photo of the die alone with the green dragon face up")
    assert [b.get_attribute("data-step") for b in page.query_selector_all("#teach-sheet button")] == ["1", "3"]
    assert page.get_attribute(".sheet-empty.next", "title") == "picture 2: not learned yet"
    assert not page.is_visible("#teach-back-chosen")
    page.set_input_files("#teach-photo", [str(photos[3])])  # another photo of the green dragon
    page.wait_for_selector("#teach-count >> text=3 of 4 pictures taken")
    assert page.text_content("#teach-prompt").endswith("a photo of the die alone with the red dragon face up")
    until(page, "document.querySelectorAll('#teach-sheet img').length === 3")
    assert page.get_attribute(".sheet-empty.next", "title") == "picture 4: not learned yet"
    # Once the die is learned and stored, a picture tapped is still taken back: its face is shown again, the die
    # stored anew.
    page.set_input_files("#teach-photo", [str(photos[2])])
    page.wait_for_selector("#teach-state >> text=Done: the companion knows this die.")
    page.click("#teach-sheet button[data-step='1']")
    page.click("#teach-back-chosen")
    page.wait_for_selector("#teach-message >> text=picture 1 was taken back: choose another photo (the die reads as "
                           "stored until that picture is learned, and is then stored again)")
    assert page.text_content("#teach-prompt").endswith("a photo of the die alone with the treasure chest face up")
    page.set_input_files("#teach-photo", [str(photos[0])])
    page.wait_for_selector("#teach-state >> text=Done: the companion knows this die.")
    until(page, "document.querySelectorAll('#teach-sheet img').length === 4")


def test_a_picture_the_others_read_as_another_face_is_framed_and_said_on_the_phone(dashboard, page, runtime, tmp_path):
    # The green dragon's photo, taken under a warm lamp, chosen in the chest's second place: unlike the green dragon's
    # other photos, it is learned. Once they are in, it is framed on the grid and the page says to look at it; tapped
    # and taken back, the chest shown instead, nothing is framed.
    from vision.synth.dice import render_face_photo
    from vision.synth.effects import relit

    url, _ = dashboard
    rng = np.random.default_rng(9)
    photos = {}
    for name, face in (("chest", "C"), ("lamp-lit-green", "G"), ("green", "G"), ("green-again", "G"),
                       ("chest-again", "C")):
        photos[name] = tmp_path / f"{name}.jpg"
        picture = render_face_photo(rng, face)
        cv2.imwrite(str(photos[name]), relit(picture, (0.5, 0.8, 1.3)) if name == "lamp-lit-green" else picture)
    teach_from_photos(page, url, "CCGG")
    page.wait_for_selector("#teach-photo-box", state="visible")
    page.set_input_files("#teach-photo", [str(photos[name]) for name in ("chest", "lamp-lit-green", "green")])
    page.wait_for_selector("#teach-count >> text=3 of 4 pictures taken")
    page.set_input_files("#teach-photo", [str(photos["green-again"])])
    page.wait_for_selector("#teach-state >> text=Done: the companion knows this die.")
    page.wait_for_selector("#teach-read-as", state="visible")
    assert page.text_content("#teach-read-as") == "Look at the picture framed: picture 2, learned as C, treasure " \
        "chest, reads as the green dragon to the others. If it shows that, tap it and take it back."
    assert [b.get_attribute("data-step") for b in page.query_selector_all("#teach-sheet button.read-as")] == ["2"]
    assert page.is_visible("#teach-sheet button[data-step='2'] .read-as-mark")
    assert page.get_attribute("#teach-sheet button[data-step='2'] img", "alt") == "picture 2, learned as C, treasure " \
        "chest, reads as the green dragon to the others"
    page.click("#teach-sheet button[data-step='2']")
    page.click("#teach-back-chosen")
    page.wait_for_selector("#teach-message >> text=picture 2 was taken back")
    page.set_input_files("#teach-photo", [str(photos["chest-again"])])
    page.wait_for_selector("#teach-state >> text=Done: the companion knows this die.")
    page.wait_for_selector("#teach-read-as", state="hidden")
    assert page.query_selector_all("#teach-sheet button.read-as") == []


def test_photos_chosen_out_of_order_stop_at_the_first_showing_a_face_taught_already(dashboard, page, runtime,
                                                                                      tmp_path):
    # Three photos chosen at once, the chest twice: the second chest is not learned as the green dragon; the phone
    # says what it shows and shows it, and the photos after it wait to be chosen again in order.
    from vision.synth.dice import render_face_photo

    url, _ = dashboard
    rng = np.random.default_rng(9)
    photos = [tmp_path / f"{name}.jpg" for name in ("chest", "chest-again", "green")]
    for path, face in zip(photos, "CCG"):
        cv2.imwrite(str(path), render_face_photo(rng, face))
    sent = []
    page.on("request", lambda request: sent.append(request.url) if request.url.endswith("/teach/photo") else None)
    teach_from_photos(page, url, "CG")
    page.wait_for_selector("#teach-photo-box", state="visible")
    page.set_input_files("#teach-photo", [str(path) for path in photos])
    page.wait_for_selector("#teach-message >> text=this die shows the treasure chest, taught already, not the green "
                           "dragon: choose a photo with the green dragon face up")
    page.wait_for_selector("#teach-seen", state="visible")
    until(page, "document.getElementById('teach-photo-note').textContent.startsWith('Several photos')")  # all sent
    assert page.text_content("#teach-count") == "1 of 2 pictures taken" and len(sent) == 2
    assert page.text_content("#teach-seen-caption").startswith("The photo as the companion saw it")
    page.set_input_files("#teach-photo", [str(photos[2])])
    page.wait_for_selector("#teach-state >> text=Done: the companion knows this die.")
    page.wait_for_selector("#teach li >> text=dragon: 1× treasure chest, 1× green dragon")


def test_a_phones_large_photo_is_scaled_on_the_phone_before_it_is_sent(dashboard, page, runtime, tmp_path):
    # A 12 MP photo weighs megabytes over the table's Wi-Fi and in the Pi's memory; the companion learns it at
    # PHOTO_SIDE pixels: the page sends it scaled to twice that, as a JPEG. A small photo goes as it is.
    from companion.teach import PHOTO_SIDE
    from vision.synth.dice import render_face_photo

    url, _ = dashboard
    rng = np.random.default_rng(12)
    large, small = tmp_path / "large.jpg", tmp_path / "small.png"
    cv2.imwrite(str(large), cv2.resize(render_face_photo(rng, "C"), (4032, 3024), interpolation=cv2.INTER_CUBIC))
    cv2.imwrite(str(small), render_face_photo(rng, "G"))
    teach_from_photos(page, url, "CG")
    page.wait_for_selector("#teach-photo-box", state="visible")
    sent = []

    def photo_sent(route):
        sent.append(route.request.post_data_buffer)
        route.continue_()

    page.route("**/api/dice/teach/photo", photo_sent)
    page.set_input_files("#teach-photo", [str(large)])
    page.wait_for_selector("#teach-count >> text=1 of 2 pictures taken")
    page.set_input_files("#teach-photo", [str(small)])
    page.wait_for_selector("#teach-state >> text=Done: the companion knows this die.")
    assert len(sent) == 2
    scaled = cv2.imdecode(np.frombuffer(sent[0], np.uint8), cv2.IMREAD_COLOR)
    assert scaled.shape == (3 * PHOTO_SIDE // 2, 2 * PHOTO_SIDE, 3) and len(sent[0]) < large.stat().st_size / 2
    assert sent[1] == small.read_bytes()  # no larger than the companion learns: as it is


def test_while_teaching_the_phone_shows_the_tray_up_close_and_gives_the_camera_back_after(dashboard, page, runtime):
    # A camera over the whole table sees a die as a few pixels: while teaching, the teacher's phone shows the
    # tray live, cut to the tray, beside what to do; the camera stream is let go when teaching ends.
    import time

    from hardware.camera.base import Frame

    url, app = dashboard
    tray = [[480, 270], [864, 270], [864, 486], [480, 486]]  # the lower right part of a 960 x 540 picture
    runtime.config = runtime.config.with_changes({"table": {"tray_px": tray}})
    picture = np.full((540, 960, 3), 150, np.uint8)
    picture[270:486, 480:864] = (40, 40, 200)  # the tray's cloth, red: 16% of the picture

    def show(number):
        runtime.frames.publish(Frame(picture, time.monotonic(), number))
        runtime.live_view.publish(picture)

    with camera_running(show, every_s=0.05):
        page.set_viewport_size(PHONE)
        page.goto(url + "/setup")
        _live(page)
        page.locator("#teach-start").scroll_into_view_if_needed()
        page.click("#teach-start")
        page.wait_for_selector("#teach-live-img", state="visible")
        until(page, "document.getElementById('teach-live-img').naturalWidth === 960")
        # What to do and the tray are in sight at once: the form made way for them.
        for selector in ("#teach-prompt", "#teach-state", "#teach-live"):
            box = page.locator(selector).bounding_box()
            assert 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"], selector
        # The tray fills the view, with a margin: not the whole table with the tray a sixth of it.
        for _ in range(100):
            shot = cv2.imdecode(np.frombuffer(page.locator("#teach-live").screenshot(), np.uint8), cv2.IMREAD_COLOR)
            red = float(np.mean((shot[:, :, 2] > 150) & (shot[:, :, 0] < 100)))
            if red > 0.55:
                break
            page.wait_for_timeout(100)
        assert 0.55 < red < 0.8, f"the tray is {red:.0%} of the live view"
        gate = app.extensions["companion_stream_gates"]["video"]
        assert gate.open == 1
        # Another phone follows the progress; it takes one of the few camera views only when asked.
        other = page.context.new_page()
        other.set_viewport_size(PHONE)
        other.goto(url + "/setup")
        other.wait_for_selector("#teach-watch >> text=Watch the tray")
        assert other.is_hidden("#teach-live-box") and gate.open == 1
        other.click("#teach-watch")
        other.wait_for_selector("#teach-live-img", state="visible")
        until(other, "document.getElementById('teach-live-img').naturalWidth === 960")
        assert gate.open == 2
        other.close()
        page.click("#teach-cancel")
        page.wait_for_selector("#teach-live-box", state="hidden")
        for _ in range(100):
            if gate.open == 0:
                break
            page.wait_for_timeout(100)
        assert gate.open == 0


def test_the_dice_are_tried_on_the_setup_page_each_throw_shown_as_the_camera_read_it(dashboard, page, runtime,
                                                                                     tmp_path):
    # After teaching, the game master throws the dice and sees what the camera reads, with no game in play:
    # through the real camera pipeline, fed rendered throws.
    import time

    from companion.pipeline import Pipeline
    from hardware.camera.base import Frame
    from tests.test_pipeline import _taught_store
    from vision.synth.dice import render_tray
    from tests.waiting import wait_until
    from vision.synth.effects import relit

    store = _taught_store(tmp_path)
    runtime.dice_store = store
    pipeline = Pipeline(runtime, Config.defaults().with_changes(
        {"table": {"tray_px": [[0, 0], [640, 0], [640, 480], [0, 480]]}}), tmp_path)
    thrown = render_tray(np.random.default_rng(11), kind="fandooble", faces=["C", "C", "G", "F"]).image
    scene = {"image": np.full_like(thrown, int(thrown[0, 0].mean()))}

    def show(number):
        pipeline(Frame(scene["image"], time.monotonic(), number))

    with camera_running(show, every_s=0.03):
        url, _ = dashboard
        page.set_viewport_size(PHONE)
        page.goto(url + "/setup")
        _live(page)
        page.locator("#try-start").scroll_into_view_if_needed()
        page.click("#try-start")
        page.wait_for_selector("#try-state >> text=Throw the dice into the tray")
        scene["image"] = thrown
        page.wait_for_selector("#try-state >> text=Throw 1: 4 dice read.")
        names = sorted(page.locator("#try-dice .die").all_text_contents())
        assert names == ["Fandooble", "green dragon", "treasure chest", "treasure chest"]
        until(page, "document.getElementById('try-picture').complete && "
                    "document.getElementById('try-picture').naturalWidth > 0")
        assert page.is_hidden("#try-health")  # thrown in the light the dice were taught in
        # The evening grows dark over the tray: the next throws say so where the dice are tried.
        empty = np.full_like(thrown, int(thrown[0, 0].mean()))
        for throw in (2, 3):
            scene["image"] = empty  # the dice taken out, seen still: no throw
            seen = pipeline.frames
            wait_until(lambda: pipeline.frames > seen + 12)
            scene["image"] = relit(thrown, (0.6, 0.6, 0.6))
            page.wait_for_selector(f"#try-state >> text=Throw {throw}: 4 dice read.")
            tried = runtime.snapshot()["vision"]["tried"]  # the tally of every throw so far
            assert f"So far {tried['seen'] - tried['unread']} of {4 * throw} dice read a face." in \
                page.text_content("#try-state")
        page.wait_for_selector("#try-health >> text=The dice look darker than when they were taught")
        assert runtime.session is None  # no game played the throw
        page.click("#try-stop")
        page.wait_for_selector("#try-start", state="visible")
        assert runtime.snapshot()["dice_try"] == {"active": False}
        # With a dice game in play its throws are its own: the page says so, and asks nothing about replacing it.
        runtime.new_game("fandooble", ["Lola", "Grace"])
        page.click("#try-start")
        page.wait_for_selector("#toast >> text=a Fandooble game is in play: throw for it")
        assert runtime.snapshot()["dice_try"] == {"active": False} and page.is_visible("#try-start")


def test_the_setup_page_says_when_taught_dice_are_pip_dice_until_they_are_read_by_their_pips(
        dashboard, page, runtime, tmp_path):
    # A new player tries teaching with an ordinary die, its faces named by their pips: the page says the pip
    # reader reads it better, and once pip dice are chosen there is nothing more to say.
    from companion.dicestore import DiceStore
    from vision.dice.faces import FaceTemplates
    from vision.synth.dice import random_style, render_tray

    url, _ = dashboard
    runtime.dice_store = store = DiceStore(tmp_path / "table")
    rng = np.random.default_rng(5)
    style, templates = random_style(rng), FaceTemplates()
    for face in "123456":
        templates.learn("white", face, render_tray(rng, kind="pips", faces=[face], style=style, die_px=(44, 48)).image)
    store.save_templates(templates)
    page.set_viewport_size(PHONE)
    page.goto(url + "/setup")
    text = page.text_content("#dice-pips")
    assert text.startswith("The die white is a pip die: the pip reader reads ")
    assert "teaching pictures as the faces taught" in text
    assert "companion dice use pips" not in text  # a command for a terminal; the page has a button
    assert page.is_visible("#dice-pips")
    page.click("#dice-use-pips")
    page.wait_for_selector("#dice-pips", state="detached")
    assert page.input_value("#dice-kind") == "pips" and store.kind == "pips"


def test_the_dice_chosen_last_stay_on_the_setup_page_when_an_earlier_answer_comes_late(dashboard, page):
    # The game master goes back to pip dice, then to stickers at once; a busy Pi sends the dice
    # settings read after the first change after those read after the second. Stickers stay chosen.
    url, _ = dashboard
    held, armed = [], []

    def answer(route):
        if armed and route.request.method == "GET":
            held.append((route, route.fetch()))  # the answer as it was then, delivered later
        else:
            route.continue_()

    page.route(re.compile(r".*/api/dice$"), answer)
    page.goto(url + "/setup")
    page.wait_for_selector("#dice-aruco")
    assert "null" not in page.text_content("#teach")  # no advice to give: nothing stands in its place
    page.fill("#dice-aruco", "0=C 1=G")
    page.click("text=Save the sticker table")
    until(page, "document.querySelector('#dice-kind').value === 'aruco'")
    armed.append(True)
    page.select_option("#dice-kind", "pips")
    for _ in range(TIMEOUT_MS // 20):  # the settings read after going back to pips, held
        if held:
            break
        page.wait_for_timeout(20)
    armed.clear()
    page.click("text=Save the sticker table")
    page.wait_for_selector("text=Sticker table saved")
    until(page, "document.querySelector('#dice-kind').value === 'aruco'")
    route, late = held[0]
    with page.expect_request_finished(lambda request: request.url == route.request.url):
        route.fulfill(response=late)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert page.input_value("#dice-kind") == "aruco"
