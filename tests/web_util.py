"""Helpers for the web card table tests: a test client on a fresh app, playing tables through the API."""

from __future__ import annotations

import warnings

from cardzoo import envs

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note about httpx versions
    from fastapi.testclient import TestClient

from cardzoo.training.web.app import create_app
from cardzoo.training.web.tables import TableManager

#: keys every View has (the kernel's table_view keys and the server's)
VIEW_KEYS = {
    "hand", "hand_sizes", "exposed", "trick", "last_trick", "to_act", "dealer", "phase", "facts", "scores",
    "teams", "summary", "table_id", "game", "game_name", "seat", "num_players", "pack", "seats", "legal",
    "your_turn", "done", "log", "log_start", "returns", "totals", "text", "match", "match_result", "moves",
    "deal",
}
#: what a move, new-deal or new-table answer adds to the View: the moves it made, one by one (and the
#: moves it condensed, ``"skipped"``, usually ``None``)
FRAMED_KEYS = VIEW_KEYS | {"frames", "skipped"}


def make_client(**manager_args) -> TestClient:
    """A test client on a new app with its own :class:`TableManager` (``manager_args``). All of a
    test's requests come from one client address, so the per-client limits are raised unless given."""
    manager_args = {"per_client": 10_000, "per_minute": 10_000, **manager_args}
    return TestClient(create_app(TableManager(**manager_args)))


def manager(client) -> TableManager:
    return client.app.state.manager


def open_table(client, game: str, **body) -> dict:
    """``POST /api/tables`` (asserting 201); returns the answer ``{"table_id", "view"}``."""
    r = client.post("/api/tables", json={"game": game, **body})
    assert r.status_code == 201, r.text
    return r.json()


def step_bound(game: str, **options) -> int:
    """A bound on the person's moves in one episode (the kernel's ``max_episode_steps``)."""
    return envs.kernel(game, **options).max_episode_steps or 100_000
