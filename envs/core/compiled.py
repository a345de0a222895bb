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
* ``legal_one(S, b, P, out) -> None``: the legal actions of game ``b`` as bit words into ``out``
  (``uint64[W]``, zeroed by the caller, ``W = ceil(num_actions / 64)``): action ``a`` is bit
  ``a % 64`` of word ``a // 64``; nothing set when the game is over.
* ``observe_one(S, b, seat, P, out) -> None``: write ``seat``'s observation into ``out``
  (``uint8[D]``, zeroed by the caller).
* ``global_one(S, b, P, out) -> None``: write game ``b``'s perfect-information vector into ``out``.

:class:`CompiledKernel` is the frame around them: a game declares its state fields, its options
vector and its chance, and the core does the rest (init, validation, step, masks, observations).

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
threads (``numba.set_num_threads`` sets it), one contiguous chunk of games each: a ``prange``
over the chunks, each chunk one call of the (separately compiled) batch driver. The default runs
on one core. (A ``prange`` over the games themselves lost the writes that the inlined rules make
through the state namedtuple; a Python thread pool worked but cost 70-100 µs a hand-off on the
2-core machine, more than half the work of a call at B = 4096.) numba's threading layer is then
in use in the process (``numba.threading_layer()``; its OpenMP layer is not fork-safe: start
worker processes with ``spawn`` or before the first parallel call).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import hashlib
import inspect
import operator
import sys
import types
from typing import ClassVar

import numpy as np
import numba
from numba import njit, prange
from numba.core import event as _numba_event

from .kernel import Kernel, did_you_mean

__all__ = ["CompiledKernel", "CompiledSingleGame", "Drivers", "arrays_type", "drivers_for", "rules_key"]


def arrays_type(state_cls: type, name: str, module: str):
    """A namedtuple class with the fields of dataclass ``state_cls``, in declaration order.

    Define it at module level of the game (``Arrays = arrays_type(MyState, "Arrays", __name__)``)
    so numba's on-disk cache finds it again."""
    fields = [f.name for f in dataclasses.fields(state_cls)]
    cls = collections.namedtuple(name, fields)
    cls.__module__ = module
    return cls


@njit(cache=True, nogil=True, _nrt=False)
def _reset_bytes(fields, fresh, rows, lo, hi):
    """Games ``rows[lo:hi]`` back to their declared initial values: ``fields`` are the state's arrays
    as ``uint8[B, bytes per game]`` views (:func:`_byte_views`), ``fresh`` the same of a one-game
    fresh state. One generic function for every game (compiled once per field count, in well under
    a second, where a loop nest per field written for each state class took 3-5 s to compile)."""
    for i in range(lo, hi):
        b = rows[i]
        for f in range(len(fields)):
            dst = fields[f]
            src = fresh[f]
            for j in range(dst.shape[1]):
                dst[b, j] = src[0, j]


@njit(cache=True, nogil=True, parallel=True)
def _par_reset_bytes(fields, fresh, rows, n, nt):
    for t in prange(nt):
        _reset_bytes(fields, fresh, rows, n * t // nt, n * (t + 1) // nt)


def _byte_views(arrays, batch: int):
    """``uint8[batch, bytes per game]`` views of C-contiguous ``arrays`` (no copy), or ``None`` if
    one is not C-contiguous and writeable (its reshape would copy, and writes would be lost)."""
    if not all(a.flags.c_contiguous and a.flags.writeable for a in arrays):
        return None
    return tuple(a.reshape(batch, -1).view(np.uint8) for a in arrays)


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
            out[b, :] = 0
            legal_one(S, b, P, out[b])  # noqa: F821

    def batch_check(S, actions, active, P, A, words, bad, lo, hi):
        _key  # noqa: B018
        for b in range(lo, hi):
            bad[b] = 0
            if active[b] and not S.done[b]:
                a = actions[b]
                if a < 0 or a >= A:
                    bad[b] = 1
                else:
                    words[b, :] = 0
                    legal_one(S, b, P, words[b])  # noqa: F821
                    if (words[b, a >> 6] >> np.uint64(a & 63)) & np.uint64(1) == 0:
                        bad[b] = 1

    def batch_observe(S, seats, P, out, lo, hi):
        _key  # noqa: B018
        for b in range(lo, hi):
            out[b, :] = 0
            observe_one(S, b, seats[b], P, out[b])  # noqa: F821

    def batch_global(S, P, out, lo, hi):
        _key  # noqa: B018
        for b in range(lo, hi):
            out[b, :] = 0
            global_one(S, b, P, out[b])  # noqa: F821

    def batch_step_view(S, actions, active, P, need, words, obs, lo, hi):
        _key  # noqa: B018
        for b in range(lo, hi):
            for j in range(S.rewards.shape[1]):
                S.rewards[b, j] = 0
            need[b] = 0
            if active[b] and not S.done[b]:
                need[b] = step_one(S, b, actions[b], P)  # noqa: F821
            if need[b] == 0:  # else the view is written after the chance (batch_deal_view)
                words[b, :] = 0
                legal_one(S, b, P, words[b])  # noqa: F821
                obs[b, :] = 0
                observe_one(S, b, S.current_player[b], P, obs[b])  # noqa: F821

    def batch_deal_view(S, rows, code, P, words, obs, lo, hi):
        # code 0: no deal, only the view of games ``rows`` (one template: the rules compile into it once)
        _key  # noqa: B018
        for i in range(lo, hi):
            b = rows[i]
            if code != 0:
                deal_one(S, b, code, P)  # noqa: F821
            words[b, :] = 0
            legal_one(S, b, P, words[b])  # noqa: F821
            obs[b, :] = 0
            observe_one(S, b, S.current_player[b], P, obs[b])  # noqa: F821

    # The B = 1 path of the AEC env (CompiledSingleGame): one template, so that the game's rules
    # are compiled into it once. ``mode`` 0: apply action ``x``; 1: nothing; 2: go on dealing after
    # chance code ``x`` was drawn; then (modes 0-2) the "view" of the seat to act into the caller's
    # buffers: legal words, the int8 action mask (all 0 once the game is over) and that seat's
    # observation. Mode 3: only seat ``x``'s observation into ``obs``. Returned code (modes 0-2):
    # bit 0: some reward is not +0.0; bit 1: the game is over; bits 2-9: the viewed seat + 1
    # (0: none); bits 10-: the chance code step_one asked for (then nothing was viewed).
    def single_play(S, x, P, words, mask, obs, mode):
        _key  # noqa: B018
        # the row as a run-time int64: a literal 0 passed on to the game's plain-call (not inlined)
        # functions would compile each of them again, for Literal[int](0)
        b = np.int64(0)
        seat = np.int64(x)  # mode 3
        if mode != 3:
            if mode == 0:
                for j in range(S.rewards.shape[1]):
                    S.rewards[b, j] = 0
                if not S.done[b]:
                    need = step_one(S, b, x, P)  # noqa: F821
                    if need != 0:
                        return need << 10
            elif mode == 2:
                deal_one(S, b, x, P)  # noqa: F821
            words[:] = 0
            if not S.done[b]:
                legal_one(S, b, P, words)  # noqa: F821
            for a in range(mask.shape[0]):
                mask[a] = (words[a >> 6] >> np.uint64(a & 63)) & np.uint64(1)
            seat = np.int64(S.current_player[b])
        # one call site of observe_one for every mode: each inlined copy costs compile time
        obs[:] = 0
        view = 0
        if 0 <= seat < S.rewards.shape[1]:
            observe_one(S, b, seat, P, obs)  # noqa: F821
            view = seat + 1
        if mode == 3:
            return 0
        code = view << 2
        if S.done[b]:
            code |= 2
        for j in range(S.rewards.shape[1]):
            r = S.rewards[b, j]
            if r != 0 or np.copysign(1.0, r) < 0:
                code |= 1
        return code

    fns = (
        batch_step, batch_deal, batch_legal, batch_check, batch_observe, batch_global,
        batch_step_view, batch_deal_view,
        single_play,
    )
    return {f.__name__: f for f in fns}


_TEMPLATES = _templates("")


# The parallel runners: one per batch driver, a ``prange`` over ``nt`` chunks of ``[0, n)``, each
# chunk one call of the game's (separately compiled) batch driver. parfor never sees the rules'
# writes through the state namedtuple (it dropped them when the rules were inlined into a prange
# loop); numba's threading layer keeps its threads warm, so a hand-off costs a few µs where a
# Python thread pool cost 70-100 µs on this 2-core machine.
def _par_templates(_key):
    def par_batch_step(S, actions, active, P, need, n, nt):
        _key  # noqa: B018
        for t in prange(nt):  # noqa: F821
            batch_step(S, actions, active, P, need, n * t // nt, n * (t + 1) // nt)  # noqa: F821

    def par_batch_deal(S, rows, code, P, n, nt):
        _key  # noqa: B018
        for t in prange(nt):  # noqa: F821
            batch_deal(S, rows, code, P, n * t // nt, n * (t + 1) // nt)  # noqa: F821

    def par_batch_legal(S, P, out, n, nt):
        _key  # noqa: B018
        for t in prange(nt):  # noqa: F821
            batch_legal(S, P, out, n * t // nt, n * (t + 1) // nt)  # noqa: F821

    def par_batch_check(S, actions, active, P, A, words, bad, n, nt):
        _key  # noqa: B018
        for t in prange(nt):  # noqa: F821
            batch_check(S, actions, active, P, A, words, bad, n * t // nt, n * (t + 1) // nt)  # noqa: F821

    def par_batch_observe(S, seats, P, out, n, nt):
        _key  # noqa: B018
        for t in prange(nt):  # noqa: F821
            batch_observe(S, seats, P, out, n * t // nt, n * (t + 1) // nt)  # noqa: F821

    def par_batch_global(S, P, out, n, nt):
        _key  # noqa: B018
        for t in prange(nt):  # noqa: F821
            batch_global(S, P, out, n * t // nt, n * (t + 1) // nt)  # noqa: F821

    def par_batch_step_view(S, actions, active, P, need, words, obs, n, nt):
        _key  # noqa: B018
        for t in prange(nt):  # noqa: F821
            batch_step_view(S, actions, active, P, need, words, obs, n * t // nt, n * (t + 1) // nt)  # noqa: F821

    def par_batch_deal_view(S, rows, code, P, words, obs, n, nt):
        _key  # noqa: B018
        for t in prange(nt):  # noqa: F821
            batch_deal_view(S, rows, code, P, words, obs, n * t // nt, n * (t + 1) // nt)  # noqa: F821

    # the learner's step with the parallel option: the legality check of every game, then (only
    # when every action is legal: nothing is written otherwise) the step and the view, in one call
    def par_check_step_view(S, actions, active, P, A, scratch, bad, need, words, obs, n, nt):
        _key  # noqa: B018
        for t in prange(nt):  # noqa: F821
            batch_check(S, actions, active, P, A, scratch, bad, n * t // nt, n * (t + 1) // nt)  # noqa: F821
        nbad = 0
        for i in range(n):
            nbad += bad[i]
        if nbad == 0:
            for t in prange(nt):  # noqa: F821
                batch_step_view(S, actions, active, P, need, words, obs, n * t // nt, n * (t + 1) // nt)  # noqa: F821
        return nbad

    fns = (
        par_check_step_view, par_batch_step, par_batch_deal, par_batch_legal, par_batch_check, par_batch_observe,
        par_batch_global, par_batch_step_view, par_batch_deal_view,
    )
    return {f.__name__: f for f in fns}


_PAR_TEMPLATES = _par_templates("")


def _rules_hash(fn) -> str:
    """sha256 of the source file that defines the compiled function ``fn``."""
    path = inspect.getfile(fn.py_func)
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def rules_key(*modules) -> str:
    """sha256 (hex ``str``) over the source files of ``modules`` (a game's ``rules`` and
    ``constants``, say). Compiled code outside a game's drivers that inlines its rules (a rule bot's
    compiled rollouts, ``agents/``) keeps it in a closure cell, which is part of numba's cache key:
    numba's cache does not follow callees, so without it a changed rules file would load a stale
    compiled copy. ``OSError`` if a module's file cannot be read."""
    h = hashlib.sha256()
    for mod in modules:
        with open(inspect.getfile(mod), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


class _CompileNotice(_numba_event.Listener):
    """Says on stderr, once per game and process, that a game's drivers are being compiled.

    numba broadcasts its ``"numba:compile"`` event only when it really compiles: after its on-disk
    cache was looked up and did not hold the function for these argument types. A driver loaded
    from the cache says nothing. The line is printed in Python, before the compile starts."""

    def __init__(self) -> None:
        self.said: set[str] = set()

    def on_start(self, event) -> None:
        game = getattr((event.data or {}).get("dispatcher"), "_cardzoo_game", None)
        if game is not None and game not in self.said:
            self.said.add(game)
            print(f"compiling the {game} rules (first use, about 15-35 s; cached after that)", file=sys.stderr, flush=True)

    def on_end(self, event) -> None:
        pass


_COMPILE_NOTICE = _CompileNotice()
_numba_event.register("numba:compile", _COMPILE_NOTICE)


def _game_of(module: str) -> str:
    """``"cardzoo.envs.all_fours.rules"`` -> ``"all_fours"`` (the package of a rules module; else the module name)."""
    parts = module.split(".")
    return parts[-2] if len(parts) > 1 and parts[-1] == "rules" else module


def _specialize(name: str, module: str, callees: dict, key: str, parallel: bool = False):
    """``@njit(cache=True, nogil=True)`` of template ``name`` calling the game's ``callees`` (a fresh
    function); ``parallel``: one of the ``prange`` runners (``_PAR_TEMPLATES``)."""
    tmpl = (_PAR_TEMPLATES if parallel else _TEMPLATES)[name]
    g = {"np": np, "prange": numba.prange, "__name__": module, **callees}
    fn = types.FunctionType(tmpl.__code__, g, name, None, (types.CellType(key),))
    fn.__qualname__ = f"compiled_{name}"
    fn.__module__ = module
    if parallel:
        dispatcher = njit(cache=True, nogil=True, parallel=True)(fn)
    else:
        dispatcher = njit(cache=True, nogil=True, _nrt=False)(fn)
    dispatcher._cardzoo_game = _game_of(module)  # named by _CompileNotice when numba compiles it (a cache miss)
    return dispatcher


class Drivers:
    """The batch drivers of one game, built from its compiled single-game functions.

    Args:
        arrays: the game's namedtuple class (:func:`arrays_type`).
        rules: the game's rules module, with the ``@njit`` functions ``step_one``, ``deal_one``,
            ``legal_one``, ``observe_one`` and ``global_one`` (module docstring).
        parallel: spread the batch over threads (default one core; module docstring).

    Each method takes the state dataclass, and arrays laid out as documented; all run compiled.
    """

    def __init__(self, arrays, rules, parallel: bool = False) -> None:
        self.Arrays = arrays
        self._get = operator.attrgetter(*arrays._fields)
        self._last_views = None  # (arrays, byte views, fresh views) of the state reset last
        self.parallel = bool(parallel)
        missing = [f for f in _RULE_FUNCTIONS if not hasattr(rules, f)]
        if missing:
            raise TypeError(f"rules module {rules.__name__} lacks {missing}; a compiled game defines {list(_RULE_FUNCTIONS)}")
        callees = {f: getattr(rules, f) for f in _RULE_FUNCTIONS}
        module = rules.__name__
        key = f"{module}:{_rules_hash(callees['step_one'])}"
        for name in _TEMPLATES:
            setattr(self, "_" + name, _specialize(name, module, callees, key))
        batch = {name: getattr(self, "_" + name) for name in _TEMPLATES if name.startswith("batch_")}
        # the prange runner of each batch driver (compiled on the first parallel call)
        self._par = {
            batch[name[4:]]: _specialize(name, module, batch, key, parallel=True) for name in _PAR_TEMPLATES if name[4:] in batch
        }
        self._par_check_step_view = _specialize("par_check_step_view", module, batch, key, parallel=True)

    def _run(self, fn, n: int, *args) -> None:
        """``fn(*args, lo, hi)`` over ``[0, n)``: one call, or with ``parallel`` one chunk per numba
        thread (``fn``'s ``prange`` runner: ``numba.get_num_threads()`` chunks)."""
        threads = numba.get_num_threads() if self.parallel else 1
        if threads <= 1 or n < 2 * threads:
            fn(*args, 0, n)
        else:
            self._par[fn](*args, n, threads)

    def arrays(self, st):
        """The namedtuple of ``st``'s arrays (the same arrays, no copy)."""
        return self.Arrays(*self._get(st))

    def reset(self, st, fresh, rows: np.ndarray) -> None:
        """Games ``rows`` (``int64[n]``) of ``st`` back to the declared initial values of every field:
        row 0 of ``fresh`` (a state of one fresh game, same class and sizes), in place (compiled over
        byte views of the fields; numpy for a state whose arrays are not C-contiguous)."""
        n = rows.shape[0]
        arrays = self._get(st)
        last = self._last_views  # the views of the state reset last (a learner resets the same one)
        if last is not None and len(last[0]) == len(arrays) and all(map(operator.is_, arrays, last[0])):
            views, src = last[1], last[2]
        else:
            views = _byte_views(arrays, st.batch_size) if n else None
            src = None if views is None else _byte_views(self._get(fresh), 1)
            self._last_views = None if views is None else (arrays, views, src)
        if views is None:
            if n:
                for name, a in zip(self.Arrays._fields, self._get(fresh)):
                    getattr(st, name)[rows] = a[0]
            return
        threads = numba.get_num_threads() if self.parallel else 1
        if threads <= 1 or n < 2 * threads:
            _reset_bytes(views, src, rows, 0, n)
        else:
            _par_reset_bytes(views, src, rows, n, threads)

    def step(self, st, actions: np.ndarray, active: np.ndarray, P: np.ndarray) -> np.ndarray:
        """Run ``step_one`` on every active live game; zero every game's rewards first.

        ``actions``: ``int64[B]``, ``active``: ``bool[B]``. Returns ``int64[B]`` chance codes (0: none)."""
        need = np.empty(actions.shape[0], dtype=np.int64)
        self._run(self._batch_step, actions.shape[0], self.arrays(st), actions, active, P, need)
        return need

    def deal(self, st, rows: np.ndarray, code: int, P: np.ndarray) -> None:
        """Run ``deal_one(code)`` for games ``rows`` (``int64[n]``) after their chance was drawn."""
        self._run(self._batch_deal, rows.shape[0], self.arrays(st), rows, code, P)

    def legal(self, st, P: np.ndarray, words: int) -> np.ndarray:
        """``uint64[B, words]`` legal-action bit words (action ``a``: bit ``a % 64`` of word ``a // 64``)."""
        out = np.empty((st.batch_size, words), dtype=np.uint64)
        self._run(self._batch_legal, out.shape[0], self.arrays(st), P, out)
        return out

    def check(self, st, actions: np.ndarray, active: np.ndarray, P: np.ndarray, words: int, num_actions: int) -> np.ndarray:
        """``bool[B]``: the active live games whose action is out of range or not legal. Only reads the
        state, and never indexes with an out-of-range action."""
        bad = np.empty(actions.shape[0], dtype=np.bool_)
        w = np.empty((actions.shape[0], words), dtype=np.uint64)
        self._run(self._batch_check, actions.shape[0], self.arrays(st), actions, active, P, num_actions, w, bad)
        return bad

    def step_view(self, st, actions, active, P, words, obs) -> np.ndarray:
        """:meth:`step`, then for every game that needs no chance the legal words (``uint64[B, W]``)
        and the observation of the seat to act (``uint8[B, D]``) into ``words`` and ``obs``, in the
        same pass over each game. Returns ``int64[B]`` chance codes (those games' views are written
        by :meth:`deal_view`)."""
        need = np.empty(actions.shape[0], dtype=np.int64)
        self._run(self._batch_step_view, actions.shape[0], self.arrays(st), actions, active, P, need, words, obs)
        return need

    def check_step_view(self, st, actions, active, P, words_per_game: int, num_actions: int, words, obs):
        """:meth:`check`, then :meth:`step_view` only if no action is bad. Returns ``(bad, need)``:
        ``bad`` as :meth:`check` returns it, ``need`` the chance codes of :meth:`step_view`, or ``None``
        (nothing was written) when some action is bad. With ``parallel``: one call, both passes spread."""
        n = actions.shape[0]
        threads = numba.get_num_threads() if self.parallel else 1
        if threads <= 1 or n < 2 * threads:
            bad = self.check(st, actions, active, P, words_per_game, num_actions)
            return bad, (None if bad.any() else self.step_view(st, actions, active, P, words, obs))
        bad = np.empty(n, dtype=np.bool_)
        scratch = np.empty((n, words_per_game), dtype=np.uint64)
        need = np.empty(n, dtype=np.int64)
        nbad = self._par_check_step_view(self.arrays(st), actions, active, P, num_actions, scratch, bad, need, words, obs, n, threads)
        return bad, (None if nbad else need)

    def deal_view(self, st, rows: np.ndarray, code: int, P: np.ndarray, words, obs) -> None:
        """:meth:`deal`, then the legal words and the observation of the seat to act of games ``rows``."""
        self._run(self._batch_deal_view, rows.shape[0], self.arrays(st), rows, code, P, words, obs)

    def view_rows(self, st, rows: np.ndarray, P: np.ndarray, words, obs) -> None:
        """The legal words and the observation of the seat to act of games ``rows`` (``int64[n]``)."""
        self._run(self._batch_deal_view, rows.shape[0], self.arrays(st), rows, 0, P, words, obs)

    def observe(self, st, seats: np.ndarray, P: np.ndarray, size: int) -> np.ndarray:
        """``uint8[B, size]`` observations of ``seats`` (``int64[B]``)."""
        out = np.empty((st.batch_size, size), dtype=np.uint8)
        self._run(self._batch_observe, out.shape[0], self.arrays(st), seats, P, out)
        return out

    def global_state(self, st, P: np.ndarray, size: int) -> np.ndarray:
        """``uint8[B, size]`` perfect-information vectors."""
        out = np.empty((st.batch_size, size), dtype=np.uint8)
        self._run(self._batch_global, out.shape[0], self.arrays(st), P, out)
        return out


_RULE_FUNCTIONS = ("step_one", "deal_one", "legal_one", "observe_one", "global_one")

#: (rules module, arrays class, parallel) -> Drivers (one per process)
_DRIVERS: dict = {}


def drivers_for(arrays, rules, parallel: bool = False) -> Drivers:
    """The :class:`Drivers` of a game, built once per process and flag (compiled on first use,
    loaded from numba's cache after that). When a driver is really compiled (numba's on-disk
    cache does not hold it yet), one line on stderr says so, once per game and process:
    ``compiling the GAME rules (first use, about 15-35 s; cached after that)``."""
    key = (rules.__name__, arrays, bool(parallel))
    if key not in _DRIVERS:
        _DRIVERS[key] = Drivers(arrays, rules, parallel=parallel)
    return _DRIVERS[key]


#: (drivers id, _layout of the state's arrays) -> the entry point of single_play
_ENTRIES: dict = {}
#: drivers -> (_layout, entry point) of the state bound last (a new game of the AEC env has the same layout)
_LAST_BOUND: dict = {}
#: what an entry point's argument types depend on, per state array: dtype, ndim, and whether it is
#: C-contiguous, aligned and writeable (``flags.carray``)
_layout = operator.attrgetter("dtype", "ndim", "flags.carray")


def _entry(dispatcher, sig: tuple):
    """The compiled entry point of ``dispatcher`` for argument types ``sig`` (compiled or loaded from cache)."""
    dispatcher.compile(sig)
    return dispatcher.overloads[sig].entry_point


class CompiledSingleGame:
    """The B = 1 fast path of a compiled kernel for the AEC env (``Kernel.single_game``).

    One compiled call per step (the ``single_play`` template) applies the action and computes the
    next action mask and observation; chance (a new deal) is drawn in Python by the kernel in
    between, exactly as in the batched step.
    Behaves exactly like the batched methods on ``st`` (it runs the same compiled functions).

    The AEC env steps with :meth:`play`, which also leaves the *view* of the seat to act in
    preallocated buffers: :attr:`mask` (``int8[A]``, all 0 once the game is over) and :attr:`obs`
    (``uint8[D]``, the observation of seat :attr:`view_seat`). They are overwritten by the next
    :meth:`play` or :meth:`refresh`: callers copy what they hand out.

    Args:
        kernel: a :class:`CompiledKernel`.
        st: a state of one game (``ValueError`` otherwise).
    """

    def __init__(self, kernel, st) -> None:
        if st.batch_size != 1:
            raise ValueError(f"the single-game path runs one game; the state holds {st.batch_size}")
        self.k = kernel
        self.st = st
        self.d = kernel.drivers
        self.P = kernel.params
        self.S = self.d.arrays(st)
        # byte views of the fields (made once: the arrays are bound) for new_game's reset
        self._bytes = _byte_views(self.S, 1)
        self._fresh_bytes = _byte_views(self.d._get(kernel.fresh_game), 1)
        self._size = kernel.obs_layout.size
        self._words = np.zeros(kernel.legal_words_per_game, dtype=np.uint64)
        self._fresh = False
        self._rows = np.zeros(1, dtype=np.int64)
        #: ``int8[A]`` action mask of the seat to act, written by :meth:`play` / :meth:`refresh`
        self.mask = np.zeros(kernel.num_actions, dtype=np.int8)
        #: ``uint8[D]`` observation of seat :attr:`view_seat`, written by :meth:`play` / :meth:`refresh`
        self.obs = np.zeros(self._size, dtype=np.uint8)
        #: the seat whose observation :attr:`obs` holds; -1 before the first view
        self.view_seat = -1
        # numba's dispatcher spends ~18 us a call typing ~40 arrays; the compiled entry points of
        # this state's exact types take ~0.4 us. They are bound here, for arrays numba would type
        # as C-contiguous writeable arrays (always so for states made by the kernel); other
        # states go through the dispatchers. The arrays are bound too: mutate them in place
        # (a state whose arrays are replaced needs a new single_game).
        self._bind()

    def _bind(self) -> None:
        d, S = self.d, self.S
        self._fn, self._reset = d._single_play, _reset_bytes
        layout = tuple(map(_layout, S))
        last = _LAST_BOUND.get(d)
        if last is not None and last[0] == layout:  # a state made by the kernel: checked once per layout
            self._fn, self._reset = last[1]
            return
        if all(x[2] for x in layout):
            key = (id(d), layout)
            eps = _ENTRIES.get(key)
            if eps is None:
                ty = d._single_play.typeof_pyval
                i64 = ty(0)
                eps = _ENTRIES[key] = (
                    _entry(d._single_play, (ty(S), i64, ty(self.P), ty(self._words), ty(self.mask), ty(self.obs), i64)),
                    _entry(_reset_bytes, (ty(self._bytes), ty(self._fresh_bytes), ty(self._rows), i64, i64)),
                )
            _LAST_BOUND[d] = (layout, eps)
            self._fn, self._reset = eps

    def __getstate__(self) -> dict:
        # entry points do not pickle: keep the state and the kernel, bind again on load
        return {"k": self.k, "st": self.st}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["k"], state["st"])

    def legal_words(self) -> np.ndarray:
        """``uint64[W]`` legal-action bit words of the seat to act (all 0 once the game is over)."""
        if not self._fresh:
            self._words[:] = self.d.legal(self.st, self.P, self._words.shape[0])[0]
            self._fresh = True
        return self._words

    def legal_bits(self) -> int:
        """Legal actions of the seat to act as one int bitboard (bit ``a`` = action ``a``; 0 once over)."""
        w = self.legal_words()
        return sum(int(x) << (64 * i) for i, x in enumerate(w))

    def legal_mask(self) -> np.ndarray:
        """``bool[A]`` action mask."""
        return np.unpackbits(self.legal_words().view(np.uint8), count=self.k.num_actions, bitorder="little").view(bool)

    def step(self, action: int, rng) -> None:
        """Apply a legal ``action`` (unchecked: the caller validates) and advance, exactly like ``kernel.step``."""
        self.play(int(action), rng)

    def play(self, action: int, rng) -> int:
        """:meth:`step` (``action``: a legal int, unchecked) plus :meth:`refresh`, in one compiled call
        when no chance is needed. Returns the code of :meth:`refresh`."""
        code = self._fn(self.S, action, self.P, self._words, self.mask, self.obs, 0)
        if code >= 1024:  # chance: draw it as kernel.step does, then deal and view
            self.k.draw_chance(self.st, self._rows, code >> 10, rng)
            code = self._fn(self.S, code >> 10, self.P, self._words, self.mask, self.obs, 2)
        self._fresh = True
        self.view_seat = (code >> 2) - 1
        return code

    def new_game(self, rng) -> int:
        """Deal a new game into this same state, in place, exactly as ``kernel.init(rng, 1)`` would
        deal it (the same chance calls): every field back to its declared initial value, the game's
        ``new_games``, then the compiled ``deal_one`` and the view of the seat to act. Returns the
        code of :meth:`refresh`. (No test hooks: a game dealt from hooks is made by ``kernel.init``.)"""
        if self._bytes is None:  # a state whose arrays are not all C-contiguous
            self.d.reset(self.st, self.k.fresh_game, self._rows)
        else:
            self._reset(self._bytes, self._fresh_bytes, self._rows, 0, 1)
        code = self.k.new_games(self.st, rng, self._rows)
        code = self._fn(self.S, code, self.P, self._words, self.mask, self.obs, 2 if code else 1)
        self._fresh = True
        self.view_seat = (code >> 2) - 1
        return code

    def refresh(self) -> int:
        """Recompute the view of the seat to act from the state: :attr:`mask`, :attr:`obs`,
        :attr:`view_seat` and the legal words. Returns an int code: bit 0 set if some reward in
        ``st.rewards`` is not ``+0.0``, bit 1 set if the game is over."""
        code = self._fn(self.S, 0, self.P, self._words, self.mask, self.obs, 1)
        self._fresh = True
        self.view_seat = (code >> 2) - 1
        return code

    def observe(self, seat: int) -> np.ndarray:
        """``uint8[D]`` observation of ``seat``, identical to ``kernel.observe(st, seat)[0]``."""
        out = np.empty(self._size, dtype=np.uint8)
        self._fn(self.S, int(seat), self.P, self._words, self.mask, out, 3)
        return out


def _check_rng(rng, batch: int) -> None:
    """``ValueError`` unless ``rng`` is a chance source the kernels draw from, for ``batch`` games (a
    ``RowStreams`` holds one stream per game: a shorter one failed in the middle of a step, after the
    rules had moved), checked before any write."""
    from .chance import RowStreams

    if not isinstance(rng, (np.random.Generator, RowStreams)):
        raise ValueError(
            f"rng must be a numpy.random.Generator or a cardzoo.envs.core.chance.RowStreams, got {rng!r} "
            "(e.g. numpy.random.default_rng(0))"
        )
    if isinstance(rng, RowStreams) and len(rng) != batch:
        raise ValueError(f"rng is a RowStreams of {len(rng)} streams; the state holds {batch} games (one stream per game)")


class CompiledKernel(Kernel):
    """The frame of a kernel whose rules are compiled single-game functions: a game supplies its
    rules and this class does the rest (template method, in the spirit of pgx's ``core.Env``).

    **A game supplies** (class attributes):

    * ``State``: its :class:`~cardzoo.envs.core.kernel.BatchState` dataclass, every field declared once
      with :func:`~cardzoo.envs.core.kernel.state_field` (the core allocates it);
    * ``Arrays``: ``arrays_type(State, ...)``, the namedtuple compiled code sees;
    * ``rules``: its rules module (``step_one``, ``deal_one``, ``legal_one``, ``observe_one``,
      ``global_one``: see the module docstring);
    * ``CHANCE_ORDER``: the chance codes ``step_one`` may return, in the order their chance is
      drawn after a batched step (rows ascending within a code);

    and, in ``__init__``, ``self._obs_layout`` and ``self._state_layout`` (:attr:`obs_layout`, :attr:`state_layout`);
    the methods :meth:`make_params` (options -> ``int64`` option vector), :meth:`new_games`
    (the chance and test hooks of fresh games) and :meth:`draw_chance`, plus the views
    (``action_name``, ``render``, ``hands``, ...) of the :class:`Kernel` contract.

    **The core provides** :meth:`init`, :meth:`legal_words`, :meth:`legal_bitboard`,
    :meth:`legal_actions`, :meth:`step`, :meth:`step_observe` (step, then the observation and legal
    words of the seat to act, in one compiled pass), :meth:`reset_done` (optionally refreshing those),
    :meth:`mask_from_words`, :meth:`check_actions`, :meth:`observe` (also packed),
    :meth:`global_state`, :meth:`single_game`, :meth:`set_parallel` and pickling. Actions are
    validated before compiled code runs: no input can crash the interpreter or corrupt a state.
    """

    State: ClassVar[type]
    Arrays: ClassVar[type]
    rules: ClassVar[types.ModuleType]
    CHANCE_ORDER: ClassVar[tuple[int, ...]] = ()

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self._parallel = False

    # ---- what a game supplies ---------------------------------------------------------
    def make_params(self) -> np.ndarray:
        """The options as the compiled rules read them: ``int64[K]`` (indices defined by the rules module)."""
        raise NotImplementedError

    def new_games(self, st, rng, rows: np.ndarray, **hooks) -> int:
        """Start the fresh games ``rows`` (``int64[n]``, ascending) of ``st``, whose fields hold their
        declared initial values: draw their chance through :mod:`~cardzoo.envs.core.chance` for
        those rows (or take it from the test ``hooks``, ``n`` games' worth, validated with
        :func:`~cardzoo.envs.core.kernel.hook_ints`, before anything is written) and write it into
        those rows only. Returns the chance code with which the compiled ``deal_one`` goes on
        (the core runs it, e.g. the deal itself), or ``0`` when the game needs no ``deal_one``.
        :meth:`init` calls it with every row of a new state; :meth:`reset_done` with the finished
        games, in place, and the AEC env with its one game."""
        raise NotImplementedError

    def draw_chance(self, st, rows: np.ndarray, code: int, rng) -> None:
        """Draw the chance of ``code`` (returned by ``step_one``) for games ``rows`` (``int64[n]``) into
        the state, through :mod:`~cardzoo.envs.core.chance`; ``deal_one(code)`` goes on from there."""
        raise NotImplementedError

    def state_dims(self) -> dict[str, int]:
        """Named sizes of the state's fields (``state_field`` shapes): ``{"players": num_players}``."""
        return {"players": int(self.num_players)}

    # ---- the frame -----------------------------------------------------------------------
    @property
    def obs_layout(self):
        """The observation :class:`~cardzoo.envs.core.kernel.Layout` (the game sets ``self._obs_layout``
        in its ``__init__``: it may depend on the options)."""
        return self._obs_layout

    @property
    def state_layout(self):
        """The :class:`~cardzoo.envs.core.kernel.Layout` of ``global_state`` (the game sets ``self._state_layout``)."""
        return self._state_layout

    @functools.cached_property
    def fresh_game(self):
        """A state of one game whose fields hold their declared initial values (read it, do not
        change it): what :meth:`reset_done` sets finished games back to before dealing them again."""
        return self.State.allocate(1, self.state_dims())

    @functools.cached_property
    def _field_shapes(self) -> tuple:
        """``(name, per-game shape, dtype)`` of every field of this kernel's states (its options' sizes)."""
        return tuple((f.name, a.shape[1:], a.dtype) for f in dataclasses.fields(self.State) for a in (getattr(self.fresh_game, f.name),))

    def check_state(self, st) -> int:
        """``st.batch_size`` if ``st`` is a state of this kernel: its ``State`` class with every field of
        the per-game shape and dtype these options give (the same game and options as :meth:`init`);
        else ``ValueError`` saying what was given. Compiled code reads and writes the fields
        unchecked, so every public method that hands a state to it checks it first (the state checked
        last is remembered: a loop over one state pays the full check once)."""
        last = self.__dict__.get("_checked")
        if last is not None and last[0] is st and last[1] is st.done:
            return st.batch_size
        if not isinstance(st, self.State):
            raise ValueError(f"state must be a state of {self.name} ({self.State.__name__}, made by its kernel's init), got {type(st).__name__}")
        B = st.batch_size
        for name, shape, dtype in self._field_shapes:
            a = getattr(st, name)
            if not isinstance(a, np.ndarray) or a.shape[1:] != shape or a.shape[0] != B or a.dtype != dtype:
                got = f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else type(a).__name__
                raise ValueError(
                    f"state field {name} is {got} where this {self.name} kernel needs {dtype}{[B, *shape]}: "
                    f"a state made for other options (e.g. another player count or pack)?"
                )
        self._checked = (st, st.done)
        return B

    def __getstate__(self) -> dict:
        # the state checked last is not part of the kernel
        d = self.__dict__.copy()
        d.pop("_checked", None)
        return d

    @functools.cached_property
    def params(self) -> np.ndarray:
        """``int64[K]`` option vector of the compiled rules (made once by :meth:`make_params`)."""
        P = np.ascontiguousarray(self.make_params(), dtype=np.int64)
        P.setflags(write=False)
        return P

    @property
    def drivers(self) -> Drivers:
        """The game's compiled batch drivers (one core, or spread by :meth:`set_parallel`)."""
        return drivers_for(self.Arrays, self.rules, self._parallel)

    @property
    def legal_words_per_game(self) -> int:
        """``W = ceil(num_actions / 64)``: legal-action bit words per game."""
        return -(-int(self.num_actions) // 64)

    def set_parallel(self, parallel: bool = True) -> None:
        """Run the batch drivers over numba's threads (``numba.set_num_threads`` sets how many; one
        chunk of games each) or, with ``False``, on one core (the default). Results are identical.
        ``ValueError`` for anything but a bool (``"no"`` would be true)."""
        if not isinstance(parallel, (bool, np.bool_)):
            raise ValueError(f"parallel must be True or False, got {parallel!r}")
        self._parallel = bool(parallel)

    def init(self, rng, batch: int, **hooks):
        """Shuffle and deal ``batch`` games (``rng``: a Generator or :class:`~cardzoo.envs.core.chance.RowStreams`).

        ``hooks``: the test hooks in ``INIT_HOOKS`` (documented by the game's :meth:`new_games`);
        ``ValueError`` for another name or a bad value."""
        unknown = sorted(set(hooks) - set(self.INIT_HOOKS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown} for {self.name}{did_you_mean(unknown, self.INIT_HOOKS)}; "
                             f"valid: {list(self.INIT_HOOKS)}")
        if not isinstance(batch, (int, np.integer)) or isinstance(batch, (bool, np.bool_)) or batch < 0:
            raise ValueError(f"batch must be an int >= 0, got {batch!r}")
        _check_rng(rng, int(batch))
        B = int(batch)
        st = self.State.allocate(B, self.state_dims())
        rows = np.arange(B, dtype=np.int64)
        code = self.new_games(st, rng, rows, **{k: v for k, v in hooks.items() if v is not None})
        if code and B:
            self.drivers.deal(st, rows, code, self.params)
        return st

    def legal_words(self, st) -> np.ndarray:
        """``uint64[B, W]`` legal actions of the seat to act as bit words (action ``a``: bit ``a % 64``
        of word ``a // 64``; all 0 in finished games)."""
        self.check_state(st)
        return self.drivers.legal(st, self.params, self.legal_words_per_game)

    def legal_bitboard(self, st) -> np.ndarray:
        """``uint64[B]`` legal actions as one bitboard per game (bit ``a`` = action ``a``), for games
        of at most 64 actions; ``ValueError`` for larger action spaces (use :meth:`legal_words`)."""
        if self.legal_words_per_game != 1:
            raise ValueError(f"{self.name} has {self.num_actions} actions; its legal actions need legal_words()")
        return self.legal_words(st)[:, 0]

    def legal_actions(self, st) -> np.ndarray:
        """Action mask ``bool[B, A]`` of the seat to act (all False in finished games)."""
        return self.mask_from_words(self.legal_words(st))  # unpacked by numpy: faster than writing bools in compiled code

    def step(self, st, actions, rng, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal for each live game) and advance every game to its next
        decision, compiled (the game's ``step_one``).

        ``active`` (``bool[B]``, optional): step only these games; the others are untouched (their
        rewards are zeroed). Rewards of the step land in ``st.rewards``. Chance is drawn here, in
        Python, in ``CHANCE_ORDER`` (rows ascending within a code).

        Raises ``ValueError`` (state unchanged) if ``rng`` is not a Generator or RowStreams, ``actions``
        or ``active`` has the wrong shape or dtype, or an active live game's action is not legal (the
        message names it and the legal ones).
        """
        self._advance(st, actions, rng, active, None)

    def step_observe(self, st, actions, rng, active=None, out=None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`step`, then the observation and the legal actions of the seat to act in every game,
        computed in the same compiled pass over each game (the learner's loop in one call: fewer
        passes over the batch, and one thread hand-off per step with :meth:`set_parallel`).

        Returns ``(obs, words)``: ``obs`` ``uint8[B, D]`` equals ``observe(st, st.current_player)``
        and ``words`` ``uint64[B, W]`` equals :meth:`legal_words` (:meth:`mask_from_words` turns it into
        the ``bool[B, A]`` action mask) after the step. ``out``: an ``(obs, words)`` pair of that
        shape and dtype to write into (C-contiguous; returned), else new arrays.
        Bad input raises ``ValueError`` as :meth:`step` does, before anything is written.
        """
        B = self.check_state(st)
        if out is None:
            out = (np.empty((B, self.obs_layout.size), dtype=np.uint8), np.empty((B, self.legal_words_per_game), dtype=np.uint64))
        else:
            self._check_view(st, out)
        self._advance(st, actions, rng, active, out)
        return out

    def reset_done(self, state, rng, out=None) -> np.ndarray:
        """Deal fresh games in place wherever ``state.done``; returns the reset indices ``int64[k]``.
        ``out``: the ``(obs, words)`` pair of :meth:`step_observe`, whose rows of the reset games are
        written anew (observation and legal actions of the seat to act in the fresh deal)."""
        _check_rng(rng, self.check_state(state))
        if out is not None:
            self._check_view(state, out)
        idx = np.flatnonzero(state.done)
        if idx.size:  # in place: the rows back to their declared initial values, then dealt
            d = self.drivers
            d.reset(state, self.fresh_game, idx)
            code = self.new_games(state, rng, idx)
            if out is not None:  # code 0: only the view
                d.deal_view(state, idx, code, self.params, out[1], out[0])
            elif code:
                d.deal(state, idx, code, self.params)
        return idx

    def _check_view(self, st, out) -> None:
        """``ValueError`` unless ``out`` is an ``(obs uint8[B, D], words uint64[B, W])`` pair of C-contiguous arrays."""
        B, D, W = st.batch_size, self.obs_layout.size, self.legal_words_per_game
        ok = isinstance(out, tuple) and len(out) == 2 and all(isinstance(a, np.ndarray) for a in out)
        if ok:
            o, w = out
            ok = (o.shape, o.dtype, w.shape, w.dtype) == ((B, D), np.uint8, (B, W), np.uint64) and o.flags.c_contiguous \
                and w.flags.c_contiguous and o.flags.writeable and w.flags.writeable
        if not ok:
            raise ValueError(f"out must be a pair (obs uint8[{B}, {D}], words uint64[{B}, {W}]) of writeable C-contiguous arrays")

    def mask_from_words(self, words: np.ndarray) -> np.ndarray:
        """``bool[B, A]`` action mask of legal-action words ``uint64[B, W]`` (:meth:`legal_words`);
        ``ValueError`` for another dtype or shape."""
        W = self.legal_words_per_game
        if not isinstance(words, np.ndarray) or words.dtype != np.uint64 or words.ndim != 2 or words.shape[1] != W:
            got = f"{words.dtype} {words.shape}" if isinstance(words, np.ndarray) else type(words).__name__
            raise ValueError(f"words must be uint64[B, {W}] legal-action words of {self.name} (legal_words), got {got}")
        w = np.ascontiguousarray(words)
        return np.unpackbits(w.view(np.uint8), axis=1, bitorder="little")[:, : self.num_actions].view(bool)

    def _advance(self, st, actions, rng, active, view) -> None:
        """The body of :meth:`step` (``view``: ``None`` or the ``(obs, words)`` of :meth:`step_observe`)."""
        _check_rng(rng, self.check_state(st))
        B = st.batch_size
        acts = np.asarray(actions)
        if acts.shape != (B,) or acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be ints of shape ({B},), got {acts.dtype} {acts.shape}")
        given, acts = acts, acts.astype(np.int64, copy=False)  # uint64 above 2**63 wrap to < 0: out of range
        if active is None:
            act = np.ones(B, dtype=bool)
        else:
            act = np.asarray(active)
            if act.shape != (B,) or act.dtype != bool:
                raise ValueError(f"active must be bool of shape ({B},), got {act.dtype} {act.shape}")
        d, P = self.drivers, self.params
        if view is None:
            self._check(st, acts, act, given)
            need = d.step(st, acts, act, P)
        else:  # checked and stepped in one call (one hand-off to the threads with the parallel option)
            bad, need = d.check_step_view(st, acts, act, P, self.legal_words_per_game, int(self.num_actions), view[1], view[0])
            if need is None:
                self._raise_illegal(st, given, bad)
        if need.any():
            codes = set(np.unique(need[need != 0]).tolist())
            unknown = codes - set(self.CHANCE_ORDER)
            if unknown:  # a bug in the rules, not bad input
                raise RuntimeError(f"{self.name} rules asked for chance codes {sorted(unknown)} not in CHANCE_ORDER")
            for code in self.CHANCE_ORDER:
                if code in codes:
                    rows = np.flatnonzero(need == code)
                    self.draw_chance(st, rows, code, rng)
                    if view is None:
                        d.deal(st, rows, code, P)
                    else:
                        d.deal_view(st, rows, code, P, view[1], view[0])

    def check_actions(self, st, actions) -> None:
        """Raise ``ValueError`` if any live game's action (``int[B]``) is not legal, naming the action,
        the game, the seat and the legal actions; nothing is changed."""
        self.check_state(st)
        acts = np.asarray(actions)
        if acts.shape != (st.batch_size,) or acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be ints of shape ({st.batch_size},), got {acts.dtype} {acts.shape}")
        self._check(st, acts.astype(np.int64), np.ones(st.batch_size, dtype=bool), acts)

    def _check(self, st, actions: np.ndarray, active: np.ndarray, given: np.ndarray) -> None:
        """``ValueError`` for the first active live game whose action (``int64[B]``; ``given``: as the
        caller gave them, for the message) is not legal (checked by compiled code that only reads the
        state and never indexes with an out-of-range action)."""
        bad = self.drivers.check(st, actions, active, self.params, self.legal_words_per_game, int(self.num_actions))
        if bad.any():
            self._raise_illegal(st, given, bad)

    def _raise_illegal(self, st, actions: np.ndarray, bad: np.ndarray) -> None:
        """The ``ValueError`` for the first game flagged in ``bad`` (``bool[B]``): its action (as given:
        ``int[B]``), seat and legal actions."""
        A = int(self.num_actions)
        b = int(np.flatnonzero(bad)[0])
        x = int(actions[b])
        name = self.action_name(x) if 0 <= x < A else f"{x} (out of range 0..{A - 1})"
        words = self.legal_words(st.take(np.array([b])))[0]
        bits = np.unpackbits(np.ascontiguousarray(words).view(np.uint8), bitorder="little")[:A]
        legal = [self.action_name(int(i)) for i in np.flatnonzero(bits)]
        raise ValueError(f"illegal action {name} in game {b} for seat {st.current_player[b]}; legal: {legal}")

    def observe(self, st, seat, packed: bool = False) -> np.ndarray:
        """Observation ``uint8[B, D]`` of ``seat`` (int or ``int[B]``; ``ValueError`` for a seat out of
        range), laid out as :attr:`obs_layout`; only what that seat may know. Written by the game's
        compiled ``observe_one``. ``packed=True`` returns the packed form ``uint8[B, obs_layout.packed_size]``
        (0/1 features 8 to a byte: :meth:`~cardzoo.envs.core.kernel.Layout.pack`); ``ValueError`` for a
        ``packed`` that is not a bool (``"no"`` would be true)."""
        if not isinstance(packed, (bool, np.bool_)):
            raise ValueError(f"packed must be True or False, got {packed!r}")
        seats = self.check_seats(self.check_state(st), seat)
        out = self.drivers.observe(st, seats, self.params, self.obs_layout.size)
        return self.obs_layout.pack(out) if packed else out

    def global_state(self, st) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (every hand and the stock) for centralised
        critics, laid out as :attr:`state_layout`; written by the game's compiled ``global_one``."""
        self.check_state(st)
        return self.drivers.global_state(st, self.params, self.state_layout.size)

    def check_game(self, state, b) -> int:
        """:meth:`check_state`, then the game index check of :meth:`Kernel.check_game` (the views of one game)."""
        self.check_state(state)
        return super().check_game(state, b)

    def check_determinize(self, state, seat, rng) -> np.ndarray:
        """:meth:`check_state`, then the checks of :meth:`Kernel.check_determinize`."""
        self.check_state(state)
        return super().check_determinize(state, seat, rng)

    def single_game(self, st) -> CompiledSingleGame:
        """The B = 1 fast path used by the AEC env: the same compiled rules, one compiled call per
        step (:class:`CompiledSingleGame`)."""
        self.check_state(st)
        return CompiledSingleGame(self, st)
