"""The dashboard's defences: host names, CSRF tokens, the game master's PIN, body limits, headers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.config import Config
from web import security
from web.security import Attempts, HostAllowList, trusted_hosts
from tests.test_web_support import (  # noqa: F401  (fixtures)
    HOSTNAME,
    LAN_IP,
    app,
    client,
    make_app,
    runtime,
    start_fandooble,
    with_token,
)


def _get_routes(app):
    """Every GET route with its arguments filled in."""
    paths = []
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods:
            continue
        path = rule.rule.replace("<path:filename>", "style.css").replace("<session_id>", "x").replace("<alert_id>", "x")
        paths.append(path + ("?wait=0" if path.endswith(".jpg") else ""))
    return sorted(set(paths))


def _post_routes(app):
    paths = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods & {"POST", "PUT", "PATCH", "DELETE"}):
            paths.append((method, rule.rule.replace("<session_id>", "x").replace("<alert_id>", "x")))
    return sorted(set(paths))


def _fetch(client, path, **kwargs):
    """GET ``path``; of a stream only the first chunk is read."""
    response = client.get(path, buffered=False, **kwargs)
    status, headers = response.status_code, response.headers
    streaming = status == 200 and path.endswith(("/stream", ".mjpg"))
    body = next(iter(response.response), b"") if streaming else response.get_data()
    response.close()
    return status, headers, body


# -- host names ---------------------------------------------------------------------


def test_the_allowed_host_names_come_from_this_machine_and_the_configuration():
    hosts = trusted_hosts(["Games.lan "], hostname="tablepi", addresses=["192.168.1.20", "fe80::1", "10.0.0.5"])
    assert hosts == ["localhost", "127.0.0.1", "tablepi", "tablepi.local", "10.0.0.5", "192.168.1.20", "games.lan"]


def test_every_route_refuses_a_foreign_host_name(app):
    client = app.test_client()
    for path in _get_routes(app):
        for host in ("attacker.example", "127.0.0.1.nip.io", "attacker.example:8080"):
            status, headers, body = _fetch(client, path, headers={"Host": host})
            assert status == 400, (path, host, status)
            assert json.loads(body)["reason"] == "untrusted_host"
    for method, path in _post_routes(app):
        response = client.open(path, method=method, headers={"Host": "attacker.example"}, json={})
        assert response.status_code == 400 and response.get_json()["reason"] == "untrusted_host", (method, path)


def test_every_page_answers_on_the_machines_names_and_addresses(app, runtime):
    runtime.live_view.publish(np.zeros((90, 160, 3), np.uint8), force=True)
    client = app.test_client()
    for path in _get_routes(app):
        for host in (f"{LAN_IP}:8080", f"{HOSTNAME}.local:8080", "localhost", "127.0.0.1:8080"):
            status, _, _ = _fetch(client, path, headers={"Host": host})
            assert status != 400, (path, host)


def test_without_the_host_check_the_rebinding_attack_would_be_answered(runtime):
    # The must-fail twin: the same request is served when TRUSTED_HOSTS is switched off.
    app = make_app(runtime, TRUSTED_HOSTS=None)
    assert app.test_client().get("/api/state", headers={"Host": "attacker.example"}).status_code == 200


def test_an_address_gained_after_start_is_answered_but_a_foreign_name_never():
    found = {"192.168.1.20"}
    hosts = ["localhost", "192.168.1.20"]
    allow = HostAllowList(hosts, lookup=lambda: set(found), min_interval_s=0)
    found.add("192.168.1.77")  # DHCP handed the Pi a second address
    allow.consider("192.168.1.77:8080")
    assert "192.168.1.77" in hosts
    allow.consider("attacker.example")
    allow.consider("10.9.9.9")  # not an address of this machine
    assert "attacker.example" not in hosts and "10.9.9.9" not in hosts


def test_interface_lookups_are_throttled():
    calls = []
    allow = HostAllowList(["localhost"], lookup=lambda: calls.append(1) or set(), min_interval_s=60)
    for _ in range(20):
        allow.consider("10.0.0.9")
    assert calls == []  # the first look waits min_interval_s after start; a flood of requests costs nothing


# -- CSRF -------------------------------------------------------------------------


def test_every_state_changing_route_needs_the_token(app):
    client = app.test_client()
    client.get("/api/session")  # has a session, but does not send its token
    for method, path in _post_routes(app):
        response = client.open(path, method=method, json={"move": "bank"})
        assert response.status_code == 400, (method, path)
        assert response.get_json()["reason"] == "csrf"


def test_a_token_from_another_browser_is_refused(app):
    mine = with_token(app.test_client())
    other = app.test_client()
    other.get("/api/session")
    other.environ_base["HTTP_X_CSRF_TOKEN"] = mine.environ_base["HTTP_X_CSRF_TOKEN"]
    response = other.post("/api/games", json={"game": "fandooble", "players": ["A", "B"]})
    assert response.status_code == 400 and response.get_json()["reason"] == "csrf"


def test_a_request_from_another_site_is_refused_even_with_the_token(client):
    response = client.post("/api/games", json={"game": "fandooble", "players": ["A", "B"]},
                           headers={"Origin": "http://attacker.example"})
    assert response.status_code == 403 and response.get_json()["reason"] == "origin"
    response = client.post("/api/games", json={"game": "fandooble", "players": ["A", "B"]},
                           headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403
    response = client.post("/api/games", json={"game": "fandooble", "players": ["A", "B"]},
                           headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 201


def test_a_tampered_session_cookie_counts_as_no_session(client, app):
    cookie = client.get_cookie("companion")
    value = cookie.value
    flipped = value[:5] + ("A" if value[5] != "A" else "B") + value[6:]
    client.set_cookie("companion", flipped)
    response = client.post("/api/games", json={"game": "fandooble", "players": ["A", "B"]})
    assert response.status_code == 400 and response.get_json()["reason"] == "csrf"


def test_pages_carry_the_token_and_the_cookie_is_http_only_and_same_site(app):
    client = app.test_client()
    page = client.get("/")
    token = client.get("/api/session").get_json()["csrf"]
    assert f'<meta name="csrf-token" content="{token}">' in page.get_data(as_text=True)
    cookie_header = page.headers["Set-Cookie"]
    assert "HttpOnly" in cookie_header and "SameSite=Lax" in cookie_header


def test_the_session_key_survives_a_restart(runtime):
    first, second = make_app(runtime), make_app(runtime)
    assert first.secret_key == second.secret_key and len(first.secret_key) >= 64
    client = with_token(first.test_client())
    # The same cookie and token still work with the app built after a restart.
    later = second.test_client()
    later.set_cookie("companion", client.get_cookie("companion").value)
    later.environ_base["HTTP_X_CSRF_TOKEN"] = client.environ_base["HTTP_X_CSRF_TOKEN"]
    assert later.post("/api/games", json={"game": "fandooble", "players": ["A", "B"]}).status_code == 201


# -- the PIN ------------------------------------------------------------------------


@pytest.fixture
def pin_app(runtime, tmp_path):
    config = Config.from_mapping({"server": {"pin": "246810"}}, str(tmp_path / "config.toml"))
    return make_app(runtime, config)


def test_game_master_actions_ask_for_the_pin(pin_app):
    client = with_token(pin_app.test_client())
    for method, path, body in (("POST", "/api/config", {"changes": {"server": {"port": 8081}}}),
                               ("POST", "/api/calibration", {}), ("DELETE", "/api/calibration", {})):
        response = client.open(path, method=method, json=body)
        assert response.status_code == 403, path
        assert response.get_json()["reason"] == "pin"
    assert client.get("/api/session").get_json() == {
        "csrf": client.environ_base["HTTP_X_CSRF_TOKEN"], "pin_required": True, "unlocked": False, "seat": None}


def test_the_right_pin_unlocks_this_browser_only(pin_app):
    client = with_token(pin_app.test_client())
    assert client.post("/api/unlock", json={"pin": "111111"}).status_code == 403
    response = client.post("/api/unlock", json={"pin": "246810"})
    assert response.status_code == 200
    assert client.post("/api/config", json={"changes": {"server": {"port": 8081}}}).status_code == 200
    stranger = with_token(pin_app.test_client())
    assert stranger.post("/api/config", json={"changes": {"server": {"port": 8082}}}).status_code == 403
    assert client.post("/api/lock", json={}).get_json() == {"unlocked": False}
    assert client.post("/api/config", json={"changes": {"server": {"port": 8083}}}).status_code == 403


def test_changing_the_pin_locks_out_every_browser_unlocked_with_the_old_one(pin_app):
    client = with_token(pin_app.test_client())
    client.post("/api/unlock", json={"pin": "246810"})
    assert client.post("/api/config", json={"changes": {"server": {"pin": "135790"}}}).status_code == 200
    assert client.post("/api/config", json={"changes": {"server": {"port": 8084}}}).status_code == 403
    assert client.post("/api/unlock", json={"pin": "135790"}).status_code == 200


def test_the_pin_is_compared_in_constant_time(pin_app, monkeypatch):
    compared = []
    real = security.hmac.compare_digest
    monkeypatch.setattr(security.hmac, "compare_digest", lambda a, b: compared.append((a, b)) or real(a, b))
    client = with_token(pin_app.test_client())
    client.post("/api/unlock", json={"pin": "999999"})
    assert (b"999999", b"246810") in compared


def test_wrong_pins_are_rate_limited_per_address_then_for_everyone(pin_app):
    now = [1000.0]
    pin_app.extensions["companion_pin_attempts"] = Attempts(clock=lambda: now[0])
    client = with_token(pin_app.test_client())
    codes = [client.post("/api/unlock", json={"pin": f"00000{i}"}).status_code for i in range(5)]
    assert codes == [403] * 5
    blocked = client.post("/api/unlock", json={"pin": "246810"})  # even the right PIN: no oracle
    assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) == 60
    assert blocked.get_json()["reason"] == "rate_limited"
    now[0] += 61
    assert client.post("/api/unlock", json={"pin": "246810"}).status_code == 200
    # 30 guesses from 6 addresses: the overall limit stops them after 10 wrong PINs in 10 minutes.
    results = []
    for i in range(30):
        address = f"192.168.1.{100 + i % 6}"
        results.append(client.post("/api/unlock", json={"pin": "123456"},
                                   environ_base={"REMOTE_ADDR": address}).status_code)
    assert results.count(403) == 5  # 5 + 5 earlier wrong ones = 10 overall
    assert results[5:] == [429] * 25


def test_the_config_answer_never_contains_the_pin(pin_app):
    client = with_token(pin_app.test_client())
    text = client.get("/api/config").get_data(as_text=True)
    assert "246810" not in text
    pin_row = next(k for s in json.loads(text)["sections"] for k in s["keys"] if k["key"] == "pin")
    assert pin_row["is_set"] is True and pin_row["value"] == ""


# -- bodies, refusals and headers ------------------------------------------------------


def test_a_body_over_the_limit_is_refused_with_413(client):
    response = client.post("/api/move", data=json.dumps({"move": "x" * 20000}), content_type="application/json")
    assert response.status_code == 413 and response.get_json()["reason"] == "too_large"


@pytest.mark.parametrize("body", ["[" * 8000 + "]" * 8000, "{not json", "[1, 2]", '"bank"', "\x00\xff"])
def test_a_body_that_is_not_a_json_object_is_a_400(client, body):
    start_fandooble(client)
    response = client.post("/api/move", data=body, content_type="application/json")
    assert response.status_code == 400 and response.get_json()["reason"] == "bad_json"


def test_unknown_paths_and_methods_are_json_4xx(client):
    for path in ("/console", "/nope", "/api/nope"):
        response = client.get(path)
        assert response.status_code == 404 and response.get_json()["error"]
    response = client.get("/api/move")
    assert response.status_code == 405 and response.get_json()["reason"] == "method_not_allowed"


def test_security_headers_on_pages_api_static_and_errors(client):
    for path in ("/", "/api/state", "/static/app.js", "/nope"):
        with client.get(path) as response:
            headers = response.headers
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["X-Frame-Options"] == "DENY", path
        assert headers["Content-Security-Policy"].startswith("default-src 'self'"), path


def test_reading_never_writes(client, runtime, app):
    runtime.live_view.publish(np.zeros((90, 160, 3), np.uint8), force=True)
    start_fandooble(client)
    client.post("/api/move", json={"move": "roll CCGF"})
    before = runtime.log.count_events()
    for _ in range(2):
        for path in _get_routes(app):
            _fetch(client, path)
    assert runtime.log.count_events() == before


def test_a_players_name_is_shown_as_text_never_as_markup(client):
    start_fandooble(client, ["<script>alert(1)</script>", "Grace"])
    page = client.get("/").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page
    assert "\\u003cscript\\u003e" in page


def test_no_inline_script_is_needed_by_any_page(client):
    # CSP default-src 'self' forbids inline scripts: every executable script must come from /static.
    import re

    for path in ("/", "/fandooble", "/setup"):
        page = client.get(path).get_data(as_text=True)
        for tag in re.findall(r"<script[^>]*>", page):
            assert 'src="/static/' in tag or 'type="application/json"' in tag, (path, tag)
        assert " on" + "click=" not in page and "style=" not in page


# -- any body, never a 5xx ---------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
_keys = st.sampled_from(["move", "game", "players", "options", "resolution", "target", "pin", "changes", "corners",
                         "image_size", "fields", "document", "group", "kind", "table", "event_id", "title", "start"])
_bodies = st.dictionaries(_keys, _json, max_size=4) | _json


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=_bodies)
def test_no_body_makes_any_route_fail_with_a_server_error(client, app, runtime, body):
    if runtime.session is None:
        start_fandooble(client)
    for method, path in _post_routes(app):
        response = client.open(path, method=method, json=body)
        assert response.status_code < 500, (method, path, body, response.get_json())
        assert response.get_json()["error"] if response.status_code >= 400 else True
