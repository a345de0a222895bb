"""The lowest legal action id, for any game: a deterministic baseline (and the rule of the
example ``exec:`` bot, ``training/examples/lowest_bot.py``)."""

from __future__ import annotations

import numpy as np

from .base import Agent, as_mask, first_legal

__all__ = ["LowestLegalAgent"]


class LowestLegalAgent(Agent):
    """Plays the lowest legal action id of every row (registered as ``"lowest"``).

    Deterministic, and each row's action depends on that row only, so two copies of it give
    exactly 0 in the arena and results that do not depend on the batch size.
    """

    name = "lowest"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` lowest legal action of each row (0 where none is legal); see :meth:`Agent.act`."""
        return first_legal(as_mask(action_mask))
