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
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

import numpy as np

from cardzoo import agents
from cardzoo import envs
from cardzoo.agents.policy import PolicyAgent, save_policy_agent

from . import arena
from .common import resolve_agent, signal_handled
from .config import ACTIVATIONS, RUN_FILES, TrainConfig, _process_alive, check_out_folder, in_use_error, resumed_run  # noqa: F401  (TrainConfig is re-exported)
from .vec_env import KernelVecEnv, OpponentPool


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


def _callback(cfg: TrainConfig, vec: KernelVecEnv, out: Path, history: list, start_steps: int, cost=dict):
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
                _save_agent(cfg, self.model.policy, vec, ck / f"agent_{self.num_timesteps}",
                            {"steps": int(self.num_timesteps), **cost()})
                (out / "history.json").write_text(json.dumps(history, indent=1))  # the curve so far
                if history:
                    plot_curve(history, out / "learning_curve.png", f"{cfg.game} self-play",
                               envs.kernel(cfg.game, **cfg.env_options).episode_name)

        def _on_training_end(self) -> None:
            self.progress.close()

    return SelfPlayCallback()


def _activation(cfg: TrainConfig):
    import torch

    return getattr(torch.nn, ACTIVATIONS[cfg.activation])


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
        extra={"name": path.name, "training": {**asdict(cfg), **extra}},  # an undefined CI in it is written as null
    )


def warm_start(cfg: TrainConfig, policy, kernel) -> dict:
    """Behaviour-clone the teacher (default: the game's rule bot) into ``policy`` (see :mod:`cardzoo.training.imitation`)."""
    from . import imitation

    teacher_name, teacher = cfg.teacher()
    data = imitation.collect(cfg.game, teacher, cfg.bc_samples, seed=cfg.seed + 99, env_options=cfg.env_options)
    info = imitation.pretrain(policy, data, kernel.obs_layout.high(), epochs=cfg.bc_epochs, seed=cfg.seed,
                              until_converged=cfg.bc_until_converged)
    info = {"teacher": teacher_name, **info}
    more = f" ({cfg.bc_samples:,} asked, rounded up to whole games)" if info["samples"] != cfg.bc_samples else ""
    line = (f"behaviour cloning: {info['samples']:,} decisions of {teacher_name}{more}, "
            f"{info['steps']:,} gradient steps ({info['epochs']} epoch{'s' if info['epochs'] != 1 else ''}{_bc_stop(cfg, info)}), "
            f"agreement with {teacher_name} {info['val_accuracy']:.3f} on held-out decisions")
    deals = cfg.bc_check_deals()
    if deals > 0 and _rule_name(cfg.game) in agents.available():
        from . import arena

        cloned = PolicyAgent(_acting_policy(cfg, policy), kernel.obs_layout.high(), deterministic=True, name="cloned")
        rule = resolve_agent(_rule_name(cfg.game), cfg.env_options, seed=cfg.seed + 7)
        res = arena.play_duplicate(cfg.game, cloned, rule, n_deals=deals, seed=cfg.seed + 777,
                                   env_options=cfg.env_options, progress=False, name_a="cloned", name_b=_rule_name(cfg.game))
        info["arena_vs_rule"] = {k: res.to_dict()[k] for k in ("n_hands", "mean_diff", "diff_ci", "win_rate", "win_ci")}
        line += (f"; against {_rule_name(cfg.game)} over {arena.duplicate_deals(deals)}: "
                 f"{res.mean_diff:+.3f} per {kernel.episode_name} {arena.ci_text(*res.diff_ci, '+.3f', res.n_deals)}, "
                 f"win rate {res.win_rate:.3f}")
    print(line + "; PPO starts from it", flush=True)
    return info


def _bc_stop(cfg: TrainConfig, info: dict) -> str:
    """Why behaviour cloning stopped, for its line: the held-out agreement stopped rising, or it ran
    into the cap of ``bc_epochs`` epochs (``--bc-epochs``) while the agreement was still rising."""
    if not cfg.bc_until_converged:
        return ""
    if info.get("converged", True):
        return ", until the held-out agreement stopped rising"
    return (f", the cap (--bc-epochs {cfg.bc_epochs}), with the held-out agreement still rising: "
            f"more epochs may clone the teacher closer")


def plot_curve(history: list[dict], path: Path, title: str, episode: str = "episode") -> None:
    """Learning curve PNG: mean return per episode (``episode``: its name in the game's terms,
    ``Kernel.episode_name``) and win rate against each opponent family vs steps."""
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
    ax1.set(xlabel="environment steps", ylabel=f"mean return per {episode} (reward units)", title=title)
    ax2.set(xlabel="environment steps", ylabel="win rate (ties count half)", title="win rate during training")
    ax1.legend()
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`train`, after the run was saved: ``model`` is a resumable SB3 model zip
    (``--resume`` it), ``agent`` the agent so far (``None`` if interrupted before the model existed),
    ``steps`` the PPO steps done. ``evaluating``: the training was finished (``model`` is ``OUT/model.zip``,
    ``agent`` the run's final agent) and Ctrl-C came in the final evaluation: nothing is left to train."""

    def __init__(self, model: Path | None, agent: Path | None, steps: int) -> None:
        super().__init__(f"interrupted at {steps} steps")
        self.model, self.agent, self.steps = model, agent, steps
        self.remaining: int | None = None  # PPO steps of this run's budget not done yet (set by train)
        self.continue_command: str | None = None  # set when PPO is done and the expert stage was interrupted
        self.evaluating = False  # training was finished and saved (model, agent): the final evaluation was interrupted


def train(cfg: TrainConfig, callback=None, pool: OpponentPool | None = None, save_start: bool = False) -> dict:
    """Run self-play training; returns a summary dict (paths, steps, seconds, throughput, evaluation).

    ``pool``: the opponents instead of :func:`make_pool`'s (e.g. one frozen agent, for
    ``cardzoo exploit``); ``save_start``: also save the policy before PPO (after any behaviour
    cloning) as ``OUT/start_agent``.

    ``out`` must not hold an earlier run unless ``cfg.resume`` or ``cfg.overwrite`` is set
    (:func:`cardzoo.training.config.check_out_folder`). Ctrl-C saves a resumable model and the agent
    so far into ``out/checkpoints`` and raises :class:`TrainingInterrupted` naming them. A run that
    fails before writing anything leaves no (empty) ``out`` folder behind. ``callback``: an extra
    SB3 callback (tests use one to interrupt at a given step).
    """
    cfg.validate()
    out = Path(cfg.out)
    created = not out.exists()
    top = out  # the outermost folder this run creates (--out a/b/c with only a/ existing: a/b)
    while created and not top.parent.exists() and top.parent != top:
        top = top.parent
    lock = _lock_run(out)
    try:
        if cfg.overwrite:
            from .config import clear_run

            clear_run(out)
        with _sigterm_as_ctrl_c():
            return _train(cfg, out, callback, pool, save_start)
    except TrainingInterrupted:
        raise
    except BaseException:
        lock.unlink(missing_ok=True)
        if created and top.is_dir() and not any(p.is_file() for p in top.rglob("*")):
            import shutil

            shutil.rmtree(top)  # nothing of this run to keep, nor the parent folders it made
        raise
    finally:
        lock.unlink(missing_ok=True)


def _lock_run(out: Path) -> Path:
    """Claim ``out`` for this run: create ``out/.run.lock`` (holding this process id and host name) or
    raise ``FileExistsError`` naming the folder when another run holds it (two runs at once into one
    ``--out`` would overwrite each other). A lock left by a killed run (its process, on this host, is
    gone) is taken over with a one-line note. The caller removes the lock when the run ends."""
    import os
    import socket

    out.mkdir(parents=True, exist_ok=True)
    lock = out / ".run.lock"
    host = socket.gethostname()
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            text = lock.read_text().strip() if lock.is_file() else ""
            pid, _, held_on = text.partition(" ")
            gone = pid.isdigit() and not _process_alive(int(pid))
            if gone and held_on == host and _take_stale_lock(lock, text):
                print(f"--out {out}: removed the lock of an earlier run that was stopped (process {pid} on this host is gone)",
                      flush=True)
                continue
            raise in_use_error(out, text) from None
    else:
        raise FileExistsError(f"--out {out}: could not take the lock file {lock} (another run took it first)")
    with os.fdopen(fd, "w") as f:
        f.write(f"{os.getpid()} {host}")
    return lock


def _take_stale_lock(lock: Path, text: str) -> bool:
    """Remove the stale ``lock`` (whose content was ``text``) unless another run replaced it meanwhile:
    renamed aside first, so of two runs taking it over at once only one removes it."""
    import os

    aside = lock.with_name(f"{lock.name}.stale.{os.getpid()}")
    try:
        os.rename(lock, aside)
    except FileNotFoundError:
        return True  # another run removed it: try to create it again
    if aside.read_text().strip() != text:  # a live run's new lock: put it back
        os.rename(aside, lock)
        return False
    aside.unlink()
    return True


@contextmanager
def _sigterm_as_ctrl_c():
    """While training, SIGTERM (``kill PID``) stops the run as Ctrl-C does: the model and agent so far
    are saved into ``out/checkpoints``. Outside the main thread signals cannot be set: nothing changes."""
    import os
    import signal

    main_pid = os.getpid()

    def handler(signum, frame):
        if os.getpid() != main_pid:  # a forked child: die as SIGTERM would
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise KeyboardInterrupt

    with signal_handled(signal.SIGTERM, handler):
        yield


def _train(cfg: TrainConfig, out: Path, callback, pool, save_start: bool) -> dict:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(cfg.torch_threads)
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
        _check_resumable(cfg, vec)
        before = resumed_run(cfg.resume)  # the resumed run's agent, read before this run saves its own
        earlier = _earlier_cost(before)
        if before is None:  # a lone model zip: TrainConfig._check_resume had nothing to compare with
            print(f"resuming {cfg.resume}: no agent folder beside it records its run, so its game options and "
                  f"settings (--skip-forced, --privileged-critic, network) could not be compared with this run's; "
                  f"only its observation and action sizes were checked (they match)", flush=True)
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
    history: list[dict] = []
    if cfg.resume and (out / "history.json").is_file():
        history = [r for r in json.loads((out / "history.json").read_text()) if r.get("steps", 0) <= start]
    tb_before = {out / "tb", *(out / "tb").rglob("*")} if (out / "tb").is_dir() else set()
    t0 = time.perf_counter()

    def cost() -> dict:
        """This run's wall seconds so far (behaviour cloning included) and, after a resume, with the earlier runs'."""
        seconds = round(time.perf_counter() - t0, 1)
        if not cfg.resume:
            return {"seconds": seconds}
        return {"seconds": seconds, "seconds_in_all": round(seconds + earlier.get("seconds_in_all", 0.0), 1),
                "resumed_from": {"model": str(cfg.resume), "steps": start, **earlier}}

    try:
        if cfg.init_from and not cfg.resume:
            from cardzoo.agents.policy import load_policy_agent

            from .privileged import load_actor_into

            start_agent = load_policy_agent(cfg.init_from)
            from cardzoo.agents.options import describe, option_differences

            diff = option_differences(start_agent, cfg.game, cfg.env_options)
            if diff:  # same observation (validate refused another), other rules: fine-tuning on a variant, said
                print(f"note: --init-from {cfg.init_from} was trained for other options ({describe(diff)}); "
                      f"its actor starts this run under this run's options all the same", flush=True)
            load_actor_into(model.policy, start_agent.policy.state_dict(), vec.actor_dim)
        elif cfg.bc_samples and not cfg.resume:
            bc_info = warm_start(cfg, model.policy, vec.kernel)
        if save_start:
            _save_agent(cfg, model.policy, vec, out / "start_agent", {"steps": 0})
        callbacks = [_callback(cfg, vec, out, history, start, cost)] + ([callback] if callback is not None else [])
        t_ppo = time.perf_counter()  # the cloning and its check before are not PPO's throughput
        model.learn(
            total_timesteps=cfg.total_steps,
            callback=callbacks,
            reset_num_timesteps=cfg.resume is None,
            tb_log_name="maskable_ppo",
        )
    except ValueError as e:
        if "invalid values" not in str(e):  # torch.distributions: the policy's logits are NaN
            raise
        raise _diverged(cfg, model, out, start, tb_before) from None
    except KeyboardInterrupt:
        interrupted = _save_interrupted(cfg, model, vec, out, history, bc_info, cost())
        interrupted.remaining = max(cfg.total_steps - (interrupted.steps - start), 0)  # of this run's --steps
        raise interrupted from None
    if not all(bool(torch.isfinite(p).all()) for p in model.policy.parameters()):  # the last update went NaN
        raise _diverged(cfg, model, out, start, tb_before)
    seconds = time.perf_counter() - t0
    ppo_seconds = time.perf_counter() - t_ppo
    steps = int(model.num_timesteps)  # the model's PPO steps, as in history.json and the checkpoints' agents
    model.save(out / "model.zip")
    summary = {
        "game": cfg.game,
        "steps": steps,
        "seconds": round(seconds, 1),
        "ppo_seconds": round(ppo_seconds, 1),  # of them PPO's (no behaviour cloning)
        "steps_per_second": round((steps - start) / ppo_seconds, 1),  # of this run's PPO steps, over PPO's time
        "out": str(out),
    }
    resumed = {}
    if cfg.resume:  # the steps before this run, and the game options they were trained under if --change-options changed them
        summary["resumed_from"] = {"model": str(cfg.resume), "steps": start, **earlier}
        if cfg.change_options and before is not None and before[1]["env_options"] != cfg.env_options:
            summary["resumed_from"]["env_options"] = before[1]["env_options"]
        resumed = {"resumed_from": summary["resumed_from"]}
        summary["seconds_in_all"] = round(round(seconds, 1) + earlier.get("seconds_in_all", 0.0), 1)
    (out / "history.json").write_text(json.dumps(history, indent=1))
    if history:
        plot_curve(history, out / "learning_curve.png", f"{cfg.game} self-play",
                   envs.kernel(cfg.game, **cfg.env_options).episode_name)
    expert = cfg.expert_rounds > 0
    agent_dir = _save_agent(cfg, model.policy, vec, out / ("ppo_agent" if expert else "agent"),
                            {"steps": steps, "seconds": round(seconds, 1), **resumed}
                            | ({"seconds_in_all": summary["seconds_in_all"]} if cfg.resume else {})
                            | ({"behaviour_cloning": bc_info} if bc_info is not None else {}))
    if bc_info is not None:
        summary["behaviour_cloning"] = bc_info
    if history:
        summary["curve"] = str(out / "learning_curve.png")
    if expert:
        summary["ppo_agent"] = str(agent_dir)
        try:
            summary["expert_iteration"], agent_dir = expert_stage(cfg, out, agent_dir)
        except KeyboardInterrupt:
            (out / "summary.json").write_text(arena.json_text(summary, indent=2))
            e = TrainingInterrupted(out / "model.zip", _last_expert_agent(out) or agent_dir, int(model.num_timesteps))
            e.continue_command = expert_continue_command(cfg, out)
            raise e from None
        except Exception as e:  # e.g. no decision with a choice to label under these options: PPO's work is kept
            (out / "summary.json").write_text(arena.json_text(summary, indent=2))
            raise ValueError(
                f"expert iteration failed after PPO: {e}. The PPO stage is saved: agent {agent_dir}, model {out / 'model.zip'}; "
                f"evaluate it (cardzoo arena {cfg.game} {agent_dir} {_rule_name(cfg.game)} --deals 2000) or, once the cause is "
                f"fixed, run the rounds with: {expert_continue_command(cfg, out)}"
            ) from e
    elif cfg.resume:  # a PPO-only continuation: rounds made from an earlier PPO agent no longer describe OUT/agent
        import shutil

        for old in (out / "ppo_agent", out / "expert"):
            if old.exists():
                shutil.rmtree(old)
    summary["agent"] = str(agent_dir)
    if cfg.resume and cfg.eval_deals <= 0:
        _set_aside_old_evaluation(out)
    if cfg.eval_deals > 0:
        try:
            summary["evaluation"] = evaluate(cfg, agent_dir, out)
        except KeyboardInterrupt:  # the run is saved already: say where
            (out / "summary.json").write_text(arena.json_text(summary, indent=2))
            e = TrainingInterrupted(out / "model.zip", agent_dir, int(model.num_timesteps))
            e.evaluating = True
            raise e from None
        meta_file = agent_dir / "agent.json"
        meta = json.loads(meta_file.read_text())
        meta["evaluation"] = summary["evaluation"]
        meta_file.write_text(arena.json_text(meta, indent=2, sort_keys=True))
    (out / "summary.json").write_text(arena.json_text(summary, indent=2))
    return summary


def _earlier_cost(before: tuple[Path, dict] | None) -> dict:
    """What the run that saved a resumed model cost and how it was started, from its agent's ``training``
    (``before``: :func:`cardzoo.training.config.resumed_run`): ``command`` (its command line),
    ``seconds_in_all`` (its wall seconds, those of the runs it resumed included) and its
    ``behaviour_cloning``, where recorded; kept in
    the new agent's ``training.resumed_from``, whose own ``resumed_from`` (if any) goes on the chain."""
    if before is None:
        return {}
    run = before[1].get("training", {})
    out = {}
    if run.get("command"):
        out["command"] = run["command"]
    seconds = run.get("seconds_in_all", run.get("seconds"))
    if isinstance(seconds, (int, float)):
        out["seconds_in_all"] = float(seconds)
    if isinstance(run.get("behaviour_cloning"), dict):  # how that run's policy started
        out["behaviour_cloning"] = run["behaviour_cloning"]
    if isinstance(run.get("resumed_from"), dict):
        out["resumed_from"] = run["resumed_from"]
    return out


def _diverged(cfg: TrainConfig, model, out: Path, start: int, tb_before: set) -> ValueError:
    """The short error for a run whose policy went NaN (torch would print the whole NaN tensor). Nothing
    of the diverged model is saved; what this run added to ``out/tb`` is deleted (``tb_before``: its paths
    before the run; ``out/tb`` too if this run made it), so a folder this run created is removed by
    :func:`train` unless checkpoints were saved in it (from before the NaN: a rollout ran on them)."""
    import shutil

    logger = getattr(model, "_logger", None)
    if logger is not None:
        logger.close()
    tb = out / "tb"  # a resume appends to the run's last log folder: only what this run added goes
    for p in sorted(tb.rglob("*") if tb.is_dir() else [], key=lambda p: len(p.parts), reverse=True):
        if p not in tb_before:
            shutil.rmtree(p) if p.is_dir() else p.unlink()
    if tb not in tb_before and tb.is_dir() and not any(tb.iterdir()):
        tb.rmdir()
    kept = sorted(p.name for p in (out / "checkpoints").glob("model_*.zip")) if (out / "checkpoints").is_dir() else []
    steps = int(model.num_timesteps) - start
    return ValueError(
        f"training diverged: the policy's outputs became NaN after {steps:,} steps; lower --lr ({cfg.learning_rate:g} given)"
        + (f". The checkpoints in {out / 'checkpoints'} ({', '.join(kept)}) are kept" if kept else "")
    )


def _set_aside_old_evaluation(out: Path) -> None:
    """A resumed run that does not evaluate: the earlier ``evaluation.md`` / ``.json`` in ``out`` describe
    the agent before the resume, so they are renamed ``evaluation_before_resume.*`` (one line says so)."""
    moved = []
    for ext in (".md", ".json"):
        old = out / f"evaluation{ext}"
        if old.is_file():
            old.replace(out / f"evaluation_before_resume{ext}")
            moved.append(f"evaluation_before_resume{ext}")
    if moved:
        print(f"{out}: the earlier evaluation describes the agent before this resume: renamed to {' and '.join(moved)} "
              f"(--eval-deals 0: no new evaluation)", flush=True)


def _check_resumable(cfg: TrainConfig, vec: KernelVecEnv) -> None:
    """Refuse (``ValueError`` naming the file) a ``cfg.resume`` that is not a model zip saved by
    ``cardzoo train``, or whose observation or action space is not the env's: a model of another
    game or of game options with another observation (SB3 would only say "Observation spaces do
    not match"). Reads the zip's ``data`` entry alone, before anything is loaded."""
    import zipfile

    from stable_baselines3.common.save_util import json_to_data

    from .config import other_models

    class Refusal(ValueError):
        pass

    def refuse(why: str) -> ValueError:
        others = other_models(cfg.resume)
        instead = (f"; resume from another of the run's models ({' or '.join(map(str, others))}) or start afresh "
                   f"(--overwrite)" if others else "")
        return Refusal(f"cannot resume {cfg.resume}: {why}{instead}")

    cut_short = "damaged or cut short, e.g. by a run killed while saving it, a full disk or an incomplete copy"
    try:
        with zipfile.ZipFile(cfg.resume) as z:
            names = set(z.namelist())
            if not {"data", "policy.pth"} <= names:  # a zip cut short can show an inner zip's entries instead
                raise refuse(f"the file holds no whole model (no data and policy.pth entries): "
                             f"{cut_short}, or not a model saved by cardzoo train")
            bad = z.testzip()  # every entry must read back whole
            if bad is not None:
                raise refuse(f"the file is damaged: its entry {bad!r} fails its checksum ({cut_short})")
            data = json_to_data(z.read("data").decode())
        obs, act = data["observation_space"], data["action_space"]
        model_shape, model_actions = tuple(obs.shape), int(act.n)
        kwargs = data.get("policy_kwargs") or {}
    except zipfile.BadZipFile as e:
        raise refuse(f"the file is not a readable zip ({e}): {cut_short}, or not a model saved by cardzoo train") from None
    except Refusal:
        raise
    except (KeyError, AttributeError, TypeError, ValueError, OSError, EOFError) as e:
        raise refuse(f"it is not a model zip saved by cardzoo train (such as OUT/model.zip or "
                     f"OUT/checkpoints/model_N.zip): {e}") from None
    # the network is the zip's; the agent saved from it records cfg's, so they must agree (a lone zip
    # has no agent folder for TrainConfig._check_resume to compare them with)
    model_arch, model_act = kwargs.get("net_arch"), getattr(kwargs.get("activation_fn"), "__name__", None)
    want_act = {"relu": "ReLU", "tanh": "Tanh"}.get(cfg.activation)
    if (model_arch is not None and list(model_arch) != list(cfg.net_arch)) or (model_act is not None and model_act != want_act):
        raise ValueError(
            f"cannot resume {cfg.resume}: its network is net_arch={model_arch}, activation {model_act}, but this run "
            f"has net_arch={cfg.net_arch}, activation={cfg.activation!r}: give the run the model's network "
            f"(TrainConfig(net_arch=..., activation=...)) or start a new run"
        )
    here_shape, here_actions = tuple(vec.observation_space.shape), int(vec.action_space.n)
    if (model_shape, model_actions) == (here_shape, here_actions):
        return
    k = vec.kernel  # the other width: with the privileged critic the observation has the state and seats appended
    other = (vec.actor_dim,) if cfg.privileged_critic else (vec.actor_dim + k.state_layout.size + k.num_players,)
    if (model_shape, model_actions) == (other, here_actions):
        from .config import option_error

        had = "without" if cfg.privileged_critic else "with"
        raise option_error(lambda n: (
            f"cannot resume {cfg.resume}: that model was trained {had} the privileged critic: it reads observations of "
            f"shape {model_shape}, which {cfg.game} with the game options {cfg.env_options} gives {had} "
            f"{n('privileged_critic')} ({here_shape} {'with' if had == 'without' else 'without'} it). Resume it "
            f"{'without' if had == 'without' else 'with'} the privileged critic: "
            f"{'drop' if cfg.privileged_critic else 'add'} {n('privileged_critic')}"
        ))
    run = resumed_run(cfg.resume)
    trained = f" ({run[1]['game']}, game options {run[1]['env_options']})" if run is not None else ""
    raise ValueError(
        f"cannot resume {cfg.resume}: that model was trained for another game or other game options{trained}: it reads "
        f"observations of shape {model_shape} and has {model_actions} actions, but {cfg.game} with the game options "
        f"{cfg.env_options}{' and the privileged critic' if cfg.privileged_critic else ''} gives {here_shape} and {here_actions}. "
        f"Resume it with the game and options it was trained for, or start a new run in another --out"
    )


def _save_interrupted(cfg: TrainConfig, model, vec: KernelVecEnv, out: Path, history: list, bc_info,
                      cost: dict | None = None) -> TrainingInterrupted:
    """Save a resumable model, the agent so far and the history after Ctrl-C; the exception to raise."""
    import signal

    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C (or a SIGTERM) must not spoil the save
        old_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals cannot be changed here
        old = None
    try:
        steps = int(model.num_timesteps)
        ck = out / "checkpoints"
        ck.mkdir(parents=True, exist_ok=True)
        model_path = ck / f"model_{steps}.zip"
        model.save(model_path)
        extra = {"steps": steps, "interrupted": True} | (cost or {}) | ({"behaviour_cloning": bc_info} if bc_info else {})
        if bc_info is None and cfg.bc_samples and not cfg.resume and not cfg.init_from:  # Ctrl-C during the cloning
            extra["behaviour_cloning"] = {"interrupted": True}
        agent_path = _save_agent(cfg, model.policy, vec, ck / f"agent_{steps}", extra)
        (out / "history.json").write_text(json.dumps(history, indent=1))
        if history:
            plot_curve(history, out / "learning_curve.png", f"{cfg.game} self-play",
                       envs.kernel(cfg.game, **cfg.env_options).episode_name)
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old)
            signal.signal(signal.SIGTERM, old_term)
    return TrainingInterrupted(model_path, agent_path, steps)


def _expert_kwargs(cfg: TrainConfig) -> dict:
    """:func:`cardzoo.training.expert.expert_iterate`'s options for the run's expert stage."""
    return dict(rounds=cfg.expert_rounds, games=cfg.expert_games, n_det=cfg.expert_n_det, label_search_on="cards",
                search_on="cards", batch=256, epochs=cfg.expert_epochs, arena_deals=cfg.expert_arena_deals, seed=cfg.seed,
                workers=cfg.expert_workers, aggregate=True)


def expert_continue_command(cfg: TrainConfig, out: Path) -> str:
    """The ``cardzoo expert-iterate`` command that finishes an interrupted expert stage of ``out``."""
    import shlex

    k = _expert_kwargs(cfg)
    return shlex.join([
        "cardzoo", "expert-iterate", cfg.game, "--out", str(out / "expert"), "--init", str(out / "ppo_agent"),
        "--rounds", str(k["rounds"]), "--games", str(k["games"]), "--n-det", str(k["n_det"]), "--label-search-on", "cards",
        "--search-on", "cards", "--batch", str(k["batch"]), "--epochs", str(k["epochs"]), "--arena-deals", str(k["arena_deals"]),
        "--seed", str(k["seed"]), "--workers", str(k["workers"]), "--aggregate", "--resume",
    ])


def _last_expert_agent(out: Path) -> Path | None:
    """The agent of the last complete round of ``out/expert`` (``None`` if no round is complete)."""
    done = sorted((out / "expert").glob("round_*/round.json"), key=lambda p: int(p.parent.name.split("_")[1]))
    return done[-1].parent / "agent" if done else None


def expert_stage(cfg: TrainConfig, out: Path, ppo_agent: Path) -> tuple[list[dict], Path]:
    """Expert iteration after PPO (:func:`cardzoo.training.expert.expert_iterate`, ``aggregate``):
    ``cfg.expert_rounds`` rounds; each labels ``cfg.expert_games`` deals of the current agent
    (against the rule bot) with PIMC values of every card decision, in ``cfg.expert_workers``
    processes, then distils the PPO agent's card play on every round's labels so far (its bids are
    kept by the KL term). Rounds go to ``out/expert/round_r/``; the last round's agent is copied to
    ``out/agent`` with the run's settings added to its ``agent.json`` (``training``, and
    ``expert_iteration``: the rounds' table rows). An earlier ``out/expert`` (from before a
    ``--resume`` of PPO) is deleted first: its rounds started from another PPO agent.

    Returns the rounds' rows (row 0: the PPO agent) and the final agent's folder.
    """
    import shutil

    from .expert import expert_iterate, rounds_table

    folder, final = out / "expert", out / "agent"
    if folder.exists():
        print(f"deleting {folder}: its rounds started from an earlier PPO agent", flush=True)
    for old in (folder, final):
        if old.exists():
            shutil.rmtree(old)
    k = _expert_kwargs(cfg)
    print(f"expert iteration: {k['rounds']} round{'s' if k['rounds'] != 1 else ''}, each labelling {k['games']:,} deals of the current agent with PIMC search "
          f"({k['n_det']} determinizations, {k['workers']} processes), then distilling the card play of all labels so far "
          f"into the PPO agent (training/EXPERT.md)", flush=True)
    rows = expert_iterate(cfg.game, folder, init=str(ppo_agent), torch_threads=cfg.torch_threads, **k)
    print(rounds_table(rows), flush=True)
    shutil.copytree(Path(rows[-1]["agent"]), final)
    meta_file = final / "agent.json"
    meta = json.loads(meta_file.read_text())
    meta["name"] = final.name
    meta["training"] = {**meta.get("training", {}), **asdict(cfg)}
    meta["expert_iteration"] = {"rounds": rows, "options": k, "continue_command": expert_continue_command(cfg, out)}
    meta_file.write_text(arena.json_text(meta, indent=2, sort_keys=True))
    return rows, final


def evaluate(cfg: TrainConfig, agent_dir: Path, out: Path) -> list[dict]:
    """Duplicate-deal evaluation of the saved agent against random and the rule bot.

    Writes ``evaluation.md`` / ``evaluation.json`` in ``out`` and returns the rows
    (:meth:`cardzoo.training.arena.DuplicateResult.to_dict` plus ``opponent``).
    """
    from . import arena

    trained = resolve_agent(str(agent_dir))
    rows = []
    opponents = ["random", _rule_name(cfg.game)]
    if cfg.compare_shipped:
        from .common import default_agent

        shipped, _ = default_agent(cfg.game, cfg.env_options)  # GAME/ppo where it was trained for these options
        if shipped.endswith("/ppo"):
            opponents.append(shipped)
    for opp_name in opponents:
        if opp_name != "random" and opp_name not in agents.available():
            continue
        opp = resolve_agent(opp_name, cfg.env_options, seed=cfg.seed + 7)
        res = arena.play_duplicate(
            cfg.game, trained, opp, n_deals=cfg.eval_deals, seed=cfg.seed + 12345,
            env_options=cfg.env_options, progress=True, name_a="trained", name_b=opp_name,
        )
        rows.append(res.to_dict() | {"opponent": opp_name})
    (out / "evaluation.json").write_text(arena.json_text(rows, indent=2))  # an undefined CI (1 deal): null
    (out / "evaluation.md").write_text(evaluation_markdown(rows))
    return rows


def _shipped_start(game: str, env_options: dict) -> str | None:
    """The folder of a shipped agent of ``game`` whose observation layout fits ``env_options`` (what
    ``--init-from`` needs), e.g. ``agents/shipped/pyanitsa_ppo_3p`` for three players; ``None`` if none."""
    from cardzoo import envs
    from cardzoo.agents.policy import layout_version, read_meta
    from cardzoo.agents.registry import SHIPPED

    want = layout_version(envs.kernel(game, **env_options))
    root = Path(SHIPPED)
    for folder in sorted(root.glob(f"{game}_ppo*")):
        if (folder / "agent.json").is_file() and read_meta(folder).get("obs_layout_version") == want:
            return str(folder)
    return None


def next_step(game: str, rows: list[dict], agent: str, out: str, expert: bool = False,
              options: list[str] = (), train_flags: list[str] = (), env_options: dict | None = None,
              cloned: bool = True) -> str:
    """One line saying what to do after a run, from its evaluation rows (see :func:`evaluate`):
    the trained agent against the rule bot (and the shipped agent, where it was played).
    ``expert``: the run ended with expert iteration, so more rounds of it are the way on.
    ``options``: the run's ``-o NAME=VALUE`` arguments and ``train_flags`` its ``--skip-forced`` /
    ``--privileged-critic``, which the commands it prints repeat, so that they run as printed (a
    ``--resume`` under other settings is refused; play and arena seat the agent only under its
    options). ``env_options``: the run's game options as a dict, to suggest ``--init-from`` only a
    shipped agent that can read the run's observations. ``cloned``: the run printed a behaviour-cloned
    start (not a ``--resume`` nor ``--bc-samples 0``), which the line may point at."""
    import shlex

    game_o = shlex.join([game, *options])  # GAME -o NAME=VALUE ...
    train_o = shlex.join([game, *options, *train_flags])
    by = {r["opponent"]: r for r in rows}
    rule = by.get(_rule_name(game))
    if rule is None:
        return f"next: compare it with other agents, e.g. cardzoo arena {game_o} {agent} random --deals 2000"
    lo, hi = rule["diff_ci"]
    from . import arena

    if "random" in by and all(r["mean_diff"] == 0 and list(r["diff_ci"]) == [0, 0] and r.get("n_deals", 0) >= 20 for r in rows):
        # 20 deals or more, each exactly level, against random too: the agent's choices change nothing (all moves forced)
        hint = " (e.g. -o collect_order=winner_chooses --skip-forced)" if game == "pyanitsa" else ""
        return (f"next: every result is exactly 0 on every deal, against random too: under these options the agent's "
                f"moves change nothing (every move forced?), so training longer cannot help; train a variant with "
                f"choices{hint}")

    ep = arena.episode_name([rule]) if "env_options" in rule else "episode"
    if not arena._defined(lo, hi):  # one deal: no CI, so no verdict either way
        return (f"next: the result against the rule bot ({rule['mean_diff']:+.3f} per {ep}, CI {arena.ci_text(lo, hi, '+.3f', rule['n_deals'])}) "
                f"cannot tell yet whether it is better or worse: evaluate on more deals (cardzoo arena {game_o} {agent} {game}/rule --deals 2000)")
    shipped = by.get(f"{game}/ppo")
    more = (f"cardzoo expert-iterate {game} --init {agent} --out {out}_more_rounds --rounds 2 --games 5120 --n-det 32 "
            f"--label-search-on cards --batch 256 --epochs 8 --workers 2 --aggregate --arena-deals 2000")
    if lo > 0:
        if shipped is not None and shipped["diff_ci"][0] > 0:
            rnd = by.get("random")
            check = (f"; against random it scores {rnd['mean_diff']:+.3f} per {ep}: to see that it did not only learn to beat "
                     f"those two, compare it with the rule bot against random (cardzoo arena {game_o} {agent} {game}/rule random "
                     f"--deals 2000)") if rnd is not None else ""
            return (f"next: it beats the rule bot and the shipped agent: play it (cardzoo play {game_o} --opponents {agent}) "
                    f"or confirm on fresh seeds (cardzoo arena {game_o} {agent} {game}/ppo --seed 1){check}")
        if expert:
            return (f"next: it beats the rule bot: play it (cardzoo play {game_o} --opponents {agent}); to beat the shipped agent "
                    f"too, run more rounds of expert iteration ({more})")
        return f"next: it beats the rule bot: play it (cardzoo play {game_o} --opponents {agent}); to beat the shipped agent too, train longer (cardzoo train {train_o} --out {out} --resume {out}/model.zip --steps N)"
    if expert:
        where = (f"it loses to the rule bot ({rule['mean_diff']:+.3f} per {ep})" if hi < 0
                 else f"level with the rule bot (CI [{lo:+.3f}, {hi:+.3f}])")
        return (f"next: {where}: the rounds' table above shows whether expert iteration was still gaining; run more rounds "
                f"({more}) or evaluate on more deals (cardzoo arena {game_o} {agent} {game}/rule --deals 20000)")
    if hi < 0:
        shipped_dir = _shipped_start(game, env_options or {})
        stronger = (f", or start PPO from a stronger agent (cardzoo train {train_o} --out {out}_from_shipped --init-from {shipped_dir})"
                    if shipped_dir is not None else "")
        above = "the behaviour-cloned start is printed above; " if cloned else ""
        return (f"next: it loses to the rule bot ({rule['mean_diff']:+.3f} per {ep}): {above}"
                f"train longer (cardzoo train {train_o} --out {out} --resume {out}/model.zip --steps N: N more steps){stronger}")
    return f"next: level with the rule bot (CI [{lo:+.3f}, {hi:+.3f}]): train longer (cardzoo train {train_o} --out {out} --resume {out}/model.zip --steps N) or evaluate on more deals (--eval-deals)"


def evaluation_markdown(rows: list[dict]) -> str:
    """Markdown table of evaluation rows (mean score difference per episode, in the game's terms, and
    win rate, 95% CIs)."""
    from . import arena

    ep = arena.episode_name(rows)
    lines = [
        # "played": each duplicate deal is played once per side, so 2 --eval-deals are 4 deals (hands, games) played
        f"| agent | opponent | {arena.plural(ep)} played | mean diff / {ep} [95% CI] | win rate [95% CI] |",
        "|---|---|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['agent_a']} | {r['agent_b']} | {r['n_hands']} | {_diff_cell(r)} | {_win_cell(r)} |")
    return "\n".join(lines) + "\n"


def evaluation_table(rows: list[dict], title: str):
    """The evaluation rows as a rich Table (fits an 80-column terminal)."""
    from rich.table import Table

    from . import arena

    t = Table(title=title)
    ep = arena.episode_name(rows)
    for col in ("agent", "opponent", f"{arena.plural(ep)} played", f"mean diff/{ep} [95% CI]", "win rate [95% CI]"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(
            r["agent_a"],
            r["agent_b"],
            str(r["n_hands"]),
            _diff_cell(r),
            _win_cell(r),
        )
    return t


def _diff_cell(r: dict) -> str:
    """``"+0.123 [+0.050, +0.196]"``: an evaluation row's mean difference and its CI, ``"n/a (1 deal)"``
    when undefined (:func:`cardzoo.training.arena.ci_text`)."""
    return f"{r['mean_diff']:+.3f} {arena.ci_text(*r['diff_ci'], '+.3f', r['n_deals'])}"


def _win_cell(r: dict) -> str:
    """``"0.512 [0.480, 0.544]"``: an evaluation row's win rate and its CI (as :func:`_diff_cell`)."""
    return f"{r['win_rate']:.3f} {arena.ci_text(*r['win_ci'], '.3f', r['n_deals'])}"
