"""The start-up fault matrix: what `companion run` does with each fault, and what is kept.

Faults outside the database (locked, full disk, read-only, another user's files, a
second companion) are refusals: one line naming the steps, exit 2 (75 when retrying
may help), not a byte changed. Real damage (truncated, flipped bytes, invalid UTF-8, a
lost -wal) is found, the newest good backup takes over when it holds more, and the
loss is reported in the health line, the dashboard banner and `companion doctor`.
No case prints a traceback.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from companion.backups import backup_if_due, check_at_start, diagnose
from companion.doctor import check_database
from companion.eventlog import DB_NAME, EventLog
from companion.faults import FAULTS
from companion.runtime import ACTIVE_SESSION
from companion.session import Session

ROOT = Path(__file__).resolve().parent.parent
MOVES = ["roll CCCK", "bank"]


# -- helpers ---------------------------------------------------------------------------------


def play(data_dir: Path, moves: int, *, session_id: str | None = None, backup: bool = False) -> str:
    """``moves`` acknowledged moves in a Fandooble game (a new one unless ``session_id``)."""
    config = data_dir / "config.toml"
    if not config.exists():
        config.write_text('[server]\npin = "123456"\n')  # as the first start left it
    with EventLog(data_dir / DB_NAME) as log:
        game = Session.resume(log, session_id) if session_id else Session.create(log, "fandooble", ["Ann", "Bob"], {"coins": "5000"})
        log.set_setting(ACTIVE_SESSION, game.session_id)
        start = len(log.events(game.session_id))
        for n in range(moves):
            game.apply(MOVES[(start + n) % 2], source="dashboard")
        if backup:
            backup_if_due(log, data_dir, force=True)
        return game.session_id


def stored(data_dir: Path) -> list[tuple]:
    """Every event as stored (what must survive a fault that is not damage)."""
    with EventLog(data_dir / DB_NAME) as log:
        return [(e.session_id, e.seq, e.event_id, e.kind, e.text, e.payload) for s in log.sessions()
                for e in log.events(s.session_id)]


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a hash of its bytes: "nothing was changed" made checkable."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "companion.lock"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def companion(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock", **(env or {})})


class Started:
    """`companion run` in the background: its exit status and output when it refused, its health when it ran."""

    def __init__(self, data_dir: Path, *, env: dict | None = None):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--data-dir", str(data_dir), "--camera", "demo", "--no-gpio",
             "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock", **(env or {})},
        )
        self.health = None
        self.output = ""
        deadline = time.monotonic() + 60
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/health", timeout=2) as reply:
                    self.health = json.loads(reply.read())["health"]
                    return
            except OSError:
                time.sleep(0.1)
        self.output = self.proc.communicate(timeout=30)[0]

    @property
    def code(self) -> int | None:
        return self.proc.returncode

    def page(self, path: str = "/") -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as reply:
            return reply.read().decode()

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.output = self.proc.communicate(timeout=30)[0]
        return self.output


def refused(data_dir: Path, *, env: dict | None = None) -> Started:
    started = Started(data_dir, env=env)
    if started.health is not None:
        started.stop()
        pytest.fail(f"the companion started: {started.health}")
    assert "Traceback" not in started.output, started.output
    return started


@contextlib.contextmanager
def small_disk(size: str = "4m"):
    """A tmpfs of ``size`` mounted for the test and removed after it (the real disk is never filled)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    mount = Path(tempfile.mkdtemp(prefix="companion-disk-"))
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(mount)],
                      capture_output=True).returncode:
        mount.rmdir()
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
        shutil.rmtree(mount, ignore_errors=True)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte."""
    filler = folder / "filler.bin"
    with open(filler, "wb", buffering=0) as f:
        for chunk in (65536, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    f.write(b"\0" * chunk)
    return filler


# -- refusals: nothing changes -----------------------------------------------------------------


HOLDER = """
import sqlite3, sys
holder = sqlite3.connect(sys.argv[1], isolation_level=None)
holder.execute("PRAGMA locking_mode = EXCLUSIVE")
holder.execute("BEGIN EXCLUSIVE")
holder.execute("SELECT COUNT(*) FROM events").fetchall()
print("held", flush=True)
sys.stdin.read()
"""


def test_a_database_another_program_holds_is_a_refusal_that_changes_nothing(data_dir):
    play(data_dir, 30, backup=True)
    events = stored(data_dir)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(data_dir / DB_NAME)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = fingerprint(data_dir)
        started = refused(data_dir)
        assert started.code == 75  # retrying may help: systemd tries again
        assert "another program holds the database" in started.output and f"PID {holder.pid}" in started.output
        assert FAULTS["locked"].steps in started.output
        assert fingerprint(data_dir) == before  # not moved to damaged/, no backup restored
    finally:
        holder.communicate("")
    started = Started(data_dir)
    try:
        assert started.health["database"]["status"] == "ok"
    finally:
        started.stop()
    assert stored(data_dir) == events


def test_a_full_disk_is_a_refusal_and_leaves_no_empty_database(tmp_path):
    with small_disk() as disk:
        data_dir = disk / "data"
        data_dir.mkdir()
        filler = fill(disk)
        started = refused(data_dir)
        assert started.code == 2 and "the disk is full" in started.output and FAULTS["full"].steps in started.output
        # No 0-byte companion.db, no config half-written; only the (empty) lock file, which stays on purpose:
        # deleting a lock file while another start may be opening it would let two companions in.
        assert sorted(p.name for p in data_dir.iterdir()) in ([], ["companion.lock"])
        assert all(p.stat().st_size == 0 for p in data_dir.iterdir())
        filler.unlink()
        play(data_dir, 40, backup=True)
        before, events = fingerprint(data_dir), stored(data_dir)
        filler = fill(disk)
        started = refused(data_dir)
        assert started.code == 2 and "the disk is full" in started.output
        assert fingerprint(data_dir) == before
        filler.unlink()  # space freed: the same database starts, nothing restored
        started = Started(data_dir)
        try:
            assert started.health["database"]["status"] == "ok", started.health
        finally:
            started.stop()
        assert stored(data_dir) == events


def test_a_read_only_mount_is_a_refusal(tmp_path):
    with small_disk() as disk:
        data_dir = disk / "data"
        data_dir.mkdir()
        play(data_dir, 20)
        (data_dir / "config.toml").write_text("[server]\npin = \"123456\"\n")
        before = fingerprint(data_dir)
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        started = refused(data_dir)
        assert started.code == 2 and "read-only file system" in started.output
        assert FAULTS["readonly"].steps in started.output
        assert diagnose(data_dir).state == "refused"
        subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
        assert fingerprint(data_dir) == before


def _as_user(uid: int, gid: int, fn):
    """Run ``fn()`` in a child process as another user; its result (or its error) comes back."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            try:
                result = ("ok", repr(fn()))
            except BaseException as exc:  # noqa: BLE001 - handed to the parent
                result = (type(exc).__name__, str(exc))
            os.write(write_end, json.dumps(result).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        answer = json.loads(pipe.read() or '["died", ""]')
    os.waitpid(pid, 0)
    return answer


def test_files_of_another_user_are_a_refusal_naming_the_owner():
    if os.geteuid() != 0:
        pytest.skip("needs root to act as another user")
    import pwd

    nobody = pwd.getpwnam("nobody")
    data_dir = Path(tempfile.mkdtemp(prefix="companion-owner-"))
    try:
        os.chmod(data_dir, 0o755)
        play(data_dir, 20)  # written by root, as `sudo companion campaign ...` would
        os.chown(data_dir, nobody.pw_uid, nobody.pw_gid)
        before = fingerprint(data_dir)
        check_at_start(data_dir.parent / "warm-up-imports")  # the child must not need new imports
        shutil.rmtree(data_dir.parent / "warm-up-imports", ignore_errors=True)
        kind, text = _as_user(nobody.pw_uid, nobody.pw_gid, lambda: check_at_start(data_dir))
        assert kind == "StartRefused", text
        assert "companion.db belongs to root, the companion runs as nobody" in text
        assert FAULTS["permission"].steps in text
        assert fingerprint(data_dir) == before
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_a_second_companion_on_the_same_folder_is_refused_naming_the_first(data_dir):
    play(data_dir, 10)
    first = Started(data_dir)
    try:
        assert first.health is not None, first.output
        second = refused(data_dir)
        assert second.code == 2
        assert f"another companion (PID {first.proc.pid}, dashboard port {first.port})" in second.output
        assert FAULTS["in_use"].steps in second.output
        with urllib.request.urlopen(f"http://127.0.0.1:{first.port}/api/health", timeout=5) as reply:
            assert json.loads(reply.read())["health"]["database"]["status"] == "ok"  # the first plays on
    finally:
        first.stop()
    assert first.code == 0


# -- real damage: found, repaired where a backup helps, reported everywhere --------------------


def reported(data_dir: Path, fault: str, expect_text: str) -> None:
    """The start repairs and reports: health, the banner on every page, the doctor."""
    assert diagnose(data_dir).state in ("damaged", "lost")
    doctor = {c.name: c for c in check_database(data_dir)}
    assert doctor["integrity"].status == "fail" and "What to do" in doctor["integrity"].detail
    started = Started(data_dir)
    try:
        assert started.health is not None, started.output
        database = started.health["database"]
        assert database["status"] == "degraded" and expect_text in database["detail"]
        assert FAULTS[fault].steps in database["detail"]
        page = html.unescape(started.page("/fable"))
        banner = page[page.index('<section id="banner"'):page.index("</section>", page.index('<section id="banner"'))]
        assert "hidden" not in banner.split(">", 1)[0] and FAULTS[fault].steps in banner
    finally:
        output = started.stop()
    assert "Traceback" not in output, output[output.index("Traceback") - 300:][:3000]
    after = {c.name: c for c in check_database(data_dir)}
    assert after["integrity"].status == "ok" and FAULTS[fault].steps in after["last repair"].detail


def test_a_truncated_database_is_restored_from_its_backup_and_reported(data_dir):
    session_id = play(data_dir, 40, backup=True)
    play(data_dir, 6, session_id=session_id)
    size = (data_dir / DB_NAME).stat().st_size
    os.truncate(data_dir / DB_NAME, size // 3)
    reported(data_dir, "restored", "restored the backup of")
    with EventLog(data_dir / DB_NAME) as log:
        moves = [e for e in log.events(session_id) if e.kind == "move"]
        assert len(moves) == 40  # the backup's; the 6 after it are lost and the note says so
        assert "anything played after" in log.events(session_id)[-1].text


def test_invalid_utf8_in_a_stored_event_is_damage_not_a_traceback(data_dir):
    session_id = play(data_dir, 10, backup=True)
    with sqlite3.connect(data_dir / DB_NAME) as db:
        db.execute("INSERT INTO events (event_id, session_id, seq, time, source, kind, text, payload) "
                   "VALUES ('bad', ?, 11, 0, 'cli', 'note', CAST(x'ff41' AS TEXT), '{}')", (session_id,))
    assert "does not decode" in EventLog.check_file(data_dir / DB_NAME)
    reported(data_dir, "restored", "does not decode")


def test_a_deleted_wal_is_found_and_the_loss_reported(data_dir):
    session_id = play(data_dir, 20, backup=True)
    with EventLog(data_dir / DB_NAME) as log:
        log.checkpoint()
    script = (f"import os, sys\nfrom companion.eventlog import EventLog\nfrom companion.session import Session\n"
              f"log = EventLog(sys.argv[1])\ngame = Session.resume(log, {session_id!r})\n"
              f"for n in range(10):\n    game.apply({MOVES!r}[n % 2], source='cli')\nos._exit(0)\n")
    subprocess.run([sys.executable, "-c", script, str(data_dir / DB_NAME)], cwd=ROOT, check=True)
    (data_dir / f"{DB_NAME}-wal").unlink()  # "clean up" after the crash
    assert "-wal file is missing" in diagnose(data_dir).detail
    reported(data_dir, "lost", "-wal file is missing")
    with EventLog(data_dir / DB_NAME) as log:
        assert len([e for e in log.events(session_id) if e.kind == "move"]) == 20


def test_a_database_behind_its_backup_is_found_and_the_backup_wins(data_dir):
    session_id = play(data_dir, 20)
    with EventLog(data_dir / DB_NAME) as log:
        log.checkpoint()
    saved = (data_dir / DB_NAME).read_bytes()
    play(data_dir, 10, session_id=session_id, backup=True)
    (data_dir / DB_NAME).write_bytes(saved)  # the main file as it was before a lost -wal's moves
    for leftover in (f"{DB_NAME}-wal", f"{DB_NAME}-shm"):
        (data_dir / leftover).unlink(missing_ok=True)
    assert "fewer events than its backup" in diagnose(data_dir).detail
    reported(data_dir, "restored", "fewer events than its backup")
    with EventLog(data_dir / DB_NAME) as log:
        assert len([e for e in log.events(session_id) if e.kind == "move"]) == 30  # every move is back
