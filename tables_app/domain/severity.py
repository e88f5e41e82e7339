"""Critical severities: an ordered scale of degrees, each with a roll modifier."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

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

    def find(self, text: str) -> Severity | None:
        return _index(self).get(fold(text))

    def get(self, code: str) -> Severity:
        found = self.find(code)
        if found is None:
            raise KeyError(code)
        return found

    def degree(self, severity: Severity) -> int:
        return self.levels.index(severity)

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


@lru_cache(maxsize=256)
def _index(scale: SeverityScale) -> dict[str, Severity]:
    """Codes and names, folded, to their severity (codes win over names)."""
    index = {fold(level.name): level for level in scale.levels}
    index.update({fold(level.code): level for level in scale.levels})
    return index
