"""Names in a fight (docs/fights.md, "Names"): a name as a fight's, a
combatant's, a side's and a party's are written, and which combatant a name
means (any letter case, or a creature's only numbered copy)."""

from __future__ import annotations

import re
import unicodedata

from tables_app.domain.fights import (
    Fight,
)
from tables_app.domain.fights.state import Combatant
from tables_app.domain.names import fold, is_utf8
from tables_app.errors import Ambiguous, NotFound, TablesError, UsageMistake


MAX_NAME = 200  # characters of a fight's or a combatant's name


def valid_name(text: str, what: str) -> str:
    """A name as a fight's, a combatant's, a side's and a party's are: one space between words, UTF-8, no
    control or invisible formatting character, at most MAX_NAME characters (UsageMistake otherwise)."""
    name = " ".join(text.split())
    if not name:
        raise UsageMistake(f"{what} must not be empty")
    if not is_utf8(name):
        raise TablesError(f"{what}: its bytes are not UTF-8; no name can be (type it again as text)")
    # control characters, and the invisible ones of format (Cf): a zero-width space or a bidirectional
    # override would make two names print alike, or turn the terminal's line around
    if (control := next((ch for ch in name if unicodedata.category(ch) in ("Cc", "Cf")), None)) is not None:
        kind = "control" if unicodedata.category(control) == "Cc" else "invisible formatting"
        raise UsageMistake(f"{what} holds the {kind} character U+{ord(control):04X}: type it without")
    if len(name) > MAX_NAME:
        raise UsageMistake(f"{what} is {len(name):,} characters, more than {MAX_NAME}")
    return name


def side_named(fight: Fight, given: str) -> str:
    """A side as given, a name's way (one space between words), spelled as a side of the fight already is
    when it is that side by the rule of names (`b` joins `B`)."""
    side = valid_name(given, "--side")
    key = fold(side)
    known = [*(c.side for c in fight.combatants), *(f.side for f in fight.left)]
    return next((s for s in known if fold(s) == key), side)


NUMBERED = re.compile(r"(.+) #\d+")  # a creature's copy: `Wolf #1`


COPY_NUMBER = re.compile(r"(.+) #(\d+)")  # ... and its number


LISTED = 12  # combatants named in a refusal, at most (past it: fight show lists them)


def combatant_named(fight: Fight, name: str) -> Combatant:
    """The combatant ``name`` names: its name in any letter case, or a
    creature's name when the fight has one numbered copy of it (`Wolf` is
    `Wolf #1` while it is the only one). Otherwise NotFound, saying the
    closest names (exit 1, HTTP 404), or Ambiguous, listing the copies."""
    found = fight.find(name)
    if found is not None:
        return found
    if (gone := fight.departed(name)) is not None:
        raise NotFound(f"{gone.name} has left the fight (it is no longer a combatant)")
    key = fold(name)
    copies = [c for c in fight.combatants if (m := NUMBERED.fullmatch(c.name)) and fold(m.group(1)) == key]
    if len(copies) == 1:
        return copies[0]
    if copies:
        names = [c.name for c in copies]
        raise Ambiguous(f"{name!r} is any of {len(names)} combatants: {', '.join(names)} (name one)", names)
    known = [c.name for c in fight.combatants]
    listed = ", ".join(known) if len(known) <= LISTED else f"{len(known)} of them: tables fight show lists them"
    raise NotFound.unknown(f"no combatant named {name!r} in the fight", name, known,
                           f"its combatants: {listed}" if known else "it has none yet: tables fight join")


__all__ = ["LISTED", "MAX_NAME", "NUMBERED", "combatant_named"]
