"""The numbers every table is bounded by (docs/table-system.md)."""

from __future__ import annotations

D100 = 100  # the faces of a d100: a closed roll reads 1 to 100
AUTOMATIC_MISS = 10  # step 7: a modified result of 10 or less misses (a table may say otherwise)

# What a workbook's numbers may be (docs/workbook-format.md, "Limits"): far
# beyond every printed table, and far inside what SQLite stores (2^63), so an
# absurd number (`1e308`, 10^30, a pasted run of digits) is an error naming
# its cell, never an overflow in the database or a silent nonsense.
EFFECT_LIMIT = 1_000_000  # an entry's counts (hits, bleed, stun, ...) and penalty, either way
ROLL_LIMIT = 10_000  # a range's bounds and a Max result: rolls, open-ended or modified, stay far below
Bound = tuple[int, int]  # (lowest, highest), both allowed
HITS: Bound = (0, EFFECT_LIMIT)  # an attack cell's hits; an entry's Hits, Bleed, Stun
PENALTY: Bound = (-EFFECT_LIMIT, EFFECT_LIMIT)  # an entry's Penalty
ROLL: Bound = (0, ROLL_LIMIT)  # a range's bounds (`11-35`, `176+`, `<71`)
MAX_RESULT: Bound = (1, ROLL_LIMIT)  # a weapon's Max result
CLUMSY: Bound = (0, D100)  # a Clumsy Range is faces of the attack's d100
MODIFIER: Bound = (-1_000, 1_000)  # a weapon's Fumble modifier, a severity's Modifier
AUTOMATIC_MISS_BOUND: Bound = (0, 1_000)  # an attack sheet's Automatic miss
DEATH_AT: Bound = (-100_000, 0)  # `Death at`: the hits left at or below which a combatant is dead
DEF: Bound = (-500, 500)  # a creature's DEF
HP: Bound = (0, EFFECT_LIMIT)  # a creature's HP
CMB: Bound = (-10_000, 10_000)  # a combat bonus: an attack's --cmb, a creature's attack (`Scimitar 55`)
WHOLE: Bound = (-10**15, 10**15)  # any other whole number a cell holds

# How long a cell's text may be: the longest printed critical entry runs to a
# few hundred characters, an attack cell to a few dozen (`36 E Heat + A Impact`).
TEXT_CHARACTERS = 10_000  # any cell (an entry's text, notes)
ATTACK_CELL_CHARACTERS = 2_000  # an attack cell, and an extra letter's definition
