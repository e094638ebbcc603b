"""Waiting in tests for something another thread does (LEDs, streams, the appliance)."""

from __future__ import annotations

import time


def wait_until(predicate, timeout: float = 30.0, poll: float = 0.01) -> None:
    """Return once ``predicate()`` is true; fail the test when it is still false after ``timeout`` seconds.

    The timeout only bounds a failing wait (a passing one returns as soon as the state is reached), so it
    is generous: a CI machine under load may take seconds to start a camera thread."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(poll)
