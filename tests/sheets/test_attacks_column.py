"""A creatures sheet's Attacks column (docs/workbook-format.md, "Creatures"):
the spellings read, the refusals with their cell, and the weapons checked
against the creature's ruleset (this workbook's, or the database's)."""

from __future__ import annotations

import pytest
from helpers import MINI_ATTACK, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS

from tables_app.domain.tables import CreatureAttack
from tables_app.import_model import Catalog, RulesetContents
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

HEADER = ["Name", "DEF", "Armor", "Rank", "HP", "Features", "Attacks", "Notes"]
MORE_WEAPONS = [*MINI_WEAPONS, ["Morning Star", "Poke", None, 4, "Slash"]]


def workbook(write_workbook, *attacks, weapons=MORE_WEAPONS, name="w.xlsx"):  # type: ignore[no-untyped-def]
    creatures = [["Kind", "creatures"], [], HEADER,
                 *[[f"Beast {i}", 10, "Cloth", None, None, None, cell, None] for i, cell in enumerate(attacks, start=1)]]
    sheets = {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE, "Poke": MINI_ATTACK,
              "Creatures": creatures}
    if weapons is not None:
        sheets["Weapons"] = weapons
    return read_workbook(write_workbook(name, sheets))


def attacks_of(write_workbook, cell, **kwargs):  # type: ignore[no-untyped-def]
    parsed = interpret(workbook(write_workbook, cell, **kwargs))
    assert [str(p) for p in parsed.problems] == []
    return parsed.creatures[0].value.attacks


@pytest.mark.parametrize("cell, expected", [
    ("Needle 55", [("Needle", 55)]),
    ("Needle +55", [("Needle", 55)]),
    ("Needle -5", [("Needle", -5)]),
    ("Needle \u22125", [("Needle", -5)]),  # a typographic minus
    ("55 Needle", [("Needle", 55)]),  # the bonus first, as VsD and MERP bestiaries print it
    ("+55 Needle", [("Needle", 55)]),
    ("Morning Star 40", [("Morning Star", 40)]),
    ("40 Morning Star", [("Morning Star", 40)]),
    ("  morning   STAR 40 ", [("Morning Star", 40)]),  # any letter case and spacing: the weapon's own spelling
    ("Needle 55; Pin 40", [("Needle", 55), ("Pin", 40)]),  # in order: the first is the default
    ("Pin 40;Needle 0;", [("Pin", 40), ("Needle", 0)]),  # a ; at the end is allowed
    ("Needle 10000; Pin -10000", [("Needle", 10000), ("Pin", -10000)]),  # the bounds of --cmb
    (None, []),
    ("   ", []),
])
def test_accepted_spellings(write_workbook, cell, expected):
    assert attacks_of(write_workbook, cell) == tuple(CreatureAttack(w, c) for w, c in expected)


def test_a_number_cell_is_refused(write_workbook):
    parsed = interpret(workbook(write_workbook, 55))
    assert [str(p) for p in parsed.problems] == [
        "w.xlsx › Creatures › G4: '55' names no weapon: write the weapon, then its CMB (Scimitar 55)"]


@pytest.mark.parametrize("cell, message", [
    ("Needle", "'Needle' has no CMB: write Needle 55"),
    ("Morning Star", "'Morning Star' has no CMB: write Morning Star 55"),
    ("Needle55", "'Needle55': put a space between the weapon and its CMB (Needle 55)"),
    ("55We", "'55We': put a space between the weapon and its CMB (55 We)"),
    ("+55", "'+55' names no weapon: write the weapon, then its CMB (Scimitar +55)"),
    ("Needle 55 Pin 40", "'Needle 55 Pin 40' holds 2 numbers: an attack is one weapon and its CMB; "
                         "separate attacks with ; (Scimitar 55; Bite 40)"),
    ("Needle 55, Pin 40", "'Needle 55, Pin 40' holds 2 numbers: an attack is one weapon and its CMB; "
                          "separate attacks with ; (Scimitar 55; Bite 40)"),
    ("55 Needle 40", "'55 Needle 40' holds 2 numbers: an attack is one weapon and its CMB; "
                     "separate attacks with ; (Scimitar 55; Bite 40)"),
    ("Needle 55,", "'Needle 55,': separate attacks with ;, not ,"),
    ("Morning 40 Star", "'Morning 40 Star': the CMB stands before or after the weapon's name, not inside it"),
    ("Needle 10001", "'Needle 10001': a CMB must be between -10,000 and 10,000, not 10001"),
    ("Needle -99999999999999999999", "'Needle -99999999999999999999': a CMB must be between -10,000 and 10,000, "
                                     "not -99999999999999999999"),
    ("Needle 5;; Pin 4", "an empty attack between two ; (write Scimitar 55; Bite 40)"),
    ("; Needle 5", "an empty attack between two ; (write Scimitar 55; Bite 40)"),
    ("Neddle 55", "unknown weapon 'Neddle' — did you mean 'Needle'?"),
    ("Sword 55", "unknown weapon 'Sword'"),
    ("Needle 55; needle 40", "weapon 'Needle' is named twice: a creature has one attack with each weapon"),
])
def test_refusals_name_the_cell_and_the_piece(write_workbook, cell, message):
    parsed = interpret(workbook(write_workbook, cell))
    assert [str(p) for p in parsed.problems] == [f"w.xlsx › Creatures › G4: {message}"]
    assert parsed.creatures == []


def test_every_bad_piece_of_a_cell_is_named(write_workbook):
    parsed = interpret(workbook(write_workbook, "Needle; Pin 40; Sabre 3", "Pin 2"))
    assert [str(p) for p in parsed.problems] == [
        "w.xlsx › Creatures › G4: 'Needle' has no CMB: write Needle 55",
        "w.xlsx › Creatures › G4: unknown weapon 'Sabre'",
    ]
    assert [c.name for c in parsed.creatures] == ["Beast 2"]


def test_weapons_already_in_the_database_are_found_in_their_own_spelling(write_workbook):
    catalog = Catalog(rulesets={"default": "default", "rm": "RM"},
                      by_ruleset={"default": RulesetContents(weapons={"scimitar": "Scimitar"}),
                                  "rm": RulesetContents(weapons={"claw": "Claw"})})
    parsed = interpret(workbook(write_workbook, "SCIMITAR 55; Needle 3", "Claw 10"), catalog)
    assert [str(p) for p in parsed.problems] == [
        "w.xlsx › Creatures › G5: unknown weapon 'Claw' in ruleset 'default' (ruleset 'RM' has it; "
        "a workbook's references stay in its own ruleset)"]
    assert parsed.creatures[0].value.attacks == (CreatureAttack("Scimitar", 55), CreatureAttack("Needle", 3))


def test_a_weapon_whose_row_failed_is_not_a_second_problem(write_workbook):
    weapons = [*MINI_WEAPONS, ["Broken", "Poke", None, "lots", "Slash"]]
    parsed = interpret(workbook(write_workbook, "Broken 40", weapons=weapons))
    assert [p.sheet for p in parsed.problems] == ["Weapons"]


def test_an_ods_workbook_reads_the_attacks_alike(tmp_path):
    from ods_files import write_ods

    creatures = [["Kind", "creatures"], [], HEADER, ["Beast", 10, "Cloth", None, None, None, "40 Morning Star; Needle -5", None]]
    path = write_ods(tmp_path / "w.ods", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE,
                                           "Poke": MINI_ATTACK, "Weapons": MORE_WEAPONS, "Creatures": creatures})
    parsed = interpret(read_workbook(path))
    assert [str(p) for p in parsed.problems] == []
    assert parsed.creatures[0].value.attacks == (CreatureAttack("Morning Star", 40), CreatureAttack("Needle", -5))
    bad = [*creatures[:3], ["Beast", 10, "Cloth", None, None, None, "Needle", None]]
    path = write_ods(tmp_path / "v.ods", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE,
                                          "Poke": MINI_ATTACK, "Weapons": MORE_WEAPONS, "Creatures": bad})
    assert [str(p) for p in interpret(read_workbook(path)).problems] == [
        "v.ods › Creatures › G4: 'Needle' has no CMB: write Needle 55"]
