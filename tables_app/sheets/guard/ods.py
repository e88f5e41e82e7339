"""The guard of OpenDocument spreadsheets (.ods, as LibreOffice saves them).

The zip's size checks are passed (parts.open_archive). Here every XML part is
parsed by expat, streaming (a DOCTYPE or an entity is refused, parts.parser),
and content.xml is walked cell by cell, placing each cell as LibreOffice and
calamine both place it: `table:number-rows-repeated` on rows (inside header
rows and row groups too), `table:number-columns-repeated` on cells and covered
cells. LibreOffice pads every sheet with huge repeats of empty rows and cells;
those pass. A cell with content beyond the bounds, or repeated past them, is
refused, and so is what calamine would read differently from LibreOffice: a
repeat count that is not a plain positive number (calamine cannot parse it,
or drops the row for a 0), a sheet without a name or a name used twice, a
table inside a cell, the table namespaces under other prefixes (calamine
matches `table:table-row` as written), text in a cell without a value type
(calamine reads it blank), a content.xml not in UTF-8 (calamine reads none of
its sheets), a password-protected file.

What calamine does not see is noted per sheet (common.SheetLayout): hidden
rows (`table:visibility` collapse or filter) and columns (on
`table:table-column`), merged cells (`table:number-columns-spanned`,
`table:number-rows-spanned`), error cells (LibreOffice writes
`calcext:value-type="error"` with an empty `office:string-value`, its name only
in the paragraph: calamine reads a blank, or 0 if the writer put
`office:value="0"`), formulas without a value, and the sheet's hidden state
(`table:display="false"` in the table's style, in content.xml or styles.xml).
"""

from __future__ import annotations

import re
import zipfile
from typing import NoReturn

from tables_app.errors import WorkbookInvalid
import tables_app.sheets.guard.parts as parts
from tables_app.sheets.guard.common import MAX_COLUMNS, MAX_ROWS, Inspection, SheetLayout, refuse
from tables_app.sheets.values import ERROR_VALUES, coordinate

CONTENT = "content.xml"
STYLES = "styles.xml"
MANIFEST = "META-INF/manifest.xml"
# The prefixes calamine matches literally, and what they must mean.
NAMESPACES = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "calcext": "urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0",
}
PREFIXES = {uri: prefix for prefix, uri in NAMESPACES.items()}
MAX_SHEETS = 1_000
MAX_COUNT = 10**9  # a repeat or span beyond this is no spreadsheet's (LibreOffice: 1,048,576 rows, 16,384 columns)
MAX_CELLS = 5_000_000  # cells with content, repeats counted, in all sheets: what calamine holds
MAX_TEXT = 256 * 1024 * 1024  # characters of text calamine holds, repeats counted
MAX_MARKS = 1_000_000  # hidden rows, merges, error cells and uncached formulas noted, in all sheets
VALUE_ATTRIBUTES = frozenset({"office:value", "office:date-value", "office:time-value", "office:boolean-value", "office:string-value"})
SPANS = frozenset({"table:number-columns-spanned", "table:number-rows-spanned"})
CELLS = ("table:table-cell", "table:covered-table-cell")
# What may never start inside a cell: calamine would read its rows and cells as the sheet's own.
NESTED = {"table:table", "table:table-row", "table:table-cell", "table:covered-table-cell", "table:table-column",
          "table:table-header-rows", "table:table-row-group", "table:table-rows"}
HIDDEN = ("collapse", "filter")
_COUNT = re.compile(r"\+?[0-9]+")
_LIBREOFFICE_ERROR = re.compile(r"Err:\d{3}")
# LibreOffice's own codes for the errors a spreadsheet names (#DIV/0! is Err:532);
# any other Err:NNN is reported as #VALUE!.
LIBREOFFICE_CODES = {"Err:503": "#NUM!", "Err:519": "#VALUE!", "Err:524": "#REF!", "Err:525": "#NAME?", "Err:532": "#DIV/0!"}
TEXT_KEPT = 64  # characters of a cell's text kept (an error's name); the rest is only counted


def inspect_archive(archive: zipfile.ZipFile, name: str) -> Inspection:
    """An OpenDocument spreadsheet's parts, its size checks passed (parts.open_archive)."""
    members = {m.filename: m for m in archive.infolist()}
    budget = parts.Budget()
    if MANIFEST not in members:
        raise refuse(name, f"the part list ({MANIFEST}) is missing; the file is corrupt")
    if CONTENT not in members:
        raise refuse(name, f"the sheets ({CONTENT}) are missing; the file is corrupt")
    _scan_manifest(archive, members[MANIFEST], name, budget)
    table_styles: dict[str, bool] = {}
    if STYLES in members:
        _scan_styles(archive, members[STYLES], name, budget, table_styles)
    _check_encoding(archive, members[CONTENT], name)
    content = _Content(name, table_styles)
    content.parse(archive, members[CONTENT], budget)
    for member in members.values():  # every other XML part: a DOCTYPE or entity anywhere is refused
        if member.filename not in (MANIFEST, STYLES, CONTENT) and member.filename.endswith((".xml", ".rdf")):
            parts.parse(parts.parser(name, member.filename), archive, member, name, budget)
    return content.inspection


def _scan_manifest(archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str, budget: parts.Budget) -> None:
    xml = parts.parser(name, member.filename)

    def start(element: str, _attributes: dict[str, str]) -> None:
        if element == "manifest:encryption-data":
            parts.raise_refusal(refuse(name, "the workbook is password-protected; save it without a password and import that"))

    xml.StartElementHandler = start
    parts.parse(xml, archive, member, name, budget)


def _scan_styles(archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str, budget: parts.Budget,
                 table_styles: dict[str, bool]) -> None:
    """Note each table style's display (hidden sheets) from styles.xml."""
    xml = parts.parser(name, member.filename)
    styles = _TableStyles(name, table_styles, strict=False)
    xml.StartElementHandler = styles.start
    xml.EndElementHandler = styles.end
    parts.parse(xml, archive, member, name, budget)


def _check_encoding(archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str) -> None:
    """calamine reads content.xml as UTF-8 whatever it declares: in UTF-16 it
    finds no sheet at all. Refuse any other encoding (expat would read it)."""
    try:
        with archive.open(member) as stream:
            head = stream.read(256)
    except parts.ZIP_ERRORS as exc:
        raise refuse(name, f"part {member.filename} is truncated or corrupt ({type(exc).__name__})") from None
    if head.startswith((b"\xfe\xff", b"\xff\xfe")) or head[:2] in (b"\x00<", b"<\x00"):
        raise refuse(name, f"part {member.filename} is encoded in UTF-16; the reader reads only UTF-8 "
                           "(save the workbook from a spreadsheet program)")
    parts.check_encoding(name, member.filename, head)  # an encoding no reader knows: the same refusal as every part
    declared = re.match(rb"""(?:\xef\xbb\xbf)?<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']""", head)
    if declared and declared.group(1).strip().lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        encoding = declared.group(1).decode("ascii", "replace")
        raise refuse(name, f"part {member.filename} is encoded in {encoding if encoding.strip() else repr(encoding)}; "
                           "the reader reads only UTF-8 (save the workbook from a spreadsheet program)")


class _TableStyles:
    """`style:style style:family="table"` → whether its `table:display` hides the sheet."""

    def __init__(self, name: str, found: dict[str, bool], strict: bool):
        self.name, self.found, self.strict = name, found, strict
        self.style: str | None = None

    def start(self, element: str, attributes: dict[str, str]) -> None:
        if element == "style:style":
            self.style = attributes.get("style:name") if attributes.get("style:family") == "table" else None
        elif element == "style:table-properties" and self.style is not None:
            display = attributes.get("table:display")
            if display is not None and display not in ("true", "false") and self.strict:
                # calamine cannot read it: refused here, with the reason
                parts.raise_refusal(refuse(self.name, f"table style {self.style!r} has table:display={display!r}, "
                                                      "neither true nor false (a crafted file?)"))
            self.found[self.style] = display == "false"

    def end(self, element: str) -> None:
        if element == "style:style":
            self.style = None


class _Cell:
    __slots__ = ("element", "attributes", "column", "repeat", "text", "length", "skip")

    def __init__(self, element: str, attributes: dict[str, str], column: int, repeat: int):
        self.element, self.attributes, self.column, self.repeat = element, attributes, column, repeat
        self.text: list[str] = []
        self.length = 0  # characters of text, annotations and shapes left out
        self.skip = 0  # depth inside an annotation or a shape


class _Content:
    """content.xml, one expat event at a time: the sheets, where each cell is,
    and what calamine does not see."""

    def __init__(self, name: str, table_styles: dict[str, bool]):
        self.name = name
        self.inspection = Inspection(format="ods")
        self.styles = _TableStyles(name, table_styles, strict=True)
        self.table_styles = table_styles
        self.spreadsheet = 0  # depth inside office:spreadsheet
        self.sheet: str | None = None
        self.layout = SheetLayout()
        self.size = 0
        self.next_row = 1
        self.next_column = 1
        self.columns = 0  # table-column elements' columns so far
        self.row: tuple[int, int] | None = None  # (first row, repeat) of the open row
        self.cell: _Cell | None = None
        self.cells = 0
        self.text = 0
        self.marks = 0
        self.seen_spreadsheet = False

    def parse(self, archive: zipfile.ZipFile, member: zipfile.ZipInfo, budget: parts.Budget) -> None:
        xml = parts.parser(self.name, member.filename)
        xml.StartElementHandler = self.start
        xml.EndElementHandler = self.end
        xml.CharacterDataHandler = self.characters
        try:
            parts.parse(xml, archive, member, self.name, budget)
        except WorkbookInvalid as refused:
            problem = refused.problems[0]
            if problem.sheet is None and self.sheet is not None:  # broken inside a sheet: name it
                raise refuse(self.name, problem.message, self.sheet) from None
            raise
        if not self.seen_spreadsheet:
            raise refuse(self.name, "the file says it is an OpenDocument spreadsheet, but content.xml holds no "
                                    "spreadsheet (a crafted file?)")

    def _refuse(self, message: str, cell: str | None = None) -> NoReturn:
        parts.raise_refusal(refuse(self.name, message, self.sheet, cell))

    # -- expat handlers ------------------------------------------------------

    def start(self, element: str, attributes: dict[str, str]) -> None:
        for key in attributes:
            if key.startswith("xmlns"):
                self._namespace(key, attributes[key])
        cell = self.cell
        if cell is not None:
            if element in NESTED:
                self._refuse(f"a table inside a cell ({element}); refused (a crafted file?)",
                             coordinate(self.row[0], cell.column) if self.row else None)
            if cell.skip:
                cell.skip += 1
            elif element == "office:annotation" or element.startswith(("draw:", "dr3d:", "svg:")):
                cell.skip = 1
            elif element == "text:s":  # spaces: text calamine reads (text:c of them)
                spaces = attributes.get("text:c", "1")
                cell.length += min(int(spaces), MAX_COUNT) if spaces.isdigit() and len(spaces) < 12 else 1
            return
        if self.sheet is None:
            if element in ("style:style", "style:table-properties"):
                self.styles.start(element, attributes)
            elif element == "office:spreadsheet":
                self.spreadsheet += 1
                self.seen_spreadsheet = True
            elif element == "table:table":
                self._open_sheet(attributes)
            return
        if element in CELLS:
            self._open_cell(element, attributes)
        elif element == "table:table-row":
            self._open_row(attributes)
        elif element == "table:table-column":
            self._column(attributes)
        elif element == "table:table":
            self._refuse("a sheet inside a sheet (a crafted file?)")

    def end(self, element: str) -> None:
        cell = self.cell
        if cell is not None:
            if cell.skip:
                cell.skip -= 1
            elif element == cell.element:
                self._close_cell(cell)
            return
        if self.sheet is None:
            if element == "style:style":
                self.styles.end(element)
            elif element == "office:spreadsheet":
                self.spreadsheet -= 1
            return
        if element == "table:table-row":
            self.row = None
        elif element == "table:table":
            self._close_sheet()

    def characters(self, data: str) -> None:
        cell = self.cell
        if cell is not None and not cell.skip:
            if cell.length < TEXT_KEPT:
                cell.text.append(data[:TEXT_KEPT])
            cell.length += len(data)

    # -- the parts of a sheet ------------------------------------------------

    def _namespace(self, key: str, uri: str) -> None:
        prefix = key[6:] if key.startswith("xmlns:") else ""
        if prefix in NAMESPACES and uri != NAMESPACES[prefix] or uri in PREFIXES and prefix != PREFIXES[uri]:
            self._refuse(f"content.xml binds the prefix {prefix or '(default)'!r} to {uri!r}; the readers would "
                         "see different sheets (a crafted file?)")

    def _open_sheet(self, attributes: dict[str, str]) -> None:
        title = attributes.get("table:name")
        if not self.spreadsheet:
            self._refuse("a sheet outside the spreadsheet (a crafted file?)")
        if title is None:
            self._refuse(f"sheet {len(self.inspection.sheet_sizes) + 1} has no name (a crafted file?)")
        if title in self.inspection.layouts:
            self.sheet = title
            self._refuse(f"two sheets are named {title!r} (a crafted file?)")
        if len(self.inspection.sheet_sizes) >= MAX_SHEETS:
            self._refuse(f"the workbook has more than {MAX_SHEETS:,} sheets")
        self.sheet, self.layout, self.size = title, SheetLayout(), 0
        self.layout.hidden = self.table_styles.get(attributes.get("table:style-name", ""), False)
        self.next_row, self.columns, self.row = 1, 0, None
        self.inspection.layouts[title] = self.layout  # placed now: a name used twice is seen at once

    def _close_sheet(self) -> None:
        assert self.sheet is not None  # a sheet closes only after it opened (_open_sheet names it)
        self.inspection.sheet_sizes.append((self.sheet, self.size))
        self.sheet, self.row = None, None

    def _count(self, attributes: dict[str, str], key: str, where: str, cell: str | None = None) -> int:
        """A repeat or span: a plain positive whole number, as calamine parses it."""
        value = attributes.get(key)
        if value is None:
            return 1
        if value.isdigit() and value[0] != "0" and len(value) < 10:  # the usual case: 1 to 999,999,999
            return int(value)
        if not _COUNT.fullmatch(value):
            self._refuse(f"{where}: {key}={_shown(value)} is not a count (a crafted file?)", cell)
        digits = value.lstrip("+").lstrip("0")
        if not digits:
            self._refuse(f"{where}: {key} is 0 (a crafted file?)", cell)
        if len(digits) > len(str(MAX_COUNT)) or int(digits) > MAX_COUNT:
            self._refuse(f"{where}: {key}={_shown(value)} is absurd (a crafted file?)", cell)
        return int(digits)

    def _mark(self, count: int) -> None:
        self.marks += count
        if self.marks > MAX_MARKS:
            self._refuse(f"more than {MAX_MARKS:,} hidden rows, merged cells, error cells and formulas to note; refused")

    def _column(self, attributes: dict[str, str]) -> None:
        first = self.columns + 1
        repeat = self._count(attributes, "table:number-columns-repeated", f"column {first:,}")
        self.columns += repeat
        if attributes.get("table:visibility") in HIDDEN and first <= MAX_COLUMNS:
            last = min(first + repeat - 1, MAX_COLUMNS)
            self._mark(last - first + 1)
            self.layout.hidden_columns.update(range(first, last + 1))

    def _open_row(self, attributes: dict[str, str]) -> None:
        first = self.next_row
        if self.row is not None:
            self._refuse(f"a row inside row {self.row[0]:,} (a crafted file?)")
        repeat = self._count(attributes, "table:number-rows-repeated", f"row {first:,}")
        self.row = (first, repeat)
        self.next_row += repeat
        self.next_column = 1
        if attributes.get("table:visibility") in HIDDEN and first <= MAX_ROWS:
            last = min(first + repeat - 1, MAX_ROWS)
            self._mark(last - first + 1)
            self.layout.hidden_rows.update(range(first, last + 1))

    def _open_cell(self, element: str, attributes: dict[str, str]) -> None:
        if self.row is None:
            self._refuse("a cell outside a row (a crafted file?)")
        column = self.next_column
        repeat = 1
        if "table:number-columns-repeated" in attributes:
            where = _where(self.row[0], column)
            repeat = self._count(attributes, "table:number-columns-repeated", f"the cell at {where}", where)
        self.next_column += repeat
        self.cell = _Cell(element, attributes, column, repeat)

    def _close_cell(self, cell: _Cell) -> None:
        self.cell = None
        assert self.row is not None  # a cell opens only inside a row (_open_cell)
        first_row, rows = self.row
        attributes, first_column, columns = cell.attributes, cell.column, cell.repeat
        last_row, last_column = first_row + rows - 1, first_column + columns - 1
        formula = "table:formula" in attributes
        valued = not VALUE_ATTRIBUTES.isdisjoint(attributes)
        value_type = attributes.get("office:value-type")
        error = attributes.get("calcext:value-type") == "error"
        merged = cell.element == "table:table-cell" and not SPANS.isdisjoint(attributes)
        if not (valued or formula or value_type == "string" or error):  # what calamine reads as empty
            if cell.length:
                self._refuse("the cell shows text but holds no value (no office:value-type): calamine would read it blank "
                             "(a crafted file?)",
                             _where(first_row, first_column))
            if merged:
                self._merge(attributes, first_row, last_row, first_column, last_column)
            return  # an empty cell: LibreOffice's padding, mostly
        self._bounds(first_row, last_row, first_column, last_column, rows, columns)
        self.cells += rows * columns
        self.text += rows * columns * cell.length
        self.size += rows * columns * (cell.length + 16)
        if self.cells > MAX_CELLS:
            self._refuse(f"the workbook holds more than {MAX_CELLS:,} cells with content; refused")
        if self.text > MAX_TEXT:
            self._refuse(f"the workbook's text repeats to more than {MAX_TEXT >> 20:,} MB; refused (a crafted file?)")
        if error or formula:
            text = "".join(cell.text).strip()
            if error or (value_type in (None, "string") and _looks_like_error(text)):
                positions = _positions(first_row, last_row, first_column, last_column)
                self._mark(len(positions))
                self.layout.errors.update(dict.fromkeys(positions, _error_text(text)))
            elif not valued and not cell.length:
                positions = _positions(first_row, last_row, first_column, last_column)
                self._mark(len(positions))
                self.layout.uncached_formulas.update(positions)
        if merged:
            self._merge(attributes, first_row, last_row, first_column, last_column)

    def _merge(self, attributes: dict[str, str], first_row: int, last_row: int, first_column: int, last_column: int) -> None:
        where = _where(first_row, first_column)
        spanned_columns = self._count(attributes, "table:number-columns-spanned", f"the cell at {where}", where)
        spanned_rows = self._count(attributes, "table:number-rows-spanned", f"the cell at {where}", where)
        if spanned_columns > 1 or spanned_rows > 1:
            corners = _positions(first_row, last_row, first_column, last_column)
            self._mark(len(corners))
            self.layout.merged.extend((r, c, r + spanned_rows - 1, c + spanned_columns - 1) for r, c in corners)

    def _bounds(self, first_row: int, last_row: int, first_column: int, last_column: int, rows: int, columns: int) -> None:
        """A cell with content, as repeated, stays within the importer's bounds."""
        if last_column <= MAX_COLUMNS and last_row <= MAX_ROWS:
            return
        if last_column > MAX_COLUMNS:
            row, column = first_row, max(first_column, MAX_COLUMNS + 1)
        else:
            row, column = max(first_row, MAX_ROWS + 1), first_column
        why = ""
        if column != first_column and row == first_row:
            why = f": the cell at {coordinate(first_row, first_column)} is repeated {columns:,} times"
        elif row != first_row:
            why = f": row {first_row:,} is repeated {rows:,} times"
        where = _where(row, column)
        self._refuse(f"a cell at {where} is beyond what the importer reads ({MAX_ROWS:,} rows, {MAX_COLUMNS} columns){why}",
                     where)


def _where(row: int, column: int) -> str:
    return coordinate(row, column) if column <= 10**6 else f"row {row:,}, column {column:,}"


def _positions(first_row: int, last_row: int, first_column: int, last_column: int) -> list[tuple[int, int]]:
    """A repeated cell's positions within the bounds (any beyond are empty, or were refused)."""
    return [(r, c) for r in range(first_row, min(last_row, MAX_ROWS) + 1)
            for c in range(first_column, min(last_column, MAX_COLUMNS) + 1)]


def _shown(value: str) -> str:
    return repr(value if len(value) <= 40 else value[:36] + "…")


def _looks_like_error(text: str) -> bool:
    return text.upper() in ERROR_VALUES or bool(_LIBREOFFICE_ERROR.fullmatch(text))


def _error_text(text: str) -> str:
    """The error as a spreadsheet names it (values.ERROR_VALUES): LibreOffice's
    own `Err:502` and names in other languages become the nearest one."""
    if text.upper() in ERROR_VALUES:
        return text.upper()
    return LIBREOFFICE_CODES.get(text, "#VALUE!")
