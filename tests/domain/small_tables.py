"""The small in-memory tables the table-system tests share, and attacks on
them whose odds are worked out by hand (docs/table-system.md).

Imported by test_resolve.py, test_odds.py and test_simulate.py (pytest puts
this folder on the path), so no test file imports another.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from tables_app.domain.cells import parse_attack_cell
from tables_app.domain.ranges import RangeTable, parse_range
from tables_app.domain.resolve import Attack, TableSet
from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.domain.tables import AttackTable, EffectTable, Entry, Rank, RollKind, TableKind, Weapon

CRITICAL_NAMES = {"cut": "Cut", "impact": "Impact"}
ROWS = [
    ("01-10", "5", "5"),  # never read: 10 or less misses (step 7)
    ("11-40", "—", "—"),
    ("41-60", "0", "—"),
    ("61-90", "6", "3"),
    ("91-120", "10 Mod", "8 Sup"),
    ("121-150", "15 Let", "12 Gri Impact"),
]


def attack_table() -> AttackTable:
    rows = [
        (parse_range(r), tuple(parse_attack_cell(c, DEFAULT_SCALE, lambda t: CRITICAL_NAMES.get(t.casefold())) for c in cells))
        for r, *cells in ROWS
    ]
    return AttackTable("T", ("NA", "HA"), RangeTable(rows))


def effect_table(kind, name, rows) -> EffectTable:  # type: ignore[no-untyped-def]
    grouped: dict = {}
    for label, text, hits, condition in rows:
        span = parse_range(label)
        grouped.setdefault(span, []).append(Entry(span, text, hits=hits, condition=condition))
    return EffectTable(kind, name, RangeTable((r, tuple(e)) for r, e in grouped.items()))


# Mean extra hits of d100 + modifier (Sup 0, Lig 10, Mod 20, Gri 30, Let 50), by hand:
# Cut, no helm: Sup 2.5, Lig 3.3, Mod 4.1, Gri 4.9, Let 6.5 (with a helm 1 less each);
# Impact: 3 + 4 × modifier / 100: Sup 3, Lig 3.4, Mod 3.8, Gri 4.2, Let 5.
CUT = effect_table(TableKind.CRITICAL, "Cut", [
    ("1-50", "cut low", 1, None),
    ("51-100", "helm rings", 2, "helm"),
    ("51-100", "scalp opens", 4, "not helm"),
    ("101+", "cut high", 9, None),
])
IMPACT = effect_table(TableKind.CRITICAL, "Impact", [("1-100", "thud", 3, None), ("101+", "crunch", 7, None)])
FUMBLES = effect_table(TableKind.FUMBLE, "F", [("1-50", "stumble", 0, None), ("51+", "fall", 0, None)])
TABLES = TableSet(attack_table(), {"Cut": CUT, "Impact": IMPACT}, FUMBLES)
WEAPON = Weapon("W", "T", 130, 3, "Cut", None, "F", 10)


def attack(**changes) -> Attack:  # type: ignore[no-untyped-def]
    """CMB 50 against NA with WEAPON, weapon fields and attack fields changed by keyword."""
    weapon_changes = {k: changes.pop(k) for k in list(changes) if k in Weapon.__dataclass_fields__}
    base = Attack(replace(WEAPON, **weapon_changes), cmb=50, armor="NA")
    return replace(base, **changes)


@dataclass(frozen=True)
class HandCase:
    """An attack and its odds worked out by hand; ``outcomes`` and
    ``severities`` list only what is not 0 (None: not worked out)."""

    name: str
    changes: dict
    outcomes: dict[str, Fraction] | None
    severities: dict[str, Fraction]
    expected_damage: Fraction | None


F = Fraction
CLOSED = {"roll": RollKind.D100, "clumsy": 0}
HAND_CASES = [
    # R = min(T + 100 - 40, 130): T 1-30 → 61-90 "6"; 31-60 → 91-120 "10 Mod"; 61-100 → 121-130 "15 Let".
    # (The cap before DEF would give 61-90 only.) 0.3 × 6 + 0.3 × (10 + 4.1) + 0.4 × (15 + 6.5) = 14.63.
    HandCase("cap after DEF", {**CLOSED, "cmb": 100, "defense": 40},
             {"hit": F(3, 10), "critical": F(7, 10)}, {"Mod": F(3, 10), "Let": F(4, 10)}, F(1463, 100)),
    # R = min(T + 100, 121): T 1-20 → 101-120 "10 Mod" (4.1); T 21-100 → 121 "15 Let" (6.5).
    HandCase("a cap at a row's bottom", {**CLOSED, "cmb": 100, "max_result": 121},
             {"critical": F(1)}, {"Mod": F(2, 10), "Let": F(8, 10)}, F(2, 10) * (10 + F(41, 10)) + F(8, 10) * (15 + F(65, 10))),
    # 1-4 fumble; 5-10 automatic miss, 11-40 "—": miss 36; 41-60 "0"; 61-90 "6"; 91-100 "10 Mod" (Cut Mod 4.1).
    HandCase("clumsy range and automatic miss", {"roll": RollKind.D100, "clumsy": 4, "cmb": 0},
             {"fumble": F(4, 100), "miss": F(36, 100), "no_damage": F(20, 100), "hit": F(30, 100), "critical": F(10, 100)},
             {"Mod": F(1, 10)}, F(30, 100) * 6 + F(10, 100) * (10 + F(41, 10))),
    # A CMB below 0 is ineffective whatever the result, 10 or less included (step 6 before step 7).
    HandCase("ineffective", {"roll": RollKind.D100, "clumsy": 2, "cmb": -1},
             {"fumble": F(2, 100), "ineffective": F(98, 100)}, {}, F(0)),
    # HA: 1-60 miss; 61-90 "3"; 91-100 "8 Sup", cancelled by heroic: a hit of 8. 0.3 × 3 + 0.1 × 8.
    HandCase("a cancelled critical is a hit", {**CLOSED, "cmb": 0, "armor": "HA", "rank": Rank.HEROIC},
             {"miss": F(6, 10), "hit": F(4, 10)}, {}, F(17, 10)),
    # Always "15 Let": heroic lowers it to Gri (Cut 4.9); the secondary is two lower than Gri: Lig on Impact (3.4).
    HandCase("secondary critical after reduction", {**CLOSED, "cmb": 200, "max_result": None, "rank": Rank.HEROIC, "secondary_critical": "Impact"},
             {"critical": F(1)}, {"Gri": F(1)}, 15 + F(49, 10) + F(34, 10)),
    # Epic and 2 more, all ignored: Let on Cut, with a helm (5.5).
    HandCase("ignored reduction, helm branch", {**CLOSED, "cmb": 200, "max_result": None, "rank": Rank.EPIC, "crit_reduction": 2,
                                                "ignore_crit_reduction": True, "features": frozenset({"helm"})},
             {"critical": F(1)}, {"Let": F(1)}, 15 + F(55, 10)),
    # HA top row "12 Gri Impact": the cell's own table (Impact Gri 4.2), not the weapon's Cut.
    HandCase("the cell's own critical table", {**CLOSED, "cmb": 200, "max_result": None, "armor": "HA"},
             {"critical": F(1)}, {"Gri": F(1)}, 12 + F(42, 10)),
    # Always "15 Let", but the weapon's Max critical is Mod (docs/table-system.md step 9): Mod on Cut (4.1).
    HandCase("max critical lowers the severity", {**CLOSED, "cmb": 200, "max_result": None, "max_critical": "Mod"},
             {"critical": F(1)}, {"Mod": F(1)}, 15 + F(41, 10)),
    # The Max critical first, then the rank: Let → Gri (the cap) → Mod (heroic); the secondary two lower
    # than Mod: Sup on Impact (3). Reduced first, then capped, it would be Gri, Lig on Impact.
    HandCase("max critical before reduction", {**CLOSED, "cmb": 200, "max_result": None, "max_critical": "gri",
                                               "rank": Rank.HEROIC, "secondary_critical": "Impact"},
             {"critical": F(1)}, {"Mod": F(1)}, 15 + F(41, 10) + 3),
    # HA, R = T + 50: 51-60 "—", 61-90 "3", 91-120 "8 Sup" (below the cap: it stays, Cut Sup 2.5),
    # 121-150 "12 Gri Impact", lowered to Lig on Impact (3.4).
    HandCase("max critical leaves lower severities", {**CLOSED, "cmb": 50, "armor": "HA", "max_result": None, "max_critical": "Lig"},
             {"miss": F(10, 100), "hit": F(30, 100), "critical": F(60, 100)}, {"Sup": F(30, 100), "Lig": F(30, 100)},
             F(30, 100) * 3 + F(30, 100) * (8 + F(25, 10)) + F(30, 100) * (12 + F(34, 10))),
    # oeh: 1-10 miss (no low end), 11-40 miss, 41-60 "0", 61-90 "6", 91+ critical. Let needs T ≥ 121:
    # the first die f = 96..100 opens and needs X ≥ 121 - f: 76, 77, 78, 79, 80 in 100. Mod = 0.1 - 0.039.
    HandCase("opens high on 96", {"roll": RollKind.OEH, "clumsy": 0, "cmb": 0, "max_result": None},
             {"miss": F(4, 10), "no_damage": F(2, 10), "hit": F(3, 10), "critical": F(1, 10)},
             {"Mod": F(61, 1000), "Let": F(39, 1000)}, F(3, 10) * 6 + F(61, 1000) * (10 + F(41, 10)) + F(39, 1000) * (15 + F(65, 10))),
    # oel, R = T + 100: a closed first die 6-20 → Mod, 21-100 → Let. f = 1..5 opens low, R = 100 + f - X:
    # Mod for X ≤ 9 + f, "6" for 30 faces, "0" for 20, miss the rest (41 - f).
    HandCase("opens low on 5", {"roll": RollKind.OEL, "clumsy": 0, "cmb": 100, "max_result": None},
             {"miss": F(190, 10000), "no_damage": F(100, 10000), "hit": F(150, 10000), "critical": F(9560, 10000)},
             {"Mod": F(1560, 10000), "Let": F(8000, 10000)},
             F(150, 10000) * 6 + F(1560, 10000) * (10 + F(41, 10)) + F(8000, 10000) * (15 + F(65, 10))),
    # oe, R = T + 50 - 125 reads "12 Gri Impact" (HA) from T = 196: f = 96..100 opened needs X ≥ 196 - f
    # (100, 99, 98, 97, 96): 5 in 100 less the chains that stop short: (96,1..3), (97,1..2), (98,1) for
    # X ≥ 100; 3 for 99; 1 for 98. A 95 stops the chain: X = 95 never reaches 96.
    HandCase("the chain stops on 95", {"roll": RollKind.OE, "clumsy": 0, "cmb": 50, "defense": 125, "max_result": None, "armor": "HA"},
             None, {"Gri": F(2500 - 6 - 3 - 1, 1_000_000)}, None),
]
