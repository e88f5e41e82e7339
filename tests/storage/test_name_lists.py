"""The names shell completion offers, read only (storage/name_lists.py;
docs/cli.md, "Shell completion")."""

from __future__ import annotations

import sqlite3

import pytest
from helpers import db_dump

from tables_app.storage.name_lists import LISTS, every_name

pytestmark = pytest.mark.sqlite_only  # the SQLite file itself (`pytest --postgres` leaves it out)


def test_every_kind_of_name_is_listed_with_its_ruleset(db_path):
    assert {("default", "Longsword"), ("default", "Battle Axe")} <= every_name(db_path, "weapons")
    critical = every_name(db_path, "critical")
    assert {("default", "Cut"), ("default", "S")} <= critical  # a critical table answers to its code too
    assert all(name for _, name in critical)  # a table without a code lists no blank
    assert every_name(db_path, "rulesets") == {(None, "default")}
    assert (None, "bundled/armory.xlsx") in every_name(db_path, "workbooks")
    assert {(None, "NA"), (None, "MA")} <= every_name(db_path, "armor")
    assert every_name(db_path, "fights") == set()  # none yet: names of fights have no ruleset
    assert every_name(db_path, "parties") == set()  # none yet: names of parties have no ruleset
    assert set(LISTS) == {"attack", "critical", "fumble", "weapons", "creatures", "armor", "features", "rulesets",
                          "workbooks", "fights", "parties"}


def test_listing_never_changes_or_makes_a_file(db_path, tmp_path):
    before = db_dump(db_path)
    for what in LISTS:
        every_name(db_path, what)
    assert db_dump(db_path) == before
    with pytest.raises(sqlite3.Error):
        every_name(tmp_path / "missing.db", "weapons")
    assert not (tmp_path / "missing.db").exists()
