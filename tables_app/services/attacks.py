"""The table system's use cases: assemble an attack, resolve it, report it.

The CLI hands over plain option values; this module looks the weapon, the
target and the tables up once, then resolves in memory.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Required, TypedDict, Unpack

from tables_app.domain.names import fold
from tables_app.domain.table_rules import Attack, AttackRules, TableSet, check_columns
from tables_app.domain.tables import Creature, Rank, RollKind, Weapon, unknown_feature_warnings
from tables_app.errors import TablesError, UsageMistake
from tables_app.services.armor_columns import armor_column
from tables_app.services.results import AttackSetup, DiceUsed, TableResolution
from tables_app.storage.database import Database
from tables_app.storage.reader import Reader


@dataclass(frozen=True, kw_only=True)
class WeaponParts:
    """A weapon given on the command line, or overrides of a named one."""

    name: str | None = None
    attack_table: str | None = None
    max_result: int | None = None
    clumsy: int | None = None
    critical: str | None = None
    secondary_critical: str | None = None
    fumble_table: str | None = None
    fumble_modifier: int | None = None
    roll: str | None = None


@dataclass(frozen=True, kw_only=True)
class TargetParts:
    """The target given on the command line: a creature of the bestiary, or its parts (or overrides)."""

    creature: str | None = None
    defense: int | None = None
    armor: str | None = None
    rank: str | None = None
    features: tuple[str, ...] = ()


class AttackOptions(TypedDict, total=False):
    """The attack's own options, beside its weapon and target (Attack's fields)."""

    cmb: Required[int]
    modifiers: tuple[tuple[str, int], ...]
    crit_reduction: int
    ignore_crit_reduction: bool
    critical_column: str | None


class TableOptions(AttackOptions, total=False):
    """An attack's options with the ruleset its names are looked up in (--ruleset)."""

    ruleset: str | None


class WeaponOverrides(TypedDict, total=False):
    """What the options change of a named weapon (or of one made of its parts)."""

    attack_table: str
    critical: str
    secondary_critical: str
    fumble_table: str
    max_result: int
    clumsy: int
    fumble_modifier: int
    roll: RollKind


def assemble(reader: Reader, parts: WeaponParts, ruleset: str | None = None) -> tuple[Weapon, str]:
    """The weapon (a named one with overrides, or one made of its parts) and
    its ruleset: every table it names is looked up in that ruleset only."""
    if parts.name:
        found = reader.locate("weapons", parts.name, ruleset)
        weapon = reader.load_weapon(found)
    else:
        if not (parts.attack_table and parts.critical):
            missing = [flag for flag, value in (("--attack-table", parts.attack_table), ("--critical", parts.critical))
                       if not value]
            raise UsageMistake(f"give --weapon, or the weapon's parts ({' and '.join(missing)} missing)")
        found = reader.locate("attack", parts.attack_table, ruleset)
        weapon = Weapon(name="custom attack", attack_table="", max_result=None, clumsy=0, critical="")
    home = found.ruleset

    def table(kind: str, flag: str, name: str) -> str:
        located = reader.locate(kind, name, home)
        if located.ruleset != home:  # written RULESET:NAME for another ruleset
            raise TablesError(f"{flag} {name!r} is in ruleset {located.ruleset!r}, the attack in {home!r}: "
                              "an attack reads the tables of one ruleset")
        return located.name

    overrides: WeaponOverrides = {}  # the tables looked up in this order: the first unknown one is the error
    if parts.attack_table:
        overrides["attack_table"] = table("attack", "--attack-table", parts.attack_table)
    if parts.critical:
        overrides["critical"] = table("critical", "--critical", parts.critical)
    if parts.secondary_critical:
        overrides["secondary_critical"] = table("critical", "--secondary-critical", parts.secondary_critical)
    if parts.fumble_table:
        overrides["fumble_table"] = table("fumble", "--fumble-table", parts.fumble_table)
    if parts.max_result is not None:
        overrides["max_result"] = parts.max_result
    if parts.clumsy is not None:
        overrides["clumsy"] = parts.clumsy
    if parts.fumble_modifier is not None:
        overrides["fumble_modifier"] = parts.fumble_modifier
    if parts.roll:
        overrides["roll"] = RollKind(parts.roll)
    return replace(weapon, **overrides), home


@dataclass(frozen=True)
class Target:
    """Who is attacked: the bestiary's creature (if named) overridden by options."""

    defense: int
    armor: str
    rank: Rank
    features: frozenset[str]
    creature: str | None  # spelled as the bestiary spells it
    ruleset: str | None  # the creature's


def creature_of(reader: Reader, name: str, ruleset: str | None = None) -> tuple[Creature, str]:
    """The bestiary's creature ``name`` (of ``ruleset`` unless written RULESET:NAME), and its ruleset."""
    found = reader.locate("creatures", name, ruleset)
    return reader.load_creature(found), found.ruleset


def target_of(reader: Reader, parts: TargetParts, ruleset: str | None = None,
              creature: tuple[Creature, str] | None = None) -> Target:
    """DEF, armor, rank and features: the bestiary's (a creature of
    ``ruleset`` unless written RULESET:NAME; ``creature``: creature_of's, already
    looked up), overridden by options."""
    defense, armor, rank, features, name, home = 0, None, Rank.NORMAL, set(), None, None
    if parts.creature:
        found, home = creature or creature_of(reader, parts.creature, ruleset)
        defense, armor, rank, features = found.defense, found.armor, found.rank, set(found.features)
        name = found.name
    if parts.defense is not None:
        defense = parts.defense
    if parts.armor:
        armor = parts.armor
    if parts.rank:
        rank = Rank(parts.rank)
    features |= set(parts.features)
    if armor is None:
        raise UsageMistake("give the target's armor (--armor CODE) or a creature (--target NAME)")
    return Target(defense, armor, rank, frozenset(fold(f) for f in features), name, home)


@dataclass(frozen=True)
class Prepared:
    """An attack with everything looked up: the tables it can reach, and the
    creature attacked as the bestiary spells it (None without --target)."""

    attack: Attack
    tables: TableSet
    target: str | None
    ruleset: str  # the weapon's and its tables'
    target_ruleset: str | None = None
    rules: AttackRules | None = None  # the attack's, built by check_columns


def prepare(database: Database, weapon: WeaponParts, target: TargetParts, ruleset: str | None = None,
            **attack: Unpack[AttackOptions]) -> Prepared:
    """Look everything up once. Names are looked up in ``ruleset`` (--ruleset)
    when given, else wherever they are; the target in the weapon's ruleset."""
    reader = database.reader()  # in the HTTP API, its look-ups are kept with the compiled tables (compiled.KeptReader)
    assembled, home = assemble(reader, weapon, ruleset)
    aimed_at = target_of(reader, target, home)
    tables = database.load_table_set(assembled, home)  # the process's copy in the HTTP API (storage/compiled.py)
    armor = tables.attack.armors[armor_column(tables.attack, aimed_at.armor)]  # as the table spells it
    prepared = Attack(assembled, defense=aimed_at.defense, armor=armor, rank=aimed_at.rank, features=aimed_at.features,
                      **attack)
    try:  # the rules read every row (kept with the tables in the HTTP API); printed columns (severity, attack, weapon category) exist
        rules = check_columns(prepared, tables, database.attack_rules(prepared, tables, home))
    except ValueError as exc:
        raise TablesError(str(exc)) from None
    return Prepared(prepared, tables, aimed_at.creature, home, aimed_at.ruleset, rules)


def setup_of(prepared: Prepared) -> AttackSetup:
    return AttackSetup(prepared.attack, prepared.target, prepared.ruleset, prepared.target_ruleset)


def resolve(database: Database, weapon: WeaponParts, target: TargetParts, *, seed: int | None,
            forced: tuple[int, ...] | None, **attack: Unpack[TableOptions]) -> TableResolution:
    from tables_app.domain.dice import DiceError
    from tables_app.domain.resolve import resolve_attack
    from tables_app.services.rolling import check_enough, dice_source

    prepared = prepare(database, weapon, target, **attack)
    dice = dice_source(seed, forced)
    try:
        result = resolve_attack(prepared.attack, prepared.tables, dice, prepared.rules)
    except DiceError as exc:
        raise TablesError(str(exc)) from None
    opened = [t.name for t in (*prepared.tables.criticals.values(), prepared.tables.fumble) if t is not None and t.roll is RollKind.OEH]
    check_enough(dice, open_ended=("attack roll", "open-ended"), open_tables=tuple(opened))
    return TableResolution(setup_of(prepared), result, DiceUsed.of(dice), feature_warnings(target, prepared.tables))


def feature_warnings(target: TargetParts, tables: TableSet) -> tuple[str, ...]:
    """A warning for each ``--has`` feature no critical table of the attack
    asks about (the bestiary's own features are not checked)."""
    if not target.features:  # most attacks: nothing to warn of, and the tables' features are not gathered
        return ()
    return tuple(unknown_feature_warnings(target.features, tables.criticals.values()))
