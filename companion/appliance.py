"""Wires the runtime, the dashboard server and the watchdog together for ``companion run``."""

from __future__ import annotations

import logging
import socket
import threading
from pathlib import Path

from companion.config import Config
from companion.eventlog import DB_NAME, EventLog
from companion.runtime import Runtime

_log = logging.getLogger(__name__)


class Appliance:
    """The whole companion in one process: one runtime, one web server."""

    def __init__(self, config: Config, data_dir: Path):
        from web import create_app

        self.config = config
        self.data_dir = Path(data_dir)
        self.log = EventLog(self.data_dir / DB_NAME)
        self.runtime = Runtime(config, self.log)
        self.app = create_app(config, self.runtime)
        self._server = None
        self._server_thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = self.config.get("server", "host")
        port = self.port
        shown = socket.gethostname() + ".local" if host in ("0.0.0.0", "::") else host
        return f"http://{shown}:{port}/"

    @property
    def port(self) -> int:
        if self._server is not None:
            return self._server.effective_port
        return self.config.get("server", "port")

    def start(self) -> None:
        from waitress.server import create_server

        self.runtime.start()
        server = self.config["server"]
        # Every open stream holds a thread: size the pool so streams can never starve the API.
        threads = server["max_streams"] + server["max_video_streams"] + 4
        self._server = create_server(
            self.app, host=server["host"], port=server["port"], threads=threads,
            max_request_body_size=1024 * 1024, outbuf_high_watermark=2 * 1024 * 1024,
        )
        self._server_thread = threading.Thread(target=self._server.run, name="companion-web", daemon=True)
        self._server_thread.start()

    def healthy(self) -> bool:
        return self.runtime.alive and self._server_thread is not None and self._server_thread.is_alive()

    def serve_until(self, stop: threading.Event) -> None:
        """The main loop: pings systemd's watchdog only while every part is alive."""
        import sdnotify

        notifier = sdnotify.SystemdNotifier()
        notifier.notify("READY=1")
        while not stop.wait(1.0):
            if self.healthy():
                notifier.notify("WATCHDOG=1")
            else:
                _log.error("a part of the companion stopped responding; withholding the watchdog ping")

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        self.runtime.stop()
        self.log.close()
