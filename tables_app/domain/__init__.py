"""The pure domain: ranges, severities, tables, dice, resolution, odds.

Nothing here imports storage, spreadsheet or CLI code; every object is an
immutable value that the storage layer builds once and the resolver reads.
"""
