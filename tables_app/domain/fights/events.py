"""The events of a fight's log, and their JSON (what the database keeps).

A fight is its log: joined, attack (its dice and its whole resolved
account, with the blow it dealt), round ended, edited by hand. Replaying
the recorded blow, never re-rolling it, keeps a fight's past as it was
whatever happens to the tables later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tables_app.domain.fights.state import Armament, Blow, Fighter, Harm
from tables_app.domain.tables import Rank

EDITABLE = ("taken", "bleed", "stun", "no_parry", "must_parry", "penalty", "bonus", "dying", "status")


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


Event = Join | Attack | EndRound | Edit


# ------------------------------------------------------------------ JSON
def _harm_json(harm: Harm) -> dict[str, Any]:
    return {"hits": harm.hits, "bleed": harm.bleed, "stun": harm.stun, "no_parry": harm.no_parry,
            "must_parry": harm.must_parry, "penalty": harm.penalty, "death_in": harm.death_in}


def _harm(data: dict[str, Any]) -> Harm:
    return Harm(**{k: data[k] for k in ("hits", "bleed", "stun", "no_parry", "must_parry", "penalty", "death_in")})


def fighter_json(fighter: Fighter) -> dict[str, Any]:
    """The fighter as a join event (and a party) keeps it; ``death_at`` only when it has a threshold."""
    return {"name": fighter.name, "side": fighter.side, "hits": fighter.hits, "def": fighter.defense,
            "armor": fighter.armor, "rank": fighter.rank.value, "features": list(fighter.features),
            "parry": fighter.parry, "creature": fighter.creature, "initiative": fighter.initiative,
            "attacks": [{"weapon": a.weapon, "cmb": a.cmb, "system": a.system, "options": dict(a.options),
                         "ruleset": a.ruleset} for a in fighter.attacks],
            **({"death_at": fighter.death_at} if fighter.death_at is not None else {})}


def fighter_of(data: dict[str, Any]) -> Fighter:
    attacks = tuple(Armament(a["weapon"], a["cmb"], a.get("system", "table"),
                             tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in a.get("options", {}).items()),
                             a.get("ruleset"))
                    for a in data["attacks"])  # a repeatable option's values: a tuple, as it joined
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
    return {"kind": "edit", "combatant": event.combatant, "set": dict(event.values)}


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
        return Edit(data["combatant"], tuple(data["set"].items()))
    raise ValueError(f"no event of kind {kind!r}")
