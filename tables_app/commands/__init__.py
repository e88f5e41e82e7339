"""The commands of `tables`, by group; tables_app/cli.py assembles them.

common: what every command shares (errors, output, options, ``answers``);
workbooks: import, lint, export, template, remove, example; lookups: list,
show, query; attacks: resolve, odds, simulate (the d100 tables and the
formula systems); serving: serve and the HTTP API's answers; database: db.
"""
