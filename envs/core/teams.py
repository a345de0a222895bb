"""Compiled partnership helpers shared by the rules of the four-player team games (numba).

All Fours, Avinas, Ottocento and Aluette seat two teams of two partners facing each other: team
A is seats 0 and 2, team B seats 1 and 3 (each game's RULES.md §1). Their rewards are zero-sum
and partners always get the same reward (each RULES.md §6); these helpers are that rule, written
once for the four games, and inline into the game's compiled rules.

* :func:`pay_teams` -- add ``ua`` to both seats of team A of game ``b`` and ``-ua`` to both seats
  of team B.
* :func:`team_sign` -- the win/loss reward of a finished match from team A's view: ``+1.0`` if
  team A won, ``-1.0`` if team B won, ``0.0`` if nobody did (``float64``).

As for :mod:`cardzoo.envs.core.bits`, numba's on-disk cache of a rules function is keyed by the
rules file: after a change here, clear ``__pycache__`` or touch the games' ``rules.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["pay_teams", "team_sign"]


@njit(cache=True, inline="always", _nrt=False)
def pay_teams(rewards, b, ua):
    """``rewards[b, 0] += ua``, ``rewards[b, 2] += ua``, ``rewards[b, 1] -= ua``, ``rewards[b, 3] -= ua``.

    Args:
        rewards: the state's ``float64[B, 4]`` rewards of this step (seat order).
        b: the game's row.
        ua: the reward of team A (seats 0 and 2); team B (seats 1 and 3) gets ``-ua``. Adds to
            what the step has already paid (a step can end a deal and, in a match, the next).
    """
    rewards[b, 0] += ua
    rewards[b, 2] += ua
    rewards[b, 1] -= ua
    rewards[b, 3] -= ua


@njit(cache=True, inline="always", _nrt=False)
def team_sign(winner):
    """``float64`` ``+1`` when ``winner`` is team A (0), ``-1`` for team B (1), ``0`` for no winner (-1)."""
    if winner == 0:
        return np.float64(1.0)
    if winner == 1:
        return np.float64(-1.0)
    return np.float64(0.0)
