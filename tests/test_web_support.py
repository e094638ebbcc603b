"""Fixtures and helpers shared by the dashboard's tests (imported by tests/test_web_*.py; no tests here)."""

from __future__ import annotations

import threading

import pytest

from companion.config import Config
from companion.runtime import Runtime
from web import create_app

HOSTNAME = "tablepi"
LAN_IP = "192.168.1.20"


def make_app(runtime, config: Config | None = None, **settings):
    """The dashboard with injected host names (so the tests do not depend on this machine's network)."""
    test_config = {"TESTING": True, "COMPANION_HOSTNAME": HOSTNAME, "COMPANION_ADDRESSES": [LAN_IP]}
    test_config.update(settings)
    return create_app(config or runtime.config, runtime, test_config)


def with_token(client):
    """Make ``client`` send its session's CSRF token with every request, as the pages' script does."""
    token = client.get("/api/session").get_json()["csrf"]
    client.environ_base["HTTP_X_CSRF_TOKEN"] = token
    return client


@pytest.fixture
def runtime(log):
    with Runtime(Config.defaults(), log) as rt:
        yield rt


@pytest.fixture
def app(runtime):
    return make_app(runtime)


@pytest.fixture
def client(app):
    """A browser that loaded a page: it has a session and sends its token."""
    return with_token(app.test_client())


def start_fandooble(client, players=("Lola", "Grace")):
    response = client.post("/api/games", json={"game": "fandooble", "players": list(players)})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def read_stream(response, until: str, *, limit: int = 200) -> str:
    """Read a streaming answer's chunks until ``until`` appears (or ``limit`` chunks)."""
    received = ""
    for count, chunk in enumerate(response.response):
        received += chunk.decode() if isinstance(chunk, bytes) else chunk
        if until in received or count >= limit:
            break
    return received


class Background:
    """Run ``fn`` on a thread; ``result()`` waits for it (for stream readers in tests)."""

    def __init__(self, fn, *args):
        self._value = None
        self._error = None
        self._thread = threading.Thread(target=self._run, args=(fn, *args), daemon=True)
        self._thread.start()

    def _run(self, fn, *args):
        try:
            self._value = fn(*args)
        except BaseException as exc:  # handed to the test thread
            self._error = exc

    def result(self, timeout: float = 10.0):
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError("the background reader did not finish")
        if self._error is not None:
            raise self._error
        return self._value


class Served:
    """The dashboard on waitress in a thread, sized like the appliance (threads = stream caps + 4).

    waitress has no stop call that is safe from another thread: closing the server while
    its loop waits in ``select`` makes that wait fail with EBADF. That error, after we
    asked it to stop, is the stop itself; any other error is raised in the test.
    """

    def __init__(self, app, *, threads: int | None = None):
        from waitress.server import create_server

        from companion.appliance import close_trigger_after_last_pull

        server = app.config["COMPANION_CONFIG"]["server"]
        self.threads = threads or server["max_streams"] + server["max_video_streams"] + 4
        self.server = create_server(app, host="127.0.0.1", port=0, threads=self.threads)
        close_trigger_after_last_pull(self.server.trigger)  # (a stream still writing at close: no traceback)
        self.port = self.server.effective_port
        self.url = f"http://127.0.0.1:{self.port}"
        self._closing = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="test-web", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.server.run()
        except OSError as exc:
            if not self._closing.is_set():
                self._error = exc

    def close(self) -> None:
        """Stop listening. Idle keep-alive connections of a browser still open may keep the loop (a daemon
        thread) a little longer; it ends when they close."""
        self._closing.set()
        self.server.close()
        self._thread.join(1)
        if self._error is not None:
            raise self._error
