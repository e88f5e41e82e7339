"""Groups (docs/deploy.md, "Groups"): a community server's players in
separate tables of fights. The operator makes a group and hands its token to
its game master; a request with that token sees and writes only that
group's fights and parties (names unique within a group), and may read the
tables, resolve and work out odds, but never import or remove tables (the
operator's own token, TABLES_TOKEN, does that).

A token is shown once, when it is made; the database keeps only its
SHA-256 (a token is 32 random bytes: no slow hash is needed to keep it from
being guessed back). `group token` makes a new one, the old one stopping at
once; `group revoke` leaves the group without one.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from tables_app.domain.names import fold
from tables_app.errors import NotFound, TablesError
from tables_app.services.fights import valid_name
from tables_app.storage import groups as store
from tables_app.storage.database import Database

TOKEN_PREFIX = "tg_"  # a group's token, told apart from the operator's in a log or a paste


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def _new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True)
class GroupToken:
    """A group with its new token: the only time the token is shown."""

    group: str
    token: str
    made: bool  # the group was made now (else: a new token for a group that was)

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "token": self.token, "made": self.made}

    def lines(self) -> list[str]:
        did = "Made the group" if self.made else "A new token for the group"
        return [f"{did} {self.group!r}. Its token (shown this once; give it to the group's GM):", self.token]


@dataclass(frozen=True)
class GroupList:
    groups: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"groups": self.groups}

    def lines(self) -> list[str]:
        if not self.groups:
            return ["No groups (make one: tables group new NAME)."]
        return [f"{g['group']}  ({g['fights']} fights, {g['parties']} parties"
                f"{'' if g['token'] else ', revoked: tables group token ' + g['group']})" for g in self.groups]


def _named(connection: Any, name: str) -> store.GroupRow:
    found = store.find(connection, fold(name))
    if found is None:
        known = store.names(connection)
        raise NotFound.unknown(f"no group named {name!r}", name, known,
                               f"groups: {', '.join(known)}" if known else "there are none: tables group new NAME")
    return found


def new(database: Database, name: str) -> GroupToken:
    name = valid_name(name, "a group's name")
    token = _new_token()
    with database.writing(commit=True, breaking="the groups") as connection:
        if (found := store.find(connection, fold(name))) is not None:
            raise TablesError(f"a group named {found.name!r} exists (a new token for it: tables group token {found.name})")
        store.create(connection, name, fold(name), token_hash(token))
    return GroupToken(name, token, made=True)


def new_token(database: Database, name: str) -> GroupToken:
    token = _new_token()
    with database.writing(commit=True, breaking="the groups") as connection:
        found = _named(connection, name)
        store.set_token(connection, found.id, token_hash(token))
    return GroupToken(found.name, token, made=False)


def revoke(database: Database, name: str) -> dict[str, Any]:
    with database.writing(commit=True, breaking="the groups") as connection:
        found = _named(connection, name)
        store.set_token(connection, found.id, None)
    return {"revoked": found.name}


def listing(database: Database) -> GroupList:
    with database.snapshot() as connection:
        return GroupList(store.listing(connection))


def named(database: Database, name: str) -> store.GroupRow:
    """The group named ``name`` (any letter case, by the rule of names); NotFound saying the near names."""
    with database.snapshot() as connection:
        return _named(connection, name)


def of_token(database: Database, token: str) -> store.GroupRow | None:
    """The group whose token ``token`` is (None: no group's, or revoked)."""
    with database.snapshot() as connection:
        return store.by_token(connection, token_hash(token))


__all__ = ["GroupList", "GroupToken", "listing", "named", "new", "new_token", "of_token", "revoke", "token_hash"]
