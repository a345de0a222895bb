"""A wrapper that plays forced moves itself: rows whose mask has exactly one legal action get
it without calling the wrapped agent (same actions as the wrapped agent, since any agent must
play a forced move; only cheaper, e.g. P'yanitsa's ``FLIP`` steps for a neural policy)."""

from __future__ import annotations

import numpy as np

from .base import Agent, Wrapper

__all__ = ["SkipForced"]


class SkipForced(Wrapper):
    """Wraps ``agent`` (:class:`~cardzoo.agents.base.Wrapper`, same name); :meth:`act` calls it only for
    rows with two or more legal actions."""

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` actions (see :meth:`Agent.act`)."""
        obs, mask = self.batch(observation, action_mask)
        out = mask.argmax(axis=1).astype(np.int64)
        choice = mask.sum(axis=1) > 1
        if choice.any():
            out[choice] = np.asarray(self.agent.act(obs[choice], mask[choice]), dtype=np.int64)
        return out
