"""A fuzzer of the whole command line: random invocations of every command,
with valid and invalid option values (huge and negative numbers, floats,
NaN, empty and blank strings, unicode, very long strings, odd dice
expressions, paths that do not exist), against a database holding the
bundled tables. Every run must end as the CLI promises (docs/cli.md, "Exit
codes and errors"): exit code 0, 1 or 2, no exception but SystemExit, no
traceback in the output, and within a few seconds (hypothesis's deadline).

Derandomized (the same invocations on every run, as CI needs), 200 of them
by default (~30 s). A longer run, with a summary of the exit codes:

    TABLES_FUZZ_EXAMPLES=1000 pytest -q -s -n 0 -m slow --timeout=0 -p no:cacheprovider tests/cli/test_cli_fuzz.py

TABLES_FUZZ_SEED=N draws a different (still reproducible) set of invocations.
Every crash the fuzzer found is kept as a plain regression test below.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tables_app.cli.root import cli
from tables_app.domain.systems import MODULES, get
from tables_app.services.database_setup import example_workbooks

EXAMPLES = int(os.environ.get("TABLES_FUZZ_EXAMPLES", "200"))
SEED = int(os.environ.get("TABLES_FUZZ_SEED", "0"))
DEADLINE = timedelta(seconds=5)

# ---------------------------------------------------------------- values
HUGE = ["99999999999999999999", "-99999999999999999999", str(2**63), str(-(2**63)), "1" + "0" * 5000, "-0", "+5", "0x10", "1_000"]
numbers = st.one_of(
    st.integers(-300, 300).map(str),
    st.integers(-(10**12), 10**12).map(str),
    st.sampled_from(HUGE),
)
floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["nan", "-inf", "inf", "1e308", "-1e308", "1e-400", "1.5", "0.1", "1,5", "½"]),
    numbers,
)
LONG = "x" * 100_000
NOT_UTF8 = os.fsdecode(b"\xff")  # a byte of the command line that is not UTF-8, as Python hands it over: '\udcff'
TOO_LONG = "a" * 300  # a path component over the 255 bytes a file name may have
weird = st.one_of(
    st.sampled_from(["", " ", "\t", "\n", "é", "名前", "🎲", "\x00", "-", "--", "--json", "-h", LONG, "NaN", "None", "null", "'", "%s", "../..", "*",
                     NOT_UTF8, f"Long{NOT_UTF8}sword", TOO_LONG]),
    st.text(max_size=20),
)
def mostly(valid, invalid=None):  # type: ignore[no-untyped-def]
    """``valid`` nine times in ten, else an invalid value: most invocations get
    past parsing, so the fuzzer reaches the code behind it too."""
    invalid = invalid if invalid is not None else st.one_of(numbers, weird, floats)
    return st.integers(0, 9).flatmap(lambda k: valid if k else invalid)


def between(low: int, high: int):  # type: ignore[no-untyped-def]
    return mostly(st.integers(low, high).map(str))


DICE = ["1000d10000", "d", "2d", "-3d6", "1d0", "99999999999999999999d6", "+", "2d6+3", "1d4", "100d1000+1000", "0d6", "d6",
        "2d6-1d4", "2 d6", "2d6 + 3", "3", "-5", "1d1", "100d1000-100", "101d6", "1d1001", "2d6++3", "2D6", "٣d٦", "1e3d6",
        "10d10+10d10+10d10+10d10+10d10+10d10+10d10+10d10+10d10+10d10+1d10", "2d6-7", "4d6+6", "1d30", "1d31", "5d6"]
dice_expressions = mostly(st.builds(
    lambda n, s, f: f"{n}d{s}" + (f"{f:+d}" if f else ""), st.integers(1, 4), st.sampled_from([4, 6, 8, 10, 12, 20]), st.integers(-6, 6),
), st.one_of(
    st.sampled_from(DICE),
    st.builds(lambda n, s, sign, f: f"{n}d{s}{sign}{f}", st.integers(0, 150), st.integers(0, 1200), st.sampled_from("+-"),
              st.integers(0, 1200)),
    st.text(alphabet="0123456789dD+- ", max_size=14),
))
NAMES = {
    "weapon": ["Dagger", "Longsword", "Battle Axe", "Bite", "Fire Bolt", "default:Dagger", "Nope"],
    "attack": ["Edged", "Blunt", "Missile", "Unarmed", "Bolt Spells", "default:Edged", "Nope"],
    "critical": ["Cut", "Fire", "Pierce", "S", "K", "Nope"],
    "fumble": ["Melee Fumbles", "Missile Fumbles", "Nope"],
    "creature": ["Armoured Knight", "Bandit", "Cave Troll", "Elder Wyrm", "Nope"],
    "armor": ["NA", "LA", "MA", "HA", "ma", "XX"],
    "ruleset": ["default", "RM", "nope"],
    "feature": ["helm", "metal armor", "nope"],
}


def name_of(kind: str):  # type: ignore[no-untyped-def]
    return mostly(st.sampled_from(NAMES[kind]))


def maybe(option: str, values, chance: float = 0.5):  # type: ignore[no-untyped-def]
    """``[option, value]`` with this chance, else nothing."""
    given = values.map(lambda value: [option, value])
    return st.integers(0, 99).flatmap(lambda k: given if k < chance * 100 else st.just([]))


def flag(option: str):  # type: ignore[no-untyped-def]
    return st.sampled_from([[], [option]])


def joined(*parts):  # type: ignore[no-untyped-def]
    """Concatenated argument lists, in a drawn order."""
    return st.tuples(*parts).flatmap(lambda lists: st.permutations(lists)).map(lambda lists: [a for part in lists for a in part])


# Counts that stay fast: only the bounds and beyond them are ever huge.
counts = mostly(st.integers(1, 20_000).map(str), st.one_of(st.integers(-5, 0).map(str), st.sampled_from(["100000001", "1e6", "", *HUGE])))
seeds = mostly(st.integers(0, 2**63 - 1).map(str), st.one_of(st.integers(-5, 2**64).map(str), st.sampled_from(HUGE)))
forced_dice = st.one_of(
    st.lists(st.integers(-5, 120), max_size=12).map(lambda xs: ",".join(map(str, xs))),
    st.sampled_from(["97,34,45", "1 2 3", "a,b", ",,,", "99999999999999999999", "1" * 5000, "5.5", "-1"]),
)
sweeps = st.one_of(
    st.builds(lambda a, b, s: f"{a}:{b}" + (f":{s}" if s is not None else ""), st.integers(-300, 300), st.integers(-300, 300),
              st.one_of(st.none(), st.integers(-3, 50))),
    st.sampled_from(["0:2000", "0:99999999999999999999", "a", "1:", ":", "0:10:0", "5", "-10000:10000:10"]),
)


# ---------------------------------------------------------------- commands
def table_options(folder: Path, mode: str):  # type: ignore[no-untyped-def]
    parts = [
        st.one_of(maybe("--weapon", name_of("weapon"), 1), maybe("--attack-table", name_of("attack"))),
        maybe("--max-result", between(1, 200)), maybe("--clumsy", between(0, 10)), maybe("--critical", name_of("critical"), 0.3),
        maybe("--secondary-critical", name_of("critical")), maybe("--fumble-table", name_of("fumble")),
        maybe("--fumble-modifier", between(-50, 50)), maybe("--roll-kind", mostly(st.sampled_from(["oe", "oeh", "oel", "d100"]))),
        maybe("--cmb", between(-100, 250), 0.9),
        maybe("--mod", mostly(st.sampled_from(["flank=+10", "x=-5"]), st.one_of(st.sampled_from(["=3", "a", "b=99999", "c=1e3"]), weird)), 0.3),
        maybe("--def", between(-50, 150)), maybe("--armor", name_of("armor"), 0.8), maybe("--rank", mostly(st.sampled_from(["normal", "heroic", "epic"]))),
        maybe("--crit-reduction", between(0, 5)), flag("--ignore-crit-reduction"), maybe("--has", name_of("feature")),
        maybe("--target", name_of("creature")), maybe("--ruleset", name_of("ruleset")), maybe("--critical-column", mostly(st.sampled_from(["Normal", "Magic"]), weird), 0.2),
    ]
    if mode == "resolve":
        parts += [maybe("--dice", forced_dice), maybe("--seed", seeds)]
    elif mode == "odds":
        parts += [maybe("--sweep-cmb", sweeps, 0.3), maybe("--sweep-def", sweeps, 0.2), maybe("--plot", plots(folder), 0.1)]
    else:
        parts += [maybe("--count", counts), maybe("--seed", seeds)]
    return joined(*parts)


def plots(folder: Path):  # type: ignore[no-untyped-def]
    return st.sampled_from([str(folder / "plot.png"), str(folder / "plot.txt"), str(folder / "missing" / "p.png"), "", str(folder)])


def system_values(option):  # type: ignore[no-untyped-def]
    low = option.minimum if option.minimum is not None else -100
    high = option.maximum if option.maximum is not None else 100
    if option.kind == "int":
        return between(low, high)
    if option.kind == "float":
        return mostly(st.floats(low, high).map(repr), floats)
    if option.kind == "dice":
        return dice_expressions
    if option.kind == "choice":
        return mostly(st.sampled_from(option.choices))
    return weird


def formula_options(system_id: str, folder: Path, mode: str):  # type: ignore[no-untyped-def]
    parts = []
    for option in get(system_id).options:
        if option.kind == "flag":
            parts.append(flag(f"--{option.name}"))
            continue
        values = system_values(option)
        chance = 0.9 if option.required or option.name == "def" else 0.4
        if option.multiple:
            parts.append(st.lists(values, max_size=3).map(lambda vs, o=option: [a for v in vs for a in (f"--{o.name}", v)]))
        else:
            parts.append(maybe(f"--{option.name}", values, chance))
    if mode == "resolve":
        parts += [maybe("--dice", forced_dice), maybe("--seed", seeds)]
    elif mode == "odds":
        parts.append(maybe("--plot", plots(folder), 0.1))
    else:
        parts += [maybe("--count", counts), maybe("--seed", seeds)]
    return joined(*parts)


def files(folder: Path):  # type: ignore[no-untyped-def]
    return st.sampled_from([str(folder / "missing.xlsx"), str(folder / "empty.xlsx"), str(folder / "junk.ods"),
                            str(folder / "text.xls"), str(folder), "", "nope.xlsx", str(folder / "名前.xlsx"),
                            str(folder / f"{NOT_UTF8}.xlsx"), str(folder / f"{TOO_LONG}.xlsx"), str(folder / "pipe.xlsx"), "/dev/null"])


def outputs(folder: Path):  # type: ignore[no-untyped-def]
    return st.sampled_from([str(folder / "out.xlsx"), str(folder / "out.txt"), str(folder / "missing" / "o.xlsx"), str(folder),
                            "", str(folder / "é.xlsx"), str(folder / f"{NOT_UTF8}.xlsx"), str(folder / f"{TOO_LONG}.xlsx"),
                            str(folder / "pipe.xlsx")])  # a named pipe: never opened (it would block)


def invocations(folder: Path):  # type: ignore[no-untyped-def]
    example = str(next(iter(example_workbooks().values())))
    commands = [
        *(st.just([verb, "table"]).flatmap(lambda head, v=verb: table_options(folder, v).map(lambda rest: head + rest))
          for verb in ("resolve", "odds", "simulate")),
        *(st.just([verb, system]).flatmap(lambda head, v=verb, s=system: formula_options(s, folder, v).map(lambda rest: head + rest))
          for verb in ("resolve", "odds", "simulate") for system in MODULES),
        st.builds(lambda t, r, a, rest: ["query", "attack", t, r, a, *rest], name_of("attack"), between(-50, 200), name_of("armor"),
                  joined(maybe("--ruleset", name_of("ruleset")))),
        st.builds(lambda t, r, rest: ["query", "critical", t, r, *rest], name_of("critical"), between(1, 100),
                  joined(maybe("--severity", st.one_of(st.sampled_from(["A", "E", "Z"]), weird)), maybe("--has", name_of("feature")),
                         maybe("--column", weird, 0.1), maybe("--ruleset", name_of("ruleset")))),
        st.builds(lambda t, r, rest: ["query", "fumble", t, r, *rest], name_of("fumble"), between(1, 100),
                  joined(maybe("--modifier", between(-20, 20)), maybe("--column", weird, 0.1), maybe("--ruleset", name_of("ruleset")))),
        st.builds(lambda k, n, rest: ["show", k, n, *rest], mostly(st.sampled_from(["attack", "critical", "weapon", "creature", "WEAPON"])),
                  st.one_of(*(name_of(kind) for kind in ("attack", "critical", "weapon", "creature"))), joined(maybe("--ruleset", name_of("ruleset")))),
        st.builds(lambda k, rest: ["list", *k, *rest], st.one_of(st.just([]), mostly(st.sampled_from(["weapons", "rulesets", "attack", "critical"])).map(lambda k: [k])),
                  joined(maybe("--ruleset", name_of("ruleset")))),
        st.builds(lambda o, names, rest: ["export", "-o", o, *names, *rest], outputs(folder),
                  st.lists(st.one_of(name_of("weapon"), name_of("critical")), max_size=2),
                  joined(maybe("--ruleset", name_of("ruleset")), flag("--force"))),
        st.builds(lambda k, o, rest: ["template", k, "-o", o, *rest], mostly(st.sampled_from(["attack", "critical", "fumble", "weapons"])),
                  outputs(folder),
                  joined(maybe("--name", mostly(st.sampled_from(["Great Axe", "名前"]), weird)), maybe("--armor", mostly(st.sampled_from(["NA,LA", "1,2,3"]), st.one_of(st.sampled_from(["A,A", ","]), weird)), 0.3),
                         maybe("--rows", mostly(st.sampled_from(["11-175/5", "1-1000/1"]), st.one_of(st.sampled_from(["1-99999999999/1", "5-1/1", "1-10/0", "a-b/c"]), weird)), 0.3),
                         flag("--printed"), flag("--force"))),
        st.builds(lambda paths, rest: ["import", *paths, *rest], st.lists(files(folder), min_size=0, max_size=2),
                  joined(flag("--replace"), flag("--strict"))).map(lambda args: args + ["--dry-run"] if "--dry-run" not in args else args),
        st.just(["import", example, "--dry-run"]),
        st.builds(lambda paths, rest: ["lint", *paths, *rest], st.lists(files(folder), max_size=2), joined(flag("--strict"))),
        st.builds(lambda n: ["example", *n], st.one_of(st.just([]), weird.map(lambda w: [w]), st.just(["printed"]))),
        st.just(["db", "current"]),
        st.lists(weird, max_size=3),  # anything at all
    ]
    json_flag = st.sampled_from([[], [], ["--json"]])
    # Now and then another --db (the last one given counts): none of them is created by a command.
    other_db = st.sampled_from([str(folder / "text.xls"), str(folder), str(folder / "missing" / "x.db"), f"sqlite:///{folder}/new.db",
                                "postgresql://u@h/db", "", "sqlite://", "sqlite:///", str(folder / "empty.xlsx"),
                                str(folder / f"{NOT_UTF8}.db"), str(folder / f"{TOO_LONG}.db"), str(folder / "pipe.xlsx")])
    db = mostly(st.just([]), other_db.map(lambda path: ["--db", path]))
    return st.tuples(db, st.one_of(*commands), json_flag).map(lambda parts: parts[0] + parts[1] + parts[2])


# ---------------------------------------------------------------- the run
@pytest.fixture(scope="module")
def fuzz_folder(tmp_path_factory, bundled_db_template) -> Path:
    folder = tmp_path_factory.mktemp("fuzz")
    shutil.copyfile(bundled_db_template, folder / "tables.db")
    (folder / "empty.xlsx").write_bytes(b"")
    (folder / "junk.ods").write_bytes(bytes(range(256)) * 8)
    (folder / "text.xls").write_text("not a workbook\n")
    os.mkfifo(folder / "pipe.xlsx")
    shutil.copyfile(next(iter(example_workbooks().values())), folder / f"{NOT_UTF8}.xlsx")  # a workbook, its name not UTF-8
    return folder


def check(runner: CliRunner, folder: Path, args: list[str], exits: Counter | None = None) -> None:
    result = runner.invoke(cli, ["--db", str(folder / "tables.db"), *args], catch_exceptions=True)
    if exits is not None:
        exits[result.exit_code] += 1
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output[-2000:])
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr, (args, result.output[-2000:])


@pytest.mark.slow  # ~7 s (`pytest -m slow`, and CI)
def test_cli_fuzz(fuzz_folder: Path) -> None:
    runner = CliRunner(env={"COLUMNS": "120"})
    exits: Counter = Counter()

    @seed(SEED)
    @settings(max_examples=EXAMPLES, derandomize=SEED == 0, database=None, deadline=DEADLINE,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(invocations(fuzz_folder))
    def one(args: list[str]) -> None:
        check(runner, fuzz_folder, args, exits)

    one()
    if os.environ.get("TABLES_FUZZ_EXAMPLES"):
        print(f"\nfuzzed {sum(exits.values())} invocations: " + ", ".join(f"exit {code}: {n}" for code, n in sorted(exits.items())))


# ---------------------------------------------------------------- regressions
# The crashes the fuzzer found, the inputs of issue #17 item 8 (each was slow, huge or
# a crash) and edge values the fuzzer draws, with the exit code each must give.
REGRESSIONS: list[tuple[list[str], int]] = [
    # found by the fuzzer: a control character in a template's --name or --armor was an
    # openpyxl IllegalCharacterError (a traceback); now a usage error
    (["template", "weapons", "-o", "out.xlsx", "--name", "æ£\x99IÉ\x1d\x82"], 2),
    (["template", "attack", "-o", "out.xlsx", "--name", "\x01a"], 2),
    (["template", "attack", "-o", "out.xlsx", "--armor", "NA,L\x0b"], 2),
    (["resolve", "rise", "--accuracy", "6", "--defense", "-10000000000", "--seed", "1"], 2),
    (["odds", "rise", "--accuracy", "6", "--def", "12", "--damage", "20d6"], 0),
    (["odds", "rise", "--accuracy", "6", "--def", "12", "--damage", "1000d10000"], 2),
    (["odds", "d10-pool", "--bonus", "1", "--ad", "5", "--toughness", "3", "--damage", "1000d10000"], 2),
    (["odds", "worlds-awakening", "--stat", "1", "--def", "10", "--damage", "1000d10000"], 2),
    (["odds", "rise", "--accuracy", "6", "--def", "-1000"], 2),
    (["odds", "pte", "--accuracy", "1", "--ac", "2", "--evasion", "1", "--stat", "5", "--damage-base", "5", "--def", "3",
      "--db-multiplier", "1e308"], 2),
    (["odds", "pte", "--accuracy", "1", "--ac", "2", "--evasion", "1", "--stat", "5", "--damage-base", "5", "--def", "3",
      "--distance", "nan", "--range", "long"], 2),
    *((["resolve", "rise", "--accuracy", "1", "--def", "2", "--damage", expression, "--seed", "1"], 2)
      for expression in ("d", "2d", "-3d6", "1d0", "99999999999999999999d6", "+", "", "1" * 5000 + "d6")),
    (["simulate", "rise", "--accuracy", "1", "--def", "2", "--count", "100000001"], 2),
    (["resolve", "table", "--weapon", "Dagger", "--cmb", "10", "--armor", "MA", "--dice", "1" * 5000], 2),
    (["query", "critical", "Cut", "99999999999999999999"], 1),
    (["odds", "table", "--weapon", "Dagger", "--cmb", "10", "--armor", "MA", "--sweep-cmb", "0:99999999999999999999"], 2),
    (["template", "attack", "-o", "out.xlsx", "--rows", "1-99999999999/1"], 2),
    (["--db", "postgresql://u@h/db", "list"], 1),
    # issue 27: bytes that are not UTF-8, a name over 255 bytes, a named pipe
    (["show", "weapon", f"Long{NOT_UTF8}sword"], 1),
    (["query", "attack", NOT_UTF8, "55", "MA"], 1),
    (["--db", f"{{folder}}/{NOT_UTF8}.db", "list"], 1),
    (["import", f"{{folder}}/{TOO_LONG}.xlsx"], 1),
    (["template", "weapons", "-o", f"{{folder}}/{TOO_LONG}.xlsx"], 1),
    (["export", "--format", "foundry", "-o", f"{{folder}}/{TOO_LONG}"], 1),
    (["export", "-o", "{folder}/pipe.xlsx", "--force"], 1),
    (["template", "weapons", "-o", "{folder}/pipe.xlsx", "--force"], 1),
    (["import", "{folder}/pipe.xlsx"], 1),
    (["lint", f"{{folder}}/{NOT_UTF8}.xlsx"], 1),  # found by the fuzzer: its name was bound into SQL (a traceback)
]


@pytest.mark.parametrize("args, exit_code", REGRESSIONS)
def test_fuzzer_regressions(fuzz_folder: Path, args: list[str], exit_code: int) -> None:
    args = [arg.replace("{folder}", str(fuzz_folder)) for arg in args]  # files of the fuzz folder
    runner = CliRunner(env={"COLUMNS": "120"})
    check(runner, fuzz_folder, args)
    result = runner.invoke(cli, ["--db", str(fuzz_folder / "tables.db"), *args])
    assert result.exit_code == exit_code, (args, result.output[-500:])
    if exit_code:
        assert sum(line.startswith("Error:") for line in result.stderr.splitlines()) == 1, result.stderr
