"""The dashboard: a Flask app built around a running :class:`companion.runtime.Runtime`.

``create_app(config, runtime)`` wires the blueprints (pages, JSON API, streams),
the security checks (:mod:`web.security`) and the error handling: every refusal
is a 4xx with a JSON reason ``{"error": sentence, "reason": code}``.

Serve it from one process with a thread pool of at least ``max_streams +
max_video_streams + 4`` threads (``companion.appliance`` does), so open streams
can never starve the pages and the API.
"""

from __future__ import annotations

import logging
import secrets
from concurrent.futures import TimeoutError as FutureTimeout

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from companion.config import Config
from companion.errors import (
    CompanionError,
    DatabaseUnavailable,
    EventLogError,
    IllegalMove,
    NothingToUndo,
    NotYourSeat,
    UnknownSession,
)
from web import security
from web.settings import ConfigStore, config_path
from web.streams import SnapshotEncoder, StreamGate

_log = logging.getLogger(__name__)

SECRET_SETTING = "web_secret_key"
MAX_BODY = 16 * 1024


def create_app(config: Config, runtime, test_config: dict | None = None) -> Flask:
    """The dashboard for ``runtime``.

    :param config: the companion's configuration (port, PIN, trusted host names, stream caps).
    :param runtime: the running :class:`~companion.runtime.Runtime`; kept in ``app.extensions``.
    :param test_config: Flask settings overriding the defaults (tests: ``TRUSTED_HOSTS``,
        ``COMPANION_HEARTBEAT_S``, ``COMPANION_STREAM_LIFE_S``, ``COMPANION_HOSTNAME``,
        ``COMPANION_ADDRESSES``).
    """
    app = Flask(__name__)
    test_config = dict(test_config or {})
    server = config["server"]
    hosts = security.trusted_hosts(
        server["trusted_hosts"],
        hostname=test_config.pop("COMPANION_HOSTNAME", None),
        addresses=test_config.pop("COMPANION_ADDRESSES", None),
    )
    app.config.from_mapping(
        SECRET_KEY=_secret_key(runtime),
        TRUSTED_HOSTS=hosts,
        MAX_CONTENT_LENGTH=MAX_BODY,
        MAX_FORM_MEMORY_SIZE=MAX_BODY,
        MAX_FORM_PARTS=50,
        SESSION_COOKIE_NAME="companion",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        COMPANION_CONFIG=config,
    )
    app.config.update(test_config)
    app.json.sort_keys = False

    store = ConfigStore(config, config_path(config, getattr(runtime.log, "path", None)),
                        on_change=lambda new: _apply_config(app, runtime, new))
    allow = security.HostAllowList(app.config["TRUSTED_HOSTS"], extra=server["trusted_hosts"])
    app.extensions.update(
        companion_runtime=runtime,
        companion_config=store,
        companion_hosts=allow,
        companion_pin_attempts=security.Attempts(),
        companion_snapshot_encoder=SnapshotEncoder(),
        companion_stream_gates={
            "events": StreamGate("events", server["max_streams"]),
            "video": StreamGate("video", server["max_video_streams"]),
        },
    )
    if app.config["TRUSTED_HOSTS"] is not None:
        app.wsgi_app = allow.middleware(app.wsgi_app)

    from web import (api, api_campaigns, api_cards, api_dice, api_dice_try, api_recording, api_setup, pages, seats,
                     streams)

    for blueprint in (pages.bp, api.bp, api_setup.bp, api_cards.bp, api_campaigns.bp, api_dice.bp, api_dice_try.bp,
                      api_recording.bp, streams.bp, seats.bp):
        app.register_blueprint(blueprint)

    app.before_request(security.check_host)
    app.before_request(security.check_csrf)
    app.after_request(security.add_security_headers)
    _error_handlers(app)
    return app


def _secret_key(runtime) -> str:
    """The key that signs the session cookies, kept in the event log's settings so a restart keeps
    every phone's session (and its CSRF token) valid."""
    log = runtime.log
    key = log.get_setting(SECRET_SETTING)
    if not key:
        key = secrets.token_hex(32)
        log.set_setting(SECRET_SETTING, key)
    return key


def _apply_config(app: Flask, runtime, config: Config) -> None:
    previous = app.config["COMPANION_CONFIG"]
    app.config["COMPANION_CONFIG"] = config
    app.extensions["companion_hosts"].set_extra(config.get("server", "trusted_hosts"))
    if previous.get("server", "pin") != config.get("server", "pin"):
        app.extensions["companion_pin_attempts"].clear()
    runtime.config = config


def _error_handlers(app: Flask) -> None:
    @app.errorhandler(CompanionError)
    def companion_error(exc: CompanionError):
        status = _status_for(exc)
        return jsonify(error=str(exc), reason=type(exc).__name__), status

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if exc.response is not None:
            return exc.response
        reason = {400: "bad_request", 404: "not_found", 405: "method_not_allowed",
                  413: "too_large", 415: "unsupported"}.get(exc.code, "refused")
        message = exc.description or exc.name
        if exc.code == 413:
            message = "the request is too large"
        elif exc.code == 400 and "host" in (message or "").lower():
            reason = "untrusted_host"
        return jsonify(error=message, reason=reason), exc.code

    @app.errorhandler(FutureTimeout)
    def busy(exc):
        response = jsonify(error="the companion is busy: try again in a moment", reason="busy")
        response.headers["Retry-After"] = "2"
        return response, 503

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        _log.exception("unexpected error answering %s %s", request.method, request.path)
        return jsonify(error="something went wrong inside the companion; the game is safe", reason="internal"), 500


def _status_for(exc: CompanionError) -> int:
    if isinstance(exc, UnknownSession):
        return 404
    if isinstance(exc, NotYourSeat):
        return 403
    if isinstance(exc, DatabaseUnavailable):
        return 503  # nothing was stored: the disk is full or the card failing, said with what to do
    if isinstance(exc, (IllegalMove, NothingToUndo)):
        return 409
    if isinstance(exc, EventLogError):
        return 409
    return 400
