"""Every help page at 80 columns (issue 28, item 7): no line past 80, no
description cut to ``...`` (Click cuts a command's sentence to the line; the
groups here wrap it whole), and an option with many choices named, its
choices in the wrapped help rather than one 128-column ``[a|b|...]``."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from tables_app.cli.root import cli


def pages(command: click.Command = cli, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name=path[-1] if path else "tables")
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, name
            found += pages(sub, (*path, name))
    return found


PAGES = pages()


def test_every_command_has_a_page() -> None:
    assert len(PAGES) >= 37 and ("resolve", "d10-pool") in PAGES and ("db", "init") in PAGES


@pytest.mark.parametrize("path", PAGES, ids=lambda path: " ".join(path) or "tables")
def test_a_help_page_fits_80_columns_and_cuts_nothing(path: tuple[str, ...]) -> None:
    result = CliRunner(env={"COLUMNS": "80"}).invoke(cli, [*path, "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    for line in result.output.splitlines():
        assert len(line) <= 80, line
        if not line.lstrip().startswith("Usage:"):  # `COMMAND [ARGS]...` is Click's usage, not a cut
            assert not line.rstrip().endswith("..."), line


def test_the_root_page_gives_each_command_its_whole_sentence() -> None:
    output = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["--help"], terminal_width=80).output
    flat = " ".join(output.split())
    assert "template Write a blank authoring workbook for KIND, ready to fill in and import" in flat
    assert "simulate Count the outcomes of many random attacks (compare with `tables odds`)" in flat


def test_many_choices_are_a_name_and_a_list() -> None:
    output = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["resolve", "d10-pool", "--help"], terminal_width=80).output
    flat = " ".join(output.split())
    assert "--modifier MODIFIER" in flat and "One of: high-ground, cover, total-cover," in flat
    assert "[high-ground|" not in output


def test_resolve_table_gives_the_dice_order() -> None:
    output = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["resolve", "table", "--help"], terminal_width=80).output
    assert "--dice order: the attack die and the dice its open end adds" in " ".join(output.split())


def test_an_argument_of_many_choices_is_a_name_with_its_choices_in_the_help(run) -> None:  # type: ignore[no-untyped-def]
    output = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["show", "--help"], terminal_width=80).output
    assert output.startswith("Usage: cli show [OPTIONS] KIND NAME")  # (CliRunner names the program cli)
    assert "KIND is one of: attack, critical, fumble, weapon, weapons, creature, creatures." in " ".join(output.split())
    assert CliRunner().invoke(cli, ["list", "--help"]).output.startswith("Usage: cli list [OPTIONS] [KIND]")
    refused = run("list", "nothing")
    assert refused.exit_code == 2 and "Invalid value for '[KIND]': 'nothing' is not one of 'attack'" in refused.stderr
