"""Aluette (La Vache) rules, compiled: one game at a time, in the order of ``RULES.md``.

Every function here is numba ``@njit(cache=True)`` over **one** game: row ``b`` of the batch
arrays of an :class:`~cardzoo.envs.aluette.kernel.AluetteState`, seen as the namedtuple ``S``
(:data:`~cardzoo.envs.aluette.kernel.AluetteArrays`, same field names). ``P`` is the kernel's
``int64`` option vector (indices ``P_*`` below). The core's compiled driver
(:mod:`cardzoo.envs.core.compiled`) runs :func:`step_one`, :func:`deal_one`, :func:`legal_one`
and :func:`observe_one` over the batch; the AEC env runs the same functions at B = 1.

Chance is drawn outside, in Python (the kernel's ``draw_chance``): :func:`step_one` returns

* :data:`NEED_DEAL` when a deal ended by trick play and the match deals again (§6): the kernel
  shuffles ``S.stock[b]`` and :func:`deal_one` deals it (§3);
* :data:`NEED_INTERCEPT` after a signal with ``signal_intercept > 0`` (§4.5, RULES.md §9 D3): the
  partner has heard it; the kernel draws whether each opponent catches it into ``S.catch[b]``
  and :func:`deal_one` lets them hear it;
* :data:`NEED_DEAL_ANSWER` when a deal ended by an accepted surrender (§4.4) and the match deals
  again (the numpy kernel shuffled those after the signals, so they have their own code).

The kernel draws them in that order (:data:`CHANCE_ORDER`), rows ascending: the calls the numpy
kernel made. Inputs are trusted: the kernel and the AEC env validate actions first.

Legal actions (65 of them) are two ``uint64`` words: action ``a`` is bit ``a % 64`` of word
``a // 64`` (cards 0..47 and the phase actions 48..63 in word 0, ``refuse_surrender`` = 64 in word 1).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.bits import bit as _bit, popcount as _popcount, write_set as _write_set
from ..core.teams import pay_teams, team_sign

from .constants import (
    ACCEPT_CHANT,
    ACCEPT_SURRENDER,
    ACES_BB,
    ANSWER,
    DEAL_POS,
    DISCARD,
    END_SIGNALS,
    HAND,
    KEY_BB,
    KEY_OR_ACE_BB,
    NUM_SIGNALS,
    NUM_TRICKS,
    OFFER,
    OFFER_SURRENDER,
    OVER,
    PLAY,
    POWER,
    SIGNAL,
    SIGNAL0,
    VOTE,
)

# chance codes returned by step_one (0: no chance needed), in the order the kernel draws them
NEED_DEAL, NEED_INTERCEPT, NEED_DEAL_ANSWER = 1, 2, 3
CHANCE_ORDER = (NEED_DEAL, NEED_INTERCEPT, NEED_DEAL_ANSWER)

# the option vector P (built by AluetteKernel from its options, RULES.md §8)
P_CHANT, P_SECOND_OFFSET, P_SURRENDER, P_MORDIENNE = 0, 1, 2, 3
P_SIGNALS = 4  # 0 off, 1 truthful, 2 free
P_TURN_SIGNALS, P_PUBLIC, P_INTERCEPT = 5, 6, 7  # P_INTERCEPT: signal_intercept > 0 (the draw is the kernel's)
P_MATCH, P_REWARD_WIN, P_TARGET, P_MATCH_DEALS, P_MAX_DEALS = 8, 9, 10, 11, 12  # P_TARGET: 0 = None
P_DEAL_HIGH, P_SCORE_HIGH = 13, 14  # clips of ``deals`` and ``score`` in observations (the layout's highs)
P_SIZE = 15

SIGNALS_OFF, SIGNALS_TRUTHFUL, SIGNALS_FREE = 0, 1, 2
SPOILED = 4  # value of ``results`` for a spoiled trick

#: number of uint64 words of a legal-action bitboard (65 actions)
LEGAL_WORDS = 2
#: observation / state vector offsets (observation.observation_layout, observation.state_layout)
OBS_PUB = 8 * 48
GLOBAL_PUB = 18 * 48
_RES = 42  # trick_results start, from the public block's start
_SIG = _RES + 5 * NUM_TRICKS  # signals start
_CNT = _SIG + 4 * NUM_SIGNALS  # counters start

_ONE = np.uint64(1)
_MASK40 = np.uint64((1 << (4 * NUM_SIGNALS)) - 1)
_POWER = POWER.astype(np.int64)
_DEAL_POS = DEAL_POS.astype(np.int64)
_KEY_BB = KEY_BB.astype(np.uint64)
_ACES_BB = np.uint64(ACES_BB)
_KEY_OR_ACE_BB = np.uint64(KEY_OR_ACE_BB)




# ---------------------------------------------------------------------- the deal (§3)
@njit(cache=True, _nrt=False)  # once per deal: a call, not inlined (compile time)
def _deal(S, b, P):
    """§3: deal 9 cards each in threes from ``S.stock[b]`` (L P R D from the dealer's left), the
    last 12 form the talon; clear the deal's records; start the chant vote (§4.1) or go on."""
    for s in range(4):
        S.played[b, s] = 0
        S.received[b, s] = 0
        S.discarded[b, s] = 0
        S.sent[b, s] = 0
        S.heard[b, s] = 0
        S.as_aces[b, s] = 0
        S.won[b, s] = 0
        S.votes[b, s] = -1
        S.trick_card[b, s] = -1
    S.res_word[b] = 0
    S.chanted[b] = False
    S.trick[b] = 0
    S.n_in_trick[b] = 0
    S.top[b] = 0
    S.top_count[b] = 0
    S.top_seat[b] = 0
    S.tricks_done[b] = 0
    for t in range(NUM_TRICKS):
        S.results[b, t] = -1
    S.offerer[b] = -1
    S.refused[b] = False
    S.accepted[b] = False
    d = S.dealer[b]
    for k in range(4):
        hand = np.uint64(0)
        for j in range(HAND):
            hand |= _bit(S.stock[b, _DEAL_POS[k, j]])
        seat = (d + 1 + k) % 4
        S.hands[b, seat] = hand
        S.dealt[b, seat] = hand
    talon = np.uint64(0)
    for j in range(36, 48):
        talon |= _bit(S.stock[b, j])
    S.talon[b] = talon
    if P[P_CHANT]:
        S.phase[b] = VOTE
        S.current_player[b] = (d + 1) % 4
    else:
        _after_chant(S, b, P)


# ---------------------------------------------------------------------- phase transitions (§4)
@njit(cache=True, inline="always", _nrt=False)
def _start_play(S, b):
    """§5: the dealer's left leads the first trick."""
    left = (S.dealer[b] + 1) % 4
    S.phase[b] = PLAY
    S.leader[b] = left
    S.current_player[b] = left


@njit(cache=True, inline="always", _nrt=False)
def _after_signals(S, b, P):
    """§4.4: the surrender offers (with ``surrender``), else trick play."""
    if P[P_SURRENDER]:
        S.phase[b] = OFFER
        S.current_player[b] = (S.dealer[b] + 1) % 4
    else:
        _start_play(S, b)


@njit(cache=True, inline="always", _nrt=False)
def _after_chant(S, b, P):
    """§4.3: the signalling round from the dealer's left (unless ``signals="off"``)."""
    if P[P_SIGNALS] != SIGNALS_OFF:
        S.phase[b] = SIGNAL
        S.current_player[b] = (S.dealer[b] + 1) % 4
    else:
        _after_signals(S, b, P)


# ---------------------------------------------------------------------- the chant (§4.1, §4.2)
@njit(cache=True, inline="always", _nrt=False)
def _vote(S, b, action, P):
    """§4.1: a refusal ends the vote (no chant); the dealer's acceptance (the fourth) starts the chant."""
    p = S.current_player[b]
    acc = action == ACCEPT_CHANT
    S.votes[b, p] = 1 if acc else 0
    if not acc:
        _after_chant(S, b, P)
    elif p == S.dealer[b]:
        _chant(S, b, P)
    else:
        S.current_player[b] = (p + 1) % 4


@njit(cache=True, _nrt=False)  # once per deal: a call, not inlined (compile time)
def _chant(S, b, P):
    """§4.2: t1, t3, ... to the dealer's left, t2, t4, ... to the dealer (or his partner); L discards first."""
    d = S.dealer[b]
    left = (d + 1) % 4
    second = (d + P[P_SECOND_OFFSET]) % 4
    to_l = np.uint64(0)
    to_2 = np.uint64(0)
    for j in range(6):
        to_l |= _bit(S.stock[b, 36 + 2 * j])
        to_2 |= _bit(S.stock[b, 37 + 2 * j])
    S.hands[b, left] |= to_l
    S.received[b, left] = to_l
    S.hands[b, second] |= to_2
    S.received[b, second] = to_2
    S.chanted[b] = True
    S.phase[b] = DISCARD
    S.current_player[b] = left


@njit(cache=True, inline="always", _nrt=False)
def _discard(S, b, card, P):
    """§4.2: one card out of play per action until the recipient holds 9 again."""
    p = S.current_player[b]
    cb = _bit(card)
    S.hands[b, p] ^= cb
    S.discarded[b, p] |= cb
    if _popcount(S.hands[b, p]) == HAND:
        d = S.dealer[b]
        if p == (d + 1) % 4:
            S.current_player[b] = (d + P[P_SECOND_OFFSET]) % 4
        else:
            _after_chant(S, b, P)


# ---------------------------------------------------------------------- signals (§4.3, §4.5)
@njit(cache=True, inline="always", _nrt=False)
def signal_bits(S, b, p, P):
    """Signals seat ``p`` may send now, ignoring the phase (bit ``s`` = signal ``s``): not yet sent
    this deal and, with ``signals="truthful"``, true of the hand (§4.5)."""
    if P[P_SIGNALS] == SIGNALS_FREE:
        avail = (1 << NUM_SIGNALS) - 1
    else:
        hand = S.hands[b, p]
        avail = 0
        for s in range(8):  # signals 0..7: the one key card
            if hand & _KEY_BB[s]:
                avail |= 1 << s
        if hand & _ACES_BB:
            avail |= 1 << 8
        if not (hand & _KEY_OR_ACE_BB):
            avail |= 1 << 9
    return avail & ~np.int64(S.sent[b, p])


@njit(cache=True, inline="always", _nrt=False)
def _signal(S, b, action, P):
    """§4.5: record a signal; the partner hears it (everyone with ``"public"``; each opponent with
    probability ``signal_intercept``: :data:`NEED_INTERCEPT`); the sender keeps the turn."""
    p = S.current_player[b]
    s = action - SIGNAL0
    S.sent[b, p] |= np.int16(1 << s)
    if s == 8:  # `as`: the aces already played are not the one it holds (truthful, §4.5)
        S.as_aces[b, p] = S.played[b, p] & _ACES_BB
    w = _ONE << np.uint64(10 * p + s)
    S.heard[b, p] |= w
    S.heard[b, (p + 2) % 4] |= w
    if P[P_PUBLIC]:
        S.heard[b, (p + 1) % 4] |= w
        S.heard[b, (p + 3) % 4] |= w
    elif P[P_INTERCEPT]:
        S.pending[b] = w
        return NEED_INTERCEPT
    return 0


@njit(cache=True, inline="always", _nrt=False)
def _intercept(S, b):
    """§4.5 / §9 D3: each opponent who caught the pending signal (``S.catch[b]``, drawn by the kernel) hears it."""
    p = S.current_player[b]
    w = S.pending[b]
    if S.catch[b, 0]:
        S.heard[b, (p + 1) % 4] |= w
    if S.catch[b, 1]:
        S.heard[b, (p + 3) % 4] |= w
    S.pending[b] = 0


@njit(cache=True, inline="always", _nrt=False)
def _end_signals(S, b, P):
    """§4.3: the round goes clockwise from L; the dealer's ``end_signals`` closes it."""
    p = S.current_player[b]
    S.current_player[b] = (p + 1) % 4
    if p == S.dealer[b]:
        _after_signals(S, b, P)


# ---------------------------------------------------------------------- surrender (§4.4)
@njit(cache=True, inline="always", _nrt=False)
def _offer(S, b, action, P):
    """§4.4: an offer goes to the offerer's left-hand opponent; four ``no_offer`` start the play."""
    p = S.current_player[b]
    if action == OFFER_SURRENDER:
        S.offerer[b] = p
        S.phase[b] = ANSWER
        S.current_player[b] = (p + 1) % 4
    elif p == S.dealer[b]:
        _start_play(S, b)
    else:
        S.current_player[b] = (p + 1) % 4


@njit(cache=True, inline="always", _nrt=False)
def _answer(S, b, action, P):
    """§4.4: ``accept_surrender`` scores 1 for the accepting team and ends the deal; a refusal commits
    the refusing team to mordienne (§6)."""
    if action == ACCEPT_SURRENDER:
        S.accepted[b] = True
        # run-time values: literals would compile _end_deal a second time
        if _end_deal(S, b, S.current_player[b] % 2, np.int64(1), np.int64(-1), np.bool_(False), P):
            return NEED_DEAL_ANSWER
        return 0
    S.refused[b] = True
    _start_play(S, b)
    return 0


# ---------------------------------------------------------------------- scoring (§6)
@njit(cache=True, inline="always", _nrt=False)
def _deal_rewards(S, b):
    pay_teams(S.rewards, b, np.float64(S.points[b, 0] - S.points[b, 1]))


@njit(cache=True, inline="always", _nrt=False)
def _finish(S, b, deal_rewards, P):
    """End the episode of game ``b`` and pay the rewards of §6 (score: per deal; win: at the end)."""
    S.done[b] = True
    S.phase[b] = OVER
    if P[P_REWARD_WIN]:
        if P[P_MATCH]:
            v = team_sign(S.winner[b])
        else:
            v = np.float64(np.sign(S.points[b, 0] - S.points[b, 1]))
        pay_teams(S.rewards, b, v)
    elif deal_rewards:
        _deal_rewards(S, b)


@njit(cache=True, _nrt=False)  # once per deal: a call, not inlined (compile time)
def _end_deal(S, b, team, pts, deal_winner, mord, P):
    """Record the deal's points (``team`` -1 = nobody), then end the episode, or move the deal to
    the next dealer and return True: the match deals again (the kernel shuffles, §6)."""
    S.points[b, 0] = 0
    S.points[b, 1] = 0
    if team >= 0:
        S.points[b, team] = pts
    S.score[b, 0] += S.points[b, 0]
    S.score[b, 1] += S.points[b, 1]
    S.deal_winner[b] = deal_winner
    S.mordienne[b] = mord
    S.deals[b] += 1
    for t in range(NUM_TRICKS):  # public (§7), kept for infos: the next deal clears results
        S.last_results[b, t] = S.results[b, t]
    if not P[P_MATCH]:
        _finish(S, b, True, P)
        return False
    s0 = S.score[b, 0]
    s1 = S.score[b, 1]
    if P[P_TARGET] == 0:
        over = S.deals[b] >= P[P_MATCH_DEALS]
    else:
        over = max(s0, s1) >= P[P_TARGET]
    if over:
        S.winner[b] = 0 if s0 > s1 else (1 if s1 > s0 else 2)
    if not P[P_REWARD_WIN]:
        _deal_rewards(S, b)
    if over:
        _finish(S, b, False, P)
        return False
    if P[P_TARGET] != 0 and S.deals[b] >= P[P_MAX_DEALS]:  # the safety cap: truncated (§9 D9), the
        S.done[b] = True                                        # deal's points paid as every deal's
        S.truncated[b] = True
        S.phase[b] = OVER
        return False
    S.dealer[b] = (S.dealer[b] + 1) % 4
    return True


@njit(cache=True, _nrt=False)  # once per deal: a call, not inlined (compile time)
def _score_deal(S, b, P):
    """§6: the deal winner is the first player to reach the most tricks; mordienne doubles.
    Returns True when the match deals again."""
    M = 0
    for s in range(4):
        M = max(M, np.int64(S.won[b, s]))
    w = 0
    if M > 0:
        best = 99
        for s in range(4):  # the first seat (lowest trick index, then lowest seat) to reach M tricks
            if S.won[b, s] != M:
                continue
            cum = 0
            for t in range(NUM_TRICKS):
                if S.results[b, t] == s:
                    cum += 1
                    if cum == M:
                        break
            if t < best:
                best = t
                w = s
    block = M > 0 and M <= NUM_TRICKS - 1
    if block:
        for t in range(NUM_TRICKS - M, NUM_TRICKS):
            if S.results[b, t] != w:
                block = False
    mord = block and P[P_MORDIENNE] != 0
    team = w % 2 if M > 0 else -1
    pts = 2 if mord else 1
    if S.refused[b]:  # §6 after a refused surrender: 2 to the refusing team only if it makes mordienne
        committed = (S.offerer[b] + 1) % 2
        keeps = M > 0 and team == committed and mord
        team = committed if keeps else 1 - committed
        pts = 2
    return _end_deal(S, b, team, pts, w if M > 0 else -1, mord, P)


# ---------------------------------------------------------------------- trick play (§5)
@njit(cache=True, inline="always", _nrt=False)
def _play(S, b, card, P):
    """§5: play a card; a full trick goes to the single highest power, or is spoiled on a tie."""
    p = S.current_player[b]
    cb = _bit(card)
    S.hands[b, p] ^= cb
    S.played[b, p] |= cb
    S.trick[b] |= cb
    S.trick_card[b, p] = card
    pw = _POWER[card]
    n = S.n_in_trick[b]
    top = S.top[b]
    if n == 0 or pw > top:
        S.top[b] = pw
        S.top_count[b] = 1
        S.top_seat[b] = p
    elif pw == top:
        S.top_count[b] += 1
    n += 1
    S.n_in_trick[b] = n
    S.current_player[b] = (p + 1) % 4
    if n < 4:
        return 0
    k = S.tricks_done[b]
    w = S.top_seat[b]
    spoiled = S.top_count[b] > 1
    r = SPOILED if spoiled else w
    S.results[b, k] = r
    S.res_word[b] |= _ONE << np.uint64(5 * k + r)
    if not spoiled:
        S.won[b, w] += 1
        S.leader[b] = w
    S.current_player[b] = S.leader[b]
    S.trick[b] = 0
    for s in range(4):
        S.trick_card[b, s] = -1
    S.n_in_trick[b] = 0
    S.top_count[b] = 0
    S.top[b] = 0
    S.tricks_done[b] = k + 1
    if k == NUM_TRICKS - 1 and _score_deal(S, b, P):
        return NEED_DEAL
    return 0


# ---------------------------------------------------------------------- the step
@njit(cache=True, inline="always", _nrt=False)
def step_one(S, b, action, P):
    """Apply the legal ``action`` of the seat to act in game ``b`` and advance to the next decision:
    a card discarded in the chant (§4.2) or played to the trick (§5, the deal scored by §6), a chant
    vote (§4.1), a signal or the end of the signalling round (§4.3, §4.5), a surrender offer or answer
    (§4.4). Returns 0 or a chance code (module docstring)."""
    ph = S.phase[b]
    if action < 48:
        if ph == PLAY:
            return _play(S, b, action, P)
        _discard(S, b, action, P)
        return 0
    if action <= ACCEPT_CHANT + 1:
        _vote(S, b, action, P)
        return 0
    if action < END_SIGNALS:
        return _signal(S, b, action, P)
    if action == END_SIGNALS:
        _end_signals(S, b, P)
        return 0
    if action <= OFFER_SURRENDER + 1:
        _offer(S, b, action, P)
        return 0
    return _answer(S, b, action, P)


@njit(cache=True, inline="always", _nrt=False)
def deal_one(S, b, code, P):
    """Go on after the chance of ``code`` was drawn: deal from the shuffled ``S.stock[b]`` (§3), or
    let the opponents who caught the pending signal hear it (:data:`NEED_INTERCEPT`)."""
    if code == NEED_INTERCEPT:
        _intercept(S, b)
    else:
        _deal(S, b, P)


# ---------------------------------------------------------------------- legal actions (§4, §5)
@njit(cache=True, inline="always", _nrt=False)
def legal_words(S, b, P):
    """Legal actions of the seat to act in game ``b`` as the two ``uint64`` words of :func:`legal_one`
    (discards, votes, signals, surrender: §4; cards that may be played: §5)."""
    if S.done[b]:
        return np.uint64(0), np.uint64(0)
    ph = S.phase[b]
    p = S.current_player[b]
    cards = np.uint64(0)
    if ph == PLAY or ph == DISCARD:
        cards = S.hands[b, p]
    extra = 0  # bit j = action 48 + j
    if ph == VOTE:
        extra = 0b11
    if P[P_SIGNALS] != SIGNALS_OFF:
        if ph == SIGNAL or (ph == PLAY and P[P_TURN_SIGNALS]):
            extra |= signal_bits(S, b, p, P) << 2
        if ph == SIGNAL:
            extra |= 1 << (END_SIGNALS - 48)
    if P[P_SURRENDER]:
        if ph == OFFER:
            extra = 0b11 << (OFFER_SURRENDER - 48)
        elif ph == ANSWER:
            extra = 0b11 << (ACCEPT_SURRENDER - 48)
    ex = np.uint64(extra)
    return cards | (ex << np.uint64(48)), ex >> np.uint64(16)


@njit(cache=True, inline="always", _nrt=False)
def legal_one(S, b, P, out):
    """Legal actions of the seat to act in game ``b`` into ``out`` (``uint64[2]``, zeroed by the
    caller): action ``a`` = bit ``a % 64`` of word ``a // 64``; nothing set once the game is over.
    What is legal: §4 (before the first trick) and §5 (trick play)."""
    w0, w1 = legal_words(S, b, P)
    out[0] |= w0
    out[1] |= w1


# ---------------------------------------------------------------------- observation (§7)
@njit(cache=True, inline="always", _nrt=False)
def _write_public(S, b, p, off, out, P):
    """The public slices of ``observation._public`` from seat ``p``'s view (seats relative to ``p``)."""
    ph = S.phase[b]
    d = S.dealer[b]
    live = ph < OVER
    if live:
        out[off + ph] = 1
        out[off + 14 + (S.current_player[b] - p) % 4] = 1
    out[off + 6 + (d - p) % 4] = 1
    if ph == PLAY:
        out[off + 10 + (S.leader[b] - p) % 4] = 1
    if S.n_in_trick[b] > 0:
        if S.top_count[b] == 1:
            out[off + 18 + (S.top_seat[b] - p) % 4] = 1
        else:
            out[off + 22] = 1
    if S.chanted[b]:
        out[off + 23] = 1
        out[off + 24 + (d + 1 - p) % 4] = 1
        out[off + 24 + (d + P[P_SECOND_OFFSET] - p) % 4] = 1
    for s in range(4):
        v = S.votes[b, s]
        if v == 1:
            out[off + 28 + (s - p) % 4] = 1
        elif v == 0:
            out[off + 32 + (s - p) % 4] = 1
    if S.offerer[b] >= 0:
        out[off + 36 + (S.offerer[b] - p) % 4] = 1
    out[off + 40] = S.refused[b]
    out[off + 41] = S.accepted[b]
    for t in range(NUM_TRICKS):
        r = S.results[b, t]
        if r == SPOILED:
            out[off + _RES + 5 * t + 4] = 1
        elif r >= 0:
            out[off + _RES + 5 * t + (r - p) % 4] = 1
    c = off + _CNT
    out[c] = S.top[b]
    out[c + 1] = S.n_in_trick[b]
    out[c + 2] = S.tricks_done[b]
    for r in range(4):
        out[c + 3 + r] = S.won[b, (p + r) % 4]
    out[c + 7] = min(np.int64(S.deals[b]), P[P_DEAL_HIGH])
    mine = p % 2
    out[c + 8] = min(np.int64(S.points[b, mine]), 2)
    out[c + 9] = min(np.int64(S.points[b, 1 - mine]), 2)
    out[c + 10] = min(np.int64(S.score[b, mine]), P[P_SCORE_HIGH])
    out[c + 11] = min(np.int64(S.score[b, 1 - mine]), P[P_SCORE_HIGH])


@njit(cache=True, inline="always", _nrt=False)
def observe_one(S, b, seat, P, out):
    """Seat ``seat``'s observation of game ``b`` into ``out`` (``uint8[D]``, zeroed), laid out as
    :func:`cardzoo.envs.aluette.observation.observation_layout` (§7: only what the seat may know:
    its own hand, talon cards and discards, everyone's played cards, the signals it heard)."""
    _write_set(out, 0, S.hands[b, seat])
    _write_set(out, 48, S.received[b, seat])
    _write_set(out, 96, S.discarded[b, seat])
    for r in range(4):
        _write_set(out, 144 + 48 * r, S.played[b, (seat + r) % 4])
    _write_set(out, 336, S.trick[b])
    _write_public(S, b, seat, OBS_PUB, out, P)
    h = S.heard[b, seat]  # bit 10 * sender + s; rotated so that block r is the seat r places after ``seat``
    sh = np.uint64(NUM_SIGNALS * seat)
    _write_set(out, OBS_PUB + _SIG, ((h >> sh) | (h << (np.uint64(4 * NUM_SIGNALS) - sh))) & _MASK40)


@njit(cache=True, inline="always", _nrt=False)
def global_one(S, b, P, out):
    """Game ``b``'s perfect-information vector into ``out`` (``uint8[S]``, zeroed), laid out as
    :func:`cardzoo.envs.aluette.observation.state_layout` (absolute seats, team A = "mine"): the
    hands, chant cards, talon and signals §7 hides from the seats, for a perfect-information critic."""
    for s in range(4):
        _write_set(out, 48 * s, S.hands[b, s])
        _write_set(out, 48 * (4 + s), S.played[b, s])
        _write_set(out, 48 * (8 + s), S.received[b, s])
        _write_set(out, 48 * (12 + s), S.discarded[b, s])
    _write_set(out, 48 * 16, S.talon[b])
    _write_set(out, 48 * 17, S.trick[b])
    _write_public(S, b, 0, GLOBAL_PUB, out, P)
    sent = np.uint64(0)
    for s in range(4):
        sent |= np.uint64(S.sent[b, s]) << np.uint64(NUM_SIGNALS * s)
    _write_set(out, GLOBAL_PUB + _SIG, sent)
