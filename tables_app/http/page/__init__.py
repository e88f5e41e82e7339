"""The game master's page of `tables serve` (docs/api.md, "The page"):
``GET /`` is index.html and ``GET /static/{name}`` its script and style,
all read from this package. No build step and no network: plain HTML, CSS
and JavaScript that call the API's own ``/api/v1`` endpoints.

Only the names in FILES are served (no path is ever joined from the
request); the page answers with a Content-Security-Policy of
``default-src 'self'``, so it holds no inline script or style.
"""

from __future__ import annotations

from importlib import resources

from fastapi import FastAPI
from fastapi.responses import Response
from starlette.exceptions import HTTPException

# The files of the page, by the name they are served under, with their types.
FILES = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}
STATIC = ("app.js", "style.css", "favicon.svg")
HEADERS = {
    "Content-Security-Policy": "default-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


def read(name: str) -> bytes:
    """One of the page's FILES, as shipped in the package."""
    return resources.files(__name__).joinpath(name).read_bytes()


def served(name: str) -> Response:
    return Response(read(name), media_type=FILES[name], headers=HEADERS)


def add_page(app: FastAPI) -> None:
    """``GET /`` and ``GET /static/{name}`` on ``app`` (not in the OpenAPI schema)."""

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    def page() -> Response:
        return served("index.html")

    @app.api_route("/static/{name}", methods=["GET", "HEAD"], include_in_schema=False)
    def static(name: str) -> Response:
        if name not in STATIC:
            raise HTTPException(status_code=404)
        return served(name)
