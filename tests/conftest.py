"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Off a Pi, gpiozero must use its mock pins; set before any test imports gpiozero devices.
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
os.environ.setdefault("GPIOZERO_MOCK_PIN_CLASS", "mockpwmpin")

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"

settings.register_profile(
    "ci", max_examples=100, stateful_step_count=40, derandomize=True, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("long", max_examples=2000, stateful_step_count=80, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _dataset(rel: str) -> Path:
    path = SHARED_DATA / rel
    if not path.is_dir():
        pytest.skip(f"evaluation data not present: ../shared/data/{rel}")
    return path


@pytest.fixture(scope="session")
def qr_data() -> Path:
    return _dataset("qr")


@pytest.fixture(scope="session")
def dice_data() -> Path:
    return _dataset("dice/nell-byler-d6")


@pytest.fixture
def data_dir(tmp_path, monkeypatch) -> Path:
    """A fresh data directory, also exported as COMPANION_DATA_DIR for code that reads it."""
    directory = tmp_path / "data"
    directory.mkdir()
    monkeypatch.setenv("COMPANION_DATA_DIR", str(directory))
    return directory


@pytest.fixture
def log(tmp_path):
    from companion.eventlog import EventLog

    with EventLog(tmp_path / "companion.db") as event_log:
        yield event_log


@pytest.fixture
def mock_factory():
    """gpiozero's mock pins (PWM-capable), reset after the test."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    factory, saved = MockFactory(pin_class=MockPWMPin), Device.pin_factory
    Device.pin_factory = factory
    yield factory
    factory.reset()
    Device.pin_factory = saved
