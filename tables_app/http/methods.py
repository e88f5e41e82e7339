"""405 for a path the API takes with another method (docs/api.md, "Errors
and status codes"): `GET /api/v1/resolve/table` is POST's, not a table
named `table` of a kind `resolve`.

A few routes take any name in their path (`GET /api/v1/{kind}/{name}`,
`POST /api/v1/{verb}/{system}`, `GET|DELETE /api/v1/fights/{name}`), so a
request in the wrong method reaches one of them instead of Starlette's own
405. Each of them asks ``wrong_method`` first: the methods the other routes
take on the same path (and the catch-alls' own, where the path's kind or
verb is one of theirs); when there are some and the request's is none of
them, the answer is 405 with ``Allow`` and the error object. Asked only on
those routes, after no route of the request's method took the path: the
routes that answer pay nothing."""

from __future__ import annotations

from fastapi import FastAPI, Request
from starlette.routing import Match

from tables_app.domain import kinds
from tables_app.errors import error_json
from tables_app.http.answers import CliJSON, failure

PREFIX = "/api/v1"
# the routes that take any name: never the reason a path "exists" with another method
CATCH_ALLS = frozenset({"listing", "shown", "unknown_system"})
FIGHT_BY_NAME = frozenset({"fight_show", "fight_remove"})  # /fights/{name}: a name may hold a slash
LISTED = frozenset(word.lower() for word in (*kinds.list_words(), "rulesets", "ruleset"))
SHOWN = frozenset(word.lower() for word in kinds.show_words())
ORDER = ("GET", "HEAD", "POST", "DELETE")


def allowed_methods(app: FastAPI, request: Request, skip: frozenset[str] = frozenset()) -> list[str]:
    """The methods the API takes on the request's path, by any route but the catch-alls (and ``skip``)."""
    from tables_app.operations.attacks import GROUPS

    path = request.scope["path"]
    found: set[str] = set()
    by_name: set[str] = set()  # /fights/{name}'s: only when no other route takes the path (`…/Ambush/odds` is the odds')
    for route in app.router.routes:
        name = getattr(route, "name", None)
        if name in CATCH_ALLS or name in skip:
            continue
        match, _ = route.matches({**request.scope, "method": "GET", "type": "http"})
        if match is not Match.NONE:  # the path is the route's (its method aside)
            (by_name if name in FIGHT_BY_NAME else found).update(getattr(route, "methods", None) or ())
    found = found or by_name
    if path.startswith(f"{PREFIX}/"):
        parts = path[len(PREFIX) + 1:].split("/")
        first = parts[0].lower()
        if len(parts) == 1 and first in LISTED:
            found.add("GET")
        elif len(parts) >= 2 and first in SHOWN and parts[1]:
            found.add("GET")
        if len(parts) == 2 and parts[0] in GROUPS and parts[1]:
            found.add("POST")
    return sorted(found, key=lambda method: (ORDER.index(method) if method in ORDER else len(ORDER), method))


def wrong_method(app: FastAPI, request: Request, skip: frozenset[str] = frozenset()) -> CliJSON | None:
    """405 (``Allow``, the error object) when the path is taken in other methods only; None otherwise."""
    allowed = allowed_methods(app, request, skip)
    if not allowed or request.method in allowed:
        return None
    return method_not_allowed(request.method, request.scope["path"], allowed)


def method_not_allowed(method: str, path: str, allowed: list[str]) -> CliJSON:
    """`GET /api/v1/resolve/table` → 405: `POST` is what it takes."""
    takes = " or ".join(allowed)
    answer = failure(405, error_json(f"{path} does not take {method}: send {takes} (see /docs)"))
    answer.headers["Allow"] = ", ".join(allowed)
    return answer
