"""Whose names these are: the import service's rules (importing.check_names),
applied to what the spreadsheet layer read without judging names."""

from __future__ import annotations

from tables_app.domain.names import fold
from tables_app.services.importing import check_names
from tables_app.import_model import Catalog, RulesetContents
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

FUMBLE = [["Kind", "fumble"], ["Name", "F"], [], ["Roll", "Text"], ["1+", "x"]]


def read(path, catalog=None):  # type: ignore[no-untyped-def]
    catalog = catalog or Catalog()
    return interpret(read_workbook(path), catalog), catalog


def messages(parsed) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(p) for p in parsed.problems]


def test_duplicate_names_in_one_workbook(write_workbook):
    path = write_workbook("w.xlsx", {"A": FUMBLE, "B": [["Kind", "fumble"], ["Name", "f"], [], ["Roll", "Text"], ["1+", "x"]]})
    parsed, catalog = read(path)
    assert messages(parsed) == []  # reading a workbook does not judge its names
    check_names(parsed, catalog, replace=False)
    assert messages(parsed) == ["w.xlsx › B › B2: fumble table 'f' is defined twice (first in A › B2)"]


def test_name_problems_follow_the_sheet_problems(write_workbook):
    path = write_workbook("w.xlsx", {"A": FUMBLE, "B": FUMBLE, "W": [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
                                                                     ["Axe", "nowhere", 100, 4, "nothing"]]})
    parsed, catalog = read(path)
    check_names(parsed, catalog, replace=False)
    assert messages(parsed) == [
        "w.xlsx › W › B4: unknown attack table 'nowhere'",
        "w.xlsx › W › E4: unknown critical table 'nothing'",
        "w.xlsx › B › B2: fumble table 'F' is defined twice (first in A › B2)",
    ]


def owned(owner: str | None) -> Catalog:
    return Catalog(by_ruleset={"default": RulesetContents(fumble={"f": "F"})}, owners={("fumble", "default", fold("F")): owner})


def test_a_name_another_workbook_owns_is_a_conflict(write_workbook):
    parsed, catalog = read(write_workbook("w.xlsx", {"A": FUMBLE}), owned("other.xlsx"))
    check_names(parsed, catalog, replace=False)
    assert parsed.problems == []  # settled against the database: the same content is no problem
    assert [(c.kind, c.item.name, str(c.problem)) for c in parsed.conflicts] == [
        ("fumble", "F", "w.xlsx › A › B2: fumble table 'F' is already defined by workbook other.xlsx "
                        "(import with --replace to take it over)")]


def test_replace_takes_the_name_over(write_workbook):
    parsed, catalog = read(write_workbook("w.xlsx", {"A": FUMBLE}), owned("other.xlsx"))
    check_names(parsed, catalog, replace=True)
    assert parsed.problems == [] and parsed.conflicts == []


def test_a_workbook_owns_its_names_in_any_letter_case(write_workbook):
    parsed, catalog = read(write_workbook("w.xlsx", {"A": FUMBLE}), owned("W.XLSX"))
    check_names(parsed, catalog, replace=False)
    assert parsed.problems == [] and parsed.conflicts == []


def test_names_of_tables_app_itself(write_workbook):
    parsed, catalog = read(write_workbook("w.xlsx", {"A": FUMBLE}), owned(None))
    check_names(parsed, catalog, replace=False)
    assert [str(c.problem) for c in parsed.conflicts] == [
        "w.xlsx › A › B2: fumble table 'F' is already defined by tables_app itself (import with --replace to take it over)"]


def test_the_built_in_scale_is_never_taken_over(write_workbook):
    scale = [["Kind", "severities"], ["Name", "default"], [], ["Code", "Name", "Modifier"], ["X", "Extra", 0]]
    catalog = Catalog(owners={("severities", "default", "default"): None})
    parsed, _ = read(write_workbook("w.xlsx", {"S": scale}), catalog)
    check_names(parsed, catalog, replace=True)
    assert messages(parsed) == ["w.xlsx › S › B2: 'default' is the built-in severity scale; give the severities sheet another Name"]
