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

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

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
# Every pattern below starts with a literal (an optional namespace prefix like
# `<x:c` would defeat the regex engine's fast literal search and cost 5x), so
# a match is then checked to be inside a tag of the right name (`_in_tag`).
# Only what breaks a bound or is hidden matches, and parts without a
# `hidden=`, `mergeCell` or `<f` are not searched for those at all.
_DIMENSION = re.compile(rb'dimension\b[^>]*\bref="([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?"')
_HIDDEN_ROW = re.compile(rb'row\b([^>]*\bhidden="(?:1|true)"[^>]*)>')
_FAR_CELL = re.compile(rb'r="((?:[A-Z]{3,}|B[M-Z]|[C-Z][A-Z])\d+|[A-Z]+\d{4,})"')
_COL = re.compile(rb"col\b([^>]*)/?>")
_MERGE = re.compile(rb'mergeCell\b[^>]*\bref="([A-Z]+)(\d+):([A-Z]+)(\d+)"')
_ATTR = re.compile(rb'(\w+)="([^"]*)"')
_FORMULA = re.compile(rb"<(?:\w+:)?f[\s>/]")
_CELL_OPENING = re.compile(rb"<(?:\w+:)?c[\s>]")
_CELL_END = re.compile(rb"</(?:\w+:)?c>")
_CELL_REFERENCE = re.compile(rb'\sr="([A-Z]+)(\d+)"')
_TEXT_CELL = re.compile(rb'\st="str"')
_CACHED_VALUE = re.compile(rb"<(?:\w+:)?v>[^<]")
_ANY_VALUE = re.compile(rb"<(?:\w+:)?v[\s>/]")
OVERLAP = 4096  # bytes each block shares with the one before (longer than any one match)
MAX_CARRY = 64 * 1024  # a formula cell longer than this across a block seam is located by openpyxl


def _is_element(text: bytes, start: int) -> bool:
    """The name matched at ``start`` opens an element: `<name` or `<ns:name`."""
    before = text[max(0, start - 33):start]
    if before.endswith(b"<"):
        return True
    prefix = re.search(rb"<\w+:$", before)
    return prefix is not None


def _in_tag(text: bytes, start: int, tag: bytes) -> bool:
    """The attribute matched at ``start`` belongs to a `<tag ...>` or `<ns:tag ...>`
    (not to another element, nor to cell text that merely looks like one)."""
    if start == 0 or text[start - 1] not in b" \t\r\n":
        return False
    opening = text.rfind(b"<", 0, start)
    if opening < 0 or text.find(b">", opening, start) >= 0:
        return False
    name = re.match(rb"<([\w:.-]+)", text[opening:start])
    return name is not None and name.group(1).rpartition(b":")[2] == tag


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
    targets = {}
    for rel in rels:
        if rel.get("Type", "").endswith("/chartsheet"):
            continue  # no cells; openpyxl does not read it as a worksheet either
        target = rel.get("Target", "")
        path = target.lstrip("/") if target.startswith("/") else str(PurePosixPath("xl") / target)
        targets[rel.get("Id")] = str(PurePosixPath(path))
    parts = {}
    for element in book.iter():
        if element.tag.endswith("}sheet") or element.tag == "sheet":
            rid = next((v for k, v in element.attrib.items() if k.endswith("}id")), None)
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
                    _sheet_bounds(text, name, title, layout)
                    if b"<f" in text or b":f" in text:
                        unfinished = _note_uncached_formulas(text, layout)
                        if len(text) - unfinished > MAX_CARRY:  # a formula cell too long to carry over
                            layout.formulas_unlocated = True
                        else:
                            keep = min(keep, unfinished)
                tail = text[max(0, keep):]
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as exc:
        raise refuse(name, f"part {member.filename} is truncated or corrupt ({exc})") from None


def _note_uncached_formulas(text: bytes, layout: SheetLayout) -> int:
    """Note each formula cell without a cached value; say where a formula cell
    that ends beyond ``text`` starts (else the end of ``text``).

    Cached means a non-empty `<v>`, or any `<v>` in a text cell (`t="str"`:
    a formula whose result is ""). openpyxl writes `<v />` for every formula.
    """
    for m in _FORMULA.finditer(text):
        opening = text.rfind(b"<", 0, m.start())  # a cell's formula is its first child
        if opening < 0 or not _CELL_OPENING.match(text, opening):
            continue  # not a cell's formula: openpyxl decides what it is
        end = _CELL_END.search(text, m.end())
        if end is None:
            return opening
        tag = text[opening:m.start()]
        if _CACHED_VALUE.search(text, m.end(), end.start()) or (_TEXT_CELL.search(tag) and _ANY_VALUE.search(text, m.end(), end.start())):
            continue
        reference = _CELL_REFERENCE.search(tag)
        if reference is None:
            layout.formulas_unlocated = True  # a cell without r="": read.py asks openpyxl where
        else:
            layout.uncached_formulas.add((int(reference.group(2)), column_number(reference.group(1))))
    return len(text)


def _sheet_bounds(text: bytes, name: str, title: str, layout: SheetLayout) -> None:
    for m in _DIMENSION.finditer(text):
        if not _is_element(text, m.start()):
            continue
        rows = int(m.group(4) or m.group(2))
        columns = column_number(m.group(3) or m.group(1))
        if rows > MAX_ROWS or columns > MAX_COLUMNS:
            last = (m.group(3) or m.group(1)).decode() + (m.group(4) or m.group(2)).decode()
            raise refuse(name, f"the sheet claims cells up to {last}; the importer reads at most {MAX_ROWS:,} rows and {MAX_COLUMNS} columns", title)
    for m in _FAR_CELL.finditer(text):
        if not _in_tag(text, m.start(), b"c"):
            continue
        cell = m.group(1).decode()
        letters = cell.rstrip("0123456789")
        if int(cell[len(letters):]) > MAX_ROWS or column_number(letters) > MAX_COLUMNS:
            raise refuse(name, f"a cell at {cell} is beyond what the importer reads ({MAX_ROWS:,} rows, {MAX_COLUMNS} columns)", title, cell)
    if b"hidden=" in text:
        for m in _HIDDEN_ROW.finditer(text):
            attributes = dict(_ATTR.findall(m.group(1)))
            if _is_element(text, m.start()) and attributes.get(b"r", b"").isdigit():
                layout.hidden_rows.add(int(attributes[b"r"]))
        for m in _COL.finditer(text):
            attributes = dict(_ATTR.findall(m.group(1)))
            if _is_element(text, m.start()) and attributes.get(b"hidden") in (b"1", b"true"):
                low, high = int(attributes.get(b"min", b"1")), int(attributes.get(b"max", b"1"))
                layout.hidden_columns.update(range(low, min(high, MAX_COLUMNS + 1) + 1))
    if b"mergeCell" in text:
        for m in _MERGE.finditer(text):
            if not _is_element(text, m.start()):
                continue
            a, b = (column_number(m.group(1)), int(m.group(2))), (column_number(m.group(3)), int(m.group(4)))
            merged = (min(a[1], b[1]), min(a[0], b[0]), max(a[1], b[1]), max(a[0], b[0]))
            if merged not in layout.merged:
                layout.merged.append(merged)
