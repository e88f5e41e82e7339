"""Damaged .xlsx files: whatever a byte flip or a cut does to the zip or its
XML, reading ends in a read or in one WorkbookInvalid, never another
exception (issue 17, item 3: corrupt deflate data, an encryption bit, an
unknown compression method or zip version once gave tracebacks)."""

from __future__ import annotations

import random
import struct
import zipfile

import pytest
from helpers import build_workbook

from tables_app.errors import WorkbookInvalid
from tables_app.sheets import guard
from tables_app.sheets.read import read_workbook

ROWS = [["Kind", "fumble"], ["Name", "Oops"], [], ["Roll", "Text", "Hits"],
        *[[f"{n * 10 + 1}-{n * 10 + 10}", f"Slip number {n}.", n] for n in range(10)]]


@pytest.fixture(scope="module")
def workbook(tmp_path_factory):
    return build_workbook(tmp_path_factory.mktemp("mutations") / "book.xlsx", {"F": ROWS})


def outcome(path, read=guard.inspect) -> str:  # type: ignore[no-untyped-def]
    try:
        read(path, "book.xlsx")
    except WorkbookInvalid as refusal:
        assert "\n" not in str(refusal) and str(refusal).startswith("book.xlsx"), str(refusal)
        return "refused"
    return "read"


def mutants(data: bytes, seed: int, count: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    for _ in range(count):
        mutant = bytearray(data)
        match rng.randrange(4):
            case 0:  # one byte flipped anywhere
                mutant[rng.randrange(len(mutant))] ^= 1 << rng.randrange(8)
            case 1:  # a few bytes set at random
                for _ in range(rng.randint(2, 6)):
                    mutant[rng.randrange(len(mutant))] = rng.randrange(256)
            case 2:  # cut short
                del mutant[rng.randrange(1, len(mutant)):]
            case 3:  # a run of bytes repeated
                start = rng.randrange(len(mutant))
                mutant[start:start] = mutant[start:start + rng.randint(1, 64)] * rng.randint(2, 50)
        yield bytes(mutant)


def test_300_damaged_files_are_read_or_refused_by_the_guard(workbook, tmp_path):
    seen = {"read": 0, "refused": 0}
    for n, mutant in enumerate(mutants(workbook.read_bytes(), seed=17, count=300)):
        path = tmp_path / f"m{n}.xlsx"
        path.write_bytes(mutant)
        seen[outcome(path)] += 1
    assert seen["refused"] > 100 and seen["read"] > 0, seen  # the mutations bite, and some are harmless


def test_40_damaged_files_are_read_or_refused_end_to_end(workbook, tmp_path):
    """Through both readers: what the guard passes, calamine's child and openpyxl read or refuse cleanly."""
    for n, mutant in enumerate(mutants(workbook.read_bytes(), seed=71, count=40)):
        path = tmp_path / f"m{n}.xlsx"
        path.write_bytes(mutant)
        for reader in ("calamine", "openpyxl"):
            outcome(path, lambda p, name: read_workbook(p, name, reader=reader))


def _patched(workbook, tmp_path, change) -> str:  # type: ignore[no-untyped-def]
    data = bytearray(workbook.read_bytes())
    change(data)
    path = tmp_path / "patched.xlsx"
    path.write_bytes(bytes(data))
    try:
        read_workbook(path, "book.xlsx")
    except WorkbookInvalid as refusal:
        return str(refusal)
    return "read"


SHEET = b"xl/worksheets/sheet1.xml"


def _sheet_entry(data: bytearray, signature: bytes, name_offset: int) -> int:
    offset = data.index(signature)
    while data[offset + name_offset:offset + name_offset + len(SHEET)] != SHEET:
        offset = data.index(signature, offset + 4)
    return offset


def test_corrupt_deflate_data_is_refused_naming_the_part(workbook, tmp_path):
    def corrupt(data: bytearray) -> None:
        start = _sheet_entry(data, b"PK\x03\x04", 30)
        body = start + 30 + struct.unpack_from("<H", data, start + 26)[0] + struct.unpack_from("<H", data, start + 28)[0]
        data[body:body + 8] = b"\xff" * 8

    assert _patched(workbook, tmp_path, corrupt).startswith("book.xlsx: part xl/worksheets/sheet1.xml is truncated or corrupt (")


def test_an_encryption_bit_is_refused(workbook, tmp_path):
    def encrypt(data: bytearray) -> None:
        for signature, flags, name in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
            entry = _sheet_entry(data, signature, name)
            struct.pack_into("<H", data, entry + flags, struct.unpack_from("<H", data, entry + flags)[0] | 1)

    assert _patched(workbook, tmp_path, encrypt) == (
        "book.xlsx: part xl/worksheets/sheet1.xml is encrypted; save the workbook without a password and import that")


@pytest.mark.parametrize("field, value, expected", [
    (10, 99, "part xl/worksheets/sheet1.xml is truncated or corrupt (That compression method is not supported)"),
    (6, 64, "the file is truncated or corrupt (zip file version 6.4)"),  # "version needed to extract", seen on opening
])
def test_an_unknown_compression_method_or_zip_version_is_refused(workbook, tmp_path, field, value, expected):
    def unknown(data: bytearray) -> None:
        entry = _sheet_entry(data, b"PK\x01\x02", 46)
        struct.pack_into("<H", data, entry + field, value)
        local = _sheet_entry(data, b"PK\x03\x04", 30)
        struct.pack_into("<H", data, local + field - 2, value)

    assert _patched(workbook, tmp_path, unknown) == f"book.xlsx: {expected}"


def test_a_zip_file_that_lists_the_workbook_but_whose_part_is_missing_data(workbook, tmp_path):
    with zipfile.ZipFile(workbook) as source:
        names = source.namelist()
    assert SHEET.decode() in names
    assert _patched(workbook, tmp_path, lambda d: d.__delitem__(slice(len(d) // 2, len(d) - 200))).startswith("book.xlsx: ")
