"""Ottocento ``determinize`` (:meth:`cardzoo.envs.ottocento.kernel.OttocentoKernel.determinize`).

What a seat knows (``RULES.md`` §7): its own hand, every card played and by whom, the cards shown
by declarations (in the declarer's hand until played) and the points declared (with
``declaration_mode="auto_all"`` a seat that had its turn without declaring holds a hand worth 0,
§4.1), the suits each seat
showed it lacks (§5: ``OttocentoState.voids``), and, for the dealer, his two discards. Hidden: the
other hands and, for everyone but the dealer, the discards (which are never kings or honours, §3).
The rest of the deal is dealt again uniformly among the deals consistent with all of that
(:func:`cardzoo.envs.core.determinize.deal_unseen`).
"""

from __future__ import annotations

import numpy as np

from ..core.cards import popcount
from ..core.determinize import deal_unseen, start
from .combos import combo_breakdown
from .constants import ALL_CARDS, DISCARD, FORBIDDEN_DISCARDS_BB, MAT_BIT, NUM_CARDS, SUIT_BB

_U64 = np.uint64


def _void_cards(voids: np.ndarray) -> np.ndarray:
    """``uint8[...]`` void bits -> ``uint64[...]`` the cards of those suits."""
    out = np.zeros(voids.shape, dtype=_U64)
    for s in range(5):
        out |= np.where((voids >> s) & 1 == 1, SUIT_BB[s], _U64(0))
    return out


def determinize(k, st, seat, rng: np.random.Generator):
    """A copy of ``st`` with what ``seat`` (int or ``int[B]``) cannot see dealt again (see module doc).

    Kept: ``seat``'s hand, every played card, declared cards (in their declarer's hand), voids,
    the dealer's discards when ``seat`` is the dealer, all public fields. Redealt: the other hands
    (sizes kept) and the discards; ``dealt``, ``matto_owner`` and the other seats' declaration
    values follow the new deal; the pack order (``stock``, read only when dealing) is cleared. The
    result depends only on what ``seat`` may know and on ``rng``.
    """
    out, B, ar, seat, others = start(st, seat)  # others: int[B, 3]
    rows = ar[:, None]
    played_all = np.bitwise_or.reduce(st.played, axis=1)
    is_dealer = st.dealer == seat
    own_discards = np.where(is_dealer, st.discards, _U64(0))
    unseen = ALL_CARDS & ~st.hands[ar, seat] & ~played_all & ~own_discards
    sizes = np.zeros((B, 4), dtype=np.int64)
    sizes[:, :3] = popcount(st.hands[rows, others])
    sizes[:, 3] = np.where(is_dealer, 0, st.n_discarded)
    known = np.zeros((B, 4), dtype=_U64)
    known[:, :3] = st.shown[rows, others] & ~st.played[rows, others] & unseen[:, None]
    forbidden = np.zeros((B, 4), dtype=_U64)
    forbidden[:, :3] = _void_cards(st.voids[rows, others])
    forbidden[:, 3] = FORBIDDEN_DISCARDS_BB | MAT_BIT
    after_discard = st.phase != DISCARD
    strict = k.strict_skip
    # declaration_mode="auto_all" (§4.1): every scoring hand is declared at its first turn, so a seat
    # that has had its turn and did not declare holds a hand worth nothing
    auto = k.options["declaration_mode"] == "auto_all"

    def accept(r, deal):
        # a declaration showed its cards and its points: the declarer's hand scores exactly that
        ok = np.ones(r.size, dtype=bool)
        for j in range(3):
            x = others[r, j]
            chk = (st.declared[r, x] | (auto & st.decided[r, x])) & after_discard[r]
            if chk.any():
                hand = deal[chk, j] | st.played[r[chk], x[chk]]
                b = combo_breakdown(hand, strict)
                ok[chk] &= (b.total == st.decl_points[r[chk], x[chk]]) & (b.shown == st.shown[r[chk], x[chk]])
        return ok

    deal, _ = deal_unseen(unseen, sizes, rng, n_cards=NUM_CARDS, forbidden=forbidden, known=known, accept=accept)
    out.hands[rows, others] = deal[:, :3]
    out.dealt[rows, others] = deal[:, :3] | st.played[rows, others]
    out.discards[:] = np.where(is_dealer, st.discards, deal[:, 3])
    out.stock[:] = -1  # the pack order is the true deal; read only when a deal is dealt
    d_other = ~is_dealer  # the dealer (another seat) was also dealt his discards
    dseat = st.dealer.astype(np.intp)
    out.dealt[ar[d_other], dseat[d_other]] |= deal[d_other, 3]
    holder = (deal[:, :3] & MAT_BIT) != 0
    has = holder.any(axis=1)
    out.matto_owner[has] = others[has, holder[has].argmax(axis=1)]
    if after_discard.any():
        b = combo_breakdown(out.hands[rows, others] | st.played[rows, others], strict)
        val = np.where(after_discard[:, None], b.total, 0).astype(out.decl_value.dtype)
        cards = np.where(after_discard[:, None], b.shown, _U64(0))
        out.decl_value[rows, others] = val
        out.decl_cards[rows, others] = cards
    return out
