"""A fuzzer of the fight commands (docs/fights.md), as tests/cli/test_cli_fuzz.py
is of the rest: random `tables fight ...` invocations, with valid and
invalid values (huge and negative numbers, names of 10,000 characters or
with control characters, a fight named like a path, unknown combatants,
--dice of none or 1,000 dice, --after and --at beyond the log), one after
another on one fight that they move on (attacks, rounds, undos, edits), so
that they also meet a fight that is over, a dead combatant, an empty log.

Every run must end as the CLI promises: exit 0, 1 or 2, no traceback; a
refusal prints exactly one `Error:` line and writes nothing (the fights
and their logs are as before). Derandomized; TABLES_FUZZ_EXAMPLES=N runs
more, TABLES_FUZZ_SEED=N others. `test_fight_fuzz` runs on PostgreSQL too
(`pytest --postgres`: the fights, their logs and the parties compared as rows
of either database, tests/fight_tables.py); a long run, with a summary of the
exit codes and the slowest invocation (docs/security.md, "Fuzzing"):

    TABLES_FUZZ_EXAMPLES=1000 TABLES_FUZZ_SEED=N pytest -q -s -n 0 --timeout=0 -p no:cacheprovider \
        tests/cli/test_fight_fuzz.py -k test_fight_fuzz [--postgres]
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from fight_tables import fight_rows
from tables_app.cli.root import cli

EXAMPLES = int(os.environ.get("TABLES_FUZZ_EXAMPLES", "120"))
SEED = int(os.environ.get("TABLES_FUZZ_SEED", "0"))
FIGHT = "Brawl"
LONG = "x" * 10_000
WEIRD = ["", " ", "\t", "é", "🎲", "\x07bell", "a\x1b[31mred", "nul\x00l", LONG, "../../etc/passwd", "/tmp/x", "*", "'", "%s",
         "--json", "-1"]
NUMBERS = ["0", "1", "-1", "5", "60", "100000", "100001", "99999999999999999999", "-99999999999999999999", "1e3", "nan",
           "", "0x10", "1" + "0" * 400]
DICE = ["50", "80,95", "1,95", "100,100,100", "0", "-5", "101", "", ",,,", "5.5", "a,b", "99999999999999999999",
        ",".join(["50"] * 1000), ",".join(["97"] * 40), "1" * 500]


def mostly(valid, invalid):  # type: ignore[no-untyped-def]
    return st.integers(0, 9).flatmap(lambda k: valid if k > 2 else invalid)


names = mostly(st.sampled_from([FIGHT, FIGHT.lower()]), st.sampled_from(["Nope", *WEIRD]))
who = mostly(st.sampled_from(["Hero", "Orc", "Goblin", "orc"]), st.sampled_from(["Nobody", *WEIRD]))
number = mostly(st.integers(-5, 70).map(str), st.sampled_from(NUMBERS))
dice = st.sampled_from(DICE)


def opt(option: str, values, chance: int = 5):  # type: ignore[no-untyped-def]
    return st.integers(0, 9).flatmap(lambda k: values.map(lambda v: [option, v]) if k < chance else st.just([]))


def seq(*parts):  # type: ignore[no-untyped-def]
    return st.tuples(*parts).map(lambda lists: [a for part in lists for a in part])


after = opt("--after", number, 2)
fighting = st.one_of(
    st.builds(lambda pair, s: ["fight", "attack", FIGHT, *pair, "--seed", s],  # the attacks the fight is made of
              st.sampled_from([("Hero", "Orc"), ("Hero", "Goblin"), ("Orc", "Hero"), ("Goblin", "Hero")]),
              st.integers(0, 10**6).map(str)),
    st.builds(lambda auto, s: ["fight", "round", FIGHT, *(["--auto", "--seed", s] if auto else [])], st.booleans(),
              st.integers(0, 10**6).map(str)),
    st.builds(lambda c: ["fight", "edit", FIGHT, c, "--status", "up", "--taken", "0", "--dying", "0", "--stun", "0",
                         "--no-parry", "0"],  # healed and able: the fight goes on (not all stunned for 30 rounds)
              st.sampled_from(["Hero", "Orc", "Goblin"])),
)
any_command = st.one_of(
    st.builds(lambda n, rest: ["fight", "new", n, *rest], mostly(st.sampled_from(["Other", FIGHT]), st.sampled_from(WEIRD)),
              opt("--ruleset", st.sampled_from(["default", "nope", ""]), 2)),
    st.builds(lambda n, rest: ["fight", "join", n, *rest], names, seq(
        st.one_of(seq(opt("--creature", st.sampled_from(["Orc Warrior", "Bandit", "Nope", LONG]), 9),
                      opt("--weapon", st.sampled_from(["Scimitar", "Dagger"]), 7), opt("--cmb", number, 7)),
                  seq(opt("--as", st.sampled_from(["Troll", "Hero", "Orc Warrior #1", *WEIRD]), 9), opt("--hits", number, 9),
                      opt("--armor", st.sampled_from(["MA", "LA", "XX", ""]), 9), opt("--weapon", st.sampled_from(["Dagger", "Nope"]), 9),
                      opt("--cmb", number, 9), opt("--def", number))),
        opt("--side", st.sampled_from(["A", "B", "C", *WEIRD]), 3), opt("--parry", number, 2), opt("--initiative", number, 2),
        opt("--rank", st.sampled_from(["heroic", "epic", "demigod"]), 1), opt("--has", st.sampled_from(["helm", "\x01"]), 1),
        after)),
    st.builds(lambda n, a, t, rest: ["fight", "attack", n, a, t, *rest], names, who, who,
              seq(st.one_of(opt("--dice", dice, 8), opt("--seed", mostly(st.integers(0, 10**6).map(str), st.sampled_from(NUMBERS)), 9),
                            opt("--seed", st.integers(0, 10**6).map(str), 9)), opt("--mod", st.sampled_from(["+10", "flank=+5", "x", "=3", "999"]), 2),
                  opt("--attack", st.sampled_from(["Longsword", "Nope", ""]), 1), after)),
    st.builds(lambda n, rest: ["fight", "round", n, *rest], names,
              seq(st.sampled_from([[], ["--auto"], ["--auto"]]), st.one_of(opt("--dice", dice, 3), opt("--seed", number, 5)), after)),
    st.builds(lambda n, rest: ["fight", "show", n, *rest], names, opt("--at", number, 3)),
    st.builds(lambda n: ["fight", "log", n], names),
    st.builds(lambda n, rest: ["fight", "undo", n, *rest], names, after),
    st.just(["fight", "list"]),
    st.builds(lambda n: ["fight", "remove", n], st.sampled_from(["Other", "Nope", *WEIRD])),
    st.builds(lambda n, c, rest: ["fight", "edit", n, c, *rest], names, who, seq(
        *(opt(f"--{field}", number, 2) for field in ("taken", "bleed", "stun", "no-parry", "must-parry", "penalty", "bonus", "dying")),
        opt("--status", st.sampled_from(["up", "up", "up", "down", "dead", "alive"]), 4),
        opt("--def", number, 2), opt("--parry", number, 2), opt("--cmb", number, 2),
        opt("--wield", st.sampled_from(["Dagger", "Longsword", "Nope", ""]), 2), after)),
    st.builds(lambda n, c, rest: ["fight", "adjust", n, c, *rest], names, who, seq(  # the GM's moves
        *(opt(f"--{field}", number, 3) for field in ("heal", "damage", "bleed", "stun", "no-parry", "must-parry",
                                                       "penalty", "bonus", "dying")), after)),
    st.builds(lambda verb, n, c, hits, rest: ["fight", verb, n, c, hits, *rest], st.sampled_from(["heal", "damage"]),
              names, who, number, after),
    st.builds(lambda n, c, rest: ["fight", "leave", n, c, *rest], names, st.sampled_from(["Goblin", "goblin", "Nobody", *WEIRD]),
              after),
    st.builds(lambda c: ["fight", "join", FIGHT, "--as", c, "--side", "B", "--hits", "20", "--armor", "LA"],  # reinforcements
              st.sampled_from(["Door", "Wolf #1", "Hero"])),
)
# A third of the time, the moves that keep the fight going (attacks, rounds, healing): without them, it soon
# has everyone stunned for 30 rounds, and no attack is taken
commands = st.sampled_from(["fighting", "any", "any"]).flatmap(lambda k: fighting if k == "fighting" else any_command)
invocations = st.tuples(commands, st.sampled_from([[], ["--json"]])).map(lambda parts: parts[0] + parts[1])


def stored(db: Path) -> list[tuple]:
    """Every fight, every event of their logs and every party, as the database (SQLite or PostgreSQL) holds them."""
    return fight_rows(db)


SLOWEST = 10.0  # seconds an invocation may take: past it, a hang (docs/security.md)


SETUP = (["fight", "new", FIGHT],
         ["fight", "join", FIGHT, "--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--parry", "10",
          "--weapon", "Longsword", "--cmb", "60"],
         ["fight", "join", FIGHT, "--as", "Orc", "--side", "B", "--hits", "60", "--def", "20", "--armor", "MA",
          "--weapon", "Scimitar", "--cmb", "55"],
         ["fight", "join", FIGHT, "--as", "Goblin", "--side", "B", "--hits", "20", "--armor", "LA",
          "--weapon", "Dagger", "--cmb", "20"],
         ["fight", "party", "save", "Band", "--from", FIGHT, "--only", "Hero"])  # a party, which no refusal may touch


@pytest.fixture
def brawl(db_path: Path) -> Path:
    """The test database (a SQLite file, or with --postgres a PostgreSQL database) holding the fight Brawl."""
    runner = CliRunner()
    for args in SETUP:
        made = runner.invoke(cli, ["--db", str(db_path), *args])
        assert made.exit_code == 0, (args, made.output)
    return db_path


def check(runner: CliRunner, db: Path, args: list[str], exits: Counter | None = None,
          times: list[float] | None = None) -> None:
    before = stored(db)
    started = time.monotonic()
    result = runner.invoke(cli, ["--db", str(db), *args], catch_exceptions=True)
    took = time.monotonic() - started
    if exits is not None:
        exits[(args[1], result.exit_code)] += 1
    if times is not None:
        times.append(took)
    assert took < SLOWEST, (args[:4], f"{took:.1f} s")
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output[-2000:])
    assert "Traceback" not in result.output, (args, result.output[-2000:])
    if result.exit_code:
        errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1, (args, result.stderr[-2000:])
        assert len(errors[0]) < 1_000, (args[:3], errors[0][:300])  # one line a reader takes in, not 10,000 characters
        assert stored(db) == before, args  # refused: nothing written


def test_fight_fuzz(brawl: Path) -> None:
    runner = CliRunner(env={"COLUMNS": "80"})
    exits: Counter = Counter()
    times: list[float] = []

    @seed(SEED)
    @settings(max_examples=EXAMPLES, derandomize=SEED == 0, database=None, deadline=timedelta(seconds=5),
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
    @given(invocations)
    def one(args: list[str]) -> None:
        check(runner, brawl, args, exits, times)

    one()
    assert any(code == 0 for _, code in exits) and any(code == 1 for _, code in exits)  # answers and refusals both
    if os.environ.get("TABLES_FUZZ_EXAMPLES"):
        by_code = Counter(code for (_, code), n in exits.items() for _ in range(n))
        print(f"\n{len(times)} fight invocations on {'PostgreSQL' if str(brawl).startswith('postgresql') else 'SQLite'}, "
              f"seed {SEED}: " + ", ".join(f"exit {code}: {n}" for code, n in sorted(by_code.items()))
              + f"; slowest {max(times):.2f} s, median {sorted(times)[len(times) // 2] * 1000:.0f} ms")
        print("by command: " + ", ".join(f"{c} {e}: {n}" for (c, e), n in sorted(exits.items())))


# The refusals the fuzzer met, each kept: (invocation, exit code, the start of its Error: line).
REFUSALS: list[tuple[list[str], int, str]] = [
    (["fight", "new", "a\x1b[31mred"], 2, "Error: a fight's name holds the control character U+001B"),
    (["fight", "join", FIGHT, "--as", "Gob\x07lin", "--side", "B", "--hits", "9", "--armor", "MA", "--weapon", "Dagger",
      "--cmb", "5"], 2, "Error: --as holds the control character U+0007"),
    (["fight", "new", LONG], 2, "Error: a fight's name is 10,000 characters, more than 200"),
    (["fight", "show", LONG], 1, "Error: no fight named 'xxxxxxxx"),
    (["fight", "attack", FIGHT, "Hero", LONG, "--dice", "50"], 1, "Error: no combatant named 'xxxxxxxx"),
    (["fight", "attack", FIGHT, "Hero", "Orc", "--dice", ",".join(["50"] * 1000)], 1,
     "Error: --dice: 998 of the given dice were not needed (50, 50, 50, 50, 50, 50, 50, 50, 50, 50, …)"),
    (["fight", "attack", FIGHT, "Hero", "Orc", "--dice", ""], 1, "Error: --dice gave 0 dice"),
    (["fight", "attack", FIGHT, "Hero", "Orc", "--dice", "0"], 1, "Error: die 1 of --dice is 0"),
    (["fight", "attack", FIGHT, "Hero", "Orc", "--after", "99"], 1,
     "Error: the fight 'Brawl' changed (its log is at event 2, not 99): show it again, then retry"),
    (["fight", "show", FIGHT, "--at", "99"], 2, "Error: --at 99: the fight 'Brawl' has events 0 to 2"),
    (["fight", "edit", FIGHT, "Nobody", "--stun", "1"], 1, "Error: no combatant named 'Nobody' in the fight"),
    (["fight", "edit", FIGHT, "Orc"], 2, "Error: give what to set"),
    (["fight", "edit", FIGHT, "Orc", "--taken", "99999999999999999999"], 2, "Error: Invalid value for '--taken'"),
    (["fight", "round", FIGHT, "--seed", "1"], 2, "Error: --dice and --seed roll the attacks of --auto: give --auto too"),
    (["fight", "remove", "../../etc/passwd"], 1, "Error: no fight named '../../etc/passwd'"),
    (["fight", "adjust", FIGHT, "Orc"], 2, "Error: give what to change, and by how much"),
    (["fight", "adjust", FIGHT, "Orc", "--bleed", "-100001"], 2, "Error: Invalid value for '--bleed'"),
    (["fight", "heal", FIGHT, LONG, "5"], 1, "Error: no combatant named 'xxxxxxxx"),
    (["fight", "damage", FIGHT, "Orc", "x"], 2, "Error: Invalid value for 'HITS'"),
    (["fight", "leave", FIGHT, "Nobody"], 1, "Error: no combatant named 'Nobody' in the fight"),
    (["fight", "edit", FIGHT, "Orc", "--wield", LONG], 1, "Error: no weapon named 'xxxxxxxx"),
    (["fight", "edit", FIGHT, "Orc", "--wield", "Mace"], 2, "Error: Orc has no attack 'Mace': give its CMB too"),
]


@pytest.mark.parametrize("args, exit_code, error", REFUSALS)
def test_fight_refusals(tmp_path: Path, bundled_db_template: Path, args: list[str], exit_code: int, error: str) -> None:
    db = tmp_path / "tables.db"
    shutil.copyfile(bundled_db_template, db)
    runner = CliRunner(env={"COLUMNS": "80"})
    for setup in (["fight", "new", FIGHT],
                  ["fight", "join", FIGHT, "--as", "Hero", "--hits", "50", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60"],
                  ["fight", "join", FIGHT, "--as", "Orc", "--side", "B", "--hits", "60", "--armor", "MA", "--weapon", "Scimitar",
                   "--cmb", "55"]):
        assert runner.invoke(cli, ["--db", str(db), *setup]).exit_code == 0
    check(runner, db, args)
    result = runner.invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == exit_code, (args[:4], result.output[-500:])
    assert [line for line in result.stderr.splitlines() if line.startswith("Error:")][0].startswith(error), result.stderr[-500:]


def test_a_whole_fight_to_its_end_then_attacks_and_rounds_are_refused(tmp_path: Path, bundled_db_template: Path) -> None:
    # docs/fights.md, "The end of the fight": "After that, an attack or a round's end is refused" (a join is
    # taken: reinforcements, tests/cli/test_fight_moves.py)
    db = tmp_path / "tables.db"
    shutil.copyfile(bundled_db_template, db)
    runner = CliRunner()

    def run(*args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(cli, ["--db", str(db), *args])

    run("fight", "new", FIGHT)
    run("fight", "join", FIGHT, "--as", "Hero", "--hits", "50", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
    run("fight", "join", FIGHT, "--as", "Orc", "--side", "B", "--hits", "60", "--armor", "MA", "--weapon", "Scimitar",
        "--cmb", "55")
    assert run("fight", "edit", FIGHT, "Orc", "--status", "dead").exit_code == 0
    for args, why in ((("attack", FIGHT, "Hero", "Orc", "--dice", "50"), "the fight is over: side A wins (undo to go back)"),
                      (("round", FIGHT), "the fight is over: side A wins (undo to go back)"),
                      (("round", FIGHT, "--auto", "--seed", "3"), "the fight is over: side A wins (undo to go back)")):
        before = stored(db)
        result = run("fight", *args)
        assert (result.exit_code, result.stderr) == (1, f"Error: {why}\n"), args
        assert stored(db) == before
    assert run("fight", "undo", FIGHT).exit_code == 0
    assert run("fight", "attack", FIGHT, "Hero", "Orc", "--seed", "1").exit_code == 0


def test_undo_on_an_empty_log_and_show_of_an_empty_fight(tmp_path: Path, bundled_db_template: Path) -> None:
    # "`fight undo NAME` drops the last event": none to drop is said plainly, nothing written
    db = tmp_path / "tables.db"
    shutil.copyfile(bundled_db_template, db)
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db), "fight", "new", "Empty"]).exit_code == 0
    before = stored(db)
    result = runner.invoke(cli, ["--db", str(db), "fight", "undo", "Empty"])
    assert (result.exit_code, result.stderr) == (1, "Error: the fight 'Empty' has no events to undo\n")
    assert stored(db) == before
    shown = runner.invoke(cli, ["--db", str(db), "fight", "show", "Empty", "--at", "0", "--json"])
    assert shown.exit_code == 0 and '"seq": 0' in shown.stdout
