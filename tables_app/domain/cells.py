"""Attack-table cells: `—`, `0`, `7`, `16 Mod`, `16Mod`, `16 moderate Cut`, `18ES`.

Lenient in notation, strict in meaning: every reading that is not exactly one
of the four cell kinds raises ValueError with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from enum import StrEnum
from typing import Callable

from tables_app.domain.names import did_you_mean, suggest
from tables_app.domain.ranges import DASHES
from tables_app.domain.severity import SeverityScale


class Outcome(StrEnum):
    """The outcome words of docs/table-system.md, "Outcomes"."""

    FUMBLE = "fumble"
    MISS = "miss"
    INEFFECTIVE = "ineffective"
    NO_DAMAGE = "no_damage"
    HIT = "hit"
    CRITICAL = "critical"


MISS_TEXT = "\u2014"  # em dash, the canonical miss
_HITS = re.compile(r"^(\d+)\s*(.*)$")
_DECIMAL = re.compile(r"^(\d+)\.(\d+)$")


@dataclass(frozen=True)
class AttackCell:
    """One cell of an attack table, in canonical form.

    ``severity`` is a code of the table's severity scale; ``critical`` the
    name of the critical table the cell names itself (None: the weapon's).
    """

    outcome: Outcome
    hits: int = 0
    severity: str | None = None
    critical: str | None = None

    @cached_property  # the same cell objects repeat across a table (and a frozen dataclass allows this)
    def text(self) -> str:
        if self.outcome is Outcome.MISS:
            return MISS_TEXT
        parts = [str(self.hits)]
        if self.severity:
            parts.append(self.severity)
        if self.critical:
            parts.append(self.critical)
        return " ".join(parts)


MISS_CELL = AttackCell(Outcome.MISS)

# Given a critical table's code or name, its canonical name (None: unknown).
CriticalResolver = Callable[[str], "str | None"]


def parse_attack_cell(value: str | int, scale: SeverityScale, critical_named: CriticalResolver) -> AttackCell:
    """Read one attack cell (already normalised text, or an int)."""
    if isinstance(value, int):
        return _hits_only(value)
    text = value.strip()
    if text == "":
        raise ValueError("empty cell (write a dash for a miss)")
    if len(text) == 1 and text in DASHES:
        return MISS_CELL
    if m := _DECIMAL.match(text):  # `7.0` is 7; `7.5` is no number of hits
        if int(m.group(2)) != 0:
            raise ValueError(f"hits must be a whole number, not {text!r}")
        return _hits_only(int(m.group(1)))
    m = _HITS.match(text)
    if not m:
        raise ValueError(f"{text!r} is not a cell: write a dash, 0, hits (7) or hits and severity (16 Mod)")
    hits, rest = int(m.group(1)), m.group(2).strip()
    if not rest:
        return _hits_only(hits)
    readings = _severity_readings(rest, scale, critical_named)
    if not readings:
        codes = ", ".join(level.code for level in scale.levels)
        words = [level.code for level in scale.levels] + [level.name for level in scale.levels]
        first = rest.split()[0]
        # A known severity followed by an unknown table (`7 Mod Ice`) needs no severity suggested.
        near = [] if scale.find(first) is not None else suggest(first, words)
        raise ValueError(f"{text!r}: unknown severity or critical table in {rest!r}{did_you_mean(near)} (severities: {codes})")
    if len(set(readings)) > 1:
        options = " or ".join(f"{s} {c or ''}".strip() for s, c in sorted(set(readings), key=str))
        raise ValueError(f"{text!r} is ambiguous: it reads as {options}; separate them with a space")
    severity, critical = readings[0]
    return AttackCell(Outcome.CRITICAL, hits, severity, critical)


def _hits_only(hits: int) -> AttackCell:
    if hits < 0:
        raise ValueError(f"hits {hits} are negative")
    return AttackCell(Outcome.NO_DAMAGE if hits == 0 else Outcome.HIT, hits)


def _severity_readings(
    rest: str, scale: SeverityScale, critical_named: CriticalResolver
) -> list[tuple[str, str | None]]:
    """Every (severity, critical table) split of ``rest`` that names real things."""
    readings: list[tuple[str, str | None]] = []
    words = rest.split()
    # With spaces: the first words name the severity, the rest the table.
    for cut in range(1, len(words) + 1):
        severity = scale.find(" ".join(words[:cut]))
        if severity is None:
            continue
        tail = " ".join(words[cut:])
        if not tail:
            readings.append((severity.code, None))
        elif (table := critical_named(tail)) is not None:
            readings.append((severity.code, table))
    if readings or len(words) > 1:
        return readings
    # Compact codes, Rolemaster style: `ES` = severity E on critical table S.
    for cut in range(1, len(rest)):
        severity = scale.find(rest[:cut])
        table = critical_named(rest[cut:])
        if severity is not None and table is not None:
            readings.append((severity.code, table))
    return readings
