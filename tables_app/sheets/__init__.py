"""Spreadsheets: openpyxl in (read.py), interpretation (parse.py), openpyxl out."""
