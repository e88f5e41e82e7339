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


def drive(port: int | list[int], requests: list[bytes], connections: int, duration: float,
          answers: list[list[tuple[int, int, bytes]]] | None = None, until: threading.Event | None = None) -> dict:
    """Each of ``connections`` threads sends ``requests`` back to back, in
    turn (each thread from its own place in the cycle), for ``duration``
    seconds; with several ports, connection i goes to port i mod their
    number. ``answers``: a list per connection, to which every answer is
    appended as (request index, status, body)."""
    ports = [port] if isinstance(port, int) else port
    latencies: list[list[float]] = [[] for _ in range(connections)]
    errors = [0] * connections
    samples: list[bytes] = []
    start_line = threading.Barrier(connections + 1)
    stop = [0.0]

    def worker(index: int) -> None:
        connection, mine, clock = Connection(ports[index % len(ports)]), latencies[index], time.perf_counter
        turn = index * len(requests) // connections
        start_line.wait()
        while True:
            begun = clock()
            if begun >= stop[0] or (until is not None and until.is_set()):
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
            if answers is not None:
                answers[index].append(((turn - 1) % len(requests), status, body))
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


# ---------------------------------------------------------------- several servers over one database (issue 31)
HERO = {"as": "Hero", "hits": 50, "def": 20, "armor": "MA", "weapon": "Longsword", "cmb": 60, "side": "a"}
ORC = {"creature": "Orc Warrior", "side": "b"}
ORC_NAME = "Orc Warrior #1"  # the bestiary's creature, numbered in the fight
PAIRS = (("Hero", ORC_NAME), (ORC_NAME, "Hero"))


def post(connection: Connection, path: str, body: dict) -> tuple[int, dict]:
    status, data = connection.exchange(request_bytes("POST", path, body))
    return status, json.loads(data) if data else {}


def drive_fights(ports: list[int], connections: int, duration: float, tag: str, until: threading.Event | None = None) -> dict:
    """Fight writes, ``connections`` threads, connection i on port i mod
    their number, each its own fight: `new`, two `join`s (a Hero by hand,
    the bestiary's Orc Warrior), then for ``duration`` seconds attacks with
    a fresh seed and the ``after`` it last saw, Hero on the Orc, the Orc on
    Hero, then the round ended (POST .../rounds), a new fight once one is
    over. A 409 is counted apart (no other writer touches the fight: any 409
    would be a dishonest conflict); a 422 (a stunned attacker's attack
    refused) apart too; the round is then ended. Afterwards every fight's
    log is read back: its events must be exactly the writes answered 200."""
    latencies: list[list[float]] = [[] for _ in range(connections)]
    counts = [dict(attacks=0, rounds=0, setup=0, conflicts=0, refused=0, errors=0) for _ in range(connections)]
    written: list[dict[str, int]] = [{} for _ in range(connections)]  # fight → writes answered 200
    samples: list[bytes] = []
    start_line = threading.Barrier(connections + 1)
    stop = [float("inf")]  # set once every fight is set up (a worker may look before the main thread sets it)

    def worker(index: int) -> None:
        connection, mine, mark, clock = Connection(ports[index % len(ports)]), latencies[index], counts[index], time.perf_counter
        fights = written[index]
        state = {"fight": "", "seq": 0, "serial": 0}

        def write(path: str, body: dict, kind: str) -> dict | None:
            begun = clock()
            try:
                status, answer = post(connection, path, body)
            except (OSError, ValueError, StopIteration) as error:
                mark["errors"] += 1
                connection.close()
                if len(samples) < 5:
                    samples.append(repr(error).encode())
                return None
            if status == 200:
                if kind == "attacks":
                    mine.append(clock() - begun)
                mark[kind] += 1
                fights[state["fight"]] += 1
                state["seq"] = answer["seq"] if "seq" in answer else answer["fight"]["seq"]
                return answer
            if status == 409:
                mark["conflicts"] += 1
            elif status == 422:
                mark["refused"] += 1
            else:
                mark["errors"] += 1
                if len(samples) < 5:
                    samples.append(f"{status} {path}: {answer}".encode()[:300])
            return None

        def new_fight() -> bool:
            state["serial"] += 1
            state["fight"], state["seq"] = f"{tag}-{index}-{state['serial']}", 0
            fights[state["fight"]] = 0
            base = f"{API}/fights/{state['fight']}/combatants"
            if write(f"{API}/fights", {"name": state["fight"]}, "setup") is None:
                return False
            fights[state["fight"]] -= 1  # `new` is no event of the log
            return all(write(base, {**joining, "after": state["seq"]}, "setup") is not None for joining in (HERO, ORC))

        ready = new_fight()
        start_line.wait()
        seed = index * 1_000_000
        while ready and clock() < stop[0] and not (until is not None and until.is_set()):
            over = False
            for attacker, target in PAIRS:
                seed += 1
                answer = write(f"{API}/fights/{state['fight']}/attacks",
                               {"attacker": attacker, "target": target, "seed": seed, "after": state["seq"]}, "attacks")
                if answer is not None and answer["fight"]["over"]:
                    over = True
                    break
            if over:
                ready = new_fight()
            elif write(f"{API}/fights/{state['fight']}/rounds", {"after": state["seq"]}, "rounds") is None:
                ready = new_fight()
        connection.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(connections)]
    for thread in threads:
        thread.start()
    start_line.wait()  # every fight set up (not timed)
    began = time.perf_counter()
    stop[0] = began + duration
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    every = sorted(x for mine in latencies for x in mine)
    done = len(every)
    total = {key: sum(mark[key] for mark in counts) for key in counts[0]}
    # the logs read back: a fight's events are the writes answered 200, no more, no fewer
    mismatched, checked = [], 0
    reader = Connection(ports[0])
    for fights in written:
        for name, count in fights.items():
            status, data = reader.exchange(request_bytes("GET", f"{API}/fights/{name}/log", None))
            events = len(json.loads(data)["events"]) if status == 200 else -1
            checked += 1
            if events != count:
                mismatched.append((name, count, events))
    reader.close()
    return {
        "requests": done, "seconds": elapsed, "rps": done / elapsed, "errors": total["errors"], "error_samples": samples,
        "writes_per_s": (total["attacks"] + total["rounds"]) / elapsed, "conflicts": total["conflicts"],
        "refused": total["refused"], "rounds": total["rounds"], "fights": checked, "mismatched": mismatched,
        "p50_ms": 1000 * every[done // 2] if done else None,
        "p99_ms": 1000 * every[min(done - 1, int(done * 0.99))] if done else None,
        "mean_ms": 1000 * statistics.fmean(every) if done else None,
    }


def drive_shared(ports: list[int], connections: int, duration: float, tag: str, share: int) -> dict:
    """Honest conflicts: every ``share`` connections in turn (on different
    servers when there are several: connection i on port i mod their number)
    write to one fight, as several pages of one table would: each ends the
    round (POST .../rounds, always allowed) with the ``after`` it last saw.
    The loser of a race gets 409, reads the fight again (GET, not counted)
    and goes on. Afterwards: the writes answered 200 on a fight took distinct
    numbers, one after another from the joins on, and its log holds exactly them."""
    latencies: list[list[float]] = [[] for _ in range(connections)]
    seqs: list[list[int]] = [[] for _ in range(connections)]
    conflicts, errors = [0] * connections, [0] * connections
    samples: list[bytes] = []
    groups = (connections + share - 1) // share
    names = [f"{tag}-shared-{g}" for g in range(groups)]
    setup = Connection(ports[0])
    for name in names:
        post(setup, f"{API}/fights", {"name": name})
        post(setup, f"{API}/fights/{name}/combatants", {**HERO, "after": 0})
        post(setup, f"{API}/fights/{name}/combatants", {**ORC, "after": 1})
    setup.close()
    start_line = threading.Barrier(connections + 1)
    stop = [float("inf")]

    def worker(index: int) -> None:
        connection, mine, clock = Connection(ports[index % len(ports)]), latencies[index], time.perf_counter
        name, seq = names[index // share], 2
        start_line.wait()
        while clock() < stop[0]:
            begun = clock()
            try:
                status, answer = post(connection, f"{API}/fights/{name}/rounds", {"after": seq})
                if status == 200:
                    mine.append(clock() - begun)
                    seq = answer["fight"]["seq"]
                    seqs[index].append(seq)
                    continue
                if status == 409:
                    conflicts[index] += 1
                else:
                    errors[index] += 1
                    if len(samples) < 5:
                        samples.append(f"{status}: {answer}".encode()[:300])
                status, data = connection.exchange(request_bytes("GET", f"{API}/fights/{name}", None))
                seq = json.loads(data)["seq"]
            except (OSError, ValueError, StopIteration, KeyError) as error:
                errors[index] += 1
                connection.close()
                if len(samples) < 5:
                    samples.append(repr(error).encode())
        connection.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(connections)]
    for thread in threads:
        thread.start()
    start_line.wait()
    began = time.perf_counter()
    stop[0] = began + duration
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    every = sorted(x for mine in latencies for x in mine)
    done = len(every)
    mismatched = []
    reader = Connection(ports[0])
    for g, name in enumerate(names):
        taken = sorted(x for i in range(g * share, min(connections, (g + 1) * share)) for x in seqs[i])
        status, data = reader.exchange(request_bytes("GET", f"{API}/fights/{name}/log", None))
        events = [event["seq"] for event in json.loads(data)["events"]] if status == 200 else []
        if taken != list(range(3, 3 + len(taken))) or events != [1, 2, *taken]:
            mismatched.append((name, len(taken), len(events)))
    reader.close()
    return {
        "requests": done, "seconds": elapsed, "rps": done / elapsed, "errors": sum(errors), "error_samples": samples,
        "writes_per_s": done / elapsed, "conflicts": sum(conflicts), "refused": 0, "fights": len(names),
        "mismatched": mismatched,
        "p50_ms": 1000 * every[done // 2] if done else None,
        "p99_ms": 1000 * every[min(done - 1, int(done * 0.99))] if done else None,
        "mean_ms": 1000 * statistics.fmean(every) if done else None,
    }


class Servers:
    """``count`` separate `tables serve` processes over one database, each on
    its own loopback port (as on separate machines); stopped on exit."""

    def __init__(self, name: str, db: str, count: int, folder: Path):
        command = [sys.executable, "-m", "tables_app", "--db", db, "serve"]
        self.servers: list[Server] = []
        try:
            for i in range(count):
                self.servers.append(Server(f"{name}-{i + 1}", command, folder))
        except BaseException:
            self.stop()
            raise
        self.ports = [server.port for server in self.servers]

    def pids(self) -> list[int]:
        return [pid for server in self.servers for pid in process_tree(server.process.pid)]

    def measure(self, what: str, args: argparse.Namespace, tag: str) -> dict:
        """Resolves spread over the servers, or fight writes; the servers' CPU, and the database server's."""
        if what == "resolve":
            requests = [request_bytes(method, path, body) for method, path, body in endpoints()["resolve (many attackers)"]]
            drive(self.ports, requests, args.connections, args.warmup)
        elif what == "shared":
            warm = drive_shared(self.ports, args.connections, args.warmup, f"{tag}-warm", args.share)
        else:
            warm = drive_fights(self.ports, args.connections, args.warmup, f"{tag}-warm")
        pids, database = self.pids(), args.database_pids()
        server_before, database_before, client_before = cpu_seconds(pids), postmaster_cpu(database), own_cpu()
        if what == "resolve":
            result = drive(self.ports, requests, args.connections, args.duration)
        elif what == "shared":
            result = drive_shared(self.ports, args.connections, args.duration, tag, args.share)
        else:
            result = drive_fights(self.ports, args.connections, args.duration, tag)
        result.update(server_cpu_s=cpu_seconds(pids) - server_before, client_cpu_s=own_cpu() - client_before,
                      database_cpu_s=postmaster_cpu(database) - database_before if database else None)
        if what != "resolve":  # the warm-up's fights are checked too (not its figures)
            result["mismatched"] = warm["mismatched"] + result["mismatched"]
            result["errors"] += warm["errors"]
        return result

    def stop(self) -> None:
        for server in self.servers:
            server.stop()


def postmaster_cpu(pids: list[int] | None) -> float:
    """CPU seconds of a local PostgreSQL server: its processes, and (the
    postmaster's, first: cutime and cstime) its backends that have exited."""
    if not pids:
        return 0.0
    total = cpu_seconds(pids)
    try:
        fields = Path(f"/proc/{pids[0]}/stat").read_text().rpartition(")")[2].split()
        total += (int(fields[13]) + int(fields[14])) / TICK
    except OSError:
        pass
    return total


def postmaster_of(url: str) -> int | None:
    """The postmaster's pid of a local server (the parent of our backend), else None."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:  # read while the backend lives
        backend = connection.execute("SELECT pg_backend_pid()").fetchone()[0]
        try:
            return int(Path(f"/proc/{backend}/stat").read_text().rpartition(")")[2].split()[1])
        except OSError:
            return None


def database_url(server: str, name: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    return urlunsplit(urlsplit(server)._replace(path=f"/{name}"))


def fresh_postgres(server: str, name: str) -> str:
    """CREATE DATABASE name on ``server`` and `tables db init` it (the bundled tables); its URL."""
    import psycopg

    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    url = database_url(server, name)
    subprocess.run([sys.executable, "-m", "tables_app", "db", "init", url], check=True, capture_output=True)
    return url


MULTI_HEADER = (f"{'round':>5} {'database':<10} {'servers':>7} {'load':<8} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} "
                f"{'409':>5} {'422':>5} {'errors':>6} {'writes/s':>8} {'servers CPU s':>13} {'db CPU s':>8} {'client CPU s':>12}")


def multi_line(r: dict) -> str:
    writes = f"{r['writes_per_s']:>8.0f}" if "writes_per_s" in r else f"{'':>8}"
    database = f"{r['database_cpu_s']:>8.1f}" if r.get("database_cpu_s") is not None else f"{'-':>8}"
    return (f"{r['round']:>5} {r['database']:<10} {r['servers']:>7} {r['load']:<8} {r['rps']:>7.0f} {r['p50_ms']:>7.2f} "
            f"{r['p99_ms']:>7.2f} {r.get('conflicts', 0):>5} {r.get('refused', 0):>5} {r['errors']:>6} {writes} "
            f"{r['server_cpu_s']:>13.1f} {database} {r['client_cpu_s']:>12.1f}")


def several_servers(args: argparse.Namespace, folder: Path) -> list[dict]:
    """Rounds; in each, for every count of servers, PostgreSQL then SQLite
    (swapped every round): that many servers started over the one database,
    resolves spread over them, then fight writes, then the servers stopped."""
    databases: dict[str, str] = {}
    sqlite_db = folder / "tables.db"
    subprocess.run([sys.executable, "-m", "tables_app", "--db", str(sqlite_db), "db", "init"], check=True, capture_output=True)
    databases["sqlite"] = str(sqlite_db)
    postmaster = None
    if args.postgres:
        databases["postgresql"] = fresh_postgres(args.postgres, f"tables_serve_{os.getpid()}")
        postmaster = postmaster_of(args.postgres)
    rows: list[dict] = []
    print(MULTI_HEADER, flush=True)
    for round_ in range(1, args.rounds + 1):
        for count in args.servers:
            kinds = list(databases)
            for kind in kinds if round_ % 2 else kinds[::-1]:
                args.database_pids = (lambda: process_tree(postmaster)) if kind == "postgresql" and postmaster else (lambda: None)
                servers = Servers(f"{kind}-{count}", databases[kind], count, folder)
                try:
                    for load in args.loads:
                        result = servers.measure(load, args, f"r{round_}-{kind}-{count}")
                        result.update(round=round_, database=kind, servers=count, load=load)
                        rows.append(result)
                        print(multi_line(result), flush=True)
                        if result.get("mismatched"):
                            print(f"  fights whose log is not the writes answered 200 (fight, writes, events): "
                                  f"{result['mismatched'][:5]}", flush=True)
                finally:
                    servers.stop()
    if args.import_during:
        for kind, db in databases.items():
            args.database_pids = (lambda: process_tree(postmaster)) if kind == "postgresql" and postmaster else (lambda: None)
            rows.append(import_during_load(kind, db, max(args.servers), args, folder))
    return rows


def multi_summary(rows: list[dict]) -> None:
    print("\nMedians over the rounds (ranges in brackets):")
    print(f"{'database':<10} {'servers':>7} {'load':<8} {'req/s':>17} {'p50 ms':>17} {'p99 ms':>17} {'writes/s':>15} "
          f"{'409':>5} {'422':>5} {'errors':>6} {'servers CPU/req ms':>18} {'db CPU/req ms':>13}")

    def spread(values: list[float], form: str) -> str:
        return f"{statistics.median(values):{form}} [{min(values):{form}}-{max(values):{form}}]" if values else "-"

    keys = dict.fromkeys((r["database"], r["servers"], r["load"]) for r in rows if "round" in r)
    for key in keys:
        mine = [r for r in rows if "round" in r and (r["database"], r["servers"], r["load"]) == key]
        writes = spread([r["writes_per_s"] for r in mine], ".0f") if key[2] != "resolve" else "-"
        per_request = [1000 * r["server_cpu_s"] / r["requests"] for r in mine if r["requests"]]
        on_database = [1000 * r["database_cpu_s"] / r["requests"] for r in mine if r["requests"] and r["database_cpu_s"] is not None]
        print(f"{key[0]:<10} {key[1]:>7} {key[2]:<8} {spread([r['rps'] for r in mine], '.0f'):>17} "
              f"{spread([r['p50_ms'] for r in mine], '.2f'):>17} {spread([r['p99_ms'] for r in mine], '.2f'):>17} {writes:>15} "
              f"{sum(r.get('conflicts', 0) for r in mine):>5} {sum(r.get('refused', 0) for r in mine):>5} "
              f"{sum(r['errors'] for r in mine):>6} {spread(per_request, '.3f'):>18} {spread(on_database, '.3f'):>13}")


def second_printing(folder: Path) -> list[Path]:
    """Copies of the bundled attacks.xlsx and criticals.xlsx with cells changed:
    every attack cell's hits one more, every critical's title reworded. One
    import of both replaces the bundled tables (--replace): an answer with
    the new hits and an old title (or the reverse) would be a mixed one."""
    import re

    import openpyxl

    sources = Path(__file__).resolve().parents[1] / "table_sources"
    made = []
    (folder / "second-printing").mkdir(exist_ok=True)
    for name in ("attacks.xlsx", "criticals.xlsx"):
        book = openpyxl.load_workbook(sources / name)
        for sheet in book.worksheets:
            rows = list(sheet.iter_rows())
            header = next((i for i, row in enumerate(rows) if row[0].value in ("Result", "Roll")), None)
            if header is None:
                continue
            titles = [cell.column for cell in rows[header] if cell.value == "Title"]
            for row in rows[header + 1:]:
                for cell in row[1:]:
                    if rows[header][0].value == "Result":
                        if isinstance(cell.value, int) and not isinstance(cell.value, bool):
                            cell.value += 1
                        elif isinstance(cell.value, str) and (found := re.match(r"(\d+)(\s.*)?$", cell.value)):
                            cell.value = f"{int(found.group(1)) + 1}{found.group(2) or ''}"
                    elif cell.column in titles and isinstance(cell.value, str) and cell.value:
                        cell.value = f"{cell.value} (second printing)"
        made.append(folder / "second-printing" / name)
        book.save(made[-1])
    return made


def answers_of(port: int, requests: list[bytes]) -> list[tuple[int, bytes]]:
    connection = Connection(port)
    found = [connection.exchange(request) for request in requests]
    connection.close()
    return found


def import_during_load(kind: str, db: str, count: int, args: argparse.Namespace, folder: Path) -> dict:
    """``count`` servers under resolves (and fight writes beside them) while
    `tables import` replaces the attack and critical tables (second_printing):
    every answer during the import must be 200 and equal to the answer
    before the import or the one after it, for the same request (dice given:
    an answer is a function of the tables); once a connection got a new
    answer it must never get an old one again; afterwards every server gives
    the new answers."""
    workbooks = second_printing(folder)
    requests = [request_bytes(method, path, body) for method, path, body in endpoints()["resolve (many attackers)"]]
    servers = Servers(f"{kind}-import", db, count, folder)
    try:
        before = [answers_of(port, requests) for port in servers.ports]
        assert all(answers == before[0] for answers in before), "the servers disagree before the import"
        answers: list[list[tuple[int, int, bytes]]] = [[] for _ in range(args.connections)]
        until = threading.Event()
        result: dict = {}
        fights: dict = {}
        load = threading.Thread(target=lambda: result.update(
            drive(servers.ports, requests, args.connections, 600, answers=answers, until=until)))
        writes = threading.Thread(target=lambda: fights.update(
            drive_fights(servers.ports, max(1, args.connections // 4), 600, f"import-{kind}", until=until)))
        load.start()
        writes.start()
        time.sleep(2.0)
        command = [sys.executable, "-m", "tables_app", "--db", db, "import", *map(str, workbooks), "--replace"]
        started = time.perf_counter()
        imported = subprocess.run(command, capture_output=True, text=True)
        took = time.perf_counter() - started
        time.sleep(2.0)
        until.set()
        load.join()
        writes.join()
        after = [answers_of(port, requests) for port in servers.ports]
    finally:
        servers.stop()
    changed = sum(b != a for b, a in zip(before[0], after[0]))
    tally = dict(old=0, new=0, unchanged=0, mixed=0, failed=0, old_after_new=0)
    mixed = []
    for mine in answers:
        seen_new = set()
        for index, status, body in mine:
            old, new = before[0][index], after[0][index]
            if status != 200:
                tally["failed"] += 1
            elif (status, body) == old == new:
                tally["unchanged"] += 1
            elif (status, body) == old:
                tally["old"] += 1
                tally["old_after_new"] += bool(seen_new)
            elif (status, body) == new:
                tally["new"] += 1
                seen_new.add(index)
            else:
                tally["mixed"] += 1
                if len(mixed) < 3:
                    mixed.append(body[:300])
    agree = all(answers == after[0] for answers in after)
    print(f"\nImport during the load, {kind}, {count} servers: `{' '.join(command[3:])}` exit {imported.returncode}, "
          f"{took:.2f} s; {changed} of {len(requests)} requests answer differently after it; every server gives the new "
          f"answers: {agree}")
    if imported.returncode:
        print(f"  the import's output: {imported.stdout[-500:]} {imported.stderr[-500:]}")
    print(f"  resolves meanwhile: {result['requests']:,} ({result['rps']:.0f}/s, p50 {result['p50_ms']:.2f} ms, "
          f"p99 {result['p99_ms']:.2f} ms); " +
          ", ".join(f"{key} {value:,}" for key, value in tally.items()))
    if mixed:
        print(f"  mixed answers, for example: {mixed}")
    print(f"  fight writes meanwhile: {fights['requests']:,} attacks ({fights['rps']:.0f}/s, p50 {fights['p50_ms'] or 0:.2f} ms, "
          f"p99 {fights['p99_ms'] or 0:.2f} ms), 409 {fights['conflicts']}, 422 {fights['refused']}, errors {fights['errors']} "
          f"{fights['error_samples'][:3] if fights['errors'] else ''}, logs equal to the writes: {not fights['mismatched']}")
    return {"import": kind, "servers": count, "exit": imported.returncode, "seconds": took, "changed": changed,
            "agree_after": agree, "tally": tally, "resolves": {k: v for k, v in result.items() if k != "error_samples"},
            "fights": {k: v for k, v in fights.items() if k not in ("error_samples",)},
            "errors": tally["failed"] + tally["mixed"] + tally["old_after_new"] + fights["errors"] + (not agree)
            + bool(imported.returncode) + len(fights["mismatched"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per endpoint and round (default 5)")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up before each (default 1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--connections", type=int, default=8, help="keep-alive connections at once (default 8)")
    parser.add_argument("--workers", type=int, action="append", help="a run with this many workers (default: 1 and 2)")
    parser.add_argument("--no-peer", action="store_true", help="without the peer (bench/serve_peer.py)")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    parser.add_argument("--servers", type=int, action="append",
                        help="N separate `tables serve` processes over one database, connections spread over them: "
                             "resolves and fight writes, on SQLite and (with --postgres) PostgreSQL; repeatable")
    parser.add_argument("--postgres", metavar="URL",
                        help="a PostgreSQL server whose user may create databases (postgresql://USER@HOST:PORT/postgres): "
                             "the --servers runs on a fresh database of it too")
    parser.add_argument("--loads", default="resolve,fight",
                        help="with --servers: which loads, of resolve, fight, shared (default resolve,fight)")
    parser.add_argument("--share", type=int, default=2,
                        help="the shared load: connections writing to one fight (default 2), their 409s honest conflicts")
    parser.add_argument("--no-import", dest="import_during", action="store_false",
                        help="with --servers: without the import in the middle of the load")
    args = parser.parse_args()
    if args.servers or args.postgres:
        several(args)
        return
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


def several(args: argparse.Namespace) -> None:
    args.servers = args.servers or [1, 2, 4]
    args.loads = [load.strip() for load in args.loads.split(",")]
    if not set(args.loads) <= {"resolve", "fight", "shared"}:
        raise SystemExit(f"--loads: resolve, fight or shared, not {args.loads}")
    print(f"CPUs: {os.cpu_count()} (usable: {len(os.sched_getaffinity(0))}); Python {sys.version.split()[0]}; "
          f"{args.connections} keep-alive connections, {args.rounds} rounds of {args.duration:g} s per load "
          f"after {args.warmup:g} s warm-up; servers {args.servers}")
    if args.postgres:
        import psycopg

        with psycopg.connect(args.postgres, autocommit=True) as admin:
            print("PostgreSQL " + ", ".join(f"{name} {admin.execute(f'SHOW {name}').fetchone()[0]}"
                                            for name in ("server_version", "fsync", "synchronous_commit", "shared_buffers")))
    print("resolve: POST /api/v1/resolve/table (the 512 requests of 'resolve (many attackers)'); fight: attacks, "
          "each connection its own fight (req/s, p50, p99 of the attacks; writes/s: attacks and rounds ended)")
    with tempfile.TemporaryDirectory(prefix="serve-load-") as folder:
        rows = several_servers(args, Path(folder))
    multi_summary(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=lambda o: o.decode(errors="replace")))
    if any(r["errors"] or r.get("mismatched") for r in rows):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
