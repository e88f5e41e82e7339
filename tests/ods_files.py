"""OpenDocument spreadsheets (.ods) written by hand, as LibreOffice writes
them: the `mimetype` first and stored, META-INF/manifest.xml, content.xml and
styles.xml; identical neighbouring cells and rows folded into repeats, and
every row and the sheet padded out with huge repeats of empty cells
(1024 columns, 1048576 rows). The tests of the .ods guard build their files,
good and hostile, from these pieces (``content_xml`` gives the XML to edit,
``package`` zips it).
"""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

MIMETYPE = "application/vnd.oasis.opendocument.spreadsheet"
NAMESPACES = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
    'xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" '
    'xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0"'
)
LAST_COLUMN = 1024  # LibreOffice pads every row to this many columns,
LAST_ROW = 1048576  # and the sheet to this many rows
MANIFEST = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
    f'<manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="{MIMETYPE}"/>'
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
    '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>'
    '</manifest:manifest>'
)
STYLES = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    f'<office:document-styles {NAMESPACES} office:version="1.3"><office:styles>'
    '<style:default-style style:family="table-cell"><style:paragraph-properties/></style:default-style>'
    '</office:styles></office:document-styles>'
)
# What LibreOffice writes for a formula whose result is an error: an empty
# string value and the error's name only in the paragraph (``"string"``), or,
# as some other writers do, a zero (``"float"``); ``"legacy"``: as before the
# calcext namespace, a plain string result.
ERROR_CELLS = {
    "string": 'office:value-type="string" office:string-value="" calcext:value-type="error"',
    "float": 'office:value-type="float" office:value="0" calcext:value-type="error"',
    "legacy": 'office:value-type="string" office:string-value=""',
}

Cell = tuple[str, str]  # (attributes, inner XML)


def _value(value: object) -> Cell:
    if value is None:
        return "", ""
    if isinstance(value, bool):
        word = "true" if value else "false"
        return f'office:value-type="boolean" office:boolean-value="{word}" calcext:value-type="boolean"', f"<text:p>{word.upper()}</text:p>"
    if isinstance(value, (int, float)):
        return (f'office:value-type="float" office:value="{value!r}" calcext:value-type="float"',
                f"<text:p>{escape(str(value))}</text:p>")
    if isinstance(value, dt.datetime):
        return (f'office:value-type="date" office:date-value="{value.isoformat()}" calcext:value-type="date"',
                f"<text:p>{value:%m/%d/%y %H:%M}</text:p>")
    if isinstance(value, dt.date):
        return f'office:value-type="date" office:date-value="{value.isoformat()}" calcext:value-type="date"', f"<text:p>{value:%m/%d/%y}</text:p>"
    if isinstance(value, dt.time):
        return (f'office:value-type="time" office:time-value="PT{value.hour:02d}H{value.minute:02d}M{value.second:02d}S" '
                'calcext:value-type="time"', f"<text:p>{value:%H:%M:%S}</text:p>")
    text = str(value)
    paragraphs = "".join(f"<text:p>{escape(line)}</text:p>" for line in text.split("\n"))
    return 'office:value-type="string" calcext:value-type="string"', paragraphs


def _cell(attributes: str, inner: str, repeat: int = 1, covered: bool = False) -> str:
    element = "table:covered-table-cell" if covered else "table:table-cell"
    if repeat > 1:
        attributes = f'table:number-columns-repeated="{repeat}" {attributes}'.strip()
    space = " " if attributes else ""
    return f"<{element}{space}{attributes}>{inner}</{element}>" if inner else f"<{element}{space}{attributes}/>"


def content_xml(sheets: dict[str, list[list[object]]], *, hidden_sheets: tuple[str, ...] = (),
                hidden_rows: dict[str, set[int]] | None = None, hidden_columns: dict[str, set[int]] | None = None,
                merged: dict[str, list[tuple[int, int, int, int]]] | None = None,
                errors: dict[str, dict[tuple[int, int], str]] | None = None, error_style: str = "string",
                formulas: dict[str, dict[tuple[int, int], str]] | None = None,
                compress: bool = True, padding: bool = True) -> str:
    """content.xml for these sheets: rows of values (str, int, float, bool,
    dates, None), each sheet's hidden rows and columns, merged ranges
    (min_row, min_col, max_row, max_col), error cells {(row, column): "#N/A"}
    and formulas {(row, column): "of:=1+1"} (the cell's value in ``sheets``
    is the formula's cached result; None: none). ``compress``: identical
    neighbouring cells and rows as repeats, as LibreOffice writes them."""
    hidden_rows, hidden_columns, merged = hidden_rows or {}, hidden_columns or {}, merged or {}
    errors, formulas = errors or {}, formulas or {}
    tables = []
    for title, rows in sheets.items():
        style = "ta2" if title in hidden_sheets else "ta1"
        covered = {(r, c) for r1, c1, r2, c2 in merged.get(title, []) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)
                   if (r, c) != (r1, c1)}
        spans = {(r1, c1): (r2 - r1 + 1, c2 - c1 + 1) for r1, c1, r2, c2 in merged.get(title, [])}
        width = max([len(row) for row in rows] + [c for _, c in errors.get(title, {})] + [c for _, c in formulas.get(title, {})]
                    + [c2 for *_, c2 in merged.get(title, [])] + [1])
        height = max([len(rows)] + [r for r, _ in errors.get(title, {})] + [r for r, _ in formulas.get(title, {})]
                     + [r2 for _, _, r2, _ in merged.get(title, [])])
        columns = _columns(width, hidden_columns.get(title, set()), padding)
        body = []
        for number in range(1, height + 1):
            row = rows[number - 1] if number <= len(rows) else []
            cells: list[tuple[Cell, bool]] = []
            for column in range(1, width + 1):
                value = row[column - 1] if column <= len(row) else None
                attributes, inner = _value(value)
                if (number, column) in errors.get(title, {}):
                    attributes = ERROR_CELLS[error_style]
                    inner = f"<text:p>{escape(errors[title][(number, column)])}</text:p>"
                if (number, column) in formulas.get(title, {}) or (number, column) in errors.get(title, {}):
                    formula = formulas.get(title, {}).get((number, column), "of:=1/0")
                    attributes = f"table:formula={quoteattr(formula)} {attributes}".strip()
                if (number, column) in spans:
                    rows_spanned, columns_spanned = spans[(number, column)]
                    attributes = (f'table:number-columns-spanned="{columns_spanned}" '
                                  f'table:number-rows-spanned="{rows_spanned}" {attributes}').strip()
                cells.append(((attributes, inner), (number, column) in covered))
            body.append((_row_cells(cells, compress, padding), number in hidden_rows.get(title, set())))
        rows_xml = []
        for index, (xml, hidden) in enumerate(body):
            repeat = 1
            if compress and index and body[index - 1] == (xml, hidden):
                continue  # folded into the row before
            while compress and index + repeat < len(body) and body[index + repeat] == (xml, hidden):
                repeat += 1
            attributes = ' table:style-name="ro1"'
            if repeat > 1:
                attributes += f' table:number-rows-repeated="{repeat}"'
            if hidden:
                attributes += ' table:visibility="collapse"'
            rows_xml.append(f"<table:table-row{attributes}>{xml}</table:table-row>")
        if padding:
            rows_xml.append(f'<table:table-row table:style-name="ro1" table:number-rows-repeated="{LAST_ROW - height}">'
                            f'<table:table-cell table:number-columns-repeated="{LAST_COLUMN}"/></table:table-row>')
        tables.append(f"<table:table table:name={quoteattr(title)} table:style-name={quoteattr(style)}>"
                      + columns + "".join(rows_xml) + "</table:table>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<office:document-content {NAMESPACES} office:version="1.3">'
        "<office:automatic-styles>"
        '<style:style style:name="co1" style:family="table-column"><style:table-column-properties style:column-width="0.889in"/></style:style>'
        '<style:style style:name="ro1" style:family="table-row"><style:table-row-properties style:row-height="0.178in"/></style:style>'
        '<style:style style:name="ta1" style:family="table" style:master-page-name="Default">'
        '<style:table-properties table:display="true" style:writing-mode="lr-tb"/></style:style>'
        '<style:style style:name="ta2" style:family="table" style:master-page-name="Default">'
        '<style:table-properties table:display="false" style:writing-mode="lr-tb"/></style:style>'
        "</office:automatic-styles>"
        "<office:body><office:spreadsheet><table:calculation-settings table:automatic-find-labels=\"false\"/>"
        + "".join(tables)
        + "<table:named-expressions/></office:spreadsheet></office:body></office:document-content>"
    )


def _columns(width: int, hidden: set[int], padding: bool) -> str:
    """The sheet's column elements: runs of visible and hidden columns (with
    ``padding``, up to LAST_COLUMN)."""
    last = max([width, *hidden])
    runs: list[list] = []
    for column in range(1, last + 1):
        state = column in hidden
        if runs and runs[-1][0] == state:
            runs[-1][1] += 1
        else:
            runs.append([state, 1])
    if padding:
        if runs[-1][0]:
            runs.append([False, 0])
        runs[-1][1] += LAST_COLUMN - last
    xml = []
    for state, count in runs:
        repeat = f' table:number-columns-repeated="{count}"' if count > 1 else ""
        visibility = ' table:visibility="collapse"' if state else ""
        xml.append(f'<table:table-column table:style-name="co1"{repeat}{visibility} table:default-cell-style-name="Default"/>')
    return "".join(xml)


def _row_cells(cells: list[tuple[Cell, bool]], compress: bool, padding: bool) -> str:
    """A row's cells, identical neighbours as one repeated cell; with
    ``padding``, trailing empty cells and the rest up to LAST_COLUMN as one."""
    if padding:
        while cells and cells[-1] == (("", ""), False):
            cells = cells[:-1]
    xml = []
    index = 0
    while index < len(cells):
        repeat = 1
        while compress and index + repeat < len(cells) and cells[index + repeat] == cells[index]:
            repeat += 1
        (attributes, inner), covered = cells[index]
        xml.append(_cell(attributes, inner, repeat, covered))
        index += repeat
    if padding:
        xml.append(_cell("", "", LAST_COLUMN - len(cells)))
    return "".join(xml)


def package(path: Path, content: str | bytes, *, styles: str | bytes = STYLES, mimetype: str | bytes = MIMETYPE,
            manifest: str | bytes = MANIFEST, extra: dict[str, bytes] | None = None, omit: tuple[str, ...] = ()) -> Path:
    """Zip the parts as LibreOffice does: `mimetype` first and stored, the rest deflated."""
    parts = {"mimetype": mimetype, "META-INF/manifest.xml": manifest, "content.xml": content, "styles.xml": styles,
             **(extra or {})}
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in parts.items():
            if name in omit:
                continue
            data = data.encode() if isinstance(data, str) else data
            archive.writestr(name, data, compress_type=zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED)
    return path


def write_ods(path: Path, sheets: dict[str, list[list[object]]], **options: object) -> Path:
    """An .ods of these sheets (``content_xml``'s options)."""
    return package(path, content_xml(sheets, **options))  # type: ignore[arg-type]


def xlsx_to_ods(path_xlsx: Path, path_ods: Path) -> Path:
    """The .xlsx's values (cached, as a spreadsheet shows them), hidden sheets,
    rows and columns and merged cells, as LibreOffice would save them."""
    import openpyxl
    from openpyxl.utils import column_index_from_string

    book = openpyxl.load_workbook(path_xlsx, data_only=True)
    sheets, hidden_sheets, hidden_rows, hidden_columns, merged = {}, [], {}, {}, {}
    for sheet in book.worksheets:
        sheets[sheet.title] = [list(row) for row in sheet.iter_rows(values_only=True)] if sheet.max_row > 1 or sheet["A1"].value is not None else []
        if sheet.sheet_state != "visible":
            hidden_sheets.append(sheet.title)
        hidden_rows[sheet.title] = {n for n, d in sheet.row_dimensions.items() if d.hidden}
        hidden_columns[sheet.title] = {column_index_from_string(k) for k, d in sheet.column_dimensions.items() if d.hidden}
        merged[sheet.title] = [(r.min_row, r.min_col, r.max_row, r.max_col) for r in sheet.merged_cells.ranges]
    book.close()
    return write_ods(path_ods, sheets, hidden_sheets=tuple(hidden_sheets), hidden_rows=hidden_rows,
                     hidden_columns=hidden_columns, merged=merged)
