"""The HTTP API of `tables serve` (docs/api.md): the operations of the
library over HTTP, answering what `tables ... --json` prints.

Thin on purpose: HTTP only. Each route hands its path, query string or
JSON body, as ``(field, value)`` pairs, to its operation
(tables_app/operations): the operation's declared parameters read and
check them (the bounds and types of every input live there only, and a
refusal names the JSON field), then the operation answers in one read
transaction. This module returns the answer, or the error object with an
HTTP status for its kind.

Read-only but for the fights (fights.py: their logs are written on every
server) and POST /api/v1/import (upload.py, with --allow-import).
Needs the ``serve`` extra (FastAPI; uvicorn to run it); the CLI imports
this package only in `tables serve`, and it never imports the CLI.
"""

from __future__ import annotations

import gc
import json
from functools import partial
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Iterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from tables_app import __version__
from tables_app.errors import (
    Ambiguous, DatabaseError, FightChanged, NotFound, Offered, TablesError, UsageMistake, error_json, error_object,
)
from tables_app.http.access import acting_group
from tables_app.http.answers import CliJSON, failure, json_body_doc, json_object, query_doc
from tables_app.http.bodies import drain
from tables_app.http.docs_pages import add_docs
from tables_app.http.fights import HEAVY_AT_ONCE, QUEUE_SECONDS, Heavy, add_fights
from tables_app.http.methods import LISTED, SHOWN, allowed_methods, method_not_allowed, wrong_method
from tables_app.http.openapi_errors import declare_errors
from tables_app.http.page import add_page
from tables_app.operations import ParamError, find, system_ids, to_json
from tables_app.operations.attacks import GROUPS
from tables_app.services.server_database import PerThreadDatabases, group_of_token, read_transaction, schema

MAX_SIMULATED = 1_000_000  # attacks per simulate request: 0.2-7 s of CPU, by system (the command line takes 100,000,000)
PREFIX = "/api/v1"

DESCRIPTION = """\
The answers of the `tables` command over HTTP: every response is exactly
what the same command prints with `--json` (docs/cli.md has the shapes).
The tables are read-only unless the server was started with
`--allow-import` (and a token): then POST /api/v1/import takes workbooks.
Fights (`/api/v1/fights`) are written on every server: each write sends
`after`, the `seq` it last saw, and is refused with 409 if the fight moved on.
With a token (TABLES_TOKEN), every request but health sends
`Authorization: Bearer TOKEN`; without one, a request a page of another site
made (its `Origin`, or `Sec-Fetch-Site: cross-site`) is refused with 403
unless that site was given with `--cors-origin`.

Names in paths and query strings are URL-encoded and may be qualified
`RULESET:NAME`; `ruleset` works as `--ruleset`. The bodies of resolve,
odds and simulate hold the command's long options, dashes as underscores
(`sweep_cmb` for `--sweep-cmb`): a list for a repeatable one (`has`,
`mod`), `true` sets a flag, `dice` is a list of numbers. Each route's
schema lists its fields, with their bounds.

Errors are `{"error": {"message", "workbook", "sheet", "cell", "suggestions"?}}`,
the object `--json` prints; a refused field is named as the request wrote it
(`'cmb': 99999 is not between -10000 and 10000`). 404 for an unknown name
(with the closest known names in `suggestions`), 422 for bad fields or
values (and for a fight's rule refusing a step, or a key given twice in a
body), 401 without the token, 403 for another site's page on a server without one,
409 for a fight that changed since `after`, 408 for a request too slow to arrive, 413
for a body over its limit, 415 for a body not declared JSON, 503 when the
database file cannot be read.
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

ROUTE_HELP = {
    "resolve": "One attack with seeded (`seed`) or given (`dice`) dice.",
    "odds": "The exact odds of one attack; on `table`, `sweep_cmb` or `sweep_def` (`A:B[:STEP]`) sweeps a bonus "
            "over every armor column.",
    "simulate": "Count the outcomes of `count` random attacks (at most 1,000,000 here), from `seed` or a fresh one "
                f"(the answer says which). A heavy request: the server works out {HEAVY_AT_ONCE} at once at most (the "
                f"chances of fights among them); another waits up to {QUEUE_SECONDS:g} s for its turn, then gets 503 "
                "with Retry-After.",
}
SIMULATE_EXAMPLES = {
    "table": {"summary": "table", "value": {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "count": 100000,
                                            "seed": 1}},
    "rise": {"summary": "rise", "value": {"accuracy": 6, "def": 12, "damage": "2d6+3", "count": 100000, "seed": 1}},
}
EXAMPLES = {"resolve": RESOLVE_EXAMPLES, "odds": ODDS_EXAMPLES, "simulate": SIMULATE_EXAMPLES}


def operation_response(databases: PerThreadDatabases, words: tuple[str, ...], fields: Iterable[tuple[str, Any]], in_path: tuple[str, ...] = (),
           limits: dict[str, int] | None = None, check: Callable[[dict[str, Any]], None] | None = None,
           extra: dict[str, Any] | None = None) -> CliJSON:
    """The answer of the operation `tables WORDS...` to a request's fields,
    in one read transaction (a fight's write takes the write lock inside
    it); or the error object, with its status: 404 for an unknown name (or
    a path naming nothing), 422 for a refused field or value (or a step a
    fight's rules refuse), 409 for a fight that moved on since the
    request's ``after``, 503 when the database cannot be read or written. ``limits``: tighter bounds
    of some fields (the server's own), refused past them; ``check``: a bound of the values together
    (the server's own), raising ParamError; ``extra``: what the server gives the operation besides the
    request's values (the chances' ``should_stop``)."""
    try:
        operation = find(words)
        values = operation.read(fields)
        for name, most in (limits or {}).items():
            if isinstance(values.get(name), int) and values[name] > most:
                raise ParamError(name, f"at most {most:,} over HTTP (the command line takes more)")
        if check is not None:
            check(values)
        if not operation.uses_database:
            return CliJSON(to_json(operation.run(None, **values, **(extra or {}))))
        database = databases.get()
        database.group = acting_group.get()  # the request's token's group (its fights and parties), 0 the operator's
        with read_transaction(database):  # one read transaction for the whole answer
            return CliJSON(to_json(operation.run(database, **values, **(extra or {}))))
    except ParamError as exc:
        return failure(404 if exc.field in in_path else 422, error_json(str(exc)))
    except TablesError as exc:
        if isinstance(exc, NotFound) and not isinstance(exc, Ambiguous):
            status = 404
        elif isinstance(exc, FightChanged):
            status = 409
        else:
            status = 503 if isinstance(exc, DatabaseError) and not isinstance(exc, UsageMistake) else 422
        error = error_object(exc)
        if status == 422:  # a usage mistake, or dice that do not fit: worded with the request's fields
            error["message"] = request_words(exc) or fields_named(error["message"], words)
        return failure(status, error)


def stopping(should_stop: Callable[[], bool]) -> Callable[[int, str], Any]:
    """A progress bar that draws nothing and ends the work once ``should_stop`` says so (its client gone, its time
    spent): a simulation over HTTP polls it at each chunk of attacks, as the chances of a fight poll theirs."""
    from contextlib import contextmanager

    @contextmanager
    def bar(_total: int, _description: str) -> Iterator[Callable[[int], None]]:
        def progress(_done: int) -> None:
            if should_stop():
                raise TablesError("the simulation was stopped: its client has gone, or its time is spent")
        yield progress

    return bar


def request_words(exc: TablesError) -> str | None:
    """A refusal whose hint is a command, in the request's terms instead (its fields and routes), if it has one:
    `ask for rounds=2 (GET /api/v1/fights/Duel/odds?rounds=2&exact=true) or estimate it instead (without
    exact): GET …/Duel/odds`."""
    from urllib.parse import quote

    from tables_app.services.fight_odds import FightTooLarge

    if isinstance(exc, FightTooLarge):
        fight = f"{PREFIX}/fights/{quote(exc.name, safe='')}"
        return exc.worded(f"rounds={exc.done} (GET {fight}/odds?rounds={exc.done}&exact=true)", f"GET {fight}/odds")
    if isinstance(exc, Offered) and exc.words[0] == "fight":
        from tables_app.http.fights import FIGHTS, NAMED

        route = next(((method, suffix) for method, suffix, word in NAMED if word == exc.words[1]), None)
        if route is not None:
            return exc.said.format(f"{route[0].upper()} {FIGHTS}/{quote(exc.name, safe='')}{route[1]}")
    return None


def fields_named(message: str, words: tuple[str, ...]) -> str:
    """A usage mistake's message with each option it names (``--seed``) as
    the request's field (``'seed'``): the library words its mistakes for the
    command line, where most of its users are."""
    import re

    try:
        fields = find(words).by_field
    except TablesError:
        return message
    flags = {param.flag: param.field for param in fields.values()}
    flags.update({f"--{alias}": param.field for param in fields.values() for alias in param.aliases})

    def field(found: re.Match[str]) -> str:  # `--after 7` is `after=7`, as a request gives it; a flag alone, `'after'`
        name = flags.get(found.group(1), found.group(1)[2:].replace("-", "_"))
        return f"{name}={found.group(2)}" if found.group(2) else repr(name)

    return re.sub(r"(--[a-z][a-z0-9-]*)(?: (-?\d[^\s:;,)]*|'[^']*'))?", field, message)


# ------------------------------------------------------------------ the app
def header(scope: Scope, name: bytes) -> bytes | None:
    """A request's header (ASGI ``scope``), the first if given twice."""
    return next((value for key, value in scope["headers"] if key == name), None)


def headers(scope: Scope, *names: bytes) -> list[bytes | None]:
    """Some of a request's headers (ASGI ``scope``), each the first if given twice, in one pass."""
    found: list[bytes | None] = [None] * len(names)
    for key, value in scope["headers"]:
        if key in names and found[i := names.index(key)] is None:
            found[i] = value
    return found


async def refuse_unread(scope: Scope, receive: Receive, send: Send, status: int, message: str,
                        headers: dict[str, str] | None = None) -> None:
    """Answer the error object before the app sees the request; its body is
    read and dropped first, so that a client sending a whole upload hears it."""
    refused = failure(status, error_json(message))
    refused.headers.update(headers or {})
    await drain(receive)
    await refused(scope, receive, send)


class TokenGuard:
    """Every ``/api/v1`` request but health needs ``Authorization: Bearer
    TOKEN`` (access.py): the operator's (TABLES_TOKEN), or a group's
    (services/groups.py: looked up by its hash, off the event loop); 401
    otherwise. A group's request acts as that group (access.acting_group:
    its fights and parties only) and may not import (403). Plain ASGI,
    added only when the server has a token: a server without one pays nothing."""

    def __init__(self, app: ASGIApp, token: str, group_of: Callable[[str], int | None]):
        self.app, self.token, self.group_of = app, token, group_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from tables_app.http.access import acting_group, bearer_matches, group_token

        path = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(f"{PREFIX}/") or path == f"{PREFIX}/health":
            await self.app(scope, receive, send)
            return
        given = header(scope, b"authorization")
        if bearer_matches(given, self.token):
            await self.app(scope, receive, send)
            return
        group = None
        if (token := group_token(given)) is not None:
            from starlette.concurrency import run_in_threadpool

            try:
                group = await run_in_threadpool(self.group_of, token)
            except DatabaseError as exc:  # the look-up could not read the database: as any route that cannot (503)
                await refuse_unread(scope, receive, send, 503, str(exc))
                return
        if group is None:
            await refuse_unread(scope, receive, send, 401, "this server needs its token: send the header "
                                "'Authorization: Bearer TOKEN' (TABLES_TOKEN of the server, or your group's token)",
                                {"WWW-Authenticate": "Bearer"})
            return
        if path == f"{PREFIX}/import":
            await refuse_unread(scope, receive, send, 403, "a group's token cannot import tables: the operator's token "
                                "(TABLES_TOKEN) imports")
            return
        acting = acting_group.set(group)
        try:
            await self.app(scope, receive, send)
        finally:
            acting_group.reset(acting)


class LoopbackHostGuard:
    """Without a token: only requests addressed to this machine by a
    loopback name or address (the Host header) are answered, 400 otherwise.
    A page of another site can point its own name at 127.0.0.1 (DNS
    rebinding) and then read the answers as its own; its requests carry
    its name. Plain ASGI, added only to a server without a token."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from tables_app.http.access import loopback_host_header

        host = header(scope, b"host") if scope["type"] == "http" else None
        if scope["type"] == "http" and not loopback_host_header(host):
            shown = host.decode("latin-1")[:100] if host else ""
            await refuse_unread(scope, receive, send, 400, "this server answers requests to localhost, 127.0.0.1 or "
                                f"[::1] only, not to {shown!r}: to serve under another name, set TABLES_TOKEN")
            return
        await self.app(scope, receive, send)


class QuickRoutes:
    """The routes a bot calls by the thousand (a resolve, a query: their
    paths exact, no path parameters) answered without FastAPI's router: it
    tries the routes one by one (the resolve is the 24th) and solves each
    one's dependencies, a quarter of a resolve's CPU in the app. The same
    endpoints answer, with the same request; anything else (another method,
    a path with a slash more, a mounted root) goes on to the router. Plain
    ASGI, inside the guards, so that every request still passes them."""

    def __init__(self, app: ASGIApp, routes: dict[tuple[str, str], Callable[[Request], Awaitable[Response]]]):
        self.app, self.routes = app, routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            endpoint = self.routes.get((scope["method"], scope["path"]))
            if endpoint is not None:
                response = await endpoint(Request(scope, receive, send))
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class CrossSiteGuard:
    """Without a token: an ``/api/v1`` request a web page of another site
    made (access.cross_site_problem: its Origin, else its Sec-Fetch-Site) is
    refused with 403, unless its origin was given with --cors-origin. An
    ``<img>`` or a form on any page could otherwise make this server work
    (a simulation: seconds of CPU) or write a fight. Plain ASGI, added only
    to a server without a token (with one, such a request has no token: 401)."""

    def __init__(self, app: ASGIApp, origins: Iterable[str]):
        self.app, self.origins = app, frozenset(origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from tables_app.http.access import cross_site_problem

        if scope["type"] == "http" and scope.get("path", "").startswith(f"{PREFIX}/"):
            origin, fetch_site, host = headers(scope, b"origin", b"sec-fetch-site", b"host")
            problem = cross_site_problem(origin, fetch_site, host, self.origins)
            if problem is not None:
                await refuse_unread(scope, receive, send, 403, problem)
                return
        await self.app(scope, receive, send)


def create_app(database_path: str | Path, *, token: str | None = None, allow_import: bool = False,
               upload_limit: int | None = None, cors_origins: Iterable[str] = ()) -> FastAPI:
    """The API over the database at ``database_path`` (checked, and migrated
    if behind, now: a bad path fails here, not at the first request). With
    ``token`` every API request must give it; ``allow_import`` opens POST
    /api/v1/import (the caller has checked the settings:
    access.serving_problem), for uploads of at most ``upload_limit`` bytes.
    Pages of ``cors_origins`` (access.web_origin) may call the API from a browser."""
    from tables_app.http.upload import DEFAULT_UPLOAD_BYTES, add_import
    databases = PerThreadDatabases(database_path)  # checked (and migrated if behind) now

    app = FastAPI(title="tables", version=__version__, description=DESCRIPTION, default_response_class=CliJSON,
                  docs_url=None, redoc_url=None)  # served from the package, not a CDN (docs_pages.py)
    quick: dict[tuple[str, str], Callable[[Request], Awaitable[Response]]] = {}  # QuickRoutes': (method, path) → endpoint

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> CliJSON:
        if exc.status_code in (404, 405):  # no route took it: its body is unread; drop it, so the client hears this
            await drain(request.receive)
        if exc.status_code == 405:  # routes take the path in other methods: every one of them (Starlette's Allow
            # names the first route's only: DELETE /api/v1/critical/Cut is GET's, not POST /{verb}/{system}'s)
            allow = allowed_methods(app, request) or [m.strip() for m in (exc.headers or {}).get("Allow", "").split(",")
                                                       if m.strip()]
            return method_not_allowed(request.method, request.url.path, allow)
        message = f"no such endpoint: {request.url.path} (see /docs)" if exc.status_code == 404 else str(exc.detail)
        return failure(exc.status_code, error_json(message))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, exc: RequestValidationError) -> CliJSON:
        problems = "; ".join(f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg')}" for e in exc.errors())
        return failure(422, error_json(f"the request is not as expected: {problems}"))  # FastAPI's own checks, if any

    @app.get(f"{PREFIX}/health", summary="The server is up: its version and the database's schema")
    async def health() -> CliJSON:
        try:
            version = schema(databases.get())
        except TablesError as exc:
            return failure(503, error_json(str(exc)))
        return CliJSON({"status": "ok", "version": __version__, "schema": version, "token_required": token is not None,
                        "import_allowed": allow_import})

    # The query strings are read whole (a field given twice repeats a
    # repeatable one) by the operation's parameters; they are described for
    # /docs (query_doc), not declared to FastAPI, which would check them again.
    def query_route(kind: str) -> None:
        operation = find(("query", kind))
        arguments = " ".join(p.field.upper() for p in operation.params if p.argument)

        @app.get(f"{PREFIX}/query/{kind}", summary=f"= tables query {kind} {arguments} --json",
                 description=operation.help, openapi_extra=query_doc(operation), name=f"query_{kind}")
        async def query(request: Request) -> CliJSON:
            return operation_response(databases, operation.words, request.query_params.multi_items())

        quick["GET", f"{PREFIX}/query/{kind}"] = query

    for kind in ("attack", "critical", "fumble"):
        query_route(kind)

    # The fights, before the routes below that take any /api/v1/{kind}/{name}.
    heavy = Heavy()  # the heavy requests, the chances of a fight and simulate: at most a few at once (fights.py)
    add_fights(app, lambda words, fields, in_path, check=None, extra=None: operation_response(
        databases, words, fields, in_path, check=check, extra=extra), heavy)

    def attack_route(verb: str, system: str) -> None:
        operation = find((verb, system))
        limits = {"count": MAX_SIMULATED} if verb == "simulate" else None
        examples = {key: example for key, example in EXAMPLES[verb].items() if key.split("-")[0] == system.split("-")[0]
                    or key == system}

        @app.post(f"{PREFIX}/{verb}/{system}", summary=f"= tables {verb} {system} ... --json",
                  description=f"{operation.help}\n\n{ROUTE_HELP[verb]}", name=f"{verb}_{system}",
                  openapi_extra=json_body_doc(operation, examples))
        async def attack(request: Request) -> CliJSON:
            body = await json_object(request)
            if isinstance(body, CliJSON):
                return body
            if verb == "resolve":
                return operation_response(databases, operation.words, body.items())
            if verb == "simulate":  # up to seconds of CPU (7 s for rise's worst 1,000,000): a heavy request
                return await heavy.run(request, lambda should_stop: operation_response(
                    databases, operation.words, body.items(), (), limits, extra={"progress_bar": stopping(should_stop)}),
                    "the simulation", "a smaller count")
            # Odds, a sweep of 2,000 steps too, take under a second: in a worker thread, so that quick answers are not
            # held behind.
            return await run_in_threadpool(operation_response, databases, operation.words, body.items(), (), limits)

        quick["POST", f"{PREFIX}/{verb}/{system}"] = attack

    for verb in GROUPS:
        for system in ("table", *system_ids()):
            attack_route(verb, system)

    @app.post(f"{PREFIX}/{{verb}}/{{system}}", include_in_schema=False)
    async def unknown_system(verb: str, system: str, request: Request) -> CliJSON:
        """resolve, odds or simulate in a system that is none: 404 with the near names."""
        await drain(request.receive)
        if (wrong := wrong_method(app, request)) is not None:  # POST /api/v1/critical/Cut: GET's
            return wrong
        if verb not in GROUPS:
            return failure(404, error_json(f"no such endpoint: {request.url.path} (see /docs)"))
        return operation_response(databases, (verb, system), ())

    listed, shown_op = find(("list",)), find(("show",))

    @app.get(f"{PREFIX}/{{kind}}", summary="= tables list KIND --json", description=listed.help,
             openapi_extra=query_doc(listed, "kind"))
    async def listing(request: Request, kind: str) -> CliJSON:
        """KIND: attack, critical, fumble, weapons, creatures, severities, rulesets."""
        if kind.lower() not in LISTED and (wrong := wrong_method(app, request)) is not None:  # GET /api/v1/import
            return wrong
        return operation_response(databases, listed.words, [("kind", kind), *request.query_params.multi_items()], ("kind",))

    @app.get(f"{PREFIX}/{{kind}}/{{name:path}}", summary="= tables show KIND NAME --json", description=shown_op.help,
             openapi_extra=query_doc(shown_op, "kind", "name"))
    async def shown(request: Request, kind: str, name: str) -> CliJSON:
        """KIND: attack, critical, fumble, weapons (weapon), creatures (creature); NAME may be RULESET:NAME."""
        if kind.lower() not in SHOWN and (wrong := wrong_method(app, request)) is not None:  # GET /api/v1/resolve/table
            return wrong
        if kind == "query":  # not "'kind': 'query' is not one of attack, ...": the kind is the path's next word
            return failure(404, error_json(f"no such endpoint: {request.url.path} (query attack, critical or fumble; "
                                           "see /docs)"))
        return operation_response(databases, shown_op.words, [("kind", kind), ("name", name), *request.query_params.multi_items()],
                      ("kind",))

    add_import(app, databases.get, allow_import, upload_limit or DEFAULT_UPLOAD_BYTES,
               lambda status, report: CliJSON(report, status_code=status), failure)
    add_page(app)  # the game master's page: GET / and /static/{name} (docs/api.md, "The page")
    add_docs(app)  # /docs, with its assets from the package
    declare_errors(app)  # the OpenAPI document's error answers, as the server sends them
    origins = list(cors_origins)
    app.add_middleware(QuickRoutes, routes=quick)  # first: inside the guards added next
    if token is not None:
        app.add_middleware(TokenGuard, token=token, group_of=partial(group_of_token, databases))
    else:
        app.add_middleware(CrossSiteGuard, origins=origins)
        app.add_middleware(LoopbackHostGuard)
    if origins:  # outside the token's guard: a browser's preflight carries no token, and a 401 must be readable
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type"], max_age=600)
    return app


def freeze_long_lived() -> None:
    """The modules and the app a server keeps for its life, moved out of
    the collector's sight (gc.freeze): its full collections then walk only
    what requests make."""
    gc.collect()
    gc.freeze()


SERVE_SETTINGS = "TABLES_SERVE_SETTINGS"  # the database and options of the worker processes of `tables serve --workers N`
WORKER_APP = "tables_app.http.app:worker_app"  # uvicorn's factory of each worker's app


def worker_app() -> FastAPI:
    """The app of one worker process of `tables serve --workers N`."""
    import os

    from tables_app.http.access import TOKEN_ENV

    settings = json.loads(os.environ[SERVE_SETTINGS])
    app = create_app(settings.pop("database"), token=os.environ.get(TOKEN_ENV) or None, **settings)
    freeze_long_lived()
    return app
