"""Human output at any width: nothing cut to `…`, no line wider than the
screen, no trailing padding, every word of every entry readable (issue #12)."""

import json
import re
import shlex
from io import StringIO
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.cells import cell_len
from rich.console import Console

from tables_app.cli import layout, render
from tables_app.cli.root import cli

WIDTHS = (40, 80, 120)
LONGSWORD = ["--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA"]
COMMANDS = {
    "list": ["list"],
    "list weapons": ["list", "weapons"],
    "list creatures": ["list", "creatures"],
    "show critical": ["show", "critical", "Impact"],
    "show fumble": ["show", "fumble", "Melee Fumbles"],
    "show attack": ["show", "attack", "Edged"],
    "show weapon": ["show", "weapon", "Halberd"],
    "query critical": ["query", "critical", "Impact", "60", "--severity", "Lig", "--has", "helm"],
    "resolve table": ["resolve", "table", "--weapon", "Morning Star", "--cmb", "60", "--target", "Orc Warrior", "--seed", "3"],
    "resolve critical": ["resolve", "table", *LONGSWORD, "--dice", "97,99,45,30"],
    "odds table": ["odds", "table", *LONGSWORD],
    "sweep": ["odds", "table", "--weapon", "Longsword", "--cmb", "0", "--target", "Orc Warrior", "--sweep-cmb", "0:150:10"],
    "sweep def": ["odds", "table", *LONGSWORD, "--sweep-def", "0:60:20"],
    "simulate": ["simulate", "table", *LONGSWORD, "--count", "1000"],
    "formula odds": ["odds", "d10-pool", "--bonus", "3", "--attacks", "2", "--ad", "7", "--toughness", "4", "--damage", "2d6"],
}


@pytest.fixture
def at_width(db_path):
    """Run the CLI piped with COLUMNS set (None: COLUMNS unset)."""
    runner = CliRunner()

    def invoke(*args: str, width: int | None = 80, db: Path | None = None):  # type: ignore[no-untyped-def]
        env = {"COLUMNS": None if width is None else str(width)}
        result = runner.invoke(cli, ["--db", str(db or db_path), *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    return invoke


def assert_readable(text: str, width: int) -> None:
    assert "…" not in text
    for line in text.splitlines():
        assert cell_len(line) <= width, (width, line)
        assert line == line.rstrip(), repr(line)
    assert "\x1b[" not in text  # piped: no colour codes


def words(text: str) -> set[str]:
    """Whitespace-separated words, without the brackets and separators the
    layout adds around them."""
    return {word.strip("()[];:,") for word in text.split()} - {""}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_human_output_fits_the_width(at_width, name, width):
    assert_readable(at_width(*COMMANDS[name], width=width), width)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("kind, name", [("critical", "Impact"), ("critical", "Cut"), ("fumble", "Melee Fumbles"), ("fumble", "Missile Fumbles")])
def test_every_word_of_every_entry_is_printed(at_width, kind, name, width):
    shown = words(at_width("show", kind, name, width=width))
    entries = json.loads(at_width("show", kind, name, "--json"))["entries"]
    for e in entries:
        expected = words(e["text"]) | words(e["title"] or "") | words(e["condition"] or "") | {e["range"]}
        assert expected <= shown, (width, e["range"], expected - shown)


def test_critical_entries_are_blocks_under_their_range(at_width):
    out = at_width("show", "critical", "Impact", width=80)
    lines = out.splitlines()
    assert lines[0] == "Impact (critical table, code K)"
    assert "43-50 (helm) Ringing helm" in lines
    at = lines.index("76-85 Collarbone snapped")
    assert lines[at + 1] == "  The collarbone snaps and the whole shoulder sags."
    assert lines[at + 2] == "  +9 hits, stun 2 rnd, penalty -10, drops weapon, useless arm"  # its tags, read (issue 41)
    assert len(lines) < 100  # was 234 lines at 80 columns


def test_piped_without_columns_is_a_sensible_width(at_width):
    out = at_width("list", "weapons", width=None)
    assert_readable(out, layout.PIPED_WIDTH)
    assert max(cell_len(line) for line in out.splitlines()) > 80  # a table, not 80-column records


@pytest.mark.parametrize("width", WIDTHS)
def test_lists_never_cut_a_header_or_a_cell(at_width, width):
    out = at_width("list", "weapons", width=width)
    listed = json.loads(at_width("list", "weapons", "--json"))["weapons"]
    printed = words(out)
    for header in render.LIST_COLUMNS["weapons"][1:]:  # records put the name first, unlabelled
        assert set(header.split("_")) <= printed, header
    for weapon in listed:
        assert words(weapon["name"]) | words(weapon["fumble_table"] or "") <= printed


TWENTY = [f"A{n:02}" for n in range(1, 21)]


@pytest.fixture
def wide_table(write_workbook, db_path, at_width):
    rows = [["Kind", "attack"], ["Name", "Wide"], [], ["Result", *TWENTY]]
    for low, label in ((41, "41+"), (31, "31-40"), (21, "21-30"), (11, "11-20"), (1, "1-10")):
        rows.append([label, *(str(low + n) if low > 1 else "-" for n in range(20))])
    path = write_workbook("wide.xlsx", {"Wide": rows})
    result = CliRunner().invoke(cli, ["--db", str(db_path), "import", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return "Wide"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_twenty_column_grid_splits_into_column_groups(at_width, wide_table, width):
    out = at_width("show", "attack", wide_table, width=width)
    assert_readable(out, width)
    assert set(TWENTY) <= words(out)
    for n in range(20):
        assert str(41 + n) in words(out)
    groups = out.count("Result")
    assert groups > 1  # 20 columns never fit 120 in one table
    assert all(out.count(armor) == 1 for armor in TWENTY)  # each armor column once, no column lost or repeated


def tour_lines() -> list[list[str]]:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("## A short tour", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return [shlex.split(line, comments=True)[1:] for line in block.splitlines() if line.strip()]


def test_the_readme_tour_runs_at_80_columns(db_path, tmp_path, monkeypatch):
    """Every line exactly as written, in an empty directory: each exits 0,
    nothing is cut to `…` and no line of output is wider than 80 (an
    `Error:`/`Warning:` line stays one line, whatever its length)."""
    monkeypatch.chdir(tmp_path)  # the tour writes axe.xlsx and my_tables.xlsx here
    lines = tour_lines()
    assert len(lines) > 10
    runner = CliRunner()
    for args in lines:
        result = runner.invoke(cli, ["--db", str(db_path), *args], env={"COLUMNS": "80"}, catch_exceptions=False)
        assert result.exit_code == 0, (args, result.output)
        if "--json" not in args:  # the database's path is the user's, its length not the layout's (longer under xdist)
            assert_readable(result.stdout.replace(str(db_path), "tables.db"), 80)
        assert "…" not in result.stderr, args
        assert all(len(line) <= 80 for line in result.stderr.splitlines() if not line.startswith(("Error: ", "Warning: "))), args


# ---------------------------------------------------------------- friction items
def test_resolving_against_a_target_names_it(at_width):
    out = at_width("resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--target", "orc warrior", "--seed", "3", width=120)
    assert "vs Orc Warrior (DEF 20, MA" in out.splitlines()[0]
    data = json.loads(at_width("resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--target", "orc warrior", "--seed", "3", "--json"))
    assert data["attack"]["target"] == "Orc Warrior"
    plain = json.loads(at_width("resolve", "table", *LONGSWORD, "--seed", "3", "--json"))
    assert plain["attack"]["target"] is None
    assert "vs DEF 20, MA" in at_width("resolve", "table", *LONGSWORD, "--seed", "3", width=120)


def test_odds_and_sweeps_name_the_target(at_width):
    odds = json.loads(at_width("odds", "table", "--weapon", "Longsword", "--cmb", "60", "--target", "Orc Warrior", "--json"))
    assert odds["attack"]["target"] == "Orc Warrior"
    swept = json.loads(at_width("odds", "table", "--weapon", "Longsword", "--cmb", "0", "--target", "Orc Warrior", "--sweep-cmb", "0:20:10", "--json"))
    assert swept["attack"]["target"] == "Orc Warrior"
    assert json.loads(at_width("odds", "table", *LONGSWORD, "--json"))["attack"]["target"] is None
    out = at_width("odds", "table", "--weapon", "Longsword", "--cmb", "0", "--target", "Orc Warrior", "--sweep-cmb", "0:20:10", width=120)
    assert "Longsword (Edged), CMB 0–20 vs Orc Warrior (DEF 20, MA" in out


def test_one_unused_die_is_singular(db_path):
    runner = CliRunner()
    one = runner.invoke(cli, ["--db", str(db_path), "resolve", "table", *LONGSWORD, "--dice", "97,99,45,30,5"])
    assert "Warning: 1 of the given dice was not needed: 5" in one.stderr
    two = runner.invoke(cli, ["--db", str(db_path), "resolve", "table", *LONGSWORD, "--dice", "97,99,45,30,5,6"])
    assert "Warning: 2 of the given dice were not needed: 5, 6" in two.stderr


def test_a_cell_naming_its_critical_table_says_it_once(at_width, mini_workbook, db_path):
    result = CliRunner().invoke(cli, ["--db", str(db_path), "import", str(mini_workbook)])
    assert result.exit_code == 0, result.output
    out = at_width("query", "attack", "Poke", "35", "Cloth")
    assert out.strip().endswith("(critical on Slash)")
    assert "critical, critical" not in out
    assert at_width("query", "attack", "Poke", "25", "Cloth").strip().endswith("(hit)")


def test_sweep_columns_show_the_same_precision(at_width):
    out = at_width("odds", "table", *LONGSWORD, "--sweep-cmb", "40:60:10", width=120)
    rows = [line.strip("│ ").split("│") for line in out.splitlines() if re.match(r"│\s+\d+ │", line)]
    assert len(rows) == 3
    for row in rows:
        cells = [cell.strip() for cell in row[1:]]
        assert all(re.fullmatch(r"\d+\.\d\d", c) for c in cells[0::2]), cells  # dmg
        assert all(re.fullmatch(r"\d+\.\d\d%", c) for c in cells[1::2]), cells  # crit


def test_odds_probabilities_share_one_precision(at_width):
    out = at_width("odds", "table", *LONGSWORD, width=80)
    cells = re.findall(r"│\s+(\S+) │ [█▏▎▍▌▋▊▉ ]*│", out)
    assert cells
    assert all(re.fullmatch(r"\d+\.\d{4}%|0", c) for c in cells), cells


@pytest.mark.parametrize("p, shown", [(0, "0"), (1e-13, "<0.0001%"), (4.9e-7, "<0.0001%"), (5e-6, "0.0005%"),
                                      (0.5, "50.0000%"), (1 - 1e-13, ">99.9999%"), (1, "100%")])
def test_percent_never_prints_noise_as_zero(p, shown):
    assert render.percent(p) == shown


def print_at(renderable, width: int) -> str:
    buffer = StringIO()
    Console(file=buffer, width=width, color_system=None).print(renderable)
    return buffer.getvalue()


def test_tiny_probabilities_are_not_printed_as_zeros():
    data = {"system": "rise", "outcomes": {"miss": 0.4, "hit": 0.6 - 1e-13, "critical": 1e-13}, "expected_damage": 3.0}
    out = print_at(render.odds(data), 80)
    assert "<0.0001%" in out and not re.search(r"(?<![\d.])0\.0000%", out)


def test_a_bar_is_empty_only_for_a_zero_chance():
    assert render.bar(0) == ""
    assert render.bar(1e-6) == "▏"
    assert render.bar(1) == "█" * render.BAR_WIDTH
    assert render.bar(0.5, 10) == "█████"


def test_a_count_distribution_stops_at_its_last_possible_count(at_width):
    # Rise's criticals: the JSON keeps every count (tails below 1e-12 round to 0);
    # for people the rows stop where the chances do, no "0" under "<0.0001%".
    out = at_width("odds", "rise", "--accuracy", "100", "--def", "-100", "--damage", "1d6", width=80)
    rows = [line.split("│")[2].strip() for line in out.split("Criticals (n)", 1)[1].splitlines() if line.count("│") >= 3]
    assert rows[-1] == "<0.0001%" and "0" not in rows[1:]


# ---------------------------------------------------------------- printed attack tables (issue 15)
@pytest.fixture
def printed_table(write_workbook, db_path):
    """An invented table in the printed shape: no automatic miss, a `<21` bottom, F cells, UM rows."""
    rows = [["Kind", "attack"], ["Name", "Sparks"], ["Automatic miss", "none"], [], ["Result", "NA", "HA"],
            ["UM 96-100", "20 Mod + Lig", "15 Gri"], ["61+", "12 Lig", 6], ["21-60", 3, "—"], ["<21", "F", "F"]]
    path = write_workbook("sparks.xlsx", {"Sparks": rows})
    result = CliRunner().invoke(cli, ["--db", str(db_path), "import", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return "Sparks"


def test_a_printed_grid_shows_its_um_rows_on_top_and_says_every_row_is_read(at_width, printed_table):
    # printed layouts: `UM 96-100` rows read by the unmodified die; `Automatic miss | none`: every row is read
    assert at_width("show", "attack", printed_table, width=80).splitlines() == [
        "Sparks (attack table)",
        "No automatic miss: every row is read.",
        "┏━━━━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━┓",
        "┃    Result ┃           NA ┃     HA ┃",
        "┡━━━━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━┩",
        "│ UM 96-100 │ 20 Mod + Lig │ 15 Gri │",
        "│       61+ │       12 Lig │      6 │",
        "│     21-60 │            3 │      — │",
        "│       <21 │            F │      F │",
        "└───────────┴──────────────┴────────┘",
    ]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_printed_grid_fits_every_width(at_width, printed_table, width):
    out = at_width("show", "attack", printed_table, width=width)
    assert_readable(out, width)
    assert {"UM", "96-100", "F", "<21", "every"} <= words(out)


def test_an_automatic_miss_other_than_ten_is_said_under_the_title(at_width, write_workbook, db_path):
    rows = [["Kind", "attack"], ["Name", "Pebbles"], ["Automatic miss", 4], [], ["Result", "NA"], ["5+", 2], ["1-4", "—"]]
    path = write_workbook("pebbles.xlsx", {"Pebbles": rows})
    assert CliRunner().invoke(cli, ["--db", str(db_path), "import", str(path)]).exit_code == 0
    lines = at_width("show", "attack", "Pebbles", width=80).splitlines()
    assert lines[:2] == ["Pebbles (attack table)", "Automatic miss: a result of 4 or less misses."]
    assert at_width("show", "attack", "Edged", width=80).splitlines()[1].startswith("┏")  # 10, as usual: no line


# ---------------------------------------------------------------- printed critical and fumble tables (issue 15)
@pytest.fixture
def printed_effects(write_workbook, db_path):
    """Invented tables in the printed shapes: a column per severity of the
    default scale (with branches in a cell), and a column per weapon category."""
    jolt = [["Kind", "critical"], ["Name", "Jolt"], ["Code", "J"], [],
            ["Roll", "Sup", "Lig", "Mod", "Gri", "Let"],
            ["01-60", "Static. 1∑", "Tingles. +1H", "Arm numb. 2∏ – (+5)", "Hair stands on end. +4H – 2∑∏ – 1∫ – (-10)",
             "Sparks fly. +5H"],
            ["61+", "+1H", "+2H – 1∑", "With helm: helm rings. +3H. Without helm: +6H – 3∑.", "Heart stops. dies in 3 rounds",
             "Burnt out. instant death"]]
    slips = [["Kind", "fumble"], ["Name", "Slips"], [], ["Roll", "1HE", "2H"],
             ["01-70", "Loses footing. 1∏", "Overswings. (-5)"], ["71+", "Drops it. +1H", "Falls flat. instant death"]]
    path = write_workbook("jolt.xlsx", {"Jolt": jolt, "Slips": slips})
    result = CliRunner().invoke(cli, ["--db", str(db_path), "import", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return "Jolt", "Slips"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_printed_critical_or_fumble_table_fits_every_width_with_every_word(at_width, printed_effects, width):
    # printed layouts: `show` gives "the printed grid": each column's entry under its range
    for kind, name in zip(("critical", "fumble"), printed_effects):
        out = at_width("show", kind, name, width=width)
        assert_readable(out, width)
        shown = words(out)
        data = json.loads(at_width("show", kind, name, "--json"))
        assert set(data["columns"]) <= shown
        for e in data["entries"]:
            assert words(e["text"]) | {e["range"]} <= shown, (width, e["range"], e["column"])


def test_a_printed_critical_table_reads_column_by_column(at_width, printed_effects):
    assert at_width("show", "critical", "Jolt", width=120).splitlines() == [
        "Jolt (critical table, code J)",
        "A column per severity (Sup, Lig, Mod, Gri, Let): the severity picks the column, the roll is not modified.",
        "1-60",
        "  Sup: Static. 1∑",
        "    stun 1 rnd",
        "  Lig: Tingles. +1H",
        "    +1 hits",
        "  Mod: Arm numb. 2∏ – (+5)",
        "    must parry 2, attacker +5",
        "  Gri: Hair stands on end. +4H – 2∑∏ – 1∫ – (-10)",
        "    +4 hits, bleed 1/rnd, stun 2 rnd, no parry 2, penalty -10",
        "  Let: Sparks fly. +5H",
        "    +5 hits",
        "61+",
        "  Sup: +1H",
        "    +1 hits",
        "  Lig: +2H – 1∑",
        "    +2 hits, stun 1 rnd",
        "  Mod: With helm: helm rings. +3H.",
        "    +3 hits",
        "  Mod: Without helm: +6H – 3∑.",
        "    +6 hits, stun 3 rnd",
        "  Gri: Heart stops. dies in 3 rounds",
        "    dies in 3 rounds",
        "  Let: Burnt out. instant death",
        "    instant death",
    ]


@pytest.mark.parametrize("width", (40, 80))
def test_a_query_names_the_column_it_read(at_width, printed_effects, width):
    # printed layouts: the column "is chosen by" the severity; `query fumble TABLE ROLL --column 2H`
    critical = at_width("query", "critical", "Jolt", "70", "--severity", "Mod", width=width)
    assert_readable(critical, width)
    assert critical.splitlines()[0] == "Jolt 70 (61+, column Mod, not helm)"
    assert at_width("query", "fumble", "Slips", "80", "--column", "2h", width=80).splitlines() == [
        "Slips 80 (71+, column 2H)", "Falls flat. instant death", "instant death"]


def test_effects_in_words_name_every_printed_effect():
    entry = {"hits": 4, "bleed": 1, "stun": 3, "no_parry": 2, "must_parry": 1, "penalty": -10, "attacker_bonus": 5,
             "death_in": 1, "effects": ["prone"]}
    assert render.effects(entry) == ("+4 hits, bleed 1/rnd, stun 3 rnd, no parry 2, must parry 1, penalty -10, "
                                     "attacker +5, dies in 1 round, prone")
    assert render.effects({**entry, "death_in": 0, "hits": 0, "effects": []}).endswith("attacker +5, instant death")


def test_a_grid_wider_than_the_screen_folds_its_cells_rather_than_cutting_them():
    """column_groups lets rich skip wrapping only where every column fits
    (cli/layout.py): a column wider than the screen on its own still folds."""
    import io

    from rich.console import Console

    from tables_app.cli.layout import column_groups

    console = Console(file=io.StringIO(), width=20, highlight=False)
    console.print(column_groups(("Result", ["01-05", "96-100"]), [[("NA", ["Attack automatically misses", "3"])]], 20))
    text = console.file.getvalue()
    assert_readable(text, 20)
    assert "automatical" in text
