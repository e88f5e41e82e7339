"""A writer of the printed effect notation, for tests only: it writes what
``parse_effects`` must read back (docs/workbook-format.md, "Effects as
printed"), from the legend as the docs give it, not from the reader's tables.
The product never writes effects (the export writes each entry's text)."""

from __future__ import annotations

from tables_app.domain.effects import Effects, format_death
from tables_app.domain.legend import DEFAULT_LEGEND, Legend, Meaning, is_lettered

SEPARATOR = " \u2013 "  # ` – `, as printed between effects
# The default legend (docs/workbook-format.md): +5H, 3∑, 2∑∏, 2∏, 3∫
DEFAULT_SYMBOLS = (("H", Meaning.HITS), ("\u2211\u220f", Meaning.STUN_NO_PARRY), ("\u2211", Meaning.STUN),
                   ("\u220f", Meaning.MUST_PARRY), ("\u222b", Meaning.BLEED))


def format_effects(effects: Effects, legend: Legend = DEFAULT_LEGEND) -> str:
    """The canonical printed notation of the effects in ``legend`` (without
    the prose), e.g. `+5H – 3∑ – 2∑∏ – 2∏ – 3∫ – (-20) – (+10) – dies in 6
    rounds`; "" when there are none. ValueError when the legend has no way
    to write them (the default legend has no no-parry without stun)."""
    symbols = {meaning: symbol for symbol, meaning in (DEFAULT_SYMBOLS if legend.is_default else legend.symbols)}
    both = min(effects.stun, effects.no_parry) if Meaning.STUN_NO_PARRY in symbols else 0
    stun, no_parry = effects.stun - both, effects.no_parry - both
    if no_parry and Meaning.NO_PARRY not in symbols and legend.is_default:
        raise ValueError(f"the default legend cannot write {no_parry} round(s) of no parry without stun")
    parts = [
        _written(symbols, Meaning.HITS, effects.hits, "+"),
        _written(symbols, Meaning.STUN, stun),
        _written(symbols, Meaning.STUN_NO_PARRY, both),
        _written(symbols, Meaning.NO_PARRY, no_parry),
        _written_parry(symbols, effects.must_parry, effects.parry_penalty),
        _written(symbols, Meaning.BLEED, effects.bleed),
        f"({effects.penalty})" if effects.penalty else "",
        f"(+{effects.attacker_bonus})" if effects.attacker_bonus else "",
        format_death(effects.death_in),
    ]
    return SEPARATOR.join(part for part in parts if part)


def _written(symbols: dict[Meaning, str], meaning: Meaning, count: int, sign: str = "") -> str:
    if not count:
        return ""
    if meaning in symbols:
        return f"{sign}{count}{symbols[meaning]}"
    return f"{sign}{count} {meaning.value}"


def _written_parry(symbols: dict[Meaning, str], rounds: int, penalty: int) -> str:
    if not penalty:
        return _written(symbols, Meaning.MUST_PARRY, rounds)
    symbol = symbols.get(Meaning.MUST_PARRY)
    if symbol is None or is_lettered(symbol) or not rounds:
        raise ValueError("a parry penalty is written with the legend's must-parry sign, `(π-10)`")
    return f"({'' if rounds == 1 else rounds}{symbol}{penalty})"
