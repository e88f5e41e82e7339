"""The kinds of named things the tables hold, and the words for them.

One list for every place that names a kind: a workbook sheet's Kind,
`tables list|show|template KIND`, import reports and messages. The order
is the order they are offered and listed in.
"""

from __future__ import annotations

KINDS = ("attack", "critical", "fumble", "weapons", "creatures", "severities")
TABLE_KINDS = ("attack", "critical", "fumble")  # the kinds that are tables (have rows)
LISTED = KINDS[:-1]  # `tables list` without a kind; severity scales are listed when asked for
SHOWN = KINDS[:-1]  # `tables show KIND NAME`: a severity scale has no page of its own

# kind → what one of them is called in sentences ("no weapon named ...")
LABELS = {
    "attack": "attack table",
    "critical": "critical table",
    "fumble": "fumble table",
    "weapons": "weapon",
    "creatures": "creature",
    "severities": "severity scale",
}
# The kinds named in the plural also take their singular on the command line.
SINGULAR = {"weapons": "weapon", "creatures": "creature", "severities": "severity"}
# any word for a kind → the kind
KIND_OF_WORD = {word: kind for kind in KINDS for word in (kind, SINGULAR.get(kind, kind))}


def label(kind: str, count: int = 1) -> str:
    """What ``count`` things of ``kind`` are called: "1 attack table", "2 weapons"."""
    word = LABELS.get(kind, kind)
    return word if count == 1 else word + "s"


def and_list(items: list[str]) -> str:
    """Items as a sentence lists them: "A", "A and B", "A, B and C"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def named_by_kind(groups: list[tuple[str, list[str]]]) -> str:
    """Names grouped by what they are, each kind said once, in the plural
    when several: "weapon Great Axe", "weapons Great Axe and Hatchet",
    "weapon Great Axe and attack table Poke" (a comma before the last kind's
    "and" when a kind already lists several: "weapons A and B, and attack table C").
    ``groups`` pairs a kind's word in the singular ("attack table") with its names."""
    said = [f"{word if len(names) == 1 else word + 's'} {and_list(names)}" for word, names in groups if names]
    if len(said) > 2 or (len(said) == 2 and any(len(names) > 1 for _, names in groups)):
        return ", ".join(said[:-1]) + ", and " + said[-1]
    return " and ".join(said)


def list_words() -> list[str]:
    """The words `tables list` takes, each plural before its singular."""
    return [word for kind in KINDS for word in dict.fromkeys((kind, SINGULAR.get(kind, kind)))]


def show_words() -> list[str]:
    """The words `tables show` takes: it shows one thing, so the singular comes first."""
    return [word for kind in SHOWN for word in dict.fromkeys((SINGULAR.get(kind, kind), kind))]
