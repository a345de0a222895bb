"""Training side: the batched VecEnv, the single-seat Gymnasium env, saved agents, a smoke run."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest

from cardzoo import agents, envs
from cardzoo.agents.base import Agent
from cardzoo.agents.policy import load_policy_agent, save_policy_agent
from cardzoo.training.selfplay import TrainConfig, make_pool, train
from cardzoo.training.single_agent import SingleSeatEnv
from cardzoo.training.vec_env import KernelVecEnv, OpponentPool


class LowestCardAgent(Agent):
    """A deliberately bad player: always the lowest legal action id (begs, then runs the pack)."""

    name = "lowest"

    def act(self, observation, action_mask):
        return np.asarray(action_mask, dtype=bool).argmax(axis=1).astype(np.int64)


def _pool(agent, name="opp"):
    pool = OpponentPool({name: 1.0})
    pool.add(name, agent)
    return pool


def _random_actions(vec, rng):
    m = vec.action_masks()
    u = rng.random(m.shape)
    u[~m] = -1
    return u.argmax(axis=1)


def _collect(vec, n_steps, seed=0):
    """Play random legal learner actions; return per-episode (summed rewards, info return, team)."""
    rng = np.random.default_rng(seed)
    obs = vec.reset()
    acc = np.zeros(vec.num_envs)
    out = []
    for _ in range(n_steps):
        team_before = vec.learner_team.copy()
        obs, rew, done, infos = vec.step(_random_actions(vec, rng))
        assert obs.dtype == np.float32 and obs.shape == (vec.num_envs, vec.observation_space.shape[0])
        assert vec.observation_space.contains(obs[0])
        acc += rew
        for i in np.flatnonzero(done):
            res = infos[i]["episode_result"]
            out.append((acc[i], res["return"], int(team_before[i]), rew[i], infos[i]["terminal_observation"]))
            acc[i] = 0
    return out


def test_vecenv_rewards_reach_every_learner_seat_including_losses():
    vec = KernelVecEnv("all_fours", 64, _pool(agents.load("all_fours/rule")), seed=3)
    eps = _collect(vec, 400)
    assert len(eps) > 200
    summed = np.array([e[0] for e in eps])
    reported = np.array([e[1] for e in eps])
    teams = np.array([e[2] for e in eps])
    np.testing.assert_allclose(summed, reported)  # nothing lost across the auto-reset
    assert set(teams) == {0, 1}  # the learner sits on both teams
    for t in (0, 1):
        assert (summed[teams == t] < 0).any() and (summed[teams == t] > 0).any()
    # a random learner against the rule bot loses on average: losses reach the learner
    assert summed.mean() < -0.3


def test_vecenv_deliberately_losing_opponent_gives_positive_returns():
    vec = KernelVecEnv("all_fours", 64, _pool(LowestCardAgent()), seed=4)
    eps = _collect(vec, 400)
    summed = np.array([e[0] for e in eps])
    assert summed.mean() > 0.1  # measured +0.28 over ~2,000 hands (SE ~0.05)


def test_vecenv_autoreset_keeps_final_reward_and_observation():
    vec = KernelVecEnv("all_fours", 32, _pool(agents.load("random", seed=1)), seed=5)
    eps = _collect(vec, 300)
    # hand mode pays only at the end: the whole return arrives on the done step
    final = np.array([e[3] for e in eps])
    np.testing.assert_allclose(final, [e[1] for e in eps])
    assert (final != 0).mean() > 0.8
    term = np.stack([e[4] for e in eps])
    assert term.shape[1] == vec.observation_space.shape[0] and (term >= 0).all() and (term <= 1).all()


def test_vecenv_masks_and_illegal_action_error():
    vec = KernelVecEnv("all_fours", 8, _pool(agents.load("random", seed=1)), seed=6)
    vec.reset()
    masks = vec.env_method("action_masks")
    assert len(masks) == 8 and all(m.shape == (56,) and m.dtype == bool and m.any() for m in masks)
    bad = np.array([np.flatnonzero(~m)[0] for m in masks])
    with pytest.raises(ValueError, match="illegal action"):
        vec.step(bad)


def test_opponent_pool_weights_and_errors():
    pool = OpponentPool({"random": 1.0, "snapshot": 3.0})
    pool.add("random", object())
    pool.add("snapshot@1", object())
    pool.add("snapshot@2", object())
    np.testing.assert_allclose(pool.probabilities(), [0.25, 0.375, 0.375])
    pool.add("snapshot@3", object(), max_per_group=2)
    assert [e.name for e in pool.entries] == ["random", "snapshot@2", "snapshot@3"]
    with pytest.raises(ValueError, match="weights"):
        OpponentPool({"random": -1.0})


class _LegalizeActions(gymnasium.ActionWrapper):
    """Test shim: the env checkers sample actions without masks; map them to a legal one."""

    def action(self, action):
        mask = self.env.unwrapped.action_masks()
        return int(action) if mask[int(action)] else int(np.flatnonzero(mask)[0])


def test_single_seat_env_passes_sb3_and_gymnasium_checkers():
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    env = SingleSeatEnv("all_fours", seat=1, partner="all_fours/rule", opponents="random", seed=0)
    sb3_check(_LegalizeActions(env), warn=True)
    gym_check(_LegalizeActions(SingleSeatEnv("all_fours", seat=2, seed=1)), skip_render_check=True)


def test_single_seat_env_plays_and_rejects_illegal_actions():
    env = SingleSeatEnv("all_fours", seat=0, partner="all_fours/rule", opponents="all_fours/rule", seed=2)
    obs, info = env.reset(seed=2)
    assert obs.dtype == np.uint8 and env.observation_space.contains(obs)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    rng = np.random.default_rng(0)
    total, episodes = 0.0, 0
    while episodes < 50:
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += r
        if term or trunc:
            episodes += 1
            env.reset()
    assert total / episodes < 0  # a random seat with rule-bot partner vs two rule bots loses on average
    with pytest.raises(ValueError, match="seat"):
        SingleSeatEnv("all_fours", seat=4)


def _small_policy(seed=0):
    import torch

    from cardzoo.agents.policy import _build_policy

    torch.manual_seed(seed)
    return _build_policy(402, 56, [32], "relu")


def test_saved_agent_round_trip(tmp_path):
    from cardzoo import envs

    k = envs.kernel("all_fours")
    policy = _small_policy()
    save_policy_agent(tmp_path / "a", policy, game="all_fours", env_options={}, kernel=k, net_arch=[32], activation="relu")
    meta = json.loads((tmp_path / "a" / "agent.json").read_text())
    assert meta["game"] == "all_fours" and meta["obs_dim"] == 402 and meta["num_actions"] == 56
    loaded = agents.load(str(tmp_path / "a"))
    rng = np.random.default_rng(0)
    st = k.init(rng, 64)
    obs, mask = k.observe(st, st.current_player), k.legal_actions(st)
    from cardzoo.agents.policy import PolicyAgent

    direct = PolicyAgent(policy, k.obs_layout.high())
    np.testing.assert_array_equal(loaded.act(obs, mask), direct.act(obs, mask))
    assert mask[np.arange(64), loaded.act(obs, mask)].all()
    # the weights are readable as agent.json is (0666 less the umask): safetensors' save_file wrote 0600
    mode = lambda name: (tmp_path / "a" / name).stat().st_mode & 0o777  # noqa: E731
    assert mode("weights.safetensors") == mode("agent.json") and mode("weights.safetensors") & 0o044 == 0o666 & ~_umask() & 0o044


def _umask() -> int:
    import os

    old = os.umask(0)
    os.umask(old)
    return old


def test_agent_json_is_valid_json_with_undefined_numbers(tmp_path):
    """agent.json holds NaN/inf (e.g. the CI of a 1-deal evaluation) as null, never the bare NaN
    Python's json writes (not JSON); numpy values and arrays too; the agent still loads."""
    from cardzoo import envs

    extra = {"evaluation": {"diff_ci": [float("nan"), float("nan")], "mean_diff": 0.5},
             "inf": np.float32("inf"), "n": np.int64(3), "arr": np.array([1.0, np.nan])}
    save_policy_agent(tmp_path / "a", _small_policy(), game="all_fours", env_options={}, kernel=envs.kernel("all_fours"),
                      net_arch=[32], activation="relu", extra=extra)
    text = (tmp_path / "a" / "agent.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    meta = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert meta["evaluation"] == {"diff_ci": [None, None], "mean_diff": 0.5}
    assert meta["inf"] is None and meta["n"] == 3 and meta["arr"] == [1.0, None]
    agents.load(str(tmp_path / "a"))


def test_loading_bad_agents_fails_with_the_path(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError, match=str(missing)):
        load_policy_agent(missing)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "agent.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(ValueError, match="foreign"):
        agents.load(str(foreign))
    notjson = tmp_path / "notjson"
    notjson.mkdir()
    (notjson / "agent.json").write_bytes(b"\x80\x04garbage")
    with pytest.raises(ValueError, match="notjson"):
        agents.load(str(notjson))
    # a training run's folder in place of its agent: the error names the agent inside
    run = tmp_path / "run"
    (run / "agent").mkdir(parents=True)
    (run / "agent" / "agent.json").write_text("{}")
    with pytest.raises(ValueError) as e:
        agents.load(str(run))
    assert str(e.value) == (f"{run} is not a saved cardzoo agent: expected a directory holding agent.json and "
                            f"weights.safetensors; it holds a training run, whose agent is {run / 'agent'}")
    # a valid agent.json with corrupt weights
    from cardzoo import envs

    good = tmp_path / "good"
    save_policy_agent(good, _small_policy(), game="all_fours", env_options={}, kernel=envs.kernel("all_fours"), net_arch=[32], activation="relu")
    (good / "weights.safetensors").write_bytes(b"not a safetensors file at all")
    with pytest.raises(ValueError, match="weights.safetensors"):
        agents.load(str(good))
    # a pickle disguised as weights is refused, never unpickled
    import pickle

    (good / "weights.safetensors").write_bytes(pickle.dumps({"x": 1}))
    with pytest.raises(ValueError, match="good"):
        agents.load(str(good))


def test_train_config_rejects_bad_options(tmp_path):
    with pytest.raises(ValueError, match="unknown game"):
        TrainConfig(game="chess").validate()
    with pytest.raises(ValueError, match="total_steps"):
        TrainConfig(total_steps=0).validate()
    with pytest.raises(ValueError, match="opponent"):
        TrainConfig(opponents={"nobody": 1.0}).validate()
    with pytest.raises(FileNotFoundError, match="missing.zip"):
        TrainConfig(resume=str(tmp_path / "missing.zip")).validate()
    with pytest.raises(ValueError, match="episode"):
        TrainConfig(env_options={"episode": "season"}).validate()


@pytest.mark.slow
def test_training_smoke_learns_against_random(tmp_path):
    """A ~1-minute fixed-seed run beats random over duplicate deals (CI above 0)."""
    cfg = TrainConfig(
        total_steps=150_000, n_envs=128, n_steps=64, batch_size=2048, seed=0, out=str(tmp_path / "run"),
        opponents={"random": 1.0}, eval_deals=600, checkpoint_every=100_000,
        bc_samples=0, learning_rate=3e-4, clip_range=0.2, ent_coef=0.01, torch_threads=1, expert_rounds=0,
    )
    summary = train(cfg)
    vs_random = next(r for r in summary["evaluation"] if r["opponent"] == "random")
    assert vs_random["mean_diff"] > 0 and vs_random["diff_ci"][0] > 0, vs_random
    out = tmp_path / "run"
    for f in ("agent/agent.json", "agent/weights.safetensors", "learning_curve.png", "evaluation.md", "model.zip"):
        assert (out / f).is_file(), f
    assert list((out / "checkpoints").glob("agent_*/agent.json"))
    meta = json.loads((out / "agent" / "agent.json").read_text())
    assert meta["evaluation"][0]["opponent"] == "random" and meta["training"]["total_steps"] == 150_000


def test_make_pool_has_random_and_rule():
    pool = make_pool(TrainConfig())
    assert [e.name for e in pool.entries] == ["random", "rule"]


def test_behaviour_cloning_learns_the_teacher():
    from cardzoo import envs
    from cardzoo.training import imitation

    teacher = agents.load("all_fours/rule")
    data = imitation.collect("all_fours", teacher, 60_000, seed=0, batch=256)
    n = len(data.action)
    assert n > 50_000 and data.obs.shape == (n, 402) and data.mask[np.arange(n), data.action].all()
    assert set(np.unique(data.ret)) - {0.0}  # returns were recorded
    # a uniformly random legal choice matches the teacher this often:
    chance = float(np.mean(1.0 / data.mask.sum(axis=1)))
    policy = _small_policy()
    info = imitation.pretrain(policy, data, envs.kernel("all_fours").obs_layout.high(), epochs=3, batch_size=1024)
    assert info["val_accuracy"] > chance + 0.12, (info, chance)  # measured 0.66 vs chance 0.47


def test_seeded_training_runs_are_reproducible(tmp_path):
    from safetensors.numpy import load_file

    weights = []
    for run in ("a", "b"):
        cfg = TrainConfig(
            total_steps=2 * 64 * 32, n_envs=64, n_steps=32, batch_size=1024, net_arch=[32], seed=11,
            bc_samples=4096, bc_epochs=1, eval_deals=0, out=str(tmp_path / run), torch_threads=1, expert_rounds=0,
        )
        train(cfg)
        weights.append(load_file(str(tmp_path / run / "agent" / "weights.safetensors")))
    assert weights[0].keys() == weights[1].keys()
    for key in weights[0]:
        np.testing.assert_array_equal(weights[0][key], weights[1][key], err_msg=key)


def test_single_seat_env_rejects_non_integer_actions_and_steps_after_the_end():
    env = SingleSeatEnv("all_fours", seat=0, seed=4)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=4)
    legal = int(np.flatnonzero(env.action_masks())[0])
    with pytest.raises(ValueError, match="int action id"):
        env.step(float(legal) + 0.7)
    obs, *_ = env.step(np.array(legal))  # a 0-d array, as model.predict returns for one observation
    rng = np.random.default_rng(0)
    term = trunc = False
    while not (term or trunc):
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)


def test_policy_agent_checks_shapes():
    from cardzoo.agents.policy import PolicyAgent

    agent = PolicyAgent(_small_policy(), np.ones(402))
    with pytest.raises(ValueError, match=r"\[B, 402\]"):
        agent.act(np.zeros((2, 400)), np.ones((2, 56), dtype=bool))
    one = agent.act(np.zeros(402), np.eye(56, dtype=bool)[3])  # 1-D input is one game
    assert one.tolist() == [3]
    assert agent.act(np.zeros((0, 402)), np.zeros((0, 56), dtype=bool)).shape == (0,)


def test_vecenv_passes_sb3_vec_checks():
    """SB3's check_env takes single envs (see the SingleSeatEnv test); for the VecEnv, SB3's
    VecCheckNan wrapper checks every observation/reward, and MaskablePPO accepts it."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecCheckNan

    vec = KernelVecEnv("all_fours", 16, _pool(agents.load("random", seed=1)), seed=8)
    assert is_masking_supported(vec)
    checked = VecCheckNan(vec, raise_exception=True)
    obs = checked.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        masks = get_action_masks(checked)
        assert masks.shape == (16, 56)
        obs, rew, done, infos = checked.step(_random_actions(vec, rng))
        assert vec.observation_space.contains(obs[0]) and rew.dtype == np.float32 and done.dtype == bool
    model = MaskablePPO("MlpPolicy", vec, n_steps=16, batch_size=64, n_epochs=1, policy_kwargs={"net_arch": [16]}, seed=0)
    model.learn(total_timesteps=16 * 16)
    assert model.num_timesteps == 256


def test_behaviour_cloning_data_for_a_game_without_teams():
    """P'yanitsa seats play alone (its kernel has no teams): each recorded decision carries its own
    seat's return: -1 for the loser, L/(N-L) = 1/2 for each of the two safe seats of 3, 0 in a dead game."""
    from cardzoo import agents
    from cardzoo.training import imitation

    opts = {"num_players": 3, "collect_order": "winner_chooses"}
    data = imitation.collect("pyanitsa", agents.load("pyanitsa/rule", **opts), 3000, seed=0, batch=32, env_options=opts)
    assert len(data.action) >= 3000 and data.obs.shape[1] == 236
    assert set(np.unique(np.round(data.ret, 6)).tolist()) <= {-1.0, 0.0, 0.5}
    assert (data.ret == -1).any() and (np.round(data.ret, 6) == 0.5).any()
    assert data.mask[np.arange(len(data.action)), data.action].all()


def _deck_that_ends_the_match_on_the_deal():
    """A stacked deck (all fours, score 13-13, dealer 0) whose kick wins the match before anyone plays."""
    e = envs.make("all_fours", episode="match")
    rng = np.random.default_rng(0)
    for _ in range(3000):
        d = rng.permutation(52)
        e.reset(seed=1, options={"score": [13, 13], "dealer": 0, "deck": d})
        if all(e.terminations.values()):
            return d
    raise AssertionError("no such deck found")


def test_single_seat_reset_with_a_deal_that_ends_before_the_seat_acts():
    """A reset whose stacked deck ends the match before the learning seat acts used to redeal itself
    recursively (the same deck each time) until RecursionError; now ValueError names the options. Without a
    stacked deck the redeal is a fresh random deal, and bounded (RuntimeError after MAX_REDEALS)."""
    d = _deck_that_ends_the_match_on_the_deal()
    env = SingleSeatEnv("all_fours", seat=0, episode="match")
    twin = SingleSeatEnv("all_fours", seat=0, episode="match")
    obs0, _ = env.reset(seed=5)
    twin.reset(seed=5)
    opts = {"score": [13, 13], "dealer": 0, "deck": d}
    with pytest.raises(ValueError) as e:
        env.reset(seed=1, options=opts)
    msg = str(e.value)
    assert "these reset options end the episode before seat 0 (player_0) acts, so there is nothing to learn" in msg
    assert f"'deck': {d.tolist()}" in msg and "'score': [13, 13]" in msg and "fixed by ['deck']" in msg
    # the refused reset changed nothing: the episode being played goes on exactly as its twin's
    assert np.array_equal(env.action_masks(), twin.action_masks())
    for _ in range(6):
        a = int(np.flatnonzero(twin.action_masks())[0])
        got, want = env.step(a), twin.step(a)
        assert np.array_equal(got[0], want[0]) and got[1:4] == want[1:4]
        if want[2] or want[3]:
            break
    # without the deck, the same score redeals fresh cards until seat 0 acts
    obs, info = env.reset(seed=1, options={"score": [13, 13], "dealer": 0})
    assert obs.shape == env.observation_space.shape and info["action_mask"].any()
    # every deal ending before the seat acts: bounded, then a clear RuntimeError
    env.MAX_REDEALS = 3
    env._run_others = lambda: (0.0, True, False)
    with pytest.raises(RuntimeError, match=r"3 deals in a row ended the episode before seat 0 \(player_0\) acted"):
        env.reset(seed=1)


def test_behaviour_cloning_says_whether_it_converged_or_hit_the_epoch_cap(tmp_path, capsys, monkeypatch):
    # pretrain: with min_gain 1.0 the agreement never "rises" after the first epoch, so it stops after
    # 1 + patience epochs (converged); with one epoch it ends at the cap (not converged)
    from cardzoo import envs
    from cardzoo.training import imitation
    from cardzoo.training.selfplay import TrainConfig, train

    data = imitation.collect("all_fours", agents.load("all_fours/rule"), 500, seed=0)
    high = envs.kernel("all_fours").obs_layout.high()
    capsys.readouterr()
    info = imitation.pretrain(_small_policy(), data, high, epochs=10, batch_size=256, until_converged=True, min_gain=1.0)
    assert (info["epochs"], info["converged"]) == (3, True)
    bar = capsys.readouterr().err.split("\r")[-1]  # the bar's last state: at the cap's 10 epochs, ended at 100% after 3
    per_epoch = info["steps"] // 3
    assert bar.startswith("behaviour cloning (at most 10 epochs): 100%") and f"{3 * per_epoch}/{3 * per_epoch} [" in bar
    info = imitation.pretrain(_small_policy(), data, high, epochs=1, batch_size=256, until_converged=True)
    assert (info["epochs"], info["converged"]) == (1, False)
    # the run's line says which: --bc-epochs 1 is the cap, not "until the agreement stopped rising"
    import time
    import types

    from cardzoo.training import selfplay

    # a cloning that takes 1,000 s on train's clock: the clock jumps while it runs (no real waiting)
    jump = [0.0]
    monkeypatch.setattr(selfplay, "time", types.SimpleNamespace(perf_counter=lambda: time.perf_counter() + jump[0]))
    real = imitation.pretrain

    def slow_pretrain(*a, **k):
        jump[0] += 1000.0
        return real(*a, **k)

    monkeypatch.setattr(imitation, "pretrain", slow_pretrain)
    train(TrainConfig(game="all_fours", total_steps=128, n_envs=16, n_steps=8, batch_size=64, bc_samples=500, bc_epochs=1,
                      eval_deals=0, torch_threads=1, opponents={"random": 1.0}, net_arch=[16], out=str(tmp_path / "run"),
                      expert_rounds=0))
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())  # the PPO rate leaves the cloning out
    assert summary["seconds"] - summary["ppo_seconds"] >= 1000.0 > summary["ppo_seconds"]
    assert summary["steps_per_second"] > 1.0  # over PPO's time only: with the cloning's 1,000 s it would be <= 0.128
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("behaviour cloning:"))
    assert "(1 epoch, the cap (--bc-epochs 1), with the held-out agreement still rising" in line
    assert "stopped rising" not in line
    bc = json.loads((tmp_path / "run" / "agent" / "agent.json").read_text())["training"]["behaviour_cloning"]
    assert (bc["teacher"], bc["epochs"], bc["converged"]) == ("all_fours/rule", 1, False)  # kept in the agent too


def test_the_options_warning_names_the_callers_line(tmp_path):
    """OptionsMismatchWarning points at the line that loaded the agent (not cardzoo/__init__.py nor
    agents/registry.py, where the default filter would also show it only once for all callers)."""
    import sys
    import warnings
    from pathlib import Path

    import cardzoo
    from cardzoo import envs
    from cardzoo.agents.options import OptionsMismatchWarning

    save_policy_agent(tmp_path / "a", _small_policy(), game="all_fours", env_options={}, kernel=envs.kernel("all_fours"),
                      net_arch=[32], activation="relu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cardzoo.load_agent(str(tmp_path / "a"), undertrump="forbidden"); line_a = sys._getframe().f_lineno  # noqa: E702
        agents.load(str(tmp_path / "a"), undertrump="forbidden"); line_b = sys._getframe().f_lineno  # noqa: E702
        cardzoo.load_agent("aluette/ppo", signals="off"); line_c = sys._getframe().f_lineno  # noqa: E702
        agents.load("aluette/ppo", signals="off"); line_d = sys._getframe().f_lineno  # noqa: E702
    got = [(Path(w.filename).name, w.lineno) for w in caught if issubclass(w.category, OptionsMismatchWarning)]
    here = Path(__file__).name
    assert got == [(here, line_a), (here, line_b), (here, line_c), (here, line_d)]


def test_ctrl_c_in_behaviour_cloning_leaves_the_best_epoch_so_far_in_the_policy():
    """Ctrl-C in the cloning's second epoch: the policy (which the run then saves as its checkpoint) holds
    the first epoch's weights, as a cloning of one epoch leaves them, not a half-done second epoch."""
    import torch

    from cardzoo import envs
    from cardzoo.training import imitation

    data = imitation.collect("all_fours", agents.load("all_fours/rule"), 500, seed=0)
    high = envs.kernel("all_fours").obs_layout.high()
    one = _small_policy()
    imitation.pretrain(one, data, high, epochs=1, batch_size=128, until_converged=True)
    cut = _small_policy()
    sizes = []  # rows of each forward: batches of 128, the held-out check of fewer

    def hook(module, inputs, output):
        sizes.append(inputs[0].shape[0])
        checked = next((i for i, n in enumerate(sizes) if n != 128), None)
        if checked is not None and sizes[checked + 1:].count(128) == 2:  # epoch 2 has taken one step: stop in its 2nd batch
            raise KeyboardInterrupt

    cut.action_net.register_forward_hook(hook)
    with pytest.raises(KeyboardInterrupt):
        imitation.pretrain(cut, data, high, epochs=5, batch_size=128, until_converged=True)
    a, b = one.state_dict(), cut.state_dict()
    assert sizes.count(128) >= 4 and a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
