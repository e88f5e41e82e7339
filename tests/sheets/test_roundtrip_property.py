"""Property (issue 7): export → import is the identity on generated tables."""

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables_app.domain.cells import AttackCell, Outcome
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.domain.tables import AttackTable, EffectTable, Entry, TableKind
from tables_app.import_model import Catalog
from tables_app.sheets.parse import interpret
from tables_app.domain.branches import parse_branches
from tables_app.domain.effects import conditions_of, has_effects, tag_conditions
from tables_app.sheets.read import read_workbook
from tables_app.sheets.values import ERROR_VALUES, clean
from tables_app.sheets.write import Export, Named, write_export

CODES = [level.code for level in DEFAULT_SCALE.levels]
# Text people type, including what a spreadsheet would take for a formula. The
# database only ever holds text as the importer normalised it (NFKC, folded
# spaces), and text that reads exactly like a spreadsheet error (#N/A) is
# refused on import (read-only openpyxl cannot tell the two apart).
TEXT = st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs")), min_size=1, max_size=30).map(
    clean).filter(lambda s: bool(s) and s.upper() not in ERROR_VALUES)
LEADING = st.sampled_from(["", "=", "+", "-", "@", "=SUM(A1)+"])


@st.composite
def spans(draw, start: int, must_reach: int | None):
    bounds, low = [], start
    while True:
        width = draw(st.integers(0, 40))
        high = low + width
        bounds.append((low, high))
        low = high + 1
        if (must_reach is None and len(bounds) >= draw(st.integers(1, 6))) or (must_reach is not None and low > must_reach):
            break
    if draw(st.booleans()):
        bounds[-1] = (bounds[-1][0], None)
    return [Range(a, b) for a, b in bounds]


cells = st.one_of(
    st.just(AttackCell(Outcome.MISS)),
    st.just(AttackCell(Outcome.NO_DAMAGE)),
    st.integers(1, 60).map(lambda n: AttackCell(Outcome.HIT, n)),
    st.tuples(st.integers(0, 60), st.sampled_from(CODES)).map(lambda t: AttackCell(Outcome.CRITICAL, t[0], t[1])),
)


@st.composite
def attack_tables(draw):
    armors = draw(st.lists(st.sampled_from(["NA", "LA", "MA", "HA", "1", "2", "Plate"]), min_size=1, max_size=4, unique=True))
    ranges = draw(spans(draw(st.integers(1, 11)), None))
    if ranges[-1].high is not None and ranges[-1].high < 11:
        ranges.append(Range(ranges[-1].high + 1, None))
    if ranges[0].low == 1 and ranges[0].high is not None and len(ranges) > 1 and draw(st.booleans()):
        ranges[0] = Range(1, ranges[0].high, clumsy=True)  # Arms Law's `XX-33` (docs/workbook-format.md, "attack")
    rows = [(r, tuple(draw(cells) for _ in armors)) for r in ranges]
    unmodified = None
    if draw(st.booleans()):  # `UM 01-XX`, F in every column
        unmodified = RangeTable([(Range(1, None, clumsy=True), tuple(AttackCell(Outcome.FUMBLE) for _ in armors))])
    return AttackTable(draw(TEXT.map(lambda s: "A " + s)), tuple(armors), RangeTable(rows), unmodified=unmodified)


def prose(text: str) -> bool:
    """Text a one-column entry holds beside its own fields: no effect, no branch in it
    (docs/workbook-format.md: the Text's effects are read and must agree with the fields)."""
    try:
        branches = parse_branches(text)
    except ValueError:
        return False
    return len(branches) == 1 and not has_effects(branches[0].effects) and not branches[0].effects.timed


PROSE = st.tuples(LEADING, TEXT).map("".join).filter(prose)


def tag_only(tag: str) -> bool:
    """An Effects tag that says no rest of a critical in its words: a tag that does (`useless leg`, `prone`) sets
    that field on import where the entry's text leaves it empty (docs/workbook-format.md), so an entry holding such a
    tag with the field empty is one no import makes, and would not come back as it went."""
    empty = conditions_of(Entry(Range(1, 1), ""))
    return tag_conditions([tag], empty) == empty


TAGS = TEXT.filter(lambda t: "," not in t).filter(tag_only)


@st.composite
def entries(draw, span: Range):
    def one(condition):
        return Entry(span, draw(PROSE), draw(st.one_of(st.none(), TEXT)), draw(st.integers(0, 30)),
                     draw(st.integers(0, 5)), draw(st.integers(0, 5)), draw(st.integers(-50, 0)),
                     tuple(draw(st.lists(TAGS, max_size=3))), condition)
    if draw(st.booleans()):
        return (one("helm"), one("not helm"))
    return (one(None),)


@st.composite
def critical_tables(draw):
    ranges = draw(spans(1, 150))
    rows = [(r, draw(entries(r))) for r in ranges]
    return EffectTable(TableKind.CRITICAL, draw(TEXT.map(lambda s: "C " + s)), RangeTable(rows), draw(st.sampled_from([None, "Q", "ZZ"])))


def round_trip(export: Export):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "generated.xlsx"
        write_export(path, export)
        return interpret(read_workbook(path), Catalog())


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(attack_tables())
def test_attack_tables_round_trip(table):
    parsed = round_trip(Export(attack=[Named(table, source="=source?", notes="@notes")]))
    assert parsed.problems == []
    back = parsed.attack_tables[0]
    assert (back.value.name, back.value.armors) == (table.name, table.armors)
    assert back.value.rows.ranges == table.rows.ranges and back.value.rows.values == table.rows.values
    assert (back.value.unmodified is None) == (table.unmodified is None)
    if table.unmodified is not None:
        assert (back.value.unmodified.ranges, back.value.unmodified.values) == (table.unmodified.ranges, table.unmodified.values)
    assert (back.source, back.notes) == ("=source?", "@notes")


@pytest.mark.slow  # ~4 s each: a workbook written and read per example (`pytest -m slow`, and CI)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(critical_tables())
def test_critical_tables_round_trip(table):
    parsed = round_trip(Export(critical=[Named(table)]))
    assert parsed.problems == []
    back = parsed.critical_tables[0].value
    assert (back.name, back.code) == (table.name, table.code)
    assert back.entries == table.entries
