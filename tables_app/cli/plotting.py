"""The `--plot FILE.png` option of the odds and simulate commands, and drawing to it (cli/plot.py, imported
only when a plot is asked for: matplotlib is heavy)."""

from __future__ import annotations

from typing import Any

import click


def _png(_ctx: click.Context, _param: click.Parameter, path: str | None) -> str | None:
    if path is not None and not path.lower().endswith(".png"):  # refused before any work, never renamed
        raise click.BadParameter(f"{path!r}: the plot is a PNG, give a file name ending in .png")
    return path


def plot_option(command: click.Command, words: str = "the odds") -> click.Command:
    return click.option("--plot", "plot_file", type=click.Path(dir_okay=False), callback=_png,
                        help=f"Draw {words} to a PNG file (needs the plot extra).")(command)


def draw(path: str | None, data: dict[str, Any]) -> None:
    """Draw the odds to a PNG and say so on stderr (stdout may be --json)."""
    if path:
        from tables_app.cli import plot

        plot.save(data, path)
        click.echo(f"Wrote {path}", err=True)
