"""All Fours determinization for search, compiled: the cards a seat cannot see, dealt again.

:meth:`cardzoo.envs.all_fours.kernel.AllFoursKernel.determinize` draws the random numbers (in
Python, from the caller's generator) and copies the state; :func:`redeal_unseen` does the rest
over the batch, one game at a time (numba). What is kept, what is dealt again and how: see
``determinize``'s docstring. The sampling is the one the kernel did in numpy before (same draws,
same deal for the same generator):

* the unseen cards are taken in the order of their random keys (ties: lower card id first);
* each goes to one of the other three seats or to the undealt stock, among those with room left
  that have not shown a void in its suit (``voids``, ``RULES.md`` §5), with probability
  proportional to the room left; if none qualifies, among all those with room.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.bits import popcount as _popcount

from .constants import ALL_CARDS, FIRST_KICK, NUM_CARDS, RUN_KICKS

__all__ = ["redeal_unseen"]

_ONE = np.uint64(1)
_RUN1, _RUN2 = RUN_KICKS
_STOCK_START = FIRST_KICK + 1  # stock positions 25..51: what a run of the pack deals (§3, §4)



@njit(cache=True, _nrt=False)
def redeal_unseen(hands, dealt, played, kicked, voids, stock, runs, seat, keys, u, order, rest):
    """Deal again, in place, what ``seat[b]`` cannot see in each game ``b`` of a copied state.

    Args:
        hands, dealt, played, kicked, voids, stock, runs: the state's arrays (``AllFoursState``
            fields, batch axis first); ``hands``, ``dealt`` and ``stock`` are rewritten.
        seat: ``int64[B]`` the seat whose information is kept (0..3, checked by the caller).
        keys: ``float32[B, 52]`` random keys (the order in which unseen cards are dealt).
        u: ``float64[52, B]`` uniforms (``u[j, b]`` picks the place of game ``b``'s ``j``-th unseen card).
        order, rest: ``int64[52]`` and ``int8[52]`` scratch.
    """
    B = hands.shape[0]
    for b in range(B):
        s = seat[b]
        seen = hands[b, s] | played[b, 0] | played[b, 1] | played[b, 2] | played[b, 3] | kicked[b]
        unseen = ALL_CARDS & ~seen
        # the unseen cards in the order of their keys (a stable insertion sort: ties by card id)
        n = 0
        for c in range(NUM_CARDS):
            if (unseen >> np.uint64(c)) & _ONE:
                kc = keys[b, c]
                j = n
                while j > 0 and keys[b, order[j - 1]] > kc:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = c
                n += 1
        # room left in the other seats' hands (dealt sizes kept) and in the undealt stock
        r0 = _popcount(hands[b, (s + 1) % 4])
        r1 = _popcount(hands[b, (s + 2) % 4])
        r2 = _popcount(hands[b, (s + 3) % 4])
        r3 = n - (r0 + r1 + r2)
        v0, v1, v2 = voids[b, (s + 1) % 4], voids[b, (s + 2) % 4], voids[b, (s + 3) % 4]
        h0 = h1 = h2 = np.uint64(0)
        n_rest = 0
        for jj in range(n):
            card = order[jj]
            suit = card // 13
            ok0 = r0 > 0 and (v0 >> suit) & 1 == 0
            ok1 = r1 > 0 and (v1 >> suit) & 1 == 0
            ok2 = r2 > 0 and (v2 >> suit) & 1 == 0
            ok3 = r3 > 0
            if not (ok0 or ok1 or ok2 or ok3):  # no place without a shown void: any place with room
                ok0, ok1, ok2 = r0 > 0, r1 > 0, r2 > 0
            c0 = r0 if ok0 else 0
            c1 = c0 + (r1 if ok1 else 0)
            c2 = c1 + (r2 if ok2 else 0)
            c3 = c2 + (r3 if ok3 else 0)
            x = u[jj, b] * c3
            dest = (x >= c0) + (x >= c1) + (x >= c2) + (x >= c3)
            bit = _ONE << np.uint64(card)
            if dest == 0:
                r0 -= 1
                h0 |= bit
            elif dest == 1:
                r1 -= 1
                h1 |= bit
            elif dest == 2:
                r2 -= 1
                h2 |= bit
            else:
                r3 -= 1
                rest[n_rest] = card
                n_rest += 1
        o0, o1, o2 = (s + 1) % 4, (s + 2) % 4, (s + 3) % 4
        hands[b, o0], hands[b, o1], hands[b, o2] = h0, h1, h2
        dealt[b, o0], dealt[b, o1], dealt[b, o2] = h0 | played[b, o0], h1 | played[b, o1], h2 | played[b, o2]
        # stock: dealt positions are never read again; the turned cards are public and stay; the
        # rest (25..51) is what a run of the pack would deal, unless this is trick play (nothing
        # more is dealt this hand)
        k1, k2 = stock[b, _RUN1], stock[b, _RUN2]
        for i in range(FIRST_KICK):
            stock[b, i] = -1
        full = n_rest >= NUM_CARDS - _STOCK_START
        for i in range(NUM_CARDS - _STOCK_START):
            stock[b, _STOCK_START + i] = rest[i] if full else -1
        if runs[b] > 0:
            stock[b, _RUN1] = k1
        if runs[b] > 1:
            stock[b, _RUN2] = k2
