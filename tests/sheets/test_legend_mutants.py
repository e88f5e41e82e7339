"""Rules of legends and one-column branches that no other test pinned down:
a ruleset sheet's legend reads only the sheets of its own ruleset, a row's
Condition picks the branch of its own feature, a sign's count may be spaced
(docs/workbook-format.md, "Legends", "Effects in the one-column layout").
Every table and entry here is invented, in the printed shape only.
"""

from __future__ import annotations

from pathlib import Path

from tables_app.domain.effects import parse_effects
from tables_app.domain.legend import DEFAULT_LEGEND, parse_legend
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

# docs/workbook-format.md, "Legends": the RMFRP-style key
FRP_LEGEND = "H hits; ∑ stun; ∑∏ stun no parry; ∏ no parry; π must parry; ∫ bleed"
RULESET = [
    ["Kind", "ruleset"], ["Name", "FRP"], [],
    ["Symbol", "Means"], ["H", "hits"], ["∑", "stun"], ["∑∏", "stun no parry"], ["∏", "no parry"],
    ["π", "must parry"], ["∫", "bleed"],
]


def parsed(path: Path):  # type: ignore[no-untyped-def]
    return interpret(read_workbook(path))


def one_column_entries(table) -> list[tuple[str | None, int, int, int]]:  # type: ignore[no-untyped-def]
    """(condition, hits, must parry, no parry) of each entry, in row order."""
    return [(e.condition, e.hits, e.must_parry, e.no_parry) for entries in table.rows.values for e in entries]


def test_a_ruleset_sheets_legend_does_not_read_a_sheet_of_another_ruleset(write_workbook):
    # docs/workbook-format.md, "ruleset": "its legend reads the workbook's critical and fumble
    # sheets of that ruleset" — a sheet with its own `Ruleset` key reads its own ruleset's key
    # (here the default one: `2∏` must parry 2), never FRP's (`∏` no parry)
    elsewhere = [["Kind", "critical"], ["Name", "Thump"], ["Ruleset", "Elsewhere"], [],
                 ["Roll", "Text"], ["01-100", "+2H – 2∏"], ["101+", "x"]]
    found = parsed(write_workbook("frp.xlsx", {"Ruleset": RULESET, "Thump": elsewhere}))
    assert found.problems == []
    (table,) = [t.value for t in found.critical_tables]
    assert table.legend == DEFAULT_LEGEND  # not FRP's
    assert one_column_entries(table)[0] == (None, 2, 2, 0)


def test_a_rows_condition_reads_the_branch_of_its_own_feature(write_workbook):
    # docs/workbook-format.md, "Effects in the one-column layout": "A row with a `Condition` is
    # that branch: where its text holds branches (as an export writes them), the one of its
    # feature is read" — not the text's first branch
    text = "With helm: +1H. Without helm: +4H."
    crush = [["Kind", "critical"], ["Name", "Crush"], [], ["Roll", "Text", "Condition"],
             ["01-50", text, "not helm"], ["01-50", text, "helm"], ["51+", "Thud.", None]]
    found = parsed(write_workbook("m.xlsx", {"Crush": crush}))
    assert found.problems == []
    entries = one_column_entries(found.critical_tables[0].value)
    assert {c: hits for c, hits, _, _ in entries if c} == {"not helm": 4, "helm": 1}


def test_a_signs_count_may_be_spaced_and_the_longest_symbol_matches_first():
    # docs/workbook-format.md, "Legends": "a sign may follow a count (`3∑`, `3 ∑`) ... The
    # longest symbol matches first (`∑∏` before `∑`)"; a sign's characters may be spaced as the
    # default key's are ("Effects in printed notation": `2∑ ∏`), so in a legend too `2∑ ∏` is
    # 2 rounds stunned and unable to parry, not 2∑ and a bare ∏
    effects = parse_effects("2∑ ∏", parse_legend(FRP_LEGEND))
    assert (effects.stun, effects.no_parry, effects.must_parry) == (2, 2, 0)
