"""`--plot`: what the charts say, where they go, and what is refused (issue #12).

The charts are read from the matplotlib Figure that ``plot.figure`` builds
(the one ``plot.save`` writes): titles, axis labels, series and their points.
One test checks that a PNG file is really written.
"""

import json

import pytest
from click.testing import CliRunner

from tables_app.cli.root import cli

PNG = b"\x89PNG\r\n\x1a\n"
SWEEP = ["odds", "table", "--weapon", "Longsword", "--cmb", "0", "--target", "Orc Warrior", "--sweep-cmb", "0:100:10"]


@pytest.fixture
def invoke(db_path):
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, ["--db", str(db_path), *args], catch_exceptions=False)


@pytest.fixture
def figure_of():  # type: ignore[no-untyped-def]
    """The figure of some odds JSON, closed after the test."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from tables_app.cli import plot

    made = []

    def build(data):  # type: ignore[no-untyped-def]
        made.append(plot.figure(data))
        return made[-1]

    yield build
    for figure in made:
        plt.close(figure)


def bars(axes) -> dict:  # type: ignore[no-untyped-def]
    """Bar label → height, from the x tick labels and the bar rectangles."""
    labels = [tick.get_text() for tick in axes.get_xticklabels()]
    return dict(zip(labels, [patch.get_height() for patch in axes.patches]))


def test_a_plot_says_where_it_went_on_stderr_and_json_stays_one_object(invoke, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "sweep.png"
    result = invoke(*SWEEP, "--plot", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["sweep"] == "cmb"
    assert result.stderr == f"Wrote {path}\n"
    assert path.read_bytes()[:8] == PNG


def test_a_plot_file_must_be_a_png(invoke, tmp_path):
    result = invoke("odds", "table", "--weapon", "Longsword", "--cmb", "60", "--armor", "MA", "--plot", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "ending in .png" in result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.png").exists()


def test_a_sweep_names_who_attacks_whom_and_highlights_the_target_armor(invoke, figure_of):
    data = json.loads(invoke(*SWEEP, "--json").stdout)
    figure = figure_of(data)
    assert figure._suptitle.get_text() == (
        "Expected damage and P(critical) by CMB\n"
        "Longsword (Edged), CMB 0–100 vs Orc Warrior (DEF 20, MA, helm, metal armor)"
    )
    damage, critical = figure.axes
    assert (damage.get_ylabel(), critical.get_ylabel(), critical.get_xlabel()) == ("expected damage", "P(critical)", "CMB")
    assert damage.get_legend().get_title().get_text() == "armor"
    lines = {line.get_label(): line for line in damage.get_lines()}
    assert list(lines) == ["NA", "LA", "MA (target)", "HA"]  # one series per armor column, the target's marked
    assert [line.get_label() for line in critical.get_lines()] == list(lines)
    # the target's line is heavier and on top; every point is marked
    assert {line.get_linewidth() for label, line in lines.items() if label != "MA (target)"} == {1.2}
    assert lines["MA (target)"].get_linewidth() == 3.0 and lines["MA (target)"].get_zorder() == 3
    assert all(line.get_marker() == "o" for line in lines.values())
    # eleven points per series, at the swept CMBs, with the values of the JSON's grid
    for armor, label in zip(["NA", "LA", "MA", "HA"], lines):
        cells = [c for c in data["grid"] if c["armor"] == armor]
        assert list(lines[label].get_xdata()) == list(range(0, 101, 10))
        assert list(lines[label].get_ydata()) == [c["expected_damage"] for c in cells]
        chances = next(line for line in critical.get_lines() if line.get_label() == label)
        assert list(chances.get_ydata()) == [c["outcomes"]["critical"] for c in cells]
    # Edged HA at CMB 60 − DEF 20: U 56-100 are criticals (by hand in test_odds_cli.py): 45%
    ha = next(line for line in critical.get_lines() if line.get_label() == "HA")
    assert ha.get_ydata()[6] == 0.45
    assert damage.xaxis.get_gridlines()[0].get_visible() and critical.yaxis.get_gridlines()[0].get_visible()


def test_a_sweep_over_def(invoke, figure_of):
    data = json.loads(invoke("odds", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "0", "--armor", "HA",
                             "--sweep-def", "0:40:20", "--json").stdout)
    figure = figure_of(data)
    assert figure._suptitle.get_text() == "Expected damage and P(critical) by DEF\nLongsword (Edged), CMB 60 vs DEF 0–40, HA"
    damage, critical = figure.axes
    assert critical.get_xlabel() == "DEF"
    lines = {line.get_label(): line for line in damage.get_lines()}
    assert list(lines) == ["NA", "LA", "MA", "HA (target)"]
    assert list(lines["HA (target)"].get_xdata()) == [0, 20, 40]


def test_one_attacks_odds_plot_names_weapon_cmb_and_target(invoke, figure_of):
    data = json.loads(invoke("odds", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "HA",
                             "--json").stdout)
    figure = figure_of(data)
    # P(critical) 45% and the outcomes below: by hand in test_odds_cli.py (test_table_odds_by_hand);
    # expected damage 7.614 by brute force there (the sweep's HA cell at CMB 60)
    assert figure._suptitle.get_text() == (
        "Longsword (Edged), CMB 60 vs DEF 20, HA\nexpected damage 7.61, P(critical) 45.0%"
    )
    outcomes, severities = figure.axes  # outcomes, and the critical severities beside them
    assert (outcomes.get_title(), outcomes.get_ylabel(), severities.get_title()) == ("outcomes", "probability", "critical severity")
    assert bars(outcomes) == {"fumble": 0.03, "miss": 0.02, "ineffective": 0.0, "no damage": 0.1, "hit": 0.4, "critical": 0.45}
    assert [text.get_text() for text in outcomes.texts] == ["3.0%", "2.0%", "0", "10.0%", "40.0%", "45.0%"]
    assert bars(severities) == data["critical_severity"]
    assert abs(sum(bars(severities).values()) - 0.45) < 1e-12


def test_a_formula_odds_plot_has_one_panel(invoke, figure_of):
    data = json.loads(invoke("odds", "rise", "--accuracy", "6", "--def", "12", "--damage", "2d6+3", "--json").stdout)
    figure = figure_of(data)
    # By hand in test_odds_cli.py: E = 1171/180 = 6.51, P(critical) 1/10 · 1/2 = 5%
    assert figure._suptitle.get_text() == ("rise: accuracy 6, defense 12, damage 2d6+3, crit bonus 0, multiplier 1, "
                                           "explode on 10\nexpected damage 6.51, P(critical) 5.0%")  # the attack named (issue 28)
    (outcomes,) = figure.axes
    assert bars(outcomes) == {"miss": 0.3, "glancing": 0.2, "hit": 0.45, "critical": 0.05}


def test_a_formula_system_without_criticals_says_none(invoke, figure_of):
    data = json.loads(invoke("odds", "d10-pool", "--bonus", "3", "--attacks", "2", "--ad", "7", "--toughness", "4",
                             "--damage", "2d6", "--json").stdout)
    figure = figure_of(data)
    assert figure._suptitle.get_text().startswith("d10-pool: bonus 3, attacks 2, ad 7, toughness 4, option normal, damage 2d6")
    assert figure._suptitle.get_text().endswith("\nexpected damage 10.89")  # 98/9, by hand in test_odds_cli.py
    assert bars(figure.axes[0]) == {"miss": 0.09, "hit": 0.91}


# ------------------------------------------------------------------ a fight's odds (issue #30)
# docs/fights.md, "Odds of a fight": `--plot` draws P(each side has won by the end of round r), a line per
# side over the rounds as the fight numbers them; a simulation's with error bars of two standard errors.
QUICK = [("--as", "Hero", "--hits", "3", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60"),
         ("--creature", "Goblin Scout", "--hits", "3")]


@pytest.fixture
def quick(invoke):  # type: ignore[no-untyped-def]
    """A fight over in a round or two (3 hits each), small enough to work out exactly."""
    assert invoke("fight", "new", "Quick").exit_code == 0
    for joining in QUICK:
        assert invoke("fight", "join", "Quick", *joining).exit_code == 0
    return invoke


@pytest.mark.parametrize("verb", ["odds", "simulate"])
def test_a_fights_plot_is_written_and_said_on_stderr(quick, tmp_path, verb):
    pytest.importorskip("matplotlib")
    path = tmp_path / f"{verb}.png"
    extra = ("--count", "500", "--seed", "1") if verb == "simulate" else ()
    result = quick(verb, "fight", "Quick", "--rounds", "2", *extra, "--plot", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["fight"] == "Quick"  # stdout stays the one JSON object
    assert result.stderr == f"Wrote {path}\n"
    assert path.read_bytes()[:8] == PNG


def side_lines(figure) -> dict:  # type: ignore[no-untyped-def]
    (axes,) = figure.axes
    return {line.get_label(): line for line in axes.get_lines() if not line.get_label().startswith("_")}


@pytest.mark.slow  # seconds
def test_a_fights_odds_plot_is_a_line_per_side_of_the_jsons_figures(quick, figure_of):
    data = json.loads(quick("odds", "fight", "Quick", "--exact", "--rounds", "4", "--json").stdout)
    figure = figure_of(data)
    (axes,) = figure.axes
    assert figure._suptitle.get_text() == (
        f"Quick: exact odds, from round 1 (after event 2)\nexpected rounds {data['expected_rounds']:.2f}, "
        "still going after round 4: <0.01%")  # unfinished is 1 − P(over by round 3), not 0: a short fight, not over
    assert 0 < data["unfinished"] < 0.00005
    assert (axes.get_xlabel(), axes.get_ylabel(), axes.get_ylim()) == ("round", "P(won by the end of the round)", (0, 1))
    lines = side_lines(figure)
    assert list(lines) == ["side A", "side B"]
    for side, line in lines.items():
        assert list(line.get_xdata()) == [1, 2, 3, 4]
        assert list(line.get_ydata()) == [r["sides"][side.split()[1]] for r in data["rounds"]]
    a, b = (lines[f"side {s}"].get_ydata() for s in "AB")
    assert all(x <= y for x, y in zip(a, a[1:])) and a[-1] + b[-1] + data["unfinished"] == pytest.approx(1)
    assert axes.containers == []  # exact odds: no error bars
    assert [tick.get_text() for tick in axes.get_yticklabels()][-1] == "100%"


def test_a_fights_plot_numbers_the_rounds_as_the_fight_does(quick, figure_of):
    quick("fight", "round", "Quick")
    quick("fight", "round", "Quick")
    data = json.loads(quick("odds", "fight", "Quick", "--exact", "--rounds", "2", "--json").stdout)
    lines = side_lines(figure_of(data))
    assert list(lines["side A"].get_xdata()) == [3, 4]  # from round 3, where the fight stands
    assert figure_of(data)._suptitle.get_text().startswith("Quick: exact odds, from round 3 (after event 4)\n")


def test_a_simulated_fights_plot_has_error_bars_of_two_standard_errors(quick, figure_of):
    data = json.loads(quick("simulate", "fight", "Quick", "--rounds", "3", "--count", "2000", "--seed", "4", "--json").stdout)
    figure = figure_of(data)
    (axes,) = figure.axes
    assert figure._suptitle.get_text() == (
        f"Quick: estimated from 2,000 fights, ± {100 * data['largest_se']:.2f}%, from round 1 (after event 2)\n"
        "expected rounds "
        f"{data['expected_rounds']:.2f} (± {data['se']['expected_rounds']:.2f}), still going after round 3: 0\n"
        "error bars: 2 standard errors")
    assert [c.get_label() for c in axes.containers] == ["side A", "side B"]
    for container in axes.containers:
        side = container.get_label().split()[1]
        line, _caps, (bars,) = container.lines
        assert list(line.get_ydata()) == [r["sides"][side] for r in data["rounds"]]
        spans = [(segment[0][1], segment[1][1]) for segment in bars.get_segments()]
        assert len(spans) == 3
        for (low, high), r in zip(spans, data["rounds"]):
            p, se = r["sides"][side], r["se"]["sides"][side]
            assert se > 0 and (low, high) == pytest.approx((p - 2 * se, p + 2 * se))


@pytest.mark.parametrize("verb", ["odds", "simulate"])
def test_a_fights_plot_that_cannot_be_written_is_one_error_and_no_file(quick, tmp_path, verb):
    pytest.importorskip("matplotlib")
    folder = tmp_path / "plots"
    folder.mkdir()
    path = folder / "missing" / "chances.png"
    result = quick(verb, "fight", "Quick", "--rounds", "2", "--plot", str(path))
    assert result.exit_code == 1, result.output
    assert result.stderr == f"Error: cannot write the plot {path}: No such file or directory\n"
    assert "Traceback" not in result.output
    # not a PNG: a usage error before any work (the fight is not even looked up: no 'no fight named' exit 1)
    refused = quick(verb, "fight", "Nope", "--plot", str(folder / "chances.svg"))
    assert refused.exit_code == 2 and "ending in .png" in refused.stderr
    assert list(folder.iterdir()) == []


def test_a_fights_plot_without_matplotlib_is_one_error(quick, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    path = tmp_path / "plots" / "chances.png"
    path.parent.mkdir()
    result = quick("simulate", "fight", "Quick", "--count", "10", "--seed", "1", "--plot", str(path))
    assert (result.exit_code, result.stderr) == (1, "Error: --plot needs matplotlib: pip install 'tables-app[plot]'\n")
    assert not path.exists()
