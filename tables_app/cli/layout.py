"""Laying text out for the width it is printed at (render.py's toolbox).

Tables whose columns would be squeezed below their longest word (or name)
become blocks of text, wide grids split into column groups, and text wraps
at spaces: no word is ever cut to ``…`` and no line ends in padding.

A name's words are joined by JOIN (cli/unbroken.py), a space no line breaks
at: lines break between names, and inside one only when it alone is wider
than the room it has (then at its spaces). JOIN is printed as a space.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Iterable, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from tables_app.cli.unbroken import JOIN, spaced

Column = tuple[str, Sequence[str | Text]]  # a header and its cells, top to bottom

PIPED_WIDTH = 100  # piped without COLUMNS: a width most readers' windows show whole
NARROWEST = 20  # below this nothing is readable anyway


def console() -> Console:
    """The console of every human output: a terminal's own width, or when
    piped the width in COLUMNS (else PIPED_WIDTH), plain text either way
    rich decides colour (none when piped)."""
    return Console(highlight=False, width=None if sys.stdout.isatty() else piped_width())


def output_width() -> int:
    """The width plain lines are wrapped at: the terminal's, else as piped."""
    import shutil

    return shutil.get_terminal_size().columns if sys.stdout.isatty() else piped_width()


def _breakable_where_too_wide(text: str, room: int) -> str:
    """``text`` with the names wider than ``room`` (with what sticks to them:
    ``(Name,``) made breakable at their spaces."""
    return " ".join(word.replace(JOIN, " ") if cell_len(word) > room else word for word in text.split(" "))


def plain_lines(line: str, indent: str = "  ") -> str:
    """One message line wrapped at spaces for the output width, its
    continuation lines indented (words are never cut; names, see JOIN,
    are broken only when wider than a continuation line)."""
    import textwrap

    width = output_width()
    subsequent = indent + " " * (len(line) - len(line.lstrip(" ")))
    line = _breakable_where_too_wide(line, max(width - len(subsequent), 1))
    return spaced(textwrap.fill(line, width, subsequent_indent=subsequent, break_long_words=False, break_on_hyphens=False))


def name_lines(text: str, width: int) -> list[str]:
    """``text`` wrapped at spaces to ``width``, names (JOIN) kept whole
    unless wider than ``width``; a word wider than ``width`` folds."""
    from rich.cells import chop_cells

    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in _breakable_where_too_wide(paragraph, width).split():
            for piece in chop_cells(spaced(word), width) if cell_len(word) > width else [spaced(word)]:
                if line and cell_len(line) + 1 + cell_len(piece) <= width:
                    line += " " + piece
                else:
                    if line:
                        lines.append(line)
                    line = piece
        lines.append(line)
    return lines


def piped_width() -> int:
    columns = os.environ.get("COLUMNS", "").strip()
    return max(int(columns), NARROWEST) if columns.isdigit() and int(columns) > 0 else PIPED_WIDTH


class AtWidth:
    """A renderable laid out only when printed, for the width it gets."""

    def __init__(self, layout: Callable[[Console, int], RenderableType]):
        self.layout = layout

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.layout(console, options.max_width)


# ------------------------------------------------------------------ layout
BORDER = 3  # a boxed column's padding (2) and its left border (1); the table adds 1


def plain(cell: str | Text) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def widest_word(cell: str | Text) -> int:
    return max((cell_len(word) for word in plain(cell).split()), default=0)


def widest_line(cell: str | Text) -> int:
    return max((cell_len(line) for line in spaced(plain(cell)).splitlines()), default=0)


def fitting_widths(headers: Sequence[str], rows: Sequence[Sequence[str | Text]], width: int) -> list[int] | None:
    """Content widths that fit ``width`` with no column narrower than its
    longest word (header included), or None when no such widths exist."""
    columns = [[header, *(row[i] for row in rows)] for i, header in enumerate(headers)]
    least = [max(widest_word(cell) for cell in column) for column in columns]
    most = [max(max(widest_line(cell) for cell in column), low) for column, low in zip(columns, least)]
    room = width - 1 - BORDER * len(headers)
    if sum(most) <= room:
        return most
    if sum(least) > room:
        return None
    spare, wanted = room - sum(least), sum(m - l for m, l in zip(most, least))
    widths = [low + spare * (high - low) // wanted for low, high in zip(least, most)]
    for i in sorted(range(len(widths)), key=lambda i: widths[i] - most[i]):  # hand out what rounding left
        if sum(widths) < room and widths[i] < most[i]:
            widths[i] += 1
    return widths


def boxed_table(headers: Sequence[str], rows: Sequence[Sequence[str | Text]], widths: Sequence[int],
           right: Iterable[str] = (), show_header: bool = True, unwrapped: bool = False) -> Table:
    """``unwrapped``: every cell is known to fit its column on one line, so
    rich need not try wrapping it (a fifth of the time of a 2,000-row grid)."""
    table = Table(show_header=show_header)
    right = set(right)
    for header, width in zip(headers, widths):
        table.add_column(header, width=width, justify="right" if header in right else "left", overflow="fold",
                         no_wrap=unwrapped)
    for row in rows:
        table.add_row(*(_laid_out(cell, width) for cell, width in zip(row, widths)))
    return table


def _laid_out(cell: str | Text, width: int) -> str | Text:
    """A cell naming names (JOIN) wrapped here, between names, to its
    column's ``width``: rich would print JOIN as is."""
    if JOIN not in plain(cell):
        return cell
    lines = "\n".join(name_lines(plain(cell), width))
    return Text(lines, style=cell.style) if isinstance(cell, Text) else lines


def hanging_lines(console: Console, text: Text, width: int, indent: int) -> list[Text]:
    """``text`` wrapped at spaces to ``width``, every line after the first indented."""
    first, *rest = wrap_lines(console, text, width) or [Text()]
    lines = [first]
    if rest:
        tail = Text(" ").join(rest)
        lines += [Text(" " * indent) + line for line in wrap_lines(console, tail, max(width - indent, 1))]
    return lines


def wrap_lines(console: Console, text: Text, width: int) -> list[Text]:
    lines = list(text.wrap(console, width))
    for line in lines:
        line.rstrip()  # the space a line broke at
    return lines


def indented_lines(console: Console, text: Text, width: int, indent: int) -> list[Text]:
    """``text`` wrapped at spaces, every line indented."""
    return [Text(" " * indent) + line for line in wrap_lines(console, text, max(width - indent, 1))]


def wrapped(text: Text) -> AtWidth:
    """``text`` wrapped at spaces, without the space each line broke at
    (rich keeps it: a trailing space)."""
    return AtWidth(lambda console, width: joined_lines(wrap_lines(console, text, width)))


def joined_lines(lines: list[Text]) -> Text:
    return Text("\n").join(lines)


def title_line(text: str) -> AtWidth:
    return wrapped(Text(text, style="bold"))


def records(console: Console, headers: Sequence[str], rows: Sequence[Sequence[str | Text]], width: int) -> Text:
    """Rows too wide for a table: the first cell, then ``field: value`` pairs
    wrapped under it."""
    lines: list[Text] = []
    for row in rows:
        lines += [Text(line, style="bold") for line in name_lines(plain(row[0]), width)]
        pairs = [f"{header}: {plain(cell)}" for header, cell in zip(headers[1:], row[1:]) if plain(cell)]
        lines += [Text(line) for line in packed(console, pairs, width, 2)]
    return joined_lines(lines)


def packed(console: Console, pairs: list[str], width: int, indent: int) -> list[str]:
    """``field: value`` pairs, ``; ``-separated, as many to a line as fit; a
    pair breaks only when it is wider than a line on its own."""
    lines: list[str] = []
    room = max(width - indent, 1)
    for pair in pairs:
        if lines and cell_len(lines[-1]) + 2 + cell_len(pair) <= room:
            lines[-1] += "; " + spaced(pair)
        else:
            lines += name_lines(pair, room)
    return [" " * indent + line for line in lines]


def table_or_records(headers: Sequence[str], rows: Sequence[Sequence[str | Text]], right: Iterable[str] = (),
                      show_header: bool = True) -> AtWidth:
    def layout(console: Console, width: int) -> RenderableType:
        widths = fitting_widths(headers, rows, width)
        if widths is None:
            return records(console, headers, rows, width)
        return boxed_table(headers, rows, widths, right, show_header)

    return AtWidth(layout)


def column_groups(key: Column, blocks: Sequence[Sequence[Column]], width: int) -> Group:
    """A grid too wide for the screen as several tables, each repeating the
    key column (e.g. Result) and holding as many blocks of columns as fit."""
    def width_of(column: Column) -> int:
        return max(widest_line(cell) for cell in [column[0], *column[1]])

    key_width = width_of(key)
    groups: list[list[Column]] = [[]]
    used = 1 + BORDER + key_width
    for block in blocks:
        need = sum(BORDER + width_of(column) for column in block)
        if groups[-1] and used + need > width:
            groups.append([])
            used = 1 + BORDER + key_width
        groups[-1] += block
        used += need
    tables: list[RenderableType] = []
    for group in groups:
        headers = [key[0], *(column[0] for column in group)]
        rows = [[value, *(column[1][i] for column in group)] for i, value in enumerate(key[1])]
        widths = [key_width, *(width_of(column) for column in group)]
        fits = 1 + sum(BORDER + w for w in widths) <= width  # else rich narrows the columns, and then wraps
        tables.append(boxed_table(headers, rows, widths, right=headers, unwrapped=fits))
    return Group(*tables)
