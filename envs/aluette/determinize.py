"""Aluette ``determinize`` (:meth:`cardzoo.envs.aluette.kernel.AluetteKernel.determinize`).

What a seat knows (``RULES.md`` §7): its own hand, the talon cards it received in the chant and
its own discards, every card played and by whom, the chant votes, and the signals it heard. With
``signals="truthful"`` a heard signal is a fact about the sender's hand when he sent it (§4.5):
a key-card signal puts that card in his hand (unless he has played it since), ``as`` needs an
ace in his hand or among the cards he played after sending it (``as_aces``: the aces he had
played by then), ``faible`` rules out the key cards and aces.
Hidden: the other hands, the other recipient's received cards and discards, and the talon. The
unseen cards are dealt again uniformly among the deals consistent with all of that
(:func:`cardzoo.envs.core.determinize.deal_unseen`); before the chant the talon is dealt in a random order.

Signals the seat did not hear are hidden too: the copy keeps only the signals ``seat`` heard (in
``sent`` and in every ``heard``), so a search never plays on a signal it could not know. With
``signal_intercept = q`` whether an opponent of the sender caught a signal is hidden from the
others (the sender is not told, §4.5): in the copy each other seat catches each such known signal
with probability ``q``, drawn again.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import popcount
from ..core.determinize import bits_to_ids, deal_unseen, start
from .constants import ACES_BB, ALL_CARDS, KEY_BB, KEY_OR_ACE_BB, NUM_CARDS, NUM_SIGNALS, TALON_POS, VOTE

_U64 = np.uint64


def determinize(k, st, seat, rng: np.random.Generator):
    """A copy of ``st`` with what ``seat`` (int or ``int[B]``) cannot see dealt again (see module doc).

    Kept: ``seat``'s hand, received cards and discards, every played card, the public fields.
    Redealt: the other hands (sizes kept), the talon (its order too while the chant is to come),
    the other seats' received cards and discards (set to none: only their hands matter from here).
    """
    out, B, ar, seat, others = start(st, seat)  # others: int[B, 3]
    rows = ar[:, None]
    played_all = np.bitwise_or.reduce(st.played, axis=1)
    unseen = ALL_CARDS & ~st.hands[ar, seat] & ~played_all & ~st.discarded[ar, seat]
    sizes = np.zeros((B, 4), dtype=np.int64)
    sizes[:, :3] = popcount(st.hands[rows, others])
    sizes[:, 3] = popcount(unseen).astype(np.int64) - sizes[:, :3].sum(axis=1)  # talon and others' discards
    known = np.zeros((B, 4), dtype=_U64)
    forbidden = np.zeros((B, 4), dtype=_U64)
    need_ace = np.zeros((B, 3), dtype=bool)
    heard = st.heard[ar, seat]
    if k.options["signals"] == "truthful":
        for j in range(3):
            x = others[:, j]
            sig = (heard >> (10 * x).astype(_U64)) & _U64((1 << NUM_SIGNALS) - 1)
            for s in range(8):
                on = ((sig >> _U64(s)) & _U64(1)) == 1
                known[:, j] |= np.where(on, KEY_BB[s] & unseen, _U64(0))
            on_ace = ((sig >> _U64(8)) & _U64(1)) == 1
            need_ace[:, j] = on_ace & ((st.played[ar, x] & ACES_BB & ~st.as_aces[ar, x]) == 0)
            on_faible = ((sig >> _U64(9)) & _U64(1)) == 1
            forbidden[:, j] |= np.where(on_faible, KEY_OR_ACE_BB, _U64(0))

    def accept(r, deal):
        return ~(need_ace[r] & ((deal[:, :3] & ACES_BB) == 0)).any(axis=1)

    deal, _ = deal_unseen(unseen, sizes, rng, n_cards=NUM_CARDS, forbidden=forbidden, known=known,
                          accept=accept if need_ace.any() else None)
    out.hands[rows, others] = deal[:, :3]
    out.dealt[rows, others] = deal[:, :3] | st.played[rows, others]
    out.received[rows, others] = 0
    out.discarded[rows, others] = 0
    out.talon[:] = deal[:, 3]
    # the stock is read again only by the chant (talon positions), so everything else is forgotten
    out.stock[:] = -1
    pre = np.flatnonzero(st.phase == VOTE)
    if pre.size:
        member = bits_to_ids(deal[pre, 3], NUM_CARDS)
        keys = rng.random((pre.size, NUM_CARDS))
        keys[~member] = 2.0
        order = np.argsort(keys, axis=1, kind="stable")[:, : TALON_POS.size]
        out.stock[pre[:, None], TALON_POS[None, :]] = order.astype(out.stock.dtype)
    # keep only the signals ``seat`` heard
    mine = st.sent[ar, seat].astype(np.int64)
    known_bits = heard.copy()
    for s in range(NUM_SIGNALS):
        known_bits |= np.where((mine >> s) & 1 == 1, _U64(1) << (10 * seat + s).astype(_U64), _U64(0))
    for x in range(4):
        out.sent[:, x] = (st.sent[:, x].astype(np.int64) & ((known_bits >> _U64(10 * x)).astype(np.int64) & ((1 << NUM_SIGNALS) - 1))).astype(out.sent.dtype)
        out.heard[:, x] = st.heard[:, x] & known_bits
        out.as_aces[:, x] = np.where((known_bits >> _U64(10 * x + 8)) & _U64(1) == 1, st.as_aces[:, x], _U64(0))
    # which opponents of a sender caught a signal (signal_intercept, §4.5 / §9 D3) is hidden from
    # ``seat`` (a sender is not told; another catcher neither): drawn again with the same chance
    out.pending[:] = 0  # the last intercept draw (hidden; read only right after a signal)
    out.catch[:] = False
    q = k.intercept if k.options["signal_visibility"] == "partner" else 0.0
    if q > 0:
        caught = rng.random((B, 4, 4, NUM_SIGNALS)) < q  # [game, listener, sender, signal]
        for x in range(4):
            for p in ((x + 1) % 4, (x + 3) % 4):  # x is an opponent of sender p
                block = _U64((1 << NUM_SIGNALS) - 1) << _U64(10 * p)
                draw = np.bitwise_or.reduce(np.where(caught[:, x, p], _U64(1) << (_U64(10 * p) + np.arange(NUM_SIGNALS, dtype=_U64)), _U64(0)), axis=1)
                redo = seat != x
                out.heard[redo, x] = (out.heard[redo, x] & ~block) | (known_bits[redo] & block & draw[redo])
    return out


