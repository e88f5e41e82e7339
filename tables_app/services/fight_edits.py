"""The moves by hand (`fight edit`): what a GM re-arms (DEF, parry, the
weapon in hand and its CMB) and the rest of a critical set or taken back
(prone, knocked out, a dropped or broken weapon, penalties for N rounds),
as the edit events the rules apply."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from tables_app.domain.fights import (
    Armament, Fight,
)
from tables_app.domain.fights.state import Combatant
from tables_app.domain.names import fold
from tables_app.errors import NotFound, TablesError, UsageMistake
from tables_app.storage.database import Database


@dataclass(frozen=True, kw_only=True)
class Rearming:
    """What `fight edit` changes of who a combatant is: its DEF, its parry, the
    attack in use (``wield``: one of its attacks, or a weapon of the armory)
    and that attack's CMB (None: unchanged)."""

    defense: int | None = None
    parry: int | None = None
    cmb: int | None = None
    wield: str | None = None

    def __bool__(self) -> bool:
        return any(v is not None for v in (self.defense, self.parry, self.cmb, self.wield))


NOT_REARMED = Rearming()  # an edit that re-arms nothing


def rearmed(database: Database, fight: Fight, c: Combatant, r: Rearming) -> tuple[tuple[str, Any], ...]:
    """The edit's values of ``r``: ``def``, ``parry``, and the attack in use as the Armament it becomes
    (``wield``, its CMB in), or only its new ``cmb``; the log keeps them so (a replay looks nothing up)."""
    values: list[tuple[str, Any]] = [(k, v) for k, v in (("def", r.defense), ("parry", r.parry)) if v is not None]
    if r.wield is not None:
        arm = next((a for a in c.fighter.attacks if fold(a.weapon) == fold(r.wield)), None)
        if arm is None:  # a weapon of the armory, looked up as join looks it up
            found = database.reader().locate("weapons", r.wield, fight.ruleset)
            if r.cmb is None:
                raise UsageMistake(f"{c.name} has no attack {found.name!r}: give its CMB too "
                                   f"(--wield {found.name!r} --cmb N)")
            arm = Armament(found.name, r.cmb, ruleset=found.ruleset)
        values.append(("wield", _with_cmb(c, arm, r.cmb)))
    elif r.cmb is not None:
        if not c.fighter.attacks:
            raise TablesError(f"{c.name} has no attack to set the CMB of (give one: --wield WEAPON --cmb N)")
        _with_cmb(c, c.fighter.attacks[0], r.cmb)
        values.append(("cmb", r.cmb))
    return tuple(values)


def _with_cmb(c: Combatant, arm: Armament, cmb: int | None) -> Armament:
    if cmb is None:
        return arm
    if arm.system != "table":  # its bonus is its options' (fight join --option)
        raise TablesError(f"{c.name}'s {arm.weapon} attack is a formula system's: its bonus is set by its options, "
                          "not --cmb (--cmb sets an attack's on the tables)")
    return replace(arm, cmb=cmb)


CRIPPLING_KEYS = ("prone", "knocked_out", "blinded", "useless_arm", "useless_leg", "drop", "breaks", "recover", "repair",
                  "timed_penalties")


MAX_TIMED_PENALTIES = 50  # penalties for a time set at once: far past any table's


def crippled_edits(c: Combatant, given: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """`fight edit`'s options for the rest of a critical as the values the edit sets (events.EDITABLE):
    `--out` read, `--arm`/`--leg` as true or false, the weapons dropped and broken as whole lists worked out from
    what ``c`` carries now, the penalties for a time as (penalty, rounds)."""
    edits: list[tuple[str, Any]] = []
    for key in ("prone", "blinded"):
        if given.get(key) is not None:
            edits.append((key, given[key]))
    if given.get("knocked_out") is not None:
        edits.append(("knocked_out", _out(given["knocked_out"])))
    for key in ("useless_arm", "useless_leg"):
        if given.get(key) is not None:
            edits.append((key, given[key] == "useless"))
    dropped, broken = list(c.now.dropped), list(c.now.broken)
    for weapon in map(lambda w: _own_attack(c, w), given.get("drop") or ()):
        if weapon not in broken and weapon not in dropped:
            dropped.append(weapon)
    for weapon in map(lambda w: _own_attack(c, w), given.get("breaks") or ()):
        dropped = [w for w in dropped if w != weapon]
        broken += [weapon] if weapon not in broken else []
    dropped = _taken_back(c, dropped, broken, given.get("recover") or (), "dropped", "--repair")
    broken = _taken_back(c, broken, dropped, given.get("repair") or (), "broken", "--recover")
    if dropped != list(c.now.dropped):
        edits.append(("dropped", tuple(dropped)))
    if broken != list(c.now.broken):
        edits.append(("broken", tuple(broken)))
    if given.get("timed_penalties"):
        edits.append(("timed_penalties", _timed_penalties(given["timed_penalties"])))
    return tuple(edits)


def _out(text: str) -> int | None:
    """`--out N` (rounds; 0 wakes it: None) or `until-woken` (0)."""
    word = text.strip().lower()
    if word in ("until-woken", "until woken"):
        return 0
    if not (word.isascii() and word.isdigit()) or len(word) > 6 or int(word) > 100_000:
        raise UsageMistake(f"--out {text}: give the rounds knocked out (0 to 100000; 0 wakes it) or until-woken")
    return int(word) or None


def _own_attack(c: Combatant, weapon: str) -> str:
    """One of ``c``'s attacks, as it spells it; NotFound with the closest."""
    for arm in c.fighter.attacks:
        if fold(arm.weapon) == fold(weapon):
            return arm.weapon
    known = [a.weapon for a in c.fighter.attacks]
    raise NotFound.unknown(f"{c.name} has no attack {weapon!r}", weapon, known, f"its attacks: {', '.join(known)}")


def _taken_back(c: Combatant, lost: list[str], other: list[str], named: tuple[str, ...], word: str,
                other_option: str) -> list[str]:
    """``lost`` without the weapons ``named`` (`all`: every one); a weapon named that is not ``word`` is refused."""
    for weapon in named:
        if fold(weapon) == "all":
            lost = []
            continue
        own = _own_attack(c, weapon)
        if own not in lost:
            how = f" (it is {'broken' if word == 'dropped' else 'dropped'}: {other_option} {own})" if own in other else ""
            raise TablesError(f"{c.name}'s {own} is not {word}{how}")
        lost = [w for w in lost if w != own]
    return lost


def _timed_penalties(texts: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """`--timed-penalty -20:3` (repeatable) as (penalty, rounds) pairs; `none` alone clears them."""
    if [t.strip().lower() for t in texts] == ["none"]:
        return ()
    if len(texts) > MAX_TIMED_PENALTIES:
        raise UsageMistake(f"--timed-penalty: at most {MAX_TIMED_PENALTIES} penalties, not {len(texts)}")
    pairs = []
    for text in texts:
        penalty, colon, rounds = text.strip().partition(":")
        try:
            pair = (int(penalty), int(rounds)) if colon else None
        except ValueError:
            pair = None
        if pair is None or not -100_000 <= pair[0] <= -1 or not 1 <= pair[1] <= 100_000:
            raise UsageMistake(f"--timed-penalty {text}: write PENALTY:ROUNDS, the penalty -1 to -100000 and the rounds "
                               "1 to 100000 (-20:3), or none")
        pairs.append(pair)
    return tuple(sorted(pairs))


__all__ = ["NOT_REARMED", "CRIPPLING_KEYS", "MAX_TIMED_PENALTIES", "Rearming", "crippled_edits"]
