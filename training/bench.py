"""Throughput benchmarks of every game, against the AEC protocol's ceiling and a PettingZoo peer
(``cardzoo bench [GAME ...]``; training/BENCHMARKS.md describes the command and its columns).

One **interleaved** run: every *row* below is set up and warmed up once, then run for about
``seconds`` in each of ``rounds`` rounds, each round running every row once (in a rotated order),
so a change of machine load hits all rows alike. A row reports the median of its per-round rates
and their spread (min-max; the quartiles are in the JSON). Rows, all on one core unless said:

* ``env()`` of each game: the PettingZoo AEC loop (``env.last()`` with observation and action mask,
  ``env.step``, ``env.reset`` after every episode) with random legal actions; agent-steps/s.
* The same loop on :class:`NullAECEnv` (no rules: the protocol's ceiling) and on PettingZoo's
  ``texas_holdem_v4`` (skipped, with the reason printed, when rlcard is not installed); each game's
  ``env()`` rate is also given as a ratio to these two.
* The batched kernel of each game at each batch size ``B``, the learner's loop: every step gives
  the acting seat's observation and legal actions (``kernel.step_observe``: one compiled pass per
  game), the ``bool[B, A]`` action mask is made from them (``mask_from_words``), and finished
  games are dealt again (``reset_done``); agent-steps/s (``B`` per step).
* The batched kernel at the largest ``B`` with the parallel option on 2 cores (compiled kernels:
  ``kernel.set_parallel(True)``, ``numba.set_num_threads(2)``), in a worker process that is not
  pinned to one core, and its ratio to the one-core row.

The policy (a uniformly random legal action) is timed inside every loop and its time is excluded
from every rate; its cost per action is reported on its own. After the rounds: bytes of state per
game, compile time on first use and load time from numba's cache (:func:`first_use_seconds`, fresh
processes) and, for All Fours, the time of one PIMC decision.

Numbers, not a timed test: nothing here asserts a speed. :func:`run` returns every number as a
JSON-able dict; :func:`sections` turns it into tables (:func:`rich_tables`, :func:`markdown`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardzoo import envs
from cardzoo.envs.core.cards import random_set_bit

__all__ = [
    "TARGETS",
    "NullAECEnv",
    "Measure",
    "first_use_seconds",
    "markdown",
    "pimc_decision_seconds",
    "rich_tables",
    "run",
    "sections",
]

#: the targets of issue 15 (benchmark numbers, on one core unless said), shown next to the numbers
TARGETS = {
    "env_steps_per_s": {"all_fours": 60_000, "*": 40_000},
    "env_vs_null": 0.40,
    "kernel_steps_per_s_at_4096": {"all_fours": 3_000_000, "*": 1_500_000},
    "scaling_2_cores": 1.7,
    "compile_s": 30.0,
    "load_s": 2.0,
    "state_bytes": 2048,
    "pimc_ms": 5.0,
}

#: the parts of a run that can be left out (``--skip``)
SKIPPABLE = ("texas", "scaling", "first-use", "pimc")

TEXAS = "texas_holdem_v4"

#: seconds a compiled game's first use is guessed to take (only for the progress bar's ETA)
_FIRST_USE_GUESS_S = 30.0


def _target(name: str, game: str):
    t = TARGETS[name]
    return t.get(game, t["*"]) if isinstance(t, dict) else t


# ---------------------------------------------------------------------------------------------
# the null env: the AEC protocol without rules
# ---------------------------------------------------------------------------------------------
class NullAECEnv(AECEnv):
    """A PettingZoo AEC env with no rules: the cost of the AEC protocol itself (the ceiling of any
    AEC env in ``cardzoo bench``).

    ``num_agents`` seats (``player_0`` ...) act in turn; every action of ``Discrete(num_actions)`` is
    always legal; an episode ends after ``episode_length`` agent steps, paying ``+1`` to the even
    seats and ``-1`` to the odd ones (zero-sum). Observations are like the games':
    ``{"observation": uint8[obs_size] (all zero), "action_mask": int8[num_actions]}`` (all ones for
    the agent to act, all zeros otherwise; a fresh mask array each call). The bookkeeping (rewards,
    cumulative rewards, terminations, dead steps) is PettingZoo's, as in
    :class:`~cardzoo.envs.core.aec.KernelAECEnv`, without wrappers. ``ValueError`` for an action
    that is not an int in ``[0, num_actions)``.
    """

    metadata = {"name": "null_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, num_agents: int = 4, num_actions: int = 4, episode_length: int = 52, obs_size: int = 8) -> None:
        super().__init__()
        if min(num_agents, num_actions, episode_length, obs_size) < 1:
            raise ValueError("NullAECEnv sizes must be >= 1")
        self.possible_agents = [f"player_{i}" for i in range(num_agents)]
        self.episode_length = int(episode_length)
        self._n_actions = int(num_actions)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (obs_size,), np.uint8),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._obs = np.zeros(obs_size, dtype=np.uint8)
        self._mask = np.ones(num_actions, dtype=np.int8)
        self._pay = {a: (1.0 if i % 2 == 0 else -1.0) for i, a in enumerate(self.possible_agents)}

    def observation_space(self, agent):
        """The ``Dict`` space of ``agent`` (``KeyError`` for an unknown agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """``Discrete(num_actions)`` (``KeyError`` for an unknown agent)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode at ``player_0`` (``seed`` and ``options`` are ignored: there is no chance)."""
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._t = 0
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict:
        """``{"observation": uint8[obs_size] (zeros, the same array each call), "action_mask":
        int8[num_actions]}`` (a new mask, all ones for the agent to act, else all zeros)."""
        live = agent == self.agent_selection and not self.terminations[agent]
        mask = self._mask.copy() if live else np.zeros(self._n_actions, dtype=np.int8)
        return {"observation": self._obs, "action_mask": mask}

    def step(self, action) -> None:
        """The agent to act plays ``action`` (an int in ``[0, num_actions)``, else ``ValueError``); the
        ``episode_length``-th step ends the episode (rewards +1 even seats, -1 odd seats)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not isinstance(action, (int, np.integer)) or not 0 <= action < self._n_actions:
            raise ValueError(f"action must be an int in 0..{self._n_actions - 1}, got {action!r}")
        self._cumulative_rewards[agent] = 0.0
        self._t += 1
        n = len(self.possible_agents)
        if self._t >= self.episode_length:
            self.rewards = dict(self._pay)
            for a in self.agents:
                self.terminations[a] = True
        else:
            self.rewards = dict.fromkeys(self.possible_agents, 0.0)
        self.agent_selection = self.possible_agents[self._t % n]
        self._accumulate_rewards()


def _texas_env():
    """PettingZoo's ``texas_holdem_v4`` env, or the reason it cannot be made (a string)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pettingzoo.classic import texas_holdem_v4

            return texas_holdem_v4.env()
    except Exception as e:  # noqa: BLE001  (any import failure of the optional peer is reported, not raised)
        return (
            f"PettingZoo's {TEXAS} could not be made ({type(e).__name__}: {e}); it needs rlcard and pygame "
            "(`pip install rlcard pygame`; rlcard is published only as a source distribution, so cardzoo's "
            "extras do not pull it in)"
        )


# ---------------------------------------------------------------------------------------------
# the measured loops
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Measure:
    """One run of one row: ``agent_steps`` and finished ``games`` in ``seconds`` of wall-clock time,
    of which ``policy_seconds`` were spent choosing the random actions (excluded from the rates)."""

    agent_steps: int
    games: int
    seconds: float
    policy_seconds: float

    @property
    def steps_per_s(self) -> float:
        """Agent-steps per second, the policy's time excluded."""
        return self.agent_steps / max(self.seconds - self.policy_seconds, 1e-12)

    @property
    def games_per_s(self) -> float:
        """Finished games per second, the policy's time excluded."""
        return self.games / max(self.seconds - self.policy_seconds, 1e-12)


class _AECRunner:
    """The AEC loop on one env, kept between rounds (random legal actions; reset after every episode)."""

    def __init__(self, env, seed: int = 0) -> None:
        self.env = env
        self.rng = np.random.default_rng(seed)
        self.env.reset(seed=seed)
        self._draws: list[int] = []
        self._i = 0

    def run(self, seconds: float) -> Measure:
        env = self.env
        pc = time.perf_counter
        steps = games = 0
        policy = 0.0
        draws, i = self._draws, self._i
        t0 = pc()
        while True:
            for _ in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    action = None
                else:
                    p0 = pc()
                    legal = np.flatnonzero(obs["action_mask"])
                    if i >= len(draws):
                        draws, i = self.rng.integers(0, 2**31, 1 << 16).tolist(), 0
                    action = int(legal[draws[i] % legal.size])
                    i += 1
                    policy += pc() - p0
                env.step(action)
                steps += 1
            games += 1
            env.reset()
            if pc() - t0 > seconds:
                break
        total = pc() - t0
        self._draws, self._i = draws, i
        return Measure(steps, games, total, policy)


def _random_actions(k, words: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniformly random legal actions: a random set bit of the legal words when one word holds them
    (action spaces of at most 64 actions), else from the ``bool[B, A]`` mask."""
    if words.shape[1] == 1:
        return random_set_bit(words[:, 0], rng)
    u = rng.random(mask.shape, dtype=np.float32)
    u[~mask] = -1.0
    return u.argmax(axis=1)


class _KernelRunner:
    """The batched loop of one kernel at one batch size, its state kept between rounds."""

    def __init__(self, game: str, batch: int, seed: int = 0, options: dict | None = None, parallel: bool = False):
        self.k = envs.kernel(game, **(options or {}))
        if parallel:
            self.k.set_parallel(True)
        self.rng = np.random.default_rng(seed)
        self.st = self.k.init(self.rng, batch)
        self.batch = int(batch)
        self.view = (self.k.observe(self.st, self.st.current_player), self.k.legal_words(self.st))

    def run(self, seconds: float) -> Measure:
        k, st, rng, B = self.k, self.st, self.rng, self.batch
        pc = time.perf_counter
        steps = games = 0
        policy = 0.0
        t0 = pc()
        view = self.view  # (observation of the seat to act, legal words), kept up to date below
        while True:
            mask = k.mask_from_words(view[1])
            p0 = pc()
            actions = _random_actions(k, view[1], mask, rng)
            policy += pc() - p0
            k.step_observe(st, actions, rng, out=view)
            steps += B
            done = st.done
            if done.any():
                games += int(done.sum())
                k.reset_done(st, rng, out=view)
            if pc() - t0 > seconds:
                break
        return Measure(steps, games, pc() - t0, policy)


def bench_aec(game: str, seconds: float = 3.0, seed: int = 0, **options) -> Measure:
    """One run of the AEC loop of ``game`` for about ``seconds`` (no warm-up)."""
    return _AECRunner(envs.make(game, **options), seed).run(seconds)


def bench_kernel(game: str, batch: int, seconds: float = 3.0, seed: int = 0, **options) -> Measure:
    """One run of the batched kernel of ``game`` at ``batch`` for about ``seconds`` (no warm-up)."""
    return _KernelRunner(game, batch, seed, options).run(seconds)


# ---------------------------------------------------------------------------------------------
# the 2-core worker (a process not pinned to one core)
# ---------------------------------------------------------------------------------------------
_WORKER = (
    "import os, sys\n"
    "cpus = [int(c) for c in sys.argv[1].split(',')]\n"
    "os.sched_setaffinity(0, cpus) if hasattr(os, 'sched_setaffinity') else None\n"
    "from cardzoo.training.bench import _worker\n"
    "_worker(len(cpus))\n"
)


def _worker(threads: int) -> None:
    """Serve kernel rows with the parallel option over stdin/stdout, one JSON object a line:
    ``{"game", "batch", "seconds", "seed", "options"}`` -> ``{"measure": {...}}`` or ``{"error": str}``."""
    import numba

    numba.set_num_threads(threads)
    runners: dict = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            key = (req["game"], req["batch"])
            if key not in runners:
                runners[key] = _KernelRunner(req["game"], req["batch"], req["seed"], req["options"], parallel=True)
            m = runners[key].run(req["seconds"])
            cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
            reply = {"measure": dataclasses.asdict(m), "threads": numba.get_num_threads(), "cpus": cpus}
        except Exception as e:  # noqa: BLE001  (reported to the parent, which prints it)
            reply = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


class _ParallelWorker:
    """The worker process for the 2-core rows: started with the given CPUs (the CLI pins itself to one)."""

    def __init__(self, cpus: list[int]) -> None:
        env = dict(os.environ, NUMBA_NUM_THREADS=str(len(cpus)))
        self._err = tempfile.TemporaryFile(mode="w+")
        self.seen: dict = {}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER, ",".join(map(str, cpus))],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, text=True, env=env,
        )

    def run(self, game: str, batch: int, seconds: float, seed: int, options: dict) -> Measure:
        req = {"game": game, "batch": batch, "seconds": seconds, "seed": seed, "options": options}
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
        except OSError:  # the worker has ended: its error output is read below
            pass
        line = self.proc.stdout.readline()
        if not line:
            try:
                code = self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                code = None
            self._err.seek(0)
            tail = self._err.read()[-800:]
            raise RuntimeError(f"the 2-core worker process ended (exit {code}): {tail}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        self.seen = {"threads": reply["threads"], "cpus": reply["cpus"]}
        return Measure(**reply["measure"])

    def close(self) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self._err.close()


# ---------------------------------------------------------------------------------------------
# compile on first use, load from cache
# ---------------------------------------------------------------------------------------------
_FIRST_USE = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from cardzoo import envs
t1 = time.perf_counter()
game = sys.argv[1]
envs.warm_up(game)
t2 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1, hasattr(envs.kernel_class(game), "drivers")]))
"""


def first_use_seconds(game: str) -> tuple[float, float, float]:
    """``(import s, compile s, load-from-cache s)`` of ``game``: in a fresh process with an empty numba
    cache (``NUMBA_CACHE_DIR`` a new folder), the seconds from importing :mod:`cardzoo.envs` to the
    first batched mask, observation, step and state vector and the first steps of ``env()`` (compile
    on first use); then the same in a second fresh process that finds the cache (load from cache).
    The import time is the second process's. For a numpy kernel both are just the first calls.
    ``RuntimeError`` with the process's error output if a process fails."""
    return _first_use(game)[:3]


def _first_use(game: str) -> tuple[float, float, float, bool]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = []
        for _ in range(2):
            res = subprocess.run([sys.executable, "-c", _FIRST_USE, game], env=env, capture_output=True, text=True)
            if res.returncode != 0:
                raise RuntimeError(f"first use of {game} failed (exit {res.returncode}): {res.stderr[-800:]}")
            out.append(json.loads(res.stdout.strip().splitlines()[-1]))
    return out[1][0], out[0][1], out[1][1], bool(out[0][2])


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


# ---------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------
def _summary(ms: list[Measure]) -> dict:
    """Median and spread over rounds of one row's measures (the numbers the tables show)."""
    rates = [m.steps_per_s for m in ms]
    q = np.percentile(rates, [25, 75]) if rates else [float("nan")] * 2
    return {
        "rates": rates,
        "median": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "q1": float(q[0]),
        "q3": float(q[1]),
        "games_per_s": statistics.median(m.games_per_s for m in ms),
        "policy_us_per_action": statistics.median(m.policy_seconds / m.agent_steps * 1e6 for m in ms),
        "agent_steps": sum(m.agent_steps for m in ms),
        "games": sum(m.games for m in ms),
        "seconds": sum(m.seconds for m in ms),
        "policy_seconds": sum(m.policy_seconds for m in ms),
    }


def _share(rows: dict, keys: list[str]) -> float:
    """The policy's share of the wall-clock time of rows ``keys``."""
    return sum(rows[k]["policy_seconds"] for k in keys) / sum(rows[k]["seconds"] for k in keys)


def _ratio(a, b):
    return None if a is None or b is None or not b else a / b


def run(
    games=None,
    batches=(4096,),
    seconds: float = 1.0,
    rounds: int = 5,
    options: dict | None = None,
    skip=(),
    cpus=None,
    seed: int = 0,
    progress: bool = True,
) -> dict:
    """Run the benchmark (module docstring) and return every number as a JSON-able dict.

    The rows run in this process, on the cores it may use (``cardzoo bench`` pins itself to one
    core first); the 2-core rows in a worker process on ``cpus``; first use in fresh processes.

    Args:
        games: game names (default every game of :data:`cardzoo.envs.GAMES`).
        batches: batch sizes of the kernel rows; the 2-core row runs at the largest.
        seconds: seconds per row per round (> 0). rounds: rounds (>= 1).
        options: game options for every game's env and kernel (the CLI allows them with one game).
        skip: parts to leave out, from :data:`SKIPPABLE`.
        cpus: the CPUs the 2-core worker may use (default this process's affinity; the CLI passes
            the affinity it had before pinning itself to one core).
        progress: show a progress bar (tqdm, on stderr) with rate and ETA.

    Keys of the result: ``settings``, ``targets``, ``rows`` (``key`` -> per-round ``rates`` and
    :func:`_summary`), ``peers`` (``null``, ``texas_holdem_v4``: a rate or ``skipped``), ``games``
    (per game: ``env`` with ``rate``, ``vs_null``, ``vs_texas``; ``kernel`` (``str(B)`` -> rate);
    ``scaling``; ``first_use``; ``state_bytes``), ``policy`` and ``pimc``. Every ratio is computed
    from the medians in ``rows``. ``ValueError`` for an unknown game or part, or a bad size.
    """
    from tqdm import tqdm

    games = sorted(envs.GAMES) if not games else list(dict.fromkeys(games))
    for g in games:
        if g not in envs.GAMES:
            raise ValueError(f"unknown game {g!r}; available games: {sorted(envs.GAMES)}")
    bad = sorted(set(skip) - set(SKIPPABLE))
    if bad:
        raise ValueError(f"cannot skip {bad}; parts that can be skipped: {list(SKIPPABLE)}")
    batches = sorted(set(int(b) for b in batches))
    if not batches or batches[0] < 1:
        raise ValueError(f"batch sizes must be >= 1, got {batches}")
    if not seconds > 0 or rounds < 1:
        raise ValueError(f"seconds must be > 0 and rounds >= 1, got {seconds} and {rounds}")
    options = dict(options or {})
    for g in games:  # a bad option fails here, before the warm-up of the first row
        envs.kernel(g, **options)
    if cpus is None:
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))
    cpus = sorted(cpus)[:2]
    scale_b = batches[-1]
    load_start = os.getloadavg() if hasattr(os, "getloadavg") else None

    # --- rows: (key, runner) --------------------------------------------------------------
    rows: dict[str, dict] = {}
    runners: dict[str, object] = {}
    peers: dict[str, dict] = {}

    def add(key: str, what: str, make, game=None, batch=1, threads=1):
        rows[key] = {"key": key, "what": what, "game": game, "batch": batch, "threads": threads}
        runners[key] = make

    add("aec/null", "null AEC env (no rules)", lambda: _AECRunner(NullAECEnv(), seed))
    peers["null"] = {"row": "aec/null"}
    if "texas" in skip:
        peers[TEXAS] = {"skipped": "--skip texas"}
    else:
        texas = _texas_env()
        if isinstance(texas, str):
            peers[TEXAS] = {"skipped": texas}
        else:
            add(f"aec/{TEXAS}", f"PettingZoo {TEXAS}", lambda: _AECRunner(texas, seed))
            peers[TEXAS] = {"row": f"aec/{TEXAS}"}
    for g in games:
        add(f"aec/{g}", f"{g} env()", lambda g=g: _AECRunner(envs.make(g, **options), seed), game=g)
    for g in games:
        for b in batches:
            add(f"kernel/{g}/{b}", f"{g} kernel", lambda g=g, b=b: _KernelRunner(g, b, seed, options), game=g, batch=b)

    worker = None
    scaling: dict[str, dict] = {}
    for g in games:
        if "scaling" in skip:
            scaling[g] = {"skipped": "--skip scaling"}
        elif len(cpus) < 2:
            scaling[g] = {"skipped": f"only {len(cpus)} CPU available to this process"}
        elif not hasattr(envs.kernel_class(g), "set_parallel"):
            scaling[g] = {"skipped": "numpy kernel: no parallel option"}
        else:
            if worker is None:
                worker = _ParallelWorker(cpus)
            key = f"kernel2/{g}/{scale_b}"
            scaling[g] = {"batch": scale_b, "threads": len(cpus), "row": key, "one_core_row": f"kernel/{g}/{scale_b}"}

            def make2(g=g):
                return lambda s: worker.run(g, scale_b, s, seed, options)

            add(key, f"{g} kernel, parallel", make2, game=g, batch=scale_b, threads=len(cpus))

    # --- progress -------------------------------------------------------------------------------
    n_first = 0 if "first-use" in skip else len(games)
    do_pimc = "all_fours" in games and "pimc" not in skip
    keys = list(rows)
    # the bar counts estimated milliseconds of work (so the ETA holds through compiles), as ints: float
    # seconds added up step by step overshot their float total (1.5000000000000002 > 1.5), which made
    # tqdm warn (TqdmWarning: clamping frac) and show a negative ETA. Its text gives the row running
    # now and the rate the last row measured.
    def ms(s: float) -> int:
        return max(1, round(s * 1000))

    warm, per_round = ms(min(seconds, 0.2) + 0.3), ms(seconds)
    first = {g: ms(_FIRST_USE_GUESS_S if hasattr(envs.kernel_class(g), "drivers") else 1.0) for g in games}
    pimc_ms = ms(5.0)
    bar = tqdm(
        total=len(keys) * (warm + rounds * per_round) + (sum(first.values()) if n_first else 0) + pimc_ms * do_pimc,
        disable=not progress, desc="cardzoo bench", dynamic_ncols=True,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}{postfix}",
    )
    measures: dict[str, list[Measure]] = {k: [] for k in keys}

    def measure(key: str, s: float) -> Measure | None:
        """One run of row ``key``; a failing 2-core worker drops its rows (reported) but not the run."""
        if key not in rows:
            return None
        try:
            return runners[key](s)
        except RuntimeError as e:
            if not key.startswith("kernel2/"):
                raise
            for k in [k for k in rows if k.startswith("kernel2/")]:
                scaling[rows.pop(k)["game"]] = {"skipped": f"the 2-core worker failed: {e}"}
            return None

    try:
        # warm-up: build every row and run it briefly (compiles or loads the compiled rules)
        for key in keys:
            bar.set_postfix_str(f"warm-up {key}")
            r = runners[key]()
            runners[key] = r.run if hasattr(r, "run") else r
            measure(key, min(seconds, 0.2))
            bar.update(warm)
        last = ""
        for r in range(rounds):
            order = keys[r % len(keys):] + keys[: r % len(keys)]
            for key in order:
                bar.set_postfix_str(f"round {r + 1}/{rounds} {key}{last}")
                m = measure(key, seconds)
                if m is not None:
                    measures[key].append(m)
                    last = f" (last: {key} {m.steps_per_s:,.0f} agent-steps/s)"
                bar.update(per_round)
            kept = [k for k in keys if k in rows]  # a failed 2-core worker's rows run no more rounds
            bar.total -= (len(keys) - len(kept)) * per_round * (rounds - r - 1)
            keys = kept
        if worker is not None:
            for g in games:  # what the worker really ran with (numba threads, CPUs it may use)
                if "row" in scaling[g]:
                    scaling[g].update(worker_threads=worker.seen["threads"], worker_cpus=worker.seen["cpus"])
            worker.close()
            worker = None
        for key in keys:
            rows[key].update(_summary(measures[key]))

        # --- per game ------------------------------------------------------------------------
        null_rate = rows["aec/null"]["median"]
        texas_rate = rows[f"aec/{TEXAS}"]["median"] if f"aec/{TEXAS}" in rows else None
        for name, p in peers.items():
            if "row" in p:
                p["rate"] = rows[p["row"]]["median"]
        per_game: dict[str, dict] = {}
        for g in games:
            env_rate = rows[f"aec/{g}"]["median"]
            kern = {str(b): rows[f"kernel/{g}/{b}"]["median"] for b in batches}
            sc = scaling[g]
            if "row" in sc:
                sc["one_core"] = rows[sc["one_core_row"]]["median"]
                sc["two_cores"] = rows[sc["row"]]["median"]
                sc["ratio"] = _ratio(sc["two_cores"], sc["one_core"])
            k = envs.kernel(g, **options)
            per_game[g] = {
                "compiled": hasattr(k, "drivers"),
                "env": {
                    "rate": env_rate, "vs_null": _ratio(env_rate, null_rate), "vs_texas": _ratio(env_rate, texas_rate),
                },
                "kernel": kern,
                "scaling": sc,
                "state_bytes": float(k.init(np.random.default_rng(0), 64).nbytes_per_game()),
            }
        for g in games:
            if "first-use" in skip:
                per_game[g]["first_use"] = {"skipped": "--skip first-use"}
                continue
            bar.set_postfix_str(f"first use {g} (fresh processes)")
            try:
                imp, comp, load, compiled = _first_use(g)
                per_game[g]["first_use"] = {"import_s": imp, "compile_s": comp, "load_s": load, "compiled": compiled}
            except RuntimeError as e:
                per_game[g]["first_use"] = {"skipped": str(e)}
            bar.update(first[g])
        pimc = None
        if do_pimc:
            bar.set_postfix_str("PIMC decisions")
            t = pimc_decision_seconds("all_fours")
            pimc = {"game": "all_fours", "n_det": 32, "decisions": len(t), "median_ms": float(np.median(t) * 1e3),
                    "min_ms": float(np.min(t) * 1e3), "max_ms": float(np.max(t) * 1e3)}
            bar.update(pimc_ms)
    finally:
        bar.close()
        if worker is not None:
            worker.close()

    aec_keys = [k for k in rows if k.startswith("aec/")]
    kern_keys = [k for k in rows if k.startswith("kernel/")]
    policy = {
        "aec_us_per_action": statistics.median(rows[k]["policy_us_per_action"] for k in aec_keys),
        "kernel_us_per_action": {
            str(b): statistics.median(rows[f"kernel/{g}/{b}"]["policy_us_per_action"] for g in games) for b in batches
        },
        "share_of_aec_time": _share(rows, aec_keys),
        "share_of_kernel_time": _share(rows, kern_keys),
    }
    import numba
    import pettingzoo

    return {
        "settings": {
            "games": games, "batches": batches, "seconds": seconds, "rounds": rounds, "options": options,
            "skip": sorted(skip), "seed": seed, "cpus_for_scaling": cpus,
            "load_average_start": load_start,
            "load_average_end": os.getloadavg() if hasattr(os, "getloadavg") else None,
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "python": sys.version.split()[0], "numpy": np.__version__, "numba": numba.__version__,
            "pettingzoo": pettingzoo.__version__,
        },
        "targets": TARGETS,
        "rows": rows,
        "peers": peers,
        "games": per_game,
        "policy": policy,
        "pimc": pimc,
    }


# ---------------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------------
def _n(x, fmt="{:,.0f}"):
    return "-" if x is None else fmt.format(x)


def _spread(r: dict) -> str:
    return f"{r['min']:,.0f}-{r['max']:,.0f}"


def _mark(ok) -> str:
    return "" if ok is None else ("yes" if ok else "no")


def sections(res: dict) -> list[dict]:
    """The tables of a result of :func:`run`: a list of ``{"title", "columns", "rows", "caption"}``
    (cells are strings), rendered by :func:`rich_tables` and :func:`markdown`."""
    s = res["settings"]
    rows, games, peers = res["rows"], res["games"], res["peers"]
    load = s.get("load_average_start")
    end = s.get("load_average_end")
    loadtxt = "" if load is None else f"; load average (1 min) {load[0]:.1f} at start, {end[0]:.1f} at end"
    head = f"medians over {s['rounds']} interleaved rounds of {s['seconds']:g} s per row{loadtxt}"
    out = []

    t = []
    for key, label in [("aec/null", "null AEC env (no rules)"), (f"aec/{TEXAS}", f"PettingZoo {TEXAS}")]:
        if key in rows:
            r = rows[key]
            t.append([label, _n(r["median"]), _spread(r), _n(r["games_per_s"]), _n(r["policy_us_per_action"], "{:.2f}"),
                      "", "", ""])
    for g in games:
        r, e = rows[f"aec/{g}"], games[g]["env"]
        tgt, rel = _target("env_steps_per_s", g), TARGETS["env_vs_null"]
        ok_null = None if e["vs_null"] is None else e["vs_null"] >= rel
        t.append([f"{g} env()", _n(r["median"]), _spread(r), _n(r["games_per_s"]),
                  _n(r["policy_us_per_action"], "{:.2f}"), _n(e["vs_null"], "{:.2f}"), _n(e["vs_texas"], "{:.2f}"),
                  f">= {tgt:,}: {_mark(e['rate'] >= tgt)}; >= {rel:.2f}x null: {_mark(ok_null)}"])
    cap = [head]
    for name, p in peers.items():
        if "skipped" in p:
            cap.append(f"{name} skipped: {p['skipped']}")
    out.append({
        "title": "env(): PettingZoo AEC loop, random legal actions, one core",
        "columns": [
            "row", "agent-steps/s", "min-max", "games/s", "policy µs/action", "x null", f"x {TEXAS}", "target",
        ],
        "rows": t, "caption": "\n".join(cap),
    })

    t = []
    for g in games:
        for b in s["batches"]:
            r = rows[f"kernel/{g}/{b}"]
            tgt = _target("kernel_steps_per_s_at_4096", g) if b == 4096 else None
            t.append([g, str(b), _n(r["median"]), _spread(r), _n(r["games_per_s"]),
                      _n(r["policy_us_per_action"], "{:.3f}"),
                      "" if tgt is None else f">= {tgt:,}: {_mark(r['median'] >= tgt)}"])
    out.append({
        "title": "batched kernel: mask + observation + step, one core",
        "columns": ["game", "B", "agent-steps/s", "min-max", "games/s", "policy µs/action", "target"],
        "rows": t, "caption": head,
    })

    t = []
    for g in games:
        sc = games[g]["scaling"]
        if "ratio" in sc:
            r2 = rows[sc["row"]]
            t.append([g, str(sc["batch"]), _n(sc["one_core"]), _n(sc["two_cores"]), _spread(r2), f"{sc['ratio']:.2f}",
                      f">= {TARGETS['scaling_2_cores']}: {_mark(sc['ratio'] >= TARGETS['scaling_2_cores'])}"])
        else:
            t.append([g, "", "", "", "", "-", f"skipped: {sc['skipped']}"])
    out.append({
        "title": "parallel option on 2 cores (kernel.set_parallel(True), numba.set_num_threads(2))",
        "columns": ["game", "B", "1 core", "2 cores", "2 cores min-max", "ratio", "target"],
        "rows": t,
        "caption": "2-core rows run in a worker process not pinned to one core, interleaved in the same rounds",
    })

    t = []
    for g in games:
        info = games[g]
        fu = info.get("first_use", {"skipped": "not measured"})
        nb = info["state_bytes"]
        if "skipped" in fu:
            cells = ["", "", "", f"skipped: {fu['skipped']}"]
        else:
            ok = fu["compile_s"] <= TARGETS["compile_s"] and fu["load_s"] <= TARGETS["load_s"]
            cells = [f"{fu['import_s']:.2f}", f"{fu['compile_s']:.1f}", f"{fu['load_s']:.2f}",
                     f"<= {TARGETS['compile_s']:g} s / <= {TARGETS['load_s']:g} s: {_mark(ok)}"]
        t.append([g, "compiled" if info["compiled"] else "numpy", *cells, f"{nb:,.0f}",
                  f"<= {TARGETS['state_bytes']:,}: {_mark(nb <= TARGETS['state_bytes'])}"])
    out.append({
        "title": "compile on first use, load from cache (fresh processes), state",
        "columns": ["game", "kernel", "import s", "first use s (empty cache)", "load from cache s", "target",
                    "state bytes/game", "state target"],
        "rows": t,
        "caption": "first use: import to first mask/observation/step/state vector and env() steps, "
                   "NUMBA_CACHE_DIR empty; "
                   "load: the same in a second fresh process",
    })

    p = res["policy"]
    t = [["AEC loop (np.flatnonzero of the mask + a random index)", f"{p['aec_us_per_action']:.2f}",
          f"{p['share_of_aec_time'] * 100:.0f} %"]]
    for b, v in p["kernel_us_per_action"].items():
        t.append([f"kernel at B = {b} (random set bit of the legal bitboard, or of the mask)", f"{v:.4f}",
                  f"{p['share_of_kernel_time'] * 100:.0f} % (all B)" if b == str(s["batches"][-1]) else ""])
    out.append({
        "title": "policy cost (timed inside every loop, excluded from every rate above)",
        "columns": ["what", "µs per action", "share of the loop's time"],
        "rows": t, "caption": "",
    })
    if res.get("pimc"):
        pm = res["pimc"]
        out.append({
            "title": "search: one PIMC decision (B = 1, rule-bot rollouts)",
            "columns": ["game", "determinizations", "decisions", "median ms", "min-max ms", "target"],
            "rows": [[pm["game"], str(pm["n_det"]), str(pm["decisions"]), f"{pm['median_ms']:.1f}",
                      f"{pm['min_ms']:.1f}-{pm['max_ms']:.1f}",
                      f"<= {TARGETS['pimc_ms']:g} ms: {_mark(pm['median_ms'] <= TARGETS['pimc_ms'])}"]],
            "caption": "",
        })
    return out


def rich_tables(res: dict) -> list:
    """The :func:`sections` as rich Tables."""
    from rich.table import Table

    tables = []
    for sec in sections(res):
        t = Table(title=sec["title"], caption=sec["caption"] or None)
        for i, c in enumerate(sec["columns"]):
            t.add_column(c, justify="left" if i == 0 else "right")
        for r in sec["rows"]:
            t.add_row(*r)
        tables.append(t)
    return tables


def markdown(res: dict) -> str:
    """The :func:`sections` as Markdown tables (for BENCHMARKS.md)."""
    parts = []
    for sec in sections(res):
        parts.append(f"**{sec['title']}**\n")
        parts.append("| " + " | ".join(sec["columns"]) + " |")
        parts.append("|" + "|".join(["---"] + ["---:"] * (len(sec["columns"]) - 1)) + "|")
        for r in sec["rows"]:
            parts.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
        if sec["caption"]:
            parts.append("\n" + sec["caption"].replace("\n", "; ") + "\n")
        else:
            parts.append("")
    return "\n".join(parts)
