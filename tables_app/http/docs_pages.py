"""``/docs`` (Swagger UI) of `tables serve`, served with its script and
style from the installed package fastapi-offline, so that it loads with no
network beyond this server (FastAPI's own page fetches them from a CDN, and
a table without internet saw a blank page). There is no ``/redoc``: ReDoc
fetches its logo from redoc.ly whatever it is given.

Only the names in ASSETS are served (no path is joined from the request).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from starlette.exceptions import HTTPException

ASSETS_PATH = "/docs-assets"
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
}
# No validator badge: Swagger UI would fetch it from validator.swagger.io.
SWAGGER_PARAMETERS = {"validatorUrl": None, "tryItOutEnabled": True, "displayRequestDuration": True}


@cache
def _folder() -> Path:
    import fastapi_offline

    return Path(fastapi_offline.__file__).parent / "static"


def add_docs(app: FastAPI) -> None:
    """``GET /docs`` and ``/docs-assets/{name}`` on ``app`` (not in the OpenAPI schema)."""
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=openapi_url, title=f"{app.title}: the HTTP API",
                                   swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
                                   swagger_favicon_url=f"{ASSETS_PATH}/favicon.png",
                                   swagger_ui_parameters=SWAGGER_PARAMETERS)

    @app.api_route(f"{ASSETS_PATH}/{{name}}", methods=["GET", "HEAD"], include_in_schema=False)
    def asset(name: str) -> Response:
        if name not in ASSETS:
            raise HTTPException(status_code=404)
        return Response((_folder() / name).read_bytes(), media_type=ASSETS[name],
                        headers={"Cache-Control": "max-age=86400", "X-Content-Type-Options": "nosniff"})
