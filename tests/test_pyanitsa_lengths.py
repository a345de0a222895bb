"""The game-length study code at a small number of games (training/STUDIES.md; RULES.md §6)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardzoo.envs.core.cards import random_set_bit
from cardzoo.envs.pyanitsa.kernel import PyanitsaKernel
from cardzoo.training import pyanitsa_lengths as L
from interrupt_util import interrupt_at_call


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


def test_run_all_keeps_an_earlier_run_and_refuses_other_sizes(tmp_path):
    """A second run into the same folder used to rewrite lengths.json with its own rows only (the
    first run's settings were lost); now the rows already there are kept, not replayed, and a run of
    another --games or --seed is refused, leaving the file as it was."""
    a, b = L.SETTINGS[0], L.SETTINGS[6]
    first = L.run_all(150, tmp_path, settings=[a], log=lambda s: None, progress=False)
    said = []
    rows = L.run_all(150, tmp_path, settings=[a, b], log=said.append, progress=False)
    data = json.loads((tmp_path / "lengths.json").read_text())
    assert [r["options"] for r in data] == [a, b] and [r["games"] for r in data] == [150, 150]
    assert rows[0]["counts"] == first[0]["counts"] == {int(k): v for k, v in data[0]["counts"].items()}  # kept, not replayed
    assert said[0] == f"1 of 2 settings kept from {tmp_path / 'lengths.json'} (the same --games and --seed)"
    assert "| 3 | variant 2 | winner_first | 150 |" in (tmp_path / "lengths.md").read_text()
    assert "| 2 | variant 1 | winner_first | 150 |" in (tmp_path / "lengths.md").read_text()
    before = (tmp_path / "lengths.json").read_text()
    with pytest.raises(ValueError, match="holds a run of 150 games per setting with seed 0, not 100 games with seed 0"):
        L.run_all(100, tmp_path, settings=[b], log=lambda s: None, progress=False)
    with pytest.raises(ValueError, match="not 150 games with seed 7"):
        L.run_all(150, tmp_path, settings=[L.SETTINGS[3]], seed=7, log=lambda s: None, progress=False)
    assert (tmp_path / "lengths.json").read_text() == before
    with pytest.raises(ValueError, match="empty path"):
        L.run_all(10, "", settings=[a], log=lambda s: None, progress=False)
    other = tmp_path / "a_train_run"  # another command's folder: lengths were written into it beside its files
    other.mkdir()
    (other / "model.zip").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"a_train_run is not empty and holds no lengths run \(no lengths.json\); give a new or empty folder"):
        L.run_all(10, other, settings=[a], log=lambda s: None, progress=False)
    assert sorted(p.name for p in other.iterdir()) == ["model.zip"]


def test_a_settings_games_do_not_depend_on_the_settings_run_with_it(tmp_path):
    """Setting i is played with seed + i: `--only 6` and `--only 0 6` give the same row 6 (its seed was
    its place in the --only list: 0 and 1)."""
    alone = L.run_all(120, tmp_path / "a", settings=[L.SETTINGS[6]], seed=5, log=lambda s: None, progress=False)
    both = L.run_all(120, tmp_path / "b", settings=[L.SETTINGS[0], L.SETTINGS[6]], seed=5, log=lambda s: None, progress=False)
    assert alone[0]["counts"] == both[1]["counts"] and alone[0]["seed"] == both[1]["seed"] == 11
    assert both[0]["seed"] == 5


def test_an_interrupted_run_keeps_the_settings_done_and_resumes(tmp_path, monkeypatch, capsys):
    real = L.run
    interrupt_at_call(monkeypatch, L, "run", 2)
    settings = [L.SETTINGS[0], L.SETTINGS[3]]
    with pytest.raises(KeyboardInterrupt):
        L.run_all(100, tmp_path, settings=settings, log=lambda s: None, progress=False)
    assert "holds the settings finished (1 of 2); run the same command again" in capsys.readouterr().err
    assert [r["options"] for r in json.loads((tmp_path / "lengths.json").read_text())] == [settings[0]]
    assert not (tmp_path / ".lengths.json.partial").exists()
    monkeypatch.setattr(L, "run", real)
    rows = L.run_all(100, tmp_path, settings=settings, log=lambda s: None, progress=False)
    assert [r["games"] for r in rows] == [100, 100] and rows[1]["seed"] == 3
    assert [r["options"] for r in json.loads((tmp_path / "lengths.json").read_text())] == settings
