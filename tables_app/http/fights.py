"""The fight endpoints of `tables serve` (docs/api.md, "Fights"): each one
the `tables fight ...` command of its operation (operations/fights.py),
answering what that command prints with ``--json``.

The fight's name is in the path (``/api/v1/fights/{name}/...``, URL-encoded;
it may hold a slash); the other fields in the query string of a GET, the
JSON body of a POST, each read by the operation's declared parameters, as
every route does (app.operation_response). The writes send ``after``, the
last ``seq`` they saw: a fight that moved on since is 409 (FightChanged).
Fights are written on every server, token or not (access.py's rules decide
who reaches it at all); each request runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from typing import Any, Callable

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool

from tables_app.errors import error_json
from tables_app.http.answers import CliJSON, failure, json_body_doc, json_object, query_doc
from tables_app.http.methods import FIGHT_BY_NAME, wrong_method
from tables_app.operations import ParamError, find
from tables_app.operations.fights import ROUNDS

FIGHTS = "/api/v1/fights"
# (method, the path after /fights/{name}, the command's last word), each route of a named fight;
# the routes with a suffix first: /fights/{name} takes any path (a name may hold a slash).
NAMED = (
    ("post", "/combatants", "join"),
    ("post", "/attacks", "attack"),
    ("post", "/rounds", "round"),
    ("post", "/undo", "undo"),
    ("post", "/edits", "edit"),
    ("post", "/adjustments", "adjust"),  # `fight heal` and `fight damage` are adjustments too: {"heal": N}
    ("post", "/departures", "leave"),
    ("get", "/log", "log"),
    ("get", "/odds", "odds"),  # `tables odds fight NAME`
    ("get", "/simulate", "simulate"),  # `tables simulate fight NAME`
    ("get", "", "show"),
    ("delete", "", "remove"),
)
WRITES = ("join", "attack", "round", "undo", "edit", "adjust", "leave")  # those that take `after` (409 when the fight moved on)
CHANCES = {"odds": ("odds", "fight"), "simulate": ("simulate", "fight")}  # not `tables fight WORD`
# Fights simulated times the rounds asked, at most, a request: the work of an estimate grows with both (numpy plays
# about 2 million duel fight-rounds a second here, a 4-vs-4's at a tenth of that; REQUEST_SECONDS stops what takes
# longer); enough to replay any estimate the odds route makes by itself. The command line takes 1,000,000 of 200.
MAX_FIGHT_ROUNDS = 2_000_000
# The chances of a fight (odds, simulate) are the server's heavy requests: at most this many are worked out at once
# (one per core here), a request waits at most QUEUE_SECONDS for its turn (else 503, Retry-After), and each stops
# REQUEST_SECONDS after it arrived (503) or as soon as its client has gone (polled every POLL_SECONDS): no answer takes
# more than 10 s (a hang, docs/security.md), however loaded the machine.
HEAVY_AT_ONCE = 2
QUEUE_SECONDS = 3.0
REQUEST_SECONDS = 9.0
POLL_SECONDS = 0.1
ENDING = "the server is shutting down: ask again once it is back"
BUSY = (f"the server is working out {HEAVY_AT_ONCE} heavy requests already (the chances of fights, simulations); "
        "ask again in a moment")
MAX_TIME = 5.0  # an odds request's own time budget (`time`), at most


def simulation_bound(values: dict[str, Any]) -> None:
    """A simulation over HTTP plays at most MAX_FIGHT_ROUNDS fight-rounds (count × rounds); an odds request's
    time budget is at most MAX_TIME, and certified bounds asked without one get MAX_TIME (their own default, 10 s,
    the command line's, made an answer of over 10 s)."""
    if values.get("certified") and values.get("seconds") is None:
        values["seconds"] = MAX_TIME
    count, rounds = values.get("count"), values["rounds"]
    if count is not None and count * rounds > MAX_FIGHT_ROUNDS:
        raise ParamError("count", f"at most {MAX_FIGHT_ROUNDS // rounds:,} fights of {rounds} rounds over HTTP "
                                  f"(count × rounds at most {MAX_FIGHT_ROUNDS:,} a request; the command line takes more)")
    if (seconds := values.get("seconds")) is not None and seconds > MAX_TIME:
        raise ParamError("time", f"at most {MAX_TIME:g} seconds over HTTP (the command line takes more)")


class Heavy:
    """The server's heavy requests (the chances of a fight, and POST /api/v1/simulate/{system}: seconds of CPU at
    their bounds): how many run at once, and each one's stop. One per app, shared by all of them."""

    def __init__(self) -> None:
        self.slots = asyncio.Semaphore(HEAVY_AT_ONCE)

    async def run(self, request: Request, work: Callable[[Callable[[], bool]], CliJSON], what: str = "the chances",
                  smaller: str = "fewer rounds, a smaller count or a shorter time") -> CliJSON:
        """``work(should_stop)`` in a worker thread once a slot is free: it stops when the client has gone or
        REQUEST_SECONDS have passed since the request came (its wait for a slot counted); past them, 503 saying
        that ``what`` took too long, and to ask for ``smaller``."""
        arrived = time.monotonic()
        try:
            await asyncio.wait_for(self.slots.acquire(), QUEUE_SECONDS)
        except TimeoutError:
            return _busy(BUSY)
        except asyncio.CancelledError:  # the server is ending (Ctrl-C) while it waited
            return _busy(ENDING)
        try:
            stop = _Stop(arrived + REQUEST_SECONDS)
            task = asyncio.ensure_future(run_in_threadpool(work, stop))
            try:
                while not task.done():
                    await asyncio.wait([task], timeout=POLL_SECONDS)
                    if not task.done() and await request.is_disconnected():
                        stop.gone.set()
            except asyncio.CancelledError:  # the server is ending (Ctrl-C): its worker thread must not run on
                stop.gone.set()
                return _busy(ENDING)  # (answered, not raised: uvicorn would log a traceback a request)
            answered = task.result()
            await run_in_threadpool(give_back)
            if stop.expired and answered.status_code == 422:  # stopped by the server's time, not refused
                return _busy(f"{what} took more than the server's {REQUEST_SECONDS:g} seconds a request: "
                             f"ask for {smaller}")
            return answered
        finally:
            self.slots.release()


def _trimmer() -> Callable[[], object] | None:
    """glibc's malloc_trim(0), if this is glibc (None elsewhere: musl, macOS give pages back by themselves)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None
    return None if trim is None else (lambda: trim(0))


_TRIM = _trimmer()


def give_back() -> None:
    """The memory a heavy request let go of, given back to the system: the cycles it left collected, and glibc's
    freed heap pages returned (glibc keeps them for the process by default: after 16 odds requests at once, 3.4 GB
    stayed held)."""
    gc.collect()
    if _TRIM is not None:
        _TRIM()


class _Stop:
    """A heavy request's ``should_stop``: its client has gone (``gone``), or its time is spent (``expired``,
    remembered: the answer the work then gives is the server's 503, not the work's own)."""

    def __init__(self, deadline: float):
        self.gone, self.deadline, self.expired = threading.Event(), deadline, False

    def __call__(self) -> bool:
        self.expired = self.expired or time.monotonic() > self.deadline
        return self.expired or self.gone.is_set()


def _busy(message: str) -> CliJSON:
    answer = failure(503, error_json(message))
    answer.headers["Retry-After"] = "1"
    return answer


def add_fights(app: FastAPI, respond: Callable[..., CliJSON], heavy: Heavy | None = None) -> None:
    """The fight routes on ``app``; ``respond(words, fields, in_path)`` is
    the operation's answer (app.operation_response over the server's database); ``heavy``: the app's gate of
    heavy requests, which the chances go through (a gate of their own without it)."""
    async def answer(words: tuple[str, ...], fields: list[tuple[str, Any]], in_path: tuple[str, ...] = (),
                     check: Callable[[dict[str, Any]], None] | None = None) -> CliJSON:
        answered: CliJSON = await run_in_threadpool(respond, words, fields, in_path, check)
        return answered

    heavy = heavy or Heavy()

    listed, made = find(("fight", "list")), find(("fight", "new"))

    @app.get(FIGHTS, summary="= tables fight list --json", description=listed.help, name="fight_list",
             openapi_extra=query_doc(listed))
    async def fight_list(request: Request) -> CliJSON:
        return await answer(listed.words, list(request.query_params.multi_items()))

    @app.post(FIGHTS, summary="= tables fight new NAME --json", description=made.help, name="fight_new",
              openapi_extra=json_body_doc(made, {"new": {"summary": "a fight", "value": {"name": "Ambush"}}}))
    async def fight_new(request: Request) -> CliJSON:
        body = await json_object(request)
        if isinstance(body, CliJSON):
            return body
        return await answer(made.words, list(body.items()))

    def named_route(method: str, suffix: str, word: str) -> None:
        operation = find(CHANCES.get(word, ("fight", word)))
        arguments = " ".join(p.field.upper() for p in operation.params if p.argument)
        summary = f"= tables {' '.join(operation.words)} {arguments} --json"
        path = f"{FIGHTS}/{{name:path}}{suffix}"
        if method == "post":
            @app.post(path, summary=summary, description=operation.help, name=f"fight_{word}",
                      openapi_extra=json_body_doc(operation, EXAMPLES.get(word, {}), "name"))
            async def written(request: Request, name: str) -> CliJSON:
                body = await json_object(request)
                if isinstance(body, CliJSON):
                    return body
                if "name" in body:
                    return failure(422, error_json("'name': the fight is named in the path "
                                                   f"({FIGHTS}/NAME{suffix}), not in the body"))
                return await answer(operation.words, [("name", name), *body.items()], ("name",))
            return

        check = simulation_bound if word in CHANCES else None

        async def read(request: Request, name: str) -> CliJSON:
            # /fights/{name} takes any path: GET /fights/Ambush/attacks is the attacks' route, in another method
            if not suffix and "/" in name and (wrong := wrong_method(app, request, FIGHT_BY_NAME)) is not None:
                return wrong
            fields = [("name", name), *request.query_params.multi_items()]
            if word in CHANCES:
                extra = {"started": time.monotonic()} if word == "odds" else {}  # its time budget: from the asking
                return await heavy.run(request, lambda should_stop: respond(
                    operation.words, fields, ("name",), check, {"should_stop": should_stop, **extra}))
            return await answer(operation.words, fields, ("name",))

        description = operation.help + (SIMULATE_HELP if check else "")
        app.add_api_route(path, read, methods=[method.upper()], summary=summary, description=description,
                          name=f"fight_{word}", openapi_extra=query_doc(operation, "name"))
        # (odds and simulate: worked out in a worker thread, as every fight route, HEAVY_AT_ONCE at most at once,
        # stopped when the client goes or past REQUEST_SECONDS)

    for method, suffix, word in NAMED:
        named_route(method, suffix, word)
    add_parties(app, answer)


PARTIES = "/api/v1/parties"


def add_parties(app: FastAPI, answer: Callable[..., Any]) -> None:
    """The party routes: each the `tables fight party ...` command of its operation (docs/api.md, "Parties")."""
    listed, saved = find(("fight", "party", "list")), find(("fight", "party", "save"))
    shown, removed = find(("fight", "party", "show")), find(("fight", "party", "remove"))

    @app.get(PARTIES, summary="= tables fight party list --json", description=listed.help, name="party_list",
             openapi_extra=query_doc(listed))
    async def party_list(request: Request) -> CliJSON:
        answered: CliJSON = await answer(listed.words, list(request.query_params.multi_items()))
        return answered

    @app.post(PARTIES, summary="= tables fight party save NAME --from FIGHT --json", description=saved.help,
              name="party_save", openapi_extra=json_body_doc(saved, {"save": {"summary": "a fight's party", "value": {
                  "name": "Heroes", "from": "Orc ambush", "only": ["Hero"]}}}))
    async def party_save(request: Request) -> CliJSON:
        body = await json_object(request)
        if isinstance(body, CliJSON):
            return body
        answered: CliJSON = await answer(saved.words, list(body.items()))
        return answered

    def named(method: str, operation: Any) -> None:
        async def route(request: Request, name: str) -> CliJSON:
            answered: CliJSON = await answer(operation.words, [("name", name), *request.query_params.multi_items()],
                                             ("name",))
            return answered

        app.add_api_route(f"{PARTIES}/{{name:path}}", route, methods=[method],
                          summary=f"= tables {' '.join(operation.words)} NAME --json", description=operation.help,
                          name=f"party_{operation.words[-1]}", openapi_extra=query_doc(operation, "name"))

    named("GET", shown)
    named("DELETE", removed)


SIMULATE_HELP = (f"\n\nOver HTTP, `count` × `rounds` is at most {MAX_FIGHT_ROUNDS:,} a request "
                 f"({MAX_FIGHT_ROUNDS // ROUNDS.default:,} fights of the default {ROUNDS.default} rounds) and `time` at "
                 f"most {MAX_TIME:g} seconds; the server works out {HEAVY_AT_ONCE} heavy requests (these, simulations) at once "
                 f"at most (another request waits up to {QUEUE_SECONDS:g} s for its turn, then gets 503 with Retry-After), and "
                 f"each stops {REQUEST_SECONDS:g} s after it came (503) or as soon as its client has gone.")


EXAMPLES: dict[str, dict[str, dict[str, Any]]] = {
    "join": {
        "by-hand": {"summary": "by hand", "value": {"as": "Hero", "hits": 50, "def": 20, "armor": "MA",
                                                   "weapon": "Longsword", "cmb": 60, "parry": 10, "after": 0}},
        "creature": {"summary": "a creature of the bestiary", "value": {"creature": "Orc Warrior", "weapon": "Scimitar",
                                                                      "cmb": 55, "after": 1}},
        "party": {"summary": "a saved party, all at once", "value": {"party": "Heroes", "after": 0}},
    },
    "attack": {
        "dice": {"summary": "dice rolled at the table", "value": {"attacker": "Hero", "target": "Orc Warrior #1",
                                                                  "dice": [50], "after": 2}},
        "seed": {"summary": "rolled by the server", "value": {"attacker": "Hero", "target": "Orc Warrior #1", "seed": 3}},
    },
    "round": {
        "end": {"summary": "end the round", "value": {"after": 3}},
        "auto": {"summary": "every able combatant attacks first", "value": {"auto": True, "seed": 5, "after": 3}},
    },
    "undo": {"undo": {"summary": "take the last event back", "value": {"after": 4}}},
    "edit": {"edit": {"summary": "healing", "value": {"combatant": "Hero", "taken": 0, "bleed": 0, "after": 4}},
             "wield": {"summary": "another weapon", "value": {"combatant": "Hero", "wield": "Dagger", "cmb": 45, "after": 4}}},
    "adjust": {"heal": {"summary": "heal 10 hits", "value": {"combatant": "Hero", "heal": 10, "after": 4}},
               "bleed": {"summary": "bleeding 2 less", "value": {"combatant": "Orc Warrior #1", "bleed": -2, "after": 5}}},
    "leave": {"leave": {"summary": "it flees", "value": {"combatant": "Orc Warrior #1", "after": 6}}},
}
