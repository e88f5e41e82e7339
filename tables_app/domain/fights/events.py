"""The events of a fight's log, and their JSON (what the database keeps).

A fight is its log: joined, attack (its dice and its whole resolved
account, with the blow it dealt), round ended, edited by hand (set, or
adjusted by so much), left. Replaying
the recorded blow, never re-rolling it, keeps a fight's past as it was
whatever happens to the tables later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tables_app.domain.fights.state import Armament, Blow, Fighter, Harm
from tables_app.domain.tables import Rank

EDITABLE = ("taken", "bleed", "stun", "no_parry", "must_parry", "penalty", "bonus", "dying", "status",
            # the rest of a critical (docs/fights.md, "The rest of a critical"): each list set whole
            "prone", "knocked_out", "blinded", "useless_arm", "useless_leg", "dropped", "broken", "timed_penalties")
# What an edit changes of who the combatant is (its Fighter) mid-fight: its DEF, its parry, the CMB of the attack
# in use (its first), the attack in use (``wield``: an Armament, put first).
ARMS_EDITABLE = ("def", "parry", "cmb", "wield")
# The relative changes of `fight adjust` (each a whole number, added; heal and damage to the hits taken).
ADJUSTABLE = ("heal", "damage", "bleed", "stun", "no_parry", "must_parry", "penalty", "bonus", "dying")


@dataclass(frozen=True)
class Join:
    fighter: Fighter


@dataclass(frozen=True)
class Attack:
    """``attacker`` attacked ``target`` with ``weapon`` (its name, or a formula
    system's id); ``cmb`` and ``defense`` as the attack used them; ``dice``
    in the order they were read; ``resolved`` the attack's whole account
    (resolve's JSON), kept for the log and never read by the rules."""

    attacker: str
    target: str
    blow: Blow
    weapon: str = ""
    cmb: int = 0
    defense: int = 0
    dice: tuple[int, ...] = ()
    resolved: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class EndRound:
    pass


@dataclass(frozen=True)
class Edit:
    """A combatant's state set by hand (healing, a ruling): ``values`` by field name (EDITABLE)."""

    combatant: str
    values: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Adjust:
    """A combatant's state changed by hand, relatively (`fight adjust`, `heal`,
    `damage`): ``deltas`` by ADJUSTABLE name, each added, the result clamped."""

    combatant: str
    deltas: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Leave:
    """A combatant leaves the fight (flees, is carried off): no longer a combatant."""

    combatant: str


Event = Join | Attack | EndRound | Edit | Adjust | Leave


# ------------------------------------------------------------------ JSON
_CRIPPLING = ("prone", "knocked_out", "blinded", "drops_weapon", "breaks_weapon", "useless_arm", "useless_leg")


def _harm_json(harm: Harm) -> dict[str, Any]:
    return {"hits": harm.hits, "bleed": harm.bleed, "stun": harm.stun, "no_parry": harm.no_parry,
            "must_parry": harm.must_parry, "penalty": harm.penalty, "death_in": harm.death_in,
            **{k: getattr(harm, k) for k in _CRIPPLING},
            "timed_penalties": [{"penalty": p, "rounds": r} for p, r in harm.timed_penalties]}


def _harm(data: dict[str, Any]) -> Harm:
    """A recorded harm; a log written before the rest of a critical was carried has none of its keys."""
    return Harm(**{k: data[k] for k in ("hits", "bleed", "stun", "no_parry", "must_parry", "penalty", "death_in")},
                **{k: data[k] for k in _CRIPPLING if k in data},
                timed_penalties=tuple(sorted((t["penalty"], t["rounds"]) for t in data.get("timed_penalties", ()))))


def _frozen(value: Any) -> Any:
    """A JSON value as an immutable one (lists as tuples): an edit's lists."""
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


def armament_json(arm: Armament) -> dict[str, Any]:
    return {"weapon": arm.weapon, "cmb": arm.cmb, "system": arm.system, "options": dict(arm.options),
            "ruleset": arm.ruleset}


def armament_of(data: dict[str, Any]) -> Armament:
    """armament_json's inverse (a repeatable option's values: a tuple, as it joined)."""
    return Armament(data["weapon"], data["cmb"], data.get("system", "table"),
                    tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in data.get("options", {}).items()),
                    data.get("ruleset"))


def fighter_json(fighter: Fighter) -> dict[str, Any]:
    """The fighter as a join event (and a party) keeps it; ``death_at`` only when it has a threshold."""
    return {"name": fighter.name, "side": fighter.side, "hits": fighter.hits, "def": fighter.defense,
            "armor": fighter.armor, "rank": fighter.rank.value, "features": list(fighter.features),
            "parry": fighter.parry, "creature": fighter.creature, "initiative": fighter.initiative,
            "attacks": [armament_json(a) for a in fighter.attacks],
            **({"death_at": fighter.death_at} if fighter.death_at is not None else {})}


def fighter_of(data: dict[str, Any]) -> Fighter:
    attacks = tuple(armament_of(a) for a in data["attacks"])
    return Fighter(name=data["name"], side=data["side"], hits=data["hits"], defense=data["def"], armor=data["armor"],
                   rank=Rank(data["rank"]), features=tuple(data["features"]), parry=data["parry"], attacks=attacks,
                   creature=data.get("creature"), initiative=data.get("initiative", 0),
                   death_at=data.get("death_at"))


def event_json(event: Event) -> dict[str, Any]:
    """The event as the log keeps it (``kind`` and its fields; the store adds ``seq``)."""
    if isinstance(event, Join):
        return {"kind": "join", "combatant": fighter_json(event.fighter)}
    if isinstance(event, Attack):
        blow = event.blow
        return {"kind": "attack", "attacker": event.attacker, "target": event.target, "weapon": event.weapon,
                "cmb": event.cmb, "def": event.defense, "dice": list(event.dice),
                "blow": {"target": _harm_json(blow.to_target), "attacker": _harm_json(blow.to_attacker),
                         "attacker_bonus": blow.attacker_bonus, "target_bonus": blow.target_bonus},
                "resolved": event.resolved}
    if isinstance(event, EndRound):
        return {"kind": "round"}
    if isinstance(event, Adjust):
        return {"kind": "adjust", "combatant": event.combatant, "by": dict(event.deltas)}
    if isinstance(event, Leave):
        return {"kind": "leave", "combatant": event.combatant}
    return {"kind": "edit", "combatant": event.combatant,
            "set": {k: armament_json(v) if k == "wield" else v for k, v in event.values}}


def event_of(data: dict[str, Any]) -> Event:
    """The event a log entry records (event_json's inverse); KeyError or ValueError if it is not one."""
    kind = data["kind"]
    if kind == "join":
        return Join(fighter_of(data["combatant"]))
    if kind == "attack":
        blow = data["blow"]
        return Attack(data["attacker"], data["target"],
                      Blow(_harm(blow["target"]), _harm(blow["attacker"]), blow["attacker_bonus"], blow["target_bonus"]),
                      data["weapon"], data["cmb"], data["def"], tuple(data["dice"]), data.get("resolved") or {})
    if kind == "round":
        return EndRound()
    if kind == "edit":
        return Edit(data["combatant"], tuple((k, armament_of(v) if k == "wield" else _frozen(v))
                                             for k, v in data["set"].items()))
    if kind == "adjust":
        return Adjust(data["combatant"], tuple(data["by"].items()))
    if kind == "leave":
        return Leave(data["combatant"])
    raise ValueError(f"no event of kind {kind!r}")
