"""The dashboard: a Flask app built around a running :class:`companion.runtime.Runtime`."""

from __future__ import annotations

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from companion.config import Config
from companion.errors import (
    CompanionError,
    ConfigError,
    IllegalMove,
    InvalidMove,
    NothingToUndo,
    SetupError,
    UnknownSession,
)


def create_app(config: Config, runtime, test_config: dict | None = None) -> Flask:
    """The dashboard for ``runtime``; ``test_config`` overrides Flask settings in tests."""
    app = Flask(__name__)
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=64 * 1024,
        JSON_SORT_KEYS=False,
        COMPANION_CONFIG=config,
    )
    if test_config:
        app.config.update(test_config)
    app.extensions["companion_runtime"] = runtime

    from web import api, pages

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)

    @app.errorhandler(CompanionError)
    def companion_error(exc: CompanionError):
        return jsonify(error=str(exc)), _status_for(exc)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return jsonify(error=exc.description or exc.name), exc.code

    return app


def _status_for(exc: CompanionError) -> int:
    if isinstance(exc, UnknownSession):
        return 404
    if isinstance(exc, (IllegalMove, NothingToUndo)):
        return 409
    if isinstance(exc, (InvalidMove, SetupError, ConfigError)):
        return 400
    return 400
