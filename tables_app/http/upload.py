"""``POST /api/v1/import`` of `tables serve --allow-import` (docs/api.md,
"Importing over HTTP"): a workbook uploaded as the request's body, imported
as `tables import --json` imports a file, through the same guard, all or
nothing; the answer is the report `--json` prints.

The body is streamed to a private temporary file and refused (413) the
moment it passes the upload limit, so a hostile upload costs at most the
limit in disk and one chunk in memory. One import at a time per process
(409 while one runs); imports of other processes wait on the database's
write lock, as the command line's do.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from tables_app.errors import TablesError, error_json
from tables_app.http.bodies import Gone, TooLarge, drain, read_body
from tables_app.operations.workbooks import IMPORT_FLAGS

if TYPE_CHECKING:  # Database: what PerThreadDatabases.get hands a request
    from tables_app.services.server_database import Database

Answer = Callable[[int, dict[str, Any]], Response]  # (status, the report or the error object) to the response

DEFAULT_UPLOAD_BYTES = 10 * 1024 * 1024  # --max-upload's default; a Rolemaster-scale workbook is under 1 MB
FLAGS = {param.field: param for param in IMPORT_FLAGS}  # `tables import --dry-run --replace --strict`
MAX_NAME = 255

DOC = {
    "parameters": [
        {"name": "name", "in": "query", "required": True, "schema": {"type": "string"},
         "description": "The workbook's file name (`tables.xlsx`): the report names it, and importing the same name again "
                        "replaces what it defined."},
        *({"name": param.field, "in": "query", "required": False, "schema": param.schema(),
           "description": f"{param.help} (= {param.flag})"} for param in IMPORT_FLAGS),
    ],
    "requestBody": {"required": True, "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
                    "description": "The workbook's bytes (.xlsx, .xlsm, .ods or .xls, told by its bytes)."},
}


def upload_name(given: str | None) -> str:
    """The file name the report gives the upload: its last path part only."""
    if given is None or not given.strip():
        raise ValueError("give the workbook's file name: ?name=tables.xlsx")
    name = PureWindowsPath(PurePosixPath(given).name).name.strip()
    if not name or name in (".", "..") or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"name {given[:80]!r} is no file name (printable, at most {MAX_NAME} characters)")
    return name


def add_import(app: FastAPI, database: Callable[[], Database], allowed: bool, limit: int, respond: Answer,
               refuse: Answer) -> None:
    """The import endpoint on ``app``: ``database()`` is the request's
    Database; ``respond(status, report)`` answers with a report,
    ``refuse(status, error)`` with an error object."""
    running = app.state.import_running = threading.Lock()  # the tests hold it too

    @app.post("/api/v1/import", summary="= tables import WORKBOOK --json (only with --allow-import)", openapi_extra=DOC)
    async def import_upload(request: Request) -> Response:
        """Import the workbook in the body, all or nothing. 200 with the
        report when imported (or checked, with `dry_run`), 422 with the same
        report when refused, 413 over the upload limit, 409 while another
        import of this server runs, 403 when the server is read-only."""
        if not allowed:
            await drain(request.receive)
            return refuse(403, error_json("this server is read-only: start it with --allow-import (and TABLES_TOKEN) "
                                           "to import over HTTP"))
        try:
            options = {flag: False for flag in FLAGS}
            name = None
            for key, value in request.query_params.multi_items():
                if key == "name":
                    if name is not None:
                        raise ValueError("give 'name' once")
                    name = value
                elif key in FLAGS:
                    options[key] = FLAGS[key].read(value)
                else:
                    raise ValueError(f"{key!r}: no such field (name, {', '.join(FLAGS)})")
            label = upload_name(name)
        except ValueError as exc:
            await drain(request.receive)
            return refuse(422, error_json(str(exc)))
        if not running.acquire(blocking=False):
            await drain(request.receive)
            return refuse(409, error_json("another import is running on this server; send this one when it is done"))
        try:
            with tempfile.TemporaryDirectory(prefix="tables-upload-") as folder:  # made 0700: this user's only
                path = Path(folder) / "upload"
                with path.open("wb") as out:
                    try:
                        size = await read_body(request, limit, out.write)
                    except TooLarge:
                        declared = request.headers.get("content-length", "")
                        said = (f"the upload is {int(declared):,} bytes; the limit is {limit:,}" if declared.isdigit()
                                else f"the upload is over the limit of {limit:,} bytes")
                        return refuse(413, error_json(f"{label}: {said}"))
                    except Gone:
                        return refuse(400, error_json(f"{label}: the client went away before the upload ended"))
                if size == 0:
                    return refuse(422, error_json(f"{label}: the body is empty (send the workbook's bytes)"))
                return await run_in_threadpool(_import, database(), path, label, options, respond, refuse)
        finally:
            running.release()


def _import(database: Database, path: Path, label: str, options: dict[str, bool], respond: Answer, refuse: Answer) -> Response:
    from tables_app.services.importing import import_workbooks

    try:
        # no progress for an upload: the callbacks named, mypy checks **options (IMPORT_FLAGS, bools) against the flags alone
        report = import_workbooks(database, [path], labels=[label], on_sheet=None, on_wait=None, **options)
    except TablesError as exc:  # the database cannot be written (locked too long, read-only, damaged)
        return refuse(503, error_json(str(exc)))
    return respond(422 if report.problems else 200, report.as_json())

