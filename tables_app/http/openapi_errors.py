"""The error answers of the HTTP API as the OpenAPI document declares them
(docs/api.md, "Statuses"): every status a route can send, each with the
error object the server really sends, ``{"error": {"message", "workbook",
"sheet", "cell", ...}}`` (errors.error_json), and an import's refusal with
its report. FastAPI would declare 422 as its own ``{"detail": [...]}``,
which this server never sends; that is taken out.
"""

from __future__ import annotations

from typing import Any, Callable

from fastapi import FastAPI

PREFIX = "/api/v1"
NULLABLE_TEXT = {"type": ["string", "null"]}
PROBLEM = {
    "type": "object", "required": ["message"],
    "properties": {"workbook": NULLABLE_TEXT, "sheet": NULLABLE_TEXT, "cell": NULLABLE_TEXT, "message": {"type": "string"}},
}
ERROR = {
    "type": "object", "required": ["error"], "additionalProperties": False,
    "properties": {"error": {
        "type": "object", "required": ["message", "workbook", "sheet", "cell"],
        "properties": {
            "message": {"type": "string", "minLength": 1, "description": "One line, as the command line's `Error:` line."},
            "workbook": NULLABLE_TEXT, "sheet": NULLABLE_TEXT, "cell": NULLABLE_TEXT,
            "suggestions": {"type": "array", "items": {"type": "string"},
                            "description": "The closest known names (an unknown or ambiguous name)."},
            "problems": {"type": "array", "items": {"$ref": "#/components/schemas/Problem"},
                         "description": "Every problem of a workbook (the first is the message)."},
        },
    }},
}
IMPORT_REPORT = {
    "type": "object", "required": ["written", "workbooks", "errors"],
    "properties": {"written": {"type": "boolean"}, "workbooks": {"type": "array", "items": {"type": "object"}},
                   "errors": {"type": "array", "items": {"$ref": "#/components/schemas/Problem"}}},
    "description": "`tables import --json`'s report; on a refusal `errors` lists every problem.",
}
SCHEMAS = {"Error": ERROR, "Problem": PROBLEM, "ImportReport": IMPORT_REPORT}

WHEN = {
    "400": "Without a token, a request addressed to a name other than localhost, 127.0.0.1 or [::1]; a client gone before its body ended; "
           "a request that is not HTTP/1.1.",
    "401": "The server has a token and the request did not give it (`Authorization: Bearer TOKEN`).",
    "403": "Without a token, a request a page of another site made (its `Origin` neither the server's own nor a "
           "--cors-origin one, or `Sec-Fetch-Site: cross-site`); an import on a server started without --allow-import.",
    "404": "An unknown name (table, weapon, creature, ruleset, armor column, severity, fight, combatant): "
           "`suggestions` has the closest.",
    "405": "A method this path is not taken in: `Allow` names those it is.",
    "408": "The request's headers, or a read of its body, slower than --header-timeout or --body-timeout.",
    "409": "An import while another import of this server runs; a fight's write whose `after` is behind its log "
           "(another writer moved it on: show it again, then retry).",
    "413": "A body over 64 KB (an upload: over --max-upload).",
    "414": "A URL over 32 KB.",
    "415": "A body not declared application/json.",
    "422": "Bad fields: missing, malformed, out of bounds, not valid Unicode, unknown, or that cannot go together; "
           "a key given twice in a body; a step a fight's rules refuse (a stunned attacker, a fight over).",
    "431": "Headers over 64 KB.",
    "503": "The database cannot be read (damaged, locked too long); a connection past --max-connections.",
}


def statuses(path: str, method: str) -> list[str]:
    """The error statuses ``method path`` can answer."""
    if not path.startswith(PREFIX):
        return []
    found = ["400", "403", "405", "408", "414", "431", "503"]
    if path != f"{PREFIX}/health":
        found += ["401", "404", "422"]
    if method == "post":
        found += ["413"] + (["409"] if path == f"{PREFIX}/import" else ["415"])
        if path.startswith(f"{PREFIX}/fights/"):  # a fight's write, after the seq it saw
            found.append("409")
    return sorted(found)


def _response(path: str, status: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"$ref": "#/components/schemas/Error"}
    if path == f"{PREFIX}/import" and status == "422":
        schema = {"oneOf": [{"$ref": "#/components/schemas/ImportReport"}, schema]}
    return {"description": WHEN[status], "content": {"application/json": {"schema": schema}}}


def declare_errors(app: FastAPI) -> None:
    """``app``'s OpenAPI document (made once, on first ask) with the errors it really sends."""
    made: Callable[[], dict[str, Any]] = app.openapi

    def document() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = made()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        components.update(SCHEMAS)
        for path, operations in schema.get("paths", {}).items():
            for method, operation in operations.items():
                responses = operation.setdefault("responses", {})
                for status in statuses(path, method):
                    responses[status] = _response(path, status)
        app.openapi_schema = schema
        return schema

    app.openapi = document  # type: ignore[method-assign]
