"""The one agent interface of cardzoo (DESIGN "Agents and training").

An agent picks one action per game for a batch of games, from what the acting seat
observes. The same object plays in the PettingZoo AEC env (``B = 1``), in the arena
(:mod:`cardzoo.training.arena`), in training as an opponent, and against a person.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from cardzoo.envs.core.kernel import is_real

__all__ = ["Agent", "Wrapper", "as_batch", "as_mask", "first_legal", "is_scaled", "kernel_values", "rollout_model", "rule_params"]


def rollout_model(value, models: tuple[str, ...]) -> str:
    """The opponent model of a rule bot's PIMC rollouts (its ``rollout_opponents``, ``agents/SEARCH.md``).

    Args:
        value: one of ``models``, or ``None`` for ``models[0]`` (``"rule"``: the bot plays every seat).
        models: the bot's ``ROLLOUT_OPPONENTS``.

    Returns the model's name. Raises ``ValueError`` naming ``value`` and the valid models for
    anything else (``"Random"``, ``"rule "`` and non-strings included)."""
    if value is None:
        return models[0]
    if not isinstance(value, str) or value not in models:
        raise ValueError(f"rollout_opponents={value!r} is not valid; valid: {', '.join(models)} (None: {models[0]})")
    return value


def rule_params(params, defaults: Mapping) -> dict:
    """A rule bot's tuning parameters: ``defaults`` with the values of ``params`` (a mapping of some
    of its keys, or ``None``/empty for the defaults). Raises ``ValueError`` for a ``params`` that is
    not a mapping (a string was read letter by letter), that names a key ``defaults`` lacks (listing
    the valid keys), or whose value is not a finite number (``True``, ``"abc"``, ``None``, NaN: every
    rule bot's parameter is a weight or a count), naming the parameter."""
    p = dict(defaults)
    if params is None:
        return p
    if not isinstance(params, Mapping):
        raise ValueError(f"params must be a mapping of rule-agent parameters to values (on the command line: "
                         f'params={{"name":value}}), got {params!r}; valid names: {sorted(p)}')
    unknown = sorted(set(params) - set(p))
    if unknown:
        raise ValueError(f"unknown rule-agent params {unknown}; valid: {sorted(p)}")
    for key, value in params.items():
        if not is_real(value) or not np.isfinite(value):
            raise ValueError(f"rule-agent param {key} must be a finite number (default {p[key]!r}), got {value!r}")
    p.update({key: value.item() if isinstance(value, np.generic) else value for key, value in params.items()})
    return p


class Agent:
    """Base class of every agent.

    Subclasses implement :meth:`act` and set :attr:`name`.

    Attributes:
        name: short human-readable name used in tables and logs (e.g. ``"random"``).
    """

    name: str = "agent"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Choose one action per row.

        Args:
            observation: ``uint8[B, D]`` (or any numeric dtype holding the same values)
                observations of the seat to act in each game, as the game's kernel
                ``observe`` produces them (layout: ``kernel.obs_layout``). A 1-D ``[D]``
                observation is treated as ``B = 1``.
            action_mask: ``bool[B, A]`` or ``int8[B, A]`` (PettingZoo style) legal actions.

        Returns:
            ``int64[B]`` action ids. For every row whose mask has at least one legal action
            the action is legal; rows with no legal action (finished games) get an arbitrary
            action (0).

        Raises:
            NotImplementedError: here, in the base class; every agent overrides it.
        """
        raise NotImplementedError

    def reset(self) -> None:
        """Forget any per-episode memory (default: none, a no-op)."""

    def begin(self, kernel) -> None:
        """Called by the arena before it plays, with the game's kernel (default: a no-op; an
        ``exec:`` bot starts its process and says hello here)."""

    def end_episodes(self, returns: np.ndarray) -> None:
        """Called by the arena with the returns ``float[n, P]`` (per seat) of episodes that just
        ended, one row per episode (default: a no-op; an ``exec:`` bot sends ``end`` messages)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def observe_and_act(agent, kernel, state) -> np.ndarray:
    """``agent.act`` on the observations and legal actions that ``kernel`` gives of the seats to act
    in the games of ``state`` (``int64[B]``): how an agent that observes the game itself acts
    (:meth:`cardzoo.agents.policy.PolicyAgent.act_state`, :meth:`Wrapper.act_state`)."""
    return agent.act(kernel.observe(state, state.current_player), kernel.legal_actions(state))


class Wrapper(Agent):
    """An agent around another, :attr:`agent`: it plays some moves itself or forbids some, and asks the
    wrapped agent for the rest (:class:`~cardzoo.agents.skip_forced.SkipForced`,
    :class:`~cardzoo.agents.honest.HonestCalls`, :class:`~cardzoo.agents.silent.Silent`).

    ``name`` is ``label(<the wrapped agent's name>)`` (the wrapped agent's name without ``label``),
    ``meta`` the wrapped agent's (a trained agent's ``agent.json``). :attr:`deterministic`, a trained
    policy's setting (most likely action or a sample), reads and sets the wrapped agent's;
    ``reset``, ``begin`` and ``end_episodes`` are passed on. :meth:`batch` checks ``act``'s input as
    every agent does (:func:`as_batch`)."""

    def __init__(self, agent: Agent, label: str | None = None) -> None:
        self.agent = agent
        inner = getattr(agent, "name", "agent")
        self.name = f"{label}({inner})" if label else inner
        self.meta = getattr(agent, "meta", None)

    @property
    def deterministic(self) -> bool:
        """The wrapped agent's ``deterministic`` (``AttributeError`` where it has none: rule bots)."""
        return self.agent.deterministic

    @deterministic.setter
    def deterministic(self, value: bool) -> None:
        self.agent.deterministic = value

    @property
    def needs_state(self) -> bool:
        """The wrapped agent's ``needs_state`` (a trained policy's after ``observe_itself``)."""
        return bool(getattr(self.agent, "needs_state", False))

    @property
    def observes_with(self):
        """The kernel the wrapped agent observes the game through (``None``: it acts on observations)."""
        return getattr(self.agent, "observes_with", None)

    def observe_itself(self, kernel) -> None:
        """Make the wrapped agent observe the game itself through ``kernel``
        (:meth:`~cardzoo.agents.policy.PolicyAgent.observe_itself`; ``AttributeError`` where it cannot);
        this wrapper then plays from the game state too (:meth:`act_state`)."""
        self.agent.observe_itself(kernel)

    def act_state(self, state) -> np.ndarray:
        """Actions ``int64[B]`` for the games of ``state``, for a wrapped agent that observes the game
        itself: :meth:`act` on the observations and legal actions its kernel gives. ``TypeError``
        otherwise: a wrapper plays from observations."""
        k = self.observes_with
        if k is None:
            if getattr(self.agent, "needs_state", False):
                raise TypeError(f"{self.name}: a wrapper plays from observations, and the agent it wraps searches the "
                                f"game state; play that agent unwrapped")
            raise TypeError(f"{self.name} acts on observations: call act(observation, action_mask)")
        return observe_and_act(self, k, state)

    @staticmethod
    def batch(observation, action_mask) -> tuple[np.ndarray, np.ndarray]:
        """``(observation [B, D], bool[B, A] mask, a copy)``: ``act``'s input checked as :func:`as_batch`
        checks it (a PettingZoo dict passed whole, shapes, batch sizes), ``A`` read from the mask."""
        mask = as_mask(action_mask)
        obs, mask = as_batch(observation, mask, None, mask.shape[1])
        return obs, mask.copy()

    def reset(self) -> None:
        """Reset the wrapped agent."""
        self.agent.reset()

    def begin(self, kernel) -> None:
        """The wrapped agent's ``begin`` (an object with ``act`` only has none: nothing to do)."""
        getattr(self.agent, "begin", lambda kernel: None)(kernel)

    def end_episodes(self, returns: np.ndarray) -> None:
        """The wrapped agent's ``end_episodes`` (where it has one)."""
        getattr(self.agent, "end_episodes", lambda returns: None)(returns)


#: what an agent's ``act`` is given instead of the PettingZoo observation dict
OBS_DICT_HINT = ("act takes the arrays of the observation dict, as a batch: "
                 "agent.act(obs['observation'][None], obs['action_mask'][None])[0]")


def as_mask(action_mask: np.ndarray) -> np.ndarray:
    """``bool[B, A]`` view of a ``bool``/``int`` mask ``[B, A]`` or ``[A]`` (the latter becomes ``[1, A]``).

    Raises ``ValueError`` if the mask is not 1-D or 2-D, or is a dict (the PettingZoo observation
    ``{"observation": ..., "action_mask": ...}`` passed whole: the message says how to pass it).
    """
    if isinstance(action_mask, Mapping):  # env.observe(agent) / env.last()'s dict, passed whole
        raise ValueError(f"action_mask must be an array [B, A] or [A], got a {type(action_mask).__name__} with keys "
                         f"{sorted(map(str, action_mask))}: {OBS_DICT_HINT}")
    m = np.asarray(action_mask)
    if m.ndim == 1:
        m = m[None, :]
    if m.ndim != 2:
        raise ValueError(f"action_mask must have shape [B, A] or [A], got shape {m.shape}")
    return m if m.dtype == bool else m != 0


def as_batch(observation, action_mask, obs_size: int | None, num_actions: int, note: str = "") -> tuple[np.ndarray, np.ndarray]:
    """The arrays of an ``act`` call, checked: ``(observation [B, D] as given, dtype kept;
    bool[B, A] mask)``; a 1-D observation or mask is one row.

    Args:
        observation, action_mask: what ``act`` was given.
        obs_size: ``D``, the observation length (``None``: not checked).
        num_actions: ``A``.
        note: added to the shape error (e.g. which pack ``A`` belongs to).

    Raises ``ValueError`` naming what was given and what is expected: the PettingZoo observation
    dict passed whole (with the call to use instead), a non-numeric observation (``None``, a string,
    ragged lists), or shapes that are not ``[B, D]`` and ``[B, A]`` with the same ``B``."""
    d = "D" if obs_size is None else str(obs_size)
    if isinstance(observation, Mapping):  # env.observe(agent)'s dict, passed whole (float() failed on it in numpy)
        raise ValueError(f"observation must be an array [B, {d}] or [{d}], got a {type(observation).__name__} with keys "
                         f"{sorted(map(str, observation))}: {OBS_DICT_HINT}")
    obs = np.asarray(observation)
    if obs.dtype.kind not in "biuf":  # None, a string, ragged lists: numpy's own error did not say what act takes
        shown = repr(observation)
        raise ValueError(f"observation must be a numeric array [B, {d}] (the kernel's uint8 values, or float32 scaled "
                         f"to [0, 1]), got {type(observation).__name__} "
                         f"{shown if len(shown) <= 40 else shown[:37] + '...'} (dtype {obs.dtype})")
    if obs.ndim == 1:
        obs = obs[None]
    mask = as_mask(action_mask)
    if obs.ndim != 2 or (obs_size is not None and obs.shape[1] != obs_size) or mask.shape != (obs.shape[0], num_actions):
        raise ValueError(f"expected observation [B, {d}] and action_mask [B, {num_actions}]{note}, "
                         f"got {obs.shape} and {mask.shape}")
    return obs, mask


def is_scaled(obs: np.ndarray) -> bool:
    """Whether an observation batch ``[B, D]`` is the ``[0, 1]``-scaled ``float`` form (``cardzoo.make_vec``'s,
    the SB3 adapter's) rather than the kernel's values: a float batch with no value above 1. The kernel's
    values given as floats are told apart by a value above 1 in some row; a float batch of only 0s and 1s
    reads both ways and is taken as scaled, the documented float form.

    Raises ``ValueError`` for a float batch with values that are neither (NaN, below 0, or above 1 and not
    all whole numbers), naming the two forms."""
    if obs.dtype.kind != "f":
        return False
    if obs.size == 0:
        return True
    if not np.isfinite(obs).all():
        why = "NaN or infinite values"
    elif obs.min() < 0:
        why = f"values below 0 (from {float(obs.min())})"
    elif obs.max() > 1.0 and (obs != np.rint(obs)).any():
        why = f"values up to {float(obs.max())}, not all whole"
    else:
        return not bool(obs.max() > 1.0)
    raise ValueError(f"a float observation must be scaled to [0, 1] (cardzoo.make_vec's form) or hold the kernel's values as "
                     f"whole numbers; got {why}")


def kernel_values(obs: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``int64[B, D]``: the kernel's values of an observation batch ``[B, D]`` (integer, or float: scaled to
    ``[0, 1]`` or not, :func:`is_scaled`), a scaled one multiplied back by the layout's ``high``
    (``Layout.high()``). The rule bots read their observations through it; ``ValueError`` as
    :func:`is_scaled`."""
    if is_scaled(obs):
        return np.rint(obs * high).astype(np.int64)
    return obs.astype(np.int64)


def first_legal(mask: np.ndarray) -> np.ndarray:
    """``int64[B]``: lowest legal action of each row of ``bool[B, A]`` (0 where none is legal)."""
    return mask.argmax(axis=1).astype(np.int64)
