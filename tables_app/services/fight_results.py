"""What the fight operations answer: the fight's state, a step (what a
write did, in the fight's own words: domain/fights/account.py), a page of
the log, the list of fights; each with its JSON (docs/fights.md) and its
lines for people."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tables_app.domain.fights import (
    Attack, Event, Fight, apply, event_of, skipped,
)
from tables_app.domain.fights.rules import pending, whose_turn
from tables_app.domain.fights.account import (
    account, crippled_words, dice_line, shown_line, side_counts, sides_line, status_line, status_words,
    turn_line,
)
from tables_app.domain.fights.rules import turn_weapon
from tables_app.domain.fights.state import Combatant
from tables_app.services.fight_log import LOG_PAGE, Loaded, replayed_as_far
from tables_app.storage import fights as store


def combatant_json(c: Combatant) -> dict[str, Any]:
    n, f = c.now, c.fighter
    return {"name": c.name, "side": c.side, "hits": f.hits, "taken": c.taken, "bleed": n.bleed, "stun": n.stun,
            "no_parry": n.no_parry, "must_parry": n.must_parry, "penalty": n.penalty, "bonus": c.bonus, "dying": n.dying,
            "status": c.status.value, "def": f.defense, "armor": f.armor, "rank": f.rank.value, "parry": f.parry,
            "features": list(f.features), "creature": f.creature, "initiative": f.initiative,
            "attacks": [{"weapon": a.weapon, "cmb": a.cmb} if a.system == "table" else
                        {"weapon": a.weapon, "cmb": a.cmb, "system": a.system, "options": dict(a.options)}
                        for a in f.attacks],
            "acted": c.acted, "cannot_attack": _cannot_attack(c), "pending": pending(c),
            "words": [*status_words(c), *crippled_words(c)], "status_line": status_line(c),
            "death_at": f.death_at,
            # the rest of a critical (docs/fights.md, "The rest of a critical")
            "prone": n.prone, "knocked_out": n.knocked_out, "blinded": n.blinded, "useless_arm": n.useless_arm,
            "useless_leg": n.useless_leg, "dropped": list(n.dropped), "broken": list(n.broken),
            "timed_penalties": [{"penalty": p, "rounds": r} for p, r in n.timed_penalties],
            "attacks_with": arm.weapon if (arm := turn_weapon(c)) is not None else None}


def _cannot_attack(c: Combatant) -> str | None:
    """Why it may not attack now (None: it may): one without attacks never does (a door, a captive)."""
    return "has no attack" if c.up and not c.fighter.attacks else skipped(c)


@dataclass(frozen=True)
class FightState:
    """`fight show`: the fight after event ``seq``; ``version`` its log's (every write bumps it, an undo too: what a
    writer sends back to be sure no other write came between, one undone included)."""

    fight: Fight
    seq: int
    version: int = 0

    def to_json(self) -> dict[str, Any]:
        f = self.fight
        turn = whose_turn(f)
        return {"fight": f.name, "ruleset": f.ruleset, "round": f.round, "over": f.over, "winner": f.winner,
                "seq": self.seq, "version": self.version, "turn": turn.name if turn else None,
                "sides": {side: {"up": up, "total": total} for side, (up, total) in side_counts(f).items()},
                "combatants": [combatant_json(c) for c in f.combatants], "left": self.left_json()}

    def lines(self) -> list[str]:
        """A status line per combatant (after a write)."""
        width = max((len(c.name) for c in self.fight.combatants), default=0)
        return [status_line(c, width) for c in self.fight.combatants] + self.left_lines()

    def left_json(self) -> list[dict[str, Any]]:
        """Who left the fight (no longer among its combatants), in the order they left."""
        return [{"name": f.name, "side": f.side, "creature": f.creature} for f in self.fight.left]

    def left_lines(self) -> list[str]:
        left = self.fight.left
        return [f"Left the fight: {', '.join(f'{f.name} (side {f.side})' for f in left)}."] if left else []

    def shown_lines(self) -> list[str]:
        """`fight show`'s: whose turn, the sides, then a line per combatant with its side and what counts from
        the next round marked."""
        f = self.fight
        if not f.combatants:
            return []
        width = max(len(c.name) for c in f.combatants)
        side_width = max(len(c.side) for c in f.combatants)
        turn = turn_line(f)
        return [*([turn] if turn else []), sides_line(f), *(shown_line(c, width, side_width) for c in f.combatants),
                *self.left_lines()]


@dataclass(frozen=True)
class FightStep:
    """What a write did: the events' accounts, the resolved attacks, the fight after."""

    state: FightState
    account: tuple[str, ...] = ()
    attacks: tuple[dict[str, Any], ...] = ()
    parts: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()  # each event's (attack steps, account), for people
    a_round: bool = False  # a round's: its attacks (none or more) under "attacks"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.a_round:
            data["attacks"] = list(self.attacks)
        elif self.attacks:
            data["attack"] = self.attacks[0]
        data["account"] = list(self.account)
        data["fight"] = self.state.to_json()
        return data


@dataclass(frozen=True)
class FightLog:
    """`fight log`: one page of the fight's events, ``first`` on (``limit`` at most); ``next``, the first
    event of the next page (None: this page ends the log)."""

    row: store.FightRow
    logged: tuple[store.LoggedEvent, ...]  # the whole log: an event's words need the fight before it
    first: int = 1
    limit: int = LOG_PAGE

    @property
    def seq(self) -> int:
        return self.logged[-1].seq if self.logged else 0

    @cached_property
    def page(self) -> tuple[store.LoggedEvent, ...]:
        return tuple(e for e in self.logged if e.seq >= self.first)[:self.limit]

    @property
    def next(self) -> int | None:
        page = self.page
        return page[-1].seq + 1 if page and page[-1].seq < self.seq else None

    def to_json(self) -> dict[str, Any]:
        """Each event as the log keeps it, and ``words``: its account, as `fight log` prints it."""
        return {"fight": self.row.name, "ruleset": self.row.ruleset,
                "events": [{"seq": e.seq, "at": e.at, **e.data, "words": words}
                           for e, words in zip(self.page, self._words())],
                "seq": self.seq, "next": self.next}

    def lines(self) -> list[str]:
        out = []
        for logged, words in zip(self.page, self._words()):
            out.append(f"{logged.seq:>4}  {words[0] if words else logged.data['kind']}")
            out += [f"      {line}" for line in words[1:]]
        if self.next is not None:
            out.append(f"… events {self.next} to {self.seq} follow: tables fight log {self.row.name!r} --from {self.next}")
        return out

    def _words(self) -> list[list[str]]:
        """Each event's account on the page, from the fight before and after it (an attack's dice and rows
        under its line); from an event that does not replay on, its kind and why."""
        page = self.page
        if not page:
            return []
        fight, broken = replayed_as_far(self.row, self.logged, page[0].seq - 1)
        out = []
        for logged in page:
            if broken is not None:
                out.append([f"{logged.data.get('kind', 'an event')} (not replayed: the log breaks before it)"])
                continue
            try:
                event = event_of(logged.data)
                after = apply(fight, event)
            except (KeyError, TypeError, ValueError) as exc:  # FightRuleError is a ValueError
                broken = str(exc)
                out.append([f"{logged.data.get('kind', 'an event')}: does not replay ({exc}); undo back past it, "
                            "or remove the fight"])
                continue
            words = list(account(fight, event, after))
            if isinstance(event, Attack):  # what it read, under the attack's line
                words.insert(1, dice_line(event))
            out.append(words)
            fight = after
        return out


@dataclass(frozen=True)
class FightList:
    fights: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"fights": self.fights}


def step(loaded: Loaded, events: list[Event], states: list[Fight], attacks: tuple[dict[str, Any], ...] = (),
          a_round: bool = False) -> FightStep:
    """What writing ``events`` did, from the fight as ``loaded`` to ``states`` (one after each event)."""
    parts = []
    steps = iter(attacks)
    for before, event, after in zip([loaded.fight, *states], events, states):
        parts.append((tuple(next(steps)["steps"]) if isinstance(event, Attack) else (), account(before, event, after)))
    return FightStep(FightState(states[-1], loaded.seq + len(events), loaded.row.version + 1), tuple(line for _, words in parts for line in words),
                     attacks, tuple(parts), a_round)


__all__ = ["FightList", "FightLog", "FightState", "FightStep", "combatant_json"]
