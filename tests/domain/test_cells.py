"""Attack cells: docs/table-system.md "Words" and docs/workbook-format.md "attack"."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables_app.domain.cells import AttackCell, Outcome, parse_attack_cell
from tables_app.domain.severity import DEFAULT_SCALE, Severity, SeverityScale

CRITICALS = {"cut": "Cut", "s": "Cut", "grapple": "Grapple", "g": "Grapple", "fire": "Fire", "h": "Fire"}


def parse(value, scale=DEFAULT_SCALE):
    return parse_attack_cell(value, scale, lambda text: CRITICALS.get(text.casefold()))


@pytest.mark.parametrize("dash", ["—", "–", "-", "‒"])
def test_every_dash_is_a_miss(dash):
    assert parse(dash) == AttackCell(Outcome.MISS)


@pytest.mark.parametrize(
    "value, expected",
    [
        (0, AttackCell(Outcome.NO_DAMAGE)),
        ("0", AttackCell(Outcome.NO_DAMAGE)),
        (7, AttackCell(Outcome.HIT, 7)),
        ("7", AttackCell(Outcome.HIT, 7)),
        ("16 Mod", AttackCell(Outcome.CRITICAL, 16, "Mod")),
        ("16Mod", AttackCell(Outcome.CRITICAL, 16, "Mod")),
        ("16 moderate", AttackCell(Outcome.CRITICAL, 16, "Mod")),
        ("16 MOD", AttackCell(Outcome.CRITICAL, 16, "Mod")),
        ("16 Mod Cut", AttackCell(Outcome.CRITICAL, 16, "Mod", "Cut")),
        ("12 Lig grapple", AttackCell(Outcome.CRITICAL, 12, "Lig", "Grapple")),
        ("18GriH", AttackCell(Outcome.CRITICAL, 18, "Gri", "Fire")),
        ("0 Sup", AttackCell(Outcome.CRITICAL, 0, "Sup")),
    ],
)
def test_cell_notations(value, expected):
    assert parse(value) == expected


def test_rolemaster_letters():
    letters = SeverityScale("RM", tuple(Severity(c, c, m) for c, m in zip("ABCDE", (0, 5, 10, 15, 20))))
    assert parse("18ES", letters) == AttackCell(Outcome.CRITICAL, 18, "E", "Cut")
    assert parse("9 A", letters) == AttackCell(Outcome.CRITICAL, 9, "A")


@pytest.mark.parametrize(
    "value, reason",
    [
        ("", "empty cell"),
        ("x", "is not a cell"),
        ("16 Huge", "unknown severity or critical table"),
        ("16 Mod Ice", "unknown severity or critical table in 'Mod Ice' .severities"),
        ("16 Mdo", "unknown severity or critical table in 'Mdo' — did you mean 'Mod'. .severities"),
        (-3, "negative"),
    ],
)
def test_bad_cells(value, reason):
    with pytest.raises(ValueError, match=reason):
        parse(value)


def test_canonical_text():
    assert parse("16moderate").text == "16 Mod"
    assert parse("12 Lig g").text == "12 Lig Grapple"
    assert parse("–").text == "—"


@given(st.text(max_size=30))
def test_the_cell_parser_never_crashes(text):
    try:
        cell = parse(text)
    except ValueError:
        return
    assert cell.outcome in set(Outcome)
