"""`tables serve` flooded with the worst chances requests (issue 43, item 2): is the rest of the server still
responsive, and does its memory come back?

    python bench/serve_chances_flood.py                     # 16 clients, 30 s, 3 runs
    python bench/serve_chances_flood.py --clients 16 --duration 30 --runs 3

A database with the bundled tables is made in a temporary directory, with three fights: **Brawl**, four against
four on the tables, 100,000 hits each (no fight ends: every round of every fight is played, and the exact odds run
on to their bound); **Giants**, four against four in rise whose damage has gaps (`damage=1d2, multiplier=100`,
100,000 hits: the fight of the issue, whose exact odds once allocated gigabytes); **Probe**, a duel to look at.
`python -m tables_app --db DB serve` is started, then ``--clients`` threads each send, one after the other for
``--duration`` seconds, the worst requests of the chances (the heaviest each route takes): the exact odds of 20
rounds, certified bounds with 5 s, the automatic answer with 5 s, and `simulate` at its largest count of 20
rounds, on both fights, each on a connection of its own. Meanwhile one thread asks, one after the other,
`GET /api/v1/health` and `GET /api/v1/fights/Probe` (`fight show`): their latency, p50 / p99 / max.
The server's resident memory (VmRSS) is sampled by the probe: before, its peak, and 3 s after each flood
(``--floods``, one after the other on the same server: does what a flood leaves grow?).

Answers are counted by status: 200, 422 (a refusal: the exact odds past their bound), 503 (busy: waited
QUEUE_SECONDS for a slot, or past REQUEST_SECONDS); anything else (a 500) is an error and printed.
The generator runs on the same machine and competes with the server for the same cores.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

GIANT = ["--hits", "100000", "--system", "rise", "--option", "accuracy=0", "--option", "damage=1d2",
         "--option", "multiplier=100"]
TABLE = ["--hits", "100000", "--def", "0", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60"]


def setup(folder: Path) -> Path:
    db = folder / "flood.db"
    tables = [sys.executable, "-m", "tables_app", "--db", str(db)]
    subprocess.run([sys.executable, "-m", "tables_app", "db", "init", str(db)], check=True, capture_output=True)

    def cli(*words: str) -> None:
        subprocess.run([*tables, *words], check=True, capture_output=True)

    for name, joining in (("Brawl", TABLE), ("Giants", GIANT)):
        cli("fight", "new", name)
        for side in "AB":
            for i in range(4):
                cli("fight", "join", name, "--as", f"{side}{i}", "--side", side, *joining)
    cli("fight", "new", "Probe")
    cli("fight", "join", "Probe", "--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--weapon",
        "Longsword", "--cmb", "60")
    cli("fight", "join", "Probe", "--creature", "Orc Warrior")
    return db


def worst_requests() -> list[str]:
    from tables_app.services.fight_odds import MAX_WORK

    most = MAX_WORK // (20 * 8 ** 2)
    found = []
    for name in ("Brawl", "Giants"):
        base = f"/api/v1/fights/{name}"
        found += [f"{base}/odds?exact=true&rounds=20", f"{base}/odds?certified=true&time=5&rounds=20",
                  f"{base}/odds?time=5&rounds=200", f"{base}/simulate?count={most}&rounds=20"]
    return found


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def one_run(db: Path, port: int, clients: int, duration: float, floods: int) -> dict[str, object]:
    server = subprocess.Popen([sys.executable, "-m", "tables_app", "--db", str(db), "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/api/v1/health", timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)
    urllib.request.urlopen(base + "/api/v1/fights/Probe", timeout=5).read()  # warm
    before = rss_mb(server.pid)
    statuses: Counter[int] = Counter()
    errors: list[str] = []
    requests = worst_requests()
    latencies: dict[str, list[float]] = {"health": [], "fight show": []}
    peak = [before]
    afters = []
    for _ in range(floods):
        flood_once(port, server.pid, clients, duration, requests, statuses, errors, latencies, peak)
        time.sleep(3)
        afters.append(rss_mb(server.pid))
    server.terminate()
    server.wait(10)
    return {"statuses": dict(statuses), "errors": errors, "latencies": latencies, "rss": (before, peak[0], afters)}


def flood_once(port: int, pid: int, clients: int, duration: float, requests: list[str], statuses: Counter[int],
               errors: list[str], latencies: dict[str, list[float]], peak: list[float]) -> None:
    end = time.monotonic() + duration

    def flood(k: int) -> None:
        i = k
        while time.monotonic() < end:
            path = requests[i % len(requests)]
            i += 1
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            try:
                connection.request("GET", path)
                answer = connection.getresponse()
                body = answer.read()
                statuses[answer.status] += 1
                if answer.status not in (200, 422, 503):
                    errors.append(f"{answer.status} {path}: {body[:200]!r}")
            except OSError as exc:
                errors.append(f"{path}: {exc}")
            finally:
                connection.close()

    def probe() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while time.monotonic() < end:
            for name, path in (("health", "/api/v1/health"), ("fight show", "/api/v1/fights/Probe")):
                started = time.perf_counter()
                connection.request("GET", path)
                answer = connection.getresponse()
                answer.read()
                latencies[name].append(time.perf_counter() - started)
                if answer.status != 200:
                    errors.append(f"{name}: {answer.status}")
            peak[0] = max(peak[0], rss_mb(pid))
            time.sleep(0.05)
        connection.close()

    threads = [threading.Thread(target=flood, args=(k,)) for k in range(clients)] + [threading.Thread(target=probe)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floods", type=int, default=2, help="floods a server takes, one after the other")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = setup(Path(folder))
        p99s: dict[str, list[float]] = {"health": [], "fight show": []}
        for run in range(args.runs):
            found = one_run(db, args.port + run, args.clients, args.duration, args.floods)
            lat = found["latencies"]
            assert isinstance(lat, dict)
            before, peak, afters = found["rss"]  # type: ignore[misc]
            print(f"run {run + 1}: answers {found['statuses']}; server RSS {before:.0f} MB before, "
                  f"{peak:.0f} MB at its peak, " + ", ".join(f"{a:.0f}" for a in afters) + " MB 3 s after each flood")
            for name, values in lat.items():
                p99s[name].append(percentile(values, 0.99))
                print(f"  {name:10} {len(values):5} asked: p50 {statistics.median(values) * 1000:6.1f} ms, "
                      f"p99 {percentile(values, 0.99) * 1000:6.1f} ms, max {max(values) * 1000:6.1f} ms")
            for error in found["errors"][:10]:  # type: ignore[index]
                print("  error:", error)
        print("median p99 over the runs: " + ", ".join(
            f"{name} {statistics.median(values) * 1000:.1f} ms" for name, values in p99s.items()))


if __name__ == "__main__":
    main()
