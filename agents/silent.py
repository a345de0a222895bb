"""A wrapper that sends no signal: the signal actions of a game's signal channel are taken out
of the action mask before the wrapped agent chooses, and the end of the signalling round is
played whenever it is the only move left (Aluette: ``envs/aluette/RULES.md`` §4.3, §4.5).

This lets an agent trained with the channel switched off (``signals="off"``) sit at a table
where the channel is on without ever seeing a state it was not trained on: it sends nothing,
and when its partner is wrapped too it receives nothing (its signal slots stay zero), so the
two teams of an arena run differ only in the use of the channel.
"""

from __future__ import annotations

import numpy as np

from .base import Agent, Wrapper

__all__ = ["Silent"]


class Silent(Wrapper):
    """Wraps ``agent`` so that it never sends a signal.

    Args:
        agent: the wrapped :class:`~cardzoo.agents.base.Agent`.
        signal_actions: the action ids of the signals (Aluette: 50-59, ``monsieur`` ... ``faible``).
        end_action: the action that closes the seat's signalling (Aluette: 60, ``end_signals``).

    ``act(observation uint8[B, D], action_mask bool[B, A]) -> int64[B]``: the wrapped agent's
    choice among the legal non-signal actions; ``end_action`` where nothing else is legal.
    """

    def __init__(self, agent: Agent, signal_actions, end_action: int) -> None:
        super().__init__(agent, "silent")
        self.signal_actions = np.asarray(signal_actions, dtype=np.int64)
        self.end_action = int(end_action)

    @classmethod
    def aluette(cls, agent: Agent) -> "Silent":
        """The wrapper with Aluette's signal actions (``cardzoo.envs.aluette.constants``)."""
        from cardzoo.envs.aluette.constants import END_SIGNALS, NUM_SIGNALS, SIGNAL0

        return cls(agent, np.arange(SIGNAL0, SIGNAL0 + NUM_SIGNALS), END_SIGNALS)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` actions (see :meth:`Agent.act`)."""
        obs, mask = self.batch(observation, action_mask)
        mask[:, self.signal_actions] = False
        out = np.full(mask.shape[0], self.end_action, dtype=np.int64)
        only_end = mask[:, self.end_action] & (mask.sum(axis=1) == 1)
        rest = np.flatnonzero(mask.any(axis=1) & ~only_end)
        if rest.size:
            out[rest] = np.asarray(self.agent.act(obs[rest], mask[rest]), dtype=np.int64)
        return out
