"""Spreadsheets, in and out.

In: a workbook file is told by its bytes and checked by its format's guard
(guard/: xlsx, ods, xls, streaming, with fixed limits), its values read by
python-calamine in a sandboxed child process (calamine_read.py; openpyxl
reads an .xlsx where no child can start) and cleaned and bounded (read.py,
raw.py), then interpreted sheet by sheet into the import model (parse.py
and the *_sheet modules, docs/workbook-format.md), with quality warnings
(quality.py). Out: openpyxl writes tables back in the import format, and
blank templates (write.py).

Its place: beside storage/, above the domain. It imports domain/,
import_model.py and errors.py only, never storage/, services/ or a face;
services/ drives it (domain ← storage, sheets ← services).
"""
