"""Uniformly random legal play, for any game (a baseline and a training opponent)."""

from __future__ import annotations

import numpy as np

from .base import Agent, as_mask

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Picks uniformly among the legal actions of each row.

    Args:
        seed: seed (or ``numpy.random.SeedSequence``) of the agent's own
            ``numpy.random.Generator``; ``None`` draws fresh entropy. Two agents built with
            the same seed and given the same inputs return the same actions.

    Vectorized: one ``[B, A]`` draw per call, no Python loop over the batch.
    """

    name = "random"

    def __init__(self, seed=None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` uniformly random legal actions (0 for rows with no legal action); see :meth:`Agent.act`."""
        mask = as_mask(action_mask)
        # the argmax of i.i.d. uniforms over the legal entries is uniform over them
        u = self.rng.random(mask.shape)
        u[~mask] = -1.0
        return u.argmax(axis=1).astype(np.int64)

    def reset(self) -> None:
        """No per-episode memory; the generator keeps its stream (reseed by building a new agent)."""
