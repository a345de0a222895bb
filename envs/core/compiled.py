"""The compiled frame: one generic batch driver over a game's compiled single-game rules.

A game writes its rules once, as numba ``@njit(cache=True)`` functions over **one** game (row
``b`` of the batch arrays), in the order of its ``RULES.md`` sections. This module turns four
of them into the batched kernel's hot path (:class:`Drivers`), and offers the B = 1 fast path
the PettingZoo adapter uses (:class:`CompiledSingleGame`). There is no second implementation
of any rule: the AEC env at B = 1 and the batch at B = 4096 run the same compiled functions.

**State inside compiled code.** The kernel state stays the game's :class:`~cardzoo.envs.core.kernel.BatchState`
dataclass of numpy arrays (leading axis ``B``). Compiled code sees the same arrays (no copy) as
a namedtuple with the dataclass's field names, made once per state class by :func:`arrays_type`
and filled by :meth:`Drivers.arrays` (``S.hands[b, p]`` in compiled code is ``st.hands[b, p]``).

**The game's four compiled functions** (``S``: the arrays namedtuple, ``b``: the row, ``P``:
the game's ``int64[K]`` option vector, built once by the kernel from its options):

* ``step_one(S, b, action, P) -> int64``: apply a legal ``action`` to game ``b`` and advance
  it to its next decision. Returns ``0``, or a positive *chance code* when the game needs
  chance to go on (e.g. a new deal): the game then stops where the chance is needed.
* ``deal_one(S, b, code, P) -> None``: go on after the chance of ``code`` was drawn into the
  state (e.g. deal and kick from a freshly shuffled ``S.stock[b]``); it may not need chance again.
* ``legal_one(S, b, P) -> uint64``: the legal actions of game ``b`` as a bitboard (bit ``a`` =
  action ``a``; action spaces of at most 64 actions), ``0`` when the game is over.
* ``observe_one(S, b, seat, P, out) -> None``: write ``seat``'s observation into ``out``
  (``uint8[D]``, zeroed by the caller).

**Chance stays outside compiled code.** Compiled code never draws random numbers: rows that
return a chance code are collected and the kernel draws their chance in Python through
:mod:`cardzoo.envs.core.chance` (in the order of the codes, rows ascending: the same calls the
numpy kernels made), then :meth:`Drivers.deal` finishes them. So seeded games, goldens and the
arena's exact duplicate deals are unchanged.

**Validation stays outside compiled code.** Compiled functions trust their inputs (legal
actions, seats in range); callers validate first (``Kernel.check_actions``, the AEC env).

**No reference counting.** Drivers and rules compile with ``_nrt=False``: numba's reference
counting of the ~40 state arrays on every field access cost more than the rules themselves
(an atomic increment and decrement per access). So compiled rules must not allocate arrays
(they write into the state and the caller's buffers only) and should be ``inline="always"``.

**Parallel.** ``Drivers(..., parallel=True)`` spreads the batch over ``numba.get_num_threads()``
threads (``numba.set_num_threads`` sets it), one contiguous chunk of games each; the compiled
drivers release the GIL. The default runs on one core. (numba's ``prange`` was tried first: its
parfor lowering dropped the writes that the inlined rules make through the state namedtuple,
so the chunks are plain compiled loops run from a thread pool.)
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import hashlib
import inspect
import operator
import types

import numpy as np
import numba
from numba import njit

__all__ = ["CompiledSingleGame", "Drivers", "arrays_type"]


def arrays_type(state_cls: type, name: str, module: str):
    """A namedtuple class with the fields of dataclass ``state_cls``, in declaration order.

    Define it at module level of the game (``Arrays = arrays_type(MyState, "Arrays", __name__)``)
    so numba's on-disk cache finds it again."""
    fields = [f.name for f in dataclasses.fields(state_cls)]
    cls = collections.namedtuple(name, fields)
    cls.__module__ = module
    return cls


# Driver templates. Each is specialized per game by :func:`_specialize`: its globals name the
# game's compiled functions and its one closure cell holds a key (the game's module and the hash
# of its rules source). numba's on-disk cache keys a function by its bytecode
# and its closure cells, so a changed rules file or another game never loads a stale driver.
def _templates(_key):
    def batch_step(S, actions, active, P, need, lo, hi):
        _key  # noqa: B018  (part of the cache key)
        for b in range(lo, hi):
            for j in range(S.rewards.shape[1]):
                S.rewards[b, j] = 0
            need[b] = 0
            if active[b] and not S.done[b]:
                need[b] = step_one(S, b, actions[b], P)  # noqa: F821

    def batch_deal(S, rows, code, P, lo, hi):
        _key  # noqa: B018
        for i in range(lo, hi):
            deal_one(S, rows[i], code, P)  # noqa: F821

    def batch_legal(S, P, out, lo, hi):
        _key  # noqa: B018
        for b in range(lo, hi):
            out[b] = legal_one(S, b, P)  # noqa: F821

    def batch_observe(S, seats, P, out, lo, hi):
        _key  # noqa: B018
        for b in range(lo, hi):
            out[b, :] = 0
            observe_one(S, b, seats[b], P, out[b])  # noqa: F821

    def single_step(S, action, P):
        _key  # noqa: B018
        for j in range(S.rewards.shape[1]):
            S.rewards[0, j] = 0
        if S.done[0]:
            return 0, legal_one(S, 0, P)  # noqa: F821
        need = step_one(S, 0, action, P)  # noqa: F821
        if need:
            return need, np.uint64(0)
        return 0, legal_one(S, 0, P)  # noqa: F821

    def single_deal(S, code, P):
        _key  # noqa: B018
        deal_one(S, 0, code, P)  # noqa: F821
        return legal_one(S, 0, P)  # noqa: F821

    def observe_row(S, seat, P, out):
        _key  # noqa: B018
        out[:] = 0
        observe_one(S, 0, seat, P, out)  # noqa: F821

    return {f.__name__: f for f in (batch_step, batch_deal, batch_legal, batch_observe, single_step, single_deal, observe_row)}


_TEMPLATES = _templates("")


def _rules_hash(fn) -> str:
    """sha256 of the source file that defines the compiled function ``fn``."""
    path = inspect.getfile(fn.py_func)
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _specialize(name: str, module: str, callees: dict, key: str):
    """``@njit(cache=True, nogil=True)`` of template ``name`` calling the game's ``callees`` (a fresh function)."""
    tmpl = _TEMPLATES[name]
    g = {"np": np, "__name__": module, **callees}
    fn = types.FunctionType(tmpl.__code__, g, name, None, (types.CellType(key),))
    fn.__qualname__ = f"compiled_{name}"
    fn.__module__ = module
    return njit(cache=True, nogil=True, _nrt=False)(fn)


class Drivers:
    """The batch drivers of one game, built from its compiled single-game functions.

    Args:
        arrays: the game's namedtuple class (:func:`arrays_type`).
        step_one, deal_one, legal_one, observe_one: the game's ``@njit`` functions (module docstring).
        parallel: spread the batch over threads (default one core; module docstring).

    Each method takes the state dataclass, and arrays laid out as documented; all run compiled.
    """

    def __init__(self, arrays, step_one, deal_one, legal_one, observe_one, parallel: bool = False) -> None:
        self.Arrays = arrays
        self._get = operator.attrgetter(*arrays._fields)
        self.parallel = bool(parallel)
        self.step_one, self.deal_one, self.legal_one, self.observe_one = step_one, deal_one, legal_one, observe_one
        module = step_one.py_func.__module__
        callees = {"step_one": step_one, "deal_one": deal_one, "legal_one": legal_one, "observe_one": observe_one}
        key = f"{module}:{_rules_hash(step_one)}"
        make = lambda name: _specialize(name, module, callees, key)  # noqa: E731
        self._step = make("batch_step")
        self._deal = make("batch_deal")
        self._legal = make("batch_legal")
        self._observe = make("batch_observe")
        self._single_step = make("single_step")
        self._single_deal = make("single_deal")
        self._observe_row = make("observe_row")
        self._pool = None

    def _run(self, fn, n: int, *args) -> None:
        """``fn(*args, lo, hi)`` over ``[0, n)``: one call, or with ``parallel`` one chunk per thread
        (the compiled drivers release the GIL)."""
        threads = numba.get_num_threads() if self.parallel else 1
        if threads <= 1 or n < 2 * threads:
            fn(*args, 0, n)
            return
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(threads)
        bounds = np.linspace(0, n, threads + 1).astype(np.int64)
        futures = [self._pool.submit(fn, *args, int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
        for f in futures:
            f.result()

    def arrays(self, st):
        """The namedtuple of ``st``'s arrays (the same arrays, no copy)."""
        return self.Arrays(*self._get(st))

    def step(self, st, actions: np.ndarray, active: np.ndarray, P: np.ndarray) -> np.ndarray:
        """Run ``step_one`` on every active live game; zero every game's rewards first.

        ``actions``: ``int64[B]``, ``active``: ``bool[B]``. Returns ``int64[B]`` chance codes (0: none)."""
        need = np.empty(actions.shape[0], dtype=np.int64)
        self._run(self._step, actions.shape[0], self.arrays(st), actions, active, P, need)
        return need

    def deal(self, st, rows: np.ndarray, code: int, P: np.ndarray) -> None:
        """Run ``deal_one(code)`` for games ``rows`` (``int64[n]``) after their chance was drawn."""
        self._run(self._deal, rows.shape[0], self.arrays(st), rows, code, P)

    def legal(self, st, P: np.ndarray) -> np.ndarray:
        """``uint64[B]`` legal-action bitboards."""
        out = np.empty(st.batch_size, dtype=np.uint64)
        self._run(self._legal, out.shape[0], self.arrays(st), P, out)
        return out

    def observe(self, st, seats: np.ndarray, P: np.ndarray, size: int) -> np.ndarray:
        """``uint8[B, size]`` observations of ``seats`` (``int64[B]``)."""
        out = np.empty((st.batch_size, size), dtype=np.uint8)
        self._run(self._observe, out.shape[0], self.arrays(st), seats, P, out)
        return out


_BITS = np.uint64(1) << np.arange(64, dtype=np.uint64)


#: (drivers id, (dtype, ndim) of each state array) -> the single-game entry points
_ENTRIES: dict = {}


def _entry(dispatcher, sig: tuple):
    """The compiled entry point of ``dispatcher`` for argument types ``sig`` (compiled or loaded from cache)."""
    dispatcher.compile(sig)
    return dispatcher.overloads[sig].entry_point


class CompiledSingleGame:
    """The B = 1 fast path of a compiled kernel for the AEC env (``Kernel.single_game``).

    One compiled call per step applies the action and computes the next action mask; chance
    (a new deal) is drawn in Python by the kernel in between, exactly as in the batched step.
    Behaves exactly like the batched methods on ``st`` (it runs the same compiled functions).

    Args:
        kernel: the game's kernel; it provides ``drivers`` (:class:`Drivers`), ``params``
            (``int64[K]``), ``obs_layout`` and ``draw_chance(st, rows, code, rng)`` (draws the
            chance of ``code`` for games ``rows`` into the state; ``deal_one`` goes on from there).
        st: a state of one game (``ValueError`` otherwise).
    """

    def __init__(self, kernel, st) -> None:
        if st.batch_size != 1:
            raise ValueError(f"the single-game path runs one game; the state holds {st.batch_size}")
        self.k = kernel
        self.st = st
        self.d = d = kernel.drivers
        self.P = kernel.params
        self.S = S = d.arrays(st)
        self._size = kernel.obs_layout.size
        self._bits = None
        self._rows = np.zeros(1, dtype=np.int64)
        # numba's dispatcher spends ~18 us a call typing ~40 arrays; the compiled entry points of
        # this state's exact types take ~0.4 us. They are bound here, for arrays numba would type
        # as C-contiguous writeable arrays (always so for states made by the kernel); other
        # states go through the dispatchers. The arrays are bound too: mutate them in place
        # (a state whose arrays are replaced needs a new single_game).
        self._bind()

    def _bind(self) -> None:
        d, S = self.d, self.S
        self._step_fn, self._deal_fn, self._obs_fn = d._single_step, d._single_deal, d._observe_row
        if all(a.flags.c_contiguous and a.flags.writeable and a.flags.aligned for a in S):
            key = (id(d), tuple((a.dtype.char, a.ndim) for a in S))
            eps = _ENTRIES.get(key)
            if eps is None:
                ts = d._single_step.typeof_pyval(S)
                i64, p = d._single_step.typeof_pyval(0), d._single_step.typeof_pyval(self.P)
                obs = d._observe_row.typeof_pyval(np.empty(self._size, dtype=np.uint8))
                eps = _ENTRIES[key] = (
                    _entry(d._single_step, (ts, i64, p)),
                    _entry(d._single_deal, (ts, i64, p)),
                    _entry(d._observe_row, (ts, i64, p, obs)),
                )
            self._step_fn, self._deal_fn, self._obs_fn = eps

    def __getstate__(self) -> dict:
        # entry points do not pickle: keep the state and the kernel, bind again on load
        return {"k": self.k, "st": self.st, "_bits": self._bits}

    def __setstate__(self, state: dict) -> None:
        bits = state["_bits"]
        self.__init__(state["k"], state["st"])
        self._bits = bits

    def legal_bits(self) -> int:
        """Legal actions of the seat to act as an int bitboard (0 once the game is over)."""
        if self._bits is None:
            self._bits = int(self.d.legal(self.st, self.P)[0])
        return self._bits

    def legal_mask(self) -> np.ndarray:
        """``bool[A]`` action mask."""
        bits = np.uint64(self.legal_bits())
        return (bits & _BITS[: self.k.num_actions]) != 0

    def step(self, action: int, rng) -> None:
        """Apply a legal ``action`` (unchecked: the caller validates) and advance, exactly like ``kernel.step``."""
        need, bits = self._step_fn(self.S, int(action), self.P)
        if need:
            self.k.draw_chance(self.st, self._rows, int(need), rng)
            bits = self._deal_fn(self.S, int(need), self.P)
        self._bits = int(bits)

    def observe(self, seat: int) -> np.ndarray:
        """``uint8[D]`` observation of ``seat``, identical to ``kernel.observe(st, seat)[0]``."""
        out = np.empty(self._size, dtype=np.uint8)
        self._obs_fn(self.S, int(seat), self.P, out)
        return out
