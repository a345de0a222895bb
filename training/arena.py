"""Duplicate-deal evaluation of agents through a game's batched kernel (DESIGN "Evaluation").

Every deal is played once per *side* (team) with agent A sitting on that side and agent B
on the others, so the luck of the cards cancels: with two teams, each deal is played with A
as team A (seats 0, 2 in All Fours) and again with A as team B, on the same cards. All the
games of a chunk advance together: at each step the games are grouped by which agent
controls the seat to act, and each agent gets one batched ``act`` call.

Exact duplicates: deal ``i`` of a run with ``seed`` owns its random streams, keyed
``(seed, i)`` (:class:`cardzoo.envs.core.chance.RowStreams`), for the deal and for all chance
during its episode: the first dealer, the shuffle of every hand of a match (``episode=
"match"``), redeals (All Fours' exhausted pack, Avinas' throw-in) and chance during play
(Aluette's intercepted signals, P'yanitsa's random collection order). Every seating of a
deal gets fresh streams with the same keys, so both seatings see identical chance, and a
deal's result does not depend on ``batch`` or on the other deals: results are bit-identical
for any batch size (for agents whose action in a row depends only on that row: an agent with its
own random generator, such as ``random`` or a search, draws for a whole chunk at once, so its play,
reproducible for the same seed and batch, changes with the batch). Each kind of
chance has its own stream, so the k-th hand of a match gets the same cards in every seating
even if one seating had a redeal or more chance during play.

Results (per pairing, see :class:`DuplicateResult`):

* ``mean_diff``: mean per hand of A's score minus B's score (for a zero-sum game this is
  A's return, e.g. All Fours' points difference with ``reward="score"``), averaged over the
  seatings of a deal; its 95% CI is a normal approximation over the per-deal averages.
* ``win_rate``: A's pairwise win rate by the game's outcome (``Kernel.outcome``): each hand,
  A's side against each of B's sides, better 1, equal 1/2, worse 0; with two sides the share
  of hands A won, draws half. Its CI is computed the same way, and ``null_win_rate`` (1/2 in
  every game, ``Kernel.null_win_rate``) is what two equal agents score; ``outcome_rates`` gives
  the shares of A's hands won, drawn and lost.

``round_robin`` plays every pair of 3+ agents on the same deals and fits Bradley-Terry
ratings (Elo scale) to the pairwise win counts, with bootstrap CIs over deals.

A CI needs at least 2 deals: with 1 it is NaN in the results, ``n/a (1 deal)`` in the printed
tables and ``null`` in ``cardzoo arena --json`` and the other JSON files the training commands write
(:func:`json_safe`, :func:`json_text`); the means are given all the same.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
from statistics import NormalDist
from typing import Any

import numpy as np
from cardzoo import envs
from cardzoo.agents import Agent, load
from cardzoo.agents.external import ExecAgent
from cardzoo.agents.jsonsafe import json_safe  # kept importable as arena.json_safe
from cardzoo.agents.options import check_layout
from cardzoo.envs.core.chance import RowStreams
from cardzoo.envs.core.kernel import is_int

__all__ = [
    "DuplicateResult",
    "RoundRobinResult",
    "bradley_terry",
    "ci_text",
    "clip_rate_ci",
    "json_safe",
    "json_text",
    "mean_ci",
    "play_duplicate",
    "print_results",
    "rating_ci",
    "results_table",
    "ratings_table",
    "round_robin",
]


# --------------------------------------------------------------------- statistics


def mean_ci(x, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``x`` and its normal-approximation confidence interval.

    Args:
        x: 1-D array-like of independent observations (e.g. per-deal paired differences).
        confidence: two-sided level in (0, 1).

    Returns:
        ``(mean, lo, hi)`` with ``lo, hi = mean -/+ z * s / sqrt(n)``, ``s`` the sample
        standard deviation (``ddof=1``) and ``z`` the normal quantile (1.95996... at 95%).
        With fewer than 2 observations the interval is ``(nan, nan)``.

    Raises ``ValueError`` for an empty ``x`` or a level outside (0, 1).
    """
    a = np.asarray(x, dtype=np.float64).ravel()
    if a.size == 0:
        raise ValueError("mean_ci needs at least one observation")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    m = float(a.mean())
    if a.size < 2:
        return m, math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    half = z * float(a.std(ddof=1)) / math.sqrt(a.size)
    return m, m - half, m + half


def clip_rate_ci(lo: float, hi: float) -> tuple[float, float]:
    """A rate's CI ``(lo, hi)`` clipped to ``[0, 1]`` (the normal approximation can leave it); an
    undefined interval (NaN, fewer than 2 observations) stays NaN (``max(0.0, nan)`` would be 0)."""
    if math.isnan(lo) or math.isnan(hi):
        return math.nan, math.nan
    return max(0.0, lo), min(1.0, hi)


def json_text(value: Any, **kwargs) -> str:
    """``json.dumps`` of :func:`json_safe` ``(value)`` with ``allow_nan=False``: valid JSON, an
    undefined number (the CI of 1 deal) written as ``null``. ``kwargs`` go to ``json.dumps``
    (``indent``, ``sort_keys``, ``default``). What the training commands write results with."""
    import json

    return json.dumps(json_safe(value), allow_nan=False, **kwargs)


def num_text(x: float, fmt: str) -> str:
    """``x`` with format spec ``fmt`` (e.g. ``"+.3f"``), a value that shows as zero written as zero
    (``"+0.000"``, never ``"-0.000"``: a flipped 0.0 is -0.0, and -0.0001 rounds to it)."""
    text = format(x, fmt)
    return format(0.0, fmt) if float(text) == 0 else text


def ci_text(lo: float | None, hi: float | None, fmt: str, n_deals: int) -> str:
    """``"[lo, hi]"`` with format spec ``fmt`` (e.g. ``"+.3f"``), or ``"n/a (1 deal)"`` when the
    interval is undefined (NaN or ``None``: fewer than 2 deals, ``n_deals`` of them)."""
    if not _defined(lo, hi):
        return f"n/a ({_deals(n_deals)})"
    return f"[{num_text(lo, fmt)}, {num_text(hi, fmt)}]"


def _defined(lo, hi) -> bool:
    return lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi)


def _deals(n: int) -> str:
    return f"{n} deal{'' if n == 1 else 's'}"


def bradley_terry(wins: np.ndarray, prior: float = 0.5, iters: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry ratings on the Elo scale from a pairwise win matrix.

    Args:
        wins: ``float[K, K]``; ``wins[i, j]`` = games agent ``i`` won against ``j`` (ties
            counted half to each). The number of games of a pair is ``wins[i, j] + wins[j, i]``.
        prior: pseudo-games added to every pair that played, half won by each side, so an
            agent that won every game still gets a finite rating.
        iters, tol: limits of the minorization-maximization iteration.

    Returns:
        ``float[K]`` ratings ``400 * log10(strength)``, centred on mean 0 (a 400-point gap is
        10:1 odds of winning a game).
    """
    w = np.asarray(wins, dtype=np.float64).copy()
    K = w.shape[0]
    n = w + w.T
    played = n > 0
    w = w + np.where(played, prior / 2.0, 0.0)
    n = w + w.T
    np.fill_diagonal(n, 0.0)
    total = w.sum(axis=1)
    p = np.ones(K)
    for _ in range(iters):
        denom = (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1.0), p)
        new = np.maximum(new, 1e-300)
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    r = 400.0 * np.log10(p)
    return r - r.mean()


# --------------------------------------------------------------------- results


@dataclasses.dataclass
class DuplicateResult:
    """Outcome of :func:`play_duplicate` between agents A and B.

    Attributes:
        game, agent_a, agent_b: names.
        n_deals: deals played; n_hands: episodes played, ``n_deals`` times the number of sides
            (hands; matches with All Fours' ``episode="match"``).
        mean_diff, diff_ci: mean per hand of A's score minus B's (units of the game's reward)
            and its 95% CI ``(lo, hi)``.
        win_rate, win_ci: A's pairwise win rate and its 95% CI: in each hand A's side is compared
            with each of B's sides by the game's outcome (``Kernel.outcome``: better 1, equal 1/2,
            worse 0), averaged over B's sides; with two sides, the share of hands A won, draws half.
        null_win_rate: ``win_rate`` expected of two equal agents (``Kernel.null_win_rate``, 1/2).
        outcome_rates: ``{"win", "draw", "loss"}`` shares of A's hands with that outcome (in
            P'yanitsa with N players the win share of equal agents is (N-1)/N of decided games).
        n_sides: sides per hand (``len(kernel.sides())``): A plays one, B all the others.
        not_losing, not_losing_ci: the share of A's hands A did not lose (won or drawn) and its 95%
            CI over the per-deal shares: with 3 or 4 sides (P'yanitsa) A's seat against B in every other.
        null_not_losing: what A would score there if it were as good as B: one minus the mean share
            of losing sides per hand in the same games ((N-1)/N in P'yanitsa games with a loser).
        faults: messages of ``exec:`` bot faults during the run (``agents/external.py``); after a
            fault the bot plays the lowest legal action for the rest of the run, so the deals from
            the named one on do not measure the bot (empty for a clean run).
        truncated: games (episodes, not deals) cut by a safety cap (``max_hands``, ``max_deals``,
            ``max_redeals``, ``max_battles``, ...). Such a game counts as a draw for every seat in
            ``win_rate``, ``outcome_rates`` and ``not_losing``; in a match the deals played before the
            cap keep their points, and those count in ``mean_diff``, as does what the capping step pays
            (the game's rule: 0 in All Fours, the last deal's points in Aluette's, Avinas' and
            Ottocento's ``max_deals`` with score rewards; training/ARENA.md).
        seed, env_options, batch: what reproduces the run (``batch``, the deals played at once, changes
            the results of stochastic agents only; ``None`` where unknown).
        deal_diff, deal_win: ``float64[n_deals]`` per-deal averages over the seatings (the
            paired observations of the CIs; not part of :meth:`to_dict`).
        categories, deal_category: the game's kinds of deal (``Kernel.DEAL_CATEGORIES``, e.g.
            Avinas' sevens and no-sevens games) and ``int64[n_deals]`` the kind of each deal's
            first deal; ``()`` and ``None`` for games with one kind. See :meth:`by_category`.
    """

    game: str
    agent_a: str
    agent_b: str
    n_deals: int
    n_hands: int
    mean_diff: float
    diff_ci: tuple[float, float]
    win_rate: float
    win_ci: tuple[float, float]
    truncated: int
    seed: int
    env_options: dict
    deal_diff: np.ndarray = dataclasses.field(repr=False)
    deal_win: np.ndarray = dataclasses.field(repr=False)
    categories: tuple[str, ...] = ()
    deal_category: np.ndarray | None = dataclasses.field(default=None, repr=False)
    null_win_rate: float = 0.5
    outcome_rates: dict = dataclasses.field(default_factory=dict)
    faults: list = dataclasses.field(default_factory=list)
    n_sides: int = 2
    not_losing: float = float("nan")
    not_losing_ci: tuple[float, float] = (float("nan"), float("nan"))
    null_not_losing: float = float("nan")
    batch: int | None = None

    def by_category(self) -> dict[str, dict[str, Any]]:
        """Results per kind of deal: ``{name: {"n_deals", "mean_diff", "diff_ci", "win_rate",
        "win_ci"}}`` over the deals of that kind (empty for games with one kind of deal; a kind
        with fewer than 2 deals gets NaN intervals, and NaN means too when it has none)."""
        out: dict[str, dict[str, Any]] = {}
        if self.deal_category is None:
            return out
        for i, name in enumerate(self.categories):
            sel = self.deal_category == i
            m, lo, hi = mean_ci(self.deal_diff[sel]) if sel.any() else (math.nan,) * 3
            w, wlo, whi = mean_ci(self.deal_win[sel]) if sel.any() else (math.nan,) * 3
            out[name] = {
                "n_deals": int(sel.sum()),
                "mean_diff": m,
                "diff_ci": [lo, hi],
                "win_rate": w,
                "win_ci": list(clip_rate_ci(wlo, whi)),
            }
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-serializable summary (no per-deal arrays)."""
        return {
            "game": self.game,
            "agent_a": self.agent_a,
            "agent_b": self.agent_b,
            "n_deals": self.n_deals,
            "n_hands": self.n_hands,
            "mean_diff": self.mean_diff,
            "diff_ci": [self.diff_ci[0], self.diff_ci[1]],
            "win_rate": self.win_rate,
            "win_ci": [self.win_ci[0], self.win_ci[1]],
            "null_win_rate": self.null_win_rate,
            "outcome_rates": dict(self.outcome_rates),
            "n_sides": self.n_sides,
            "not_losing": self.not_losing,
            "not_losing_ci": [self.not_losing_ci[0], self.not_losing_ci[1]],
            "null_not_losing": self.null_not_losing,
            "faults": list(self.faults),
            "truncated": self.truncated,
            "seed": self.seed,
            "batch": self.batch,
            "env_options": dict(self.env_options),
            "by_category": self.by_category(),
        }


@dataclasses.dataclass
class RoundRobinResult:
    """Outcome of :func:`round_robin`.

    Attributes:
        names: agent names, in the order given.
        pairs: one :class:`DuplicateResult` per pair ``(i < j)``, agent ``i`` as A; with 3 or 4 sides
            (P'yanitsa), where A sits alone against copies of B, one per ordered pair ``(i, j)``, ``i != j``
            (``itertools.permutations`` order): each agent alone against copies of each other one.
        ratings: ``float[K]`` Bradley-Terry ratings (Elo scale, mean 0).
        rating_ci: ``float[K, 2]`` bootstrap 95% intervals (resampling deals); NaN with 1 deal.
        wins: ``float[K, K]`` hands won by row against column (ties half; with 3 or 4 sides, the
            pairwise comparisons of both orientations of a pair added up).
    """

    names: list[str]
    pairs: list[DuplicateResult]
    ratings: np.ndarray
    rating_ci: np.ndarray
    wins: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        """JSON-serializable summary."""
        order = np.argsort(-self.ratings)
        return {
            "ratings": [
                {
                    "agent": self.names[i],
                    "rating": float(self.ratings[i]),
                    "ci": [float(self.rating_ci[i, 0]), float(self.rating_ci[i, 1])],
                }
                for i in order
            ],
            "pairs": [p.to_dict() for p in self.pairs],
            "wins": {a: {b: float(self.wins[i, j]) for j, b in enumerate(self.names) if j != i} for i, a in enumerate(self.names)},
            "via_common_opponent": self.via_common_opponent(),
        }

    def _diff(self, i: int, j: int) -> np.ndarray | None:
        """``float64[n_deals]``: agent ``i``'s mean difference against agent ``j`` on each deal (alone
        against copies of ``j`` with more than two sides); ``None`` where only the other orientation was
        played with more than two sides (``j`` alone against copies of ``i`` is not ``i`` alone against
        copies of ``j``; :func:`round_robin` plays both)."""
        a, b = self.names[i], self.names[j]
        for p in self.pairs:
            if (p.agent_a, p.agent_b) == (a, b):
                return p.deal_diff
        for p in self.pairs:
            if (p.agent_a, p.agent_b) == (b, a):
                return -p.deal_diff if p.n_sides == 2 else None
        raise ValueError(f"no pairing of agents {i} and {j}")

    def via_common_opponent(self) -> list[dict[str, Any]]:
        """Two agents compared through a third one that both played, paired by deal.

        For every pair ``A``, ``B`` (in the order given) and every other agent ``C``: ``mean_diff`` is
        the mean over deals of (A's difference against C) minus (B's difference against C), with its
        95% CI (``diff_ci``, :func:`mean_ci` over the deals). Both pairings played the same deals, and
        C started each from the same random state (:func:`play_duplicate`), so the luck of the cards
        cancels: the CI is narrower than the two pairings' own CIs side by side. It answers e.g.
        "does the trained agent score as much against random as the rule bot does?". With more
        than two sides (P'yanitsa with 3 or 4 players) a pairing seats its first agent alone
        against copies of the second: the rows compare A alone against C with B alone against C
        (:func:`round_robin` plays both orientations of every pair).
        Each row: ``a``, ``b``, ``via``, ``a_vs_via``, ``b_vs_via`` (the two pairings' means),
        ``mean_diff``, ``diff_ci``, ``n_deals``."""
        rows = []
        K = len(self.names)
        for i, j in itertools.combinations(range(K), 2):
            for c in range(K):
                if c in (i, j):
                    continue
                da, db = self._diff(i, c), self._diff(j, c)
                if da is None or db is None:
                    continue
                m, lo, hi = mean_ci(da - db)
                rows.append({"a": self.names[i], "b": self.names[j], "via": self.names[c], "a_vs_via": float(da.mean()),
                             "b_vs_via": float(db.mean()), "mean_diff": m, "diff_ci": [lo, hi], "n_deals": int(len(da))})
        return rows


# --------------------------------------------------------------------- play


def _random_generators(obj, seen: set | None = None) -> list:
    """The numpy and torch random generators an agent holds: in its attributes, and in those of the
    agents and searches it wraps (objects of ``cardzoo.agents`` modules, also inside lists, tuples
    and dicts). Kernels and other objects are not searched."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    found = []
    values = list(vars(obj).values()) if hasattr(obj, "__dict__") else []
    while values:
        v = values.pop()
        t = type(v)
        if isinstance(v, np.random.Generator) or (t.__name__ == "Generator" and t.__module__.split(".")[0] == "torch"):
            if id(v) not in seen:
                seen.add(id(v))
                found.append(v)
        elif isinstance(v, (list, tuple)):
            values.extend(v)
        elif isinstance(v, dict):
            values.extend(v.values())
        elif isinstance(v, Agent) or t.__module__.startswith("cardzoo.agents."):
            found.extend(_random_generators(v, seen))
    return found


def _save_random_state(agents) -> list:
    """``(generator, state)`` of every random generator the agents hold (:func:`_random_generators`)."""
    seen: set = set()
    out = []
    for ag in agents:
        for g in _random_generators(ag, seen):
            out.append((g, g.get_state() if hasattr(g, "get_state") else dict(g.bit_generator.state)))
    return out


def _restore_random_state(saved: list) -> None:
    for g, state in saved:
        if hasattr(g, "set_state"):
            g.set_state(state)
        else:
            g.bit_generator.state = state


def check_count(value, name: str, minimum: int = 1) -> int:
    """``value`` as an ``int`` if it is an integer (numpy ones too, not a ``bool``: :func:`is_int`) of at
    least ``minimum``; else ``ValueError`` naming ``name`` (an argument, or a flag such as ``--deals``)."""
    if not is_int(value) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def check_deal_seed(seed, name: str = "seed") -> int:
    """The seed of a deal set as an ``int``: a non-negative integer (:func:`is_int`; ``None`` is refused,
    since it fixes the deals); else ``ValueError`` naming ``name``."""
    if not is_int(seed) or seed < 0:
        raise ValueError(f"{name} must be a non-negative int (it fixes the deals), got {seed!r}")
    return int(seed)


def check_env_options(env_options, name: str = "env_options") -> dict:
    """``env_options`` (a mapping of option names to values, or ``None``) as a new ``dict``; anything else
    raises ``TypeError`` naming ``name`` (a string said "dictionary update sequence element #0 has length 1;
    2 is required", and a list of pairs was taken as options)."""
    from collections.abc import Mapping

    if env_options is None:
        return {}
    if not isinstance(env_options, Mapping):
        raise TypeError(f"{name} must be a dict of option names and values, e.g. {{'episode': 'match'}} (or None: the "
                        f"defaults), got {env_options!r}")
    return dict(env_options)


def _resolve(agent, env_options: dict, game: str, seed: int, arg: str = "agent") -> Agent:
    """``agent`` itself, or the agent of that name loaded for ``game`` with ``env_options``; a named
    agent that draws random numbers (``random``, a search: ``registry.takes_seed``) is built with
    ``seed`` (as ``cardzoo arena`` builds the i-th agent named, with ``--seed`` + i). A name may carry
    the agent's own parameters as on the command line, ``"all_fours/pimc:n_det=8"``
    (:func:`cardzoo.training.common.split_agent_spec`). What is neither an agent (an object with
    ``act``) nor a name/path raises ``TypeError`` naming ``arg``
    (:func:`cardzoo.agents.registry.agent_name` says what names an agent)."""
    from cardzoo.agents.registry import agent_name, takes_seed

    from .common import check_agent_game, split_agent_spec

    if not isinstance(agent, Agent) and not callable(getattr(agent, "act", None)):
        try:
            agent = agent_name(agent)
        except TypeError as e:
            raise TypeError(f"{arg} is not an agent (an Agent, or an object with act()); {e}") from None
    if isinstance(agent, str):
        name, params = split_agent_spec(agent)
        check_agent_game(None, game, name)
        loaded = load(name, **env_options, **params, **({"seed": int(seed)} if takes_seed(name) else {}))
        check_agent_game(loaded, game, name)
        return loaded
    check_agent_game(agent, game, getattr(agent, "name", type(agent).__name__))
    return agent


def _int_actions(agent, actions) -> np.ndarray:
    """``int64`` actions of ``agent``'s answer; ``ValueError`` naming the agent for any other kind (floats
    were cut to ints, 52.9 playing 52, and NaN was named "illegal action -9223372036854775808")."""
    a = np.asarray(actions)
    if a.dtype.kind not in "iu":
        raise ValueError(f"agent {_who(agent)} returned {a.dtype} actions; actions are ints (action ids), e.g. int64")
    return a.astype(np.int64)


def _who(agent) -> str:
    """An agent as error messages name it: its ``name`` (``'floats' (Floats)``), else its repr."""
    name = getattr(agent, "name", None)
    return f"{name!r} ({type(agent).__name__})" if isinstance(name, str) and name else repr(agent)


def _nothing(*args) -> None:
    """What the arena calls where an agent (an object with ``act`` only) has no ``reset``, ``begin`` or
    ``end_episodes``."""


def _agent_name(agent, given: str | None) -> str:
    if given is not None:
        return given
    if isinstance(agent, os.PathLike):
        return os.fspath(agent)
    return agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)


def deal_streams(seed: int, start: int, stop: int) -> RowStreams:
    """The random streams of deals ``start..stop-1`` of the deal set fixed by ``seed`` (keys ``(seed, i)``).

    Fresh generators on every call: each seating of a deal replays the same chance from the start."""
    return RowStreams.for_deals(seed, range(start, stop))


def _sides(kernel) -> list[list[int]]:
    return [list(t) for t in kernel.teams] if kernel.teams else [[s] for s in range(kernel.num_players)]


def _play_chunk(kernel, agents: tuple[Agent, Agent], seed: int, start: int, stop: int, max_steps: int):
    """Play deals ``start..stop-1`` once per side (seating ``o`` = agent A on side ``o``, B on the others).

    Returns ``(side_returns float64[k seatings, n, k sides], side_outcomes int8[k, n, k] (see
    ``Kernel.outcome``), truncated games, deal kinds int64[n] or None)``."""
    sides = _sides(kernel)
    k = len(sides)
    P = kernel.num_players
    side_of = np.empty(P, dtype=np.int64)
    for i, seats in enumerate(sides):
        side_of[seats] = i
    n = stop - start
    rngs = [deal_streams(seed, start, stop) for _ in range(k)]  # seating o: its own copy of the deals' streams
    states = [kernel.init(rng, n) for rng in rngs]
    # what the deal itself pays (All Fours: a match to 3 or less can be won on the first kick, ended in init)
    returns = np.stack([np.asarray(st.rewards, dtype=np.float64) for st in states])
    # the same deal in every seating; kernels without kinds of deal (or duck-typed ones) give None
    category = kernel.deal_category(states[0]) if getattr(kernel, "DEAL_CATEGORIES", ()) else None
    for ag in agents:  # an object with act() only (no Agent) has no reset, begin or end_episodes: nothing to call
        getattr(ag, "reset", _nothing)()

    def end(o: int, ended: np.ndarray) -> None:
        """Tell the agents of seating ``o`` that its games ``ended`` (bool[n]) are over, once per episode."""
        if ended.any():
            for ag in agents if agents[0] is not agents[1] else agents[:1]:
                if isinstance(ag, ExecAgent):  # to the processes of this seating only
                    ag.table = o
                getattr(ag, "end_episodes", _nothing)(returns[o][ended])

    for o, st in enumerate(states):  # games over inside the deal (an All Fours match won on the first kick)
        end(o, st.done.copy())
    for _ in range(max_steps):
        live = [~st.done for st in states]
        if not any(lv.any() for lv in live):
            break
        obs, masks, acts = [], [], []
        for st in states:
            obs.append(kernel.observe(st, st.current_player))
            masks.append(kernel.legal_actions(st))
            acts.append(np.zeros(n, dtype=np.int64))
        for who, ag in enumerate(agents):
            rows = []
            for o, st in enumerate(states):
                cp = st.current_player.astype(np.int64)
                controlled_by_a = side_of[cp] == o
                sel = live[o] & (controlled_by_a if who == 0 else ~controlled_by_a)
                rows.append(np.flatnonzero(sel))
            total = sum(r.size for r in rows)
            if total == 0:
                continue
            mk = np.concatenate([masks[o][r] for o, r in enumerate(rows)])
            try:
                if getattr(ag, "needs_state", False):  # a search agent (agents/search.py) reads the state
                    parts = []
                    for o, (st, r) in enumerate(zip(states, rows)):
                        if r.size == 0:
                            continue
                        if isinstance(ag, ExecAgent):  # names the deal of each decision in fault messages
                            ag.row_labels = [f"deal {start + int(i)}, seating {o}" for i in r]
                            ag.table = o  # a process per seat and seating: none sees a deal twice
                        parts.append(ag.act_state(st.take(r)))
                    answer = np.concatenate([np.asarray(p) for p in parts])
                else:
                    ob = np.concatenate([obs[o][r] for o, r in enumerate(rows)])
                    answer = ag.act(ob, mk)
            except Exception as e:  # the agent's own error, unchanged, with who raised it and where
                e.add_note(f"raised by agent {_who(ag)} in the arena, choosing for {total} decisions of deals "
                           f"{start}..{stop - 1}")
                raise
            a = _int_actions(ag, answer)
            if a.shape != (total,):
                raise ValueError(f"agent {_who(ag)} returned actions of shape {a.shape}, expected ({total},)")
            ok = mk[np.arange(total), np.clip(a, 0, mk.shape[1] - 1)] & (a >= 0) & (a < mk.shape[1])
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                sizes = np.cumsum([r.size for r in rows])
                o = int(np.searchsorted(sizes, bad, side="right"))  # the seating, and the deal, of that decision
                deal = start + int(rows[o][bad - (int(sizes[o - 1]) if o else 0)])
                raise ValueError(
                    f"agent {_who(ag)} chose illegal action {int(a[bad])} "
                    f"({kernel.action_name(int(a[bad])) if 0 <= a[bad] < kernel.num_actions else 'out of range'}) "
                    f"in deal {deal}, seating {o}; legal: {[kernel.action_name(x) for x in np.flatnonzero(mk[bad])]}"
                )
            at = 0  # not `start`: that is the chunk's first deal, which the exec: bots' fault labels name
            for o, r in enumerate(rows):
                acts[o][r] = a[at : at + r.size]
                at += r.size
        for o, st in enumerate(states):
            if live[o].any():
                kernel.step(st, acts[o], rngs[o])
                returns[o] += st.rewards
                end(o, live[o] & st.done)
    else:
        if any((~st.done).any() for st in states):
            raise RuntimeError(f"games still running after {max_steps} steps; the kernel's max_episode_steps is wrong")
    side_ret = np.stack([returns[:, :, seats].mean(axis=2) for seats in sides], axis=2)  # [k, n, k]
    # int8[k, n, P]: a capped game is a draw; a game's own match rule where returns do not decide (Avinas)
    out = np.stack([kernel.episode_outcome(st, returns[o]) for o, st in enumerate(states)])
    side_out = np.stack([out[:, :, seats[0]] for seats in sides], axis=2)  # [k, n, k]
    truncated = int(sum(st.truncated.sum() for st in states))
    return side_ret, side_out, truncated, category


def play_duplicate(
    game: str,
    agent_a,
    agent_b,
    n_deals: int,
    seed: int = 0,
    batch: int = 1024,
    env_options: dict | None = None,
    progress: bool = False,
    name_a: str | None = None,
    name_b: str | None = None,
    on_chunk=None,
) -> DuplicateResult:
    """Play ``n_deals`` duplicate deals of ``game`` between ``agent_a`` and ``agent_b``.

    Args:
        game: a name of :data:`envs.GAMES` (e.g. ``"all_fours"``).
        agent_a, agent_b: :class:`~agents.Agent` objects, or names/paths for :func:`cardzoo.agents.load`
            (loaded with ``env_options``). They may be the same object. A name of an agent that draws
            random numbers (``random``, ``GAME/pimc``, ``GAME/ismcts``) is built with ``seed`` (A) and
            ``seed + 1`` (B), as ``cardzoo arena GAME A B --seed S`` builds them, so the same call
            with the same ``batch`` gives the same numbers, here and on the command line (whose
            ``--batch`` defaults to 256, this function's ``batch`` to 1024: pass ``batch=256`` to
            match a command run without ``--batch``). An agent object plays with its own
            generators: seed it when you build it (``RandomAgent(seed=...)``,
            ``load(name, seed=...)``); one built unseeded (fresh entropy) plays differently each time.
        n_deals: number of deals; each is played once per side (``2 * n_deals`` hands for a
            two-team game).
        seed: fixes the deals and all chance of their episodes (deal ``i`` uses the streams
            keyed ``(seed, i)``); the same seed gives the same deals whatever the agents.
        batch: deals per chunk (the games of a chunk advance together: ``batch * sides`` games);
            it changes speed and memory only, never the results of deterministic agents (rule bots,
            trained agents playing their most likely action). A stochastic agent (``random``, a
            sampling policy, a search) draws for all the games of a chunk at once from its one
            generator, so its results are reproducible for the same ``seed`` and ``batch`` but
            change with ``batch`` (the deals do not).
        env_options: the game's options (``RULES.md`` §8), e.g. ``{"undertrump": "forbidden"}``.
        progress: show a progress bar (tqdm) over deals.
        name_a, name_b: names for the report (default: the agents' ``name``).
        on_chunk: called with the number of deals of each finished chunk (e.g. an outer progress bar's ``update``).

    Returns:
        :class:`DuplicateResult` (mean difference per hand and win rate with 95% CIs).

    The agents' own random generators (numpy and torch, also those of wrapped agents and searches)
    are put back as they were when it returns: each call plays a stochastic agent from the same
    state, so a pairing's result does not depend on what the agent played before (in a round
    robin, on the other pairings; in a resumed leaderboard, on the pairings already stored).
    An ``exec:`` bot's randomness is its own.

    Raises:
        ValueError: bad game/option/agent name; ``n_deals`` or ``batch`` not an int >= 1 or ``seed`` not
        a non-negative int (:func:`check_count`, :func:`check_deal_seed`: bools and floats refused); a
        trained agent whose observation layout is not this game's with ``env_options``
        (:class:`~cardzoo.agents.options.LayoutMismatchError`, naming the agent and the options it was
        trained for, before any deal is played); or an agent returning an illegal action (the message
        names it and the legal ones).
        TypeError: an agent that is neither an agent object nor a name/path (``agent_a``/``agent_b`` named), or
        ``env_options`` that is not a dict (:func:`check_env_options`).
    """
    env_options = check_env_options(env_options)
    n_deals, batch, seed = check_count(n_deals, "n_deals"), check_count(batch, "batch"), check_deal_seed(seed)
    kernel = envs.kernel(game, **env_options)
    a, b = _resolve(agent_a, env_options, game, seed, "agent_a"), _resolve(agent_b, env_options, game, seed + 1, "agent_b")
    for ag, given, label in ((a, agent_a, name_a), (b, agent_b, name_b)):  # before a deal is played, naming the agent
        check_layout(ag, game, env_options, _agent_name(given, label))
    sides = _sides(kernel)
    k = len(sides)
    max_steps = (kernel.max_episode_steps or 100_000) + 1
    kinds = tuple(getattr(kernel, "DEAL_CATEGORIES", ()))
    try:  # the per-deal results: 48 bytes a deal (56 with kinds of deal)
        diffs = np.empty(n_deals)
        wins = np.empty(n_deals)
        own = np.empty((n_deals, 3))
        losing = np.empty(n_deals)
        categories = np.zeros(n_deals, dtype=np.int64) if kinds else None
    except MemoryError:  # --deals 100000000000 ended in numpy's _ArrayMemoryError traceback
        raise ValueError(f"{n_deals:,} deals are too many to hold their per-deal results in memory "
                         f"({n_deals * (56 if kinds else 48) / 2**30:,.0f} GiB); play fewer deals") from None
    truncated = 0
    bar = _progress(n_deals, f"{_agent_name(agent_a, name_a)} vs {_agent_name(agent_b, name_b)}", progress)
    faults_before = [len(ag.faults) if isinstance(ag, ExecAgent) else 0 for ag in (a, b)]
    random_state = _save_random_state((a, b))
    for ag in (a, b) if a is not b else (a,):
        # an exec: bot gets fresh processes for each pairing: the pairings play the same deals, and a
        # process that had seen a deal played out would know every hand of it the next time
        getattr(ag, "begin", _nothing)(kernel)
    try:
        for start in range(0, n_deals, batch):
            stop = min(start + batch, n_deals)
            side_ret, side_out, tr, cat = _play_chunk(kernel, (a, b), int(seed), start, stop, max_steps)
            truncated += tr
            if categories is not None:
                categories[start:stop] = cat
            d, w, o = _pair_outcomes(side_ret, side_out, kernel.zero_sum)
            diffs[start:stop] = d
            wins[start:stop] = w
            own[start:stop] = o
            losing[start:stop] = (side_out == -1).mean(axis=2).mean(axis=0)  # share of losing sides per hand
            bar.update(stop - start)
            if on_chunk is not None:
                on_chunk(stop - start)
    finally:
        bar.close()
        _restore_random_state(random_state)
    m, lo, hi = mean_ci(diffs)
    wr, wlo, whi = mean_ci(wins)
    wlo, whi = clip_rate_ci(wlo, whi)  # a rate: the normal approximation can leave [0, 1]
    nl, nlo, nhi = mean_ci(1.0 - own[:, 2])
    return DuplicateResult(
        game=game,
        agent_a=_agent_name(agent_a, name_a),
        agent_b=_agent_name(agent_b, name_b),
        n_deals=n_deals,
        n_hands=n_deals * k,
        mean_diff=m,
        diff_ci=(lo, hi),
        win_rate=wr,
        win_ci=(wlo, whi),
        truncated=truncated,
        seed=int(seed),
        env_options=env_options,
        deal_diff=diffs,
        deal_win=wins,
        null_win_rate=float(kernel.null_win_rate),
        faults=[f for ag, n in zip((a, b), faults_before) if isinstance(ag, ExecAgent) for f in ag.faults[n:]],
        outcome_rates={"win": float(own[:, 0].mean()), "draw": float(own[:, 1].mean()), "loss": float(own[:, 2].mean())},
        categories=kinds,
        deal_category=categories,
        n_sides=k,
        not_losing=nl,
        not_losing_ci=clip_rate_ci(nlo, nhi),
        null_not_losing=float(1.0 - losing.mean()),
        batch=int(batch),
    )


def _pair_outcomes(side_ret: np.ndarray, side_out: np.ndarray, zero_sum: bool):
    """Per deal, from side returns and outcomes ``[k seatings, n, k sides]``: A's score difference
    ``float64[n]`` (A's side's return minus the mean return of all k sides, which is 0 in a zero-sum
    game: there A's return), A's pairwise win rate ``float64[n]`` (A's side against each of B's sides by
    outcome: better 1, equal 1/2, worse 0) and the shares of A's hands won, drawn, lost ``float64[n, 3]``."""
    k = side_ret.shape[0]
    o = np.arange(k)
    r_a = side_ret[o, :, o]  # [k, n]: A's return in seating o
    # A's return above the table's mean return (over all k sides): in a zero-sum game the mean is 0,
    # so it is A's return, what B's sides lost to A together (not r_a - r_b, twice that with two sides)
    diff = r_a if zero_sum else r_a - side_ret.mean(axis=2)
    o_a = side_out[o, :, o].astype(np.int64)  # [k, n]
    o_others = np.stack([np.delete(side_out[i], i, axis=1) for i in range(k)]).astype(np.int64)  # [k, n, k-1]
    win = (np.sign(o_a[:, :, None] - o_others) + 1.0).mean(axis=2) / 2.0
    own = np.stack([(o_a == 1).mean(axis=0), (o_a == 0).mean(axis=0), (o_a == -1).mean(axis=0)], axis=1)
    # rewards are float32 (e.g. P'yanitsa's 1/3): a sum that is 0 in exact arithmetic can be 3e-8
    # off; round to 1e-6 so that equal agents give exactly 0 (far below any reward unit)
    return np.round(diff.mean(axis=0), 6) + 0.0, win.mean(axis=0), own


class _NoProgress:
    """Stands in for a progress bar when none is shown (so the arena needs no tqdm then)."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, *args, **kwargs) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def _progress(total: int, desc: str, enabled: bool, unit: str = "deal"):
    if not enabled:
        return _NoProgress()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, leave=False)


def round_robin(
    game: str,
    agents: dict,
    n_deals: int,
    seed: int = 0,
    batch: int = 1024,
    env_options: dict | None = None,
    progress: bool = False,
    n_boot: int = 500,
) -> RoundRobinResult:
    """Every pair of ``agents`` plays :func:`play_duplicate` on the same ``n_deals`` deals (with 3 or 4
    sides, P'yanitsa, both ways: each agent alone against copies of the other); Bradley-Terry ratings
    are fitted to the pairwise win counts. ``agents``: a dict name -> Agent
    or loadable name, or a list of loadable names or agents (each keyed by its name, which must differ, as
    in a leaderboard; the same agent twice takes a dict with two keys).

    The rating CIs are percentile intervals over ``n_boot`` bootstrap resamples of the deals
    (the same resampled deals for every pair, since every pair played the same deals); NaN with
    ``n_boot=0`` or a single deal (:func:`rating_ci`). The ``i``-th agent given by name is built,
    if it draws random numbers, with ``seed + i``, as ``cardzoo arena`` builds it.
    Raises ``ValueError`` with fewer than 2 agents, an agent given twice in a list, or a bad ``n_deals``,
    ``batch``, ``seed`` or ``n_boot`` (:func:`check_count`, :func:`check_deal_seed`); ``TypeError`` for an
    entry that is neither an agent nor a name, ``agents`` given as one string, or ``env_options`` that is not a dict.
    """
    env_options = check_env_options(env_options)
    n_deals, batch, seed = check_count(n_deals, "n_deals"), check_count(batch, "batch"), check_deal_seed(seed)
    n_boot = check_count(n_boot, "n_boot", 0)
    if isinstance(agents, (str, bytes)):
        raise TypeError(f"round_robin: agents must be a list (or dict) of agent names or agents, not a string: got {agents!r}")
    if not isinstance(agents, dict):
        agents = list(agents)
        named = [_agent_name(a, None) for a in agents]
        twice = sorted({n for n in named if named.count(n) > 1})
        if twice:  # as the leaderboard: an agent is one entry, named by its name
            raise ValueError(f"round_robin: agents {twice} are given more than once; each agent plays once. To have the same "
                             f"agent twice, pass a dict of distinct names, e.g. {{{twice[0]!r}: {twice[0]!r}, {twice[0] + '#2'!r}: {twice[0]!r}}}")
        agents = dict(zip(named, agents))
    names = list(agents)
    if len(names) < 2:
        raise ValueError(f"round_robin needs at least 2 agents, got {names}")
    resolved = {nm: _resolve(ag, env_options, game, seed + i, f"agents[{nm!r}]") for i, (nm, ag) in enumerate(agents.items())}
    K = len(names)
    # with 3 or 4 sides a pairing seats A alone against copies of B, which says nothing of B alone
    # against copies of A: both orientations are played, so neither the ratings nor a row depend on
    # the order in which the agents were given
    two_sides = len(envs.kernel(game, **env_options).sides()) == 2
    order = list(itertools.combinations(range(K), 2) if two_sides else itertools.permutations(range(K), 2))
    pairs = []
    for i, j in order:
        pairs.append(
            play_duplicate(
                game,
                resolved[names[i]],
                resolved[names[j]],
                n_deals,
                seed=seed,
                batch=batch,
                env_options=env_options,
                progress=progress,
                name_a=names[i],
                name_b=names[j],
            )
        )
    sides = pairs[0].n_hands // pairs[0].n_deals

    def win_matrix(idx) -> np.ndarray:
        w = np.zeros((K, K))
        for (i, j), p in zip(order, pairs):  # both orientations of a pair (3 or 4 sides) add up
            won = float(p.deal_win[idx].sum()) * sides
            w[i, j] += won
            w[j, i] += len(idx) * sides - won
        return w

    wins = win_matrix(np.arange(n_deals))
    ratings = bradley_terry(wins)
    ci = rating_ci(win_matrix, K, n_deals, seed, n_boot, progress=progress)
    return RoundRobinResult(names=names, pairs=pairs, ratings=ratings, rating_ci=ci, wins=wins)


def rating_ci(win_matrix, n_agents: int, n_deals: int, seed: int, n_boot: int, progress: bool = False) -> np.ndarray:
    """``float[n_agents, 2]``: bootstrap 95% percentile intervals of the Bradley-Terry ratings
    (:func:`bradley_terry`) over ``n_boot`` resamples of the ``n_deals`` deals, drawn from
    ``numpy.random.default_rng([seed, 7919])``; ``win_matrix(idx)`` gives the win matrix of the
    deals ``idx`` (``int[n_deals]``, with repeats). NaN with ``n_boot=0`` or a single deal:
    resampling one deal gives that deal back, so there is no spread to estimate (as
    :func:`mean_ci` gives no interval for 1 observation). :func:`round_robin` and the
    leaderboard (``training/leaderboard.py``) both use it. ``progress``: a progress bar (tqdm, rate
    and ETA) over the resamples."""
    if n_boot <= 0 or n_deals < 2:
        return np.full((n_agents, 2), np.nan)
    rng = np.random.default_rng([seed, 7919])
    boots = np.empty((n_boot, n_agents))
    with _progress(n_boot, "rating CIs (bootstrap)", progress, unit="resample") as bar:
        for r in range(n_boot):
            boots[r] = bradley_terry(win_matrix(rng.integers(0, n_deals, size=n_deals)))
            bar.update(1)
    return np.percentile(boots, [2.5, 97.5], axis=0).T


# --------------------------------------------------------------------- output


def episode_name(rows) -> str:
    """The episode of result rows (:class:`DuplicateResult` s or their ``to_dict()`` dicts) in the
    game's terms (``Kernel.episode_name``: hand, deal, match, game); ``"episode"`` when they mix."""
    def game_options(r):
        return (r["game"], r["env_options"]) if isinstance(r, dict) else (r.game, r.env_options)

    names = {envs.kernel(g, **o).episode_name for g, o in map(game_options, rows)}
    return names.pop() if len(names) == 1 else "episode"


def duplicate_deals(n: int) -> str:
    """``"1 duplicate deal"``, ``"2,000 duplicate deals"`` (the commands said "1 duplicate deals")."""
    return f"{n:,} duplicate deal{'' if n == 1 else 's'}"


def plural(episode: str) -> str:
    """``"hands"``, ``"deals"``, ``"games"``, ``"matches"``."""
    return episode + ("es" if episode.endswith("ch") else "s")


def results_table(results, title: str = "Duplicate evaluation"):
    """``rich.table.Table`` of :class:`DuplicateResult` s (one row per pairing); the count (episodes
    played: every duplicate deal once per seating) and the mean are per episode in the game's terms
    (e.g. "hands played" and "mean diff / hand" in All Fours, "matches" with ``episode="match"``)."""
    from rich.table import Table

    t = Table(title=title)
    rows = [results] if isinstance(results, DuplicateResult) else results
    ep = episode_name(rows)
    for col in ("A", "B", f"{plural(ep)} played", f"mean diff / {ep} (A-B)", "95% CI", "A win rate",
                "95% CI", "null"):
        if col in ("A", "B"):  # a narrow terminal folds a long agent name: it is never cut short
            t.add_column(col, justify="left", overflow="fold")
        else:
            t.add_column(col, justify="right")
    for r in rows:
        t.add_row(
            r.agent_a,
            r.agent_b,
            str(r.n_hands),
            num_text(r.mean_diff, "+.3f"),
            ci_text(*r.diff_ci, "+.3f", r.n_deals),
            f"{r.win_rate:.3f}",
            ci_text(*r.win_ci, ".3f", r.n_deals),
            f"{r.null_win_rate:.3f}",
        )
    return t


def not_losing_line(r: DuplicateResult) -> str:
    """One line for a game of 3 or more sides (P'yanitsa): how often A, alone against B in every
    other seat, did not lose, beside what an agent as good as B would score in the same games."""
    ci = ci_text(*r.not_losing_ci, ".3f", r.n_deals) if _defined(*r.not_losing_ci) else f"(CI n/a: {_deals(r.n_deals)})"
    return (f"{r.agent_a} alone against {r.n_sides - 1} x {r.agent_b}: not losing in {r.not_losing:.3f} "
            f"{ci} of its games; an agent as good as {r.agent_b}: "
            f"{r.null_not_losing:.3f} (1 - the share of losing seats)")


#: below this many deals the normal-approximation CIs (:func:`mean_ci`) are noticeably too narrow
FEW_DEALS = 30


def few_deals_line(n_deals: int) -> str:
    """The note printed under results of 2 to ``FEW_DEALS - 1`` deals: their CIs use the normal
    quantile, not Student's t, so they cover the true mean less often than 95% (ARENA.md)."""
    return (f"CIs over {_deals(n_deals)}: normal approximation, too narrow with fewer than {FEW_DEALS} deals "
            f"(e.g. about 70% coverage with 2 deals, 92% with 10); play more deals to publish them")


def truncated_line(r: DuplicateResult) -> str:
    """One line for a result with games cut by a safety cap (``r.truncated > 0``): how many, and how they count."""
    ep = episode_name([r])
    return (f"{r.agent_a} vs {r.agent_b}: {r.truncated} of {r.n_hands} {plural(ep)} cut by a safety cap "
            f"(e.g. max_hands): draws in the win rate; the points they were paid count in the mean diff")


def category_table(r: DuplicateResult):
    """``rich.table.Table`` of one result split by kind of deal (:meth:`DuplicateResult.by_category`)."""
    from rich.table import Table

    t = Table(title=f"{r.agent_a} vs {r.agent_b} by kind of deal")
    for col in ("deal", "duplicate deals", f"mean diff / {episode_name([r])} (A-B)", "95% CI", "A win rate", "95% CI"):
        t.add_column(col, justify="left" if col == "deal" else "right")
    for name, c in r.by_category().items():
        t.add_row(
            name,
            str(c["n_deals"]),
            num_text(c["mean_diff"], "+.3f") if c["n_deals"] else "n/a",
            ci_text(*c["diff_ci"], "+.3f", c["n_deals"]),
            f"{c['win_rate']:.3f}" if c["n_deals"] else "n/a",
            ci_text(*c["win_ci"], ".3f", c["n_deals"]),
        )
    return t


def ratings_table(rr: RoundRobinResult, title: str = "Bradley-Terry ratings (Elo scale)"):
    """``rich.table.Table`` of the round-robin ratings, best first."""
    from rich.table import Table

    t = Table(title=title)
    t.add_column("rank", justify="right")
    t.add_column("agent")
    t.add_column("rating", justify="right")
    t.add_column("95% CI", justify="right")
    for rank, i in enumerate(np.argsort(-rr.ratings), 1):
        t.add_row(str(rank), rr.names[i], num_text(rr.ratings[i], "+.0f"), ci_text(*rr.rating_ci[i], "+.0f", rr.pairs[0].n_deals))
    return t


def via_table(rr: RoundRobinResult):
    """``rich.table.Table`` of :meth:`RoundRobinResult.via_common_opponent`: two agents compared
    through a third, paired by deal."""
    from rich.table import Table

    ep = episode_name(rr.pairs)
    t = Table(title="Through a common opponent C: (A against C) - (B against C), paired by deal")
    for col in ("A", "B", "C", f"A vs C / {ep}", f"B vs C / {ep}", "A - B", "95% CI"):
        t.add_column(col, justify="left" if col in ("A", "B", "C") else "right", overflow="fold")
    for r in rr.via_common_opponent():
        t.add_row(r["a"], r["b"], r["via"], num_text(r["a_vs_via"], "+.3f"), num_text(r["b_vs_via"], "+.3f"), num_text(r["mean_diff"], "+.3f"),
                  ci_text(*r["diff_ci"], "+.3f", r["n_deals"]))
    return t


def print_results(results, console=None) -> None:
    """Print a :class:`DuplicateResult`, a list of them, or a :class:`RoundRobinResult` with rich."""
    from .common import report_console

    console = console or report_console()
    if isinstance(results, RoundRobinResult):
        console.print(ratings_table(results))
        console.print(results_table(results.pairs))
        if len(results.names) <= 4:
            console.print(via_table(results))
        for r in results.pairs:
            if r.n_sides > 2:
                console.print(not_losing_line(r))
            if r.truncated:
                console.print(truncated_line(r))
    else:
        console.print(results_table(results))
        for r in [results] if isinstance(results, DuplicateResult) else results:
            if r.by_category():
                console.print(category_table(r))
            if r.n_sides > 2:
                console.print(not_losing_line(r))
            if r.truncated:
                console.print(truncated_line(r))
    rows = results.pairs if isinstance(results, RoundRobinResult) else [results] if isinstance(results, DuplicateResult) else results
    few = sorted({r.n_deals for r in rows if 2 <= r.n_deals < FEW_DEALS})
    if few:
        console.print(few_deals_line(few[0]))
    console.print("win rate: pairwise by the game's outcome (Kernel.outcome); null = what two equal agents score")
