"""The fight's rules (rules.py) on a batch of fights at once: who attacks
whom with what (rules.turn_target, turn_weapon), what a blow does
(rules._attack, _harmed, _crippled, held_weapon, down_if_beaten), what a
round's end does (rules._ended, _woken, _ticked). A mirror of rules.py,
not a second source: tests/domain/fights/test_fight_batch.py checks it
state by state against rules.apply.

The blows are rows of a BlowTable: every distribution met, its blows'
fields as arrays, and its cumulative weights laid end to end (distribution
``j``'s in (j, j + 1]) so that one ``searchsorted`` draws for every fight,
whatever distribution each one draws from."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from tables_app.domain.fights.batch_state import DEAD, DOWN, LOWEST, NONE, SLOTS, UP, Batch, Ints, Unsupported
from tables_app.domain.fights.state import Blow, Harm

HARM = ("hits", "bleed", "stun", "no_parry", "must_parry", "penalty", "death_in", "prone", "knocked_out", "blinded",
        "drops_weapon", "breaks_weapon", "useless_arm", "useless_leg")
CRIPPLING = ("prone", "knocked_out", "blinded", "drops_weapon", "breaks_weapon", "useless_arm", "useless_leg")
# Per side of a blow (t_: to the target, a_: to the attacker): each Harm field (None as NONE), whether it harms at
# all (bool(Harm): the rules apply a harm, and the down rule, only then), whether it cripples (_crippled's test),
# its count of penalties for N rounds; and the two bonuses.
COLUMNS = (*(f"{s}{k}" for s in ("t_", "a_") for k in (*HARM, "harms", "crippling", "timed")),
           "attacker_bonus", "target_bonus")
_AT = {name: i for i, name in enumerate(COLUMNS)}


def _harm_row(harm: Harm) -> list[int]:
    if len(harm.timed_penalties) > SLOTS:
        raise Unsupported(f"a blow with more than {SLOTS} penalties for N rounds")
    values = [NONE if v is None else int(v) for v in (getattr(harm, k) for k in HARM)]
    crippling = bool(harm.prone or harm.blinded or harm.knocked_out is not None or harm.useless_arm or harm.useless_leg
                     or harm.drops_weapon or harm.breaks_weapon or harm.timed_penalties)
    return [*values, int(bool(harm)), int(crippling), len(harm.timed_penalties)]


class BlowTable:
    """Every blow distribution met so far, end to end: ``add`` one, ``draw`` from many."""

    def __init__(self) -> None:
        self.blows: list[Blow] = []
        self.distributions = 0
        self._size, capacity = 0, 256
        self._values = np.zeros((len(COLUMNS), capacity), dtype=np.int64)
        self._edges = np.zeros(capacity)
        self._timed = {k: np.zeros((capacity, SLOTS), dtype=np.int64) for k in ("t_p", "t_r", "a_p", "a_r")}
        self.used = dict.fromkeys(COLUMNS, False)  # columns some blow sets: the others are skipped
        self._numbers: dict[int, tuple[dict[Blow, Fraction], int]] = {}
        self._rows: dict[Harm, list[int]] = {}  # each harm's columns, worked out once (distributions share many)

    def _row(self, harm: Harm) -> list[int]:
        found = self._rows.get(harm)
        if found is None:
            found = self._rows[harm] = _harm_row(harm)
        return found

    def add(self, distribution: dict[Blow, Fraction]) -> int:
        """The distribution's number (blows drawn from it are ``draw(number, ...)``); the same distribution (the
        same object: ``blows`` keeps what it worked out) added again keeps its number."""
        known = self._numbers.get(id(distribution))
        if known is not None and known[0] is distribution:
            return known[1]
        j, blows = self.distributions, list(distribution)
        running = np.cumsum([float(p) for p in distribution.values()])
        edges = j + running / running[-1]
        edges[-1] = j + 1.0  # exactly: the next distribution's edges are all above it
        self._numbers[id(distribution)] = (distribution, j)
        rows = np.array([[*self._row(b.to_target), *self._row(b.to_attacker), b.attacker_bonus, b.target_bonus]
                         for b in blows], dtype=np.int64).T
        start, end = self._size, self._size + len(blows)
        while end > self._edges.size:
            self._grow()
        self._values[:, start:end] = rows
        self._edges[start:end] = edges
        for side in ("t_", "a_"):
            for k, blow in enumerate(blows):
                harm = blow.to_target if side == "t_" else blow.to_attacker
                for s, (penalty, rounds) in enumerate(harm.timed_penalties):
                    self._timed[side + "p"][start + k, s], self._timed[side + "r"][start + k, s] = penalty, rounds
        for name in COLUMNS:
            sentinel = NONE if name.endswith(("death_in", "knocked_out")) else 0
            self.used[name] = self.used[name] or bool(np.any(self._values[_AT[name], start:end] != sentinel))
        self.blows.extend(blows)
        self._size, self.distributions = end, j + 1
        return j

    def _grow(self) -> None:
        capacity = 2 * self._edges.size
        values = np.zeros((len(COLUMNS), capacity), dtype=np.int64)
        values[:, :self._size] = self._values[:, :self._size]
        edges = np.zeros(capacity)
        edges[:self._size] = self._edges[:self._size]
        self._values, self._edges = values, edges
        timed = {k: np.zeros((capacity, SLOTS), dtype=np.int64) for k in self._timed}
        for k, a in self._timed.items():
            timed[k][:self._size] = a[:self._size]
        self._timed = timed

    def column(self, name: str) -> Ints:
        column: Ints = self._values[_AT[name]]
        return column

    def timed(self, side: str) -> tuple[Ints, Ints]:
        return self._timed[side + "p"], self._timed[side + "r"]

    def draw(self, distributions: Ints, uniforms: npt.NDArray[np.float64]) -> Ints:
        """A blow (its index in ``blows``) per fight, from its distribution, with its uniform in [0, 1)."""
        drawn: Ints = np.searchsorted(self._edges[:self._size], distributions + uniforms, side="right").astype(np.int64)
        return drawn


def up(b: Batch) -> npt.NDArray[np.bool_]:
    """Combatant.up, per row and column."""
    standing: npt.NDArray[np.bool_] = (b.cells["status"] == UP) & (b.cells["now_knocked_out"] == NONE)
    return standing


def turn(b: Batch, attacker: int, going: Ints) -> tuple[Ints, Ints, Ints]:
    """Of the rows ``going``, those where ``attacker`` attacks in its turn
    (rules.turn_target: not skipped, a foe up), the foe it attacks (the
    first up of another side) and the attack it makes (rules.turn_weapon)."""
    c, cast = b.cells, b.cast
    if not cast.attacks[attacker]:
        return going[:0], going[:0], going[:0]
    i = attacker
    weapon = LOWEST[~(c["start_dropped"][going, i] | c["start_broken"][going, i]) & cast.full[i]]
    may = (c["status"][going, i] == UP) & (c["now_knocked_out"][going, i] == NONE) & (c["start_stun"][going, i] == 0) \
        & (c["start_must_parry"][going, i] == 0) & (c["start_prone"][going, i] == 0) & (weapon != NONE) \
        & (c["acted"][going, i] == 0)
    foes = np.flatnonzero(cast.side != cast.side[i])
    standing = up(b)[np.ix_(going, foes)] if len(foes) > 1 else up(b)[going, foes[0]][:, None]
    first = standing.argmax(axis=1)
    may &= standing[np.arange(len(going)), first]
    return going[may], foes[first[may]], weapon[may]


def attack(b: Batch, table: BlowTable, rows: Ints, attacker: int, targets: Ints, weapons: Ints, blows: Ints) -> None:
    """rules._attack, in each row of ``rows``: ``attacker`` deals blow ``blows`` (of ``table``) to ``targets``
    with its attack ``weapons``."""
    n, f = b.size, b.flat
    by_attacker, by_target = rows * n + attacker, rows * n + targets
    f["acted"][by_attacker] = 1
    f["bonus"][by_attacker] = table.column("attacker_bonus")[blows]  # the pending bonus is spent on this attack
    if b.cast.attacks[attacker] > 1:  # what it drops: the attack it made last (with one attack, no state to keep)
        f["last_weapon"][by_attacker] = weapons
    if table.used["target_bonus"]:
        f["bonus"][by_target] += table.column("target_bonus")[blows]
    _harmed(b, table, "a_", by_attacker, np.full(len(rows), attacker), blows)
    _harmed(b, table, "t_", by_target, targets, blows)


def _harmed(b: Batch, table: BlowTable, side: str, cells: Ints, cols: Ints, blows: Ints) -> None:
    """rules._harmed: hits, instant death and down at once; the rest counts from the next round."""
    if not table.used[side + "harms"]:
        return
    f, used = b.flat, table.used
    kept = (table.column(side + "harms")[blows] != 0) & (f["status"][cells] != DEAD)
    cells, cols, blows = cells[kept], cols[kept], blows[kept]
    if not len(cells):
        return
    for k in ("bleed", "stun", "no_parry", "must_parry", "penalty"):
        if used[side + k]:
            f["now_" + k][cells] += table.column(side + k)[blows]
    if used[side + "death_in"]:
        death, dying = table.column(side + "death_in")[blows], f["now_dying"][cells]
        least = (death > 0) & ((dying == NONE) | (death < dying))  # the least countdown wins, and keeps its own start
        f["now_dying"][cells[least]] = death[least]
        f["fresh_dying"][cells[least]] = 1
    if used[side + "crippling"]:
        crippled = table.column(side + "crippling")[blows] != 0
        _crippled(b, table, side, cells[crippled], cols[crippled], blows[crippled])
    if used[side + "death_in"]:
        f["status"][cells[table.column(side + "death_in")[blows] == 0]] = DEAD
    f["taken"][cells] += table.column(side + "hits")[blows]
    down_if_beaten(b, cells, cols)


def _crippled(b: Batch, table: BlowTable, side: str, cells: Ints, cols: Ints, blows: Ints) -> None:
    """rules._crippled, on cells whose harm cripples."""
    f, used = b.flat, table.used
    for k in ("prone", "blinded"):
        if used[side + k]:
            f["now_" + k][cells] += table.column(side + k)[blows]
    if used[side + "knocked_out"]:  # blows.knocked_out: rounds add up, until woken (0) wins
        hit, now = table.column(side + "knocked_out")[blows], f["now_knocked_out"][cells]
        f["now_knocked_out"][cells] = np.where(hit == NONE, now, np.where(now == NONE, hit, np.where(
            (hit == 0) | (now == 0), 0, hit + now)))
    for k in ("useless_arm", "useless_leg"):
        if used[side + k]:
            f["now_" + k][cells] |= table.column(side + k)[blows]
    if used[side + "timed"]:
        _timed_added(b, table, side, cells, blows)
    if not (used[side + "drops_weapon"] or used[side + "breaks_weapon"] or used[side + "useless_arm"]):
        return
    breaks = table.column(side + "breaks_weapon")[blows] != 0
    drops = (table.column(side + "drops_weapon")[blows] != 0) | (table.column(side + "useless_arm")[blows] != 0)
    losing = breaks | drops  # a useless arm drops what it held
    cells, cols, breaks = cells[losing], cols[losing], breaks[losing]
    held = _held(b, cells, cols)
    bit = np.where(held == NONE, 0, np.left_shift(1, np.maximum(held, 0)))
    f["now_broken"][cells] |= np.where(breaks, bit, 0)
    f["now_dropped"][cells] |= np.where(breaks, 0, bit)


def _held(b: Batch, cells: Ints, cols: Ints) -> Ints:
    """rules.held_weapon: the attack it made last, else its first, not already lost (now)."""
    f = b.flat
    lost, last = f["now_dropped"][cells] | f["now_broken"][cells], f["last_weapon"][cells]
    keeps_last = (last != NONE) & ((lost >> np.maximum(last, 0)) & 1 == 0)
    return np.where(keeps_last, last, LOWEST[~lost & b.cast.full[cols]])


def _timed_added(b: Batch, table: BlowTable, side: str, cells: Ints, blows: Ints) -> None:
    """The blow's penalties for N rounds join the cell's, each in a free slot, fresh (they count from the next round)."""
    penalties, rounds = table.timed(side)
    count = table.column(side + "timed")[blows]
    p, r, fresh = b.timed["timed_penalty"], b.timed["timed_rounds"], b.timed["timed_fresh"]
    for q in range(int(count.max(initial=0))):
        some = count > q
        at, by = cells[some], blows[some]
        free = r[at] == 0
        if not free.any(axis=1).all():
            raise Unsupported(f"a combatant with more than {SLOTS} penalties for N rounds")
        slot = free.argmax(axis=1)
        p[at, slot], r[at, slot], fresh[at, slot] = penalties[by, q], rounds[by, q], 1


def down_if_beaten(b: Batch, cells: Ints, cols: Ints) -> None:
    """rules.down_if_beaten on each cell: dead past its death threshold (not already dead), else down once its
    hits taken reach its hits (from up)."""
    f, cast = b.flat, b.cast
    status, taken, hits = f["status"][cells], f["taken"][cells], cast.hits[cols]
    past = cast.has_death[cols] & (hits - taken <= cast.death_at[cols])
    f["status"][cells] = np.where((status != DEAD) & past, DEAD,
                                  np.where((status == UP) & (taken >= hits), DOWN, status))


def end_round(b: Batch) -> None:
    """rules._ended for every row and combatant: bleeding with the round's
    start values, counters down by one, the death countdown, the knocked-out
    rounds, the penalties for N rounds; the down rule; ``start`` = ``now``."""
    c = b.cells
    alive = c["status"] != DEAD
    c["taken"] += np.where(alive, c["start_bleed"], 0)
    counting = alive & (c["start_dying"] != NONE) & (c["fresh_dying"] == 0) & (c["now_dying"] != NONE)
    c["now_dying"] -= counting
    out = counting & (c["now_dying"] <= 0)
    c["status"][out], c["now_dying"][out] = DEAD, 0
    for k in ("stun", "no_parry", "must_parry", "prone", "blinded"):
        c["now_" + k] -= alive & (c["start_" + k] > 0)
    waking = alive & (c["start_knocked_out"] > 0) & (c["now_knocked_out"] > 0)  # (not None, not until woken)
    if waking.any():
        c["now_knocked_out"] -= waking
        c["now_knocked_out"][waking & (c["now_knocked_out"] == 0)] = NONE
    r, fresh = b.timed["timed_rounds"], b.timed["timed_fresh"]
    if r.any():  # those it had as the round began lose a round (gone at 0); those received count from the next
        ticking = alive.reshape(-1)[:, None] & (fresh == 0) & (r > 0)
        r -= ticking
        b.timed["timed_penalty"][r == 0] = 0
        fresh[:] = 0
    n = b.size
    down_if_beaten(b, np.arange(b.rows * n), np.tile(np.arange(n), b.rows))
    for k in ("bleed", "stun", "no_parry", "must_parry", "penalty", "dying", "prone", "knocked_out", "blinded",
              "useless_arm", "useless_leg", "dropped", "broken"):
        c["start_" + k][...] = c["now_" + k]
    c["fresh_dying"][...] = 0
    c["acted"][...] = 0
    b.round += 1


def timed_start(b: Batch, cells: Ints) -> Ints:
    """Each cell's penalties for N rounds as the round began, summed (what its CMB counts)."""
    p, r, fresh = (b.timed[k][cells] for k in ("timed_penalty", "timed_rounds", "timed_fresh"))
    summed: Ints = np.where((r > 0) & (fresh == 0), p, 0).sum(axis=1)
    return summed


def can_parry(b: Batch, rows: Ints, cols: Ints) -> npt.NDArray[np.bool_]:
    """Combatant.can_parry, per cell."""
    c = b.cells
    parries: npt.NDArray[np.bool_] = (c["status"][rows, cols] == UP) & (c["now_knocked_out"][rows, cols] == NONE) \
        & (c["start_no_parry"][rows, cols] == 0) & (c["start_prone"][rows, cols] == 0) \
        & (c["start_blinded"][rows, cols] == 0)
    return parries


__all__ = ["BlowTable", "attack", "can_parry", "down_if_beaten", "end_round", "timed_start", "turn", "up"]
