"""Migration 0006: the upgrade gives a death said only by an Effects tag its
`death_in`, and the downgrade is refused, changing nothing, while a row holds
what 0005 cannot (a weapon's Max critical, a legend, a parry penalty)."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

import pytest
from click.testing import CliRunner
from test_upgrade_0002 import unpack

from helpers import without_creature_attacks

from tables_app.cli.root import cli
from tables_app.errors import DatabaseError
from tables_app.storage import engine as db

pytestmark = pytest.mark.sqlite_only  # the SQLite file itself (`pytest --postgres` leaves it out)

TAGGED = ("SELECT e.death_in, t.tag FROM critical_entry e JOIN critical_effect t ON t.entry_id = e.id "
          "WHERE lower(t.tag) = 'instant death' OR lower(t.tag) LIKE 'death in %'")


def test_the_upgrade_gives_each_death_tag_its_death_in(tmp_path):
    # docs/workbook-format.md, "Effects in the one-column layout": "a tag `death in N` or
    # `instant death` is the entry's death (`death_in`)"; "the upgrade to 0006 only fills
    # `death_in` from a death tag"
    path = unpack(tmp_path)
    result = CliRunner().invoke(cli, ["--db", str(path), "list"])
    assert result.exit_code == 0, result.output
    with closing(sqlite3.connect(path)) as connection:
        tagged = connection.execute(TAGGED).fetchall()
    deaths = {tag for _, tag in tagged}
    assert {"instant death", "death in 3", "death in 6"} <= deaths  # the fixture holds each kind
    for death_in, tag in tagged:
        assert death_in == (0 if tag == "instant death" else int(tag.split()[2])), tag


def refused_downgrade(db_path, change: str, message: str) -> None:  # type: ignore[no-untyped-def]
    """After ``change``, downgrading to 0005 raises ``message`` and leaves every row as it was."""
    with closing(sqlite3.connect(db_path)) as connection, connection:
        assert connection.execute(change).rowcount == 1
    without_creature_attacks(db_path)
    with closing(sqlite3.connect(db_path)) as connection:
        before = list(connection.iterdump())
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    try:
        full = (f"cannot downgrade below 0006: the tables use legends or printed weapons ({message}); "
                "remove those workbooks first (nothing changed)")
        with pytest.raises(DatabaseError, match="^" + re.escape(full) + "$"):
            db.run_alembic(engine, "downgrade", "0005")
    finally:
        engine.dispose()
    with closing(sqlite3.connect(db_path)) as connection:
        assert list(connection.iterdump()) == before


def test_0006_downgrade_is_refused_while_a_weapon_has_a_max_critical(db_path):
    """docs/workbook-format.md, "weapons" (Max critical): 0005 has no column for the cap."""
    refused_downgrade(db_path, "UPDATE weapon SET max_critical = 'C' WHERE id = (SELECT min(id) FROM weapon)",
                      "1 weapons with a Max critical")


def test_0006_downgrade_is_refused_while_a_critical_table_was_read_with_a_legend(db_path):
    """docs/workbook-format.md, "Legends": 0005 cannot hold the key a table's entries were read with."""
    refused_downgrade(db_path, "UPDATE critical_table SET legend = '∑ stun; ∏ no parry; π must parry' "
                      "WHERE id = (SELECT min(id) FROM critical_table)", "1 critical_tables read with a legend")


def test_0006_downgrade_is_refused_while_an_entry_has_a_parry_penalty(db_path):
    """docs/workbook-format.md, "Legends": `(π-10)` is must parry at −10, which 0005 cannot hold."""
    refused_downgrade(db_path, "UPDATE critical_entry SET must_parry = 1, parry_penalty = -10 "
                      "WHERE id = (SELECT min(id) FROM critical_entry)", "1 critical_entry rows with a parry penalty")
