"""Charts of odds and sweeps (matplotlib, the optional ``plot`` extra).

A sweep is two panels over the swept value, expected damage above and
P(critical) below, one line per armor column with the target's armor drawn
heavier; one attack's odds are outcome bars (and its critical severities
beside them). Titles say who attacks whom, as the text output does. A
fight's odds (or its simulation) are a line per side of P(it has won by the
end of round r), over the rounds as the fight numbers them; a simulation's
with error bars of two standard errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tables_app.cli.render import chances_heading, formula_heading, heading, percent
from tables_app.errors import TablesError
from tables_app.files import check_write_target

if TYPE_CHECKING:  # matplotlib is the optional plot extra: imported when a chart is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

TARGET_STYLE = {"linewidth": 3.0, "alpha": 1.0, "zorder": 3}
OTHER_STYLE = {"linewidth": 1.2, "alpha": 0.7, "zorder": 2}


def save(data: dict[str, Any], path: str) -> None:
    """Write the chart of ``data`` (odds or a sweep, as the JSON output) to a PNG."""
    check_write_target(path, named=f"the plot {path}", suffix=".png")
    chart = figure(data)
    import matplotlib.pyplot as plt

    try:
        chart.savefig(path, format="png")
    except OSError as exc:
        raise TablesError(f"cannot write the plot {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(chart)


def figure(data: dict[str, Any]) -> Figure:
    """The matplotlib Figure of ``data``, laid out and not yet saved (the
    caller closes it): ``save`` writes it, tests read its titles and lines."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no screen needed
    except ImportError:
        raise TablesError("--plot needs matplotlib: pip install 'tables-app[plot]'") from None
    chart = _fight(data) if "fight" in data else _sweep(data) if "sweep" in data else _odds(data)
    chart.tight_layout()
    return chart


def title(data: dict[str, Any]) -> str:
    """Who attacks whom, as the human output heads it, wrapped to the figure."""
    import textwrap

    words = heading(data) if data["system"] == "table" else formula_heading(data)
    return "\n".join(textwrap.wrap(words, 90)) or data["system"]


def _odds(data: dict[str, Any]) -> Figure:
    import matplotlib.pyplot as plt  # loaded by figure, on the Agg backend

    severities = {k: v for k, v in (data.get("critical_severity") or {}).items()}
    panels = 2 if any(severities.values()) else 1
    figure, axes = plt.subplots(1, panels, figsize=(8 + 3 * (panels - 1), 4.5), dpi=120, squeeze=False,
                                gridspec_kw={"width_ratios": [2, 1][:panels]})
    _bars(axes[0][0], data["outcomes"], "#4C72B0")
    axes[0][0].set_ylabel("probability")
    axes[0][0].set_title("outcomes", fontsize=10)
    if panels == 2:
        _bars(axes[0][1], severities, "#C44E52")
        axes[0][1].set_title("critical severity", fontsize=10)
    chance = data["outcomes"].get("critical")
    critical = f", P(critical) {percent(chance, 1)}" if chance is not None else ""
    figure.suptitle(f"{title(data)}\nexpected damage {data['expected_damage']:.2f}{critical}", fontsize=11)
    return figure


def _bars(axes: Axes, values: dict[str, float], color: str) -> None:
    labels = [str(label).replace("_", " ") for label in values]
    heights = list(values.values())
    bars = axes.bar(labels, heights, color=color, zorder=2)
    for bar, value in zip(bars, heights):
        axes.annotate(percent(value, 1), (bar.get_x() + bar.get_width() / 2, value), ha="center", va="bottom", fontsize=8)
    axes.yaxis.set_major_formatter(_percent_formatter())
    axes.grid(axis="y", alpha=0.3, zorder=0)
    axes.tick_params(axis="x", labelsize=8)


def _sweep(data: dict[str, Any]) -> Figure:
    import matplotlib.pyplot as plt  # loaded by figure, on the Agg backend

    axis = data["sweep"]
    target = (data.get("attack") or {}).get("armor")
    figure, (damage, critical) = plt.subplots(2, 1, figsize=(8, 6.5), dpi=120, sharex=True)
    for armor in data["armor"]:
        cells = [c for c in data["grid"] if c["armor"] == armor]
        xs = [c[axis] for c in cells]
        style = TARGET_STYLE if armor == target else OTHER_STYLE
        label = f"{armor} (target)" if armor == target else armor
        damage.plot(xs, [c["expected_damage"] for c in cells], marker="o", markersize=3.5, label=label, **style)
        critical.plot(xs, [c["outcomes"]["critical"] for c in cells], marker="o", markersize=3.5, label=label, **style)
    damage.set_ylabel("expected damage")
    critical.set_ylabel("P(critical)")
    critical.yaxis.set_major_formatter(_percent_formatter())
    critical.set_xlabel(axis.upper())
    for panel in (damage, critical):
        panel.grid(alpha=0.3)
    damage.legend(title="armor", fontsize=8)
    figure.suptitle(f"Expected damage and P(critical) by {axis.upper()}\n{title(data)}", fontsize=11)
    return figure


SIDE_COLORS = ("#4C72B0", "#C44E52", "#55A868", "#8172B2", "#CCB974", "#64B5CD")
ERROR_BARS = 2  # standard errors each side of a simulated share: about 19 times in 20 (as the text output says)


def _fight(data: dict[str, Any]) -> Figure:
    """P(side has won by the end of round r), a line per side; an estimate's with its error bars, certified
    bounds as bars from the lower to the upper bound."""
    import matplotlib.pyplot as plt  # loaded by figure, on the Agg backend
    from matplotlib.ticker import MaxNLocator

    rounds, simulated, certified = data["rounds"], data["method"] == "estimated", data["method"] == "certified"
    figure, axes = plt.subplots(figsize=(8, 4.5), dpi=120)
    xs = [r["round"] for r in rounds]
    for i, side in enumerate(rounds[0]["sides"] if rounds else ()):
        ys = [r["sides"][side] for r in rounds]
        style: dict[str, Any] = {"marker": "o", "markersize": 3.5, "linewidth": 2.0, "color": SIDE_COLORS[i % len(SIDE_COLORS)],
                 "label": f"side {side}"}
        if simulated:
            errors = [ERROR_BARS * r["se"]["sides"][side] for r in rounds]
            axes.errorbar(xs, ys, yerr=errors, capsize=3, elinewidth=1.0, **style)
        elif certified:
            spans = [[y - r["lower"]["sides"][side] for y, r in zip(ys, rounds)],
                     [r["upper"]["sides"][side] - y for y, r in zip(ys, rounds)]]
            axes.errorbar(xs, ys, yerr=spans, capsize=3, elinewidth=1.0, **style)
        else:
            axes.plot(xs, ys, **style)
    axes.set_xlabel("round")
    axes.set_ylabel("P(won by the end of the round)")
    axes.set_ylim(0, 1)
    axes.yaxis.set_major_formatter(_percent_formatter())
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    margin = f" (± {data['se']['expected_rounds']:.2f})" if simulated else ""
    if certified:
        margin = f" ({data['lower']['expected_rounds']:.2f} to {data['upper']['expected_rounds']:.2f})"
    last = f"still going after round {rounds[-1]['round']}: {percent(data['unfinished'], 2)}" if rounds else ""
    bars = f"\nerror bars: {ERROR_BARS} standard errors" if simulated else "\nbars: the certified bounds" if certified else ""
    figure.suptitle(f"{chances_heading(data)}\nexpected rounds {data['expected_rounds']:.2f}{margin}, {last}{bars}",
                    fontsize=11)
    return figure


def _percent_formatter() -> PercentFormatter:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1.0)
