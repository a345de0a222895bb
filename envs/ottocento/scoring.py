"""End-of-deal scoring of Ottocento over finished games (``RULES.md`` §2.3, §6).

:func:`card_points_half` counts card points in half-points; :func:`score_deal` performs the
steps of §6 in order: (1) the discards join a pile, (2) the Matto is settled (with the gift
card of §6.1), (3) card points and captured combinations of each team's final pile, (4) the
declarations, (5) the last-trick bonus, (6) the totals. Both run the compiled functions the
kernel's rules use (:func:`cardzoo.envs.ottocento.rules.score_one`,
:func:`cardzoo.envs.ottocento.rules.card_points_half`) over the ``n`` games given.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import rules as _rules

__all__ = ["DealScore", "card_points_half", "deal_totals", "score_deal"]

_U64 = np.uint64


def card_points_half(cards) -> np.ndarray:
    """Card points of piles ``uint64[*S]`` in **half-points** (``int32[*S]``): ``2*sum(values) - cards`` (§2.3).

    A pile of an even number of cards has an integer score (half-points even); the whole pack is 174 (= 87).
    """
    x = np.asarray(cards, dtype=_U64)
    out = np.empty(x.size, dtype=np.int32)
    _rules.card_points_batch(np.ascontiguousarray(x.reshape(-1)), out)
    return out.reshape(x.shape)


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
            trick), 1 moved back with a gift card, 2 stayed with the opponents (owner team won no
            trick, or ``matto_fallback="forfeit"`` without a card), 3 captured by the opponents
            (``matto_rule="captured"``: it went with its trick, no exchange).
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
    piles = np.ascontiguousarray(piles, dtype=_U64)
    n = piles.shape[0]
    ints = np.empty((n, 8), dtype=np.int64)
    ints[:, 0] = dealer
    ints[:, 1:3] = tricks_won
    ints[:, 3] = matto_owner
    ints[:, 4] = matto_winner
    ints[:, 5] = last_winner
    declared = np.asarray(declared, dtype=np.int32)
    ints[:, 6:8] = declared
    R = _rules
    P = np.zeros(R.P_SIZE, dtype=np.int64)
    P[R.P_STRICT] = bool(natural_skip_counts_as_gap)
    P[R.P_FOLLOW] = bool(discards_follow_tricks)
    P[R.P_IN_COMBOS] = bool(discards_in_captured_combos)
    P[R.P_MATTO_CAPTURED] = matto_rule == "captured"
    P[R.P_FORFEIT] = matto_fallback == "forfeit"
    P[R.P_GIFT_LOWEST] = matto_gift == "lowest_id"
    P[R.P_LAST_BONUS] = int(last_trick_bonus)
    final = np.empty((n, 2), dtype=_U64)
    to = np.empty(n, dtype=np.int8)
    matto = np.empty(n, dtype=np.int8)
    gift = np.empty(n, dtype=np.int8)
    cards = np.empty((n, 2), dtype=np.int32)
    captured = np.empty((n, 2), dtype=np.int32)
    last = np.empty((n, 2), dtype=np.int32)
    R.score_batch(piles, np.ascontiguousarray(discards, dtype=_U64), ints, P, final, to, matto, gift, cards, captured, last)
    total = deal_totals(cards, captured, declared, last)
    return DealScore(final, to, matto, gift, cards, captured, declared, last, total)
