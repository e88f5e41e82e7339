"""`--plot`: what the charts say, where they go, and what is refused (issue #12)."""

import json

import pytest
from click.testing import CliRunner

from tables_app.cli import cli

PNG = b"\x89PNG\r\n\x1a\n"
SWEEP = ["odds", "table", "--weapon", "Longsword", "--cmb", "0", "--target", "Orc Warrior", "--sweep-cmb", "0:100:10"]


@pytest.fixture
def invoke(db_path):
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, ["--db", str(db_path), *args], catch_exceptions=False)


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


def figure_of(monkeypatch, data):  # type: ignore[no-untyped-def]
    """The figure plot.save would write, kept open for inspection."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tables_app import plot

    from matplotlib.figure import Figure

    kept = []
    monkeypatch.setattr(plt, "close", lambda figure: kept.append(figure))
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: None)
    plot.save(data, "ignored.png")
    return kept[0]


def test_a_sweep_names_who_attacks_whom_and_highlights_the_target_armor(invoke, monkeypatch):
    data = json.loads(invoke(*SWEEP, "--json").stdout)
    figure = figure_of(monkeypatch, data)
    title = figure._suptitle.get_text()
    assert "Longsword" in title and "CMB 0–100" in title and "Orc Warrior" in title and "DEF 20" in title
    damage, critical = figure.axes
    assert critical.get_ylabel() == "P(critical)"  # P(critical) has its own panel
    lines = {line.get_label(): line for line in damage.get_lines()}
    assert set(lines) == {"NA", "LA", "MA (target)", "HA"}
    assert lines["MA (target)"].get_linewidth() > lines["NA"].get_linewidth()
    assert all(line.get_marker() == "o" for line in lines.values())  # the sampled points
    assert len(lines["NA"].get_xdata()) == 11
    assert damage.xaxis.get_gridlines()[0].get_visible() and critical.yaxis.get_gridlines()[0].get_visible()


def test_one_attacks_odds_plot_names_weapon_cmb_and_target(invoke, monkeypatch):
    data = json.loads(invoke("odds", "table", "--weapon", "Longsword", "--cmb", "60", "--target", "Orc Warrior", "--json").stdout)
    figure = figure_of(monkeypatch, data)
    title = figure._suptitle.get_text()
    assert "Longsword (Edged), CMB 60 vs Orc Warrior (DEF 20, MA" in title
    assert "P(critical)" in title
    assert len(figure.axes) == 2  # outcomes, and the critical severities beside them


def test_formula_odds_plot(invoke, monkeypatch):
    data = json.loads(invoke("odds", "rise", "--accuracy", "6", "--def", "12", "--damage", "2d6+3", "--json").stdout)
    figure = figure_of(monkeypatch, data)
    assert figure._suptitle.get_text().startswith("rise\nexpected damage")
