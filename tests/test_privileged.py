"""Perfect-information critic (training/privileged.py): the actor never sees the hidden features."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardzoo import agents
from cardzoo.agents.policy import load_policy_agent
from cardzoo.agents.random_agent import RandomAgent
from cardzoo.training.privileged import PrivilegedCriticPolicy, actor_only, load_actor_into
from cardzoo.training.selfplay import TrainConfig, train
from cardzoo.training.vec_env import KernelVecEnv, OpponentPool


def _vec(privileged, n=16, seed=3):
    pool = OpponentPool({"random": 1.0})
    pool.add("random", RandomAgent(0))
    return KernelVecEnv("all_fours", n, pool, seed=seed, privileged=privileged)


def _policy(vec):
    return PrivilegedCriticPolicy(
        vec.observation_space, vec.action_space, lambda _: 1e-3, net_arch=[32, 32], activation_fn=torch.nn.ReLU, actor_dim=vec.actor_dim
    )


def test_privileged_observation_is_the_observation_then_state_and_seat():
    plain, priv = _vec(False), _vec(True)
    a, b = plain.reset(), priv.reset()
    k = plain.kernel
    D, S = k.obs_layout.size, k.state_layout.size
    assert b.shape == (16, D + S + 4) and priv.actor_dim == D
    np.testing.assert_array_equal(a, b[:, :D])
    np.testing.assert_array_equal(b[:, D + S :].argmax(axis=1), priv.st.current_player)
    hidden = k.global_state(priv.st).astype(np.float32) / np.maximum(k.state_layout.high(), 1)
    np.testing.assert_allclose(b[:, D : D + S], hidden)
    rng = np.random.default_rng(0)
    for _ in range(30):  # terminal observations have the same width
        m = priv.action_masks()
        _, _, done, infos = priv.step(np.where(m, rng.random(m.shape), -1).argmax(axis=1))
        for i in np.flatnonzero(done):
            assert infos[i]["terminal_observation"].shape == (D + S + 4,)


def test_actor_ignores_the_hidden_features_and_the_critic_uses_them():
    vec = _vec(True)
    obs = torch.as_tensor(vec.reset())
    pol = _policy(vec)
    masks = vec.action_masks()
    other = obs.clone()
    other[:, vec.actor_dim :] = torch.rand_like(other[:, vec.actor_dim :])
    with torch.no_grad():
        p1 = pol.get_distribution(obs, action_masks=masks).distribution.probs
        p2 = pol.get_distribution(other, action_masks=masks).distribution.probs
        v1, v2 = pol.predict_values(obs), pol.predict_values(other)
    torch.testing.assert_close(p1, p2)
    assert not torch.allclose(v1, v2)


def test_actor_only_acts_exactly_like_the_privileged_actor():
    vec = _vec(True)
    obs = torch.as_tensor(vec.reset())
    pol = _policy(vec)
    masks = vec.action_masks()
    plain = actor_only(pol, [32, 32], torch.nn.ReLU)
    assert plain.observation_space.shape == (vec.actor_dim,)
    with torch.no_grad():
        p1 = pol.get_distribution(obs, action_masks=masks).distribution.probs
        p2 = plain.get_distribution(obs[:, : vec.actor_dim], action_masks=masks).distribution.probs
    torch.testing.assert_close(p1, p2)
    with pytest.raises(ValueError, match="units|shape|place"):
        load_actor_into(plain, actor_only(_policy(vec), [32, 32], torch.nn.ReLU).state_dict() | {
            "mlp_extractor.policy_net.0.weight": torch.zeros(8, vec.actor_dim)}, vec.actor_dim)


def test_training_with_a_privileged_critic_saves_a_plain_agent(tmp_path):
    cfg = TrainConfig(
        total_steps=2 * 32 * 32, n_envs=32, n_steps=32, batch_size=512, net_arch=[32], seed=2,
        bc_samples=2048, bc_epochs=1, eval_deals=0, out=str(tmp_path / "run"), torch_threads=1,
        privileged_critic=True, critic_warmup_steps=1024, opponents={"random": 0.5, "snapshot": 0.5}, snapshot_every=1,
        expert_rounds=0,
    )
    train(cfg)
    agent = load_policy_agent(tmp_path / "run" / "agent")
    assert agent.policy.observation_space.shape == (402,)
    via_registry = agents.load(str(tmp_path / "run" / "agent"))
    obs = np.zeros((3, 402), dtype=np.uint8)
    mask = np.zeros((3, 56), dtype=bool)
    mask[:, [52, 53]] = True
    assert set(via_registry.act(obs, mask).tolist()) <= {52, 53}


def test_init_from_copies_the_actor_and_bad_paths_fail(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        TrainConfig(init_from=str(tmp_path / "nowhere")).validate()
    with pytest.raises(ValueError, match="critic_warmup_steps"):
        TrainConfig(critic_warmup_steps=-1).validate()
    shipped = load_policy_agent("agents/shipped/all_fours_ppo")
    vec = _vec(True)
    pol = PrivilegedCriticPolicy(
        vec.observation_space, vec.action_space, lambda _: 1e-3, net_arch=shipped.meta["net_arch"],
        activation_fn=torch.nn.ReLU, actor_dim=vec.actor_dim,
    )
    load_actor_into(pol, shipped.policy.state_dict(), vec.actor_dim)
    obs = torch.as_tensor(vec.reset())
    masks = vec.action_masks()
    with torch.no_grad():
        p1 = pol.get_distribution(obs, action_masks=masks).distribution.probs
        p2 = shipped.policy.get_distribution(obs[:, : vec.actor_dim], action_masks=masks).distribution.probs
    torch.testing.assert_close(p1, p2)
