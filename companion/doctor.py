"""``companion doctor``: is this table ready? Camera, GPIO wiring, database and service, in plain words.

Each check answers ``ok``, ``warn`` (works, but worth fixing), ``fail`` (the
companion cannot do its job) or ``skip`` (could not be checked here). The command
exits non-zero when anything fails.
"""

from __future__ import annotations

import shutil
import subprocess
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from companion.config import Config

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"
READ_LIMIT_PX = 3.0  # pixels per QR module below which tags are not read reliably (shared/notes/vision.md)
QR_MODULES = 21  # a version 1 symbol
MIN_FREE_MB, LOW_FREE_MB = 50, 500
REPAIR_SHOWN_S = 7 * 86400  # a repair at start is named for a week


@dataclass(frozen=True)
class Check:
    area: str
    name: str
    status: str
    detail: str

    def to_json(self) -> dict:
        return asdict(self)


def failed(checks: list[Check]) -> bool:
    return any(c.status == FAIL for c in checks)


# -- camera ---------------------------------------------------------------------------------

def check_camera(config: Config, backend: str | None = None, *, frames: int = 5, camera=None) -> list[Check]:
    """Found, frames arriving, corner tags in view, tag size against the reading limit."""
    from hardware.camera.base import CameraError, CameraUnavailable
    from hardware.camera.select import open_camera

    checks: list[Check] = []
    if camera is None:
        with warnings.catch_warnings(record=True) as fallbacks:
            warnings.simplefilter("always")
            try:
                camera = open_camera(config, backend)
            except CameraUnavailable as exc:
                return [Check("camera", "found", FAIL, str(exc))]
        for w in fallbacks:
            checks.append(Check("camera", "fallback", WARN, str(w.message)))
    name = getattr(camera, "name", "camera")
    checks.append(Check("camera", "found", OK if name != "demo" else WARN,
                        f"{name}" if name != "demo" else "no real camera: the demo table is shown"))
    try:
        started = time.monotonic()
        seen = []
        for _ in range(frames):
            seen.append(camera.read(config.get("camera", "frame_timeout_s")))
        elapsed = time.monotonic() - started
        frame = seen[-1]
        h, w = frame.work.shape[:2]
        checks.append(Check("camera", "frames arriving", OK,
                            f"{frames} frames of {w}x{h} in {elapsed:.1f} s ({frames / max(elapsed, 1e-6):.1f}/s)"))
        checks.extend(check_lamp_bands(config, [f.work for f in seen], real_camera=name not in ("demo", "file")))
        checks.extend(check_table_view(config, frame))
    except CameraError as exc:
        checks.append(Check("camera", "frames arriving", FAIL, str(exc)))
    finally:
        camera.stop()
    return checks


def check_lamp_bands(config: Config, pictures: list, *, real_camera: bool = True) -> list[Check]:
    """The mains frequency the camera is told (``[camera] mains_hz``, :func:`hardware.camera.mains.mains_hz`), and dark
    bands rolling down the pictures from one to the next (:func:`vision.motion.rolling_bands`): lamps flickering
    with the mains that the camera does not keep out. Bands that stand still (a frame rate that divides the
    flicker's) cannot be told from the table."""
    from hardware.camera.mains import mains_hz
    from vision.motion import probe, rolling_bands

    hz, told = mains_hz(config.get("camera", "mains_hz"))
    probes = [probe(p) for p in pictures]
    banded = sum(rolling_bands(a, b) for a, b in zip(probes, probes[1:]))
    if banded * 2 < len(probes) - 1 or banded < 2:
        return [Check("camera", "lamps' flicker", OK, f"the camera is told {told}")] if real_camera else []
    seen = f"dark bands roll across the picture ({banded} of {len(probes) - 1} pictures to the next): lamps flicker"
    if not hz:
        return [Check("camera", "lamp bands", WARN,
                      f"{seen} with the mains, and the camera is told {told}. Rolls are still read, but the bands "
                      "darken the dice: set [camera] mains_hz = 50 or 60, the mains frequency where you are, and "
                      "restart (README, Lamps that flicker)")]
    other = 60 if hz == 50 else 50
    return [Check("camera", "lamp bands", WARN,
                  f"{seen} even though the camera is told {told}: where the mains is {other} Hz set mains_hz = "
                  f"{other}; a fixed exposure_us must be a whole number of flicker periods; a bright table's exposure "
                  "may be shorter than a flicker (then the camera cannot avoid them); a USB webcam without the "
                  "control keeps its bands (the log says so)")]


def check_table_view(config: Config, frame) -> list[Check]:
    """Corner tags in view and their size in pixels per QR module, in the working image and at full resolution."""
    try:
        from vision import qr, tags
    except ImportError as exc:
        return [Check("camera", "table corners", SKIP, f"the vision modules are not installed ({exc})")]
    decoder = qr.get_decoder()
    found, tray = {}, set()
    for symbol in decoder.decode(frame.work):
        tag = tags.parse(symbol.text) if symbol.valid else None
        if isinstance(tag, tags.CornerTag):
            found[tag.corner] = symbol.side_px / QR_MODULES
        elif isinstance(tag, tags.TrayTag):
            tray.add(tag.corner)
    checks = []
    corners = getattr(tags, "CORNERS", ("NW", "NE", "SE", "SW"))
    missing = [c for c in corners if c not in found]
    if not missing:
        checks.append(Check("camera", "table corners", OK, "all four corner tags are in view"))
    elif config.get("table", "corners_px"):
        checks.append(Check("camera", "table corners", WARN,
                            f"corner tags {', '.join('TB:' + c for c in missing)} not seen; the stored calibration is used"))
    else:
        checks.append(Check("camera", "table corners", FAIL if len(missing) == len(corners) else WARN,
                            f"corner tags {', '.join('TB:' + c for c in missing)} not in view: place them at the "
                            "table's corners or calibrate on the dashboard"))
    tapped, tapped_on = config.get("table", "tray_px"), config.get("table", "picture_px")
    if tapped and not tray:  # the tray tapped on the Setup page: not on this camera's picture, no die is read
        from companion.pipeline import place_tapped_tray, tray_towards_edge

        picture = (frame.work.shape[1], frame.work.shape[0])
        placed, why = place_tapped_tray(tapped, tapped_on, picture)
        if why:
            checks.append(Check("camera", "dice tray", WARN, why))
        elif edge := tray_towards_edge(placed, picture):
            checks.append(Check("camera", "dice tray", WARN, edge))
    if tray:  # the dice tray carries its own tags: all four must be seen for the dice to be read between them
        missing_tray = [c for c in tags.CORNERS if c not in tray]
        checks.append(Check("camera", "tray tags", WARN if missing_tray else OK,
                            f"tray tags {', '.join('DT:' + c for c in missing_tray)} not in view: all four mark the "
                            "tray" if missing_tray else "all four dice tray tags are in view: the dice are read "
                            "between them"))
    if found:
        smallest = min(found.values())
        full = smallest * frame.scale
        if smallest >= READ_LIMIT_PX:
            checks.append(Check("camera", "tag size", OK, f"{smallest:.1f} px per module (limit {READ_LIMIT_PX:g})"))
        elif full >= READ_LIMIT_PX:
            checks.append(Check("camera", "tag size", WARN,
                                f"{smallest:.1f} px per module in the working image, {full:.1f} at full resolution: "
                                "tags are read from full-resolution stills, which is slower"))
        else:
            checks.append(Check("camera", "tag size", FAIL,
                                f"{full:.1f} px per module even at full resolution, below the reading limit of "
                                f"{READ_LIMIT_PX:g}: lower the camera, raise the resolution or print larger tags"))
    return checks


# -- GPIO -----------------------------------------------------------------------------------

def check_dice_networks() -> Check:
    """The dice networks load and run, and by what: OpenCV alone takes half as long again over a crowded tray."""
    try:
        import numpy as np

        from vision.dice import net
    except ImportError as exc:
        return Check("dice", "networks", SKIP, f"the vision modules are not installed ({exc})")
    try:
        blank = np.zeros((64, 64, 3), np.uint8)
        net.find(blank)
        net.read(blank, [net.Spot((32.0, 32.0), (16, 16, 32, 32), 1.0)])
    except Exception as exc:  # a missing or damaged file, a runtime that cannot run it: all mean no dice are read
        return Check("dice", "networks", FAIL, f"the dice networks do not run: {exc}")
    if net.RUNTIME == "onnxruntime":
        return Check("dice", "networks", OK, "run by ONNX Runtime")
    return Check("dice", "networks", WARN,
                 "run by OpenCV, as ONNX Runtime is not installed: a crowded tray takes about half as long again "
                 "to read. ONNX Runtime has no build for 32-bit systems; on a 64-bit one run ./setup.sh again")


def check_dice_settings(data_dir: Path) -> Check:
    """The dice settings and the taught faces can be read: a damaged file means no dice are read."""
    from companion.dicestore import DiceStore
    from companion.errors import ConfigError

    store = DiceStore(data_dir)
    try:
        kind = store.kind
        templates = store.load_templates() if kind == "taught" else None
    except ConfigError as exc:
        return Check("dice", "settings", FAIL, str(exc))
    taught = f" ({sum(templates.pictures.values())} pictures of {', '.join(templates.dice)})" if templates else ""
    shown = store.describe() if templates else {}
    pips = shown.get("pip_dice") and f"{shown['pip_dice']} ('{shown['pip_dice_command']}')"
    advice = [text for text in (shown.get("advice") and f"Dice {shown['advice']}", pips) if text]
    if advice:  # still read, with more wrong or unread faces than need be: what to do about it
        return Check("dice", "settings", WARN, f"the camera reads {kind} dice{taught}. {'. '.join(advice)}")
    return Check("dice", "settings", OK, f"the camera reads {kind} dice{taught}")


def check_dice_tray(config: Config, data_dir: Path) -> Check:
    """Whether a dice tray is marked: until one is, no dice are read (nothing outside it is a die)."""
    table = config["table"]
    if table["tray_px"]:
        return Check("dice", "tray", OK, "marked on the Setup page")
    if table["tray_mm"]:
        return Check("dice", "tray", OK, "set in table millimetres ([table] tray_mm), placed by the corner tags")
    from companion.dicestore import DiceStore
    from companion.errors import ConfigError

    advice = ("tap the tray's four corners on the live view (Setup page, Dice tray), or stick the tray's own four "
              "tags in its corners (companion tags tray)")
    try:
        kind = DiceStore(data_dir).kind
    except ConfigError:
        kind = None  # which dice are meant is unknown (the settings check says why)
    if kind != "pips":  # picture dice or stickers were set up: dice are meant to be read
        return Check("dice", "tray", WARN, f"no dice tray is marked, so no dice are read unless the tray carries "
                                           f"its own tags: {advice}")
    return Check("dice", "tray", SKIP, f"none marked (only dice games need one: {advice})")


def check_gpio(config: Config, *, pin_factory=None, blink: bool = True, step: float = 0.4,
               say: Callable[[str], None] = print) -> list[Check]:
    """Pins free of conflicts and of other programs; with ``blink``, every LED lit in turn for a person to see."""
    from hardware.gpio import Panel, PinConflict, is_mock

    try:
        panel = Panel.from_config(config["gpio"], pin_factory=pin_factory)
    except PinConflict as exc:
        return [Check("gpio", "pin map", FAIL, f"{config.source} [gpio] {exc}")]
    except Exception as exc:
        return [Check("gpio", "pins free", FAIL, f"{type(exc).__name__}: {exc} (is the companion service "
                                                  "running? sudo systemctl stop companion, then try again)")]
    with panel:
        kind = "simulated pins (not a Raspberry Pi)" if is_mock(panel.factory) else type(panel.factory).__name__
        checks = [Check("gpio", "pins free", OK, f"{len(panel.pins)} pins claimed through {kind}")]
        if blink:
            say("Watch the table: each LED lights in turn, then the buzzer sounds.")
            panel.walk(step=step, say=lambda text: say(f"  now: {text}"))
            checks.append(Check("gpio", "wiring walk", OK, "every LED was lit in turn; check none stayed dark"))
    return checks


# -- database -------------------------------------------------------------------------------

def check_database(data_dir: Path) -> list[Check]:
    """The start's own checks (:func:`companion.backups.diagnose`), the last repair, free space, backups."""
    from companion.backups import diagnose, last_repair, list_backups
    from companion.eventlog import DB_NAME
    from companion.faults import steps

    db = Path(data_dir) / DB_NAME
    found = diagnose(data_dir)
    status = {"new": WARN, "ok": OK}.get(found.state, FAIL)
    detail = f"{db}: {found.detail}" if found.state != "new" else f"no database yet at {db}: it is created at the first start"
    if found.fault:
        detail += f". What to do: {steps(found.fault)}"
    checks = [Check("database", "integrity", status, detail)]
    repair = last_repair(db) if found.state == "ok" else None
    if repair and time.time() - (repair.get("time") or 0) < REPAIR_SHOWN_S:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(repair.get("time") or 0))
        checks.append(Check("database", "last repair", WARN, f"at the start of {when}: {repair.get('detail')}. "
                                                               f"What to do: {steps(repair.get('fault') or '')}"))
    probe = Path(data_dir)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free_mb = shutil.disk_usage(probe).free / 1e6
    status = FAIL if free_mb < MIN_FREE_MB else WARN if free_mb < LOW_FREE_MB else OK
    checks.append(Check("database", "free space", status, f"{free_mb:,.0f} MB free on {probe}"))
    found = list_backups(data_dir)
    if not found:
        checks.append(Check("database", "backups", WARN,
                            "no backup yet: one is taken after every game and hourly while playing"))
    else:
        age_days = (time.time() - found[0].stat().st_mtime) / 86400
        checks.append(Check("database", "backups", OK if age_days < 8 else WARN,
                            f"{len(found)} backups, the newest {found[0].name} ({age_days:.1f} days old)"))
    return checks


def check_configuration(config: Config) -> Check:
    """The very check ``companion run`` makes before it starts (and the dashboard before it saves)."""
    from companion.configcheck import check_config
    from companion.errors import ConfigError

    try:
        check_config(config)
    except ConfigError as exc:
        return Check("configuration", "settings", FAIL, f"{exc}: companion run refuses to start with it")
    return Check("configuration", "settings", OK, f"{config.source} passes the checks of companion run")


# -- service --------------------------------------------------------------------------------

def service_state(unit: str = "companion", run=subprocess.run) -> str | None:
    """``systemctl is-active``'s answer, or None where systemctl is not available."""
    if shutil.which("systemctl") is None and run is subprocess.run:
        return None
    try:
        result = run(["systemctl", "is-active", unit], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (result.stdout or "").strip() or None


def check_service(state: str | None) -> Check:
    if state is None:
        return Check("service", "companion.service", SKIP, "systemctl is not available here")
    if state == "active":
        return Check("service", "companion.service", OK, "running")
    if state == "failed":
        return Check("service", "companion.service", FAIL,
                     "failed: see journalctl -u companion -n 50 for why")
    return Check("service", "companion.service", WARN,
                 f"{state}: not running as a service (setup.sh --service installs it)")


# -- everything -----------------------------------------------------------------------------

def run_doctor(config: Config, data_dir: Path, *, backend: str | None = None, blink: bool = True,
               pin_factory=None, step: float = 0.4, service: str | None | Any = "ask", camera=None,
               say: Callable[[str], None] = print) -> list[Check]:
    state = service_state() if service == "ask" else service
    service_check = check_service(state)
    checks: list[Check] = [check_configuration(config)]
    if state == "active":
        # The service owns the camera and the pins; opening them here would only find them busy.
        note = "the running service uses it (its health is on the dashboard); stop the service to test it here"
        checks += [Check("camera", "found", SKIP, note), Check("gpio", "pins free", SKIP, note)]
    else:
        checks += check_camera(config, backend, camera=camera)
        checks += check_gpio(config, pin_factory=pin_factory, blink=blink, step=step, say=say)
    checks += [check_dice_networks(), check_dice_settings(data_dir), check_dice_tray(config, data_dir)]
    checks += check_database(data_dir)
    checks.append(service_check)
    return checks


MARKS = {OK: "ok  ", WARN: "WARN", FAIL: "FAIL", SKIP: "skip"}


def report(checks: list[Check]) -> str:
    lines = []
    area = None
    for c in checks:
        if c.area != area:
            area = c.area
            lines.append(f"{area}:")
        lines.append(f"  [{MARKS[c.status]}] {c.name}: {c.detail}")
    fails = sum(c.status == FAIL for c in checks)
    warns = sum(c.status == WARN for c in checks)
    lines.append("")
    lines.append("All good: the table is ready." if not fails and not warns else
                 f"{fails} problem{'s' * (fails != 1)} and {warns} warning{'s' * (warns != 1)}.")
    return "\n".join(lines)
