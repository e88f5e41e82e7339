"""The guard for Excel workbooks (.xlsx, .xlsm): every XML part parsed by
expat, streaming, with DOCTYPEs and entities refused (guard/parts.py), and
each worksheet followed cell by cell as the readers follow it.

A cell's position is its `r` attribute, or, without one, the cell after the
one before in its row (and a row without `r` the row after the one before),
as openpyxl and calamine count them. So every cell is placed: a cell beyond
the importer's bounds is refused by name, and the guard notes, at their
cells, what calamine cannot be trusted to see: error values (it reads `#N/A`
as a blank) and formulas saved without a computed value. It also notes the
hidden rows and columns and the merged cells, so the interpreter can refuse
them inside a grid.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from typing import Any, NoReturn

from tables_app.errors import WorkbookInvalid
import tables_app.sheets.guard.parts as parts
from tables_app.sheets.guard.common import MAX_COLUMNS, MAX_ROWS, Inspection, SheetLayout, column_number, refuse
from tables_app.sheets.values import ERROR_VALUES, coordinate

MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELATIONSHIPS_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
XML_PARTS = (".xml", ".rels", ".vml")
_REFERENCE = re.compile(r"\s*([A-Za-z]{1,3})0*(\d{1,18})\s*")
_ROW_NUMBER = re.compile(r"\s*0*(\d{1,18})\s*")  # far past the bounds, yet never a huge int to parse
TRUE = ("1", "true")


def inspect_archive(archive: zipfile.ZipFile, name: str) -> Inspection:
    """An Excel workbook's parts, its size checks passed (parts.open_archive)."""
    members = archive.infolist()
    sheets = _sheet_parts(archive, name)
    inspection = Inspection("xlsx")
    sizes = {m.filename: m.file_size for m in members}
    inspection.sheet_sizes = [(title, sizes[part]) for part, title in sheets.items() if part in sizes]
    budget = parts.Budget()
    for member in members:
        if not member.filename.endswith(XML_PARTS):
            continue
        title = sheets.get(member.filename)
        if title is None:  # no cells: only its DOCTYPE and well-formedness matter
            parts.parse(parts.parser(name, member.filename), archive, member, name, budget)
        else:
            inspection.layouts[title] = _scan_sheet(name, member.filename, title, archive, member, budget)
    return inspection


def _sheet_parts(archive: zipfile.ZipFile, name: str) -> dict[str, str]:
    """Worksheet part path → sheet title, in workbook order, from workbook.xml and its relationships."""
    import defusedxml.ElementTree as ElementTree

    def read(part: str) -> Any:  # an xml.etree Element
        data = parts.read_small(archive, part, name, parts.Budget())
        parts.check_encoding(name, part, data[:256])  # the same refusal as for every other part
        try:
            return ElementTree.fromstring(data)
        except LookupError as exc:
            if type(exc) is LookupError:  # no codec for the declared encoding (in UTF-16, say)
                raise parts.encoding_refusal(name, part, data[:256]) from None
            raise

    try:
        book = read("xl/workbook.xml")
        rels = read("xl/_rels/workbook.xml.rels")
    except KeyError:
        raise refuse(name, "the workbook's part list is missing (xl/_rels/workbook.xml.rels); the file is corrupt") from None
    except WorkbookInvalid:
        raise
    except Exception as exc:  # defusedxml refuses DTDs and entities here too
        raise refuse(name, f"the workbook's XML cannot be read safely ({type(exc).__name__})") from None
    # Resolved as openpyxl resolves them (packaging.relationship.get_dependents
    # and WorkbookPackage), so the guard checks the very parts openpyxl reads.
    targets = {}
    for rel in rels:
        if rel.get("Type", "").endswith("/chartsheet") or rel.get("TargetMode") == "External":
            continue  # no cells; openpyxl does not read it as a worksheet either
        target = rel.get("Target", "")
        targets[rel.get("Id")] = target[1:] if target.startswith("/") else posixpath.normpath(posixpath.join("xl", target))
    sheets = {}
    for element in book.findall(f"{{{MAIN_NS}}}sheets/{{{MAIN_NS}}}sheet"):
        rid = element.get(f"{{{RELATIONSHIPS_NS}}}id")
        if rid in targets:
            sheets[targets[rid]] = element.get("name", "")
    return sheets


def _scan_sheet(name: str, part: str, title: str, archive: zipfile.ZipFile, member: zipfile.ZipInfo,
                budget: parts.Budget) -> SheetLayout:
    """Follow one worksheet part with expat; say what it holds.

    Elements are dispatched by local name (any prefix: calamine matches local
    names, so the guard checks whatever either reader might take for a cell).
    This runs once per element of the largest parts, so it is written for
    speed: closures over local state, the usual case first, a cache of cell
    references. A cell is followed to its end (its text read) only when it
    matters: an error cell, or one whose formula is met.
    """
    layout = SheetLayout()
    xml = parts.parser(name, part, title)
    kinds = dict(_KINDS)  # element name as written → local name
    row = column = 0
    last = ""  # the local name of the element last started
    cell = (0, 0)  # the position of the cell last started
    cell_type: str | None = None  # and its type (`t`)
    merges: set[tuple[int, int, int, int]] = set()
    followed: list = []  # [position, type, formula seen, cached text or None] of the cell being followed

    def local(element: str) -> str:
        kind = kinds[element] = element.rpartition(":")[2]
        return kind

    def stop(message: str, where: str | None = None) -> NoReturn:
        parts.raise_refusal(refuse(name, message, title, where))

    def beyond(position: tuple[int, int]) -> NoReturn:
        where = coordinate(*position)
        stop(f"a cell at {where} is beyond what the importer reads ({MAX_ROWS:,} rows, {MAX_COLUMNS} columns)", where)

    def start(element: str, attributes: dict[str, str]) -> None:
        nonlocal row, column, last, cell, cell_type
        kind = kinds.get(element) or local(element)
        if kind in _VALUES:
            return  # a cell's value, most elements: nothing to note (and `last` stays in the cell)
        if kind == "c":
            reference = attributes.get("r")
            if reference is None:
                column += 1
                cell = (row, column)
                if column > MAX_COLUMNS or row > MAX_ROWS:
                    beyond(cell)
            else:
                place = _PLACES.get(reference)  # references within the bounds, seen before
                if place is None:
                    place = _reference(reference)
                    if place is None:
                        stop(f"a cell at {reference[:20]!r}, which is not a cell reference; the sheet is malformed")
                    if place[0] > MAX_ROWS or place[1] > MAX_COLUMNS:
                        beyond(place)
                    if len(_PLACES) < MAX_PLACES:
                        _PLACES[reference] = place
                cell = place
                row, column = cell  # a cell's own row number wins, as in both readers
            cell_type = attributes.get("t")
            if cell_type == "e":
                follow(cell, "e")
        elif kind == "f":
            # A cell's formula is its first child (<c><f/><v/></c>); an <f> after
            # anything else (a conditional format's <xm:f>) is not a cell's.
            if last in _IN_CELL:
                follow(cell, cell_type, formula=True)
        elif kind == "row":
            number = attributes.get("r")
            if number is None:
                row += 1
            else:
                found = _ROW_NUMBER.fullmatch(number)
                if found is None or found.group(1) == "0":
                    stop(f"a row numbered {number[:20]!r}; the sheet is malformed")
                row = int(found.group(1))
            column = 0
            if "hidden" in attributes and attributes["hidden"].strip() in TRUE:
                layout.hidden_rows.add(row)
        elif kind == "col":
            if attributes.get("hidden", "").strip() in TRUE:
                low, high = _number(attributes.get("min")), _number(attributes.get("max"))
                layout.hidden_columns.update(range(low, min(high, MAX_COLUMNS + 1) + 1))
        elif kind == "mergeCell":
            first, _, second = attributes.get("ref", "").partition(":")
            a, b = _reference(first), _reference(second or first)
            if a and b:
                merged = (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))
                if merged not in merges:  # a set beside the list: thousands of merges stay linear
                    merges.add(merged)
                    layout.merged.append(merged)
        elif kind == "dimension":
            first, _, second = attributes.get("ref", "").partition(":")
            corner = _reference(second or first)
            if corner and (corner[0] > MAX_ROWS or corner[1] > MAX_COLUMNS):
                stop(f"the sheet claims cells up to {(second or first).strip().upper()}; the importer reads at "
                     f"most {MAX_ROWS:,} rows and {MAX_COLUMNS} columns")
        last = kind

    def follow(position: tuple[int, int], kind: str | None, formula: bool = False) -> None:
        followed[:] = [position, kind, formula, None]
        xml.StartElementHandler = start_in_cell
        xml.EndElementHandler = end_in_cell

    def start_in_cell(element: str, attributes: dict[str, str]) -> None:
        kind = kinds.get(element) or local(element)
        if kind == "f":
            followed[2] = True
        elif kind == "v":
            followed[3] = ""
            xml.CharacterDataHandler = text
        elif kind == "c" or kind == "row":
            stop(f"a cell inside the cell at {coordinate(*followed[0])}; the sheet is malformed")

    def text(data: str) -> None:
        if len(followed[3]) < 64:  # enough to tell an error's name; a value only needs to be there
            followed[3] += data

    def end_in_cell(element: str) -> None:
        nonlocal last
        kind = kinds.get(element) or local(element)
        if kind == "v":
            xml.CharacterDataHandler = None
        elif kind == "c":
            position, cell_type, formula, value = followed
            shown = (value or "").strip().upper()
            if cell_type == "e":
                layout.errors[position] = shown if shown in ERROR_VALUES else "#VALUE!"
            elif formula and not (shown or (value is not None and cell_type == "str")):
                # Cached means a non-empty <v>, or any <v> in a text cell (a
                # formula whose result is ""): openpyxl writes <v/> for every formula.
                layout.uncached_formulas.add(position)
            followed.clear()
            xml.StartElementHandler, xml.EndElementHandler, xml.CharacterDataHandler = start, None, None
            last = "c"

    xml.StartElementHandler = start
    parts.parse(xml, archive, member, name, budget, title)
    return layout


# Local names of the elements the scan dispatches on, and of a cell's children
# before its formula may come (out of schema order, still read by both readers).
_KINDS = {kind: kind for kind in ("c", "v", "f", "is", "t", "row", "col", "mergeCell", "dimension")}
_IN_CELL = frozenset({"c", "r", "rPr", "rPh"})  # and _VALUES, which leave `last` as it was
_VALUES = frozenset({"v", "is", "t"})
# Cell references seen → (row, column): the same few thousand recur in every
# sheet. Only references within the bounds are kept, so it stays small.
_PLACES: dict[str, tuple[int, int]] = {}
MAX_PLACES = 100_000


def _reference(value: str) -> tuple[int, int] | None:
    """(row, column) of a cell reference like "B5" (any letter case), else None."""
    found = _REFERENCE.fullmatch(value)
    if found is None or int(found.group(2)) == 0:
        return None
    return int(found.group(2)), column_number(found.group(1).upper())


def _number(value: str | None) -> int:
    return int(value) if value and value.strip().isdigit() and len(value.strip()) < 8 else 1
