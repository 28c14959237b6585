"""`openlandlord serve`: the web table, a local starlette app served by uvicorn (the `[web]`
extra). Everything it sends ships in this package (`static/`): no CDN, no network beyond
the address it binds.

The JSON API (tests and outside checks use it as written):

    POST /api/games              {"game", "rules" | "bidding", "mode", "seats": [spec | "human"],
                                  "seed", "player"}  -> the game's state, with its "id"
    GET  /api/games/{id}         -> {"id", "done", "to_move", "human_to_move", "legal": [move
                                  text] | null (too many to list), "hint": a legal move,
                                  "view", "log", "rounds", and once done "result", "outcome",
                                  "points", "record"}; ?advice=1 adds the hint's scores and belief
    POST /api/games/{id}/move    {"move": text} -> the new state (bots move on their own until a
                                  person is to move again), or 400 {"error": why}
    GET  /api/agents             the agent specs and game options the new-game form offers
    GET  /api/leaderboard        ranking points by player
    GET  /api/records            the recorded games, newest first
    GET  /api/records/{name}     one record replayed: a frame per move

Bad input (unknown spec, bad options, an illegal move, a move for a finished game) is a 400
with {"error": message}; an unknown game id a 404; the server never dies on a request.
Pages: `/` (play), `/replays`, `/leaderboard`.
"""
from __future__ import annotations

import json
import os
import re
import traceback

from ..errors import UserError
from . import ranking, records
from .session import Tables

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
# The agents the new-game form offers (any other spec can be typed).
AGENTS = ("rule:easy", "rule", "rule:expert", "pimc", "student:data/models/doudizhu",
          "student:data/models/shengji", "random", "human")
RECORD_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,200}$")


def create_app(keep_records: bool = True):
    """The ASGI app. Records go to `records.default_folder()` and points to
    `ranking.default_path()` (the environment variables OPENLANDLORD_RECORDS and
    OPENLANDLORD_RANKING move them)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    tables = Tables(keep_records=keep_records)

    def error(message: str, status: int = 400):
        return JSONResponse({"error": message}, status_code=status)

    async def body_of(request: Request):
        raw = await request.body()
        try:
            return json.loads(raw or b"null")
        except ValueError as exc:
            raise UserError(f"the request body is not JSON: {exc}") from None

    def table_of(request: Request):
        try:
            return tables.get(request.path_params["game_id"])
        except KeyError:
            raise HTTPException(404, f"no game {request.path_params['game_id']!r} on this server "
                                     "(it may have ended long ago, or the server restarted)") from None

    def wants_advice(request: Request) -> bool:
        return request.query_params.get("advice", "0") not in ("0", "", "false")

    def state_of(table, advice: bool):
        # Runs in a worker thread: bots and the hint may think for a while.
        with table.lock:
            return table.to_json(advice)

    def moved(table, advice: bool, text):
        with table.lock:
            table.move(text)
            return table.to_json(advice)

    async def new_game(request: Request):
        body = await body_of(request)
        table = await run_in_threadpool(tables.create, body)
        return JSONResponse(await run_in_threadpool(state_of, table, wants_advice(request)))

    async def show_game(request: Request):
        table = table_of(request)
        return JSONResponse(await run_in_threadpool(state_of, table, wants_advice(request)))

    async def move(request: Request):
        table = table_of(request)
        body = await body_of(request)
        if not isinstance(body, dict) or "move" not in body:
            raise UserError('send the move as {"move": TEXT}, e.g. {"move": "33"} or {"move": "pass"}')
        return JSONResponse(await run_in_threadpool(moved, table, wants_advice(request), body["move"]))

    async def agents(request: Request):
        from ..games import GAMES, spec
        return JSONResponse({"agents": list(AGENTS), "games": {
            g: {"seats": spec(g).num_seats,
                "options": {o.name: {"choices": list(o.choices), "default": o.default}
                            for o in spec(g).options}} for g in GAMES}})

    async def leaderboard(request: Request):
        return JSONResponse({"players": ranking.leaderboard(), "points": ranking.POINTS})

    async def record_list(request: Request):
        return JSONResponse({"records": records.listing()})

    async def record_frames(request: Request):
        name = request.path_params["name"]
        folder = os.path.realpath(records.default_folder())
        path = os.path.realpath(os.path.join(folder, name + ".json"))
        if not RECORD_NAME.match(name) or ".." in name or not path.startswith(folder + os.sep):
            raise UserError(f"{name!r} is not a record name")
        if not os.path.exists(path):
            raise HTTPException(404, f"no record {name!r}")
        record = records.load(path)
        return JSONResponse({"name": name, "game": record["game"], "seats": record["seats"],
                             "seed": record["seed"], "options": record["options"],
                             "source": record.get("source"), "frames": records.frames(record)})

    async def page(request: Request):
        return FileResponse(os.path.join(STATIC, "index.html"))

    async def user_error(request, exc):
        return error(str(exc))

    async def http_error(request, exc):
        return error(exc.detail, exc.status_code)

    async def bug(request, exc):
        traceback.print_exception(exc)
        return error(f"internal error ({type(exc).__name__}: {exc}); the server keeps running", 500)

    routes = [Route("/", page), Route("/replays", page), Route("/leaderboard", page),
              Route("/api/games", new_game, methods=["POST"]),
              Route("/api/games/{game_id}", show_game),
              Route("/api/games/{game_id}/move", move, methods=["POST"]),
              Route("/api/agents", agents), Route("/api/leaderboard", leaderboard),
              Route("/api/records", record_list),
              Route("/api/records/{name:path}", record_frames),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    return Starlette(routes=routes, exception_handlers={UserError: user_error,
                                                       HTTPException: http_error, Exception: bug})


def run(args) -> int:
    """`openlandlord serve`."""
    try:
        import uvicorn
        import starlette  # noqa: F401
    except ImportError as exc:
        raise UserError(f"openlandlord serve needs the web extra ({exc.name} is not installed): "
                        "pip install -e '.[web]'") from None
    import socket
    try:
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc}): "
                        "choose another --port or --host") from None
    app = create_app(keep_records=not getattr(args, "no_records", False))
    print(f"OpenLandlord table: http://{args.host}:{args.port}/  (Ctrl-C stops it)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
