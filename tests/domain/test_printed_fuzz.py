"""Seeded fuzz of the printed notations: any text either reads or raises
ValueError (which the sheet layer turns into a located problem), never any
other exception; and quickly, whatever its length (bounded work)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tables_app.domain.cells import parse_attack_cell, parse_letter_definition
from tables_app.domain.branches import parse_branches
from tables_app.domain.effects import parse_effects
from tables_app.domain.ranges import parse_row_label
from tables_app.domain.severity import Severity, SeverityScale

LETTERS = SeverityScale("letters", tuple(Severity(code, code, 5 * i) for i, code in enumerate("ABCDE")))
PIECES = ["+5H", "3∑", "2∏", "2∑∏", "3∫", "(-20)", "(+10)", "dies in 6 rounds", "instant death", "With helm:", "Without helm:",
          "w/ shield:", "w/o shield:", "if leg armor:", "if not leg armor:", "If foe has helm,", "If not,", "If no helm:",
          "Without a visor,", "Otherwise,", "If foe is prone,", "No shield:", "–", "-", ".", ";", ",", "Σ", "Π", "UM", ">", "<",
          ":", "18ES", "36 EH + AK", "F", "—", "9", "99999999999999999999", "hits", "stun", "bleed", "no parry", "\n", " "]


def named(text: str) -> str | None:
    return {"s": "Slash", "k": "Krush", "h": "Heat"}.get(text.casefold())


def every_reader(text: str) -> None:
    for read in (parse_effects, parse_branches, parse_row_label,
                 lambda t: parse_attack_cell(t, LETTERS, named, {"F": (("E", "Heat"),)}),
                 lambda t: parse_letter_definition(t, LETTERS, named)):
        try:
            read(text)
        except ValueError:
            pass


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map(" ".join))
def test_printed_pieces_in_any_order_read_or_say_why(text):
    every_reader(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_reads_or_says_why(text):
    every_reader(text)


def test_long_hostile_texts_are_bounded_work():
    rng = random.Random(15)
    for size in (1_000, 10_000):
        text = " ".join(rng.choice(PIECES) for _ in range(size))
        every_reader(text)  # a regular expression that backtracks would hang here
