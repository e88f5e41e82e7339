"""`tables odds fight NAME` and `tables simulate fight NAME`: the chances of
a tracked fight from its state now, one answer said with how it was had
(docs/fights.md, "Odds of a fight"):

- **exact** when the fight's states stay few (domain/fights/odds.py): tried
  first in float64 within a share of the time budget and a bound of states,
  or in fractions when ``--exact`` insists;
- else **estimated**: the fight played many times with random dice
  (domain/fights/batch.py, numpy; simulate.py's loop for what it does not
  play), each share with its standard error, until every standard error is
  small enough or the time budget is spent;
- **certified** bounds on request (domain/fights/certified.py).

Each attack's blow distribution (on the tables or in a formula system) is
looked up once per attacker, target and terms (``_Blows``)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tables_app.domain.dice import DiceExpressionError
from tables_app.domain.fights import Fight
from tables_app.domain.fights.blow_odds import ReadingMemo, blow_distribution, formula_blow_distribution
from tables_app.domain.fights.formulas import reads_taken
from tables_app.domain.fights.rules import Terms, fight_terms, outcome_words, turn_weapon
from tables_app.domain.fights.odds import MAX_STATES, FightOdds, Stopped, TooManyStates, fight_odds
from tables_app.domain.fights.simulate import Drawn, Tally, share, simulate_fights
from tables_app.domain.fights.state import Armament, Blow, Fighter
from tables_app.domain.systems import get
from tables_app.domain.systems.base import OptionError, TooManyDamages
from tables_app.domain.tables import Rank
from tables_app.errors import Offered, TablesError
from tables_app.services.fight_attacks import armament, looked_up, on_terms
from tables_app.services.fights import Loaded, load
from tables_app.services.reporting import ProgressBar, reporting
from tables_app.services.results import PRINTED_DIGITS, as_float
from tables_app.storage.database import Database

if TYPE_CHECKING:
    from tables_app.services.attacks import Prepared
    from tables_app.services.fight_certified import FightCertified

MAX_DAMAGES = 5_000  # different damages of one formula attack (each a blow the states step with); past it: refused
PROGRESS_FROM = 2_000  # simulated fights from which a bar shows (about a second and more)
# The automatic answer: the exact odds are tried in float64 within this many states held at once (about 40 MB of
# weights and conditions) and this share of the time budget; past either, the fight is estimated in what is left.
AUTO_STATES = 200_000
AUTO_CELLS = 1_000_000  # and cells of their arrays (8 MB; a duel holds about 4.4 a state): past it, estimated at once
EXACT_SHARE = 0.15
PRINTING = 0.05  # seconds of the budget left for the answer to be written out and the process to end
DEFAULT_SECONDS = 1.0  # the time an answer may take, unless told
CERTIFIED_SECONDS = 10.0  # the time certified bounds may take, unless told (each threshold tried is a computation)
# A fight the batch does not play is played one at a time (about 3,000 duels a second here) until its time is spent,
# this many fights at least and at most.
FALLBACK_LEAST = 20
MAX_FALLBACK = 1_000_000
# What a count of fights may ask, counted as the work it is: fights × rounds × combatants², a turn each combatant a
# round, each turn's cost growing with the combatants (who attacks whom). When no fight ends, numpy plays about 3.4
# million turns a CPU-second here in a 4-vs-4, 0.94 million in a 20-vs-20: 80 million is 62,500 fights of a 4-vs-4
# over 20 rounds (about 4 s), 2,500 of a 20-vs-20 (5 s). The one-at-a-time loop (a fight the batch does not play) plays
# about 10,500 turns a second in a 4-vs-4: 3 million for it (2,343 such fights, 3-4 s).
MAX_WORK = 80_000_000
MAX_LOOP_WORK = 3_000_000
TARGET_SE = 0.002  # an estimate stops once no share's standard error is above it (or the time budget is spent)
StopCheck = Callable[[], bool]  # whether the one who asked has gone (the work then stops)


def side_names(fight: Fight) -> dict[str, str]:
    """Each side named by its combatants, in the fight's order: ``{"A": "A (Aria, Borin)"}`` (those who left too)."""
    members: dict[str, list[str]] = {side: [] for side in fight.sides}
    for c in fight.combatants:
        members[c.side].append(c.name)
    for f in fight.left:
        members[f.side].append(f"{f.name}, left")
    return {side: f"{side} ({', '.join(names)})" if names else side for side, names in members.items()}


def _rounded(value: Any) -> Any:
    """Shares as printed: fractions and floats alike to PRINTED_DIGITS decimals (the one rounding)."""
    if isinstance(value, float):
        return round(value, PRINTED_DIGITS)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return as_float(value)


@dataclass(frozen=True)
class FightOddsResult:
    """The exact odds of a fight from event ``seq`` of its log, worked out in
    ``arithmetic`` (``rational``: fractions; ``float64``: floats, within
    1e-12 of the fractions on every fight the suite checks)."""

    name: str
    seq: int
    odds: FightOdds
    names: tuple[str, ...]
    side_names: dict[str, str]
    arithmetic: str = "rational"

    def to_json(self) -> dict[str, Any]:
        odds = self.odds
        return {"fight": self.name, "seq": self.seq, "from_round": odds.start, "method": "exact",
                "arithmetic": self.arithmetic, "side_names": self.side_names, "rounds": [
                    {"round": r.round, "over": _rounded(r.over), "sides": _rounded(r.sides),
                     "combatants": {name: {"down": _rounded(r.down[name]), "dead": _rounded(r.dead[name])}
                                    for name in self.names},
                     "states": r.states}
                    for r in odds.rounds],
                "expected_rounds": _rounded(odds.expected_rounds), "unfinished": _rounded(odds.unfinished),
                "largest_states": odds.largest}


def _odds_ready(loaded: Loaded) -> Fight:
    """The fight, if its odds can be asked for: not over, two sides, attacks on the tables."""
    fight = loaded.fight
    if fight.over:
        raise TablesError(f"the fight {fight.name!r} is over: {outcome_words(fight)} (undo to go back, then ask again)")
    if len(fight.sides) < 2:
        raise Offered(f"the fight {fight.name!r} has one side only: add a foe ({{}})", "tables fight join", ("fight", "join"),
                      fight.name)
    for c in fight.combatants:
        arm = turn_weapon(c)  # the attack its turns make (as `fight round --auto` makes them)
        if not (c.up and arm is not None and arm.system == "table"):
            continue
        for foe in fight.combatants:  # an attack on the tables needs its target's armor column, as the tracker does
            if foe.side != c.side and foe.up and not foe.fighter.armor:
                raise TablesError(f"{c.name} attacks on the tables, and {foe.name} has no armor column (it joined with "
                                  "--system and no --armor): join it with --armor to work out the fight")
    return fight


def odds(database: Database, name: str, rounds: int = 20, limit: int = MAX_STATES, *, exact: bool = False,
         certified: bool = False, width: float = 0.01, seconds: float | None = None, count: int | None = None,
         seed: int = 0, progress_bar: ProgressBar | None = None, should_stop: StopCheck | None = None,
         started: float | None = None) -> FightOddsResult | FightSimulation | FightCertified:
    """The chances of the fight ``name`` for ``rounds`` rounds from its state now: exact when ``exact`` insists
    (FightTooLarge past ``limit`` states), certified bounds at most ``width`` wide when ``certified`` asks, an
    estimate from ``count`` fights when given; else the tool's choice, within ``seconds`` (default
    DEFAULT_SECONDS): exact if the fight's states stay within AUTO_STATES and the exact odds take at most a share
    of the time, else estimated. Certified bounds take ``seconds`` at most (default CERTIFIED_SECONDS). The time counts from
    ``started`` (time.monotonic(); default: now): the command's start, the request's arrival."""
    started = time.monotonic() if started is None else started
    loaded = load(database, name)
    fight = _odds_ready(loaded)
    blows = _Blows(database, fight)
    names, sides = tuple(c.name for c in fight.combatants), side_names(fight)
    try:
        if exact:
            with reporting(progress_bar, rounds, True, "rounds") as progress:  # a bar by rounds: each takes its own time
                try:
                    exactly = fight_odds(fight, blows, rounds, limit, progress, blows.reads_taken, should_stop=should_stop)
                except TooManyStates as exc:
                    raise FightTooLarge(fight.name, str(exc), exc.round - fight.round) from None
            return FightOddsResult(fight.name, loaded.seq, exactly, names, sides)
        if certified:
            from tables_app.services.fight_certified import certified_odds

            return certified_odds(fight, blows, rounds, width=width, seq=loaded.seq, side_names=sides,
                                  seconds=CERTIFIED_SECONDS if seconds is None else seconds,
                                  progress_bar=progress_bar, should_stop=should_stop, reads_taken=blows.reads_taken)
        why = None
        budget = DEFAULT_SECONDS if seconds is None else seconds
        if count is None:
            try:
                found = fight_odds(fight, blows, rounds, AUTO_STATES, None, blows.reads_taken, arithmetic="float64",
                                   seconds=budget * EXACT_SHARE, should_stop=should_stop, cells=AUTO_CELLS)
                return FightOddsResult(fight.name, loaded.seq, found, names, sides, "float64")
            except TooManyStates as exc:  # (TooMuchWork too: the share of the time is spent)
                why = f"not exact: {exc}"
        left = max(budget - PRINTING - (time.monotonic() - started), 0.0)
        tally = _estimate(fight, blows, rounds, seed=seed, count=count, seconds=left, progress_bar=progress_bar,
                          should_stop=should_stop)
    except Stopped:
        raise TablesError(f"the chances of the fight {fight.name!r} were stopped (the one who asked has gone)") from None
    except MemoryError:  # (every bound is checked before its memory is spent: a machine short of it still answers)
        raise TablesError(f"the chances of the fight {fight.name!r} need more memory than this machine has: ask for "
                          "fewer rounds, or without --exact or --certified") from None
    return FightSimulation(fight.name, loaded.seq, fight.round, seed, tally, names, fight.sides, sides, why)


def _estimate(fight: Fight, blows: _Blows, rounds: int, *, seed: int, count: int | None, seconds: float,
              progress_bar: ProgressBar | None, should_stop: StopCheck | None) -> Tally:
    """``count`` fights played (None: until no share's standard error is above TARGET_SE, or ``seconds`` are
    spent), all at once with numpy; one at a time, with the same rules, if the fight has what the batch does not
    play (from the start, or once a fight of it comes to have it): then in the time left, FALLBACK_LEAST at least."""
    from tables_app.domain.fights.batch import Unsupported, play_fights

    deadline = time.monotonic() + seconds
    total = count if count is not None else 0
    if count is not None:
        _within(fight, count, rounds, MAX_WORK, "")
    try:
        with reporting(progress_bar, total, total >= PROGRESS_FROM, "fights") as progress:
            return play_fights(fight, blows, rounds, seed=seed, count=count, seconds=None if count else seconds,
                               enough=None if count else _precise_enough, reads_taken=blows.reads_taken,
                               progress=progress, should_stop=should_stop)
    except Unsupported:
        pass
    from random import Random

    if count is not None:
        _within(fight, count, rounds, MAX_LOOP_WORK, " one at a time (it has what the batch does not play)")
    with reporting(progress_bar, total, total >= PROGRESS_FROM, "fights, one at a time") as progress:
        return simulate_fights(fight, Drawn(blows), rounds, count or MAX_FALLBACK, Random(seed), progress,
                               blows.reads_taken, should_stop=should_stop,
                               deadline=None if count else deadline, least=FALLBACK_LEAST)


def most_fights(fight: Fight, rounds: int, work: int = MAX_WORK) -> int:
    """The most fights of ``rounds`` rounds a count may ask of ``fight``: fights × rounds × combatants² ≤ ``work``."""
    return work // (rounds * len(fight.combatants) ** 2)


def _within(fight: Fight, count: int, rounds: int, work: int, how: str) -> None:
    """Refused (TablesError, one line) if ``count`` fights of ``rounds`` rounds are more than ``work`` allows."""
    most = most_fights(fight, rounds, work)
    if count > most:
        fewer = f"at most {most:,} fights of {rounds} rounds" if most else f"not even one fight of {rounds} rounds"
        raise TablesError(f"{count:,} fights of {fight.name!r} are too many to play{how}: {fewer} for its "
                          f"{len(fight.combatants)} combatants (fights × rounds × combatants² at most {work:,}, "
                          "a few seconds' work); ask for a smaller count or fewer rounds")


def _precise_enough(tally: Tally) -> bool:
    """Whether no share of the tally has a standard error above TARGET_SE."""
    return largest_se(tally) <= TARGET_SE


def largest_se(tally: Tally) -> float:
    """The largest standard error of a share the tally counts (over, won, down, dead, by round)."""
    worst = max([*tally.over, *(n for counts in (*tally.won.values(), *tally.down.values(), *tally.dead.values())
                                for n in counts)], key=lambda n: min(n, tally.count - n), default=0)
    return share(worst, tally.count)[1]


class FightTooLarge(TablesError):
    """A fight past the odds' bound: ``why`` (its states, by which round), and ``done`` the rounds worked
    out before it (0: none). Worded for the command line; each face offers the fewer rounds and the
    estimate in its own terms (``worded``: the HTTP API's are its fields and routes)."""

    def __init__(self, name: str, why: str, done: int):
        self.name, self.why, self.done = name, why, done
        fewer = f"tables odds fight {_quoted(name)} --rounds {done} --exact"
        super().__init__(self.worded(f"{done} round{'s' if done > 1 else ''} ({fewer})",
                                     f"tables odds fight {_quoted(name)}"))

    def worded(self, fewer: str, estimate: str) -> str:
        """`the fight 'Duel' is too large to work out exactly: ...; ask for FEWER or estimate it instead: ESTIMATE`."""
        asked = f"ask for {fewer} or " if self.done else ""
        return (f"the fight {self.name!r} is too large to work out exactly: {self.why}; {asked}estimate it instead "
                f"(without {'exact' if estimate.startswith('GET') else '--exact'}): {estimate}")


def _quoted(name: str) -> str:
    import shlex

    return shlex.quote(name)


@dataclass(frozen=True)
class FightSimulation:
    """``tally`` of fights played from event ``seq`` with the random numbers of ``seed``; ``why`` the exact odds
    were not had (None: an estimate was asked for)."""

    name: str
    seq: int
    start: int
    seed: int
    tally: Tally
    names: tuple[str, ...]
    sides: tuple[str, ...]
    side_names: dict[str, str]
    why: str | None = None

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
        found = {"fight": self.name, "seq": self.seq, "from_round": self.start, "method": "estimated",
                 "count": t.count, "seed": self.seed, "largest_se": largest_se(t), "side_names": self.side_names}
        if self.why is not None:
            found["why"] = self.why
        return {**found, "rounds": rounds, "expected_rounds": mean, "unfinished": unfinished,
                "se": {"expected_rounds": mean_se, "unfinished": unfinished_se}}


def simulate(database: Database, name: str, *, rounds: int = 20, count: int = 10_000, seed: int,
             progress_bar: ProgressBar | None = None, should_stop: StopCheck | None = None) -> FightSimulation:
    """``count`` fights played from the fight's state now (`tables simulate fight`): the estimate ``odds`` makes."""
    loaded = load(database, name)
    fight = _odds_ready(loaded)
    blows = _Blows(database, fight)
    try:
        tally = _estimate(fight, blows, rounds, seed=seed, count=count, seconds=math.inf, progress_bar=progress_bar,
                          should_stop=should_stop)
    except Stopped:
        raise TablesError(f"the simulation of the fight {fight.name!r} was stopped (the one who asked has gone)") from None
    return FightSimulation(fight.name, loaded.seq, fight.round, seed, tally, tuple(c.name for c in fight.combatants),
                           fight.sides, side_names(fight))


class _Blows:
    """Each attack's blow distribution, worked out once per attack and the
    terms the fight gives it: its CMB modifiers and the target's DEF (its
    parry in), and on the tables its armor, rank and features (the tables
    looked up once per weapon and target), in a formula system its hits and
    hits taken (pte reads them; a heal is held to the hits taken), each
    system's damage distribution once per option values."""

    def __init__(self, database: Database, fight: Fight):
        self.database, self.ruleset = database, fight.ruleset
        self._looked_up: dict[tuple[Armament, str, Rank, tuple[str, ...]], Prepared] = {}
        self._blows: dict[tuple[Any, ...], dict[Blow, Fraction]] = {}
        self._damages: dict[tuple[str, tuple[tuple[str, Any], ...]], Mapping[int, Fraction]] = {}
        self._readings: ReadingMemo = {}  # each reading's blows, for every distribution of the fight

    def __call__(self, state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        a, t = state.find(attacker), state.find(target)
        assert a is not None and t is not None
        arm = armament(a, None)  # the attack its turn makes, as `fight round --auto` makes it
        terms = fight_terms(state, attacker, target)
        if arm.system != "table":
            key: tuple[Any, ...] = (arm, terms, t.fighter.hits, t.taken)
        else:
            key = (arm, terms, t.fighter.armor, t.fighter.rank, t.fighter.features)
        found = self._blows.get(key)
        if found is None:
            found = self._blows[key] = (self._formula(state, attacker, target, arm) if arm.system != "table" else
                                        self._distribution(arm, terms, t.fighter))
        return found

    @staticmethod
    def reads_taken(state: Fight, attacker: str) -> bool:
        """Whether ``attacker``'s blows depend on its target's hits taken (the odds then ask state by state)."""
        a = state.find(attacker)
        assert a is not None
        if not a.fighter.attacks:  # one without attacks (a door, a captive) deals no blows at all
            return False
        arm = armament(a, None)  # the attack its turn makes
        return arm.system != "table" and reads_taken(arm.system)

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

    def _distribution(self, arm: Armament, terms: Terms, target: Fighter) -> dict[Blow, Fraction]:
        """The blows of the attack the tracker would resolve (fight_attacks: looked up, then on the fight's terms)."""
        key = (arm, target.armor, target.rank, target.features)
        found = self._looked_up.get(key)
        if found is None:
            found = self._looked_up[key] = looked_up(self.database, self.ruleset, arm, target)
        prepared = on_terms(found, terms)
        return blow_distribution(prepared.attack, prepared.tables, prepared.rules, self._readings)
