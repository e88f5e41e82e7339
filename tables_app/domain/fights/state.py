"""A fight's state: who fights, and what each one carries from round to round.

Every value is immutable and hashable: the tracker builds a new state per
event, and the exact odds of a fight merge identical states.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tables_app.domain.names import fold
from tables_app.domain.tables import Rank


class Status(StrEnum):
    UP = "up"
    DOWN = "down"  # taken ≥ hits: out of the fight, alive
    DEAD = "dead"  # instant death, or a `dying` countdown run out


@dataclass(frozen=True)
class Armament:
    """One attack a combatant can make: a weapon of the fight's ruleset (by
    name) and its CMB; in a formula system, the system's id and its option
    values (``options``, as `resolve SYSTEM` takes them) instead of a weapon."""

    weapon: str
    cmb: int
    system: str = "table"
    options: tuple[tuple[str, object], ...] = ()
    ruleset: str | None = None  # the weapon's, found when it joined: an attack looks it up there only


@dataclass(frozen=True)
class Fighter:
    """Who a combatant is: fixed for the whole fight, but for its DEF, its
    parry and its attacks (the one in use first), which an edit may change."""

    name: str
    side: str
    hits: int
    defense: int
    armor: str
    rank: Rank = Rank.NORMAL
    features: tuple[str, ...] = ()
    parry: int = 0  # moved from CMB to DEF each round while it can parry
    attacks: tuple[Armament, ...] = ()
    creature: str | None = None  # the bestiary's creature it came from, as the bestiary spells it
    initiative: int = 0  # higher acts first; equal ones in the order they joined
    death_at: int | None = None  # dead once its hits left are at or below this (0 or less); None: only down


@dataclass(frozen=True)
class Counters:
    """What a combatant carries from round to round (docs/fights.md, "State")."""

    bleed: int = 0
    stun: int = 0
    no_parry: int = 0
    must_parry: int = 0
    penalty: int = 0  # 0 or less: added to its CMB
    dying: int | None = None  # rounds left until death; None: no countdown
    # the rest of a critical (docs/fights.md, "The rest of a critical")
    prone: int = 0  # rounds left prone: no attack (it gets up), no parry
    knocked_out: int | None = None  # rounds left out (0: until the GM wakes it); None: not out
    blinded: int = 0  # rounds left blinded: no parry
    useless_arm: bool = False
    useless_leg: bool = False
    dropped: tuple[str, ...] = ()  # its attacks (weapon names) dropped: not made until recovered (by hand)
    broken: tuple[str, ...] = ()  # its attacks broken: not made until edited back
    timed_penalties: tuple[tuple[int, int], ...] = ()  # (penalty, rounds left), sorted: added to its CMB while they last

    @property
    def lost(self) -> tuple[str, ...]:
        """Its attacks it cannot make: dropped or broken."""
        return self.dropped + self.broken

    @property
    def timed_penalty(self) -> int:
        return sum(penalty for penalty, _ in self.timed_penalties)


@dataclass(frozen=True)
class Combatant:
    """A fighter and its state. ``now`` is every effect received so far;
    ``start`` the same as the round began, which is what counts in the round
    (may it act, its CMB, its parry, what ticks at the round's end).
    ``fresh_dying``: ``now.dying`` was set in this round (it first ticks at
    the next round's end); ``acted``: it attacked in this round."""

    fighter: Fighter
    taken: int = 0
    now: Counters = Counters()
    start: Counters = Counters()
    bonus: int = 0  # from `(+N)` of criticals it dealt: added to its next attack, then spent
    status: Status = Status.UP
    fresh_dying: bool = False
    acted: bool = False
    last_weapon: str | None = None  # the attack it made last (kept only for one with several): what it drops

    @property
    def name(self) -> str:
        return self.fighter.name

    @property
    def side(self) -> str:
        return self.fighter.side

    @property
    def up(self) -> bool:
        """Standing in the fight: its status up and not knocked out (one knocked out counts as down)."""
        return self.status is Status.UP and self.now.knocked_out is None

    @property
    def can_parry(self) -> bool:
        """Whether it parries in this round: up, and not unable to, prone or blinded (as the round began)."""
        return self.up and self.start.no_parry == 0 and self.start.prone == 0 and self.start.blinded == 0


@dataclass(frozen=True)
class Harm:
    """What a blow does to one combatant: hits at once, and the effects that
    count from the next round (``death_in`` 0: instant death)."""

    hits: int = 0
    bleed: int = 0
    stun: int = 0
    no_parry: int = 0
    must_parry: int = 0
    penalty: int = 0
    death_in: int | None = None
    # the rest of a critical (the entries' fields of the same names)
    prone: int = 0
    knocked_out: int | None = None  # rounds; 0: until woken
    blinded: int = 0
    drops_weapon: bool = False  # the weapon it holds: the attack it made last, else its first not lost
    breaks_weapon: bool = False
    useless_arm: bool = False  # drops the weapon it holds too
    useless_leg: bool = False
    timed_penalties: tuple[tuple[int, int], ...] = ()  # (penalty, rounds), sorted

    def __bool__(self) -> bool:
        return any((self.hits, self.bleed, self.stun, self.no_parry, self.must_parry, self.penalty, self.prone,
                    self.blinded, self.drops_weapon, self.breaks_weapon, self.useless_arm, self.useless_leg,
                    self.timed_penalties)) or self.death_in is not None or self.knocked_out is not None


@dataclass(frozen=True)
class Blow:
    """The recorded outcome of one attack, as the fight applies it: harm to
    the target, harm to the attacker (its fumble), and the `(+N)` bonus each
    side gains for its next attack."""

    to_target: Harm = Harm()
    to_attacker: Harm = Harm()
    attacker_bonus: int = 0
    target_bonus: int = 0  # a fumble's `(+N)`: the foe's


@dataclass(frozen=True)
class Fight:
    """A fight: ``round`` is the round being fought (1 before any ended);
    combatants in initiative order (the higher first, equal ones in the
    order they joined)."""

    name: str
    ruleset: str | None = None
    round: int = 1
    combatants: tuple[Combatant, ...] = ()
    # Who left the fight (`fight leave`): no longer a combatant, but its side
    # joined (a side that fled is beaten) and its name stays taken.
    left: tuple[Fighter, ...] = ()

    def find(self, name: str) -> Combatant | None:
        key = fold(name)
        return next((c for c in self.combatants if fold(c.name) == key), None)

    def departed(self, name: str) -> Fighter | None:
        """The one named ``name`` (any letter case) who left the fight, if any."""
        key = fold(name)
        return next((f for f in self.left if fold(f.name) == key), None)

    @property
    def sides(self) -> tuple[str, ...]:
        """Every side that joined, those who left included."""
        return tuple(dict.fromkeys([*(c.side for c in self.combatants), *(f.side for f in self.left)]))

    @property
    def standing(self) -> tuple[str, ...]:
        """The sides with a combatant up, in the order they joined."""
        return tuple(dict.fromkeys(c.side for c in self.combatants if c.up))

    @property
    def over(self) -> bool:
        """At most one side has a combatant up, once two sides have joined."""
        return len(self.sides) >= 2 and len(self.standing) <= 1

    @property
    def winner(self) -> str | None:
        """The side left standing when the fight is over (None: nobody is, or it goes on)."""
        return self.standing[0] if self.over and self.standing else None
