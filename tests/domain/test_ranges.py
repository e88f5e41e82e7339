"""Ranges and coverage: docs/workbook-format.md, "Ranges"."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables_app.domain.ranges import (
    NO_BOTTOM,
    Range,
    RangeTable,
    check_coverage,
    parse_range,
    parse_row_label,
    printed_tops,
    row_label,
)


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


# Printed layouts, attack tables: "More range spellings: `01-05`, `1:5`, `>250`
# (= `251+`), `<71` (= everything below 71, first row only)."
@pytest.mark.parametrize(
    "text, expected, label",
    [
        ("01-05", Range(1, 5), "1-5"),
        ("1:5", Range(1, 5), "1-5"),
        ("01 : 05", Range(1, 5), "1-5"),
        ("66:66", Range(66, 66), "66"),
        (">250", Range(251, None), "251+"),
        ("> 250", Range(251, None), "251+"),
        ("<71", Range(NO_BOTTOM, 70), "<71"),
        ("< 71", Range(NO_BOTTOM, 70), "<71"),
        ("<01", Range(NO_BOTTOM, 0), "<1"),
    ],
)
def test_printed_range_spellings(text, expected, label):
    assert parse_range(text) == expected
    assert expected.label == label
    assert parse_range(label) == expected


@pytest.mark.parametrize(
    "text, reason",
    [
        ("5:1", "range '5:1' runs backwards (write 1-5)"),
        (">", "'>' is not a range (write 11-35, 36 or 176+)"),
        ("<", "'<' is not a range (write 11-35, 36 or 176+)"),
        ("<-5", "'<-5' is not a range (write 11-35, 36 or 176+)"),
        (">=250", "'>=250' is not a range (write 11-35, 36 or 176+)"),
        ("<71+", "'<71+' is not a range (write 11-35, 36 or 176+)"),
        ("1:5:9", "'1:5:9' is not a range (write 11-35, 36 or 176+)"),
    ],
)
def test_bad_printed_ranges_name_the_text(text, reason):
    with pytest.raises(ValueError) as caught:
        parse_range(text)
    assert str(caught.value) == reason


def test_an_open_bottom_reads_everything_below_it():
    # printed layouts: `<71` = everything below 71
    table = RangeTable([(Range(71, 100), "hit"), (parse_range("<71"), "low")])
    assert [table.lookup(n) for n in (70, 0, -500)] == [(Range(NO_BOTTOM, 70), "low")] * 3
    assert table.lookup(71) == (Range(71, 100), "hit")
    assert table.lowest == NO_BOTTOM


def test_an_open_bottom_covers_down_to_any_start():
    # printed layouts: `<71` (= everything below 71, first row only)
    rows = [Range(101, None), Range(71, 100), parse_range("<71")]
    assert check_coverage(rows, must_cover_from=11, must_cover_to=150) == []


def test_only_the_lowest_row_may_be_open_below():
    # printed layouts: `<71` ... first row only
    problems = check_coverage([parse_range("<71"), parse_range("<91"), Range(91, 100)], must_cover_from=1)
    assert [(p.message, p.rows) for p in problems] == [
        ("only the lowest row may be open below, but <71 and <91 both are", (0, 1))
    ]


def test_an_open_bottom_above_a_closed_row_overlaps_it():
    # printed layouts: `<71` (= everything below 71): a row under it reads values it already holds, and the
    # message says the rule (docs/workbook-format.md, "Ranges": only as the lowest row)
    problems = check_coverage([Range(1, 10), parse_range("<71"), Range(71, 80)], must_cover_from=1)
    assert [(p.message, p.rows) for p in problems] == [
        ("<71 and 1-10 overlap: <71 reads every value up to 70, so it must be the lowest row", (1, 0))]


def test_a_lone_open_bottom_must_still_reach_the_top():
    # printed layouts: `<71` (= everything below 71) reaches down, never up
    problems = check_coverage([parse_range("<71")], must_cover_from=11, must_cover_to=150)
    assert [(p.message, p.rows) for p in problems] == [("rows stop at 70; they must reach 150 (or end with an open top)", (0,))]


def test_rows_after_a_wide_row_are_checked_against_its_top():
    # docs "Ranges": contiguous, no overlaps; one overlap is one problem, not also a gap below the wide row's top
    problems = check_coverage([Range(1, 70), Range(5, 10), Range(71, 80)], must_cover_from=1, must_cover_to=80)
    assert [(p.message, p.rows) for p in problems] == [("1-70 and 5-10 overlap", (0, 1))]


def test_a_row_of_zero_sorts_below_an_open_top_at_zero():
    # 0 is a closed top, not "no top": `0` then `0+` overlap, the open one named last
    problems = check_coverage([Range(0, None), Range(0, 0)], must_cover_from=0)
    assert [(p.message, p.rows) for p in problems] == [("0 and 0+ overlap", (1, 0))]


# Printed layouts: "Unmodified rows: a range written `UM 96-100` or `UM 100` is
# matched against the unmodified first die."
@pytest.mark.parametrize(
    "text, expected",
    [
        ("UM 96-100", (Range(96, 100), True)),
        ("UM 100", (Range(100, 100), True)),
        ("um96-100", (Range(96, 100), True)),
        ("  Um 01:05 ", (Range(1, 5), True)),
        ("UM >95", (Range(96, None), True)),
        ("96-100", (Range(96, 100), False)),
        ("<71", (Range(NO_BOTTOM, 70), False)),
        (100, (Range(100, 100), False)),
    ],
)
def test_row_labels(text, expected):
    assert parse_row_label(text) == expected
    assert parse_row_label(row_label(*expected)) == expected


def test_canonical_row_labels():
    assert row_label(Range(96, 100), True) == "UM 96-100"
    assert row_label(Range(100, 100), True) == "UM 100"
    assert row_label(Range(251, None), False) == "251+"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("UM", "'UM' has no range after UM (write UM 96-100 or UM 100)"),
        ("um  ", "'um' has no range after UM (write UM 96-100 or UM 100)"),
        ("UM abc", "'UM abc': 'abc' is not a range (write 11-35, 36 or 176+)"),
        ("UM 100-96", "'UM 100-96': range '100-96' runs backwards (write 96-100)"),
        ("Uncommon", "'Uncommon' is not a range (write 11-35, 36 or 176+)"),
    ],
)
def test_bad_row_labels_name_the_text(text, reason):
    with pytest.raises(ValueError) as caught:
        parse_row_label(text)
    assert str(caught.value) == reason


@st.composite
def any_ranges(draw):  # type: ignore[no-untyped-def]
    """Closed, single, open-top and open-bottom ranges."""
    low = draw(st.integers(0, 400))
    kind = draw(st.sampled_from(["closed", "single", "top", "bottom"]))
    if kind == "top":
        return Range(low, None)
    if kind == "bottom":
        return Range(NO_BOTTOM, low - 1)
    return Range(low, low if kind == "single" else draw(st.integers(low, 500)))


@given(any_ranges(), st.booleans())
def test_every_label_reads_back_to_its_range(span, unmodified):
    # printed layouts: `>250` is `251+`, `1:5` is `1-5`: one canonical spelling each
    assert parse_range(span.label) == span
    assert parse_row_label(row_label(span, unmodified)) == (span, unmodified)


@pytest.mark.parametrize("written, message", [
    ("1-99999999999999999999", "range '1-99999999999999999999' goes beyond 10,000 (rolls run from 0 to 10,000)"),
    ("1" * 5_000, "range '1111111111111111111111111111111111111111'… (4,960 more characters) goes beyond 10,000 "
                  "(rolls run from 0 to 10,000)"),
    ("<99999999999999999999", "range '<99999999999999999999' goes beyond 10,000 (rolls run from 0 to 10,000)"),
    ("10001+", "range '10001+' goes beyond 10,000 (rolls run from 0 to 10,000)"),
    (10**30, "range 1000000000000000000000000000000 goes beyond 10,000 (rolls run from 0 to 10,000)"),
    ("UM 96-99999", "'UM 96-99999': range '96-99999' goes beyond 10,000 (rolls run from 0 to 10,000)"),
])
def test_rolls_are_bounded(written, message):
    # issue #17, item 2: a bound of 10^20 overflowed SQLite; 5,000 digits were int()'s own error
    with pytest.raises(ValueError) as caught:
        parse_row_label(written)
    assert str(caught.value) == message
    assert parse_range("9999-10000") == Range(9999, 10000) and parse_range(">9999") == Range(10000, None)


# -- printed tops: `-25` and `00` (docs/workbook-format.md, "Ranges") ---------------------------

@pytest.mark.parametrize("text, expected", [
    ("-25", Range(NO_BOTTOM, 25)),  # every roll up to 25, as `<26`
    ("–25", Range(NO_BOTTOM, 25)),
    ("− 25", Range(NO_BOTTOM, 25)),
    ("00", Range(100, 100)),
    ("96-00", Range(96, 100)),
    ("91 – 00", Range(91, 100)),
    ("96:00", Range(96, 100)),
    ("100", Range(100, 100)),
    ("0", Range(0, 0)),  # a single zero is still zero
])
def test_a_d100_roll_column_reads_printed_tops(text, expected):
    assert parse_range(text, rolls=True) == expected


@pytest.mark.parametrize("text, message", [
    ("00-05", "range '00-05' runs backwards"),
    ("-", "is not a range"),
    ("--25", "is not a range"),
    ("-25+", "is not a range"),
])
def test_printed_tops_are_read_only_as_printed(text, message):
    with pytest.raises(ValueError, match=message):
        parse_range(text, rolls=True)


def test_an_attack_result_keeps_00_as_zero_and_refuses_a_leading_dash():
    # a modified result runs below 0 and past 100: `00` is 0 by the leading-zero rule, `-25` is refused with its two readings
    assert parse_range("00") == Range(0, 0)
    with pytest.raises(ValueError, match=r"'-25': a Result row written with a leading dash could be the result -25 or "
                                         r"every result up to 25: write <26 \(every result up to 25\) or 01-25"):
        parse_range("-25")


def test_a_um_row_is_a_d100_face_so_00_is_100():
    assert parse_row_label("UM 96-00") == (Range(96, 100), True)
    assert parse_row_label("UM 00") == (Range(100, 100), True)
    assert parse_row_label("um 00") == (Range(100, 100), True)


# -- `Up to 10` (docs/workbook-format.md, "Ranges"), as Against the Darkmaster prints its first row ----------

@pytest.mark.parametrize("text", ["Up to 10", "up to 10", "UP TO 10", "  Up  to 010 "])
@pytest.mark.parametrize("rolls", [False, True])
def test_up_to_is_every_value_up_to_its_number(text, rolls):
    # "`Up to 10` ... every result from the lowest up to 10, the same as `<11`", in every range column
    assert parse_range(text, rolls=rolls) == Range(NO_BOTTOM, 10) == parse_range("<11")
    assert parse_range(text, rolls=rolls).label == "<11"
    assert parse_row_label(text) == (Range(NO_BOTTOM, 10), False)


def test_up_to_00_is_100_only_in_a_d100_column():
    # "`00` ... 100" in a roll column; an attack Result keeps its leading-zero reading
    assert parse_range("Up to 00", rolls=True) == Range(NO_BOTTOM, 100)
    assert parse_range("Up to 00") == Range(NO_BOTTOM, 0)


@pytest.mark.parametrize("text", ["Up to", "Up to -5", "Upto 10", "Up to 10+", "up to 5-10", "Up 10"])
def test_other_up_to_spellings_are_no_range(text):
    with pytest.raises(ValueError, match="is not a range"):
        parse_range(text)


def test_up_to_above_the_lowest_row_says_it_must_be_the_lowest():
    # "only the first row": below another row it overlaps it, and the message gives the rule
    rows = [Range(11, 15), parse_range("Up to 20"), Range(21, 30)]
    assert [(p.message, p.rows) for p in check_coverage(rows, must_cover_from=1)] == [
        ("<21 and 11-15 overlap: <21 reads every value up to 20, so it must be the lowest row", (1, 0))]
    rows = [parse_range("Up to 10"), Range(11, 15), parse_range("up to 20")]
    assert [(p.message, p.rows) for p in check_coverage(rows, must_cover_from=1)] == [
        ("only the lowest row may be open below, but <11 and <21 both are", (0, 2)),
        ("<21 and 11-15 overlap: <21 reads every value up to 20, so it must be the lowest row", (2, 1))]


# -- a roll column printed as tops (docs/workbook-format.md, "Ranges": `-25`, `-30`, ..., `00`) ---------------

def _spans(read):  # type: ignore[no-untyped-def]
    return [span.label if isinstance(span, Range) else span for span in read]


def test_a_column_of_tops_runs_each_row_from_the_row_above():
    # "each row runs from the top of the row above + 1 up to its own top": `66` is 66 alone, `00` is 100
    read = printed_tops(["-25", "-30", "-65", "66", "-70", "−99", "00"])
    assert _spans(read) == ["<26", "26-30", "31-65", "66", "67-70", "71-99", "100"]
    assert read[0] == Range(NO_BOTTOM, 25)  # the first row as `-25` always read: every roll up to 25


def test_typed_tops_read_as_written_ones():
    # a spreadsheet turns a typed -30 into the number -30, and 66 into 66
    assert _spans(printed_tops([-25, -30, 66, "–80", "00"])) == ["<26", "26-30", "31-66", "67-80", "81-100"]


def test_a_row_repeating_the_top_above_is_the_same_range():
    # the one-column layout's second branch of a range (a printed sheet refuses the repeat itself)
    assert _spans(printed_tops(["-25", "-50", "-50", "00"])) == ["<26", "26-50", "26-50", "51-100"]


@pytest.mark.parametrize("column, bad", [
    (["-25", "-30", "28", "-35"], 2),
    (["-25", "-30", "-29", "00"], 2),
    (["-25", "-90", "00", "-95"], 3),
])
def test_tops_must_rise(column, bad):
    # "a bare number that is not above the previous top is an error naming the cell"; the rows after it still read
    read = printed_tops(column)
    assert [i for i, span in enumerate(read) if isinstance(span, str)] == [bad]
    assert "in a Roll column printed as tops (-25, -30, ..., 00) each row runs from the row above's top + 1 to its own, " \
           "so tops rise: " in read[bad]
    assert isinstance(read[-1], Range) or bad == len(read) - 1


def test_a_falling_top_names_the_two_tops_and_a_typed_zero_says_why():
    assert printed_tops(["-25", "-30", "28"])[2] == (
        "'28': in a Roll column printed as tops (-25, -30, ..., 00) each row runs from the row above's top + 1 to its own, "
        "so tops rise: 28 is not above 30")
    assert printed_tops(["-25", "-99", 0])[2].endswith(
        "0 is not above 99 (a typed 00 is the number 0: type it as text, '00, or write 100)")


@pytest.mark.parametrize("column", [
    ["01-25", "-30", "00"],  # a range among them: every row is read on its own, as before
    ["00", "-99", "-70", "66", "-25"],  # descending: only ascending columns are tops (the first row is `-N`)
    ["25", "-30", "00"],  # the first row bare
    ["-25", "-", "00"],  # a lone dash is no top
    ["-25", "30+", "-35"],
    ["-25", "<31", "-35"],
    ["-25", "26", "27", "29", "28"],  # only the first dashed and not rising: each number one roll, as it always read
    [],
])
def test_columns_that_are_not_tops(column):
    assert printed_tops(column) is None


@given(st.integers(1, 60), st.permutations(range(1, 8)))
def test_a_column_that_read_before_reads_the_same(low, order):
    # "no workbook that read before reads otherwise": `-N` then the single rolls above it, in any order
    column = [f"-{low}", *(str(low + step) for step in order)]
    read = printed_tops(column)
    assert read is None or read == [parse_range(label, rolls=True) for label in column]
