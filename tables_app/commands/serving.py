"""`tables serve`, and the HTTP API's answers through the commands
(answer_fields: the fields of a request made into a command line, checked
and answered by the command's own parameters and data function)."""

from __future__ import annotations

import functools
import gc
import json
from typing import Any

import click
from click.core import UNSET

from tables_app.commands.common import PRINTING, Failure, click_error, database_of, error_of
from tables_app.errors import TablesError, UsageMistake, error_json


class Refused(Exception):
    """Fields no command line can be made of (an unknown field, a list for one value)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.error = error_json(message)


def answering(root: click.Group):  # type: ignore[no-untyped-def]
    """``answer_fields`` over the commands of ``root`` (the `tables` group),
    called as api.create_app calls it: ``(database, names, fields, path_fields, limits)``."""
    return functools.partial(answer_fields, root)


def answer_fields(root: click.Group, database, names: tuple[str, ...], fields,  # type: ignore[no-untyped-def]
                  path_fields: tuple[str, ...] = (), limits: dict[str, int] | None = None) -> tuple[str, dict]:
    """Answer as ``tables NAMES... --json`` would, for the HTTP API (api.py).

    ``fields`` are ``(name, value)`` pairs (a path, a query string, a JSON
    body) made into the command's arguments (command_line), checked by its
    own Click parameters (make_context), then answered by its data function
    (answers) in one read transaction. Returns ``("answer", data)``, or a
    failure and the error object ``--json`` prints: ``"missing"`` (an
    unknown name, or a value of the path, ``path_fields``, the command
    refuses), ``"unavailable"`` (the database cannot be read) or
    ``"refused"`` (anything else refused: usage, values, an ambiguous name).
    ``limits``: tighter bounds of some integer options (a server's), refused past them.
    """
    from tables_app.errors import Ambiguous, DatabaseError, NotFound

    ctx = None
    try:
        command, parent = _find_command(root, names)
        fields = list(fields)
        params = quick_params(command, names[-1], parent, fields)
        if params is None:  # anything but plain valid fields: Click itself, for its exact answer or error
            ctx = command.make_context(names[-1], command_line(command, fields), parent=parent)
            params = {name: value for name, value in ctx.params.items() if name not in PRINTING}
        for name, most in (limits or {}).items():  # the server's own bounds, within the command's
            if isinstance(params.get(name), int) and params[name] > most:
                raise Refused(f"--{name.replace('_', '-')}: at most {most:,} over HTTP (the command line takes more)")
        with database.snapshot():  # one read transaction for the whole answer
            return "answer", command.data(database, **params)  # type: ignore[attr-defined]
    except Refused as exc:
        return "refused", exc.error
    except click.BadParameter as exc:
        return "missing" if exc.param is not None and exc.param.name in path_fields else "refused", error_of(exc)
    except click.ClickException as exc:  # Click's usage errors, and the command's own
        return "refused", error_of(exc)
    except TablesError as exc:
        error = error_of(click_error(exc, ctx or click.Context(root)))
        if isinstance(exc, NotFound) and not isinstance(exc, Ambiguous):
            return "missing", error
        return "unavailable" if isinstance(exc, DatabaseError) and not isinstance(exc, UsageMistake) else "refused", error


def quick_params(command: click.Command, name: str, parent: click.Context, fields: list) -> dict | None:  # type: ignore[type-arg]
    """The parameters ``command.make_context`` would give for ``fields``,
    each value checked and converted by its own Click parameter
    (``process_value``: type, bounds, required, callback) but without
    Click's command-line parser and its bookkeeping: a fifth of the cost,
    for the HTTP API's thousands of requests a second. None for anything
    but plain valid fields (an unknown or repeated field, a refused value,
    a command with parameters this does not read alike): the caller then
    lets Click parse the command line, which gives its exact error. A
    property test holds this to make_context's answer."""
    reading = _quick_reading(command)
    if reading is None:
        return None
    by_field, arguments = reading
    given: dict[str, Any] = {}
    try:
        for key, value in fields:
            param = by_field.get(key)
            if param is None or param.name in given or value is None or isinstance(value, dict):
                return None
            if isinstance(param, click.Option) and param.is_flag:
                if not isinstance(value, bool):
                    return None
                if value:
                    given[param.name] = True
                continue
            if key == "dice" and isinstance(value, list):
                value = ",".join(_field_value(key, v) for v in value)
            if isinstance(value, list):
                if not param.multiple:
                    return None
                given[param.name] = tuple(_field_value(key, item) for item in value)
            else:
                given[param.name] = (_field_value(key, value),) if param.multiple else _field_value(key, value)
        if any(later in given for at, argument in enumerate(arguments) if argument not in given
               for later in arguments[at + 1:]):
            return None  # an argument after a missing one: command_line drops it, Click then says what is missing
        ctx = command.context_class(command, info_name=name, parent=parent, **command.context_settings)
        for param in command.params:
            value = given.get(param.name, UNSET)
            if value is UNSET:
                default = param.get_default(ctx)
                value = UNSET if default is None else default
            value = param.process_value(ctx, value)
            ctx.params[param.name] = None if value is UNSET else value
    except Exception:  # noqa: BLE001  (Click, on the command line, answers it as it should)
        return None
    return {key: value for key, value in ctx.params.items() if key not in PRINTING}


@functools.lru_cache(maxsize=64)
def _quick_reading(command: click.Command) -> tuple[dict[str, click.Parameter], list[str]] | None:
    """The fields quick_params reads for ``command`` (an argument by its
    name, an option by each long flag, underscores for dashes), and its
    arguments in order; None when a parameter is read in a way it does not
    (an environment variable, several values, an eager or hidden one)."""
    by_field: dict[str, click.Parameter] = {}
    for param in command.params:
        if (param.envvar or param.is_eager or not param.expose_value or param.nargs != 1
                or getattr(param, "deprecated", False) or param.name is None):
            return None
        if isinstance(param, click.Argument):
            by_field[param.name] = param
        elif isinstance(param, click.Option) and param.name not in PRINTING:
            if param.is_flag and (param.secondary_opts or not getattr(param, "is_bool_flag", False) or param.count):
                return None
            for opt in param.opts:
                if opt.startswith("--"):
                    by_field[opt[2:].replace("-", "_")] = param
    if command.context_settings.get("auto_envvar_prefix") or command.context_settings.get("default_map"):
        return None
    return by_field, [p.name for p in command.params if isinstance(p, click.Argument)]  # type: ignore[misc]


def _find_command(root: click.Group, names: tuple[str, ...]) -> tuple[click.Command, click.Context]:
    """The command ``tables NAMES...`` and its parent's context; NotFound (with
    the near names) for a SYSTEM of resolve or odds that is none."""
    from tables_app.errors import NotFound

    parent = click.Context(root, info_name="tables")
    command: click.Command | None = root
    for at, name in enumerate(names):
        group = command
        assert isinstance(group, click.Group)
        command = group.get_command(parent, name)
        if command is None:
            known = group.list_commands(parent)
            raise NotFound.unknown(f"no system named {name!r}", name, known, f"systems: {', '.join(known)}")
        if at < len(names) - 1:
            parent = click.Context(command, info_name=name, parent=parent)
    assert command is not None
    return command, parent


def command_line(command: click.Command, fields) -> list[str]:  # type: ignore[no-untyped-def]
    """The arguments of ``command`` for ``(name, value)`` fields. An
    argument's name (``table``, ``roll``) is its value in place; any other
    name is a long option, underscores for dashes: a list repeats it,
    ``true`` is a flag, ``dice`` a list joined with commas, ``null`` left
    out. The values of arguments follow ``--``, so a name may start with a
    dash; PRINTING options (--json, --plot) are no fields."""
    import difflib
    import re

    arguments = {p.name: p for p in command.params if isinstance(p, click.Argument)}
    options = {opt: p for p in command.params if isinstance(p, click.Option) and p.name not in PRINTING
               for opt in (*p.opts, *p.secondary_opts) if opt.startswith("--")}
    placed: dict[str, str] = {}
    words: list[str] = []
    for key, value in fields:
        if key in arguments:
            if key in placed:
                raise Refused(f"give {key!r} once")
            if value is not None:
                placed[key] = _field_value(key, value)
            continue
        flag = "--" + key.replace("_", "-")
        option = options.get(flag) if re.fullmatch(r"[a-z][a-z0-9_]*", key) else None
        if option is None:
            raise Refused(click.NoSuchOption(flag, possibilities=difflib.get_close_matches(flag, options)).format_message())
        words += _option_words(key, flag, option, value)
    ordered = []
    for name in arguments:  # in the command's order, up to the first one missing (Click names it)
        if name not in placed:
            break
        ordered.append(placed[name])
    return [*words, "--", *ordered]


def _field_value(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise Refused(f"{key!r}: one value (a string or a number), not {type(value).__name__}")


def _option_words(key: str, flag: str, option: click.Option, value: Any) -> list[str]:
    if value is None:
        return []
    if option.is_flag:
        if not isinstance(value, bool):
            raise Refused(f"{key!r} is a flag: true or false")
        return [flag] if value else []
    if key == "dice" and isinstance(value, list):
        value = ",".join(_field_value(key, v) for v in value)
    if isinstance(value, list):
        if not option.multiple:
            raise Refused(f"{key!r} takes one value, not a list")
        return [word for item in value for word in (flag, _field_value(key, item))]
    return [flag, _field_value(key, value)]


SERVE_EXTRA = "the HTTP API needs the serve extra: pip install 'tables-app[serve]'"


def _origins(_ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    from tables_app.api_access import web_origin

    try:
        return tuple(dict.fromkeys(web_origin(value) for value in values))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param=param) from None


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
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, workers: int, access_log: bool, allow_import: bool,
          max_upload: int, cors_origins: tuple[str, ...]) -> None:
    """Answer look-ups, resolve, odds and simulate over HTTP, as --json would (docs/api.md).
    Read-only unless --allow-import; with TABLES_TOKEN set, every request must give it."""
    import os

    from tables_app.api_access import TOKEN_ENV, serving_problem

    token = os.environ.get(TOKEN_ENV)
    problem = serving_problem(host, token, allow_import)
    if problem is not None:
        raise click.UsageError(problem)
    token = token or None
    try:
        import uvicorn

        from tables_app.api import create_app
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in ("fastapi", "uvicorn", "starlette", "pydantic"):
            raise Failure([SERVE_EXTRA]) from None
        raise
    path = database_of(ctx).path
    answer = answering(ctx.find_root().command)
    access = dict(token=token, allow_import=allow_import, upload_limit=max_upload << 20, cors_origins=cors_origins)
    settings = dict(host=host, port=port, log_level="info", access_log=access_log,
                    http="tables_app.serve_http:NoDelayHTTPProtocol")  # TCP_NODELAY on every connection
    if token is not None:
        shown = "THIS-MACHINE" if host in ("0.0.0.0", "::", "[::]", "") else f"[{host}]" if ":" in host else host
        click.echo(f"Every request must give the token: 'Authorization: Bearer ...' ({TOKEN_ENV}); "
                   f"the page asks for it, or open it as http://{shown}:{port}/#token=...", err=True)
    if workers == 1:
        app = create_app(path, answer, **access)  # checked (and migrated) here, once
        settle()
        uvicorn.run(app, **settings)  # type: ignore[arg-type]
        return
    create_app(path, answer, **access)  # checked (and migrated) once, before any worker starts
    to_workers = {key: value for key, value in access.items() if key != "token"}  # the token: TABLES_TOKEN's
    os.environ[SERVE_SETTINGS] = json.dumps({"database": str(path), **to_workers})  # read by worker_app
    uvicorn.run(WORKER_APP, factory=True, workers=workers, **settings)  # type: ignore[arg-type]


def settle() -> None:
    """The modules and the app a server keeps for its life, moved out of
    the collector's sight (gc.freeze): its full collections then walk only
    what requests make."""
    gc.collect()
    gc.freeze()


SERVE_SETTINGS = "TABLES_SERVE_SETTINGS"  # the database and options of the worker processes of `tables serve --workers N`
# uvicorn's factory of each worker's app, in the module that assembles every
# command (a worker answers through all of them): cli.serve_app, which calls worker_app.
WORKER_APP = "tables_app.cli:serve_app"


def worker_app(answer):  # type: ignore[no-untyped-def]
    """The app of one worker process of `tables serve --workers N`, answering through ``answer`` (answering)."""
    import os

    from tables_app.api import create_app
    from tables_app.api_access import TOKEN_ENV

    settings = json.loads(os.environ[SERVE_SETTINGS])
    app = create_app(settings.pop("database"), answer, token=os.environ.get(TOKEN_ENV) or None, **settings)
    settle()
    return app
