"""The formula systems, by id (formula-systems.md). Adding one is a module
with a ``SYSTEM`` and a line here."""

from __future__ import annotations

from tables_app.domain.systems.base import System


def registry() -> dict[str, System]:
    from tables_app.domain.systems import d10_pool, pte, rise, worlds_awakening

    return {system.id: system for system in (rise.SYSTEM, worlds_awakening.SYSTEM, d10_pool.SYSTEM, pte.SYSTEM)}
