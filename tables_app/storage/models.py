"""Every table of the database, in one module (Alembic's env.py imports it).

Names are explicit and constraints are named by convention so that batch
migrations on SQLite can find them again. ``docs/schema.md`` describes the
tables for people who query them with ``sqlite3``.
"""

from __future__ import annotations

from sqlalchemy import CheckConstraint, MetaData, String, UniqueConstraint, false
from sqlalchemy import text as sql_text
from sqlmodel import Field, SQLModel

# SQL's `text` goes by sql_text: in the class bodies of entries and cells, `text` is their column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
SQLModel.metadata = MetaData(naming_convention=NAMING_CONVENTION)
metadata = SQLModel.metadata

OUTCOMES = ("miss", "no_damage", "hit", "critical", "fumble")  # `fumble`: a printed `F` cell
RANKS = ("normal", "heroic", "epic")
ROLL_KINDS = ("oe", "oeh", "oel", "d100")


# Names and codes are looked up in any letter case, so they are unique in any case.
NOCASE = String(collation="NOCASE")


def _in(column: str, values: tuple[str, ...]) -> str:
    # Spelled as ORs, not `IN (...)`: SQLite builds an IN list's lookup table
    # again for every row inserted, which doubled the cost of importing cells.
    return " OR ".join(f"{column} = {value!r}" for value in values)


class Workbook(SQLModel, table=True):
    """A workbook that was imported; re-importing the same file name replaces it."""

    __tablename__ = "workbook"
    id: int | None = Field(default=None, primary_key=True)
    file_name: str = Field(unique=True, sa_type=NOCASE)
    sha256: str
    imported_at: str  # ISO 8601, UTC
    size_bytes: int


DEFAULT_RULESET_ID = 1  # `default`, made by migration 0003: the bundled tables and every version-1 workbook


class Ruleset(SQLModel, table=True):
    """A namespace: names and critical codes are unique within one, and every
    reference in a workbook resolves inside its own ruleset only."""

    __tablename__ = "ruleset"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, sa_type=NOCASE)
    death_at: int | None = None  # hits left at or below which a combatant of its fights is dead; NULL: only down (0011)


class Provenance(SQLModel):
    """Where a table, weapon or creature came from, and the ruleset it is in."""

    ruleset_id: int = Field(default=DEFAULT_RULESET_ID, foreign_key="ruleset.id")
    workbook_id: int | None = Field(default=None, foreign_key="workbook.id", index=True)
    sheet: str | None = None
    source: str | None = None
    notes: str | None = None


class SeverityScale(Provenance, table=True):
    """An ordered set of critical severities. ``default`` is built in (VsD)."""

    __tablename__ = "severity_scale"
    __table_args__ = (UniqueConstraint("ruleset_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=NOCASE)


class Severity(SQLModel, table=True):
    __tablename__ = "severity"
    __table_args__ = (
        UniqueConstraint("scale_id", "code"),
        UniqueConstraint("scale_id", "name"),
        UniqueConstraint("scale_id", "position"),
    )
    id: int | None = Field(default=None, primary_key=True)
    scale_id: int = Field(foreign_key="severity_scale.id", ondelete="CASCADE")
    position: int  # 0 = lowest degree
    code: str = Field(sa_type=NOCASE)
    name: str = Field(sa_type=NOCASE)
    modifier: int


class CriticalTable(Provenance, table=True):
    __tablename__ = "critical_table"
    __table_args__ = (UniqueConstraint("ruleset_id", "name"), UniqueConstraint("ruleset_id", "code"))
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=NOCASE)
    code: str | None = Field(default=None, sa_type=NOCASE)
    scale_id: int = Field(foreign_key="severity_scale.id", index=True)
    column_choice: str = Field(default="none", sa_column_kwargs={"server_default": sql_text("'none'")})  # none, severity, attack
    roll_kind: str = Field(default="d100", sa_column_kwargs={"server_default": sql_text("'d100'")})  # d100, or oeh (0005)
    legend: str | None = None  # the book's key its entries were read with (0006); NULL: the default legend
    condition_reading: str = Field(default="also", sa_column_kwargs={"server_default": sql_text("'also'")})  # or instead (0009)


class FumbleTable(Provenance, table=True):
    __tablename__ = "fumble_table"
    __table_args__ = (UniqueConstraint("ruleset_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=NOCASE)
    column_choice: str = Field(default="none", sa_column_kwargs={"server_default": sql_text("'none'")})  # none, attack
    legend: str | None = None  # as critical_table.legend (0006)
    roll_kind: str = Field(default="d100", sa_column_kwargs={"server_default": sql_text("'d100'")})  # d100, or oeh (0006)
    condition_reading: str = Field(default="also", sa_column_kwargs={"server_default": sql_text("'also'")})  # or instead (0009)


class EntryColumns(SQLModel):
    """The row of a critical or fumble table, with its structured effects."""

    position: int
    low: int
    high: int | None = None  # NULL: open top (`146+`)
    label: str
    condition: str | None = None  # `helm` / `not helm` branches share a range
    title: str | None = None
    text: str
    hits: int = 0
    bleed: int = 0
    stun: int = 0
    penalty: int = 0
    # printed effects (0005): rounds the target must parry, of the stunned
    # rounds those without parry, the attacker's bonus, rounds to death
    # (0: at once; NULL: none), and the printed column the entry stands in
    must_parry: int = Field(default=0, sa_column_kwargs={"server_default": sql_text("0")})
    no_parry: int = Field(default=0, sa_column_kwargs={"server_default": sql_text("0")})
    attacker_bonus: int = Field(default=0, sa_column_kwargs={"server_default": sql_text("0")})
    death_in: int | None = None
    column_name: str | None = None
    # the penalty to the parry in the must-parry rounds, `(π-10)` (0006)
    parry_penalty: int = Field(default=0, sa_column_kwargs={"server_default": sql_text("0")})
    # the printed pieces not read, a JSON array of strings (0009); NULL: read whole
    unread: str | None = None
    # the rest of a critical, a JSON object of the fields it holds (0012, reader.py entry_conditions); NULL: none
    conditions: str | None = None


class CriticalEntry(EntryColumns, table=True):
    __tablename__ = "critical_entry"
    __table_args__ = (UniqueConstraint("critical_table_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    critical_table_id: int = Field(foreign_key="critical_table.id", ondelete="CASCADE")


class CriticalEffect(SQLModel, table=True):
    """One effect tag (``prone``, ``death in 3``) of a critical entry."""

    __tablename__ = "critical_effect"
    __table_args__ = (UniqueConstraint("entry_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    entry_id: int = Field(foreign_key="critical_entry.id", ondelete="CASCADE")
    position: int
    tag: str


class FumbleEntry(EntryColumns, table=True):
    __tablename__ = "fumble_entry"
    __table_args__ = (UniqueConstraint("fumble_table_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    fumble_table_id: int = Field(foreign_key="fumble_table.id", ondelete="CASCADE")


class FumbleEffect(SQLModel, table=True):
    __tablename__ = "fumble_effect"
    __table_args__ = (UniqueConstraint("entry_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    entry_id: int = Field(foreign_key="fumble_entry.id", ondelete="CASCADE")
    position: int
    tag: str


class AttackTable(Provenance, table=True):
    __tablename__ = "attack_table"
    __table_args__ = (UniqueConstraint("ruleset_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=NOCASE)
    scale_id: int = Field(foreign_key="severity_scale.id", index=True)
    automatic_miss: int | None = 10  # a modified result of this or less misses; NULL: none (every row is read)


class ArmorColumn(SQLModel, table=True):
    __tablename__ = "armor_column"
    __table_args__ = (
        UniqueConstraint("attack_table_id", "code"),
        UniqueConstraint("attack_table_id", "position"),
    )
    id: int | None = Field(default=None, primary_key=True)
    attack_table_id: int = Field(foreign_key="attack_table.id", ondelete="CASCADE")
    position: int
    code: str = Field(sa_type=NOCASE)


class AttackRow(SQLModel, table=True):
    __tablename__ = "attack_row"
    __table_args__ = (UniqueConstraint("attack_table_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    attack_table_id: int = Field(foreign_key="attack_table.id", ondelete="CASCADE")
    position: int  # 0 = lowest results
    low: int
    high: int | None = None  # NULL: open top
    label: str
    # a printed `UM 96-100` row: matched on the unmodified first die, not the result
    unmodified: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    # a printed row bounded by the weapon's Clumsy Range (domain/ranges.py, Range.clumsy):
    # `XX-33` (low 1, high 33) from the Clumsy top + 1, `UM 01-XX` (low 1, high NULL) the range itself
    clumsy: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class AttackCell(SQLModel, table=True):
    """One cell: a row × an armor column. ``text`` is the canonical notation."""

    __tablename__ = "attack_cell"
    __table_args__ = (
        UniqueConstraint("row_id", "armor_column_id"),
        CheckConstraint(_in("outcome", OUTCOMES), name="outcome"),
        CheckConstraint("hits >= 0", name="hits"),
    )
    id: int | None = Field(default=None, primary_key=True)
    row_id: int = Field(foreign_key="attack_row.id", ondelete="CASCADE")
    armor_column_id: int = Field(foreign_key="armor_column.id", ondelete="CASCADE", index=True)
    text: str
    outcome: str
    hits: int = 0
    # No index on these two: a table's cells are read through row_id, and the
    # rare delete of a severity or critical table can afford a scan; an import
    # of 90,000 cells cannot afford two more indexes to maintain.
    severity_id: int | None = Field(default=None, foreign_key="severity.id")
    critical_table_id: int | None = Field(default=None, foreign_key="critical_table.id")


class AttackCellCritical(SQLModel, table=True):
    """The second and further criticals of a cell (`36 E Heat + A Impact`);
    the first is on the cell itself."""

    __tablename__ = "attack_cell_critical"
    __table_args__ = (UniqueConstraint("cell_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    cell_id: int = Field(foreign_key="attack_cell.id", ondelete="CASCADE")
    position: int  # 1 = the cell's second critical
    severity_id: int = Field(foreign_key="severity.id")
    critical_table_id: int | None = Field(default=None, foreign_key="critical_table.id")


class Weapon(Provenance, table=True):
    __tablename__ = "weapon"
    __table_args__ = (
        UniqueConstraint("ruleset_id", "name"),
        CheckConstraint(_in("roll_kind", ROLL_KINDS), name="roll_kind"),
        CheckConstraint("clumsy BETWEEN 0 AND 100", name="clumsy"),
    )
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=NOCASE)
    attack_table_id: int = Field(foreign_key="attack_table.id", index=True)
    max_result: int | None = None  # NULL: no cap
    clumsy: int  # the Clumsy Range is 1..clumsy (0: never fumbles)
    critical_table_id: int = Field(foreign_key="critical_table.id", index=True)
    secondary_critical_table_id: int | None = Field(default=None, foreign_key="critical_table.id", index=True)
    fumble_table_id: int | None = Field(default=None, foreign_key="fumble_table.id", index=True)
    fumble_modifier: int = 0
    roll_kind: str = "oe"
    critical_column: str | None = None  # of an attack-chosen critical table (0005)
    fumble_column: str | None = None  # of a fumble table by weapon category (0005)
    max_critical: str | None = None  # the highest severity code its criticals reach (0006); NULL: no cap


class Creature(Provenance, table=True):
    __tablename__ = "creature"
    __table_args__ = (UniqueConstraint("ruleset_id", "name"), CheckConstraint(_in("rank", RANKS), name="rank"))
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=NOCASE)
    defense: int
    armor: str
    rank: str = "normal"
    hp: int | None = None


class CreatureFeature(SQLModel, table=True):
    __tablename__ = "creature_feature"
    __table_args__ = (UniqueConstraint("creature_id", "feature"),)
    id: int | None = Field(default=None, primary_key=True)
    creature_id: int = Field(foreign_key="creature.id", ondelete="CASCADE")
    feature: str = Field(sa_type=NOCASE)


class CreatureAttack(SQLModel, table=True):
    """One attack of a creature, as the bestiary prints them (`Scimitar 55;
    Bite 40`): a weapon of the creature's ruleset, by name (checked at the
    import; a fight looks it up when the creature joins), and its CMB (0007)."""

    __tablename__ = "creature_attack"
    __table_args__ = (UniqueConstraint("creature_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    creature_id: int = Field(foreign_key="creature.id", ondelete="CASCADE")
    position: int  # 0 = the first, used unless the GM names another
    weapon: str = Field(sa_type=NOCASE)
    cmb: int


FIGHT_EVENT_KINDS = ("join", "attack", "round", "edit", "adjust", "leave")  # adjust, leave: 0010


class Fight(SQLModel, table=True):
    """A fight: its name and the ruleset its combatants' weapons are looked
    up in, by name, so that a fight outlives the tables it used (0007)."""

    __tablename__ = "fight"
    # an id is never given twice: a write names the fight it read (0013); names are unique within a group (0014)
    __table_args__ = (UniqueConstraint("group_id", "name_key"), {"sqlite_autoincrement": True})
    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(default=0, sa_column_kwargs={"server_default": "0"})  # FightGroup.id; 0 the operator's (0014)
    name: str = Field(sa_type=NOCASE)
    name_key: str  # fold(name), the rule of names: which fight a name means (0013)
    version: int = 0  # bumped by every write of its log (append, undo): a writer checks the one it read (0013)
    ruleset: str | None = None  # NULL: names are looked up wherever they are
    created_at: str  # ISO 8601, UTC


class FightEvent(SQLModel, table=True):
    """One event of a fight's log, in order: ``seq`` 1, 2, ... (unique, so
    that of two writers who read the same log only the first can append);
    ``data`` the event as JSON, an attack with its dice and its whole
    resolved outcome, replayed as recorded (0007)."""

    __tablename__ = "fight_event"
    __table_args__ = (UniqueConstraint("fight_id", "seq"), CheckConstraint(_in("kind", FIGHT_EVENT_KINDS), name="kind"))
    id: int | None = Field(default=None, primary_key=True)
    fight_id: int = Field(foreign_key="fight.id", ondelete="CASCADE")
    seq: int
    kind: str
    data: str
    at: str  # ISO 8601, UTC


class Party(SQLModel, table=True):
    """A roster of combatants saved from a fight, to join another in one
    command: ``members`` their definitions as a JSON array, in join order,
    each as a join event keeps its combatant (0011)."""

    __tablename__ = "party"
    __table_args__ = (UniqueConstraint("group_id", "name_key"),)  # names unique within a group (0014)
    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(default=0, sa_column_kwargs={"server_default": "0"})  # FightGroup.id; 0 the operator's (0014)
    name: str = Field(sa_type=NOCASE)
    name_key: str  # fold(name), the rule of names (0014)
    members: str
    saved_at: str  # ISO 8601, UTC


class FightGroup(SQLModel, table=True):
    """A group sharing a server (`tables group new`): its name, unique by the
    rule of names, and the SHA-256 of its token (NULL once revoked). Its
    fights and parties are those with its id (0014)."""

    __tablename__ = "fight_group"
    __table_args__ = {"sqlite_autoincrement": True}  # a revoked group's id is never another's
    id: int | None = Field(default=None, primary_key=True)
    name: str
    name_key: str = Field(unique=True)
    token_hash: str | None = Field(default=None, unique=True)
    created_at: str  # ISO 8601, UTC


class Generation(SQLModel, table=True):
    """One row: a number every import and removal bumps in its own
    transaction, so that a server's compiled tables know they are stale
    (storage/compiled.py) and an import checked against a snapshot knows
    another one committed since (locking.py), on any database (0008)."""

    __tablename__ = "generation"
    __table_args__ = (CheckConstraint("id = 1", name="one_row"),)
    id: int | None = Field(default=None, primary_key=True)
    number: int = 0
