"""A declared XML encoding no reader can read (unknown to Python, not a text
encoding, multi-byte, or contradicted by the part's bytes) is one refusal,
the same for every XML part of every format (issue 27)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from helpers import build_workbook, declaring, refused, rewrite
from ods_files import MANIFEST, package, content_xml

from tables_app.errors import WorkbookInvalid
from tables_app.sheets import guard

META = ('<?xml version="1.0" encoding="UTF-8"?><office:document-meta '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" office:version="1.2"><office:meta/>'
        '</office:document-meta>')
XLSX_PARTS = ("xl/worksheets/sheet1.xml", "xl/styles.xml", "[Content_Types].xml", "docProps/core.xml",
              "docProps/app.xml", "xl/workbook.xml", "xl/_rels/workbook.xml.rels", "_rels/.rels", "xl/theme/theme1.xml")
ODS_PARTS = ("content.xml", "styles.xml", "meta.xml", "META-INF/manifest.xml")
# unknown; not a text encoding; exists but expat cannot use it (multi-byte, or not the bytes' own)
ENCODINGS = ("bogus-enc", "rot13", "base64", "utf-7", "utf-32", "utf-16", "cp037")
REFUSAL = "the encoding{} is unknown, unsupported or not the one its bytes are in (save the workbook from a spreadsheet program)"


def xlsx(folder: Path) -> Path:
    return build_workbook(folder / "book.xlsx", {"S": [[1, 2], [3, 4]]})


def ods(folder: Path) -> Path:
    return package(folder / "book.ods", content_xml({"S": [[1, 2], [3, 4]]}), extra={"meta.xml": META.encode()},
                   manifest=MANIFEST)


def one_part_declaring(folder: Path, suffix: str, part: str, encoding: str) -> Path:
    source = xlsx(folder) if suffix == "xlsx" else ods(folder)
    with zipfile.ZipFile(source) as archive:
        assert part in archive.namelist()
    return rewrite(source, folder / f"bad.{suffix}", part, declaring(encoding))


CASES = [("xlsx", part) for part in XLSX_PARTS] + [("ods", part) for part in ODS_PARTS]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("suffix, part", CASES)
def test_the_guard_refuses_an_encoding_it_cannot_read_in_any_part(tmp_path, suffix, part, encoding):
    path = one_part_declaring(tmp_path, suffix, part, encoding)
    with pytest.raises(WorkbookInvalid) as caught:
        guard.inspect(path, path.name)
    message = str(caught.value)
    sheet = " › S" if part == "xl/worksheets/sheet1.xml" else ""
    assert message == f"bad.{suffix}{sheet}: part {part}: " + REFUSAL.format(f" ({encoding!r})")


@pytest.mark.parametrize("suffix, part", CASES)
def test_reading_refuses_it_the_same_way(tmp_path, suffix, part):
    """Through read_workbook: the sandboxed calamine child reading alongside changes nothing."""
    path = one_part_declaring(tmp_path, suffix, part, "bogus-enc")
    assert refused(path).endswith(f"part {part}: " + REFUSAL.format(" ('bogus-enc')"))


@pytest.mark.parametrize("suffix, part", [("xlsx", "xl/styles.xml"), ("xlsx", "xl/worksheets/sheet1.xml"),
                                          ("ods", "styles.xml"), ("ods", "meta.xml")])
def test_encodings_expat_reads_still_pass(tmp_path, suffix, part):
    for encoding in ("UTF-8", "utf8", "ISO-8859-1", "US-ASCII"):
        path = one_part_declaring(tmp_path, suffix, part, encoding)
        guard.inspect(path, path.name)


def utf16_declaring(encoding: str):  # type: ignore[no-untyped-def]
    """The part in UTF-16, after its byte-order mark, declaring ``encoding``."""
    def change(data: bytes) -> bytes:
        text = declaring(encoding)(data).decode()
        return "\ufeff".encode("utf-16-le") + text.encode("utf-16-le")
    return change


@pytest.mark.parametrize("suffix, part", [("xlsx", "xl/styles.xml"), ("xlsx", "xl/workbook.xml"), ("ods", "styles.xml")])
@pytest.mark.parametrize("change, shown", [
    (utf16_declaring("bogus-enc"), " ('bogus-enc')"),  # found after the byte-order mark
    (declaring("x" * 100), " ('" + "x" * 40 + "…')"),  # a long name is cut
    (declaring("x" * 300), ""),  # beyond the part's first bytes: not quoted at all
])
def test_odd_declarations_get_the_same_refusal(tmp_path, suffix, part, change, shown):
    source = xlsx(tmp_path) if suffix == "xlsx" else ods(tmp_path)
    path = rewrite(source, tmp_path / f"bad.{suffix}", part, change)
    assert refused(path) == f"bad.{suffix}: part {part}: " + REFUSAL.format(shown)
