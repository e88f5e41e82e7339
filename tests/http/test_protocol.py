"""Slow clients and many connections (tables_app/http/protocol.py, the
options of `tables serve`): a request's headers must arrive within
--header-timeout, each read of its body within --body-timeout, an idle
connection closes after --keep-alive, and a process holds at most
--max-connections; a refusal of a route that reads no body still drains
it, so that the client hears the status. On a real server, over loopback."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from helpers import serving

from tables_app.http.protocol import MAX_HEAD_BYTES, MAX_HEADER_BYTES, MAX_URL_BYTES

OPTIONS = ("--header-timeout", "1", "--body-timeout", "1", "--keep-alive", "1", "--max-connections", "4")
MARGIN = 4.0  # seconds past a timeout that the server may take, on a loaded machine


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, bundled_db_template: Path):  # type: ignore[no-untyped-def]
    import shutil

    path = tmp_path_factory.mktemp("protocol") / "tables.db"
    shutil.copyfile(bundled_db_template, path)
    with serving(path, options=OPTIONS) as (base, _process):
        yield ("127.0.0.1", int(base.rsplit(":", 1)[1]))


def connect(address: tuple[str, int]) -> socket.socket:
    sock = socket.create_connection(address, timeout=10)
    return sock


def until_closed(sock: socket.socket, started: float, limit: float) -> bytes:
    """What the server sends until it closes the connection, within ``limit`` seconds of ``started``."""
    received = b""
    sock.settimeout(0.2)
    while time.monotonic() - started < limit:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk
    pytest.fail(f"the connection was still open after {limit} s (received {received[:200]!r})")


def status_and_error(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)["error"]["message"]


@pytest.mark.slow  # a server's timeout waited: a second or more
def test_headers_sent_a_byte_at_a_time_are_cut_off(server):
    with connect(server) as sock:
        started = time.monotonic()
        sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        answer = b""
        for byte in b"X-Slow: " + b"a" * 100:  # a byte every 0.1 s: each read is quick, the headers never end
            try:
                sock.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                break
            time.sleep(0.1)
            if time.monotonic() - started > 1 + MARGIN:
                break
        answer = until_closed(sock, started, 1 + MARGIN)
    assert time.monotonic() - started < 1 + MARGIN
    assert status_and_error(answer) == (408, "the request's headers did not arrive in time (within 1 s)")


@pytest.mark.slow  # a server's timeout waited: a second or more
def test_a_connection_that_sends_nothing_is_closed(server):
    with connect(server) as sock:
        started = time.monotonic()
        answer = until_closed(sock, started, 1 + MARGIN)
    assert status_and_error(answer)[0] == 408


@pytest.mark.slow  # a server's timeout waited: a second or more
def test_a_body_that_stops_arriving_is_cut_off(server):
    with connect(server) as sock:
        sock.sendall(b"POST /api/v1/resolve/table HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"weapon\": ")
        started = time.monotonic()
        answer = until_closed(sock, started, 1 + MARGIN)
    assert status_and_error(answer) == (408, "the request's body did not arrive in time (nothing for 1 s)")


@pytest.mark.slow  # a server's timeout waited: a second or more
def test_a_body_in_slow_reads_each_within_the_timeout_is_answered(server):
    body = json.dumps({"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "seed": 1}).encode()
    with connect(server) as sock:
        sock.sendall(b"POST /api/v1/resolve/table HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n")
        for part in (body[:10], body[10:30], body[30:]):
            time.sleep(0.4)  # 1.2 s in all, each read within the second
            sock.sendall(part)
        answer = until_closed(sock, time.monotonic(), 10)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


@pytest.mark.slow  # a server's timeout waited: a second or more
def test_an_idle_connection_is_closed_after_the_keep_alive(server):
    with connect(server) as sock:
        sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        started = time.monotonic()
        answer = until_closed(sock, started, 1 + MARGIN)
    assert answer.startswith(b"HTTP/1.1 200")


def test_connections_past_the_most_are_503(server):
    held = [connect(server) for _ in range(4)]
    try:
        time.sleep(0.2)
        with connect(server) as extra:
            answer = until_closed(extra, time.monotonic(), 5)
        status, message = status_and_error(answer)
        assert status == 503 and "the server holds its most connections (4)" in message
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.3)
    with connect(server) as again:  # the held ones gone, it answers again
        again.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert until_closed(again, time.monotonic(), 5).startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(("path", "status"), [("/nothing", 404), ("/api/v1/health", 405), ("/api/v1/a/b/c", 405)])
def test_a_refused_large_body_is_drained_so_the_status_is_heard(server, path, status):
    body = b"x" * (4 << 20)
    with connect(server) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode())
        sock.sendall(body)  # all of it, then read the answer, as most clients do
        answer = until_closed(sock, time.monotonic(), 10)
    assert status_and_error(answer)[0] == status, answer[:300]


def test_the_protocols_refusals_are_the_documented_error_object(server):
    """408 and 503 come from the protocol, before any route: their bodies
    are the error object /openapi.json declares (issue 28, item 4)."""
    import urllib.request

    from jsonschema import Draft202012Validator

    with urllib.request.urlopen(f"http://{server[0]}:{server[1]}/openapi.json", timeout=10) as response:
        document = json.load(response)
    validator = Draft202012Validator({"$ref": "#/components/schemas/Error", "components": document["components"]})
    with connect(server) as sock:
        answer = until_closed(sock, time.monotonic(), 1 + MARGIN)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert int(head.split()[1]) == 408
    assert [e.message for e in validator.iter_errors(json.loads(body))] == []
    held = [connect(server) for _ in range(4)]
    try:
        time.sleep(0.2)
        with connect(server) as extra:
            answer = until_closed(extra, time.monotonic(), 5)
    finally:
        for sock in held:
            sock.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert int(head.split()[1]) == 503
    assert [e.message for e in validator.iter_errors(json.loads(body))] == []


# ------------------------------------------------------------ heads too large, or no HTTP
def answer_to(address: tuple[str, int], raw: bytes) -> bytes:
    """The server's whole answer to ``raw`` (it closes the connection after a refusal)."""
    with connect(address) as sock:
        try:
            sock.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):  # refused before all of it was sent: the answer is there
            pass
        return until_closed(sock, time.monotonic(), 10)


def request_head(target: bytes, *headers: bytes) -> bytes:
    return b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n"


@pytest.mark.parametrize(("raw", "status", "said"), [
    (request_head(b"/api/v1/weapons/" + b"a" * (MAX_URL_BYTES + 1)), 414, "the request's URL is over 32,768 bytes"),
    (request_head(b"/api/v1/weapons/" + b"a" * 70_000), 414, "the request's URL is over 32,768 bytes"),  # past httptools' own
    (request_head(b"/api/v1/health?" + b"x=1&" * 20_000), 414, "the request's URL is over"),
    (request_head(b"/api/v1/health", b"X-Big: " + b"a" * (MAX_HEADER_BYTES + 1)), 431, "the request's headers are over 65,536 bytes"),
    (request_head(b"/api/v1/health", *(b"X-%d: a" % i for i in range(20_000))), 431, "the request's headers are over"),
    (b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Endless: " + b"a" * (2 * MAX_HEAD_BYTES), 431, "headers are over"),
    (b"NOT HTTP AT ALL\r\n\r\n", 400, "the request is not HTTP/1.1 as expected"),
])
def test_a_head_too_large_or_no_http_is_answered_with_the_error_object(server, raw, status, said):
    answer = answer_to(server, raw)
    assert answer.startswith(b"HTTP/1.1 %d " % status), answer[:300]
    assert b"content-type: application/json" in answer.partition(b"\r\n\r\n")[0].lower()
    got, message = status_and_error(answer)
    assert got == status and said in message
    assert answer_to(server, request_head(b"/api/v1/health")).startswith(b"HTTP/1.1 200 ")  # and it serves on


def test_a_head_within_the_bounds_is_answered(server):
    answer = answer_to(server, request_head(b"/api/v1/weapons/" + b"a" * (MAX_URL_BYTES - 100),
                                            b"X-Big: " + b"a" * (MAX_HEADER_BYTES - 1000)))
    status, message = status_and_error(answer)
    assert status == 404 and message.startswith("no weapon named 'aaaa")
