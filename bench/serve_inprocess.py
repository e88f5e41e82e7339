"""A served resolve's CPU in-process (issue #44): the app of `tables serve`
called directly as ASGI, no sockets, against the peer of serve_load.py (the
same FastAPI stack answering a canned answer) called the same way.

    python bench/serve_inprocess.py                       # 7 interleaved pairs of 3,000 resolves
    python bench/serve_inprocess.py --old /path/to/old/checkout --pairs 9

serve_load.py measures whole servers, whose CPU per request includes
uvicorn's protocol and the system calls (alike for both) and which share
the cores with the load generator; here each process runs the event loop
and the app only, so what differs is the app. Each sample is its own
process (`--child`): it makes the app over a database with the bundled
tables, answers 50 requests to warm up, then times the CPU of N resolves
(many attackers: other weapons, CMBs, DEFs, armor and dice each time, as
serve_load.py's "resolve (many attackers)"). With ``--old DIR``, the code
of DIR (a checkout, put first on PYTHONPATH) is a third process in each
round: before and after in the same run. Medians of the rounds, ranges,
and the ratios pair by pair.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PATH = "/api/v1/resolve/table"
WEAPONS = ["Longsword", "Dagger", "Mace", "Shortbow", "Spear", "Morning Star", "Warhammer"]
ARMORS = ["NA", "LA", "MA", "HA"]


def bodies(count: int = 512) -> list[bytes]:
    draw = random.Random(18)
    return [json.dumps({"weapon": draw.choice(WEAPONS), "cmb": draw.randrange(0, 150, 5), "def": draw.randrange(0, 60, 5),
                        "armor": draw.choice(ARMORS), "dice": [draw.randint(1, 100) for _ in range(8)]}).encode()
            for _ in range(count)]


async def call(app: Any, body: bytes, sent: list[dict]) -> None:
    """One request as uvicorn hands it over (the headers serve_load.py sends)."""
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": PATH, "raw_path": PATH.encode(), "query_string": b"",
             "root_path": "", "headers": [(b"host", b"127.0.0.1"), (b"connection", b"keep-alive"),
                                          (b"content-type", b"application/json"),
                                          (b"content-length", str(len(body)).encode())],
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {}}
    given = False

    async def receive() -> dict:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # no disconnect while the answer is made
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)


def child(kind: str, db: str, requests: int, answer: Path) -> None:
    if kind == "peer":
        sys.path.insert(0, str(Path(__file__).parent))
        import serve_peer

        canned = answer.read_text()
        app = serve_peer.create({"query": canned, "resolve": canned})
        gc.collect()
        gc.freeze()  # as serve_peer.py's main
    else:
        from tables_app.http.app import create_app, freeze_long_lived

        app = create_app(db)
        freeze_long_lived()
    sent_bodies = bodies()

    async def run() -> tuple[float, bytes]:
        sent: list[dict] = []
        for body in sent_bodies[:50]:
            await call(app, body, sent)
        statuses = {m["status"] for m in sent if m["type"] == "http.response.start"}
        assert statuses == {200}, (statuses, sent[:2])
        first = next(m["body"] for m in sent if m["type"] == "http.response.body")
        sent.clear()
        start = time.process_time()
        for i in range(requests):
            await call(app, sent_bodies[i % len(sent_bodies)], sent)
            sent.clear()
        return (time.process_time() - start) / requests, first

    import uvloop

    cpu, first = uvloop.run(run())
    if kind != "peer" and not answer.exists():  # the answer the peer's processes give
        answer.write_bytes(first)
    print(json.dumps({"cpu_per_request_us": 1e6 * cpu}))


def sample(kind: str, db: Path, requests: int, answer: Path, old: Path | None = None) -> float:
    env = dict(os.environ)
    if old is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(old), *filter(None, [env.get("PYTHONPATH")])])
    out = subprocess.run([sys.executable, __file__, "--child", kind, "--db", str(db), "--requests", str(requests),
                          "--answer", str(answer)], env=env, capture_output=True, text=True, check=True,
                         cwd=tempfile.gettempdir())  # not the checkout: `python -m`'s cwd would shadow --old
    return float(json.loads(out.stdout)["cpu_per_request_us"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument("--requests", type=int, default=3000, help="resolves timed per process (default 3000)")
    parser.add_argument("--old", type=Path, help="a checkout of the code of before, timed in each round too")
    parser.add_argument("--child", choices=("app", "peer"), help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--answer", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.db, args.requests, args.answer)
        return
    with tempfile.TemporaryDirectory() as folder:
        db, answer = Path(folder) / "tables.db", Path(folder) / "answer.json"
        subprocess.run([sys.executable, "-m", "tables_app", "--db", str(db), "db", "init"], check=True, capture_output=True,
                       cwd=folder)
        kinds = ["app", "peer", *(["old"] if args.old else [])]
        got: dict[str, list[float]] = {kind: [] for kind in kinds}
        print(f"{args.pairs} rounds of {args.requests} resolves per process; µs of CPU per request")
        for round_ in range(1, args.pairs + 1):
            for kind in kinds:
                got[kind].append(sample("app" if kind == "old" else kind, db, args.requests, answer,
                                        args.old if kind == "old" else None))
            print(f"round {round_}: " + ", ".join(f"{kind} {got[kind][-1]:.1f}" for kind in kinds), flush=True)
    for kind in kinds:
        print(f"{kind:5} median {statistics.median(got[kind]):7.1f} µs  [{min(got[kind]):.1f}-{max(got[kind]):.1f}]")

    def ratio(a: str, b: str) -> None:
        pairs = [x / y for x, y in zip(got[a], got[b])]
        print(f"{a} / {b}: median of pairs {statistics.median(pairs):.2f} [{min(pairs):.2f}-{max(pairs):.2f}]")

    ratio("app", "peer")
    if args.old:
        ratio("old", "peer")
        ratio("app", "old")


if __name__ == "__main__":
    main()
