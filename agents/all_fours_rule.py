"""A rule-based All Fours (Trinidad) player: a sensible club player, from its own seat's view only.

It reads the observation vector by slice name (``kernel.obs_layout``; ``RULES.md`` §7) and
never sees anything else. All decisions are vectorized over the batch (no Python loop over
games). How it plays (``RULES.md`` sections in brackets):

**Stand / beg (§4, beggar)** and **give one / run (§4, dealer).** It estimates, for each
suit as trump, what its hand is worth to its team this hand: High and Low (chance that no
opponent was dealt a higher / lower trump, given the unseen cards), Jack (held: kept or
hanged; unseen: partner's or an opponent's, and the chance of hanging it with higher
trumps), and Game (trump length, the ten of trumps). The beggar stands when the kicked suit
is worth enough more than the other suits (a beg gives a point or a new trump); the dealer
gives one when the kicked suit is worth more to his team than a run (a new trump, among the
other suits, plus the expected kick points), and never gives the point that would end a
match for the other side.

**Trick play (§5, §6).** High and Low are decided by the deal, so play is about the Jack
(worth 1 to its holder's team, 3 to opponents who capture it) and Game (Ace 4, King 3,
Queen 2, Jack 1, ten 10). For each legal card it estimates the probability that its team
takes the trick (the card is beaten only by unseen higher cards of the suit or unseen trumps;
each unseen card sits in a given opponent's hand with probability cards-held / cards-unseen;
a partner's winning card is judged the same way) and scores the card by

* the Game value won or lost with the trick (the cards in it, the card itself, the cards
  still to come), weighted by how much one point of Game value still matters given the
  Game values captured so far and what is left in play,
* the jack of trumps in the trick (keep ours: +1, hang theirs: +3; lose ours: -3),
* minus the worth of keeping the card for later tricks (high trumps, and trumps above the
  jack while the jack is unseen; the jack itself).

So it plays low second in hand, wins cheaply, captures tens and hangs the opponents' jack
with a higher trump, feeds tens and its jack to a partner who is sure to win, holds the jack
back until it is safe, and leads boss trumps to draw trumps and hunt an unseen jack.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from cardzoo.envs.all_fours.rules import legal_one, observe_one, step_one
from cardzoo.envs.core.bits import low_bit as _low_bit
from cardzoo.envs.core.bits import nth_bit as _nth_bit
from cardzoo.envs.core.bits import popcount as _popcount
from numba import njit

from .base import Agent, as_batch, kernel_values, rollout_model, rule_params

__all__ = ["DEFAULT_PARAMS", "AllFoursRuleAgent"]

# action ids (RULES.md §4) and the card ids of envs/core/cards.py FRENCH52: 13*suit + rank, ranks 2..A = 0..12
STAND, BEG, GIVE_ONE, RUN = 52, 53, 54, 55
_JACK = 9
_TEN = 8
_GV_RANK = np.array([0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3, 4], dtype=np.float64)  # Game value (§2)
_CARDS = np.arange(52)
_SUIT = _CARDS // 13
_RANK = _CARDS % 13
_GV = _GV_RANK[_RANK]
_U64 = np.uint64
_SUIT_BB = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=_U64)
_ABOVE_BB = np.array([(((1 << 13) - 1) & ~((1 << (r + 1)) - 1)) << (13 * s) for s, r in zip(_SUIT, _RANK)], dtype=_U64)
_ALL = _U64((1 << 52) - 1)
_ONE = _U64(1)
_M13 = _U64((1 << 13) - 1)
# 13-bit suit chunks: highest / lowest rank held (-1 / 13 when none), rank masks above / below r
_CH = np.arange(1 << 13)
_HIGHEST = np.full(1 << 13, -1, dtype=np.int64)
_LOWEST = np.full(1 << 13, 13, dtype=np.int64)
for _r in range(13):
    _HIGHEST[(_CH >> _r) & 1 == 1] = _r
for _r in range(12, -1, -1):
    _LOWEST[(_CH >> _r) & 1 == 1] = _r
_ABOVE13 = np.array([((1 << 13) - 1) & ~((1 << (r + 1)) - 1) for r in range(-1, 13)], dtype=np.int64)  # index r+1
_BELOW13 = np.array([(1 << r) - 1 for r in range(14)], dtype=np.int64)  # index r (13 = all)
_M_OPP = np.array([2, 1, 1, 0, 0], dtype=np.int64)  # opponents still to play after me, by cards in the trick
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_EXPECTED_TRUMPS = 6.0 * 12.0 / 45.0

#: tunable weights (points units unless noted); tuned by duplicate self-play against earlier versions
DEFAULT_PARAMS: dict[str, float] = {
    # decisions
    "stand_alt": 0.75,  # beggar: stand iff EV(kicked suit) - stand_alt * mean EV(other suits) > stand_margin
    "stand_margin": -0.15,
    "give_margin": 0.4,  # dealer: give iff EV(kicked) - 1 > mean EV(other suits) - kick EV + give_margin
    "kick_ev": 0.55,  # expected kick points of a run for the dealer's team
    "hang_risk": 0.21,  # chance a held jack is hanged when an opponent holds a higher trump
    "hang_catch": 0.25,  # chance of hanging an opponent's jack when holding a higher trump
    "game_trumps": 0.162,  # Game points per trump held above the expected number
    "game_ten": 0.25,  # Game points for holding the ten of trumps
    # trick play
    "future_gv": 0.9,  # expected Game value each player still to play adds to the trick
    "sigma0": 9.0,  # spread of the final Game difference: sigma0 + sigma1 * value still in play
    "sigma1": 0.525,
    "keep_stake": 6.0,  # Game value a sure winner can still capture later (times its chance of winning)
    "keep_trump": 0.09,  # worth of keeping a trump for later: keep_trump + keep_trump_rank * rank/12
    "keep_trump_rank": 0.1,
    "keep_hunter": 0.15,  # extra worth of a trump above the jack while the jack is unseen
    "keep_side_rank": 0.018,  # worth of keeping a side card: keep_side_rank * rank/12
    "keep_jack": 0.8,  # worth of keeping one's jack (times the jack points)
    "partner_take": 0.9,  # chance a partner playing last, holding a card that beats the winner, takes the trick
    "partner_rescue": 0.675,  # chance a partner still to play retakes a trick after my card is beaten
    "lead_hunt": 0.45,  # bonus for leading a boss trump while the jack is unseen
    "lead_draw": 0.05,  # bonus per trump held beyond two for leading a boss trump
}


_C = {name: i for i, name in enumerate(DEFAULT_PARAMS)}
# the bot's float parameter vector ``cfg`` (compiled code): DEFAULT_PARAMS in order, then the point values
_STAND_ALT, _STAND_MARGIN, _GIVE_MARGIN, _KICK_EV = (_C[k] for k in ("stand_alt", "stand_margin", "give_margin", "kick_ev"))
_HANG_RISK, _HANG_CATCH, _GAME_TRUMPS, _GAME_TEN = (_C[k] for k in ("hang_risk", "hang_catch", "game_trumps", "game_ten"))
_FUTURE_GV, _SIGMA0, _SIGMA1, _KEEP_STAKE = (_C[k] for k in ("future_gv", "sigma0", "sigma1", "keep_stake"))
_KEEP_TRUMP, _KEEP_TRUMP_RANK, _KEEP_HUNTER = (_C[k] for k in ("keep_trump", "keep_trump_rank", "keep_hunter"))
_KEEP_SIDE_RANK, _KEEP_JACK, _PARTNER_TAKE = (_C[k] for k in ("keep_side_rank", "keep_jack", "partner_take"))
_PARTNER_RESCUE, _LEAD_HUNT, _LEAD_DRAW = (_C[k] for k in ("partner_rescue", "lead_hunt", "lead_draw"))
_JP, _HJP, _GP = len(_C), len(_C) + 1, len(_C) + 2
# the observation offsets ``lay`` (compiled code); the card sets are hand, played_by x4, trick, kicked from 0
_L_TRUMP, _L_LED, _L_TW, _L_HS, _L_TD, _L_GC, _L_SC, _L_MATCH, _L_TARGET = range(9)
_E_PLAY = 105  # exponents of the trick-play powers: up to 2 * 52
_E_BID = 14  # exponents of the stand/beg powers: up to 13


@functools.cache
def _pow_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The powers the bot uses, computed once by numpy (``float64``, C order):

    * ``QP[h, u, e] = (1 - clip(h / u, 0, 1)) ** e``: chance that none of ``e`` unseen cards is in
      the hand of a player holding ``h`` of the ``u`` unseen cards (trick play);
    * ``PS[h, u, e] = ps ** e`` and ``PO[h, u, e] = (1 - po) ** e`` with ``pp = clip(h / u, 0, 1)``,
      ``po = 2 pp``, ``ps = clip(1 - 3 pp, 0, 1)`` (stand / beg, ``h`` = hand size).

    ``h``: 0..52 (more is the same as 52), ``u``: 1..52 (row 0 repeats 1). numpy's ``power`` (SIMD
    on many machines) and the C library's ``pow`` differ in the last bit for some inputs; the
    tables keep the bot's choices exactly those of its numpy form."""
    h = np.arange(53.0)[:, None]
    u = np.maximum(np.arange(53.0), 1.0)[None, :]
    q = np.clip(h / u, 0.0, 1.0)
    qp = (1.0 - q)[:, :, None] ** np.arange(_E_PLAY)
    pp = np.clip(np.clip(3.0 * h, 0, None) / 3.0 / u, 0, 1)
    po = 2.0 * pp
    ps = np.clip(1.0 - 3.0 * pp, 0.0, 1.0)
    e = np.arange(_E_BID)
    return (np.ascontiguousarray(qp), np.ascontiguousarray(ps[:, :, None] ** e), np.ascontiguousarray((1.0 - po)[:, :, None] ** e))


# ---------------------------------------------------------------------- compiled core (numba)
@njit(cache=True, _nrt=False)
def _set(o, off):
    """Bitboard of the 52-card set ``o[off:off + 52] > 0``."""
    x = np.uint64(0)
    for i in range(52):
        if o[off + i] > 0:
            x |= _ONE << np.uint64(i)
    return x


@njit(cache=True, _nrt=False)
def _argmax(o, off, n):
    """First index of the largest of ``o[off:off + n]`` (``numpy.argmax``)."""
    best = 0
    for i in range(1, n):
        if o[off + i] > o[off + best]:
            best = i
    return best


@njit(cache=True, _nrt=False)
def _b2f(x):
    """A bool as ``1.0`` / ``0.0`` (numpy's bool-to-float in the numpy form's products)."""
    return 1.0 if x else 0.0


@njit(cache=True, _nrt=False)
def _gv_sum(bb):
    """Total Game value (§2) of the cards of bitboard ``bb``."""
    s = 0.0
    while bb:
        s += _GV[_low_bit(bb)]
        bb &= bb - _ONE
    return s


@njit(cache=True, _nrt=False)
def _geo(ps, ps_n, n):
    """``1 + ps + ... + ps**(n-1)`` as the numpy form computed it (``ps_n = ps**n``)."""
    if ps < 1.0:
        return (1.0 - ps_n) / max(1.0 - ps, 1e-9)
    return float(n)


@njit(cache=True, _nrt=False)
def _kicked_vs_others(o, lay, cfg, PS, PO):
    """Stand / beg evaluation (§4, §6) of observation ``o``: the estimated points (my team minus
    theirs) of my hand with the kicked suit as trump, and their mean over the other three suits."""
    H = _set(o, 0)
    K = _set(o, 312)
    U = _ALL & ~(H | K)
    nu = max(_popcount(U), 1)
    ucnt = float(nu)
    hs_i = np.int64(o[lay[_L_HS]])
    hs = float(hs_i)
    others = max(3.0 * hs, 0.0)
    pp = min(max(others / 3.0 / ucnt, 0.0), 1.0)
    po = 2.0 * pp
    ps = min(max(1.0 - 3.0 * pp, 0.0), 1.0)
    hrow = min(hs_i, 52)
    jp, hjp, gp = cfg[_JP], cfg[_HJP], cfg[_GP]
    kicked = _argmax(o, lay[_L_TRUMP], 4)
    total = 0.0
    ev_t = 0.0
    for s in range(4):
        sh = np.uint64(13 * s)
        my = np.int64((H >> sh) & _M13)
        un = np.int64((U >> sh) & _M13)
        n_hi = _popcount(un & _ABOVE13[_HIGHEST[my] + 1])
        n_lo = _popcount(un & _BELOW13[_LOWEST[my]])
        n_all = _popcount(un)
        # High / Low: the best (worst) trump dealt is ours if none above (below) mine went to an
        # opponent before one went to partner, in rank order
        if my != 0:
            g = _geo(ps, PS[hrow, nu, n_hi], n_hi)
            high = PS[hrow, nu, n_hi] + pp * g - po * g
            g = _geo(ps, PS[hrow, nu, n_lo], n_lo)
            low = PS[hrow, nu, n_lo] + pp * g - po * g
        else:
            g = _geo(ps, PS[hrow, nu, n_all], n_all)
            high = (pp - po) * g
            low = (pp - po) * g
        n_above_j = _popcount(un & _ABOVE13[_JACK + 1])
        ph = cfg[_HANG_RISK] * (1.0 - PO[hrow, nu, n_above_j])
        if (my >> _JACK) & 1:
            jack = jp * (1.0 - ph) - hjp * ph
        elif (un >> _JACK) & 1:
            hold_above = _b2f((my & _ABOVE13[_JACK + 1]) != 0)
            jack = (pp - po) * jp + po * cfg[_HANG_CATCH] * hold_above * (jp + hjp)
        else:
            jack = 0.0
        ntr = float(_popcount(my))
        game = gp * (cfg[_GAME_TRUMPS] * (ntr - _EXPECTED_TRUMPS) + cfg[_GAME_TEN] * float((my >> _TEN) & 1))
        v = high + low + jack + game
        total = v if s == 0 else total + v
        if s == kicked:
            ev_t = v
    return ev_t, (total - ev_t) / 3.0


@njit(cache=True, _nrt=False)
def _play_sig(o, lay, cfg):
    """Trick play (§5): ``(d0, sig)`` of observation ``o``, the Game difference so far and the
    spread of the final one; a point of Game value is worth ``~ N(d0; 0, sig)``."""
    H = _set(o, 0)
    played = _set(o, 52) | _set(o, 104) | _set(o, 156) | _set(o, 208)
    TR = _set(o, 260)
    U = _ALL & ~(H | played | _set(o, 312))
    ucnt = float(max(_popcount(U), 1))
    held = max(float(o[lay[_L_HS]]) - float(o[lay[_L_TD]]), 0.0)
    gc = lay[_L_GC]
    d0 = float(o[gc]) - float(o[gc + 1])
    others_cards = max(3.0 * held - float(_popcount(TR)), 0.0)
    remaining = _gv_sum(H) + _gv_sum(U) * min(others_cards / ucnt, 1.0)
    return d0, cfg[_SIGMA0] + cfg[_SIGMA1] * remaining


@njit(cache=True, _nrt=False)
def _exp_arg(o, lay, cfg):
    """The argument of the one ``exp`` of trick play (computed by numpy between compiled calls)."""
    d0, sig = _play_sig(o, lay, cfg)
    r = d0 / sig
    return -0.5 * (r * r)


@njit(cache=True, _nrt=False)
def _play(o, legal, ex, lay, cfg, QP, out):
    """Trick play (§5, §6): the estimated worth of each legal card of ``legal`` (bitboard) into
    ``out`` (``float64[52]``, ``-inf`` for the others); returns the first card of highest worth.
    ``ex = exp(_exp_arg(o))``."""
    H = _set(o, 0)
    PL0, PL1, PL2, PL3 = _set(o, 52), _set(o, 104), _set(o, 156), _set(o, 208)  # me, next, partner, previous
    TR = _set(o, 260)
    U = _ALL & ~(H | PL0 | PL1 | PL2 | PL3 | _set(o, 312))
    nu = max(_popcount(U), 1)
    T = _argmax(o, lay[_L_TRUMP], 4)
    led_off = lay[_L_LED]
    leading = True
    for i in range(4):
        if o[led_off + i] > 0:
            leading = False
    L = -1 if leading else _argmax(o, led_off, 4)
    n_in = _popcount(TR)
    held_i = max(np.int64(o[lay[_L_HS]]) - np.int64(o[lay[_L_TD]]), 0)
    held = float(held_i)
    hrow = min(held_i, 52)
    m_opp = _M_OPP[min(n_in, 4)]
    n_after = max(3 - n_in, 0)
    T_bb = _SUIT_BB[T]
    TU = T_bb & U

    # the current winner of the trick
    w_rel = _argmax(o, lay[_L_TW], 4)
    PLw = PL0 if w_rel == 0 else (PL1 if w_rel == 1 else (PL2 if w_rel == 2 else PL3))
    wb = TR & PLw
    wc = _low_bit(wb) if wb != 0 else 0
    w_tr = _SUIT[wc] == T
    key_w = -1 if leading else _RANK[wc] + 13 * (_SUIT[wc] == L) + 26 * w_tr
    k_w = _popcount((_ABOVE_BB[wc] & U) | (np.uint64(0) if w_tr else TU))
    surv_w = QP[hrow, nu, k_w * m_opp]
    # play order is me, next, partner, previous: after an opponent's lead (n_in == 1) the
    # partner plays last; when I lead, third
    partner_last = n_in == 1
    if not leading and w_rel == 2:
        p_other = surv_w
    elif partner_last:
        p_other = (1.0 - QP[hrow, nu, k_w]) * cfg[_PARTNER_TAKE]
    else:
        p_other = 0.0
    # my winning card may be beaten, then retaken by a partner still to play
    rescue = cfg[_PARTNER_RESCUE] if partner_last else (0.5 * cfg[_PARTNER_RESCUE] if leading else 0.0)

    # Game: value changing hands with this trick, weighted by how much Game value still matters
    d0, sig = _play_sig(o, lay, cfg)
    w_g = 2.0 * cfg[_GP] * ex / (sig * _SQRT_2PI)
    V = _gv_sum(TR)
    future_stake = cfg[_FUTURE_GV] * float(n_after)

    # the jack of trumps (§6): ours kept +jp, ours hanged -hjp, theirs hanged +hjp, theirs kept -jp
    jcard = 13 * T + _JACK
    jbit = _ONE << np.uint64(jcard)
    j_in_trick = (TR & jbit) != 0
    j_holder = 0
    if PL0 & jbit:
        j_holder = 0
    elif PL1 & jbit:
        j_holder = 1
    elif PL2 & jbit:
        j_holder = 2
    elif PL3 & jbit:
        j_holder = 3
    ours_in_trick = j_holder == 0 or j_holder == 2
    jp, hjp = cfg[_JP], cfg[_HJP]
    future = _b2f(held > 1.0)
    j_unseen = (U & jbit) != 0
    my_tr = float(_popcount(H & T_bb))
    draw = cfg[_LEAD_DRAW] * max(my_tr - 2.0, 0.0)

    for c in range(52):
        out[c] = -np.inf
    best = 0
    best_v = -np.inf
    cards = legal & _ALL
    while cards:
        c = _low_bit(cards)
        cards &= cards - _ONE
        is_tr = _SUIT[c] == T
        # chance that c, if it becomes the trick's winner, survives the opponents after me
        k_c = _popcount((_ABOVE_BB[c] & U) | (np.uint64(0) if is_tr else TU))
        surv_c = QP[hrow, nu, k_c * m_opp]
        key_c = _RANK[c] + 13 * (_SUIT[c] == L) + 26 * is_tr
        if key_c > key_w or leading:
            pw = surv_c + (1.0 - surv_c) * rescue
        else:
            pw = p_other
        stake = V + _GV[c] + future_stake
        ev = w_g * (2.0 * pw - 1.0) * stake
        c_is_j = c == jcard
        ours = c_is_j or ours_in_trick
        win_val = jp if ours else hjp
        lose_val = -hjp if ours else -jp
        ev += _b2f(j_in_trick or c_is_j) * (pw * win_val + (1.0 - pw) * lose_val)
        # worth of keeping a card for later tricks
        rank = float(_RANK[c])
        surv_lead = QP[hrow, nu, 2 * k_c]  # chance the card would win a later trick it leads
        if is_tr:
            side = cfg[_KEEP_TRUMP] + cfg[_KEEP_TRUMP_RANK] * rank / 12.0 + cfg[_KEEP_HUNTER] * _b2f(rank > _JACK and j_unseen)
        else:
            side = cfg[_KEEP_SIDE_RANK] * rank / 12.0
        keep = w_g * cfg[_KEEP_STAKE] * surv_lead + side
        if c_is_j:
            keep = cfg[_KEEP_JACK] * jp
        ev -= future * keep
        # leading: boss trumps draw trumps and hunt an unseen jack
        boss = is_tr and k_c == 0 and leading
        ev += _b2f(boss) * (cfg[_LEAD_HUNT] * _b2f(j_unseen) * _b2f(rank > _JACK) + draw)
        out[c] = ev
        if ev > best_v:
            best_v = ev
            best = c
    return best


@njit(cache=True, _nrt=False)
def _decide(o, legal, ex, lay, cfg, QP, PS, PO, buf):
    """The bot's action for observation ``o`` (``uint8[D]``) and legal actions ``legal`` (bitboard
    of the 56 action ids); ``ex``: see :func:`_play`; ``buf``: ``float64[52]`` scratch."""
    if legal & _ALL:  # trick play (§5)
        return _play(o, legal, ex, lay, cfg, QP, buf)
    if (legal >> np.uint64(RUN)) & _ONE:  # the dealer: give one or run the pack (§4)
        ev_t, ev_alt = _kicked_vs_others(o, lay, cfg, PS, PO)
        give = ev_t - 1.0 > ev_alt - cfg[_KICK_EV] + cfg[_GIVE_MARGIN]
        if lay[_L_MATCH]:  # never hand them the match
            give = give and np.int64(o[lay[_L_SC] + 1]) + 1 < lay[_L_TARGET]
        give = give and ((legal >> np.uint64(GIVE_ONE)) & _ONE) != 0
        return GIVE_ONE if give else RUN
    if (legal >> np.uint64(STAND)) & _ONE:  # the beggar: stand or beg (§4)
        ev_t, ev_alt = _kicked_vs_others(o, lay, cfg, PS, PO)
        return STAND if ev_t - cfg[_STAND_ALT] * ev_alt > cfg[_STAND_MARGIN] else BEG
    if legal:
        return _low_bit(legal)
    return 0


@njit(cache=True, _nrt=False)
def _mask_words(mask, out):
    """The ``uint8[n, 56]`` (0/1) action masks as bitboards into ``out`` (``uint64[n]``)."""
    for i in range(mask.shape[0]):
        w = np.uint64(0)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                w |= _ONE << np.uint64(a)
        out[i] = w


@njit(cache=True, _nrt=False)
def _exp_args(obs, legal, lay, cfg, out):
    """The ``exp`` argument of each trick-play row into ``out`` (``float64[n]``; 0 elsewhere)."""
    for i in range(obs.shape[0]):
        out[i] = _exp_arg(obs[i], lay, cfg) if legal[i] & _ALL else 0.0


@njit(cache=True, _nrt=False)
def _decide_batch(obs, legal, ex, lay, cfg, QP, PS, PO, out, buf):
    """The actions of :func:`_decide` for each row into ``out`` (``int64[n]``)."""
    for i in range(obs.shape[0]):
        out[i] = _decide(obs[i], legal[i], ex[i], lay, cfg, QP, PS, PO, buf)


@njit(cache=True, _nrt=False)
def _values_batch(obs, legal, ex, lay, cfg, QP, out):
    """The card worths of :func:`_play` for each row into ``out`` (``float64[n, 52]``)."""
    for i in range(obs.shape[0]):
        _play(obs[i], legal[i], ex[i], lay, cfg, QP, out[i])


# ---------------------------------------------------------------------- rollouts (PIMC)
def _rules_key() -> str:
    """The All Fours rules' source hash: part of the rollout driver's numba cache key, so a changed
    rules file never loads a stale compiled rollout (:func:`cardzoo.envs.core.compiled.rules_key`)."""
    from cardzoo.envs.all_fours import constants, rules
    from cardzoo.envs.core.compiled import rules_key

    return rules_key(rules, constants)


def _make_advance(key: str):
    def rollout_advance(S, rows, P, seats, act, look, ret, need, obs, legal, ex, xs, lay, cfg, QP, PS, PO, buf, rand_opp, u):
        """For each game ``b`` of ``rows``: with ``act``, the bot's action from ``obs[b]``,
        ``legal[b]``, ``ex[b]`` (with ``rand_opp``, for a seat of the other team than ``seats[b]``:
        the legal action number ``floor(u[b] * n)`` of its ``n``, in id order), one rules step
        (rewards zeroed first, as the batch driver does),
        the chance code into ``need[i]`` and, when no chance is needed, the step's reward of
        ``seats[b]`` added to ``ret[b]``; with ``look``, the next observation, legal actions and
        ``exp`` argument of a live game that needs no chance."""
        key  # noqa: B018  (part of numba's cache key)
        for i in range(rows.shape[0]):
            b = rows[i]
            need[i] = 0
            if act:
                if rand_opp and (S.current_player[b] + seats[b]) % 2 == 1:
                    a = _nth_bit(legal[b], int(u[b] * _popcount(legal[b])))
                else:
                    a = _decide(obs[b], legal[b], ex[b], lay, cfg, QP, PS, PO, buf)
                for j in range(S.rewards.shape[1]):
                    S.rewards[b, j] = 0
                need[i] = step_one(S, b, a, P)
                if need[i] == 0:
                    ret[b] += S.rewards[b, seats[b]]
            if look and need[i] == 0 and not S.done[b]:
                o = obs[b]
                o[:] = 0
                observe_one(S, b, S.current_player[b], P, o)
                legal_one(S, b, P, legal[b : b + 1])
                xs[b] = _exp_arg(o, lay, cfg) if legal[b] & _ALL else 0.0

    rollout_advance.__qualname__ = "rollout_advance"
    return njit(cache=True, _nrt=False)(rollout_advance)


@functools.cache
def _advance():
    """The compiled rollout driver (compiled on first use, then loaded from numba's cache)."""
    return _make_advance(_rules_key())



class AllFoursRuleAgent(Agent):
    """Heuristic All Fours player (see the module docstring for how it plays).

    Args:
        params: overrides of :data:`DEFAULT_PARAMS` (for tuning; unknown keys raise ``ValueError``);
            fixed at construction (the compiled evaluation reads them from a vector made once).
        **env_options: the All Fours options (``RULES.md`` §8) of the games it will play; they
            fix the observation layout (``target_score``) and the point values it plays for
            (``jack_points``, ``hang_jack_points``, ``game_points``, ``episode``).

    ``act(observation uint8[B, 402], action_mask bool/int8[B, 56]) -> int64[B]``: deterministic.
    The evaluation is compiled (numba, one game at a time); its one ``exp`` per trick-play decision
    and its powers come from numpy (:func:`_pow_tables`), so its choices are bit for bit those of
    the earlier numpy form of the same formulas.

    ``rollout_opponents`` changes only :meth:`play_out`, the rollouts of a PIMC search:
    ``"rule"`` (default) plays every seat as this bot; ``"random"`` plays the two seats of the
    other team than the seat searched uniformly at random (an opponent model for searching against
    random players; ``agents/SEARCH.md``); ``None`` is ``"rule"``. A ``ValueError`` names the valid
    values (:func:`~cardzoo.agents.base.rollout_model`).
    """

    name = "all_fours/rule"
    ROLLOUT_OPPONENTS = ("rule", "random")

    def __init__(self, params: dict | None = None, *, rollout_opponents: str | None = "rule", **env_options) -> None:
        from cardzoo import envs  # agents -> envs is the allowed direction

        rollout_opponents = rollout_model(rollout_opponents, self.ROLLOUT_OPPONENTS)
        self.rollout_opponents = rollout_opponents
        if rollout_opponents != "rule":
            self.name = f"all_fours/rule (opponents {rollout_opponents} in rollouts)"
        self.kernel = envs.kernel("all_fours", **env_options)
        self.env_options = dict(env_options)
        p = rule_params(params, DEFAULT_PARAMS)
        self.p = p  # read once, into ``_cfg`` below: changing it later has no effect
        o = self.kernel.options
        self.jp = float(o["jack_points"])
        self.hjp = float(o["hang_jack_points"])
        self.gp = float(o["game_points"])
        self.match = o["episode"] == "match"
        self.target = int(o["target_score"])
        L = self.kernel.obs_layout
        self.L = L
        self._high = L.high()
        sets = ["hand", *(f"played_by[{r}]" for r in ("me", "next", "partner", "previous")), "trick", "kicked"]
        if [L[s].start for s in sets] != [52 * i for i in range(7)]:
            raise ValueError("unexpected All Fours observation layout: card sets must be hand, played_by x4, trick, kicked")
        self._cfg = np.array([float(p[k]) for k in DEFAULT_PARAMS] + [self.jp, self.hjp, self.gp], dtype=np.float64)
        self._lay = np.array(
            [L[s].start for s in ("trump", "led_suit", "trick_winner", "hand_size", "tricks_done", "game_captured", "score")]
            + [int(self.match), self.target],
            dtype=np.int64,
        )

    # ------------------------------------------------------------------ interface
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` legal actions (0 for rows with no legal action); see :class:`cardzoo.agents.base.Agent`.

        Stand / beg (§4): stand when the kicked suit is worth enough more than the other suits;
        give one / run (§4): give when the kicked suit is worth more to the dealer's team than a
        run; trick play (§5): the legal card of highest :meth:`card_values`."""
        obs, legal = self._inputs(observation, action_mask)
        ex = self._exp(obs, legal)
        out = np.zeros(obs.shape[0], dtype=np.int64)
        _decide_batch(obs, legal, ex, self._lay, self._cfg, *_pow_tables(), out, np.empty(52))
        return out

    def card_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float[n, 52]`` estimated worth (points, my team minus theirs) of playing each card,
        ``-inf`` for illegal cards; rows must be in trick play. For inspection and tests."""
        obs, legal = self._inputs(obs, mask)
        legal &= _ALL
        out = np.empty((obs.shape[0], 52))
        _values_batch(obs, legal, self._exp(obs, legal), self._lay, self._cfg, _pow_tables()[0], out)
        return out

    def _exp(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``float64[n]``: the one ``exp`` of each trick-play row, by numpy (see the class docstring)."""
        x = np.empty(obs.shape[0])
        _exp_args(obs, legal, self._lay, self._cfg, x)
        return np.exp(x)

    def _inputs(self, observation, action_mask) -> tuple[np.ndarray, np.ndarray]:
        """``(uint8[B, D] observation, uint64[B] legal-action bitboards)`` of an ``act`` call."""
        obs, mask = as_batch(observation, action_mask, self.L.size, 56)
        obs = self._raw(obs)
        if obs.dtype != np.uint8:
            if obs.size and (obs.min() < 0 or obs.max() > 255 or not np.array_equal(obs, np.rint(obs))):
                raise ValueError(
                    "observation values must be the kernel's (integers 0..255, or the [0, 1]-normalized form); "
                    f"got values in [{obs.min()}, {obs.max()}]"
                )
            obs = obs.astype(np.uint8)
        legal = np.empty(mask.shape[0], dtype=np.uint64)
        _mask_words(np.ascontiguousarray(mask).view(np.uint8), legal)
        return np.ascontiguousarray(obs), legal

    def _raw(self, obs: np.ndarray) -> np.ndarray:
        """Observation values as the kernel writes them (:func:`~cardzoo.agents.base.kernel_values`)."""
        return kernel_values(obs, self._high)

    # ------------------------------------------------------------------ rollouts (PIMC search)
    def play_out(self, kernel, st, seats: np.ndarray, rng) -> np.ndarray | None:
        """Play every live game of ``st`` to its end with this bot in every seat, compiled; return
        ``float64[N]``, the sum of the rewards of seat ``seats[b]`` of game ``b`` over those steps.

        The rollout of :class:`cardzoo.agents.search.PIMCSearch`: the same actions, states and
        rewards as stepping all live games together (``kernel.observe``, :meth:`act`,
        ``kernel.step``) until every one is over, and the same draws from ``rng`` (chance is drawn
        by ``kernel.draw_chance`` after each round of steps, in the kernel's ``CHANCE_ORDER``,
        games in ascending order). ``st`` is played in place. Returns ``None`` (nothing done) for
        a kernel that is not All Fours with the options this bot was made for.

        With ``rollout_opponents="random"`` the two seats of the other team than ``seats[b]`` play
        uniformly random legal actions instead: each round of steps first draws ``rng.random(N)``
        and such a seat takes its legal action number ``floor(u * n)`` in id order. That model has
        no generic loop: a kernel it cannot play raises ``ValueError``. ``RuntimeError`` if a game is
        still live after ``kernel.max_episode_steps`` rounds (a kernel bug: every game ends sooner)."""
        from cardzoo.envs.all_fours.kernel import AllFoursKernel

        rand_opp = self.rollout_opponents == "random"
        if type(kernel) is not AllFoursKernel or kernel.options != self.kernel.options:
            if rand_opp:
                raise ValueError(
                    "rollout_opponents='random' plays rollouts only on an All Fours kernel with the bot's own "
                    f"options {self.kernel.options}; got {type(kernel).__name__} with {getattr(kernel, 'options', None)}"
                )
            return None
        if type(self).act is not AllFoursRuleAgent.act:  # a subclass that plays otherwise: the generic loop
            return None
        advance = _advance()
        S, P = kernel.drivers.arrays(st), kernel.params
        N = st.batch_size
        seats = np.ascontiguousarray(seats, dtype=np.int64)
        ret = np.zeros(N)
        obs = np.zeros((N, self.L.size), dtype=np.uint8)
        legal = np.zeros(N, dtype=np.uint64)
        xs = np.zeros(N)
        need = np.zeros(N, dtype=np.int64)
        QP, PS, PO = _pow_tables()
        buf = np.empty(52)
        lay, cfg = self._lay, self._cfg
        rows = np.flatnonzero(~st.done)
        u = np.zeros(N)
        advance(S, rows, P, seats, False, True, ret, need, obs, legal, xs, xs, lay, cfg, QP, PS, PO, buf, False, u)
        for _ in range(kernel.max_episode_steps + 1):
            if not rows.size:
                return ret
            ex = np.exp(xs)  # numpy's exp, as act() uses
            if rand_opp:
                u = rng.random(N)
            advance(S, rows, P, seats, True, True, ret, need, obs, legal, ex, xs, lay, cfg, QP, PS, PO, buf, rand_opp, u)
            drawn = need[: rows.size]
            if drawn.any():  # chance (a redeal after an exhausted pack, §4), drawn as kernel.step draws it
                for code in kernel.CHANCE_ORDER:
                    sel = rows[drawn == code]
                    if sel.size:
                        kernel.draw_chance(st, sel, code, rng)
                        kernel.drivers.deal(st, sel, code, P)
                chanced = rows[drawn != 0]
                ret[chanced] += st.rewards[chanced, seats[chanced]]
                advance(S, chanced, P, seats, False, True, ret, need, obs, legal, xs, xs, lay, cfg, QP, PS, PO, buf, False, u)
            rows = rows[~st.done[rows]]
        raise RuntimeError(f"rollouts did not end within max_episode_steps = {kernel.max_episode_steps}")
