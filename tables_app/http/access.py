"""Who may use `tables serve` (docs/api.md, "Access"): its token, and where
it may listen without one. No FastAPI here: `tables serve` checks its
options with these before the serve extra is imported.

The rules:
- A token is ``TABLES_TOKEN`` from the environment (never an option: a
  command line is seen by every user of the machine), 16 characters or more.
- With a token, every ``/api/v1`` request but ``/api/v1/health`` needs
  ``Authorization: Bearer TOKEN``. The page and ``/docs`` hold no tables
  and stay open; the page asks for the token and sends it.
- Without a token, the server listens on a loopback address only: tables
  transcribed from books are for their owner, not for the network. It
  then answers only requests addressed to a loopback name (the Host
  header), so that a web page cannot reach it by DNS rebinding.
- ``--allow-import`` needs a token, on any address.
- Pages of other origins (a Foundry VTT macro, a bot's web page) may call
  the API only from the origins given with ``--cors-origin``; ``*`` (any
  site's pages) needs a token: without one any web page could write and
  delete the fights.
- Without a token, the API answers no request a page of another site made
  (cross_site_problem): its ``Origin`` must be the server's own or one of
  ``--cors-origin``, and without an Origin its ``Sec-Fetch-Site`` must not
  say another site's (an ``<img>`` or a link of a page elsewhere would
  otherwise run a simulation, seconds of CPU, at no cost to that page).
  Requests without either header (curl, a bot, a script) pass.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable
from contextvars import ContextVar
from functools import lru_cache
from urllib.parse import urlsplit

TOKEN_ENV = "TABLES_TOKEN"
MIN_TOKEN_LENGTH = 16
MAX_TOKEN_LENGTH = 4096  # a header's worth; anything longer is a mistake


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an --host value) is reachable from this machine only.
    A name other than ``localhost`` might resolve anywhere: not loopback."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listen_address(host: str) -> str:
    """An --host value as a socket binds it: an IPv6 address without the
    brackets of a URL (``[::1]`` is ``::1``)."""
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def bind_problem(host: str, port: int) -> str | None:
    """Why `tables serve` cannot listen on ``host`` (listen_address's) and
    ``port``, or None: tried as the server will bind it (SO_REUSEADDR, the
    IPv6 family for an address with a colon), then let go."""
    import errno
    import socket

    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except socket.gaierror as exc:
        return f"cannot listen on {host}: {exc.strerror} (give an address of this machine, or localhost)"
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return f"port {port} is in use ({shown}: another server listens there; choose another with --port)"
        if exc.errno == errno.EACCES:
            return f"cannot listen on {shown}: permission denied (ports below 1024 need privileges; choose another with --port)"
        if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
            return f"cannot listen on {shown}: the address is not one of this machine's ({exc.strerror})"
        return f"cannot listen on {shown}: {exc.strerror or exc}"
    return None


def serving_problem(host: str, token: str | None, allow_import: bool, cors_origins: Iterable[str] = ()) -> str | None:
    """Why the server must not start with these settings, or None
    (``token``: TABLES_TOKEN as the environment has it, "" when set empty;
    ``cors_origins``: the --cors-origin values, as web_origin gives them)."""
    if token == "":
        return f"{TOKEN_ENV} is set but empty: give it a token, or unset it"
    if token is not None and not MIN_TOKEN_LENGTH <= len(token) <= MAX_TOKEN_LENGTH:
        return (f"{TOKEN_ENV} is {len(token)} characters; a token has {MIN_TOKEN_LENGTH} to {MAX_TOKEN_LENGTH} "
                "(make one with: python -c \"import secrets; print(secrets.token_urlsafe(24))\")")
    if token is not None and (not token.isascii() or not token.isprintable() or token != token.strip()):
        return f"{TOKEN_ENV} must be printable ASCII without spaces at either end (it travels in an HTTP header)"
    if allow_import and token is None:
        return f"--allow-import needs a token: set {TOKEN_ENV} (every request must then give it)"
    if "*" in cors_origins and token is None:
        return (f"--cors-origin '*' lets any web page call the API, writing and removing fights: set {TOKEN_ENV} "
                "(every request must then give it), or name the origins (--cors-origin https://foundry.example.com)")
    if token is None and not is_loopback(host):
        return (f"--host {host} is reachable from other machines: set {TOKEN_ENV} (every request must then give it), "
                "or serve on 127.0.0.1")
    return None


GROUP_TOKEN_PREFIX = b"tg_"  # services/groups.TOKEN_PREFIX: a group's token
# The group the request acts as (TokenGuard sets it from a group's token): its fights and parties only; 0 is the
# operator's own (the server's token, or a server without one). Read where an operation meets the database.
acting_group: ContextVar[int] = ContextVar("acting_group", default=0)


def group_token(header: bytes | None) -> str | None:
    """The token of ``Authorization: Bearer TOKEN`` if it may be a group's (its prefix, a token's length, printable
    ASCII), else None: anything else is refused without a look-up."""
    if header is None:
        return None
    scheme, _, given = header.partition(b" ")
    given = given.strip()
    if (scheme.lower() != b"bearer" or not given.startswith(GROUP_TOKEN_PREFIX)
            or not MIN_TOKEN_LENGTH <= len(given) <= 200 or not all(33 <= b < 127 for b in given)):
        return None
    return given.decode("ascii")


def bearer_matches(header: bytes | None, token: str) -> bool:
    """Whether an Authorization header gives ``token`` (compared in constant time)."""
    if header is None:
        return False
    scheme, _, given = header.partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), token.encode("ascii"))


def web_origin(given: str) -> str:
    """An origin for --cors-origin: ``*`` or ``scheme://host[:port]``
    (as a browser sends it: no path, no trailing slash); ValueError otherwise."""
    if given == "*":
        return given
    try:
        parts = urlsplit(given.strip())
        port = parts.port  # ValueError when not a number or out of range
    except ValueError:
        parts, port = None, None
    if (parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/")
            or parts.query or parts.fragment or parts.username or parts.password):
        raise ValueError(f"{given!r} is no origin: give scheme://host[:port] (https://foundry.example.com, "
                         "http://localhost:30000), or *")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}[parts.scheme]  # a browser's Origin leaves the default port out
    return f"{parts.scheme}://{host}" + (f":{port}" if port not in (None, default) else "")


@lru_cache(maxsize=64)  # every request asks (LoopbackHostGuard), with the same few values; parsing an address is 5 µs
def loopback_host_header(value: bytes | None) -> bool:
    """Whether a request's Host header names this machine (``localhost``,
    ``127.0.0.1:8000``, ``[::1]:8000``, ...). No header (HTTP/1.0) passes:
    browsers always send one."""
    if value is None:
        return True
    host = value.decode("latin-1").strip()
    if host.startswith("["):
        if "]" not in host:
            return False
        host = host[1:host.index("]")]
    else:
        name, colon, port = host.rpartition(":")
        if colon and port.isdigit():
            host = name
    return is_loopback(host)


CROSS_SITE = ("cross-site", "same-site")  # Sec-Fetch-Site of a page of another origin ("same-origin", "none": not)


def cross_site_problem(origin: bytes | None, fetch_site: bytes | None, host: bytes | None,
                       allowed: Iterable[str]) -> str | None:
    """Why a server without a token refuses a request a web page of another
    site made, or None: its ``Origin`` header is neither this server's (the
    ``Host`` it was sent to) nor one of ``allowed`` (--cors-origin's), or,
    without an Origin (a browser leaves it out of an ``<img>``'s GET), its
    ``Sec-Fetch-Site`` says another site's page. Neither header: not a
    browser's page (curl, a bot), let through."""
    fix = f"call it from its own page or from a --cors-origin origin, or set {TOKEN_ENV}"
    if origin is not None:
        given = origin.decode("latin-1").strip()
        own = host is not None and given.lower() in (f"{scheme}://{host.decode('latin-1').strip().lower()}"
                                                     for scheme in ("http", "https"))
        if own or given in allowed:
            return None
        return f"this server has no token and answers no page of another site ({given[:100]!r}): {fix}"
    if fetch_site is not None and fetch_site.decode("latin-1").strip().lower() in CROSS_SITE:
        return f"this server has no token and answers no page of another site (Sec-Fetch-Site: {fetch_site.decode('latin-1')[:20]}): {fix}"
    return None
