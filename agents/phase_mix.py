"""An agent that plays the bids of one agent and the cards of another.

A diagnostic for trick-taking agents: pairing ``PhaseMix(A, B, game)`` against an opponent,
next to ``PhaseMix(B, A, game)``, tells whether an agent wins or loses its points in the bidding or in the
card play (agents/shipped/README.md, All Fours: the PPO agent's bids were better than the rule bot's and its card
play worse, which is what the expert iteration of :mod:`cardzoo.training.expert` then fixed).

A **bid** is any decision that offers an action other than a card (action id ``>= n_cards``:
All Fours stand/beg, give one/run; Ottocento, Avinas, Aluette: their calls and declarations);
every other decision is **card play**.
"""

from __future__ import annotations

import numpy as np

from .base import Agent, as_mask

__all__ = ["PhaseMix"]


class PhaseMix(Agent):
    """Bids by ``bids``, card play by ``cards``.

    Args:
        bids: the :class:`~cardzoo.agents.base.Agent` asked at decisions offering a non-card action.
        cards: the agent asked at every other decision.
        game: the game (a name of :data:`envs.GAMES`); its kernel says which action ids are
            cards (ids below ``deck.n``: All Fours 52) and the action count.
        name: display name (default ``"<bids> bids + <cards> cards"``).
        **env_options: options of the game (they may change its action count).

    ``act(observation uint8[B, D], action_mask bool[B, A]) -> int64[B]``; each agent sees only
    its rows, with their full masks.

    Raises:
        TypeError: ``bids`` or ``cards`` is not an :class:`~cardzoo.agents.base.Agent` (load names with
            :func:`cardzoo.agents.load` first).
        ValueError: an unknown game or options; at :meth:`act`, masks whose width is not the
            game's action count.
    """

    def __init__(self, bids: Agent, cards: Agent, game: str, name: str | None = None, **env_options) -> None:
        from cardzoo import envs

        for role, agent in (("bids", bids), ("cards", cards)):
            if not isinstance(agent, Agent):
                raise TypeError(f"{role} must be an Agent (e.g. agents.load({agent!r})), got {type(agent).__name__}")
        kernel = envs.kernel(game, **env_options)
        self.bids, self.cards, self.game = bids, cards, game
        self.n_cards, self.num_actions = int(kernel.deck.n), int(kernel.num_actions)
        self.name = name or f"{getattr(bids, 'name', 'agent')} bids + {getattr(cards, 'name', 'agent')} cards"

    def reset(self) -> None:
        """Reset both agents (``bids`` and ``cards``)."""
        self.bids.reset()
        self.cards.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` from ``observation`` ``uint8[B, D]`` and ``action_mask`` ``bool``/``int8[B, A]``
        (a 1-D pair is one row): rows whose mask offers a non-card action (id ``>= n_cards``) are
        asked of ``bids``, the others of ``cards``. ``ValueError`` if ``A`` is not the game's action count."""
        obs = np.asarray(observation)
        obs = obs[None] if obs.ndim == 1 else obs
        mask = as_mask(action_mask)
        if mask.shape[1] != self.num_actions:
            raise ValueError(f"{self.game} has {self.num_actions} actions, got action masks of width {mask.shape[1]}")
        out = np.zeros(mask.shape[0], dtype=np.int64)
        is_bid = mask[:, self.n_cards :].any(axis=1)
        for rows, agent in ((np.flatnonzero(is_bid), self.bids), (np.flatnonzero(~is_bid), self.cards)):
            if rows.size:
                out[rows] = np.asarray(agent.act(obs[rows], mask[rows]), dtype=np.int64)
        return out
