"""The `tables` command line: one face of the library (tables_app.operations).

root: the `tables` group; common: errors, output, the options every command
shares; build: Click commands made from the operations' declared parameters;
lookups (list, show, query), attacks (resolve, odds, simulate), workbooks
(import, lint, export, template, remove, example), database (db), serving
(serve); render, layout, plot, plotting, progress, completion: printing for people.

Nothing here is imported by the library or by the HTTP face (tables_app/http);
this package's own modules are imported by name (the entry point is root.main).
"""
