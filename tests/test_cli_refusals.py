"""What used to be a traceback is a one-line reason and exit status 2, with nothing changed."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from companion.campaign import Campaign, export_campaign
from companion.campaign.transfer import checksum
from companion.config import CONFIG_NAME
from companion.eventlog import DB_NAME, EventLog

ROOT = Path(__file__).resolve().parent.parent


# The peak is read from VmHWM: getrusage() would carry over pytest's own peak across the exec.
MEASURED = """
import sys
from companion.cli import main
try:
    status = main(sys.argv[1:])
finally:
    peak = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")]
    print("PEAK_KB", peak[0] if peak else 0, file=sys.stderr)
sys.exit(status)
"""


def companion(*args: str, env: dict | None = None, stdin: str = "") -> tuple[int, str, str, int]:
    """Run ``companion ARGS``; returns (exit status, stdout, stderr, peak memory in MB)."""
    proc = subprocess.run([sys.executable, "-c", MEASURED, *args], cwd=ROOT, input=stdin, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock", **(env or {})})
    err, _, peak = proc.stderr.rpartition("PEAK_KB ")
    return proc.returncode, proc.stdout, err, int(peak.strip() or 0) // 1024


def refused(code: int, err: str) -> str:
    assert code == 2, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip() and " INFO " not in line]
    assert len(lines) == 1, err
    return lines[0]


def test_an_unknown_camera_in_the_environment_is_refused_by_run_and_failed_by_the_doctor(data_dir):
    (data_dir / CONFIG_NAME).write_text('[server]\npin = "123456"\n')
    code, _, err, _ = companion("run", "--data-dir", str(data_dir), "--no-gpio", env={"COMPANION_CAMERA": "gopro"})
    assert "COMPANION_CAMERA names the camera 'gopro'" in refused(code, err)
    assert not (data_dir / DB_NAME).exists()
    code, out, _, _ = companion("doctor", "--data-dir", str(data_dir), "--no-blink", "--json",
                                env={"COMPANION_CAMERA": "gopro"})
    checks = {(c["area"], c["name"]): c for c in json.loads(out)}
    assert code == 1 and checks[("configuration", "settings")]["status"] == "fail"


def test_a_bad_listening_address_is_refused_the_same_way_by_run_and_the_doctor(data_dir):
    (data_dir / CONFIG_NAME).write_text('[server]\nhost = "256.1.1.1"\npin = "123456"\n')
    code, _, err, _ = companion("run", "--data-dir", str(data_dir), "--no-gpio", "--camera", "demo")
    line = refused(code, err)
    assert '[server] host = "256.1.1.1": is not an IP address or host name' in line
    assert "another companion" not in line
    code, out, _, _ = companion("doctor", "--data-dir", str(data_dir), "--no-blink", "--json", "--camera", "demo")
    checks = {(c["area"], c["name"]): c for c in json.loads(out)}
    assert code == 1 and "256.1.1.1" in checks[("configuration", "settings")]["detail"]


def test_play_refuses_a_text_file_and_a_file_where_a_folder_belongs(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("shopping list\n")
    code, _, err, _ = companion("play", "fandooble", "--players", "Ann,Bob", "--db", str(text), stdin="bank\n")
    assert "is not a companion database" in refused(code, err) or "not a database" in err
    assert text.read_text() == "shopping list\n"
    code, _, err, _ = companion("play", "fandooble", "--players", "Ann,Bob", "--db", str(text / "games" / "x.db"),
                                stdin="bank\n")
    assert "the path cannot hold a database" in refused(code, err)


@pytest.fixture
def exported(tmp_path):
    with EventLog(tmp_path / "source.db") as log:
        campaign = Campaign.new(log, ["Anne", "Paul"], title="Friday group")
        return export_campaign(campaign)


def _import(data_dir, document_bytes: bytes, tmp_path) -> tuple[int, str]:
    path = tmp_path / "import.json"
    path.write_bytes(document_bytes)
    code, _, err, _ = companion("campaign", "import", str(path), "--data-dir", str(data_dir))
    return code, err


def test_imports_are_refused_in_one_line_and_nothing_is_stored(data_dir, tmp_path, exported):
    nan = json.dumps(exported).replace('"created": ', '"created": NaN, "x": ', 1).encode()
    assert b'NaN' in nan
    deep = b"[" * 200_000 + b"]" * 200_000
    latin1 = json.dumps(exported, ensure_ascii=False).replace("Friday", "Fr\u00e9day").encode("latin-1")
    crafted = dict(exported, campaign=dict(exported["campaign"], setup=dict(exported["campaign"]["setup"],
                                                                           group=[None, 5])))
    crafted["sha256"] = checksum(crafted)
    spoof = dict(exported, campaign=dict(exported["campaign"], setup=dict(exported["campaign"]["setup"],
                                                                         group=["Anne", "\u0410nne"])))
    spoof["sha256"] = checksum(spoof)
    reasons = {
        "NaN": (nan, "NaN is not a number an export holds"),
        "deep": (deep, "nests too deeply"),
        "latin-1": (latin1, "is not UTF-8 text"),
        "crafted": (json.dumps(crafted).encode(), "names its group"),
        "look-alike": (json.dumps(spoof).encode(), "look alike"),
        "huge": (b" " * (17 * 1024 * 1024) + json.dumps(exported).encode(), "at most 16 MB"),
    }
    for name, (body, reason) in reasons.items():
        code, err = _import(data_dir, body, tmp_path)
        assert reason in refused(code, err), name
    code, out, _, _ = companion("campaign", "list", "--data-dir", str(data_dir), "--json")
    assert code == 0 and json.loads(out) == []
    code, err = _import(data_dir, json.dumps(exported).encode(), tmp_path)
    assert code == 0, err  # the untouched export still imports


def _png_header_only(path: Path, width: int, height: int) -> None:
    """A PNG that claims ``width`` x ``height`` (what a decoder would have to allocate), a few bytes long."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))


def test_see_refuses_a_picture_too_large_to_decode_from_its_header(tmp_path):
    huge = tmp_path / "huge.png"
    _png_header_only(huge, 40000, 40000)
    code, out, err, peak_mb = companion("see", str(huge), "--data-dir", str(tmp_path))
    assert code == 2 and "Traceback" not in err
    assert "has 1600 MP" in json.loads(out)["error"] and "at most 50 MP" in json.loads(out)["error"]
    _png_header_only(huge, 9000, 7000)
    code, out, err, _ = companion("see", str(huge), "--data-dir", str(tmp_path))
    assert code == 2 and "has 63 MP (9000x7000 pixels): at most 50 MP" in json.loads(out)["error"]
    assert 0 < peak_mb < 200  # nothing was decoded (about 60 MB: the imports of OpenCV and zxing)
