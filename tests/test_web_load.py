"""A small load test of the web card table: a real uvicorn server on 127.0.0.1 and 10 simulated
players at once (training/web/loadtest.py; ``cardzoo bench-web`` runs the full one)."""

from __future__ import annotations

import pytest

from cardzoo import envs
from cardzoo.training.web import loadtest


def test_ten_clients_play_at_once_without_errors():
    res = loadtest.run(clients=10, max_moves=6, seconds=120.0, seed=3)
    assert res["errors"] == [], loadtest.format_report(res)
    assert res["clients"] == 10 and res["games"] == list(envs.GAMES)
    assert res["moves"] >= 10  # at least one move per client (no deal of these seeds ends while dealing)
    assert res["move_ms"]["p50"] is not None and res["move_ms"]["p50"] <= res["move_ms"]["p95"] <= res["move_ms"]["max"]
    text = loadtest.format_report(res)
    assert "move latency" in text and "errors: 0" in text


def test_only_loopback_servers_and_valid_arguments():
    with pytest.raises(ValueError, match="loopback"):
        loadtest.run(clients=1, base_url="http://example.com:80")
    with pytest.raises(ValueError, match="unknown game"):
        loadtest.run(clients=1, games=["chess"])
    with pytest.raises(ValueError, match="clients"):
        loadtest.run(clients=0)


def test_more_clients_than_the_server_holds_tables_are_refused_at_once(monkeypatch):
    """--clients 100000000 started the server and then built a thread per client (it ran out of
    memory), though the server holds at most 200 open tables: every client past 200 could only
    get 503. Now refused before anything starts (no server, no thread), naming the limit."""
    import threading

    def started(*args, **kwargs):
        raise AssertionError("the load test started something before refusing")

    monkeypatch.setattr(loadtest, "_start_server", started)
    monkeypatch.setattr(threading, "Thread", started)
    with pytest.raises(ValueError) as e:
        loadtest.run(clients=100_000_000)
    assert str(e.value) == ("clients must be 1 to 200 (the server holds at most 200 open tables; more clients "
                            "would only be refused with 503), got 100000000")
