"""Self-play training with sb3-contrib's MaskablePPO (``cardzoo train GAME``).

The learner's team plays in a :class:`~cardzoo.training.vec_env.KernelVecEnv` against an opponent
pool holding the random agent, the game's rule bot and snapshots of the learner taken every
``snapshot_every`` rollouts. At the end the policy is saved as a cardzoo agent
(``OUT/agent``: weights + JSON), evaluated with duplicate deals against random and the rule
bot, and a learning curve (``OUT/learning_curve.png``) and an evaluation table
(``OUT/evaluation.md`` / ``.json``) are written. TensorBoard logs go to ``OUT/tb``;
checkpoints (agent + resumable SB3 model) to ``OUT/checkpoints``.
"""

from __future__ import annotations

import copy
import json
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from cardzoo import agents
from cardzoo import envs
from cardzoo.agents.policy import PolicyAgent, save_policy_agent

from .common import resolve_agent
from .vec_env import KernelVecEnv, OpponentPool


@dataclass
class TrainConfig:
    """Options of a training run; the defaults are ``cardzoo train``'s (about 12 minutes on 2 cores).

    ``bc_samples`` > 0 warm-starts the policy by behaviour cloning the rule bot (``bc_teacher``)
    before self-play; the PPO settings (learning rate 1e-4, clip 0.1, entropy 0.003) suit
    fine-tuning such a policy.
    """

    game: str = "all_fours"
    total_steps: int = 2_000_000
    n_envs: int = 256
    n_steps: int = 64
    batch_size: int = 4096
    n_epochs: int = 4
    learning_rate: float = 1e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    ent_coef: float = 0.003
    net_arch: list = field(default_factory=lambda: [256, 256])
    activation: str = "relu"
    seed: int = 0
    opponents: dict = field(default_factory=lambda: {"random": 0.2, "rule": 0.5, "snapshot": 0.3})
    snapshot_every: int = 10
    max_snapshots: int = 5
    checkpoint_every: int = 1_000_000
    eval_deals: int = 1000
    out: str = "runs/all_fours"
    resume: str | None = None
    env_options: dict = field(default_factory=dict)
    torch_threads: int = 2
    bc_samples: int = 500_000
    bc_epochs: int = 3
    bc_teacher: str | None = None
    clip_range: float = 0.1
    privileged_critic: bool = False
    init_from: str | None = None
    critic_warmup_steps: int = 0
    skip_forced: bool = False  # the env plays single-legal-action decisions itself (P'yanitsa's FLIP)

    def validate(self) -> None:
        """Raise ``ValueError`` naming any bad option."""
        if self.game not in envs.GAMES:
            raise ValueError(f"unknown game {self.game!r}; available: {sorted(envs.GAMES)}")
        for name in ("total_steps", "n_envs", "n_steps", "batch_size", "n_epochs", "snapshot_every", "checkpoint_every"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        for name, lo, hi in (("learning_rate", 0.0, None), ("clip_range", 0.0, 1.0)):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not (v > lo and (hi is None or v <= hi)):
                raise ValueError(f"{name} must be a number > {lo}{'' if hi is None else f' and <= {hi}'}, got {v!r}")
        if not isinstance(self.ent_coef, (int, float)) or self.ent_coef < 0:
            raise ValueError(f"ent_coef must be a number >= 0, got {self.ent_coef!r}")
        if not isinstance(self.torch_threads, int) or self.torch_threads < 1:
            raise ValueError(f"torch_threads must be a positive int, got {self.torch_threads!r}")
        if self.bc_samples < 0 or self.bc_epochs < 1:
            raise ValueError(f"bc_samples must be >= 0 and bc_epochs >= 1, got {self.bc_samples}, {self.bc_epochs}")
        if self.eval_deals < 0:
            raise ValueError(f"eval_deals must be >= 0, got {self.eval_deals}")
        unknown = set(self.opponents) - {"random", "rule", "snapshot"}
        if unknown:
            raise ValueError(f"unknown opponent families {sorted(unknown)}; valid: random, rule, snapshot")
        if self.resume is not None and not Path(self.resume).is_file():
            raise FileNotFoundError(
                f"cannot resume: no checkpoint file at {self.resume} (expected a model .zip such as OUT/checkpoints/model_1000000.zip or OUT/model.zip)"
            )
        if self.init_from is not None and not Path(self.init_from).exists():
            raise FileNotFoundError(f"cannot initialise from {self.init_from}: no saved agent there")
        if not isinstance(self.critic_warmup_steps, int) or self.critic_warmup_steps < 0:
            raise ValueError(f"critic_warmup_steps must be an int >= 0, got {self.critic_warmup_steps!r}")
        envs.kernel(self.game, **self.env_options)  # validates the env options


def _rule_name(game: str) -> str:
    return f"{game}/rule"


def make_pool(cfg: TrainConfig) -> OpponentPool:
    """The initial opponent pool: random and the rule bot (snapshots are added while training)."""
    pool = OpponentPool(cfg.opponents)
    pool.add("random", resolve_agent("random", seed=cfg.seed + 1))
    if cfg.opponents.get("rule", 0) > 0 and _rule_name(cfg.game) in agents.available():
        pool.add("rule", resolve_agent(_rule_name(cfg.game), cfg.env_options))
    return pool


class _Progress:
    """tqdm progress bar with rate, ETA, recent mean return and win rate per opponent family."""

    def __init__(self, total: int, start: int = 0) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=start, unit="step", unit_scale=True, desc="train", smoothing=0.05)
        self.recent: dict[str, deque] = {}

    def update(self, n: int, results: list[dict]) -> None:
        for r in results:
            fam = r["opponent"].split("@")[0]
            self.recent.setdefault(fam, deque(maxlen=2000)).append(r["return"])
        post = {}
        for fam, q in sorted(self.recent.items()):
            a = np.asarray(q)
            post[fam] = f"win {np.mean(a > 0) + 0.5 * np.mean(a == 0):.2f} ret {a.mean():+.2f}"
        self.bar.set_postfix(post, refresh=False)
        self.bar.update(n)

    def close(self) -> None:
        self.bar.close()


def _callback(cfg: TrainConfig, vec: KernelVecEnv, out: Path, history: list, start_steps: int):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Progress bar, learning-curve history, snapshots into the pool, checkpoints."""

        def _on_training_start(self) -> None:
            per_rollout = cfg.n_envs * cfg.n_steps  # SB3 always finishes the last rollout
            total = -(-cfg.total_steps // per_rollout) * per_rollout
            self.progress = _Progress(total + start_steps, start_steps)
            self.rollouts = 0
            self.window: list[dict] = []
            self.last_ckpt = self.num_timesteps
            self.t0 = time.perf_counter()
            self.frozen = cfg.critic_warmup_steps > 0
            if self.frozen:  # let a fresh critic learn before the actor moves
                _set_actor_trainable(self.model.policy, False)

        def _on_step(self) -> bool:
            results = [i["episode_result"] for i in self.locals["infos"] if "episode_result" in i]
            self.window.extend(results)
            self.progress.update(vec.num_envs, results)
            return True

        def _on_rollout_end(self) -> None:
            self.rollouts += 1
            if self.window:
                by = {}
                for r in self.window:
                    by.setdefault(r["opponent"].split("@")[0], []).append(r["return"])
                row = {"steps": int(self.num_timesteps), "seconds": time.perf_counter() - self.t0}
                for fam, rets in by.items():
                    a = np.asarray(rets)
                    row[f"return/{fam}"] = float(a.mean())
                    row[f"win/{fam}"] = float(np.mean(a > 0) + 0.5 * np.mean(a == 0))
                    self.logger.record(f"selfplay/return_vs_{fam}", row[f"return/{fam}"])
                    self.logger.record(f"selfplay/win_vs_{fam}", row[f"win/{fam}"])
                history.append(row)
                self.window = []
            if self.frozen and self.num_timesteps >= cfg.critic_warmup_steps:
                _set_actor_trainable(self.model.policy, True)
                self.frozen = False
            if cfg.opponents.get("snapshot", 0) > 0 and self.rollouts % cfg.snapshot_every == 0:
                snap = PolicyAgent(
                    _acting_policy(cfg, self.model.policy),
                    vec.kernel.obs_layout.high(),
                    deterministic=False,
                    name=f"snapshot@{self.num_timesteps}",
                    seed=cfg.seed + self.rollouts,
                )
                vec.pool.add(snap.name, snap, max_per_group=cfg.max_snapshots)
            if self.num_timesteps - self.last_ckpt >= cfg.checkpoint_every:
                self.last_ckpt = self.num_timesteps
                ck = out / "checkpoints"
                ck.mkdir(parents=True, exist_ok=True)
                self.model.save(ck / f"model_{self.num_timesteps}.zip")
                _save_agent(cfg, self.model.policy, vec, ck / f"agent_{self.num_timesteps}", {"steps": int(self.num_timesteps)})
                (out / "history.json").write_text(json.dumps(history, indent=1))  # the curve so far
                if history:
                    plot_curve(history, out / "learning_curve.png", f"{cfg.game} self-play")

        def _on_training_end(self) -> None:
            self.progress.close()

    return SelfPlayCallback()


def _activation(cfg: TrainConfig):
    import torch

    return {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[cfg.activation]


def _acting_policy(cfg: TrainConfig, policy, copy_plain: bool = True):
    """``policy`` as a CPU policy that acts from the observation alone: the actor of a
    perfect-information-critic policy (:func:`cardzoo.training.privileged.actor_only`, always a new
    object), else ``policy`` itself or (``copy_plain``) a deep copy of it."""
    if cfg.privileged_critic:
        from .privileged import actor_only

        return actor_only(policy, cfg.net_arch, _activation(cfg)).cpu()
    return copy.deepcopy(policy).cpu() if copy_plain else policy


def _set_actor_trainable(policy, flag: bool) -> None:
    for name, p in policy.named_parameters():
        if name.startswith(("mlp_extractor.policy_net.", "action_net.")):
            p.requires_grad_(flag)


def _save_agent(cfg: TrainConfig, policy, vec: KernelVecEnv, path: Path, extra: dict) -> Path:
    return save_policy_agent(
        path,
        _acting_policy(cfg, policy, copy_plain=False),
        game=cfg.game,
        env_options=cfg.env_options,
        kernel=vec.kernel,
        net_arch=cfg.net_arch,
        activation=cfg.activation,
        extra={"name": path.name, "training": {**asdict(cfg), **extra}},
    )


def warm_start(cfg: TrainConfig, policy, kernel) -> dict:
    """Behaviour-clone the teacher (default: the game's rule bot) into ``policy`` (see :mod:`cardzoo.training.imitation`)."""
    from . import imitation

    teacher_name = cfg.bc_teacher or _rule_name(cfg.game)
    teacher = resolve_agent(teacher_name, cfg.env_options, seed=cfg.seed)
    data = imitation.collect(cfg.game, teacher, cfg.bc_samples, seed=cfg.seed + 99, env_options=cfg.env_options)
    info = imitation.pretrain(policy, data, kernel.obs_layout.high(), epochs=cfg.bc_epochs, seed=cfg.seed)
    return {"teacher": teacher_name, **info}


def plot_curve(history: list[dict], path: Path, title: str) -> None:
    """Learning curve PNG: mean hand return and win rate against each opponent family vs steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    fams = sorted({k.split("/", 1)[1] for row in history for k in row if k.startswith("return/")})
    for fam in fams:
        pts = [(r["steps"], r[f"return/{fam}"], r[f"win/{fam}"]) for r in history if f"return/{fam}" in r]
        if not pts:
            continue
        s, ret, win = map(np.asarray, zip(*pts))
        k = max(1, len(s) // 30)
        smooth = lambda a: np.convolve(a, np.ones(k) / k, mode="valid")  # noqa: E731
        ax1.plot(s[k - 1 :], smooth(ret), label=f"vs {fam}")
        ax2.plot(s[k - 1 :], smooth(win), label=f"vs {fam}")
    ax1.axhline(0, color="grey", lw=0.5)
    ax2.axhline(0.5, color="grey", lw=0.5)
    ax1.set(xlabel="environment steps", ylabel="mean return per hand (points)", title=title)
    ax2.set(xlabel="environment steps", ylabel="win rate (ties count half)", title="win rate during training")
    ax1.legend()
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def train(cfg: TrainConfig, pool: OpponentPool | None = None, save_start: bool = False) -> dict:
    """Run self-play training; returns a summary dict (paths, steps, seconds, throughput, evaluation).

    ``pool``: the opponents instead of :func:`make_pool`'s (e.g. one frozen agent, for
    ``cardzoo exploit``); ``save_start``: also save the policy before PPO (after any behaviour
    cloning) as ``OUT/start_agent``."""
    import torch
    from sb3_contrib import MaskablePPO

    cfg.validate()
    torch.set_num_threads(cfg.torch_threads)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    pool = make_pool(cfg) if pool is None else pool
    vec = KernelVecEnv(cfg.game, cfg.n_envs, pool, seed=cfg.seed, env_options=cfg.env_options, privileged=cfg.privileged_critic,
                       skip_forced=cfg.skip_forced)
    act = _activation(cfg)
    policy_cls, policy_kwargs = "MlpPolicy", {"net_arch": cfg.net_arch, "activation_fn": act}
    if cfg.privileged_critic:
        from .privileged import PrivilegedCriticPolicy

        policy_cls = PrivilegedCriticPolicy
        policy_kwargs["actor_dim"] = vec.actor_dim
    if cfg.resume:
        # the run's own settings apply to the resumed model (e.g. a lower learning rate to fine-tune)
        custom = {
            "learning_rate": cfg.learning_rate,
            "clip_range": cfg.clip_range,
            "ent_coef": cfg.ent_coef,
            "n_steps": cfg.n_steps,
            "batch_size": cfg.batch_size,
            "n_epochs": cfg.n_epochs,
            "gamma": cfg.gamma,
            "gae_lambda": cfg.gae_lambda,
        }
        model = MaskablePPO.load(cfg.resume, env=vec, device="cpu", tensorboard_log=str(out / "tb"), custom_objects=custom)
        start = int(model.num_timesteps)
    else:
        model = MaskablePPO(
            policy_cls,
            vec,
            n_steps=cfg.n_steps,
            batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs,
            learning_rate=cfg.learning_rate,
            gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda,
            ent_coef=cfg.ent_coef,
            clip_range=cfg.clip_range,
            policy_kwargs=policy_kwargs,
            tensorboard_log=str(out / "tb"),
            seed=cfg.seed,
            device="cpu",
            verbose=0,
        )
        start = 0
    bc_info = None
    if cfg.init_from and not cfg.resume:
        from cardzoo.agents.policy import load_policy_agent

        from .privileged import load_actor_into

        load_actor_into(model.policy, load_policy_agent(cfg.init_from).policy.state_dict(), vec.actor_dim)
    elif cfg.bc_samples and not cfg.resume:
        bc_info = warm_start(cfg, model.policy, vec.kernel)
    if save_start:
        _save_agent(cfg, model.policy, vec, out / "start_agent", {"steps": 0})
    history: list[dict] = []
    t0 = time.perf_counter()
    model.learn(
        total_timesteps=cfg.total_steps,
        callback=_callback(cfg, vec, out, history, start),
        reset_num_timesteps=cfg.resume is None,
        tb_log_name="maskable_ppo",
    )
    seconds = time.perf_counter() - t0
    steps = int(model.num_timesteps) - start
    model.save(out / "model.zip")
    summary = {
        "game": cfg.game,
        "steps": steps,
        "seconds": round(seconds, 1),
        "steps_per_second": round(steps / seconds, 1),
        "out": str(out),
    }
    (out / "history.json").write_text(json.dumps(history, indent=1))
    if history:
        plot_curve(history, out / "learning_curve.png", f"{cfg.game} self-play")
    agent_dir = _save_agent(cfg, model.policy, vec, out / "agent", {"steps": steps, "seconds": round(seconds, 1)})
    if bc_info is not None:
        summary["behaviour_cloning"] = bc_info
    summary["agent"] = str(agent_dir)
    summary["curve"] = str(out / "learning_curve.png")
    if cfg.eval_deals > 0:
        summary["evaluation"] = evaluate(cfg, agent_dir, out)
        meta_file = agent_dir / "agent.json"
        meta = json.loads(meta_file.read_text())
        meta["evaluation"] = summary["evaluation"]
        meta_file.write_text(json.dumps(meta, indent=2, sort_keys=True))
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def evaluate(cfg: TrainConfig, agent_dir: Path, out: Path) -> list[dict]:
    """Duplicate-deal evaluation of the saved agent against random and the rule bot.

    Writes ``evaluation.md`` / ``evaluation.json`` in ``out`` and returns the rows
    (:meth:`cardzoo.training.arena.DuplicateResult.to_dict` plus ``opponent``).
    """
    from . import arena

    trained = resolve_agent(str(agent_dir))
    rows = []
    for opp_name in ["random", _rule_name(cfg.game)]:
        if opp_name != "random" and opp_name not in agents.available():
            continue
        opp = resolve_agent(opp_name, cfg.env_options, seed=cfg.seed + 7)
        res = arena.play_duplicate(
            cfg.game, trained, opp, n_deals=cfg.eval_deals, seed=cfg.seed + 12345,
            env_options=cfg.env_options, progress=True, name_a="trained", name_b=opp_name,
        )
        rows.append(res.to_dict() | {"opponent": opp_name})
    (out / "evaluation.json").write_text(json.dumps(rows, indent=2))
    (out / "evaluation.md").write_text(evaluation_markdown(rows))
    return rows


def evaluation_markdown(rows: list[dict]) -> str:
    """Markdown table of evaluation rows (mean score difference per hand and win rate, 95% CIs)."""
    lines = [
        "| agent | opponent | hands | mean diff / hand [95% CI] | win rate [95% CI] |",
        "|---|---|---:|---:|---:|",
    ]
    for r in rows:
        lo, hi = r["diff_ci"]
        wl, wh = r["win_ci"]
        lines.append(
            f"| {r['agent_a']} | {r['agent_b']} | {r['n_hands']} | {r['mean_diff']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
            f"| {r['win_rate']:.3f} [{wl:.3f}, {wh:.3f}] |"
        )
    return "\n".join(lines) + "\n"


def evaluation_table(rows: list[dict], title: str):
    """The evaluation rows as a rich Table (fits an 80-column terminal)."""
    from rich.table import Table

    t = Table(title=title)
    for col in ("agent", "opponent", "hands", "mean diff/hand [95% CI]", "win rate [95% CI]"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(
            r["agent_a"],
            r["agent_b"],
            str(r["n_hands"]),
            f"{r['mean_diff']:+.3f} [{r['diff_ci'][0]:+.3f}, {r['diff_ci'][1]:+.3f}]",
            f"{r['win_rate']:.3f} [{r['win_ci'][0]:.3f}, {r['win_ci'][1]:.3f}]",
        )
    return t
