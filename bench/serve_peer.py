"""The peer of bench/serve_load.py: the same web stack as `tables serve`
(FastAPI on uvicorn, httptools and uvloop, no access log, TCP_NODELAY)
answering the same requests with answers prepared in advance. It reads
each request as the server does (a JSON body parsed, a query string read)
but computes nothing: what it costs per request is the framework's floor,
and `tables serve` minus it is what tables_app itself costs.

    python bench/serve_peer.py --port 8001 --answers answers.json

``answers.json`` maps "query" and "resolve" to a body each (bytes as text),
captured from a real `tables serve` by serve_load.py.
"""

from __future__ import annotations

import argparse
import gc
import json
from pathlib import Path

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response


def create(answers: dict[str, str]) -> FastAPI:
    app = FastAPI()
    query, resolve = answers["query"].encode(), answers["resolve"].encode()

    @app.get("/api/v1/health")
    async def health() -> Response:
        return Response(b'{"status": "ok"}', media_type="application/json")

    @app.get("/api/v1/query/attack")
    async def query_attack(request: Request) -> Response:
        request.query_params.multi_items()
        return Response(query, media_type="application/json")

    @app.post("/api/v1/resolve/table")
    async def resolve_table(request: Request) -> Response:
        json.loads(await request.body())
        return Response(resolve, media_type="application/json")

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--answers", type=Path, required=True)
    args = parser.parse_args()
    app = create(json.loads(args.answers.read_text()))
    gc.collect()
    gc.freeze()  # as `tables serve` does
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False,
                http="tables_app.http.protocol:NoDelayHTTPProtocol")


if __name__ == "__main__":
    main()
