"""A wrapper that keeps an Avinas agent honest in the no-sevens game (``envs/avinas/RULES.md``
§4.2): it never calls more trumps than its best count and, as declarer, never names a suit whose
count is below its call. These are exactly the moves that ``honesty="mask"`` leaves legal; with
the default ``honesty="penalize"`` the other moves are legal but a lie always loses the deal
(§4.2.4, found by the environment from the declarer's hand).

The wrapped agent chooses among the honest legal moves; it reads only the seat's observation
(its hand and the highest call so far), like any agent.
"""

from __future__ import annotations

import numpy as np
from cardzoo.envs.avinas import constants as avinas_constants

from .base import Agent, Wrapper, as_batch, kernel_values

__all__ = ["HonestCalls"]


class HonestCalls(Wrapper):
    """Wraps ``agent`` (an Avinas agent) so that its calls and its naming of trumps are honest.

    Args:
        agent: the wrapped :class:`~cardzoo.agents.base.Agent`.
        **env_options: the Avinas options of the games (``call_count`` decides what a call counts).

    ``act(observation uint8[B, D], action_mask bool[B, 83]) -> int64[B]``.
    """

    #: the Avinas constants, on the class: a module kept on the instance does not pickle (nor deep-copy)
    K = avinas_constants

    def __init__(self, agent: Agent, **env_options) -> None:
        from cardzoo import envs

        super().__init__(agent, "honest")
        self.kernel = envs.kernel("avinas", **env_options)
        cb = self.kernel.count_bb
        self.count_mask = np.array([[(int(cb[s]) >> c) & 1 for c in range(32)] for s in range(4)], dtype=np.int64)
        self.L = self.kernel.obs_layout

    def honest_mask(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``bool[B, 83]``: ``action_mask`` without the dishonest calls and namings of trumps; ``ValueError``
        for input that is not ``[B, D]`` and ``[B, 83]`` Avinas arrays (:func:`~cardzoo.agents.base.as_batch`)."""
        K = self.K
        obs, mask = as_batch(observation, action_mask, self.L.size, K.NUM_ACTIONS)
        mask = mask.copy()
        obs = kernel_values(obs, self.L.high())  # a [0, 1]-scaled float observation is scaled back
        hand = obs[:, self.L["hand"]]  # [B, 32] 0/1
        counts = hand @ self.count_mask.T  # [B, 4] trumps held per candidate suit
        best = counts.max(axis=1)
        high = obs[:, self.L["high_call"]].astype(np.int64)[:, 0]
        n = np.arange(1, 9)
        mask[:, K.CALL1 : K.CALL1 + 8] &= n[None, :] <= best[:, None]
        naming = mask[:, K.DECLARE : K.DECLARE + 4].any(axis=1)
        honest = mask[:, K.DECLARE : K.DECLARE + 4] & (counts >= high[:, None])
        keep = naming & honest.any(axis=1)  # (an honest caller always has such a suit)
        mask[keep, K.DECLARE : K.DECLARE + 4] = honest[keep]
        return mask

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` actions (see :meth:`Agent.act`)."""
        mask = self.honest_mask(observation, action_mask)  # checks the input first
        obs = np.asarray(observation)
        return np.asarray(self.agent.act(obs if obs.ndim == 2 else obs[None], mask), dtype=np.int64)
