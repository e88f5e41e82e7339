"""Charts of odds and sweeps (matplotlib, the optional ``plot`` extra)."""

from __future__ import annotations

from tables_app.errors import TablesError


def save(data: dict, path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no screen needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise TablesError("--plot needs matplotlib: pip install 'tables-app[plot]'") from None
    figure, axes = plt.subplots(figsize=(8, 4.5), dpi=120)
    if "sweep" in data:
        _sweep(axes, data)
    else:
        _outcomes(axes, data)
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as exc:
        raise TablesError(f"cannot write the plot {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(figure)


def _outcomes(axes, data: dict) -> None:  # type: ignore[no-untyped-def]
    labels = [label.replace("_", " ") for label in data["outcomes"]]
    values = list(data["outcomes"].values())
    bars = axes.bar(labels, values, color="#4C72B0")
    for bar, value in zip(bars, values):
        axes.annotate(f"{value:.1%}", (bar.get_x() + bar.get_width() / 2, value), ha="center", va="bottom", fontsize=8)
    axes.set_ylabel("probability")
    title = data["system"]
    if data["system"] == "table":
        a = data["attack"]
        title = f"{a['weapon']}: CMB {a['effective_cmb']} vs DEF {a['defense']}, {a['armor']}"
    axes.set_title(f"{title} — expected damage {data['expected_damage']:.2f}")


def _sweep(axes, data: dict) -> None:  # type: ignore[no-untyped-def]
    axis = data["sweep"]
    for armor in data["armor"]:
        cells = [c for c in data["grid"] if c["armor"] == armor]
        axes.plot([c[axis] for c in cells], [c["expected_damage"] for c in cells], label=armor)
    axes.set_xlabel(axis.upper())
    axes.set_ylabel("expected damage")
    axes.set_title(f"Expected damage by {axis.upper()}")
    axes.legend(title="armor")
