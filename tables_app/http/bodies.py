"""Request bodies of `tables serve`, read within a limit (app.py, upload.py).

Past the limit the rest of the body is still read and dropped, up to
DRAIN_BYTES more, before the 413 is sent: a client that sends its whole
body before reading the answer (most HTTP libraries do) would otherwise
find the connection reset and never see the 413. Beyond that, the server
answers and closes the connection.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from starlette.requests import ClientDisconnect, Request
from starlette.types import Receive

DRAIN_BYTES = 16 * 1024 * 1024


class TooLarge(Exception):
    """The body passed its limit."""


class Gone(Exception):
    """The client went away while sending the body."""


class KeyTwice(ValueError):
    """A JSON object of the body gives one key twice: which value was meant is not known."""

    def __init__(self, key: str):
        shown = repr(key) if len(key) <= 100 else f"{key[:100]!r}…"
        super().__init__(f"the key {shown} is given twice (give each field once)")
        self.key = key


def _one_of_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    made: dict[str, Any] = {}
    for key, value in pairs:
        if key in made:
            raise KeyTwice(key)
        made[key] = value
    return made


def json_of(raw: bytes) -> Any:
    """A body's JSON, each object's keys given once (KeyTwice otherwise, a
    ValueError, at any depth): json.loads would keep the last of two silently,
    and a client that sent ``"cmb": 60, ..., "cmb": 6`` would never know."""
    # json.loads(raw, object_pairs_hook=...) as it does it, with the decoder made once, not per body
    return _DECODER.decode(raw.decode(json.detect_encoding(raw), "surrogatepass"))


_DECODER = json.JSONDecoder(object_pairs_hook=_one_of_each)


async def read_body(request: Request, limit: int, keep: Callable[[bytes], object]) -> int:
    """Hand each chunk of the body to ``keep`` and return its size;
    TooLarge past ``limit`` bytes (nothing past it is kept), Gone when the
    client disconnects."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit + DRAIN_BYTES:
        raise TooLarge()  # no point reading that much to say no
    size, over = 0, False
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                over = True
                if size > limit + DRAIN_BYTES:
                    break
            if not over:
                keep(chunk)
    except ClientDisconnect:
        raise Gone() from None
    if over:
        raise TooLarge()
    return size


async def drain(receive: Receive) -> None:
    """Read and drop a request's body (ASGI ``receive``), up to DRAIN_BYTES,
    before refusing the request unread (401, 403, 409, 415, ...)."""
    dropped = 0
    while dropped <= DRAIN_BYTES:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            return
        dropped += len(message.get("body", b""))
        if not message.get("more_body", False):
            return
