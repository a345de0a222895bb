"""``TrainConfig``: the options of ``cardzoo train`` and their defaults, in one place.

This module imports neither torch nor stable-baselines3, so the command line reads its defaults
from here (``cardzoo train --help`` shows them) without loading the training stack.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cardzoo import envs
from cardzoo.agents.options import option_args
from cardzoo.envs.core.kernel import is_int, is_real, one_deal_episodes

from .common import SEED_MAX  # the seeds a run takes, as every --seed: 0 to 2**32 - 1

#: Rounds of expert iteration after PPO by default, per game: only where measurement showed they
#: help (All Fours: three rounds took the main job from -0.090 to above the rule bot; training/EXPERT.md).
EXPERT_ROUNDS = {"all_fours": 3}


#: The ``cardzoo train`` flag of each :class:`TrainConfig` option the command line sets (``cardzoo
#: train --help``); the options not listed (``n_epochs``, ``gamma``, ``net_arch``, ...) are set from
#: Python only. Errors name an option by its flag when they reach the command line (:func:`flag`).
FLAGS = {
    "game": "GAME", "total_steps": "--steps", "learning_rate": "--lr", "critic_warmup_steps": "--critic-warmup",
    "env_options": "-o", "bc_teacher_options": "--bc-teacher-option",
    **{name: "--" + name.replace("_", "-") for name in (
        "bc_samples", "bc_epochs", "bc_teacher", "n_envs", "seed", "opponents", "snapshot_every", "checkpoint_every",
        "eval_deals", "out", "resume", "overwrite", "skip_forced", "privileged_critic", "init_from", "n_steps",
        "batch_size", "clip_range", "ent_coef", "torch_threads", "expert_rounds", "expert_games", "expert_n_det",
        "expert_epochs", "expert_arena_deals", "expert_workers", "change_options",
    )},
}


def flag(name: str) -> str:
    """``cardzoo train``'s flag of the :class:`TrainConfig` option ``name`` (``"eval_deals"`` ->
    ``"--eval-deals"``, ``"total_steps"`` -> ``"--steps"``); ``name`` itself for an option the command
    line does not set."""
    return FLAGS.get(name, name)


def option_error(message, kind: type[Exception] = ValueError) -> Exception:
    """The error ``kind`` for a bad option. ``message(name)`` writes its text, naming each option
    ``o`` as ``name(o)``: the exception's text names the :class:`TrainConfig` fields (``eval_deals``,
    as the Python caller wrote them) and its ``cli_message`` the flags (``--eval-deals``), which
    ``cardzoo train`` shows instead."""
    e = kind(message(str))
    e.cli_message = message(flag)
    return e


#: Settings of a run that its model was trained under besides the game options: a ``--resume``
#: must give the same (:meth:`TrainConfig.validate`); the PPO settings (``--lr``, ...) may change.
RESUME_KEEPS = ("skip_forced", "privileged_critic", "net_arch", "activation")


def resumed_run(model) -> tuple[Path, dict] | None:
    """``(agent folder, its agent.json)`` of the run that saved the model zip ``model``: the agent
    saved with it (``OUT/checkpoints/model_N.zip``: ``OUT/checkpoints/agent_N``; ``OUT/model.zip``:
    ``OUT/ppo_agent``, else ``OUT/agent``), which records the run's game, options and settings;
    ``None`` when there is none. ``ValueError`` names an ``agent.json`` that is not a saved agent's."""
    from cardzoo.agents.policy import read_meta

    model = Path(model)
    stem = model.stem
    if stem.startswith("model_"):
        folders = [model.with_name("agent_" + stem[len("model_"):])]
    else:
        folders = [model.with_name("ppo_agent"), model.with_name("agent")]
    for folder in folders:
        if (folder / "agent.json").is_file():
            return folder, read_meta(folder)
    return None


#: The activations of the policy network (``TrainConfig.activation``): name -> the ``torch.nn`` module
#: (``selfplay._activation``).
ACTIVATIONS = {"relu": "ReLU", "tanh": "Tanh"}

#: The int options of :class:`TrainConfig`: name -> ``(lowest, highest or None, what is valid)``, checked
#: by :meth:`TrainConfig.validate` (a numpy int is an int, a bool is not).
INT_OPTIONS = {
    **{name: (1, None, "a positive int") for name in (
        "total_steps", "n_envs", "n_steps", "batch_size", "n_epochs", "snapshot_every", "max_snapshots",
        "checkpoint_every", "torch_threads", "bc_epochs")},
    "seed": (0, SEED_MAX, f"an int from 0 to {SEED_MAX} (2**32 - 1, the seeds SB3 and torch take)"),
    "bc_samples": (0, None, "an int >= 0 (0: no cloning)"),
    "eval_deals": (0, None, ">= 0"),  # "an int >= 0" for a value that is not an int (--eval-deals's words kept)
    "bc_eval_deals": (0, None, "an int >= 0 (0: no check of the cloned policy)"),
    "critic_warmup_steps": (0, None, "an int >= 0"),
    "expert_rounds": (0, None, "an int >= 0"),
    **{name: (1, None, "an int >= 1") for name in ("expert_games", "expert_n_det", "expert_epochs", "expert_workers")},
    "expert_arena_deals": (0, None, "an int >= 0"),
}

#: The float options: name -> ``(lowest, lowest excluded, highest or None)``; each must be a finite
#: number (inf or nan would reach torch and fail mid-training). A numpy float or int is a number, a bool is not.
FLOAT_OPTIONS = {
    "learning_rate": (0.0, True, None), "clip_range": (0.0, True, 1.0), "ent_coef": (0.0, False, None),
    "gamma": (0.0, False, 1.0), "gae_lambda": (0.0, False, 1.0),
}

#: The on/off options: each must be a bool (a numpy bool is one); ``"no"`` or 0 are refused, not read as on or off.
BOOL_OPTIONS = ("bc_until_converged", "compare_shipped", "privileged_critic", "skip_forced", "overwrite", "change_options")

#: The dict options: name -> what they map, with an example.
DICT_OPTIONS = {
    "opponents": "opponent family to weight, e.g. {'random': 0.2, 'rule': 0.5, 'snapshot': 0.3}",
    "env_options": "game option to value, e.g. {'episode': 'match'} ({} for the game's defaults)",
    "bc_teacher_options": "teacher option to value, e.g. {'rank_order': '0,1,2,3,4,5,6,8,7'} ({} for none)",
}

#: The path options (``out``; ``resume`` and ``init_from`` may be ``None``): name -> what to give.
PATH_OPTIONS = {
    "out": "the run folder",
    "resume": "the model .zip to continue (OUT/model.zip or OUT/checkpoints/model_N.zip), or None to start afresh",
    "init_from": "a saved agent's folder (e.g. runs/GAME/agent), or None",
}


def _given(v) -> str:
    """``v`` as an error shows a value of the wrong kind: ``the str 'random'``, ``None``."""
    return "None" if v is None else f"the {type(v).__name__} {v!r}"


def searchable(env_options: dict) -> bool:
    """Whether PIMC search (and so expert iteration) can run with these game options: every
    episode must end with the deal (no ``episode="match"``, no ``match_target``)."""
    return one_deal_episodes(env_options)


@dataclass
class TrainConfig:
    """Options of a training run; the defaults are ``cardzoo train``'s (All Fours: 8-11 minutes on
    2 cores, of which 5 of PPO and 4 of expert iteration; training/TRAIN_RUNS.md).

    ``bc_samples`` > 0 warm-starts the policy by behaviour cloning a teacher before self-play: the
    game's rule bot, or ``bc_teacher`` (a registered agent name of this game, made with the keyword
    options ``bc_teacher_options`` on top of the env options, or a saved agent's path); the PPO settings (learning rate 1e-4, clip 0.1, entropy 0.003) suit
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
    eval_deals: int = 2000
    out: str = "runs/all_fours"
    resume: str | None = None
    env_options: dict = field(default_factory=dict)
    torch_threads: int = 2
    bc_samples: int = 500_000
    bc_epochs: int = 30  # at most; cloning stops when the held-out agreement stops rising (bc_until_converged)
    bc_until_converged: bool = True
    bc_eval_deals: int = 500  # duplicate deals of the cloned policy against the rule bot before PPO, at most eval_deals (0: skip)
    compare_shipped: bool = True  # the final evaluation also plays the shipped GAME/ppo where it fits
    bc_teacher: str | None = None
    bc_teacher_options: dict = field(default_factory=dict)  # keyword options of a registered teacher, e.g. {"rank_order": "0,1,2,3,4,5,6,8,7"}
    clip_range: float = 0.1
    privileged_critic: bool = False
    init_from: str | None = None
    critic_warmup_steps: int = 0
    skip_forced: bool = False  # the env plays single-legal-action decisions itself (P'yanitsa's FLIP)
    overwrite: bool = False  # replace an earlier run's outputs in ``out`` (see check_out_folder)
    change_options: bool = False  # with ``resume``: continue the model under other game options than its run's, on purpose
    # expert iteration after PPO (training/expert.py, training/EXPERT.md): each round labels the
    # positions of the current agent's games with PIMC search, then distils the card play
    expert_rounds: int | None = None  # None: EXPERT_ROUNDS[game] (0 for the other games, or where search cannot run)
    expert_games: int = 5120  # deals labelled per round (about 21 card positions each in All Fours)
    expert_n_det: int = 32  # PIMC determinizations per labelled position
    expert_epochs: int = 8  # distillation epochs per round
    expert_workers: int = 2  # labelling processes at once (one per core)
    expert_arena_deals: int = 500  # duplicate deals of each round's agent against the rule bot (0: none)
    command: str | None = None  # the command line that started the run (recorded in agent.json)

    def __post_init__(self) -> None:
        # not for a game or game options of the wrong kind: validate() names them
        if self.expert_rounds is None and isinstance(self.game, str) and isinstance(self.env_options, Mapping):
            self.expert_rounds = EXPERT_ROUNDS.get(self.game, 0) if searchable(self.env_options) else 0

    def ppo_steps(self) -> tuple[int, int]:
        """``(steps, rollout)``: the PPO steps this run makes and the steps of one rollout (``n_envs x n_steps``).
        PPO collects whole rollouts, so ``total_steps`` is rounded up to a multiple of the rollout."""
        rollout = self.n_envs * self.n_steps
        return -(-self.total_steps // rollout) * rollout, rollout

    def bc_check_deals(self) -> int:
        """Duplicate deals of the behaviour-cloned start against the rule bot: ``bc_eval_deals`` (500), or
        ``eval_deals`` where that is fewer (0 skips both)."""
        return min(self.bc_eval_deals, self.eval_deals)

    def validate(self) -> None:
        """Raise ``ValueError`` naming any bad option (as a field, e.g. ``eval_deals``; the error's
        ``cli_message`` names the flag, ``--eval-deals``: :func:`option_error`), one of the wrong kind
        included (a bool for an int, ``"no"`` for a bool, a str for a dict: :meth:`_check_kinds`, which
        keeps a numpy number given as the Python one); ``FileNotFoundError`` for a ``resume`` that is not
        a model file, an ``init_from`` with no saved agent there, or a ``bc_teacher`` that is neither a
        registered name nor a path; ``NotADirectoryError`` for an ``out`` that is a file (and the errors
        of :func:`check_out_folder`)."""
        if not isinstance(self.game, str) or self.game not in envs.GAMES:
            raise ValueError(f"unknown game {self.game!r}; available: {sorted(envs.GAMES)}")
        self._check_kinds()
        if self.bc_teacher is not None or self.bc_teacher_options:
            self._check_teacher()
        unknown = set(self.opponents) - {"random", "rule", "snapshot"}
        if unknown:
            raise option_error(lambda n: f"{n('opponents')}: unknown opponent families {sorted(unknown, key=str)}; "
                                         f"valid: random, rule, snapshot")
        self._check_opponent_weights()
        if self.resume is not None and not Path(self.resume).is_file():
            what = "it is a folder, not a model file" if Path(self.resume).is_dir() else "no such file"
            others = other_models(self.resume)
            found = (f"; give one of the run's models: {' or '.join(f'--resume {m}' for m in others)}" if others else
                     " (expected a model .zip such as OUT/checkpoints/model_1000000.zip or OUT/model.zip)")
            raise FileNotFoundError(f"cannot resume {self.resume}: {what}{found}")
        if self.init_from is not None:
            if not Path(self.init_from).exists():
                from cardzoo.agents.registry import shipped_path

                shipped = shipped_path(str(self.init_from))
                hint = (f"; --init-from takes a saved agent's folder: the shipped {self.init_from} is {shipped}" if shipped
                        else "; --init-from takes a saved agent's folder (e.g. runs/GAME/agent, or agents/shipped/GAME_ppo in the package)")
                raise FileNotFoundError(f"cannot initialise from {self.init_from}: no saved agent there{hint}")
            from cardzoo.agents.policy import layout_version, read_meta

            meta = read_meta(self.init_from)  # ValueError naming the path when it is no saved agent (e.g. a run's folder)
            trained = meta["game"]
            if trained != self.game:
                raise ValueError(f"cannot start a {self.game} run from {self.init_from}: that agent plays {trained}")
            kernel = envs.kernel(self.game, **self.env_options)
            if meta["obs_layout_version"] != layout_version(kernel):  # its first layer would read other features
                raise option_error(lambda n: (
                    f"cannot start this run from {self.init_from}: that agent was trained for {trained} with the game options "
                    f"{meta['env_options']}, whose observation ({meta['obs_dim']} features, layout {meta['obs_layout_version']}) "
                    f"is not this run's ({self.env_options}: {kernel.obs_layout.size} features, layout "
                    f"{layout_version(kernel)}): give {n('init_from')} an agent trained for these options, or train with "
                    f"its options ({' '.join(option_args(meta['env_options'])) or 'no -o options'})"
                ))
        if self.expert_rounds and not searchable(self.env_options):
            raise option_error(lambda n: (
                f"{n('expert_rounds')}={self.expert_rounds} needs episodes that end with the deal (PIMC rollouts play the deal "
                f"out); got the game options {self.env_options}: give {n('expert_rounds')}=0 or drop the match options"
            ))
        envs.kernel(self.game, **self.env_options)  # validates the env options
        if self.change_options and self.resume is None:
            raise option_error(lambda n: f"{n('change_options')} goes with {n('resume')}: it lets a resumed model continue "
                                         f"under other game options than its run's")
        if self.resume is not None:
            self._check_resume()
        if self.resume is not None and self.overwrite:
            raise option_error(lambda n: f"{n('resume')} and {n('overwrite')} exclude each other: resume continues the run "
                                         f"in {n('out')}, overwrite deletes it")
        if Path(self.out).exists() and not Path(self.out).is_dir():
            raise option_error(lambda n: f"{n('out')} {self.out} is a file, not a folder", NotADirectoryError)
        check_out_folder(Path(self.out), resume=self.resume, overwrite=self.overwrite)

    def _check_kinds(self) -> None:
        """Refuse an option of the wrong kind or range, each kind checked one way (:data:`INT_OPTIONS`,
        :data:`FLOAT_OPTIONS`, :data:`BOOL_OPTIONS`, :data:`DICT_OPTIONS`, :data:`PATH_OPTIONS`, ``net_arch``,
        ``activation``), before anything is built from them. A numpy number given is kept as the Python
        int or float (bool, dict, list) it stands for, which ``agent.json`` records."""
        for name, what in DICT_OPTIONS.items():  # first: the expert_rounds default is read from env_options
            v = getattr(self, name)
            if not isinstance(v, Mapping):
                raise option_error(lambda n: f"{n(name)} must be a dict of {what}; got {_given(v)}")
            setattr(self, name, dict(v))
        for name, (lo, hi, valid) in INT_OPTIONS.items():
            v = getattr(self, name)
            if not is_int(v) or v < lo or (hi is not None and v > hi):
                valid = valid if is_int(v) or "int" in valid else "an int " + valid
                raise option_error(lambda n: f"{n(name)} must be {valid}, got {v!r}")
            setattr(self, name, int(v))
        for name, (lo, lo_open, hi) in FLOAT_OPTIONS.items():
            v = getattr(self, name)
            ok = is_real(v) and math.isfinite(v) and (v > lo if lo_open else v >= lo) and (hi is None or v <= hi)
            if not ok:
                bound = f"{'>' if lo_open else '>='} {lo:g}" + ("" if hi is None else f" and <= {hi:g}")
                raise option_error(lambda n: f"{n(name)} must be a finite number {bound}, got {v!r}")
            setattr(self, name, float(v))
        for name in BOOL_OPTIONS:
            v = getattr(self, name)
            if not isinstance(v, (bool, np.bool_)):
                raise option_error(lambda n: f"{n(name)} must be True or False, got {_given(v)}")
            setattr(self, name, bool(v))
        for name, what in PATH_OPTIONS.items():
            v = getattr(self, name)
            if v is None and name != "out":
                continue
            if not isinstance(v, (str, os.PathLike)):
                raise option_error(lambda n: f"{n(name)} must be a path (a str or os.PathLike): give {what}; got {_given(v)}")
            if isinstance(v, str) and not v.strip():
                example = {flag: f", e.g. --out runs/{self.game}", str: f", e.g. out='runs/{self.game}'"} if name == "out" else {}
                raise option_error(lambda n: f"{n(name)} {v!r} is an empty path: give {what}{example.get(n, '')}")
        arch = self.net_arch
        if not (isinstance(arch, (list, tuple)) and arch and all(is_int(k) and k >= 1 for k in arch)):
            raise option_error(lambda n: f"{n('net_arch')} must be a non-empty list of layer sizes, ints >= 1 (e.g. "
                                         f"[256, 256]), got {_given(arch) if not isinstance(arch, list) else arch}")
        self.net_arch = [int(k) for k in arch]
        if not isinstance(self.activation, str) or self.activation not in ACTIVATIONS:
            raise option_error(lambda n: f"{n('activation')} must be {' or '.join(map(repr, ACTIVATIONS))}, got "
                                         f"{_given(self.activation) if not isinstance(self.activation, str) else repr(self.activation)}")

    def _check_opponent_weights(self) -> None:
        """Each opponent family's weight must be a finite number >= 0, and one available from the start
        (random, and the game's rule bot where it has one: snapshots are only added while training)
        must have a weight > 0, or the first rollout has no opponent to draw."""
        from cardzoo import agents

        bad = {k: w for k, w in self.opponents.items() if not (is_real(w) and math.isfinite(w) and w >= 0)}
        if bad:
            raise option_error(lambda n: f"{n('opponents')}: each weight must be a finite number >= 0, got {bad}")
        self.opponents = {k: float(w) for k, w in self.opponents.items()}  # np.float32(0.5) as 0.5 (agent.json)
        start = ["random"] + (["rule"] if f"{self.game}/rule" in agents.available() else [])
        if not any(self.opponents.get(k, 0) > 0 for k in start):
            given = ",".join(f"{k}={w:g}" for k, w in self.opponents.items())
            no_rule = "" if "rule" in start else f"; {self.game} has no rule bot, so rule is never drawn"
            raise option_error(lambda n: (
                f"{n('opponents')} {given}: at least one opponent available from the start needs a weight > 0: "
                f"{' or '.join(start)} (snapshot has no snapshots until the first is saved, every "
                f"{n('snapshot_every')} rollouts{no_rule}), e.g. {n('opponents')} {start[-1]}=0.5,snapshot=0.5"
            ))

    def _check_resume(self) -> None:
        """Refuse to resume a model under another game, other game options (unless ``change_options``)
        or other :data:`RESUME_KEEPS` settings than its run's, as recorded by :func:`resumed_run`
        (nothing is checked when no agent was saved with the model: the training then compares the
        model's observation and action spaces with the env's)."""
        from types import SimpleNamespace

        from cardzoo.agents.options import option_differences

        found = resumed_run(self.resume)
        if found is None:
            return
        where, meta = found
        kernel = envs.kernel(self.game, **self.env_options)
        if meta["game"] != self.game:
            raise option_error(lambda n: (
                f"cannot resume {self.resume}: that model was trained for {meta['game']} (its run's agent: {where}), "
                f"not {self.game}: it reads observations of {meta['obs_dim']} numbers and has {meta['num_actions']} actions, "
                f"{self.game} here {kernel.obs_layout.size} and {kernel.num_actions}. Resume it as {meta['game']} "
                f"(cardzoo train {meta['game']} ... {n('resume')} {self.resume}), or train {self.game} in another {n('out')}"
            ))
        options = {} if self.change_options else option_differences(SimpleNamespace(meta=meta), self.game, self.env_options)
        run = {**meta.get("training", {}), "net_arch": meta["net_arch"], "activation": meta["activation"]}
        settings = {k: (run[k], getattr(self, k)) for k in RESUME_KEEPS if k in run and run[k] != getattr(self, k)}
        if not options and not settings:
            return
        run_options = dict(meta["env_options"])

        def message(n) -> str:
            cli = n is flag
            diffs = [f"game option {k}: the run's {a!r}, given {b!r}" for k, (a, b) in options.items()]
            diffs += [f"{n(k)}: the run's {a!r}, given {b!r}" for k, (a, b) in settings.items()]
            fixes = []
            if options and not cli:
                fixes.append(f"give the run's env_options={run_options!r}")
            elif options:
                fixes.append(f"give the run's game options ({' '.join(option_args(run_options))})" if run_options
                             else "drop the -o options (the run had none)")
            for k, (a, _) in settings.items():
                fixes.append(f"{'add' if a else 'drop'} {n(k)}" if cli and isinstance(a, bool) else f"give {n(k)}={a!r}")
            text = (f"cannot resume {self.resume} with other settings than its run's (recorded in {where / 'agent.json'}): "
                    f"{'; '.join(diffs)}. To resume it, {' and '.join(fixes)}")
            if options:
                still = " (the other settings must still be the run's)" if settings else ""
                text += (f"; or, to continue its model under these game options on purpose (e.g. fine-tuning on a variant), "
                         f"{'add --change-options' if cli else 'set change_options=True'}{still}")
            return text

        raise option_error(message)

    def teacher(self):
        """``(name, agent)`` of the behaviour-cloning teacher: ``bc_teacher`` (default: the game's rule
        bot) with ``bc_teacher_options``; the name lists the options. The teacher plays the run's
        game: an option of the game itself is refused here (give it with ``env_options``), and a
        saved agent trained for other game options is refused. Raises ``ValueError`` /
        ``FileNotFoundError`` naming a bad teacher or option."""
        from cardzoo import agents
        from cardzoo.agents.options import describe, option_differences

        from .common import resolve_agent

        name = self.bc_teacher or f"{self.game}/rule"
        opts = dict(self.bc_teacher_options)
        if opts and name not in agents.available():
            raise option_error(lambda n: f"{n('bc_teacher_options')} {opts} need a registered teacher; {name!r} is not one "
                                         f"(registered: {agents.available()})")
        game_options = set(envs.kernel(self.game, **self.env_options).options)
        clash = sorted(set(opts) & game_options)
        if clash:
            raise option_error(lambda n: f"{n('bc_teacher_options')} {clash} are options of the game {self.game}, which the teacher "
                                         f"plays as the run does: give them with {n('env_options')} for the whole run")
        if opts:
            try:
                agent = agents.load(name, **{**self.env_options, **opts})
            except (TypeError, ValueError) as e:
                raise ValueError(f"the teacher {name!r} does not take the options {opts}: {e}") from None
            shown = f"{name}({', '.join(f'{k}={v}' for k, v in opts.items())})"
        else:
            agent = resolve_agent(name, self.env_options, seed=self.seed, game=self.game)
            shown = name
        from cardzoo.agents.options import fit_observation, reads_state_because

        fit_observation(agent, self.game, self.env_options)  # a trained agent of other observation options reads the state
        if getattr(agent, "needs_state", False):  # search, exec: bots, agents of other observation options
            why = reads_state_because(agent, self.game, self.env_options, "plays from the game state")
            raise option_error(lambda n: f"{n('bc_teacher')} {name!r} {why}, not from observations, so its "
                                         f"games cannot be cloned; give a teacher that acts on observations (e.g. {self.game}/rule), "
                                         f"or learn from search with cardzoo label and distil (training/EXPERT.md)")
        diff = option_differences(agent, self.game, self.env_options)
        if diff:
            raise ValueError(f"the teacher {name!r} was trained for other {self.game} options than this run's ({describe(diff)}); "
                             f"train with its options or clone another teacher")
        return shown, agent

    def _check_teacher(self) -> None:
        from cardzoo import agents

        name = self.bc_teacher or f"{self.game}/rule"
        registered = name in agents.available()
        if registered and "/" in name and not name.startswith(f"{self.game}/"):
            fit = [a for a in agents.available() if a.startswith(self.game + "/") or "/" not in a]
            raise option_error(lambda n: f"{n('bc_teacher')} {name!r} does not play {self.game}; give one of {fit} or a saved agent's path")
        if not registered and not Path(name).exists():
            fit = [a for a in agents.available() if a.startswith(self.game + "/") or "/" not in a]
            raise option_error(lambda n: f"{n('bc_teacher')} {name!r} is neither a registered agent nor a saved agent's path "
                                         f"(agents that play {self.game}: {fit})", FileNotFoundError)
        if self.bc_samples == 0:
            raise option_error(lambda n: f"a behaviour-cloning teacher ({n('bc_teacher')}, {n('bc_teacher_options')}) needs "
                                         f"{n('bc_samples')} > 0")
        self.teacher()  # builds it: a bad option fails here, before anything is written


#: What a training run writes into its ``out`` folder; any of them marks an earlier run there.
RUN_FILES = (
    "agent", "model.zip", "history.json", "learning_curve.png", "evaluation.md", "evaluation.json",
    "summary.json", "tb", "checkpoints", "ppo_agent", "expert",
    "evaluation_before_resume.md", "evaluation_before_resume.json",
)


def earlier_run(out: Path) -> list[str]:
    """The names of :data:`RUN_FILES` present in ``out`` (empty if none, or if ``out`` does not exist)."""
    return [name for name in RUN_FILES if (Path(out) / name).exists()]


def check_out_folder(out: Path, resume: str | None = None, overwrite: bool = False) -> None:
    """Refuse to train into a folder that holds an earlier run (README: a run never overwrites another).

    ``out`` may be missing, empty or hold other files; if it holds any of :data:`RUN_FILES`, a
    ``FileExistsError`` names the folder, what is there and the two ways on: ``--resume`` (continue
    that run from one of its checkpoints) or ``--overwrite`` (delete its outputs and start afresh).
    A ``resume`` model from outside ``out`` (not ``out/model.zip`` nor ``out/checkpoints/model_N.zip``)
    may start a new or empty ``out`` but not one that holds a run (``FileExistsError``): it would
    replace that run. A folder whose lock another run holds is refused too (``FileExistsError``).
    ``out`` must not be a file (``NotADirectoryError``); ``resume`` and ``overwrite`` exclude each
    other (``ValueError``).
    """
    out = Path(out)
    if resume is not None and overwrite:
        raise ValueError("--resume and --overwrite exclude each other: resume continues the run in --out, overwrite deletes it")
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"--out {out} is a file, not a folder")
    from .common import check_can_write

    check_can_write(out, "--out", makes_folder=True)  # /proc/x: refused now, not at the run's first file
    busy = held_lock(out)
    if busy is not None:  # a run is writing there now: neither its outputs so far nor --overwrite are the way on
        raise in_use_error(out, busy)
    found = earlier_run(out)
    if found and resume is None and not overwrite:
        models = resumable_models(out)
        if not models:
            raise FileExistsError(
                f"--out {out} holds an earlier run ({', '.join(found)}) with nothing to resume in it (no model.zip, no "
                f"checkpoints/model_N.zip): give --overwrite to delete it and start afresh, or another --out"
            )
        either = f"--resume {models[0]}" + (f" (or {models[1]})" if len(models) > 1 else "")
        raise FileExistsError(
            f"--out {out} holds an earlier run ({', '.join(found)}); give {either} to continue it, --overwrite to "
            f"delete it and start afresh, or another --out"
        )
    if resume is not None and found and Path(resume).resolve().parent not in (out.resolve(), (out / "checkpoints").resolve()):
        # a model of another run: continuing it here would replace this folder's run (its agent, model, evaluation)
        raise FileExistsError(
            f"--out {out} holds another run ({', '.join(found)}) and --resume {resume} is not one of its models "
            f"({out / 'model.zip'} or {out / 'checkpoints'}/model_N.zip): continue that model in its own run folder or "
            f"in a new --out, or give this folder's own model to continue this run"
        )
    if resume is not None:
        later = later_checkpoints(out, resume)
        if later:
            models = [n for n in later if n.startswith("model_")]
            first = f"resume from the latest (--resume {out / 'checkpoints' / models[-1]})" if models else \
                "delete them if they are not wanted"
            raise FileExistsError(
                f"cannot resume {resume} into --out {out}: {out / 'checkpoints'} holds later checkpoints of that run "
                f"({', '.join(later)}), which the new branch would leave beside its own (and a later --resume would mix "
                f"them in). Either {first}, or resume into a new --out (--out NEW --resume {resume}) to keep both"
            )
        final = later_model(out, resume)
        if final is not None:
            raise FileExistsError(
                f"cannot resume {resume} ({model_steps(resume):,} steps) into --out {out}: {out / 'model.zip'} holds a later "
                f"model of {final:,} steps, which this run would replace (with its agent, history and summary). Either "
                f"resume from it (--resume {out / 'model.zip'}), or resume into a new --out (--out NEW --resume {resume}) "
                f"to keep both"
            )


def other_models(resume) -> list[Path]:
    """The resumable models (:func:`resumable_models`) of the run folder that ``resume`` names or lies in
    (``OUT``, ``OUT/model.zip``, ``OUT/checkpoints/model_N.zip``), ``resume`` itself left out: what an
    error about a missing or damaged ``--resume`` file can offer instead."""
    resume = Path(resume)
    out = resume if resume.is_dir() else resume.parent
    if out.name == "checkpoints":
        out = out.parent
    if not out.is_dir():
        return []
    return [m for m in resumable_models(out) if m.resolve() != resume.resolve()]


def held_lock(out: Path) -> str | None:
    """The text (``"PID HOST"``) of ``out/.run.lock`` when another training run holds it; ``None`` when there
    is no lock, or one left by a run whose process on this host is gone (the next run takes it over)."""
    import socket

    lock = Path(out) / ".run.lock"
    try:
        text = lock.read_text().strip()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    pid, _, held_on = text.partition(" ")
    if pid.isdigit() and held_on == socket.gethostname() and not _process_alive(int(pid)):
        return None
    return text


def in_use_error(out: Path, text: str) -> FileExistsError:
    """The refusal of an ``out`` whose lock (content ``text``, ``"PID HOST"``) another run holds."""
    lock = Path(out) / ".run.lock"
    pid, _, held_on = text.partition(" ")
    holder = f"process {pid or '?'}" + (f" on {held_on}" if held_on else "")
    hint = ""
    if pid.isdigit() and not held_on and not _process_alive(int(pid)):
        hint = (f"; no process {pid} runs on this machine, so if the run was here it was killed: delete "
                f"the lock file to go on")
    return FileExistsError(
        f"--out {out} is in use by another training run ({holder}; lock file {lock}): wait for it, "
        f"give another --out, or delete the lock file if no run is using the folder{hint}"
    )


def _process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this machine (one of another user counts as alive)."""
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, OSError):
        return False
    return True


def resumable_models(out: Path) -> list[Path]:
    """The model zips in ``out`` that ``--resume`` can continue into ``out``: ``out/model.zip`` and the
    latest ``out/checkpoints/model_N.zip`` (unless ``model.zip`` went further: see :func:`later_model`)."""
    out = Path(out)
    final = out / "model.zip"
    found = [final] if final.is_file() else []
    ck = out / "checkpoints"
    steps = [(n, p) for p in ck.glob("model_*.zip") if p.is_file()
             and (n := _checkpoint_step(p.name, "model_", ".zip")) is not None] if ck.is_dir() else []
    if steps:
        latest = max(steps)[1]
        if not found or later_model(out, latest) is None:
            found.append(latest)
    return found


def model_steps(path) -> int | None:
    """The PPO steps (``num_timesteps``) a model zip saved by SB3 records in its ``data`` entry, read
    without loading torch; ``None`` if ``path`` is no such zip."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            return int(json.loads(z.read("data").decode())["num_timesteps"])
    except (zipfile.BadZipFile, KeyError, TypeError, ValueError, OSError):  # nothing to compare
        return None


def final_model_steps(out: Path) -> int | None:
    """The steps of the run's final model in ``out``: ``out/model.zip``'s, else those of ``summary.json``
    (written with it); ``None`` when neither records any."""
    steps = model_steps(Path(out) / "model.zip") if (Path(out) / "model.zip").is_file() else None
    if steps is None and (Path(out) / "summary.json").is_file():
        try:
            steps = int(json.loads((Path(out) / "summary.json").read_text())["steps"])
        except (ValueError, KeyError, TypeError, OSError):
            steps = None
    return steps


def later_model(out: Path, resume) -> int | None:
    """The steps of ``out/model.zip`` (or, without it, of ``out/summary.json``) when they are more than
    ``resume``'s (a model zip other than ``out/model.zip`` itself): the run in ``out`` went further than
    the model resumed, and resuming into ``out`` would replace its model, agent, history and summary.
    ``None`` otherwise (also when either step count cannot be read)."""
    out, resume = Path(out), Path(resume)
    if resume.resolve() == (out / "model.zip").resolve():
        return None
    final, start = final_model_steps(out), model_steps(resume)
    return final if final is not None and start is not None and final > start else None


def later_checkpoints(out: Path, resume) -> list[str]:
    """The checkpoints (``model_M.zip``, ``agent_M``) in ``out/checkpoints`` later than ``resume`` when it
    is one of them (``out/checkpoints/model_N.zip``, ``M > N``), sorted by step; else ``[]``."""
    ck = Path(out) / "checkpoints"
    resume = Path(resume)
    step = _checkpoint_step(resume.name, "model_", ".zip")
    if step is None or not ck.is_dir() or resume.resolve().parent != ck.resolve():
        return []
    found = []
    for p in ck.iterdir():
        m = _checkpoint_step(p.name, "model_", ".zip") if p.is_file() else _checkpoint_step(p.name, "agent_", "")
        if m is not None and m > step:
            found.append((m, p.name))
    return [name for _, name in sorted(found)]


def _checkpoint_step(name: str, prefix: str, suffix: str) -> int | None:
    core = name[len(prefix):len(name) - len(suffix)] if name.startswith(prefix) and name.endswith(suffix) else ""
    return int(core) if core.isdigit() else None


def clear_run(out: Path) -> None:
    """Delete an earlier run's outputs (:data:`RUN_FILES`) from ``out``, leaving other files alone."""
    import shutil

    for name in earlier_run(out):
        p = Path(out) / name
        shutil.rmtree(p) if p.is_dir() else p.unlink()
