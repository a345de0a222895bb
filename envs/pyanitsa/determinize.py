"""P'yanitsa ``determinize`` (:meth:`cardzoo.envs.pyanitsa.kernel.PyanitsaKernel.determinize`).

What a seat knows (``RULES.md`` §7): pile sizes, the last battle (its face-up cards, who showed
them, how many cards went face down, its winner), and, with ``collect_order="winner_chooses"``,
the bottom part of its own pile that it ordered itself and the pot it is ordering. Where the last
battle's cards went is public too: under the winner's pile, in an order everyone can work out
with ``"winner_first"`` / ``"seat_order"`` (so those face-up cards stay where they are), in an
unknown order with ``"random"`` and, for the other seats, ``"winner_chooses"`` (then they are
somewhere in the winner's bottom part or still in the pot).

A seat also remembers the earlier battles (the state's ``pot_of``, ``shown`` and ``seen``): every
card turned face up went, with its battle's pot, under that battle's winner's pile, and piles take
pots at the bottom, so each pot lies in one stretch of its winner's pile. A card shown in an
earlier battle therefore stays in its stretch: in its very place under the fixed orders, at a
random place of the stretch under ``"random"`` and ``"winner_chooses"`` (the order drawn or chosen
is not known; the seat's own ordered part excepted). A card that goes down face down keeps its
place known only where its place was public (the fixed orders); otherwise it, and every card still
in the stretch it came from (any of them may be the one that went down), are known no more. A card
once turned face up is never again in a pile's dealt part (the places no battle has taken) nor the
set-aside card. Hidden: every other pile position (cards never turned, and face-down ones), the
face-down cards, and the card set aside with 3 players and 52 cards.

The copy deals those hidden cards again, uniformly among the arrangements consistent with that
(:func:`cardzoo.envs.core.determinize.deal_unseen` over four places: the winner's bottom part
with the pot, the other hidden places of pots, the set-aside card, the dealt parts; then a random
order within each). The cycle check's saved piles (§6) are cleared: they are a copy of hidden
piles; so is the buffer outside the piles (the true state keeps played cards there).

Measured (``agents/SEARCH.md``): remembering the earlier battles makes ``pyanitsa/pimc`` much
stronger; with the last battle only, its edge over the shipped agent came from search alone.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import bit, popcount
from ..core.determinize import bits_to_ids, deal_unseen
from .constants import EMPTY, ORDER_PHASE
from .rules import remembered_pots_batch

_U64 = np.uint64


def _shuffle_earlier_pots(card, earlier, slot_t, shown, rng):
    """``card`` (``int64[B, P, C]``, a place's card) with the places ``earlier`` (of pots of earlier
    battles that the seat did not order itself) shuffled within each pot's stretch: each stretch's
    face-up cards by id, then its others (face down: dealt again later), go to its places in a random
    order. The result depends on which cards a stretch holds, not on their order in it."""
    B, P, C = card.shape
    flat = card.reshape(B, -1)
    pot_id = np.where(earlier, np.arange(P)[None, :, None] * (1 << 24) + slot_t, 0).reshape(B, -1).astype(np.float64)
    up = ((bit(np.where(earlier, card, 0)) & shown[:, None, None]) != 0).reshape(B, -1)
    item_key = np.where(earlier.reshape(B, -1), pot_id + np.where(up, 0.0, 0.5) + flat / (4.0 * C), np.inf)
    place_key = np.where(earlier.reshape(B, -1), pot_id + rng.random(flat.shape) * 0.99, np.inf)
    items = np.argsort(item_key, axis=1, kind="stable")
    places = np.argsort(place_key, axis=1, kind="stable")
    out = flat.copy()
    r, i = np.nonzero(np.arange(P * C)[None, :] < earlier.reshape(B, -1).sum(axis=1)[:, None])
    out[r, places[r, i]] = flat[r, items[r, i]]
    return out.reshape(B, P, C)


def determinize(k, st, seat, rng: np.random.Generator):
    """A copy of ``st`` with what ``seat`` (int or ``int[B]``) cannot know dealt again (see module doc).

    Kept: pile sizes, ``seat``'s own ordered bottom part, the pot while ``seat`` orders it, the
    public placement of every face-up card (the last battle's and, within its pot's stretch, each
    earlier battle's), every public field. Redealt: every other pile position, the other seats' view
    of the pot, the set-aside card.
    """
    P, C = k.num_players, k.C
    out = st.copy()
    B = st.batch_size
    seat = np.broadcast_to(np.asarray(seat, dtype=np.intp), (B,))
    j = np.arange(C)
    size = st.size.astype(np.int64)
    idx = (st.head.astype(np.int64)[:, :, None] + j) % C  # [B, P, C] buffer index of offset j (top = 0)
    card = np.take_along_axis(st.piles, idx, axis=2).astype(np.int64)  # card at offset j
    valid = j < size[:, :, None]
    seat_axis = np.arange(P)[None, :, None]
    hidden = valid & ~((seat_axis == seat[:, None, None]) & (j >= (size - st.known)[:, :, None]))
    public_order = k.options["collect_order"] in ("winner_first", "seat_order")
    # the pot of battle t lies in one stretch of its winner's pile (piles take pots at the bottom);
    # each place records that battle (``pot_of``, 0: the deal): public, whatever card lies there
    slot_t = np.where(valid, np.take_along_axis(st.pot_of, idx, axis=2).astype(np.int64), -1)
    # places of the pots whose face-up cards every seat remembers (the rule the observation's
    # ``remembered`` is written by, ``observe_history``)
    remembered = np.zeros((B, P, C), dtype=np.bool_)
    remembered_pots_batch(k.drivers.arrays(st), k.params, remembered)
    earlier = hidden & remembered
    if not public_order:
        card = _shuffle_earlier_pots(card, earlier, slot_t, st.shown, rng)
    # cards in ``shown`` at those places stay (remembered); the last battle's face-up cards under the
    # other orders: below
    hidden &= ~(earlier & ((bit(np.where(valid, card, 0)) & st.shown[:, None, None]) != 0))
    faceup = np.bitwise_or.reduce(st.face_up, axis=1)
    is_fu = valid & ((bit(np.where(valid, card, 0)) & faceup[:, None, None]) != 0)
    ordering = (st.phase == ORDER_PHASE) & (st.winner == seat)  # ``seat`` sees the pot it orders
    pot_hidden = (st.pot != 0) & ~ordering
    if public_order:
        hidden &= ~is_fu  # where the face-up cards went is public knowledge
    n_coll = popcount(faceup).astype(np.int64) + st.n_down.astype(np.int64).sum(axis=1)
    n_pot = popcount(st.pot).astype(np.int64)
    w = st.winner.astype(np.int64)
    grouped = (w >= 0) & (n_coll > 0) & ~public_order
    bottom = (seat_axis == w[:, None, None]) & (j >= (size - (n_coll - n_pot)[:, None])[:, :, None])
    in_g0 = hidden & bottom & grouped[:, None, None]
    # the cards to deal: those at hidden positions, hidden pot cards, the set-aside card
    cards_bits = np.where(hidden, bit(np.where(valid, card, 0)), _U64(0))
    pile_hidden = np.bitwise_or.reduce(cards_bits.reshape(B, -1), axis=1)
    deck_all = _U64((1 << C) - 1)
    aside = deck_all & ~st.in_play
    unseen = pile_hidden | np.where(pot_hidden, st.pot, _U64(0)) | aside
    # destinations: 0 the winner's bottom part with the pot, 1 hidden places of pots, 2 the set-aside
    # card, 3 the dealt part of the piles (places no battle has taken yet)
    dealt = hidden & ~in_g0 & (slot_t == 0)
    sizes = np.zeros((B, 4), dtype=np.int64)
    sizes[:, 0] = in_g0.reshape(B, -1).sum(axis=1) + np.where(pot_hidden, n_pot, 0)
    sizes[:, 1] = hidden.reshape(B, -1).sum(axis=1) - in_g0.reshape(B, -1).sum(axis=1) - dealt.reshape(B, -1).sum(axis=1)
    sizes[:, 2] = popcount(aside)
    sizes[:, 3] = dealt.reshape(B, -1).sum(axis=1)
    known = np.zeros((B, 4), dtype=_U64)
    fu_bound = grouped | pot_hidden  # the face-up cards are in the winner's bottom part or the pot
    known[:, 0] = np.where(fu_bound, faceup & unseen, _U64(0))
    forbidden = np.zeros((B, 4), dtype=_U64)
    forbidden[:, 2] = forbidden[:, 3] = faceup | st.seen  # a card once turned is never set aside nor dealt again
    deal, _ = deal_unseen(unseen, sizes, rng, n_cards=C, forbidden=forbidden, known=known)
    # assign: hidden pile positions of group g (random order) <- cards of group g (random order)
    grp = np.where(in_g0, 0, np.where(dealt, 2, 1))
    slot_key = np.where(hidden, grp + rng.random(hidden.shape), 9.0).reshape(B, -1)
    slot_order = np.argsort(slot_key, axis=1, kind="stable")  # group-0 slots first, then pots', then dealt
    member = np.stack([bits_to_ids(deal[:, g], C) for g in (0, 1, 3)], axis=1)  # [B, 3, C]
    # group-0 cards go to the pot first when the pot is hidden: take them out of the slot dealing
    pot_cards = np.zeros(B, dtype=_U64)
    if pot_hidden.any():
        keys0 = np.where(member[:, 0], rng.random((B, C)), 9.0)
        order0 = np.argsort(keys0, axis=1, kind="stable")
        take = j[None, :] < np.where(pot_hidden, n_pot, 0)[:, None]
        chosen = np.zeros((B, C), dtype=bool)
        np.put_along_axis(chosen, order0, take, axis=1)
        chosen &= member[:, 0]
        pot_cards = np.bitwise_or.reduce(np.where(chosen, bit(j)[None, :], _U64(0)), axis=1)
        member[:, 0] &= ~chosen
    u = rng.random((B, C))
    card_key = np.where(member[:, 0], u, np.where(member[:, 1], 1 + u, np.where(member[:, 2], 2 + u, 9.0)))
    card_order = np.argsort(card_key, axis=1, kind="stable")
    n_hidden = hidden.reshape(B, -1).sum(axis=1)
    new = card.reshape(B, -1).copy()
    r, i = np.nonzero(np.arange(P * C)[None, :] < n_hidden[:, None])
    new[r, slot_order[r, i]] = card_order[r, i]
    new = new.reshape(B, P, C)
    pile = np.full_like(out.piles, EMPTY)  # the buffer outside the piles: nothing (the true one keeps played cards)
    np.put_along_axis(pile, idx, np.where(valid, new, EMPTY).astype(pile.dtype), axis=2)
    out.piles[:] = pile
    out.pot[:] = np.where(pot_hidden, pot_cards, st.pot)
    out.in_play[:] = deck_all & ~deal[:, 2]
    out.saved[:] = EMPTY
    out.saved_size[:] = 0
    # the last battle's cards in time order hold its face-down cards: scratch of the rules, cleared
    out.battle_cards[:] = EMPTY
    out.collect[:] = EMPTY
    return out
