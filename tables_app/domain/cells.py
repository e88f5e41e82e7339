"""Attack-table cells: `—` (or `Miss`, `Attack automatically misses`), `F`, `0`, `7`, `16 Mod`, `16Mod`, `16 moderate Cut`,
`18ES`, `36 EH + AK`, `36 E Heat + A Impact`, and extra letters (`12G`).

Lenient in notation, strict in meaning: every reading that is not exactly one
of the cell kinds raises ValueError with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from enum import StrEnum
from typing import Callable, Mapping

from tables_app.domain.bounds import ATTACK_CELL_CHARACTERS, HITS
from tables_app.domain.names import did_you_mean, fold, shown, suggest
from tables_app.domain.ranges import DASHES
from tables_app.domain.severity import SeverityScale


class Outcome(StrEnum):
    """The outcome words of docs/table-system.md, "Outcomes"."""

    FUMBLE = "fumble"
    MISS = "miss"
    INEFFECTIVE = "ineffective"
    NO_DAMAGE = "no_damage"
    HIT = "hit"
    CRITICAL = "critical"


MISS_TEXT = "\u2014"  # em dash, the canonical miss
FUMBLE_TEXT = "F"  # printed tables: the attack fumbles
# A miss as books word it (Against the Darkmaster's first row, one box across
# every armor column: `Attack automatically misses`), folded and without a
# trailing full stop. No cell with hits starts with a word, so none reads otherwise.
MISS_WORDS = frozenset({"miss", "misses", "automatic miss", "automatically misses", "attack automatically misses",
                        "attack misses"})
CRITICAL_JOINER = " + "  # between the criticals of one cell (`36 E Heat + A Impact`)
# Read with match(): anchored at the start, and `.*` runs to the end (DOTALL),
# so no `$` ever sends the engine back over the text (linear in its length).
_HITS = re.compile(r"(\d+)\s*(.*)", re.DOTALL)
_DECIMAL = re.compile(r"(\d+)\.(\d+)\Z")
# Written characters per folded character a name can take: fold composes
# (`e` and a combining accent are one `é`), at most four to one (Greek `ᾆ`).
FOLD_SLACK = 4

# One critical a cell deals: (severity code, critical table name or None = the weapon's).
Critical = tuple[str, "str | None"]


@dataclass(frozen=True)
class AttackCell:
    """One cell of an attack table, in canonical form.

    ``severity`` is a code of the table's severity scale; ``critical`` the
    name of the critical table the cell names itself (None: the weapon's).
    ``more`` holds the further criticals of a cell that deals several
    (`36 E Heat + A Impact`), each as (severity, critical); the hits go once.
    """

    outcome: Outcome
    hits: int = 0
    severity: str | None = None
    critical: str | None = None
    more: tuple[Critical, ...] = ()

    @property
    def criticals(self) -> tuple[Critical, ...]:
        """Every critical the cell deals, the first included (none without a severity)."""
        if self.severity is None:
            return ()
        return ((self.severity, self.critical), *self.more)

    @cached_property  # the same cell objects repeat across a table (and a frozen dataclass allows this)
    def text(self) -> str:
        if self.outcome is Outcome.MISS:
            return MISS_TEXT
        if self.outcome is Outcome.FUMBLE:
            return FUMBLE_TEXT
        named = CRITICAL_JOINER.join(" ".join(filter(None, pair)) for pair in self.criticals)
        return f"{self.hits} {named}" if named else str(self.hits)


def compact_text(text: str, codes: Mapping[str, str]) -> str:
    """A cell's canonical text in the printed books' compact notation:
    ``18 E Hacking + B Mauling`` → ``18ES+BK`` for the codes {Hacking: S,
    Mauling: K}; ``12 C`` (the weapon's critical) → ``12C``. A critical
    table without a code keeps its name (``18E Hacking``); a miss, a fumble
    and hits alone are as they were."""
    found = _HITS.match(text)
    if found is None or not found.group(2):
        return text
    hits, rest = found.groups()
    parts = []
    for part in rest.split(CRITICAL_JOINER):
        severity, _, name = part.partition(" ")
        parts.append(severity + (codes.get(name, f" {name}") if name else ""))
    return hits + "+".join(parts)


MISS_CELL = AttackCell(Outcome.MISS)
FUMBLE_CELL = AttackCell(Outcome.FUMBLE)

# Given a critical table's code or name, its canonical name (None: unknown).
CriticalResolver = Callable[[str], "str | None"]


# An attack sheet's extra letters (`Severity G | E Heat + A Impact`): letter → its criticals.
ExtraLetters = Mapping[str, tuple[Critical, ...]]


def parse_attack_cell(
    value: str | int,
    scale: SeverityScale,
    critical_named: CriticalResolver,
    letters: ExtraLetters | None = None,
) -> AttackCell:
    """Read one attack cell (already normalised text, or an int)."""
    if isinstance(value, int):
        return _hits_only(value)
    text = value.strip()
    if text == "":
        raise ValueError("empty cell (write a dash for a miss)")
    _check_length(text)
    if len(text) == 1 and text in DASHES:
        return MISS_CELL
    if is_miss_words(text):
        return MISS_CELL
    # A lone F fumbles even on a scale with a severity F: a severity needs hits before it.
    if fold(text) == fold(FUMBLE_TEXT):
        return FUMBLE_CELL
    if m := _DECIMAL.match(text):  # `7.0` is 7; `7.5` is no number of hits
        if m.group(2).strip("0"):
            raise ValueError(f"hits must be a whole number, not {shown(text)}")
        return _hits_only(_digits(m.group(1)))
    m = _HITS.match(text)
    if not m:
        raise ValueError(f"{shown(text)} is not a cell: write a dash, 0, hits (7) or hits and severity (16 Mod)")
    hits, rest = _digits(m.group(1)), m.group(2).strip()
    if not rest:
        return _hits_only(hits)
    folded_letters = {fold(letter): criticals for letter, criticals in (letters or {}).items()}
    first, *more = _read_criticals(text, rest, scale, critical_named, folded_letters)
    return AttackCell(Outcome.CRITICAL, hits, first[0], first[1], tuple(more))


def is_miss_words(text: str) -> bool:
    """`Miss`, `Attack automatically misses.`: MISS_WORDS in any letter case
    and spacing, with or without a trailing full stop."""
    return fold(text).removesuffix(".").rstrip() in MISS_WORDS


def parse_letter_definition(text: str, scale: SeverityScale, critical_named: CriticalResolver) -> tuple[Critical, ...]:
    """Read what an extra letter stands for, as an attack sheet's header
    writes it (`E Heat + A Impact`, `EH + AK`, `E`): its criticals, in order."""
    written = text.strip()
    if not written:
        raise ValueError("empty letter definition (write the criticals it stands for, e.g. E Heat + A Impact)")
    _check_length(written)
    return _read_criticals(written, written, scale, critical_named, {})


def check_extra_letter(letter: str, scale: SeverityScale) -> str:
    """An extra letter an attack sheet defines (`Severity G | ...`), as
    written: letters only, and beyond the scale (not one of its severities)."""
    written = letter.strip()
    if not written.isalpha():
        raise ValueError(f"extra letter {written!r} must be letters only (write Severity G | E Heat + A Impact)")
    if (severity := scale.find(written)) is not None:
        raise ValueError(f"extra letter {written!r} is already severity {severity.code} of the scale")
    return written


def _check_length(text: str) -> None:
    """A cell longer than any attack cell is refused before it is read."""
    if len(text) > ATTACK_CELL_CHARACTERS:
        raise ValueError(f"the cell holds {len(text):,} characters, more than an attack cell's {ATTACK_CELL_CHARACTERS:,} "
                         f"(it starts {text[:40]!r})")


def _digits(digits: str) -> int:
    """The hits a run of digits writes, refused beyond their bound (before
    int() meets a run of thousands of digits)."""
    significant = digits.lstrip("0")
    if len(significant) > len(str(HITS[1])) or int(digits) > HITS[1]:
        raise ValueError(f"hits {shown(significant, 20)} are more than {HITS[1]:,}")
    return int(digits)


@lru_cache(maxsize=256)
def _reach(scale: SeverityScale) -> tuple[int, int]:
    """How much of a cell a severity of ``scale`` can span: at most so many
    words, so many written characters. A cell's severity is looked for only
    that far, so reading a cell stays linear in its length."""
    keys = [fold(text) for level in scale.levels for text in (level.code, level.name)] or [""]
    return max(len(key.split()) for key in keys), FOLD_SLACK * max(len(key) for key in keys)


def _read_criticals(
    text: str, rest: str, scale: SeverityScale, critical_named: CriticalResolver, letters: dict[str, tuple[Critical, ...]]
) -> tuple[Critical, ...]:
    """The criticals ``rest`` (the cell ``text`` after its hits) names, `+` between several."""
    criticals: list[Critical] = []
    for part in (piece.strip() for piece in rest.split("+")):
        if not part:
            raise ValueError(f"{shown(text)}: a '+' with no critical beside it (write 36 E Heat + A Impact)")
        criticals.extend(_read_one(text, part, scale, critical_named, letters))
    return tuple(criticals)


def _read_one(
    text: str, part: str, scale: SeverityScale, critical_named: CriticalResolver, letters: dict[str, tuple[Critical, ...]]
) -> tuple[Critical, ...]:
    """The criticals one `+`-separated part names: a severity (and table), or an extra letter."""
    readings: set[tuple[Critical, ...]] = {(reading,) for reading in _severity_readings(part, scale, critical_named)}
    if (expansion := letters.get(fold(part))) is not None:
        if readings:  # check_extra_letter keeps a sheet from defining one
            raise ValueError(f"{shown(text)}: {shown(part)} is both a severity and an extra letter")
        return tuple(expansion)
    if not readings and letters:
        readings = set(_letter_readings(text, part, critical_named, letters))
    if not readings:
        raise ValueError(_unreadable(text, part, scale, letters))
    if len(readings) > 1:
        options = " or ".join(CRITICAL_JOINER.join(" ".join(filter(None, c)) for c in r) for r in sorted(readings, key=str))
        raise ValueError(f"{shown(text)} is ambiguous: it reads as {options}; separate them with a space")
    return readings.pop()


def _letter_readings(
    text: str, part: str, critical_named: CriticalResolver, letters: dict[str, tuple[Critical, ...]]
) -> list[tuple[Critical, ...]]:
    """An extra letter followed by a critical table (`12FG`, `12 F Grapple`),
    as printed creature tables write a letter beyond the scale: the letter's
    criticals that name no table (`Severity F | E`) are on that table."""
    words = part.split()
    longest = FOLD_SLACK * max(len(letter) for letter in letters)  # a letter is looked for only that far
    splits = ([(words[0], " ".join(words[1:]))] if len(words) > 1
              else [(part[:cut], part[cut:]) for cut in range(1, min(len(part), longest + 1))])
    found: list[tuple[Critical, ...]] = []
    for letter, tail in splits:
        expansion = letters.get(fold(letter))
        if expansion is None or (table := critical_named(tail)) is None:
            continue
        if all(named is not None for _, named in expansion):
            raise ValueError(f"{shown(text)}: extra letter {letter!r} names its own critical tables; write it without {shown(tail)}")
        found.append(tuple((severity, named if named is not None else table) for severity, named in expansion))
    return found


def _unreadable(text: str, part: str, scale: SeverityScale, letters: dict[str, tuple[Critical, ...]]) -> str:
    """Why ``part`` names no critical: compact letters (`XS`) name both readings tried."""
    codes = ", ".join(level.code for level in scale.levels)
    if letters:
        codes += "; extra letters: " + ", ".join(sorted(letter.upper() for letter in letters))
    if (cut := _compact_cut(part, scale)) is not None:
        severity, table = part[:cut], part[cut:]
        return (f"{shown(text)}: neither severity {severity!r} with critical table {shown(table)} nor severity {shown(part)} "
                f"(severities: {codes})")
    words = [level.code for level in scale.levels] + [level.name for level in scale.levels]
    first = part.split()[0]
    # A known severity followed by an unknown table (`7 Mod Ice`) needs no severity suggested.
    near = [] if scale.find(first) is not None else suggest(first, words)
    return f"{shown(text)}: unknown severity or critical table in {shown(part)}{did_you_mean(near)} (severities: {codes})"


COMPACT_CODE_LETTERS = 2  # the longest critical code a compact cell is taken to hold (`XS`, `EKr`)


def _compact_cut(part: str, scale: SeverityScale) -> int | None:
    """Where compact letters would split into severity and code, if ``part``
    looks like them: after the longest severity it starts with (`ES`,
    `ModIce`), or, on a scale of one-letter codes, after the first letter of
    a short word (`XS` on A–E); None for anything else (`Huge`), which reads
    better as an unknown word."""
    if not part.isalpha():
        return None
    starts = [cut for cut in range(1, min(len(part), _reach(scale)[1] + 1)) if scale.find(part[:cut]) is not None]
    if starts:
        return max(starts)
    one_letter_codes = all(len(level.code) == 1 for level in scale.levels)
    return 1 if one_letter_codes and 1 < len(part) <= 1 + COMPACT_CODE_LETTERS else None


def _hits_only(hits: int) -> AttackCell:
    if hits < 0:
        raise ValueError(f"hits {hits} are negative")
    if hits > HITS[1]:
        raise ValueError(f"hits {hits:,} are more than {HITS[1]:,}")
    return AttackCell(Outcome.NO_DAMAGE if hits == 0 else Outcome.HIT, hits)


def _severity_readings(
    rest: str, scale: SeverityScale, critical_named: CriticalResolver
) -> list[tuple[str, str | None]]:
    """Every (severity, critical table) split of ``rest`` that names real things."""
    readings: list[tuple[str, str | None]] = []
    words = rest.split()
    most_words, most_characters = _reach(scale)
    # With spaces: the first words name the severity, the rest the table.
    for cut in range(1, min(len(words), most_words) + 1):
        severity = scale.find(" ".join(words[:cut]))
        if severity is None:
            continue
        tail = " ".join(words[cut:])
        if not tail:
            readings.append((severity.code, None))
        elif (table := critical_named(tail)) is not None:
            readings.append((severity.code, table))
    if readings or len(words) > 1:
        return readings
    # Compact codes, Rolemaster style: `ES` = severity E on critical table S.
    for cut in range(1, min(len(rest), most_characters + 1)):
        severity = scale.find(rest[:cut])
        table = critical_named(rest[cut:])
        if severity is not None and table is not None:
            readings.append((severity.code, table))
    return readings
