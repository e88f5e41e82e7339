"""Branches inside a printed critical or fumble cell, as a real import reads
them: a line break in the cell opens a sentence, though every cell's text is
folded to single spaces (docs/workbook-format.md, "Branches inside a cell").

Every entry here is invented for these tests, in the printed shape only.
"""

from __future__ import annotations

import json
import pickle

import pytest
from helpers import Rows, ok, reexported, sheets_of

from tables_app.sheets import calamine_read
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook
from tables_app.sheets.values import LinedText, clean, with_lines

RUNES: Rows = [
    ["Kind", "severities"], ["Name", "Runes"], [],
    ["Code", "Name", "Modifier"], ["A", "Faint", 0], ["B", "Dim", 5],
]
GLARE: Rows = [
    ["Kind", "critical"], ["Name", "Glare\nTable"], ["Code", "G"], ["Severities", "Runes"], [],
    ["Roll", "A", "B"],
    ["01-50", "With helm: +4H – 1∑\nWithout helm: +7H", "Dazed\nWith helm: +1H. Without helm: 1∑"],
    ["51+", "With shield: +2H\n+6H", "Blinded.\r\n\r\n+3H   – 2∫"],
]
BOOK = {"Ruleset": [["Kind", "ruleset"], ["Name", "Inv"]], "Runes": RUNES, "Glare": GLARE}


# ------------------------------------------------------------------ cleaning keeps the lines aside

@pytest.mark.parametrize("raw, folded, lines", [
    ("With helm: +4H\nWithout helm: +7H", "With helm: +4H Without helm: +7H", "With helm: +4H\nWithout helm: +7H"),
    ("  Dazed \r\n\r\n  With helm:  +1H ", "Dazed With helm: +1H", "Dazed\nWith helm: +1H"),
    ("Ｄazed\u2028With ﬁre: 1∑", "Dazed With fire: 1∑", "Dazed\nWith fire: 1∑"),  # NFKC as before
])
def test_a_text_with_line_breaks_is_folded_and_keeps_its_lines(raw, folded, lines):
    cleaned = clean(raw)
    assert (cleaned, type(cleaned), cleaned.lines, with_lines(cleaned)) == (folded, LinedText, lines, lines)
    assert str(cleaned) == folded and type(str(cleaned)) is str  # every other reader sees the folded text
    again = pickle.loads(pickle.dumps(cleaned))
    assert (again, again.lines) == (folded, lines)


@pytest.mark.parametrize("raw", ["One line. +3H", "Trailing break +3H\n", "\n\nLeading breaks"])
def test_a_text_on_one_line_is_a_plain_string(raw):
    assert type(clean(raw)) is str and with_lines(clean(raw)) == clean(raw)


# ------------------------------------------------------------------ the import

@pytest.mark.parametrize("reader", ["calamine", "openpyxl"])
def test_a_line_break_opens_the_second_branch(write_workbook, monkeypatch, reader):
    # the case: `With helm: +4H – 1∑⏎Without helm: +7H` gave helm 11 hits (the break was folded away first)
    if reader == "openpyxl":
        monkeypatch.setattr(calamine_read, "available", lambda: False)
    result = interpret(read_workbook(write_workbook("w.xlsx", BOOK), reader=reader))
    assert result.problems == []
    table = result.critical_tables[0].value
    assert table.name == "Glare Table"  # a name's line break is still a space
    a, b = table.column("A"), table.column("B")
    assert [(e.condition, e.text, e.hits, e.stun) for e in table.row(10, a)[1]] == [
        ("helm", "With helm: +4H – 1∑", 4, 1), ("not helm", "Without helm: +7H", 7, 0)]
    # a title without a full stop, then the branches on their own line
    assert [(e.condition, e.text, e.hits, e.stun) for e in table.row(10, b)[1]] == [
        ("helm", "Dazed With helm: +1H.", 1, 0), ("not helm", "Dazed Without helm: 1∑", 0, 1)]
    # a lone branch ends at the line break: the next line is for everyone else
    assert [(e.condition, e.text, e.hits) for e in table.row(60, a)[1]] == [
        ("shield", "With shield: +2H", 2), ("not shield", "+6H", 6)]
    assert [(e.condition, e.text, e.hits, e.bleed) for e in table.row(60, b)[1]] == [(None, "Blinded. +3H – 2∫", 3, 2)]


def test_cells_exported_with_line_breaks_import_as_they_were(run, write_workbook, tmp_path):
    # export writes a line break where a branch needs one (`Dazed⏎With helm: …`); the import reads it back
    ok(run("import", str(write_workbook("glare.xlsx", BOOK))))
    out = tmp_path / "out.xlsx"
    ok(run("export", "-o", str(out), "--ruleset", "Inv"))
    rows = sheets_of(out)["Glare Table"]
    # (a negation of the open marker opens its branch mid-line, so the first cell needs no break)
    assert rows[7:9] == [("1-50", "With helm: +4H – 1∑ Without helm: +7H", "Dazed\nWith helm: +1H. Without helm: 1∑"),
                         ("51+", "With shield: +2H\n+6H", "Blinded. +3H – 2∫")]
    again = reexported(run, out, tmp_path, "Inv")
    assert sheets_of(again) == sheets_of(out)
    before = json.loads(ok(run("show", "critical", "Inv:Glare Table", "--json")))
    after = json.loads(ok(run("show", "critical", "Inv:Glare Table", "--json", db=tmp_path / "fresh.db")))
    assert after["entries"] == before["entries"]
    assert [(e["column"], e["condition"], e["hits"]) for e in after["entries"] if e["range"] == "1-50"] == [
        ("A", "helm", 4), ("A", "not helm", 7), ("B", "helm", 1), ("B", "not helm", 0)]


# ------------------------------------------------------------------ conditions as books word them

def test_conditions_in_prose_import_as_branches_and_an_unreadable_one_is_unread(write_workbook):
    # docs/workbook-format.md, "Branches inside a cell": conditions in prose; a condition no branch reads is an
    # unread piece of the entry (its effects go to no target), not a refusal of the book
    glare = [row[:] for row in GLARE]
    glare[6] = ["01-50", "If foe has helm, he is in a coma. If no helm, he dies in 1 round", "If no helmet: +5H. 1∑."]
    result = interpret(read_workbook(write_workbook("w.xlsx", {**BOOK, "Glare": glare})))
    assert result.problems == []
    table = result.critical_tables[0].value
    assert [(e.condition, e.death_in) for e in table.row(10, table.column("A"))[1]] == [("helm", None), ("not helm", 1)]
    assert [(e.condition, e.hits, e.stun) for e in table.row(10, table.column("B"))[1]] == [
        ("not helmet", 5, 0), ("helmet", 0, 1)]
    glare[7] = ["51+", "Reels, 1∑. If foe is prone, +5H.", "Blinded. +3H"]
    result = interpret(read_workbook(write_workbook("w.xlsx", {**BOOK, "Glare": glare})))
    assert result.problems == []
    table = result.critical_tables[0].value
    assert [(e.condition, e.text, e.hits, e.stun, e.unread) for e in table.row(60, table.column("A"))[1]] == [
        (None, "Reels, 1∑. If foe is prone, +5H.", 0, 1, ("If foe is prone, +5H.",))]


def test_a_line_break_opens_a_branch_in_the_one_column_layout_too(write_workbook):
    # the one-column layout's Text is read as a printed cell is (docs/workbook-format.md, "Branches inside a cell")
    sheet: Rows = [["Kind", "critical"], ["Name", "Jab"], [], ["Roll", "Text", "Hits"],
                   ["1-50", "With shield: +2H\n+6H", None], ["51+", "Reels.\nFalls.", 2]]
    result = interpret(read_workbook(write_workbook("w.xlsx", {"Jab": sheet})))
    assert result.problems == []
    table = result.critical_tables[0].value
    assert [(e.condition, e.text, e.hits) for e in table.row(10)[1]] == [
        ("shield", "With shield: +2H", 2), ("not shield", "+6H", 6)]
    assert [(e.condition, e.text, e.hits) for e in table.row(60)[1]] == [(None, "Reels. Falls.", 2)]
