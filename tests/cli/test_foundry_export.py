"""`tables export --format foundry` (docs/foundry.md): critical and fumble
tables as Foundry VTT RollTables (one per printed column), attack tables as
JournalEntries holding the grid; every file checked against the hand-written
schemas in tests/data."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
from helpers import error_lines

from tables_app.domain.ranges import RangeTable, parse_range
from tables_app.domain.tables import ColumnChoice, EffectTable, Entry, RollKind, TableKind
from tables_app.cli.render import effects as shown_effects
from tables_app.services.foundry import (FOUNDRY_SHAPE, FOUNDRY_VERSIONS, OPEN_TOP, document_id, entry_words, rolltable,
                                         safe_stem, unique_file_names)
from tables_app.services.lookups import entry_json

DATA = Path(__file__).resolve().parents[1] / "data"
SCHEMAS = {kind: json.loads((DATA / f"foundry_{kind}.schema.json").read_text(encoding="utf-8")) for kind in ("rolltable", "journal")}
BUNDLED = {"critical": ["Cut", "Fire", "Frost", "Grapple", "Impact", "Lightning", "Pierce"],
           "fumble": ["Melee Fumbles", "Missile Fumbles"],
           "attack": ["Blunt", "Bolt Spells", "Claws and Teeth", "Edged", "Missile", "Unarmed"]}


def validate(path: Path) -> dict:
    """The document in ``path``, checked against its schema, and what no schema says: ascending ranges, unique ids."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if path.name.startswith("attack-"):
        jsonschema.validate(data, SCHEMAS["journal"])
        ids = [page["_id"] for page in data["pages"]]
    else:
        jsonschema.validate(data, SCHEMAS["rolltable"])
        assert all(low <= high for low, high in (r["range"] for r in data["results"])), path
        ids = [r["_id"] for r in data["results"]]
    assert len(set(ids)) == len(ids), path
    return data


def export(run, out: Path, *args: str):  # type: ignore[no-untyped-def]
    return run("export", "--format", "foundry", "-o", str(out), *args)


def covered(results: list[dict]) -> list[int]:
    """The faces 1-100 each result covers, in order (a face twice: an overlap)."""
    return sorted(n for r in results for n in range(max(r["range"][0], 1), min(r["range"][1], 100) + 1))


@pytest.fixture
def printed_run(run):  # type: ignore[no-untyped-def]
    """The CLI on a database that holds the example workbook (ruleset Printed) too."""
    path = json.loads(run("example", "printed", "--json").stdout)["path"]
    assert run("import", path).exit_code == 0
    return run


# ---------------------------------------------------------------- every bundled table
def test_every_bundled_table_is_exported_and_valid(run, tmp_path):
    out = tmp_path / "foundry"  # made: it is missing
    result = export(run, out, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    files = sorted(p.name for p in out.iterdir())
    assert sorted(Path(p).name for p in data["written"]) == files
    assert all(Path(p).parent == out for p in data["written"])
    assert len(files) == sum(len(names) for names in BUNDLED.values())
    names = {}
    for path in out.iterdir():
        document = validate(path)
        names[document["name"]] = document
    assert sorted(names) == sorted(n for kind in BUNDLED.values() for n in kind)
    for name in BUNDLED["critical"] + BUNDLED["fumble"]:
        table = names[name]
        assert (table["formula"], table["replacement"], table["displayRoll"]) == ("1d100", True, True)
        assert all(r["type"] == "text" and r["weight"] == 1 and r["drawn"] is False for r in table["results"])
        assert covered(table["results"]) == list(range(1, 101)), name  # 1-100 without a gap or an overlap
        assert f"Foundry VTT {FOUNDRY_VERSIONS[0]}-{FOUNDRY_VERSIONS[-1]}" in table["description"]


def test_the_json_output(run, tmp_path):
    result = export(run, tmp_path / "out", "Edged", "Cut", "S", "Melee Fumbles", "--json")  # Cut also by its code: once
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data == {
        "written": [str(tmp_path / "out" / f) for f in ("critical-Cut.json", "fumble-Melee_Fumbles.json", "attack-Edged.json")],
        "format": "foundry", "directory": str(tmp_path / "out"),
        "tables": {"attack": 1, "critical": 1, "fumble": 1}, "documents": {"RollTable": 2, "JournalEntry": 1},
        "attack": ["Edged"], "critical": ["Cut"], "fumble": ["Melee Fumbles"],
    }
    people = export(run, tmp_path / "again", "Edged", "Cut")
    assert people.stdout == (f"Wrote 2 files to {tmp_path / 'again'}: 1 attack table, 1 critical table "
                             "(1 RollTable, 1 JournalEntry)\n")
    one = export(run, tmp_path / "one", "Cut")
    assert one.stdout == f"Wrote 1 file to {tmp_path / 'one'}: 1 critical table (1 RollTable)\n"


# ---------------------------------------------------------------- texts and ranges
def test_texts_carry_the_effects_in_words(run, tmp_path):
    assert export(run, tmp_path, "Impact", "Cut").exit_code == 0
    impact = validate(tmp_path / "critical-Impact.json")
    by_range = {tuple(r["range"]): r["text"] for r in impact["results"]}
    # as `tables query critical Impact 60 --severity Lig` shows it
    assert by_range[(67, 75)] == ("Forearm cracked. A bone in the forearm cracks audibly and the weapon falls. "
                                  "(+7 hits, stun 1 rnd, penalty -5, drop weapon)")
    cut = {tuple(r["range"]): r["text"] for r in validate(tmp_path / "critical-Cut.json")["results"]}
    branches = cut[(111, 120)]  # both branches in one result, each after its condition
    assert branches.startswith("With helm: Helm sheared. ") and " Without helm: Scalp flayed. " in branches
    assert "(+14 hits, bleed 3/rnd, stun 1 rnd, penalty -15, blinded 2)" in branches


def test_effect_words_are_the_words_the_cli_shows(opened):
    reader = opened.reader()
    for kind in ("critical", "fumble"):
        for item in reader.list_named(kind):
            table = reader.load_effect_table(TableKind(kind), item["name"])
            for entry in table.entries:
                assert entry_words(entry) == shown_effects(entry_json(entry))


def test_rows_beyond_the_die_keep_their_range_and_are_said(run, tmp_path):
    assert export(run, tmp_path, "Cut", "Melee Fumbles").exit_code == 0
    cut = validate(tmp_path / "critical-Cut.json")
    assert [r["range"] for r in cut["results"]][-3:] == [[136, 140], [141, 145], [146, OPEN_TOP]]  # `146+`
    assert "Rows beyond 1-100 (101-110, 111-120, 121-130, 131-135, 136-140, 141-145, 146+) are reached only with a modifier" \
        in cut["description"]
    assert "add the severity's modifier (Sup +0, Lig +10, Mod +20, Gri +30, Let +50)" in cut["description"]
    fumbles = validate(tmp_path / "fumble-Melee_Fumbles.json")
    assert [96, 105] in [r["range"] for r in fumbles["results"]]
    assert "(96-105, 106-120, 121+)" in fumbles["description"]


def printed_table(rows: list[tuple[str, str]]) -> EffectTable:
    entries = [(parse_range(label), (Entry(parse_range(label), text, hits=3, column="A"),)) for label, text in rows]
    column = RangeTable(entries)
    return EffectTable(TableKind.CRITICAL, "Slash", column, "S", choice=ColumnChoice.SEVERITY, columns=("A",), column_rows=(column,))


def test_open_ended_rows_are_clipped_to_the_die_and_said():
    table = printed_table([("<05", "Miss."), ("5-95", "Cut & <b>."), ("96+", "Deep cut.")])
    data = rolltable(table, "RM", 0)
    jsonschema.validate(data, SCHEMAS["rolltable"])
    assert data["name"] == "RM:Slash \u2014 A"
    assert [r["range"] for r in data["results"]] == [[1, 4], [5, 95], [96, 100]]
    assert "Open-ended rows are clipped to the die's 1-100: &lt;5 is written 1-4; 96+ is written 96-100." in data["description"]
    assert "beyond 1-100" not in data["description"]
    assert data["results"][1]["text"] == "Cut &amp; &lt;b&gt;. (+3 hits)"  # TableResult text is HTML
    assert rolltable(table, "default", 0)["name"] == "Slash \u2014 A"


# ---------------------------------------------------------------- printed tables
def test_a_printed_critical_table_gives_a_rolltable_per_severity(printed_run, tmp_path):
    result = export(printed_run, tmp_path, "Printed:Hacking", "--json")
    assert result.exit_code == 0, result.output
    files = [Path(p).name for p in json.loads(result.stdout)["written"]]
    assert files == [f"critical-Printed_Hacking-{c}.json" for c in "ABCDE"]
    for column in "ABCDE":
        data = validate(tmp_path / f"critical-Printed_Hacking-{column}.json")
        assert data["name"] == f"Printed:Hacking \u2014 {column}"
        assert [r["range"] for r in data["results"]] == [[1, 5], [6, 15], [16, 30], [31, 45], [46, 60], [61, 75], [76, 85],
                                                          [86, 95], [96, 99], [100, 100]]
        assert covered(data["results"]) == list(range(1, 101))
        assert f"Column {column}: the severity picks the column; the roll is not modified." in data["description"]
    e = validate(tmp_path / "critical-Printed_Hacking-E.json")["results"]
    assert e[5]["text"].startswith("With helm: Helm strap cut") and "Without helm: Scalp opened" in e[5]["text"]
    assert e[0]["text"].endswith("(+7 hits, bleed 2/rnd, stun 1 rnd, penalty -15)")
    d = validate(tmp_path / "critical-Printed_Hacking-D.json")["results"]
    assert d[3]["text"].startswith("w/ leg armor: ")  # it says its condition: not said twice


def test_a_printed_fumble_table_gives_a_rolltable_per_weapon_category(printed_run, tmp_path):
    out = tmp_path / "out"
    assert export(printed_run, out, "--ruleset", "Printed").exit_code == 0
    fumbles = sorted(p.name for p in out.glob("fumble-*"))
    assert fumbles == [f"fumble-Printed_Weapon_Mishaps-{c}.json" for c in ("1HC", "1HE", "2H", "MIS")]
    data = validate(out / "fumble-Printed_Weapon_Mishaps-2H.json")
    assert data["results"][-1]["range"] == [101, OPEN_TOP]
    assert "Column 2H: the weapon's Fumble column picks the column. Roll 1d100 and add" in data["description"]
    assert not list(out.glob("*Cut*"))  # --ruleset: only Printed's
    assert len(list(out.iterdir())) == 3 + 3 * 5 + 4
    for path in out.iterdir():
        validate(path)


def test_an_open_ended_fumble_table_says_foundry_does_not_open_its_die():
    # docs/workbook-format.md, "Open-ended critical and fumble rolls": the tables roll it open-ended, Foundry's 1d100 does not
    from dataclasses import replace

    rows = RangeTable([(parse_range("1-100"), (Entry(parse_range("1-100"), "Slips."),)),
                       (parse_range("101+"), (Entry(parse_range("101+"), "Falls on own blade."),))])
    table = EffectTable(TableKind.FUMBLE, "Spills", rows)
    note = "The tables roll this die oeh (open-ended); Foundry's 1d100 does not."
    assert note in rolltable(replace(table, roll=RollKind.OEH), "RM")["description"]
    assert "open-ended" not in rolltable(table, "RM")["description"]


class Grid(HTMLParser):
    """The rows of every <table> in a page: each a list of its cells' texts."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):  # type: ignore[no-untyped-def]
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data):  # type: ignore[no-untyped-def]
        if self.cell is not None:
            self.cell.append(data)


def test_the_attack_journal_holds_the_grid_as_printed(printed_run, tmp_path):
    assert export(printed_run, tmp_path, "Printed:Bladework", "Edged").exit_code == 0
    for name, file in (("Printed:Bladework", "attack-Printed_Bladework.json"), ("Edged", "attack-Edged.json")):
        journal = validate(tmp_path / file)
        (page,) = journal["pages"]
        assert (journal["name"], page["name"], page["type"], page["text"]["format"]) == (name, name, "text", 1)
        grid = Grid()
        grid.feed(page["text"]["content"])
        shown = json.loads(printed_run("show", "attack", name, "--json").stdout)
        assert grid.rows[0] == ["Result", *shown["armor"]]
        printed = [[row["range"], *row["cells"]] for row in reversed(shown["rows"])]  # UM rows on top, then highest first
        assert grid.rows[1:] == printed
        assert len(grid.rows) == len(shown["rows"]) + 1 and {len(r) for r in grid.rows} == {len(shown["armor"]) + 1}
    bladework = Grid()
    bladework.feed(validate(tmp_path / "attack-Printed_Bladework.json")["pages"][0]["text"]["content"])
    assert bladework.rows[1][0].startswith("UM ")
    assert any(" " in cell and cell.split()[0].isdigit() for row in bladework.rows[1:] for cell in row[1:])  # `18 E` cells


# ---------------------------------------------------------------- reproducible, safe
def test_two_exports_are_the_same_bytes(run, tmp_path):
    assert export(run, tmp_path / "one").exit_code == 0
    assert export(run, tmp_path / "two").exit_code == 0
    one = {p.name: p.read_bytes() for p in (tmp_path / "one").iterdir()}
    assert one == {p.name: p.read_bytes() for p in (tmp_path / "two").iterdir()}
    assert document_id("default", "critical", "cut", "", "1-5") == document_id("default", "critical", "cut", "", "1-5")
    assert document_id("default", "critical", "cut", "", "1-5") != document_id("default", "critical", "cut", "", "6-10")


def test_files_there_are_refused_without_force(run, tmp_path):
    tmp_path = tmp_path / "out"
    assert export(run, tmp_path, "Cut", "Edged").exit_code == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    (tmp_path / "attack-Edged.json").write_text("mine", encoding="utf-8")
    refused = export(run, tmp_path, "Cut", "Edged", "Impact")
    assert refused.exit_code == 1
    assert error_lines(refused) == f"Error: {tmp_path / 'critical-Cut.json'} already exists; give --force to overwrite it, or another directory\n"
    assert not (tmp_path / "critical-Impact.json").exists()  # refused before anything is written
    assert (tmp_path / "attack-Edged.json").read_text(encoding="utf-8") == "mine"
    forced = export(run, tmp_path, "Cut", "Edged", "Impact", "--force")
    assert forced.exit_code == 0, forced.output
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert after["attack-Edged.json"] == before["attack-Edged.json"] and "critical-Impact.json" in after


@pytest.mark.parametrize("name, stem", [
    ("../../etc/passwd", "etc_passwd"),
    ("a/b\\c:d", "a_b_c_d"),
    ("..", "table"),
    ("", "table"),
    ("evil\x00name\x1b[31m\n", "evil_name_31m"),
    (".hidden", "hidden"),
    ("Slash \u2014 C", "Slash_C"),
    ("É\u0301pée", "É_pée"),
    ("RM:Arms Law: Slash", "RM_Arms_Law_Slash"),
])
def test_hostile_names_make_safe_file_names(name, stem):
    safe = safe_stem(name)
    assert safe == stem
    assert "/" not in safe and "\\" not in safe and ".." not in safe and safe.isprintable() and not safe.startswith(".")


def test_file_names_are_capped_and_unique():
    assert len(safe_stem("x" * 10_000).encode()) == 120
    assert len(safe_stem("é" * 10_000).encode()) <= 120  # never half a character
    assert unique_file_names(["Cut", "cut", "Cut", "Cut-2"]) == ["Cut.json", "cut-2.json", "Cut-3.json", "Cut-2-2.json"]


def test_force_replaces_a_link_and_never_writes_through_it(run, tmp_path):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere.json"
    out.mkdir()
    elsewhere.write_text("keep", encoding="utf-8")
    (out / "critical-Cut.json").symlink_to(elsewhere)
    assert export(run, out, "Cut").exit_code == 1  # there already
    assert export(run, out, "Cut", "--force").exit_code == 0
    assert elsewhere.read_text(encoding="utf-8") == "keep" and not (out / "critical-Cut.json").is_symlink()
    validate(out / "critical-Cut.json")


def test_every_file_stays_in_the_directory(run, tmp_path):
    """Names in a workbook may hold path separators and dots: they never leave DIR."""
    sheets = tmp_path / "evil.xlsx"
    from helpers import MINI_CRITICAL, build_workbook

    rows = [list(row) for row in MINI_CRITICAL]
    rows[1] = ["Name", "../../Escape/.. \\ evil"]
    rows = [["81+", *row[1:]] if row[:1] == ["81\u2013110"] else row for row in rows]  # up to an open top
    build_workbook(sheets, {"Evil": rows})
    imported = run("import", str(sheets))
    if imported.exit_code != 0:
        pytest.skip(f"the importer refuses the name: {imported.output.strip()[-200:]}")
    out = tmp_path / "out"
    result = export(run, out, "--json")
    assert result.exit_code == 0, result.output
    assert str(out / "critical_Escape_evil.json") in json.loads(result.stdout)["written"]
    for written in json.loads(result.stdout)["written"]:
        assert Path(written).parent == out and Path(written).resolve().parent == out.resolve()
        validate(Path(written))


# ---------------------------------------------------------------- failures
def test_failures_are_one_error_line(run, tmp_path):
    a_file = tmp_path / "file.json"
    a_file.write_text("{}", encoding="utf-8")
    cases = [
        (export(run, a_file), 1, f"Error: {a_file} is not a directory\n"),
        (export(run, tmp_path / "x", "Nope"), 1, "Error: nothing named 'Nope' to export (see `tables list`)\n"),
        (export(run, tmp_path / "x", "Longsword"), 1,
         "Error: 'Longsword' is a weapon: --format foundry writes attack, critical and fumble tables only\n"),
        (export(run, tmp_path / "x", "--ruleset", "Nope"), 1, None),
    ]
    for result, code, line in cases:
        assert result.exit_code == code, result.output
        assert len(error_lines(result).splitlines()) == 1, result.stderr
        if line:
            assert error_lines(result) == line
    assert not (tmp_path / "x").exists()  # nothing made on a failure


def test_usage_mistakes_exit_2(run, tmp_path):
    wrong = run("export", "--format", "pdf", "-o", str(tmp_path / "x"))
    assert wrong.exit_code == 2 and "Invalid value for '--format'" in wrong.stderr
    missing = run("export", "--format", "foundry")
    assert missing.exit_code == 2 and "Missing option '-o'" in missing.stderr
    blank = run("export", "--format", "foundry", "-o", " ")
    assert blank.exit_code == 2 and error_lines(blank) == "Error: -o must name a directory for --format foundry\n"
    # xlsx stays the default, and its -o is still a file, never a directory
    assert run("export", "-o", str(tmp_path)).exit_code == 2
    assert run("export", "--format", "xlsx", "-o", str(tmp_path / "x.json")).exit_code == 2
    assert run("export", "-o", str(tmp_path / "x.xlsx"), "Edged").exit_code == 0


def test_the_version_range_is_stated():
    assert FOUNDRY_SHAPE == 12 and FOUNDRY_VERSIONS == (12, 13)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "foundry.md").read_text(encoding="utf-8")
    assert "Foundry VTT 12 and 13" in docs and "Import Data" in docs
