"""`tables serve`: the HTTP API (tables_app/http) on uvicorn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict, cast

import click

from tables_app.cli.common import Failure, database_of


SERVE_EXTRA = "the HTTP API needs the serve extra: pip install 'tables-app[serve]'"


def _origins(_ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    from tables_app.http.access import web_origin

    try:
        return tuple(dict.fromkeys(web_origin(value) for value in values))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param=param) from None


class Access(TypedDict):
    """Who may do what: create_app's keywords (the workers get them as JSON, less the token)."""

    token: str | None
    allow_import: bool
    upload_limit: int
    cors_origins: tuple[str, ...]


class ServerSettings(TypedDict):
    """uvicorn.run's keywords, for one process or for the workers."""

    host: str
    port: int
    log_level: str
    access_log: bool
    http: str
    timeout_keep_alive: int
    timeout_graceful_shutdown: int  # (seconds: uvicorn annotates an int, and hands it to asyncio.wait_for)


# On Ctrl-C (SIGINT, or SIGTERM) the requests under way get this long to finish; then uvicorn cancels them, and a
# heavy one's worker thread is told to stop (http/fights.Heavy): the server ends within a second, whatever it was doing.
GRACE_SECONDS = 0.5
MAX_UPLOAD_MB = 50  # --max-upload's bound: the importer's own file limit (sheets/guard/common.py MAX_FILE_BYTES)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (only this machine by default; 0.0.0.0 for every interface, with TABLES_TOKEN).")
@click.option("--port", type=click.IntRange(0, 65_535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes sharing the port, all over the one database file.")
@click.option("--access-log", is_flag=True, help="Log every request (off by default: it costs a tenth of a resolve).")
@click.option("--allow-import", is_flag=True,
              help="Accept workbooks at POST /api/v1/import (needs TABLES_TOKEN; docs/api.md).")
@click.option("--max-upload", type=click.IntRange(1, MAX_UPLOAD_MB), default=10, show_default=True, metavar="MB",
              help=f"The largest workbook accepted by --allow-import, in MB (1-{MAX_UPLOAD_MB}).")
@click.option("--cors-origin", "cors_origins", multiple=True, metavar="ORIGIN", callback=_origins,
              help="A web origin whose pages may call the API (a Foundry VTT server: http://localhost:30000); repeatable.")
@click.option("--header-timeout", type=click.FloatRange(0.5, 600), default=10, show_default=True, metavar="SECONDS",
              help="A request's headers must all arrive within this, or 408 and the connection closed (0.5-600).")
@click.option("--body-timeout", type=click.FloatRange(0.5, 600), default=30, show_default=True, metavar="SECONDS",
              help="While a body arrives, each read must bring bytes within this, or 408 and closed (0.5-600).")
@click.option("--keep-alive", type=click.IntRange(1, 600), default=5, show_default=True, metavar="SECONDS",
              help="A connection idle between requests is closed after this (1-600).")
@click.option("--max-connections", type=click.IntRange(1, 100_000), default=1000, show_default=True, metavar="N",
              help="Open connections each server process holds at most; one more is answered 503 (1-100000).")
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, workers: int, access_log: bool, allow_import: bool,
          max_upload: int, cors_origins: tuple[str, ...], header_timeout: float, body_timeout: float, keep_alive: int,
          max_connections: int) -> None:
    """Answer look-ups, resolve, odds and simulate over HTTP, as --json would (docs/api.md).
    Read-only unless --allow-import; with TABLES_TOKEN set, every request must give it."""
    import os

    from tables_app.http.access import TOKEN_ENV, bind_problem, listen_address, serving_problem

    token = os.environ.get(TOKEN_ENV)
    problem = serving_problem(host, token, allow_import, cors_origins)
    if problem is not None:
        raise click.UsageError(problem)
    if ctx.find_root().params.get("group") is not None:  # else served silently as the operator's own fights
        raise click.UsageError("--group does not apply to serve: each request acts as its token's group "
                               "(docs/deploy.md, Groups); start the server without it")
    token = token or None
    try:
        import uvicorn

        from tables_app.http.app import SERVE_SETTINGS, WORKER_APP, create_app, freeze_long_lived
        from tables_app.http.protocol import LIMITS_ENV
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in ("fastapi", "uvicorn", "starlette", "pydantic"):
            raise Failure([SERVE_EXTRA]) from None
        raise
    opened = database_of(ctx)
    path = opened.path if isinstance(opened.path, Path) else opened.url  # a server's: its URL, password and all
    host = listen_address(host)  # uvicorn binds ::1, not [::1]
    unbound = bind_problem(host, port)  # before uvicorn, whose failure is its log lines and exit 3
    if unbound is not None:
        raise Failure([unbound])
    access = Access(token=token, allow_import=allow_import, upload_limit=max_upload << 20, cors_origins=cors_origins)
    settings = ServerSettings(host=host, port=port, log_level="info", access_log=access_log,
                              http="tables_app.http.protocol:NoDelayHTTPProtocol",  # TCP_NODELAY, slow clients' limits
                              timeout_keep_alive=keep_alive, timeout_graceful_shutdown=cast(int, GRACE_SECONDS))
    os.environ[LIMITS_ENV] = json.dumps({"header_timeout": header_timeout, "body_timeout": body_timeout,
                                         "max_connections": max_connections})  # read by the protocol, in each worker
    if token is not None:
        shown = "THIS-MACHINE" if host in ("0.0.0.0", "::", "") else f"[{host}]" if ":" in host else host
        click.echo(f"Every request must give the token: 'Authorization: Bearer ...' ({TOKEN_ENV}); "
                   f"the page asks for it, or open it as http://{shown}:{port}/#token=...", err=True)
    if workers == 1:
        app = create_app(path, **access)  # checked (and migrated) here, once
        freeze_long_lived()
        uvicorn.run(app, **settings)
        return
    create_app(path, **access)  # checked (and migrated) once, before any worker starts
    to_workers = {key: value for key, value in access.items() if key != "token"}  # the token: TABLES_TOKEN's
    os.environ[SERVE_SETTINGS] = json.dumps({"database": str(path), **to_workers})  # read by worker_app
    uvicorn.run(WORKER_APP, factory=True, workers=workers, **settings)
