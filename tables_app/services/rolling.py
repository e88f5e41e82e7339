"""Where the dice of one resolution come from, and what to say when the
dice a group rolled by hand run out. Shared by every system."""

from __future__ import annotations

from tables_app.domain.dice import Dice, ForcedDice, SeededDice
from tables_app.errors import TablesError
from tables_app.services.seeds import fresh_seed


class NeedMoreDice(TablesError):
    """--dice ran out before the attack was resolved."""


def dice_source(seed: int | None, forced: tuple[int, ...] | None) -> Dice:
    """Forced dice when given, else seeded random dice (a fresh seed if none)."""
    if forced is not None:
        return ForcedDice(values=forced)
    return SeededDice(seed=seed if seed is not None else fresh_seed())


def check_enough(dice: Dice, open_ended: tuple[str, ...] = (), open_tables: tuple[str, ...] = ()) -> None:
    """Raise NeedMoreDice if forced dice ran out, naming every missing die.

    A missing die whose purpose starts with one of ``open_ended``, or is a
    roll on one of ``open_tables`` (`critical roll on Huge`: a table whose
    die opens), decides whether more dice follow, so the count is "at least".
    """
    short = shortfall(dice, open_ended, open_tables)
    if short is None:
        return
    given, missing, opens = short
    at_least = "at least " if opens else ""
    raise NeedMoreDice(
        f"--dice gave {given} {'die' if given == 1 else 'dice'}; this attack needs {at_least}{len(missing)} more: "
        + ", ".join(missing)
    )


def shortfall(dice: Dice, open_ended: tuple[str, ...] = (),
              open_tables: tuple[str, ...] = ()) -> tuple[int, list[str], bool] | None:
    """None if the dice did not run out; else how many were given, the purpose of each missing die, and
    whether the first missing one decides whether more follow (check_enough's "at least")."""
    if not isinstance(dice, ForcedDice) or not dice.missing:
        return None
    first = dice.missing[0].rsplit(" (d", 1)[0]  # the purpose, without its die
    opens = bool(open_ended and first.startswith(open_ended)) or any(first.endswith(f" roll on {name}")
                                                                     for name in open_tables)
    return len(dice.values), list(dice.missing), opens
