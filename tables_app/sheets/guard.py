"""Refuse hostile or broken files before openpyxl parses them.

Everything here reads the file as a zip of XML parts, streaming, with fixed
limits, so a refusal is fast and takes bounded memory whatever the file
claims: empty, truncated or corrupt files, text renamed .xlsx, legacy .xls
and password-protected workbooks, zip bombs (declared sizes, compression
ratios, and data that outgrows its declared size), XML with a DOCTYPE or
entities, and sheets that claim or hold cells beyond the importer's bounds.
The same scan collects what read-only openpyxl cannot see: hidden rows and
columns and merged cells, so the interpreter can refuse them inside a grid.
"""

from __future__ import annotations

import html
import posixpath
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from tables_app.errors import Problem, WorkbookInvalid

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_MEMBERS = 2_000
MAX_UNPACKED_BYTES = 100 * 1024 * 1024  # all parts together, as declared and as read (Rolemaster scale: ~10 MB)
MAX_RATIO = 200  # a part may unpack to at most 200× its packed size (beyond 1 MB)
MAX_ROWS = 5_000
MAX_COLUMNS = 64
CHUNK = 1 << 20
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ENCRYPTED_MARK = "EncryptionInfo".encode("utf-16-le")

_DECLARATION = re.compile(rb"<!(?:DOCTYPE|ENTITY)", re.IGNORECASE)
# Elements are matched as XML allows them: any namespace prefix (`<x:row`),
# attributes in either quotes with spaces around `=`, `>` inside a value.
# Every pattern is anchored at a `<` (never raw in text) or is a literal whose
# rare matches are checked in bounded time, so a scan is linear however the
# part is built (tests/sheets/test_guard.py feeds it the worst cases).
_NAME = rb"""[^\s<>/=:"']+"""  # an XML name part: ASCII or not
_PREFIX = rb"(?:" + _NAME + rb":)?"
_ATTRIBUTES = rb"""((?:\s+""" + _NAME + rb"""(?::""" + _NAME + rb""")?\s*=\s*(?:"[^"]*"|'[^']*'))*)"""
_ATTRIBUTE = re.compile(rb"(" + _NAME + rb"(?::" + _NAME + rb""")?)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_LAYOUT_ELEMENT = re.compile(rb"<" + _PREFIX + rb"(dimension|row|col|mergeCell)" + _ATTRIBUTES + rb"\s*/?>")
_START_TAG = re.compile(rb"<" + _PREFIX + rb"(" + _NAME + rb")" + _ATTRIBUTES)
_WHOLE_START_TAG = re.compile(rb"<" + _PREFIX + rb"(" + _NAME + rb")" + _ATTRIBUTES + rb"\s*/?>")
SCANNED_ELEMENTS = {b"dimension", b"row", b"col", b"mergeCell", b"c"}
_REFERENCE = re.compile(r"([A-Za-z]+)(\d+)")
# A cell reference past the bounds (row > 5,000 or column > BL), or one
# written with character references: checked with its tag (`_in_cell_tag`).
_FAR_CELL = re.compile(rb"""r\s*=\s*["']((?:[A-Za-z]{3,}|[Bb][M-Zm-z]|[C-Zc-z][A-Za-z])\d+|[A-Za-z]+(?:[5-9]\d{3}|\d{5,})|[^"'<>]*&[^"'<>]*)""")
MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELATIONSHIPS_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
LOOKBACK = 4096  # how far back a matched attribute's tag is looked for
_FORMULA = re.compile(rb"<" + _PREFIX + rb"f[\s>/]")
_FAR_ROW = re.compile(rb"""r\s*=\s*["']\s*0*(?:[5-9]\d{3}|\d{5,})""")  # a row number of 5,000 or more (checked exactly after)
_ERROR_TYPE = re.compile(rb"""t\s*=\s*["']e["']""")  # a cell's type "e" (checked with its tag: _in_cell_tag)
_CELL_BOUNDARY = re.compile(rb"</" + _PREFIX + rb"c\s*>|<" + _PREFIX + rb"c[\s>/]")
_CACHED_VALUE = re.compile(rb"<" + _PREFIX + rb"v(?:\s[^<>]*)?>[^<]")
_ANY_VALUE = re.compile(rb"<" + _PREFIX + rb"v[\s>/]")
OVERLAP = 4096  # bytes each block shares with the one before (longer than any one match)
MAX_CARRY = 64 * 1024  # a formula cell longer than this is located by openpyxl instead
MAX_TAG = 64 * 1024  # a start tag cut by a block seam is carried over; a cell or layout tag longer is refused


def _attributes(raw: bytes) -> dict[str, str]:
    """A start tag's attributes, character references resolved, by name as
    written (openpyxl reads `r`, `hidden`, `ref` without a prefix, and so do we)."""
    return {name.decode("utf-8", "replace"): html.unescape((double or single).decode("utf-8", "replace"))
            for name, double, single in _ATTRIBUTE.findall(raw)}


def _reference(value: str) -> tuple[int, int] | None:
    """(row, column) of a cell reference like "B5" (any letter case), else None."""
    found = _REFERENCE.fullmatch(value.strip())
    return (int(found.group(2)), column_number(found.group(1).upper())) if found else None


def _in_cell_tag(text: bytes, start: int, tags: dict[int, frozenset[int]]) -> bool:
    """The attribute at ``start`` is an attribute of a `<c>` start tag (any
    prefix): not of another element, not text or part of another attribute's
    value that looks like one. When its tag cannot be found within LOOKBACK
    bytes, or is longer than MAX_TAG, say yes: refusing is the safe side.
    ``tags`` keeps each tag's attribute positions, so a tag is parsed once."""
    opening = text.rfind(b"<", max(0, start - LOOKBACK), start)
    if opening < 0 or start - opening > MAX_TAG:
        return True
    if opening not in tags:
        tag = _START_TAG.match(text, opening, opening + MAX_TAG)
        tags[opening] = frozenset(
            found.start() for found in _ATTRIBUTE.finditer(text, tag.start(2), tag.end(2))
        ) if tag and tag.group(1) == b"c" else frozenset()
    return start in tags[opening]


def column_number(letters: bytes | str) -> int:
    number = 0
    for ch in letters if isinstance(letters, str) else letters.decode():
        number = number * 26 + ord(ch) - 64
    return number


@dataclass
class SheetLayout:
    """What the guard saw in one worksheet part."""

    hidden_rows: set[int] = field(default_factory=set)
    hidden_columns: set[int] = field(default_factory=set)
    merged: list[tuple[int, int, int, int]] = field(default_factory=list)  # min_row, min_col, max_row, max_col
    # Formula cells saved without a computed value (read-only openpyxl sees
    # them as blank); if some cannot be located here, read.py asks openpyxl.
    uncached_formulas: set[tuple[int, int]] = field(default_factory=set)  # (row, column)
    formulas_unlocated: bool = False
    # Error cells (`t="e"`: #N/A, #REF!) somewhere in the sheet: calamine reads
    # them as blanks, so read.py has openpyxl read this sheet.
    error_cells: bool = False


@dataclass
class Inspection:
    layouts: dict[str, SheetLayout] = field(default_factory=dict)  # sheet title → layout
    sheet_sizes: list[tuple[str, int]] = field(default_factory=list)  # (title, unpacked XML bytes), in workbook order


def refuse(name: str, message: str, sheet: str | None = None, cell: str | None = None) -> WorkbookInvalid:
    return WorkbookInvalid([Problem(name, sheet, cell, message)])


def inspect(path: Path, name: str) -> Inspection:
    """Check the file; raise WorkbookInvalid with one clear problem, or say what it holds."""
    if not path.is_file():
        raise refuse(name, "no such file")
    size = path.stat().st_size
    if size == 0:
        raise refuse(name, "the file is empty")
    if size > MAX_FILE_BYTES:
        raise refuse(name, f"the file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
    with path.open("rb") as handle:
        head = handle.read(4096)
    if head.startswith(OLE_MAGIC):
        with path.open("rb") as handle:
            data = handle.read(min(size, 4 * 1024 * 1024))
        if ENCRYPTED_MARK in data:
            raise refuse(name, "the workbook is password-protected; remove the password (save a copy without it) and import that")
        raise refuse(name, "a legacy .xls workbook; open it and save it as .xlsx (Excel Workbook)")
    if not head.startswith(b"PK"):
        kind = "a text file (CSV?)" if _looks_like_text(head) else "not a zip file"
        raise refuse(name, f"not an .xlsx workbook ({kind}); save it from a spreadsheet program as .xlsx")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise refuse(name, f"the file is truncated or corrupt ({exc})") from None
    with archive:
        return _inspect_archive(archive, name)


def _looks_like_text(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in head


def _inspect_archive(archive: zipfile.ZipFile, name: str) -> Inspection:
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise refuse(name, f"the workbook has {len(members):,} parts; the limit is {MAX_MEMBERS:,}")
    names = {m.filename for m in members}
    if "xl/workbook.xml" not in names:
        raise refuse(name, "a zip file, but not an Excel workbook (no xl/workbook.xml); save it as .xlsx")
    declared = sum(m.file_size for m in members)
    if declared > MAX_UNPACKED_BYTES:
        raise refuse(name, f"the workbook unpacks to {declared:,} bytes; the limit is {MAX_UNPACKED_BYTES:,} (a zip bomb?)")
    for member in members:
        if member.file_size > CHUNK and member.file_size > MAX_RATIO * max(member.compress_size, 1):
            raise refuse(name, f"part {member.filename} unpacks {member.file_size // max(member.compress_size, 1):,} times its size (a zip bomb?)")
    sheets = _sheet_parts(archive, name)
    inspection = Inspection()
    sizes = {m.filename: m.file_size for m in members}
    inspection.sheet_sizes = [(title, sizes[part]) for part, title in sheets.items() if part in sizes]
    budget = [MAX_UNPACKED_BYTES]
    for member in members:
        if not member.filename.endswith((".xml", ".rels", ".vml")):
            continue
        title = sheets.get(member.filename)
        layout = SheetLayout()
        _scan(archive, member, name, title, layout, budget)
        if title is not None:
            inspection.layouts[title] = layout
    return inspection


def _sheet_parts(archive: zipfile.ZipFile, name: str) -> dict[str, str]:
    """Worksheet part path → sheet title, in workbook order, from workbook.xml and its relationships."""
    import defusedxml.ElementTree as ElementTree

    try:
        book = ElementTree.fromstring(_read_small(archive, "xl/workbook.xml", name))
        rels = ElementTree.fromstring(_read_small(archive, "xl/_rels/workbook.xml.rels", name))
    except KeyError:
        raise refuse(name, "the workbook's part list is missing (xl/_rels/workbook.xml.rels); the file is corrupt") from None
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
    parts = {}
    for element in book.findall(f"{{{MAIN_NS}}}sheets/{{{MAIN_NS}}}sheet"):
        rid = element.get(f"{{{RELATIONSHIPS_NS}}}id")
        if rid in targets:
            parts[targets[rid]] = element.get("name", "")
    return parts


def _read_small(archive: zipfile.ZipFile, member: str, name: str) -> bytes:
    info = archive.getinfo(member)
    if info.file_size > 10 * CHUNK:
        raise refuse(name, f"part {member} is {info.file_size:,} bytes; too large for a part list")
    return archive.read(member)


def _scan(archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str, title: str | None,
          layout: SheetLayout, budget: list[int]) -> None:
    """Stream one XML part: refuse DTDs and entities, count real bytes against
    the declared size, and for a worksheet check bounds and note hidden rows,
    hidden columns, merged cells and formulas without a cached value."""
    read = 0
    tail = b""
    try:
        with archive.open(member) as stream:
            while block := stream.read(CHUNK):
                read += len(block)
                budget[0] -= len(block)
                if read > member.file_size or budget[0] < 0:
                    raise refuse(name, f"part {member.filename} unpacks to more than it declares (a zip bomb?)")
                text = tail + block
                if _DECLARATION.search(text):
                    raise refuse(name, f"part {member.filename} declares a DOCTYPE or entities (an XML bomb?); refused", title)
                keep = len(text) - OVERLAP  # blocks overlap, so nothing is missed at a seam
                if title is not None:
                    keep = min(keep, _unfinished_tag(text, name, title))
                    _sheet_bounds(text, name, title, layout)
                    if not layout.error_cells:
                        tags: dict[int, frozenset[int]] = {}
                        layout.error_cells = any(_in_cell_tag(text, m.start(), tags) for m in _ERROR_TYPE.finditer(text))
                    if b"<f" in text or b":f" in text:
                        unfinished = _note_uncached_formulas(text, layout)
                        if len(text) - unfinished > MAX_CARRY:  # a formula cell too long to carry over
                            layout.formulas_unlocated = True
                        else:
                            keep = min(keep, unfinished)
                tail = text[max(0, keep):]
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as exc:
        raise refuse(name, f"part {member.filename} is truncated or corrupt ({exc})") from None


def _unfinished_tag(text: bytes, name: str, title: str) -> int:
    """Where a start tag cut by the end of ``text`` begins (the next block
    starts there), else the end of ``text``. A cell or layout tag longer than
    MAX_TAG is refused: no real sheet has one."""
    opening = text.rfind(b"<")
    if opening < 0 or text[opening + 1:opening + 2] in (b"/", b"!", b"?") or _WHOLE_START_TAG.match(text, opening):
        return len(text)
    if len(text) - opening <= MAX_TAG:
        return opening
    tag = _START_TAG.match(text, opening)
    if tag and tag.group(1) in SCANNED_ELEMENTS:
        raise refuse(name, f"a <{tag.group(1).decode()}> tag longer than {MAX_TAG:,} bytes; refused", title)
    return len(text)


def _note_uncached_formulas(text: bytes, layout: SheetLayout) -> int:
    """Note each formula cell without a cached value; say where a formula cell
    that ends beyond ``text`` starts (else the end of ``text``).

    Cached means a non-empty `<v>`, or any `<v>` in a text cell (`t="str"`:
    a formula whose result is ""). openpyxl writes `<v />` for every formula.
    What cannot be told here (a cell without `r`, one longer than MAX_CARRY,
    a cell left open) makes read.py ask openpyxl for this sheet.
    """
    for m in _FORMULA.finditer(text):
        opening = text.rfind(b"<", max(0, m.start() - LOOKBACK), m.start())  # a cell's formula is its first child
        if opening < 0 or text[opening + 1:opening + 2] in (b"/", b"!", b"?"):
            layout.formulas_unlocated = True  # after a long tag, a comment or another element: openpyxl will know
            continue
        tag = _START_TAG.match(text, opening, m.start())
        element = tag.group(1) if tag else None
        if element != b"c":
            if element in (b"v", b"is"):  # a cell's children out of order
                layout.formulas_unlocated = True
            continue  # else the formula of another element (a conditional format's `<xm:f>`)
        boundary = _CELL_BOUNDARY.search(text, m.end(), m.end() + MAX_CARRY)
        if boundary is None:
            if len(text) < m.end() + MAX_CARRY:
                return opening  # the cell ends in the next block
            layout.formulas_unlocated = True
            continue
        if not boundary.group().startswith(b"</"):  # another cell opens first: this one is malformed
            layout.formulas_unlocated = True
            continue
        attributes = _attributes(tag.group(2))
        value = _CACHED_VALUE.search(text, m.end(), boundary.start()) or (
            attributes.get("t") == "str" and _ANY_VALUE.search(text, m.end(), boundary.start()))
        if value:
            continue
        where = _reference(attributes.get("r", ""))
        if where is None:
            layout.formulas_unlocated = True  # no usable r="": read.py asks openpyxl where
        else:
            layout.uncached_formulas.add(where)
    return len(text)


def _sheet_bounds(text: bytes, name: str, title: str, layout: SheetLayout) -> None:
    far_row = None  # a row past the bounds with cells in it, `r` or not: refused after the cells' own check
    for m in _LAYOUT_ELEMENT.finditer(text):
        kind, raw = m.group(1), m.group(2)
        if kind == b"row" and far_row is None and _FAR_ROW.search(raw) and not m.group().endswith(b"/>"):
            number = _attributes(raw).get("r", "").strip()
            if number.isdigit() and int(number) > MAX_ROWS:
                far_row = int(number)
        if kind == b"row" and b"hidden" not in raw:
            continue  # the common case: an ordinary row
        attributes = _attributes(raw)
        if kind == b"dimension":
            first, _, last = attributes.get("ref", "").partition(":")
            corner = _reference(last or first)
            if corner and (corner[0] > MAX_ROWS or corner[1] > MAX_COLUMNS):
                raise refuse(name, f"the sheet claims cells up to {(last or first).strip().upper()}; the importer reads at "
                                   f"most {MAX_ROWS:,} rows and {MAX_COLUMNS} columns", title)
        elif kind == b"row":
            if attributes.get("hidden", "").strip() in ("1", "true") and attributes.get("r", "").strip().isdigit():
                layout.hidden_rows.add(int(attributes["r"]))
        elif kind == b"col":
            if attributes.get("hidden", "").strip() in ("1", "true"):
                low, high = _number(attributes.get("min")), _number(attributes.get("max"))
                layout.hidden_columns.update(range(low, min(high, MAX_COLUMNS + 1) + 1))
        else:  # mergeCell
            first, _, last = attributes.get("ref", "").partition(":")
            a, b = _reference(first), _reference(last)
            if a and b:
                merged = (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))
                if merged not in layout.merged:
                    layout.merged.append(merged)
    tags: dict[int, frozenset[int]] = {}
    for m in _FAR_CELL.finditer(text):
        if not _in_cell_tag(text, m.start(), tags):
            continue
        value = html.unescape(m.group(1).decode("utf-8", "replace"))
        where = _reference(value)
        if where is not None and (where[0] > MAX_ROWS or where[1] > MAX_COLUMNS):
            raise refuse(name, f"a cell at {value} is beyond what the importer reads ({MAX_ROWS:,} rows, {MAX_COLUMNS} columns)", title, value)
    if far_row is not None:  # its cells have no `r` the check above could name
        raise refuse(name, f"row {far_row:,} holds cells beyond what the importer reads ({MAX_ROWS:,} rows, {MAX_COLUMNS} columns)",
                     title)


def _number(value: str | None) -> int:
    return int(value) if value and value.strip().isdigit() else 1
