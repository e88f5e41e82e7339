"""The attacks, declared: resolve, odds and simulate, on the d100 tables
(the table parameters) and in each formula system (its declared options)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tables_app.errors import UsageMistake
from tables_app.operations.operation import Operation
from tables_app.operations.params import BONUS, MAX_SIMULATED, SEED, Param

if TYPE_CHECKING:  # the results load with the services that make them
    from tables_app.services.attacks import TableOptions, TargetParts, WeaponParts
    from tables_app.services.reporting import ProgressBar
    from tables_app.services.results import (
        FormulaOdds,
        FormulaResolution,
        Simulation,
        Sweep,
        TableOddsResult,
        TableResolution,
    )

TABLE_PARAMS = (
    Param(field="weapon", kind="text", complete="weapons", help="A weapon from the armory (its parts below override it)."),
    Param(field="attack_table", kind="text", complete="attack", help="Attack table (without --weapon)."),
    Param(field="max_result", kind="int", minimum=1, maximum=10_000, help="Max Result cap."),
    Param(field="clumsy", kind="int", minimum=0, maximum=100, help="Clumsy Range 1..N."),
    Param(field="critical", kind="text", complete="critical", help="Primary critical table (name or code)."),
    Param(field="secondary_critical", kind="text", complete="critical", help="Secondary critical table (name or code)."),
    Param(field="fumble_table", kind="text", complete="fumble", help="Fumble table."),
    Param(field="fumble_modifier", kind="int", minimum=-1_000, maximum=1_000, help="Added to the fumble roll."),
    Param(field="roll_kind", kind="choice", choices=("oe", "oeh", "oel", "d100"), help="How the attack roll opens (default oe)."),
    Param(field="cmb", kind="int", required=True, minimum=BONUS[0], maximum=BONUS[1], help="Combat bonus."),
    Param(field="mod", key="modifiers", kind="modifiers", multiple=True, metavar="NAME=±N",
          help="A named attack modifier (repeatable)."),
    Param(field="def", key="defense", kind="int", aliases=("defense",), minimum=BONUS[0], maximum=BONUS[1],
          help="Target's DEF (default 0, or the creature's)."),
    Param(field="armor", kind="text", complete="armor", not_blank=True, help="Target's armor column (e.g. MA)."),
    Param(field="rank", kind="choice", choices=("normal", "heroic", "epic"),
          help="Target's rank (heroic -1, epic -2 critical degrees)."),
    Param(field="crit_reduction", kind="int", minimum=0, maximum=100, default=0, help="Extra degrees of critical reduction."),
    Param(field="ignore_crit_reduction", kind="flag", default=False, help="This attack ignores every critical reduction."),
    Param(field="has", key="features", kind="text", multiple=True, metavar="FEATURE", complete="features", not_blank=True,
          help="A feature of the target (helm, ...); adds to the creature's."),
    Param(field="target", kind="text", complete="creatures", help="A creature from the bestiary: DEF, armor, rank, features."),
    Param(field="ruleset", kind="text", complete="rulesets", not_blank=True,
          help="Look names up in this ruleset (else RULESET:NAME, or wherever a name is)."),
    Param(field="critical_column", kind="text", not_blank=True,
          help="The column of a critical table read by attack kind (Normal, Magic, ...); else the weapon's."),
)
DICE = Param(field="dice", kind="dice", metavar="D1,D2,...", help="Dice rolled by hand, in the order the resolver asks for them.")
SEEDED = Param(field="seed", kind="int", minimum=SEED[0], maximum=SEED[1], help="Seed for reproducible random dice.")
SWEEPS = (
    Param(field="sweep_cmb", kind="text", metavar="A:B[:STEP]", help="Odds for every CMB from A to B, in every armor column."),
    Param(field="sweep_def", kind="text", metavar="A:B[:STEP]", help="Odds for every DEF from A to B, in every armor column."),
)
SIMULATED = (
    Param(field="seed", kind="int", minimum=SEED[0], maximum=SEED[1],
          help="Seed of the random numbers (default: a fresh one, printed)."),
    Param(field="count", kind="int", minimum=1, maximum=MAX_SIMULATED, default=100_000, show_default=True,
          help="How many attacks."),
)


def table_attack(options: dict[str, Any]) -> tuple[WeaponParts, TargetParts, TableOptions]:
    """The weapon, the target and the attack's own options, from table parameters."""
    from tables_app.services import attacks

    weapon = attacks.WeaponParts(
        name=options["weapon"], attack_table=options["attack_table"], max_result=options["max_result"],
        clumsy=options["clumsy"], critical=options["critical"], secondary_critical=options["secondary_critical"],
        fumble_table=options["fumble_table"], fumble_modifier=options["fumble_modifier"], roll=options["roll_kind"],
    )
    target = attacks.TargetParts(creature=options["target"], defense=options["defense"], armor=options["armor"],
                                 rank=options["rank"], features=options["features"])
    rest: TableOptions = {
        "cmb": options["cmb"], "modifiers": options["modifiers"], "crit_reduction": options["crit_reduction"],
        "ignore_crit_reduction": options["ignore_crit_reduction"], "ruleset": options["ruleset"],
        "critical_column": options["critical_column"]}
    return weapon, target, rest


def seed_or_dice(options: dict[str, Any]) -> tuple[int | None, tuple[int, ...] | None]:
    seed, forced = options.pop("seed"), options.pop("dice")
    if seed is not None and forced is not None:
        raise UsageMistake("give --seed or --dice, not both")
    return seed, forced


def fresh_or(seed: int | None) -> int:
    if seed is not None:
        return seed
    from tables_app.services.seeds import fresh_seed

    return fresh_seed()


def resolve_table(database: Any, **options: Any) -> TableResolution:
    from tables_app.services import attacks

    seed, forced = seed_or_dice(options)
    weapon, target, rest = table_attack(options)
    return attacks.resolve(database, weapon, target, seed=seed, forced=forced, **rest)


def odds_table(database: Any, progress_bar: ProgressBar | None = None, **options: Any) -> TableOddsResult | Sweep:
    """The odds, or a sweep's grid (``"sweep"`` in the answer); ``progress_bar``:
    what shows a large sweep's progress (the CLI's bar on a terminal)."""
    from tables_app.services import exact_odds

    weapon, target, rest = table_attack(options)
    if options["sweep_cmb"] and options["sweep_def"]:
        raise UsageMistake("sweep one of --sweep-cmb and --sweep-def at a time")
    axis = "cmb" if options["sweep_cmb"] else "def" if options["sweep_def"] else None
    if axis:
        return exact_odds.table_sweep(database, weapon, target, axis, options["sweep_cmb"] or options["sweep_def"],
                                      progress_bar=progress_bar, **rest)
    return exact_odds.table(database, weapon, target, **rest)


def simulate_table(database: Any, progress_bar: ProgressBar | None = None, **options: Any) -> Simulation:
    from tables_app.services import sampling

    weapon, target, rest = table_attack(options)
    return sampling.table(database, weapon, target, count=options["count"], seed=fresh_or(options["seed"]),
                          progress_bar=progress_bar, **rest)


RESOLVE_TABLE = Operation(words=("resolve", "table"), run=resolve_table, params=(*TABLE_PARAMS, SEEDED, DICE),
                          help="Resolve one attack on the d100 tables (docs/table-system.md).\n\n"
                               "--dice order: the attack die and the dice its open end adds or subtracts, then "
                               "the critical dice (the cell's first critical, its further criticals, the secondary "
                               "critical) or the fumble die; a die of an open-ended (oeh) critical or fumble table "
                               "is followed by the dice its open end adds.")
ODDS_TABLE = Operation(words=("odds", "table"), run=odds_table, params=(*TABLE_PARAMS, *SWEEPS),
                       help="Exact odds of one attack on the d100 tables, or a sweep over CMB or DEF.")
SIMULATE_TABLE = Operation(words=("simulate", "table"), run=simulate_table, params=(*TABLE_PARAMS, *SIMULATED),
                           help="Simulate attacks on the d100 tables (vectorised with numpy).")

GROUPS = {
    "resolve": "Resolve one attack, with seeded or hand-rolled dice.",
    "odds": "The exact odds of every outcome of one attack (computed, not sampled).",
    "simulate": "Count the outcomes of many random attacks (compare with `tables odds`).",
}
ON_THE_TABLES = {"resolve": RESOLVE_TABLE, "odds": ODDS_TABLE, "simulate": SIMULATE_TABLE}


# ------------------------------------------------------------------ formula systems
FORMULA_KINDS = {"int": "int", "float": "float", "text": "text", "dice": "dice_expression", "flag": "flag", "choice": "choice"}


def system_params(system: Any) -> tuple[Param, ...]:
    """A formula system's declared options (domain/systems/base.Option) as
    parameters: the system checks its own bounds, with its own message."""
    return tuple(
        Param(field=option.name.replace("-", "_"), key=option.key, kind=FORMULA_KINDS[option.kind], help=option.help,
              default=option.default if option.default is not None else (False if option.kind == "flag" else None),
              required=option.required, multiple=option.multiple, choices=option.choices, aliases=option.aliases,
              minimum=option.minimum, maximum=option.maximum, click_range=False,
              metavar="EXPR" if option.kind == "dice" else None, show_default=option.default is not None)
        for option in system.options)


def formula_operation(verb: str, system: Any) -> Operation:
    """``verb`` (resolve, odds, simulate) in the formula system ``system``."""
    params = system_params(system)
    if verb == "resolve":
        def run(_database: Any, **values: Any) -> FormulaResolution:
            from tables_app.services import formulas

            seed, forced = seed_or_dice(values)
            return formulas.resolve(system.id, values, seed=seed, forced=forced)

        return Operation(words=(verb, system.id), run=run, params=(*params, DICE, SEEDED), uses_database=False,
                         help=f"{system.title}.\n\n--dice order: {system.dice_order}.", short_help=system.title)
    if verb == "odds":
        def odds(_database: Any, **values: Any) -> FormulaOdds:
            from tables_app.services import exact_odds

            return exact_odds.formula(system.id, values)

        return Operation(words=(verb, system.id), run=odds, params=params, uses_database=False,
                         help=f"Exact odds: {system.title}.", short_help=system.title)

    def simulate(_database: Any, progress_bar: ProgressBar | None = None, **values: Any) -> Simulation:
        from tables_app.services import sampling

        count, seed = values.pop("count"), fresh_or(values.pop("seed"))
        return sampling.formula(system.id, values, count=count, seed=seed, progress_bar=progress_bar)

    return Operation(words=(verb, system.id), run=simulate, params=(*params, *SIMULATED), uses_database=False,
                     help=f"Simulate attacks: {system.title}.", short_help=system.title)
