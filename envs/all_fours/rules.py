"""All Fours (Trinidad) rules, compiled: one game at a time, in the order of ``RULES.md``.

Every function here is numba ``@njit(cache=True)`` over **one** game: row ``b`` of the batch
arrays of an :class:`~cardzoo.envs.all_fours.kernel.AllFoursState`, seen as the namedtuple
``S`` (:data:`~cardzoo.envs.all_fours.kernel.AllFoursArrays`, same field names). ``P`` is the
kernel's ``int64`` option vector (indices ``P_*`` below). The core's compiled driver
(:class:`cardzoo.envs.core.compiled.Drivers`) runs :func:`step_one`, :func:`deal_one`,
:func:`legal_one` and :func:`observe_one` over the batch; the AEC env runs the same functions at B = 1.

Chance is drawn outside (the kernel shuffles ``S.stock[b]`` in Python): :func:`step_one`
returns :data:`NEED_DEAL` (a new hand of a match) or :data:`NEED_REDEAL` (pack exhausted, §4)
where a shuffle is needed, and :func:`deal_one` deals from the shuffled stock.
Inputs are trusted: the kernel and the AEC env validate actions first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.bits import bit as _bit
from ..core.teams import pay_teams, team_sign

from .constants import (
    ABOVE,
    BEG_DECISION,
    DEALER_DECISION,
    FIRST_KICK,
    GAME_VALUE,
    GIVE_ONE,
    HIGHEST,
    JACK_RANK,
    LOWEST,
    OVER,
    PLAY,
    RUN,
    STAND,
    BEG,
)

# chance codes returned by step_one (0: no chance needed)
NEED_DEAL, NEED_REDEAL = 1, 2

# the option vector P (built by AllFoursKernel from its options, RULES.md §8)
P_MATCH, P_TARGET, P_REWARD_WIN, P_SCORE_REJECTED = 0, 1, 2, 3
P_JACK, P_HANG, P_GAME, P_GAME_TIE = 4, 5, 6, 7  # game_tie: 0 none, 1 beggar_team, 2 dealer_team
P_UNDERTRUMP_FORBIDDEN, P_FORBID_GIVE, P_PACKET, P_MAX_REDEALS, P_MAX_HANDS = 8, 9, 10, 11, 12
P_SCORE_HIGH = 13  # clip of the score in observations (the layout's high)
P_KICK = 14  # 13 entries: kick points per rank (§2)
P_SIZE = P_KICK + 13

_GAME_VALUE = GAME_VALUE.astype(np.int64)
_HIGHEST = HIGHEST.astype(np.int64)
_LOWEST = LOWEST.astype(np.int64)
_ABOVE = ABOVE.astype(np.uint64)
_SUIT = np.uint64((1 << 13) - 1)
_ONE = np.uint64(1)
_RUN_START = (25, 38)
_RUN_KICK = (37, 50)



# ---------------------------------------------------------------------- scoring helpers (§6)
@njit(cache=True, inline="always", _nrt=False)
def _hand_rewards(S, b, P):
    """§6 Rewards: this hand's points difference (or the win sign) to both teams, zero-sum."""
    diff = np.float64(S.points[b, 0] - S.points[b, 1])
    if P[P_REWARD_WIN]:
        if P[P_MATCH]:
            diff = team_sign(S.winner[b])
        else:
            diff = np.float64(np.sign(diff))
    # pay_teams adds: a match-mode step can end one hand and the match on the next deal's kick
    pay_teams(S.rewards, b, diff)


@njit(cache=True, inline="always", _nrt=False)
def _finish(S, b, winner, P):
    """End the episode of game ``b`` (``winner``: team that won the match, -1 none) and pay it."""
    S.done[b] = True
    S.phase[b] = OVER
    if winner >= 0:
        S.winner[b] = winner
    _hand_rewards(S, b, P)


@njit(cache=True, inline="always", _nrt=False)
def _truncate(S, b):
    """A safety cap (§6 Caps): the episode ends, reward 0 for this step."""
    S.done[b] = True
    S.truncated[b] = True
    S.phase[b] = OVER
    for j in range(4):
        S.rewards[b, j] = 0


@njit(cache=True, inline="always", _nrt=False)
def _credit(S, b, team, pts, P):
    """Add ``pts`` to ``team`` (skipped when the game is over, ``team < 0`` or ``pts <= 0``); in a
    match a team reaching the target wins at once (§6 counting order)."""
    if S.done[b] or team < 0 or pts <= 0:
        return
    S.points[b, team] += pts
    S.score[b, team] += pts
    if P[P_MATCH] and S.score[b, team] >= P[P_TARGET]:
        _finish(S, b, team, P)


# ---------------------------------------------------------------------- dealing and the kick (§3)
@njit(cache=True, _nrt=False)  # once per deal or hand: a plain call (compiles once, not into every driver)
def _deal_cards(S, b, start, per_player, P):
    """Give ``per_player`` cards from stock position ``start`` to each player, beggar first, in packets (§3.2)."""
    packet = P[P_PACKET]
    rounds = per_player // packet
    for k in range(4):
        seat = (S.dealer[b] + 1 + k) % 4
        bb = np.uint64(0)
        for r in range(rounds):
            base = start + r * 4 * packet + k * packet
            for j in range(packet):
                bb |= _bit(S.stock[b, base + j])
        S.hands[b, seat] |= bb
        S.dealt[b, seat] |= bb


@njit(cache=True, _nrt=False)  # once per deal or hand: a plain call (compiles once, not into every driver)
def _kick(S, b, pos, scores, P):
    """Turn the card at stock ``pos`` (out of play); its kick points go to the dealer's team
    when ``scores`` (§3.3, §4). Returns its suit."""
    card = S.stock[b, pos]
    S.kicked[b] |= _bit(card)
    if scores:
        _credit(S, b, S.dealer[b] % 2, P[P_KICK + card % 13], P)
    return card // 13


@njit(cache=True, _nrt=False)  # once per deal or hand: a plain call (compiles once, not into every driver)
def deal_one(S, b, code, P):
    """Deal a hand from the freshly shuffled ``S.stock[b]`` and kick (§3).

    ``code`` :data:`NEED_DEAL` starts a new hand (hand points and redeals reset); :data:`NEED_REDEAL`
    is the same dealer's new deal after pack exhaustion (§4): hand points are kept.
    """
    for s in range(4):
        S.hands[b, s] = 0
        S.dealt[b, s] = 0
        S.played[b, s] = 0
        S.voids[b, s] = 0
        S.trick_card[b, s] = -1
        S.last_trick[b, s] = -1
    for t in range(2):
        S.captured[b, t] = 0
        S.game_value[b, t] = 0
    S.kicked[b] = 0
    S.trick[b] = 0
    S.led_suit[b] = -1
    S.trick_winner[b] = -1
    S.last_leader[b] = -1
    S.last_winner[b] = -1
    S.n_in_trick[b] = 0
    S.tricks_done[b] = 0
    S.runs[b] = 0
    S.begged[b] = False
    S.gave_one[b] = False
    S.hand_size[b] = 6
    S.phase[b] = BEG_DECISION
    if code == NEED_DEAL:  # items/hang keep describing the last scored hand until the next one is scored
        S.points[b, 0] = 0
        S.points[b, 1] = 0
        S.redeals[b] = 0
    _deal_cards(S, b, np.int64(0), np.int64(6), P)  # run-time ints: literals would compile _deal_cards again
    beggar = (S.dealer[b] + 1) % 4
    S.current_player[b] = beggar
    S.leader[b] = beggar
    suit = _kick(S, b, np.int64(FIRST_KICK), np.bool_(True), P)
    S.orig_suit[b] = suit
    S.trump[b] = suit


# ---------------------------------------------------------------------- stand, beg, give one, run (§4)
@njit(cache=True, inline="always", _nrt=False)
def _start_play(S, b):
    S.phase[b] = PLAY
    beggar = (S.dealer[b] + 1) % 4
    S.current_player[b] = beggar
    S.leader[b] = beggar


@njit(cache=True, inline="always", _nrt=False)
def _beggar(S, b, a):
    """§4 beggar's decision: STAND -> trick play with the kicked suit; BEG -> the dealer decides."""
    if a == STAND:
        S.phase[b] = PLAY
    else:
        S.begged[b] = True
        S.phase[b] = DEALER_DECISION
        S.current_player[b] = S.dealer[b]


@njit(cache=True, _nrt=False)  # once per deal or hand: a plain call (compiles once, not into every driver)
def _run(S, b, P):
    """§4 run the pack: up to two runs of 3 cards each and a kick; exhaustion needs a redeal."""
    for k in range(2):
        _deal_cards(S, b, _RUN_START[k], np.int64(3), P)
        S.runs[b] = k + 1
        S.hand_size[b] = 9 + 3 * k
        card = S.stock[b, _RUN_KICK[k]]
        rejected = card // 13 == S.orig_suit[b]
        suit = _kick(S, b, _RUN_KICK[k], (not rejected) or P[P_SCORE_REJECTED] != 0, P)
        if S.done[b]:
            return 0
        if not rejected:
            S.trump[b] = suit
            _start_play(S, b)
            return 0
    # exhausted: same dealer, full new deal, fresh stand/beg, points kept (§9.6)
    S.redeals[b] += 1
    if S.redeals[b] >= P[P_MAX_REDEALS]:
        _truncate(S, b)
        return 0
    return NEED_REDEAL


@njit(cache=True, _nrt=False)  # once per deal or hand: a plain call (compiles once, not into every driver)
def _dealer(S, b, a, P):
    """§4 dealer's decision: GIVE_ONE scores 1 for the beggar's team; RUN runs the pack."""
    if a == GIVE_ONE:
        S.gave_one[b] = True
        _start_play(S, b)
        _credit(S, b, (S.dealer[b] + 1) % 4 % 2, 1, P)
        return 0
    return _run(S, b, P)


# ---------------------------------------------------------------------- trick play (§5)
@njit(cache=True, inline="always", _nrt=False)
def _play(S, b, card, P):
    """Play ``card`` for the seat to act (§5); resolve a full trick, and score a finished hand.

    The trick's winner so far is kept card by card (``trick_winner`` and its ``trick_best`` key:
    rank + 13 if of the suit led + 26 if a trump)."""
    p = S.current_player[b]
    cb = _bit(card)
    S.hands[b, p] ^= cb
    S.played[b, p] |= cb
    S.trick[b] |= cb
    S.trick_card[b, p] = card
    suit = card // 13
    n = S.n_in_trick[b]
    led = suit if n == 0 else S.led_suit[b]
    S.led_suit[b] = led
    trump = S.trump[b]
    # §5: a card off the suit led shows a void in it, unless it is a trump played to a plain lead
    if suit != led and (led == trump or suit != trump):
        S.voids[b, p] |= np.uint8(1 << led)
    elif P[P_UNDERTRUMP_FORBIDDEN] and suit == trump and led != trump:
        # §5 undertrump="forbidden": a trump below the trick's highest shows a hand of trumps only
        if card % 13 < _HIGHEST[((S.trick[b] ^ cb) >> np.uint64(13 * trump)) & _SUIT]:
            S.voids[b, p] |= np.uint8(15 ^ (1 << trump))
    key = card % 13 + 13 * (suit == led) + 26 * (suit == trump)
    if n == 0 or key > S.trick_best[b]:
        S.trick_best[b] = key
        S.trick_winner[b] = p
    win = S.trick_winner[b]
    n += 1
    if n < 4:
        S.n_in_trick[b] = n
        S.current_player[b] = (p + 1) % 4
        return 0
    # the trick is complete: the winner captures it and leads (§5); Game value counted (§2, §6)
    team = win % 2
    S.captured[b, team] |= S.trick[b]
    gv = 0
    for s in range(4):
        gv += _GAME_VALUE[S.trick_card[b, s] % 13]
        S.last_trick[b, s] = S.trick_card[b, s]
        S.trick_card[b, s] = -1
    S.game_value[b, team] += gv
    S.last_leader[b] = S.leader[b]
    S.last_winner[b] = win
    S.leader[b] = win
    S.current_player[b] = win
    S.trick[b] = 0
    S.led_suit[b] = -1
    S.trick_winner[b] = -1
    S.n_in_trick[b] = 0
    S.tricks_done[b] += 1
    if S.tricks_done[b] == S.hand_size[b]:
        return _score_hand(S, b, P)
    return 0


# ---------------------------------------------------------------------- scoring (§6)
@njit(cache=True, _nrt=False)  # once per deal or hand: a plain call (compiles once, not into every driver)
def _score_hand(S, b, P):
    """Credit High, Low, Jack / Hang jack, Game in that order (§6), then end the episode or ask
    for the next hand's deal (match: the deal passes on, §1)."""
    trump = S.trump[b]
    shift = np.uint64(13 * trump)
    hi_rank, hi_seat, lo_rank, lo_seat = -1, -1, 13, -1
    jack = _bit(13 * trump + JACK_RANK)
    holder = -1
    for s in range(4):
        chunk = (S.dealt[b, s] >> shift) & _SUIT
        h = _HIGHEST[chunk]
        lo = _LOWEST[chunk]
        if h > hi_rank:
            hi_rank, hi_seat = h, s
        if lo < lo_rank:
            lo_rank, lo_seat = lo, s
        if holder < 0 and (S.dealt[b, s] & jack) != 0:
            holder = s
    any_trump = hi_rank >= 0
    high_team = hi_seat % 2 if any_trump else -1
    low_team = lo_seat % 2 if any_trump else -1
    jack_dealt = holder >= 0
    won_team = 1 if ((S.captured[b, 0] & jack) == 0 and (S.captured[b, 1] & jack) != 0) else 0
    hanged = jack_dealt and won_team != holder % 2
    jack_team = won_team if jack_dealt else -1
    jack_pts = P[P_HANG] if hanged else P[P_JACK]
    g0, g1 = S.game_value[b, 0], S.game_value[b, 1]
    if g0 > g1:
        game_team = 0
    elif g1 > g0:
        game_team = 1
    elif P[P_GAME_TIE] == 1:
        game_team = (S.dealer[b] + 1) % 4 % 2
    elif P[P_GAME_TIE] == 2:
        game_team = S.dealer[b] % 2
    else:
        game_team = -1
    S.items[b, 0] = high_team
    S.items[b, 1] = low_team
    S.items[b, 2] = jack_team
    S.items[b, 3] = game_team
    S.hang[b] = hanged
    # §6 counting order; in a match the items after the one that reaches the target are not credited
    credited = 0
    if not S.done[b]:
        credited = 1
    _credit(S, b, high_team, 1, P)
    if not S.done[b]:
        credited = 2
    _credit(S, b, low_team, 1, P)
    if not S.done[b]:
        credited = 3
    _credit(S, b, jack_team, jack_pts, P)
    if not S.done[b]:
        credited = 4
    _credit(S, b, game_team, P[P_GAME], P)
    S.credited[b] = credited
    for t in range(2):  # the scored hand, public (§7) and kept for infos: a match deals the next hand in this step
        S.last_points[b, t] = S.points[b, t]
        S.last_game_value[b, t] = S.game_value[b, t]
        S.last_score[b, t] = S.score[b, t]
    base = 13 * trump
    S.last_high_low[b, 0] = base + hi_rank if any_trump else -1
    S.last_high_low[b, 1] = hi_seat if any_trump else -1
    S.last_high_low[b, 2] = base + lo_rank if any_trump else -1
    S.last_high_low[b, 3] = lo_seat if any_trump else -1
    S.last_high_low[b, 4] = holder
    S.last_trump[b] = trump
    if S.done[b]:
        return 0
    if not P[P_MATCH]:
        _finish(S, b, -1, P)
        return 0
    # the match goes on: pay this hand (score mode), pass the deal (§1)
    if not P[P_REWARD_WIN]:
        _hand_rewards(S, b, P)
    S.hands_played[b] += 1
    if S.hands_played[b] >= P[P_MAX_HANDS]:
        _truncate(S, b)  # §6 Caps: reward 0, as for max_redeals
        return 0
    S.dealer[b] = (S.dealer[b] + 1) % 4
    return NEED_DEAL


# ---------------------------------------------------------------------- one step
@njit(cache=True, inline="always", _nrt=False)
def step_one(S, b, action, P):
    """Apply the legal ``action`` of game ``b`` (live) and advance to its next decision (§4-§6).

    Returns 0, or :data:`NEED_DEAL` / :data:`NEED_REDEAL` when the game needs a shuffled stock
    to go on (the caller shuffles ``S.stock[b]`` and calls :func:`deal_one`)."""
    ph = S.phase[b]
    if ph == BEG_DECISION:
        _beggar(S, b, action)
        return 0
    if ph == DEALER_DECISION:
        return _dealer(S, b, action, P)
    if ph == PLAY:
        return _play(S, b, action, P)
    return 0


# ---------------------------------------------------------------------- legal actions (§4, §5)
@njit(cache=True, inline="always", _nrt=False)
def _legal_bits(S, b, P):
    """Legal actions of the seat to act in game ``b`` as a ``uint64`` bitboard (0 when over)."""
    if S.done[b]:
        return np.uint64(0)
    ph = S.phase[b]
    if ph == BEG_DECISION:
        return (_ONE << np.uint64(STAND)) | (_ONE << np.uint64(BEG))
    if ph == DEALER_DECISION:
        bits = _ONE << np.uint64(RUN)
        if not P[P_FORBID_GIVE] or S.score[b, (S.dealer[b] + 1) % 4 % 2] + 1 < P[P_TARGET]:
            bits |= _ONE << np.uint64(GIVE_ONE)
        return bits
    if ph != PLAY:
        return np.uint64(0)
    hand = S.hands[b, S.current_player[b]]
    led = S.led_suit[b]
    if led < 0:
        return hand
    t = S.trump[b]
    tshift = np.uint64(13 * t)
    trumps = hand & (_SUIT << tshift)
    if led == t:
        return trumps if trumps != 0 else hand
    follow = hand & (_SUIT << np.uint64(13 * led))
    legal = (follow | trumps) if follow != 0 else hand
    if P[P_UNDERTRUMP_FORBIDDEN] and hand != trumps:
        top = _HIGHEST[(S.trick[b] >> tshift) & _SUIT]
        if top >= 0:  # §5 undertrump="forbidden": no trump below the highest one in the trick
            legal &= ~(trumps & ~(_ABOVE[top] << tshift))
    return legal


@njit(cache=True, inline="always", _nrt=False)
def legal_one(S, b, P, out):
    """Legal actions of game ``b`` into ``out`` (``uint64[1]``: 56 actions fit one word; action ``a``
    is bit ``a``): stand/beg, give one/run (§4), the cards that may be played to the trick (§5)."""
    out[0] = _legal_bits(S, b, P)


# ---------------------------------------------------------------------- observation (§7)
@njit(cache=True, inline="always", _nrt=False)
def _write_set(out, off, bits):
    for i in range(52):
        out[off + i] = (bits >> np.uint64(i)) & _ONE


@njit(cache=True, inline="always", _nrt=False)
def _write_public(S, b, p, off, out, P):
    """The public slices of ``observation_layout`` from seat ``p``'s view (seats relative to ``p``)."""
    out[off + S.trump[b]] = 1
    led = S.led_suit[b]
    if led >= 0:
        out[off + 4 + led] = 1
        out[off + 23 + (S.trick_winner[b] - p) % 4] = 1
    ph = S.phase[b]
    if ph < OVER:
        out[off + 8 + ph] = 1
        out[off + 19 + (S.current_player[b] - p) % 4] = 1
    out[off + 11 + (S.dealer[b] - p) % 4] = 1
    out[off + 15 + (S.leader[b] - p) % 4] = 1
    out[off + 27] = S.begged[b]
    out[off + 28] = S.gave_one[b]
    c = off + 29
    out[c] = S.runs[b]
    out[c + 1] = S.hand_size[b]
    out[c + 2] = S.tricks_done[b]
    mine = p % 2
    out[c + 3] = min(S.game_value[b, mine], 80)
    out[c + 4] = min(S.game_value[b, 1 - mine], 80)
    out[c + 5] = min(S.points[b, mine], 40)
    out[c + 6] = min(S.points[b, 1 - mine], 40)
    out[c + 7] = min(S.score[b, mine], P[P_SCORE_HIGH])
    out[c + 8] = min(S.score[b, 1 - mine], P[P_SCORE_HIGH])


@njit(cache=True, inline="always", _nrt=False)
def observe_one(S, b, seat, P, out):
    """Seat ``seat``'s observation of game ``b`` into ``out`` (``uint8[D]``, zeroed), laid out as
    :func:`cardzoo.envs.all_fours.observation.observation_layout` (§7: only what the seat may know)."""
    _write_set(out, 0, S.hands[b, seat])
    for r in range(4):
        _write_set(out, 52 * (1 + r), S.played[b, (seat + r) % 4])
    _write_set(out, 260, S.trick[b])
    _write_set(out, 312, S.kicked[b])
    _write_public(S, b, seat, 364, out, P)


@njit(cache=True, _nrt=False)  # once per deal or hand: a plain call (compiles once, not into every driver)
def global_one(S, b, P, out):
    """Game ``b``'s perfect-information vector into ``out`` (``uint8[S]``, zeroed), laid out as
    :func:`cardzoo.envs.all_fours.observation.state_layout` (team A = "mine"): every hand and the
    stock, which §7 hides from the seats, for a perfect-information critic."""
    dealt = np.uint64(0)
    for s in range(4):
        _write_set(out, 52 * s, S.hands[b, s])
        _write_set(out, 52 * (4 + s), S.played[b, s])
        dealt |= S.dealt[b, s]
    _write_set(out, 416, S.trick[b])
    _write_set(out, 468, S.kicked[b])
    _write_set(out, 520, ~(dealt | S.kicked[b]) & ((_ONE << np.uint64(52)) - _ONE))
    _write_public(S, b, 0, 572, out, P)
