"""Security for a dashboard on a home network: host allow-list, CSRF tokens, the game master's PIN.

* Host names (against DNS rebinding): only loopback, this machine's names
  (``hostname``, ``hostname.local``), its interface addresses and the names in
  ``[server] trusted_hosts`` are answered. Flask's ``TRUSTED_HOSTS`` enforces the
  list on every request (pages, API, streams, static files); an address the
  machine gains later (DHCP after boot) is picked up when a request names it.
* CSRF: every browser gets a random token in its signed session cookie; every
  state-changing request must send it back in the ``X-CSRF-Token`` header. A
  cross-site page can neither read the token nor set the header, and a request
  whose ``Origin`` is another site is refused even with a token.
* The PIN (``[server] pin``) unlocks the game master's actions for this browser
  for :data:`UNLOCK_S` seconds. Wrong PINs are rate-limited per address and in
  total, so guessing a 6-digit PIN takes months.

Every refusal is a 4xx answer with a JSON body ``{"error": sentence, "reason": code}``.
"""

from __future__ import annotations

import contextlib

import collections
import fcntl
import functools
import hashlib
import hmac
import ipaddress
import secrets
import socket
import struct
import threading
import time
from typing import Callable, Iterable
from urllib.parse import urlsplit

from flask import abort, current_app, jsonify, request, session
from werkzeug.exceptions import SecurityError

CSRF_HEADER = "X-CSRF-Token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
UNLOCK_S = 30 * 60
LOOPBACK_NAMES = ("localhost", "127.0.0.1")


# -- refusals -------------------------------------------------------------------


def refuse(status: int, message: str, reason: str, *, field: str | None = None,
           headers: dict | None = None):
    """Stop the request with ``status`` and a JSON reason a person can read."""
    body = {"error": message, "reason": reason}
    if field is not None:
        body["field"] = field
    response = jsonify(body)
    response.status_code = status
    for key, value in (headers or {}).items():
        response.headers[key] = value
    abort(response)


# -- host names -------------------------------------------------------------------


def interface_addresses() -> set[str]:
    """This machine's IPv4 addresses (Linux: every interface; elsewhere the name's and the route's)."""
    found: set[str] = set()
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        names = []
    for name in names:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
            found.add(socket.inet_ntoa(packed[20:24]))
        except OSError:
            continue  # an interface without an IPv4 address
    with contextlib.suppress(OSError):  # a host name that does not resolve adds nothing
        found.update(info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET))
    return found


def trusted_hosts(extra: Iterable[str] = (), *, hostname: str | None = None,
                  addresses: Iterable[str] | None = None) -> list[str]:
    """The host names the dashboard answers to.

    >>> trusted_hosts(["games.lan"], hostname="tablepi", addresses=["192.168.1.20"])
    ['localhost', '127.0.0.1', 'tablepi', 'tablepi.local', '192.168.1.20', 'games.lan']

    IPv6 literals are left out: Werkzeug cannot match a bracketed address in the
    list, so phones reach the Pi by IPv4 address or by ``hostname.local``.
    """
    hostname = socket.gethostname() if hostname is None else hostname
    addresses = interface_addresses() if addresses is None else addresses
    names: list[str] = list(LOOPBACK_NAMES)
    if hostname:
        short = hostname.lower().rstrip(".")
        names += [short, short if short.endswith(".local") else short + ".local"]
    names += sorted(a for a in addresses if _is_ipv4(a))
    names += [h.strip().lower() for h in extra if h.strip()]
    return list(dict.fromkeys(names))


def _is_loopback(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False


def _is_ipv4(text: str) -> bool:
    try:
        return isinstance(ipaddress.ip_address(text), ipaddress.IPv4Address)
    except ValueError:
        return False


class HostAllowList:
    """Keeps ``app.config["TRUSTED_HOSTS"]`` current.

    A request naming an IPv4 address that is not in the list triggers one fresh look
    at the interfaces (at most every ``min_interval_s``): the Pi may have got its
    address after the dashboard started. A DNS name is never added this way, so a
    rebinding attacker's domain stays refused.
    """

    def __init__(self, hosts: list[str], *, extra: Iterable[str] = (),
                 lookup: Callable[[], set[str]] = interface_addresses, min_interval_s: float = 5.0):
        self.hosts = hosts  # the very list object Flask reads on every request
        self._extra = [h.strip().lower() for h in extra if h.strip()]
        self._base = [h for h in hosts or [] if h not in self._extra]  # loopback, this machine's names, addresses
        self._lookup = lookup
        self._min_interval_s = min_interval_s
        self._last = time.monotonic()
        self._lock = threading.Lock()

    def consider(self, host_header: str | None) -> None:
        host = (host_header or "").rsplit(":", 1)[0] if not (host_header or "").startswith("[") else ""
        if not _is_ipv4(host) or host in self.hosts:
            return
        with self._lock:
            now = time.monotonic()
            if now - self._last < self._min_interval_s:
                return
            self._last = now
            fresh = self._lookup()
        if host in fresh:
            with self._lock:
                for address in sorted(a for a in fresh if _is_ipv4(a)):
                    if address not in self._base:
                        self._base.append(address)
                self._rebuild()

    def set_extra(self, extra: Iterable[str]) -> None:
        """The configured names changed: the list is rebuilt, so a name removed is refused at once."""
        with self._lock:
            self._extra = [h.strip().lower() for h in extra if h.strip()]
            self._rebuild()

    def _rebuild(self) -> None:
        if self.hosts is not None:  # None: host checking is off (a test)
            self.hosts[:] = list(dict.fromkeys(self._base + self._extra))  # in place: Flask holds this list

    def middleware(self, wsgi_app):
        @functools.wraps(wsgi_app)
        def app(environ, start_response):
            self.consider(environ.get("HTTP_HOST"))
            return wsgi_app(environ, start_response)

        return app


def check_host() -> None:
    """Refuse an untrusted host name before anything else runs (Flask only notes it for routing)."""
    if isinstance(request.routing_exception, SecurityError):
        raise request.routing_exception


# -- CSRF ---------------------------------------------------------------------------


def csrf_token() -> str:
    """This browser's token (created on first use and kept in its signed session cookie)."""
    token = session.get("csrf")
    if not isinstance(token, str) or len(token) < 32:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """Refuse a state-changing request without this browser's token or from another site."""
    if request.method not in UNSAFE_METHODS:
        return
    origin = request.headers.get("Origin")
    if origin is not None and urlsplit(origin).netloc.lower() != request.host.lower():
        refuse(403, "this request came from another web site and was refused", "origin")
    if request.headers.get("Sec-Fetch-Site") == "cross-site":
        refuse(403, "this request came from another web site and was refused", "origin")
    expected = session.get("csrf")
    sent = request.headers.get(CSRF_HEADER, "")
    if not isinstance(expected, str) or not sent or not hmac.compare_digest(sent.encode(), expected.encode()):
        refuse(400, "this page is out of date or its security token is missing: reload it and try again", "csrf")


# -- the game master's PIN ---------------------------------------------------------


class Attempts:
    """Wrong-PIN bookkeeping: ``per_address`` failures per ``window_s`` per address, ``overall`` in
    ``overall_window_s`` from everyone (so many addresses cannot share the guessing)."""

    def __init__(self, *, per_address: int = 5, window_s: float = 60.0, overall: int = 10,
                 overall_window_s: float = 600.0, clock: Callable[[], float] = time.monotonic):
        self.per_address, self.window_s = per_address, window_s
        self.overall, self.overall_window_s = overall, overall_window_s
        self.clock = clock
        self._by_address: dict[str, collections.deque] = collections.defaultdict(collections.deque)
        self._all: collections.deque = collections.deque()
        self._lock = threading.Lock()

    def retry_after(self, address: str) -> int:
        """Seconds this address must wait before its next try (0: it may try now).

        The Pi itself (loopback) keeps only its own limit: guessing phones filling the overall
        limit cannot lock out the game master at the Pi's own screen."""
        with self._lock:
            now = self.clock()
            mine = self._trim(self._by_address[address], now - self.window_s)
            everyone = self._trim(self._all, now - self.overall_window_s)
            waits = [0.0]
            if len(mine) >= self.per_address:
                waits.append(mine[0] + self.window_s - now)
            if len(everyone) >= self.overall and not _is_loopback(address):
                waits.append(everyone[0] + self.overall_window_s - now)
            return int(max(waits) + 0.999)

    def clear(self) -> None:
        """Forget every wrong guess (the PIN was changed: guesses at the old one say nothing)."""
        with self._lock:
            self._by_address.clear()
            self._all.clear()

    def failed(self, address: str) -> None:
        with self._lock:
            now = self.clock()
            self._by_address[address].append(now)
            self._all.append(now)

    @staticmethod
    def _trim(times: collections.deque, oldest: float) -> collections.deque:
        while times and times[0] <= oldest:
            times.popleft()
        return times


def pin_fingerprint(pin: str) -> str:
    """What the session remembers of the PIN it was unlocked with: changing the PIN locks everyone out."""
    key = current_app.secret_key
    key = key.encode() if isinstance(key, str) else key
    return hmac.new(key, pin.encode(), hashlib.sha256).hexdigest()[:24]


def configured_pin() -> str:
    store = current_app.extensions["companion_config"]
    store.reload_if_changed()  # a PIN reset on the Pi applies at once
    return store().get("server", "pin")


def is_unlocked() -> bool:
    """True when no PIN is set, or this browser entered it within :data:`UNLOCK_S` seconds."""
    pin = configured_pin()
    if not pin:
        return True
    grant = session.get("gm")
    if not isinstance(grant, dict):
        return False
    until, mark = grant.get("until"), grant.get("pin")
    return (isinstance(until, (int, float)) and until > time.time()
            and isinstance(mark, str) and hmac.compare_digest(mark, pin_fingerprint(pin)))


def unlock(entered: str) -> None:
    """Check ``entered`` against the PIN, rate-limited; on success this browser is unlocked."""
    pin = configured_pin()
    if not pin:
        return
    attempts: Attempts = current_app.extensions["companion_pin_attempts"]
    address = request.remote_addr or "?"
    wait = attempts.retry_after(address)
    if wait:
        refuse(429, f"too many wrong PINs: wait {wait} seconds and try again", "rate_limited",
               headers={"Retry-After": str(wait)})
    if not hmac.compare_digest(entered.encode(), pin.encode()):
        attempts.failed(address)
        refuse(403, "that is not the PIN", "wrong_pin", field="pin")
    session["gm"] = {"until": time.time() + UNLOCK_S, "pin": pin_fingerprint(pin)}


def lock() -> None:
    session.pop("gm", None)


def game_master(view):
    """Decorator: the view is a game master's action and needs the PIN when one is set."""

    @functools.wraps(view)
    def guarded(*args, **kwargs):
        if not is_unlocked():
            refuse(403, "this is for the game master: enter the PIN first", "pin")
        return view(*args, **kwargs)

    guarded.game_master = True
    return guarded


# -- response headers --------------------------------------------------------------

CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"


def add_security_headers(response):
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response
