"""Throughput benchmarks: the AEC env loop and the batched kernel (``cardzoo bench GAME``).

Measures, on one core:

(a) ``env()``: the PettingZoo AEC loop with observations and action masks (``env.last()``),
    random legal actions; agent-steps/s and games/s.
(b) the batched kernel at several batch sizes, computing the action mask
    (``legal_actions``) and the acting seat's observation (``observe``) at every step,
    auto-resetting finished games; actions are drawn cheaply from the legal bitboard and
    that policy cost is timed and reported separately (it is excluded from the rate).

Also reports bytes of kernel state per game, and (:func:`extras`) for a compiled kernel the
compile time on first use and the load time from numba's cache (each in a fresh process), and
for a game with a search agent the time of one PIMC decision. Numbers, not a timed test.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from cardzoo import envs
from cardzoo.envs.core.cards import random_set_bit


@dataclass
class BenchRow:
    """One benchmark result row."""

    what: str
    batch: int
    agent_steps: int
    games: int
    seconds: float
    policy_seconds: float

    @property
    def steps_per_s(self) -> float:
        return self.agent_steps / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds


def bench_aec(game: str, seconds: float = 3.0, seed: int = 0, **options) -> BenchRow:
    """Run the AEC loop with random legal actions for about ``seconds``."""
    env = envs.make(game, **options)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = games = 0
    policy = 0.0
    t0 = time.perf_counter()
    while True:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                p0 = time.perf_counter()
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
                policy += time.perf_counter() - p0
            env.step(action)
            steps += 1
        games += 1
        if time.perf_counter() - t0 > seconds:
            break
        env.reset()
    total = time.perf_counter() - t0
    return BenchRow("env() AEC loop", 1, steps, games, total - policy, policy)


def _random_actions(k, st, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniformly random legal actions: from the kernel's ``legal_bitboard`` when it has one (action
    spaces of at most 64 actions), else from the ``bool[B, A]`` mask already computed."""
    if k.num_actions <= 64 and hasattr(k, "legal_bitboard"):
        return random_set_bit(k.legal_bitboard(st), rng)
    u = rng.random(mask.shape, dtype=np.float32)
    u[~mask] = -1.0
    return u.argmax(axis=1)


def bench_kernel(game: str, batch: int, seconds: float = 3.0, seed: int = 0, **options) -> BenchRow:
    """Step ``batch`` games with mask + observation each step for about ``seconds``."""
    k = envs.kernel(game, **options)
    rng = np.random.default_rng(seed)
    st = k.init(rng, batch)
    steps = games = 0
    policy = 0.0
    t0 = time.perf_counter()
    n = 0
    while True:
        mask = k.legal_actions(st)  # noqa: F841  (part of the measured work)
        obs = k.observe(st, st.current_player)  # noqa: F841
        p0 = time.perf_counter()
        actions = _random_actions(k, st, mask, rng)
        policy += time.perf_counter() - p0
        k.step(st, actions, rng)
        steps += batch
        done = st.done
        if done.any():
            games += int(done.sum())
            k.reset_done(st, rng)
        n += 1
        if n % 16 == 0 and time.perf_counter() - t0 > seconds:
            break
    total = time.perf_counter() - t0
    return BenchRow("batched kernel", batch, steps, games, total - policy, policy)


def run(game: str, batches=(1, 64, 1024, 4096), seconds: float = 3.0, **options) -> tuple[list[BenchRow], float]:
    """All benchmark rows for ``game`` (with a progress bar) and the state bytes per game."""
    from tqdm import tqdm

    jobs = [("aec", 1)] + [("kernel", b) for b in batches]
    rows = []
    for kind, b in tqdm(jobs, desc=f"bench {game}", unit="run"):
        rows.append(bench_aec(game, seconds, **options) if kind == "aec" else bench_kernel(game, b, seconds, **options))
    k = envs.kernel(game, **options)
    nbytes = k.init(np.random.default_rng(0), 64).nbytes_per_game()
    return rows, nbytes


def format_table(game: str, rows: list[BenchRow], nbytes: float):
    """A rich Table of the rows."""
    from rich.table import Table

    t = Table(title=f"cardzoo bench {game} (one core)")
    for col in ("what", "B", "agent-steps/s", "games/s", "policy cost (s per 1M actions)"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(
            r.what,
            str(r.batch),
            f"{r.steps_per_s:,.0f}",
            f"{r.games_per_s:,.0f}",
            f"{r.policy_seconds / r.agent_steps * 1e6:.2f}",
        )
    t.caption = f"state: {nbytes:,.0f} bytes per game"
    return t


def markdown_table(rows: list[BenchRow], nbytes: float) -> str:
    """The same numbers as a Markdown table (for the README)."""
    lines = ["| what | B | agent-steps/s | games/s |", "|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.what} | {r.batch} | {r.steps_per_s:,.0f} | {r.games_per_s:,.0f} |")
    lines.append(f"\nState: {nbytes:,.0f} bytes per game.")
    return "\n".join(lines)


_FIRST_USE = """
import sys, time
t0 = time.perf_counter()
import numpy as np
from cardzoo import envs
t1 = time.perf_counter()
k = envs.kernel(sys.argv[1])
st = k.init(np.random.default_rng(0), 2)
from cardzoo.envs.core.cards import random_set_bit
r = np.random.default_rng(0)
k.observe(st, st.current_player)
k.step(st, random_set_bit(k.legal_bitboard(st), r), r)
s = k.single_game(k.init(np.random.default_rng(0), 1))
if s is not None:
    s.observe(0)
    s.step(int(np.flatnonzero(s.legal_mask())[0]), r)
k.global_state(st)
print(t1 - t0, time.perf_counter() - t1)
"""


def first_use_seconds(game: str) -> tuple[float, float, float]:
    """``(import s, compile s, load-from-cache s)``: in a fresh process with an empty numba cache
    (``NUMBA_CACHE_DIR`` a new folder), the seconds from importing :mod:`cardzoo.envs` to the first
    batched step, observation, B = 1 step and state vector (compile on first use); then the same
    in a second fresh process that finds the cache (load from cache)."""
    import os
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = []
        for _ in range(2):
            res = subprocess.run([sys.executable, "-c", _FIRST_USE, game], env=env, capture_output=True, text=True, check=True)
            out.append([float(x) for x in res.stdout.split()])
    return out[1][0], out[0][1], out[1][1]


def pimc_decision_seconds(game: str = "all_fours", n_det: int = 32, decisions: int = 20, seed: int = 0) -> list[float]:
    """Seconds per PIMC decision (:class:`cardzoo.agents.search.PIMCSearch`, ``n_det`` determinizations,
    the game's rule agent as rollout) at the first ``decisions`` decisions with a choice of random
    games (B = 1); a warm-up decision is not counted."""
    from cardzoo import load_agent
    from cardzoo.agents.search import PIMCSearch

    k = envs.kernel(game)
    search = PIMCSearch(k, load_agent(f"{game}/rule"), n_det=n_det, seed=seed)
    rng = np.random.default_rng(seed)
    times: list[float] = []
    st = k.init(rng, 1)
    warm = True
    while len(times) < decisions:
        if st.done[0]:
            st = k.init(rng, 1)
        mask = k.legal_actions(st)[0]
        if mask.sum() > 1:
            t0 = time.perf_counter()
            search.act_state(st)
            dt = time.perf_counter() - t0
            if not warm:
                times.append(dt)
            warm = False
        k.step(st, np.array([rng.choice(np.flatnonzero(mask))]), rng)
    return times


def extras(game: str) -> list[str]:
    """Lines for ``cardzoo bench``: compile time on first use, load time from cache (compiled kernels)
    and, for All Fours, the median PIMC decision time at 32 determinizations."""
    lines = []
    k = envs.kernel(game)
    if k.single_game(k.init(np.random.default_rng(0), 1)) is not None and hasattr(k, "drivers"):
        imp, comp, load = first_use_seconds(game)
        lines.append(f"compiled rules: import {imp:.2f} s, compile on first use {comp:.1f} s, load from cache {load:.2f} s")
    if game == "all_fours":
        t = pimc_decision_seconds(game)
        lines.append(f"PIMC decision (32 determinizations, rule-bot rollouts, B = 1): median {np.median(t) * 1e3:.1f} ms over {len(t)}")
    return lines
