"""What one table reads, by a modified result or by a die, without an
attack: the row of a result (docs/table-system.md, steps 7-8), the printed
column and the roll of a critical die (step 10) or a fumble die (step 2).

Each is written once, here: the attack's rules (table_rules.py) are built
on them, and `tables query` reads a table with them alone (a lookup loads
neither the attack's rules nor dice).
"""

from __future__ import annotations

from bisect import bisect_right

from tables_app.domain.severity import Severity
from tables_app.domain.tables import AttackTable, ColumnChoice, EffectTable


def result_runs(table: AttackTable) -> list[tuple[int | None, int | None]]:
    """Steps 7-8 over every modified result, as runs, ascending: (the run's
    lowest result, the index of the row it reads). The first run, from below,
    reads no row (None): results below the lowest row and at or below the
    table's automatic miss miss; each run reaches up to the next one's lowest
    result, and the last has no end (the top row reads every result above it)."""
    rows = table.rows.ranges
    runs: list[tuple[int | None, int | None]] = [(None, None)]
    automatic = table.automatic_miss
    for row, span in enumerate(rows):
        low = span.low if automatic is None else max(span.low, automatic + 1)  # step 7 wins over the row
        if row + 1 < len(rows) and rows[row + 1].low <= low:
            continue  # entirely at or below the automatic miss
        runs.append((low, row))
    return runs


def result_row(table: AttackTable, result: int) -> int | None:
    """Steps 7-8 for one modified result: the index of the row it reads, or
    None (a miss). What ``AttackRules.read`` reads, without an attack (`tables query attack`)."""
    runs = result_runs(table)
    lows = [low for low, _ in runs if low is not None]  # every run's but the first, which runs from below
    return runs[bisect_right(lows, result)][1]


def printed_column(table: EffectTable, severity: Severity | None, named: str | None) -> int | None:
    """Steps 2 and 10: the printed column a critical or fumble die is read in:
    the severity's on a critical table by severity (`Roll | A | B | ...`), the
    column ``named`` (the attack's or the weapon's) on a table by attack kind or
    weapon category (`Normal | Magic | ...`, `1HE | 2H | ...`); None on a
    one-column table, and where the table has no such column (each caller
    refuses that in its own words: critical_column, fumble_column, `tables query`)."""
    if table.choice is ColumnChoice.NONE:
        return None
    wanted = (severity.code if severity is not None else None) if table.choice is ColumnChoice.SEVERITY else named
    return None if not wanted else table.column(wanted)


def critical_roll_at(die: int, severity: Severity | None, column: int | None) -> int:
    """Step 10: the critical die plus the severity's modifier on a one-column
    table (``column`` None); a table with printed columns is read by the die
    alone (the column says the severity). Without a severity (`tables query
    critical` without --severity), the die alone."""
    return die + severity.modifier if column is None and severity is not None else die


def fumble_roll(die: int, modifier: int) -> int:
    """Step 2: the fumble die plus the weapon's Fumble Modifier (`tables query fumble`: --modifier)."""
    return die + modifier
