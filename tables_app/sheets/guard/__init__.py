"""Refuse hostile or broken files before any reader parses them.

A file is told by its bytes, never its name: a zip holding
`xl/workbook.xml` is an Excel workbook (guard/xlsx.py), a zip whose
`mimetype` says OpenDocument spreadsheet is a LibreOffice one (guard/ods.py),
an OLE compound file is a legacy Excel 97–2003 workbook or a
password-protected one (guard/xls.py). Each format's guard reads the file
streaming, with fixed limits, so a refusal is fast and takes bounded memory
whatever the file claims, and each reports the same things (common.py):
the sheets, and in each what calamine cannot be trusted to see (hidden
rows and columns, merged cells, error cells, formulas without a value).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tables_app.files import not_a_file, os_problem
from tables_app.sheets.guard.common import (MAX_COLUMNS, MAX_FILE_BYTES, MAX_ROWS, Inspection, SheetLayout, column_number,
                                            refuse)

if TYPE_CHECKING:  # parts imports zipfile only when a zip file is checked
    import zipfile

__all__ = ["MAX_COLUMNS", "MAX_FILE_BYTES", "MAX_ROWS", "Inspection", "SheetLayout", "check_file", "column_number", "inspect", "refuse"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"


def check_file(path: Path, name: str) -> None:
    """Refuse anything but a regular file, without opening it (a named pipe
    would block): what is there, or the system's reason (a name too long)."""
    try:
        what = not_a_file(path)
        if what is None and not path.exists():
            raise refuse(name, "no such file")
    except OSError as exc:
        raise refuse(name, f"cannot read it ({os_problem(exc)})") from None
    if what is not None:
        raise refuse(name, f"it is {what}, not a file")


def inspect(path: Path, name: str) -> Inspection:
    """Check the file; raise WorkbookInvalid with one clear problem, or say what it holds."""
    check_file(path, name)
    try:
        return _inspect(path, name)
    except OSError as exc:  # the file's own reads (a formats' readers' errors are theirs: parts, xls)
        raise refuse(name, f"cannot read it ({os_problem(exc)})") from None


def _inspect(path: Path, name: str) -> Inspection:
    size = path.stat().st_size
    if size == 0:
        raise refuse(name, "the file is empty")
    if size > MAX_FILE_BYTES:
        raise refuse(name, f"the file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
    with path.open("rb") as handle:
        head = handle.read(4096)
    if head.startswith(OLE_MAGIC):
        from tables_app.sheets.guard import xls

        return xls.inspect(path, name)
    if not head.startswith(b"PK"):
        kind = "a text file (CSV?)" if _looks_like_text(head) else "not a zip or OLE file"
        raise refuse(name, f"not a spreadsheet workbook ({kind}); save it from a spreadsheet program as .xlsx")
    from tables_app.sheets.guard import parts

    with parts.open_archive(path, name) as archive:
        names = set(archive.namelist())
        if "xl/workbook.xml" in names:
            from tables_app.sheets.guard import xlsx

            return xlsx.inspect_archive(archive, name)
        if "mimetype" in names and _mimetype(archive, name) == ODS_MIMETYPE:
            from tables_app.sheets.guard import ods

            return ods.inspect_archive(archive, name)
        raise refuse(name, "a zip file, but not a spreadsheet workbook (no xl/workbook.xml, not an OpenDocument "
                           "spreadsheet); save it as .xlsx")


def _mimetype(archive: zipfile.ZipFile, name: str) -> bytes:
    from tables_app.sheets.guard import parts

    return parts.read_small(archive, "mimetype", name, parts.Budget(), limit=1024).strip()


def _looks_like_text(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in head
