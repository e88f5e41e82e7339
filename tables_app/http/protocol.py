"""The HTTP protocol of `tables serve`: uvicorn's own (httptools when
installed, as the serve extra does, else h11), with TCP_NODELAY set on
each connection.

With workers, uvicorn binds the listening socket itself (protocol number
0), and the event loop then leaves Nagle's algorithm on for the connections
it accepts: a response's headers and body, written apart, wait for the
client's delayed ACK, 40 ms a request on Linux. Setting it on every
connection costs one system call and makes one process and N behave alike.
Needs the serve extra; imported by `tables serve` and uvicorn only.
"""

from __future__ import annotations

import asyncio
import socket
from typing import TYPE_CHECKING

from uvicorn.protocols.http.auto import AutoHTTPProtocol

if TYPE_CHECKING:
    # uvicorn declares its choice a value of type[asyncio.Protocol], a base mypy cannot
    # name: the class is checked against the protocol every choice is
    ChosenProtocol = asyncio.Protocol
else:
    ChosenProtocol = AutoHTTPProtocol


class NoDelayHTTPProtocol(ChosenProtocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
