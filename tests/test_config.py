"""The configuration file: defaults, and bad values refused with the file, the key and the reason."""

from __future__ import annotations

import pytest

from companion.config import Config
from companion.errors import ConfigError


def test_a_missing_file_gives_the_defaults(tmp_path):
    config = Config.in_dir(tmp_path)
    assert config.get("server", "port") == 8080
    assert config.get("camera", "work_width") == 2304


def test_values_from_the_file_are_used(tmp_path):
    (tmp_path / "config.toml").write_text('[server]\nport = 9000\npin = "2468"\n[table]\ntray_mm = [0, 0, 300, 200]\n')
    config = Config.in_dir(tmp_path)
    assert config.get("server", "port") == 9000 and config.get("server", "pin") == "2468"
    assert config.get("table", "tray_mm") == [0, 0, 300, 200]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[server]\nport = 80000\n", r"\[server\] port = 80000: must be between 1 and 65535"),
        ("[server]\nport = \"8080\"\n", r"\[server\] port = \"8080\": must be a whole number"),
        ("[server]\npin = \"12\"\n", r"\[server\] pin = \"12\": must be empty \(no PIN\) or 4 to 12 digits"),
        ("[camera]\nbackend = \"kinect\"\n", r"\[camera\] backend = \"kinect\": must be one of"),
        ("[camera]\nmains_hz = 55\n", r"\[camera\] mains_hz = 55: must be 50 or 60 \(the mains frequency\), \"auto\" \(from the time zone\) or 0"),
        ("[camera]\nmains_hz = true\n", r"\[camera\] mains_hz = true: must be 50 or 60"),
        ("[gpio]\nseat_leds = [5, 6, 99]\n", r"\[gpio\] seat_leds .*99: BCM pin numbers run from 0 to 27"),
        ("[table]\ntray_mm = [10, 10, 5, 5]\n", r"\[table\] tray_mm .* left < right"),
        ("[sever]\nport = 1\n", r"unknown section \[sever\]"),
        ("[server]\nprot = 1\n", r"\[server\] prot: unknown key"),
        ("[server\nport = 1\n", r"not valid TOML"),
    ],
)
def test_bad_values_are_refused_with_file_key_and_reason(tmp_path, text, message):
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        Config.load(path)
    assert str(path) in str(caught.value)


def test_the_written_file_reads_back_identically(tmp_path):
    config = Config.defaults().with_changes({"server": {"port": 8123, "trusted_hosts": ["tisch.local"]}})
    config.save(tmp_path / "config.toml")
    assert Config.in_dir(tmp_path).to_dict() == config.to_dict()
