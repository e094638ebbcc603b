"""Access to the runtime handed to :func:`web.create_app` (never a module global)."""

from flask import current_app


def runtime():
    return current_app.extensions["companion_runtime"]
