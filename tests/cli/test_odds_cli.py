"""`tables odds` and `tables simulate` (docs/cli.md "JSON shape of odds")."""

import functools
import json
from collections import Counter
from fractions import Fraction

import pytest

LONGSWORD = ["--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA"]
FORMULAS = {
    "rise": ["--accuracy", "6", "--def", "12", "--damage", "2d6+3"],
    "worlds-awakening": ["--stat", "2", "--def", "15", "--damage", "2d6+1", "--cha", "2"],
    "d10-pool": ["--bonus", "3", "--attacks", "2", "--ad", "7", "--toughness", "4", "--damage", "2d6"],
    "pte": ["--accuracy", "2", "--ac", "2", "--evasion", "3", "--stat", "15", "--damage-base", "10", "--def", "15"],
}


def as_json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_table_odds_contract(run):
    data = as_json(run("odds", "table", *LONGSWORD, "--json"))
    assert set(data) >= {"system", "outcomes", "critical_severity", "expected_damage", "fumble_rows"}
    assert list(data["outcomes"]) == ["fumble", "miss", "ineffective", "no_damage", "hit", "critical"]
    assert abs(sum(data["outcomes"].values()) - 1) < 1e-12
    assert list(data["critical_severity"]) == ["Sup", "Lig", "Mod", "Gri", "Let"]
    assert abs(sum(data["critical_severity"].values()) - data["outcomes"]["critical"]) < 1e-12
    assert data["outcomes"]["fumble"] == 0.03  # Longsword's Clumsy Range 1-3
    assert abs(sum(data["fumble_rows"].values()) - 0.03) < 1e-12


def test_table_odds_by_hand(run):
    # Longsword (Edged, Clumsy 1-3, Max Result 150, oe), CMB 60 - DEF 20: R = T + 40, Edged's HA column.
    # U 1-3 fumble (3); U 4-5 open low, T ≤ 4, R ≤ 44: "—" up to 45 (2 miss);
    # U 6-15: R 46-55 "0" (10 no_damage); U 16-55: R 56-95 "1".."5" (40 hit);
    # U 56-95: R 96-135 "6 Sup".."12 Mod" (40 critical); U 96-100: R ≥ 137, all criticals (5).
    data = as_json(run("odds", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "HA", "--json"))
    assert data["outcomes"] == {"fumble": 0.03, "miss": 0.02, "ineffective": 0.0, "no_damage": 0.1, "hit": 0.4, "critical": 0.45}


def test_table_odds_for_people(run):
    result = run("odds", "table", *LONGSWORD)
    assert result.exit_code == 0
    assert "Outcomes" in result.stdout and "Expected damage:" in result.stdout and "█" in result.stdout


# ---------------------------------------------------------------- brute force from the shown tables
SEVERITY_MODIFIERS = {"Sup": 0, "Lig": 10, "Mod": 20, "Gri": 30, "Let": 50}  # docs/table-system.md, "Severity"
SEVERITY_ORDER = list(SEVERITY_MODIFIERS)


def span(text):
    """'146-150' → (146, 150); '146+' → (146, None)."""
    if text.endswith("+"):
        return int(text[:-1]), None
    low, high = text.split("-")
    return int(low), int(high)


def shown(run, *args):
    return as_json(run("show", *args, "--json"))


OPEN_DEPTH = 3  # dice of an open-ended roll enumerated one by one


def open_ended_totals(u):
    """T → probability for a first die ``u`` above the Clumsy Range (roll kind oe):
    96-100 add and 1-5 subtract another d100, going on while it shows 96+. Past
    OPEN_DEPTH dice the chain is summed as its nearest total (one more point)."""
    totals = Counter()
    if not (u >= 96 or u <= 5):
        totals[u] = Fraction(1)
        return totals
    sign = 1 if u >= 96 else -1
    stack = [(u, Fraction(1), 1)]
    while stack:
        total, p, depth = stack.pop()
        for die in range(1, 101):
            if die < 96:
                totals[total + sign * die] += p / 100
            elif depth + 1 < OPEN_DEPTH:
                stack.append((total + sign * die, p / 100, depth + 1))
            else:
                totals[total + sign * (die + 1)] += p / 100
    return totals


def brute_table_odds(run, weapon, k, armor, reduction=0, features=()):
    """Outcomes and expected damage of one attack, enumerated die by die from
    what `tables show` prints (no code of tables_app.domain), for CMB − DEF = k
    and CMB ≥ 0. ``weapon``: a name, or the fields `tables show weapon` gives.
    Three dice of an open-ended roll suffice when a high chain that goes on past
    them is capped (96 · 3 + 1 + k ≥ Max Result) and a low one stays at 10 or
    less (5 − 96 · 2 − 1 + k ≤ 10), which the assert checks."""
    if isinstance(weapon, str):
        weapon = shown(run, "weapon", weapon)
    table = shown(run, "attack", weapon["attack_table"])
    column = table["armor"].index(armor)
    rows = [(span(row["range"]), row["cells"][column]) for row in table["rows"]]
    cap, clumsy = weapon["max_result"], weapon["clumsy"]
    assert weapon["roll"] == "oe" and 96 * OPEN_DEPTH + 1 + k >= cap and 5 - 96 * (OPEN_DEPTH - 1) - 1 + k <= 10

    criticals = {}

    def entry_hits(name, modified):
        if name not in criticals:
            criticals[name] = shown(run, "critical", name)["entries"]
        entries = criticals[name]
        top = max(span(e["range"])[0] for e in entries)
        roll = min(modified, top)  # above the top row reads the top row
        for e in entries:
            low, high = span(e["range"])
            condition = e["condition"]
            takes = condition is None or (
                condition[4:] not in features if condition.startswith("not ") else condition in features)
            if low <= roll and (high is None or roll <= high) and takes:
                return e["hits"]
        raise AssertionError((name, modified))

    @functools.cache
    def critical_mean(name, severity_index):
        return Fraction(sum(entry_hits(name, d + SEVERITY_MODIFIERS[SEVERITY_ORDER[severity_index]]) for d in range(1, 101)), 100)

    totals = Counter()  # T → probability
    for u in range(clumsy + 1, 101):
        for total, p in open_ended_totals(u).items():
            totals[total] += p / 100
    outcomes = dict.fromkeys(["fumble", "miss", "ineffective", "no_damage", "hit", "critical"], Fraction(0))
    outcomes["fumble"] = Fraction(clumsy, 100)
    damage = Fraction(0)
    for total, p in totals.items():
        result = min(total + k, cap)
        if result <= 10:
            outcomes["miss"] += p
            continue
        cell = next((c for (low, high), c in rows if low <= result and (high is None or result <= high)), rows[-1][1])
        parts = cell.split()
        if parts == ["—"]:
            outcomes["miss"] += p
        elif parts == ["0"]:
            outcomes["no_damage"] += p
        elif len(parts) == 1:
            outcomes["hit"] += p
            damage += p * int(parts[0])
        else:
            reduced = SEVERITY_ORDER.index(parts[1]) - reduction
            damage += p * int(parts[0])
            if reduced < 0:  # cancelled: a hit
                outcomes["hit"] += p
                continue
            outcomes["critical"] += p
            damage += p * critical_mean(parts[2] if len(parts) > 2 else weapon["critical"], reduced)
            if weapon["secondary_critical"] and reduced >= 2:  # two degrees below the reduced severity
                damage += p * critical_mean(weapon["secondary_critical"], reduced - 2)
    return outcomes, damage


def assert_matches(cell, outcomes, damage):
    assert cell["outcomes"].keys() == outcomes.keys()
    for word, p in outcomes.items():
        assert abs(cell["outcomes"][word] - float(p)) < 1e-9, (word, cell, outcomes)
    assert abs(cell["expected_damage"] - float(damage)) < 1e-9, (cell, float(damage))


def test_a_sweep_equals_brute_force_from_the_tables(run):
    sweep = as_json(run("odds", "table", "--weapon", "Longsword", "--cmb", "0", "--def", "20", "--armor", "MA",
                        "--sweep-cmb", "40:60:10", "--json"))
    assert sweep["values"] == [40, 50, 60] and sweep["armor"] == ["NA", "LA", "MA", "HA"]
    assert [(c["cmb"], c["armor"]) for c in sweep["grid"]] == [(v, a) for v in (40, 50, 60) for a in sweep["armor"]]
    for cell in sweep["grid"]:
        assert_matches(cell, *brute_table_odds(run, "Longsword", cell["cmb"] - 20, cell["armor"]))
    by_def = as_json(run("odds", "table", *LONGSWORD, "--sweep-def", "0:40:20", "--json"))
    assert by_def["sweep"] == "def" and by_def["values"] == [0, 20, 40]
    for cell in by_def["grid"]:
        assert_matches(cell, *brute_table_odds(run, "Longsword", 60 - cell["def"], cell["armor"]))


def test_a_reduction_and_the_helm_branches_equal_brute_force(run):
    # Morning Star (Blunt, Max 145, secondary Pierce) against a heroic Orc Warrior (helm):
    # one degree of reduction, the helm branches of Impact.
    data = as_json(run("odds", "table", "--weapon", "Morning Star", "--cmb", "70", "--target", "Orc Warrior",
                       "--rank", "heroic", "--json"))
    assert_matches(data, *brute_table_odds(run, "Morning Star", 70 - 20, "MA", reduction=1, features=("helm", "metal armor")))


BLUNT_WITH_PIERCE = {"attack_table": "Blunt", "max_result": 175, "clumsy": 2, "critical": "Impact",
                     "secondary_critical": "Pierce", "roll": "oe"}
BLUNT_WITH_PIERCE_OPTIONS = ["--attack-table", "Blunt", "--critical", "Impact", "--secondary-critical", "Pierce",
                             "--max-result", "175", "--clumsy", "2"]


def test_secondary_criticals_after_a_reduction_equal_brute_force(run):
    # Blunt NA reads Let from 156: a heroic target lowers it to Gri and the secondary Pierce
    # is two degrees below that (Lig), so the sweep's expected damage depends on step 11 after step 9.
    sweep = as_json(run("odds", "table", *BLUNT_WITH_PIERCE_OPTIONS, "--cmb", "0", "--def", "0", "--armor", "NA",
                        "--rank", "heroic", "--sweep-cmb", "60:100:20", "--json"))
    for cell in sweep["grid"]:
        assert_matches(cell, *brute_table_odds(run, BLUNT_WITH_PIERCE, cell["cmb"], cell["armor"], reduction=1))


def test_a_95_ends_an_open_ended_chain_in_the_odds(run):
    # CMB 10 − DEF 60: an opened roll 96-100 + 95 stops at 141-145 (a 96+ would roll again and go higher),
    # below the Max Result 175, so the chain's rule shows in the rows read.
    data = as_json(run("odds", "table", *BLUNT_WITH_PIERCE_OPTIONS, "--cmb", "10", "--def", "60", "--armor", "LA", "--json"))
    assert_matches(data, *brute_table_odds(run, BLUNT_WITH_PIERCE, 10 - 60, "LA"))


@pytest.mark.parametrize("span", ["10", "5:1", "a:b", "1:5:0"])
def test_bad_sweeps(run, span):
    result = run("odds", "table", *LONGSWORD, "--sweep-cmb", span)
    assert result.exit_code == 2 and "Error: --sweep-cmb " in result.stderr  # a usage mistake


# Worked by hand from docs/formula-systems.md for the FORMULAS options:
# rise: d10 + 6 vs 12. 1-3 miss, 4-5 glancing (10, 11: 1 or 2 short), 6-9 hit, 10 explodes:
#   10 + 1..5 a hit, 10 + 6.. a critical (margin ≥ 10): P = 1/10 · 1/2. Damage 2d6+3 (mean 10),
#   glancing floor(S/2) = 5 − P(S odd)/2 = 19/4, n criticals roll 1 + n sets: P(n) = 9/200 · (1/10)^(n−1),
#   Σ (1+n) P(n) · 10 = 9/20 · (10/9 + 100/81) = 19/18. E = 1/5 · 19/4 + 9/20 · 10 + 19/18 = 1171/180.
# worlds-awakening: d20 + 2 vs 15, CHA 2: 1 critical failure, 2-12 miss, 13-18 hit (2d6+1, mean 8),
#   19-20 critical (max 13). E = 6/20 · 8 + 2/20 · 13 = 37/10.
# d10-pool: d10 + 3 vs 7, two attacks: each misses on 1-3, so P(miss) = (3/10)² = 9/100; a 10 is a
#   critical and rolls again: hits per attack 7/10 / (1 − 1/10) = 7/9, × 2 attacks × 7 (2d6) = 98/9.
# pte: natural + 2 vs AC 2 + evasion 3: 1-2 miss, 3-19 hit, 20 critical. Damage stat 15 + DB 10 − DEF 15
#   = 10, critical 2 · 25 − 15 = 35. E = (17 · 10 + 35) / 20 = 41/4.
FORMULA_ODDS = {
    "rise": ({"miss": 0.3, "glancing": 0.2, "hit": 0.45, "critical": 0.05}, 1171 / 180),
    "worlds-awakening": ({"critical_failure": 0.05, "miss": 0.55, "hit": 0.3, "critical": 0.1, "success": 0.0}, 3.7),
    "d10-pool": ({"miss": 0.09, "hit": 0.91}, 98 / 9),
    "pte": ({"miss": 0.1, "hit": 0.85, "critical": 0.05}, 10.25),
}


@pytest.mark.parametrize("system", sorted(FORMULAS))
def test_formula_odds_by_hand(run, system):
    data = as_json(run("odds", system, *FORMULAS[system], "--json"))
    outcomes, expected_damage = FORMULA_ODDS[system]
    assert data["system"] == system and data["outcomes"] == outcomes
    assert abs(data["expected_damage"] - expected_damage) < 1e-12  # the chains are cut below 1e-15


def test_formula_odds_extras_by_hand(run):
    # rise's criticals: P(n) = 9/200 · (1/10)^(n−1), rounded to 12 places in the JSON
    rise = as_json(run("odds", "rise", *FORMULAS["rise"], "--json"))
    assert [rise["criticals"][str(n)] for n in (1, 2, 3)] == [0.045, 0.0045, 0.00045]
    # d10-pool's hits of two attacks: per attack P(0) = 3/10, P(1) = 6/10 + 1/10 · 3/10 = 63/100,
    # so P(1 in all) = 2 · 3/10 · 63/100 = 378/1000; expected criticals 2 · (1/10) / (9/10) = 2/9
    pool = as_json(run("odds", "d10-pool", *FORMULAS["d10-pool"], "--json"))
    assert (pool["hits"]["0"], pool["hits"]["1"]) == (0.09, 0.378)
    assert abs(pool["criticals"] - 2 / 9) < 1e-12
    assert as_json(run("odds", "worlds-awakening", *FORMULAS["worlds-awakening"], "--json"))["opponent_advantage"] == 0.05


@pytest.mark.parametrize("system", sorted(FORMULAS))
def test_simulate_formula_systems(run, system):
    data = as_json(run("simulate", system, *FORMULAS[system], "--count", "2000", "--seed", "3", "--json"))
    assert data["count"] == 2000 and sum(data["counts"].values()) == 2000
    assert set(data["counts"]) >= set(as_json(run("odds", system, *FORMULAS[system], "--json"))["outcomes"])


def test_simulate_table_is_reproducible(run):
    first = as_json(run("simulate", "table", *LONGSWORD, "--count", "50000", "--seed", "9", "--json"))
    assert first == as_json(run("simulate", "table", *LONGSWORD, "--count", "50000", "--seed", "9", "--json"))
    assert sum(first["counts"].values()) == 50000 and first["system"] == "table"
    assert "critical_severity" in first
    exact = as_json(run("odds", "table", *LONGSWORD, "--json"))
    assert abs(first["mean_damage"] - exact["expected_damage"]) < 5 * first["damage_standard_error"]


def test_plot_without_matplotlib(run, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run("odds", "table", *LONGSWORD, "--plot", str(tmp_path / "x.png"))
    assert result.exit_code == 1
    assert result.stderr == "Error: --plot needs matplotlib: pip install 'tables-app[plot]'\n"


def test_a_long_sweep_shows_progress(run, monkeypatch):
    # A sweep of 1,000+ attacks takes about a second or more: a bar on a terminal's stderr.
    from contextlib import contextmanager

    from tables_app.cli import progress as progress_module

    shown: list[tuple[int, str, list[int]]] = []

    @contextmanager
    def recording_bar(count, description):  # type: ignore[no-untyped-def]
        advanced: list[int] = []
        shown.append((count, description, advanced))
        yield advanced.append

    monkeypatch.setattr(progress_module, "progress_bar", recording_bar)
    assert run("odds", "table", *LONGSWORD, "--sweep-cmb", "0:249", "--json").exit_code == 0
    assert run("odds", "table", *LONGSWORD, "--sweep-cmb", "0:10", "--json").exit_code == 0  # 44 attacks: no bar
    [(count, description, advanced)] = shown
    assert (count, description, sum(advanced)) == (1000, "computing odds", 1000)  # 250 values × 4 armor columns


def test_a_formula_distribution_leaves_out_what_rounds_to_zero(run):
    """Issue 28: `odds d10-pool --json` listed dozens of `"29": 0.0`; only values that print stay."""
    import json

    result = run("odds", "d10-pool", "--attacks", "2", "--damage", "2d6", "--bonus", "3", "--ad", "2",
                 "--toughness", "3", "--json")
    data = json.loads(result.output)
    for name in ("wounds", "hits"):
        assert data[name] and all(value > 0 for value in data[name].values()), name
        assert abs(sum(data[name].values()) - 1) < 1e-9
    assert set(data["outcomes"]) == {"miss", "hit"}  # outcomes keep their zeros (every word of the system)
    assert data["attack"] == {"bonus": 3, "attacks": 2, "ad": 2, "toughness": 3, "option": "normal", "damage": "2d6",
                              "weapons": 1}  # the attack as given, defaults filled in, in the system's order
