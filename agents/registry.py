"""Agents by name: ``load("all_fours/rule")``, ``available()``, and ``register(name, factory)``.

Built-in names:

* ``"random"``: :class:`~cardzoo.agents.random_agent.RandomAgent` for any game (accepts ``seed=``;
  game options are accepted and unused, since it reads only the action mask).
* ``"all_fours/random"``: the same, after validating the All Fours options it is given.
* ``"all_fours/rule"``: :class:`~cardzoo.agents.all_fours_rule.AllFoursRuleAgent`.
* ``"all_fours/pimc"``: :class:`~cardzoo.agents.search.PIMCAgent`, PIMC search (32 determinizations,
  rule-bot rollouts); it reads the game state, so it plays in the arena, not from observations.
  ``rollout_opponents="random"`` makes its rollouts play the opponents uniformly at random.
  ``"all_fours/pimc-bids"``: the same search for the bidding decisions only (stand/beg, give
  one/run), the rule bot's card play elsewhere.
* ``"ottocento/random"``, ``"ottocento/rule"``: the same for Ottocento
  (:class:`~cardzoo.agents.ottocento_rule.OttocentoRuleAgent`); ``"ottocento/ppo"``: the shipped trained agent.
* ``"avinas/random"``, ``"avinas/rule"``: the same for Avinas
  (:class:`~cardzoo.agents.avinas_rule.AvinasRuleAgent`); ``"avinas/ppo"``: the shipped trained agent
  (trained with ``honesty="mask"``, kept honest by :class:`~cardzoo.agents.honest.HonestCalls`).
* ``"aluette/random"``, ``"aluette/rule"``: the same for Aluette (:class:`~cardzoo.agents.aluette_rule.AluetteRuleAgent`);
  ``"aluette/ppo"``: the shipped trained agent (signals on).
* ``"pyanitsa/random"``, ``"pyanitsa/rule"`` (:class:`~cardzoo.agents.pyanitsa_rule.PyanitsaRuleAgent`),
  ``"pyanitsa/ppo"`` (shipped, ``collect_order="winner_chooses"``; one agent per ``num_players``).
* ``"avinas/pimc"``, ``"ottocento/pimc"``, ``"aluette/pimc"``, ``"pyanitsa/pimc"``: PIMC search
  (8 determinizations by default, the game's rule bot in the rollouts), like ``all_fours/pimc``;
  ``pyanitsa/pimc`` also takes ``rollout_opponents`` (``"rule"``, ``"random"``, ``"mixed"``).
* ``"GAME/ismcts"`` for every game: :class:`~cardzoo.agents.ismcts.ISMCTSAgent`, single-observer
  information-set MCTS (``n_iter=64`` iterations, rule-bot rollouts; ``agents/SEARCH.md``).

Extension point: ``register("all_fours/ppo", factory)`` where ``factory(**env_options)``
returns an :class:`~cardzoo.agents.base.Agent`. A name that is not registered but is an existing
file or folder is loaded as a saved trained policy with ``cardzoo.agents.policy.load_policy_agent``
(imported lazily, so this module works without torch installed).
"""

from __future__ import annotations

import inspect
import os
import re
from pathlib import Path
from collections.abc import Callable
from typing import Any

from cardzoo.envs.core.kernel import check_seed

from .base import Agent

__all__ = ["agent_name", "agent_parameters", "available", "load", "register", "unregister"]

Factory = Callable[..., Agent]
_REGISTRY: dict[str, Factory] = {}

# names ending like this are taken for paths even when the file does not exist
_PATH_SUFFIXES = (".zip", ".pt", ".pth", ".safetensors", ".json", ".ckpt", ".pkl")


def register(name: str, factory: Factory, *, overwrite: bool = False) -> None:
    """Make ``load(name, **env_options)`` return ``factory(**env_options)``.

    Args:
        name: ``"<game>/<agent>"`` (e.g. ``"all_fours/ppo"``) or a game-independent name.
        factory: callable taking the env options as keywords, returning an ``Agent``.
        overwrite: allow replacing an existing name (else ``ValueError``).

    Raises ``ValueError`` for a name that is not a non-empty string or is already registered
    (without ``overwrite``), ``TypeError`` for a ``factory`` that is not callable; :func:`load` raises
    ``TypeError`` when the factory returns something that is not an agent.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"agent name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise TypeError(f"factory for {name!r} must be callable, got {factory!r}")
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"agent name {name!r} is already registered; pass overwrite=True to replace it")
    _REGISTRY[name] = factory


def unregister(name: str) -> None:
    """Remove ``name`` from the registry (``KeyError`` if absent)."""
    del _REGISTRY[name]


def available() -> list[str]:
    """Sorted agent names: the registered ones and those of installed packages' ``cardzoo.agents``
    entry points (an ``exec:COMMAND`` agent is not listed: any command can be one)."""
    from .external import entry_point_agents

    return sorted(set(_REGISTRY) | set(entry_point_agents()))


def _entry_point(name: str) -> Factory | None:
    """The factory an installed package registers as ``name`` in the entry-point group
    ``cardzoo.agents`` (``None`` if none does); its result is checked to be an agent."""
    from .external import entry_point_agents

    ep = entry_point_agents().get(name)
    if ep is None:
        return None

    def factory(**env_options: Any) -> Agent:
        try:
            made = ep.load()
        except Exception as e:  # noqa: BLE001 - a broken plugin can fail in many ways; name it
            raise ValueError(f"agent {name!r} (entry point {ep.value!r} of group cardzoo.agents) does not load: {type(e).__name__}: {e}") from e
        agent = made(**env_options) if not isinstance(made, Agent) else made
        if not isinstance(agent, Agent) and not callable(getattr(agent, "act", None)):
            raise ValueError(f"agent {name!r} (entry point {ep.value!r}) made {type(agent).__name__}, not an agent with act()")
        return agent

    return factory


def _looks_like_path(name: str) -> bool:
    if name.startswith((".", "/", "~")) or name.endswith(_PATH_SUFFIXES) or "\\" in name:
        return True
    if os.sep in name or "/" in name:
        # "all_fours/xyz" is a (mistyped) agent name, "runs/af/final" a path
        from cardzoo.envs import GAMES

        return name.split("/", 1)[0] not in GAMES
    return False


def takes_seed(name: str) -> bool:
    """Whether the registered agent ``name`` draws random numbers and takes a ``seed`` (random agents,
    PIMC search); ``False`` for unknown names."""

    factory = _REGISTRY.get(name)
    if factory is None:
        return False
    return "seed" in inspect.signature(factory).parameters


def _forwards(target: str) -> Callable[[Factory], Factory]:
    """Mark a factory that passes its ``**env_options`` on to the agent class ``target``
    (``"module:Class"``, imported only when :func:`agent_parameters` looks): the class's own named
    parameters (``params``, ``rollout_opponents``, ...) are then the factory's too."""

    def mark(factory: Factory) -> Factory:
        factory.forwards_to = target
        return factory

    return mark


def _named_parameters(fn) -> set[str]:
    """The parameters of ``fn`` that are given by name (not ``*args`` / ``**kwargs``), and those of
    the class a :func:`_forwards` factory passes its keywords on to."""
    import importlib

    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or an odd callable: nothing to say
        return set()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    names = {p.name for p in sig.parameters.values() if p.kind in kinds}
    target = getattr(fn, "forwards_to", None)
    if target is not None:
        module, _, cls = target.partition(":")
        names |= _named_parameters(getattr(importlib.import_module(module, __package__), cls))
    return names


def agent_parameters(name: str) -> list[str] | None:
    """The sorted parameters of the registered agent ``name`` that are its own, not the game's options:
    those of its factory's signature (``seed``, ``n_det``, ``search``, ...), and those of the agent class
    it passes its keywords on to (``all_fours/rule``: ``params``, ``rollout_opponents``); ``None`` for a
    name that is not registered. ``load(name, **kw)`` takes these and the game's options."""
    factory = _REGISTRY.get(name)
    return None if factory is None else sorted(_named_parameters(factory))


def _explain_unknown(e: ValueError, name: str, options: dict) -> ValueError | None:
    """The error to raise instead of ``e`` (a factory's ``unknown option(s) [...]; valid options: [...]``,
    which lists the game's options only) for agent ``name`` given ``options``: the unknown names, with the
    agent's parameters and the game's options listed apart (and the closest name, if one is close);
    ``None`` (keep ``e``) when ``e`` says something else, or when every name given is known."""
    from cardzoo.envs import GAMES, kernel_class
    from cardzoo.envs.core.kernel import did_you_mean

    text = str(e)
    found = re.search(r"unknown option\(s\) \[.*?\](?: \(did you mean [^)]*\))?; valid options: \[[^\]]*\](; the rule bot's own options: [\w, ]+)?", text)
    game = name.split("/", 1)[0]
    params = agent_parameters(name)
    if found is None or game not in GAMES or params is None:
        return None
    cls = kernel_class(game)
    game_options = sorted(cls.OPTIONS)
    known = set(params) | set(game_options) | set(getattr(cls, "OPTION_ALIASES", {}))
    unknown = sorted(k for k in options if k not in known)
    if not unknown:
        return None
    said = f"unknown option(s) {unknown} for {name}{did_you_mean(unknown, known)}; agent parameters: {params}; game options: {game_options}"
    return ValueError(text[: found.start()] + said + text[found.end():])


def agent_name(name) -> str:
    """``name`` (of :func:`load`) as a ``str``: a registered agent name, or the path of a saved agent
    as a ``str`` or ``os.PathLike`` (``pathlib.Path``). Anything else (``None``, a number, an agent
    object) raises ``TypeError`` saying what is accepted."""
    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    if not isinstance(name, str):
        raise TypeError(
            f"an agent is named by a registered agent name such as 'all_fours/rule' (cardzoo.agents.available()) "
            f"or the path of a saved agent folder (str or pathlib.Path), got {name!r}"
        )
    return name


def load(name: str | os.PathLike, **env_options: Any) -> Agent:
    """The agent registered as ``name``, or the trained policy saved at path ``name``.

    Args:
        name: a registered name (see :func:`available`) or a path to a saved policy (``str`` or
            ``pathlib.Path``).
        **env_options: options of the game (``RULES.md`` §8 of the game), passed to the
            factory (the rule agents need them to read the observation layout), and the agent's
            own parameters (:func:`agent_parameters`: ``seed``, ``n_det``, ...). A saved policy
            holds its own game and options in its metadata: for a path, as for a shipped
            ``<game>/ppo``, the options are checked against that game (:func:`check_trained_options`:
            ``game=`` must be its game, a bad option is a ``ValueError``, options it was not trained
            for warn) and only ``seed`` is passed on.

    Raises:
        ValueError: unknown name (the message lists the available names), bad env option (an
            unknown one is listed with the agent's parameters and the game's options),
            or a path whose content is not a valid saved agent (the message names the path).
        FileNotFoundError: ``name`` looks like a path (or is a ``pathlib.Path``) and nothing exists there.
        TypeError: ``name`` is neither a ``str`` nor a path (e.g. ``None``; :func:`agent_name`), or
            its registered factory returned no agent (nothing with ``act``).
    """
    given_path = isinstance(name, os.PathLike)
    name = agent_name(name)
    if "seed" in env_options:  # the envs' one seed check: True or 1.5 are not seeds, -1 is named as the seed
        env_options["seed"] = check_seed(env_options["seed"])
    if name in _REGISTRY:
        factory = _REGISTRY[name]
        if "game" in env_options and not getattr(factory, "checks_game", False) and "game" not in inspect.signature(factory).parameters:
            _drop_game(name, env_options)  # kernel(game, game=...) said "got multiple values for argument 'game'"
        try:
            return _an_agent(name, _REGISTRY[name](**env_options))
        except ValueError as e:  # a misspelt agent parameter was told only the game's options
            better = _explain_unknown(e, name, env_options)
            if better is None:
                raise
            raise better from None
    if name.startswith("exec:"):
        from .external import ExecAgent

        return ExecAgent(name[len("exec:"):], name=name)
    plugin = _entry_point(name)
    if plugin is not None:
        return _an_agent(name, plugin(**env_options))
    path = os.path.expanduser(name)
    if os.path.exists(path):
        return _load_path(path, env_options)
    if given_path or _looks_like_path(name):
        raise FileNotFoundError(
            f"no agent file or folder at {name!r} (and no registered agent of that name; available: {available()})"
        )
    raise ValueError(f"unknown agent {name!r}; available agents: {available()}, or the path of a saved policy")


def _an_agent(name: str, agent):
    """``agent``, made by the factory registered (or the plugin installed) as ``name``; ``TypeError`` if
    it is no agent (no ``act(observation, action_mask)``): a factory returning ``None`` or its class
    was only found at the first move."""
    if not callable(getattr(agent, "act", None)) or isinstance(agent, type):
        raise TypeError(f"the factory of agent {name!r} returned {agent!r}, not an agent "
                        "(an object with act(observation, action_mask))")
    return agent


def _drop_game(name: str, env_options: dict) -> None:
    """Remove a ``game=`` option from ``env_options`` for the registered agent ``name``, which knows its game
    (``GAME/...``: ``game`` must be it, as for trained agents) or plays any game (``random``, ``lowest``:
    ``game`` must be one); ``ValueError`` otherwise."""
    from cardzoo import envs

    given = env_options.pop("game")
    own = name.split("/", 1)[0] if "/" in name else None
    if own is not None and given != own:
        raise ValueError(f"{name} plays {own}; game={given!r} given (leave game= out, or give game={own!r})")
    if own is None and given not in envs.GAMES:
        raise ValueError(f"game={given!r} is not a game; available games: {sorted(envs.GAMES)} (or leave game= out)")


def _load_path(path: str, env_options: dict) -> Agent:
    try:
        from .policy import load_policy_agent  # lazy: torch is only needed for trained policies
    except ImportError as e:
        raise ValueError(
            f"cannot load the saved agent at {path!r}: the trained-policy loader "
            f"(agents.policy.load_policy_agent) is not available ({e})"
        ) from e
    # a saved policy carries its own game options in its metadata; only seed= is passed on
    kwargs = {"seed": env_options["seed"]} if "seed" in env_options else {}
    game_options = {k: v for k, v in env_options.items() if k != "seed"}
    try:
        agent = load_policy_agent(path, **kwargs)
    except (FileNotFoundError, ValueError) as e:
        shown = str(Path(path))  # the loader names the path as pathlib writes it ('./' as '.')
        if path in str(e) or str(e).startswith(f"{shown} ") or f" {shown}:" in str(e):
            raise
        raise ValueError(f"{path!r} is not a valid saved agent: {e}") from e
    except Exception as e:  # noqa: BLE001 - a corrupt file can fail in many ways; name the path
        raise ValueError(f"{path!r} is not a valid saved agent: {type(e).__name__}: {e}") from e
    if not isinstance(agent, Agent) and not callable(getattr(agent, "act", None)):
        raise ValueError(f"{path!r} did not load as an agent (got {type(agent).__name__})")
    game = agent.meta.get("game") if isinstance(getattr(agent, "meta", None), dict) else None
    if game is not None:
        check_trained_options(agent, game, game_options, f"the saved agent at {path!r}", path, stacklevel=4)
    elif game_options:
        raise ValueError(f"the saved agent at {path!r} records no game, so it takes no game options; got {sorted(game_options)}")
    return agent


def check_trained_options(agent, game: str, env_options: dict, label: str, short: str, stacklevel: int = 3) -> None:
    """The option check of a trained agent of ``game`` (called ``label`` in errors, ``short`` in the
    warning) loaded with ``env_options``,
    the same for a saved-agent path and a shipped ``<game>/ppo``: a ``game=`` option must be ``game``;
    the others must be valid ``game`` options (``ValueError`` naming the bad one), give the observation
    layout it was trained on (:class:`~cardzoo.agents.options.LayoutMismatchError`), and warn
    (:class:`~cardzoo.agents.options.OptionsMismatchWarning`) if it was trained for others."""
    from cardzoo import envs

    from .options import check_layout, warn_if_differs

    env_options = dict(env_options)
    if "game" in env_options:
        given = env_options.pop("game")
        if given != game:
            raise ValueError(f"{label} plays {game}; game={given!r} given (leave game= out, or give game={game!r})")
    if not env_options:
        return
    try:
        envs.kernel(game, **env_options)
    except ValueError as e:
        raise ValueError(f"{label} plays {game}, and these are not valid {game} options: {e}") from None
    check_layout(agent, game, env_options, label)  # LayoutMismatchError when they change the observation
    warn_if_differs(agent, game, env_options, short, stacklevel=_caller_outside(stacklevel) + 1)


def _caller_outside(default: int) -> int:
    """The ``stacklevel`` (counted from :func:`check_trained_options`'s caller's view, as ``default``) of the
    first frame outside cardzoo's own modules (``agents/``, ``envs/``, ``training/``, the package's
    ``__init__.py``), so that a warning names the user's line whether the agent was loaded through
    :func:`load`, ``cardzoo.load_agent`` or a registered factory; ``default`` when every frame is cardzoo's
    (its command line)."""
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    own = tuple(os.path.join(root, d) + os.sep for d in ("agents", "envs", "training"))
    frame, level = sys._getframe(2), 2  # level 1: check_trained_options; level 2: its caller
    while frame is not None:
        file = os.path.abspath(frame.f_code.co_filename)
        if not (file.startswith(own) or file == os.path.join(root, "__init__.py")):
            return level
        frame, level = frame.f_back, level + 1
    return default


# ---------------------------------------------------------------- built-ins


def _random(seed=None, **env_options) -> Agent:
    """RandomAgent for any game. It reads only the action mask, so the game options that callers
    such as the arena pass to every agent are accepted and not needed (``all_fours/random``
    validates them)."""
    from .random_agent import RandomAgent

    return RandomAgent(seed)


def _game_random(game: str) -> Factory:
    def factory(seed=None, **env_options) -> Agent:
        from cardzoo import envs

        from .random_agent import RandomAgent

        envs.kernel(game, **env_options)  # validates the options (ValueError names the bad one)
        return RandomAgent(seed)

    factory.__doc__ = f"RandomAgent for {game} (validates the {game} options)."
    return factory


@_forwards(".all_fours_rule:AllFoursRuleAgent")
def _all_fours_rule(**env_options) -> Agent:
    from .all_fours_rule import AllFoursRuleAgent

    return AllFoursRuleAgent(**env_options)


def _all_fours_pimc(seed=None, n_det: int = 32, search: str = "all", rollout_opponents: str | None = "rule", **env_options) -> Agent:
    from cardzoo import envs

    from .all_fours_rule import AllFoursRuleAgent
    from .search import PIMCAgent

    kernel = envs.kernel("all_fours", **env_options)
    rollout = AllFoursRuleAgent(rollout_opponents=rollout_opponents, **env_options)
    return PIMCAgent(kernel, rollout, n_det=n_det, seed=seed, search=search)


def _all_fours_pimc_bids(seed=None, n_det: int = 32, **env_options) -> Agent:
    for own in ("search", "rollout_opponents"):  # fixed by the name: search="phase", rule-bot rollouts
        if own in env_options:
            raise ValueError(f"all_fours/pimc-bids searches the bids with rule-bot rollouts; {own}= is not one of its "
                             f"parameters (['n_det', 'seed']): use all_fours/pimc with {own}= for another search")
    return _all_fours_pimc(seed=seed, n_det=n_det, search="phase", **env_options)


register("random", _random)
register("all_fours/random", _game_random("all_fours"))
register("all_fours/rule", _all_fours_rule)
register("all_fours/pimc", _all_fours_pimc)
register("all_fours/pimc-bids", _all_fours_pimc_bids)


@_forwards(".ottocento_rule:OttocentoRuleAgent")
def _ottocento_rule(**env_options) -> Agent:
    from .ottocento_rule import OttocentoRuleAgent

    return OttocentoRuleAgent(**env_options)


register("ottocento/random", _game_random("ottocento"))
register("ottocento/rule", _ottocento_rule)


@_forwards(".avinas_rule:AvinasRuleAgent")
def _avinas_rule(**env_options) -> Agent:
    from .avinas_rule import AvinasRuleAgent

    return AvinasRuleAgent(**env_options)


register("avinas/random", _game_random("avinas"))
register("avinas/rule", _avinas_rule)


@_forwards(".aluette_rule:AluetteRuleAgent")
def _aluette_rule(**env_options) -> Agent:
    from .aluette_rule import AluetteRuleAgent

    return AluetteRuleAgent(**env_options)


register("aluette/random", _game_random("aluette"))
register("aluette/rule", _aluette_rule)


@_forwards(".pyanitsa_rule:PyanitsaRuleAgent")
def _pyanitsa_rule(direction=None, **env_options) -> Agent:
    from .pyanitsa_rule import PyanitsaRuleAgent

    return PyanitsaRuleAgent(direction, **env_options)


register("pyanitsa/random", _game_random("pyanitsa"))
register("pyanitsa/rule", _pyanitsa_rule)


def _game_pimc(game: str, rule: Factory) -> Factory:
    def factory(seed=None, n_det: int = 8, search: str = "all", **env_options) -> Agent:
        from cardzoo import envs

        from .search import PIMCAgent

        return PIMCAgent(envs.kernel(game, **env_options), rule(**env_options), n_det=n_det, seed=seed, search=search)

    factory.__doc__ = (f"PIMC search for {game} (:class:`~cardzoo.agents.search.PIMCAgent`): ``n_det`` "
                       f"determinizations (default 8), {game}/rule rollouts; it reads the game state.")
    return factory


# PIMC search for the other games (issue 16): their kernels' determinize(), rule-bot rollouts
for _g, _rule in (("avinas", _avinas_rule), ("ottocento", _ottocento_rule), ("aluette", _aluette_rule)):
    register(f"{_g}/pimc", _game_pimc(_g, _rule))


def _pyanitsa_pimc(seed=None, n_det: int = 8, search: str = "all", rollout_opponents: str | None = "rule", **env_options) -> Agent:
    """PIMC search for pyanitsa (:class:`~cardzoo.agents.search.PIMCAgent`): ``n_det`` determinizations
    (default 8), pyanitsa/rule rollouts whose other seats follow ``rollout_opponents`` (``"rule"``,
    ``"random"`` or ``"mixed"``: :class:`~cardzoo.agents.pyanitsa_rule.PyanitsaRuleAgent`); it reads the game state.

    Raises ``ValueError`` for a bad game option (naming the valid values), ``n_det``, ``search``
    or ``rollout_opponents`` (also ``"random"``/``"mixed"`` with ``collect_order="random"``)."""
    from cardzoo import envs

    from .pyanitsa_rule import PyanitsaRuleAgent
    from .search import PIMCAgent

    kernel = envs.kernel("pyanitsa", **env_options)  # first: its errors name the game's options (the rule bot's add its own)
    rollout = PyanitsaRuleAgent(rollout_opponents=rollout_opponents, **env_options)
    return PIMCAgent(kernel, rollout, n_det=n_det, seed=seed, search=search)


register("pyanitsa/pimc", _pyanitsa_pimc)


def _game_ismcts(game: str, rule: Factory) -> Factory:
    def factory(seed=None, n_iter: int = 64, wave: int = 8, c: float = 0.7, search: str = "all", guided: bool = True,
                others: str = "search", shared: bool = False, widen: float = 0.0, **env_options) -> Agent:
        from cardzoo import envs

        from .ismcts import ISMCTSAgent

        return ISMCTSAgent(envs.kernel(game, **env_options), rule(**env_options), n_iter=n_iter, wave=wave, c=c,
                           seed=seed, search=search, guided=guided, others=others,
                           shared=shared, widen=widen)

    factory.__doc__ = (f"SO-ISMCTS for {game} (:class:`~cardzoo.agents.ismcts.ISMCTSAgent`): ``n_iter`` iterations "
                       f"(default 64) in waves of ``wave``, {game}/rule rollouts; it reads the game state.")
    return factory


# information-set MCTS for every game (issue 16; agents/SEARCH.md)
for _g, _rule in (("all_fours", _all_fours_rule), ("avinas", _avinas_rule), ("ottocento", _ottocento_rule),
                  ("aluette", _aluette_rule), ("pyanitsa", _pyanitsa_rule)):
    register(f"{_g}/ismcts", _game_ismcts(_g, _rule))


SHIPPED = os.path.join(os.path.dirname(__file__), "shipped")


def _shipped(game: str, folder: str, ignore: tuple = ()) -> Factory:
    """Factory of a trained agent shipped in ``agents/shipped/<folder>``.

    The env options given are checked against the observation layout the agent was trained
    on (a different layout, e.g. another ``target_score``, raises ``ValueError``), then against
    the options it was trained for (others warn, :class:`~cardzoo.agents.options.OptionsMismatchWarning`;
    ``ignore``: options its wrapper makes fit).
    """

    def factory(seed=None, **env_options) -> Agent:
        from .policy import load_policy_agent

        path = os.path.join(SHIPPED, folder)
        agent = load_policy_agent(path, seed=seed)
        agent.options_ignored = tuple(ignore)
        check_trained_options(agent, game, env_options, f"the shipped agent {game}/ppo (agents/shipped/{folder})",
                              f"{game}/ppo")
        return agent

    factory.__doc__ = f"The shipped trained {game} agent in agents/shipped/{folder}."
    factory.checks_game = True  # a game= option is checked as a saved agent's is (check_trained_options)
    return factory


def shipped_path(name: str) -> str | None:
    """The folder of a shipped trained agent's network (``"all_fours/ppo"`` ->
    ``agents/shipped/all_fours_ppo``), or ``None`` if ``name`` is not one."""
    game, _, kind = name.partition("/")
    path = os.path.join(SHIPPED, f"{game}_ppo")
    return path if kind == "ppo" and name in _REGISTRY and os.path.isdir(path) else None


register("all_fours/ppo", _shipped("all_fours", "all_fours_ppo"))
register("ottocento/ppo", _shipped("ottocento", "ottocento_ppo"))
register("aluette/ppo", _shipped("aluette", "aluette_ppo"))


def _avinas_ppo(seed=None, **env_options) -> Agent:
    """The shipped Avinas agent: its network was trained with ``honesty="mask"`` (a lie is not a
    legal move there); :class:`~cardzoo.agents.honest.HonestCalls` keeps it to those moves in games with
    the default ``honesty="penalize"``, so it plays exactly the decision problem it learned."""
    from cardzoo.envs import kernel_class
    from cardzoo.envs.core.kernel import check_options

    from .honest import HonestCalls

    if "honesty" in env_options:  # set aside below, so checked here (honesty="bogus" was taken without a word)
        try:
            check_options(kernel_class("avinas").OPTIONS, {"honesty": env_options["honesty"]})
        except ValueError as e:
            raise ValueError(f"the shipped agent avinas/ppo (agents/shipped/avinas_ppo) plays avinas, and these are "
                             f"not valid avinas options: {e}") from None
    options = {k: v for k, v in env_options.items() if k != "honesty"}
    inner = _shipped("avinas", "avinas_ppo", ignore=("honesty",))(seed=seed, **options)  # checks game= too
    options.pop("game", None)
    agent = HonestCalls(inner, **options)
    agent.options_ignored = ("honesty",)  # HonestCalls makes "penalize" games the "mask" problem it learned
    return agent


_avinas_ppo.checks_game = True
register("avinas/ppo", _avinas_ppo)


#: The shipped P'yanitsa agents, one per number of players (each trained for ``winner_chooses``).
PYANITSA_PPO = {2: "pyanitsa_ppo", 3: "pyanitsa_ppo_3p", 4: "pyanitsa_ppo_4p"}


def _pyanitsa_ppo(seed=None, **env_options) -> Agent:
    """The shipped P'yanitsa ``winner_chooses`` agent for ``num_players`` (2, 3 or 4; default 2:
    ``agents/shipped/pyanitsa_ppo``, else ``pyanitsa_ppo_3p`` / ``pyanitsa_ppo_4p``); forced ``FLIP``
    moves skip the network. An unknown player count raises ``ValueError`` naming the valid ones."""
    from cardzoo.envs import kernel_class

    from .skip_forced import SkipForced

    # the alias n_players names the player count too (it chose the 2-player agent, which then refused
    # the 3-player layout)
    env_options = kernel_class("pyanitsa").canonical_options(env_options)
    n = env_options.get("num_players", 2)
    if n not in PYANITSA_PPO:
        raise ValueError(f"num_players={n!r}: P'yanitsa has 2, 3 or 4 players ({sorted(PYANITSA_PPO)})")
    return SkipForced(_shipped("pyanitsa", PYANITSA_PPO[n])(seed=seed, **env_options))


_pyanitsa_ppo.checks_game = True
register("pyanitsa/ppo", _pyanitsa_ppo)


def _lowest(**env_options) -> Agent:
    """:class:`~cardzoo.agents.lowest.LowestLegalAgent` for any game (reads only the action mask;
    the game options callers pass are accepted and not needed)."""
    from .lowest import LowestLegalAgent

    return LowestLegalAgent()


register("lowest", _lowest)
