"""The configuration file (``config.toml`` in the data directory): camera, tray zone, pins, port, PIN.

Every key has a default, a type and a check. A bad value is refused at start with
the file, the key and the reason, never half-applied:

>>> Config.from_mapping({"server": {"port": 80000}})
Traceback (most recent call last):
...
companion.errors.ConfigError: <settings> [server] port = 80000: must be between 1 and 65535
"""

from __future__ import annotations

import copy
import ipaddress
import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from companion.errors import ConfigError

CONFIG_NAME = "config.toml"


@dataclass(frozen=True)
class Key:
    """One configuration key: its default, what it is for, and how it is checked."""

    default: Any
    help: str
    check: Callable[[Any], str | None] | None = None


def _int_range(lo: int, hi: int):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int):
            return "must be a whole number"
        return None if lo <= v <= hi else f"must be between {lo} and {hi}"

    return check


def _number_range(lo: float, hi: float):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return "must be a number"
        return None if lo <= v <= hi else f"must be between {lo} and {hi}"

    return check


def _choice(*choices: str):
    def check(v):
        return None if v in choices else f"must be one of {', '.join(repr(c) for c in choices)}"

    check.choices = choices  # the settings form offers them to pick from
    return check


def _mains_hz(v):
    ok = v == "auto" or (type(v) is int and v in (0, 50, 60))
    return None if ok else "must be 50 or 60 (the mains frequency), \"auto\" (from the time zone) or 0"


_mains_hz.choices = ("auto", 50, 60, 0)


def _string(v):
    if not isinstance(v, str):
        return "must be text in quotes"
    if len(v) > 4096 or any(ord(c) < 32 or ord(c) == 127 for c in v):
        return "must be one line of text without control characters"
    return None


_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def _host(v):
    """An address to listen on: an IP address (0.0.0.0 for every interface) or this machine's name."""
    if (why := _string(v)) is not None or not v:
        return why or "must be an address such as \"0.0.0.0\" (every network) or \"127.0.0.1\" (this machine only)"
    try:
        ipaddress.ip_address(v)
        return None
    except ValueError:
        pass
    labels = v.rstrip(".").split(".")
    if all(label.isdigit() for label in labels) or not all(_HOST_LABEL.match(label) for label in labels) or len(v) > 253:
        return "is not an IP address or host name, e.g. \"0.0.0.0\" (every network) or \"127.0.0.1\""
    return None


def _bool(v):
    return None if isinstance(v, bool) else "must be true or false"


def _pin(v):
    """A GPIO pin: a BCM number, a name such as "GPIO17" or "BOARD11", or "" for none."""
    if v == "":
        return None
    if isinstance(v, bool):
        return "must be a pin number such as 17 or a name such as \"GPIO17\""
    if isinstance(v, int):
        return None if 0 <= v <= 27 else "BCM pin numbers run from 0 to 27"
    if isinstance(v, str) and v.strip() and len(v) <= 16 and v.isprintable():
        return None
    return "must be a pin number such as 17, a name such as \"GPIO17\", or \"\" for none"


def _pins(max_len: int):
    def check(v):
        if not isinstance(v, list):
            return "must be a list of pins, e.g. [5, 6, 13]"
        if len(v) > max_len:
            return f"at most {max_len} pins"
        for p in v:
            if (why := _pin(p)) is not None:
                return f"{p!r}: {why}"
        return None

    return check


def _rect_or_empty(v):
    if v == []:
        return None
    if (
        isinstance(v, list)
        and len(v) == 4
        and all(_finite(x) for x in v)
        and v[0] < v[2]
        and v[1] < v[3]
    ):
        return None
    return "must be [] (no tray in table millimetres) or [left, top, right, bottom] in table millimetres with left < right and top < bottom"


def _pin_code(v):
    if not isinstance(v, str):
        return "must be text in quotes"
    if v and not (v.isdigit() and 4 <= len(v) <= 12):
        return "must be empty (no PIN) or 4 to 12 digits"
    return None


def _host_list(v):
    if not isinstance(v, list) or len(v) > 32 or not all(isinstance(h, str) and h and _host(h) is None for h in v):
        return "must be a list of host names or addresses, e.g. [\"companion.local\"]"
    return None


def _picture_size(v):
    if v == [] or (isinstance(v, list) and len(v) == 2
                   and all(isinstance(x, int) and not isinstance(x, bool) and 16 <= x <= 20_000 for x in v)):
        return None
    return "must be [] or the picture's [width, height] in pixels"


def _corners(v):
    if v == []:
        return None
    if (isinstance(v, list) and len(v) == 4
            and all(isinstance(c, list) and len(c) == 2 and all(_finite(x) and 0 <= x <= 100_000 for x in c) for c in v)):
        return None
    return "must be [] or four [x, y] pairs (NW, NE, SE, SW) in pixels of the camera picture at its working width"


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf")


SCHEMA: dict[str, dict[str, Key]] = {
    "server": {
        "host": Key("0.0.0.0", "address the dashboard listens on", _host),
        "port": Key(8080, "port of the dashboard", _int_range(1, 65535)),
        "trusted_hosts": Key([], "extra host names the dashboard answers to (loopback, this machine's names and addresses are always trusted)", _host_list),
        "pin": Key("", "PIN for game-master actions (reset, import, delete, configuration); empty for none", _pin_code),
        "max_streams": Key(12, "live event streams served at once; more are answered 503", _int_range(1, 64)),
        "max_video_streams": Key(2, "live camera views served at once", _int_range(0, 16)),
    },
    "camera": {
        "backend": Key("auto", "auto, picamera2, usb, file or demo", _choice("auto", "picamera2", "usb", "file", "demo")),
        "demo_game": Key("", "the game the demo camera plays when no camera is found (a game with a demo, e.g. fandooble); \"\" for the first demo", _string),
        "usb_device": Key(0, "OpenCV device number of a USB webcam", _int_range(0, 63)),
        "file_path": Key("", "a photo, a folder of images or a video for the file camera", _string),
        "work_width": Key(2304, "width in pixels of the camera picture the companion reads cards and dice in (the camera's small stream)", _int_range(320, 4608)),
        "full_width": Key(4608, "width of the full-resolution frame in pixels", _int_range(320, 9152)),
        "fps": Key(10.0, "frames per second processed", _number_range(0.5, 60)),
        "lens_position": Key(-1.0, "Camera Module 3 fixed focus in dioptres (1/metres); -1 keeps autofocus", _number_range(-1, 15)),
        "exposure_us": Key(0, "fixed exposure time in microseconds; 0 is automatic", _int_range(0, 1_000_000)),
        "mains_hz": Key("auto", "the mains frequency of the room's lamps, 50 (Europe, most of Africa and Asia, Australia) or 60 (the Americas, Japan's west, Korea, Taiwan): the camera keeps its exposure to whole flicker periods, so that lamps do not band the picture; \"auto\" takes the time zone's country's (none for UTC or Japan); 0 leaves the camera's own setting", _mains_hz),
        "frame_timeout_s": Key(2.0, "a frame later than this counts as a stalled camera", _number_range(0.2, 30)),
    },
    "table": {
        "tray_mm": Key([], "dice tray zone [left, top, right, bottom] in table millimetres (needs the table's corners); [] for none", _rect_or_empty),
        "tray_px": Key([], "dice tray: its four corners in pixels of the camera's working picture they were tapped on (picture_px), NW, NE, SE, SW, tapped on the Setup page; [] for none. With no tray the dice are not read: nothing outside the tray is a die", _corners),
        "corners_px": Key([], "stored calibration: the four table corners in pixels of the camera's working picture they were clicked on (picture_px), NW, NE, SE, SW", _corners),
        "picture_px": Key([], "the camera's working picture [width, height] that tray_px and corners_px were tapped on, kept with them: on a picture of another size from the same camera they are scaled, on one of another shape they must be tapped again; [] for taps saved before it was kept (then they are the picture's own pixels)", _picture_size),
        "width_mm": Key(800.0, "distance between the centres of the NW and NE corner tags", _number_range(100, 5000)),
        "height_mm": Key(600.0, "distance between the centres of the NW and SW corner tags", _number_range(100, 5000)),
    },
    "recording": {
        "enabled": Key(False, "record every game night from the start (a film to replay; see README)", _bool),
        "folder": Key("", "where recordings go; \"\" for recordings/ in the data directory", _string),
        "budget_mb_per_hour": Key(200.0, "pictures kept per hour of recording, at most (MB); 200 keeps a two-hour evening under 500 MB", _number_range(10, 5000)),
    },
    "gpio": {
        "seat_leds": Key([5, 6, 13, 19, 26, 21], "one LED per seat, seat 1 first (up to 6)", _pins(6)),
        "status_led": Key([16, 20, 12], "RGB status LED: red, green, blue pins; [] for none", _pins(3)),
        "buzzer": Key(18, "buzzer pin; \"\" for none", _pin),
        "next_buttons": Key([23], "\"next turn / bank\" button: one shared pin, or one per seat", _pins(6)),
        "undo_button": Key(24, "undo button pin; \"\" for none", _pin),
        "pin_factory": Key("", "gpiozero pin factory: \"\" picks lgpio on a Pi and the mock elsewhere", _choice("", "lgpio", "rpigpio", "pigpio", "native", "mock")),
    },
}


class Config:
    """Validated configuration. ``config["server"]["port"]`` or ``config.get("server", "port")``."""

    def __init__(self, values: dict[str, dict[str, Any]], source: str = "<settings>"):
        self.source = source
        self._values = values

    @classmethod
    def defaults(cls) -> "Config":
        return cls({s: {k: copy.deepcopy(key.default) for k, key in keys.items()} for s, keys in SCHEMA.items()})

    @classmethod
    def from_mapping(cls, mapping: dict, source: str = "<settings>") -> "Config":
        """Defaults overlaid with ``mapping``; unknown sections or keys and bad values are refused."""
        values = cls.defaults()._values
        if not isinstance(mapping, dict):
            raise ConfigError(f"{source}: expected sections such as [server]")
        for section, keys in mapping.items():
            if section not in SCHEMA:
                raise ConfigError(f"{source}: unknown section [{section}]; sections are {', '.join(SCHEMA)}")
            if not isinstance(keys, dict):
                raise ConfigError(f"{source}: [{section}] must be a section, not a value")
            for key, value in keys.items():
                spec = SCHEMA[section].get(key)
                if spec is None:
                    raise ConfigError(
                        f"{source} [{section}] {key}: unknown key; [{section}] has {', '.join(SCHEMA[section])}"
                    )
                if spec.check is not None and (why := spec.check(value)) is not None:
                    raise ConfigError(f"{source} [{section}] {key} = {json.dumps(value)}: {why}")
                values[section][key] = value
        return cls(values, source)

    @classmethod
    def load(cls, path: str | Path) -> "Config":
        """Read ``path``; a missing file gives the defaults."""
        path = Path(path)
        if not path.exists():
            return cls(cls.defaults()._values, str(path))
        try:
            mapping = tomllib.loads(path.read_text("utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: cannot be read: {exc}") from None
        return cls.from_mapping(mapping, str(path))

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> "Config":
        return cls.load(Path(data_dir) / CONFIG_NAME)

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self._values[section]

    def get(self, section: str, key: str) -> Any:
        return self._values[section][key]

    def to_dict(self) -> dict[str, dict[str, Any]]:
        return copy.deepcopy(self._values)

    def with_changes(self, changes: dict) -> "Config":
        """A new config with ``changes`` (same shape as the file) applied and checked."""
        merged = self.to_dict()
        for section, keys in changes.items():
            if isinstance(keys, dict) and section in merged:
                merged[section] = {**merged[section], **keys}
            else:
                merged[section] = keys
        return Config.from_mapping(merged, self.source)

    def to_toml(self) -> str:
        lines = ["# Table Companion configuration. Every key is optional; see README.md.", ""]
        for section, keys in SCHEMA.items():
            lines.append(f"[{section}]")
            for key, spec in keys.items():
                lines.append(f"# {spec.help}")
                lines.append(f"{key} = {_toml_value(self._values[section][key])}")
            lines.append("")
        return "\n".join(lines)

    def save(self, path: str | Path) -> None:
        """Write the configuration whole (:func:`companion.files.replace_file`: ``sudo companion pin reset`` leaves
        the service its own file; a full card keeps the old file whole and no half-written one)."""
        from companion.files import replace_file

        text = self.to_toml().encode("utf-8")
        replace_file(Path(path), lambda handle: handle.write(text))


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} to TOML")
