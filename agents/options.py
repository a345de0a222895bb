"""The game options a trained agent learned, and where a game differs from them.

A saved agent's ``agent.json`` holds ``game`` and ``env_options`` (the options given to its
training run) and, since issue 16, ``game_options``: every option of the game with the value it
was trained with (defaults included), so that a later change of a default is noticed too.

:func:`option_differences` compares those with the options of the game at hand; options that
do not change the decision problem (:func:`not_compared`: who deals first, safety caps on the
episode length, options of the observation alone) are left out, and an agent may list more in ``options_ignored`` (e.g. the shipped
Avinas agent, trained with ``honesty="mask"``, is wrapped by
:class:`~cardzoo.agents.honest.HonestCalls` to play ``honesty="penalize"`` games as well).

Loading a trained agent for other options warns (:class:`OptionsMismatchWarning`); ``cardzoo
play``, the web table and the arena seat the game's rule bot instead unless told to insist: the
decision is :func:`seat_decision`, used by :func:`cardzoo.training.common.seat_agent` (play, arena),
:func:`cardzoo.training.common.default_agent` and the web table (``training/web/tables.py``), each
with its own loading and errors.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, NamedTuple

__all__ = [
    "NOT_COMPARED", "LayoutMismatchError", "OptionsMismatchWarning", "Seating", "check_layout", "check_rules", "describe", "full_options",
    "fit_observation", "not_compared", "observation_differences", "option_differences", "reads_state_because", "seat_decision", "trained_options", "warn_if_differs",
]

#: options that do not change what a good move is: the first dealer and caps on episode length
#: (nor are a game's ``OBSERVATION_OPTIONS``, e.g. P'yanitsa's ``observe_history``: :func:`not_compared`)
NOT_COMPARED = frozenset({"first_dealer", "dealer", "max_redeals", "max_hands", "max_deals", "max_throw_ins", "max_battles"})


def not_compared(game: str) -> frozenset[str]:
    """The options of ``game`` that :func:`option_differences` and :func:`check_rules` leave out:
    :data:`NOT_COMPARED` and the game's ``OBSERVATION_OPTIONS`` (they change only what a seat is
    shown; :func:`check_layout` lets an agent trained with other values observe with its own)."""
    from cardzoo import envs

    return NOT_COMPARED | envs.kernel_class(game).OBSERVATION_OPTIONS


class OptionsMismatchWarning(UserWarning):
    """A trained agent is used for game options it was not trained for; ``differences`` maps
    each differing option to ``(trained value, value here)``."""

    def __init__(self, message: str, differences: dict[str, tuple[Any, Any]]) -> None:
        super().__init__(message)
        self.differences = differences


class LayoutMismatchError(ValueError):
    """A trained agent cannot play these game options at all: they give another observation layout
    (e.g. another player count or pack) than the one it was trained on. ``differences`` maps each
    option that differs from its training to ``(trained value, value here)``."""

    def __init__(self, message: str, differences: dict[str, tuple[Any, Any]]) -> None:
        super().__init__(message)
        self.differences = differences


def check_rules(agent, game: str, env_options: dict | None, label: str) -> None:
    """Raise ``ValueError`` if ``agent`` (called ``label``) is a search agent
    (:class:`~cardzoo.agents.search.PIMCAgent`, :class:`~cardzoo.agents.ismcts.ISMCTSAgent`) built for
    another game or other options than ``game`` with ``env_options``: it would search, and choose,
    under other rules (an undertrump it thinks legal, a lead it thinks due). The options in
    :func:`not_compared` (who deals first, safety caps, observation options) are not compared.
    Nothing for other agents."""
    from .search import PIMCAgent

    if not isinstance(agent, PIMCAgent):
        return
    k = agent.kernel
    if k.name != game:
        raise ValueError(f"{label} searches {k.name} games; it cannot play {game}")
    here = full_options(game, env_options)
    skip = not_compared(game)
    diff = {o: (k.options.get(o), here[o]) for o in sorted(here) if o not in skip and k.options.get(o) != here[o]}
    if diff:
        said = "; ".join(f"{o}: searches {a!r}, here {b!r}" for o, (a, b) in diff.items())
        raise ValueError(f"{label} was built for other {game} options ({said}), so it would search under other "
                         f"rules: load it with the options of this game (cardzoo.agents.load(name, **options); "
                         f"the command line's -o gives them to every agent)")


def check_layout(agent, game: str, env_options: dict | None, label: str) -> None:
    """Raise :class:`LayoutMismatchError` if ``agent`` (called ``label``) was trained on an
    observation layout other than the one ``game`` has with ``env_options`` (its ``meta``'s
    ``obs_layout_version``); nothing for agents without that metadata. A search agent built for
    other rules: ``ValueError`` (:func:`check_rules`).

    Where the layouts differ only through the game's ``OBSERVATION_OPTIONS`` (P'yanitsa's
    ``observe_history``) and the agent can observe the game itself (a trained
    :class:`~cardzoo.agents.policy.PolicyAgent`), nothing is raised: the agent is switched to
    :meth:`~cardzoo.agents.policy.PolicyAgent.observe_itself` (it reads the game state, as search
    agents do, and observes it with the options it was trained with): :func:`fit_observation`."""
    check_rules(agent, game, env_options, label)
    if fit_observation(agent, game, env_options):
        return
    meta = agent.meta
    want = meta["obs_layout_version"]
    from cardzoo import envs

    from .policy import layout_version

    mine = layout_version(envs.kernel(game, **dict(env_options or {})))
    if mine != want:
        diff = option_differences(agent, game, env_options)
        raise LayoutMismatchError(
            f"{label} was trained for other {game} options ({describe(diff) or meta.get('env_options')}), which give "
            f"another observation (layout {want}; these options: {mine}): it cannot play them. Use {game}/rule, or "
            f"train an agent for them with `cardzoo train {game} -o ...`",
            diff,
        )


def fit_observation(agent, game: str, env_options: dict | None) -> bool:
    """Make ``agent`` see a game of ``game`` with ``env_options`` as it learned to; whether it can.

    True for agents without a recorded layout of ``game`` (rule bots, search) and for a trained
    agent whose layout is this game's: it acts on the observations it is given (an earlier
    :meth:`~cardzoo.agents.policy.PolicyAgent.observe_itself` at another table is undone: one agent
    object may sit at several tables in turn). Where the layouts differ only through the game's
    ``OBSERVATION_OPTIONS`` (the values it was trained with; the default where its ``agent.json``
    predates the option), it is switched to observe the game itself through the game's rules with
    its own observation options: True. False otherwise (:func:`check_layout` then refuses it).
    Called before anything asks whether an agent reads the state (``needs_state``)."""
    from cardzoo import envs

    from .policy import layout_version

    meta = getattr(agent, "meta", None)
    want = meta.get("obs_layout_version") if isinstance(meta, dict) else None
    if not want or meta.get("game") != game:
        return True
    can = callable(getattr(agent, "observe_itself", None)) and hasattr(agent, "observes_with")
    if layout_version(envs.kernel(game, **dict(env_options or {}))) == want:
        if can and agent.observes_with is not None:
            agent.observe_itself(None)
        return True
    cls = envs.kernel_class(game)
    got = trained_options(agent)
    if not cls.OBSERVATION_OPTIONS or got is None or not can:
        return False
    own = _trained_observation_options(cls, got[1])
    kernel = envs.kernel(game, **{**cls.canonical_options(dict(env_options or {})), **own})
    if layout_version(kernel) != want:
        return False
    try:
        agent.observe_itself(kernel)  # the game's rules, its own observation options
    except AttributeError:  # a wrapper around an agent that cannot
        return False
    return True


def observation_differences(agent, game: str, env_options: dict | None) -> dict[str, tuple[Any, Any]]:
    """The ``OBSERVATION_OPTIONS`` of ``game`` whose value under ``env_options`` differs from what
    ``agent`` was trained with: ``{name: (trained, here)}`` (empty for agents without training
    metadata)."""
    from cardzoo import envs

    got = trained_options(agent)
    if got is None or got[0] != game:
        return {}
    here = full_options(game, env_options)
    own = _trained_observation_options(envs.kernel_class(game), got[1])
    return {o: (own[o], here[o]) for o in sorted(own) if own[o] != here[o]}


def _trained_observation_options(cls, trained: dict) -> dict[str, Any]:
    """The values of ``cls.OBSERVATION_OPTIONS`` in an agent's trained options ``trained`` (the
    default where its ``agent.json`` predates the option)."""
    return {o: trained.get(o, cls.OPTIONS[o].default) for o in cls.OBSERVATION_OPTIONS}


def reads_state_because(agent, game: str, env_options: dict | None, otherwise: str) -> str:
    """Why ``agent`` (with ``needs_state``) reads the game state, in words that follow its name in an
    error message: for a trained agent observing the game itself, the observation options it was
    trained with; ``otherwise`` for the others (search and ``exec:`` bots)."""
    if getattr(agent, "observes_with", None) is None:
        return otherwise
    diff = observation_differences(agent, game, env_options)
    return f"was trained with other observation options ({describe(diff)}): it observes the game itself from the game state"


def full_options(game: str, env_options: dict | None) -> dict:
    """Every option of ``game`` with its value under ``env_options`` (defaults filled in);
    ``ValueError`` names a bad option."""
    from cardzoo import envs

    return dict(envs.kernel(game, **dict(env_options or {})).options)


def trained_options(agent) -> tuple[str, dict] | None:
    """``(game, full options)`` a trained agent learned, from its ``meta`` (``None`` for agents
    without training metadata, e.g. rule bots and random)."""
    meta = getattr(agent, "meta", None)
    if not isinstance(meta, dict) or "game" not in meta or "env_options" not in meta:
        return None
    from cardzoo import envs

    canonical = envs.kernel_class(meta["game"]).canonical_options  # saved names may be aliases
    if isinstance(meta.get("game_options"), dict):
        return meta["game"], canonical(dict(meta["game_options"]))
    return meta["game"], full_options(meta["game"], canonical(dict(meta["env_options"])))


def option_differences(agent, game: str, env_options: dict | None) -> dict[str, tuple[Any, Any]]:
    """The options in which ``game`` played with ``env_options`` differs from what ``agent`` was
    trained for: ``{name: (trained value, value here)}``, sorted by name; empty when it fits or
    the agent has no training metadata. Options in :data:`NOT_COMPARED` and in the agent's
    ``options_ignored`` are skipped."""
    got = trained_options(agent)
    if got is None or got[0] != game:
        return {}
    trained = got[1]
    here = full_options(game, env_options)
    skip = not_compared(game) | set(getattr(agent, "options_ignored", ()) or ())
    return {k: (trained.get(k), here[k]) for k in sorted(here) if k not in skip and trained.get(k) != here[k]}


def describe(differences: dict[str, tuple[Any, Any]]) -> str:
    """``"undertrump: trained 'allowed', here 'forbidden'; ..."``."""
    return "; ".join(f"{k}: trained {a!r}, here {b!r}" for k, (a, b) in differences.items())


def warn_if_differs(agent, game: str, env_options: dict | None, label: str, stacklevel: int = 3) -> dict:
    """Warn (:class:`OptionsMismatchWarning`, a ``UserWarning``) when ``agent`` (called ``label``)
    was trained for other options than ``env_options``; returns :func:`option_differences`."""
    diff = option_differences(agent, game, env_options)
    if diff:
        warnings.warn(
            OptionsMismatchWarning(f"agent {label} was trained for other {game} options than these ({describe(diff)})", diff),
            stacklevel=stacklevel,
        )
    return diff


class Seating(NamedTuple):
    """What :func:`seat_decision` decided: seat ``name`` (the agent asked for, or ``"<game>/rule"``);
    ``agent`` is the loaded agent asked for when it is the one seated, else ``None`` (the caller
    loads the rule bot its own way); ``note`` says what was done and why (``None`` when the agent
    asked for fits these options)."""

    name: str
    agent: Any
    note: str | None


def seat_decision(
    load: Callable[[], Any], name: str, game: str, env_options: dict | None, force: bool = False, default: bool = False,
) -> Seating:
    """Which agent to seat for ``name`` in ``game`` played with ``env_options``: the one decision of
    ``cardzoo play``, ``cardzoo arena`` and the web table.

    ``load()`` loads agent ``name`` (the caller's own loading and caching); it may raise
    :class:`LayoutMismatchError` when the agent cannot read these options' observation, and any
    other error it raises is passed on untouched. Then:

    * the agent fits (no :func:`option_differences`, same observation layout): it is seated;
    * it cannot read the observation (:class:`LayoutMismatchError`, from ``load`` or
      :func:`check_layout`): the game's rule bot is seated; with ``force`` the error is raised,
      since insisting cannot seat such an agent;
    * its recorded options differ: the rule bot, or with ``force`` the agent itself.

    ``default=True`` words the notes for the game's default AI (``<game>/ppo`` when no agent was
    named, :func:`cardzoo.training.common.default_agent`) and raises :class:`LayoutMismatchError`
    also without ``force``: the caller falls back to the rule bot as for any agent that fails to load.

    Returns a :class:`Seating`. Raises :class:`LayoutMismatchError` as said, and what ``load`` raises.
    """
    rule = f"{game}/rule"
    try:
        agent = load()
        diff = option_differences(agent, game, env_options)
        check_layout(agent, game, env_options, name)  # a saved agent is loaded without options: checked here
    except LayoutMismatchError as e:
        if force or default:
            raise
        what = describe(e.differences) or "another observation layout"  # a layout can change with an option not compared
        return Seating(rule, None, f"{name} was trained for other options ({what}) and cannot play these; seating {rule} instead")
    if not diff:
        return Seating(name, agent, None)
    if force and default:
        return Seating(name, agent, f"{name} was trained for other options ({describe(diff)}); seated anyway (--force-agent)")
    if force:
        return Seating(name, agent, f"seating {name} although it was trained for other options ({describe(diff)})")
    if default:
        return Seating(rule, None, f"{name} was trained for other options ({describe(diff)}; --force-agent seats it anyway)")
    return Seating(rule, None, f"{name} was trained for other options ({describe(diff)}); seating {rule} instead "
                               f"(--force-agent seats {name} anyway)")


def option_args(env_options: dict) -> list[str]:
    """The ``-o NAME=VALUE`` arguments that give ``env_options`` on the command line (a non-string
    value as JSON: ``-o score_rejected_kicks=false``)."""
    import json

    return [a for k, v in env_options.items() for a in ("-o", f"{k}={v if isinstance(v, str) else json.dumps(v)}")]
