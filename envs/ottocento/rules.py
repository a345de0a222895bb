"""Ottocento rules, compiled: one game at a time, in the order of ``RULES.md``.

Every function here is numba ``@njit(cache=True)`` over **one** game: row ``b`` of the batch
arrays of an :class:`~cardzoo.envs.ottocento.kernel.OttocentoState`, seen as the namedtuple
``S`` (:data:`~cardzoo.envs.ottocento.kernel.OttocentoArrays`, same field names). ``P`` is the
kernel's ``int64`` option vector (indices ``P_*`` below, built from the options of §8). The
core's compiled driver (:class:`cardzoo.envs.core.compiled.Drivers`) runs :func:`step_one`,
:func:`deal_one`, :func:`legal_one`, :func:`observe_one` and :func:`global_one` over the batch;
the AEC env runs the same functions at B = 1.

Chance is drawn outside (the kernel shuffles ``S.stock[b]`` in Python): :func:`step_one` returns
:data:`NEED_DEAL` when a match deals again (§1), and :func:`deal_one` deals from the shuffled
stock (§3). Inputs are trusted: the kernel and the AEC env validate actions first. No function
here allocates an array (compiled without reference counting, ``_nrt=False``).

The combination scorer (§4, :func:`combo_one`) and the end-of-deal scoring (§6,
:func:`score_one`) live here too; :mod:`cardzoo.envs.ottocento.combos` and
:mod:`cardzoo.envs.ottocento.scoring` call them for their array APIs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.bits import bit as _bit, low_bit as lowest_bit, popcount, write_set as _write_set
from ..core.teams import pay_teams, team_sign

from .constants import (
    ANG,
    BASE_KEY,
    BEG,
    CARD_SUIT,
    DECLARE,
    DECLARING,
    DISCARD,
    FORBIDDEN_DISCARDS_BB,
    MAT,
    MOO,
    MOOR_KEY,
    MOORS,
    NUMERALS_BB,
    OVER,
    PASS,
    PLAY,
    RANK_A,
    RANK_J,
    RANK_K,
    RANK_N,
    RANK_Q,
    SCARTINI_BB,
    SUIT_BB,
    SUN,
    TRUMP_SUIT,
    VALUE_BB,
    WOR,
)

# chance code returned by step_one (0: no chance needed): a match deals the next deal
NEED_DEAL = 1

# the option vector P (built by OttocentoKernel from its options, RULES.md §8)
P_DECL_MODE = 0  # 0 all_or_pass, 1 auto_all, 2 none
P_STRICT = 1  # natural_skip_counts_as_gap
P_LAST_PLAYED = 2  # moors_tie == "last_played"
P_MATCH = 3
P_TARGET_HALF = 4  # match target in half-points
P_WIN_NOW = 5  # declarations_win_immediately
P_REWARD_DIFF = 6  # reward == "point_diff"
P_MAX_DEALS = 7
P_FOLLOW = 8  # discards_follow_tricks
P_IN_COMBOS = 9  # discards_in_captured_combos
P_MATTO_CAPTURED = 10  # matto_rule == "captured"
P_FORFEIT = 11  # matto_fallback == "forfeit"
P_GIFT_LOWEST = 12  # matto_gift == "lowest_id"
P_LAST_BONUS = 13  # last_trick_bonus (points)
P_POS = 14  # 4 x 17 stock positions of the k-th seat from the dealer's right (-1: none), §3
P_SIZE = P_POS + 68

_U = np.uint64
_ONE = _U(1)
_ZERO = _U(0)


def _bb(ids) -> int:
    m = 0
    for i in ids:
        m |= 1 << int(i)
    return m


# ---------------------------------------------------------------------- tables (§2, §4)
_BASE_KEY = BASE_KEY.astype(np.int64)
_CARD_SUIT = CARD_SUIT.astype(np.int64)
_SUIT_BB = SUIT_BB.astype(np.uint64)
_TRUMPS = _U(int(SUIT_BB[TRUMP_SUIT]))
_MAT_BIT = _U(1 << MAT)
_FORBIDDEN = _U(int(FORBIDDEN_DISCARDS_BB))
_DECISION_BITS = _U((1 << DECLARE) | (1 << PASS))
_SCARTINI = _U(int(SCARTINI_BB))
_NUMERALS = _U(int(NUMERALS_BB))
_VALUE_BB = VALUE_BB.astype(np.uint64)
_ALL62 = _U((1 << 62) - 1)

_SET_BB = np.array(
    [
        _bb((ANG, WOR, BEG, MAT)),
        _bb(10 * s + RANK_K for s in range(4)),
        _bb(10 * s + RANK_Q for s in range(4)),
        _bb(10 * s + RANK_N for s in range(4)),
        _bb(10 * s + RANK_J for s in range(4)),
    ],
    dtype=np.uint64,
)
_SET3 = np.array([18, 17, 14, 13, 12], dtype=np.int64)  # §4.2 three of a kind
_SET4 = np.array([36, 34, 28, 26, 24], dtype=np.int64)  # §4.2 all four
_CONT = _U(_bb((BEG, MAT)))
_ACES_BB = _U(_bb(10 * s + RANK_A for s in range(4)))
_MOORS_BB = _U(_bb(MOORS))
_HEAD_BB = _U(_bb((WOR, SUN, MOO)))
_ANG_BIT = _U(1 << ANG)
_MOO_BIT = _U(1 << MOO)
_KING_BIT = np.array([1 << (10 * s + RANK_K) for s in range(4)], dtype=np.uint64)
_COURT_BB = np.array([_bb(10 * s + r for r in (RANK_Q, RANK_N, RANK_J)) for s in range(4)], dtype=np.uint64)
_ACE_BIT = np.array([1 << (10 * s + RANK_A) for s in range(4)], dtype=np.uint64)
_SUITSEQ_BB = _KING_BIT | _COURT_BB | _ACE_BIT
_NUM_SHIFT = _U(45)  # T5 is id 45: bits 45..56 hold T5..T16
_FFF = _U(0xFFF)


def _grande_reach_table() -> np.ndarray:
    """``int64[3, 2, 4096]``: positions of the chain T16 .. T5 reached (0..12), by free fillers
    (0-2), whether a fill at T16 is blocked (the position before it was a substitution), and
    the 12-bit pattern of numbered trumps held (bit ``j`` = T(5+j)). §4.3 Grande, walked
    position by position (a filler may not follow a filled position)."""
    out = np.zeros((3, 2, 4096), dtype=np.int64)
    for fillers in range(3):
        for blocked in range(2):
            for pat in range(4096):
                left, prev_filled, reach = fillers, bool(blocked), 0
                for j in range(11, -1, -1):  # T16 down to T5
                    if (pat >> j) & 1:
                        prev_filled = False
                    elif left > 0 and not prev_filled:
                        left -= 1
                        prev_filled = True
                    else:
                        break
                    reach += 1
                out[fillers, blocked, pat] = reach
    return out


_GRANDE_REACH = _grande_reach_table()
_REACH_MASK = np.array([((1 << r) - 1) << (12 - r) for r in range(13)], dtype=np.uint64)  # numbers reached, as 12 bits


# ---------------------------------------------------------------------- combinations (§4)
@njit(cache=True, inline="always", _nrt=False)
def _set_points(x, i):
    cnt = popcount(x & _SET_BB[i])
    return _SET3[i] if cnt == 3 else (_SET4[i] if cnt == 4 else 0)


@njit(cache=True, inline="always", _nrt=False)
def _suit_points(x, s, c):
    k = popcount(x & _COURT_BB[s])
    if (x & _KING_BIT[s]) != _ZERO and (k >= 2 or (k == 1 and c >= 1)):
        ace = 1 if (x & _ACE_BIT[s]) != _ZERO else 0
        return 5 * (1 + k + ace + c) - 5
    return 0


@njit(cache=True, _nrt=False)
def combo_parts(x, strict):
    """Score the collection ``x`` (``uint64`` bitboard over the 62 card ids) by §4.

    ``strict``: option ``natural_skip_counts_as_gap`` (§8). Returns ``(total, shown, sets, seqs)``:
    the combination score (§4.4, both doublings applied), the bitboard of the cards that score
    (what a declaration shows, §4.1), the points of each set kind (5-tuple: Tarocchi, Kings,
    Queens, Knights, Jacks, §4.2) and of each sequence (7-tuple: swords, batons, cups, coins,
    Aces, Moors, Grande, §4.3), before doubling."""
    sets = (_set_points(x, 0), _set_points(x, 1), _set_points(x, 2), _set_points(x, 3), _set_points(x, 4))
    shown = _ZERO
    n_sets = 0
    set_sum = 0
    for i in range(5):
        if sets[i] > 0:
            n_sets += 1
            set_sum += sets[i]
            shown |= x & _SET_BB[i]
    c = popcount(x & _CONT)  # contatori: each lengthens every valid sequence
    a = popcount(x & _ACES_BB)
    aces = 5 * (a + c) - 5 if (a >= 2 and a + c >= 3) else 0
    m = popcount(x & _MOORS_BB)
    moors = 5 * (m + c) - 5 if (m >= 2 and m + c >= 3) else 0
    t = popcount(x & _HEAD_BB)  # the Grande: head, then the chain T16 .. T5, then the Moors
    grande = 0
    if (x & _ANG_BIT) != _ZERO and (t >= 2 or (t == 1 and c >= 1)):
        fillers = min(max(c - 1 if t == 1 else c, 0), 2)
        blocked = 1 if (strict and t < 3 and (x & _MOO_BIT) == _ZERO) else 0
        pattern = (x >> _NUM_SHIFT) & _FFF
        reach = _GRANDE_REACH[fillers, blocked, np.int64(pattern)]
        numbers = _REACH_MASK[reach] & pattern
        moors_in = m if reach == 12 else 0
        grande = 5 * (1 + t + popcount(numbers) + moors_in + c) - 5
        shown |= _ANG_BIT | (x & _HEAD_BB) | (numbers << _NUM_SHIFT)
        if reach == 12:
            shown |= x & _MOORS_BB
    seqs = (_suit_points(x, 0, c), _suit_points(x, 1, c), _suit_points(x, 2, c), _suit_points(x, 3, c), aces, moors, grande)
    n_seqs = 0
    seq_sum = 0
    for j in range(7):
        if seqs[j] > 0:
            n_seqs += 1
            seq_sum += seqs[j]
            if j < 4:
                shown |= x & _SUITSEQ_BB[j]
    if aces > 0:
        shown |= x & _ACES_BB
    if moors > 0:
        shown |= x & _MOORS_BB
    if n_seqs > 0:
        shown |= x & _CONT
    total = set_sum * (2 if n_sets >= 3 else 1) + seq_sum * (2 if n_seqs >= 3 else 1)
    return total, shown, sets, seqs


@njit(cache=True, inline="always", _nrt=False)
def combo_one(x, strict):
    """``(total, shown)`` of :func:`combo_parts` (§4.4)."""
    total, shown, _s, _q = combo_parts(x, strict)
    return total, shown


@njit(cache=True, _nrt=False)
def combo_batch(xs, strict, total, shown, sets, seqs):
    """:func:`combo_parts` of every ``xs[i]`` (``uint64[n]``) into ``total`` (``int32[n]``), ``shown``
    (``uint64[n]``), ``sets`` (``int16[n, 5]``), ``seqs`` (``int16[n, 7]``): the declarations of
    §4.2 (sets) and §4.3 (sequences)."""
    for i in range(xs.shape[0]):
        t, sh, st, sq = combo_parts(xs[i], strict)
        total[i] = t
        shown[i] = sh
        for j in range(5):
            sets[i, j] = st[j]
        for j in range(7):
            seqs[i, j] = sq[j]


# ---------------------------------------------------------------------- end-of-deal scoring (§2.3, §6)
@njit(cache=True, inline="always", _nrt=False)
def card_points_half(x):
    """Card points of the pile ``x`` in half-points: ``2*sum(values) - cards`` (§2.3)."""
    total = 0
    for v in range(1, 6):
        total += 2 * v * popcount(x & _VALUE_BB[v])
    return total - popcount(x)


@njit(cache=True, _nrt=False)
def _best_gift(own, opp, eligible, strict, skip):
    """§6.1 ``best_for_owner``: the eligible card maximising owner combo - receiver combo after the
    swap (the Matto back to the owner, the card to the receiver); ties to the lowest id. ``own`` and
    ``opp`` are the cards that count for combinations; ``skip`` the cards that never do (the discards
    with ``discards_in_captured_combos=False``, RULES.md §11.4)."""
    best, best_val = -1, 0
    for card in range(62):
        g = _ONE << _U(card)
        if (eligible & g) == _ZERO:
            continue
        mine, _m = combo_one((own | _MAT_BIT) & ~g, strict)
        theirs, _t = combo_one((opp & ~_MAT_BIT) | (g & ~skip), strict)
        val = mine - theirs
        if best < 0 or val > best_val:
            best, best_val = card, val
    return best


@njit(cache=True, _nrt=False)
def score_one(pile0, pile1, discards, dealer, won0, won1, matto_owner, matto_winner, last_winner, decl0, decl1, P):
    """Score one finished deal in the order of §6 (options from ``P``).

    Args: the team piles won in tricks (``uint64``), the dealer's discards, the dealer's seat,
    tricks won per team, the seats dealt the Matto / winning its trick / winning trick 15, and
    the declaration points per team. Returns ``(final0, final1, discards_to, matto, gift,
    cards0, cards1, captured0, captured1, last0, last1)``: final piles after steps 1-2, the team
    given the discards, the Matto's fate (0 nothing settled, 1 moved back for ``gift``, 2 stayed
    with the opponents, 3 captured by the opponents under ``matto_rule="captured"``), the gift card (-1 none), card points in half-points, captured
    combinations and the last-trick bonus (points). Totals: ``cards + 2 * (captured + declared + last)``."""
    strict = P[P_STRICT] != 0
    won = (won0, won1)
    # step 1: the discards (§3.4)
    dteam = dealer % 2
    to = dteam
    if P[P_FOLLOW] and won[dteam] == 0:
        to = 1 - dteam
    f0 = pile0 | discards if to == 0 else pile0
    f1 = pile1 | discards if to == 1 else pile1
    c0, c1 = f0, f1
    skip = _ZERO if P[P_IN_COMBOS] else discards  # §8: the discards count card points only, in either pile
    if not P[P_IN_COMBOS]:
        if to == 0:
            c0 = c0 & ~discards
        else:
            c1 = c1 & ~discards
    # step 2: the Matto (§6.1)
    matto = 0
    gift = -1
    if not P[P_MATTO_CAPTURED]:
        owner = matto_owner % 2
        winner = matto_winner % 2
        if owner != winner:
            own_pile = f0 if owner == 0 else f1
            eligible = own_pile & _SCARTINI
            if not P[P_FORFEIT]:
                for v in range(2, 6):  # no scartino: the lowest-valued captured card other than the Matto
                    if eligible == _ZERO:
                        eligible = own_pile & _VALUE_BB[v] & ~_MAT_BIT
            if won[owner] > 0 and eligible != _ZERO:
                matto = 1
                if P[P_GIFT_LOWEST]:
                    gift = lowest_bit(eligible)
                else:
                    # A numeral (6-10) is in no combination, so giving one changes neither side's
                    # combinations: the best possible outcome, as removing a card never raises the
                    # owner's score and adding one never lowers the receiver's (tests/test_ottocento_combos.py).
                    # Only cards with a lower id than the lowest eligible numeral can tie it.
                    num = eligible & _NUMERALS
                    upto = ~_ZERO
                    if num != _ZERO:
                        upto = (_U(2) << _U(lowest_bit(num))) - _ONE
                    if owner == 0:
                        gift = _best_gift(c0, c1, eligible & upto, strict, skip)
                    else:
                        gift = _best_gift(c1, c0, eligible & upto, strict, skip)
                g = _ONE << _U(gift)
                if owner == 0:
                    f1 = (f1 & ~_MAT_BIT) | g
                    f0 = (f0 & ~g) | _MAT_BIT
                    c1 = (c1 & ~_MAT_BIT) | (g & ~skip)
                    c0 = (c0 & ~g) | _MAT_BIT
                else:
                    f0 = (f0 & ~_MAT_BIT) | g
                    f1 = (f1 & ~g) | _MAT_BIT
                    c0 = (c0 & ~_MAT_BIT) | (g & ~skip)
                    c1 = (c1 & ~g) | _MAT_BIT
            else:
                matto = 2
    elif matto_winner >= 0 and matto_owner % 2 != matto_winner % 2:
        matto = 3  # matto_rule="captured": it went with its trick to the opponents, no exchange (§8)
    # steps 3-5
    cap0, _s0 = combo_one(c0, strict)
    cap1, _s1 = combo_one(c1, strict)
    last0 = P[P_LAST_BONUS] if last_winner % 2 == 0 else 0
    last1 = P[P_LAST_BONUS] if last_winner % 2 == 1 else 0
    return f0, f1, to, matto, gift, card_points_half(f0), card_points_half(f1), cap0, cap1, last0, last1


@njit(cache=True, _nrt=False)
def score_batch(piles, discards, ints, P, final, to, matto, gift, cards, captured, last):
    """:func:`score_one` for ``n`` deals. In: ``piles`` ``uint64[n, 2]``, ``discards`` ``uint64[n]``,
    ``ints`` ``int64[n, 8]`` (dealer, tricks won A, B, Matto owner, Matto trick winner, trick-15
    winner, declared A, B). Out: ``final`` ``uint64[n, 2]``, ``to``, ``matto``, ``gift`` ``int8[n]``,
    ``cards``, ``captured``, ``last`` ``int32[n, 2]``. The end-of-deal scoring of §6 (the Matto: §6.1)."""
    for i in range(piles.shape[0]):
        f0, f1, t, m, g, k0, k1, c0, c1, l0, l1 = score_one(
            piles[i, 0], piles[i, 1], discards[i], ints[i, 0], ints[i, 1], ints[i, 2], ints[i, 3], ints[i, 4],
            ints[i, 5], ints[i, 6], ints[i, 7], P,
        )
        final[i, 0], final[i, 1] = f0, f1
        to[i], matto[i], gift[i] = t, m, g
        cards[i, 0], cards[i, 1] = k0, k1
        captured[i, 0], captured[i, 1] = c0, c1
        last[i, 0], last[i, 1] = l0, l1


@njit(cache=True, _nrt=False)
def card_points_batch(xs, out):
    """:func:`card_points_half` of every pile ``xs[i]`` (``uint64[n]``) into ``out`` (``int32[n]``):
    the card points of §2.3, in half points."""
    for i in range(xs.shape[0]):
        out[i] = card_points_half(xs[i])


# ---------------------------------------------------------------------- rewards and the end of an episode (§6, §8)
@njit(cache=True, inline="always", _nrt=False)
def _finish(S, b, winner, diff_half, P):
    """End the episode: ``winner`` team (-1 draw); reward ±1 / 0 (``win_loss``) or ``diff_half / 200``."""
    S.done[b] = True
    S.phase[b] = OVER
    S.winner[b] = winner
    if P[P_REWARD_DIFF]:
        r = diff_half / 200.0
    else:
        r = team_sign(winner)
    pay_teams(S.rewards, b, r)


@njit(cache=True, _nrt=False)  # once per deal or declaration: a plain call (compiles once, not into every driver)
def _score(S, b, P):
    """§6: score the finished deal into the ``res_*`` fields, then end the episode, or (match
    mode, §1) pay the deal and ask for the next deal (the deal passes to the right)."""
    d0 = np.int64(S.decl_points[b, 0]) + S.decl_points[b, 2]
    d1 = np.int64(S.decl_points[b, 1]) + S.decl_points[b, 3]
    f0, f1, to, matto, gift, k0, k1, cap0, cap1, l0, l1 = score_one(
        S.piles[b, 0], S.piles[b, 1], S.discards[b], np.int64(S.dealer[b]), np.int64(S.tricks_won[b, 0]),
        np.int64(S.tricks_won[b, 1]), np.int64(S.matto_owner[b]), np.int64(S.matto_winner[b]),
        np.int64(S.last_winner[b]), d0, d1, P,
    )
    t0 = k0 + 2 * (cap0 + d0 + l0)
    t1 = k1 + 2 * (cap1 + d1 + l1)
    S.final_piles[b, 0] = f0
    S.final_piles[b, 1] = f1
    S.last_discards[b] = S.discards[b]  # revealed with the result; the next deal clears discards
    S.res_cards[b, 0] = k0
    S.res_cards[b, 1] = k1
    S.res_captured[b, 0] = cap0
    S.res_captured[b, 1] = cap1
    S.res_declared[b, 0] = d0
    S.res_declared[b, 1] = d1
    S.res_last[b, 0] = l0
    S.res_last[b, 1] = l1
    S.res_total[b, 0] = t0
    S.res_total[b, 1] = t1
    S.gift[b] = gift
    S.matto_fate[b] = matto
    S.discards_to[b] = to
    S.deals_played[b] += 1
    diff = t0 - t1
    S.phase[b] = OVER
    if not P[P_MATCH]:
        _finish(S, b, 0 if diff > 0 else (1 if diff < 0 else -1), diff, P)
        return 0
    S.score[b, 0] += t0
    S.score[b, 1] += t1
    s0, s1 = S.score[b, 0], S.score[b, 1]
    winner = 0 if s0 > s1 else (1 if s1 > s0 else -1)
    if max(s0, s1) >= P[P_TARGET_HALF] and winner >= 0:
        _finish(S, b, winner, diff, P)
        return 0
    if P[P_REWARD_DIFF]:
        pay_teams(S.rewards, b, diff / 200.0)
    if S.deals_played[b] >= P[P_MAX_DEALS]:  # §8 max_deals: truncation
        S.done[b] = True
        S.truncated[b] = True
        S.phase[b] = OVER
        return 0
    S.dealer[b] = (S.dealer[b] + 1) % 4
    return NEED_DEAL


# ---------------------------------------------------------------------- the deal (§3)
@njit(cache=True, _nrt=False)  # once per deal or declaration: a plain call (compiles once, not into every driver)
def deal_one(S, b, code, P):
    """Deal from the freshly shuffled ``S.stock[b]`` (§3): 15 cards each in packets from the
    dealer's right, the dealer takes the last 2; the dealer then discards. ``code``: :data:`NEED_DEAL`."""
    for s in range(4):
        S.hands[b, s] = 0
        S.dealt[b, s] = 0
        S.played[b, s] = 0
        S.shown[b, s] = 0
        S.decl_cards[b, s] = 0
        S.voids[b, s] = 0
        S.trick_card[b, s] = -1
        S.decided[b, s] = False
        S.declared[b, s] = False
        S.decl_value[b, s] = 0
        S.decl_points[b, s] = 0
    for t in range(2):
        S.piles[b, t] = 0
        S.tricks_won[b, t] = 0
    S.discards[b] = 0
    S.trick[b] = 0
    S.led[b] = -1
    S.trick_winner[b] = -1
    S.trick_best[b] = 0
    S.n_in_trick[b] = 0
    S.tricks_done[b] = 0
    S.n_discarded[b] = 0
    S.matto_winner[b] = -1
    S.last_winner[b] = -1
    dealer = np.int64(S.dealer[b])
    for k in range(4):
        seat = (dealer + 1 + k) % 4
        bb = _ZERO
        for j in range(17):
            pos = P[P_POS + 17 * k + j]
            if pos >= 0:
                bb |= _bit(S.stock[b, pos])
        S.hands[b, seat] = bb
        S.dealt[b, seat] = bb
        if (bb & _MAT_BIT) != _ZERO:
            S.matto_owner[b] = seat
    S.phase[b] = DISCARD
    S.current_player[b] = dealer
    S.leader[b] = (dealer + 1) % 4


@njit(cache=True, inline="always", _nrt=False)
def _discard(S, b, card, P):
    """§3: the dealer puts one card face down; after the second, play (and declarations, §4) begin.
    Every hand's declaration value and shown cards are computed then (§11.1)."""
    p = S.dealer[b]
    cb = _bit(card)
    S.hands[b, p] ^= cb
    S.discards[b] |= cb
    S.n_discarded[b] += 1
    if S.n_discarded[b] < 2:
        return
    S.phase[b] = PLAY
    S.current_player[b] = S.leader[b]
    if P[P_DECL_MODE] != 2:
        for s in range(4):
            total, shown = combo_one(S.hands[b, s], P[P_STRICT] != 0)
            S.decl_value[b, s] = total
            S.decl_cards[b, s] = shown
    _enter_turn(S, b, P)


# ---------------------------------------------------------------------- declarations (§4.1)
@njit(cache=True, _nrt=False)  # once per deal or declaration: a plain call (compiles once, not into every driver)
def _declare(S, b, p, P):
    """Seat ``p`` declares: its scoring cards are shown, its points banked. With
    ``declarations_win_immediately`` (§11.5) a team reaching the target wins the match at once."""
    S.declared[b, p] = True
    S.shown[b, p] = S.decl_cards[b, p]
    S.decl_points[b, p] = S.decl_value[b, p]
    if P[P_WIN_NOW]:
        team = p % 2
        d0 = np.int64(S.decl_points[b, 0]) + S.decl_points[b, 2]
        d1 = np.int64(S.decl_points[b, 1]) + S.decl_points[b, 3]
        mine = d0 if team == 0 else d1
        if S.score[b, team] + 2 * mine >= P[P_TARGET_HALF]:
            S.score[b, 0] += 2 * d0
            S.score[b, 1] += 2 * d1
            _finish(S, b, team, 2 * (d0 - d1), P)


@njit(cache=True, inline="always", _nrt=False)
def _enter_turn(S, b, P):
    """§4.1: before his first card a player with a scoring hand declares or passes
    (``auto_all``: declares at once; ``none``: never); a hand worth 0 passes automatically."""
    p = S.current_player[b]
    if S.tricks_done[b] != 0 or S.decided[b, p]:
        return
    value = S.decl_value[b, p]
    mode = P[P_DECL_MODE]
    if mode == 0:
        if value > 0:
            S.phase[b] = DECLARING
        else:
            S.decided[b, p] = True
    else:
        S.decided[b, p] = True
        if mode == 1 and value > 0:
            _declare(S, b, p, P)


@njit(cache=True, inline="always", _nrt=False)
def _decide(S, b, a, P):
    """§4.1: DECLARE shows the scoring cards and banks the points; PASS does neither. Play goes on."""
    p = S.current_player[b]
    S.decided[b, p] = True
    if a == DECLARE:
        _declare(S, b, p, P)
    if not S.done[b]:
        S.phase[b] = PLAY


# ---------------------------------------------------------------------- trick play (§5)
@njit(cache=True, inline="always", _nrt=False)
def _play(S, b, card, P):
    """§5: play ``card`` for the seat to act; resolve a full trick, and score a finished deal.

    The trick's winner so far is kept card by card (``trick_winner`` and its ``trick_best`` key:
    trumps 40 + strength, plain cards strength + 20 if of the suit led, the Matto -1, §2.2)."""
    p = np.int64(S.current_player[b])
    cb = _bit(card)
    S.hands[b, p] ^= cb
    S.played[b, p] |= cb
    S.trick[b] |= cb
    S.trick_card[b, p] = card
    suit = _CARD_SUIT[card]
    n = np.int64(S.n_in_trick[b])
    led = np.int64(S.led[b])
    # §5 shown voids: a card off the suit led (not the Matto) shows no card of it; not a trump either shows no trump
    if led >= 0 and card != MAT and suit != led:
        v = 1 << led
        if suit != TRUMP_SUIT:
            v |= 1 << TRUMP_SUIT
        S.voids[b, p] |= v
    if led < 0 and card != MAT:  # the Matto led: the next card sets the suit
        led = suit
    S.led[b] = led
    key = _BASE_KEY[card]
    if suit == led and suit >= 0 and suit != TRUMP_SUIT:
        key += 20
    best = np.int64(S.trick_best[b])
    tie = P[P_LAST_PLAYED] != 0 and key == MOOR_KEY and best == MOOR_KEY
    win = np.int64(S.trick_winner[b])
    if n == 0 and card == MAT:  # §2.2: the Matto never wins; a lone led Matto leaves no winner yet
        S.trick_best[b] = key
    elif n == 0 or key > best or tie:
        S.trick_best[b] = key
        win = p
        S.trick_winner[b] = p
    n += 1
    S.n_in_trick[b] = n
    if n < 4:
        S.current_player[b] = (p + 1) % 4
        if S.tricks_done[b] == 0:
            _enter_turn(S, b, P)
        return 0
    # the trick is complete: the winner's team takes it, the winner leads (§5)
    S.current_player[b] = win
    team = win % 2
    S.piles[b, team] |= S.trick[b]
    if (S.trick[b] & _MAT_BIT) != _ZERO:
        S.matto_winner[b] = win
    S.tricks_won[b, team] += 1
    S.leader[b] = win
    S.trick[b] = 0
    for s in range(4):
        S.trick_card[b, s] = -1
    S.led[b] = -1
    S.trick_winner[b] = -1
    S.n_in_trick[b] = 0
    S.tricks_done[b] += 1
    if S.tricks_done[b] == 15:
        S.last_winner[b] = win
        return _score(S, b, P)
    return 0


# ---------------------------------------------------------------------- one step
@njit(cache=True, inline="always", _nrt=False)
def step_one(S, b, action, P):
    """Apply the legal ``action`` of game ``b`` (live) and advance to its next decision (§3-§6).

    Returns 0, or :data:`NEED_DEAL` when a match needs the next deal's shuffled stock (the caller
    shuffles ``S.stock[b]`` and calls :func:`deal_one`)."""
    ph = S.phase[b]
    if ph == DISCARD:
        _discard(S, b, action, P)
        return 0
    if ph == DECLARING:
        _decide(S, b, action, P)
        return 0
    if ph == PLAY:
        return _play(S, b, action, P)
    return 0


# ---------------------------------------------------------------------- legal actions (§3, §4, §5)
@njit(cache=True, inline="always", _nrt=False)
def legal_bits(S, b, P):
    """Legal actions of the seat to act in game ``b`` as a ``uint64`` bitboard (0 when over):
    the discards allowed (§3), DECLARE / PASS (§4.1), the cards that may be played (§5)."""
    if S.done[b]:
        return _ZERO
    ph = S.phase[b]
    hand = S.hands[b, S.current_player[b]]
    if ph == PLAY:
        led = S.led[b]
        if led < 0:
            return hand
        follow = hand & _SUIT_BB[led]
        matto = hand & _MAT_BIT
        if follow != _ZERO:
            return follow | matto  # §5: the suit led, or the Matto
        trumps = hand & _TRUMPS
        if trumps != _ZERO:
            return trumps | matto  # else a trump, or the Matto
        return hand  # else anything
    if ph == DISCARD:
        return hand & ~_FORBIDDEN
    if ph == DECLARING:
        return _DECISION_BITS
    return _ZERO


@njit(cache=True, inline="always", _nrt=False)
def legal_one(S, b, P, out):
    """:func:`legal_bits` into ``out`` (``uint64[1]``, zeroed by the caller): 64 actions, one word
    (discards §3, DECLARE / PASS §4.1, cards that may be played §5)."""
    out[0] = legal_bits(S, b, P)


# ---------------------------------------------------------------------- observation (§7)
@njit(cache=True, inline="always", _nrt=False)
def _write_public(S, b, p, off, out):
    """The public slices of ``observation_layout`` (41 flags, then 13 counters) from seat ``p``'s
    view (seats relative to ``p``: me, next, partner, previous; teams mine, theirs)."""
    led = S.led[b]
    out[off + (5 if led < 0 else led)] = 1
    ph = S.phase[b]
    if ph < OVER:
        out[off + 6 + ph] = 1
        out[off + 17 + (S.current_player[b] - p) % 4] = 1
    out[off + 9 + (S.dealer[b] - p) % 4] = 1
    out[off + 13 + (S.leader[b] - p) % 4] = 1
    tw = S.trick_winner[b]
    if tw >= 0:
        out[off + 21 + (tw - p) % 4] = 1
    if ((S.played[b, 0] | S.played[b, 1] | S.played[b, 2] | S.played[b, 3]) & _MAT_BIT) != _ZERO:
        out[off + 25 + (S.matto_owner[b] - p) % 4] = 1
    mw = S.matto_winner[b]
    if mw >= 0:
        out[off + 29 + (mw - p) % 4] = 1
    c = off + 41
    out[c] = S.tricks_done[b]
    odd = p % 2
    for r in range(4):
        s = (p + r) % 4
        out[off + 33 + r] = S.decided[b, s]
        out[off + 37 + r] = S.declared[b, s]
        out[c + 1 + r] = popcount(S.hands[b, s])
        out[c + 7 + r] = min(np.int64(S.decl_points[b, s]), 255)
    out[c + 5] = S.tricks_won[b, odd]
    out[c + 6] = S.tricks_won[b, 1 - odd]
    # half-points -> units of 4 points, clipped to 0..255 (a score below 0 needs last_trick_bonus < 0, §11.6)
    out[c + 11] = max(min(np.int64(S.score[b, odd]) // 8, 255), 0)
    out[c + 12] = max(min(np.int64(S.score[b, 1 - odd]) // 8, 255), 0)


@njit(cache=True, inline="always", _nrt=False)
def observe_one(S, b, seat, P, out):
    """Seat ``seat``'s observation of game ``b`` into ``out`` (``uint8[1046]``, zeroed), laid out as
    :func:`cardzoo.envs.ottocento.observation.observation_layout` (§7: only what the seat may know)."""
    p = np.int64(seat)
    _write_set(out, 0, S.hands[b, p])
    if S.dealer[b] == p:
        _write_set(out, 62, S.discards[b])
    trick = S.trick[b]
    for r in range(4):
        s = (p + r) % 4
        _write_set(out, 124 + 62 * r, S.hands[b, s] & S.shown[b, s])
        _write_set(out, 372 + 62 * r, S.played[b, s])
        _write_set(out, 620 + 62 * r, S.played[b, s] & trick)
    odd = p % 2
    _write_set(out, 868, S.piles[b, odd])
    _write_set(out, 930, S.piles[b, 1 - odd])
    _write_public(S, b, p, 992, out)


@njit(cache=True, inline="always", _nrt=False)
def global_one(S, b, P, out):
    """Game ``b``'s perfect-information vector into ``out`` (``uint8[798]``, zeroed), laid out as
    :func:`cardzoo.envs.ottocento.observation.state_layout` (absolute seats; team A = "mine"): the
    hands and discards §7 hides from the seats, for a perfect-information critic."""
    for s in range(4):
        _write_set(out, 62 * s, S.hands[b, s])
        _write_set(out, 310 + 62 * s, S.played[b, s])
    _write_set(out, 248, S.discards[b])
    _write_set(out, 558, S.trick[b])
    _write_set(out, 620, S.piles[b, 0])
    _write_set(out, 682, S.piles[b, 1])
    _write_public(S, b, 0, 744, out)
