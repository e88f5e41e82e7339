"""`tables query attack` reads the modified result as resolve does
(docs/table-system.md, steps 7-8; docs/cli.md, "Reading a table"): a table
whose rows start at 1 but keeps the automatic miss of 10 misses at 10 or
less without reading the row that holds the result."""

from __future__ import annotations

import json

from test_printed_attack_tables import WEAPON, printed_sheets


def test_query_attack_misses_at_the_automatic_miss_as_resolve_does(run, write_workbook):
    # the rows start at `1:8` (an `F` row), yet `Automatic miss | 10`: a result of 10 or less misses (step 7)
    assert run("import", str(write_workbook("printed.xlsx", printed_sheets(automatic_miss=10)))).exit_code == 0
    resolved = json.loads(run("resolve", "table", "--weapon", WEAPON, "--cmb", "0", "--def", "45", "--armor", "1",
                              "--dice", "50", "--json").stdout)
    assert (resolved["result"], resolved["outcome"], resolved["cell"]) == (5, "miss", None)
    assert "Result 5 is 10 or less: an automatic miss." in resolved["steps"]
    queried = json.loads(run("query", "attack", WEAPON, "5", "1", "--json").stdout)
    assert queried == {"table": "Printed blade", "result": 5, "row": None, "armor": "1", "text": "", "outcome": "miss",
                       "hits": 0, "severity": None, "critical_table": None, "ruleset": "PR", "criticals": [],
                       "automatic_miss": 10}
    # 11, just above the automatic miss, reads the row that holds it (`09-30`: `0`), as resolve does
    above = json.loads(run("query", "attack", WEAPON, "11", "1", "--json").stdout)
    assert (above["row"], above["outcome"]) == ("9-30", "no_damage")
