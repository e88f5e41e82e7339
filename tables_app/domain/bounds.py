"""The numbers every table is bounded by (docs/table-system.md)."""

from __future__ import annotations

D100 = 100  # the faces of a d100: a closed roll reads 1 to 100
AUTOMATIC_MISS = 10  # step 7: a modified result of 10 or less misses (a table may say otherwise)
