"""Replaying a film in a throw-away companion: its own database, its own runtime thread, the configured
pipeline and the game's referee; the player waits for the runtime after every frame."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from companion.config import SCHEMA, Config
from companion.eventlog import EventLog
from companion.film.player import FilmPlayer, Start


@dataclass
class Replayed:
    lines: list[dict]
    frames: int  # frames played
    film_s: float  # film time covered, seconds
    wall_s: float  # how long the replay took
    reread: int  # frames decoded again from their pictures

    @property
    def speed(self) -> float:
        """Film seconds per wall second (above 1: faster than real time)."""
        return self.film_s / self.wall_s if self.wall_s > 0 else float("inf")


def table_settings(header: dict) -> Config:
    """The recording's table settings (corner spacing, stored calibration) on today's defaults;
    keys this version does not know, or values it would refuse, are left at the defaults."""
    recorded = (header.get("config") or {}).get("table") or {}
    config = Config.defaults()
    for key, value in recorded.items():
        if key in SCHEMA["table"]:
            try:
                config = config.with_changes({"table": {key: value}})
            except Exception:
                continue
    return config


def replay(film, *, reread: bool = False, until: float | None = None, starts: dict[str, Start] | None = None,
           on_line: Callable[[dict], None] | None = None, workdir: str | Path | None = None) -> Replayed:
    """Play ``film`` through a fresh runtime and pipeline; returns its lines and how fast it went."""
    from companion.pipeline import Pipeline
    from companion.runtime import Runtime

    with tempfile.TemporaryDirectory(prefix="companion-replay-", dir=workdir) as tmp:
        config = table_settings(film.header)
        log = EventLog(Path(tmp) / "replay.db")
        try:
            with Runtime(config, log) as runtime:
                table_mm = film.header.get("table_mm")
                pipeline = Pipeline(runtime, config, tmp, table_mm=tuple(table_mm) if table_mm else None)
                player = FilmPlayer(runtime, pipeline, reread=reread, starts=starts, on_line=on_line)
                start = time.perf_counter()
                lines = player.play(film, until=until)
                wall = time.perf_counter() - start
        finally:
            log.close()
    return Replayed(lines, player.frames_played, player.t, wall, player.reader.reread_frames)


def parse_time(text: str) -> float:
    """``"90"``, ``"1:30"`` or ``"0:01:30"`` -> 90.0 seconds; ValueError with the accepted forms."""
    parts = str(text).strip().split(":")
    try:
        if not 1 <= len(parts) <= 3 or any(p.strip() == "" for p in parts):
            raise ValueError
        seconds = 0.0
        for part in parts:
            seconds = seconds * 60 + float(part)
    except ValueError:
        raise ValueError(f"{text!r} is not a time: write seconds (90), M:SS (1:30) or H:MM:SS (0:01:30)") from None
    if seconds < 0:
        raise ValueError(f"{text!r}: a time into the recording cannot be negative")
    return seconds
