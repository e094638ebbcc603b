"""The systemd unit verifies, and the install script's dry run says everything it would do and does nothing."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "companion.service"
INSTALL = ROOT / "systemd" / "install-service.sh"


def unit_sections() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read_string(UNIT.read_text())
    return parser


def verify(tmp_path, text: str) -> list[str]:
    """What ``systemd-analyze verify`` says about the unit (it exits 0 even for a bad value, so read stderr)."""
    folder = tmp_path / f"u{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    unit = folder / "companion.service"
    unit.write_text(text)
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True,
                            timeout=60)
    return [line for line in result.stderr.splitlines() if "companion.service" in line] + (
        [f"exit code {result.returncode}"] if result.returncode else [])


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_unit_passes_systemd_analyze_verify(tmp_path):
    # ExecStart must name an existing binary for verify; everything else is checked as written.
    text = UNIT.read_text().replace("ExecStart=/opt/companion/.venv/bin/companion run",
                                    f"ExecStart={sys.executable} -m companion run")
    assert text != UNIT.read_text()
    assert verify(tmp_path, text) == []
    # The check bites: typos systemd would silently ignore are reported.
    broken = text.replace("Type=notify", "Type=notifyy").replace("WatchdogSec=", "WatchdogSecs=")
    complaints = verify(tmp_path, broken)
    assert any("notifyy" in c for c in complaints) and any("WatchdogSecs" in c for c in complaints)


def test_the_unit_keeps_the_watchdog_restart_and_the_device_access():
    service = unit_sections()["Service"]
    assert service["Type"] == "notify" and int(service["WatchdogSec"]) >= 10 and service["Restart"] == "on-failure"
    assert service["User"] == "companion" and set(service["SupplementaryGroups"].split()) == {"gpio", "video"}
    assert service["StateDirectory"] == "companion" and service["WorkingDirectory"] == "/var/lib/companion"
    assert "PrivateDevices" not in service  # it would hide /dev/gpiochip* and the camera
    text = UNIT.read_text()
    for device in ("char-gpiochip", "char-video4linux", "char-media", "char-dma_heap"):
        assert f"DeviceAllow={device} rw" in text
    assert "StartLimitBurst" in unit_sections()["Unit"]  # belongs in [Unit], not [Service]


def test_the_install_script_dry_run_prints_every_step_and_changes_nothing(tmp_path):
    env = {**os.environ, "COMPANION_APP_DIR": str(tmp_path / "opt"), "COMPANION_UNIT_DIR": str(tmp_path / "units")}
    result = subprocess.run(["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "companion" in out and ("useradd --system" in out or "usermod -a -G" in out)
    assert f"would write {tmp_path}/units/companion.service (ExecStart={tmp_path}/opt/.venv/bin/companion run)" in out
    for step in ("install -d -m 0750 -o companion -g companion /var/lib/companion", "systemctl daemon-reload",
                 "systemctl enable companion.service", "systemctl restart companion.service"):
        assert f"would run: {step}" in out
    assert not (tmp_path / "opt").exists() and not (tmp_path / "units").exists()


def test_the_install_script_in_place_points_the_unit_at_the_checkout(tmp_path):
    env = {**os.environ, "COMPANION_UNIT_DIR": str(tmp_path / "units")}
    result = subprocess.run(["bash", str(INSTALL), "--dry-run", "--in-place"], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"ExecStart={ROOT}/.venv/bin/companion run" in result.stdout and "copying" not in result.stdout
    bad = subprocess.run(["bash", str(INSTALL), "--frobnicate"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 64 and "unknown option" in bad.stderr


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed (apt install shellcheck)")
def test_the_install_script_is_shellcheck_clean():
    result = subprocess.run(["shellcheck", str(INSTALL)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def test_a_refusal_tells_systemd_why_and_exits_with_the_status_the_unit_does_not_retry(tmp_path):
    import socket

    assert unit_sections()["Service"]["RestartPreventExitStatus"] == "2"
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "config.toml").write_text('[table]\ncorners_px = [[1, 2]]\n')
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify.sock"))
    listener.settimeout(10)
    try:
        env = {**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "GPIOZERO_PIN_FACTORY": "mock"}
        result = subprocess.run([sys.executable, "-m", "companion", "run", "--data-dir", str(data_dir)], cwd=ROOT,
                                capture_output=True, text=True, env=env, timeout=60)
        status = listener.recv(4096).decode()
    finally:
        listener.close()
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert status.startswith("STATUS=refused to start: ") and "[table] corners_px" in status
