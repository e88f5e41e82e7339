"""The zip container of .xlsx and .ods files, and their XML parts, read the
way a hostile file cannot exploit: a bounded number of parts, declared sizes
and compression ratios checked before anything is unpacked, real bytes
counted against what each part declares, and XML parsed by expat, streaming,
with DOCTYPEs and entities refused.

Every exception the zip, zlib and expat modules raise on bad bytes becomes
one WorkbookInvalid naming the part; a declared encoding expat cannot read
(unknown to Python, not a text encoding, multi-byte, or contradicted by the
bytes) is one refusal, the same for every part of every format.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn
from xml.parsers import expat

from tables_app.errors import WorkbookInvalid
from tables_app.sheets.guard.common import refuse

MAX_MEMBERS = 2_000
MAX_UNPACKED_BYTES = 100 * 1024 * 1024  # all parts together, as declared and as read (Rolemaster scale: ~10 MB)
MAX_RATIO = 200  # a part may unpack to at most 200× its packed size (beyond 1 MB)
CHUNK = 1 << 20
# expat's errors for a declared encoding it has no decoder for, or one the
# part's bytes contradict (UTF-16 declared on single-byte text).
ENCODING_ERRORS = (expat.errors.codes[expat.errors.XML_ERROR_UNKNOWN_ENCODING],
                   expat.errors.codes[expat.errors.XML_ERROR_INCORRECT_ENCODING])
_DECLARED = re.compile(rb"""(?:\xef\xbb\xbf)?<\?xml[^>]*?encoding\s*=\s*["']([^"'>]*)["']""")
NAME_SHOWN = 40  # characters of a declared encoding's name the refusal quotes
# What the zip and zlib modules raise on a corrupt, encrypted or unsupported
# member (a bad CRC, corrupt deflate data, an encryption bit, an unknown
# compression method or zip version).
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError,
              NotImplementedError, RuntimeError, KeyError, IndexError, OverflowError, UnicodeDecodeError)


def open_archive(path: Path, name: str) -> zipfile.ZipFile:
    """The file as a zip whose table of contents passes the size checks."""
    try:
        archive = zipfile.ZipFile(path)
    except ZIP_ERRORS as exc:
        raise refuse(name, f"the file is truncated or corrupt ({_reason(exc)})") from None
    try:
        check_members(archive, name)
    except BaseException:
        archive.close()
        raise
    return archive


def check_members(archive: zipfile.ZipFile, name: str) -> None:
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise refuse(name, f"the workbook has {len(members):,} parts; the limit is {MAX_MEMBERS:,}")
    declared = sum(m.file_size for m in members)
    if declared > MAX_UNPACKED_BYTES:
        raise refuse(name, f"the workbook unpacks to {declared:,} bytes; the limit is {MAX_UNPACKED_BYTES:,} (a zip bomb?)")
    for member in members:
        if member.file_size > CHUNK and member.file_size > MAX_RATIO * max(member.compress_size, 1):
            raise refuse(name, f"part {member.filename} unpacks {member.file_size // max(member.compress_size, 1):,} "
                               "times its size (a zip bomb?)")
        if member.flag_bits & 0x1:
            raise refuse(name, f"part {member.filename} is encrypted; save the workbook without a password and import that")


class Budget:
    """Bytes that all parts of one file may still unpack to, as really read."""

    def __init__(self, total: int = MAX_UNPACKED_BYTES):
        self.left = total


def read_small(archive: zipfile.ZipFile, member: str, name: str, budget: Budget, limit: int = 10 * CHUNK) -> bytes:
    """A small part (a part list, a manifest) whole."""
    info = archive.getinfo(member)
    if info.file_size > limit:
        raise refuse(name, f"part {member} is {info.file_size:,} bytes; too large for a part list")
    return b"".join(blocks(archive, info, name, budget))


def blocks(archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str, budget: Budget) -> Iterator[bytes]:
    """A part's bytes, a block at a time, never more than it declares."""
    read = 0
    try:
        with archive.open(member) as stream:
            while block := stream.read(CHUNK):
                read += len(block)
                budget.left -= len(block)
                if read > member.file_size or budget.left < 0:
                    raise refuse(name, f"part {member.filename} unpacks to more than it declares (a zip bomb?)")
                yield block
    except ZIP_ERRORS as exc:
        raise refuse(name, f"part {member.filename} is truncated or corrupt ({_reason(exc)})") from None


class _Refused(Exception):
    """Raised inside an expat handler; carries the refusal out of Parse()."""

    def __init__(self, refusal: WorkbookInvalid):
        self.refusal = refusal


def parser(name: str, part: str, sheet: str | None = None) -> expat.XMLParserType:
    """An expat parser (no namespace processing: elements come as written,
    `x:row` or `row`) that refuses a DOCTYPE or any entity declaration.
    Encodings are expat's: UTF-8, UTF-16 (by its byte-order mark or
    declaration), ISO-8859-1 and US-ASCII; a part in any other is refused."""
    xml = expat.ParserCreate()

    def doctype(*_: object) -> None:
        raise _Refused(refuse(name, f"part {part} declares a DOCTYPE or entities (an XML bomb?); refused", sheet))

    xml.StartDoctypeDeclHandler = doctype
    xml.EntityDeclHandler = doctype
    xml.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    xml.buffer_text = True
    return xml


def parse(xml: expat.XMLParserType, archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str, budget: Budget,
          sheet: str | None = None) -> None:
    """Feed a part to ``xml``; refusals raised by its handlers (as
    ``raise_refusal``) and XML errors come out as WorkbookInvalid."""
    head = b""
    try:
        for block in blocks(archive, member, name, budget):
            if not head:
                head = block[:256]
            xml.Parse(block, False)
        xml.Parse(b"", True)
    except _Refused as refused:
        raise refused.refusal from None
    except LookupError as exc:
        if type(exc) is LookupError:  # expat asked Python's codecs for the declared encoding: none, or not a text one
            raise encoding_refusal(name, member.filename, head, sheet) from None
        raise refuse(name, f"part {member.filename} cannot be read ({_reason(exc)})", sheet) from None
    except expat.ExpatError as exc:
        if exc.code in ENCODING_ERRORS:
            raise encoding_refusal(name, member.filename, head, sheet) from None
        raise refuse(name, f"part {member.filename} is not well-formed XML ({expat.ErrorString(exc.code)}, "
                           f"line {exc.lineno})", sheet) from None
    except (RecursionError, MemoryError, UnicodeError, ValueError, OverflowError) as exc:
        if isinstance(exc, ValueError):  # a codec expat cannot use ("multi-byte encodings are not supported")
            check_encoding(name, member.filename, head, sheet)
        raise refuse(name, f"part {member.filename} cannot be read ({_reason(exc)})", sheet) from None


def declared_encoding(head: bytes) -> str | None:
    """The encoding a part's XML declaration names, if it names one in ASCII
    (in UTF-8, or in UTF-16 after its byte-order mark)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        head = head.decode("utf-16", "replace").encode("ascii", "replace")
    found = _DECLARED.match(head)
    if found is None:
        return None
    text = found.group(1).decode("ascii", "replace")
    return text if len(text) <= NAME_SHOWN else text[:NAME_SHOWN] + "…"


def encoding_refusal(name: str, part: str, head: bytes, sheet: str | None = None) -> WorkbookInvalid:
    """The one refusal for a part whose declared encoding cannot be read."""
    declared = declared_encoding(head)
    named = f" ({declared!r})" if declared else ""
    return refuse(name, f"part {part}: the encoding{named} is unknown, unsupported or not the one its bytes are in "
                        "(save the workbook from a spreadsheet program)", sheet)


def check_encoding(name: str, part: str, head: bytes, sheet: str | None = None) -> None:
    """Refuse, as `parse` would, a part whose declared encoding expat cannot
    read: its XML declaration, alone, parsed by a fresh parser."""
    declared = _DECLARED.match(head)
    if declared is None:
        return
    end = head.find(b"?>", declared.end())
    if end < 0:
        return
    xml = expat.ParserCreate()
    try:
        xml.Parse(head[:end + 2] + b"<x/>", True)
    except LookupError:
        raise encoding_refusal(name, part, head, sheet) from None
    except expat.ExpatError as exc:
        if exc.code in ENCODING_ERRORS:
            raise encoding_refusal(name, part, head, sheet) from None
    except ValueError:
        raise encoding_refusal(name, part, head, sheet) from None


def raise_refusal(refusal: WorkbookInvalid) -> NoReturn:
    """From inside an expat handler: stop the parse with this refusal."""
    raise _Refused(refusal)


def _reason(exc: BaseException) -> str:
    """What went wrong, in the library's words (its first line), else the kind of error."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
