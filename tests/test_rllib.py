"""RLlib over the batched kernel (``training/rllib.py``): trains 2 PPO iterations with action
masking (no remote env runners: sampling in the driver), exports the policy as a cardzoo saved
agent, checks that the exported agent picks the RLlib module's actions, and evaluates it in the
arena. Skipped unless the ``[rllib]`` extra (ray) is installed."""

from __future__ import annotations

import json

import numpy as np
import pytest

import importlib.util

HAS_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="needs the [rllib] extra: pip install 'cardzoo[rllib]'")


@pytest.mark.skipif(HAS_RAY, reason="ray is installed")
def test_without_ray_the_command_names_the_extra(tmp_path, capsys):
    from cardzoo.training.cli import main

    assert main(["train-rllib", "avinas", "--iterations", "1", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "cardzoo train-rllib: error: this needs the [rllib] extra (module 'ray' is not installed)" in err
    assert not (tmp_path / "run").exists()


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from cardzoo.training.rllib import RLlibConfig, train

    out = tmp_path_factory.mktemp("rllib") / "run"
    cfg = RLlibConfig(
        game="avinas", iterations=2, num_env_runners=0, num_envs_per_runner=32, rollout_fragment_length=8,
        minibatch_size=128, num_epochs=1, net_arch=[32, 32], opponents=["avinas/rule"], seed=0, out=str(out),
    )
    lines = []
    summary = train(cfg, log=lines.append)
    return cfg, out, summary, lines


@needs_ray
def test_two_iterations_log_and_save_where_cardzoo_train_does(trained):
    cfg, out, summary, lines = trained
    assert len(lines) == 2 and lines[0].startswith("iteration 1/2: ") and "steps/s" in lines[1] and "ETA" in lines[1]
    assert summary["steps"] >= 2 * 32 * 8 and summary["agent"] == str(out / "agent")
    rows = (out / "progress.csv").read_text().splitlines()
    assert rows[0] == "iteration,env_steps,seconds,steps_per_second,episode_return_mean" and len(rows) == 3
    assert any((out / "tb").iterdir()) and (out / "rllib_checkpoint").is_dir()
    meta = json.loads((out / "agent" / "agent.json").read_text())
    assert meta["game"] == "avinas" and meta["net_arch"] == [32, 32] and meta["training"]["rllib"]["iterations"] == 2
    from cardzoo.training.rllib import RLlibConfig, train

    with pytest.raises(FileExistsError, match="already holds a run"):
        train(RLlibConfig(game="avinas", out=str(out)))


@needs_ray
def test_exported_agent_plays_the_rllib_policy_and_the_arena_loads_it(trained):
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    import cardzoo
    from cardzoo import envs

    cfg, out, _, _ = trained
    agent = cardzoo.load_agent(str(out / "agent"))
    # the same actions as RLlib's module (greedy over the masked logits) on real positions
    venv = cardzoo.make_vec("avinas", 64, opponents="random", seed=1)
    obs, info = venv.reset()
    raw = venv.kernel.observe(venv.st, venv.st.current_player)
    mask = info["action_mask"]
    module = RLModule.from_checkpoint(out / "rllib_checkpoint" / "learner_group" / "learner" / "rl_module" / "default_policy")
    batch = {Columns.OBS: {"observations": torch.as_tensor(obs), "action_mask": torch.as_tensor(mask.astype(np.float32))}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    np.testing.assert_array_equal(agent.act(raw, mask), np.where(mask, logits, -np.inf).argmax(axis=1))
    from cardzoo.training.cli import main

    assert main(["arena", "avinas", str(out / "agent"), "random", "--deals", "20", "--seed", "0"]) == 0
    assert envs.kernel("avinas").num_actions == agent.policy.action_space.n


@needs_ray
@pytest.mark.parametrize("change, message", [
    ({"env_options": {"bogus": 1}}, "unknown option(s) ['bogus']; valid options: ['call_count', "),
    ({"opponents": "avinas/rule"}, "opponents must be a list of agent names, e.g. ['avinas/rule'], got 'avinas/rule'"),
    ({"opponents": ["all_fours/rule"]}, "'all_fours/rule' plays all_fours, not avinas"),
])
def test_a_bad_config_is_refused_before_anything_is_written_or_started(tmp_path, change, message):
    """train(RLlibConfig(env_options={'bogus': 1})) wrote OUT/config.json and started ray before the
    env runner found the option: the corrected run was then refused ('already holds a run') and the
    ray it started stayed up. A lone opponent name was read letter by letter."""
    import dataclasses

    import ray

    from cardzoo.training.rllib import RLlibConfig, train

    assert not ray.is_initialized()
    cfg = dataclasses.replace(RLlibConfig(game="avinas", out=str(tmp_path / "run")), **change)
    with pytest.raises(ValueError) as err:
        train(cfg, log=lambda line: None)
    assert message in str(err.value)
    assert not (tmp_path / "run").exists() and not ray.is_initialized()


@pytest.mark.parametrize("env_options", [{"privileged": True}, {"seed": 3}, {"num_envs": 4}, {"illegal_action": "lose"}])
def test_env_options_are_the_games_options_not_the_vector_envs_parameters(env_options):
    """check_config passed env_options to cardzoo.make_vec, so make_vec's own parameters got through:
    privileged=True trained a wider observation and then failed at export (kernel(privileged=True)),
    seed=3 raised TypeError ('got multiple values for keyword argument') inside the env runner."""
    from cardzoo import envs
    from cardzoo.training.rllib import RLlibConfig, check_config

    with pytest.raises(ValueError) as err:
        check_config(RLlibConfig(game="avinas", env_options=env_options))
    assert str(err.value) == f"unknown option(s) {list(env_options)}; valid options: {sorted(envs.kernel_class('avinas').OPTIONS)}"
    check_config(RLlibConfig(game="avinas", env_options={"episode": "match"}))


@needs_ray
@pytest.mark.parametrize("change, message", [
    ({"iterations": 0}, "iterations (--iterations) must be an int >= 1, got 0"),
    ({"num_envs_per_runner": 0}, "num_envs_per_runner (--num-envs-per-runner) must be an int >= 1, got 0"),
    ({"lr": float("nan")}, "lr (--lr) must be a finite number > 0, got nan"),
    ({"gamma": 1.5}, "gamma must be a number from 0 to 1, got 1.5"),
])
def test_bad_counts_and_rates_are_refused_by_name_before_anything_starts(tmp_path, change, message):
    """--iterations 0 trained nothing and then failed with IndexError ('list index out of range', the
    empty progress rows) after ray had started and OUT/config.json was written; --num-envs-per-runner 0
    failed inside ray's env runner."""
    import dataclasses

    import ray

    from cardzoo.training.rllib import RLlibConfig, train

    cfg = dataclasses.replace(RLlibConfig(game="avinas", out=str(tmp_path / "run")), **change)
    with pytest.raises(ValueError) as err:
        train(cfg, log=lambda line: None)
    assert str(err.value) == message
    assert not (tmp_path / "run").exists() and not ray.is_initialized()


@needs_ray
@pytest.mark.parametrize("change, message", [
    ({"lr": -1.0}, "lr (--lr) must be a finite number > 0, got -1.0"),
    ({"opponents": "avinas/rule"}, "opponents must be a list of agent names, e.g. ['avinas/rule'], got 'avinas/rule'"),
    ({"env_options": {"bogus": 1}}, "unknown option(s) ['bogus']; valid options: ['call_count', "),
    ({"game": "chess"}, "unknown game 'chess'; available games: ['all_fours', 'aluette', 'avinas', 'ottocento', 'pyanitsa']"),
    ({"seed": -1}, "seed must be a non-negative int or None, got -1"),
])
def test_build_algo_config_refuses_a_bad_config_by_name(change, message):
    """The documented ``build_algo_config(RLlibConfig(...)).build_algo()`` checked nothing: a negative lr,
    a lone opponent name (read letter by letter) or an unknown option gave a PPOConfig, and the error,
    if any, came from inside an env runner once ray was up."""
    import dataclasses

    import ray

    from cardzoo.training.rllib import RLlibConfig, build_algo_config

    cfg = dataclasses.replace(RLlibConfig(game="avinas"), **change)
    with pytest.raises(ValueError) as err:
        build_algo_config(cfg)
    assert message in str(err.value)
    assert not ray.is_initialized()


@needs_ray
@pytest.mark.parametrize("change, message", [
    ({"activation": "elu"}, "activation must be one of ['tanh', 'relu'] (what a cardzoo saved agent runs), got 'elu'"),
    ({"net_arch": []}, "net_arch must be a non-empty list of layer widths (ints >= 1), e.g. [256, 256], got []"),
    ({"net_arch": [64, 0]}, "net_arch must be a non-empty list of layer widths (ints >= 1), e.g. [256, 256], got [64, 0]"),
])
def test_a_network_the_saved_agent_cannot_hold_is_refused_before_training(tmp_path, change, message):
    """RLlibConfig(activation="elu") trained every iteration (RLlib has elu), wrote progress.csv and the
    RLlib checkpoint, then failed exporting the agent with KeyError: 'elu' (a saved agent runs relu or tanh)."""
    import dataclasses

    import ray

    from cardzoo.training.rllib import RLlibConfig, train

    cfg = dataclasses.replace(RLlibConfig(game="pyanitsa", out=str(tmp_path / "run")), **change)
    with pytest.raises(ValueError) as err:
        train(cfg, log=lambda line: None)
    assert str(err.value) == message
    assert not (tmp_path / "run").exists() and not ray.is_initialized()


@needs_ray
@pytest.mark.parametrize("rounds", ["-2", "-1"])
def test_a_negative_bench_sampling_count_is_refused_before_ray_starts(rounds, capsys):
    """``cardzoo train-rllib avinas --bench-sampling -2`` started ray, built the algorithm and reported
    '0 env steps in 0.0 s (0 env steps/s)' with exit 0."""
    import ray

    from cardzoo.training.cli import main
    from cardzoo.training.rllib import RLlibConfig, bench_sampling

    assert main(["train-rllib", "avinas", "--bench-sampling", rounds]) != 0
    assert f"rounds (--bench-sampling) must be an int >= 1, got {rounds}" in capsys.readouterr().err
    with pytest.raises(ValueError) as err:
        bench_sampling(RLlibConfig(game="avinas"), rounds=0, log=lambda line: None)
    assert str(err.value) == "rounds (--bench-sampling) must be an int >= 1, got 0"
    assert not ray.is_initialized()


@needs_ray
def test_the_default_output_folder_is_the_games_and_a_file_is_refused_by_name(tmp_path, monkeypatch):
    """RLlibConfig(game="pyanitsa") wrote to runs/all_fours-rllib (the dataclass default was All Fours'),
    unlike cardzoo train-rllib and RLLIB.md ('OUT defaults to runs/GAME-rllib'); an --out that is a file
    was named only by OSError's '[Errno 20] Not a directory'."""
    import ray

    from cardzoo.training.rllib import RLlibConfig, train

    monkeypatch.chdir(tmp_path)
    for game in ("all_fours", "pyanitsa"):  # each holds a run, so nothing trains
        (tmp_path / "runs" / f"{game}-rllib").mkdir(parents=True)
        (tmp_path / "runs" / f"{game}-rllib" / "config.json").write_text("{}")
    assert RLlibConfig(game="pyanitsa").out is None
    with pytest.raises(FileExistsError) as err:
        train(RLlibConfig(game="pyanitsa"), log=lambda line: None)
    assert str(err.value) == "runs/pyanitsa-rllib already holds a run; pass another --out (runs never overwrite each other)"
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(FileExistsError) as err:
        train(RLlibConfig(game="pyanitsa", out="a_file"), log=lambda line: None)
    assert str(err.value) == "a_file is a file, not a folder; pass another --out"
    with pytest.raises(ValueError) as err:
        train(RLlibConfig(game="pyanitsa", out=3), log=lambda line: None)
    assert str(err.value) == "out must be a folder path (str) or None (runs/GAME-rllib), got 3"
    assert not ray.is_initialized()


@needs_ray
def test_an_iteration_without_an_ended_episode_has_no_return():
    """RLlib reports NaN (or nothing) as episode_return_mean when no episode ended in the iteration;
    the log printed "return +nan" and progress.csv and TensorBoard got nan. It is None now (the log
    says n/a, the csv cell is empty, TensorBoard gets no point)."""
    from cardzoo.training.rllib import _mean_return

    assert _mean_return({"episode_return_mean": float("nan")}) is None
    assert _mean_return({}) is None
    assert _mean_return({"episode_return_mean": -0.25}) == -0.25
    assert _mean_return({"episode_return_mean": np.float32(0.5)}) == 0.5


@needs_ray
def test_the_wrapper_refuses_float_actions_as_the_vector_env_does():
    """MaskedDictObs cast actions to int64, so [52.7, 2.7] played [52, 2]; they are refused now, as the
    vector env it wraps refuses them, and int actions of any width still play."""
    import cardzoo
    from cardzoo.training.rllib import MaskedDictObs

    env = MaskedDictObs(cardzoo.make_vec("all_fours", 2, opponents=["all_fours/random"], seed=0))
    obs, _ = env.reset(seed=0)
    legal = [int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]
    with pytest.raises(ValueError, match=r"actions must be an int array of shape \(2,\), got float64"):
        env.step(np.array(legal, dtype=np.float64) + 0.7)
    env.step(np.array(legal, dtype=np.int32))  # the refused step changed nothing: the same actions play
