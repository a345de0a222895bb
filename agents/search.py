"""Perfect Information Monte Carlo (PIMC) search over any kernel that can ``determinize``.

For each game where the seat to act has a choice, the search draws ``n_det`` determinizations
(the cards that seat cannot see dealt again at random, :meth:`cardzoo.envs.core.kernel.Kernel.determinize`),
plays every legal action in each of them, finishes the episode with a rollout agent in every
seat (e.g. the rule bot), and scores each action by the acting seat's mean return over the
determinizations (the same samples for every action: common random numbers). It is a
baseline for the trained agents and a candidate teacher for expert iteration (distilling its
choices into a policy network).

Unlike the observation-only agents of :mod:`cardzoo.agents.base`, a search agent reads the game
state, so it is called as ``act_state(kernel, state)``; what it may know is guaranteed by
``determinize`` (which keeps only the acting seat's information; tested by permuting hidden
cards). Episodes must end with the deal (``episode="hand"``).
"""

from __future__ import annotations

import math

import numpy as np

from cardzoo.envs.core.kernel import check_seed, is_int, is_real, one_deal_episodes

from .base import Agent

__all__ = ["PIMCAgent", "PIMCSearch"]


def check_count(name: str, value, high: int | None = None) -> int:
    """``value`` as an ``int`` if it is an integer >= 1 (numpy ints too) and, with ``high``, at most
    ``high``; else ``ValueError`` naming ``name``, the value and what is valid: a search setting such as
    ``n_det`` (2.5 was cut to 2 without a word, and ``"x"`` raised ``int()``'s own message, naming
    neither the setting nor what is valid). An int below 1 gets the message it always got."""
    if is_int(value) and value >= 1:
        if high is not None and value > high:
            raise ValueError(f"{name} must be 1..{high}, got {value!r}")
        return int(value)
    raise ValueError(f"{name} must be >= 1, got {value!r}" if is_int(value) else f"{name} must be an int >= 1, got {value!r}")


def check_number(label: str, value, note: str = "") -> float:
    """``value`` as a ``float`` if it is a finite real number >= 0 (not a bool), else ``ValueError``
    naming the setting (``label``), the value and what is valid (``note`` follows ``>= 0``). A negative
    number gets the message it always got."""
    real = is_real(value) and math.isfinite(value)
    if real and value >= 0:
        return float(value)
    raise ValueError(f"{label} must be {'' if real else 'a finite number '}>= 0{note}, got {value!r}")


def check_flag(name: str, value) -> bool:
    """``value`` as a ``bool`` if it is ``True`` or ``False`` (numpy bools too), else ``ValueError``
    (``"no"`` was true)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {value!r}")


class PIMCSearch:
    """PIMC search with a rollout agent.

    Args:
        kernel: a batched kernel with ``determinize`` (every game's kernel: All Fours, Avinas,
            Ottocento, Aluette, P'yanitsa) whose episodes end with the deal (a P'yanitsa episode is the game).
        rollout: the :class:`~cardzoo.agents.base.Agent` that plays every seat in the rollouts.
            A rollout agent with a ``play_out(kernel, state, seats, rng)`` method (the All Fours
            rule bot: :meth:`~cardzoo.agents.all_fours_rule.AllFoursRuleAgent.play_out`, compiled)
            plays the rollouts itself, with exactly the results (and the draws from the search's
            generator) of the generic loop here: observe, ``act``, ``kernel.step``, every live game
            together, until all are over. It returns ``None`` for a kernel it cannot play; the
            generic loop runs then.
        n_det: determinizations per decision (1 to :attr:`MAX_DETERMINIZATIONS`, 4096).
        seed: seeds the determinizations and the chance inside rollouts.
        max_rows: rollouts run at once (memory bound; a larger batch is split).
        search: ``"all"`` searches every decision with a choice; ``"phase"`` searches only the
            decisions that offer a non-card action (an action id >= the pack size: All Fours'
            stand/beg, give one/run; also Avinas' face-down leads and an Aluette turn in trick play
            where a signal may still be sent, about 12 % of them by default, where the search then
            chooses the card too) and plays the rollout agent's move elsewhere (card play);
            ``"cards"`` the opposite: only decisions between cards alone are searched.

    Raises:
        ValueError: an ``n_det`` that is not an int in 1..4096 or a ``max_rows`` that is not an int
        >= 1, an unknown ``search``, a ``seed`` that is not a non-negative int or None, a ``kernel``
        without ``determinize`` / ``legal_actions`` or a ``rollout`` without ``act``, or a kernel in
        match mode (a rollout must end with the deal: ``episode="hand"``/``"deal"``, no ``match_target``).
    """

    SEARCH_MODES = ("all", "phase", "cards")
    #: the most determinizations per decision: a decision's action masks are made for all of them at
    #: once (``B * n_det * A`` bytes; 100,000,000 took 12.7 GB before the first rollout)
    MAX_DETERMINIZATIONS = 4096

    def __init__(self, kernel, rollout: Agent, n_det: int = 16, seed=None, max_rows: int = 65536, search: str = "all") -> None:
        n_det = check_count("n_det", n_det, self.MAX_DETERMINIZATIONS)
        max_rows = check_count("max_rows", max_rows)
        # seed="x" or 1.5 raised numpy's TypeError about its SeedSequence, -1 its "expected non-negative
        # integer", and a kernel or rollout of the wrong kind an AttributeError at the first decision
        seed = check_seed(seed)
        if not all(callable(getattr(kernel, m, None)) for m in ("determinize", "legal_actions", "step", "observe")):
            raise ValueError(f"kernel must be a cardzoo kernel with determinize() (e.g. cardzoo.envs.kernel('avinas')), got {kernel!r}")
        if not callable(getattr(rollout, "act", None)):
            raise ValueError(f"rollout must be an agent with act(observation, action_mask) (e.g. cardzoo.agents.load('avinas/rule')), got {rollout!r}")
        if search not in self.SEARCH_MODES:
            raise ValueError(f"search must be one of {self.SEARCH_MODES}, got {search!r}")
        self.search = search
        opts = getattr(kernel, "options", {})
        if not one_deal_episodes(opts):
            given = ", ".join(f"{k}={opts[k]!r}" for k in ("episode", "match_target") if opts.get(k) is not None)
            raise ValueError(
                f"{type(self).__name__.removesuffix('Search')} search needs episode='hand' (All Fours; 'deal' in "
                "Avinas and Aluette, no match_target in "
                f"Ottocento and Aluette): each rollout plays the deal to its end; got {given}"
            )
        self.kernel = kernel
        self.rollout = rollout
        self.n_det = int(n_det)
        self.max_rows = int(max_rows)
        self.rng = np.random.default_rng(seed)
        self._play_out = getattr(rollout, "play_out", None)
        self.name = f"pimc{self.n_det}{'' if search == 'all' else '-' + search}({getattr(rollout, 'name', 'rollout')})"

    def q_values(self, state) -> np.ndarray:
        """Mean return of each legal action for the seat to act, ``float64[B, A]`` (NaN where illegal).

        ``state``: a batch of live games (each waiting for a decision). Units: the game's reward
        (All Fours: points difference of the hand for the acting seat's team).
        """
        k = self.kernel
        mask = k.legal_actions(state)
        B, A = mask.shape
        q = np.full((B, A), np.nan)
        games = np.repeat(np.arange(B), self.n_det)
        det_rows, det_acts = np.nonzero(mask[games])  # one rollout per (determinization, legal action)
        if det_rows.size == 0:
            return q
        total = np.zeros((B, A))
        # chunk by whole determinizations so memory stays bounded
        per_det = mask.sum(axis=1)[games]
        ends = np.cumsum(per_det)
        start_det = 0
        while start_det < games.size:
            first_row = 0 if start_det == 0 else ends[start_det - 1]
            stop_det = max(start_det + 1, int(np.searchsorted(ends, first_row + self.max_rows, side="right")))
            stop_det = min(stop_det, games.size)
            sel = slice(first_row, ends[stop_det - 1])
            g = games[start_det:stop_det]
            dets = k.determinize(state.take(g), state.current_player[g], self.rng)
            rows = det_rows[sel] - start_det
            acts = det_acts[sel]
            values = self._rollout(dets.take(rows), acts, state.current_player[g][rows])
            np.add.at(total, (g[rows], acts), values)
            start_det = stop_det
        q[mask] = total[mask] / self.n_det
        return q

    def _rollout(self, sims, first_actions: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Play ``first_actions`` then the rollout agent to the end; the return of ``seats``, ``float64[N]``."""
        k = self.kernel
        n = sims.batch_size
        k.step(sims, first_actions, self.rng)
        ret = sims.rewards[np.arange(n), seats].astype(np.float64)
        self.rollout.reset()
        if self._play_out is not None:  # the rollout agent's own (compiled) loop, same results
            rest = self._play_out(k, sims, seats, self.rng)
            if rest is not None:
                return ret + rest
        idx = np.flatnonzero(~sims.done)  # rows of ``ret`` still being played
        cur, cur_seats = sims.take(idx), seats[idx]
        while idx.size and not cur.done.all():
            a = self.rollout.act(k.observe(cur, cur.current_player), k.legal_actions(cur))
            k.step(cur, a, self.rng)
            ret[idx] += cur.rewards[np.arange(idx.size), cur_seats]
            live = ~cur.done
            if live.sum() < 0.75 * idx.size:  # drop finished rollouts from the batch
                keep = np.flatnonzero(live)
                cur, idx, cur_seats = cur.take(keep), idx[keep], cur_seats[keep]
        return ret

    def searched(self, mask: np.ndarray) -> np.ndarray:
        """``bool[B]``: which decisions (legal masks ``bool[B, A]``) this search decides."""
        choice = mask.sum(axis=1) > 1
        if self.search == "phase":
            choice &= mask[:, self.kernel.deck.n :].any(axis=1)
        elif self.search == "cards":
            choice &= ~mask[:, self.kernel.deck.n :].any(axis=1)
        return choice

    def act_state(self, state) -> np.ndarray:
        """Best action per game by :meth:`q_values` (``int64[B]``) where :meth:`searched`; the
        rollout agent's move at other decisions with a choice; the only legal action where there
        is one; 0 in finished games."""
        k = self.kernel
        mask = k.legal_actions(state)
        n_legal = mask.sum(axis=1)
        out = mask.argmax(axis=1).astype(np.int64)
        search = self.searched(mask)
        other = np.flatnonzero((n_legal > 1) & ~search)
        if other.size:
            sub = state.take(other)
            out[other] = self.rollout.act(k.observe(sub, sub.current_player), mask[other])
        choose = np.flatnonzero(search)
        if choose.size:
            out[choose] = self._best(state.take(choose))
        return out

    def _best(self, state) -> np.ndarray:
        """The searched choice in each game of ``state`` (``int64[B]``): here the best :meth:`q_values`
        (a subclass, e.g. :class:`~cardzoo.agents.ismcts.ISMCTSSearch`, decides otherwise)."""
        q = self.q_values(state)
        return np.nanargmax(np.where(np.isnan(q), -np.inf, q), axis=1)


class PIMCAgent(Agent):
    """:class:`PIMCSearch` as a named agent for the arena (``cardzoo.agents.load("all_fours/pimc")``).

    It needs the game state (``needs_state = True``): the arena calls :meth:`act_state`;
    :meth:`act` (observation only) raises ``TypeError``.
    """

    needs_state = True

    def __init__(self, kernel, rollout: Agent, n_det: int = 32, seed=None, search: str = "all") -> None:
        self.search = PIMCSearch(kernel, rollout, n_det=n_det, seed=seed, search=search)
        self.name = self.search.name

    @property
    def kernel(self):
        """The kernel whose rules the search plays (its game and options): the games it is given must
        be played with the same (:func:`cardzoo.agents.options.check_rules`; the arena checks)."""
        return self.search.kernel

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Always ``TypeError``: the search needs the game state, not an observation; call
        :meth:`act_state` (``cardzoo.training.arena`` does)."""
        raise TypeError(
            f"{self.name} searches the game state: call act_state(state) (training.arena does); "
            "it cannot act from an observation alone"
        )

    def act_state(self, state) -> np.ndarray:
        """Actions ``int64[B]`` for the seats to act in the games of ``state``."""
        return self.search.act_state(state)
