"""End-of-deal scoring of Ottocento, vectorised over finished games (``RULES.md`` §2.3, §6).

:func:`card_points_half` counts card points in half-points; :func:`score_deal` performs the
steps of §6 in order: (1) the discards join a pile, (2) the Matto is settled (with the gift
card of §6.1), (3) card points and captured combinations of each team's final pile, (4) the
declarations, (5) the last-trick bonus, (6) the totals. Everything is array code over the
``n`` games being scored; the only Python loop is over the 62 candidate gift cards.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.cards import popcount, unpack_bits
from .combos import combo_score
from .constants import MAT_BIT, NUMERALS_BB, SCARTINI_BB, VALUE_BB

__all__ = ["DealScore", "card_points_half", "deal_totals", "score_deal"]

_U64 = np.uint64
_ZERO = _U64(0)
_BITS = np.left_shift(_U64(1), np.arange(62, dtype=_U64))


def card_points_half(cards) -> np.ndarray:
    """Card points of piles ``uint64[*S]`` in **half-points** (``int32[*S]``): ``2*sum(values) - cards`` (§2.3).

    A pile of an even number of cards has an integer score (half-points even); the whole pack is 174 (= 87).
    """
    x = np.asarray(cards, dtype=_U64)
    total = np.zeros(x.shape, dtype=np.int32)
    for v in range(1, 6):
        total += 2 * v * popcount(x & VALUE_BB[v]).astype(np.int32)
    return total - popcount(x).astype(np.int32)


def deal_totals(cards_half, captured, declared, last) -> np.ndarray:
    """§6 step 6: ``total = cards + captured + declared + last``, in half-points (``int32``).

    ``cards_half`` is in half-points (:func:`card_points_half`); the other three are points.
    Arrays broadcast (e.g. ``[n, 2]`` per team).
    """
    return np.asarray(cards_half, dtype=np.int32) + 2 * (
        np.asarray(captured, dtype=np.int32) + np.asarray(declared, dtype=np.int32) + np.asarray(last, dtype=np.int32)
    )


class DealScore(NamedTuple):
    """Result of :func:`score_deal` for ``n`` games (team axis: 0 = team A {0, 2}, 1 = team B {1, 3}).

    Attributes:
        piles: ``uint64[n, 2]`` final piles after steps 1-2 (what card points count).
        discards_to: ``int8[n]`` team that received the discards.
        matto: ``int8[n]`` what happened to the Matto: 0 nothing to settle (its team won its
            trick, or ``matto_rule="captured"``), 1 moved back with a gift card, 2 stayed with
            the opponents (owner team won no trick, or ``matto_fallback="forfeit"`` without a card).
        gift: ``int8[n]`` card handed over for the Matto (-1 none).
        cards: ``int32[n, 2]`` card points in half-points.
        captured: ``int32[n, 2]`` captured combinations (points).
        declared: ``int32[n, 2]`` declarations (points).
        last: ``int32[n, 2]`` last-trick bonus (points).
        total: ``int32[n, 2]`` deal totals in half-points.
    """

    piles: np.ndarray
    discards_to: np.ndarray
    matto: np.ndarray
    gift: np.ndarray
    cards: np.ndarray
    captured: np.ndarray
    declared: np.ndarray
    last: np.ndarray
    total: np.ndarray


def score_deal(
    piles,
    discards,
    dealer,
    tricks_won,
    matto_owner,
    matto_winner,
    last_winner,
    declared,
    *,
    discards_follow_tricks: bool = True,
    discards_in_captured_combos: bool = True,
    matto_rule: str = "exchange_at_end",
    matto_fallback: str = "lowest_value",
    matto_gift: str = "best_for_owner",
    last_trick_bonus: int = 6,
    natural_skip_counts_as_gap: bool = False,
) -> DealScore:
    """Score ``n`` finished deals in the order of ``RULES.md`` §6.

    Args:
        piles: ``uint64[n, 2]`` cards each team won in tricks (the Matto where its trick went).
        discards: ``uint64[n]`` the dealer's two discards.
        dealer, matto_owner, matto_winner, last_winner: ``int[n]`` seats: the dealer, the seat
            dealt the Matto, the winner of the trick the Matto was played to, the winner of trick 15.
        tricks_won: ``int[n, 2]`` tricks won per team.
        declared: ``int[n, 2]`` declaration points per team (points, not half-points).
        keyword options: those of ``RULES.md`` §8 with the same names and defaults.

    Returns:
        :class:`DealScore`. Raises ``ValueError`` for an unknown option value.
    """
    if matto_rule not in ("exchange_at_end", "captured"):
        raise ValueError(f"matto_rule={matto_rule!r}; valid: 'exchange_at_end', 'captured'")
    if matto_fallback not in ("lowest_value", "forfeit"):
        raise ValueError(f"matto_fallback={matto_fallback!r}; valid: 'lowest_value', 'forfeit'")
    if matto_gift not in ("best_for_owner", "lowest_id"):
        raise ValueError(f"matto_gift={matto_gift!r}; valid: 'best_for_owner', 'lowest_id'")
    piles = np.array(piles, dtype=_U64)
    n = piles.shape[0]
    ar = np.arange(n)
    discards = np.asarray(discards, dtype=_U64)
    tricks_won = np.asarray(tricks_won)
    dteam = np.asarray(dealer, dtype=np.intp) % 2
    # step 1: the discards (§3.4)
    to = dteam.copy()
    if discards_follow_tricks:
        to = np.where(tricks_won[ar, dteam] == 0, 1 - dteam, dteam)
    piles[ar, to] |= discards
    combo_piles = piles.copy()
    if not discards_in_captured_combos:
        combo_piles[ar, to] &= ~discards
    # step 2: the Matto (§6.1)
    matto = np.zeros(n, dtype=np.int8)
    gift = np.full(n, -1, dtype=np.int8)
    if matto_rule == "exchange_at_end":
        owner = np.asarray(matto_owner, dtype=np.intp) % 2
        winner = np.asarray(matto_winner, dtype=np.intp) % 2
        away = owner != winner
        owner_won = tricks_won[ar, owner] > 0
        own_pile = piles[ar, owner]
        eligible = own_pile & SCARTINI_BB
        if matto_fallback == "lowest_value":
            for v in range(2, 6):  # no scartino: the lowest-valued captured card other than the Matto
                eligible = np.where(eligible == _ZERO, own_pile & VALUE_BB[v] & ~MAT_BIT, eligible)
        settle = away & owner_won & (eligible != _ZERO)
        matto[away & ~settle] = 2
        matto[settle] = 1
        idx = np.flatnonzero(settle)
        if idx.size:
            o, w, el = owner[idx], winner[idx], eligible[idx]
            if matto_gift == "lowest_id":
                choice = _lowest_bit(el)
            else:
                # A numeral (6-10) is in no combination, so giving one changes neither side's
                # combinations: the best possible outcome, as removing a card never raises the
                # owner's score and adding one never lowers the receiver's (tests/test_ottocento_combos.py).
                # Only cards with a lower id than the lowest eligible numeral can tie it.
                num = el & NUMERALS_BB
                n0 = _lowest_bit(num)
                upto = np.where(num != _ZERO, (_U64(2) << n0.astype(_U64)) - _U64(1), ~_ZERO)
                choice = _best_gift(combo_piles[idx, o], combo_piles[idx, w], el & upto, natural_skip_counts_as_gap)
            g = _BITS[choice]
            piles[idx, w] = (piles[idx, w] & ~MAT_BIT) | g
            piles[idx, o] = (piles[idx, o] & ~g) | MAT_BIT
            combo_piles[idx, w] = (combo_piles[idx, w] & ~MAT_BIT) | g
            combo_piles[idx, o] = (combo_piles[idx, o] & ~g) | MAT_BIT
            gift[idx] = choice
    # steps 3-6
    cards = card_points_half(piles)
    captured = combo_score(combo_piles, natural_skip_counts_as_gap)
    declared = np.asarray(declared, dtype=np.int32)
    last = np.zeros((n, 2), dtype=np.int32)
    last[ar, np.asarray(last_winner, dtype=np.intp) % 2] = last_trick_bonus
    total = deal_totals(cards, captured, declared, last)
    return DealScore(piles, to.astype(np.int8), matto, gift, cards, captured, declared, last, total)


def _lowest_bit(x: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit of each non-zero ``uint64``."""
    low = x & (~x + _U64(1))
    return (popcount(low - _U64(1))).astype(np.int64)


def _best_gift(own: np.ndarray, opp: np.ndarray, eligible: np.ndarray, strict: bool) -> np.ndarray:
    """§6.1 ``best_for_owner``: the eligible card maximising owner combo - receiver combo after the
    swap (the Matto back to the owner, the card to the receiver); ties to the lowest id.

    Every (game, candidate card) pair is scored in one call of the combination scorer."""
    rows, cards = np.nonzero(unpack_bits(eligible[:, None], 62)[:, 0])
    b = _BITS[cards]
    val = combo_score((own[rows] | MAT_BIT) & ~b, strict).astype(np.int64) - combo_score((opp[rows] & ~MAT_BIT) | b, strict)
    order = np.lexsort((cards, -val, rows))
    first = np.ones(order.size, dtype=bool)
    first[1:] = rows[order][1:] != rows[order][:-1]
    best = np.full(own.shape, -1, dtype=np.int64)
    best[rows[order][first]] = cards[order][first]
    return best
