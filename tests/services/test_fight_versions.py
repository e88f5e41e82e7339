"""A write is checked against the exact log it read (issue 43, item 1): the
fight's id and its version, which every write bumps (an append, an undo),
under the write lock. Two writers are made to interleave deterministically:
the first pauses between its read and its write while the other writes
(what `tables serve` does by itself under a race of writers); the review's
reproducers (repro_aba.py, repro_aba_remove.py, test_review_repro.py's R5),
adapted."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Callable

import pytest

from tables_app.domain.fights import Attack, Blow, Harm, event_json
from tables_app.errors import FightChanged
from tables_app.services import fights
from tables_app.services.database_setup import open_database
from tables_app.storage import fights as store

J = fights.Joining
HERO = J(label="Hero", hits=100, defense=20, armor="MA", weapon="Longsword", cmb=60)
ORC = J(label="Orc", side="B", hits=100, defense=20, armor="MA", weapon="Scimitar", cmb=55)


@pytest.fixture
def database(db_path: Path) -> Any:
    database = open_database(str(db_path))
    yield database
    database.dispose()


def _duel(database: Any, name: str = "F") -> None:
    fights.new(database, name)
    fights.join(database, name, HERO)
    fights.join(database, name, ORC)


def _paused(monkeypatch: pytest.MonkeyPatch, function: str, meanwhile: Callable[[], None]) -> None:
    """``fights.<function>`` runs ``meanwhile`` (another writer's work) once, before itself: the first
    writer has read the log, and writes after the other."""
    real = getattr(fights, function)

    def paused(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(fights, function, real)
        meanwhile()
        return real(*args, **kwargs)

    monkeypatch.setattr(fights, function, paused)


def _in_a_thread(work: Callable[[], Any]) -> Any:
    """``work``'s answer (or the exception it raised), run in a thread of its own, as a second server's
    request would be."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except Exception as exc:  # noqa: BLE001 — the outcome is the test's to judge
            outcome["value"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    return outcome["value"]


def test_a_write_read_before_an_undo_and_another_write_at_the_same_number_is_refused(
        database: Any, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """repro_aba.py: X reads the log at event 4; Y undoes event 4 and writes another event 4; X's write,
    `after` 4 as the log is again, was accepted and the log no longer replayed."""
    _duel(database)
    fights.attack(database, "F", "Hero", "Orc", forced=(30,))  # 3: Hero attacks in round 1
    fights.round_(database, "F")  # 4: round 1 ends

    def another_writer() -> None:
        other = open_database(str(db_path))
        try:
            assert fights.undo(other, "F", after=4).state.seq == 3
            assert fights.attack(other, "F", "Orc", "Hero", forced=(30,), after=3).state.seq == 4
        finally:
            other.dispose()

    _paused(monkeypatch, "written", lambda: _in_a_thread(another_writer))
    with pytest.raises(FightChanged, match=r"^the fight 'F' changed \(its log was undone and written again up to "
                                           r"event 4\): show it again, then retry$"):
        fights.attack(database, "F", "Hero", "Orc", forced=(30,), after=4)
    logged = fights.log(database, "F").to_json()["events"]
    assert [(e["seq"], e["kind"], e.get("attacker")) for e in logged][2:] == [(3, "attack", "Hero"), (4, "attack", "Orc")]
    assert fights.show(database, "F").seq == 4  # the log replays


def test_a_write_read_on_a_removed_fight_never_lands_in_a_new_one_of_the_same_name(
        database: Any, run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """repro_aba_remove.py and test_review_repro.py's R5: between X's read and its write, F is removed and
    made anew with other combatants and as many events; X's attack landed in the new F (on SQLite even under
    the same id: INTEGER PRIMARY KEY reused it)."""
    by_hand = ("--hits", "30", "--armor", "MA", "--weapon", "Dagger", "--cmb", "10")
    run("fight", "new", "Duel")
    run("fight", "join", "Duel", "--as", "Hero", *by_hand)
    run("fight", "join", "Duel", "--as", "Orc", "--side", "B", *by_hand)

    def another_writer() -> None:
        assert run("fight", "remove", "Duel").exit_code == 0
        assert run("fight", "new", "Duel").exit_code == 0
        assert run("fight", "join", "Duel", "--as", "Elf", *by_hand).exit_code == 0
        assert run("fight", "join", "Duel", "--as", "Goblin", "--side", "B", *by_hand).exit_code == 0

    _paused(monkeypatch, "check_enough", another_writer)
    with pytest.raises(FightChanged, match="^the fight 'Duel' was removed meanwhile"):
        fights.attack(database, "Duel", "Hero", "Orc", forced=(50,), after=2)
    shown = json.loads(run("fight", "show", "Duel", "--json").stdout)
    assert (shown["seq"], [c["name"] for c in shown["combatants"]]) == (2, ["Elf", "Goblin"])


def test_an_undo_read_before_an_undo_and_another_write_is_refused(database: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An undo that read event 3 does not take back another writer's event 3 written since."""
    _duel(database)
    fights.attack(database, "F", "Hero", "Orc", forced=(30,))  # 3

    def another_writer() -> None:
        fights.undo(database, "F", after=3)
        fights.attack(database, "F", "Orc", "Hero", forced=(30,), after=2)  # another 3

    _paused(monkeypatch, "_last_group", another_writer)
    with pytest.raises(FightChanged):
        fights.undo(database, "F", after=3)
    assert fights.log(database, "F").to_json()["events"][-1]["attacker"] == "Orc"


def test_a_remove_read_before_an_undo_and_another_write_is_refused(database: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _duel(database)
    fights.attack(database, "F", "Hero", "Orc", forced=(30,))  # 3

    def another_writer() -> None:
        fights.undo(database, "F", after=3)
        fights.attack(database, "F", "Orc", "Hero", forced=(30,), after=2)

    _paused(monkeypatch, "check_seq", another_writer)
    with pytest.raises(FightChanged):
        fights.remove(database, "F", after=3)
    assert fights.show(database, "F").seq == 3  # still there


def test_every_write_bumps_the_version_and_an_id_is_never_given_twice(database: Any) -> None:
    _duel(database, "A")
    fights.new(database, "B")

    def row(name: str) -> store.FightRow:
        with database.snapshot() as connection:
            found = store.find(connection, name, 0)
        assert found is not None
        return found

    versions = [row("A").version]
    fights.attack(database, "A", "Hero", "Orc", forced=(30,))
    versions.append(row("A").version)
    fights.undo(database, "A")
    versions.append(row("A").version)
    assert versions == sorted(set(versions)) and len(versions) == 3  # each write a new one, never back
    highest = row("B").id
    fights.remove(database, "B")
    fights.new(database, "C")
    assert row("C").id > highest  # B's id is not C's: a writer that read B never writes C


@pytest.mark.parametrize("command", [("attack", "Hero", "Orc", "--dice", "40"), ("undo",), ("remove",)])
def test_a_writer_behind_an_undo_is_told_the_fight_changed_exit_1(run: Any, command: tuple[str, ...]) -> None:
    """`--after 3` on a log of 2 events: another writer undid event 3 since (issue 43, item 6): exit 1, as a
    writer behind another's write, not a usage mistake (exit 2); the page reloads on its 409."""
    by_hand = ("--hits", "30", "--armor", "MA", "--weapon", "Dagger", "--cmb", "10")
    run("fight", "new", "F")
    run("fight", "join", "F", "--as", "Hero", *by_hand)
    run("fight", "join", "F", "--as", "Orc", "--side", "B", *by_hand)
    result = run("fight", command[0], "F", *command[1:], "--after", "3")
    assert (result.exit_code, result.output) == (
        1, "Error: the fight 'F' changed (its log is at event 2, not 3): show it again, then retry\n")
    assert json.loads(run("fight", "show", "F", "--json").stdout)["seq"] == 2


# ------------------------------------------------------------------ a log that does not replay
def _broken(database: Any, name: str = "F") -> None:
    """F with a third event that does not replay (an attack by a combatant it never had), written past the
    rules as a lost race of writers once did."""
    loaded = fights.load(database, name)
    ghost = {**event_json(Attack("Ghost", "Orc", Blow(to_target=Harm(hits=5)))), "command": "attack", "group": 3}
    with database.writing(commit=True, breaking="the fight's log") as connection:
        store.append(connection, loaded.row, loaded.seq, [ghost])


def test_a_log_that_does_not_replay_is_found_by_db_check_shown_in_the_log_and_undone(database: Any, run: Any) -> None:
    _duel(database)
    _broken(database)
    refused = run("fight", "show", "F")
    assert refused.exit_code == 1 and "its log does not replay at event 3" in refused.output
    check = run("db", "check")
    assert check.exit_code != 0
    assert "fight 'F': its log does not replay at event 3 (" in check.output
    logged = json.loads(run("fight", "log", "F", "--json").stdout)
    assert [e["seq"] for e in logged["events"]] == [1, 2, 3]
    assert "does not replay" in logged["events"][2]["words"][0]
    undone = run("fight", "undo", "F", "--after", "3")
    assert undone.exit_code == 0, undone.output
    assert undone.output.startswith("Undone: Ghost's attack on Orc (event 3).\n")
    assert json.loads(run("fight", "show", "F", "--json").stdout)["seq"] == 2
    assert run("db", "check").exit_code == 0


def test_a_log_that_does_not_replay_can_be_removed(database: Any, run: Any) -> None:
    _duel(database)
    _broken(database)
    removed = run("fight", "remove", "F", "--after", "3")
    assert (removed.exit_code, removed.output) == (0, "Removed the fight 'F' (3 events).\n")
    assert run("fight", "show", "F").exit_code == 1


def test_a_caller_sending_the_version_it_saw_is_refused_after_an_undo_and_a_write_at_the_same_number(run):  # type: ignore[no-untyped-def]
    """Across requests (bench/fight_race_serve.py found 17 of 5,101 writes so taken): a client reads event 3 and
    version V; meanwhile another undoes event 3 and writes another event 3. `after` 3 alone still matches;
    the version it saw does not, and the write is refused whole (exit 1, 409 over HTTP)."""
    by_hand = ("--hits", "30", "--armor", "MA", "--weapon", "Dagger", "--cmb", "10")
    run("fight", "new", "Duel")
    run("fight", "join", "Duel", "--as", "Hero", *by_hand)
    run("fight", "join", "Duel", "--as", "Orc", "--side", "B", *by_hand)
    assert run("fight", "attack", "Duel", "Hero", "Orc", "--dice", "50").exit_code == 0
    seen = json.loads(run("fight", "show", "Duel", "--json").stdout)
    assert seen["seq"] == 3 and seen["version"] == 3
    assert run("fight", "undo", "Duel").exit_code == 0  # another writer: back to 2 ...
    assert run("fight", "attack", "Duel", "Orc", "Hero", "--dice", "50").exit_code == 0  # ... and another event 3
    refused = run("fight", "attack", "Duel", "Hero", "Orc", "--dice", "60", "--after", "3", "--version", str(seen["version"]))
    assert (refused.exit_code, refused.stderr) == (1, "Error: the fight 'Duel' changed (its version is 5, not 3: written "
                                                      "since, perhaps undone and written again): show it again, then retry\n")
    now = json.loads(run("fight", "show", "Duel", "--json").stdout)
    assert (now["seq"], now["version"]) == (3, 5)
    taken = run("fight", "attack", "Duel", "Hero", "Orc", "--dice", "60", "--after", "3", "--version", "5", "--json")
    assert taken.exit_code == 0 and json.loads(taken.stdout)["fight"]["version"] == 6


def test_a_remove_given_only_the_version_it_saw_is_checked_under_the_write_lock(database: Any,
                                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`fight remove --version N` without --after: a write between its read and its removal refuses it."""
    _duel(database)
    seen = fights.show(database, "F").version

    def another_writer() -> None:
        _in_a_thread(lambda: fights.attack(open_database(str(database.path)), "F", "Hero", "Orc", forced=(30,)))

    _paused(monkeypatch, "check_seq", another_writer)
    with pytest.raises(FightChanged):
        fights.remove(database, "F", version=seen)
    assert fights.show(database, "F").seq == 3
