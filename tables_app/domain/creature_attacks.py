"""A creature's attacks as a bestiary prints them: `Scimitar 55; Bite 40`
(docs/workbook-format.md, "Creatures").

Each attack is a weapon's name and its CMB, the attacks `;`-separated, the
first the creature's default. The CMB stands after the name (`Scimitar 55`,
`Scimitar +55`, `Claw -5`) or before it, as VsD and MERP bestiaries print
the bonus first (`55 Scimitar`); either way it is the one number of the
attack, so a piece reads one way only. What this reads is text: whose
weapons these are is the import's question (sheets/list_sheets.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tables_app.domain.bounds import CMB
from tables_app.domain.names import shown
from tables_app.domain.tables import CreatureAttack

SEPARATOR = ";"
_MINUS = "\u2212\u2013\u2012\u2010\u2011\ufe63\uff0d"  # a typographic minus is still a minus (sheets/values.py)
_NUMBER = re.compile(f"[+\\-{_MINUS}]?[0-9]+")
# a number where a second attack's CMB would stand, in a list run together (`Scimitar 55, Bite 40`)
_NUMBERISH = re.compile(f"[+\\-{_MINUS}]?[0-9]+[,/]?")
_GLUED_AFTER = re.compile(f"(.*[^0-9+\\-{_MINUS}])([+\\-{_MINUS}]?[0-9]+)")  # Scimitar55
_GLUED_BEFORE = re.compile(f"([+\\-{_MINUS}]?[0-9]+)([^0-9].*)")  # 55We


def split_attacks(text: str) -> list[str]:
    """The pieces of a cell, one attack each (a `;` at the end is allowed);
    ValueError for an empty piece between two."""
    pieces = [piece.strip() for piece in text.split(SEPARATOR)]
    if len(pieces) > 1 and not pieces[-1]:
        pieces.pop()
    if any(not piece for piece in pieces):
        raise ValueError(f"an empty attack between two {SEPARATOR} (write Scimitar 55{SEPARATOR} Bite 40)")
    return pieces


def parse_attack(piece: str) -> tuple[str, int]:
    """(weapon name as written, CMB) of one attack; ValueError naming the piece otherwise."""
    words = piece.split()
    numbers = [i for i, word in enumerate(words) if _NUMBERISH.fullmatch(word)]
    if not numbers:
        if (glued := _GLUED_AFTER.fullmatch(piece)) or (glued := _GLUED_BEFORE.fullmatch(piece)):
            return _fail(piece, f"put a space between the weapon and its CMB ({glued[1]} {glued[2]})")
        raise ValueError(f"{shown(piece)} has no CMB: write {piece} 55")
    if len(numbers) > 1:
        raise ValueError(f"{shown(piece)} holds {len(numbers)} numbers: an attack is one weapon and its CMB; "
                         f"separate attacks with {SEPARATOR} (Scimitar 55{SEPARATOR} Bite 40)")
    at = numbers[0]
    number = words[at]
    if len(words) == 1:
        raise ValueError(f"{shown(piece)} names no weapon: write the weapon, then its CMB (Scimitar {number})")
    if at not in (0, len(words) - 1):
        return _fail(piece, "the CMB stands before or after the weapon's name, not inside it")
    if not _NUMBER.fullmatch(number):  # `Bite 40,`: a comma where a ; belongs
        return _fail(piece, f"separate attacks with {SEPARATOR}, not {number[-1]}")
    return " ".join(words[:at] + words[at + 1:]), _cmb(piece, number)


def _cmb(piece: str, number: str) -> int:
    digits = number.lstrip(f"+-{_MINUS}").lstrip("0")
    value = int("-" + number[1:] if number[0] in _MINUS else number) if len(digits) <= len(str(CMB[1])) else CMB[1] + 1
    if not CMB[0] <= value <= CMB[1]:
        _fail(piece, f"a CMB must be between {CMB[0]:,} and {CMB[1]:,}, not {number}")
    return value


def _fail(piece: str, why: str) -> tuple[str, int]:
    raise ValueError(f"{shown(piece)}: {why}")


def attacks_text(attacks: Iterable[CreatureAttack]) -> str:
    """`Scimitar 55; Bite 40`: as a workbook's Attacks cell reads it back."""
    return f"{SEPARATOR} ".join(f"{attack.weapon} {attack.cmb}" for attack in attacks)
