"""Attacks: the resolve, odds and simulate groups, each with its command on
the d100 tables (the table options) and one per formula system, built on
first use."""

from __future__ import annotations

from typing import Any

import click

from tables_app.commands.common import (
    Group, answers, database_of, json_option, names_of, no_blank_features, not_blank, output,
)


def _modifier(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    parsed = []
    for text in values:
        name, sep, number = text.partition("=")
        try:
            if not sep or not name.strip():
                raise ValueError
            parsed.append((name.strip(), int(number)))
        except ValueError:
            raise click.BadParameter(f"{text!r} is not NAME=±N (e.g. flank=+10)") from None
        if abs(parsed[-1][1]) > BONUS.max:
            raise click.BadParameter(f"{text!r}: a modifier must be between {BONUS.min} and {BONUS.max}")
    return tuple(parsed)


def _dice(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    try:
        return tuple(int(part) for part in value.replace(" ", ",").split(",") if part)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a list of whole numbers (e.g. 97,34,45)") from None


# Bounds of the table system's numbers: far beyond any published table, and
# small enough that vectorised simulation (int64) can never overflow.
BONUS = click.IntRange(-10_000, 10_000)
SEED = click.IntRange(0, 2**63 - 1)


def dice_options(command):  # type: ignore[no-untyped-def]
    command = click.option("--dice", callback=_dice, metavar="D1,D2,...", help="Dice rolled by hand, in the order the resolver asks for them.")(command)
    return click.option("--seed", type=SEED, help="Seed for reproducible random dice.")(command)


class SystemsGroup(Group):
    """A group whose formula-system commands are built on first use, so a
    command that needs no formula system never imports one."""

    make: Any = None  # system → click.Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        from tables_app.domain.systems import MODULES

        return sorted(set(super().list_commands(ctx)) | set(MODULES))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        from tables_app.domain.systems import MODULES, get

        if name in MODULES and name not in self.commands:
            self.add_command(type(self).make(get(name)))
        return super().get_command(ctx, name)


class ResolveGroup(SystemsGroup):
    make = staticmethod(lambda system: formula_resolve_command(system))


class OddsGroup(SystemsGroup):
    make = staticmethod(lambda system: formula_odds_command(system))


class SimulateGroup(SystemsGroup):
    make = staticmethod(lambda system: formula_simulate_command(system))


@click.group(cls=ResolveGroup)
def resolve() -> None:
    """Resolve one attack, with seeded or hand-rolled dice."""


TABLE_OPTIONS = [
    click.option("--weapon", shell_complete=names_of("weapons"), help="A weapon from the armory (its parts below override it)."),
    click.option("--attack-table", shell_complete=names_of("attack"), help="Attack table (without --weapon)."),
    click.option("--max-result", type=click.IntRange(1, 10_000), help="Max Result cap."),
    click.option("--clumsy", type=click.IntRange(0, 100), help="Clumsy Range 1..N."),
    click.option("--critical", shell_complete=names_of("critical"), help="Primary critical table (name or code)."),
    click.option("--secondary-critical", shell_complete=names_of("critical"), help="Secondary critical table (name or code)."),
    click.option("--fumble-table", shell_complete=names_of("fumble"), help="Fumble table."),
    click.option("--fumble-modifier", type=click.IntRange(-1_000, 1_000), help="Added to the fumble roll."),
    click.option("--roll-kind", type=click.Choice(["oe", "oeh", "oel", "d100"]), help="How the attack roll opens (default oe)."),
    click.option("--cmb", type=BONUS, required=True, help="Combat bonus."),
    click.option("--mod", "modifiers", multiple=True, callback=_modifier, metavar="NAME=±N", help="A named attack modifier (repeatable)."),
    click.option("--def", "--defense", "defense", type=BONUS, help="Target's DEF (default 0, or the creature's)."),
    click.option("--armor", shell_complete=names_of("armor"), callback=lambda _c, _p, v: not_blank(v, "--armor"), help="Target's armor column (e.g. MA)."),
    click.option("--rank", type=click.Choice(["normal", "heroic", "epic"]), help="Target's rank (heroic -1, epic -2 critical degrees)."),
    click.option("--crit-reduction", type=click.IntRange(0, 100), default=0, help="Extra degrees of critical reduction."),
    click.option("--ignore-crit-reduction", is_flag=True, help="This attack ignores every critical reduction."),
    click.option("--has", "features", multiple=True, metavar="FEATURE", shell_complete=names_of("features"), callback=no_blank_features,
                 help="A feature of the target (helm, ...); adds to the creature's."),
    click.option("--target", shell_complete=names_of("creatures"), help="A creature from the bestiary: DEF, armor, rank, features."),
    click.option("--ruleset", shell_complete=names_of("rulesets"), callback=lambda _c, _p, v: not_blank(v, "--ruleset"),
                 help="Look names up in this ruleset (else RULESET:NAME, or wherever a name is)."),
    click.option("--critical-column", callback=lambda _c, _p, v: not_blank(v, "--critical-column"),
                 help="The column of a critical table read by attack kind (Normal, Magic, ...); else the weapon's."),
]


def table_options(command):  # type: ignore[no-untyped-def]
    for option in reversed(TABLE_OPTIONS):
        command = option(command)
    return command


def table_attack(options: dict[str, Any]):  # type: ignore[no-untyped-def]
    """The weapon, the target and the attack's own options, from table options."""
    from tables_app.services import attacks

    weapon = attacks.WeaponParts(
        name=options["weapon"], attack_table=options["attack_table"], max_result=options["max_result"],
        clumsy=options["clumsy"], critical=options["critical"], secondary_critical=options["secondary_critical"],
        fumble_table=options["fumble_table"], fumble_modifier=options["fumble_modifier"], roll=options["roll_kind"],
    )
    target = attacks.TargetParts(creature=options["target"], defense=options["defense"], armor=options["armor"],
                                 rank=options["rank"], features=options["features"])
    rest = dict(cmb=options["cmb"], modifiers=options["modifiers"], crit_reduction=options["crit_reduction"],
                ignore_crit_reduction=options["ignore_crit_reduction"], ruleset=options["ruleset"],
                critical_column=options["critical_column"])
    return weapon, target, rest


def warn_unused(data: dict) -> None:
    if data.get("unused_dice"):
        unused = data["unused_dice"]
        verb = "was" if len(unused) == 1 else "were"
        click.echo(f"Warning: {len(unused)} of the given dice {verb} not needed: {', '.join(map(str, unused))}", err=True)


def seed_or_dice(options: dict[str, Any]) -> tuple[int | None, tuple[int, ...] | None]:
    seed, forced = options.pop("seed"), options.pop("dice")
    if seed is not None and forced is not None:
        raise click.UsageError("give --seed or --dice, not both")
    return seed, forced


def resolve_table_data(database, **options: Any) -> dict:  # type: ignore[no-untyped-def]
    from tables_app.services import attacks

    seed, forced = seed_or_dice(options)
    weapon, target, rest = table_attack(options)
    return attacks.resolve(database, weapon, target, seed=seed, forced=forced, **rest)


@answers(resolve_table_data)
@resolve.command("table")
@table_options
@dice_options
@json_option
@click.pass_context
def resolve_table(ctx: click.Context, as_json: bool, **options: Any) -> None:
    """Resolve one attack on the d100 tables (docs/table-system.md)."""
    data = resolve_table_data(database_of(ctx), **options)
    warn_unused(data)
    output(data, as_json, lambda render: render.attack)


@click.group(cls=OddsGroup)
def odds() -> None:
    """The exact odds of every outcome of one attack (computed, not sampled)."""


def _png(_ctx: click.Context, _param: click.Parameter, path: str | None) -> str | None:
    if path is not None and not path.lower().endswith(".png"):  # refused before any work, never renamed
        raise click.BadParameter(f"{path!r}: the plot is a PNG, give a file name ending in .png")
    return path


def plot_option(command):  # type: ignore[no-untyped-def]
    return click.option("--plot", "plot_file", type=click.Path(dir_okay=False), callback=_png,
                        help="Draw the odds to a PNG file (needs the plot extra).")(command)


def odds_table_data(database, progress: bool = False, **options: Any) -> dict:  # type: ignore[no-untyped-def]
    """The odds, or a sweep's grid (``"sweep"`` in the answer); ``progress``:
    a bar on a terminal's stderr while a large sweep is computed."""
    from tables_app.services import exact_odds

    weapon, target, rest = table_attack(options)
    if options["sweep_cmb"] and options["sweep_def"]:
        raise click.UsageError("sweep one of --sweep-cmb and --sweep-def at a time")
    axis = "cmb" if options["sweep_cmb"] else "def" if options["sweep_def"] else None
    if axis:
        bar = None
        if progress:
            from tables_app.progress import progress_bar as bar
        return exact_odds.table_sweep(database, weapon, target, axis, options["sweep_cmb"] or options["sweep_def"],
                                      progress_bar=bar, **rest)
    return exact_odds.table(database, weapon, target, **rest)


@answers(odds_table_data)
@odds.command("table")
@table_options
@click.option("--sweep-cmb", metavar="A:B[:STEP]", help="Odds for every CMB from A to B, in every armor column.")
@click.option("--sweep-def", metavar="A:B[:STEP]", help="Odds for every DEF from A to B, in every armor column.")
@plot_option
@json_option
@click.pass_context
def odds_table(ctx: click.Context, as_json: bool, plot_file: str | None, **options: Any) -> None:
    """Exact odds of one attack on the d100 tables, or a sweep over CMB or DEF."""
    data = odds_table_data(database_of(ctx), progress=True, **options)
    draw(plot_file, data)
    output(data, as_json, (lambda render: render.sweep) if "sweep" in data else (lambda render: render.odds))


MAX_SIMULATED = 100_000_000


def simulate_options(command):  # type: ignore[no-untyped-def]
    command = click.option("--count", type=click.IntRange(1, MAX_SIMULATED), default=100_000, show_default=True, help="How many attacks.")(command)
    return click.option("--seed", type=SEED, help="Seed of the random numbers (default: a fresh one, printed).")(command)


def _seed(seed: int | None) -> int:
    if seed is not None:  # a seeded simulation never loads the dice of resolve
        return seed
    from tables_app.services.rolling import fresh_seed

    return fresh_seed()


@click.group(cls=SimulateGroup)
def simulate() -> None:
    """Count the outcomes of many random attacks (compare with `tables odds`)."""


def simulate_table_data(database, progress_bar=None, **options: Any) -> dict:  # type: ignore[no-untyped-def]
    from tables_app.services import sampling

    weapon, target, rest = table_attack(options)
    return sampling.table(database, weapon, target, count=options["count"], seed=_seed(options["seed"]),
                          progress_bar=progress_bar, **rest)


@answers(simulate_table_data)
@simulate.command("table")
@table_options
@simulate_options
@json_option
@click.pass_context
def simulate_table(ctx: click.Context, as_json: bool, **options: Any) -> None:
    """Simulate attacks on the d100 tables (vectorised with numpy)."""
    from tables_app.progress import progress_bar

    data = simulate_table_data(database_of(ctx), progress_bar, **options)
    output(data, as_json, lambda render: render.simulated)


def draw(path: str | None, data: dict) -> None:
    """Draw the odds to a PNG and say so on stderr (stdout may be --json)."""
    if path:
        from tables_app import plot

        plot.save(data, path)
        click.echo(f"Wrote {path}", err=True)


CLICK_TYPES = {"int": int, "float": float, "text": str, "dice": str}


def _bounds(option) -> str:  # type: ignore[no-untyped-def]
    """The bounds the system checks (its own one-line message), for --help."""
    low, high = option.minimum, option.maximum
    if low is None and high is None:
        return ""
    if low is None or high is None:
        return f" (at {'most' if low is None else 'least'} {high if low is None else low})"
    return f" ({low} to {high})"


def system_options(system) -> list[click.Option]:  # type: ignore[no-untyped-def]
    """Click options from a system's declared options (domain/systems)."""
    options = []
    for option in system.options:
        declaration = [f"--{option.name}", *(f"--{alias}" for alias in option.aliases), option.key]
        if option.kind == "flag":
            options.append(click.Option(declaration, is_flag=True, help=option.help))
            continue
        kind = click.Choice(option.choices) if option.kind == "choice" else CLICK_TYPES[option.kind]
        settings: dict[str, Any] = {"multiple": option.multiple, "help": option.help + _bounds(option),
                                    "show_default": option.default is not None}
        if option.kind == "dice":
            settings["metavar"] = "EXPR"
        # A default is passed only when there is one: Click 8.5 stops enforcing
        # `required` when `default=None` is given explicitly.
        if option.multiple:
            settings["default"] = ()
        elif option.default is not None:
            settings["default"] = option.default
        options.append(click.Option(declaration, type=kind, required=option.required, **settings))
    return options


def formula_resolve_command(system) -> click.Command:  # type: ignore[no-untyped-def]
    def resolve_data(_database, **values: Any) -> dict:  # type: ignore[no-untyped-def]
        from tables_app.services import formulas

        seed, forced = seed_or_dice(values)
        return formulas.resolve(system.id, values, seed=seed, forced=forced)

    def run(as_json: bool, **values: Any) -> None:
        data = resolve_data(None, **values)
        warn_unused(data)
        output(data, as_json, lambda render: render.formula)

    command = formula_command(system, run, f"{system.title}.\n\n--dice order: {system.dice_order}.", dice_options)
    return answers(resolve_data)(command)


def formula_odds_command(system) -> click.Command:  # type: ignore[no-untyped-def]
    def odds_data(_database, **values: Any) -> dict:  # type: ignore[no-untyped-def]
        from tables_app.services import exact_odds

        return exact_odds.formula(system.id, values)

    def run(as_json: bool, plot_file: str | None, **values: Any) -> None:
        data = odds_data(None, **values)
        draw(plot_file, data)
        output(data, as_json, lambda render: render.odds)

    return answers(odds_data)(formula_command(system, run, f"Exact odds: {system.title}.", plot_option))


def formula_simulate_command(system) -> click.Command:  # type: ignore[no-untyped-def]
    def simulate_data(_database, progress_bar=None, **values: Any) -> dict:  # type: ignore[no-untyped-def]
        from tables_app.services import sampling

        count, seed = values.pop("count"), _seed(values.pop("seed"))
        return sampling.formula(system.id, values, count=count, seed=seed, progress_bar=progress_bar)

    def run(as_json: bool, **values: Any) -> None:
        from tables_app.progress import progress_bar

        output(simulate_data(None, progress_bar, **values), as_json, lambda render: render.simulated)

    return answers(simulate_data)(formula_command(system, run, f"Simulate attacks: {system.title}.", simulate_options))


def formula_command(system, run, help_text: str, *more_options) -> click.Command:  # type: ignore[no-untyped-def]
    """One command of a formula system: its declared options, the extra ones, --json."""
    command = click.Command(system.id, callback=run, params=system_options(system), help=help_text, short_help=system.title)
    for add in (*more_options, json_option):
        add(command)
    return command
