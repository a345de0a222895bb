"""The game-length study code at a small number of games (training/STUDIES.md; RULES.md §6)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardzoo.envs.core.cards import random_set_bit
from cardzoo.envs.pyanitsa.kernel import PyanitsaKernel
from cardzoo.training import pyanitsa_lengths as L


@pytest.mark.parametrize("options", [{}, {"num_players": 3, "collect_order": "seat_order"}, {"num_players": 4, "tie_mode": "down_up"}])
def test_play_battle_equals_flipping(options):
    k = PyanitsaKernel(**options)
    rng = np.random.default_rng(0)
    a = k.init(rng, 64)
    b = a.copy()
    r1, r2 = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(60):
        k.play_battle(a, r1)
        start = b.battles.copy()
        while ((b.battles == start) & ~b.done).any():
            k.step(b, random_set_bit(k.legal_bitboard(b), r2), r2, active=(b.battles == start) & ~b.done)
        for f in a.__dataclass_fields__:
            if f not in ("rewards", "current_player"):
                assert np.array_equal(getattr(a, f), getattr(b, f)), f
        live = ~a.done
        assert np.array_equal(a.current_player[live], b.current_player[live])


def test_run_counts_every_started_game_once():
    r = L.run(1500, batch=256, seed=1, num_players=3, objective="first_out_loses")
    s = r.summary()
    assert s["games"] == 1500 and (r.battles >= 1).all()
    assert abs(sum(s["loser_by_seat"]) - r.losers[r.outcome == 0].sum() / (r.outcome == 0).sum()) < 1e-9
    # RULES.md spec §11 for 3 players, variant 2: mean about 26.7, median 23
    assert 23 < s["mean"] < 30 and 20 <= s["median"] <= 26
    assert s["cycles"] == 0 and s["capped"] == 0


def test_run_reproduces_the_shape_of_the_spec_table():
    s = L.run(1000, batch=512, seed=2).summary()  # 2 players, variant 1
    assert 130 < s["mean"] < 170 and 100 < s["median"] < 140 and s["p99"] > 400
    assert abs(s["loser_by_seat"][0] - 0.5) < 0.05


def test_seat_order_cycles_and_random_order_never_does():
    s = L.run(200, batch=200, seed=3, collect_order="seat_order").summary()
    assert 0.1 < s["cycles"] < 0.4  # spec §11: 22 % with 2 players
    r = L.run(300, batch=300, seed=4, collect_order="random").summary()
    assert r["cycles"] == 0


def test_winner_chooses_is_rejected():
    with pytest.raises(ValueError, match="winner_chooses"):
        L.run(10, collect_order="winner_chooses")


def test_run_all_writes_json_markdown_and_png(tmp_path):
    rows = L.run_all(200, tmp_path, settings=[{"num_players": 4, "objective": "first_out_loses"}], log=lambda s: None)
    data = json.loads((tmp_path / "lengths.json").read_text())
    assert data[0]["games"] == 200 == sum(data[0]["counts"].values())
    assert (tmp_path / "game_lengths.png").stat().st_size > 1000
    assert "| 4 | variant 2 | winner_first | 200 |" in (tmp_path / "lengths.md").read_text()
    assert L.results_from_json(tmp_path / "lengths.json")[0].battles.size == 200
    assert rows[0]["mean"] == data[0]["mean"]
