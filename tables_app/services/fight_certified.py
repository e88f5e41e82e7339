"""`tables odds fight NAME --certified`: bounds on the chances of a fight
(domain/fights/certified.py), each share certainly between its lower and
upper bound; the states too light to matter left out of the work, their
mass counted as unknown on either side."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tables_app.domain.fights.certified import Bounds, CertifiedOdds, CertifiedTooLarge
from tables_app.domain.fights.odds import Blows, ReadsTaken, TooManyStates
from tables_app.errors import TablesError
from tables_app.services.reporting import ProgressBar, reporting
from tables_app.services.results import PRINTED_DIGITS

if TYPE_CHECKING:
    from tables_app.domain.fights import Fight

SCALE = 10 ** PRINTED_DIGITS


def _down(p: float) -> float:
    """A lower bound as printed: rounded down, so that rounding never moves it past the truth."""
    return math.floor(p * SCALE) / SCALE


def _up(p: float) -> float:
    return math.ceil(p * SCALE) / SCALE


def _middle(b: Bounds) -> float:
    return round((b.lower + b.upper) / 2, PRINTED_DIGITS)


@dataclass(frozen=True)
class FightCertified:
    """Certified bounds on the chances of a fight from event ``seq`` of its log, at most ``asked`` wide."""

    name: str
    seq: int
    odds: CertifiedOdds
    names: tuple[str, ...]
    side_names: dict[str, str]
    asked: float

    def to_json(self) -> dict[str, Any]:
        """The shape of the exact odds, each share the middle of its bounds, with ``lower`` and ``upper`` beside
        them (same keys), as an estimate has its ``se``."""
        odds, rounds = self.odds, []
        widest = 0.0
        for r in odds.rounds:
            shares = {"over": r.over, "sides": r.sides,
                      "combatants": {n: {"down": r.down[n], "dead": r.dead[n]} for n in self.names}}
            lower, upper = _each(shares, lambda b: _down(b.lower)), _each(shares, lambda b: _up(b.upper))
            widest = max([widest, *(b.upper - b.lower for b in _leaves(shares))])
            rounds.append({"round": r.round, **_each(shares, _middle), "states": r.states, "lower": lower, "upper": upper})
        return {"fight": self.name, "seq": self.seq, "from_round": odds.start, "method": "certified",
                "width": _up(widest), "width_asked": self.asked, "dropped": _up(odds.dropped),
                "side_names": self.side_names, "rounds": rounds,
                "expected_rounds": _middle(odds.expected_rounds), "unfinished": _middle(odds.unfinished),
                "lower": {"expected_rounds": _down(odds.expected_rounds.lower), "unfinished": _down(odds.unfinished.lower)},
                "upper": {"expected_rounds": _up(odds.expected_rounds.upper), "unfinished": _up(odds.unfinished.upper)},
                "largest_states": odds.largest}


def _each(shares: Any, read: Callable[[Bounds], float]) -> Any:
    """``shares`` (Bounds, in dicts) with each Bounds read as a float by ``read``."""
    if isinstance(shares, dict):
        return {k: _each(v, read) for k, v in shares.items()}
    return read(shares)


def _leaves(shares: Any) -> list[Bounds]:
    if isinstance(shares, dict):
        return [b for v in shares.values() for b in _leaves(v)]
    return [shares]


def certified_odds(fight: Fight, blows: Blows, rounds: int, *, width: float, seq: int, side_names: dict[str, str],
                   seconds: float | None, progress_bar: ProgressBar | None, should_stop: Callable[[], bool] | None,
                   reads_taken: ReadsTaken | None) -> FightCertified:
    # (blows and reads_taken apart, not fight_odds._Blows: fight_odds imports this module, never the other way)
    from tables_app.domain.fights.certified import certified_odds as bounded

    try:
        with reporting(progress_bar, rounds, True, "rounds") as progress:
            found = bounded(fight, blows, rounds, width=width, reads_taken=reads_taken, progress=progress,
                            should_stop=should_stop, seconds=seconds)
    except CertifiedTooLarge as exc:
        raise _too_large(fight, width, exc.why) from None
    except TooManyStates as exc:  # (TooMuchWork: its steps, or its time)
        raise _too_large(fight, width, str(exc)) from None
    return FightCertified(fight.name, seq, found, tuple(c.name for c in fight.combatants), side_names, width)


def _too_large(fight: Fight, width: float, why: str) -> TablesError:
    """`the certified odds of the fight 'Duel' at width 0.01 are too large to work out: ...; ask for ...`."""
    return TablesError(f"the certified odds of the fight {fight.name!r} at width {width:g} are too large to work out: "
                       f"{why}; ask for a larger width, fewer rounds, or the estimate (without --certified)")
