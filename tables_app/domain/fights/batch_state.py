"""Many copies of one fight's state as numpy arrays, for the batch engine
(batch.py): one row per fight, one column per combatant, a 2-D array per
field of Combatant and of its Counters (``now`` and ``start``), and
``to_fight``/``from_fights`` between the two forms. The batch steps these
arrays as rules.py steps a Fight; the tests check it state by state."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from tables_app.domain.fights.state import Combatant, Counters, Fight, Fighter, Status
from tables_app.domain.names import fold

Ints = npt.NDArray[np.int64]
NONE = -1  # `dying`, `knocked_out` and `last_weapon` when None (the real values are 0 or more)
UP, DOWN, DEAD = 0, 1, 2
STATUSES = (Status.UP, Status.DOWN, Status.DEAD)
SLOTS = 6  # penalties for N rounds one combatant can carry at once (more: Unsupported)
MAX_ATTACKS = 12  # attacks of one fighter (its dropped and broken are bit masks over them, looked up in LOWEST)
# The counters kept twice (``now_`` and ``start_``); the penalties for N rounds are kept in slots (``timed_``).
COUNTERS = ("bleed", "stun", "no_parry", "must_parry", "penalty", "dying", "prone", "knocked_out", "blinded",
            "useless_arm", "useless_leg", "dropped", "broken")
OWN = ("taken", "status", "bonus", "fresh_dying", "acted", "last_weapon")
FIELDS = OWN + tuple(f"now_{k}" for k in COUNTERS) + tuple(f"start_{k}" for k in COUNTERS)
# A penalty for N rounds: its penalty, its rounds left (0: a free slot), and whether it came in this round (it is
# in ``now`` but not in ``start``: it counts, and ticks, from the next round).
TIMED = ("timed_penalty", "timed_rounds", "timed_fresh")
# The index of the lowest bit set of a mask of attacks (-1 for none): the first attack not lost.
LOWEST = np.array([NONE] + [(m & -m).bit_length() - 1 for m in range(1, 1 << MAX_ATTACKS)], dtype=np.int64)


class Unsupported(Exception):
    """A fight, or a state it reaches, the batch engine does not play (the message says what): play it with
    simulate.simulate_fights instead."""


@dataclass(frozen=True)
class Cast:
    """What stays the same in every fight of a batch: each combatant's fighter, and the sides."""

    fight: Fight  # a template: its combatants' fighters, names, order; its sides
    hits: Ints
    death_at: Ints  # hits left at or below which it is dead (only where has_death)
    has_death: npt.NDArray[np.bool_]
    side: Ints  # index in fight.sides
    attacks: Ints  # how many
    full: Ints  # the mask of all its attacks
    parry: Ints

    @classmethod
    def of(cls, fight: Fight) -> Cast:
        fighters = [c.fighter for c in fight.combatants]
        for f in fighters:
            names = [fold(a.weapon) for a in f.attacks]
            if len(names) > MAX_ATTACKS:
                raise Unsupported(f"{f.name} has more than {MAX_ATTACKS} attacks")
            if len(set(names)) < len(names):
                raise Unsupported(f"{f.name} has two attacks of the same weapon")
        sides = fight.sides
        return cls(fight, _ints(f.hits for f in fighters), _ints(f.death_at or 0 for f in fighters),
                   np.array([f.death_at is not None for f in fighters]), _ints(sides.index(f.side) for f in fighters),
                   _ints(len(f.attacks) for f in fighters), _ints((1 << len(f.attacks)) - 1 for f in fighters),
                   _ints(f.parry for f in fighters))


def _ints(values: object) -> Ints:
    return np.array(list(values), dtype=np.int64)  # type: ignore[call-overload]


class Batch:
    """``rows`` fights of one cast, each field a (rows, combatants) array
    (``cells[name]``; ``flat[name]`` the same memory, one cell per row and
    combatant: index row * combatants + column), the penalties for N rounds a
    (rows * combatants, SLOTS) array per part. ``round``: the round all its
    fights are in."""

    def __init__(self, cast: Cast, cells: dict[str, Ints], timed: dict[str, Ints], round_: int,
                 ids: Ints | None = None):
        self.cast, self.cells, self.timed, self.round = cast, cells, timed, round_
        self.size = len(cast.hits)
        # each row's fight, as the batch was made (rows are copied into fewer as fights end)
        self.ids = np.arange(self.rows) if ids is None else ids
        self.flat = {name: a.reshape(-1) for name, a in cells.items()}

    @property
    def rows(self) -> int:
        return len(self.cells["taken"])


    def taken_rows(self, keep: Ints) -> Batch:
        """The batch of the rows ``keep`` (indices), copied."""
        n = self.size
        cells = {name: a[keep] for name, a in self.cells.items()}
        flat = (keep[:, None] * n + np.arange(n)).reshape(-1)
        return Batch(self.cast, cells, {name: a[flat] for name, a in self.timed.items()}, self.round, self.ids[keep])

    def repeated(self, rows: int) -> Batch:
        """``rows`` copies of this batch's first row, fights 0 to rows - 1."""
        copies = self.taken_rows(np.zeros(rows, dtype=np.int64))
        copies.ids = np.arange(rows)
        return copies


def _counter_values(c: Counters) -> dict[str, int]:
    return {"bleed": c.bleed, "stun": c.stun, "no_parry": c.no_parry, "must_parry": c.must_parry, "penalty": c.penalty,
            "dying": NONE if c.dying is None else c.dying, "prone": c.prone,
            "knocked_out": NONE if c.knocked_out is None else c.knocked_out, "blinded": c.blinded,
            "useless_arm": int(c.useless_arm), "useless_leg": int(c.useless_leg)}


def _mask(fighter: Fighter, weapons: tuple[str, ...]) -> int:
    spelled = [a.weapon for a in fighter.attacks]
    mask = 0
    for w in weapons:
        if w not in spelled:
            raise Unsupported(f"{fighter.name} has lost {w!r}, not one of its attacks as it spells them")
        mask |= 1 << spelled.index(w)
    return mask


def _values(c: Combatant) -> dict[str, int]:
    """A combatant's fields as the batch holds them."""
    for counters in (c.now, c.start):
        if (counters.dying is not None and counters.dying < 0) or (counters.knocked_out is not None
                                                                    and counters.knocked_out < 0):
            raise Unsupported(f"{c.name} has a negative death countdown or knocked-out rounds")
    spelled = [a.weapon for a in c.fighter.attacks]
    if c.last_weapon is not None and c.last_weapon not in spelled:
        raise Unsupported(f"{c.name} last attacked with {c.last_weapon!r}, not one of its attacks as it spells them")
    values = {"taken": c.taken, "status": STATUSES.index(c.status), "bonus": c.bonus, "fresh_dying": int(c.fresh_dying),
              "acted": int(c.acted), "last_weapon": NONE if c.last_weapon is None else spelled.index(c.last_weapon)}
    for prefix, counters in (("now_", c.now), ("start_", c.start)):
        values.update({prefix + k: v for k, v in _counter_values(counters).items()})
        values[prefix + "dropped"] = _mask(c.fighter, counters.dropped)
        values[prefix + "broken"] = _mask(c.fighter, counters.broken)
    return values


def _slots(c: Combatant) -> list[tuple[int, int, int]]:
    """Its penalties for N rounds as (penalty, rounds, fresh): those of ``now`` not in ``start`` are fresh."""
    now, start = Counter(c.now.timed_penalties), Counter(c.start.timed_penalties)
    if start - now:
        raise Unsupported(f"{c.name} has penalties for N rounds as the round began that it no longer has")
    if any(r <= 0 for _, r in now):
        raise Unsupported(f"{c.name} has a penalty for 0 rounds or fewer")
    if sum(now.values()) > SLOTS:
        raise Unsupported(f"{c.name} has more than {SLOTS} penalties for N rounds")
    fresh = now - start
    return [(p, r, 0) for (p, r), k in start.items() for _ in range(k)] + \
        [(p, r, 1) for (p, r), k in fresh.items() for _ in range(k)]


def from_fights(fights: Sequence[Fight]) -> Batch:
    """One row per fight; they all have the first one's fighters (in the same order) and round."""
    first = fights[0]
    cast = Cast.of(first)
    n = len(first.combatants)
    cells = {name: np.zeros((len(fights), n), dtype=np.int64) for name in FIELDS}
    timed = {name: np.zeros((len(fights) * n, SLOTS), dtype=np.int64) for name in TIMED}
    for row, fight in enumerate(fights):
        if fight.round != first.round or [c.fighter for c in fight.combatants] != [c.fighter for c in first.combatants] \
                or fight.sides != first.sides:
            raise ValueError("the fights of a batch have the same fighters, sides and round")
        for col, c in enumerate(fight.combatants):
            for name, value in _values(c).items():
                cells[name][row, col] = value
            for k, (p, r, fresh) in enumerate(_slots(c)):
                for name, value in zip(TIMED, (p, r, fresh)):
                    timed[name][row * n + col, k] = value
    return Batch(cast, cells, timed, first.round)


def _none(value: int) -> int | None:
    return None if value == NONE else value


def _counters(b: Batch, row: int, col: int, prefix: str, penalties: tuple[tuple[int, int], ...]) -> Counters:
    v = {k: int(b.cells[prefix + k][row, col]) for k in COUNTERS}
    attacks = b.cast.fight.combatants[col].fighter.attacks
    lost = {k: tuple(a.weapon for i, a in enumerate(attacks) if v[k] >> i & 1) for k in ("dropped", "broken")}
    return Counters(bleed=v["bleed"], stun=v["stun"], no_parry=v["no_parry"], must_parry=v["must_parry"],
                    penalty=v["penalty"], dying=_none(v["dying"]), prone=v["prone"],
                    knocked_out=_none(v["knocked_out"]), blinded=v["blinded"], useless_arm=bool(v["useless_arm"]),
                    useless_leg=bool(v["useless_leg"]), dropped=lost["dropped"], broken=lost["broken"],
                    timed_penalties=penalties)


def to_fight(b: Batch, row: int) -> Fight:
    """Row ``row`` as the Fight the tracker would hold (dropped and broken in the order of the fighter's attacks)."""
    n, template = b.size, b.cast.fight
    combatants = []
    for col, c in enumerate(template.combatants):
        p, r, fresh = (b.timed[name][row * n + col] for name in TIMED)
        now = tuple(sorted((int(p[k]), int(r[k])) for k in range(SLOTS) if r[k]))
        start = tuple(sorted((int(p[k]), int(r[k])) for k in range(SLOTS) if r[k] and not fresh[k]))
        v = {k: int(b.cells[k][row, col]) for k in OWN}
        attacks = c.fighter.attacks
        combatants.append(replace(c, taken=v["taken"], now=_counters(b, row, col, "now_", now),
                                  start=_counters(b, row, col, "start_", start), bonus=v["bonus"],
                                  status=STATUSES[v["status"]], fresh_dying=bool(v["fresh_dying"]),
                                  acted=bool(v["acted"]),
                                  last_weapon=None if v["last_weapon"] == NONE else attacks[v["last_weapon"]].weapon))
    return replace(template, round=b.round, combatants=tuple(combatants))


__all__ = ["Batch", "Cast", "DEAD", "DOWN", "FIELDS", "NONE", "SLOTS", "UP", "Unsupported", "from_fights", "to_fight"]
