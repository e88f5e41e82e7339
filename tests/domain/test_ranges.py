"""Ranges and coverage: docs/workbook-format.md, "Ranges"."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables_app.domain.ranges import Range, RangeTable, check_coverage, parse_range


@pytest.mark.parametrize(
    "text, expected",
    [
        ("11-35", Range(11, 35)),
        ("06–20", Range(6, 20)),  # en dash, leading zero
        ("06 — 20", Range(6, 20)),  # em dash with spaces
        ("1‒5", Range(1, 5)),  # figure dash
        ("36", Range(36, 36)),
        ("176+", Range(176, None)),
        ("176 +", Range(176, None)),
        (36, Range(36, 36)),
    ],
)
def test_range_notations(text, expected):
    assert parse_range(text) == expected


@pytest.mark.parametrize("text", ["", "abc", "11-", "-5", "35-11", "11-35-40", "1.5"])
def test_bad_ranges_are_refused(text):
    with pytest.raises(ValueError):
        parse_range(text)


def test_labels():
    assert [r.label for r in (Range(11, 35), Range(36, 36), Range(176, None))] == ["11-35", "36", "176+"]


def test_descending_rows_cover():
    rows = [Range(21, 30), Range(11, 20), Range(1, 10)]
    assert check_coverage(rows, must_cover_from=1, must_cover_to=30) == []


def test_gap_names_both_rows():
    problems = check_coverage([Range(1, 10), Range(12, 20)], must_cover_from=1)
    assert [(p.message, p.rows) for p in problems] == [("gap between 1-10 and 12-20: 11 is missing", (0, 1))]


def test_overlap_names_both_rows():
    problems = check_coverage([Range(1, 10), Range(10, 20)], must_cover_from=1)
    assert [(p.message, p.rows) for p in problems] == [("1-10 and 10-20 overlap", (0, 1))]


def test_open_top_must_be_last():
    problems = check_coverage([Range(1, None), Range(5, 9)], must_cover_from=1)
    assert "open top 1+ must be the highest row" in problems[0].message


def test_must_reach_the_top_unless_open():
    assert check_coverage([Range(1, 140)], must_cover_from=1, must_cover_to=150)[0].message.startswith("rows stop at 140")
    assert check_coverage([Range(1, 99), Range(100, None)], must_cover_from=1, must_cover_to=150) == []


def test_must_start_low_enough():
    assert check_coverage([Range(12, 20)], must_cover_from=11)[0].message.startswith("rows start at 12")


def test_lookup_reads_top_row_above_the_table():
    table = RangeTable([(Range(11, 20), "low"), (Range(21, 30), "high")])
    assert table.lookup(25) == (Range(21, 30), "high")
    assert table.lookup(500) == (Range(21, 30), "high")
    assert table.lookup(5) is None
    assert table.lookup(5, clamp_low=True) == (Range(11, 20), "low")
    assert table.lookup(500, clamp_high=False) is None


@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=12))
def test_any_ranges_validate_iff_every_integer_is_covered_once(pairs):
    """Property (issue 7 asks for it; cheap to pin now): valid ⇔ exact tiling."""
    ranges = [Range(min(a, b), max(a, b)) for a, b in pairs]
    low = min(r.low for r in ranges)
    high = max(r.high for r in ranges)
    counts = {n: sum(r.contains(n) for r in ranges) for n in range(low, high + 1)}
    exact = all(c == 1 for c in counts.values())
    assert (check_coverage(ranges, must_cover_from=low, must_cover_to=high) == []) == exact
    if exact:
        table = RangeTable((r, i) for i, r in enumerate(ranges))
        for n in range(low, high + 1):
            found = table.lookup(n, clamp_high=False)
            assert found is not None and found[0].contains(n)


@st.composite
def range_tables(draw):  # type: ignore[no-untyped-def]
    """Rows with gaps between them, the last closed or open."""
    lows = sorted(draw(st.sets(st.integers(-50, 200), min_size=1, max_size=8)))
    ranges = []
    for i, low in enumerate(lows):
        top = lows[i + 1] - 1 if i + 1 < len(lows) else low + 30
        high = draw(st.integers(low, top))
        ranges.append(Range(low, None if i + 1 == len(lows) and draw(st.booleans()) else high))
    return RangeTable((r, i) for i, r in enumerate(ranges))


@given(range_tables(), st.integers(-100, 260), st.integers(0, 120))
def test_counting_a_span_reads_each_value_as_a_lookup_does(table, low, width):
    """A critical or fumble die is read row by row (counts), one roll face by
    face (index): both must give every value the same row."""
    high = low + width
    by_value: dict[int, int] = {}
    for value in range(low, high + 1):
        row = table.values[table.index(value, clamp_low=True)]
        by_value[row] = by_value.get(row, 0) + 1
    assert table.counts(low, high) == [(count, row) for row, count in by_value.items()]


def test_counts_of_an_empty_span():
    assert RangeTable([(Range(1, 10), "a")]).counts(5, 4) == []
