"""Attack cells: docs/table-system.md "Words" and docs/workbook-format.md "attack"."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables_app.domain.cells import (
    AttackCell,
    Outcome,
    check_extra_letter,
    parse_attack_cell,
    parse_letter_definition,
)
from tables_app.domain.severity import DEFAULT_SCALE, Severity, SeverityScale

CRITICALS = {"cut": "Cut", "s": "Cut", "grapple": "Grapple", "g": "Grapple", "fire": "Fire", "h": "Fire"}


def parse(value, scale=DEFAULT_SCALE):
    return parse_attack_cell(value, scale, lambda text: CRITICALS.get(text.casefold()))


@pytest.mark.parametrize("dash", ["—", "–", "-", "‒"])
def test_every_dash_is_a_miss(dash):
    assert parse(dash) == AttackCell(Outcome.MISS)


@pytest.mark.parametrize("words", [
    "miss", "Miss", "MISSES", "automatic miss", "Automatically misses", "Attack automatically misses",
    "Attack automatically misses.", "attack misses", "Attack Misses.", "  attack   misses .",
])
def test_a_miss_in_words_is_a_miss(words):
    # docs/workbook-format.md, "attack": the miss words (any case, an optional full stop) are a miss, written `—`
    assert parse(words) == AttackCell(Outcome.MISS)
    assert parse(words).text == "—"


@pytest.mark.parametrize("words", ["missed", "miss..", "automatic", "attack", "attack automatic miss", "5 miss",
                                   "miss 5", "no miss"])
def test_other_words_are_no_miss(words):
    # only the listed wordings: anything else stays an error naming the cell's text
    with pytest.raises(ValueError, match="is not a cell|neither|severity"):
        parse(words)


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


# Printed layouts: an invented A–E scale and invented critical tables with one-letter codes.
LETTERS_SCALE = SeverityScale("RM", tuple(Severity(c, c, m) for c, m in zip("ABCDE", (0, 5, 10, 15, 20))))
WITH_F = SeverityScale("F scale", tuple(Severity(c, c, m) for c, m in zip("ABCDEF", (0, 5, 10, 15, 20, 25))))
PRINTED = {"heat": "Heat", "h": "Heat", "impact": "Impact", "k": "Impact", "slash": "Slash", "s": "Slash",
           "cold": "Cold", "c": "Cold"}


def printed_table(text):
    return PRINTED.get(text.casefold())


def parse_printed(value, scale=LETTERS_SCALE, letters=None):
    return parse_attack_cell(value, scale, printed_table, letters)


FIRE_AND_BLOW = (("E", "Heat"), ("A", "Impact"))
EXTRA = {"G": FIRE_AND_BLOW, "h": (("D", "Cold"),), "F": (("C", None), ("B", "Slash"))}


# Printed layouts: "`F`: the attack fumbles (outcome `fumble` ...)".
@pytest.mark.parametrize("value", ["F", "f", " F "])
def test_f_fumbles(value):
    cell = parse_printed(value)
    assert cell == AttackCell(Outcome.FUMBLE)
    assert (cell.hits, cell.text, cell.criticals) == (0, "F", ())


def test_f_is_not_a_severity_on_a_scale_without_one():
    # printed layouts: `F` fumbles; on A–E `16F` names no severity
    with pytest.raises(ValueError) as caught:
        parse_printed("16F")
    assert str(caught.value) == "'16F': unknown severity or critical table in 'F' (severities: A, B, C, D, E)"


def test_a_lone_f_fumbles_even_on_a_scale_with_severity_f():
    # printed layouts: `F` fumbles; a severity needs hits before it
    assert parse_printed("F", WITH_F) == AttackCell(Outcome.FUMBLE)
    assert parse_printed("16F", WITH_F) == AttackCell(Outcome.CRITICAL, 16, "F")
    assert parse_printed("16 F Heat", WITH_F) == AttackCell(Outcome.CRITICAL, 16, "F", "Heat")


# Printed layouts: "`18ES`: 18 hits, severity E, critical code S ... `4A`: the
# weapon's table. Letters are read as severity first, code second."
@pytest.mark.parametrize(
    "value, expected",
    [
        ("18ES", AttackCell(Outcome.CRITICAL, 18, "E", "Slash")),
        ("18es", AttackCell(Outcome.CRITICAL, 18, "E", "Slash")),
        ("4A", AttackCell(Outcome.CRITICAL, 4, "A")),
        ("4 A", AttackCell(Outcome.CRITICAL, 4, "A")),
        ("9 C Cold", AttackCell(Outcome.CRITICAL, 9, "C", "Cold")),
    ],
)
def test_compact_letters(value, expected):
    assert parse_printed(value) == expected


# Printed layouts: "a cell whose letters fit neither is an error naming both readings tried".
@pytest.mark.parametrize(
    "value, reason",
    [
        ("18XS", "'18XS': neither severity 'X' with critical table 'S' nor severity 'XS' (severities: A, B, C, D, E)"),
        ("18EQ", "'18EQ': neither severity 'E' with critical table 'Q' nor severity 'EQ' (severities: A, B, C, D, E)"),
        ("18 xs", "'18 xs': neither severity 'x' with critical table 's' nor severity 'xs' (severities: A, B, C, D, E)"),
        ("7 Huge", "'7 Huge': unknown severity or critical table in 'Huge' (severities: A, B, C, D, E)"),
        ("7 E Ice", "'7 E Ice': unknown severity or critical table in 'E Ice' (severities: A, B, C, D, E)"),
    ],
)
def test_unreadable_letters_name_both_readings(value, reason):
    with pytest.raises(ValueError) as caught:
        parse_printed(value)
    assert str(caught.value) == reason


def test_compact_names_on_the_default_scale_name_both_readings():
    # printed layouts: both readings tried, in any scale: `ModIce` is Mod on table Ice, or severity ModIce
    with pytest.raises(ValueError) as caught:
        parse("7ModIce")
    assert str(caught.value) == (
        "'7ModIce': neither severity 'Mod' with critical table 'Ice' nor severity 'ModIce' "
        "(severities: Sup, Lig, Mod, Gri, Let)"
    )


# Printed layouts: "Several criticals: `36 EH + AK` or `36 E Heat + A Impact`; the hits go once."
@pytest.mark.parametrize(
    "value",
    ["36 EH + AK", "36EH+AK", "36 EH  +AK", "36 E Heat + A Impact", "36 e heat+a impact", "36 E H + A Impact"],
)
def test_several_criticals_in_one_cell(value):
    cell = parse_printed(value)
    assert cell == AttackCell(Outcome.CRITICAL, 36, "E", "Heat", (("A", "Impact"),))
    assert cell.criticals == FIRE_AND_BLOW
    assert cell.text == "36 E Heat + A Impact"


def test_several_criticals_may_use_the_weapons_table():
    # printed layouts: `4A` is the weapon's table, also beside another critical
    cell = parse_printed("20 C + B Slash + A")
    assert cell == AttackCell(Outcome.CRITICAL, 20, "C", None, (("B", "Slash"), ("A", None)))
    assert cell.text == "20 C + B Slash + A"


def test_one_critical_has_no_more():
    # docs "attack": `16 Mod Cut` is one critical; printed layouts add further ones after `+`
    assert parse("16 Mod Cut").criticals == (("Mod", "Cut"),)
    assert parse("16 Mod Cut").more == ()
    assert parse("7").criticals == ()


@pytest.mark.parametrize(
    "value, reason",
    [
        ("36 EH +", "'36 EH +': a '+' with no critical beside it (write 36 E Heat + A Impact)"),
        ("36 + AK", "'36 + AK': a '+' with no critical beside it (write 36 E Heat + A Impact)"),
        ("36 EH ++ AK", "'36 EH ++ AK': a '+' with no critical beside it (write 36 E Heat + A Impact)"),
        ("36 EH + XK", "'36 EH + XK': neither severity 'X' with critical table 'K' nor severity 'XK' (severities: A, B, C, D, E)"),
        ("36 E Heat + A Ice", "'36 E Heat + A Ice': unknown severity or critical table in 'A Ice' (severities: A, B, C, D, E)"),
    ],
)
def test_bad_several_criticals_name_the_cell(value, reason):
    # printed layouts: several criticals; bad input names the text
    with pytest.raises(ValueError) as caught:
        parse_printed(value)
    assert str(caught.value) == reason


# Printed layouts: "Printed spell tables use extra letters beyond the scale (F–J) ...
# header keys `Severity F | E Heat + A Impact` (one key per letter)."
@pytest.mark.parametrize(
    "value, expected",
    [
        ("12G", AttackCell(Outcome.CRITICAL, 12, "E", "Heat", (("A", "Impact"),))),
        ("12 g", AttackCell(Outcome.CRITICAL, 12, "E", "Heat", (("A", "Impact"),))),
        ("3H", AttackCell(Outcome.CRITICAL, 3, "D", "Cold")),
        ("16F", AttackCell(Outcome.CRITICAL, 16, "C", None, (("B", "Slash"),))),
        ("F", AttackCell(Outcome.FUMBLE)),  # a lone F still fumbles
        ("12G + B", AttackCell(Outcome.CRITICAL, 12, "E", "Heat", (("A", "Impact"), ("B", None)))),
        ("12EH", AttackCell(Outcome.CRITICAL, 12, "E", "Heat")),  # the scale still reads as before
    ],
)
def test_extra_letters_expand(value, expected):
    assert parse_printed(value, letters=EXTRA) == expected


def test_an_expanded_letter_writes_its_criticals():
    # printed layouts: extra letters stand for a combination; the canonical text spells it out
    assert parse_printed("12G", letters=EXTRA).text == "12 E Heat + A Impact"


def test_an_unknown_letter_lists_the_extra_letters():
    # printed layouts: extra letters are the sheet's header keys; a cell using another names them
    with pytest.raises(ValueError) as caught:
        parse_printed("12J", letters=EXTRA)
    assert str(caught.value) == "'12J': unknown severity or critical table in 'J' (severities: A, B, C, D, E; extra letters: F, G, H)"


# Printed creature tables write a letter beyond the scale with a table code (`12FG`): the
# letter's criticals that name no table (`Severity F | E`) are on the code's table.
@pytest.mark.parametrize(
    "value, letters, expected",
    [
        ("12FH", {"F": (("E", None),)}, AttackCell(Outcome.CRITICAL, 12, "E", "Heat")),
        ("12 F Heat", {"F": (("E", None),)}, AttackCell(Outcome.CRITICAL, 12, "E", "Heat")),
        ("12fh", {"F": (("E", None),)}, AttackCell(Outcome.CRITICAL, 12, "E", "Heat")),
        # only the parts without a table take the code's: `Severity F | C + B Slash`
        ("16FH", EXTRA, AttackCell(Outcome.CRITICAL, 16, "C", "Heat", (("B", "Slash"),))),
        ("30F", {"F": (("E", None),)}, AttackCell(Outcome.CRITICAL, 30, "E")),  # alone: the weapon's critical
    ],
)
def test_an_extra_letter_takes_a_table_code(value, letters, expected):
    assert parse_printed(value, letters=letters) == expected


def test_a_letter_that_names_its_tables_takes_no_code():
    with pytest.raises(ValueError) as caught:
        parse_printed("12GH", letters=EXTRA)
    assert str(caught.value) == "'12GH': extra letter 'G' names its own critical tables; write it without 'H'"


def test_an_extra_letter_with_an_unknown_code_names_both_readings():
    with pytest.raises(ValueError) as caught:
        parse_printed("12FX", letters={"F": (("E", None),)})
    assert str(caught.value) == "'12FX': neither severity 'F' with critical table 'X' nor severity 'FX' (severities: A, B, C, D, E; extra letters: F)"


def test_a_letter_that_is_also_a_severity_is_refused_in_the_cell():
    # printed layouts: extra letters are "beyond the scale"
    with pytest.raises(ValueError) as caught:
        parse_printed("12C", letters={"C": FIRE_AND_BLOW})
    assert str(caught.value) == "'12C': 'C' is both a severity and an extra letter"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("E Heat + A Impact", FIRE_AND_BLOW),
        ("EH + AK", FIRE_AND_BLOW),
        ("eh+ak", FIRE_AND_BLOW),
        ("E", (("E", None),)),
        ("C + B Slash", (("C", None), ("B", "Slash"))),
    ],
)
def test_letter_definitions(text, expected):
    # printed layouts: `Severity F | E Heat + A Impact`
    assert parse_letter_definition(text, LETTERS_SCALE, printed_table) == expected


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "empty letter definition (write the criticals it stands for, e.g. E Heat + A Impact)"),
        ("E Heat +", "'E Heat +': a '+' with no critical beside it (write 36 E Heat + A Impact)"),
        ("E Ice", "'E Ice': unknown severity or critical table in 'E Ice' (severities: A, B, C, D, E)"),
        ("XS", "'XS': neither severity 'X' with critical table 'S' nor severity 'XS' (severities: A, B, C, D, E)"),
        ("12 EH", "'12 EH': unknown severity or critical table in '12 EH' (severities: A, B, C, D, E)"),
    ],
)
def test_bad_letter_definitions_name_the_text(text, reason):
    with pytest.raises(ValueError) as caught:
        parse_letter_definition(text, LETTERS_SCALE, printed_table)
    assert str(caught.value) == reason


def test_extra_letters_lie_beyond_the_scale():
    # printed layouts: "extra letters beyond the scale (F–J)"
    assert check_extra_letter(" G ", LETTERS_SCALE) == "G"
    assert check_extra_letter("F", LETTERS_SCALE) == "F"
    with pytest.raises(ValueError) as caught:
        check_extra_letter("c", LETTERS_SCALE)
    assert str(caught.value) == "extra letter 'c' is already severity C of the scale"
    with pytest.raises(ValueError) as caught:
        check_extra_letter("G1", LETTERS_SCALE)
    assert str(caught.value) == "extra letter 'G1' must be letters only (write Severity G | E Heat + A Impact)"


def test_only_a_lone_f_fumbles():
    # printed layouts: `F` (the whole cell) fumbles
    with pytest.raises(ValueError) as caught:
        parse_printed("F F")
    assert str(caught.value) == "'F F' is not a cell: write a dash, 0, hits (7) or hits and severity (16 Mod)"


PRINTED_NAMES = ("Heat", "Impact", "Slash", "Cold")
printed_criticals = st.tuples(st.sampled_from("ABCDE"), st.sampled_from((None, *PRINTED_NAMES)))
default_criticals = st.tuples(st.sampled_from(["Sup", "Lig", "Mod", "Gri", "Let"]), st.sampled_from((None, "Cut", "Grapple", "Fire")))


def cells(criticals):  # type: ignore[no-untyped-def]
    """Every kind of cell: a miss, a fumble, hits, one or several criticals."""
    with_criticals = st.builds(
        lambda hits, first, more: AttackCell(Outcome.CRITICAL, hits, first[0], first[1], tuple(more)),
        st.integers(0, 300), criticals, st.lists(criticals, max_size=3),
    )
    hits = st.integers(0, 300).map(lambda n: AttackCell(Outcome.NO_DAMAGE if n == 0 else Outcome.HIT, n))
    return st.one_of(st.just(AttackCell(Outcome.MISS)), st.just(AttackCell(Outcome.FUMBLE)), hits, with_criticals)


@given(cells(printed_criticals))
def test_printed_cells_read_back_from_their_text(cell):
    # printed layouts: `36 E Heat + A Impact` is the canonical, re-readable text
    assert parse_printed(cell.text) == cell
    assert parse_printed(cell.text, letters=EXTRA) == cell


@given(cells(default_criticals))
def test_default_cells_read_back_from_their_text(cell):
    # docs "attack": `16 Mod Cut`; printed layouts: several criticals joined by `+`
    assert parse(cell.text) == cell


@given(st.text(max_size=30))
def test_the_printed_cell_parser_never_crashes(text):
    try:
        cell = parse_printed(text, letters=EXTRA)
    except ValueError:
        return
    assert parse_printed(cell.text, letters=EXTRA) == cell


# ---------------------------------------------------------------- hostile cells (issue #17, items 1 and 2)

@pytest.mark.parametrize("written", [
    "1" + "a" * 40_000,  # one word: every cut was tried as severity + critical table
    "1 " + "a " * 20_000,  # many words: every first run of words was tried as a severity
    "1 " + "A" + "a" * 40_000,  # one word after a severity's letter: a compact cell
])
@pytest.mark.parametrize("letters", [None, {"G": (("Let", None),)}])  # an extra letter splits a word as well
def test_a_long_cell_is_read_in_one_pass(monkeypatch, written, letters):
    # A 20,000-character cell took a second (4,000 of them: minutes, holding the
    # write lock): each of its n cuts looked up a critical table of up to n
    # characters. A severity is looked for only as far as the scale's longest
    # code or name reaches, so the lookups no longer grow with the cell.
    import tables_app.domain.cells as cells

    monkeypatch.setattr(cells, "ATTACK_CELL_CHARACTERS", 10**6)  # past the cap, to see the reading itself
    looked_up: list[int] = []

    def critical_named(text):  # type: ignore[no-untyped-def]
        looked_up.append(len(text))

    with pytest.raises(ValueError) as caught:
        parse_attack_cell(written, DEFAULT_SCALE, critical_named, letters)
    assert len(looked_up) <= 60
    assert len(str(caught.value)) < 600  # the cell is quoted shortened


def test_a_cell_longer_than_any_attack_cell_is_refused_unread():
    with pytest.raises(ValueError) as caught:
        parse("1" + "a" * 20_000)
    assert str(caught.value) == ("the cell holds 20,001 characters, more than an attack cell's 2,000 "
                                 "(it starts '1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')")
    assert parse("36 " + "Mod" + " " * 1_900 + "Cut") == AttackCell(Outcome.CRITICAL, 36, "Mod", "Cut")  # within it
    with pytest.raises(ValueError, match="more than an attack cell's 2,000"):
        parse_letter_definition("E " * 1_001, DEFAULT_SCALE, CRITICALS.get)


@pytest.mark.parametrize("value, message", [
    ("18446744073709551616 Mod", "hits '18446744073709551616' are more than 1,000,000"),
    ("1" * 1_500, "hits '11111111111111111111'… (1,480 more characters) are more than 1,000,000"),
    ("1" * 1_500 + ".0", "hits '11111111111111111111'… (1,480 more characters) are more than 1,000,000"),
    ("1000001", "hits '1000001' are more than 1,000,000"),
    (10**30, "hits 1,000,000,000,000,000,000,000,000,000,000 are more than 1,000,000"),
])
def test_hits_are_bounded(value, message):
    # int() of 5,000 digits is Python's own ValueError; 2^64 hits overflowed SQLite
    with pytest.raises(ValueError) as caught:
        parse(value)
    assert str(caught.value) == message
    assert parse("1000000 Mod").hits == 1_000_000
    assert parse("7." + "0" * 1_500).hits == 7
