"""Avinas rules, compiled: one game at a time, in the order of ``RULES.md``.

Every function here is numba ``@njit(cache=True)`` over **one** game: row ``b`` of the batch
arrays of an :class:`~cardzoo.envs.avinas.kernel.AvinasState`, seen as the namedtuple ``S``
(:data:`~cardzoo.envs.avinas.kernel.AvinasArrays`, same field names). ``P`` is the kernel's
``int64`` option vector (indices ``P_*`` below, built from the options of ``RULES.md`` §8).
The core's compiled frame (:class:`cardzoo.envs.core.compiled.CompiledKernel`) runs
:func:`step_one`, :func:`deal_one`, :func:`legal_one`, :func:`observe_one` and :func:`global_one`
over the batch; the AEC env runs the same functions at B = 1.

Chance is drawn outside (the kernel shuffles ``S.stock[b]`` in Python): :func:`step_one` returns
a chance code where a new deal is needed and :func:`deal_one` deals from the shuffled stock. The
codes tell where the deal came from, so the kernel draws the shuffles in the order the numpy
kernel drew them (trick play, then the calls, then the declarer's stop): :data:`NEED_DEAL_PLAY`
(a match's next deal after the last trick), :data:`NEED_REDEAL` (a throw-in, §4.2.2, chance kind
``"redeal"``), :data:`NEED_DEAL_STOP` (a match's next deal after a stop, §4.2.5).
Inputs are trusted: the kernel and the AEC env validate actions first.

Legal actions (83 of them) are written as two ``uint64`` words: action ``a`` is bit ``a % 64``
of word ``a // 64`` (word 0: the cards face up 0..31 and face down 32..63; word 1: 64..82).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.bits import bit as _bit, popcount as _popcount, write_set as _write_set
from ..core.teams import pay_teams, team_sign

from .constants import (
    CALLING,
    CONTINUE,
    DECLARE,
    DECLARING,
    KEY_K,
    KEY_POS,
    KNOCK,
    KNOCKING,
    NO_KNOCK,
    NO_SEVENS,
    OVER,
    PASS,
    PLAIN_BB,
    PLAIN_STRENGTH,
    PLAY,
    POINTS,
    SEVENS,
    SIG_NOT_VALUABLE,
    SIG_VALUABLE,
    SIGNAL,
    STOP,
    STOPPING,
    TRUMP_BB,
    TRUMP_STRENGTH,
    CALL1,
    FACEDOWN,
)

# chance codes returned by step_one (0: none), in the order the kernel draws them (CHANCE_ORDER)
NEED_DEAL_PLAY, NEED_REDEAL, NEED_DEAL_STOP = 1, 2, 3
CHANCE_ORDER = (NEED_DEAL_PLAY, NEED_REDEAL, NEED_DEAL_STOP)

# the option vector P (built by AvinasKernel from its options, RULES.md §8)
P_MATCH, P_REWARD_WIN = 0, 1
P_KNOCK_BACK = 2  # 0 after_knock, 1 always, 2 never
P_RAM_GRADED, P_PIP_GRADED, P_CALL_SUIT, P_HONESTY_MASK = 3, 4, 5, 6
P_SIGNAL = 7  # facedown_signal: 0 auto, 1 free, 2 none
P_VMIN, P_NO7_STOP, P_EVERY_LEAD = 8, 9, 10
P_PIP_LIMIT, P_MAX_THROW_INS, P_MAX_DEALS = 11, 12, 13
P_PIPS_HIGH = 14  # clip of the pips in observations (the layout's high)
P_SIZE = 15

TRUMPS_LED = 4  # led "suit" code for a trump (or face-down) lead

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_TRUMP_BB = TRUMP_BB.astype(np.uint64)
_PLAIN_BB = PLAIN_BB.astype(np.uint64)
_TS = TRUMP_STRENGTH.astype(np.int64)
_PS = PLAIN_STRENGTH.astype(np.int64)
_POINTS = POINTS.astype(np.int64)
_KEY_POS = KEY_POS.astype(np.int64)
_KEY_K = KEY_K.astype(np.int64)
_KNOCK_ORDER = np.array([0, 2, 1, 3, 0], dtype=np.int64)  # declarer, partner, left, right (§4.1)
_KNOCK_BITS = np.uint64((1 << (KNOCK - 64)) | (1 << (NO_KNOCK - 64)))
_STOP_BITS = np.uint64((1 << (CONTINUE - 64)) | (1 << (STOP - 64)))
_SIG_BITS = np.uint64((1 << (SIG_VALUABLE - 64)) | (1 << (SIG_NOT_VALUABLE - 64)))



@njit(cache=True, inline="always", _nrt=False)
def _count_bb(P, s):
    """The cards a call counts in suit ``s`` (§4.2: its 14 trumps, or with ``call_count="suit"`` its 6 plain cards)."""
    return _PLAIN_BB[s] if P[P_CALL_SUIT] else _TRUMP_BB[s]


@njit(cache=True, inline="always", _nrt=False)
def _trump_lead_duty(S, b, P):
    """Whether a leader holding a trump must lead one to the next trick (§5: trick 2; every lead
    from trick 2 on with ``trump_lead_rule="every_lead"``); trick 1 is the declarer's trump lead."""
    k = S.tricks_done[b]
    return k >= 1 if P[P_EVERY_LEAD] else k == 1


# ---------------------------------------------------------------------- the deal (§3)
@njit(cache=True, _nrt=False)  # once per deal or a rare decision: a plain call (compiles once, not into every driver)
def deal_one(S, b, code, P):
    """Deal 8 cards each in packets of 4 from the freshly shuffled ``S.stock[b]``, expose the key
    cards and start the sevens game's knocks or the no-sevens game's calls (§3, §4). The same for
    every chance ``code`` (only the kind of the shuffle differs)."""
    d = S.dealer[b]
    for k in range(4):
        seat = (d + 1 + k) % 4
        bb = _ZERO
        for r in range(2):
            for j in range(4):
                bb |= _bit(S.stock[b, 16 * r + 4 * k + j])
        S.hands[b, seat] = bb
        S.dealt[b, seat] = bb
    for s in range(4):
        S.played[b, s] = 0
        S.voids[b, s] = 0
        S.knocked[b, s] = False
        S.calls[b, s] = -1
        S.trick_card[b, s] = -1
    for t in range(2):
        S.points[b, t] = 0
        S.tricks_won[b, t] = 0
    S.lied[b] = False
    S.stopped[b] = False
    S.trick[b] = 0
    S.n_in_trick[b] = 0
    S.tricks_done[b] = 0
    S.high_call[b] = 0
    S.n_calls[b] = 0
    S.knock_stage[b] = 0
    S.trick_best[b] = 0
    S.led[b] = -1
    S.trick_winner[b] = -1
    S.fd_seat[b] = -1
    S.signal[b] = -1
    # §3.3 exposure: the opponents' key cards always, the dealer's side's only if a seven
    exposed = _ZERO
    seen = _ZERO
    last = -1
    for i in range(8):
        card = S.stock[b, _KEY_POS[i]]
        seven = card % 8 == 0
        if seven:
            last = i  # the last seven in deal order declares (§9.3)
        if seven or _KEY_K[i] % 2 == 0:
            exposed |= _bit(card)
        else:
            seen |= _bit(card)
    S.exposed[b] = exposed
    S.dealer_seen[b] = seen
    if last >= 0:
        decl = (d + 1 + _KEY_K[last]) % 4
        S.game[b] = SEVENS
        S.declarer[b] = decl
        S.trump[b] = S.stock[b, _KEY_POS[last]] // 8
        S.phase[b] = KNOCKING
        S.current_player[b] = decl
    else:
        S.game[b] = NO_SEVENS
        S.declarer[b] = -1
        S.trump[b] = -1
        S.phase[b] = CALLING
        S.current_player[b] = (d + 1) % 4


# ---------------------------------------------------------------------- helpers
@njit(cache=True, inline="always", _nrt=False)
def _truncate(S, b):
    """A safety cap (§8 ``max_throw_ins`` / ``max_deals``): the episode ends; rewards paid this step stand."""
    S.done[b] = True
    S.truncated[b] = True
    S.phase[b] = OVER


@njit(cache=True, inline="always", _nrt=False)
def _start_play(S, b):
    S.phase[b] = PLAY
    S.leader[b] = S.declarer[b]
    S.current_player[b] = S.declarer[b]


# ---------------------------------------------------------------------- §4.1 knocks
@njit(cache=True, _nrt=False)  # once per deal or a rare decision: a plain call (compiles once, not into every driver)
def _knock(S, b, a, P):
    """§4.1: the declarer, then his partner, may knock; a knock-back goes to the defenders (``knock_back``)."""
    stage = S.knock_stage[b]
    decl = S.declarer[b]
    seat = (decl + _KNOCK_ORDER[stage]) % 4
    k = a == KNOCK
    S.knocked[b, seat] = k
    decl_knocked = S.knocked[b, decl] or S.knocked[b, (decl + 2) % 4]
    decl_done = stage == 1 or (stage == 0 and k)
    kb = P[P_KNOCK_BACK]
    if kb == 2:
        to_def = False
    elif kb == 1:
        to_def = decl_done
    else:
        to_def = decl_done and decl_knocked
    if stage == 0:
        nxt = (2 if to_def else 4) if k else 1
    elif stage == 1:
        nxt = 2 if to_def else 4
    elif stage == 2:
        nxt = 4 if k else 3
    else:
        nxt = 4
    S.knock_stage[b] = min(nxt, 3)
    S.current_player[b] = (decl + _KNOCK_ORDER[nxt]) % 4
    if nxt == 4:
        _start_play(S, b)


# ---------------------------------------------------------------------- §6 scoring
@njit(cache=True, _nrt=False)  # once per deal or a rare decision: a plain call (compiles once, not into every driver)
def _score_deal(S, b, P, code):
    """§6: who won the deal, its rams (sevens game) or pips (no-sevens game), the rewards, and the
    end of the match (§6.4). Returns ``code`` when a match needs its next deal, else 0."""
    decl = S.declarer[b]
    dteam = decl % 2
    sev = S.game[b] == SEVENS
    decl_knock = S.knocked[b, decl] or S.knocked[b, (decl + 2) % 4]
    nk = 0
    for s in range(4):
        if S.knocked[b, s]:
            nk += 1
    if sev and decl_knock:
        win = S.tricks_won[b, dteam] == 8
    else:
        win = S.points[b, dteam] >= 61
    if not sev and S.lied[b]:
        win = False
    loser = 1 - dteam if win else dteam
    lpts = S.points[b, loser]
    ltricks = S.tricks_won[b, loser]
    # rams (§6.2)
    if P[P_RAM_GRADED]:
        base = 1 if decl_knock else (3 if ltricks == 0 else (2 if lpts <= 30 else 1))
    else:
        base = 1
    rams = base << nk
    # pips (§6.3)
    if P[P_PIP_GRADED]:
        pips = 6 if ltricks == 0 else (4 if lpts <= 30 else 2)
    else:
        pips = 2
    S.last_loser[b] = loser
    S.last_penalty[b] = rams if sev else pips
    S.last_game[b] = S.game[b]
    S.last_lied[b] = S.lied[b]
    S.last_stopped[b] = S.stopped[b]
    S.last_declarer[b] = decl  # public (§7), kept for infos: a match deals the next deal in this step
    S.last_trump[b] = S.trump[b]
    for s in range(4):
        S.last_knocked[b, s] = S.knocked[b, s]
    for t in range(2):
        S.last_points[b, t] = S.points[b, t]
        S.last_tricks[b, t] = S.tricks_won[b, t]
    S.throw_ins[b] = 0
    if sev:
        S.ram_balance[b] += rams if loser == 0 else -rams
        u = np.float64(rams)
    else:
        S.pips[b, loser] += pips
        u = np.float64(pips / 2.0)
    if P[P_REWARD_WIN]:
        u = np.float64(1.0)
    sign = np.float64(-1.0) if loser == 0 else np.float64(1.0)  # team A's view
    if not P[P_MATCH]:
        pay_teams(S.rewards, b, sign * u)
        S.done[b] = True
        S.phase[b] = OVER
        return 0
    if not P[P_REWARD_WIN]:
        pay_teams(S.rewards, b, sign * u)
    S.deals[b] += 1
    # §6.4 end of the match
    lim = P[P_PIP_LIMIT]
    p0 = S.pips[b, 0]
    p1 = S.pips[b, 1]
    if p0 >= lim or p1 >= lim:
        big = 0 if p0 >= lim else 1
        other_zero = S.pips[b, 1 - big] == 0
        rb = S.ram_balance[b]
        if other_zero:
            mloser = big
        elif rb != 0:
            mloser = 0 if rb > 0 else 1
        else:
            mloser = 0 if p0 > p1 else 1
        S.winner[b] = 1 - mloser
        S.clean[b] = other_zero
        S.done[b] = True
        S.phase[b] = OVER
        if P[P_REWARD_WIN]:
            pay_teams(S.rewards, b, team_sign(S.winner[b]))
        return 0
    if S.deals[b] >= P[P_MAX_DEALS]:
        _truncate(S, b)
        return 0
    S.dealer[b] = (S.dealer[b] + 1) % 4
    return code


# ---------------------------------------------------------------------- §4.2 calls, trumps, honesty, stop
@njit(cache=True, _nrt=False)  # once per deal or a rare decision: a plain call (compiles once, not into every driver)
def _call(S, b, a, P):
    """§4.2.1 a call or a pass; after four, the declarer names trumps, or the deal is thrown in (§4.2.2)."""
    p = S.current_player[b]
    n = 0 if a == PASS else a - CALL1 + 1
    S.calls[b, p] = n
    if n > 0:
        S.high_call[b] = n
        S.declarer[b] = p
    S.n_calls[b] += 1
    S.current_player[b] = (p + 1) % 4
    if S.n_calls[b] < 4:
        return 0
    if S.high_call[b] > 0:
        S.phase[b] = DECLARING
        S.current_player[b] = S.declarer[b]
        return 0
    # thrown in: the next dealer deals (no score)
    S.throw_ins[b] += 1
    if S.throw_ins[b] >= P[P_MAX_THROW_INS]:
        _truncate(S, b)
        return 0
    S.dealer[b] = (S.dealer[b] + 1) % 4
    return NEED_REDEAL


@njit(cache=True, _nrt=False)  # once per deal or a rare decision: a plain call (compiles once, not into every driver)
def _declare(S, b, a, P):
    """§4.2.3-4 the declarer names trumps; the referee's honesty check sets ``lied``."""
    t = a - DECLARE
    S.trump[b] = t
    held = _popcount(S.hands[b, S.declarer[b]] & _count_bb(P, t))
    S.lied[b] = held < S.high_call[b]
    _start_play(S, b)


# ---------------------------------------------------------------------- §5 trick play
@njit(cache=True, inline="always", _nrt=False)
def _play(S, b, a, P):
    """Play card ``a`` (face down for ``a >= 32``) for the seat to act (§5); resolve a full trick,
    offer the declarer his stop (§4.2.5) and score a finished deal (§6)."""
    p = S.current_player[b]
    fd = a >= FACEDOWN
    card = a & 31
    cb = _bit(card)
    S.hands[b, p] ^= cb
    S.played[b, p] |= cb
    S.trick[b] |= cb
    S.trick_card[b, p] = card
    ts = _TS[S.trump[b], card]
    suit = card // 8
    n = S.n_in_trick[b]
    first = n == 0
    old = S.led[b]
    # §5 shown voids: not following a trump (or face-down) lead shows no trump; not following a
    # plain suit shows none of its plain cards; a face-down lead, or a plain lead where a leader
    # holding a trump must lead one (trick 2, every lead from trick 2 with every_lead), is open
    # only to a leader without trumps
    v = 0
    if (not first and old == TRUMPS_LED and ts == 0) or (first and (fd or (ts == 0 and _trump_lead_duty(S, b, P)))):
        v |= 1 << TRUMPS_LED
    if not first and old >= 0 and old < TRUMPS_LED and (suit != old or ts > 0):
        v |= 1 << old
    if v:
        S.voids[b, p] |= np.uint8(v)
    if first:
        led = TRUMPS_LED if (fd or ts > 0) else suit
        S.led[b] = led
    else:
        led = old
    if fd:
        key = 0
    elif ts > 0:
        key = 20 + ts
    elif suit == led:
        key = _PS[card]
    else:
        key = 0
    if first or key > S.trick_best[b]:
        S.trick_best[b] = key
        S.trick_winner[b] = p
    n += 1
    S.n_in_trick[b] = n
    S.current_player[b] = (p + 1) % 4
    if fd:
        S.fd_seat[b] = p
        mode = P[P_SIGNAL]
        if mode == 0:
            S.signal[b] = 1 if _POINTS[card] >= P[P_VMIN] else 0
        elif mode == 1:
            S.phase[b] = SIGNAL
            S.current_player[b] = p
    if n < 4:
        return 0
    w = S.trick_winner[b]
    team = w % 2
    pts = 0
    for s in range(4):
        pts += _POINTS[S.trick_card[b, s]]
        S.trick_card[b, s] = -1
    S.points[b, team] += pts
    S.tricks_won[b, team] += 1
    S.leader[b] = w
    S.current_player[b] = w
    S.trick[b] = 0
    S.led[b] = -1
    S.trick_winner[b] = -1
    S.trick_best[b] = 0
    S.n_in_trick[b] = 0
    S.fd_seat[b] = -1
    S.signal[b] = -1
    S.tricks_done[b] += 1
    if S.tricks_done[b] == 8:
        return _score_deal(S, b, P, np.int64(NEED_DEAL_PLAY))  # run-time int: one compile of _score_deal
    if P[P_NO7_STOP] and S.game[b] == NO_SEVENS:
        S.phase[b] = STOPPING
        S.current_player[b] = S.declarer[b]
    return 0


# ---------------------------------------------------------------------- one step
@njit(cache=True, inline="always", _nrt=False)
def step_one(S, b, action, P):
    """Apply the legal ``action`` of game ``b`` (live) and advance to its next decision (§4-§6).

    Returns 0, or a chance code (:data:`NEED_DEAL_PLAY`, :data:`NEED_REDEAL`, :data:`NEED_DEAL_STOP`)
    when the game needs a shuffled stock to go on (the caller shuffles ``S.stock[b]`` and calls
    :func:`deal_one`)."""
    ph = S.phase[b]
    if ph == PLAY:
        return _play(S, b, action, P)
    if ph == KNOCKING:
        _knock(S, b, action, P)
        return 0
    if ph == CALLING:
        return _call(S, b, action, P)
    if ph == DECLARING:
        _declare(S, b, action, P)
        return 0
    if ph == SIGNAL:  # §5 free signal: the face-down leader tells his partner
        S.signal[b] = 1 if action == SIG_VALUABLE else 0
        S.phase[b] = PLAY
        S.current_player[b] = (S.current_player[b] + 1) % 4
        return 0
    if ph == STOPPING:  # §4.2.5 the declarer stops (the deal is scored now) or continues
        if action == STOP:
            S.stopped[b] = True
            return _score_deal(S, b, P, np.int64(NEED_DEAL_STOP))
        S.phase[b] = PLAY
        S.current_player[b] = S.leader[b]
    return 0


# ---------------------------------------------------------------------- legal actions (§4, §5)
@njit(cache=True, _nrt=False)  # a plain call: the core calls it from four drivers
def legal_one(S, b, P, out):
    """Legal actions of the seat to act in game ``b`` into ``out`` (``uint64[2]``, zeroed by the
    caller): action ``a`` is bit ``a % 64`` of word ``a // 64``; nothing set when the game is over.
    What is legal: the decisions before the first trick (§4) and the cards that may be played (§5)."""
    if S.done[b]:
        return
    ph = S.phase[b]
    p = S.current_player[b]
    hand = S.hands[b, p]
    if ph == PLAY:
        trumps = hand & _TRUMP_BB[max(S.trump[b], 0)]
        if S.n_in_trick[b] == 0:  # §5 leads
            if S.tricks_done[b] == 0:  # trick 1: a trump
                out[0] = trumps
                return
            must = _trump_lead_duty(S, b, P)
            if must and trumps != 0:
                out[0] = trumps
            elif must:  # no trump: lead face up or face down
                out[0] = hand | (hand << np.uint64(32))
            else:
                out[0] = hand
            return
        led = S.led[b]  # §5 follows
        f = trumps if led == TRUMPS_LED else hand & _PLAIN_BB[led]
        out[0] = f if f != 0 else hand
        return
    if ph == KNOCKING:
        out[1] = _KNOCK_BITS
        return
    if ph == STOPPING:
        out[1] = _STOP_BITS
        return
    if ph == SIGNAL:
        out[1] = _SIG_BITS
        return
    mask = P[P_HONESTY_MASK] != 0
    high = S.high_call[b]
    if ph == CALLING:  # §4.2.1: PASS, or a call above the highest (with honesty="mask": up to the best count)
        top = 8
        if mask:
            top = 0
            for s in range(4):
                top = max(top, _popcount(hand & _count_bb(P, s)))
        bits = _ONE  # PASS
        for n in range(high + 1, top + 1):
            bits |= _ONE << np.uint64(n)
        out[1] = bits
        return
    if ph == DECLARING:  # §4.2.3: a suit he holds a trump of (with honesty="mask": one he called truly)
        bits = _ZERO
        for s in range(4):
            if hand & _TRUMP_BB[s] and (not mask or _popcount(hand & _count_bb(P, s)) >= high):
                bits |= _ONE << np.uint64(DECLARE - 64 + s)
        out[1] = bits


# ---------------------------------------------------------------------- observation (§7)
@njit(cache=True, inline="always", _nrt=False)
def _rel(s, p):
    return (s - p) & 3


@njit(cache=True, inline="always", _nrt=False)
def _write_public(S, b, p, off, out, omniscient, P):
    """The public slices of ``observation_layout`` (0/1 slices, then the counters) from seat
    ``p``'s view (seats relative to ``p``, teams "mine" first). ``omniscient``: the state vector."""
    live = not S.done[b]
    ph = S.phase[b]
    out[off + S.game[b]] = 1
    if ph < OVER:
        out[off + 2 + ph] = 1
    t = S.trump[b]
    if t >= 0:
        out[off + 8 + t] = 1
    led = S.led[b]
    if led >= 0:
        out[off + 12 + led] = 1
    if S.dealer[b] >= 0:
        out[off + 17 + _rel(S.dealer[b], p)] = 1
    if S.declarer[b] >= 0:
        out[off + 21 + _rel(S.declarer[b], p)] = 1
    if live and (ph == PLAY or ph == SIGNAL or ph == STOPPING) and S.leader[b] >= 0:
        out[off + 25 + _rel(S.leader[b], p)] = 1
    if live and S.current_player[b] >= 0:
        out[off + 29 + _rel(S.current_player[b], p)] = 1
    if S.trick_winner[b] >= 0:
        out[off + 33 + _rel(S.trick_winner[b], p)] = 1
    fd = S.fd_seat[b]
    if fd >= 0:
        out[off + 37 + _rel(fd, p)] = 1
    for s in range(4):
        if S.knocked[b, s]:
            out[off + 41 + _rel(s, p)] = 1
    sig = S.signal[b]
    if sig >= 0 and fd >= 0 and (omniscient or (fd + 2) % 4 == p):  # the signal: the leader's partner only
        out[off + 46 - sig] = 1
    ll = S.last_loser[b]
    if ll >= 0:
        out[off + 47 + ((ll - p) & 1)] = 1
    if S.last_game[b] == 0:
        out[off + 49] = 1
    if S.last_lied[b]:
        out[off + 50] = 1
    if S.last_stopped[b]:
        out[off + 51] = 1
    c = off + 52
    for r in range(4):
        out[c + r] = S.calls[b, (p + r) % 4] + 1
    out[c + 4] = S.high_call[b]
    out[c + 5] = S.tricks_done[b]
    mine = p % 2
    rb = S.ram_balance[b]
    rams0 = min(max(rb, 0), 64)
    rams1 = min(max(-rb, 0), 64)
    out[c + 6] = S.tricks_won[b, mine]
    out[c + 7] = S.tricks_won[b, 1 - mine]
    out[c + 8] = S.points[b, mine]
    out[c + 9] = S.points[b, 1 - mine]
    out[c + 10] = rams0 if mine == 0 else rams1
    out[c + 11] = rams1 if mine == 0 else rams0
    out[c + 12] = min(S.pips[b, mine], P[P_PIPS_HIGH])
    out[c + 13] = min(S.pips[b, 1 - mine], P[P_PIPS_HIGH])
    out[c + 14] = min(S.deals[b], 255)
    out[c + 15] = min(S.throw_ins[b], 255)
    out[c + 16] = min(S.last_penalty[b], 64)


@njit(cache=True, inline="always", _nrt=False)
def observe_one(S, b, seat, P, out):
    """Seat ``seat``'s observation of game ``b`` into ``out`` (``uint8[421]``, zeroed), laid out as
    :func:`cardzoo.envs.avinas.observation.observation_layout` (§7: only what the seat may know)."""
    p = seat
    fd = S.fd_seat[b]
    hidden = _ZERO  # the face-down card of the current trick: hidden from all but its leader
    if fd >= 0 and fd != p:
        hidden = _bit(S.trick_card[b, fd])
    keep = ~hidden
    dealer = S.dealer[b]
    ds = S.dealer_seen[b]
    mine = S.exposed[b] | (ds if dealer == p else _ZERO)
    _write_set(out, 0, S.hands[b, p])
    for r in range(4):
        s = (p + r) % 4
        _write_set(out, 32 * (1 + r), S.played[b, s] & keep)
        held = S.hands[b, s] | (hidden if s == fd else _ZERO)  # a face-down card is still held until its trick ends
        _write_set(out, 32 * (6 + r), held & mine)
    _write_set(out, 160, S.trick[b] & keep)
    if (dealer + 2) % 4 == p:
        _write_set(out, 320, S.hands[b, p] & ds)
    _write_public(S, b, p, 352, out, False, P)


@njit(cache=True, _nrt=False)  # once per deal or a rare decision: a plain call (compiles once, not into every driver)
def global_one(S, b, P, out):
    """Game ``b``'s perfect-information vector into ``out`` (``uint8[453]``, zeroed), laid out as
    :func:`cardzoo.envs.avinas.observation.state_layout` (seat 0 = "me"): the hands and face-down
    cards §7 hides from the seats, for a perfect-information critic."""
    for s in range(4):
        _write_set(out, 32 * s, S.hands[b, s])
        _write_set(out, 32 * (4 + s), S.played[b, s])
    _write_set(out, 256, S.trick[b])
    _write_set(out, 288, S.exposed[b])
    _write_set(out, 320, S.dealer_seen[b])
    fd = S.fd_seat[b]
    if fd >= 0 and S.trick_card[b, fd] >= 0:
        _write_set(out, 352, _bit(S.trick_card[b, fd]))
    _write_public(S, b, 0, 384, out, True, P)
