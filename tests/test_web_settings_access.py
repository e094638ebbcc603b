"""Settings that cannot break the next start, host names that leave when removed, a PIN no phone can
lock away from the game master, player names that cannot deceive, and refusals the sender can act on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.config import SCHEMA, Config
from companion.configcheck import check_config
from tests.test_web_support import make_app, runtime, start_fandooble, with_token  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parent.parent

# Values of every shape a JSON body can carry, good for some keys and wrong for most.
ANY_VALUE = [
    None, True, False, 0, -1, 7, 2**63, 10**30, 0.5, -1e308, 1e308, "", " ", "x" * 5000, "a\x00b", "line\nbreak",
    "abc", "256.1.1.1", "GPIO17", "0.0.0.0", [], [None], [1], [1, 2, 3, 4], [[1, 2]], [[1, 2]] * 4, [["a", "b"]] * 4,
    [{"a": 1}], {"a": 1}, {"server": {"port": 1}}, ["games.lan"], [""], [[[[[[1]]]]]],
]
# Each known way a value used to be saved and then refused by the next start (or a 500).
KNOWN_BAD = [
    ("table", "corners_px", [[10, 20]]),
    ("table", "corners_px", "abc"),
    ("table", "corners_px", {"NW": [1, 2]}),
    ("server", "host", "256.1.1.1"),
    ("server", "trusted_hosts", [{"name": "x"}]),
    ("gpio", "buzzer", 5),  # seat 1's pin: a conflict only the whole-configuration check sees
    ("gpio", "buzzer", None),
    ("camera", "work_width", 4608),  # wider than full_width's default... only with full_width below it
    ("camera", "file_path", "a\x00b"),
    ("table", "tray_mm", None),
]


@pytest.fixture
def settings_client(runtime, tmp_path):
    path = tmp_path / "config.toml"
    config = Config.from_mapping({"camera": {"full_width": 4000}}, str(path))
    config.save(path)
    app = make_app(runtime, config)
    return with_token(app.test_client()), path, app


def _post(client, section, key, value):
    return client.post("/api/config", data=json.dumps({"changes": {section: {key: value}}}),
                       content_type="application/json")


def _starts_with(path: Path) -> None:
    """What `companion run` does with the file first: load it, then the whole-configuration check."""
    check_config(Config.load(path))


def test_every_key_refuses_its_bad_values_with_400_and_never_saves_what_the_start_refuses(settings_client):
    client, path, _ = settings_client
    tried = 0
    for section, keys in SCHEMA.items():
        for key in keys:
            for value in ANY_VALUE:
                before = path.read_bytes()
                response = _post(client, section, key, value)
                tried += 1
                assert response.status_code in (200, 400), (section, key, value, response.get_json())
                if response.status_code == 400:
                    body = response.get_json()
                    assert body["reason"] == "bad_config" and body["field"] == f"{section}.{key}", (key, value, body)
                    assert path.read_bytes() == before, (section, key, value)
                else:
                    _starts_with(path)  # a value the dashboard saved, the next start accepts
                    path.write_bytes(before)  # back to the start for the next value
                    client.application.extensions["companion_config"]._config = Config.load(path)
    assert tried == sum(len(k) for k in SCHEMA.values()) * len(ANY_VALUE)


@pytest.mark.parametrize(("section", "key", "value"), KNOWN_BAD)
def test_what_the_start_refused_after_a_save_is_refused_by_the_save(settings_client, section, key, value):
    client, path, _ = settings_client
    before = path.read_bytes()
    response = _post(client, section, key, value)
    assert response.status_code == 400, response.get_json()
    assert response.get_json()["field"] == f"{section}.{key}" and path.read_bytes() == before


def test_a_host_removed_from_the_trusted_names_is_refused_at_once(settings_client):
    client, _, _ = settings_client
    assert _post(client, "server", "trusted_hosts", ["games.lan", "tisch.lan"]).status_code == 200
    assert client.get("/api/state", headers={"Host": "games.lan"}).status_code == 200
    assert _post(client, "server", "trusted_hosts", ["tisch.lan"]).status_code == 200
    assert client.get("/api/state", headers={"Host": "games.lan"}).status_code == 400
    assert client.get("/api/state", headers={"Host": "tisch.lan"}).status_code == 200
    assert client.get("/api/state", headers={"Host": "localhost"}).status_code == 200  # this machine stays


# -- the PIN ---------------------------------------------------------------------------------


def _guess(app, address, pin):
    client = with_token(app.test_client())
    return client.post("/api/unlock", json={"pin": pin}, environ_base={"REMOTE_ADDR": address,
                                                                       "HTTP_X_CSRF_TOKEN": client.environ_base[
                                                                           "HTTP_X_CSRF_TOKEN"]})


def test_guessing_phones_cannot_lock_the_game_master_out_for_good(runtime, tmp_path, monkeypatch):
    import web.settings

    monkeypatch.setattr(web.settings, "RELOAD_CHECK_S", 0.0)
    path = tmp_path / "config.toml"
    config = Config.from_mapping({"server": {"pin": "424242"}}, str(path))
    config.save(path)
    app = make_app(runtime, config)
    for n in range(12):  # two phones guess until everyone is locked out
        _guess(app, f"192.168.1.{50 + n % 2}", f"{n:06d}")
    assert _guess(app, "192.168.1.60", "424242").status_code == 429  # the right PIN from a third phone: locked
    assert _guess(app, "127.0.0.1", "424242").status_code == 200  # the Pi's own screen is not
    result = subprocess.run([sys.executable, "-m", "companion", "pin", "reset", "--pin", "777111",
                             "--data-dir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0 and "777111" in result.stdout, result.stderr
    assert _guess(app, "192.168.1.60", "424242").status_code == 403  # the old PIN is gone...
    assert _guess(app, "192.168.1.60", "777111").status_code == 200  # ...and the lockout with it
    assert Config.load(path).get("server", "pin") == "777111"


def test_a_pin_reset_refuses_a_bad_pin_without_touching_the_file(tmp_path):
    (tmp_path / "config.toml").write_text('[server]\npin = "424242"\n')
    result = subprocess.run([sys.executable, "-m", "companion", "pin", "reset", "--pin", "12ab",
                             "--data-dir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 2 and "4 to 12 digits" in result.stderr and "Traceback" not in result.stderr
    assert (tmp_path / "config.toml").read_text() == '[server]\npin = "424242"\n'


# -- player names ----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "reason"), [
    (["Anne", "\u0410nne"], "mixes Cyrillic and Latin letters"),      # a Cyrillic А inside a Latin name
    (["KOKO", "\u041a\u041e\u041a\u041e"], "look alike"),             # all Cyrillic, looks the same
    (["Al", "AI"], "look alike"),                                     # l and I
    (["Anne", "\uff21nne"], "the same name to the companion"),        # a fullwidth Ａ: equal after NFKC
    (["Anne", "ANNE"], "the same name"),                              # equal after case folding
    (["Ann\u200be", "Paul"], "invisible or text-direction"),          # a zero-width space
    (["\u202eluaP", "Anne"], "invisible or text-direction"),          # a right-to-left override
    (["Anne\x07", "Paul"], "control character"),
    (["Anne\u00a0Marie", "Paul"], "ordinary space"),
    (["Anne#2", "Paul"], "'#'"),
])
def test_names_that_deceive_or_cannot_be_typed_are_refused(runtime, players, reason):
    client = with_token(make_app(runtime).test_client())
    response = client.post("/api/games", json={"game": "fandooble", "players": players})
    assert response.status_code == 400 and reason in response.get_json()["error"], response.get_json()


def test_names_of_every_script_are_welcome_and_stored_as_typed(runtime):
    client = with_token(make_app(runtime).test_client())
    players = ["Zoë", "Ἀλέξανδρος", "Юлия", "田中さん"]
    response = client.post("/api/games", json={"game": "fandooble", "players": players})
    assert response.status_code == 201, response.get_json()
    assert [p["name"] for p in response.get_json()["state"]["players"]] == players


def test_a_decomposed_name_is_the_same_player_as_the_composed_one(runtime):
    client = with_token(make_app(runtime).test_client())
    assert client.post("/api/games", json={"game": "fandooble", "players": ["Zoe\u0308", "Paul"]}).status_code == 201
    for move in ("roll CCCK", "bank", "roll CCCK"):
        assert client.post("/api/move", json={"move": move}).status_code == 200
    state = client.get("/api/state").get_json()["game"]["state"]
    assert state["players"][0]["name"] == "Zo\u00eb"  # stored composed (NFC), as a keyboard types it


# -- refusals the sender can act on ---------------------------------------------------------


def test_an_event_id_reused_for_another_move_is_a_409_naming_the_conflict(runtime):
    client = with_token(make_app(runtime).test_client())
    start_fandooble(client)
    first = client.post("/api/move", json={"move": "roll CCGF", "event_id": "phone-7"})
    assert first.status_code == 200
    again = client.post("/api/move", json={"move": "roll CCGF", "event_id": "phone-7"})
    assert again.status_code == 200 and again.get_json()["event"] == first.get_json()["event"]  # a retry
    other = client.post("/api/move", json={"move": "bank", "event_id": "phone-7"})
    assert other.status_code == 409
    assert "phone-7 was already used for 'roll CCGF'" in other.get_json()["error"]
    assert "not applied" in other.get_json()["error"]
    log = client.get("/api/state").get_json()["game"]["log"]
    assert [e["text"] for e in log] == ["roll CCGF"]


def test_a_full_card_mid_game_is_a_503_saying_what_to_do_and_the_health_shows_it(runtime, monkeypatch):
    import sqlite3

    from companion.faults import FAULTS

    client = with_token(make_app(runtime).test_client())
    start_fandooble(client)
    db = runtime.log._db

    class Full:  # the connection as a full card answers it
        def __getattr__(self, name):
            return getattr(db, name)

        def execute(self, sql, *args):
            if sql.startswith("INSERT INTO events"):
                error = sqlite3.OperationalError("database or disk is full")
                error.sqlite_errorname = "SQLITE_FULL"
                raise error
            return db.execute(sql, *args)

    monkeypatch.setattr(runtime.log, "_db", Full())
    response = client.post("/api/move", json={"move": "roll CCGF"})
    assert response.status_code == 503 and "the disk is full" in response.get_json()["error"]
    health = client.get("/api/health").get_json()["health"]["database"]
    assert health["status"] == "failed" and FAULTS["full"].steps in health["detail"]

    monkeypatch.setattr(runtime.log, "_db", db)  # space freed: the next move is stored and the health says so
    assert client.post("/api/move", json={"move": "roll CCGF"}).status_code == 200
    assert client.get("/api/health").get_json()["health"]["database"]["status"] == "ok"


def test_the_files_places_on_the_pi_are_shown_only_with_the_pin(runtime, tmp_path):
    path = tmp_path / "config.toml"
    config = Config.from_mapping({"server": {"pin": "424242"}}, str(path))
    config.save(path)
    client = with_token(make_app(runtime, config).test_client())
    assert client.get("/api/config").get_json()["path"] is None
    dice = client.get("/api/dice")
    assert dice.status_code != 200 or dice.get_json()["directory"] is None
    assert str(tmp_path) not in client.get("/api/config").get_data(as_text=True)
    assert client.post("/api/unlock", json={"pin": "424242"}).status_code == 200
    assert client.get("/api/config").get_json()["path"] == str(path)
