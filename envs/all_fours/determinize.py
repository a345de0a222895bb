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

__all__ = ["redeal_unseen", "redeal_voids_exactly"]

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


def redeal_voids_exactly(st, out, seats, keys, rng) -> None:
    """Deal again, in ``out``, the other hands of the games where :func:`redeal_unseen` broke a
    shown void (``RULES.md`` §5), uniformly among the deals that respect every shown void
    (:func:`cardzoo.envs.core.determinize.deal_unseen`).

    :func:`redeal_unseen` places the unseen cards one by one, each with probability proportional to
    the room left among the places that may hold it, and ignores the voids when none may: it broke
    a void in 221 of 3,741 positions of rule-bot play, though the true deal always respects them.
    Only those games are dealt again (the others keep the compiled deal: fast, and exactly uniform
    where no void is shown, only close to uniform where one is). Voids arise only in trick play,
    where the undealt stock is never read again: it gets the remaining unseen cards in the order of
    ``keys`` (``float32[B, 52]``, as :func:`redeal_unseen` fills it).

    ``st``: the state searched; ``out``: its copy after :func:`redeal_unseen` (rewritten in place);
    ``seats``: ``int64[B]``; ``rng``: draws the new deals (after ``keys`` and ``u``)."""
    from ..core.determinize import deal_unseen
    from .constants import SUIT_BITS

    B = st.batch_size
    others = (seats[:, None] + np.arange(1, 4)) % 4  # [B, 3]
    ar = np.arange(B)[:, None]
    ov = st.voids[ar, others]
    broken = np.zeros(B, dtype=bool)
    for u in range(4):
        broken |= (((ov >> np.uint8(u)) & 1 == 1) & ((out.hands[ar, others] & SUIT_BITS[u]) != 0)).any(axis=1)
    rows = np.flatnonzero(broken)
    if rows.size == 0:
        return
    o = others[rows]
    r2 = rows[:, None]
    seen = st.hands[rows, seats[rows]] | np.bitwise_or.reduce(st.played[rows], axis=1) | st.kicked[rows]
    unseen = ALL_CARDS & ~seen
    sizes = np.zeros((rows.size, 4), dtype=np.int64)
    sizes[:, :3] = _popcount_rows(st.hands[r2, o])
    sizes[:, 3] = _popcount_rows(unseen) - sizes[:, :3].sum(axis=1)
    forbidden = np.zeros((rows.size, 4), dtype=np.uint64)
    for u in range(4):
        forbidden[:, :3] |= np.where((ov[rows] >> np.uint8(u)) & 1 == 1, SUIT_BITS[u], np.uint64(0))
    deal, _ = deal_unseen(unseen, sizes, rng, n_cards=NUM_CARDS, forbidden=forbidden, max_tries=20)  # then exact
    out.hands[r2, o] = deal[:, :3]
    out.dealt[r2, o] = deal[:, :3] | st.played[r2, o]
    n_stock = NUM_CARDS - _STOCK_START
    full = (out.stock[rows, _STOCK_START:] >= 0).all(axis=1)  # filled by redeal_unseen: the rest, in key order
    for i in np.flatnonzero(full):
        b = rows[i]
        rest = np.array([c for c in range(NUM_CARDS) if (int(deal[i, 3]) >> c) & 1], dtype=np.int64)
        rest = rest[np.argsort(keys[b, rest], kind="stable")]
        out.stock[b, _STOCK_START:] = rest[:n_stock]


def _popcount_rows(x):
    from ..core.cards import popcount

    return popcount(np.asarray(x, dtype=np.uint64)).astype(np.int64)
