"""The HTTP protocol of `tables serve`: uvicorn's own (httptools when
installed, as the serve extra does, else h11), with TCP_NODELAY set on
each connection, and limits on slow clients and on open connections.

With workers, uvicorn binds the listening socket itself (protocol number
0), and the event loop then leaves Nagle's algorithm on for the connections
it accepts: a response's headers and body, written apart, wait for the
client's delayed ACK, 40 ms a request on Linux. Setting it on every
connection costs one system call and makes one process and N behave alike.

uvicorn closes a connection idle between requests (its keep-alive
timeout), but holds one forever while a request's headers or body arrive,
however slowly: a client sending a byte a minute keeps its connection,
and a few thousand of them every connection there is. So here:
- a request's headers must all arrive within ``header_timeout`` seconds
  of its first byte (of the connection, for the first request);
- while its body arrives, each read must bring bytes within
  ``body_timeout`` seconds;
- past either, the server answers 408 (when nothing was answered yet) and
  closes the connection;
- a process holds at most ``max_connections`` open connections: one more
  is answered 503 and closed;
- a request's URL over MAX_URL_BYTES is answered 414, its headers over
  MAX_HEADER_BYTES 431, and a head that is no HTTP 400, each with the error
  object (uvicorn's own answer is plain text), and the connection closed.
  httptools has no limit on headers, and cannot parse a URL of 64 KB or more
  (its offsets are 16 bits): MAX_URL_BYTES is under it.
The limits come from `tables serve`'s options (cli/serving.py), through
the environment (LIMITS_ENV), which the workers inherit.
Needs the serve extra; imported by `tables serve` and uvicorn only.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import socket
from typing import TYPE_CHECKING, Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

if TYPE_CHECKING:
    # uvicorn declares its choice a value of type[asyncio.Protocol], a base mypy cannot
    # name: the class is checked against the protocol every choice is, and the
    # attributes of both choices used here
    class ChosenProtocol(asyncio.Protocol):
        cycle: Any
        connections: set[Any]
        loop: asyncio.AbstractEventLoop
        transport: asyncio.Transport
        flow: Any
        url: bytes  # httptools' (its parser callbacks below: h11 calls none of them)

        def on_message_begin(self) -> None: ...
        def on_url(self, url: bytes) -> None: ...
        def on_header(self, name: bytes, value: bytes) -> None: ...
else:
    ChosenProtocol = AutoHTTPProtocol

MAX_URL_BYTES = 32 * 1024  # a request line's target: a name is at most a few hundred characters
MAX_HEADER_BYTES = 64 * 1024  # every header's name and value: a token is at most 4 KB (access.py)
MAX_HEAD_BYTES = 1024 * 1024  # read while a head is incomplete (a header that never ends), past a read's 256 KB
LIMITS_ENV = "TABLES_SERVE_LIMITS"  # JSON: header_timeout, body_timeout (seconds), max_connections
DEFAULT_LIMITS: dict[str, Any] = {"header_timeout": 10.0, "body_timeout": 30.0, "max_connections": 1000}


@functools.lru_cache(maxsize=4)
def _limits(given: str) -> dict[str, Any]:
    return {**DEFAULT_LIMITS, **json.loads(given or "{}")}


def limits() -> dict[str, Any]:
    """The limits of this server (LIMITS_ENV over DEFAULT_LIMITS)."""
    return _limits(os.environ.get(LIMITS_ENV, ""))


def refusal(status: int, reason: str, message: str) -> bytes:
    """A whole response: the error object, and the connection closed."""
    body = json.dumps({"error": {"message": message, "workbook": None, "sheet": None, "cell": None}}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n").encode("ascii") + body


class HeadTooLarge(Exception):
    """A request's URL or headers passed their bound (raised in the parser's callback, which stops it)."""


class NoDelayHTTPProtocol(ChosenProtocol):
    _timer: asyncio.TimerHandle | None = None
    _waiting: str | None = None  # "headers" or "body": what the running timer waits for
    _head_bytes = 0  # read since the running head's timer began, and of its headers parsed
    _header_bytes = 0
    _too_large: tuple[int, str, str] | None = None  # (status, reason, message) when the head passed a bound

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
        self._limits = limits()
        if len(self.connections) > self._limits["max_connections"]:
            self._refuse(503, "Service Unavailable", f"the server holds its most connections "
                         f"({self._limits['max_connections']:,}): try again shortly")
            return
        self._wait("headers")

    def data_received(self, data: bytes) -> None:
        if self._waiting == "headers":
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._refuse(*self._head_refusal("headers"))
                return
        before = self.cycle
        super().data_received(data)
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and (cycle is not before or self._waiting == "body"):
            # the headers are in (a new cycle), or more of the body
            if cycle.more_body:
                self._wait("body")  # per read: from now
            else:
                self._stop()
        elif self._waiting is None and (cycle is None or cycle.response_complete):
            self._wait("headers")  # the first bytes of the next request: its headers' deadline runs from here

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    # ------------------------------------------------------------ the timer
    def _wait(self, what: str) -> None:
        self._stop()
        self._waiting = what
        if what == "headers":
            self._head_bytes = 0
        self._timer = self.loop.call_later(self._limits[f"{'header' if what == 'headers' else 'body'}_timeout"],
                                           self._timed_out)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._waiting = None, None

    def _timed_out(self) -> None:
        what = self._waiting
        self._timer, self._waiting = None, None
        if self.transport.is_closing():
            return
        if what == "body" and self.flow.read_paused:  # the server, not the client, is behind: wait on
            self._wait("body")
            return
        seconds = self._limits["header_timeout" if what == "headers" else "body_timeout"]
        answered = self.cycle is not None and self.cycle.response_started and not self.cycle.response_complete
        self._refuse(408, "Request Timeout", f"the request's {what} did not arrive in time "
                     f"({'within' if what == 'headers' else 'nothing for'} {seconds:g} s)", answer=not answered)

    def _refuse(self, status: int, reason: str, message: str, answer: bool = True) -> None:
        if answer:
            self.transport.write(refusal(status, reason, message))
        self.transport.close()

    # ------------------------------------------------------------ a head too large, or no HTTP
    # httptools' callbacks. h11 (when httptools is not installed) calls none: its own bound on a
    # head, uvicorn's h11_max_incomplete_event_size (16 KB), is refused with the 400 below.
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes, self._too_large = 0, None

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > MAX_URL_BYTES:
            self._too_large = self._head_refusal("url")
            raise HeadTooLarge()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_bytes += len(name) + len(value) + 4
        if self._header_bytes > MAX_HEADER_BYTES:
            self._too_large = self._head_refusal("headers")
            raise HeadTooLarge()
        super().on_header(name, value)

    @staticmethod
    def _head_refusal(what: str) -> tuple[int, str, str]:
        if what == "url":
            return 414, "URI Too Long", (f"the request's URL is over {MAX_URL_BYTES:,} bytes: "
                                         "no name is that long (send a resolve's, odds' or simulation's fields in its body)")
        return 431, "Request Header Fields Too Large", f"the request's headers are over {MAX_HEADER_BYTES:,} bytes"

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a head it could not parse (or that a callback above stopped): the error object."""
        self._stop()
        self._refuse(*(self._too_large or (400, "Bad Request", "the request is not HTTP/1.1 as expected "
                                                                 f"({msg.rstrip('.').lower()}): check the client")))
