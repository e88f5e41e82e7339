"""`tables serve` (tables_app/cli/serving.py) where it listens: a port in
use or an address it cannot bind is one `Error:` line and exit 1, before
uvicorn; an IPv6 loopback address serves, bracketed or not."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tables_app.http.access import TOKEN_ENV, bind_problem, listen_address

TOKEN = "the-serving-tests-token-0123"


def serve(database: Path, *options: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != TOKEN_ENV}
    return subprocess.run([sys.executable, "-m", "tables_app", "--db", str(database), "serve", *options],
                          capture_output=True, text=True, timeout=60, env={**environment, **(env or {})})


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


def test_a_port_in_use_is_one_error_line(db_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve(db_path, "--port", str(port))
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr == (f"Error: port {port} is in use (127.0.0.1:{port}: another server listens there; "
                             "choose another with --port)\n")


def test_an_address_not_of_this_machine_is_one_error_line(db_path):
    result = serve(db_path, "--host", "192.0.2.1", "--port", "0", env={TOKEN_ENV: TOKEN})  # TEST-NET-1: no one's
    assert result.returncode == 1, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert lines[-1].startswith("Error: cannot listen on 192.0.2.1:0: the address is not one of this machine's")
    assert "Traceback" not in result.stderr and "uvicorn" not in result.stderr.lower()


def test_the_listen_address_of_a_bracketed_ipv6_host():
    assert listen_address("[::1]") == "::1"
    assert listen_address("::1") == "::1"
    assert listen_address("127.0.0.1") == "127.0.0.1"
    assert listen_address("localhost") == "localhost"


def test_a_free_port_has_no_bind_problem():
    assert bind_problem("127.0.0.1", 0) is None


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


@pytest.mark.skipif(not has_ipv6_loopback(), reason="this machine has no IPv6 loopback")
@pytest.mark.parametrize(("host", "token"), [("[::1]", None), ("::1", None), ("[::1]", TOKEN)])
def test_ipv6_loopback_serves(db_path, host, token):
    port = free_port("::1")
    env = {key: value for key, value in os.environ.items() if key != TOKEN_ENV}
    if token is not None:
        env[TOKEN_ENV] = token
    process = subprocess.Popen([sys.executable, "-m", "tables_app", "--db", str(db_path), "serve", "--host", host,
                                "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.stdout.read()  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(f"http://[::1]:{port}/api/v1/health", timeout=2) as response:
                    assert json.loads(response.read())["status"] == "ok"
                    break
            except OSError:
                assert time.monotonic() < deadline, "no answer on [::1] within 30 s"
                time.sleep(0.1)
    finally:
        process.terminate()
        output = process.communicate(timeout=10)[0]
    if token is not None:  # the hint names the address once bracketed
        assert f"open it as http://[::1]:{port}/#token=..." in output, output


@pytest.mark.skipif(not has_ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_a_port_in_use_on_ipv6(db_path):
    with socket.socket(socket.AF_INET6) as taken:
        taken.bind(("::1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve(db_path, "--host", "[::1]", "--port", str(port), env={TOKEN_ENV: TOKEN})
    assert result.returncode == 1
    assert result.stderr == f"Error: port {port} is in use ([::1]:{port}: another server listens there; choose another with --port)\n"
