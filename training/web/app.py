"""The HTTP API and static front end of the web card table (FastAPI).

Endpoints (JSON; an error is ``{"detail": "<message naming what was wrong and what is valid>"}``
with a 4xx/5xx status, and changes nothing):

=======================================  ===================================================================
``GET /api/games``                       ``{"games": [{"id", "name", "players": {"min", "max", "default"},
                                         "teams", "pack", "agents", "default_agent"}]}``
``POST /api/tables``                     body ``{"game", "players", "partner", "opponents", "seed",
                                         "options", "force_agent"}`` (all but ``game`` optional) -> 201
                                         ``{"table_id", "view"}``; the person is seat 0. 400: bad player
                                         count, option or agent name (only registry names of the game and
                                         ``"random"``), a ``partner`` in a game without partnerships or
                                         unknown game; 422: a field of the wrong JSON type (``players``
                                         ``"4"``; ``force_agent`` is ``true`` or ``false`` only, not
                                         ``"yes"`` or 1); 503: too many open tables. A trained agent, named or
                                         the default, trained for other options is replaced by the rule bot
                                         unless ``force_agent`` (the view's seats name the agents seated).
                                         A string option value is read as ``cardzoo play -o`` reads one,
                                         ``"03"`` as 3 (:func:`cardzoo.training.common.parse_option_value`).
                                         ``seed`` deals as ``env.reset(seed=seed)`` does, to replay a deal:
                                         whoever knows it can compute every hand, so a fair game leaves
                                         it out (the table then deals from fresh entropy).
``GET /api/tables/{id}``                 the View (:func:`cardzoo.training.web.views.table_view_json`); 404 unknown.
                                         An AI seat whose agent fails is 503 (on any request that plays
                                         it); the moves before stand, and the AI plays again at the next
                                         GET (a move first says to GET: the person has not seen them)
``POST /api/tables/{id}/move``           body ``{"action": int, "moves": int, "deal": int}`` (``moves``
                                         and ``deal`` optional: the ``"moves"`` and ``"deal"`` of the View
                                         the move answers; a deal counts its moves from 0 again, so
                                         ``moves`` alone does not tell a view of the last deal from this
                                         one's): the person's move,
                                         then the AI seats' up to the person's next turn -> View, with
                                         ``"frames"``: each of these moves as seat 0 saw it
                                         (:func:`~.views.frames_json`), for the browser to show one at a
                                         time, and ``"skipped"``: ``None``, or where the answer ends the
                                         episode with a long stretch after seat 0's last move (P'yanitsa,
                                         3-4 players, seat 0 out) that stretch summed up instead of sent
                                         frame by frame (:func:`~.views.answer_frames`). 400 illegal (the message names the action and the legal
                                         ones); 409 not your turn, the episode is over, or a stale move
                                         (``moves`` or ``deal`` is not the table's: a repeated request, or
                                         one sent from an old view); 422 malformed body.
``POST /api/tables/{id}/new``            deal a new episode at the table once the deal is over (running
                                         totals kept) -> View with ``"frames"`` (the AI moves before the
                                         person's first turn); 409 while the deal is running (a deal
                                         dropped half way would not count: finish it or open a table)
``GET /api/tables/{id}/replay``          the finished episode move by move from seat 0's view:
                                         ``{"first", "initial": view, "frames": [...]}`` (the last
                                         1,500 moves: ``first`` is the number of the first one, 0 unless
                                         the episode was longer); 409 while it is running
``GET /api/tables/{id}/hint``            ``{"action", "name"}``: the default agent's move for seat 0 now
                                         (the table's default AI, ``force_agent`` included; loaded on
                                         first use); 409 when it is not seat 0's turn
``DELETE /api/tables/{id}``              close the table -> 204
``POST /api/tables/{id}/close``          the page closed (``navigator.sendBeacon``): the table goes after
                                         ``CLOSE_GRACE`` (10 s) unless asked for again (a reload) -> 204
``GET /api/rules/{game}``                ``{"game", "html"}``: ``envs/<game>/RULES.md`` rendered (raw HTML in
                                         it is escaped); 404 unknown game, listing the games
``GET /api/howto/{game}?lang=en|id``     ``{"game", "lang", "html"}``: the short "How to play" page
                                         (``training/web/howto/<game>.<lang>.md``); 404 unknown game,
                                         400 unknown language, each listing the valid ones
=======================================  ===================================================================

An answer of :data:`GZIP_MIN` bytes or more is gzip-compressed for a client that sends
``Accept-Encoding: gzip``. An API path no endpoint takes is 404 listing :data:`API_ENDPOINTS`; a wrong method 405 naming the
path's methods. HEAD on a GET endpoint answers as GET without the body. Limits: a request body over :data:`MAX_BODY` bytes gets 413 (unread, never echoed); a client
(its address) holds at most ``per_client`` open tables and opens at most ``per_minute`` a minute,
else 429; tables idle for ``idle_seconds`` are dropped, and the page closes its table when it is
closed. Error messages are cut to :data:`MAX_DETAIL` characters and quote input only briefly.
Agents load lazily: ``/api/games`` loads none.

The front end is served from ``training/web/static`` at ``/`` (``/index.html``, ``/table.html``,
``/rules.html``) and ``/static/...``, translations from ``training/web/i18n`` at ``/i18n/...``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import BackgroundTasks, FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt
from starlette.exceptions import HTTPException as StarletteHTTPException

from cardzoo import envs

from .tables import Table, TableError, TableManager
from .views import answer_frames, frames_json, table_view_json

__all__ = ["API_ENDPOINTS", "MAX_BODY", "MAX_DETAIL", "create_app", "howto_html", "rules_html", "serve"]

HERE = Path(__file__).parent
STATIC = HERE / "static"
I18N = HERE / "i18n"
HOWTO = HERE / "howto"
#: largest request body accepted (bytes); a larger one gets 413
MAX_BODY = 64 * 1024
#: longest error message sent back (characters)
MAX_DETAIL = 600
#: answers of at least this many bytes are sent gzip-compressed to a client that accepts it
GZIP_MIN = 1024
#: languages of the "How to play" pages
HOWTO_LANGS = ("en", "id")


class BodyLimit:
    """ASGI middleware: a request whose body exceeds ``limit`` bytes (by its Content-Length, or
    while it streams in) is answered 413 without being read on or echoed."""

    def __init__(self, app, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        too_big = JSONResponse(
            {"detail": f"request body too large: at most {self.limit} bytes"}, status_code=413
        )
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    if int(value) > self.limit:
                        return await too_big(scope, receive, send)
                except ValueError:
                    return await JSONResponse({"detail": "bad Content-Length"}, status_code=400)(scope, receive, send)
        # no (or a small) Content-Length: read the body here, counting
        body = b""
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > self.limit:
                return await too_big(scope, receive, send)
            more = message.get("more_body", False)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


class NewTable(BaseModel):
    """Body of ``POST /api/tables``."""

    model_config = ConfigDict(extra="forbid")
    game: str
    players: StrictInt | None = None
    partner: str | None = None
    opponents: str | None = None
    seed: StrictInt | None = Field(None, ge=0, le=2**63 - 1)
    options: dict[str, Any] | None = None
    # seat a trained agent even for options it was not trained for; a JSON boolean only: a lax bool
    # read "yes", "no", "1", 0 as true/false, so a typo could seat an agent the person did not ask for
    force_agent: StrictBool = False


class Move(BaseModel):
    """Body of ``POST /api/tables/{id}/move``."""

    model_config = ConfigDict(extra="forbid")
    action: StrictInt
    # the "moves" of the View this move answers: a repeated request (a retry, a double click) or one
    # sent from an old view (a second tab) is refused instead of played on a table that moved on
    moves: StrictInt | None = None
    # the "deal" of that View: every deal counts its moves from 0, so a view of the last deal at the same
    # count (a second tab left at its first turn) is told apart only by it
    deal: StrictInt | None = None


@lru_cache(maxsize=None)
def howto_html(game: str, lang: str) -> str:
    """The "How to play" page of ``game`` in ``lang`` (``training/web/howto/<game>.<lang>.md``) as
    HTML (raw HTML escaped). ``ValueError`` for an unknown game or language, naming the valid ones."""
    from markdown_it import MarkdownIt

    if game not in envs.GAMES:
        raise ValueError(f"unknown game {_short(game)}; games: {sorted(envs.GAMES)}")
    if lang not in HOWTO_LANGS:
        raise ValueError(f"unknown language {_short(lang)}; languages: {list(HOWTO_LANGS)}")
    text = (HOWTO / f"{game}.{lang}.md").read_text(encoding="utf-8")
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def _short(value, limit: int = 40) -> str:
    r = repr(value)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def _json_short(value, limit: int = 40) -> str:
    """``value`` as the client wrote it (JSON: ``"yes"``, ``null``), cut to ``limit`` characters."""
    import json

    try:
        r = json.dumps(value)
    except (TypeError, ValueError):
        return _short(value, limit)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def _detail(message: str) -> str:
    return message if len(message) <= MAX_DETAIL else message[: MAX_DETAIL - 3] + "..."


@lru_cache(maxsize=None)
def rules_html(game: str) -> str:
    """``envs/<game>/RULES.md`` as HTML (CommonMark with tables; raw HTML escaped). ``ValueError``
    for an unknown game."""
    from markdown_it import MarkdownIt

    if game not in envs.GAMES:
        raise ValueError(f"unknown game {_short(game)}; games: {sorted(envs.GAMES)}")
    text = (Path(envs.__file__).parent / game / "RULES.md").read_text(encoding="utf-8")
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


#: the endpoints, as an unknown API path's refusal lists them
API_ENDPOINTS = (
    "GET /api/games", "POST /api/tables", "GET /api/tables/{id}", "POST /api/tables/{id}/move",
    "POST /api/tables/{id}/new", "GET /api/tables/{id}/replay", "GET /api/tables/{id}/hint",
    "DELETE /api/tables/{id}", "POST /api/tables/{id}/close", "GET /api/rules/{game}", "GET /api/howto/{game}",
)

#: what FastAPI answers (400) for a body it cannot decode: not UTF-8, a number past Python's digit limit, or arrays
#: nested past the JSON parser's recursion limit (about 950 deep here)
_UNREADABLE = "There was an error parsing the body"


def _example(path: str) -> str:
    """A valid body for the endpoint at ``path`` (for a refusal to name what is valid)."""
    return '{"action": 3}' if path.endswith("/move") else '{"game": "all_fours"}'


def _validation_message(exc: RequestValidationError, path: str = "", content_type: str | None = None) -> str:
    """The 422 message for a body FastAPI refused: what was wrong and what is valid (``path``: the
    request's, for an example body; ``content_type``: its header, for a body not sent as JSON)."""
    parts = []
    model = Move if path.endswith("/move") else NewTable
    for err in exc.errors():
        typ = err.get("type")
        if typ == "json_invalid":  # loc is ("body", character position)
            pos = err.get("loc", ("body", "?"))[-1]
            why = str((err.get("ctx") or {}).get("error", "JSON decode error"))
            why = why[:-3] if why.endswith(" at") else why  # "Unterminated string starting at": not "at at"
            return (f"malformed request: the body is not valid JSON ({why} at character {pos}); "
                    f"send a JSON object, e.g. {_example(path)}")
        where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
        given = _json_short(err.get("input"))
        if not where:  # the body as a whole: empty, not an object, or not sent as JSON at all
            if typ == "missing":
                return f"malformed request: the body is empty; send a JSON object, e.g. {_example(path)}"
            if "json" not in (content_type or "").lower():  # FastAPI then reads no JSON at all
                sent = f"as {_short(content_type)}, not as JSON" if content_type else "without a Content-Type"
                return (f"malformed request: the body was sent {sent}; send a JSON object with Content-Type: "
                        f"application/json, e.g. {_example(path)}")
            return f"malformed request: the body must be a JSON object, not {given}; e.g. {_example(path)}"
        if typ == "missing":  # pydantic's words were "action: Field required"
            parts.append(f"{where}: missing; it is required, e.g. {_example(path)}")
        elif typ == "bool_type":  # name the valid values, as every refusal does
            parts.append(f"{where}: must be a JSON boolean, true or false, not {given}")
        elif typ in ("int_type", "int_from_float"):  # "abc", "3", 1.5, true, null
            parts.append(f"{where}: must be a JSON integer, not {given}")
        elif typ == "string_type":
            parts.append(f"{where}: must be a JSON string, not {given}")
        elif typ == "dict_type":  # options
            parts.append(f"{where}: must be a JSON object of option names and values, not {given}")
        elif typ in ("greater_than_equal", "less_than_equal"):  # seed
            field = model.model_fields.get(where)
            lo = next((m.ge for m in getattr(field, "metadata", ()) if getattr(m, "ge", None) is not None), None)
            hi = next((m.le for m in getattr(field, "metadata", ()) if getattr(m, "le", None) is not None), None)
            parts.append(f"{where}: must be an integer from {lo} to {hi}, not {given}" if lo is not None
                         and hi is not None else f"{where}: {err.get('msg', 'invalid')}")
        elif typ == "extra_forbidden":
            parts.append(f"{_short(where)}: unknown field; the fields are {', '.join(model.model_fields)}")
        else:
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "malformed request: " + "; ".join(parts)


def create_app(manager: TableManager | None = None, warm_up: bool = False) -> FastAPI:
    """The FastAPI app; ``manager`` holds the tables (a new :class:`TableManager` by default) and
    is reachable as ``app.state.manager``. ``warm_up``: once the first ``/api/games`` answer has been
    sent, a background thread loads each game's default agent (:meth:`TableManager.warm_up`) while
    the person chooses a game, so that the first table does not wait for it; nothing waits for that
    thread (``/api/games`` itself never loads an agent)."""
    import threading

    app = FastAPI(title="cardzoo card table", docs_url=None, openapi_url="/api/openapi.json", redoc_url=None)
    warm = {"started": not warm_up}

    def start_warm_up():
        threading.Thread(target=app.state.manager.warm_up, name="agent-warm-up", daemon=True).start()

    app.state.manager = manager if manager is not None else TableManager()
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    # answers are JSON that repeats itself (each frame a whole seat-0 view and text view): gzip makes
    # a replay 30 times and a View 4 to 7 times smaller for a client that accepts it (every browser)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN)

    @app.exception_handler(TableError)
    async def _table_error(request: Request, exc: TableError):
        return JSONResponse({"detail": _detail(str(exc))}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_body(request: Request, exc: RequestValidationError):
        message = _validation_message(exc, request.url.path, request.headers.get("content-type"))
        return JSONResponse({"detail": _detail(message)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 400 and exc.detail == _UNREADABLE:  # a malformed body like any other: 422
            return JSONResponse({"detail": "malformed request: the body could not be read as JSON (it must be UTF-8 "
                                           "text, numbers of at most 4300 digits, arrays and objects nested a few "
                                           "hundred deep at most); send a JSON object, e.g. "
                                           f"{_example(request.url.path)}"}, status_code=422)
        return await http_exception_handler(request, exc)

    def mgr() -> TableManager:
        return app.state.manager

    def locked(table: Table, op=None) -> dict:
        with table.lock:
            if op is not None:
                op(table)
            return table_view_json(table)

    @app.get("/api/games")
    def games(background: BackgroundTasks):
        if not warm["started"]:
            warm["started"] = True
            background.add_task(start_warm_up)  # after the answer has gone out
        return {"games": mgr().games()}

    def with_frames(table: Table, op) -> dict:
        with table.lock:
            start = op(table)
            view = table_view_json(table)
            view["frames"], view["skipped"] = answer_frames(table, start or 0)
            return view

    @app.post("/api/tables", status_code=201)
    def new_table(body: NewTable, request: Request):
        client = request.client.host if request.client else "local"
        t = mgr().create(body.game, body.players, body.partner, body.opponents, body.seed, body.options, client=client,
                           force_agent=body.force_agent)
        return {"table_id": t.id, "view": with_frames(t, lambda t: 0)}

    @app.get("/api/tables/{table_id}")
    def get_table(table_id: str):
        return locked(mgr().get(table_id), lambda t: t.resume())  # AI moves a failed request left undone

    @app.post("/api/tables/{table_id}/move")
    def move(table_id: str, body: Move):
        return with_frames(mgr().get(table_id), lambda t: t.move(body.action, body.moves, body.deal))

    @app.post("/api/tables/{table_id}/new")
    def new_deal(table_id: str):
        def op(t):
            t.new_deal()
            return 0

        return with_frames(mgr().get(table_id), op)

    @app.get("/api/tables/{table_id}/replay")
    def replay(table_id: str):
        from .tables import Conflict
        from .views import replay_initial

        table = mgr().get(table_id)
        with table.lock:
            if not table.done:
                raise Conflict("the replay is there once the deal is over")
            return {"first": table.history_start, "initial": replay_initial(table), "frames": frames_json(table, 0)}

    @app.get("/api/tables/{table_id}/hint")
    def hint(table_id: str):
        table = mgr().get(table_id)
        with table.lock:
            a = mgr().hint(table)
            return {"action": a, "name": table.kernel.action_name(a)}

    @app.delete("/api/tables/{table_id}", status_code=204)
    def close(table_id: str):
        mgr().delete(table_id)
        return Response(status_code=204)

    @app.post("/api/tables/{table_id}/close", status_code=204)
    def close_beacon(table_id: str):
        mgr().close_soon(table_id)
        return Response(status_code=204)

    @app.get("/api/rules/{game}")
    def rules(game: str):
        if game not in envs.GAMES:
            return JSONResponse({"detail": f"unknown game {_short(game)}; games: {sorted(envs.GAMES)}"}, status_code=404)
        return {"game": game, "html": rules_html(game)}

    @app.get("/api/howto/{game}")
    def howto(game: str, lang: str = "en"):
        if game not in envs.GAMES:
            return JSONResponse({"detail": f"unknown game {_short(game)}; games: {sorted(envs.GAMES)}"}, status_code=404)
        if lang not in HOWTO_LANGS:
            return JSONResponse(
                {"detail": f"unknown language {_short(lang)}; languages: {list(HOWTO_LANGS)}"}, status_code=400
            )
        return {"game": game, "lang": lang, "html": howto_html(game, lang)}

    from fastapi.routing import APIRoute

    for route in list(app.routes):  # HTTP: HEAD is GET without the body (FastAPI answered 405; the server drops
        if isinstance(route, APIRoute) and "GET" in route.methods:  # the body), kept out of the API's schema
            app.add_api_route(route.path, route.endpoint, methods=["HEAD"], name=route.name, include_in_schema=False)

    @app.api_route("/api/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
                   include_in_schema=False)
    def unknown_api(rest: str, request: Request):
        # after every endpoint: an API path none of them takes (else the front end's files answered a
        # bare "Not Found", naming neither what was wrong nor what is valid); 405 for a known path
        path = request.url.path
        allowed = sorted({m for r in app.routes if isinstance(r, APIRoute) and r.name != "unknown_api"
                          and r.path_regex.match(path) for m in r.methods})
        shown = path if len(path) <= 40 else path[:37] + "..."
        if allowed:
            return JSONResponse({"detail": f"{request.method} is not allowed on {shown}; allowed: {', '.join(allowed)}"},
                                status_code=405, headers={"Allow": ", ".join(allowed)})
        return JSONResponse({"detail": _detail(f"no API endpoint {request.method} {shown}; "
                                               f"endpoints: {', '.join(API_ENDPOINTS)}")}, status_code=404)

    if I18N.is_dir():
        app.mount("/i18n", StaticFiles(directory=I18N), name="i18n")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount("/", StaticFiles(directory=STATIC, html=True), name="front")
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = True, agents_dir: str | None = None) -> None:
    """Run the web card table with uvicorn on ``host:port`` (loopback by default; ``port=0``: any free
    port), printing its URL, with the port it listens on, and opening it in a browser unless
    ``open_browser`` is False; ``agents_dir``: a folder whose saved agents are offered too
    (:class:`TableManager`). Blocks until interrupted."""
    import socket
    import threading
    import webbrowser

    import uvicorn

    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {port}")
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
    try:  # bound here and handed to uvicorn: a port in use is reported before anything is announced (uvicorn
        sock.bind((host, port))  # would exit 3), and the URL names the port it listens on (port 0 printed :0)
    except OSError as e:
        import errno

        sock.close()
        if isinstance(e, socket.gaierror) or e.errno == errno.EADDRNOTAVAIL:  # the host's fault: another port won't do
            raise OSError(f"cannot listen on {host}:{port} ({e.strerror}): give another --host, an address of this "
                          "machine (127.0.0.1: this machine only, the default; 0.0.0.0: every network)") from None
        raise OSError(f"cannot listen on {host}:{port} ({e.strerror}): give another --port") from None
    try:
        port = sock.getsockname()[1]
        manager = TableManager(agents_dir=agents_dir)
        if agents_dir is not None:
            print(f"agents from {manager.agents_dir}: {sorted(manager._local) or 'none found'}", flush=True)
        # every address ("" is 0.0.0.0): the URL names this machine's loopback, which a browser can open
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else "[::1]" if host == "::" else f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}/"
        print(f"cardzoo card table at {url}  (Ctrl-C stops it)", flush=True)
        if host not in ("127.0.0.1", "localhost", "::1"):  # "listening on , reachable ..." said nothing for --host ''
            where = host if host else "0.0.0.0 (--host '': every address)"
            print(f"note: listening on {where}, reachable from other machines; there is no login", flush=True)
        if open_browser:
            threading.Timer(1.0, lambda: webbrowser.open(url)).start()
        server = uvicorn.Server(uvicorn.Config(create_app(manager, warm_up=True), host=host, port=port, log_level="warning"))
        try:  # as uvicorn.run, which takes no socket
            server.run(sockets=[sock])
        except KeyboardInterrupt:
            pass
        if not server.started:
            raise SystemExit(3)  # uvicorn.run's STARTUP_FAILURE; uvicorn has logged why
    finally:
        sock.close()
