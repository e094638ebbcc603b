"""Waiting in tests for something another thread does (LEDs, streams, the appliance)."""

from __future__ import annotations

import time


def wait_until(predicate, timeout: float = 5.0, poll: float = 0.01) -> None:
    """Return once ``predicate()`` is true; fail the test when it is still false after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(poll)
