"""`tables odds` and `tables simulate` (docs/cli.md "JSON shape of odds")."""

import json

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


def test_table_odds_for_people(run):
    result = run("odds", "table", *LONGSWORD)
    assert result.exit_code == 0
    assert "Outcomes" in result.stdout and "Expected damage:" in result.stdout and "█" in result.stdout


def test_sweep_equals_single_calls(run):
    sweep = as_json(run("odds", "table", "--weapon", "Longsword", "--cmb", "0", "--def", "20", "--armor", "MA",
                        "--sweep-cmb", "40:60:10", "--json"))
    assert sweep["values"] == [40, 50, 60] and sweep["armor"] == ["NA", "LA", "MA", "HA"]
    assert len(sweep["grid"]) == 12
    for cell in sweep["grid"]:
        single = as_json(run("odds", "table", "--weapon", "Longsword", "--cmb", str(cell["cmb"]), "--def", "20",
                             "--armor", cell["armor"], "--json"))
        assert cell["outcomes"] == single["outcomes"] and cell["expected_damage"] == single["expected_damage"]
    by_def = as_json(run("odds", "table", *LONGSWORD, "--sweep-def", "0:40:20", "--json"))
    assert by_def["sweep"] == "def" and by_def["values"] == [0, 20, 40]


@pytest.mark.parametrize("span", ["10", "5:1", "a:b", "1:5:0"])
def test_bad_sweeps(run, span):
    result = run("odds", "table", *LONGSWORD, "--sweep-cmb", span)
    assert result.exit_code == 2 and "Error: --sweep-cmb " in result.stderr  # a usage mistake


@pytest.mark.parametrize("system", sorted(FORMULAS))
def test_formula_odds_sum_to_one(run, system):
    data = as_json(run("odds", system, *FORMULAS[system], "--json"))
    assert data["system"] == system and abs(sum(data["outcomes"].values()) - 1) < 1e-12
    assert isinstance(data["expected_damage"], float)


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


def test_plots(run, tmp_path):
    pytest.importorskip("matplotlib")
    single, swept = tmp_path / "odds.png", tmp_path / "sweep.png"
    assert run("odds", "table", *LONGSWORD, "--plot", str(single)).exit_code == 0
    assert run("odds", "table", *LONGSWORD, "--sweep-cmb", "0:100:10", "--plot", str(swept)).exit_code == 0
    assert run("odds", "rise", *FORMULAS["rise"], "--plot", str(tmp_path / "rise.png")).exit_code == 0
    for path in (single, swept, tmp_path / "rise.png"):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib(run, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run("odds", "table", *LONGSWORD, "--plot", str(tmp_path / "x.png"))
    assert result.exit_code == 1
    assert result.stderr == "Error: --plot needs matplotlib: pip install 'tables-app[plot]'\n"


def test_a_long_sweep_shows_progress(run, monkeypatch):
    # A sweep of 1,000+ attacks takes about a second or more: a bar on a terminal's stderr.
    from contextlib import contextmanager

    from tables_app import progress as progress_module

    shown: list[tuple[int, bool, list[int]]] = []

    @contextmanager
    def recording_bar(count, show, description):  # type: ignore[no-untyped-def]
        advanced: list[int] = []
        shown.append((count, show, advanced))
        yield advanced.append if show else None

    monkeypatch.setattr(progress_module, "progress_bar", recording_bar)
    assert run("odds", "table", *LONGSWORD, "--sweep-cmb", "0:249", "--json").exit_code == 0
    assert run("odds", "table", *LONGSWORD, "--sweep-cmb", "0:10", "--json").exit_code == 0
    (count, show, advanced), (small_count, small_show, _) = shown
    assert (count, show, sum(advanced)) == (1000, True, 1000)  # 250 values × 4 armor columns
    assert (small_count, small_show) == (44, False)
