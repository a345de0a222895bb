"""Behaviour-cloning warm start: fit the PPO policy to a teacher agent before self-play.

``collect(game, teacher, n_samples)`` plays teacher-vs-teacher games through the batched
kernel and records, for every decision, the acting seat's observation, the action mask,
the teacher's action and the return the acting team got for that episode.
``pretrain(policy, data)`` then fits the MaskablePPO policy's action head by cross-entropy
on the teacher's actions (masked logits) and its value head by regression on the returns.
Self-play then starts from a policy that already plays like the teacher (``cardzoo train
--bc-samples N``), so PPO spends its steps improving on the teacher instead of rediscovering
the basics of the game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardzoo import envs


@dataclass
class Demonstrations:
    """Teacher decisions: ``obs uint8[N, D]``, ``mask bool[N, A]``, ``action int64[N]``, ``ret float32[N]``."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    ret: np.ndarray


def collect(game: str, teacher, n_samples: int, seed: int = 0, batch: int = 1024, env_options: dict | None = None) -> Demonstrations:
    """Play teacher self-play games until ``n_samples`` decisions of finished games are recorded;
    returns them as :class:`Demonstrations` (``obs uint8[N, D]``, ``mask bool[N, A]``, ``action
    int64[N]``, ``ret float32[N]``: the return of the acting seat's side, ``N >= n_samples``).

    Decisions of games still running at the end are dropped (their return is unknown); every finished
    game is kept whole, so there are somewhat more than ``n_samples``. ``batch`` games play at once, at
    most one per 48 decisions asked: 2,000 asked gave 13,050 All Fours decisions when 1,024 games
    finished together (now about 2,500); from 49,152 decisions up, ``batch`` as given.
    Raises ``ValueError`` if ``n_samples < 1``.
    """
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    batch = min(batch, -(-n_samples // 48))
    from tqdm import tqdm

    k = envs.kernel(game, **(env_options or {}))
    rng = np.random.default_rng(seed)
    st = k.init(rng, batch)
    sides = k.sides()  # teams, or every seat alone (P'yanitsa, whose kernel has no teams)
    team_of_seat = np.zeros(k.num_players, dtype=np.int64)
    for t, seats in enumerate(sides):
        team_of_seat[list(seats)] = t
    rep = np.array([seats[0] for seats in sides])
    obs_l, mask_l, act_l, game_l, team_l = [], [], [], [], []
    game_id = np.arange(batch)
    next_id = batch
    returns: dict[int, np.ndarray] = {}
    ep_ret = np.zeros((batch, len(sides)))
    kept = 0  # decisions of finished games
    started = np.zeros(batch, dtype=np.int64)  # decisions so far in each running game
    with tqdm(total=n_samples, desc="teacher games", unit="decision", unit_scale=True) as bar:
        while kept < n_samples:
            obs = k.observe(st, st.current_player)
            mask = k.legal_actions(st)
            a = teacher.act(obs, mask)
            obs_l.append(obs.copy())
            mask_l.append(mask.copy())
            act_l.append(a)
            game_l.append(game_id.copy())
            team_l.append(team_of_seat[st.current_player.astype(np.int64)])
            k.step(st, a, rng)
            ep_ret += st.rewards[:, rep]
            started += 1
            done = np.flatnonzero(st.done)
            for i in done:
                returns[int(game_id[i])] = ep_ret[i].copy()
            finished_now = int(started[done].sum())
            kept += finished_now
            started[done] = 0
            ep_ret[done] = 0
            game_id[done] = np.arange(next_id, next_id + done.size)
            next_id += done.size
            k.reset_done(st, rng)
            bar.update(finished_now)
    gid = np.concatenate(game_l)
    team = np.concatenate(team_l)
    finished = np.array([g in returns for g in gid])
    ret = np.array([returns[g][t] if f else 0.0 for g, t, f in zip(gid.tolist(), team.tolist(), finished)], dtype=np.float32)
    keep = finished
    return Demonstrations(
        np.concatenate(obs_l)[keep], np.concatenate(mask_l)[keep], np.concatenate(act_l)[keep].astype(np.int64), ret[keep]
    )


def pretrain(policy, data: Demonstrations, obs_high: np.ndarray, epochs: int = 4, batch_size: int = 4096, lr: float = 1e-3, seed: int = 0,
             until_converged: bool = False, patience: int = 2, min_gain: float = 0.002) -> dict:
    """Fit ``policy`` (a MaskableActorCriticPolicy) to the demonstrations; returns accuracy and losses.

    ``until_converged``: ``epochs`` is then a maximum: training stops once the held-out agreement
    has not risen by ``min_gain`` for ``patience`` epochs, and the best epoch's weights are kept.
    The result holds ``epochs`` (run), ``steps`` (gradient steps) and ``converged`` too: whether the
    agreement stopped rising before the cap of ``epochs`` (``False`` when training ran all ``epochs``,
    or was not ``until_converged``).

    ``obs_high``: the layout's per-feature bounds (``[D]``); the observation is scaled by ``1 / obs_high``
    (floored at 1) as in :class:`~cardzoo.training.vec_env.KernelVecEnv`.
    A policy with a perfect-information critic (:mod:`cardzoo.training.privileged`, wider input) gets the
    observation zero-padded; only its actor is fitted then (the demonstrations hold no hidden state).
    ``ValueError`` with fewer than 20 demonstrations.
    """
    import torch
    from tqdm import tqdm

    torch.manual_seed(seed)
    scale = torch.as_tensor(1.0 / np.maximum(obs_high, 1.0), dtype=torch.float32)
    n = len(data.action)
    if n < 20:
        raise ValueError(f"behaviour cloning needs at least 20 demonstrations, got {n}")
    idx = np.random.default_rng(seed).permutation(n)
    n_val = min(20_000, n // 10)
    batch_size = min(batch_size, n - n_val)
    val, tr = idx[:n_val], idx[n_val:]
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    policy.set_training_mode(True)

    width = int(policy.observation_space.shape[0])
    pad = width - data.obs.shape[1]
    value_weight = 0.1 if pad == 0 else 0.0

    def forward(rows):
        x = torch.as_tensor(data.obs[rows], dtype=torch.float32) * scale
        if pad:
            x = torch.nn.functional.pad(x, (0, pad))
        m = torch.as_tensor(data.mask[rows])
        features = policy.extract_features(x)
        if isinstance(features, tuple):  # separate actor / critic feature extractors
            pi, vf = policy.mlp_extractor.forward_actor(features[0]), policy.mlp_extractor.forward_critic(features[1])
        else:
            pi, vf = policy.mlp_extractor(features)
        logits = policy.action_net(pi).masked_fill(~m, -1e8)
        value = policy.value_net(vf).squeeze(-1)
        return logits, value

    steps = epochs * max(1, len(tr) // batch_size)
    rng = np.random.default_rng(seed + 1)

    def val_accuracy() -> float:
        policy.set_training_mode(False)
        with torch.no_grad():
            logits, _ = forward(val)
        policy.set_training_mode(True)
        return float((logits.argmax(-1).numpy() == data.action[val]).mean())

    import copy

    best, best_state, stale, done_epochs, done_steps = -1.0, None, 0, 0, 0
    # with until_converged, epochs is a cap: the bar (and its ETA) counts to it, and ends at 100% where it stops sooner
    desc = f"behaviour cloning (at most {epochs} epochs)" if until_converged else "behaviour cloning"
    try:
        with tqdm(total=steps, desc=desc, unit="batch") as bar:
            for _ in range(epochs):
                if until_converged and stale >= patience:
                    break
                done_epochs += 1
                perm = rng.permutation(tr)
                for b in range(0, len(perm) - batch_size + 1, batch_size):
                    rows = perm[b : b + batch_size]
                    logits, value = forward(rows)
                    ce = torch.nn.functional.cross_entropy(logits, torch.as_tensor(data.action[rows]))
                    vl = torch.nn.functional.mse_loss(value, torch.as_tensor(data.ret[rows]))
                    loss = ce + value_weight * vl
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    bar.set_postfix(ce=f"{ce.item():.3f}", value_mse=f"{vl.item():.2f}", refresh=False)
                    bar.update(1)
                    done_steps += 1
                if until_converged:
                    acc_now = val_accuracy()
                    bar.set_postfix(val_agreement=f"{acc_now:.3f}", refresh=True)
                    if acc_now >= best + min_gain:
                        best, best_state, stale = acc_now, copy.deepcopy(policy.state_dict()), 0
                    else:
                        stale += 1
                        if acc_now > best:
                            best, best_state = acc_now, copy.deepcopy(policy.state_dict())
            if bar.n < bar.total:  # stopped before the cap: done all the same
                bar.total = bar.n
                bar.refresh()
    except KeyboardInterrupt:  # Ctrl-C: leave the best epoch so far in the policy (what the run saves), not a half-done one
        if until_converged and best_state is not None:
            policy.load_state_dict(best_state)
        policy.set_training_mode(False)
        raise
    converged = until_converged and stale >= patience  # the agreement stopped rising before the cap
    if until_converged and best_state is not None:
        policy.load_state_dict(best_state)
    policy.set_training_mode(False)
    with torch.no_grad():
        logits, value = forward(val)
        acc = (logits.argmax(-1).numpy() == data.action[val]).mean()
        vmse = torch.nn.functional.mse_loss(value, torch.as_tensor(data.ret[val])).item()
    return {"samples": int(n), "val_accuracy": float(acc), "val_value_mse": float(vmse), "epochs": done_epochs, "steps": done_steps,
            "converged": converged}
