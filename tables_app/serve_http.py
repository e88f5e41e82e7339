"""The HTTP protocol of the worker processes of `tables serve --workers N`.

uvicorn's h11 protocol, with TCP_NODELAY set on each connection. With
workers, uvicorn binds the listening socket itself (protocol number 0), and
asyncio then leaves Nagle's algorithm on for the connections it accepts: a
response's headers and body, written apart, wait for the client's delayed
ACK, 40 ms a request on Linux (one process, listening through asyncio, sets
it already). Needs the serve extra; imported by uvicorn only.
"""

from __future__ import annotations

import socket

from uvicorn.protocols.http.h11_impl import H11Protocol


class NoDelayH11Protocol(H11Protocol):
    def connection_made(self, transport):  # type: ignore[no-untyped-def, override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
