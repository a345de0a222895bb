"""``cardzoo bench`` (training/bench.py): the structure of its JSON and that every ratio is computed
from the rows of the same run. Speeds are never asserted (benchmarks print numbers; no timed tests)."""

from __future__ import annotations

import json
import statistics

import numpy as np
import pytest
from pettingzoo.test import api_test

from cardzoo import envs
from cardzoo.training.bench import TARGETS, TEXAS, NullAECEnv
from cardzoo.training.cli import main


def test_null_env_is_a_valid_aec_env_with_a_fixed_episode():
    api_test(NullAECEnv(), num_cycles=60)
    env = NullAECEnv(num_agents=4, num_actions=4, episode_length=7)
    env.reset()
    order, returns = [], {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        returns[agent] += rew
        if term or trunc:
            assert obs["action_mask"].tolist() == [0, 0, 0, 0]
            env.step(None)
            continue
        assert obs["action_mask"].tolist() == [1, 1, 1, 1] and obs["observation"].shape == (8,)
        order.append(agent)
        env.step(3)
    assert order == ["player_0", "player_1", "player_2", "player_3", "player_0", "player_1", "player_2"]
    assert returns == {"player_0": 1.0, "player_1": -1.0, "player_2": 1.0, "player_3": -1.0}
    env.reset()
    with pytest.raises(ValueError, match="0..3"):
        env.step(4)


def test_bench_json_rows_and_ratios(tmp_path, capsys):
    path = tmp_path / "bench.json"
    argv = ["bench", "all_fours", "--seconds", "0.05", "--rounds", "2", "--batch", "64", "8",
            "--skip", "first-use", "pimc", "--json", str(path), "--markdown"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "x null" in out and "| all_fours | 64 |" in out and f"written: {path}" in out
    res = json.loads(path.read_text())
    assert set(res) == {"settings", "targets", "rows", "peers", "games", "policy", "pimc"}
    s = res["settings"]
    assert s["games"] == ["all_fours"] and s["batches"] == [8, 64] and s["rounds"] == 2 and s["seconds"] == 0.05
    assert s["skip"] == ["first-use", "pimc"] and s["command"] == "cardzoo " + " ".join(argv)
    assert res["targets"] == TARGETS and res["pimc"] is None

    rows = res["rows"]
    texas = res["peers"][TEXAS]
    expect = {"aec/null", "aec/all_fours", "kernel/all_fours/8", "kernel/all_fours/64"}
    assert expect <= set(rows)
    assert ("row" in texas) == (f"aec/{TEXAS}" in rows)
    for key, r in rows.items():
        assert r["key"] == key and len(r["rates"]) == 2
        assert r["median"] == statistics.median(r["rates"])
        assert r["min"] == min(r["rates"]) and r["max"] == max(r["rates"])
        assert r["agent_steps"] > 0 and 0 < r["policy_seconds"] < r["seconds"]
    assert rows["kernel/all_fours/64"]["batch"] == 64 and rows["kernel/all_fours/64"]["agent_steps"] % 64 == 0

    g = res["games"]["all_fours"]
    env_rate, null_rate = rows["aec/all_fours"]["median"], rows["aec/null"]["median"]
    assert g["env"]["rate"] == env_rate and res["peers"]["null"]["rate"] == null_rate
    assert g["env"]["vs_null"] == pytest.approx(env_rate / null_rate, rel=1e-12)
    if "row" in texas:
        assert g["env"]["vs_texas"] == pytest.approx(env_rate / rows[f"aec/{TEXAS}"]["median"], rel=1e-12)
    else:  # rlcard not installed: the peer is skipped with the reason
        assert g["env"]["vs_texas"] is None and "rlcard" in texas["skipped"]
    assert g["kernel"] == {"8": rows["kernel/all_fours/8"]["median"], "64": rows["kernel/all_fours/64"]["median"]}
    assert g["first_use"] == {"skipped": "--skip first-use"}
    assert g["compiled"] is True
    assert g["state_bytes"] == envs.kernel("all_fours").init(np.random.default_rng(0), 64).nbytes_per_game()

    sc = g["scaling"]
    if "skipped" in sc:
        assert "CPU" in sc["skipped"]
    else:  # the 2-core row at the largest batch, in the worker, against the one-core row of the same run
        assert sc["batch"] == 64 and sc["row"] == "kernel2/all_fours/64" and sc["worker_threads"] == 2
        assert len(sc["worker_cpus"]) == 2
        assert sc["one_core"] == rows["kernel/all_fours/64"]["median"] and sc["two_cores"] == rows[sc["row"]]["median"]
        assert sc["ratio"] == pytest.approx(sc["two_cores"] / sc["one_core"], rel=1e-12)

    p = res["policy"]
    aec = [rows[k]["policy_us_per_action"] for k in rows if k.startswith("aec/")]
    assert p["aec_us_per_action"] == statistics.median(aec)
    assert p["kernel_us_per_action"] == {"8": rows["kernel/all_fours/8"]["policy_us_per_action"],
                                         "64": rows["kernel/all_fours/64"]["policy_us_per_action"]}

    # a run never overwrites another
    assert main(argv) == 2
    assert str(path) in capsys.readouterr().err


def test_bench_without_a_game_runs_every_game(tmp_path, capsys):
    path = tmp_path / "all.json"
    assert main(["bench", "--seconds", "0.01", "--rounds", "1", "--batch", "4",
                 "--skip", "texas", "scaling", "first-use", "pimc", "--json", str(path)]) == 0
    res = json.loads(path.read_text())
    assert res["settings"]["games"] == sorted(envs.GAMES)
    assert sorted(res["games"]) == sorted(envs.GAMES)
    for game in envs.GAMES:
        assert {f"aec/{game}", f"kernel/{game}/4"} <= set(res["rows"])
        assert res["games"][game]["scaling"] == {"skipped": "--skip scaling"}
    assert res["peers"][TEXAS] == {"skipped": "--skip texas"}
    assert all(res["games"][g]["env"]["vs_texas"] is None for g in envs.GAMES)


@pytest.mark.parametrize("argv, words", [
    (["bench", "nope"], ["nope", "all_fours", "pyanitsa"]),
    (["bench", "all_fours", "avinas", "-o", "x=1"], ["--option", "one GAME"]),
    (["bench", "all_fours", "--rounds", "0"], ["--rounds", ">= 1"]),
    (["bench", "all_fours", "--json", "/nonexistent/dir/b.json"], ["/nonexistent/dir"]),
])
def test_bench_rejects_bad_arguments(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    for w in words:
        assert w in err


def test_a_failing_2_core_worker_is_reported_not_fatal():
    from cardzoo.training import bench

    # CPUs 99998 and 99999 do not exist: the worker cannot run on them and ends; the run goes on without its row
    res = bench.run(["all_fours"], batches=(8,), seconds=0.01, rounds=1, skip=("texas", "first-use", "pimc"),
                    cpus=[99998, 99999], progress=False)
    assert "kernel2/all_fours/8" not in res["rows"] and "kernel/all_fours/8" in res["rows"]
    reason = res["games"]["all_fours"]["scaling"]["skipped"]
    assert reason.startswith("the 2-core worker failed: the 2-core worker process ended (exit 1)")
    assert "OSError" in reason


@pytest.mark.slow
def test_first_use_and_pimc_are_measured(tmp_path, capsys):
    """Compile on first use in fresh processes (an empty numba cache: tens of seconds) and PIMC decisions."""
    path = tmp_path / "first.json"
    assert main(["bench", "all_fours", "--seconds", "0.05", "--rounds", "1", "--batch", "8",
                 "--skip", "texas", "scaling", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "load from cache s" in out and "PIMC decision" in out
    res = json.loads(path.read_text())
    fu = res["games"]["all_fours"]["first_use"]
    assert sorted(fu) == ["compile_s", "compiled", "import_s", "load_s"] and fu["compiled"] is True
    assert fu["import_s"] > 0 and fu["compile_s"] > 0 and fu["load_s"] > 0
    pm = res["pimc"]
    assert pm["game"] == "all_fours" and pm["n_det"] == 32 and pm["decisions"] == 20
    assert pm["min_ms"] <= pm["median_ms"] <= pm["max_ms"]


@pytest.mark.parametrize("kw, total", [
    # 3 rows (null, env(), kernel at B = 64) x (warm-up 0.1 + 0.3 s, 1 round of 0.1 s), in ms
    (dict(batches=(64,), seconds=0.1, rounds=1, skip=("texas", "scaling", "first-use", "pimc")), 3 * (400 + 100)),
    # 4 rows x (warm-up 310 ms + 2 rounds of 10 ms); the 2-core row fails (no such CPUs) and runs no 2nd round
    (dict(batches=(8,), seconds=0.01, rounds=2, skip=("texas", "first-use", "pimc"), cpus=[99998, 99999]),
     4 * (310 + 2 * 10) - 10),
])
def test_the_progress_bar_ends_exactly_at_its_total(monkeypatch, kw, total):
    """The bar counts whole milliseconds of estimated work: float seconds added up overshot their float total
    (0.4 * 3 + 0.1 * 3 = 1.5000000000000002 > 1.5), so tqdm warned (clamping frac) and showed a negative ETA."""
    import warnings

    import tqdm as tqdm_module

    from cardzoo.training import bench

    seen = {}

    class Recording(tqdm_module.tqdm):
        def close(self):
            seen["n"], seen["total"] = self.n, self.total
            super().close()

    monkeypatch.setattr(tqdm_module, "tqdm", Recording)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tqdm_module.TqdmWarning)
        bench.run(["all_fours"], progress=True, **kw)
    assert seen == {"n": total, "total": total}
