"""The race of issue 43's "Done when": two `tables serve` processes over one database (a SQLite file, or a
PostgreSQL database), 4 HTTP writers (2 threads a server, each with its own connection) and 2 command-line
writers (a `tables` process a step), all on one fight, for SECONDS a run.

    pip install '.[serve,postgres]'
    python bench/fight_race_serve.py [--runs 20] [--seconds 20] [--kill-every 2] [--postgres SERVER_URL]

The HTTP writers attack (whoever's turn it is), play rounds (`auto`), undo and edit, each write sent with
`after` = the `seq` they last saw, as the page does: the answer of their last write, or after a refusal the
fight read again (GET). The command-line writers read the fight (`fight show --json`), then attack, play a
round or undo with `--after SEQ`. With --kill-every K, every K-th run kills the first server with SIGKILL
at a random moment of its middle half; its writers go on on the second server, and the writes it had in
flight are unknown (they may have landed or not).

After each run the fight must replay (`tables fight show` exit 0, `tables db check` clean, no traceback in
either server's log) and its log must be what the acknowledged writes (HTTP 200, exit 0) made, nothing
else: the writes are linearized (Wing & Gong: an order that keeps every write between its sending and its
answer) so that each append went after the event its `after` named and each undo took back the group on
top (the range it said), the state each answered being the state of the log so made; the log's groups
must then be those left, each with its content (its account and dice as the write answered them), and the
fight's version (every write bumps it) must count exactly the writes acknowledged (plus, at most, those
in flight at a kill). It also counts the writes accepted on a log their writer had not seen (an undo and
another write brought the log back to the number it read between its read and its write: `after` is a
number, not a version).

On PostgreSQL, SERVER_URL is a server whose user may create databases (as $TABLES_TEST_POSTGRES); each run
gets a database of its own, dropped after. One line a run, then a summary; exit 1 if any run broke.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FIGHT = "Race"
MEMBERS = [("Hero", "A"), ("Ally", "A"), ("Orc", "B"), ("Troll", "B")]
API = "/api/v1"
FIGHT_PATH = f"{API}/fights/{urllib.parse.quote(FIGHT)}"
TABLES = [sys.executable, "-m", "tables_app"]


@dataclass
class Write:
    writer: str
    kind: str  # attack, round, undo, edit
    after: int
    read: dict[str, Any]  # the fight as the writer last saw it
    sent: float
    answered: float = float("inf")  # inf: no answer (it may have landed or not)
    status: str = "lost"
    answer: dict[str, Any] | None = None

    @property
    def acknowledged(self) -> bool:
        return self.status in ("http 200", "cli exit 0")

    @property
    def unknown(self) -> bool:  # neither acknowledged nor refused: it may have landed
        return not self.acknowledged and self.status not in ("http 409", "http 422", "cli changed", "cli refused")


@dataclass
class Record:
    lock: threading.Lock = field(default_factory=threading.Lock)
    writes: list[Write] = field(default_factory=list)

    def add(self, write: Write) -> None:
        with self.lock:
            self.writes.append(write)


def state_key(state: dict[str, Any] | None) -> str | None:
    """The fight's state as an undo restores it: its JSON without the log's version (every write bumps it)."""
    return None if state is None else json.dumps({k: v for k, v in state.items() if k != "version"}, sort_keys=True)


def choose(state: dict[str, Any], rng: random.Random, edits: bool) -> tuple[str, dict[str, Any]]:
    """The next step on the fight as last seen: an undo now and then (always past 60 events, or once it is
    over), an edit by hand (HTTP only), an attack by whoever's turn it is, else the round (auto)."""
    if state["seq"] > 60 or state["over"] or (state["seq"] > 4 and rng.random() < 0.3):
        return "undo", {}
    if edits and rng.random() < 0.15:
        return "edit", {"combatant": rng.choice([c["name"] for c in state["combatants"]]),
                        "taken": rng.randrange(0, 60)}
    turn = state.get("turn")
    sides = {c["name"]: c["side"] for c in state["combatants"]}
    foes = [c["name"] for c in state["combatants"] if turn and c["status"] == "up" and c["side"] != sides.get(turn)]
    if turn and foes and rng.random() < 0.5:
        return "attack", {"attacker": turn, "target": rng.choice(foes), "seed": rng.randrange(10**9)}
    return "round", {"auto": True, "seed": rng.randrange(10**9)}


# ------------------------------------------------------------------ servers and writers
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, location: str, folder: Path, index: int):
        self.port = free_port()
        self.log = folder / f"server{index}.log"
        with self.log.open("wb") as out:
            self.process = subprocess.Popen([*TABLES, "--db", location, "serve", "--port", str(self.port)],
                                            stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the server stopped (exit {self.process.returncode}):\n{self.log.read_text()}")
            try:
                status, _ = Client(self.port).request("GET", f"{API}/health")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit(f"no answer from /health in 60 s:\n{self.log.read_text()}")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.alive:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Client:
    def __init__(self, port: int):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            self.connection.request(method, path, None if body is None else json.dumps(body), headers)
            response = self.connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        except (OSError, http.client.HTTPException):
            self.connection.close()
            raise


SEND_VERSION = False  # --send-version: each write sends the fight's version it saw too (as the page does)
ROUTES = {"attack": "/attacks", "round": "/rounds", "undo": "/undo", "edit": "/edits"}


def http_writer(servers: list[Server], home: int, record: Record, until: float, seed: int, name: str) -> None:
    rng = random.Random(seed)
    client, state = Client(servers[home].port), None
    while time.monotonic() < until:
        try:
            if state is None:
                status, state = client.request("GET", FIGHT_PATH)
                if status != 200:
                    raise SystemExit(f"{name}: GET the fight answered {status}: {state}")
            kind, body = choose(state, rng, edits=True)
            write = Write(name, kind, state["seq"], state, time.monotonic())
            try:
                seen = {"after": state["seq"], **({"version": state["version"]} if SEND_VERSION else {})}
                status, answer = client.request("POST", FIGHT_PATH + ROUTES[kind], {**body, **seen})
            finally:
                record.add(write)
            write.answered, write.status, write.answer = time.monotonic(), f"http {status}", answer
            state = answer["fight"] if status == 200 else None  # the page: its next write after this answer
        except (OSError, http.client.HTTPException):
            state = None
            if not servers[home].alive:  # killed: its writers go on on the other one
                home = 1 - home
            client = Client(servers[home].port)


def cli_writer(location: str, record: Record, until: float, seed: int, name: str) -> None:
    rng = random.Random(seed)
    base = [*TABLES, "--db", location, "fight"]
    while time.monotonic() < until:
        shown = subprocess.run([*base, "show", FIGHT, "--json"], capture_output=True, text=True)
        if shown.returncode != 0:
            raise SystemExit(f"{name}: fight show: {shown.stderr.strip()}")
        state = json.loads(shown.stdout)
        kind, body = choose(state, rng, edits=False)
        args = [*((body["attacker"], body["target"]) if kind == "attack" else ()),
                *(("--auto",) if kind == "round" else ()),
                *(("--seed", str(body["seed"])) if "seed" in body else ())]
        write = Write(name, kind, state["seq"], state, time.monotonic())
        version = ("--version", str(state["version"])) if SEND_VERSION else ()
        done = subprocess.run([*base, kind, FIGHT, *args, "--after", str(state["seq"]), *version, "--json"],
                              capture_output=True, text=True)
        write.answered = time.monotonic()
        if done.returncode == 0:
            write.status, write.answer = "cli exit 0", json.loads(done.stdout)
        elif done.returncode == 1 and "changed" in done.stderr:
            write.status = "cli changed"
        elif done.returncode == 1 and "Traceback" not in done.stderr:
            write.status = "cli refused"
        else:
            write.status = f"cli exit {done.returncode}: {done.stderr.strip()[-200:]}"
        record.add(write)


# ------------------------------------------------------------------ the check
@dataclass(frozen=True)
class Op:
    write: Write
    first: int  # the events it appended or took back (0: an unknown undo's, whichever were on top)
    last: tuple[int, ...]  # its last event (an unknown append: each its log allows)
    state: str | None  # the fight it answered (None: unknown)


UNDONE = re.compile(r"^Undone: .*\((?:event (\d+)|events (\d+) to (\d+))\)")


def ops_of(writes: list[Write], groups: list[tuple[int, int]], problems: list[str]) -> list[Op]:
    undone: list[tuple[int, int]] = []
    ops = []
    for w in writes:
        if w.acknowledged and w.kind == "undo":
            assert w.answer is not None
            said = UNDONE.match(w.answer["account"][0])
            first = w.answer["fight"]["seq"] + 1
            span = (int(said[1]), int(said[1])) if said and said[1] else (int(said[2]), int(said[3])) if said else None
            if span != (first, w.after):
                problems.append(f"{w.writer}'s undo after {w.after} answered seq {first - 1} but said {w.answer['account'][0]!r}")
            undone.append((first, w.after))
    for w in writes:
        if w.acknowledged:
            assert w.answer is not None
            seq = w.answer["fight"]["seq"]
            ops.append(Op(w, w.after + 1 if w.kind != "undo" else seq + 1, (seq if w.kind != "undo" else w.after,),
                          state_key(w.answer["fight"])))
        elif w.unknown:
            spans = sorted({last for first, last in [*groups, *undone] if first == w.after + 1})
            if w.kind == "undo":  # whichever group was on top
                ops.append(Op(w, 0, (w.after,), None))
            else:
                ops.append(Op(w, w.after + 1, tuple(spans), None))
    return ops


def same_content(op: Op, events: list[dict[str, Any]]) -> bool:
    """The group of the log is what the write answered: its account (the log's words less the line of dice
    and rows under an attack's first) and each attack's dice."""
    answer = op.write.answer
    assert answer is not None
    attacks = answer.get("attacks") or ([answer["attack"]] if "attack" in answer else [])
    words = [line for e in events
             for n, line in enumerate(e["words"]) if not (e["kind"] == "attack" and n == 1 and line.startswith("dice "))]
    return words == answer["account"] and [e["dice"] for e in events if e["kind"] == "attack"] == [a["dice"] for a in attacks]


def linearized(ops: list[Op], initial: str, log: list[dict[str, Any]], final: str) -> tuple[list[int] | None, int]:
    """An order of the writes in which each went between its sending and its answer, and each answered what
    the log so made says (see the module's text), ending at the log read back; and how many explorations."""
    groups = groups_of(log)
    joins = len(MEMBERS)
    by_first = {first: [e for e in log if first <= e["seq"] <= last] for first, last in groups}
    order = sorted(range(len(ops)), key=lambda i: ops[i].write.sent)
    acknowledged = sum(1 << i for i in range(len(ops)) if ops[i].write.acknowledged)
    start: tuple[tuple[int, int, int, str | None], ...] = ((-1, 1, joins, initial),)  # (op, first, last, state)
    seen: set[tuple[int, tuple[Any, ...]]] = set()
    explored = 0

    def ended(log_stack: tuple[tuple[int, int, int, str | None], ...]) -> bool:
        if [(first, last) for _, first, last, _ in log_stack[1:]] != [g for g in groups if g[0] > joins]:
            return False
        if log_stack[-1][3] is not None and log_stack[-1][3] != final:
            return False
        return all(i < 0 or not ops[i].write.acknowledged or same_content(ops[i], by_first[first])
                   for i, first, _, _ in log_stack)

    frames: list[tuple[int, tuple[tuple[int, int, int, str | None], ...], list[int]]] = [(0, start, [])]
    while frames:
        done, log_stack, path = frames.pop()
        if (done, log_stack) in seen:
            continue
        seen.add((done, log_stack))
        explored += 1
        if done & acknowledged == acknowledged and ended(log_stack):
            return path, explored
        pending = [i for i in order if not done >> i & 1]
        horizon = min((ops[i].write.answered for i in pending), default=float("inf"))
        seq = log_stack[-1][2]
        below = log_stack[-2][3] if len(log_stack) > 1 else None
        moves = []
        for i in pending:
            op = ops[i]
            if op.write.sent > horizon:
                break
            if op.write.after != seq:
                continue
            if op.write.kind == "undo":
                if len(log_stack) > 1 and op.first in (0, log_stack[-1][1]) and (
                        op.state is None or below is None or op.state == below):
                    moves.append((i, log_stack[:-1]))
            else:
                moves += [(i, (*log_stack, (i, op.first, last, op.state))) for last in op.last]
        for i, after in sorted(moves, key=lambda m: ops[m[0]].write.acknowledged):  # the acknowledged tried first
            frames.append((done | 1 << i, after, [*path, i]))
    return None, explored


def groups_of(log: list[dict[str, Any]]) -> list[tuple[int, int]]:
    spans: dict[int, int] = {}
    for event in log:
        spans[event.get("group", event["seq"])] = event["seq"]
    return sorted(spans.items())


def stale(ops: list[Op], path: list[int], initial: str) -> int:
    """Writes acknowledged on a log other than the one their writer had read (same number of events)."""
    log_stack: list[str | None] = [initial]
    count = 0
    for i in path:
        op = ops[i]
        if op.write.acknowledged and log_stack[-1] is not None and state_key(op.write.read) != log_stack[-1]:
            count += 1
        if op.write.kind == "undo":
            log_stack.pop()
        else:
            log_stack.append(op.state)
    return count


def checked(location: str, record: Record, initial: str, folder: Path) -> tuple[list[str], dict[str, Any]]:
    from tables_app.services import fights
    from tables_app.services.database_setup import open_database
    from tables_app.storage import fights as store

    problems: list[str] = []
    shown = subprocess.run([*TABLES, "--db", location, "fight", "show", FIGHT, "--json"], capture_output=True, text=True)
    if shown.returncode != 0:
        return [f"fight show: exit {shown.returncode}: {shown.stderr.strip()[-300:]}"], {}
    check = subprocess.run([*TABLES, "--db", location, "db", "check", "--json"], capture_output=True, text=True)
    if check.returncode != 0:
        problems.append(f"db check: exit {check.returncode}: {check.stdout.strip()[-300:]} {check.stderr.strip()[-300:]}")
    problems += [f"{log.name}: a traceback" for log in folder.glob("server*.log") if "Traceback" in log.read_text()]
    database = open_database(location)
    try:
        log: list[dict[str, Any]] = []
        first: int | None = 1
        while first is not None:
            page = fights.log(database, FIGHT, first, 10_000).to_json()
            log += page["events"]
            first = page["next"]
        with database.snapshot() as connection:
            row = store.find(connection, FIGHT, 0)
            assert row is not None
            version = row.version
    finally:
        database.dispose()
    writes = sorted(record.writes, key=lambda w: w.sent)
    problems += [f"{w.writer}: {w.status}" for w in writes if w.status.startswith("cli exit") and w.status != "cli exit 0"]
    ops = ops_of(writes, groups_of(log), problems)
    acknowledged = sum(w.acknowledged for w in writes)
    unknown = sum(w.unknown for w in writes)
    if not acknowledged <= version - len(MEMBERS) <= acknowledged + unknown:
        problems.append(f"the fight's version counts {version - len(MEMBERS)} writes; {acknowledged} were acknowledged"
                        f" and {unknown} unknown")
    final = state_key(json.loads(shown.stdout))
    assert final is not None
    path, explored = linearized(ops, initial, log, final)
    if path is None:
        problems.append(f"no order of the {acknowledged} acknowledged writes (and {unknown} unknown) makes the log read"
                        f" back ({len(log)} events; {explored} orders explored)")
    landed = version - len(MEMBERS) - acknowledged
    return problems, {"events": len(log), "landed": landed, "stale": stale(ops, path, initial) if path else None,
                      "explored": explored}


# ------------------------------------------------------------------ a run
def prepared(location: str) -> str:
    from tables_app.services import fights
    from tables_app.services.database_setup import open_database

    database = open_database(location)
    try:
        fights.new(database, FIGHT)
        for name, side in MEMBERS:
            fights.join(database, FIGHT, fights.Joining(label=name, side=side, hits=300, defense=10, armor="MA",
                                                        weapon="Longsword", cmb=40))
        key = state_key(fights.show(database, FIGHT).to_json())
        assert key is not None
        return key
    finally:
        database.dispose()


def race(location: str, seconds: float, seed: int, kill: bool, folder: Path) -> tuple[Record, list[str], dict[str, Any]]:
    initial = prepared(location)
    servers = [Server(location, folder, i) for i in range(2)]
    record = Record()
    try:
        until = time.monotonic() + seconds
        threads = [threading.Thread(target=http_writer, args=(servers, i % 2, record, until, seed * 10 + i, f"http{i}"))
                   for i in range(4)]
        threads += [threading.Thread(target=cli_writer, args=(location, record, until, seed * 10 + 4 + i, f"cli{i}"))
                    for i in range(2)]
        for thread in threads:
            thread.start()
        if kill:
            time.sleep(random.Random(seed).uniform(seconds / 4, 3 * seconds / 4))
            servers[0].process.send_signal(signal.SIGKILL)
            servers[0].process.wait()
        for thread in threads:
            thread.join()
    finally:
        for server in servers:
            server.stop()
    problems, figures = checked(location, record, initial, folder)
    if problems:
        (folder / "initial.json").write_text(initial)
    return record, problems, figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--kill-every", type=int, default=2, metavar="K", help="kill a server in every K-th run (0: never)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", metavar="SERVER_URL")
    parser.add_argument("--send-version", action="store_true",
                        help="each write sends the version it saw too (as the page does), not only `after`")
    options = parser.parse_args()
    global SEND_VERSION
    SEND_VERSION = options.send_version
    sys.setrecursionlimit(10_000)
    from tables_app.services.database_setup import init_database

    folder = Path(tempfile.mkdtemp(prefix="fight_race_serve_"))
    template = folder / "template.db"
    if not options.postgres:
        init_database(str(template)).dispose()
    sound, acknowledged, statuses = 0, [], Counter[str]()
    for run in range(1, options.runs + 1):
        kill = options.kill_every > 0 and run % options.kill_every == 0
        here = folder / f"run{run}"
        here.mkdir()
        if options.postgres:
            import psycopg

            name = f"fight_race_serve_{os.getpid()}_{run}"
            with psycopg.connect(options.postgres, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            location = options.postgres.rsplit("/", 1)[0] + "/" + name
            init_database(location).dispose()
        else:
            location = str(here / "race.db")
            shutil.copyfile(template, location)
        record, problems, figures = race(location, options.seconds, options.seed * 1000 + run, kill, here)
        kinds = Counter(f"{w.kind} {w.status}" for w in record.writes)
        run_statuses = Counter(w.status.split(":")[0] for w in record.writes)
        statuses += run_statuses
        acknowledged.append(sum(w.acknowledged for w in record.writes))
        sound += not problems
        print(f"run {run}{' (a server killed)' if kill else ''}: {acknowledged[-1]} writes acknowledged "
              f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}); log {figures.get('events')} events, "
              f"unknown writes landed {figures.get('landed')}, accepted on a log not seen {figures.get('stale')}; "
              + ("sound" if not problems else f"BROKEN: {problems[:3]}"), flush=True)
        if options.postgres:
            with psycopg.connect(options.postgres, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        if not problems:
            shutil.rmtree(here)
        else:  # what the check read, to look at (the database stays beside it, SQLite)
            (here / "writes.json").write_text(json.dumps([w.__dict__ for w in record.writes], default=str))
    print(f"{sound} of {options.runs} runs sound; writes acknowledged a run: min {min(acknowledged)}, "
          f"median {statistics.median(acknowledged):g}, max {max(acknowledged)}; statuses over all runs: "
          + ", ".join(f"{k} {n}" for k, n in sorted(statuses.items())))
    sys.exit(0 if sound == options.runs else 1)


if __name__ == "__main__":
    main()
