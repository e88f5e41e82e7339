"""Critical severities: an ordered scale of degrees, each with a roll modifier."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tables_app.domain.names import fold


@dataclass(frozen=True)
class Severity:
    """One degree of a severity scale: its code (`Mod`), name and critical roll modifier."""

    code: str
    name: str
    modifier: int


@dataclass(frozen=True)
class SeverityScale:
    """Severities lowest first. Codes and names match in any spelling (domain/names.py)."""

    name: str
    levels: tuple[Severity, ...]

    # Each built on its first use, outside the dataclass's fields (equality, hashing and
    # asdict ignore them): every critical of every attack asks.
    @cached_property
    def _index(self) -> dict[str, Severity]:
        index = {fold(level.name): level for level in self.levels}
        index.update({fold(level.code): level for level in self.levels})  # codes win over names
        return index

    @cached_property
    def _degrees(self) -> dict[Severity, int]:
        return {level: at for at, level in reversed(list(enumerate(self.levels)))}

    def find(self, text: str) -> Severity | None:
        """The severity a code or name means, in any spelling (domain/names.py)."""
        return self._index.get(fold(text))

    def get(self, code: str) -> Severity:
        found = self.find(code)
        if found is None:
            raise KeyError(code)
        return found

    def degree(self, severity: Severity) -> int:
        """Its place on the scale, 0 the lowest (ValueError when not on it, as tuple.index)."""
        try:
            return self._degrees[severity]
        except KeyError:
            raise ValueError(f"{severity!r} is not on the scale {self.name!r}") from None

    def lower(self, severity: Severity, steps: int) -> Severity | None:
        """``steps`` degrees lower; None when that falls below the lowest (cancelled)."""
        degree = self.degree(severity) - max(steps, 0)
        return self.levels[degree] if degree >= 0 else None

    @property
    def max_modifier(self) -> int:
        return max((level.modifier for level in self.levels), default=0)


# docs/table-system.md, "Severity": the VsD defaults, used by workbooks that
# define no severities sheet of their own.
DEFAULT_SCALE = SeverityScale(
    "default",
    (
        Severity("Sup", "Superficial", 0),
        Severity("Lig", "Light", 10),
        Severity("Mod", "Moderate", 20),
        Severity("Gri", "Grievous", 30),
        Severity("Let", "Lethal", 50),
    ),
)

