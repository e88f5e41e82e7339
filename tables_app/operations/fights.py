"""The fight operations, declared (docs/fights.md; services/fights.py answers them)."""

from __future__ import annotations

from typing import Any

from tables_app.operations.operation import Operation
from tables_app.operations.attacks import SEEDED, SIMULATED
from tables_app.operations.params import BONUS, Param, ParamError
from tables_app.domain.bounds import DEATH_AT

HITS = (1, 100_000)
SYSTEMS = ("rise", "worlds-awakening", "d10-pool", "pte")  # the formula systems (domain/systems, MODULES)
FIGHT = Param(field="name", kind="text", argument=True, required=True, not_blank=True, complete="fights",
              help="The fight's name.")
AFTER = Param(field="after", kind="int", minimum=0, maximum=10**9, metavar="SEQ",
              help="The last event you saw (fight show's seq): refused if the fight has moved on since.")
VERSION = Param(field="version", kind="int", minimum=0, maximum=2**62, metavar="N",
                help="The fight's version you saw (fight show's version): refused if anything was written since, "
                     "even a write undone and made again up to the same event.")
DICE = Param(field="dice", kind="dice", metavar="D1,D2,...",
             help="Dice rolled at the table, in the order the attacks read them (each attack in resolve's order).")


def _services() -> Any:
    from tables_app.services import fights

    return fights


def _seed_or_dice(values: dict[str, Any]) -> tuple[int | None, tuple[int, ...] | None]:
    from tables_app.operations.attacks import seed_or_dice

    return seed_or_dice(values)


def run_new(database: Any, name: str, ruleset: str | None) -> Any:
    return _services().new(database, name, ruleset)


def run_join(database: Any, name: str, after: int | None, version: int | None, party: str | None, **values: Any) -> Any:
    fights = _services()
    return fights.join(database, name, fights.Joining(**values), after,
                       None if party is None else _party_lookup(database, party), version=version)


def _party_lookup(database: Any, party: str) -> Any:
    """The saved party's name and members, looked up when the join needs them (after its own checks)."""
    def lookup() -> tuple[str, tuple[Any, ...]]:
        found = _parties().find(database, party)
        return found.name, found.members
    return lookup


def modifiers(texts: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """``--mod``: ``+10`` or ``NAME=±N`` (``flank=+10``), each bounded as resolve's."""
    from tables_app.errors import UsageMistake
    from tables_app.operations.params import modifier

    out = []
    for text in texts:
        try:
            number = int(text)
        except ValueError:
            try:
                out.append(modifier(text))
            except ValueError as exc:
                raise UsageMistake(f"--mod {exc}; or a number (+10)") from None
            continue
        if not BONUS[0] <= number <= BONUS[1]:
            raise UsageMistake(f"--mod {text}: a modifier must be between {BONUS[0]} and {BONUS[1]}")
        out.append(("mod", number))
    return tuple(out)


def run_attack(database: Any, name: str, attacker: str, target: str, mods: tuple[str, ...], **values: Any) -> Any:
    seed, forced = _seed_or_dice(values)
    return _services().attack(database, name, attacker, target, seed=seed, forced=forced, mods=modifiers(mods), **values)


def run_round(database: Any, name: str, auto: bool, after: int | None, version: int | None, **values: Any) -> Any:
    seed, forced = _seed_or_dice(values)
    return _services().round_(database, name, auto=auto, seed=seed, forced=forced, after=after, version=version)


def run_show(database: Any, name: str, at: int | None) -> Any:
    return _services().show(database, name, at)


def run_log(database: Any, name: str, first: int, limit: int) -> Any:
    return _services().log(database, name, first, limit)


def run_undo(database: Any, name: str, after: int | None, version: int | None) -> Any:
    return _services().undo(database, name, after, version=version)


def run_list(database: Any) -> Any:
    return _services().listing(database)


def run_remove(database: Any, name: str, after: int | None, version: int | None) -> Any:
    return _services().remove(database, name, after, version=version)


def run_edit(database: Any, name: str, combatant: str, after: int | None, version: int | None, **values: Any) -> Any:
    fights = _services()
    rearming = fights.Rearming(**{p.name: values.pop(p.name) for p in REARMING})
    return fights.edit(database, name, combatant, values, after, rearming, version=version)


def run_adjust(database: Any, name: str, combatant: str, after: int | None, version: int | None, **deltas: Any) -> Any:
    return _services().adjust(database, name, combatant, deltas, after, version=version)


def run_heal(database: Any, name: str, combatant: str, hits: int, after: int | None, version: int | None) -> Any:
    return _services().adjust(database, name, combatant, {"heal": hits}, after, command="heal", version=version)


def run_damage(database: Any, name: str, combatant: str, hits: int, after: int | None, version: int | None) -> Any:
    return _services().adjust(database, name, combatant, {"damage": hits}, after, command="damage", version=version)


def run_leave(database: Any, name: str, combatant: str, after: int | None, version: int | None) -> Any:
    return _services().leave(database, name, combatant, after, version=version)


COUNT = (0, 100_000)
# `fight edit`'s options for the rest of a critical (docs/fights.md, "The rest of a critical"), kept together
CRIPPLING = (
    Param(field="prone", kind="int", minimum=COUNT[0], maximum=COUNT[1], metavar="N",
          help="Set its rounds prone (0: it is up on its feet)."),
    Param(field="out", key="knocked_out", kind="text", not_blank=True, metavar="N|until-woken",
          help="Set it knocked out for N rounds, or until-woken (until you wake it); 0 wakes it."),
    Param(field="blind", key="blinded", kind="int", minimum=COUNT[0], maximum=COUNT[1], metavar="N",
          help="Set its rounds blinded (0: it sees)."),
    Param(field="arm", key="useless_arm", kind="choice", choices=("useless", "ok"), help="A useless arm, or healed."),
    Param(field="leg", key="useless_leg", kind="choice", choices=("useless", "ok"), help="A useless leg, or healed."),
    Param(field="drop", kind="text", multiple=True, not_blank=True, metavar="WEAPON", complete="weapons",
          help="It drops this attack's weapon (repeatable)."),
    Param(field="break", key="breaks", kind="text", multiple=True, not_blank=True, metavar="WEAPON", complete="weapons",
          help="This attack's weapon breaks (repeatable)."),
    Param(field="recover", kind="text", multiple=True, not_blank=True, metavar="WEAPON|all", complete="weapons",
          help="It picks up a weapon it dropped, or all of them (repeatable)."),
    Param(field="repair", kind="text", multiple=True, not_blank=True, metavar="WEAPON|all", complete="weapons",
          help="A broken weapon is whole again (a new one, mended), or all of them (repeatable)."),
    Param(field="timed_penalty", key="timed_penalties", kind="text", multiple=True, not_blank=True,
          metavar="PENALTY:ROUNDS", help="Set its penalties for a number of rounds, all of them (repeatable: "
                                         "-20:3 is -20 for 3 rounds; none clears them)."),
)
NEW = Operation(words=("fight", "new"), run=run_new, params=(
    FIGHT, Param(field="ruleset", kind="text", complete="rulesets", not_blank=True,
                 help="Look the combatants' creatures and weapons up in this ruleset (else wherever they are)."),
), help="Start a fight: then add combatants (fight join).")
JOIN = Operation(words=("fight", "join"), run=run_join, params=(
    FIGHT,
    Param(field="creature", kind="text", complete="creatures", not_blank=True,
          help="A creature of the bestiary: its hits, DEF, armor, rank, features and attacks (options override them)."),
    Param(field="hits", kind="int", minimum=HITS[0], maximum=HITS[1], help="Hits (most hit points)."),
    Param(field="def", key="defense", kind="int", minimum=BONUS[0], maximum=BONUS[1], help="DEF."),
    Param(field="armor", kind="text", complete="armor", not_blank=True, help="Armor column (e.g. MA)."),
    Param(field="weapon", kind="text", complete="weapons", not_blank=True,
          help="A weapon of the armory (with --cmb): its attack, first of its attacks."),
    Param(field="cmb", kind="int", minimum=BONUS[0], maximum=BONUS[1], help="The CMB of --weapon."),
    Param(field="as", key="label", kind="text", not_blank=True, metavar="LABEL",
          help="Its name in the fight (default: the creature's, numbered: Orc Warrior #2)."),
    Param(field="side", kind="text", not_blank=True, help="Its side (any label; default A by hand, B for a creature)."),
    Param(field="parry", kind="int", minimum=0, maximum=BONUS[1], default=0,
          help="Moved from its CMB to its DEF each round while it can parry."),
    Param(field="has", key="features", kind="text", multiple=True, metavar="FEATURE", complete="features", not_blank=True,
          help="A feature (helm, ...) for the critical branches; adds to the creature's."),
    Param(field="rank", kind="choice", choices=("normal", "heroic", "epic"),
          help="Its rank (heroic -1, epic -2 critical degrees)."),
    Param(field="initiative", kind="int", minimum=-1_000, maximum=1_000, default=0,
          help="Its place in the round: the higher acts first; equal ones in the order they joined."),
    Param(field="death_at", kind="int", minimum=DEATH_AT[0], maximum=DEATH_AT[1], metavar="N",
          help="Dead once its hits left are at or below N (-50; 0 or less; default: its fight's ruleset's Death at, "
               "else it only goes down)."),
    Param(field="party", kind="text", not_blank=True, metavar="PARTY", complete="parties",
          help="A saved party (fight party save): all its members join at once, as saved (--side overrides their "
               "side); refused whole if any name is taken."),
    Param(field="system", kind="choice", choices=SYSTEMS,
          help="Its attack in a formula system (instead of --weapon and --cmb), with --option."),
    Param(field="option", key="options", kind="text", multiple=True, metavar="KEY=VALUE", not_blank=True,
          help="An option of --system's attack, as `tables resolve SYSTEM --help` lists them (accuracy=6, "
               "damage=2d6+3; a flag alone: stab); the target's defense is its DEF, filled in at each attack."),
    AFTER, VERSION,
), help="Add a combatant to a fight: a creature of the bestiary (--creature), or one by hand "
        "(--as, --hits, --def, --armor, --weapon and --cmb; or --system and --option instead of --armor, "
        "--weapon and --cmb). One without attacks (a door, a captive) is attacked and never attacks. After the fight "
        "is over, a foe joining takes it up again.")
ATTACK = Operation(words=("fight", "attack"), run=run_attack, params=(
    FIGHT,
    Param(field="attacker", kind="text", argument=True, required=True, not_blank=True, complete="combatants",
          help="Who attacks."),
    Param(field="target", kind="text", argument=True, required=True, not_blank=True, complete="combatants",
          help="Whom."),
    DICE, SEEDED,
    Param(field="attack", key="weapon", kind="text", not_blank=True, metavar="WEAPON",
          help="Which of its attacks (default: its first)."),
    Param(field="mod", key="mods", kind="text", multiple=True, metavar="N",
          help="A modifier to this attack's CMB: +10, or NAME=±N (repeatable)."),
    AFTER, VERSION,
), help="One attack in the fight, resolved on the tables with the fight's CMB and DEF (parry, penalty, bonus), "
        "and what it did carried into the fight; an attack of a formula system (fight join --system) in its "
        "system, the fight's modifiers on its bonus.\n\n--dice order: as resolve table's, or resolve SYSTEM's.")
ROUND = Operation(words=("fight", "round"), run=run_round, params=(
    FIGHT,
    Param(field="auto", kind="flag", default=False,
          help="First, every combatant able to attack that has not attacks, in initiative order, the first "
               "combatant up of another side."),
    DICE, SEEDED, AFTER, VERSION,
), help="End the round: bleeding, stun and the other counters, death countdowns.\n\n--dice order (with --auto): "
        "each attack's dice in resolve's order, attack after attack in initiative order.")
SHOW = Operation(words=("fight", "show"), run=run_show, params=(
    FIGHT, Param(field="at", kind="int", minimum=0, maximum=10**9, metavar="SEQ",
                 help="The fight as it stood after event SEQ (fight log numbers them)."),
), help="Every combatant's state: hits left, bleeding, stun, parry, penalty, bonus, dying.")
LOG_PAGE, MAX_LOG_PAGE = 1_000, 10_000  # services/fight_log.py's: events a page, unless asked, and at most
LOG = Operation(words=("fight", "log"), run=run_log, params=(
    FIGHT,
    Param(field="from", key="first", kind="int", default=1, minimum=1, maximum=10**9, metavar="SEQ",
          help="The page's first event (the answer's next gives the next page's)."),
    Param(field="limit", kind="int", default=LOG_PAGE, minimum=1, maximum=MAX_LOG_PAGE, metavar="N",
          help=f"Events a page, at most (1 to {MAX_LOG_PAGE:,}; {LOG_PAGE:,} unless given)."),
), help="The fight's events, in order, a page at a time.")
UNDO = Operation(words=("fight", "undo"), run=run_undo, params=(FIGHT, AFTER, VERSION),
                 help="Take the last command back: every event it wrote (a whole round --auto), said in words.")
LIST = Operation(words=("fight", "list"), run=run_list, params=(), help="Every fight.")
REMOVE = Operation(words=("fight", "remove"), run=run_remove, params=(FIGHT, AFTER, VERSION), help="Remove a fight and its log.")
def _combatant(help_text: str) -> Param:
    return Param(field="combatant", kind="text", argument=True, required=True, not_blank=True, complete="combatants",
                 help=help_text + " (a creature's name names its only copy: Wolf is Wolf #1).")


# What `fight edit` changes of who the combatant is, mid-fight (services/fight_edits.Rearming).
REARMING = (
    Param(field="def", key="defense", kind="int", minimum=BONUS[0], maximum=BONUS[1], help="Set its DEF."),
    Param(field="parry", kind="int", minimum=0, maximum=BONUS[1], help="Set its parry."),
    Param(field="cmb", kind="int", minimum=BONUS[0], maximum=BONUS[1],
          help="Set the CMB of its attack in use (its first; with --wield, of that one)."),
    Param(field="wield", kind="text", not_blank=True, metavar="WEAPON", complete="weapons",
          help="The attack it uses from now on: one of its attacks, or a weapon of the armory (with --cmb)."),
)
EDIT = Operation(words=("fight", "edit"), run=run_edit, params=(
    FIGHT,
    _combatant("Whose state"),
    *(Param(field=name, kind="int", minimum=COUNT[0], maximum=COUNT[1], help=f"Set its {words}.")
      for name, words in (("taken", "hits taken"), ("bleed", "bleeding per round"), ("stun", "rounds stunned"),
                          ("no_parry", "rounds unable to parry"), ("must_parry", "rounds that must parry"),
                          ("bonus", "bonus to its next attack"), ("dying", "rounds left until death"))),
    Param(field="penalty", kind="int", minimum=-COUNT[1], maximum=0, help="Set its penalty (0 or less)."),
    Param(field="status", kind="choice", choices=("up", "down", "dead"), help="Set its status."),
    *REARMING,
    *CRIPPLING,
    AFTER, VERSION,
), help="Set a combatant's state by hand (healing, a ruling), or its DEF, parry and attack in use: recorded in the "
        "log, counted at once.")
HEALED = Param(field="heal", kind="int", minimum=COUNT[0], maximum=COUNT[1], metavar="N", help="Heal N hits taken.")
DAMAGED = Param(field="damage", kind="int", minimum=COUNT[0], maximum=COUNT[1], metavar="N", help="Deal N hits.")
ADJUST = Operation(words=("fight", "adjust"), run=run_adjust, params=(
    FIGHT,
    _combatant("Whose state"),
    HEALED, DAMAGED,
    *(Param(field=name, kind="int", minimum=-COUNT[1], maximum=COUNT[1], metavar="±N", help=f"Add N to its {words}.")
      for name, words in (("bleed", "bleeding per round"), ("stun", "rounds stunned"),
                          ("no_parry", "rounds unable to parry"), ("must_parry", "rounds that must parry"),
                          ("penalty", "penalty (it stays 0 or less)"), ("bonus", "bonus to its next attack"),
                          ("dying", "rounds left until death (none running: a positive N starts one; at 0 it dies)"))),
    AFTER, VERSION,
), help="Change a combatant's state by so much (heal 10 hits, bleed 2 less): recorded in the log, counted at once; "
        "hits taken and counters stay 0 or more, the penalty 0 or less.")
HITS_ARGUMENT = Param(field="hits", kind="int", argument=True, required=True, minimum=1, maximum=COUNT[1],
                      help="How many hits.")
HEAL = Operation(words=("fight", "heal"), run=run_heal, params=(FIGHT, _combatant("Who"), HITS_ARGUMENT, AFTER, VERSION),
                 help="Heal a combatant's hits taken by HITS (fight adjust --heal): a down one whose hits taken fall "
                      "below its hits is up again.")
DAMAGE = Operation(words=("fight", "damage"), run=run_damage, params=(FIGHT, _combatant("Who"), HITS_ARGUMENT, AFTER, VERSION),
                   help="Deal a combatant HITS by hand (fight adjust --damage): down when its hits taken reach its hits.")
LEAVE = Operation(words=("fight", "leave"), run=run_leave, params=(FIGHT, _combatant("Who leaves"), AFTER, VERSION),
                  help="A combatant leaves the fight (flees, is carried off): no longer a combatant, its side stands "
                       "without it, and the fight may end; undo brings it back.")

ROUNDS = Param(field="rounds", kind="int", minimum=1, maximum=200, default=20, show_default=True,
               help="How many rounds, from the fight's round now.")
SIMULATED_SEED = next(p for p in SIMULATED if p.field == "seed")  # a fresh seed when none, printed
MAX_FIGHTS = 1_000_000  # fights of one `simulate fight` (a few minutes at most)


def run_odds(database: Any, name: str, rounds: int, exact: bool, certified: bool, width: float | None,
             seconds: float | None, count: int | None, seed: int | None, progress_bar: Any = None,
             should_stop: Any = None, started: float | None = None) -> Any:
    from tables_app.services import fight_odds

    chosen = [flag for flag, given in (("exact", exact), ("certified", certified), ("count", count is not None)) if given]
    if len(chosen) > 1:
        raise ParamError(chosen[1], f"one of exact, certified and count at most (given: {', '.join(chosen)})")
    if width is not None and not certified:
        raise ParamError("width", "goes with certified only (the widest a certified bound may be)")
    why = {("time", "exact"): "the exact odds take as long as their states, within their bound",
           ("time", "count"): "a count plays every fight it asks, however long",
           ("seed", "exact"): "exact odds play no dice", ("seed", "certified"): "certified bounds play no dice"}
    for field, value in (("time", seconds), ("seed", seed)):
        if value is not None and chosen and (field, chosen[0]) in why:
            raise ParamError(field, f"not with {chosen[0]} ({why[field, chosen[0]]})")
    return fight_odds.odds(database, name, rounds, exact=exact, certified=certified, width=width or CERTIFIED_WIDTH,
                           seconds=seconds, count=count, seed=ODDS_SEED if seed is None else seed,
                           progress_bar=progress_bar, should_stop=should_stop, started=started)


def run_simulate(database: Any, name: str, rounds: int, count: int, seed: int | None, progress_bar: Any = None,
                 should_stop: Any = None) -> Any:
    from tables_app.operations.attacks import fresh_or
    from tables_app.services import fight_odds

    return fight_odds.simulate(database, name, rounds=rounds, count=count, seed=fresh_or(seed), progress_bar=progress_bar,
                               should_stop=should_stop)


CERTIFIED_WIDTH = 0.01
ODDS_SEED = 0  # an estimate's seed unless one is given: the same question, the same answer
ODDS = Operation(words=("odds", "fight"), run=run_odds, params=(
    FIGHT, ROUNDS,
    Param(field="exact", kind="flag", default=False,
          help="Insist on the exact odds, in fractions: refused past 1,000,000 states (offering fewer rounds)."),
    Param(field="certified", kind="flag", default=False,
          help="Certified bounds: each share's lower and upper bound, the mass of the states left out of the "
               "work carried as unknown (seconds of work)."),
    Param(field="width", kind="float", minimum=0.0001, maximum=0.5, metavar="W",
          help=f"With --certified: the widest a bound may be (default {CERTIFIED_WIDTH})."),
    Param(field="time", key="seconds", kind="float", minimum=0.05, maximum=600, metavar="S",
          help="The time an answer may take, in seconds (default 1; with --certified, 10): an estimate plays "
               "fights until no share's standard error is above 0.002 or the time is spent."),
    Param(field="count", kind="int", minimum=1, maximum=MAX_FIGHTS,
          help="Estimate from this many fights (no time budget; the same seed and count give the same answer)."),
    Param(field="seed", kind="int", minimum=SIMULATED_SEED.minimum, maximum=SIMULATED_SEED.maximum,
          help="Seed of an estimate's random numbers (default 0: the same fight asked again gets the same answer)."),
), help="The chances of a tracked fight from its state now: by each round, P(over), P(each side has won), "
        "P(each combatant down or dead); the expected rounds and what is still going after the last. Exact when "
        "the fight's states stay few (most fights' next round or two, hits-only and formula fights), else "
        "estimated by playing it many times, each share with its standard error, in about a second; the first "
        "line says which.",
    short_help="The chances of a tracked fight from its state now: exact, or estimated with its error.")
SIMULATE = Operation(words=("simulate", "fight"), run=run_simulate, params=(
    FIGHT, ROUNDS,
    Param(field="count", kind="int", minimum=1, maximum=MAX_FIGHTS, default=10_000, show_default=True,
          help="How many fights."),
    SIMULATED_SEED,
), help="A tracked fight played many times from its state now, with random dice and the same rules: the shape of "
        "odds fight, each probability with its standard error (odds fight --count N is the same).",
    short_help="A tracked fight played many times from its state now, with random dice.")

OPERATIONS = (NEW, JOIN, ATTACK, ROUND, SHOW, LOG, UNDO, LIST, REMOVE, EDIT, ADJUST, HEAL, DAMAGE, LEAVE)


def _parties() -> Any:
    from tables_app.services import parties

    return parties


def run_party_save(database: Any, name: str, fight: str, only: tuple[str, ...], replace: bool) -> Any:
    return _parties().save(database, name, fight, only, replace)


def run_party_list(database: Any) -> Any:
    return _parties().listing(database)


def run_party_show(database: Any, name: str) -> Any:
    return _parties().find(database, name)


def run_party_remove(database: Any, name: str) -> Any:
    return _parties().remove(database, name)


PARTY = Param(field="name", kind="text", argument=True, required=True, not_blank=True, complete="parties",
              help="The party's name.")
PARTY_SAVE = Operation(words=("fight", "party", "save"), run=run_party_save, params=(
    PARTY,
    Param(field="from", key="fight", kind="text", required=True, not_blank=True, complete="fights", metavar="FIGHT",
          help="The fight whose combatants it saves (their definitions, not their state)."),
    Param(field="only", kind="text", multiple=True, not_blank=True, metavar="NAME", complete="combatants",
          help="Only this combatant (repeatable; default: every one)."),
    Param(field="replace", kind="flag", default=False, help="Save over a party of that name."),
), help="Save combatants of a fight as a party: their name, side, hits, DEF, armor, rank, features, parry, attacks, "
        "initiative and death threshold, to join another fight in one command (fight join --party).")
PARTY_LIST = Operation(words=("fight", "party", "list"), run=run_party_list, params=(), help="Every saved party.")
PARTY_SHOW = Operation(words=("fight", "party", "show"), run=run_party_show, params=(PARTY,),
                       help="A party's members, as they will join.")
PARTY_REMOVE = Operation(words=("fight", "party", "remove"), run=run_party_remove, params=(PARTY,),
                         help="Remove a saved party (the fights it joined keep their combatants).")
PARTY_OPERATIONS = (PARTY_SAVE, PARTY_LIST, PARTY_SHOW, PARTY_REMOVE)
