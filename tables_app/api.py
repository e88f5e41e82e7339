"""The HTTP API of `tables serve` (docs/api.md): the CLI's ``--json`` answers over HTTP.

Thin on purpose: HTTP only. Each endpoint hands its path, query string or
JSON body, as ``(name, value)`` fields, to the CLI's ``answer_fields``
(given to create_app), which makes them the arguments of the command that
answers the same question, lets that command's own Click parameters check
them (the bounds and types of every option live there only), and calls the
command's data function in one read transaction. This module returns the
answer, or the CLI's error object with an HTTP status for its kind.

Read-only: nothing here imports, removes or writes a file. Needs the
``serve`` extra (FastAPI; uvicorn to run it); the CLI imports this module
only in `tables serve`, and this module never imports the CLI.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Callable, Iterable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from tables_app import __version__
from tables_app.api_bodies import Gone, TooLarge, drain, read_body
from tables_app.errors import TablesError, error_json
from tables_app.storage.database import Database
from tables_app.web import add_page

# cli.answer_fields: (database, command names, fields, path fields, limits) -> (kind, answer or error object)
Answer = Callable[..., tuple[str, dict]]
MAX_SIMULATED = 1_000_000  # attacks per simulate request: about a second of CPU (the command line takes 100,000,000)
STATUS = {"answer": 200, "missing": 404, "refused": 422, "unavailable": 503}
PREFIX = "/api/v1"

DESCRIPTION = """\
The answers of the `tables` command over HTTP: every response is exactly
what the same command prints with `--json` (docs/cli.md has the shapes).
Read-only unless the server was started with `--allow-import` (and a
token): then POST /api/v1/import takes workbooks. With a token
(TABLES_TOKEN), every request but health sends `Authorization: Bearer TOKEN`.

Names in paths and query strings are URL-encoded and may be qualified
`RULESET:NAME`; `ruleset` works as `--ruleset`. The bodies of resolve and
odds hold the command's long options, dashes as underscores
(`sweep_cmb` for `--sweep-cmb`): a list repeats an option (`has`, `mod`),
`true` sets a flag, `dice` is a list of numbers.

Errors are `{"error": {"message", "workbook", "sheet", "cell", "suggestions"?}}`,
the object `--json` prints: 404 for an unknown name (with the closest known
names in `suggestions`), 422 for bad options or values, 401 without the
token, 413 for a body over its limit, 415 for a body not declared JSON,
503 when the database file cannot be read.
"""

RESOLVE_EXAMPLES = {
    "table": {"summary": "table: forced dice", "value": {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA",
                                                         "dice": [97, 99, 45, 30]}},
    "table-seed": {"summary": "table: a creature, seeded", "value": {"weapon": "Morning Star", "cmb": 60,
                                                                     "target": "Orc Warrior", "seed": 3}},
    "rise": {"summary": "rise", "value": {"accuracy": 6, "def": 12, "damage": "2d6+3", "seed": 1}},
    "worlds-awakening": {"summary": "worlds-awakening", "value": {"stat": 2, "level": 3, "def": 15, "damage": ["2d6+1"],
                                                                  "cha": 2, "seed": 1}},
    "d10-pool": {"summary": "d10-pool", "value": {"bonus": 3, "attacks": 2, "ad": 7, "toughness": 4, "damage": "2d6",
                                                  "modifier": ["flat-footed"], "seed": 1}},
    "pte": {"summary": "pte", "value": {"accuracy": 2, "ac": 2, "evasion": 3, "stat": 15, "damage_base": 10, "def": 15,
                                        "effectiveness": "se", "seed": 1}},
}
ODDS_EXAMPLES = {
    "table": {"summary": "table", "value": {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA"}},
    "table-sweep": {"summary": "table: a sweep over CMB", "value": {"weapon": "Longsword", "cmb": 0,
                                                                    "target": "Orc Warrior", "sweep_cmb": "0:150:10"}},
    "d10-pool": {"summary": "d10-pool", "value": {"bonus": 3, "attacks": 2, "ad": 7, "toughness": 4, "damage": "2d6"}},
}

SIMULATE_EXAMPLES = {
    "table": {"summary": "table", "value": {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "count": 100000,
                                            "seed": 1}},
    "rise": {"summary": "rise", "value": {"accuracy": 6, "def": 12, "damage": "2d6+3", "count": 100000, "seed": 1}},
}


class CliJSON(JSONResponse):
    """The body exactly as ``--json`` prints it (json.dumps, ensure_ascii=False), without the newline."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False).encode("utf-8")


def failure(status: int, error: dict) -> CliJSON:
    return CliJSON({"error": error}, status_code=status)


class Databases:
    """The database for this process, one connection per thread (a sqlite3
    connection stays in the thread that made it), each opened on first use
    and kept: every request is one read transaction on it, so it sees the
    database as another process last committed it. The connections share
    one cache of compiled tables, reloaded when the database changes
    (storage/compiled.py)."""

    def __init__(self, url: str, path: Path):
        from tables_app.storage.compiled import CompiledTables

        self.url, self.path = url, path
        self._local = threading.local()
        self.compiled = CompiledTables()

    def get(self) -> Database:
        database = getattr(self._local, "database", None)
        if database is None:
            database = self._local.database = Database(self.url, self.path)
            database.compiled = self.compiled
        return database


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
        body = json.loads(b"".join(parts))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        return failure(422, error_json(f"the request is not as expected (the body must be a JSON object): {exc}"))
    if not isinstance(body, dict):
        return failure(422, error_json("the request is not as expected (the body must be a JSON object), "
                                       f"not {type(body).__name__}"))
    return body


def query_doc(*names: str) -> dict[str, Any]:
    """Query parameters as /docs shows them: each a string, optional;
    ``name*`` repeatable (``has=helm&has=shield``)."""
    return {"parameters": [
        {"name": name.rstrip("*"), "in": "query", "required": False,
         "schema": {"type": "array", "items": {"type": "string"}} if name.endswith("*") else {"type": "string"},
         **({"style": "form", "explode": True} if name.endswith("*") else {})}
        for name in names]}


def json_body_doc(examples: dict[str, dict]) -> dict[str, Any]:
    """The request body as /docs shows it: a JSON object of the command's options, with examples."""
    return {"requestBody": {"required": True, "content": {"application/json": {
        "schema": {"type": "object", "additionalProperties": True}, "examples": examples}}}}


# ------------------------------------------------------------------ the app
def header(scope: dict, name: bytes) -> bytes | None:
    """A request's header (ASGI ``scope``), the first if given twice."""
    return next((value for key, value in scope["headers"] if key == name), None)


async def refuse_unread(scope: dict, receive: Any, send: Any, status: int, message: str,
                        headers: dict[str, str] | None = None) -> None:
    """Answer the error object before the app sees the request; its body is
    read and dropped first, so that a client sending a whole upload hears it."""
    refused = failure(status, error_json(message))
    refused.headers.update(headers or {})
    await drain(receive)
    await refused(scope, receive, send)


class TokenGuard:
    """Every ``/api/v1`` request but health needs ``Authorization: Bearer
    TOKEN`` (api_access.py); 401 otherwise. Plain ASGI, added only when the
    server has a token: a server without one pays nothing."""

    def __init__(self, app: Any, token: str):
        self.app, self.token = app, token

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        from tables_app.api_access import bearer_matches

        path = scope.get("path", "")
        if (scope["type"] == "http" and path.startswith(f"{PREFIX}/") and path != f"{PREFIX}/health"
                and not bearer_matches(header(scope, b"authorization"), self.token)):
            await refuse_unread(scope, receive, send, 401, "this server needs its token: send the header "
                                "'Authorization: Bearer TOKEN' (TABLES_TOKEN of the server)", {"WWW-Authenticate": "Bearer"})
            return
        await self.app(scope, receive, send)


class LoopbackHostGuard:
    """Without a token: only requests addressed to this machine by a
    loopback name or address (the Host header) are answered, 400 otherwise.
    A page of another site can point its own name at 127.0.0.1 (DNS
    rebinding) and then read the answers as its own; its requests carry
    its name. Plain ASGI, added only to a server without a token."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        from tables_app.api_access import loopback_host_header

        host = header(scope, b"host") if scope["type"] == "http" else None
        if scope["type"] == "http" and not loopback_host_header(host):
            shown = host.decode("latin-1")[:100] if host else ""
            await refuse_unread(scope, receive, send, 400, "this server answers requests to localhost, 127.0.0.1 or "
                                f"[::1] only, not to {shown!r}: to serve under another name, set TABLES_TOKEN")
            return
        await self.app(scope, receive, send)


def create_app(database_path: str | Path, answer_fields: Answer, *, token: str | None = None,
               allow_import: bool = False, upload_limit: int | None = None, cors_origins: Iterable[str] = ()) -> FastAPI:
    """The API over the database at ``database_path`` (checked, and migrated
    if behind, now: a bad path fails here, not at the first request),
    answering through the CLI's ``answer_fields``. With ``token`` every API
    request must give it; ``allow_import`` opens POST /api/v1/import (the
    caller has checked the settings: api_access.serving_problem), for
    uploads of at most ``upload_limit`` bytes. Pages of ``cors_origins``
    (api_access.web_origin) may call the API from a browser."""
    from tables_app.api_import import DEFAULT_UPLOAD_BYTES, add_import
    from tables_app.services.database_setup import open_database
    from tables_app.storage.connection import schema_version

    opened = open_database(str(database_path))
    databases = Databases(opened.url, opened.path)
    opened.dispose()

    def answer(names: tuple[str, ...], fields: Iterable[tuple[str, Any]], path_fields: tuple[str, ...] = (),
               limits: dict[str, int] | None = None) -> CliJSON:
        kind, data = answer_fields(databases.get(), names, fields, path_fields, limits)
        return CliJSON(data) if kind == "answer" else failure(STATUS[kind], data)

    app = FastAPI(title="tables", version=__version__, description=DESCRIPTION, default_response_class=CliJSON)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> CliJSON:
        message = f"no such endpoint: {request.url.path} (see /docs)" if exc.status_code == 404 else str(exc.detail)
        return failure(exc.status_code, error_json(message))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, exc: RequestValidationError) -> CliJSON:
        problems = "; ".join(f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg')}" for e in exc.errors())
        return failure(422, error_json(f"the request is not as expected: {problems}"))  # FastAPI's own checks, if any

    @app.get(f"{PREFIX}/health", summary="The server is up: its version and the database's schema")
    async def health() -> CliJSON:
        database = databases.get()
        try:
            with database.snapshot() as connection:
                schema = schema_version(connection)
        except TablesError as exc:
            return failure(STATUS["unavailable"], error_json(str(exc)))
        return CliJSON({"status": "ok", "version": __version__, "schema": schema, "token_required": token is not None,
                        "import_allowed": allow_import})

    # The query strings are read whole (a field given twice repeats the
    # option) and checked by the command; their parameters are described for
    # /docs only (query_doc), not declared, so FastAPI spends nothing on them.
    @app.get(f"{PREFIX}/query/attack", summary="= tables query attack TABLE RESULT ARMOR --json",
             openapi_extra=query_doc("table", "result", "armor", "ruleset"))
    async def query_attack(request: Request) -> CliJSON:
        return answer(("query", "attack"), request.query_params.multi_items())

    @app.get(f"{PREFIX}/query/critical", summary="= tables query critical TABLE ROLL --json",
             openapi_extra=query_doc("table", "roll", "severity", "has*", "column", "ruleset"))
    async def query_critical(request: Request) -> CliJSON:
        return answer(("query", "critical"), request.query_params.multi_items())

    @app.get(f"{PREFIX}/query/fumble", summary="= tables query fumble TABLE ROLL --json",
             openapi_extra=query_doc("table", "roll", "modifier", "column", "ruleset"))
    async def query_fumble(request: Request) -> CliJSON:
        return answer(("query", "fumble"), request.query_params.multi_items())

    @app.post(f"{PREFIX}/resolve/{{system}}", summary="= tables resolve SYSTEM ... --json",
              openapi_extra=json_body_doc(RESOLVE_EXAMPLES))
    async def resolve(system: str, request: Request) -> CliJSON:
        """One attack with seeded (`seed`) or given (`dice`) dice. SYSTEM: table,
        rise, worlds-awakening, d10-pool, pte; the body holds its options."""
        body = await json_object(request)
        return body if isinstance(body, CliJSON) else answer(("resolve", system), body.items())

    @app.post(f"{PREFIX}/odds/{{system}}", summary="= tables odds SYSTEM ... --json",
              openapi_extra=json_body_doc(ODDS_EXAMPLES))
    async def odds(system: str, request: Request) -> CliJSON:
        """The exact odds of one attack; on `table`, `sweep_cmb` or `sweep_def`
        (`A:B[:STEP]`) sweeps a bonus over every armor column."""
        body = await json_object(request)
        if isinstance(body, CliJSON):
            return body
        # A sweep or a large pool can take a while: in a worker thread, so
        # that the quick answers of other requests are not held behind it.
        return await run_in_threadpool(answer, ("odds", system), body.items())

    @app.post(f"{PREFIX}/simulate/{{system}}", summary="= tables simulate SYSTEM ... --json",
              openapi_extra=json_body_doc(SIMULATE_EXAMPLES))
    async def simulated(system: str, request: Request) -> CliJSON:
        """Count the outcomes of `count` random attacks (at most 1,000,000
        here), from `seed` or a fresh one (the answer says which)."""
        body = await json_object(request)
        if isinstance(body, CliJSON):
            return body
        return await run_in_threadpool(answer, ("simulate", system), body.items(), (), {"count": MAX_SIMULATED})

    @app.get(f"{PREFIX}/{{kind}}", summary="= tables list KIND --json", openapi_extra=query_doc("ruleset"))
    async def listing(request: Request, kind: str) -> CliJSON:
        """KIND: attack, critical, fumble, weapons, creatures, severities, rulesets."""
        return answer(("list",), [("kind", kind), *request.query_params.multi_items()], ("kind",))

    @app.get(f"{PREFIX}/{{kind}}/{{name:path}}", summary="= tables show KIND NAME --json",
             openapi_extra=query_doc("ruleset"))
    async def shown(request: Request, kind: str, name: str) -> CliJSON:
        """KIND: attack, critical, fumble, weapons (weapon), creatures (creature); NAME may be RULESET:NAME."""
        return answer(("show",), [("kind", kind), ("name", name), *request.query_params.multi_items()],
                      ("kind",))

    add_import(app, databases.get, allow_import, upload_limit or DEFAULT_UPLOAD_BYTES,
               lambda status, report: CliJSON(report, status_code=status), failure)
    add_page(app)  # the game master's page: GET / and /static/{name} (docs/api.md, "The page")
    if token is not None:
        app.add_middleware(TokenGuard, token=token)  # type: ignore[arg-type]
    else:
        app.add_middleware(LoopbackHostGuard)  # type: ignore[arg-type]
    origins = list(cors_origins)
    if origins:  # outside the token's guard: a browser's preflight carries no token, and a 401 must be readable
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST"],  # type: ignore[arg-type]
                           allow_headers=["Authorization", "Content-Type"], max_age=600)
    return app
