"""Who joins a fight (`fight join`): a combatant by hand or from the
bestiary, or a saved party's members, checked and completed as the fight
keeps them (its armor column, its ruleset's death threshold, its side)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from tables_app.domain.fights import (
    Armament, Fight, Fighter,
)
from tables_app.domain.names import fold
from tables_app.domain.tables import Rank
from tables_app.errors import NotFound, TablesError, UsageMistake
from tables_app.services.fight_log import Loaded
from tables_app.services.fight_names import COPY_NUMBER, side_named, valid_name
from tables_app.storage import fights as store
from tables_app.storage.database import Database


@dataclass(frozen=True, kw_only=True)
class Joining:
    """A combatant as `fight join` gives it: a creature of the bestiary, or by hand (each option overrides)."""

    creature: str | None = None
    hits: int | None = None
    defense: int | None = None
    armor: str | None = None
    weapon: str | None = None
    cmb: int | None = None
    label: str | None = None
    side: str | None = None
    parry: int = 0
    features: tuple[str, ...] = ()
    rank: str | None = None
    initiative: int = 0
    system: str | None = None  # a formula system's attack (services/fight_formulas.py), with its options
    options: tuple[str, ...] = ()  # KEY=VALUE, as `resolve SYSTEM` takes them
    death_at: int | None = None  # its own death threshold (else the fight's ruleset's)


# A saved party, looked up when it is needed (services/parties.py): its name and its members
PartyLookup = Callable[[], tuple[str, tuple[Fighter, ...]]]


# Joining's fields a party's members bring themselves (each with the value that means "not given")
PARTY_BRINGS = (("creature", None, "--creature"), ("hits", None, "--hits"), ("defense", None, "--def"),
                ("armor", None, "--armor"), ("weapon", None, "--weapon"), ("cmb", None, "--cmb"), ("label", None, "--as"),
                ("parry", 0, "--parry"), ("features", (), "--has"), ("rank", None, "--rank"),
                ("initiative", 0, "--initiative"), ("system", None, "--system"), ("options", (), "--option"),
                ("death_at", None, "--death-at"))


def party_alone(j: Joining) -> None:
    """A party joins as saved: a member's own option given with it is a usage mistake."""
    given = [flag for field_name, unset, flag in PARTY_BRINGS
             if (bool(getattr(j, field_name)) if unset == () else getattr(j, field_name) != unset)]  # a list is a tuple
    if given:
        raise UsageMistake(f"--party joins its members as saved: give only --side with it (not {', '.join(given)})")


def party_members(database: Database, loaded: Loaded, j: Joining, party: PartyLookup) -> list[Fighter]:
    """The saved party's members, as they will join: refused whole if any name is taken in the fight."""
    party_name, members = party()
    taken = [f.name for f in members if loaded.fight.find(f.name) is not None]
    gone = [f.name for f in members if loaded.fight.departed(f.name) is not None]  # a name that left stays taken
    if taken or gone:
        why = [f"{', '.join(names)} {verbs[len(names) > 1]} {what}" for names, verbs, what in (
            (taken, ("is", "are"), "already in the fight"), (gone, ("has", "have"), "left the fight")) if names]
        raise TablesError(f"the party {party_name!r} cannot join: {'; '.join(why)} (nothing joined)")
    side = side_named(loaded.fight, j.side) if j.side else None
    return [replace(f, side=side or f.side, armor=armor_column(database, f.armor) if f.armor else f.armor)
            for f in members]


def joined_fighter(database: Database, loaded: Loaded, j: Joining) -> Fighter:
    reader = database.reader()
    ruleset = loaded.row.ruleset
    attacks: list[Armament] = []
    if (j.weapon is None) != (j.cmb is None):
        raise UsageMistake("give --weapon and --cmb together (an attack is a weapon and its CMB)")
    if j.weapon is not None and j.cmb is not None:
        found = reader.locate("weapons", j.weapon, ruleset)
        attacks.append(Armament(found.name, j.cmb, ruleset=found.ruleset))
    if j.system is not None or j.options:
        from tables_app.services.fight_formulas import armament

        if j.weapon is not None:
            raise UsageMistake("give --weapon and --cmb, or --system and its options, not both (one attack a join)")
        attacks.append(armament(j.system, j.options))
    if j.creature:
        found = reader.locate("creatures", j.creature, ruleset)
        creature = reader.load_creature(found)
        hits = j.hits if j.hits is not None else creature.hp
        if hits is None:
            raise UsageMistake(f"the bestiary gives {creature.name} no hits: give them (--hits N)")
        for arm in creature.attacks:
            if not any(fold(a.weapon) == fold(arm.weapon) for a in attacks):
                weapon = reader.locate("weapons", arm.weapon, found.ruleset)
                attacks.append(Armament(weapon.name, arm.cmb, ruleset=weapon.ruleset))
        # numbered past every copy that joined, those who left too (a name names one combatant in the log)
        joined = (*(c.fighter for c in loaded.fight.combatants), *loaded.fight.left)
        # ... and past any name `N #k` of it, by hand too (a copy of it: combatant_named)
        numbered = [int(m.group(2)) for f in joined if (m := COPY_NUMBER.fullmatch(f.name))
                    and fold(m.group(1)) == fold(creature.name)]
        copies = max(sum(1 for f in joined if f.creature == creature.name), *numbered, 0)
        label = valid_name(j.label, "--as") if j.label else f"{creature.name} #{copies + 1}"
        side = side_named(loaded.fight, j.side) if j.side else _default_side(loaded.fight, creature=True)
        fighter = Fighter(name=label, side=side, hits=hits,
                          defense=creature.defense if j.defense is None else j.defense,
                          armor=j.armor or creature.armor, rank=Rank(j.rank) if j.rank else creature.rank,
                          features=tuple(dict.fromkeys([*creature.features, *(fold(f) for f in j.features)])),
                          parry=j.parry, attacks=tuple(attacks), creature=creature.name, initiative=j.initiative)
    else:
        armor = j.armor if j.system is None else j.armor or ""  # a formula system's combatant needs no armor column
        missing = [flag for flag, value in (("--as", j.label), ("--hits", j.hits), ("--armor", armor)) if value is None]
        if missing:
            raise UsageMistake(f"give --creature NAME, or the combatant by hand ({' and '.join(missing)} missing)")
        assert j.label is not None and j.hits is not None and armor is not None
        fighter = Fighter(name=valid_name(j.label, "--as"),
                          side=side_named(loaded.fight, j.side) if j.side else _default_side(loaded.fight, creature=False),
                          hits=j.hits, defense=j.defense or 0,
                          armor=armor, rank=Rank(j.rank) if j.rank else Rank.NORMAL,
                          features=tuple(dict.fromkeys(fold(f) for f in j.features)), parry=j.parry,
                          attacks=tuple(attacks), initiative=j.initiative)
    # Without attacks it joins all the same (a door, a captive, a fleeing villager): attacked, never attacking.
    if fighter.armor:  # a formula system's combatant may have none
        fighter = replace(fighter, armor=armor_column(database, fighter.armor))
    return replace(fighter, death_at=j.death_at if j.death_at is not None else _ruleset_death_at(database, ruleset))


def _ruleset_death_at(database: Database, ruleset: str | None) -> int | None:
    """The fight's ruleset's death threshold (`Death at`); None without a ruleset, or one without it."""
    if ruleset is None:
        return None
    try:
        return database.reader().death_at(ruleset)
    except NotFound:  # the ruleset went since the fight began: its combatants go down only
        return None


def _default_side(fight: Fight, *, creature: bool) -> str:
    """Without --side: `A` for the first combatant of the fight, then `B` for a creature and `A` by hand."""
    return "B" if creature and fight.combatants else "A"


def armor_column(database: Database, armor: str) -> str:
    """``armor`` as the tables spell it; NotFound if no attack table has that column."""
    with database.snapshot() as connection:
        codes = store.armor_codes(connection)
    spelled = {fold(code): code for code in codes}
    if fold(armor) not in spelled:
        listed = f"armor columns: {', '.join(codes)}" if len(codes) <= 30 else "see: tables show attack TABLE"
        raise NotFound.unknown(f"no attack table has an armor column {armor!r}", armor, codes, listed)
    return spelled[fold(armor)]


__all__ = ["Joining", "PARTY_BRINGS", "PartyLookup"]
