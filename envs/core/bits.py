"""Compiled card-set helpers shared by every game's rules (numba; one card set = one ``uint64``).

A card set is a bitboard: card id ``c`` is bit ``c`` of a ``uint64`` (``envs/core/README.md``).
These are the scalar, compiled counterparts of the numpy helpers in :mod:`cardzoo.envs.core.cards`
(``bit``, ``popcount``), for use inside ``@njit`` rules functions; each inlines into its caller.

* :func:`bit` -- ``uint64`` with only bit ``card`` set.
* :func:`popcount` -- number of set bits, ``int64`` (LLVM ``ctpop``: one instruction where the
  CPU has it).
* :func:`low_bit` -- index of the lowest set bit, ``int64`` (LLVM ``cttz``); 64 for zero.
* :func:`nth_bit` -- index of the ``n``-th set bit, lowest first (a random legal action of a
  rollout's random opponent).
* :func:`write_set` -- ``out[off + c] = 1`` for every card ``c`` of a set, into a zeroed buffer
  (observations: card sets are sparse, so this beats writing every entry).

numba's on-disk cache of a rules function is keyed by the rules file, not by this one: after a
change here, the game's cached functions are only rebuilt once their own file changes (or the
``__pycache__`` of ``cardzoo/envs`` is cleared).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba import types as _nbt
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

__all__ = ["ONE", "bit", "low_bit", "nth_bit", "popcount", "write_set"]

#: ``np.uint64(1)``: shifts of a card set must stay unsigned 64-bit in compiled code.
ONE = np.uint64(1)


@njit(cache=True, inline="always", _nrt=False)
def bit(card):
    """``uint64`` card set holding only card ``card`` (an integer 0..63)."""
    return ONE << np.uint64(card)


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an integer card set (``int64``), LLVM ``ctpop``."""
    if not isinstance(x, _nbt.Integer):
        return None

    def codegen(context, builder, sig, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return context.cast(builder, builder.call(fn, [args[0]]), sig.args[0], sig.return_type)

    return _nbt.int64(x), codegen


@njit(cache=True, inline="always", _nrt=False)
def low_bit(x):
    """Index of the lowest set bit of the ``uint64`` ``x`` (``int64``; 64 when ``x`` is 0)."""
    return np.int64(trailing_zeros(np.uint64(x)))


@njit(cache=True, inline="always", _nrt=False)
def nth_bit(x, n):
    """Index of the ``n``-th (from 0) set bit of the ``uint64`` ``x``, lowest first (``int64``; 64
    when ``x`` has ``n`` or fewer set bits): a uniformly random legal action is
    ``nth_bit(legal, floor(u * popcount(legal)))``.

    For compiled callers, unchecked: ``n`` is an ``int64 >= 0`` (a negative ``n`` gives the lowest
    set bit); ``x`` is taken as ``uint64`` (from Python, a plain int above ``2**64 - 1`` or below 0
    raises numba's ``OverflowError``)."""
    x = np.uint64(x)
    for _ in range(n):
        x &= x - ONE
    return low_bit(x)


@njit(cache=True, inline="always", _nrt=False)
def write_set(out, off, bits):
    """``out[off + c] = 1`` for every card ``c`` of the ``uint64`` set ``bits``.

    ``out`` is a ``uint8`` buffer the caller has zeroed; entries of cards not in ``bits`` are left
    as they are."""
    x = np.uint64(bits)
    while x:
        out[off + np.int64(trailing_zeros(x))] = 1
        x &= x - ONE
