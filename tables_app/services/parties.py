"""Parties (docs/fights.md, "Parties"): a roster of combatants' definitions
saved from a fight, in the database, and joined to another fight in one
command (services/fights.join with ``party``). A member is its Fighter (name,
side, hits, DEF, armor, rank, features, parry, attacks, initiative, death
threshold), never its state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tables_app.domain.fights import Fighter, Join, event_of
from tables_app.domain.fights.events import fighter_json, fighter_of
from tables_app.domain.names import fold, suggest
from tables_app.errors import NotFound, TablesError, UsageMistake
from tables_app.services.fights import Loaded, load, valid_name
from tables_app.storage import parties as store
from tables_app.storage.database import Database

MAX_MEMBERS = 100  # members of one party: a band, not an army (each joins as an event of the fight)


@dataclass(frozen=True)
class Party:
    name: str
    members: tuple[Fighter, ...]
    saved_at: str

    def to_json(self) -> dict[str, Any]:
        return {"party": self.name, "saved_at": self.saved_at, "members": [fighter_json(f) for f in self.members]}

    def lines(self) -> list[str]:
        """`Heroes: 2 members (saved ...)`, then a line per member: `Hero (side A): 50 hits, DEF 20, ...`."""
        out = [f"{self.name}: {_members(len(self.members))} (saved {self.saved_at})"]
        for f in self.members:
            armor = f", armor {f.armor}" if f.armor else ""
            parry = f", parry {f.parry}" if f.parry else ""
            death = f", dead at {f.death_at}" if f.death_at is not None else ""
            arms = "; ".join(f"{a.weapon} {a.cmb}" for a in f.attacks)
            out.append(f"  {f.name} (side {f.side}): {f.hits} hits, DEF {f.defense}{armor}{parry}{death}; {arms}")
        return out


@dataclass(frozen=True)
class PartySaved:
    party: Party
    fight: str
    replaced: bool

    def to_json(self) -> dict[str, Any]:
        return {**self.party.to_json(), "from": self.fight, "replaced": self.replaced}

    def lines(self) -> list[str]:
        names = ", ".join(f.name for f in self.party.members)
        verb = "Replaced" if self.replaced else "Saved"
        return [f"{verb} the party {self.party.name!r} from the fight {self.fight!r}: {names}."]


@dataclass(frozen=True)
class PartyList:
    parties: tuple[Party, ...]

    def to_json(self) -> dict[str, Any]:
        return {"parties": [{"name": p.name, "members": [f.name for f in p.members], "saved_at": p.saved_at}
                            for p in self.parties]}

    def lines(self) -> list[str]:
        if not self.parties:
            return ["No parties (save one: tables fight party save PARTY --from FIGHT)."]
        return [f"{p.name}  ({_members(len(p.members))}: {', '.join(f.name for f in p.members)})" for p in self.parties]


def _members(n: int) -> str:
    return f"{n} member{'' if n == 1 else 's'}"


def _party(row: store.PartyRow) -> Party:
    return Party(row.name, tuple(fighter_of(m) for m in row.members), row.saved_at)


def find(database: Database, name: str) -> Party:
    """The party named ``name`` (by the rule of names) of the database's group; NotFound with the closest names."""
    with database.snapshot() as connection:
        row = store.find(connection, name, database.group)
        known = store.names(connection, database.group) if row is None else []
    if row is None:
        raise NotFound.unknown(f"no party named {name!r}", name, known,
                               f"parties: {', '.join(known)}" if known else
                               "there are none: tables fight party save PARTY --from FIGHT")
    try:
        return _party(row)
    except (KeyError, TypeError, ValueError) as exc:  # its JSON changed by hand
        raise TablesError(f"party {row.name!r}: its members do not read ({exc}); remove it and save it again") from None


def _joined_order(loaded: Loaded) -> list[Fighter]:
    """The fight's combatants as they joined (the log's order), each as its Fighter."""
    fighters = []
    for logged in loaded.logged:
        event = event_of(logged.data)
        if isinstance(event, Join):
            fighters.append(event.fighter)
    return fighters


def save(database: Database, name: str, fight: str, only: tuple[str, ...] = (), replace: bool = False) -> PartySaved:
    """Save the combatants of ``fight`` (those ``only`` names, when given) as the party ``name``."""
    name = valid_name(name, "a party's name")
    loaded = load(database, fight)
    fighters = _joined_order(loaded)
    if only:
        by_name = {fold(f.name): f for f in fighters}
        missing = [n for n in only if fold(n) not in by_name]
        if missing:
            raise NotFound(f"no combatant named {missing[0]!r} in the fight {loaded.row.name!r}",
                           suggest(missing[0], [f.name for f in fighters]))
        wanted = {fold(n) for n in only}
        fighters = [f for f in fighters if fold(f.name) in wanted]
    if not fighters:
        raise TablesError(f"the fight {loaded.row.name!r} has no combatants to save (tables fight join ...)")
    if len(fighters) > MAX_MEMBERS:
        raise UsageMistake(f"a party holds at most {MAX_MEMBERS} members, not {len(fighters)}: save fewer (--only NAME)")
    with database.writing(commit=True, breaking="a party") as connection:
        found = store.find(connection, name, database.group)
        if found is not None and not replace:
            raise TablesError(f"a party named {found.name!r} exists (see it: tables fight party show {found.name!r}; "
                              "save over it with --replace)")
        store.save(connection, name, [fighter_json(f) for f in fighters], database.group)
        saved = store.find(connection, name, database.group)
    assert saved is not None
    return PartySaved(_party(saved), loaded.row.name, found is not None)


def listing(database: Database) -> PartyList:
    with database.snapshot() as connection:
        rows = store.listing(connection, database.group)
    return PartyList(tuple(_party(row) for row in rows))


def remove(database: Database, name: str) -> dict[str, Any]:
    party = find(database, name)
    with database.writing(commit=True, breaking="a party") as connection:
        store.delete(connection, party.name, database.group)
    return {"removed": party.name, "members": len(party.members)}


__all__ = ["Party", "PartyList", "PartySaved", "find", "listing", "remove", "save"]
