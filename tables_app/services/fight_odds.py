"""`tables odds fight NAME` and `tables simulate fight NAME`: the exact odds
of a tracked fight from its state now (domain/fights/odds.py), or the fight
played many times with random dice (domain/fights/simulate.py); each
attack's blow distribution (on the tables or in a formula system) looked up
once per attacker, target and terms (domain/fights/blow_odds.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tables_app.domain.dice import DiceExpressionError
from tables_app.domain.fights import Fight, cmb_modifiers, defense_of
from tables_app.domain.fights.blow_odds import blow_distribution, formula_blow_distribution
from tables_app.domain.fights.formulas import reads_taken
from tables_app.domain.fights.rules import turn_weapon
from tables_app.domain.fights.odds import MAX_STATES, FightOdds, TooManyStates, fight_odds
from tables_app.domain.fights.simulate import Drawn, Tally, share, simulate_fights
from tables_app.domain.fights.state import Armament, Blow, Fighter
from tables_app.domain.systems import get
from tables_app.domain.systems.base import OptionError, TooManyDamages
from tables_app.domain.tables import Rank
from tables_app.errors import Offered, TablesError
from tables_app.services.fights import Loaded, load, prepared_attack
from tables_app.services.reporting import ProgressBar, reporting
from tables_app.services.results import as_float
from tables_app.storage.database import Database

if TYPE_CHECKING:
    from tables_app.services.attacks import Prepared

MAX_DAMAGES = 5_000  # different damages of one formula attack (each a blow the states step with); past it: refused
PROGRESS_FROM = 2_000  # simulated fights from which a bar shows (about a second and more)


@dataclass(frozen=True)
class FightOddsResult:
    """The odds of a fight from event ``seq`` of its log."""

    name: str
    seq: int
    odds: FightOdds
    names: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        odds = self.odds
        return {"fight": self.name, "seq": self.seq, "from_round": odds.start, "rounds": [
            {"round": r.round, "over": as_float(r.over), "sides": as_float(r.sides),
             "combatants": {name: {"down": as_float(r.down[name]), "dead": as_float(r.dead[name])} for name in self.names},
             "states": r.states}
            for r in odds.rounds],
            "expected_rounds": as_float(odds.expected_rounds), "unfinished": as_float(odds.unfinished),
            "largest_states": odds.largest}


def _odds_ready(loaded: Loaded) -> Fight:
    """The fight, if its odds can be asked for: not over, two sides, attacks on the tables."""
    fight = loaded.fight
    if fight.over:
        won = f": side {fight.winner} won" if fight.winner else ": nobody is standing"
        raise TablesError(f"the fight {fight.name!r} is over{won} (undo to go back, then ask again)")
    if len(fight.sides) < 2:
        raise Offered(f"the fight {fight.name!r} has one side only: add a foe ({{}})", "tables fight join", ("fight", "join"),
                      fight.name)
    for c in fight.combatants:
        if not (c.up and c.fighter.attacks and c.fighter.attacks[0].system == "table"):
            continue
        for foe in fight.combatants:  # an attack on the tables needs its target's armor column, as the tracker does
            if foe.side != c.side and foe.up and not foe.fighter.armor:
                raise TablesError(f"{c.name} attacks on the tables, and {foe.name} has no armor column (it joined with "
                                  "--system and no --armor): join it with --armor to work out the fight")
    return fight


def odds(database: Database, name: str, rounds: int = 20, limit: int = MAX_STATES,
         progress_bar: ProgressBar | None = None) -> FightOddsResult:
    loaded = load(database, name)
    fight = _odds_ready(loaded)
    try:
        # a bar by rounds: how long a round takes is known only once it is worked out
        with reporting(progress_bar, rounds, True, "rounds") as progress:
            blows = _Blows(database, fight)
            computed = fight_odds(fight, blows, rounds, limit, progress, blows.reads_taken)
    except TooManyStates as exc:
        raise FightTooLarge(fight.name, str(exc), exc.round - fight.round) from None
    return FightOddsResult(fight.name, loaded.seq, computed, tuple(c.name for c in fight.combatants))


class FightTooLarge(TablesError):
    """A fight past the odds' bound: ``why`` (its states, by which round), and ``done`` the rounds worked
    out before it (0: none). Worded for the command line; each face offers the fewer rounds and the
    simulation in its own terms (``worded``: the HTTP API's are its fields and routes)."""

    def __init__(self, name: str, why: str, done: int):
        self.name, self.why, self.done = name, why, done
        fewer = f"tables odds fight {_quoted(name)} --rounds {done}"
        super().__init__(self.worded(f"{done} round{'s' if done > 1 else ''} ({fewer})",
                                     f"tables simulate fight {_quoted(name)}"))

    def worded(self, fewer: str, simulate: str) -> str:
        """`the fight 'Duel' is too large to work out exactly: ...; ask for FEWER or simulate it instead: SIMULATE`."""
        asked = f"ask for {fewer} or " if self.done else ""
        return f"the fight {self.name!r} is too large to work out exactly: {self.why}; {asked}simulate it instead: {simulate}"


def _quoted(name: str) -> str:
    import shlex

    return shlex.quote(name)


@dataclass(frozen=True)
class FightSimulation:
    """``tally`` of fights played from event ``seq`` with the random numbers of ``seed``."""

    name: str
    seq: int
    start: int
    seed: int
    tally: Tally
    names: tuple[str, ...]
    sides: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        t = self.tally
        rounds = []
        for j in range(t.listed):  # to the round by which every fight played had ended, as the odds' list stops
            over, over_se = share(t.over[j], t.count)
            sides = {side: share(t.won[side][j], t.count) for side in self.sides}
            fates = {name: {"down": share(t.down[name][j], t.count), "dead": share(t.dead[name][j], t.count)}
                     for name in self.names}
            rounds.append({"round": self.start + j, "over": over, "sides": {s: v[0] for s, v in sides.items()},
                           "combatants": {n: {k: v[0] for k, v in f.items()} for n, f in fates.items()},
                           "se": {"over": over_se, "sides": {s: v[1] for s, v in sides.items()},
                                  "combatants": {n: {k: v[1] for k, v in f.items()} for n, f in fates.items()}}})
        mean, mean_se = t.mean_rounds()
        unfinished, unfinished_se = share(t.unfinished, t.count)
        return {"fight": self.name, "seq": self.seq, "from_round": self.start, "count": t.count, "seed": self.seed,
                "rounds": rounds, "expected_rounds": mean, "unfinished": unfinished,
                "se": {"expected_rounds": mean_se, "unfinished": unfinished_se}}


def simulate(database: Database, name: str, *, rounds: int = 20, count: int = 10_000, seed: int,
             progress_bar: ProgressBar | None = None) -> FightSimulation:
    from random import Random

    loaded = load(database, name)
    fight = _odds_ready(loaded)
    with reporting(progress_bar, count, count >= PROGRESS_FROM, "fights") as progress:
        blows = _Blows(database, fight)
        tally = simulate_fights(fight, Drawn(blows), rounds, count, Random(seed), progress, blows.reads_taken)
    return FightSimulation(fight.name, loaded.seq, fight.round, seed, tally, tuple(c.name for c in fight.combatants),
                           fight.sides)


class _Blows:
    """Each attack's blow distribution, worked out once per attack and the
    terms the fight gives it: its CMB modifiers and the target's DEF (its
    parry in), and on the tables its armor, rank and features (the tables
    looked up once per weapon and target), in a formula system its hits and
    hits taken (pte reads them; a heal is held to the hits taken), each
    system's damage distribution once per option values."""

    def __init__(self, database: Database, fight: Fight):
        self.database, self.ruleset = database, fight.ruleset
        self._prepared: dict[tuple[Armament, str, Rank, tuple[str, ...]], Prepared] = {}
        self._blows: dict[tuple[Any, ...], dict[Blow, Fraction]] = {}
        self._damages: dict[tuple[str, tuple[tuple[str, Any], ...]], Mapping[int, Fraction]] = {}

    def __call__(self, state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        a, t = state.find(attacker), state.find(target)
        assert a is not None and t is not None
        arm = turn_weapon(a)  # the targeting rule's attack: its first not dropped or broken
        assert arm is not None  # (turn_target attacks with none left)
        modifiers, defense = cmb_modifiers(state, attacker), defense_of(state, target)
        if arm.system != "table":
            key: tuple[Any, ...] = (arm, modifiers, defense, t.fighter.hits, t.taken)
        else:
            key = (arm, modifiers, defense, t.fighter.armor, t.fighter.rank, t.fighter.features)
        found = self._blows.get(key)
        if found is None:
            found = self._blows[key] = (self._formula(state, attacker, target, arm) if arm.system != "table" else
                                        self._distribution(arm, modifiers, defense, t.fighter))
        return found

    @staticmethod
    def reads_taken(state: Fight, attacker: str) -> bool:
        """Whether ``attacker``'s blows depend on its target's hits taken (the odds then ask state by state)."""
        a = state.find(attacker)
        assert a is not None
        if not a.fighter.attacks:  # one without attacks (a door, a captive) deals no blows at all
            return False
        arm = turn_weapon(a)  # its first not dropped or broken
        return arm is not None and arm.system != "table" and reads_taken(arm.system)

    def _formula(self, state: Fight, attacker: str, target: str, arm: Armament) -> dict[Blow, Fraction]:
        where = f"{attacker}'s {arm.system} attack on {target}"
        try:
            return formula_blow_distribution(state, attacker, target, arm, damages_of=self._damages_of)
        except (OptionError, DiceExpressionError) as exc:  # a value the fight fills in, past the system's bounds
            raise TablesError(f"{where}: {exc} (in a state the fight can reach)") from None
        except TooManyDamages as exc:
            raise TablesError(f"{where} is too large for the odds of a fight: {exc}") from None

    def _damages_of(self, system_id: str, options: tuple[tuple[str, Any], ...], params: Any) -> Mapping[int, Fraction]:
        found = self._damages.get((system_id, options))
        if found is None:
            damages = get(system_id).damages
            assert damages is not None  # every formula system has its exact damage distribution
            found = self._damages[(system_id, options)] = damages(params, MAX_DAMAGES)
        return found

    def _distribution(self, arm: Armament, modifiers: tuple[tuple[str, int], ...], defense: int,
                      target: Fighter) -> dict[Blow, Fraction]:
        key = (arm, target.armor, target.rank, target.features)
        prepared = self._prepared.get(key)
        if prepared is None:
            prepared = self._prepared[key] = prepared_attack(self.database, self.ruleset, arm, target)
        attack = replace(prepared.attack, modifiers=modifiers, defense=defense)
        rules = prepared.rules.for_attack(attack) if prepared.rules is not None else None
        return blow_distribution(attack, prepared.tables, rules)
