"""Issue 43, item 2: every bound of the chances of a fight counts the work it bounds, and a heavy request costs the
server no more than its answer. A formula damage with gaps (rise, `damage=1d2, multiplier=100`: 100 to 3,600 hits,
by 100) spreads few states over a wide box: refused by its cells before the box is made, one line or the error
object (not a MemoryError and a 500); the automatic answer estimates instead. A count of fights is bounded by
fights × rounds × combatants². The server ends within a second of Ctrl-C, and a heavy request's work stops soon
after its client has gone, whatever it was working out."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import LOCAL_BASE, serving

from tables_app.domain.fights.odds import MAX_CELLS
from tables_app.http.app import create_app
from tables_app.services.fight_odds import MAX_WORK

GIANT = ("--hits", "100000", "--system", "rise", "--option", "accuracy=0", "--option", "damage=1d2",
         "--option", "multiplier=100")


@pytest.fixture
def gapped(run):  # type: ignore[no-untyped-def]
    """Giants: two combatants of 100,000 hits whose rise attacks deal 100 to 3,600 hits, by 100."""
    run("fight", "new", "Giants")
    run("fight", "join", "Giants", "--as", "A", *GIANT)
    run("fight", "join", "Giants", "--as", "B", "--side", "B", *GIANT)


@pytest.fixture
def brawl(run):  # type: ignore[no-untyped-def]
    """Brawl: four against four on the tables, 100,000 hits each (no fight ends: every round is played)."""
    run("fight", "new", "Brawl")
    for side in "AB":
        for i in range(4):
            run("fight", "join", "Brawl", "--as", f"{side}{i}", "--side", side, "--hits", "100000", "--def", "0",
                "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")


@pytest.fixture
def client(db_path: Path):  # type: ignore[no-untyped-def]
    with TestClient(create_app(db_path), base_url=LOCAL_BASE) as test_client:
        yield test_client


def test_exact_odds_past_the_cells_are_refused_with_the_error_object(gapped, client):  # type: ignore[no-untyped-def]
    for rounds in (1, 4):  # rounds=4 was a MemoryError and a 500 (9.7 GiB asked at multiplier 2)
        started = time.monotonic()
        answer = client.get("/api/v1/fights/Giants/odds", params={"exact": True, "rounds": rounds})
        assert time.monotonic() - started < 10  # a hang guard: refused before the work, not after it
        assert answer.status_code == 422
        message = answer.json()["error"]["message"]
        assert message.startswith("the fight 'Giants' is too large to work out exactly: its states spread over more "
                                  f"than {MAX_CELLS:,} cells (12,967,201 by round 1)")
        assert "\n" not in message


def test_the_automatic_answer_estimates_past_the_cells(gapped, client):  # type: ignore[no-untyped-def]
    answer = client.get("/api/v1/fights/Giants/odds", params={"rounds": 3}).json()
    assert answer["method"] == "estimated"
    assert answer["why"].startswith("not exact: its states spread over more than 1,000,000 cells (")


def test_exact_odds_past_the_cells_are_one_line_on_the_command_line(gapped, run):  # type: ignore[no-untyped-def]
    result: Any = run("odds", "fight", "Giants", "--exact", "--rounds", "4")
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: the fight 'Giants' is too large to work out exactly")
    assert "Traceback" not in result.output


def test_a_count_is_bounded_by_its_fights_rounds_and_combatants(brawl, client, run):  # type: ignore[no-untyped-def]
    most = MAX_WORK // (20 * 8 ** 2)  # 62,500 fights of 20 rounds for 8 combatants
    answer = client.get("/api/v1/fights/Brawl/simulate", params={"count": most + 1, "rounds": 20})
    assert answer.status_code == 422
    assert answer.json()["error"]["message"] == (
        f"{most + 1:,} fights of 'Brawl' are too many to play: at most {most:,} fights of 20 rounds for its 8 "
        f"combatants (fights × rounds × combatants² at most {MAX_WORK:,}, a few seconds' work); ask for a smaller "
        "count or fewer rounds")
    result: Any = run("simulate", "fight", "Brawl", "--count", "1000000", "--rounds", "200")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: 1,000,000 fights of 'Brawl' are too many to play: at most {MAX_WORK // (200 * 64):,} fights of 200 "
        f"rounds for its 8 combatants (fights × rounds × combatants² at most {MAX_WORK:,}, a few seconds' work); "
        "ask for a smaller count or fewer rounds"]
    odds: Any = run("odds", "fight", "Brawl", "--count", str(most + 1))  # the same bound on --count
    assert odds.exit_code == 1 and "are too many to play: at most 62,500 fights of 20 rounds" in odds.output
    assert run("simulate", "fight", "Brawl", "--count", "50", "--rounds", "20").exit_code == 0  # type: ignore[attr-defined]


def _cpu_seconds(pid: int) -> float:
    """The process's user and system time so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _ask_and_leave(base: str, path: str) -> socket.socket:
    """A GET sent on a connection of its own, left open (close it to leave)."""
    host, port = base.removeprefix("http://").split(":")
    connection = socket.create_connection((host, int(port)))
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    return connection


HEAVY = ("/api/v1/fights/Brawl/simulate?count=62500&rounds=20",  # seconds of numpy
         "/api/v1/fights/Brawl/odds?exact=true&rounds=3")  # seconds of exact odds before their refusal


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the server's CPU time in /proc")
def test_the_work_stops_when_the_client_leaves(brawl, db_path):  # type: ignore[no-untyped-def]
    with serving(db_path) as (base, process):
        for path in HEAVY:
            connection = _ask_and_leave(base, path)
            time.sleep(1.0)  # under way
            connection.close()
            time.sleep(1.5)  # noticed within POLL_SECONDS, stopped at the next attack or condition worked out
            before = _cpu_seconds(process.pid)
            time.sleep(2.0)
            assert _cpu_seconds(process.pid) - before < 0.5, path  # idle: the work stopped (it had seconds to go)


@pytest.mark.slow
def test_ctrl_c_ends_the_server_within_a_second_with_heavy_work_under_way(brawl, db_path):  # type: ignore[no-untyped-def]
    with serving(db_path) as (base, process):
        connections = [_ask_and_leave(base, HEAVY[k % 2]) for k in range(16)]  # 2 worked out, 14 waiting their turn
        time.sleep(1.0)
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        took = time.monotonic() - started
        for connection in connections:
            connection.close()
    assert process.returncode == 0
    assert took < 2.0  # a hang guard: about 0.7 s here (uvicorn waited 6-30 s for the work before)
    output = process.stdout.read()
    assert "Traceback" not in output and "Finished server process" in output
