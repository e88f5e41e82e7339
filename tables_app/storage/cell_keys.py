"""PostgreSQL: the attack cells' references checked a statement at a time, not a row at a time.

An import writes about 90,000 attack cells (Rolemaster scale), each with up
to four foreign keys (its row, its armor column, its severity, its critical
table). As foreign-key constraints, PostgreSQL checks them one row at a time
(an index probe and a row lock per reference, at the commit when deferred):
most of the import's commit (0.8 s measured apart in #31; bench/pg_cell_keys.py,
bench/README.md "PostgreSQL import and resolve (#44)"). Here the same rules
are kept by triggers that check each statement's cells at once (the
set-based check: each reference's distinct values, looked up once):

- cells inserted or updated (COPY included): every reference points at a row
  that exists, checked when the statement ends, the rows pointed at locked
  against a concurrent delete (FOR KEY SHARE, as the constraints lock them);
- a row or an armor column deleted: its cells go with it (ON DELETE CASCADE);
- a severity or a critical table deleted (or its id changed): refused at the
  commit if a cell still points at it (the constraints were deferred there:
  an import may drop a table one workbook used and re-point its cells from
  the next one);
- TRUNCATE of a row or column table is refused unless attack_cell is truncated with it.

A violation is SQLSTATE 23503 (foreign_key_violation), as the constraint's
would be: the writer sees an IntegrityError and nothing is committed. The
models keep the four foreign keys (SQLite checks them itself, and cheaply:
an import's keys are checked row by row there too, in-process);
migrations/env.py puts these triggers in their place on PostgreSQL after
every migration (``install``), and takes them out before one (``uninstall``),
so the revisions see the schema they made. `db check` runs the same anti-join
over every cell (``DANGLING``) and says if a trigger was switched off by hand.
"""

from __future__ import annotations

# The four foreign keys of attack_cell the models define (migration 0001's names).
FOREIGN_KEYS = {
    "fk_attack_cell_row_id_attack_row": ("row_id", "attack_row", "CASCADE"),
    "fk_attack_cell_armor_column_id_armor_column": ("armor_column_id", "armor_column", "CASCADE"),
    "fk_attack_cell_severity_id_severity": ("severity_id", "severity", None),
    "fk_attack_cell_critical_table_id_critical_table": ("critical_table_id", "critical_table", None),
}

# The cells of {cells} that point at nothing: the set-based check (one anti-join).
_POINTING_AT_NOTHING = (
    "SELECT c.id FROM {cells} c WHERE NOT EXISTS (SELECT 1 FROM attack_row r WHERE r.id = c.row_id) "
    "OR NOT EXISTS (SELECT 1 FROM armor_column a WHERE a.id = c.armor_column_id) "
    "OR (c.severity_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM severity s WHERE s.id = c.severity_id)) "
    "OR (c.critical_table_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM critical_table k WHERE k.id = c.critical_table_id))"
)
DANGLING = _POINTING_AT_NOTHING.format(cells="attack_cell") + " ORDER BY c.id LIMIT ?"

# Cells written: for each reference, its distinct values (hundreds, where
# the cells are ~90,000), the rows they name locked against a concurrent
# delete (FOR KEY SHARE, as a key locks them: that delete waits for this
# commit, then finds the cells) and counted: one missing is a violation.
# Distinct values first, since the planner knows nothing of a transition
# table's size and would probe an index per cell (0.4 s at 90,000 cells).
_CELLS_WRITTEN = """
CREATE OR REPLACE FUNCTION tables_attack_cells_written() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    reference text[];
    wanted bigint[];
    held bigint;
    bad bigint;
BEGIN
    FOREACH reference SLICE 1 IN ARRAY ARRAY[['row_id', 'attack_row'], ['armor_column_id', 'armor_column'],
                                           ['severity_id', 'severity'], ['critical_table_id', 'critical_table']] LOOP
        EXECUTE format('SELECT array_agg(DISTINCT %I) FROM written_cells WHERE %I IS NOT NULL', reference[1], reference[1])
            INTO wanted;
        CONTINUE WHEN wanted IS NULL;
        EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %I WHERE id = ANY($1) FOR KEY SHARE) AS locked', reference[2])
            INTO held USING wanted;
        IF held < cardinality(wanted) THEN
            EXECUTE format('SELECT min(id) FROM written_cells c WHERE c.%I IS NOT NULL '
                           'AND NOT EXISTS (SELECT 1 FROM %I p WHERE p.id = c.%I)', reference[1], reference[2], reference[1])
                INTO bad;
            RAISE foreign_key_violation USING MESSAGE = 'insert or update on table "attack_cell" violates its foreign keys: '
                'cell ' || bad || ' points at a ' || reference[2] || ' row that does not exist';
        END IF;
    END LOOP;
    RETURN NULL;
END $$"""

# A row or an armor column deleted: its cells with it (TG_ARGV[0]: the cells' column pointing at it).
_CASCADE = """
CREATE OR REPLACE FUNCTION tables_attack_cells_cascade() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('DELETE FROM attack_cell WHERE %I IN (SELECT id FROM gone)', TG_ARGV[0]);
    RETURN NULL;
END $$"""

# A severity or critical table deleted or renumbered: at the commit, no cell
# may still point at its id (unless a row of that id is there again).
_STILL_USED = """
CREATE OR REPLACE FUNCTION tables_attack_cells_still_used() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE bad bigint;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
        RETURN NULL;
    END IF;
    EXECUTE format('SELECT min(id) FROM attack_cell WHERE %I = $1 AND NOT EXISTS (SELECT 1 FROM %I WHERE id = $1)',
                   TG_ARGV[0], TG_TABLE_NAME) INTO bad USING OLD.id;
    IF bad IS NOT NULL THEN
        RAISE foreign_key_violation USING MESSAGE = 'update or delete on table "' || TG_TABLE_NAME || '" violates the '
            'foreign keys of table "attack_cell": cell ' || bad || ' still points at ' || TG_TABLE_NAME || ' ' || OLD.id;
    END IF;
    RETURN NULL;
END $$"""

_NO_TRUNCATE = """
CREATE OR REPLACE FUNCTION tables_attack_cells_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM attack_cell) THEN
        RAISE feature_not_supported USING MESSAGE = 'cannot truncate table ' || TG_TABLE_NAME || ': attack cells point at it';
    END IF;
    RETURN NULL;
END $$"""

FUNCTIONS = ("tables_attack_cells_written", "tables_attack_cells_cascade", "tables_attack_cells_still_used",
             "tables_attack_cells_no_truncate")

# (table, trigger): every trigger install() makes; `db check` looks for each, enabled.
TRIGGERS = (
    ("attack_cell", "tables_attack_cells_inserted"), ("attack_cell", "tables_attack_cells_updated"),
    ("attack_row", "tables_attack_cells_cascade"), ("armor_column", "tables_attack_cells_cascade"),
    ("severity", "tables_attack_cells_still_used"), ("critical_table", "tables_attack_cells_still_used"),
    ("attack_row", "tables_attack_cells_no_truncate"), ("armor_column", "tables_attack_cells_no_truncate"),
)


def install_statements(constraints: set[str], enabled: set[tuple[str, str]]) -> list[str]:
    """The DDL putting the triggers in place of the foreign keys of ``constraints``
    (those of FOREIGN_KEYS attack_cell holds now), in one transaction: the
    functions (re)defined, which locks no table; the triggers made anew only
    if a key is left or a trigger is missing or switched off (``enabled``:
    HELD_TRIGGERS' enabled ones)."""
    made = [_CELLS_WRITTEN, _CASCADE, _STILL_USED, _NO_TRUNCATE]
    if not constraints and set(TRIGGERS) <= enabled:
        return made
    made += [f"DROP TRIGGER IF EXISTS {trigger} ON {table}" for table, trigger in TRIGGERS]
    made += [f'ALTER TABLE attack_cell DROP CONSTRAINT "{name}"' for name in sorted(constraints)]
    made += [
        "CREATE TRIGGER tables_attack_cells_inserted AFTER INSERT ON attack_cell REFERENCING NEW TABLE AS written_cells "
        "FOR EACH STATEMENT EXECUTE FUNCTION tables_attack_cells_written()",
        "CREATE TRIGGER tables_attack_cells_updated AFTER UPDATE ON attack_cell REFERENCING NEW TABLE AS written_cells "
        "FOR EACH STATEMENT EXECUTE FUNCTION tables_attack_cells_written()",
    ]
    for column, parent, on_delete in FOREIGN_KEYS.values():
        if on_delete == "CASCADE":
            made.append(f"CREATE TRIGGER tables_attack_cells_cascade AFTER DELETE ON {parent} REFERENCING OLD TABLE AS gone "
                        f"FOR EACH STATEMENT EXECUTE FUNCTION tables_attack_cells_cascade('{column}')")
            made.append(f"CREATE TRIGGER tables_attack_cells_no_truncate AFTER TRUNCATE ON {parent} "
                        "FOR EACH STATEMENT EXECUTE FUNCTION tables_attack_cells_no_truncate()")
        else:
            made.append(f"CREATE CONSTRAINT TRIGGER tables_attack_cells_still_used AFTER DELETE OR UPDATE OF id ON {parent} "
                        f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tables_attack_cells_still_used('{column}')")
    return made


def uninstall_statements(constraints: set[str]) -> list[str]:
    """The DDL giving attack_cell back the foreign keys it lacks (it holds
    ``constraints``; deferrable, as env.py makes every one), the triggers gone;
    [] when it holds all four."""
    if set(FOREIGN_KEYS) <= constraints:
        return []
    made = [f"DROP TRIGGER IF EXISTS {trigger} ON {table}" for table, trigger in TRIGGERS]
    made += [f"DROP FUNCTION IF EXISTS {function}()" for function in FUNCTIONS]
    for constraint, (column, parent, on_delete) in FOREIGN_KEYS.items():
        if constraint in constraints:
            continue
        action = f" ON DELETE {on_delete}" if on_delete else ""
        made.append(f'ALTER TABLE attack_cell ADD CONSTRAINT "{constraint}" FOREIGN KEY ({column}) REFERENCES {parent} (id)'
                    f"{action} DEFERRABLE INITIALLY IMMEDIATE")
    return made


# Which of FOREIGN_KEYS attack_cell holds; whether the triggers are there.
HELD_KEYS = ("SELECT c.conname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid "
             "WHERE c.contype = 'f' AND t.relname = 'attack_cell' AND t.relnamespace = current_schema()::regnamespace")
HELD_TRIGGERS = ("SELECT t.relname, g.tgname, g.tgenabled <> 'D' FROM pg_trigger g JOIN pg_class t ON t.oid = g.tgrelid "
                 "WHERE NOT g.tgisinternal AND g.tgname LIKE 'tables_attack_cells_%' "
                 "AND t.relnamespace = current_schema()::regnamespace")
