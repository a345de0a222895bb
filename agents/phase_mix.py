"""An agent that plays the bids of one agent and the cards of another.

A diagnostic for trick-taking agents: pairing ``PhaseMix(A, B)`` against an opponent, next to
``PhaseMix(B, A)``, tells whether an agent wins or loses its points in the bidding or in the
card play (README, All Fours: the PPO agent's bids were better than the rule bot's and its card
play worse, which is what the expert iteration of :mod:`training.expert` then fixed).

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
        bids: the :class:`~agents.base.Agent` asked at decisions offering a non-card action.
        cards: the agent asked at every other decision.
        n_cards: how many leading action ids are cards (the kernel's ``deck.n``; All Fours 52).
        name: display name (default ``"<bids> bids + <cards> cards"``).

    ``act(observation uint8[B, D], action_mask bool[B, A]) -> int64[B]``; each agent sees only
    its rows, with their full masks. Raises ``ValueError`` if ``n_cards`` is not in
    ``1 .. A - 1``.
    """

    def __init__(self, bids: Agent, cards: Agent, n_cards: int, name: str | None = None) -> None:
        if int(n_cards) < 1:
            raise ValueError(f"n_cards must be >= 1, got {n_cards!r}")
        self.bids, self.cards, self.n_cards = bids, cards, int(n_cards)
        self.name = name or f"{getattr(bids, 'name', 'agent')} bids + {getattr(cards, 'name', 'agent')} cards"

    def reset(self) -> None:
        self.bids.reset()
        self.cards.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(observation)
        obs = obs[None] if obs.ndim == 1 else obs
        mask = as_mask(action_mask)
        if not self.n_cards < mask.shape[1]:
            raise ValueError(f"n_cards={self.n_cards} leaves no bid actions in masks of {mask.shape[1]} actions")
        out = np.zeros(mask.shape[0], dtype=np.int64)
        is_bid = mask[:, self.n_cards :].any(axis=1)
        for rows, agent in ((np.flatnonzero(is_bid), self.bids), (np.flatnonzero(~is_bid), self.cards)):
            if rows.size:
                out[rows] = np.asarray(agent.act(obs[rows], mask[rows]), dtype=np.int64)
        return out
