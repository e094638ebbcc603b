"""Seats and secrets: each phone sees its own view, enters its own moves, and takes back only its own choice.

Played with the toy game of tests/toygame.py (a hidden hand and a simultaneous secret
pick) and with the shipped games, through the runtime and the dashboard's API.
"""

from __future__ import annotations

import threading

import pytest

from companion import games
from companion.config import Config
from companion.errors import IllegalMove, NotYourSeat
from companion.leds import LedObserver, scene_for
from companion.runtime import Busy, Entrant, Runtime
from hardware.gpio import Panel
from tests.toygame import TOY
from tests.test_web_support import make_app, with_token

PLAYERS = ["Anne", "Paul", "Rachel"]


@pytest.fixture(autouse=True)
def toy_game():
    games.register(TOY)
    yield
    games.unregister(TOY.NAME)


@pytest.fixture
def table(log):
    """A running runtime with a toy game dealt: everyone must now pick a card at once."""
    with Runtime(Config.defaults(), log) as runtime:
        runtime.new_game("toy", PLAYERS, {"rounds": "2"})
        for deal in ("deal Anne 2 5 9", "deal Paul 1 4 8", "deal Rachel 3 6 7"):
            runtime.play(deal, source="camera")
        yield runtime


def test_each_seat_sees_its_own_hand_and_the_table_screen_sees_none(table):
    anne, paul, shared = (table.snapshot(v)["game"] for v in ("Anne", "Paul", None))
    hands = lambda view: {p["name"]: p["hand"] for p in view["state"]["players"]}  # noqa: E731
    assert hands(anne) == {"Anne": [2, 5, 9], "Paul": 3, "Rachel": 3}
    assert hands(paul) == {"Anne": 3, "Paul": [1, 4, 8], "Rachel": 3}
    assert hands(shared) == {"Anne": 3, "Paul": 3, "Rachel": 3}
    assert anne["viewer"] == "Anne" and shared["viewer"] is None
    assert anne["to_act"] == ["Anne", "Paul", "Rachel"]


def test_a_secret_pick_shows_in_its_own_words_only_to_its_player_until_the_reveal(table):
    table.play("pick Anne 9", source="dashboard")
    texts = lambda viewer: [e["text"] for e in table.snapshot(viewer)["game"]["log"] if e["kind"] == "move"]  # noqa: E731
    assert texts("Anne")[-1] == "pick Anne 9"
    assert texts("Paul")[-1] == texts(None)[-1] == "Anne chose a card"
    assert table.snapshot("Paul")["game"]["to_act"] == ["Paul", "Rachel"]
    table.play("pick Paul 1", source="dashboard")
    table.play("pick Rachel 3", source="dashboard")  # the last pick: all are revealed together
    for viewer in ("Paul", None):
        assert {"pick Anne 9", "pick Paul 1", "pick Rachel 3"} <= set(texts(viewer))


def test_a_phone_enters_only_its_own_seats_moves_unless_the_game_master_unlocked_it(table):
    stored = table.log.count_events()
    with pytest.raises(NotYourSeat, match="only Anne's phone or the game master"):
        table.play("pick Anne 2", source="dashboard", entrant=Entrant(seat="Paul"))
    assert table.log.count_events() == stored and table.session.to_act() == ("Anne", "Paul", "Rachel")
    table.play("pick Paul 4", source="dashboard", entrant=Entrant(seat="Paul"))
    table.play("pick Anne 2", source="dashboard", entrant=Entrant(seat="Paul", master=True))
    assert table.session.to_act() == ("Rachel",)


def test_a_phone_without_a_seat_enters_the_moves_of_seats_no_phone_holds(table):
    table.claim_seat("Anne", "anne-phone", source="dashboard")
    with pytest.raises(NotYourSeat, match="Anne's own phone"):
        table.play("pick Anne 5", source="dashboard", entrant=Entrant())
    table.play("pick Rachel 6", source="dashboard", entrant=Entrant())  # Rachel has no phone: the table enters it
    assert table.session.to_act() == ("Anne", "Paul")


def test_undo_on_a_phone_takes_back_only_its_own_choice_while_the_others_still_think(table):
    table.play("pick Anne 5", source="dashboard", entrant=Entrant(seat="Anne"))
    table.play("pick Paul 8", source="dashboard", entrant=Entrant(seat="Paul"))
    table.undo(source="dashboard", entrant=Entrant(seat="Anne"))  # Paul chose after her: his pick stays
    assert table.session.to_act() == ("Anne", "Rachel")
    assert [p.text for p in table.session.played][-1] == "pick Paul 8"
    table.play("pick Anne 9", source="dashboard", entrant=Entrant(seat="Anne"))  # she changes her mind
    table.play("pick Rachel 7", source="dashboard", entrant=Entrant(seat="Rachel"))  # revealed: next round
    with pytest.raises(IllegalMove, match="only the game master"):
        table.undo(source="dashboard", entrant=Entrant(seat="Anne"))
    assert table.session.state.points == (1, 0, 0)
    table.undo(source="dashboard", entrant=Entrant(seat="Rachel", master=True))  # the game master: the last move
    assert table.session.to_act() == ("Rachel",)


def test_a_game_resumed_after_a_restart_keeps_the_undone_choice_out(table, log):
    table.play("pick Anne 5", source="dashboard")
    table.play("pick Paul 8", source="dashboard")
    table.undo(source="dashboard", entrant=Entrant(seat="Anne"))
    before = table.session.state
    table.stop()
    with Runtime(Config.defaults(), log) as again:
        assert again.session.state == before


def test_players_sit_where_they_like_and_the_leds_light_everyone_still_choosing(log, mock_factory):
    section = {**Config.defaults()["gpio"]}
    with Panel.from_config(section, pin_factory=mock_factory) as panel, Runtime(Config.defaults(), log) as runtime:
        leds = LedObserver(panel).attach(runtime)
        runtime.new_game("toy", PLAYERS, {}, seats=[1, 3, 5])
        for deal in ("deal Anne 2 5 9", "deal Paul 1 4 8", "deal Rachel 3 6 7"):
            runtime.play(deal, source="camera")
        assert leds.last_scene.modes == ("pulse", "off", "pulse", "off", "pulse")
        runtime.play("pick Paul 4", source="dashboard")  # seat 3 has chosen: its light goes out
        assert leds.last_scene.modes == ("pulse", "off", "off", "off", "pulse")
        runtime.claim_seat("Rachel", "phone", source="dashboard")
        assert leds.last_scene.flash == (4,) and leds.last_scene.flash_times == 2  # her seat blinks twice


def test_a_move_that_timed_out_as_busy_is_never_applied_later(table):
    hold, holding = threading.Event(), threading.Event()

    def busy():
        holding.set()
        hold.wait(10)

    table.submit(busy)
    assert holding.wait(5)
    table.input_timeout = 0.2
    stored = table.log.count_events()
    with pytest.raises(Busy, match="nothing was changed"):
        table.play("pick Anne 5", source="dashboard")
    hold.set()
    table.call(lambda: None, timeout=5)  # everything queued has run by now
    assert table.log.count_events() == stored and "Anne" in table.session.to_act()


def test_a_game_that_cannot_be_resumed_is_said_on_every_page(log):
    with Runtime(Config.defaults(), log) as runtime:
        runtime.new_game("toy", PLAYERS, {})
    games.unregister(TOY.NAME)  # as if the game's package were gone after an upgrade
    with Runtime(Config.defaults(), log) as runtime:
        problems = runtime.snapshot()["problems"]
        assert runtime.session is None and "could not be resumed" in problems[0]["text"]
        assert "unknown game 'toy'" in problems[0]["text"]


# -- the dashboard ------------------------------------------------------------------


@pytest.fixture
def phones(table):
    app = make_app(table)
    return app, table


def _join(app, player: str):
    phone = with_token(app.test_client())
    seat = next(s for s in phone.get("/api/seats").get_json()["seats"] if s["player"] == player)
    assert phone.get(f"/join/{seat['code']}").status_code == 200  # the page a QR code opens changes nothing
    answer = phone.post("/api/seats/claim", json={"code": seat["code"]})
    assert answer.status_code == 200, answer.get_json()
    return phone


def test_a_phone_that_opens_a_seat_link_is_that_player_and_gets_only_their_view(phones):
    app, runtime = phones
    anne, screen = _join(app, "Anne"), with_token(app.test_client())
    assert anne.get("/api/state").get_json()["viewer"] == "Anne"
    hands = {p["name"]: p["hand"] for p in anne.get("/api/state").get_json()["game"]["state"]["players"]}
    assert hands["Anne"] == [2, 5, 9] and hands["Paul"] == 3
    assert screen.get("/api/state").get_json()["viewer"] is None
    assert "[2, 5, 9]" not in screen.get("/").get_data(as_text=True).replace(",", ", ")
    assert anne.get("/api/game/legal").get_json()["moves"] == ["pick Anne 2", "pick Anne 5", "pick Anne 9"]
    taken = next(s for s in screen.get("/api/seats").get_json()["seats"] if s["player"] == "Anne")
    assert taken["claimed"] and "code" not in taken  # a held seat's link is not handed out


def test_another_seats_move_is_refused_with_403_and_changes_nothing(phones):
    app, runtime = phones
    paul = _join(app, "Paul")
    stored = runtime.log.count_events()
    answer = paul.post("/api/move", json={"move": "pick Anne 9"})
    assert answer.status_code == 403 and "only Anne's phone or the game master" in answer.get_json()["error"]
    assert runtime.log.count_events() == stored
    assert paul.post("/api/move", json={"move": "pick Paul 8"}).status_code == 200


def test_a_second_phone_cannot_take_a_held_seat_until_the_game_master_releases_it(phones):
    app, runtime = phones
    first = _join(app, "Anne")
    second = with_token(app.test_client())
    code = next(s for s in first.get("/api/seats").get_json()["seats"] if s["player"] == "Paul")["code"]
    anne_code = _code_of(app, runtime, "Anne")
    refused = second.post("/api/seats/claim", json={"code": anne_code})
    assert refused.status_code == 409 and "already taken" in refused.get_json()["error"]
    assert first.post("/api/seats/Anne/release", json={}).status_code == 200  # no PIN configured here
    assert first.get("/api/state").get_json()["viewer"] is None  # the old phone is a spectator now
    assert second.post("/api/seats/claim", json={"code": anne_code}).status_code == 200
    assert second.get("/api/state").get_json()["viewer"] == "Anne"
    assert code  # the other seats keep their links


def _code_of(app, runtime, player):
    from web.seats import join_code

    with app.test_request_context():
        return join_code(runtime.session.session_id, player)


def test_the_end_of_turn_button_is_offered_only_where_it_would_be_accepted(log):
    # Fandooble, Lola's loot to bank: her phone gets "End the turn (bank)"; Grace's phone, and the shared
    # screen once Lola's seat is held, get none (the companion would refuse it there).
    with Runtime(Config.defaults(), log) as runtime:
        runtime.new_game("fandooble", ["Lola", "Grace"])
        runtime.play("roll CCGK", source="camera")
        app = make_app(runtime)
        screen = with_token(app.test_client())
        assert screen.get("/api/game/legal").get_json()["end_turn"] == "bank"  # no phone holds Lola's seat
        lola, grace = _join(app, "Lola"), _join(app, "Grace")
        assert lola.get("/api/game/legal").get_json()["end_turn"] == "bank"
        assert grace.get("/api/game/legal").get_json()["end_turn"] is None
        assert screen.get("/api/game/legal").get_json()["end_turn"] is None
        assert grace.post("/api/end-turn", json={}).status_code == 403
