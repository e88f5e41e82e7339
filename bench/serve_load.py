"""`tables serve` under load (issue #18): requests per second and p50/p99
latency of a query and of resolves, on one process and on `--workers N`,
all over one SQLite file, driven over loopback.

    python bench/serve_load.py                    # 3 rounds of 5 s per endpoint, 1 worker then 2
    python bench/serve_load.py --duration 3 --rounds 5 --workers 1 --workers 4 --connections 16

A database with the bundled tables is made in a temporary directory; each
run starts `python -m tables_app --db DB serve --port P [--workers N]`,
waits for /api/v1/health, warms up, then drives each endpoint for the
duration from a plain-Python load generator: one process, one thread per
keep-alive connection (raw HTTP/1.1 on a socket: no client library, so the
generator's own cost per request stays small). Every answer must be 200
with a body; anything else counts as an error. Each endpoint cycles
through 512 different requests (fresh dice, fresh seeds, other attackers),
so nothing a server keeps between requests answers one from memory.

The peer (bench/serve_peer.py) is the same web stack answering the same
requests with answers prepared in advance: the framework's floor. With
one worker, each round drives tables_app and then the peer, endpoint by
endpoint, and the summary gives medians over the rounds and tables_app's
server CPU per request against the peer's.

The generator runs on the same machine and competes with the server for
the same cores: the figures are a floor. The server's CPU time (its
process and its workers, from /proc/PID/stat) is reported beside them,
and so is the generator's, so that requests per CPU-second of the server
can be read off too.
"""

from __future__ import annotations

import argparse
import json
import random
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

API = "/api/v1"
DISTINCT = 512  # distinct requests each endpoint cycles through
RESOLVE = {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA"}
# Attackers of the bundled tables for "resolve (many attackers)": the
# weapons of the bundled armory against every armor column, at CMBs and DEFs
# that reach misses, hits, criticals and the Max Result.
WEAPONS = ["Longsword", "Dagger", "Mace", "Shortbow", "Spear", "Morning Star", "Warhammer"]
ARMORS = ["NA", "LA", "MA", "HA"]


def endpoints() -> dict[str, list[tuple[str, str, dict | None]]]:
    """Each endpoint's requests: every answer differs (fresh dice, fresh
    seeds, other attackers), as a bot's requests would, so that nothing the
    server keeps between requests answers one from memory."""
    draw = random.Random(18)

    def dice() -> list[int]:  # enough for open-ended rolls, a critical and a secondary (the rest unused)
        return [draw.randint(1, 100) for _ in range(8)]

    return {
        "query": [("GET", f"{API}/query/attack?table=Edged&result={draw.randint(1, 150)}&armor={draw.choice(ARMORS)}", None)
                  for _ in range(DISTINCT)],
        "resolve (dice)": [("POST", f"{API}/resolve/table", {**RESOLVE, "dice": dice()}) for _ in range(DISTINCT)],
        "resolve (seed)": [("POST", f"{API}/resolve/table", {**RESOLVE, "seed": seed}) for seed in range(DISTINCT)],
        "resolve (many attackers)": [
            ("POST", f"{API}/resolve/table", {"weapon": draw.choice(WEAPONS), "cmb": draw.randrange(0, 150, 5),
                                              "def": draw.randrange(0, 60, 5), "armor": draw.choice(ARMORS), "dice": dice()})
            for _ in range(DISTINCT)],
    }


TICK = os.sysconf("SC_CLK_TCK")


def request_bytes(method: str, path: str, body: dict | None) -> bytes:
    data = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    return head.encode() + b"\r\n" + data


class Connection:
    """One keep-alive HTTP/1.1 connection: send a request, read its answer (Content-Length bodies)."""

    def __init__(self, port: int):
        self.port = port
        self.sock: socket.socket | None = None
        self.buffer = b""

    def open(self) -> None:
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _fill(self) -> None:
        assert self.sock is not None
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed by the server")
        self.buffer += chunk

    def exchange(self, request: bytes) -> tuple[int, bytes]:
        if self.sock is None:
            self.open()
        assert self.sock is not None
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = next(int(line.split(b":", 1)[1]) for line in lines[1:] if line.lower().startswith(b"content-length:"))
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        if any(line.lower() == b"connection: close" for line in lines[1:]):
            self.close()
        return status, body


def drive(port: int, requests: list[bytes], connections: int, duration: float) -> dict:
    """Each of ``connections`` threads sends ``requests`` back to back, in
    turn (each thread from its own place in the cycle), for ``duration`` seconds."""
    latencies: list[list[float]] = [[] for _ in range(connections)]
    errors = [0] * connections
    samples: list[bytes] = []
    start_line = threading.Barrier(connections + 1)
    stop = [0.0]

    def worker(index: int) -> None:
        connection, mine, clock = Connection(port), latencies[index], time.perf_counter
        turn = index * len(requests) // connections
        start_line.wait()
        while True:
            begun = clock()
            if begun >= stop[0]:
                break
            request = requests[turn % len(requests)]
            turn += 1
            try:
                status, body = connection.exchange(request)
            except (OSError, ValueError, StopIteration):
                errors[index] += 1
                connection.close()
                continue
            mine.append(clock() - begun)
            if status != 200 or not body:
                errors[index] += 1
                if len(samples) < 3:
                    samples.append(body[:300])
        connection.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(connections)]
    for thread in threads:
        thread.start()
    stop[0] = time.perf_counter() + duration
    began = time.perf_counter()
    start_line.wait()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    every = sorted(x for mine in latencies for x in mine)
    done = len(every)
    return {
        "requests": done, "seconds": elapsed, "rps": done / elapsed, "errors": sum(errors), "error_samples": samples,
        "p50_ms": 1000 * every[done // 2] if done else None,
        "p99_ms": 1000 * every[min(done - 1, int(done * 0.99))] if done else None,
        "mean_ms": 1000 * statistics.fmean(every) if done else None,
    }


def process_tree(root: int) -> list[int]:
    """``root`` and its descendants (uvicorn's worker processes), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes (utime and stime of /proc/PID/stat)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5), counted after the name
    return total / TICK


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_healthy(server: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server stopped (exit {server.returncode}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{API}/health", timeout=2) as response:
                if json.loads(response.read())["status"] == "ok":
                    return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"no answer from /health in 60 s:\n{log.read_text()}")


class Server:
    """A server process on a free port, up and answering /health; stopped on exit."""

    def __init__(self, name: str, command: list[str], folder: Path, settle: float = 0.0):
        self.name, self.port = name, free_port()
        self.log = folder / f"{name}.log"
        with self.log.open("w") as out:
            self.process = subprocess.Popen([*command, "--port", str(self.port)], stdout=out, stderr=subprocess.STDOUT)
        wait_healthy(self.process, self.port, self.log)
        time.sleep(settle)  # with workers: every worker up (each answers /health once the supervisor started it)

    def measure(self, requests: list[bytes], args: argparse.Namespace) -> dict:
        drive(self.port, requests, args.connections, args.warmup)  # every worker and thread warm
        pids = process_tree(self.process.pid)
        server_before, client_before = cpu_seconds(pids), own_cpu()
        result = drive(self.port, requests, args.connections, args.duration)
        result.update(server_processes=len(pids), server_cpu_s=cpu_seconds(pids) - server_before,
                      client_cpu_s=own_cpu() - client_before)
        result["server_cpu_per_request_ms"] = 1000 * result["server_cpu_s"] / max(result["requests"], 1)
        return result

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def capture_answers(port: int, folder: Path) -> Path:
    """A real answer of each kind the peer gives, from `tables serve` itself."""
    sent = endpoints()
    answers = {}
    for kind, name in (("query", "query"), ("resolve", "resolve (dice)")):
        method, path, body = sent[name][0]
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            answers[kind] = response.read().decode()
    path = folder / "answers.json"
    path.write_text(json.dumps(answers))
    return path


PEER_OF = {"query": "query", "resolve (dice)": "resolve", "resolve (seed)": "resolve", "resolve (many attackers)": "resolve"}


def run(db: Path, workers: int, args: argparse.Namespace, folder: Path) -> list[dict]:
    """``args.rounds`` rounds; in each, every endpoint on `tables serve`, then
    (one process only) the same requests on the peer: interleaved, so that
    the machine's mood falls on both alike."""
    command = [sys.executable, "-m", "tables_app", "--db", str(db), "serve"]
    ours = Server(f"serve-{workers}", command + (["--workers", str(workers)] if workers > 1 else []), folder,
                  settle=2.0 if workers > 1 else 0.0)
    peer = None
    rows = []
    try:
        if workers == 1 and not args.no_peer:
            answers = capture_answers(ours.port, folder)
            peer = Server("peer", [sys.executable, str(Path(__file__).with_name("serve_peer.py")), "--answers",
                                   str(answers)], folder)
        for round_ in range(1, args.rounds + 1):
            for name, sent in endpoints().items():
                requests = [request_bytes(method, path, body) for method, path, body in sent]
                for server in (ours, peer) if peer is not None else (ours,):
                    result = server.measure(requests, args)
                    result.update(endpoint=name, workers=workers, round=round_, server=server.name if server is peer else "tables")
                    rows.append(result)
                    print(line(result), flush=True)
    finally:
        for server in (ours, peer):
            if server is not None:
                server.stop()
    return rows


HEADER = (f"{'round':>5} {'server':<7} {'workers':>7} {'endpoint':<24} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'errors':>6} {'server CPU/req ms':>17} {'req per server CPU-s':>20} {'client CPU s':>12}")


def line(r: dict) -> str:
    per_cpu = r["requests"] / r["server_cpu_s"] if r["server_cpu_s"] else float("nan")
    return (f"{r['round']:>5} {r['server']:<7} {r['workers']:>7} {r['endpoint']:<24} {r['rps']:>7.0f} {r['p50_ms']:>7.2f} "
            f"{r['p99_ms']:>7.2f} {r['errors']:>6} {r['server_cpu_per_request_ms']:>17.3f} {per_cpu:>20.0f} "
            f"{r['client_cpu_s']:>12.1f}")


def summary(rows: list[dict]) -> None:
    """Medians over the rounds, and tables_app's CPU per request against the peer's."""
    print("\nMedians over the rounds (ranges in brackets):")
    print(f"{'workers':>7} {'endpoint':<24} {'req/s':>15} {'p50 ms':>13} {'p99 ms':>13} {'req per server CPU-s':>22} "
          f"{'peer CPU/req ms':>15} {'CPU/req vs peer':>16}")
    keys = dict.fromkeys((r["workers"], r["endpoint"]) for r in rows if r["server"] == "tables")
    for workers, endpoint in keys:
        mine = [r for r in rows if (r["workers"], r["endpoint"], r["server"]) == (workers, endpoint, "tables")]
        peer = [r for r in rows if (r["workers"], r["endpoint"], r["server"]) == (workers, endpoint, "peer")]

        def spread(values: list[float], form: str) -> str:
            return f"{statistics.median(values):{form}} [{min(values):{form}}-{max(values):{form}}]"

        per_cpu = [r["requests"] / r["server_cpu_s"] for r in mine if r["server_cpu_s"]]
        ratios = [a["server_cpu_per_request_ms"] / b["server_cpu_per_request_ms"]
                  for a in mine for b in peer if a["round"] == b["round"] and b["server_cpu_per_request_ms"]]
        peer_cpu = spread([r["server_cpu_per_request_ms"] for r in peer], ".3f") if peer else "-"
        print(f"{workers:>7} {endpoint:<24} {spread([r['rps'] for r in mine], '.0f'):>15} "
              f"{spread([r['p50_ms'] for r in mine], '.2f'):>13} {spread([r['p99_ms'] for r in mine], '.2f'):>13} "
              f"{spread(per_cpu, '.0f'):>22} {peer_cpu:>15} {spread(ratios, '.2f') if ratios else '-':>16}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per endpoint and round (default 5)")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up before each (default 1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--connections", type=int, default=8, help="keep-alive connections at once (default 8)")
    parser.add_argument("--workers", type=int, action="append", help="a run with this many workers (default: 1 and 2)")
    parser.add_argument("--no-peer", action="store_true", help="without the peer (bench/serve_peer.py)")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = parser.parse_args()
    runs = args.workers or [1, 2]
    print(f"CPUs: {os.cpu_count()} (usable: {len(os.sched_getaffinity(0))}); Python {sys.version.split()[0]}; "
          f"{args.connections} keep-alive connections, {args.rounds} rounds of {args.duration:g} s per endpoint "
          f"after {args.warmup:g} s warm-up")
    print("The load generator runs on the same cores as the server: req/s is a floor; see the server's CPU time.")
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="serve-load-") as folder:
        db = Path(folder) / "tables.db"
        subprocess.run([sys.executable, "-m", "tables_app", "--db", str(db), "db", "init"], check=True, capture_output=True)
        print(HEADER)
        for workers in runs:
            rows += run(db, workers, args, Path(folder))
    summary(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if any(r["errors"] for r in rows):
        for r in rows:
            if r["errors"]:
                print(f"errors on {r['endpoint']} ({r['server']}, {r['workers']} workers): {r['error_samples']}",
                      file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
