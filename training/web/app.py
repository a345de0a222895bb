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
                                         ``"random"``) or unknown game; 503: too many open tables. A trained
                                         agent trained for other options is replaced by the rule bot unless
                                         ``force_agent`` (the view's seats name the agents seated).
``GET /api/tables/{id}``                 the View (:func:`cardzoo.training.web.views.table_view_json`); 404 unknown
``POST /api/tables/{id}/move``           body ``{"action": int}``: the person's move, then the AI seats'
                                         up to the person's next turn -> View. 400 illegal (the message
                                         names the action and the legal ones); 409 not your turn or the
                                         episode is over; 422 malformed body.
``POST /api/tables/{id}/new``            deal a new episode at the table (running totals kept) -> View
``DELETE /api/tables/{id}``              close the table -> 204
``GET /api/rules/{game}``                ``{"game", "html"}``: ``envs/<game>/RULES.md`` rendered (raw HTML in
                                         it is escaped); 404 unknown game, listing the games
=======================================  ===================================================================

The front end is served from ``training/web/static`` at ``/`` (``/index.html``, ``/table.html``,
``/rules.html``) and ``/static/...``, translations from ``training/web/i18n`` at ``/i18n/...``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from cardzoo import envs

from .tables import Table, TableError, TableManager
from .views import table_view_json

__all__ = ["create_app", "rules_html", "serve"]

HERE = Path(__file__).parent
STATIC = HERE / "static"
I18N = HERE / "i18n"


class NewTable(BaseModel):
    """Body of ``POST /api/tables``."""

    model_config = ConfigDict(extra="forbid")
    game: str
    players: StrictInt | None = None
    partner: str | None = None
    opponents: str | None = None
    seed: StrictInt | None = Field(None, ge=0, le=2**63 - 1)
    options: dict[str, Any] | None = None
    force_agent: bool = False  # seat a trained agent even for options it was not trained for


class Move(BaseModel):
    """Body of ``POST /api/tables/{id}/move``."""

    model_config = ConfigDict(extra="forbid")
    action: StrictInt


@lru_cache(maxsize=None)
def rules_html(game: str) -> str:
    """``envs/<game>/RULES.md`` as HTML (CommonMark with tables; raw HTML escaped). ``ValueError``
    for an unknown game."""
    from markdown_it import MarkdownIt

    if game not in envs.GAMES:
        raise ValueError(f"unknown game {game!r}; games: {sorted(envs.GAMES)}")
    text = (Path(envs.__file__).parent / game / "RULES.md").read_text(encoding="utf-8")
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "malformed request: " + "; ".join(parts)


def create_app(manager: TableManager | None = None) -> FastAPI:
    """The FastAPI app; ``manager`` holds the tables (a new :class:`TableManager` by default) and
    is reachable as ``app.state.manager``."""
    app = FastAPI(title="cardzoo card table", docs_url=None, openapi_url="/api/openapi.json", redoc_url=None)
    app.state.manager = manager if manager is not None else TableManager()

    @app.exception_handler(TableError)
    async def _table_error(request: Request, exc: TableError):
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_body(request: Request, exc: RequestValidationError):
        return JSONResponse({"detail": _validation_message(exc)}, status_code=422)

    def mgr() -> TableManager:
        return app.state.manager

    def locked(table: Table, op=None) -> dict:
        with table.lock:
            if op is not None:
                op(table)
            return table_view_json(table)

    @app.get("/api/games")
    def games():
        return {"games": mgr().games()}

    @app.post("/api/tables", status_code=201)
    def new_table(body: NewTable):
        t = mgr().create(body.game, body.players, body.partner, body.opponents, body.seed, body.options,
                           force_agent=body.force_agent)
        return {"table_id": t.id, "view": locked(t)}

    @app.get("/api/tables/{table_id}")
    def get_table(table_id: str):
        return locked(mgr().get(table_id))

    @app.post("/api/tables/{table_id}/move")
    def move(table_id: str, body: Move):
        return locked(mgr().get(table_id), lambda t: t.move(body.action))

    @app.post("/api/tables/{table_id}/new")
    def new_deal(table_id: str):
        return locked(mgr().get(table_id), Table.deal)

    @app.delete("/api/tables/{table_id}", status_code=204)
    def close(table_id: str):
        mgr().delete(table_id)
        return Response(status_code=204)

    @app.get("/api/rules/{game}")
    def rules(game: str):
        if game not in envs.GAMES:
            return JSONResponse({"detail": f"unknown game {game!r}; games: {sorted(envs.GAMES)}"}, status_code=404)
        return {"game": game, "html": rules_html(game)}

    if I18N.is_dir():
        app.mount("/i18n", StaticFiles(directory=I18N), name="i18n")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount("/", StaticFiles(directory=STATIC, html=True), name="front")
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = True) -> None:
    """Run the web table with uvicorn on ``host:port`` (loopback by default), printing its URL and
    opening it in a browser unless ``open_browser`` is False. Blocks until interrupted."""
    import threading
    import webbrowser

    import uvicorn

    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {port}")
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    print(f"cardzoo card table at {url}  (Ctrl-C stops it)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"note: listening on {host}, reachable from other machines; there is no login", flush=True)
    if open_browser:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")
