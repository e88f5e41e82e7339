"""Issue 41, item 6: one wording of an entry's effects, everywhere.

A critical whose entry carries every effect a fight applies (hits, bleed,
stun, no parry, must parry at a penalty, a lasting penalty, the attacker's
bonus, death) says all of them, in the same words (domain/effects.py,
effect_words), in resolve's account, a fight's account, show, query, the
JSON's `effect_words`, an import's changes and the Foundry export."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import MINI_SEVERITIES

from tables_app.domain.effects import effect_words

EVERY = "+3 hits, bleed 2/rnd, stun 1 rnd, no parry 2, must parry 1 at -10, penalty -20, attacker +5, dies in 6 rounds"
TEXT = "Everything at once. +3H – 2∫ – 1∑ – 2∏ – (π-10) – (-20) – (+5) – dies in 6 rounds"
LEGEND = "H hits; ∑ stun; ∏ no parry; π must parry; ∫ bleed"


def every_effect(text: str = TEXT) -> dict:
    critical = [["Kind", "critical"], ["Name", "Everything"], ["Code", "V"], ["Legend", LEGEND], [],
                ["Roll", "Title", "Text"], ["1+", "All of it", text]]
    weapons = [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
               ["Awl", "Poke", 60, 0, "V"]]
    poke = [["Kind", "attack"], ["Name", "Poke"], [], ["Result", "Plate"], ["41+", "6 B"], ["1-40", "0"]]
    return {"Severities": MINI_SEVERITIES, "Everything": critical, "Poke": poke, "Weapons": weapons}


def imported(run, write_workbook) -> Path:  # type: ignore[no-untyped-def]
    path = write_workbook("every.xlsx", every_effect())
    result = run("import", str(path))
    assert result.exit_code == 0, result.output
    return path


def test_the_entry_reads_every_effect_and_effect_words_says_each(run, write_workbook):
    imported(run, write_workbook)
    entry = json.loads(run("query", "critical", "Everything", "50", "--severity", "B", "--json").stdout)["entry"]
    assert (entry["hits"], entry["bleed"], entry["stun"], entry["no_parry"], entry["must_parry"], entry["parry_penalty"],
            entry["penalty"], entry["attacker_bonus"], entry["death_in"]) == (3, 2, 1, 2, 1, -10, -20, 5, 6)
    assert effect_words(entry) == EVERY
    assert entry["effect_words"] == EVERY  # the JSON says them too: the page shows these


def test_resolve_says_every_effect_in_its_account(run, write_workbook):
    imported(run, write_workbook)
    result = run("resolve", "table", "--weapon", "Awl", "--cmb", "50", "--armor", "Plate", "--dice", "50,40")
    assert result.exit_code == 0, result.output
    assert f"Critical: B on Everything, 40 + 5 = 45 (1+: All of it; {EVERY}).\n" in result.stdout
    data = json.loads(run("resolve", "table", "--weapon", "Awl", "--cmb", "50", "--armor", "Plate", "--dice", "50,40",
                          "--json").stdout)
    assert f"(1+: All of it; {EVERY})." in data["steps"][4]
    assert data["critical"]["entry"]["effect_words"] == EVERY


def test_a_fights_account_says_every_effect(run, write_workbook):
    imported(run, write_workbook)
    for args in (("fight", "new", "Test"),
                 ("fight", "join", "Test", "--as", "Hero", "--hits", "50", "--weapon", "Awl", "--cmb", "50", "--armor", "Plate"),
                 ("fight", "join", "Test", "--as", "Orc", "--side", "B", "--hits", "50", "--weapon", "Awl", "--cmb", "50",
                  "--armor", "Plate")):
        assert run(*args).exit_code == 0
    result = run("fight", "attack", "Test", "Hero", "Orc", "--dice", "50,40")
    assert result.exit_code == 0, result.output
    assert f"  Critical: B on Everything, 40 + 5 = 45 (1+: All of it; {EVERY}).\n" in result.stdout
    attack = json.loads(run("fight", "log", "Test", "--json").stdout)["events"][-1]
    assert f"(1+: All of it; {EVERY})." in attack["resolved"]["steps"][4]


def test_show_and_query_say_every_effect(run, write_workbook):
    imported(run, write_workbook)
    assert f"\n  {EVERY}\n" in run("show", "critical", "Everything").stdout
    assert EVERY in run("query", "critical", "Everything", "50", "--severity", "B").stdout
    shown = json.loads(run("show", "critical", "Everything", "--json").stdout)
    assert [e["effect_words"] for e in shown["entries"]] == [EVERY]


def test_the_foundry_export_says_every_effect(run, write_workbook, tmp_path):
    imported(run, write_workbook)
    out = tmp_path / "foundry"
    assert run("export", "--format", "foundry", "-o", str(out), "Everything").exit_code == 0
    texts = [r["text"] for path in sorted(out.glob("critical-*.json"))
             for r in json.loads(path.read_text(encoding="utf-8"))["results"]]
    assert texts and all(f"({EVERY})" in text for text in texts)


def test_an_import_says_a_change_of_any_effect(run, write_workbook):
    # before, only hits, bleed, stun and penalty were said: a change of the must parry alone read `X → X`
    imported(run, write_workbook)
    changed = write_workbook("every.xlsx", every_effect(TEXT.replace("(π-10)", "(2π-10)")))
    result = run("import", str(changed), "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    [entry] = json.loads(result.stdout)["workbooks"][0]["changes"]["entries"]
    assert entry["before"].endswith(f" | {EVERY}")
    assert entry["after"].endswith(f" | {EVERY.replace('must parry 1', 'must parry 2')}")
