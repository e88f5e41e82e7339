"""A server with the operator's token and two groups' (docs/deploy.md, "Groups"), for the tests of groups over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from helpers import LOCAL_BASE

from tables_app.http.app import create_app

OPERATOR = "the-operators-token-0123456789"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@contextmanager
def groups_served(db_path: Path, run: Any) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """A client of a server whose operator's token is OPERATOR, and the tokens by who holds them: the groups
    `Tuesday` and `Friday` (made with `tables group new`) and "operator"."""
    tokens = {name: json.loads(run("group", "new", name, "--json").stdout)["token"] for name in ("Tuesday", "Friday")}
    app = create_app(db_path, token=OPERATOR, allow_import=True, upload_limit=1 << 20)
    with TestClient(app, base_url=LOCAL_BASE) as client:
        yield client, {**tokens, "operator": OPERATOR}
