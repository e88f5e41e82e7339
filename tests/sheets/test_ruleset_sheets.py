"""Rulesets in workbooks (docs/workbook-format.md, "Rulesets"): the `Ruleset`
header key and the `Kind | ruleset` sheet, names and codes unique per
ruleset, owners per ruleset, references that stay inside their ruleset,
re-imports, reports and quality warnings."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import Rows, db_dump, error_lines, rm_sheets

from tables_app.import_model import Catalog
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

RM_NAMES = {"severities": ["RM letters"], "critical": ["Slash", "Krush", "Puncture", "Grapple"],
            "attack": ["Broadsword"], "weapons": ["Longsword"], "creatures": ["Orc Warrior"]}


def with_key(rows: Rows, key: str, value: object) -> Rows:
    """A sheet's rows with one more header key, right after Kind (row 2)."""
    return [rows[0], [key, value], *rows[1:]]


def parsed(path: Path, catalog: Catalog | None = None):  # type: ignore[no-untyped-def]
    return interpret(read_workbook(path), catalog)


def rulesets_of(result) -> dict[str, set[str]]:  # type: ignore[no-untyped-def]
    """Every defined name, by kind, with its ruleset: {"critical": {"RM:Slash", ...}}."""
    kinds = ("severities", "attack", "critical", "fumble", "weapons", "creatures")
    return {kind: {f"{d.ruleset}:{d.name}" for d in result.items(kind)} for kind in kinds if result.items(kind)}


def rulesets_listed(run) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    return {r["name"]: r for r in json.loads(run("list", "rulesets", "--json").stdout)["rulesets"]}


def fumble(name: str, text: str = "Trip.") -> Rows:
    return [["Kind", "fumble"], ["Name", name], [], ["Roll", "Text"], ["1+", text]]


def imported(run, path: Path, *args: str):  # type: ignore[no-untyped-def]
    result = run("import", str(path), *args)
    assert result.exit_code == 0, result.output
    return result


# ---------------------------------------------------------------- where sheets go
def test_a_ruleset_key_on_every_sheet_works_like_the_ruleset_sheet(write_workbook, run):
    sheets = {title: with_key(rows, "Ruleset", "RM") for title, rows in rm_sheets(ruleset_sheet=False).items()}
    path = write_workbook("rm.xlsx", sheets)
    result = parsed(path)
    assert result.problems == [] and result.ruleset is None  # no ruleset sheet
    assert rulesets_of(result) == {kind: {f"RM:{n}" for n in names} for kind, names in RM_NAMES.items()}
    assert result.attack_tables[0].value.scale.name == "RM letters"  # the RM severities sheet applies
    imported(run, path)
    rm = rulesets_listed(run)["RM"]
    assert (rm["severities"], rm["attack"], rm["critical"], rm["fumble"], rm["weapons"], rm["creatures"]) == (1, 1, 4, 0, 1, 1)
    cell = json.loads(run("query", "attack", "RM:Broadsword", "130", "7", "--json").stdout)
    assert (cell["critical_table"], cell["ruleset"]) == ("Slash", "RM")


def test_a_sheets_own_ruleset_overrides_the_workbooks(write_workbook):
    sheets = rm_sheets()
    sheets["Home trip"] = with_key(fumble("Trip"), "Ruleset", "Home")
    sheets["RM trip"] = fumble("Slip")
    result = parsed(write_workbook("rm.xlsx", sheets))
    assert result.problems == []
    assert (result.ruleset.name, result.ruleset.sheet, result.ruleset.cell, result.ruleset.source) == (
        "RM", "Ruleset", "B2", "invented for tests")
    assert rulesets_of(result)["fumble"] == {"Home:Trip", "RM:Slip"}
    assert rulesets_of(result)["critical"] == {"RM:Slash", "RM:Krush", "RM:Puncture", "RM:Grapple"}


def test_sheets_that_name_no_ruleset_go_to_default(write_workbook, mini_workbook):
    result = parsed(mini_workbook)
    assert result.problems == [] and result.ruleset is None
    assert {d.ruleset for kind in ("severities", "attack", "critical", "fumble", "weapons", "creatures")
            for d in result.items(kind)} == {"default"}
    mixed = parsed(write_workbook("m.xlsx", {"Plain": fumble("Plain"), "Home": with_key(fumble("Own"), "Ruleset", "Home")}))
    assert rulesets_of(mixed) == {"fumble": {"default:Plain", "Home:Own"}}


# ---------------------------------------------------------------- the ruleset sheet's problems
RULESET_SHEET: Rows = [["Kind", "ruleset"], ["Name", "RM"]]


def problems_of(write_workbook, sheets: dict[str, Rows]) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(p) for p in parsed(write_workbook("w.xlsx", sheets)).problems]


def test_two_ruleset_sheets(write_workbook):
    assert problems_of(write_workbook, {"Ruleset": RULESET_SHEET, "Other": [["Kind", "ruleset"], ["Name", "Home"]],
                                        "Trip": fumble("Trip")}) == [
        "w.xlsx › Other › A1: a workbook holds one ruleset sheet; 'Ruleset' is the first"]


def test_a_ruleset_sheet_without_a_name(write_workbook):
    assert problems_of(write_workbook, {"Ruleset": [["Kind", "ruleset"], ["Source", "nowhere"]], "Trip": fumble("Trip")}) == [
        "w.xlsx › Ruleset › B1: a ruleset sheet needs a Name in its header block"]
    assert problems_of(write_workbook, {"Ruleset": [["Kind", "ruleset"], ["Name", None]], "Trip": fumble("Trip")}) == [
        "w.xlsx › Ruleset › B2: a ruleset sheet needs a Name in its header block"]


def test_a_ruleset_sheet_has_no_code_or_ruleset_key(write_workbook):
    sheet = [*RULESET_SHEET, ["Code", "S"], ["Ruleset", "Home"]]
    why = "(its header block is Kind, Name, Source, Notes, and the defaults Automatic miss, Roll kind, Severities)"
    assert problems_of(write_workbook, {"Ruleset": sheet, "Trip": fumble("Trip")}) == [
        f"w.xlsx › Ruleset › B3: a ruleset sheet has no Code {why}",
        f"w.xlsx › Ruleset › B4: a ruleset sheet has no Ruleset {why}",
    ]


def test_a_ruleset_sheet_sets_defaults_for_its_rulesets_sheets(run, write_workbook):
    """printed layouts, section 5: "A `Kind | ruleset` sheet may set `Automatic miss`, `Roll kind`
    and the severity scale for every sheet of its ruleset in the workbook"; a sheet's own key wins,
    and sheets of another ruleset do not take them."""
    import json

    from helpers import rm_sheets

    sheets = rm_sheets()
    sheets["Ruleset"] = [["Kind", "ruleset"], ["Name", "RM"], ["Automatic miss", "none"], ["Roll kind", "oeh"],
                         ["Severities", "RM letters"]]
    sheets["Other"] = [["Kind", "attack"], ["Name", "Other"], ["Ruleset", "Home"], [], ["Result", "A"], ["11+", "3"]]
    sheets["Own"] = [["Kind", "attack"], ["Name", "Own"], ["Automatic miss", "20"], [], ["Result", "A"], ["11+", "3"]]
    assert run("import", str(write_workbook("rm.xlsx", sheets))).exit_code == 0
    show = lambda kind, name: json.loads(run("show", kind, name, "--json").stdout)  # noqa: E731
    assert show("attack", "RM:Broadsword")["automatic_miss"] is None  # the ruleset sheet's
    assert show("attack", "RM:Own")["automatic_miss"] == 20  # its own
    assert show("attack", "Home:Other")["automatic_miss"] == 10  # another ruleset: the default
    assert show("critical", "RM:Slash")["roll_kind"] == "oeh"
    assert show("attack", "RM:Broadsword")["severities"] == "RM letters"


def test_a_bad_default_is_named_on_the_ruleset_sheet(write_workbook):
    from helpers import rm_sheets

    sheets = rm_sheets()
    sheets["Ruleset"] = [["Kind", "ruleset"], ["Name", "RM"], ["Automatic miss", "often"]]
    problems = problems_of(write_workbook, sheets)
    assert problems[0] == "w.xlsx › Ruleset › B3: Automatic miss 'often' must be a whole number from 0 to 1000, or none"


def test_a_ruleset_sheet_holds_only_its_header_block_and_legend(write_workbook):
    # docs/workbook-format.md, "ruleset": below its header block, only the legend (Symbol | Means)
    sheet = [*RULESET_SHEET, [], [None, "Roll", "Text"], [None, "1+", "x"]]
    assert problems_of(write_workbook, {"Ruleset": sheet, "Trip": fumble("Trip")}) == [
        "w.xlsx › Ruleset › B4: below its header block a ruleset sheet holds only its legend, a grid Symbol | Means "
        "(one symbol a row)"]


def test_a_ruleset_name_with_a_colon_or_too_long(write_workbook, run, db_path):
    before = db_dump(db_path)
    path = write_workbook("w.xlsx", {"Ruleset": [["Kind", "ruleset"], ["Name", "Arms Law: RM"]],
                                     "Trip": with_key(fumble("Trip"), "Ruleset", "R" * 101)})
    result = run("import", str(path))
    assert result.exit_code == 1
    assert error_lines(result) == (
        "Error: w.xlsx › Ruleset › B2: a ruleset's name cannot contain ':' (it separates RULESET:NAME): 'Arms Law: RM'\n"
        "Error: w.xlsx › Trip › B2: a ruleset's name has at most 100 characters, not 101\n")
    assert db_dump(db_path) == before
    fine = parsed(write_workbook("ok.xlsx", {"Trip": with_key(fumble("Trip"), "Ruleset", "R" * 100)}))
    assert fine.problems == [] and fine.fumble_tables[0].ruleset == "R" * 100


def test_a_ruleset_in_any_letter_case_is_the_stored_one(write_workbook, run):
    imported(run, write_workbook("rm.xlsx", rm_sheets()))
    imported(run, write_workbook("more.xlsx", {"Ruleset": [["Kind", "ruleset"], ["Name", "rm"]], "Trip": fumble("Trip")}))
    imported(run, write_workbook("keyed.xlsx", {"Slip": with_key(fumble("Slip"), "Ruleset", "Rm")}))
    listed = rulesets_listed(run)
    assert sorted(listed) == ["RM", "default"]
    assert (listed["RM"]["fumble"], listed["RM"]["workbooks"]) == (2, ["keyed.xlsx", "more.xlsx", "rm.xlsx"])
    fumbles = json.loads(run("list", "fumble", "--ruleset", "RM", "--json").stdout)["fumble"]
    assert [(f["name"], f["ruleset"]) for f in fumbles] == [("Slip", "RM"), ("Trip", "RM")]


def test_one_workbook_spells_a_new_ruleset_as_it_first_wrote_it(write_workbook):
    result = parsed(write_workbook("w.xlsx", {"A": with_key(fumble("A"), "Ruleset", "Home"),
                                              "B": with_key(fumble("B"), "Ruleset", "HOME")}))
    assert result.problems == [] and rulesets_of(result) == {"fumble": {"Home:A", "Home:B"}}


def test_the_default_ruleset_in_any_letter_case_is_default(write_workbook):
    result = parsed(write_workbook("w.xlsx", {"Ruleset": [["Kind", "ruleset"], ["Name", "RM"]],
                                              "Trip": with_key(fumble("Trip"), "Ruleset", "DEFAULT")}))
    assert result.problems == [] and rulesets_of(result) == {"fumble": {"default:Trip"}}


def test_a_workbook_of_only_a_ruleset_sheet_imports_nothing(write_workbook, run):
    result = run("import", str(write_workbook("w.xlsx", {"Ruleset": RULESET_SHEET})))
    assert (result.exit_code, error_lines(result)) == (1, "Error: w.xlsx: no sheet has a header block with a Kind (nothing to import)\n")
    assert sorted(rulesets_listed(run)) == ["default"]


# ---------------------------------------------------------------- names per ruleset in one workbook
GLAIVE_HEAD = ["Name", "Attack table", "Max result", "Clumsy", "Critical"]


def test_one_weapon_name_in_two_rulesets_of_one_workbook(write_workbook, run):
    sheets = rm_sheets()
    sheets["Weapons"].append(["Glaive", "Broadsword", 150, 3, "Krush"])
    sheets["Default weapons"] = [["Kind", "weapons"], ["Ruleset", "default"], [], GLAIVE_HEAD, ["Glaive", "Edged", 120, 3, "Cut"]]
    imported(run, write_workbook("rm.xlsx", sheets))
    glaives = [(w["ruleset"], w["attack_table"], w["critical"])
               for w in json.loads(run("list", "weapons", "--json").stdout)["weapons"] if w["name"] == "Glaive"]
    assert glaives == [("default", "Edged", "Cut"), ("RM", "Broadsword", "Krush")]


def test_one_name_twice_in_one_ruleset_names_both_cells(write_workbook, run, db_path):
    before = db_dump(db_path)
    sheets = rm_sheets()
    sheets["Weapons"].append(["Glaive", "Broadsword", 150, 3, "Krush"])
    sheets["More weapons"] = [["Kind", "weapons"], ["Ruleset", "rm"], [], GLAIVE_HEAD, ["glaive", "Broadsword", 120, 3, "S"]]
    sheets["Slip"] = fumble("Krush")  # a fumble table may share a critical table's name
    result = run("import", str(write_workbook("rm.xlsx", sheets)))
    assert result.exit_code == 1
    assert error_lines(result) == (
        "Error: rm.xlsx › More weapons › A5: weapon 'glaive' in ruleset 'RM' is defined twice (first in Weapons › A5)\n")
    assert db_dump(db_path) == before


# ---------------------------------------------------------------- owners per ruleset
def second_slash(text: str = "A different slash.") -> dict[str, Rows]:
    return {"Ruleset": [["Kind", "ruleset"], ["Name", "RM"]],
            "Slash": [["Kind", "critical"], ["Name", "Slash"], ["Code", "S"], [], ["Roll", "Text"], ["1+", text]]}


def test_a_name_another_workbook_owns_in_the_ruleset_conflicts(write_workbook, run, db_path):
    imported(run, write_workbook("rm.xlsx", rm_sheets()))
    before = db_dump(db_path)
    other = write_workbook("other.xlsx", second_slash())
    result = run("import", str(other))
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: other.xlsx › Slash › B2: critical table 'Slash' in ruleset 'RM' is already "
                                   "defined by workbook rm.xlsx (import with --replace to take it over)\n")
    assert db_dump(db_path) == before
    imported(run, other, "--replace")
    owners = {(c["ruleset"], c["name"]): (c["code"], c["workbook"]) for c in json.loads(run("list", "critical", "--json").stdout)["critical"]}
    assert (owners[("RM", "Slash")], owners[("default", "Cut")]) == (("S", "other.xlsx"), ("S", "bundled/criticals.xlsx"))
    shown = json.loads(run("show", "critical", "RM:Slash", "--json").stdout)
    assert [e["text"] for e in shown["entries"]] == ["A different slash."]
    cell = json.loads(run("query", "attack", "RM:Broadsword", "130", "7", "--json").stdout)
    assert cell["critical_table"] == "Slash"  # rm.xlsx's cells read the table other.xlsx took over


def test_the_same_name_in_another_ruleset_is_no_conflict(write_workbook, run):
    imported(run, write_workbook("rm.xlsx", rm_sheets()))
    home = second_slash("A home slash.")
    home["Ruleset"] = [["Kind", "ruleset"], ["Name", "Home"]]
    result = imported(run, write_workbook("home.xlsx", home))
    assert result.stdout == "Imported home.xlsx: 1 critical table (Home:Slash)\n"
    texts = {r: json.loads(run("query", "critical", f"{r}:S", "50", "--json").stdout)["entry"]["text"] for r in ("RM", "Home")}
    assert texts == {"RM": "A solid slash.", "Home": "A home slash."}


def test_the_same_content_under_another_owner_is_left_unchanged(write_workbook, run, db_path):
    rm = imported(run, write_workbook("rm.xlsx", rm_sheets()))
    assert rm.exit_code == 0
    before = db_dump(db_path)
    copy = {title: rm_sheets()[title] for title in ("Ruleset", "Severities", "Slash")}
    result = imported(run, write_workbook("copy.xlsx", copy), "--json")
    workbook = json.loads(result.stdout)["workbooks"][0]
    assert (workbook["defined"], workbook["unchanged"]) == ({}, {"severities": ["RM:RM letters"], "critical": ["RM:Slash"]})
    assert [line for line in db_dump(db_path) if "Slash" in line] == [line for line in before if "Slash" in line]


# ---------------------------------------------------------------- references stay inside
def test_workbooks_of_one_import_share_a_ruleset_in_any_order(write_workbook, run):
    sheets = rm_sheets()
    weapons = {"Ruleset": sheets.pop("Ruleset"), "Weapons": sheets.pop("Weapons")}
    tables = write_workbook("tables.xlsx", {"Ruleset": weapons["Ruleset"], **sheets})
    result = imported(run, write_workbook("weapons.xlsx", weapons), str(tables))
    assert result.stdout.splitlines()[0] == "Imported weapons.xlsx: 1 weapon (RM:Longsword)"
    listed = rulesets_listed(run)["RM"]
    assert (listed["weapons"], listed["critical"], listed["workbooks"]) == (1, 4, ["tables.xlsx", "weapons.xlsx"])


def test_a_table_of_the_same_workbook_in_another_ruleset_is_out_of_reach_too(write_workbook):
    sheets = rm_sheets()
    sheets["Home trip"] = with_key(fumble("Tumble"), "Ruleset", "Home")
    sheets["Weapons"][2] = [*GLAIVE_HEAD, "Secondary critical", "Fumble table"]
    sheets["Weapons"][-1] = ["Longsword", "Broadsword", 150, 4, "S", None, "Tumble"]
    assert problems_of(write_workbook, sheets) == [
        "w.xlsx › Weapons › G4: unknown fumble table 'Tumble' in ruleset 'RM' (ruleset 'Home' has it; "
        "a workbook's references stay in its own ruleset)"]


def test_a_fumble_table_of_another_ruleset_is_out_of_reach(write_workbook, run):
    sheets = rm_sheets()
    sheets["Weapons"][-1] = ["Longsword", "Broadsword", 150, 4, "S", None, "Melee Fumbles"]
    sheets["Weapons"][2] = [*GLAIVE_HEAD, "Secondary critical", "Fumble table"]
    result = run("import", str(write_workbook("rm.xlsx", sheets)))
    assert result.exit_code == 1
    assert error_lines(result) == (
        "Error: rm.xlsx › Weapons › G4: unknown fumble table 'Melee Fumbles' in ruleset 'RM' (ruleset 'default' has it; "
        "a workbook's references stay in its own ruleset)\n")


def test_a_severity_scale_of_another_ruleset_is_out_of_reach(write_workbook, run):
    sheets = rm_sheets()
    sheets["Home crit"] = [["Kind", "critical"], ["Name", "Thud"], ["Ruleset", "Home"], ["Severities", "RM letters"], [],
                           ["Roll", "Text"], ["1+", "Thud."]]
    assert problems_of(write_workbook, sheets) == [
        "w.xlsx › Home crit › B4: unknown severity scale 'RM letters' in ruleset 'Home' (known: default)"]
    imported(run, write_workbook("rm.xlsx", rm_sheets()))
    later = {"Thud": sheets["Home crit"]}
    result = run("import", str(write_workbook("home.xlsx", later)))
    assert (result.exit_code, error_lines(result)) == (
        1, "Error: home.xlsx › Thud › B4: unknown severity scale 'RM letters' in ruleset 'Home' "
           "(known: default; ruleset 'RM' has it, and a table's scale stays in its own ruleset)\n")


def test_the_built_in_scale_serves_every_ruleset(write_workbook):
    sheets = rm_sheets()
    sheets["Thud"] = with_key([["Kind", "critical"], ["Name", "Thud"], ["Code", "T"], [], ["Roll", "Text"], ["1-150", "Thud."]],
                              "Severities", "default")
    result = parsed(write_workbook("w.xlsx", sheets))
    assert result.problems == []
    thud = next(d for d in result.critical_tables if d.name == "Thud")
    assert (thud.ruleset, thud.value.scale.name) == ("RM", "default")
    slash = next(d for d in result.critical_tables if d.name == "Slash")
    assert slash.value.scale.name == "RM letters"  # the others keep the workbook's own scale


def test_the_workbooks_scale_is_only_for_tables_of_its_ruleset(write_workbook, run, db_path):
    sheets = rm_sheets()
    sheets["Default attack"] = [["Kind", "attack"], ["Name", "Jab"], ["Ruleset", "default"], [],
                                ["Result", "NA"], ["11+", "5ES"]]  # RM letters do not reach a default sheet
    before = db_dump(db_path)
    result = run("import", str(write_workbook("rm.xlsx", sheets)))
    assert result.exit_code == 1
    assert error_lines(result).startswith("Error: rm.xlsx › Default attack › B6: '5ES': ")
    assert "(severities: Sup, Lig, Mod, Gri, Let)" in error_lines(result)
    assert db_dump(db_path) == before
    sheets["Default attack"][-1] = ["11+", "5 Lig S"]  # default's scale, and default's S
    imported(run, write_workbook("rm.xlsx", sheets))
    cell = json.loads(run("query", "attack", "Jab", "50", "NA", "--json").stdout)
    assert (cell["text"], cell["critical_table"], cell["severity"], cell["ruleset"]) == ("5 Lig Cut", "Cut", "Lig", "default")
    rm = json.loads(run("query", "attack", "Broadsword", "130", "7", "--json").stdout)
    assert (rm["text"], rm["ruleset"]) == ("18 E Slash", "RM")


# ---------------------------------------------------------------- codes per ruleset
def critical_sheet(name: str, code: str | None, **keys: str) -> Rows:
    head: Rows = [["Kind", "critical"], ["Name", name], *([["Code", code]] if code else []), *[[k, v] for k, v in keys.items()]]
    return [*head, [], ["Roll", "Text"], ["1-150", f"{name}."]]


def test_a_code_of_default_is_free_in_another_ruleset(write_workbook, run):
    home = {"Ruleset": [["Kind", "ruleset"], ["Name", "Home"]], "Hack": critical_sheet("Hack", "S"),
            "Cut": critical_sheet("Cut", "Pierce")}  # default's Cut and its Pierce: other names here
    imported(run, write_workbook("home.xlsx", home))
    assert json.loads(run("query", "critical", "Home:S", "50", "--json").stdout)["table"] == "Hack"
    assert json.loads(run("query", "critical", "Home:Pierce", "50", "--json").stdout)["table"] == "Cut"
    assert json.loads(run("query", "critical", "default:S", "50", "--json").stdout)["table"] == "Cut"


def test_a_code_that_is_another_tables_name_in_its_ruleset_is_refused(write_workbook, run):
    sheets = rm_sheets()
    sheets["Bash"] = critical_sheet("Bash", "Krush")
    assert problems_of(write_workbook, sheets) == ["w.xlsx › Bash › B3: critical code 'Krush' already names 'Krush' (Krush)"]
    imported(run, write_workbook("rm.xlsx", rm_sheets()))
    later = {"Ruleset": [["Kind", "ruleset"], ["Name", "RM"]], "Bash": critical_sheet("Bash", "Krush"), "S": critical_sheet("K", None)}
    result = run("import", str(write_workbook("later.xlsx", later)))
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: later.xlsx › Bash › B3: critical code 'Krush' already names critical table 'Krush'\n"
                                   "Error: later.xlsx › S › B2: name 'K' is the code of critical table 'Krush'\n")
    other = {"Ruleset": [["Kind", "ruleset"], ["Name", "Home"]], "Bash": critical_sheet("Bash", "Krush"), "S": critical_sheet("K", None)}
    imported(run, write_workbook("home.xlsx", other))


# ---------------------------------------------------------------- re-import
def test_reimporting_without_a_table_reports_it_removed(write_workbook, run):
    path = write_workbook("rm.xlsx", rm_sheets())
    imported(run, path)
    sheets = rm_sheets()
    del sheets["Grapple"]
    write_workbook("rm.xlsx", sheets)
    result = imported(run, path)
    assert "  removed critical table: RM:Grapple\n" in result.stdout
    assert rulesets_listed(run)["RM"]["critical"] == 3
    assert json.loads(run("show", "critical", "Grapple", "--json").stdout)["ruleset"] == "default"  # the bundled one stays


def test_reimporting_into_another_ruleset_moves_everything(write_workbook, run):
    path = write_workbook("rm.xlsx", rm_sheets())
    imported(run, path)
    sheets = rm_sheets()
    sheets["Ruleset"] = [["Kind", "ruleset"], ["Name", "RM2"]]
    write_workbook("rm.xlsx", sheets)
    result = imported(run, path, "--json")
    workbook = json.loads(result.stdout)["workbooks"][0]
    assert workbook["defined"]["critical"] == ["RM2:Slash", "RM2:Krush", "RM2:Puncture", "RM2:Grapple"]
    assert workbook["removed"]["critical"] == ["RM:Grapple", "RM:Krush", "RM:Puncture", "RM:Slash"]
    assert workbook["removed"]["weapons"] == ["RM:Longsword"]
    listed = rulesets_listed(run)
    assert sorted(listed) == ["RM2", "default"]  # RM is empty, so it is gone
    assert (listed["RM2"]["critical"], listed["RM2"]["weapons"], listed["RM2"]["workbooks"]) == (4, 1, ["rm.xlsx"])
    cell = json.loads(run("query", "attack", "RM2:Broadsword", "130", "7", "--json").stdout)
    assert (cell["critical_table"], cell["ruleset"]) == ("Slash", "RM2")


def test_a_reimport_may_not_drop_what_another_workbook_of_the_ruleset_uses(write_workbook, run, db_path):
    sheets = rm_sheets()
    weapons = {"Ruleset": sheets["Ruleset"], "Weapons": sheets.pop("Weapons")}
    tables = write_workbook("tables.xlsx", sheets)
    imported(run, tables, str(write_workbook("weapons.xlsx", weapons)))
    before = db_dump(db_path)
    del sheets["Broadsword table"]
    write_workbook("tables.xlsx", sheets)
    result = run("import", str(tables))
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: tables.xlsx: no longer defines attack table 'RM:Broadsword' (still used by "
                                   "weapon RM:Longsword); keep it, or change them in the same import\n")
    assert db_dump(db_path) == before


# ---------------------------------------------------------------- reports
def test_an_import_report_qualifies_names_outside_default(write_workbook, run, db_path):
    path = write_workbook("rm.xlsx", rm_sheets())
    before = db_dump(db_path)
    dry = run("import", str(path), "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    assert db_dump(db_path) == before
    data = json.loads(dry.stdout)
    assert data["written"] is False
    assert data["workbooks"][0]["defined"] == {
        "severities": ["RM:RM letters"], "attack": ["RM:Broadsword"],
        "critical": ["RM:Slash", "RM:Krush", "RM:Puncture", "RM:Grapple"],
        "weapons": ["RM:Longsword"], "creatures": ["RM:Orc Warrior"]}
    result = imported(run, path)
    first = result.stdout.splitlines()[0]
    assert first.startswith("Imported rm.xlsx: 1 severity scale (RM:RM letters); 1 attack table (RM:Broadsword); "
                            "4 critical tables (RM:Slash, ")
    assert "1 weapon (RM:Longsword); 1 creature (RM:Orc Warrior)" in first


def test_a_version_1_workbook_imports_into_default_as_before(write_workbook, run):
    sheets = {"Jab": [["Kind", "attack"], ["Name", "Jab"], [], ["Result", "NA", "HA"], ["11+", "18 Let S", "4 Sup K"]],
              "Weapons": [["Kind", "weapons"], [], GLAIVE_HEAD, ["Jabber", "Jab", 120, 2, "S"]]}
    result = imported(run, write_workbook("v1.xlsx", sheets))
    assert result.stdout == "Imported v1.xlsx: 1 attack table (Jab); 1 weapon (Jabber)\n"
    assert sorted(rulesets_listed(run)) == ["default"]
    cell = json.loads(run("query", "attack", "Jab", "50", "NA", "--json").stdout)
    assert (cell["text"], cell["critical_table"], cell["severity"], cell["ruleset"]) == ("18 Let Cut", "Cut", "Let", "default")
    weapon = json.loads(run("list", "weapons", "--json").stdout)["weapons"]
    assert [(w["ruleset"], w["critical"]) for w in weapon if w["name"] == "Jabber"] == [("default", "Cut")]


def test_a_version_1_letter_cell_binds_to_defaults_code_even_beside_rm(write_workbook, run):
    """A version-1 workbook with letter severities: `18ES` is severity E on
    default's S (the bundled Cut), with or without an RM ruleset beside it."""
    letters = rm_sheets()["Severities"][:2] + [[]] + rm_sheets()["Severities"][3:]
    letters[1] = ["Name", "V1 letters"]
    v1 = {"Severities": letters,
          "Jab": [["Kind", "attack"], ["Name", "Jab"], [], ["Result", "NA"], ["11+", "18ES"]]}
    for with_rm in (False, True):
        if with_rm:
            assert run("remove", "v1.xlsx").exit_code == 0
            imported(run, write_workbook("rm.xlsx", rm_sheets()))
        imported(run, write_workbook("v1.xlsx", v1))
        cell = json.loads(run("query", "attack", "Jab", "50", "NA", "--json").stdout)
        assert (cell["text"], cell["critical_table"], cell["severity"], cell["ruleset"]) == ("18 E Cut", "Cut", "E", "default")


# ---------------------------------------------------------------- quality warnings
def test_a_table_is_used_by_weapons_of_its_own_ruleset_only(write_workbook, run):
    sheets = rm_sheets()
    sheets["RM oops"] = fumble("Oops")
    sheets["Default oops"] = with_key(fumble("Oops"), "Ruleset", "default")
    sheets["Weapons"][2] = [*GLAIVE_HEAD, "Secondary critical", "Fumble table"]
    sheets["Weapons"][-1] = ["Longsword", "Broadsword", 150, 4, "S", "Puncture", "Oops"]
    sheets["Cut"] = critical_sheet("Cut", "X")  # default's Cut is used by default's weapons, not by RM's
    result = run("lint", str(write_workbook("rm.xlsx", sheets)), "--json")
    assert result.exit_code == 0, result.output
    warnings = [(w["sheet"], w["cell"], w["message"]) for w in json.loads(result.stdout)["workbooks"][0]["warnings"]]
    assert warnings == [
        ("Grapple", "B2", "no weapon or attack cell uses critical table 'Grapple'"),
        ("Cut", "B2", "no weapon or attack cell uses critical table 'Cut'"),
        ("Default oops", "B3", "no weapon uses fumble table 'Oops'"),
    ]
