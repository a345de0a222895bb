"""A rule-based P'yanitsa player for ``collect_order="winner_chooses"`` (``RULES.md`` §4.2).

P'yanitsa has a decision only when a battle's winner orders the pot under its pile. This bot
reads the ``pot`` slice of its own observation (``kernel.obs_layout``; ``RULES.md`` §7) and
places the pot cards in order of strength (six-over-ace ignored: A high, 6 low), one per
``ORDER`` step:

* ``objective="first_out_loses"`` (a player wants to keep winning battles): strongest first,
  so its best cards come back soonest;
* ``objective="last_holder_loses"`` (a player wants to get rid of cards): weakest first, so the
  cards most likely to lose come back soonest.

``direction="strong_first"`` / ``"weak_first"`` overrides that, and ``rank_order`` (the ranks in
the order they are placed, lowest rank 0) sets any fixed order: the frontier study of
``training/STUDIES.md`` moves the ace through the weak-first order this way. The ``winner_chooses``
study measures it: with two players and the default objective, weak-first wins 62% of games
against random ordering (+0.25 per game, 95% CI +0.22 to +0.27); strong-first does worse than random. Whenever ``FLIP`` is the
only legal action it takes it. Vectorized over the batch, no Python loop over games.
"""

from __future__ import annotations

import operator

import numpy as np

from .base import Agent, as_batch

__all__ = ["PyanitsaRuleAgent"]


class PyanitsaRuleAgent(Agent):
    """Orders the pot by card strength (see the module docstring).

    Args:
        direction: ``None`` (by objective), ``"strong_first"`` or ``"weak_first"``.
        rank_order: ``None``, or every rank once (``0`` = the lowest: the six of the 36-card pack,
            the two of the 52-card pack; ``8`` or ``12`` = the ace) in the order the bot places
            them: ``rank_order[0]`` first, so it comes back soonest; a sequence of ints or the
            same as a comma-separated string (``"0,1,2,3,4,5,6,8,7"``). It replaces
            ``direction``; ``list(range(9))`` is weak first with 36 cards.
        **env_options: the P'yanitsa options (``RULES.md`` §8), validated; ``deck`` and
            ``objective`` are used.

    Raises ``ValueError`` for a bad option, direction or rank order (naming the valid values).
    """

    name = "pyanitsa/rule"

    def __init__(self, direction: str | None = None, rank_order=None, **env_options) -> None:
        from cardzoo import envs

        try:
            k = envs.kernel("pyanitsa", **env_options)  # validates the options
        except ValueError as e:
            raise ValueError(f"{e}; the rule bot's own options: direction, rank_order") from None
        n_ranks = 9 if k.C == 36 else 13
        if rank_order is not None and direction is not None:
            raise ValueError(f"give direction={direction!r} or rank_order={rank_order!r}, not both (rank_order sets the whole order)")
        if rank_order is None:
            if direction is None:
                direction = "strong_first" if k.options["objective"] == "first_out_loses" else "weak_first"
            if direction not in ("strong_first", "weak_first"):
                raise ValueError(f"direction={direction!r} is not valid; valid values: None, 'strong_first', 'weak_first'")
            order = list(range(n_ranks)) if direction == "weak_first" else list(range(n_ranks - 1, -1, -1))
            self.rank_order = None
            self.name = f"pyanitsa/rule({direction})"
        else:
            try:
                if isinstance(rank_order, str):
                    order = [int(r) for r in rank_order.split(",")]
                else:
                    items = list(rank_order)
                    # ints only: 1.5 or True are not ranks
                    order = None if any(isinstance(r, (bool, np.bool_)) for r in items) else [operator.index(r) for r in items]
            except (TypeError, ValueError):
                order = None
            if order is None or sorted(order) != list(range(n_ranks)):
                raise ValueError(f"rank_order={rank_order!r} is not valid: it must hold every rank 0..{n_ranks - 1} "
                                 f"once, as ints, not bools or floats ({k.C}-card pack; 0 is the lowest rank, {n_ranks - 1} the ace)")
            direction = "rank_order"
            self.rank_order = tuple(order)
            self.name = f"pyanitsa/rule(order {','.join(map(str, order))})"
        self.direction = direction
        position = np.empty(n_ranks)
        position[order] = np.arange(n_ranks)  # 0 for the rank placed first
        # the rank placed first scores highest; FLIP (the last action) gets the lowest score: it is
        # only chosen when it is the only legal action
        self._score = np.concatenate([100.0 - position[np.arange(k.C) % n_ranks], [0.0]])

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]``: the best-scored legal action of each row (0 where none is legal). ``ValueError``
        for a mask that is not ``[B, A]`` of this bot's pack (A = cards + 1) or an observation of
        another batch size."""
        A = self._score.size
        # a mask of 36 actions lost FLIP and played ORDER(6C) in every row; 38 raised numpy's broadcast error
        _, mask = as_batch(observation, action_mask, None, A, note=f" (P'yanitsa with the {A - 1}-card pack)")
        s = np.where(mask, self._score[None, : mask.shape[1]], -np.inf)
        return s.argmax(axis=1).astype(np.int64)
