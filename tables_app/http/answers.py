"""The answers of the HTTP API (app.py, fights.py): the body exactly as
``--json`` prints it, the error object with its status, a request's JSON
body read within its limit, and the documentation of a route's fields
(query string or body) as /docs shows them, from its operation's
declared parameters."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from tables_app.errors import error_json
from tables_app.http.bodies import Gone, KeyTwice, TooLarge, drain, json_of, read_body
from tables_app.operations import Operation
from tables_app.operations.params import json_kind


class CliJSON(JSONResponse):
    """The body exactly as ``--json`` prints it (json.dumps, ensure_ascii=False), without the newline."""

    def render(self, content: Any) -> bytes:
        # a lone surrogate (JSON's "\udcff" in a body) as that escape again, as --json prints it
        return _ENCODER.encode(content).encode("utf-8", "backslashreplace")


_ENCODER = json.JSONEncoder(ensure_ascii=False)  # json.dumps(ensure_ascii=False)'s, made once, not per answer


def failure(status: int, error: dict[str, Any]) -> CliJSON:
    return CliJSON({"error": error}, status_code=status)


MAX_BODY_BYTES = 64 * 1024  # a resolve or odds body is a few hundred bytes; an upload has its own limit


async def json_object(request: Request) -> dict[str, Any] | CliJSON:
    """The request's body as a JSON object, or the 413/415/422 answer refusing it.
    Read here, not by a FastAPI model: the command's Click parameters check
    every field, and a model would only repeat them more slowly. Only a body
    declared JSON is read: a page of another site can send any other type
    without the browser's preflight (the CPU of a sweep, at no cost to it)."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json" and not media.endswith("+json"):
        await drain(request.receive)
        return failure(415, error_json(f"send the body as JSON (Content-Type: application/json), not {media or 'untyped'}"))
    parts: list[bytes] = []
    try:
        await read_body(request, MAX_BODY_BYTES, parts.append)
    except TooLarge:
        return failure(413, error_json(f"the body is over {MAX_BODY_BYTES:,} bytes"))
    except Gone:
        return failure(400, error_json("the client went away before the body ended"))
    try:
        body = json_of(b"".join(parts))
    except KeyTwice as exc:
        return failure(422, error_json(f"the request is not as expected: {exc}"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        return failure(422, error_json(f"the request is not as expected (the body must be a JSON object): {exc}"))
    if not isinstance(body, dict):
        return failure(422, error_json("the request is not as expected (the body must be a JSON object), "
                                       f"not {json_kind(body)}"))
    return body


def query_doc(operation: Operation, *in_path: str) -> dict[str, Any]:
    """The query string of a GET route as /docs shows it: the operation's
    parameters but those of the path, each with its schema and help."""
    return {"parameters": [
        {"name": p.field, "in": "query", "required": p.required, "description": p.help, "schema": p.schema(),
         **({"style": "form", "explode": True} if p.multiple else {})}
        for p in operation.params if p.field not in in_path]}


def json_body_doc(operation: Operation, examples: dict[str, dict[str, Any]], *in_path: str) -> dict[str, Any]:
    """The request body of a POST route as /docs shows it: a JSON object of
    the operation's parameters but those of the path (required ones marked), with examples."""
    params = [p for p in operation.params if p.field not in in_path]
    shape: dict[str, Any] = {"type": "object", "additionalProperties": False,
                             "properties": {p.field: p.schema() for p in params},
                             "required": [p.field for p in params if p.required]}
    if not shape["required"]:
        del shape["required"]
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": shape, "examples": examples}}}}
