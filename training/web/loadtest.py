"""Load test of the web card table (``cardzoo bench-web``): many simulated players at once.

:func:`run` starts the server (uvicorn, in a subprocess, on a free port of 127.0.0.1), lets
``clients`` threads each open a table of a game (round robin over ``games``) and play random legal
moves (``httpx``) until the deal ends, ``max_moves`` moves are made or the time limit is reached,
then checks each table (the person's moves in the answers' frames match the moves sent, a finished zero-sum
deal's returns sum to 0, a fresh ``GET`` equals the last answer) and closes it. It reports the
latency of each move (p50 / p95 / max), of opening a table, and every error. Everything is
bounded: moves per client, a wall-clock limit and HTTP timeouts.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import numpy as np

__all__ = ["run", "format_report"]


def _max_tables() -> int:
    """The server's cap on open tables (:class:`~.tables.TableManager` ``max_tables``): the most
    simulated players a run may have."""
    import inspect

    from .tables import TableManager

    return inspect.signature(TableManager).parameters["max_tables"].default


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def load_test_app():
    """The app with the per-client limits raised: every simulated player comes from 127.0.0.1."""
    from .app import create_app
    from .tables import TableManager

    return create_app(TableManager(per_client=10_000, per_minute=10_000), warm_up=True)


def _start_server(port: int, ready_seconds: float):
    """uvicorn with ``create_app`` on 127.0.0.1:``port`` in a subprocess; waits until ``/api/games``
    answers (``RuntimeError`` after ``ready_seconds``). Returns the process."""
    import httpx

    cmd = [sys.executable, "-m", "uvicorn", "--factory", "cardzoo.training.web.loadtest:load_test_app", "--host", "127.0.0.1",
           "--port", str(port), "--log-level", "warning"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + ready_seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited at start: {proc.stderr.read().decode(errors='replace')[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=ready_seconds).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"the server did not answer within {ready_seconds:g} s")


def _client(
    i: int, base: str, game: str, zero_sum: bool, seed: int, max_moves: int, deadline: float, out: dict
) -> None:
    """One simulated player: open a table, play random legal moves, check the table, close it."""
    import httpx

    rng = np.random.default_rng(seed)
    moves, errors = [], []
    finished = False
    try:
        with httpx.Client(base_url=base, timeout=30.0) as c:
            t0 = time.perf_counter()
            r = c.post("/api/tables", json={"game": game, "seed": seed})
            create = time.perf_counter() - t0
            if r.status_code != 201:
                raise RuntimeError(f"POST /api/tables -> {r.status_code} {r.text[:200]}")
            tid, view = r.json()["table_id"], r.json()["view"]
            mine = sum(1 for f in view.pop("frames", []) if f["seat"] == 0)
            view.pop("skipped", None)  # a move answer's condensed moves (GET has none)
            sent = 0
            while not view["done"] and sent < max_moves and time.monotonic() < deadline:
                if not view["your_turn"] or not view["legal"]:
                    raise RuntimeError(f"table {game}: not done but not the person's turn")
                a = view["legal"][int(rng.integers(len(view["legal"])))]["action"]
                t0 = time.perf_counter()
                r = c.post(f"/api/tables/{tid}/move", json={"action": a})
                moves.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    raise RuntimeError(f"move {a} -> {r.status_code} {r.text[:200]}")
                view = r.json()
                # the moves of this answer one by one (GET has none); the View's log holds only the last
                # moves (views.LOG_WINDOW), so the person's moves are counted here
                mine += sum(1 for f in view.pop("frames", []) if f["seat"] == 0)  # never condensed
                view.pop("skipped", None)
                sent += 1
            if mine != sent:
                errors.append(f"{game} table: {sent} moves sent, {mine} in the log")
            if view["done"]:
                finished = True
                if zero_sum and abs(sum(view["returns"])) > 1e-6:
                    errors.append(f"{game} table: returns {view['returns']} do not sum to 0")
            again = c.get(f"/api/tables/{tid}")
            if again.status_code != 200 or again.json() != view:
                errors.append(f"{game} table: GET differs from the last answer")
            if c.delete(f"/api/tables/{tid}").status_code != 204:
                errors.append(f"{game} table: DELETE failed")
            out[i] = {"game": game, "create": create, "moves": moves, "errors": errors, "finished": finished}
    except Exception as e:  # noqa: BLE001 - every failure is an error of the run, reported by client
        out[i] = {"game": game, "create": None, "moves": moves, "errors": errors + [f"{type(e).__name__}: {e}"],
                  "finished": False}


def run(
    clients: int = 50,
    games: list[str] | None = None,
    max_moves: int = 300,
    seconds: float = 120.0,
    seed: int = 0,
    base_url: str | None = None,
) -> dict:
    """Run the load test; returns ``{"clients", "games", "per_game": {game: {"moves", "move_ms"}}, "moves",
    "finished", "wall_s", "move_ms": {"p50", "p95", "max"}, "create_ms": {...}, "errors": [str]}``.

    ``base_url``: test a server already running on this machine (``http://127.0.0.1:PORT``; only
    loopback addresses); ``None`` starts one. ``ValueError`` for a bad argument.
    """
    from cardzoo import envs

    if clients < 1 or max_moves < 1 or not seconds > 0:
        raise ValueError(f"clients and max_moves must be >= 1 and seconds > 0, got {clients}, {max_moves}, {seconds}")
    if seconds > 86_400:  # 1e300: Thread.join raised "OverflowError: timestamp out of range for platform time_t"
        raise ValueError(f"seconds must be at most 86,400 (a day), got {seconds!r}")
    cap = _max_tables()
    if clients > cap:  # a thread each, and the server would refuse every table past its cap
        raise ValueError(f"clients must be 1 to {cap} (the server holds at most {cap} open tables; "
                         f"more clients would only be refused with 503), got {clients}")
    games = list(games or envs.GAMES)
    bad = [g for g in games if g not in envs.GAMES]
    if bad:
        raise ValueError(f"unknown game(s) {bad}; games: {sorted(envs.GAMES)}")
    proc = None
    if base_url is None:
        port = _free_port()
        proc = _start_server(port, ready_seconds=120.0)
        base_url = f"http://127.0.0.1:{port}"
    elif not base_url.startswith(("http://127.0.0.1:", "http://localhost:", "http://[::1]:")):
        raise ValueError(f"base_url must be a loopback address such as http://127.0.0.1:8000, got {base_url!r}")
    try:
        results: dict = {}
        start = time.monotonic()
        deadline = start + seconds
        threads = [
            threading.Thread(
                target=_client,
                args=(i, base_url, g := games[i % len(games)], envs.kernel(g).zero_sum, seed + i, max_moves, deadline,
                      results),
                daemon=True,
            )
            for i in range(clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=max(deadline - time.monotonic(), 0) + 60.0)
        wall = time.monotonic() - start
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    errors = [f"client {i}: did not finish in time" for i in range(clients) if i not in results]
    moves = [m for r in results.values() for m in r["moves"]]
    creates = [r["create"] for r in results.values() if r["create"] is not None]
    errors += [f"client {i}: {e}" for i, r in sorted(results.items()) for e in r["errors"]]

    def stats(xs):
        if not xs:
            return {"p50": None, "p95": None, "max": None}
        a = np.asarray(xs) * 1000
        return {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)), "max": float(a.max())}

    by_game = {g: [m for r in results.values() if r["game"] == g for m in r["moves"]] for g in games}
    per_game = {g: {"moves": len(ms), "move_ms": stats(ms)} for g, ms in by_game.items()}
    return {
        "clients": clients,
        "games": games,
        "per_game": per_game,
        "moves": len(moves),
        "finished": sum(r["finished"] for r in results.values()),
        "wall_s": wall,
        "move_ms": stats(moves),
        "create_ms": stats(creates),
        "errors": errors,
    }


def format_report(res: dict) -> str:
    """The load test's result as a few lines of text."""

    def ms(d):
        return "n/a" if d["p50"] is None else f"p50 {d['p50']:.1f} ms, p95 {d['p95']:.1f} ms, max {d['max']:.1f} ms"

    lines = [
        f"{res['clients']} clients over {', '.join(res['games'])}: {res['moves']} moves in {res['wall_s']:.1f} s "
        f"({res['moves'] / max(res['wall_s'], 1e-9):.0f} moves/s), {res['finished']} deals played to the end",
        f"move latency (the person's move + the AI seats' replies): {ms(res['move_ms'])}",
        f"open a table (deal + AI moves up to the person's turn): {ms(res['create_ms'])}",
    ]
    lines += [f"  {g}: {d['moves']} moves, {ms(d['move_ms'])}" for g, d in res["per_game"].items()]
    lines.append(f"errors: {len(res['errors'])}")
    lines += [f"  {e}" for e in res["errors"][:20]]
    return "\n".join(lines)
