"""Printed critical and fumble sheets (issue 15): a column per severity, per
attack kind or per weapon category, every cell an entry in printed notation;
and the weapons' Critical column and Fumble column.

Every table and every entry here is invented for these tests, in the
printed shape only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Rows

from tables_app.domain.ranges import parse_range
from tables_app.domain.tables import ColumnChoice, Entry, TableKind
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

# An invented A-E scale: the severity's code names the column, its name works too.
CUTS: Rows = [
    ["Kind", "severities"], ["Name", "Cuts"], [],
    ["Code", "Name", "Modifier"],
    ["A", "Graze", 0], ["B", "Nick", 5], ["C", "Gash", 10], ["D", "Rend", 15], ["E", "Cleave", 20],
]
SLASH_ROWS: Rows = [
    ["01-05", "Weak stroke. +1H", "+2H", "+3H – 1∑", "+4H – 1∑∏", "Foe reels. +5H – 2∑"],
    ["06-50", "+2H – 1∑", "Shallow gash. 2 stun, 3 bleed", "+5 hits – 2 no parry", "Knocks shield aside. 2∏ – (+10)",
     "With helm: +3H – 2∑. Without helm: +6H – 3∑∏ – 1∫."],
    ["51-95", "Thigh cut. +4H – 2∫ – (-10)", "+6H", "+7H – 1∑∏", "w/ chest armor: +2H. w/o chest armor: +8H – 3∫.",
     "Throat opened. dies in 6 rounds"],
    ["96+", "Foe stumbles. +3H", "+8H – 2∑", "+9H – 3∑", "With shield: shield shatters. +10H – 4∑∏.",
     "Head split. instant death"],
]


def slash(header: tuple[str, ...] = ("A", "B", "C", "D", "E"), rows: Rows = SLASH_ROWS, code: str = "S") -> Rows:
    return [["Kind", "critical"], ["Name", "Slash"], ["Code", code], ["Severities", "Cuts"], [],
            ["Roll", *header], *[list(row) for row in rows]]


# printed layouts: `Roll | Normal | Magic | Mithril | Holy | Slaying` (columns chosen by the attack)
BITE: Rows = [
    ["Kind", "critical"], ["Name", "Great Bite"], [],
    ["Roll", "Normal", "Magic", "Mithril", "Holy", "Slaying"],
    ["01-60", "+3H", "+4H", "+5H", "+6H – 1∑", "+8H – 2∑"],
    ["61+", "+6H – 1∑", "+8H – 2∑", "+9H – 2∑∏", "+10H – 3∑∏", "instant death"],
]
# printed layouts: `Roll | 1HE | 1HC | 2H | PA | MIS | TH` (a column per weapon category)
BLUNDERS: Rows = [
    ["Kind", "fumble"], ["Name", "Blunders"], [],
    ["Roll", "1HE", "1HC", "2H", "PA", "MIS", "TH"],
    ["01-40", "Loses grip. 1∏", "Swings wide.", "Stumbles. (-10)", "Shaft slips. 1∑", "String slips.", "Drops it."],
    ["41-80", "Cuts self. +2H", "Hits own knee. +3H – 1∑", "Wrenches back. 2∑∏", "Trips. +2H – 1∑", "Arrow snaps.",
     "Throws wide. 1∏"],
    ["81+", "Drops weapon. 2∑", "Strikes own foot. +5H – 1∫", "Falls. +4H – 2∑∏ – (-20)", "Pole breaks. 3∑",
     "Bowstring cuts hand. +3H – 1∫", "Hits ally. +4H"],
]
PIERCE: Rows = [  # version 1, one column
    ["Kind", "critical"], ["Name", "Pierce"], [], ["Roll", "Text", "Hits"], ["1-100", "A jab.", 2], ["101+", "A skewer.", 9],
]
OOPS: Rows = [["Kind", "fumble"], ["Name", "Oops"], [], ["Roll", "Text", "Hits"], ["1-60", "Stumble.", 0], ["61+", "Fall.", 2]]
HACK: Rows = [  # a small printed attack table for the weapons
    ["Kind", "attack"], ["Name", "Hack"], ["Severities", "Cuts"], ["Automatic miss", "none"], [],
    ["Result", "1", "2"], ["01-50", "F", "—"], ["51-100", "6", "4"], ["101+", "12CS", "9BS"],
]
WEAPON_HEAD = ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Secondary critical", "Fumble table",
               "Critical column", "Fumble column"]


def weapons(*rows: tuple[object, ...]) -> Rows:
    return [["Kind", "weapons"], [], WEAPON_HEAD, *[list(row) for row in rows]]


def parsed(write_workbook, sheets: dict[str, Rows]):  # type: ignore[no-untyped-def]
    return interpret(read_workbook(write_workbook("w.xlsx", sheets)))


def errors(write_workbook, sheets: dict[str, Rows]) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(problem) for problem in parsed(write_workbook, sheets).problems]


def span(text: str):  # type: ignore[no-untyped-def]
    return parse_range(text)


# ------------------------------------------------------------------ by severity

def test_a_column_per_severity_reads_each_cell_into_its_entry(write_workbook):
    # printed layouts: "Header row `Roll | A | B | C | D | E` ... each cell is the entry for that roll and severity"
    result = parsed(write_workbook, {"Cuts": CUTS, "Slash": slash()})
    # E10's lone `With shield:` sentence has no effects, the ones after it go to `not shield`: said
    assert result.problems == [] and [(w.cell, w.message.split(" opens")[0]) for w in result.warnings] == [
        ("E10", "'With shield'")]
    table = result.critical_tables[0].value
    assert (table.kind, table.code, table.choice, table.columns) == (
        TableKind.CRITICAL, "S", ColumnChoice.SEVERITY, ("A", "B", "C", "D", "E"))
    assert [r.label for r in table.column_rows[2].ranges] == ["1-5", "6-50", "51-95", "96+"]
    assert table.rows is table.column_rows[0]
    a, b, c, d, e = (table.column(code) for code in "ABCDE")
    # `+5H` hits · `3∫` bleed · `(-20)` penalty
    assert table.row(60, a)[1] == (Entry(span("51-95"), "Thigh cut. +4H – 2∫ – (-10)", hits=4, bleed=2, penalty=-10, column="A"),)
    # ASCII spellings: `3 stun`, `3 bleed`, `+5 hits`, `2 no parry`
    assert table.row(20, b)[1] == (Entry(span("6-50"), "Shallow gash. 2 stun, 3 bleed", stun=2, bleed=3, column="B"),)
    assert table.row(20, c)[1] == (Entry(span("6-50"), "+5 hits – 2 no parry", hits=5, stun=2, no_parry=2, column="C"),)
    # `2∏` must parry · `(+10)` the attacker's bonus
    assert table.row(20, d)[1] == (Entry(span("6-50"), "Knocks shield aside. 2∏ – (+10)", must_parry=2, attacker_bonus=10, column="D"),)
    # `2∑∏` stunned and unable to parry: stun counts every round stunned
    assert table.row(3, d)[1] == (Entry(span("1-5"), "+4H – 1∑∏", hits=4, stun=1, no_parry=1, column="D"),)
    # `dies in 6 rounds`, `instant death`
    assert table.row(70, e)[1] == (Entry(span("51-95"), "Throat opened. dies in 6 rounds", death_in=6, column="E"),)
    assert table.row(100, e)[1] == (Entry(span("96+"), "Head split. instant death", death_in=0, column="E"),)


def test_branches_come_from_the_cell_text(write_workbook):
    # printed layouts: "Branches inside one cell, as printed: `With helm: +3H – 2∑. Without helm: +6H – 3∑∏ – 1∫.`"
    table = parsed(write_workbook, {"Cuts": CUTS, "Slash": slash()}).critical_tables[0].value
    e, d = table.column("E"), table.column("D")
    assert table.row(30, e)[1] == (
        Entry(span("6-50"), "With helm: +3H – 2∑.", hits=3, stun=2, condition="helm", column="E"),
        Entry(span("6-50"), "Without helm: +6H – 3∑∏ – 1∫.", hits=6, stun=3, no_parry=3, bleed=1, condition="not helm", column="E"),
    )
    assert table.choose(30, frozenset({"helm"}), e).entry.hits == 3
    assert table.choose(30, frozenset(), e).entry.hits == 6
    # `w/ X` / `w/o X`, on a feature of two words
    assert [(x.condition, x.hits, x.bleed) for x in table.row(60, d)[1]] == [("chest armor", 2, 0), ("not chest armor", 8, 3)]
    # "A branch may stand alone (`With shield: ...` and plain text for everyone else)": nothing follows here
    assert table.row(99, d)[1] == (
        Entry(span("96+"), "With shield: shield shatters.", condition="shield", column="D"),
        Entry(span("96+"), "+10H – 4∑∏.", hits=10, stun=4, no_parry=4, condition="not shield", column="D"),
    )
    assert table.features == frozenset({"helm", "chest armor", "shield"})


def test_severity_columns_by_name_in_any_order_and_case(write_workbook):
    # printed layouts: "(the ruleset's severity codes, in any order)"; a severity by code or name in any case
    table = parsed(write_workbook, {"Cuts": CUTS, "Slash": slash(("cleave", "D", "gash", "Nick", "a"))}).critical_tables[0].value
    assert (table.choice, table.columns) == (ColumnChoice.SEVERITY, ("E", "D", "C", "B", "A"))
    assert table.row(3, table.column("A"))[1][0].text == "Foe reels. +5H – 2∑"
    assert table.row(3, table.column("E"))[1][0] == Entry(span("1-5"), "Weak stroke. +1H", hits=1, column="E")


def test_every_severity_has_exactly_one_column(write_workbook):
    four = [row[:5] for row in SLASH_ROWS]
    assert errors(write_workbook, {"Cuts": CUTS, "Slash": slash(("A", "B", "C", "D"), four)}) == [
        "w.xlsx › Slash › F6: no column for severity E: a table read by severity has a column for every severity of scale 'Cuts' (A, B, C, D, E)",
    ]
    three = [row[:4] for row in SLASH_ROWS]
    assert errors(write_workbook, {"Cuts": CUTS, "Slash": slash(("B", "C", "E"), three)}) == [
        "w.xlsx › Slash › E6: no column for severities A, D: a table read by severity has a column for every severity of scale 'Cuts' (A, B, C, D, E)",
    ]
    again = [[*row, "+1H"] for row in SLASH_ROWS]
    assert errors(write_workbook, {"Cuts": CUTS, "Slash": slash(("A", "B", "C", "D", "E", "Nick"), again)}) == [
        "w.xlsx › Slash › G6: column 'Nick' is severity B again (column 'B')",
    ]


def test_the_roll_is_not_modified_so_rows_cover_1_to_100(write_workbook):
    # printed layouts: "The roll is **not** modified by the severity: the column is chosen by it"
    closed = [*SLASH_ROWS[:3], ["96-100", *SLASH_ROWS[3][1:]]]
    assert errors(write_workbook, {"Cuts": CUTS, "Slash": slash(rows=closed)}) == []  # not to 100 + 20
    short = [*SLASH_ROWS[:3], ["96-99", *SLASH_ROWS[3][1:]]]
    late = [["02-05", *SLASH_ROWS[0][1:]], *SLASH_ROWS[1:]]
    gap = [SLASH_ROWS[0], ["07-50", *SLASH_ROWS[1][1:]], *SLASH_ROWS[2:]]
    assert errors(write_workbook, {"Cuts": CUTS, "Short": slash(rows=short, code="S1"), "Late": slash(rows=late, code="S2"),
                                   "Gap": slash(rows=gap, code="S3")}) == [
        "w.xlsx › Short › A10: rows stop at 99; they must reach 100 (or end with an open top like 96+)",
        "w.xlsx › Late › A7: rows start at 2; they must cover 1 upward",
        "w.xlsx › Gap › A8: gap between 1-5 and 7-50: 6 is missing (rows A7 and A8)",
    ]


def test_a_range_twice_is_an_error_branches_are_written_in_the_cell(write_workbook):
    # printed layouts: branches are written inside one cell, not as repeated rows
    twice = [*SLASH_ROWS, ["51-95", "+1H", "+1H", "+1H", "+1H", "+1H"]]
    assert errors(write_workbook, {"Cuts": CUTS, "Slash": slash(rows=twice)}) == [
        "w.xlsx › Slash › A11: roll 51-95 appears twice (row A9); in a printed layout a cell holds its branches (With helm: ... Without helm: ...)",
    ]


BRANCH_HINT = " (for different targets, write branches: With helm: ... Without helm: ...)"


@pytest.mark.parametrize(
    "cell, message",
    [
        (None, "D8: empty entry"),
        ("+3H – 2∑x", "D8: '2∑x' is not an effect: write e.g. +5H, 3∑, 2∏, 2∑∏, 3∫, (-20), (+10), dies in 6 rounds"),
        ("dies in 2 rounds. instant death", "D8: two deaths in one entry: 'dies in 2 rounds' and 'instant death'" + BRANCH_HINT),
        ("#REF!", "D8: error value #REF! (fix the formula or paste values)"),
    ],
)
def test_an_unreadable_entry_names_its_cell(write_workbook, cell, message):
    # printed layouts: effects "parsed from the printed notation"; an effect-like token that is none is an error
    rows = [list(row) for row in SLASH_ROWS]
    rows[1][3] = cell
    assert errors(write_workbook, {"Cuts": CUTS, "Slash": slash(rows=rows)}) == [f"w.xlsx › Slash › {message}"]


def test_many_empty_entries_are_one_problem(write_workbook):
    blank = [[row[0], None, None, None, None, None] for row in SLASH_ROWS]
    assert errors(write_workbook, {"Cuts": CUTS, "Slash": slash(rows=blank)}) == ["w.xlsx › Slash › B7:F10: 20 empty entries"]


# ------------------------------------------------------------------ by attack, by weapon category

def test_columns_that_are_not_all_severities_are_chosen_by_the_attack(write_workbook):
    # printed layouts: "Tables whose columns are not severities but kinds chosen by the attack
    # (large-creature criticals: `Roll | Normal | Magic | Mithril | Holy | Slaying`)"
    table = parsed(write_workbook, {"Bite": BITE}).critical_tables[0].value
    assert (table.choice, table.columns) == (ColumnChoice.ATTACK, ("Normal", "Magic", "Mithril", "Holy", "Slaying"))
    assert table.row(80, table.column("MITHRIL"))[1] == (Entry(span("61+"), "+9H – 2∑∏", hits=9, stun=2, no_parry=2, column="Mithril"),)
    assert table.row(80, table.column("slaying"))[1][0].death_in == 0


def test_a_typo_among_severity_columns_warns(write_workbook):
    result = parsed(write_workbook, {"Cuts": CUTS, "Slash": slash(("A", "B", "C", "D", "Ee"))})
    assert result.problems == []
    assert result.critical_tables[0].value.choice is ColumnChoice.ATTACK
    assert [str(w) for w in result.warnings if "columns" in w.message] == [
        "w.xlsx › Slash: columns A, B, C, D name severities of scale 'Cuts' but 'Ee' does not: "
        "the columns are chosen by the attack (a weapon's Critical column), not by severity",
    ]


def test_a_fumble_table_by_weapon_category(write_workbook):
    # printed layouts: "Header row `Roll | 1HE | 1HC | 2H | PA | MIS | TH` (any names): a weapon's `Fumble column` picks its column"
    table = parsed(write_workbook, {"Blunders": BLUNDERS}).fumble_tables[0].value
    assert (table.kind, table.choice, table.columns) == (TableKind.FUMBLE, ColumnChoice.ATTACK, ("1HE", "1HC", "2H", "PA", "MIS", "TH"))
    assert table.row(90, table.column("2h"))[1] == (
        Entry(span("81+"), "Falls. +4H – 2∑∏ – (-20)", hits=4, stun=2, no_parry=2, penalty=-20, column="2H"),)
    assert table.row(10, table.column("MIS"))[1] == (Entry(span("1-40"), "String slips.", column="MIS"),)


def test_printed_column_errors(write_workbook):
    def grid(kind: str, header: list[object], extra: Rows = ()) -> Rows:  # type: ignore[assignment]
        return [["Kind", kind], ["Name", header[1]], [], header, ["1-100", *["+1H"] * (len(header) - 1)], *extra]

    assert errors(write_workbook, {
        "Mixed": grid("critical", ["Roll", "Normal", "Magic", "Hits"]),
        "Twice": grid("critical", ["Roll", "Normal", "Magic", "MAGIC"]),
        "NoRoll": grid("fumble", ["Range", "1HE", "2H"]),
        "Code": [["Kind", "fumble"], ["Name", "Coded"], ["Code", "K"], [], ["Roll", "1HE", "2H"], ["1-100", "a", "b"]],
    }) == [
        # printed layouts: "mixing version-1 columns (Text, Hits, ...) with printed columns" is refused
        "w.xlsx › Mixed › D4: column 'Hits' belongs to the one-column layout (Roll, Text, Hits, ...); "
        "a printed layout (no Text column) has Roll and its printed columns only",
        "w.xlsx › Twice › D4: column 'MAGIC' appears twice",
        "w.xlsx › NoRoll › A4: missing column 'Roll'",
        "w.xlsx › Code › B3: only critical and attack tables have Code in the header block",
    ]


def test_version_1_sheets_read_as_before(write_workbook):
    # docs/workbook-format.md, "critical": `Roll` and `Text` required; one unknown column is still a typo
    result = parsed(write_workbook, {"Pierce": PIERCE, "Oops": OOPS,
                                     "Typo": [["Kind", "fumble"], ["Name", "T"], [], ["Roll", "Txt"], ["1-100", "x"]]})
    assert [str(p) for p in result.problems] == [
        "w.xlsx › Typo › B4: unknown column 'Txt' for a fumble sheet (columns: Roll, Text, Title, Hits, Bleed, Stun, Penalty, Effects, Condition)",
        "w.xlsx › Typo › A4: missing column 'Text'",
    ]
    pierce = result.critical_tables[0].value
    assert (pierce.choice, pierce.columns, pierce.column_rows) == (ColumnChoice.NONE, (), ())
    assert pierce.row(120)[1] == (Entry(span("101+"), "A skewer.", hits=9),)


# ------------------------------------------------------------------ weapons

def test_weapons_carry_their_columns(write_workbook):
    # printed layouts: "New optional columns: `Fumble column`, `Critical column`"
    result = parsed(write_workbook, {"Cuts": CUTS, "Slash": slash(), "Bite": BITE, "Blunders": BLUNDERS, "Hack": HACK,
                                     "W": weapons(("Axe", "Hack", None, 2, "S", "Great Bite", "Blunders", "magic", "1he"),
                                                  ("Pick", "Hack", 120, 3, "Slash", None, None, None, None))})
    assert result.problems == []
    axe, pick = (w.value for w in result.weapons)
    assert (axe.critical_column, axe.fumble_column, axe.secondary_critical) == ("magic", "1he", "Great Bite")
    assert (pick.critical_column, pick.fumble_column) == (None, None)


def test_weapon_columns_are_checked_against_tables_of_the_workbook(write_workbook):
    sheets = {"Cuts": CUTS, "Slash": slash(), "Bite": BITE, "Pierce": PIERCE, "Blunders": BLUNDERS, "Oops": OOPS, "Hack": HACK}
    assert errors(write_workbook, {**sheets, "W": weapons(
        ("Club", "Hack", None, 2, "Slash", None, "Blunders", None, None),
        ("Mace", "Hack", None, 2, "Slash", None, "Blunders", None, "3H"),
        ("Spear", "Hack", None, 2, "Pierce", None, "Oops", None, "2H"),
        ("Maul", "Hack", None, 2, "Great Bite", None, None, None, None),
        ("Flail", "Hack", None, 2, "Slash", "Great Bite", None, "Blessed", None),
        ("Sabre", "Hack", None, 2, "Slash", "Pierce", None, "Magic", None),
    )}) == [
        "w.xlsx › W › I4: fumble table 'Blunders' is read by column (1HE, 1HC, 2H, PA, MIS, TH): give the weapon its Fumble column",
        "w.xlsx › W › I5: Fumble column '3H' is not a column of fumble table 'Blunders' (columns: 1HE, 1HC, 2H, PA, MIS, TH)",
        "w.xlsx › W › I6: Fumble column '2H' given, but fumble table 'Oops' has one column",
        "w.xlsx › W › H7: critical table 'Great Bite' is read by column (Normal, Magic, Mithril, Holy, Slaying): give the weapon its Critical column",
        "w.xlsx › W › H8: Critical column 'Blessed' is not a column of critical table 'Great Bite' (columns: Normal, Magic, Mithril, Holy, Slaying)",
        "w.xlsx › W › H9: Critical column 'Magic' given, but critical table 'Slash' is read by severity (A, B, C, D, E); critical table 'Pierce' has one column",
    ]


def test_without_the_column_the_weapon_names_its_table_cell(write_workbook):
    head = ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table"]
    assert errors(write_workbook, {"Cuts": CUTS, "Slash": slash(), "Blunders": BLUNDERS, "Hack": HACK,
                                   "W": [["Kind", "weapons"], [], head, ["Club", "Hack", None, 2, "Slash", "Blunders"]]}) == [
        "w.xlsx › W › F4: fumble table 'Blunders' is read by column (1HE, 1HC, 2H, PA, MIS, TH): give the weapon its Fumble column",
    ]


# ------------------------------------------------------------------ through the CLI

def test_tables_import_accepts_the_printed_layouts(run, write_workbook):
    path: Path = write_workbook("printed.xlsx", {
        "Ruleset": [["Kind", "ruleset"], ["Name", "Inv"]], "Cuts": CUTS, "Slash": slash(), "Bite": BITE,
        "Blunders": BLUNDERS, "Hack": HACK,
        "W": weapons(("Axe", "Hack", None, 2, "S", "Great Bite", "Blunders", "Magic", "2H")),
    })
    result = run("import", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "Imported printed.xlsx: 1 severity scale (Inv:Cuts); 1 attack table (Inv:Hack); 2 critical tables "
        "(Inv:Slash, Inv:Great Bite); 1 fumble table (Inv:Blunders); 1 weapon (Inv:Axe)")
    # what was stored reads back by column
    assert run("query", "fumble", "Inv:Blunders", "90", "--column", "2h").stdout.splitlines()[1] == "Falls. +4H – 2∑∏ – (-20)"
    assert run("query", "critical", "Inv:Slash", "30", "--severity", "E").stdout.splitlines()[1] == "Without helm: +6H – 3∑∏ – 1∫."


def test_tables_import_refuses_a_weapon_without_its_fumble_column(run, write_workbook, dump, db_path):
    before = dump(db_path)
    path = write_workbook("printed.xlsx", {"Cuts": CUTS, "Slash": slash(), "Blunders": BLUNDERS, "Hack": HACK,
                                           "W": weapons(("Axe", "Hack", None, 2, "S", None, "Blunders", None, None))})
    result = run("import", str(path))
    assert result.exit_code == 1
    assert "printed.xlsx › W › I4: fumble table 'Blunders' is read by column (1HE, 1HC, 2H, PA, MIS, TH): " \
           "give the weapon its Fumble column" in result.output
    assert dump(db_path) == before


def test_a_table_already_in_the_database_is_checked_when_an_attack_is_resolved(run, write_workbook):
    # A fumble table imported before may change later: only the workbook's own tables are checked at import.
    tables = write_workbook("tables.xlsx", {"Ruleset": [["Kind", "ruleset"], ["Name", "Inv"]], "Cuts": CUTS,
                                            "Slash": slash(), "Blunders": BLUNDERS, "Hack": HACK})
    assert run("import", str(tables)).exit_code == 0
    arms = write_workbook("arms.xlsx", {"Ruleset": [["Kind", "ruleset"], ["Name", "Inv"]],
                                        "W": weapons(("Axe", "Hack", None, 2, "S", None, "Blunders", None, None))})
    result = run("import", str(arms))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "Imported arms.xlsx: 1 weapon (Inv:Axe)"


def test_an_entry_that_says_death_without_one_read_warns_at_its_cell(run, write_workbook):
    """Printed books write death in prose, in more ways than the reader takes: an
    entry saying the target dies, with no death read, warns at its own cell; one
    per cell, whatever its branches; deaths read and other prose do not warn."""
    rows = [list(row) for row in SLASH_ROWS]
    rows[1][2] = "Foe is slain where he stands. +2H"  # C8 (column B)
    rows[2][5] = "With helm: knocked out. Without helm: he is dead."  # F9 (column E), both branches
    rows[3][1] = "It looked like a killing blow. +3H"  # B10: a false alarm people can read past
    path = write_workbook("printed.xlsx", {"Ruleset": [["Kind", "ruleset"], ["Name", "Inv"]], "Cuts": CUTS,
                                           "Slash": slash(rows=rows), "Blunders": BLUNDERS})
    linted = run("lint", str(path))
    assert linted.exit_code == 0
    hint = "but no death was read: write 'dies in 6 rounds' or 'instant death' if it kills"
    assert [line for line in linted.stderr.splitlines() if "no death" in line] == [
        f"Warning: printed.xlsx › Slash › C8: 6-50 B says 'slain' {hint}",
        f"Warning: printed.xlsx › Slash › F9: 51-95 E says 'dead' {hint}",
        f"Warning: printed.xlsx › Slash › B10: 96+ A says 'killing' {hint}",
    ]


def test_a_one_column_entry_that_says_death_warns_at_its_row(run, write_workbook):
    path = write_workbook("one.xlsx", {"Skewer": [
        ["Kind", "critical"], ["Name", "Skewer"], [], ["Roll", "Text", "Hits"],
        ["1-100", "A jab.", 2], ["101+", "Foe expires in a heap.", 9]]})
    linted = run("lint", str(path))
    assert linted.exit_code == 0, linted.output
    assert [line for line in linted.stderr.splitlines() if "no death" in line] == [
        "Warning: one.xlsx › Skewer › A6: 101+ says 'expires' but no death was read: write 'dies in 6 rounds' "
        "or 'instant death' if it kills"]


def test_a_one_column_entry_whose_text_reads_a_death_does_not_warn(run, write_workbook):
    # issue 25: "the unread-death warning fires on a cell that says `dies in 6 rounds` in the
    # one-column layout": the one-column Text is read as a printed cell is (docs/workbook-format.md)
    path = write_workbook("one.xlsx", {"Skewer": [
        ["Kind", "critical"], ["Name", "Skewer"], [], ["Roll", "Text", "Hits"],
        ["1-100", "A jab.", 2], ["101+", "Throat pierced. Foe dies in 6 rounds.", 9]]})
    linted = run("lint", str(path))
    assert linted.exit_code == 0, linted.output
    assert "no death" not in linted.stderr


def test_query_refuses_a_column_where_the_severity_picks_it(run, write_workbook):
    # printed layouts: a column per severity "is chosen by the critical's severity"; a --column
    # given there would be silently ignored, so it is refused
    path = write_workbook("printed.xlsx", {"Ruleset": [["Kind", "ruleset"], ["Name", "Inv"]], "Cuts": CUTS,
                                           "Slash": slash(), "Blunders": BLUNDERS})
    assert run("import", str(path)).exit_code == 0
    result = run("query", "critical", "Inv:Slash", "30", "--severity", "E", "--column", "Magic")
    assert result.exit_code == 1
    assert result.stderr == ("Error: critical table 'Slash' is read by severity (A, B, C, D, E): "
                             "--column is for tables read by attack kind\n")
