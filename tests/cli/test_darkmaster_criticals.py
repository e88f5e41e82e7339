"""A critical table worded as Against the Darkmaster words its entries, imported
whole: its words read, what is not read flagged on its cell, in the JSON and
for people, and refused under --strict (docs/workbook-format.md, "Effects in
words", "What is not read"; docs/cli.md, "unread").

Every entry is our own invention, in the book's manner and layout (one
column, the severity adding to the roll, a first row `Up to 5`)."""

from __future__ import annotations

import json

from helpers import error_lines

ROWS = [
    ["Up to 5", "A feeble swipe. +1 Damage."],
    ["6-40", "Slash to the forearm: +3 Damage, 1 Bleed, -5 to all actions."],
    ["41-80", "Blow rattles the skull. Target is Stunned, +6 Damage. Old wound reopens (-10 BEA)."],
    ["81-120", "Deep cut across the ribs: +9 Damage, 2 Bleed, and -20 to all actions for 3 rounds."],
    ["121+", "Throat opened. Dying in 4 rounds."],
]


def rend(write_workbook, name: str = "rend.xlsx"):  # type: ignore[no-untyped-def]
    sheet = [["Kind", "critical"], ["Name", "Rend"], [], ["Roll", "Text"], *ROWS]
    return write_workbook(name, {"Rend": sheet})


def test_the_darkmasters_words_import_read_and_flagged(run, write_workbook):
    imported = run("import", str(rend(write_workbook)))
    assert imported.exit_code == 0, imported.output
    warnings = [line for line in imported.stderr.splitlines() if line.startswith("Warning: rend.xlsx")]
    assert warnings == [
        "Warning: rend.xlsx › Rend › B7: '(-10 BEA)' is not read: it stays in the text, flagged for the GM to decide "
        "at the table",
    ]  # `-20 to all actions for 3 rounds`: a penalty for 3 rounds, read (docs/fights.md, "The rest of a critical")
    shown = json.loads(run("show", "critical", "Rend", "--json").stdout)
    read = [{k: e[k] for k in ("range", "hits", "bleed", "stun", "penalty", "death_in", "unread")}
            for e in shown["entries"]]
    assert shown["entries"][3]["timed_penalties"] == [{"penalty": -20, "rounds": 3}]
    assert read == [
        {"range": "<6", "hits": 1, "bleed": 0, "stun": 0, "penalty": 0, "death_in": None, "unread": []},
        {"range": "6-40", "hits": 3, "bleed": 1, "stun": 0, "penalty": -5, "death_in": None, "unread": []},
        {"range": "41-80", "hits": 6, "bleed": 0, "stun": 1, "penalty": 0, "death_in": None, "unread": ["(-10 BEA)"]},
        {"range": "81-120", "hits": 9, "bleed": 2, "stun": 0, "penalty": 0, "death_in": None, "unread": []},
        {"range": "121+", "hits": 0, "bleed": 0, "stun": 0, "penalty": 0, "death_in": 4, "unread": []},
    ]


def test_people_are_told_what_to_decide_at_the_table(run, write_workbook):
    assert run("import", str(rend(write_workbook))).exit_code == 0
    queried = run("query", "critical", "Rend", "50")
    assert queried.exit_code == 0, queried.output
    assert "+6 hits, stun 1 rnd; not read: '(-10 BEA)', decide at the table" in queried.stdout
    data = json.loads(run("query", "critical", "Rend", "50", "--json").stdout)
    assert data["entry"]["unread"] == ["(-10 BEA)"]


def test_strict_refuses_what_is_not_read_and_changes_nothing(run, write_workbook):
    path = rend(write_workbook, "strict.xlsx")
    refused = run("import", "--strict", str(path))
    assert refused.exit_code == 1
    assert ("Error: strict.xlsx › Rend › B7: '(-10 BEA)' is not read: it stays in the text, flagged for the GM to "
            "decide at the table (--strict)") in error_lines(refused).splitlines()
    assert run("show", "critical", "Rend").exit_code == 1  # all or nothing: nothing was imported
