"""cardzoo: five traditional card games as PettingZoo environments over batched kernels, with
agents, training and evaluation.

This file is the ``cardzoo`` package itself (pyproject maps the repository root to ``cardzoo``,
so ``envs/``, ``agents/`` and ``training/`` install as ``cardzoo.envs``, ``cardzoo.agents`` and
``cardzoo.training``). It exposes the entry points people reach for first::

    import cardzoo
    env = cardzoo.make("all_fours")                 # PettingZoo AEC env (cardzoo.envs.all_fours_v0)
    k = cardzoo.kernel("all_fours")                 # the batched kernel
    venv = cardzoo.make_vec("all_fours", 64)        # a gymnasium VectorEnv over the kernel
    agent = cardzoo.load_agent("all_fours/rule")    # an agent by registry name or saved path
    cardzoo.GAMES, cardzoo.__version__

Importing ``cardzoo`` (or ``cardzoo.envs``) needs only numpy, gymnasium and pettingzoo: it never
imports torch, stable-baselines3 or the web libraries. It also registers the single-seat Gymnasium
envs ``cardzoo/<Game>-v0`` (see :data:`GYM_IDS`).
"""

from __future__ import annotations

from importlib import metadata as _metadata

try:
    __version__: str = _metadata.version("cardzoo")
except _metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

#: extra -> the modules it provides (a missing one is reported by :func:`require_extra`)
EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib", "safetensors", "tqdm", "rich"),
    "web": ("fastapi", "uvicorn", "starlette", "markdown_it"),
    "test": ("pytest", "httpx", "selenium", "nbmake"),
    "rllib": ("ray", "torch"),
}


class MissingExtraError(ImportError):
    """A feature needs an optional dependency group (``pip install "cardzoo[EXTRA]"``) that is not
    installed. ``extra`` names the group, ``module`` the missing module, ``feature`` what needed it."""

    def __init__(self, extra: str, module: str, feature: str = ""):
        self.extra, self.module, self.feature = extra, module, feature
        what = f"{feature} needs" if feature else "this needs"
        super().__init__(
            f"{what} the [{extra}] extra (module {module!r} is not installed): pip install \"cardzoo[{extra}]\"",
            name=module,
        )


def extra_of(module: str) -> str | None:
    """The extra that provides ``module`` (a dotted name is looked up by its top level), or None."""
    top = module.split(".", 1)[0]
    return next((extra for extra, mods in EXTRAS.items() if top in mods), None)


def require_extra(extra: str, feature: str = "") -> None:
    """Raise :class:`MissingExtraError` unless every module of ``extra`` can be imported;
    ``ValueError`` for an ``extra`` not in :data:`EXTRAS`.

    Example: ``require_extra("train", "cardzoo train")`` before a command that trains."""
    import importlib.util

    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; extras: {sorted(EXTRAS)}")
    for mod in EXTRAS[extra]:
        if importlib.util.find_spec(mod) is None:
            raise MissingExtraError(extra, mod, feature)


from .envs import GAMES, kernel, make  # noqa: E402  (after the helpers the subpackages use)

#: game -> Gymnasium id of its single-seat env (:class:`cardzoo.training.single_agent.SingleSeatEnv`:
#: one seat learns, named agents play the others). ``gymnasium.make(GYM_IDS[game], seat=0,
#: partner="random", opponents="random", **game_options)`` after ``import cardzoo``.
GYM_IDS: dict[str, str] = {
    "all_fours": "cardzoo/AllFours-v0",
    "aluette": "cardzoo/Aluette-v0",
    "avinas": "cardzoo/Avinas-v0",
    "ottocento": "cardzoo/Ottocento-v0",
    "pyanitsa": "cardzoo/Pyanitsa-v0",
}


def register_gymnasium() -> None:
    """Register :data:`GYM_IDS` with Gymnasium (done on ``import cardzoo``; calling it again is a
    no-op). The entry point is imported only when an env is made."""
    import gymnasium

    for game, gym_id in GYM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="cardzoo.training.single_agent:registered_env",
                kwargs={"registered_game": game, "registered_id": gym_id},
            )


def load_agent(name: str, **options):
    """An agent by registry name (``"all_fours/rule"``, ``"random"``, ...) or the path of a saved
    agent; ``options`` are the game options and the agent's own parameters (``n_det=`` of a search:
    :func:`cardzoo.agents.registry.agent_parameters`; see :func:`cardzoo.agents.load`). Trained policies
    need the ``[train]`` extra (:class:`MissingExtraError` names it). ``ValueError`` for an unknown
    name or option (listing the agent's parameters and the game's options), ``FileNotFoundError``
    naming a missing path, ``TypeError`` for what is neither a name nor a path (e.g. ``None``)."""
    from .agents import load

    return load(name, **options)


def make_vec(
    game: str,
    num_envs: int = 8,
    opponents="random",
    *,
    seed: int | None = None,
    learner_side: int | None = None,
    privileged: bool = False,
    skip_forced: bool = False,
    autoreset_mode: str = "NextStep",
    illegal_action: str = "raise",
    **options,
):
    """A Gymnasium ``VectorEnv`` of ``num_envs`` games of ``game`` in lockstep over the batched kernel
    (:class:`cardzoo.envs.core.vector.KernelVectorEnv`, documented in ``envs/core/README.md``).

    The learner plays one side (a team, or one seat in a game without teams), drawn at every deal
    unless ``learner_side`` fixes it; ``opponents`` play the others, in batch: an agent name or path
    (``"random"``, seeded with ``seed``; ``"all_fours/rule"``, a saved agent's path: loaded with
    ``cardzoo.load_agent``), an agent, an ``act(obs, mask)`` callable, or a list / dict (name -> one of those)
    to draw one per deal uniformly (a name listed twice is drawn twice as often). Observations ``float32[N, D]`` in ``[0, 1]``, actions ``int[N]``,
    masks ``infos["action_mask"]`` (``bool[N, A]``); ``autoreset_mode`` ``"NextStep"`` (default)
    or ``"SameStep"``; ``illegal_action`` ``"raise"`` (default) or ``"lose"`` (an illegal action
    loses that game, reward -1). ``options`` are the game's options. ``ValueError`` for an unknown game,
    option or agent name.

    Example::

        envs = cardzoo.make_vec("all_fours", num_envs=256, opponents="all_fours/rule", seed=0)
        obs, infos = envs.reset()
        obs, rew, term, trunc, infos = envs.step(infos["action_mask"].argmax(axis=1))
    """
    from .envs import kernel_class
    from .envs.core.kernel import check_option_names
    from .envs.core.vector import KernelVectorEnv, OpponentSet, check_vector_seed

    seed = check_vector_seed(seed)  # before the opponents are loaded with it (numpy's own errors otherwise)
    # a misspelt parameter (num_env=4) is told make_vec's own parameters too, not the game's options alone
    own = ("num_envs", "opponents", "seed", "learner_side", "privileged", "skip_forced", "autoreset_mode", "illegal_action")
    check_option_names(kernel_class(game), options, own, "make_vec")
    k = kernel(game, **options)

    def act_fn(x):
        from .agents.base import Agent
        from .agents.options import check_layout
        from .training.common import check_agent_game, refuse_exec_bot, resolve_agent

        refuse_exec_bot(x, "an opponent of the vector env")
        if isinstance(x, str):  # refuses an agent of another game, by name or by its saved metadata
            x = resolve_agent(x, options, seed=seed, game=game)
        if isinstance(x, Agent):
            label = getattr(x, "name", repr(x))
            check_agent_game(x, game, label)
            # a trained agent object is checked as a name is (load_agent): options that give another
            # observation layout of the same size were played silently on an encoding it never saw
            check_layout(x, game, options, f"agent {label!r}")
            return x.act
        if callable(x):
            return x
        raise ValueError(f"opponent {x!r} is not an agent name, an agent or an act(obs, mask) callable")

    if isinstance(opponents, dict):
        opp = OpponentSet({str(n): act_fn(a) for n, a in opponents.items()})
    elif isinstance(opponents, (list, tuple)):
        # one draw per deal uniformly over the list: a name given twice is one opponent drawn twice as often
        names = [a if isinstance(a, str) else f"opponent_{i}" for i, a in enumerate(opponents)]
        first: dict = {}
        for n, a in zip(names, opponents):
            first.setdefault(n, a)
        opp = OpponentSet({n: act_fn(a) for n, a in first.items()}, weights=[names.count(n) for n in first])
    else:
        opp = OpponentSet({opponents if isinstance(opponents, str) else "opponent_0": act_fn(opponents)})
    return KernelVectorEnv(
        k, num_envs, opp, learner_side=learner_side, seed=seed, privileged=privileged, skip_forced=skip_forced,
        autoreset_mode=autoreset_mode, illegal_action=illegal_action,
    )


register_gymnasium()


def __getattr__(name: str):
    """``cardzoo.agents`` and ``cardzoo.training`` after a plain ``import cardzoo``, as the pages write
    them (``cardzoo.agents.load(...)``): imported on first use, so ``import cardzoo`` stays light."""
    if name in ("agents", "training"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EXTRAS",
    "GAMES",
    "GYM_IDS",
    "MissingExtraError",
    "__version__",
    "extra_of",
    "kernel",
    "load_agent",
    "make",
    "make_vec",
    "require_extra",
]
