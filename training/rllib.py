"""RLlib training over cardzoo's batched kernel (``cardzoo train-rllib GAME``; needs the ``[rllib]`` extra).

What it runs (see ``training/RLLIB.md``):

* RLlib's PPO (new API stack) with action masking: RLlib's ``ActionMaskingTorchRLModule``
  over the observation ``{"observations": float32[D], "action_mask": float32[A]}``.
* Each env runner steps **one** :class:`cardzoo.envs.core.vector.KernelVectorEnv` of
  ``num_envs_per_runner`` games (``gym_env_vectorize_mode=VECTOR_ENTRY_POINT``): the batched
  kernel, not one Python env per game. The learner's policy plays one side of every game (both
  partners share it; the side is drawn at every deal); the opponents are agents from the agents
  API (``--opponents``, default ``GAME/rule``) acting in batch inside the env. Autoreset is
  Gymnasium's next-step mode, which RLlib's ``SingleAgentEnvRunner`` expects.
* ``--num-env-runners`` scales over env runners on a local ray cluster (0: sample in the driver).
* Logs go where ``cardzoo train`` puts them: ``OUT/tb`` (TensorBoard), ``OUT/progress.csv`` (one
  row per iteration), and the trained policy is exported to ``OUT/agent`` as a cardzoo saved
  agent (``agent.json`` + ``weights.safetensors``, the same format as ``cardzoo train``'s), so that
  ``cardzoo arena`` and every other command load it without ray. ``OUT/rllib_checkpoint`` holds
  RLlib's own checkpoint.
"""

from __future__ import annotations

import csv
import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorWrapper

from .config import TrainConfig

ENV_NAME = "cardzoo_vector"


class MaskedDictObs(VectorWrapper):
    """Vector wrapper giving RLlib's action-masking module its observation: a ``Dict`` with
    ``observations`` (``float32[N, D]``) and ``action_mask`` (``float32[N, A]``, from
    ``infos["action_mask"]``)."""

    def __init__(self, env: gymnasium.vector.VectorEnv) -> None:
        super().__init__(env)
        n = env.single_action_space.n
        self.single_observation_space = spaces.Dict(
            {"observations": env.single_observation_space, "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)}
        )
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, env.num_envs)

    def _wrap(self, obs, infos):
        return {"observations": obs, "action_mask": infos["action_mask"].astype(np.float32)}

    def reset(self, *, seed=None, options=None):
        """The wrapped vector env's ``reset``; the observation is the ``Dict`` of the class docstring."""
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._wrap(obs, infos), infos

    def step(self, actions):
        """The wrapped vector env's ``step`` with ``actions``, an int array ``[N]`` (passed as given:
        the vector env refuses floats, which a cast to int would truncate); the observation is the
        ``Dict`` of the class docstring, the rest as the vector env returns it (rewards ``float64[N]``,
        terminations and truncations ``bool[N]``, infos)."""
        obs, rew, term, trunc, infos = self.env.step(np.asarray(actions))
        return self._wrap(obs, infos), rew, term, trunc, infos


def env_creator(config) -> gymnasium.vector.VectorEnv:
    """RLlib env creator: ``config`` (RLlib's ``EnvContext``, or the plain dict ``env_config | {"num_envs": n}``
    that ray 2.x's env runners pass) holds ``game``, ``options``, ``opponents``, ``seed`` and, from the
    runner, ``num_envs``. The env is made with ``seed`` (plus the ``worker_index`` of an ``EnvContext``;
    a plain dict has none); each runner then re-seeds it at its first reset with ``seed + worker_index``
    (RLlib's own per-runner seed, from ``AlgorithmConfig.debugging(seed=...)``, which :func:`train` sets),
    so runners play different games and a run replays from its seed."""
    import cardzoo

    seed = config.get("seed")
    worker = int(getattr(config, "worker_index", 0))
    venv = cardzoo.make_vec(
        config["game"],
        int(config.get("num_envs", 1)),
        opponents=list(config["opponents"]),
        seed=None if seed is None else int(seed) + worker,
        **dict(config.get("options", {})),
    )
    return MaskedDictObs(venv)


@dataclass
class RLlibConfig:
    """Settings of :func:`train` (defaults are those of ``cardzoo train-rllib``)."""

    game: str = "all_fours"
    iterations: int = 10
    num_env_runners: int = 0
    num_envs_per_runner: int = 256
    # the PPO settings default to cardzoo train's (TrainConfig), so both paths train the same way
    rollout_fragment_length: int = TrainConfig.n_steps
    minibatch_size: int = TrainConfig.batch_size
    num_epochs: int = TrainConfig.n_epochs
    lr: float = TrainConfig.learning_rate
    gamma: float = TrainConfig.gamma
    lambda_: float = TrainConfig.gae_lambda
    entropy_coeff: float = TrainConfig.ent_coef
    net_arch: list = field(default_factory=lambda: list(TrainConfig().net_arch))
    activation: str = TrainConfig.activation
    opponents: list = field(default_factory=list)  # agent names; default GAME/rule
    env_options: dict = field(default_factory=dict)
    seed: int = 0
    out: str | None = None  # None: runs/GAME-rllib, as cardzoo train-rllib


def build_algo_config(cfg: RLlibConfig):
    """The ``PPOConfig`` of ``cfg`` (``ray[rllib]`` imported here). ``cfg`` is checked first
    (:func:`check_config`: ``ValueError`` naming what is wrong), so a bad setting is refused here,
    not later inside an env runner or, for the network, at export after training."""
    check_config(cfg)
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env(ENV_NAME, env_creator)
    runners = max(cfg.num_env_runners, 1)
    batch = cfg.num_envs_per_runner * cfg.rollout_fragment_length * runners
    return (
        PPOConfig()
        .environment(
            ENV_NAME,
            env_config={
                "game": cfg.game,
                "options": cfg.env_options,
                "opponents": cfg.opponents or [f"{cfg.game}/rule"],
                "seed": cfg.seed,
            },
        )
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_runner,
            gym_env_vectorize_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
            rollout_fragment_length=cfg.rollout_fragment_length,
            num_cpus_per_env_runner=1,
        )
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=min(cfg.minibatch_size, batch),
            num_epochs=cfg.num_epochs,
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.lambda_,
            entropy_coeff=cfg.entropy_coeff,
        )
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=ActionMaskingTorchRLModule,
                model_config={
                    "fcnet_hiddens": list(cfg.net_arch),
                    "fcnet_activation": cfg.activation,
                    "head_fcnet_hiddens": [],
                    "vf_share_layers": False,
                },
            )
        )
        .debugging(seed=cfg.seed)
    )


def _rllib_to_sb3(state: dict) -> dict:
    """RLlib PPO module weights -> the ``MaskableActorCriticPolicy`` names of a cardzoo saved agent."""
    out = {}
    for k, v in state.items():
        if k.endswith("log_std_clip_param_const"):  # a constant of continuous actions, unused here
            continue
        for a, b in (
            ("encoder.actor_encoder.net.mlp.", "mlp_extractor.policy_net."),
            ("encoder.critic_encoder.net.mlp.", "mlp_extractor.value_net."),
            ("pi.net.mlp.0.", "action_net."),
            ("vf.net.mlp.0.", "value_net."),
        ):
            if k.startswith(a):
                out[b + k[len(a) :]] = v
                break
        else:
            raise ValueError(f"unexpected RLlib weight {k!r}: this exporter knows the PPO module of ray 2.60")
    return out


def export_agent(module, cfg: RLlibConfig, path, extra: dict | None = None) -> Path:
    """Write the RLlib ``module`` (PPO, action masking) as a cardzoo saved agent at ``path`` (weights +
    ``agent.json``, :func:`cardzoo.agents.policy.save_policy_agent`); returns the path. ``ValueError``
    if the module's actor weights do not fit the agent network of ``cfg.net_arch``."""
    import torch

    from cardzoo import envs
    from cardzoo.agents.policy import _build_policy, save_policy_agent

    kernel = envs.kernel(cfg.game, **cfg.env_options)
    policy = _build_policy(kernel.obs_layout.size, kernel.num_actions, list(cfg.net_arch), cfg.activation)
    state = {k: torch.as_tensor(np.asarray(v)) for k, v in module.state_dict().items()}
    # the env runners' module is inference-only (the actor): a saved agent acts with the actor alone,
    # so the critic weights of the saved file are left as initialised
    res = policy.load_state_dict(_rllib_to_sb3(state), strict=False)
    actor_missing = [k for k in res.missing_keys if "value_net" not in k]
    if actor_missing or res.unexpected_keys:
        raise ValueError(f"RLlib module does not fit the agent network: missing {actor_missing}, unexpected {res.unexpected_keys}")
    return save_policy_agent(
        path, policy, game=cfg.game, env_options=cfg.env_options, kernel=kernel, net_arch=list(cfg.net_arch),
        activation=cfg.activation, extra={"training": {"rllib": asdict(cfg)}, **(extra or {})},
    )


def check_config(cfg: RLlibConfig) -> None:
    """The counts and rates of ``cfg`` (named with their ``cardzoo train-rllib`` flags), then the game, its
    options (the game's own: not ``cardzoo.make_vec``'s parameters such as ``privileged`` or ``seed``)
    and the opponents, checked by making one env of them (no ray):
    ``ValueError`` naming what is wrong (an unknown game, option or agent name, an agent of another
    game), or for ``opponents`` that are not a list of agent names (a lone name was read letter by
    letter)."""
    import math

    import cardzoo
    from cardzoo.agents.policy import _ACTIVATIONS
    from cardzoo.envs.core.kernel import check_seed, is_int

    def flag(name):  # the RLlibConfig field, and its cardzoo train-rllib flag where it has one
        cli = ("iterations", "num_env_runners", "num_envs_per_runner", "rollout_fragment_length", "lr")
        return f"{name} (--{name.replace('_', '-')})" if name in cli else name

    for name, low in (("iterations", 1), ("num_env_runners", 0), ("num_envs_per_runner", 1),
                      ("rollout_fragment_length", 1), ("minibatch_size", 1), ("num_epochs", 1)):
        v = getattr(cfg, name)
        if not (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= low):
            raise ValueError(f"{flag(name)} must be an int >= {low}, got {v!r}")
    for name, low, high in (("lr", 0.0, math.inf), ("gamma", 0.0, 1.0), ("lambda_", 0.0, 1.0), ("entropy_coeff", 0.0, math.inf)):
        v = getattr(cfg, name)
        ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and math.isfinite(v)
        if not (ok and low <= v <= high and (name != "lr" or v > 0)):
            what = "a finite number > 0" if name == "lr" else f"a number from {low:g} to {high:g}" if high < math.inf else f"a finite number >= {low:g}"
            raise ValueError(f"{flag(name)} must be {what}, got {v!r}")
    if not isinstance(cfg.opponents, (list, tuple)) or not all(isinstance(o, str) for o in cfg.opponents):
        raise ValueError(f"opponents must be a list of agent names, e.g. ['{cfg.game}/rule'], got {cfg.opponents!r}")
    check_seed(cfg.seed)
    # the exported agent's network (agents.policy): anything else trained, then failed at export
    arch = cfg.net_arch
    if not (isinstance(arch, (list, tuple)) and arch and all(is_int(w) and w >= 1 for w in arch)):
        raise ValueError(f"net_arch must be a non-empty list of layer widths (ints >= 1), e.g. [256, 256], got {arch!r}")
    if not (isinstance(cfg.activation, str) and cfg.activation in _ACTIVATIONS):
        raise ValueError(f"activation must be one of {list(_ACTIVATIONS)} (what a cardzoo saved agent runs), got {cfg.activation!r}")
    if cfg.out is not None and not isinstance(cfg.out, (str, os.PathLike)):
        raise ValueError(f"out must be a folder path (str) or None (runs/GAME-rllib), got {cfg.out!r}")
    if not isinstance(cfg.env_options, dict):
        raise ValueError(f"env_options must be a dict of option name -> value, got {cfg.env_options!r}")
    # the game's options only: make_vec's own parameters were taken here too, then privileged=True trained
    # and failed at export (kernel(**env_options)), and seed=3 or num_envs=4 raised TypeError in env_creator
    cardzoo.kernel(cfg.game, **cfg.env_options)
    cardzoo.make_vec(cfg.game, 1, opponents=list(cfg.opponents) or [f"{cfg.game}/rule"], **dict(cfg.env_options))


def _mean_return(runners: dict) -> float | None:
    """The iteration's ``episode_return_mean`` from RLlib's ``env_runners`` results, or ``None`` when
    no episode ended during the iteration (RLlib then gives NaN or no entry): the log says "n/a",
    ``progress.csv`` leaves the cell empty and TensorBoard gets no point, instead of ``nan``."""
    ret = runners.get("episode_return_mean")
    if ret is None or not np.isfinite(ret):
        return None
    return float(ret)


def train(cfg: RLlibConfig, log=print) -> dict:
    """Train ``cfg.iterations`` PPO iterations on a local ray cluster; returns a summary (steps,
    seconds, env steps/s, agent path). ``FileExistsError`` if ``cfg.out`` already holds a run;
    ``ValueError`` for a bad game, option or opponent (:func:`check_config`), before anything is
    written or ray is started."""
    import ray
    from torch.utils.tensorboard import SummaryWriter

    check_config(cfg)  # a bad option was found inside ray's env runner, after OUT/config.json was written
    # the default folder is the game's (it was runs/all_fours-rllib for every game of the Python API)
    out = Path(cfg.out if cfg.out is not None else f"runs/{cfg.game}-rllib")
    cfg = replace(cfg, out=str(out))
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} is a file, not a folder; pass another --out")
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} already holds a run; pass another --out (runs never overwrite each other)")
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2))
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=max(cfg.num_env_runners, 1) + 1, include_dashboard=False, log_to_driver=False)
    try:
        algo = build_algo_config(cfg).build_algo()
    except BaseException:
        if started:  # the ray this call started does not outlive it
            ray.shutdown()
        raise
    writer = SummaryWriter(str(out / "tb"))
    rows = []
    t0 = time.perf_counter()
    steps = 0
    try:
        for it in range(1, cfg.iterations + 1):
            res = algo.train()
            runners = res.get("env_runners", {})
            steps = int(res.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0)))
            secs = time.perf_counter() - t0
            ret = _mean_return(runners)
            row = {"iteration": it, "env_steps": steps, "seconds": round(secs, 2), "steps_per_second": round(steps / secs, 1),
                   "episode_return_mean": "" if ret is None else ret}
            rows.append(row)
            if ret is not None:
                writer.add_scalar("rollout/ep_rew_mean", ret, steps)
            writer.add_scalar("time/fps", steps / secs, steps)
            eta = (cfg.iterations - it) * secs / it
            log(f"iteration {it}/{cfg.iterations}: {steps:,} env steps, {steps / secs:,.0f} steps/s, "
                f"return {'n/a (no episode ended yet)' if ret is None else f'{ret:+.3f}'}, ETA {eta:.0f} s")
        with open(out / "progress.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        algo.save_to_path(str((out / "rllib_checkpoint").resolve()))
        seconds = time.perf_counter() - t0
        agent = export_agent(algo.get_module(), cfg, out / "agent", {"steps": steps, "seconds": round(seconds, 1)})
    finally:
        writer.close()
        algo.stop()
        if started:
            ray.shutdown()
    return {"steps": steps, "seconds": seconds, "steps_per_second": steps / seconds, "agent": str(agent),
            "curve": str(out / "progress.csv")}


def bench_sampling(cfg: RLlibConfig, rounds: int = 5, log=print) -> dict:
    """Env steps/s of the env runners alone (no learning): each round every runner samples one
    rollout (``num_envs_per_runner x rollout_fragment_length`` steps) in parallel; the first round
    (warm-up) is not timed. Returns ``{"runners", "steps", "seconds", "steps_per_second"}``.
    ``ValueError`` for ``rounds`` that is not an int >= 1, or a bad ``cfg`` (:func:`check_config`)."""
    import ray

    if not (isinstance(rounds, (int, np.integer)) and not isinstance(rounds, bool) and rounds >= 1):
        raise ValueError(f"rounds (--bench-sampling) must be an int >= 1, got {rounds!r}")
    check_config(cfg)
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=max(cfg.num_env_runners, 1) + 1, include_dashboard=False, log_to_driver=False)
    try:
        algo = build_algo_config(cfg).build_algo()
    except BaseException:
        if started:
            ray.shutdown()
        raise
    remote = cfg.num_env_runners > 0

    def sample_round() -> int:
        eps = algo.env_runner_group.foreach_env_runner(lambda r: r.sample(), local_env_runner=not remote)
        return sum(len(e) for batch in eps for e in batch)

    try:
        sample_round()
        steps, t0 = 0, time.perf_counter()
        for i in range(rounds):
            steps += sample_round()
            secs = time.perf_counter() - t0
            log(f"sampling round {i + 1}/{rounds}: {steps:,} env steps, {steps / secs:,.0f} steps/s")
        secs = time.perf_counter() - t0
    finally:
        algo.stop()
        if started:
            ray.shutdown()
    return {"runners": cfg.num_env_runners, "steps": steps, "seconds": secs, "steps_per_second": steps / secs}


def main(argv=None) -> int:
    """``cardzoo train-rllib`` (also ``python -m cardzoo.training.rllib``)."""
    import argparse

    from cardzoo import envs

    p = argparse.ArgumentParser(prog="cardzoo train-rllib", description="RLlib PPO with action masking over the batched kernel")
    add_arguments(p, sorted(envs.GAMES))
    return cmd_train_rllib(p.parse_args(argv))


def add_arguments(p, games) -> None:
    """The options of ``cardzoo train-rllib`` (shared by the CLI and ``main``)."""
    from .common import seed_arg

    d = RLlibConfig()
    p.add_argument("game", choices=games)
    p.add_argument("--iterations", type=int, default=d.iterations, help=f"PPO iterations (default {d.iterations})")
    p.add_argument("--num-env-runners", type=int, default=d.num_env_runners,
                   help="ray env runners (0: sample in the driver; default 0)")
    p.add_argument("--num-envs-per-runner", type=int, default=d.num_envs_per_runner,
                   help=f"games per runner, stepped as one batch (default {d.num_envs_per_runner})")
    p.add_argument("--rollout-fragment-length", type=int, default=d.rollout_fragment_length,
                   help=f"steps per game per iteration (default {d.rollout_fragment_length})")
    p.add_argument("--opponents", nargs="+", default=None, help="agent names or paths (default GAME/rule)")
    p.add_argument("--lr", type=float, default=d.lr, help=f"Adam learning rate (default {d.lr})")
    p.add_argument("--seed", type=seed_arg, default=d.seed,
                   help=f"seeds RLlib and the env runners (each runner: seed + its index; default {d.seed})")
    p.add_argument("--option", "-o", action="append", help="env option name=value (repeatable)")
    p.add_argument("--out", default=None, help="output directory (default runs/GAME-rllib)")
    p.add_argument("--bench-sampling", type=int, default=0, metavar="ROUNDS",
                   help="only measure the env runners' sampling speed over ROUNDS rollouts (no training, no output)")


def cmd_train_rllib(args) -> int:
    """``cardzoo train-rllib``: :class:`cardzoo.MissingExtraError` (exit 2) without the ``[rllib]`` extra."""
    from cardzoo import require_extra

    from .commands import check_run_out

    check_run_out(args.out, f"runs/{args.game}-rllib")  # before the extra (and ray) is looked for
    require_extra("rllib", "cardzoo train-rllib")
    return run_args(args)


def run_args(args) -> int:
    """Run ``cardzoo train-rllib`` from its parsed ``args``: :func:`bench_sampling` when
    ``--bench-sampling`` is not 0, else :func:`train`; prints the summary and returns the exit
    status 0 (errors are raised, as by those two)."""
    from .common import parse_options

    cfg = RLlibConfig(
        game=args.game, iterations=args.iterations, num_env_runners=args.num_env_runners,
        num_envs_per_runner=args.num_envs_per_runner, rollout_fragment_length=args.rollout_fragment_length,
        opponents=args.opponents or [], lr=args.lr, seed=args.seed, env_options=parse_options(args.option),
        out=args.out or None,
    )
    if args.bench_sampling != 0:  # a negative count is refused by bench_sampling, not taken for "train"
        r = bench_sampling(cfg, args.bench_sampling)
        print(f"{r['runners']} env runner(s): {r['steps']:,} env steps in {r['seconds']:.1f} s "
              f"({r['steps_per_second']:,.0f} env steps/s, sampling only)")
        return 0
    s = train(cfg)
    print(f"trained {s['steps']:,} env steps in {s['seconds']:.0f} s ({s['steps_per_second']:,.0f} env steps/s)")
    print(f"agent (weights + JSON):  {s['agent']}")
    print(f"learning curve:          {s['curve']}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
