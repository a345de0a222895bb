"""Avinas ``determinize`` (:meth:`cardzoo.envs.avinas.kernel.AvinasKernel.determinize`).

What a seat knows (``RULES.md`` §7): its own hand; the exposed key cards and their holders; as
dealer, its side's unexposed key cards; every card played face up and by whom; that a seat led
face down (then, for that trick, the card itself only if it led it, and the valuable bit if it is
the leader's partner, §5); the calls, the declarer, the trumps, knocks and stops; the suits each
seat showed it lacks (``AvinasState.voids``: not following, or leading face down, which needs a
hand without trumps). With ``honesty="mask"`` calls are facts: a caller held that many cards of
some suit's count, the declarer that many of the suit he named (§4.2). Hidden: the other hands,
the face-down card of the current trick, the dealer's side's unexposed key cards (for everyone
but the dealer), and whether the declarer lied (until the deal is scored).

The copy deals the unseen cards again, uniformly among the deals consistent with all of that
(:func:`cardzoo.envs.core.determinize.deal_unseen`; the face-down card is one more place; a
visible key card of the face-down leader that he has not played face up is in his hand *or* face
down, §11.12: the others cannot tell), and recomputes from the new deal what depended on the old
one: ``dealt``, ``lied``, the face-down card in ``played`` / ``trick`` / ``trick_card``, the
valuable bit (``signal``) for every seat but the leader's partner (the new card's worth; with
``facedown_signal="free"`` the leader is taken to tell the truth), and ``dealer_seen`` (random
non-sevens of the dealer's side's new hands). Not modelled: that the dealer's side's hidden key cards are not
sevens also tilts which hands are likely (a small effect); the pack order (``stock``) is cleared.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import bit, popcount, random_set_bit
from ..core.determinize import deal_unseen, start
from .constants import ALL_CARDS, NUM_CARDS, PLAIN_BB, POINTS, QJ_BB, SUIT_BB, TRUMP_BB

_U64 = np.uint64
_ZERO = _U64(0)
TRUMPS_LED = 4
SEVENS_BB = _U64(sum(1 << (8 * s) for s in range(4)))
NO_SEVENS = 1


def _void_cards(voids: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """Void bits ``uint8[B, k]`` under trump suit ``int[B]`` (-1: none yet) -> ``uint64[B, k]`` cards."""
    t = np.clip(trump, 0, 3).astype(np.intp)
    trumps = np.where(trump >= 0, TRUMP_BB[t], QJ_BB)[:, None]
    out = np.where((voids >> TRUMPS_LED) & 1 == 1, trumps, _ZERO)
    for s in range(4):
        plain = np.where(trump >= 0, PLAIN_BB[s] & ~TRUMP_BB[t], PLAIN_BB[s])[:, None]
        out |= np.where((voids >> s) & 1 == 1, plain, _ZERO)
    return out


def determinize(k, st, seat, rng: np.random.Generator):
    """A copy of ``st`` with what ``seat`` (int or ``int[B]``) cannot see dealt again (see module doc)."""
    out, B, ar, seat, others = start(st, seat)  # others: int[B, 3]
    rows = ar[:, None]
    fd = st.fd_seat.astype(np.intp)
    fd_hidden = (fd >= 0) & (fd != seat) & (st.n_in_trick > 0)
    fd_card = np.where(fd_hidden, st.trick_card[ar, np.maximum(fd, 0)], 0).astype(np.int64)
    fd_bit = np.where(fd_hidden, bit(fd_card), _ZERO)
    played_all = np.bitwise_or.reduce(st.played, axis=1)
    unseen = ALL_CARDS & ~st.hands[ar, seat] & ~(played_all & ~fd_bit)
    sizes = np.zeros((B, 4), dtype=np.int64)
    sizes[:, :3] = popcount(st.hands[rows, others])
    sizes[:, 3] = fd_hidden
    is_dealer = st.dealer == seat
    visible_keys = st.exposed | np.where(is_dealer, st.dealer_seen, _ZERO)
    played_vis = st.played.copy()
    played_vis[ar[fd_hidden], fd[fd_hidden]] &= ~fd_bit[fd_hidden]
    # the visible key cards of each seat not yet played face up (their holders are public): in its
    # hand, or, for the face-down leader, in his hand or led face down; the others do not know which
    # (RULES.md §11.12: an exposed card led face down still shows in his hand until the trick ends)
    keys_left = st.dealt[rows, others] & visible_keys[:, None] & ~played_vis[rows, others] & unseen[:, None]
    fd_keys = np.where(fd_hidden, np.bitwise_or.reduce(np.where(others == fd[:, None], keys_left, _ZERO), axis=1), _ZERO)
    known = np.zeros((B, 4), dtype=_U64)
    known[:, :3] = keys_left & ~fd_keys[:, None]  # holders of visible key cards are known
    forbidden = np.zeros((B, 4), dtype=_U64)
    forbidden[:, :3] = _void_cards(st.voids[rows, others], st.trump)
    forbidden[:, :3] |= np.where(others != fd[:, None], fd_keys[:, None], _ZERO)  # the leader's: his hand or the face-down card
    t = np.clip(st.trump, 0, 3).astype(np.intp)
    # led face down: not a trump, not another seat's visible key card, and (it was in its leader's
    # hand) none of the plain suits he showed void in
    fd_voids = _void_cards(st.voids[ar, np.maximum(fd, 0)][:, None], st.trump)[:, 0]
    forbidden[:, 3] = np.where(fd_hidden, (TRUMP_BB[t] | (visible_keys & ~fd_keys) | fd_voids), _ZERO)
    if k.options["facedown_signal"] == "auto":  # the partner learnt whether it is valuable
        partner = fd_hidden & ((fd + 2) % 4 == seat) & (st.signal >= 0)
        valuable = np.bitwise_or.reduce(np.where(POINTS >= k.vmin, bit(np.arange(NUM_CARDS)), _ZERO))
        forbidden[:, 3] |= np.where(partner, np.where(st.signal == 1, ALL_CARDS & ~valuable, valuable), _ZERO)
    mask_h = k.options["honesty"] == "mask"
    count_bb = k.count_bb

    def accept(r, deal):
        ok = np.ones(r.size, dtype=bool)
        for j in range(3):
            x = others[r, j]
            hand = deal[:, j] | played_vis[r, x] | np.where(fd_hidden[r] & (fd[r] == x), deal[:, 3], _ZERO)
            counts = popcount(hand[:, None] & count_bb[None, :]).astype(np.int64)  # [n, 4]
            call = st.calls[r, x].astype(np.int64)
            ok &= ~((call > 0) & (counts.max(axis=1) < call))
            named = (st.declarer[r] == x) & (st.trump[r] >= 0) & (st.game[r] == NO_SEVENS)
            ok &= ~(named & (counts[np.arange(r.size), t[r]] < st.high_call[r]))
        return ok

    need = mask_h & (st.calls[rows, others] > 0).any(axis=1)
    deal, _ = deal_unseen(unseen, sizes, rng, n_cards=NUM_CARDS, forbidden=forbidden, known=known,
                          accept=accept if need.any() else None)
    out.hands[rows, others] = deal[:, :3]
    # the face-down card: the new one replaces the old in its leader's played cards and the trick
    f = np.flatnonzero(fd_hidden)
    if f.size:
        new_fd = np.log2(deal[f, 3].astype(np.float64)).astype(np.int64)
        out.played[f, fd[f]] = (st.played[f, fd[f]] & ~fd_bit[f]) | deal[f, 3]
        out.trick[f] = (st.trick[f] & ~fd_bit[f]) | deal[f, 3]
        out.trick_card[f, fd[f]] = new_fd
        # the valuable bit (§5) is the leader's partner's alone: for the other seats it follows the
        # new card (``"auto"``: computed truthfully; ``"free"``: the leader is taken to tell the truth)
        redo_sig = f[(st.signal[f] >= 0) & ((fd[f] + 2) % 4 != seat[f])]
        out.signal[redo_sig] = (POINTS[out.trick_card[redo_sig, fd[redo_sig]]] >= k.vmin).astype(out.signal.dtype)
    out.dealt[rows, others] = out.hands[rows, others] | out.played[rows, others]
    out.stock[:] = -1
    # the dealer's side's unexposed key cards, for seats that do not know them
    d = st.dealer.astype(np.intp)
    # kept: all of it for the dealer; the seat's own cards the dealer saw, for his partner
    seen = np.where(is_dealer, st.dealer_seen, st.dealer_seen & st.dealt[ar, seat])
    for side in (d, (d + 2) % 4):
        redo = ~is_dealer & (side != seat)
        n_keys = 2 - popcount(st.exposed & st.dealt[ar, side]).astype(np.int64)
        pool = out.dealt[ar, side] & ~st.exposed & ~SEVENS_BB
        mine = np.zeros(B, dtype=_U64)
        for _ in range(2):
            pick = redo & (n_keys > 0) & (pool != 0)
            c = random_set_bit(pool, rng)
            cb = np.where(pick, bit(c), _ZERO)
            mine |= cb
            pool &= ~cb
            n_keys -= pick
        seen = np.where(redo, seen | mine, seen)
    out.dealer_seen[:] = seen
    # the honesty check of §4.2.4, on the new deal (public only once the deal is scored)
    dec = st.declarer.astype(np.intp)
    redo = (st.game == NO_SEVENS) & (st.trump >= 0) & (dec >= 0) & (dec != seat)
    if redo.any():
        r = np.flatnonzero(redo)
        held = popcount(out.dealt[r, dec[r]] & count_bb[t[r]])
        out.lied[r] = held < st.high_call[r]
    return out


__all__ = ["determinize", "SUIT_BB"]
