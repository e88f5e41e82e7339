"""The Python API of tables_app (docs/library.md): a database of tables,
opened, and every operation of the `tables` command as a method.

    import tables_app

    with tables_app.Tables("my.db") as tables:
        hit = tables.resolve(weapon="Longsword", cmb=60, defense=20, armor="MA", seed=7)
        print(hit.result.outcome, hit.result.damage)

Each method checks its values by the operation's declared parameters
(tables_app/operations: the bounds the command line and the HTTP API
keep), reads the database in one read transaction, and returns a typed
result (services/results.py, services/lookups.py) whose ``to_json()`` is
exactly what `tables ... --json` prints; list and show return that JSON
as a dict (rows of the database).
Every failure is a ``TablesError`` (``ParamError`` for a refused value,
``NotFound`` with ``suggestions`` for an unknown name).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from tables_app.operations import find

if TYPE_CHECKING:  # the results load with the services that make them
    from tables_app.services.importing import ImportReport
    from tables_app.services.lookups import CellAnswer, EntryAnswer
    from tables_app.services.removing import RemoveReport
    from tables_app.storage.database import Database
    from tables_app.services.results import (
        FormulaOdds,
        FormulaResolution,
        Simulation,
        Sweep,
        TableOddsResult,
        TableResolution,
    )


class Tables:
    """The tables of one database: ``location`` is a path or a
    ``sqlite:///`` URL (default: ``$TABLES_DB``, else the user data
    directory, created on first use with the bundled tables). A named
    database must exist: ``Tables.create(path)`` makes a new one."""

    def __init__(self, location: str | Path | None = None):
        from tables_app.services.database_setup import open_database

        self.database: Database = open_database(None if location is None else str(location))

    @classmethod
    def create(cls, location: str | Path, *, bundled: bool = True) -> Tables:
        """A new database at ``location`` (as `tables db init`), with the
        bundled tables unless ``bundled`` is False; then opened."""
        from tables_app.services.database_setup import init_database

        init_database(str(location), bundled=bundled).dispose()
        return cls(location)

    def close(self) -> None:
        self.database.dispose()

    def __enter__(self) -> Tables:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ answers
    def _answer(self, words: tuple[str, ...], values: dict[str, Any]) -> Any:
        operation = find(words)
        checked = operation.checked(values)
        if not operation.uses_database:
            return operation.run(None, **checked)
        with self.database.snapshot():  # one read transaction for the whole answer
            return operation.run(self.database, **checked)

    def _looked_up(self, words: tuple[str, ...], values: dict[str, Any]) -> dict[str, Any]:
        """A look-up's answer: the JSON object its operation returns (operations/lookups.py)."""
        answer: dict[str, Any] = self._answer(words, values)
        return answer

    def list(self, kind: str | None = None, *, ruleset: str | None = None) -> dict[str, Any]:
        """Every table, weapon, creature and ruleset (or those of ``kind``), as `tables list --json`."""
        return self._looked_up(("list",), {"kind": kind, "ruleset": ruleset})

    def show(self, kind: str, name: str, *, ruleset: str | None = None) -> dict[str, Any]:
        """A whole table, weapon or creature, as `tables show KIND NAME --json`."""
        return self._looked_up(("show",), {"kind": kind, "name": name, "ruleset": ruleset})

    def query_attack(self, table: str, result: int, armor: str, *, ruleset: str | None = None) -> CellAnswer:
        """The cell of an attack table at a modified result (`tables query attack`)."""
        cell: CellAnswer = self._answer(("query", "attack"), {"table": table, "result": result, "armor": armor,
                                                              "ruleset": ruleset})  # operations/lookups.py
        return cell

    def query_critical(self, table: str, roll: int, *, severity: str | None = None, features: tuple[str, ...] = (),
                       column: str | None = None, ruleset: str | None = None) -> EntryAnswer:
        """The entry of a critical table for a natural d100 roll (`tables query critical`)."""
        entry: EntryAnswer = self._answer(("query", "critical"), {"table": table, "roll": roll, "severity": severity,
                                                                  "features": tuple(features), "column": column,
                                                                  "ruleset": ruleset})
        return entry

    def query_fumble(self, table: str, roll: int, *, modifier: int = 0, column: str | None = None,
                     ruleset: str | None = None) -> EntryAnswer:
        """The entry of a fumble table for a natural d100 roll (`tables query fumble`)."""
        entry: EntryAnswer = self._answer(("query", "fumble"), {"table": table, "roll": roll, "modifier": modifier,
                                                                "column": column, "ruleset": ruleset})
        return entry

    @overload
    def resolve(self, system: Literal["table"] = "table", **options: Any) -> TableResolution: ...
    @overload
    def resolve(self, system: str, **options: Any) -> TableResolution | FormulaResolution: ...

    def resolve(self, system: str = "table", **options: Any) -> TableResolution | FormulaResolution:
        """One attack: a ``TableResolution`` (the d100 tables) or a
        ``FormulaResolution``. ``options`` are the command's, by their
        Python names (``defense``, ``features``, ``modifiers``: docs/library.md)."""
        resolved: TableResolution | FormulaResolution = self._answer(("resolve", system), options)  # operations/attacks.py
        return resolved

    @overload
    def odds(self, system: Literal["table"] = "table", **options: Any) -> TableOddsResult | Sweep: ...
    @overload
    def odds(self, system: str, **options: Any) -> TableOddsResult | Sweep | FormulaOdds: ...

    def odds(self, system: str = "table", **options: Any) -> TableOddsResult | Sweep | FormulaOdds:
        """The exact odds of one attack (``TableOddsResult``, a ``Sweep`` with
        ``sweep_cmb``/``sweep_def``, or ``FormulaOdds``)."""
        odds: TableOddsResult | Sweep | FormulaOdds = self._answer(("odds", system), options)  # operations/attacks.py
        return odds

    def simulate(self, system: str = "table", **options: Any) -> Simulation:
        """``count`` random attacks, counted (a ``Simulation``)."""
        simulation: Simulation = self._answer(("simulate", system), options)  # operations/attacks.py
        return simulation

    # ------------------------------------------------------------ fights
    def fight(self, command: str, name: str | None = None, **options: Any) -> Any:
        """`tables fight COMMAND NAME ...` (docs/fights.md): ``command`` is
        new, join, attack, round, show, log, undo, list, remove or edit;
        ``options`` the command's, by their Python names (``label`` for
        ``--as``, ``defense`` for ``--def``, ``features`` for ``--has``,
        ``weapon`` for ``--attack``, ``mods`` for ``--mod``). A write
        returns a ``FightStep``, show a ``FightState``, log a ``FightLog``,
        each with ``to_json()`` as `--json` prints it."""
        values = dict(options)
        if name is not None:
            values["name"] = name
        return self._answer(("fight", command), values)

    # ------------------------------------------------------------ workbooks
    def import_workbooks(self, *paths: str | Path, dry_run: bool = False, replace: bool = False,
                         strict: bool = False) -> ImportReport:
        """Import workbooks, all or nothing (an ``ImportReport``; its
        ``problems`` say why nothing was imported)."""
        from tables_app.services.importing import import_workbooks

        return import_workbooks(self.database, [str(p) for p in paths], dry_run=dry_run, replace=replace, strict=strict)

    def lint(self, *paths: str | Path, replace: bool = False, strict: bool = False) -> ImportReport:
        """Check workbooks as an import would, writing nothing (an ``ImportReport``)."""
        return self.import_workbooks(*paths, dry_run=True, replace=replace, strict=strict)

    def export(self, path: str | Path, *names: str, ruleset: str | None = None, force: bool = False) -> dict[str, Any]:
        """Write the tables (all, or ``names``) to an .xlsx in the import format."""
        from tables_app.services import authoring

        return authoring.export(self.database, path, tuple(names), ruleset=ruleset, force=force)

    def remove(self, *workbooks: str, ruleset: str | None = None, dry_run: bool = False) -> RemoveReport:
        """Remove what ``workbooks`` defined, or a whole ruleset (a ``RemoveReport``)."""
        from tables_app.services.removing import remove

        return remove(self.database, tuple(workbooks), ruleset, dry_run=dry_run)
