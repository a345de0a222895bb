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

import functools
import operator

import numpy as np
from cardzoo.envs.core.bits import low_bit as _low_bit
from cardzoo.envs.core.bits import nth_bit as _nth_bit
from cardzoo.envs.core.bits import popcount as _popcount
from cardzoo.envs.pyanitsa.rules import legal_bits, step_one
from numba import njit

from .base import Agent, as_batch, rollout_model

__all__ = ["PyanitsaRuleAgent"]


# ---------------------------------------------------------------------- rollouts (PIMC)
_GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's increment


def splitmix64(state: int) -> tuple[int, int]:
    """One step of splitmix64 (Steele, Lea & Flood 2014) on a Python int: ``(next state, 64-bit
    output)``. The stream of a rollout's random opponents (:meth:`PyanitsaRuleAgent.play_out`);
    written out here so that the model can be checked against a plain loop."""
    state = (state + _GOLDEN) % 2**64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return state, z ^ (z >> 31)


def _make_play_out(key: str):
    def play_out_rows(S, P, rows, seats, score, limit, ret, rand_seat, stream):
        """Play each game ``b`` of ``rows`` to its end, one rules step at a time (rewards zeroed
        first, as the batch driver does), adding the step's reward of seat ``seats[b]`` to
        ``ret[b]``. A seat ``s`` with ``rand_seat[b, s]`` takes its legal action number
        ``floor(u * n)`` (id order), ``u`` the next output of splitmix64 on ``stream[b]`` (its top
        53 bits over 2**53); every other seat the legal action of highest ``score`` (the lowest id
        among equals, as :meth:`PyanitsaRuleAgent.act`'s ``argmax``). Returns -1, or a game that
        asked for chance or was still live after ``limit`` steps (the caller raises)."""
        key  # noqa: B018  (part of numba's cache key)
        for i in range(rows.shape[0]):
            b = rows[i]
            steps = 0
            while not S.done[b]:
                if steps == limit:
                    return b
                steps += 1
                legal = legal_bits(S, b, P)
                a = -1
                if rand_seat[b, S.current_player[b]]:
                    stream[b] += np.uint64(0x9E3779B97F4A7C15)
                    z = stream[b]
                    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
                    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
                    z = z ^ (z >> np.uint64(31))
                    n = np.uint64(_popcount(legal))
                    a = _nth_bit(legal, np.int64(((z >> np.uint64(11)) * n) >> np.uint64(53)))  # floor(u * n), exactly
                else:
                    best = -np.inf
                    while legal:
                        c = _low_bit(legal)
                        if score[c] > best:
                            best = score[c]
                            a = c
                        legal &= legal - np.uint64(1)
                for j in range(S.rewards.shape[1]):
                    S.rewards[b, j] = 0
                if step_one(S, b, a, P) != 0:
                    return b
                ret[b] += S.rewards[b, seats[b]]
        return -1

    play_out_rows.__qualname__ = "play_out_rows"
    return njit(cache=True, _nrt=False)(play_out_rows)


@functools.cache
def _play_out():
    """The compiled rollout driver (compiled on first use, then loaded from numba's cache), keyed by
    the P'yanitsa rules' source (:func:`cardzoo.envs.core.compiled.rules_key`)."""
    from cardzoo.envs.core.compiled import rules_key
    from cardzoo.envs.pyanitsa import constants, rules

    return _make_play_out(rules_key(rules, constants))


class PyanitsaRuleAgent(Agent):
    """Orders the pot by card strength (see the module docstring).

    Args:
        direction: ``None`` (by objective), ``"strong_first"`` or ``"weak_first"``.
        rank_order: ``None``, or every rank once (``0`` = the lowest: the six of the 36-card pack,
            the two of the 52-card pack; ``8`` or ``12`` = the ace) in the order the bot places
            them: ``rank_order[0]`` first, so it comes back soonest; a sequence of ints or the
            same as a comma-separated string (``"0,1,2,3,4,5,6,8,7"``). It replaces
            ``direction``; ``list(range(9))`` is weak first with 36 cards.
        rollout_opponents: the other seats in :meth:`play_out` (a PIMC search's rollouts; nothing
            else changes): ``"rule"`` (default) this bot; ``"random"`` uniformly random pot orders,
            as ``pyanitsa/random`` plays; ``"mixed"`` each other seat of each rollout one of the two,
            drawn with probability 1/2 (an opponent model for a search, and so for the labels of
            expert iteration, that must do well against both; ``agents/SEARCH.md``); ``None`` is
            ``"rule"``. The two models need a pot order that players choose: with
            ``collect_order="random"`` (every pot's order drawn, RULES.md §5) they are refused.
        **env_options: the P'yanitsa options (``RULES.md`` §8), validated; ``deck`` and
            ``objective`` are used.

    Raises ``ValueError`` for a bad option, direction, rank order or opponent model (naming the valid values).
    """

    name = "pyanitsa/rule"
    ROLLOUT_OPPONENTS = ("rule", "random", "mixed")

    def __init__(self, direction: str | None = None, rank_order=None, *, rollout_opponents: str | None = "rule", **env_options) -> None:
        from cardzoo import envs

        rollout_opponents = rollout_model(rollout_opponents, self.ROLLOUT_OPPONENTS)
        try:
            k = envs.kernel("pyanitsa", **env_options)  # validates the options
        except ValueError as e:
            raise ValueError(f"{e}; the rule bot's own options: direction, rank_order") from None
        if rollout_opponents != "rule" and k.options["collect_order"] == "random":
            raise ValueError(
                f"rollout_opponents={rollout_opponents!r} needs pot orders that players choose; with collect_order='random' "
                "every pot's order is drawn (RULES.md §5) and no seat has a choice to model: use rollout_opponents='rule'")
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
        self._options = dict(k.options)  # the rules its rollouts may play (play_out)
        self.rollout_opponents = rollout_opponents
        if rollout_opponents != "rule":
            self.name += f" (opponents {rollout_opponents} in rollouts)"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]``: the best-scored legal action of each row (0 where none is legal). ``ValueError``
        for a mask that is not ``[B, A]`` of this bot's pack (A = cards + 1) or an observation of
        another batch size."""
        A = self._score.size
        # a mask of 36 actions lost FLIP and played ORDER(6C) in every row; 38 raised numpy's broadcast error
        _, mask = as_batch(observation, action_mask, None, A, note=f" (P'yanitsa with the {A - 1}-card pack)")
        s = np.where(mask, self._score[None, : mask.shape[1]], -np.inf)
        return s.argmax(axis=1).astype(np.int64)

    def play_out(self, kernel, st, seats: np.ndarray, rng) -> np.ndarray | None:
        """Play every live game of ``st`` to its end, compiled; return ``float64[N]``: the sum of the
        rewards of seat ``seats[b]`` (``int[N]``) of game ``b`` over those steps. The rollout of
        :class:`cardzoo.agents.search.PIMCSearch`. ``st`` is played in place.

        With ``rollout_opponents="rule"`` this bot plays every seat: the same actions, states and
        rewards as the search's generic loop (``kernel.observe``, :meth:`act`, ``kernel.step``
        until every game is over), at a fraction of the cost (a game is hundreds of battles), and
        nothing is drawn from ``rng`` (no chance is drawn during play).

        With ``"random"`` or ``"mixed"`` seat ``seats[b]`` still plays this bot and the others follow
        the opponent model. The model's draws: first ``rng.integers(0, 2**63, N)``, each game's
        splitmix64 stream (:func:`splitmix64`; a random seat takes its legal action number
        ``floor(u * n)`` in id order, ``u`` the output's top 53 bits over 2**53), then with
        ``"mixed"`` ``rng.random((N, num_players)) < 0.5``: which seats play at random (the row's
        own seat never does). Those models have no generic loop.

        Returns ``None`` (nothing done) where the generic loop must play (``"rule"`` only): a
        kernel that is not P'yanitsa with the options this bot was made for,
        ``collect_order="random"`` (the order of every collected pot is drawn, RULES.md §5), or a
        subclass that plays otherwise; the other models raise ``ValueError`` there.
        ``RuntimeError`` if a game asks for chance or is still live after
        ``kernel.max_episode_steps`` steps (a kernel bug: every game ends sooner, §6)."""
        from cardzoo.envs.pyanitsa.kernel import PyanitsaKernel

        model = self.rollout_opponents
        if type(kernel) is not PyanitsaKernel or kernel.options != self._options or kernel.options["collect_order"] == "random" \
                or type(self).act is not PyanitsaRuleAgent.act:
            if model != "rule":
                raise ValueError(
                    f"rollout_opponents={model!r} plays rollouts only on a P'yanitsa kernel with the bot's own options "
                    f"{self._options} (collect_order other than 'random'); got {type(kernel).__name__} with "
                    f"{getattr(kernel, 'options', None)}")
            return None
        N = st.batch_size
        seats = np.ascontiguousarray(seats, dtype=np.int64)
        ret = np.zeros(N)
        rand_seat = np.zeros((N, kernel.num_players), dtype=np.bool_)
        stream = np.zeros(N, dtype=np.uint64)
        if model != "rule":
            stream[:] = rng.integers(0, 2**63, size=N, dtype=np.int64).astype(np.uint64)
            rand_seat[:] = True if model == "random" else rng.random((N, kernel.num_players)) < 0.5
            rand_seat[np.arange(N), seats] = False
        rows = np.flatnonzero(~st.done)
        bad = _play_out()(kernel.drivers.arrays(st), kernel.params, rows, seats, self._score, int(kernel.max_episode_steps),
                          ret, rand_seat, stream)
        if bad >= 0:
            raise RuntimeError(f"P'yanitsa rollout of game {bad} asked for chance or did not end within "
                               f"max_episode_steps = {kernel.max_episode_steps}")
        return ret
