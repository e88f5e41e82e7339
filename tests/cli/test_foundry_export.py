"""`tables export --format foundry` (docs/foundry.md): critical and fumble
tables as Foundry VTT RollTables (one per printed column, one per severity
of a one-column critical table), attack tables as
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
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.services.foundry import (FOUNDRY_SHAPE, FOUNDRY_VERSIONS, OPEN_TOP, document_id, entry_words, reachable,
                                         rolltable, rolltables, safe_stem, unique_file_names)
from tables_app.services.lookups import entry_json

DATA = Path(__file__).resolve().parents[1] / "data"
SCHEMAS = {kind: json.loads((DATA / f"foundry_{kind}.schema.json").read_text(encoding="utf-8")) for kind in ("rolltable", "journal")}
SEVERITIES = {"Sup": 0, "Lig": 10, "Mod": 20, "Gri": 30, "Let": 50}  # the default scale's modifiers
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
    assert len(files) == len(BUNDLED["critical"]) * len(SEVERITIES) + len(BUNDLED["fumble"]) + len(BUNDLED["attack"])
    names = {}
    for path in out.iterdir():
        document = validate(path)
        names[document["name"]] = document
    criticals = [f"{name} \u2014 {code}" for name in BUNDLED["critical"] for code in SEVERITIES]  # a RollTable per severity
    assert sorted(names) == sorted(criticals + BUNDLED["fumble"] + BUNDLED["attack"])
    for name in criticals + BUNDLED["fumble"]:
        table = names[name]
        modifier = SEVERITIES.get(name.rpartition(" ")[2], 0)
        formula = f"1d100 + {modifier}" if modifier else "1d100"
        assert (table["formula"], table["replacement"], table["displayRoll"]) == (formula, True, True)
        assert all(r["type"] == "text" and r["weight"] == 1 and r["drawn"] is False for r in table["results"])
        if name in BUNDLED["fumble"]:
            assert covered(table["results"]) == list(range(1, 101)), name  # 1-100 without a gap or an overlap
        else:  # exactly what 1d100 + M rolls, each total once, every result reachable
            rolled = range(1 + modifier, 101 + modifier)
            assert sorted(n for r in table["results"] for n in range(r["range"][0], r["range"][1] + 1)) == list(rolled), name
        assert f"Foundry VTT {FOUNDRY_VERSIONS[0]}-{FOUNDRY_VERSIONS[-1]}" in table["description"]


def test_the_json_output(run, tmp_path):
    result = export(run, tmp_path / "out", "Edged", "Cut", "S", "Melee Fumbles", "--json")  # Cut also by its code: once
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data == {
        "written": [str(tmp_path / "out" / f) for f in (*(f"critical-Cut-{c}.json" for c in SEVERITIES),
                                                         "fumble-Melee_Fumbles.json", "attack-Edged.json")],
        "format": "foundry", "directory": str(tmp_path / "out"),
        "tables": {"attack": 1, "critical": 1, "fumble": 1}, "documents": {"RollTable": 6, "JournalEntry": 1},
        "attack": ["Edged"], "critical": ["Cut"], "fumble": ["Melee Fumbles"],
    }
    people = export(run, tmp_path / "again", "Edged", "Cut")
    assert people.stdout == (f"Wrote 6 files to {tmp_path / 'again'}: 1 attack table, 1 critical table "
                             "(5 RollTables, 1 JournalEntry)\n")
    one = export(run, tmp_path / "one", "Melee Fumbles")
    assert one.stdout == f"Wrote 1 file to {tmp_path / 'one'}: 1 fumble table (1 RollTable)\n"


# ---------------------------------------------------------------- texts and ranges
def test_texts_carry_the_effects_in_words(run, tmp_path):
    assert export(run, tmp_path, "Impact", "Cut").exit_code == 0
    impact = validate(tmp_path / "critical-Impact-Lig.json")
    by_range = {tuple(r["range"]): r["text"] for r in impact["results"]}
    # as `tables query critical Impact 60 --severity Lig` shows it
    assert by_range[(67, 75)] == ("Forearm cracked. A bone in the forearm cracks audibly and the weapon falls. "
                                  "(+7 hits, stun 1 rnd, penalty -5, drops weapon)")  # its tag `drop weapon`, read
    cut = {tuple(r["range"]): r["text"] for r in validate(tmp_path / "critical-Cut-Let.json")["results"]}
    branches = cut[(111, 120)]  # both branches in one result, each after its condition
    assert branches.startswith("With helm: Helm sheared. ") and " Without helm: Scalp flayed. " in branches
    assert "(+14 hits, bleed 3/rnd, stun 1 rnd, penalty -15, blinded 2 rnd)" in branches  # its tag `blinded 2`


def test_effect_words_are_the_words_the_cli_shows(opened):
    reader = opened.reader()
    for kind in ("critical", "fumble"):
        for item in reader.list_named(kind):
            table = reader.load_effect_table(TableKind(kind), item["name"])
            for entry in table.entries:
                assert entry_words(entry) == shown_effects(entry_json(entry))


def test_rows_beyond_the_die_keep_their_range_and_are_said(run, tmp_path):
    assert export(run, tmp_path, "Cut", "Melee Fumbles").exit_code == 0
    cut = validate(tmp_path / "critical-Cut-Let.json")  # 1d100 + 50 reads Cut's rows to the top
    assert cut["formula"] == "1d100 + 50"
    assert [r["range"] for r in cut["results"]][-3:] == [[136, 140], [141, 145], [146, 150]]  # `146+`, capped at 150
    assert "146+ is written 146-150" in cut["description"]
    assert "severity Let (Lethal) of Sup +0, Lig +10, Mod +20, Gri +30, Let +50" in cut["description"]
    superficial = validate(tmp_path / "critical-Cut-Sup.json")
    assert superficial["results"][-1]["range"][1] == 100 and "left out: 101-110, 111-120" in superficial["description"]
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


# ---------------------------------------------------------------- one-column critical tables, by severity
ZAP = [  # an invented one-column critical table: rows to 120, then open
    ["Kind", "critical"], ["Name", "Zap"], ["Code", "Z"], [],
    ["Roll", "Text", "Hits"],
    ["01-30", "A tingle.", 1], ["31-70", "A jolt.", 3], ["71-100", "A shock.", 6], ["101-120", "A blast.", 9],
    ["121+", "Cinders.", 20],
]


def totals(results: list[dict], spans: list[tuple[int, int]]) -> list[int]:
    """Each total the formula rolls, once for every result whose range holds it."""
    return sorted(n for a, b in spans for n in range(a, b + 1) for r in results if r["range"][0] <= n <= r["range"][1])


def test_a_one_column_critical_table_gives_a_rolltable_per_severity(run, tmp_path, write_workbook):
    assert run("import", str(write_workbook("zap.xlsx", {"Zap": ZAP}))).exit_code == 0
    out = tmp_path / "out"
    result = export(run, out, "Zap", "--json")
    assert result.exit_code == 0, result.output
    codes = ("Sup", "Lig", "Mod", "Gri", "Let")  # the default scale: +0, +10, +20, +30, +50
    assert [Path(p).name for p in json.loads(result.stdout)["written"]] == [f"critical-Zap-{c}.json" for c in codes]
    assert json.loads(result.stdout)["documents"] == {"RollTable": 5, "JournalEntry": 0}
    tables = {c: validate(out / f"critical-Zap-{c}.json") for c in codes}
    assert [tables[c]["formula"] for c in codes] == ["1d100", "1d100 + 10", "1d100 + 20", "1d100 + 30", "1d100 + 50"]
    assert [tables[c]["name"] for c in codes] == [f"Zap \u2014 {c}" for c in codes]  # as a printed column is named
    ranges = {c: [r["range"] for r in tables[c]["results"]] for c in codes}
    assert ranges["Sup"] == [[1, 30], [31, 70], [71, 100]]  # 101-120 and 121+ never drawn at +0: left out
    assert ranges["Lig"] == [[11, 30], [31, 70], [71, 100], [101, 110]]
    assert ranges["Let"] == [[51, 70], [71, 100], [101, 120], [121, 150]]  # the open top capped at 1d100 + 50's 150
    for code, modifier in zip(codes, (0, 10, 20, 30, 50)):
        results = tables[code]["results"]
        assert totals(results, [(1 + modifier, 100 + modifier)]) == list(range(1 + modifier, 101 + modifier))  # once each
        assert all(1 + modifier <= r["range"][0] <= r["range"][1] <= 100 + modifier for r in results)  # all reachable
    assert tables["Let"]["results"][-1]["text"] == "Cinders. (+20 hits)"
    description = tables["Let"]["description"]
    assert "Critical table Zap (code Z), severity Let (Lethal) of Sup +0, Lig +10, Mod +20, Gri +30, Let +50" in description
    assert "Severity Let: roll 1d100 + 50, the severity's modifier (+50) added" in description
    assert "121+ is written 121-150" in description and "Rows this roll never reads are left out: 1-30." in description
    # the same ids from one export to the next, and a result keeps its id across severities (its row's)
    assert tables["Lig"]["results"][1]["_id"] != tables["Mod"]["results"][1]["_id"]


def scaled(roll: RollKind = RollKind.D100) -> EffectTable:
    rows = RangeTable([(parse_range(label), (Entry(parse_range(label), text),))
                       for label, text in [("01-30", "A."), ("31-94", "B."), ("95-96", "C."), ("97-140", "D."), ("141+", "E.")]])
    scale = SeverityScale("mild", (Severity("Lo", "Low", -5), Severity("Hi", "High", 45)))
    return EffectTable(TableKind.CRITICAL, "Buzz", rows, roll=roll, scale=scale)


def test_a_severity_below_zero_reads_its_first_row_below_it():
    (lo, low), (hi, high) = rolltables(scaled(), "Mine")
    assert (lo, hi) == ("Lo", "Hi")
    assert (low["name"], low["formula"], high["formula"]) == ("Mine:Buzz \u2014 Lo", "1d100 - 5", "1d100 + 45")
    assert [r["range"] for r in low["results"]] == [[-4, 30], [31, 94], [95, 95]]  # 95-96 cut to 95: the top is 95
    assert [r["range"] for r in high["results"]] == [[46, 94], [95, 96], [97, 140], [141, 145]]
    for table in (low, high):
        jsonschema.validate(table, SCHEMAS["rolltable"])


def test_an_open_ended_critical_table_explodes_in_foundry_too():
    """oeh: 96-100 rolls again and adds, as Foundry's `x>95` does; a total above the top row reads the top row."""
    from dataclasses import replace

    table = replace(scaled(RollKind.OEH), scale=SeverityScale("one", (Severity("Lo", "Low", 0),)))
    (_, data), = rolltables(table, "Mine")
    assert data["formula"] == "1d100x>95"
    assert [r["range"] for r in data["results"]] == [[1, 30], [31, 94], [95, 96], [97, 140], [141, OPEN_TOP]]
    spans = reachable(0, RollKind.OEH)
    assert spans == [(1, 95), (97, OPEN_TOP)]  # a 96 always adds a die: 96 is never the total
    assert totals(data["results"], spans) == [n for a, b in spans for n in range(a, b + 1)]
    assert "1d100x&gt;95 rolls again and adds on 96-100" in data["description"]
    only_96 = replace(table, rows=RangeTable([(parse_range(label), (Entry(parse_range(label), label),))
                                               for label in ("01-95", "96-96", "97+")]))
    assert [r["range"] for r in rolltables(only_96, "Mine")[0][1]["results"]] == [[1, 95], [97, OPEN_TOP]]  # never drawn


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
    assert error_lines(refused) == f"Error: {tmp_path / 'critical-Cut-Sup.json'} already exists; give --force to overwrite it, or another directory\n"
    assert not (tmp_path / "critical-Impact-Sup.json").exists()  # refused before anything is written
    assert (tmp_path / "attack-Edged.json").read_text(encoding="utf-8") == "mine"
    forced = export(run, tmp_path, "Cut", "Edged", "Impact", "--force")
    assert forced.exit_code == 0, forced.output
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert after["attack-Edged.json"] == before["attack-Edged.json"] and "critical-Impact-Let.json" in after


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
    (out / "critical-Cut-Sup.json").symlink_to(elsewhere)
    assert export(run, out, "Cut").exit_code == 1  # there already
    assert export(run, out, "Cut", "--force").exit_code == 0
    assert elsewhere.read_text(encoding="utf-8") == "keep" and not (out / "critical-Cut-Sup.json").is_symlink()
    validate(out / "critical-Cut-Sup.json")


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
    assert str(out / "critical_Escape_evil-Sup.json") in json.loads(result.stdout)["written"]
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


# ---------------------------------------------------------------- one file (--single-file) and its import macro
BUNDLE_SCHEMA = json.loads((DATA / "foundry_bundle.schema.json").read_text(encoding="utf-8"))


def validate_bundle(path: Path) -> dict:
    """The single file, checked against its schema, each document against its own."""
    data = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, BUNDLE_SCHEMA)
    folder_ids = {f["_id"] for f in data["folders"]}
    assert len(folder_ids) == len(data["folders"])
    for kind, schema in (("RollTable", "rolltable"), ("JournalEntry", "journal")):
        for document in data[kind]:
            jsonschema.validate(document, SCHEMAS[schema])
            assert document["folder"] is None or document["folder"] in folder_ids
    return data


def test_single_file_holds_every_document_of_the_per_document_export(printed_run, tmp_path):
    names = ("Cut", "Printed:Hacking", "Melee Fumbles", "Edged")
    assert export(printed_run, tmp_path / "each", *names).exit_code == 0
    result = export(printed_run, tmp_path / "one" / "all.json", "--single-file", *names, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    path = tmp_path / "one" / "all.json"
    assert report == {"written": [str(path)], "format": "foundry", "file": str(path),
                      "tables": {"attack": 1, "critical": 2, "fumble": 1},
                      "documents": {"RollTable": 11, "JournalEntry": 1, "Folder": 2},
                      "attack": ["Edged"], "critical": ["Cut", "Printed:Hacking"], "fumble": ["Melee Fumbles"]}
    bundle = validate_bundle(path)
    assert (bundle["format"], bundle["version"], bundle["foundry"]) == ("tables_app-foundry", 1, [12, 13])
    each = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((tmp_path / "each").iterdir())]
    one = [{k: v for k, v in d.items() if k != "folder"} for d in bundle["RollTable"] + bundle["JournalEntry"]]
    assert sorted(one, key=lambda d: d["name"]) == sorted(each, key=lambda d: d["name"])  # the same documents
    folders = {f["_id"]: f["name"] for f in bundle["folders"]}
    assert sorted(folders.values()) == ["Cut", "Printed:Hacking"]  # a table written as several RollTables
    by_name = {d["name"]: d["folder"] for d in bundle["RollTable"] + bundle["JournalEntry"]}
    assert folders[by_name["Cut \u2014 Let"]] == "Cut" and folders[by_name["Printed:Hacking \u2014 C"]] == "Printed:Hacking"
    assert by_name["Melee Fumbles"] is None and by_name["Edged"] is None
    assert export(printed_run, tmp_path / "again.json", "--single-file", *names).stdout == (
        f"Wrote {tmp_path / 'again.json'}: 1 attack table, 2 critical tables, 1 fumble table "
        "(11 RollTables, 1 JournalEntry, 2 Folders)\n")
    assert path.read_bytes() == (tmp_path / "again.json").read_bytes()  # the same bytes each time


def test_single_file_refusals(run, tmp_path):
    path = tmp_path / "all.json"
    assert export(run, path, "--single-file", "Cut").exit_code == 0
    again = export(run, path, "--single-file", "Cut")
    assert again.exit_code == 1
    assert error_lines(again) == f"Error: {path} already exists; give --force to overwrite it, or another file\n"
    assert export(run, path, "--single-file", "Cut", "--force").exit_code == 0
    folder = export(run, tmp_path, "--single-file", "Cut")
    assert folder.exit_code == 1
    assert error_lines(folder) == f"Error: {tmp_path} is a directory: with --single-file, -o names the file to write\n"
    xlsx = run("export", "--single-file", "-o", str(tmp_path / "x.xlsx"))
    assert xlsx.exit_code == 2 and "--single-file is for --format foundry" in xlsx.stderr
    assert not (tmp_path / "x.xlsx").exists()
    assert [p.name for p in tmp_path.iterdir() if p.suffix in (".json", ".xlsx")] == ["all.json"]  # nothing else written


def doc_macro() -> str:
    """The import macro as docs/foundry.md gives it."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "foundry.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in docs.split("```js\n")[1:]]
    (macro,) = [b for b in blocks if b.startswith("// tables_app: import the file")]
    return macro


# Foundry's dialog, documents and notices stood in for: the macro runs as Foundry runs a script macro (in an async function)
STAND_INS = """
const made = {Folder: [], RollTable: [], JournalEntry: [], notices: []};
const chosen = process.argv[2] === "none" ? undefined : {name: "all.json", text: async () => require("fs").readFileSync(process.argv[2], "utf8")};
globalThis.foundry = {applications: {api: {DialogV2: {prompt: async options => {
  made.prompt = {content: options.content, rejectClose: options.rejectClose};
  return options.ok.callback({}, {form: {elements: {bundle: {files: chosen ? [chosen] : []}}}});
}}}}};
const kind = name => ({implementation: {
  create: async data => { made[name].push(data); return {id: `new${name}${made[name].length}`}; },
  createDocuments: async list => { made[name].push(...list); return list; },
}});
globalThis.Folder = kind("Folder"); globalThis.RollTable = kind("RollTable"); globalThis.JournalEntry = kind("JournalEntry");
globalThis.ui = {notifications: Object.fromEntries(["info", "warn", "error"].map(level => [level, text => made.notices.push([level, text])]))};
"""


def run_macro(tmp_path: Path, file: str) -> dict:
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to run the macro with")
    script = tmp_path / "macro.js"
    script.write_text(STAND_INS + "(async () => {\n" + doc_macro() + "\n})().then(() => console.log(JSON.stringify(made)));\n",
                      encoding="utf-8")
    done = subprocess.run([node, str(script), file], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_import_macro_is_valid_javascript(tmp_path):
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to check the macro with")
    script = tmp_path / "check.js"
    script.write_text("(async () => {\n" + doc_macro() + "\n});\n", encoding="utf-8")
    checked = subprocess.run([node, "--check", str(script)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr


def test_the_import_macro_creates_the_files_documents_in_their_folders(printed_run, tmp_path):
    path = tmp_path / "all.json"
    assert export(printed_run, path, "--single-file", "Cut", "Printed:Hacking", "Edged").exit_code == 0
    bundle = json.loads(path.read_text(encoding="utf-8"))
    made = run_macro(tmp_path, str(path))
    assert made["prompt"]["rejectClose"] is False and 'type="file"' in made["prompt"]["content"]
    assert made["Folder"] == [{k: v for k, v in f.items() if k != "_id"} for f in bundle["folders"]]
    new_ids = {f["_id"]: f"newFolder{i}" for i, f in enumerate(bundle["folders"], 1)}
    assert made["RollTable"] == [{**d, "folder": new_ids.get(d["folder"])} for d in bundle["RollTable"]]
    assert made["JournalEntry"] == bundle["JournalEntry"]
    assert made["notices"] == [["info", "tables: imported from all.json: 10 roll table(s), 1 journal entry(ies), 2 folder(s)"]]
    other = tmp_path / "other.json"
    other.write_text('{"name": "Cut"}', encoding="utf-8")
    refused = run_macro(tmp_path, str(other))
    assert refused["RollTable"] == [] and refused["notices"][0][0] == "error"
    assert run_macro(tmp_path, "none")["notices"][0][0] == "warn"  # Import pressed with no file chosen


def test_the_first_block_of_the_docs_runs_twice(run, tmp_path, monkeypatch):
    """Issue 41: docs/foundry.md's first block failed when run twice (and its second line at once: the first had
    written every file). Each of its commands, run twice in an empty directory, succeeds both times."""
    import re
    import shlex

    doc = (Path(__file__).resolve().parents[2] / "docs" / "foundry.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", doc, re.DOTALL)
    assert block is not None
    commands = [shlex.split(line.split("#")[0]) for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) >= 3 and all(words[:3] == ["tables", "export", "--format"] for words in commands)
    monkeypatch.chdir(tmp_path)
    for time in (1, 2):
        for words in commands:
            result = run(*words[1:])
            assert result.exit_code == 0, (time, words, result.output)
    assert (tmp_path / "tables-foundry.json").is_file() and (tmp_path / "foundry-some" / "attack-Edged.json").is_file()
