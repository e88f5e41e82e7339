"""Groups from the command line (docs/deploy.md, "Groups"): the operator makes them and their tokens; `tables
--group NAME` acts as one, its fights and parties apart from every other group's and the operator's own."""

from __future__ import annotations

import json

import pytest

from tables_app.services.groups import TOKEN_PREFIX, token_hash

BY_HAND = ("--hits", "30", "--armor", "MA", "--weapon", "Dagger", "--cmb", "10")


def made(run, name: str) -> str:  # type: ignore[no-untyped-def]
    result = run("group", "new", name, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["group"] == name and data["made"] is True and data["token"].startswith(TOKEN_PREFIX)
    return str(data["token"])


def test_a_group_is_made_once_its_token_shown_once_and_kept_only_hashed(run, db_path):  # type: ignore[no-untyped-def]
    token = made(run, "Tuesday")
    assert len(token) >= 40
    again = run("group", "new", "tuesday")
    assert (again.exit_code, again.stderr) == (1, "Error: a group named 'Tuesday' exists (a new token for it: "
                                                  "tables group token Tuesday)\n")
    listed = json.loads(run("group", "list", "--json").stdout)["groups"]
    assert listed == [{"group": "Tuesday", "token": True, "created_at": listed[0]["created_at"], "fights": 0,
                       "parties": 0}]
    import sqlite3

    with sqlite3.connect(db_path) as connection:  # the token is nowhere in the database; its SHA-256 is
        stored = connection.execute("SELECT token_hash FROM fight_group").fetchone()[0]
    assert stored == token_hash(token) and token not in stored


def test_each_group_sees_only_its_own_fights_and_parties_and_names_are_unique_within_a_group(run):  # type: ignore[no-untyped-def]
    made(run, "Tuesday")
    made(run, "Friday")
    for group in ("Tuesday", "Friday", None):
        scope = ("--group", group) if group else ()
        assert run(*scope, "fight", "new", "Duel").exit_code == 0  # the same name in each group
        assert run(*scope, "fight", "join", "Duel", "--as", f"Hero of {group}", *BY_HAND).exit_code == 0
        assert run(*scope, "fight", "party", "save", "Heroes", "--from", "Duel").exit_code == 0
    for group in ("Tuesday", "Friday", None):
        scope = ("--group", group) if group else ()
        shown = json.loads(run(*scope, "fight", "show", "duel", "--json").stdout)
        assert [c["name"] for c in shown["combatants"]] == [f"Hero of {group}"]
        assert [f["name"] for f in json.loads(run(*scope, "fight", "list", "--json").stdout)["fights"]] == ["Duel"]
        party = json.loads(run(*scope, "fight", "party", "show", "Heroes", "--json").stdout)
        assert [m["name"] for m in party["members"]] == [f"Hero of {group}"]
        again = run(*scope, "fight", "new", "DUEL")
        assert again.exit_code == 1 and "a fight named 'Duel' exists" in again.stderr
    assert run("--group", "Friday", "fight", "remove", "Duel").exit_code == 0
    assert json.loads(run("--group", "Tuesday", "fight", "show", "Duel", "--json").stdout)["seq"] == 1
    assert json.loads(run("fight", "show", "Duel", "--json").stdout)["seq"] == 1
    counts = {g["group"]: (g["fights"], g["parties"]) for g in json.loads(run("group", "list", "--json").stdout)["groups"]}
    assert counts == {"Friday": (0, 1), "Tuesday": (1, 1)}


def test_an_unknown_group_is_one_line_with_the_near_names(run):  # type: ignore[no-untyped-def]
    made(run, "Tuesday")
    result = run("--group", "Tusday", "fight", "list")
    assert (result.exit_code, result.stderr) == (1, "Error: no group named 'Tusday' — did you mean 'Tuesday'?\n")


def test_a_new_token_replaces_the_old_and_a_revoked_group_has_none(run, db_path):  # type: ignore[no-untyped-def]
    from tables_app.services.database_setup import open_database
    from tables_app.services.groups import of_token

    first = made(run, "Tuesday")
    second = json.loads(run("group", "token", "TUESDAY", "--json").stdout)
    assert second["made"] is False and second["token"] != first
    database = open_database(str(db_path))
    try:
        assert of_token(database, first) is None
        found = of_token(database, second["token"])
        assert found is not None and found.name == "Tuesday"
        revoked = run("group", "revoke", "Tuesday")
        assert revoked.exit_code == 0 and "Revoked the token of the group 'Tuesday'" in revoked.stdout
        assert of_token(database, second["token"]) is None
    finally:
        database.dispose()
    listed = run("group", "list").stdout
    assert "revoked: tables group token Tuesday" in listed


def test_serve_refuses_group_rather_than_serve_the_operators_fights(run):  # type: ignore[no-untyped-def]
    assert run("group", "new", "Tuesday").exit_code == 0
    refused = run("--group", "Tuesday", "serve", "--port", "1")
    assert refused.exit_code == 2
    assert "--group does not apply to serve: each request acts as its token's group" in refused.output


@pytest.mark.parametrize("command", [["import", "x.xlsx"], ["remove", "x.xlsx"], ["group", "list"], ["db", "check"]])
def test_what_is_the_operators_alone_is_refused_with_group_and_nothing_changes(run, db_path, command):  # type: ignore[no-untyped-def]
    """A group's token may not import over HTTP (403); `tables --group` says so
    too rather than act as the operator (docs/deploy.md, Groups)."""
    assert run("group", "new", "Tuesday").exit_code == 0
    before = db_path.read_bytes()
    refused = run("--group", "Tuesday", *command)
    assert refused.exit_code == 2
    assert f"--group does not apply to {command[0]}: " in refused.output
    assert "run it without --group" in refused.output
    assert db_path.read_bytes() == before
    assert run("--group", "Tuesday", "query", "attack", "Edged", "100", "MA").exit_code == 0  # the tables, read
