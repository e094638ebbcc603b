"""The mains frequency of the room's lamps, which the camera is told so that their flicker does not band its picture.

``[camera] mains_hz`` is 50, 60, 0 (the camera's own setting) or ``"auto"`` (the default): the frequency of the
country the machine's time zone lies in, as Raspberry Pi Imager or ``raspi-config`` set it. A zone that does not
say (UTC, a zone whose country has both, an unknown one) gives 0. A wrong guess costs little: an exposure of whole
10 ms periods under 120 Hz flicker still takes in nearly as much light in every row (a sixth of the bands of a 2 ms
exposure).
"""

from __future__ import annotations

import os
from pathlib import Path

AUTO = "auto"

# Time zones (IANA names) by their country's mains frequency. By area first, then the exceptions, longest prefix
# wins. Countries with both (Japan: 50 Hz east, 60 Hz west; Liberia) and zones of no country (UTC) are left out.
_AREAS = {"Europe/": 50, "Africa/": 50, "Asia/": 50, "Australia/": 50, "Indian/": 50, "Atlantic/": 50,
          "America/": 60, "US/": 60, "Canada/": 60, "Mexico/": 60, "Brazil/": 60, "Chile/": 50}
_EXCEPTIONS = {
    # The Americas' 50 Hz countries and territories
    "America/Argentina/": 50, "America/Buenos_Aires": 50, "America/Cordoba": 50, "America/Santiago": 50,
    "America/Punta_Arenas": 50, "America/Montevideo": 50, "America/Asuncion": 50, "America/La_Paz": 50,
    "America/Cayenne": 50, "America/Martinique": 50, "America/Guadeloupe": 50, "America/Jamaica": 50,
    "America/Barbados": 50, "America/Dominica": 50, "America/Grenada": 50, "America/St_Lucia": 50,
    "America/St_Vincent": 50, "America/Curacao": 50, "America/Miquelon": 50, "America/Nuuk": 50,
    "America/Godthab": 50, "America/Scoresbysund": 50, "America/Danmarkshavn": 50,
    # Asia's 60 Hz countries
    "Asia/Seoul": 60, "Asia/Taipei": 60, "Asia/Manila": 60, "Asia/Riyadh": 60,
    # Both frequencies in one country, or not known here
    "Asia/Tokyo": 0, "Africa/Monrovia": 0, "Asia/Pyongyang": 0,
    "Atlantic/Bermuda": 60,
    # The Pacific, zone by zone
    "Pacific/Auckland": 50, "Pacific/Chatham": 50, "Pacific/Fiji": 50, "Pacific/Noumea": 50,
    "Pacific/Port_Moresby": 50, "Pacific/Honolulu": 60, "Pacific/Guam": 60, "Pacific/Saipan": 60,
    "Pacific/Pago_Pago": 60, "Pacific/Tahiti": 60,
    # Single names
    "GB": 50, "NZ": 50, "Japan": 0,
}


def mains_for_zone(zone: str | None) -> int:
    """The mains frequency (50 or 60) of the country time zone ``zone`` lies in; 0 where it does not say."""
    if not zone:
        return 0
    for table in (_EXCEPTIONS, _AREAS):
        matches = [prefix for prefix in table if zone == prefix or (prefix.endswith("/") and zone.startswith(prefix))]
        if matches:
            return table[max(matches, key=len)]
    return 0


def local_time_zone(etc: Path = Path("/etc")) -> str | None:
    """The machine's time zone's name (``Europe/Berlin``): ``TZ`` where set to a name, else Debian's ``/etc/timezone``,
    else where ``/etc/localtime`` links to. None where none says."""
    named = os.environ.get("TZ", "").lstrip(":")
    if "/" in named and not named.startswith("/"):
        return named
    try:
        written = (etc / "timezone").read_text(encoding="utf-8").strip()
        if written:
            return written
    except (OSError, UnicodeDecodeError):
        pass
    try:
        target = os.readlink(etc / "localtime")
    except OSError:
        return None
    marker = "zoneinfo/"
    return target.split(marker, 1)[1] if marker in target else None


def mains_hz(setting, zone: str | None = None) -> tuple[int, str]:
    """The frequency to tell the camera for ``[camera] mains_hz`` = ``setting`` (0: none), and where it comes from,
    in words for ``companion doctor``. ``"auto"`` looks at ``zone`` (the machine's time zone when None)."""
    if setting != AUTO:
        hz = int(setting or 0)
        return hz, f"{hz} Hz, as set" if hz else "the camera's own setting (mains_hz = 0)"
    zone = zone if zone is not None else local_time_zone()
    hz = mains_for_zone(zone)
    if hz:
        return hz, f"{hz} Hz, the mains of the time zone {zone}"
    return 0, (f"the camera's own setting: the time zone {zone or '(none set)'} does not say the mains frequency "
               "(set mains_hz = 50 or 60)")
