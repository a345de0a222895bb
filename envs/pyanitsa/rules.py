"""P'yanitsa rules, compiled: one game at a time, in the order of ``RULES.md``.

Every function here is numba ``@njit(cache=True)`` over **one** game: row ``b`` of the batch
arrays of a :class:`~cardzoo.envs.pyanitsa.kernel.PyanitsaState`, seen as the namedtuple ``S``
(:data:`~cardzoo.envs.pyanitsa.kernel.PyanitsaArrays`, same field names). ``P`` is the kernel's
``int64`` option vector (indices ``P_*`` below; the observation offsets ``O_*`` come from the
kernel's layouts). The core's compiled driver (:class:`cardzoo.envs.core.compiled.Drivers`) runs
:func:`step_one`, :func:`deal_one`, :func:`legal_one` and :func:`observe_one` over the batch; the
AEC env runs the same functions at B = 1.

Piles are ordered, so they are not bitboards: seat ``s``'s pile is the circular buffer
``S.piles[b, s]`` read from ``S.head[b, s]`` (the top) for ``S.size[b, s]`` cards; collected
cards are written after the bottom. A battle, tie steps included, is resolved inside the step
that applies the last ``FLIP`` (§5).

**Chance.** The only chance during play is ``collect_order="random"`` (§5 Collecting the pot).
There :func:`step_one` resolves the battle (and the end of the game, §6) and returns
:data:`NEED_COLLECT` instead of placing the pot; the kernel draws the order in Python (same
draws as ever, :meth:`~cardzoo.envs.pyanitsa.kernel.PyanitsaKernel.draw_chance`) into
``S.collect[b]`` and :func:`deal_one` places it and finishes the battle. A dead battle returns
:data:`NEED_COLLECT` too (it places nothing). With a plain ``numpy`` Generator (the AEC env,
training, the golden playthroughs) the width of the draw depends on every battle resolved in the
same batched step (one ``[n, width]`` block, as the numpy kernel drew); with the arena's per-deal
streams each game draws for its own battle, so a deal plays the same alone or in a batch.

The cards of the last battle are kept in time order (``S.battle_cards``, with ``S.battle_tags`` =
``step*2N + seat*2 + face_up``): collection orders are built from them.
Inputs are trusted: the kernel and the AEC env validate actions first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.bits import bit as _bit, low_bit as _low_bit, popcount as _popcount, write_set as _write_set

from .constants import EMPTY, FLIP_PHASE, ORDER_PHASE, OVER, TRUNC_CAP, TRUNC_CYCLE

# chance code returned by step_one (0: no chance needed)
NEED_COLLECT = 1

# the option vector P (built by PyanitsaKernel from its options, RULES.md §8)
P_N, P_C, P_RANKS, P_SIX, P_ORDER, P_CYCLES, P_FIRST_OUT, P_DOWN_UP, P_FORFEIT, P_ALL_TIE, P_MAX_BATTLES = range(11)
# collect_order codes (constants.COLLECT_ORDERS)
WINNER_FIRST, SEAT_ORDER, RANDOM, WINNER_CHOOSES = 0, 1, 2, 3
# observation / state vector offsets (from the kernel's layouts; the public part is shared, §7)
O_SIZE, O_OUT, O_TO_ACT, O_PHASE, O_WINNER, O_DOWN, O_BATTLES = range(11, 18)
O_FACE_UP, O_POT, O_KNOWN_SET, O_KNOWN_ORDER, O_KNOWN_COUNT = range(18, 23)
G_FACE_UP, G_POT, G_PILE = range(23, 26)
# observe_history (§7): 1 to write the remembered slices, at offset O_HISTORY
P_HISTORY, O_HISTORY = 26, 27
P_SIZE = 28

_ONE = np.uint64(1)




@njit(cache=True, inline="always", _nrt=False)
def _first_with_cards(S, b, P):
    """The lowest seat that still holds cards (the next battle's first flip, §4.1)."""
    for s in range(P[P_N]):
        if S.size[b, s] > 0:
            return s
    return 0


# ---------------------------------------------------------------------- piles
@njit(cache=True, inline="always", _nrt=False)
def _pop(S, b, s, P):
    """Take the top card of seat ``s``'s pile (it holds one)."""
    h = S.head[b, s]
    card = S.piles[b, s, h]
    S.head[b, s] = (h + 1) % P[P_C]
    S.size[b, s] -= 1
    return card


@njit(cache=True, inline="always", _nrt=False)
def _append(S, b, w, card, P):
    """Put ``card`` under seat ``w``'s pile; the place records the battle whose pot it came in (§7)."""
    i = (S.head[b, w] + S.size[b, w]) % P[P_C]
    S.piles[b, w, i] = card
    S.pot_of[b, w, i] = S.battles[b]
    S.size[b, w] += 1


# ---------------------------------------------------------------------- end of the game (§6)
@njit(cache=True, inline="always", _nrt=False)
def _check_end(S, b, w, k, P):
    """Apply the objective after a battle won by ``w`` that brings ``k`` cards (§6); True if it ended
    (rewards, losers set). Pile sizes do not depend on the collection order (§4.2)."""
    N = P[P_N]
    holders = 0
    n_hold = 0
    for s in range(N):
        if S.size[b, s] + (k if s == w else 0) > 0:
            holders |= 1 << s
            n_hold += 1
    losers = 0
    for s in range(N):
        has = (holders >> s) & 1
        if P[P_FIRST_OUT]:
            if S.took_part[b, s] and not has:
                losers |= 1 << s
        elif has and n_hold == 1:
            losers |= 1 << s
    if losers == 0:
        return False
    L = np.float64(_popcount(np.uint64(losers)))
    share = L / (np.float64(N) - L)
    for s in range(N):
        lo = (losers >> s) & 1
        S.rewards[b, s] = np.float64(-1.0) if lo else share
        S.loser[b, s] = lo
    S.done[b] = True
    S.phase[b] = OVER
    return True


@njit(cache=True, inline="always", _nrt=False)
def _truncate(S, b, reason, P):
    """A safety stop (§6): the episode ends with no result, reward 0 for this step."""
    S.done[b] = True
    S.truncated[b] = True
    S.trunc_reason[b] = reason
    S.phase[b] = OVER
    for s in range(P[P_N]):
        S.rewards[b, s] = 0


@njit(cache=True, inline="always", _nrt=False)
def _cycle_check(S, b, P):
    """Brent-style exact cycle check after a battle (§6): truncate when every pile equals the saved
    one; save the piles (linearised, ``EMPTY`` past the end) when the battle count is a power of two."""
    N, C = P[P_N], P[P_C]
    same = True
    for s in range(N):
        if S.size[b, s] != S.saved_size[b, s]:
            same = False
            break
    if same:
        for s in range(N):
            h = S.head[b, s]
            for j in range(S.size[b, s]):
                if S.piles[b, s, (h + j) % C] != S.saved[b, s, j]:
                    same = False
                    break
            if not same:
                break
        if same:
            _truncate(S, b, TRUNC_CYCLE, P)
    t = S.battles[b]
    if (t & (t - 1)) == 0 and not S.done[b]:
        for s in range(N):
            h = S.head[b, s]
            n = S.size[b, s]
            for j in range(C):
                S.saved[b, s, j] = S.piles[b, s, (h + j) % C] if j < n else EMPTY
            S.saved_size[b, s] = n


# ---------------------------------------------------------------------- a battle (§5)
@njit(cache=True, inline="always", _nrt=False)
def _six_over_ace(stand, cont, P):
    """§2 six over ace, a set rule: True when ``six_beats_ace`` and the contenders' standing cards
    (``stand[s]`` for the seats in bit mask ``cont``) include both an ace and a six (the lowest rank)."""
    if not P[P_SIX]:
        return False
    top_rank = P[P_RANKS] - 1
    has_top = False
    has_low = False
    for s in range(P[P_N]):
        if (cont >> s) & 1:
            r = stand[s] % P[P_RANKS]
            has_top |= r == top_rank
            has_low |= r == 0
    return has_top and has_low


@njit(cache=True, inline="always", _nrt=False)
def _key(card, six_over_ace, P):
    """§2 the comparison key of a standing card: its rank index (0 = lowest), the six above the ace
    when ``six_over_ace`` (:func:`_six_over_ace`)."""
    r = card % P[P_RANKS]
    if six_over_ace and r == 0:
        return P[P_RANKS]
    return r


@njit(cache=True, _nrt=False)
def keys_batch(standing, cont, P, out):
    """§2 comparison keys ``out[i, s]`` (``int16[n, N]``) of the standing cards ``standing[i, s]`` of the
    contenders ``cont[i, s]`` (``bool``), -1 for the others (used by the worked-example tests)."""
    for i in range(out.shape[0]):
        mask = 0
        for s in range(P[P_N]):
            if cont[i, s]:
                mask |= 1 << s
        flip = _six_over_ace(standing[i], mask, P)
        for s in range(P[P_N]):
            out[i, s] = _key(standing[i, s], flip, P) if cont[i, s] else -1


@njit(cache=True, inline="always", _nrt=False)
def _record(S, b, n, card, tag):
    S.battle_cards[b, n] = card
    S.battle_tags[b, n] = tag
    return n + 1


@njit(cache=True, inline="always", _nrt=False)
def _fixed_order(P):
    """Whether the order a pot goes under its winner's pile is public (``"winner_first"``,
    ``"seat_order"``; §5 Collecting the pot)."""
    return P[P_ORDER] == WINNER_FIRST or P[P_ORDER] == SEAT_ORDER


@njit(cache=True, inline="always", _nrt=False)
def _forget(S, b, s, c, t, P):
    """Card ``c`` went down face down from the top of seat ``s``'s pile, a place of battle ``t``'s pot
    (§7, the public history). Its identity stays public where its place was (a shown card under the
    fixed orders); otherwise it is lost, and so, where the order inside that pot is not public
    (``random``, ``winner_chooses``), is every card still in that pot's stretch: any of them may be
    the one that went down."""
    fixed = _fixed_order(P)
    if fixed and (S.shown[b] >> np.uint64(c)) & _ONE:
        return
    S.shown[b] &= ~_bit(c)
    if fixed or t == 0:
        return
    C = P[P_C]
    for j in range(S.size[b, s]):
        i = (S.head[b, s] + j) % C
        if S.pot_of[b, s, i] == t:
            S.shown[b] &= ~_bit(S.piles[b, s, i])


@njit(cache=True, inline="always", _nrt=False)
def _resolve(S, b, P):
    """Reveal, compare and run the tie steps of one battle (§5.1-§5.5); returns the winner seat or
    -1 (dead battle). Records the battle's cards (``battle_*``, ``face_up``, ``n_down``, ``standing``)."""
    N = P[P_N]
    two = 2 * N
    active = 0
    n = 0
    for s in range(N):
        S.face_up[b, s] = 0
        S.n_down[b, s] = 0
        S.standing[b, s] = -1
        a = S.size[b, s] > 0
        S.took_part[b, s] = a
        if a:
            active |= 1 << s
            c = _pop(S, b, s, P)
            S.standing[b, s] = c
            S.face_up[b, s] |= _bit(c)
            n = _record(S, b, n, c, s * 2 + 1)
    cont = active
    step = 0
    result = -1
    first = True
    need = 2 if P[P_DOWN_UP] else 1
    while True:
        if not first and P[P_FORFEIT]:  # §5.4 forfeit: a lone contender wins, none left is dead
            nc = _popcount(np.uint64(cont))
            if nc == 1:
                result = _low_bit(np.uint64(cont))
                break
            if nc == 0:
                result = -1
                break
        # §2: compare the standing cards of the contenders, six over ace as a set
        flip = _six_over_ace(S.standing[b], cont, P)
        best = -1
        top = 0
        for s in range(N):
            if (cont >> s) & 1:
                r = _key(S.standing[b, s], flip, P)
                if r > best:
                    best = r
                    top = 1 << s
                elif r == best:
                    top |= 1 << s
        if _popcount(np.uint64(top)) == 1:
            result = _low_bit(np.uint64(top))
            break
        first = False
        # §5.2 a tie step: who takes part, who adds cards
        if not P[P_ALL_TIE]:
            cont = top
        part = cont
        step += 1
        added = False
        for s in range(N):
            if not (part >> s) & 1:
                continue
            sz = S.size[b, s]
            if sz >= need:
                if P[P_DOWN_UP]:
                    t = S.pot_of[b, s, S.head[b, s]]
                    c = _pop(S, b, s, P)
                    _forget(S, b, s, c, t, P)
                    S.n_down[b, s] += 1
                    n = _record(S, b, n, c, step * two + s * 2)
                up = True
            else:
                # §5.3 a last single card is played face up (last_card_stands); else the standing card stays
                up = P[P_DOWN_UP] and not P[P_FORFEIT] and sz == 1
            if up:
                c = _pop(S, b, s, P)
                S.standing[b, s] = c
                S.face_up[b, s] |= _bit(c)
                n = _record(S, b, n, c, step * two + s * 2 + 1)
                added = True
            elif P[P_FORFEIT]:
                cont &= ~(1 << s)
        if not added:  # §5.5 nobody can add a card: a dead battle
            result = -1
            break
    S.battle_n[b] = n
    S.battle_steps[b] = step + 1
    return result


@njit(cache=True, inline="always", _nrt=False)
def _collect(S, b, w, start, P):
    """Place the last battle's cards under ``w``'s pile (§5 Collecting the pot): steps in time order,
    within a step seats from ``start`` upwards, a seat's face-down card before its face-up one."""
    N = P[P_N]
    two = 2 * N
    n = S.battle_n[b]
    i = 0
    while i < n:
        t = S.battle_tags[b, i] // two
        j = i
        while j < n and S.battle_tags[b, j] // two == t:
            j += 1
        for k in range(i, j):  # seats start..N-1
            if (S.battle_tags[b, k] % two) // 2 >= start:
                _append(S, b, w, S.battle_cards[b, k], P)
        for k in range(i, j):  # then 0..start-1
            if (S.battle_tags[b, k] % two) // 2 < start:
                _append(S, b, w, S.battle_cards[b, k], P)
        i = j
    S.pot[b] = 0


@njit(cache=True, inline="always", _nrt=False)
def _clamp_known(S, b, P):
    """A seat's own ordered part (``known``, §7) holds no more cards than its pile after a battle took
    cards from the top."""
    for s in range(P[P_N]):
        if S.known[b, s] > S.size[b, s]:
            S.known[b, s] = S.size[b, s]


@njit(cache=True, inline="always", _nrt=False)
def _after_collect(S, b, ended, P):
    """The end of a battle once the pot is placed: known parts, the cap, the cycle check, the next flip (§6)."""
    _clamp_known(S, b, P)
    if ended:
        return
    if S.battles[b] >= P[P_MAX_BATTLES]:
        _truncate(S, b, TRUNC_CAP, P)
        return
    if P[P_CYCLES]:
        _cycle_check(S, b, P)
    if not S.done[b] and S.phase[b] == FLIP_PHASE:
        S.current_player[b] = _first_with_cards(S, b, P)


@njit(cache=True, inline="always", _nrt=False)
def _battle(S, b, P):
    """Resolve one battle of game ``b`` (every active seat has flipped), §5-§6. Returns 0 or
    :data:`NEED_COLLECT` (``collect_order="random"``: the order is drawn outside)."""
    w = _resolve(S, b, P)
    pot = np.uint64(0)
    for i in range(S.battle_n[b]):
        c = S.battle_cards[b, i]
        pot |= _bit(c)
        if S.battle_tags[b, i] & 1:  # the public history a seat remembers (§7; ``determinize``)
            S.shown[b] |= _bit(c)
            S.seen[b] |= _bit(c)
    S.battles[b] += 1
    S.winner[b] = w
    order = P[P_ORDER]
    if w < 0:  # §5.5 dead battle: a draw, the pot stays on the table
        _clamp_known(S, b, P)  # (its ordered cards a seat put down are in that pot now)
        S.pot[b] = pot
        S.done[b] = True
        S.draw[b] = True
        S.phase[b] = OVER
        return 1 if order == RANDOM else 0
    ended = _check_end(S, b, w, _popcount(pot), P)
    capped = not ended and S.battles[b] >= P[P_MAX_BATTLES]
    if order == RANDOM and not capped:
        return NEED_COLLECT
    if order == WINNER_CHOOSES and not (ended or capped):
        S.pot[b] = pot
        S.phase[b] = ORDER_PHASE
        S.current_player[b] = w
    else:
        # seat order collects from seat 0; winner first from the winner, and so does the battle that
        # reaches max_battles in every collect_order ("collected in the default order": RULES.md §11.2, the
        # specification's §12.2) and a
        # winner-chooses pot that ends the game (nobody orders it). One call site: each inlined copy
        # of _collect costs compile time in every driver.
        _collect(S, b, w, 0 if order == SEAT_ORDER and not capped else w, P)
        if order == WINNER_CHOOSES:  # that pot now lies under the part the winner ordered: no bottom part is its own (§7)
            S.known[b, w] = 0
    _after_collect(S, b, ended, P)
    return 0


# ---------------------------------------------------------------------- decisions (§4)
@njit(cache=True, inline="always", _nrt=False)
def _order(S, b, card, P):
    """``ORDER(card)`` (§4.2): put ``card`` under the winner's pile; the last pot card follows by itself."""
    w = S.current_player[b]
    _append(S, b, w, card, P)
    S.known[b, w] += 1
    pot = S.pot[b] ^ _bit(card)
    S.pot[b] = pot
    if pot != 0 and (pot & (pot - _ONE)) == 0:
        _append(S, b, w, _low_bit(pot), P)
        S.known[b, w] += 1
        S.pot[b] = 0
        S.phase[b] = FLIP_PHASE
        S.current_player[b] = _first_with_cards(S, b, P)


@njit(cache=True, inline="always", _nrt=False)
def step_one(S, b, action, P):
    """Apply the legal ``action`` of live game ``b`` and advance to its next decision (§4-§6).

    ``FLIP`` passes the turn to the next seat up that holds cards; the last one resolves the whole
    battle. Returns 0, or :data:`NEED_COLLECT` (the caller draws ``S.collect[b]`` and calls :func:`deal_one`)."""
    if S.phase[b] == ORDER_PHASE:
        _order(S, b, action, P)
        return 0
    cur = S.current_player[b]
    for s in range(cur + 1, P[P_N]):
        if S.size[b, s] > 0:
            S.current_player[b] = s
            return 0
    return _battle(S, b, P)


@njit(cache=True, inline="always", _nrt=False)
def deal_one(S, b, code, P):
    """Go on after the chance of ``code`` was drawn: :data:`NEED_COLLECT` places the pot in the drawn
    order ``S.collect[b, :battle_n]`` under the winner's pile and ends the battle (nothing after a dead one).
    The end of a battle of §5 (collection order: §8 ``collect_order``)."""
    if S.draw[b]:
        return
    w = S.winner[b]
    for i in range(S.battle_n[b]):
        _append(S, b, w, S.collect[b, i], P)
    S.pot[b] = 0
    _after_collect(S, b, S.done[b], P)


@njit(cache=True, _nrt=False)
def play_battle_batch(S, P, need):
    """One whole battle in every live game in the flip phase (``PyanitsaKernel.play_battle``):
    rewards zeroed first; ``need[b]`` gets the chance code (``int64[B]``). A battle: §5."""
    for b in range(need.shape[0]):
        for s in range(S.rewards.shape[1]):
            S.rewards[b, s] = 0
        need[b] = 0
        if not S.done[b] and S.phase[b] == FLIP_PHASE:
            need[b] = _battle(S, b, P)


# ---------------------------------------------------------------------- legal actions (§4)
@njit(cache=True, inline="always", _nrt=False)
def legal_bits(S, b, P):
    """Legal actions of game ``b`` as a ``uint64`` bitboard: ``FLIP`` (bit ``C``), or the pot's
    cards while the winner orders it; 0 when the game is over (§4)."""
    if S.done[b]:
        return np.uint64(0)
    ph = S.phase[b]
    if ph == FLIP_PHASE:
        return _bit(P[P_C])
    if ph == ORDER_PHASE:
        return S.pot[b]
    return np.uint64(0)


@njit(cache=True, inline="always", _nrt=False)
def legal_one(S, b, P, out):
    """Legal actions of game ``b`` into ``out`` (``uint64[1]``, zeroed by the caller; action ``a`` is bit
    ``a``): :func:`legal_bits`, the FLIP and ORDER decisions of §4."""
    out[0] = legal_bits(S, b, P)


# ---------------------------------------------------------------------- observation (§7)
@njit(cache=True, inline="always", _nrt=False)
def _write_public(S, b, p, P, out):
    """The public slices (§7) from seat ``p``'s view, seats relative to ``p``."""
    N = P[P_N]
    for r in range(N):
        s = (p + r) % N
        n = S.size[b, s]
        out[P[O_SIZE] + r] = n
        out[P[O_OUT] + r] = n == 0
        out[P[O_DOWN] + r] = S.n_down[b, s]
    ph = S.phase[b]
    if ph < OVER:
        out[P[O_TO_ACT] + (S.current_player[b] - p) % N] = 1
        out[P[O_PHASE] + min(ph, 1)] = 1
    w = S.winner[b]
    if w >= 0:
        out[P[O_WINNER] + (w - p) % N] = 1
    t = min(S.battles[b], 65535)  # two bytes: a longer game shows 65535
    out[P[O_BATTLES]] = t & 255
    out[P[O_BATTLES] + 1] = t >> 8


@njit(cache=True, inline="always", _nrt=False)
def _remembered_pot(t, last, fixed):
    """Whether every seat remembers where the face-up cards of the pot at a pile place lie (§7):
    ``t`` is the place's ``pot_of`` (the battle whose pot put the card there; 0: the deal),
    ``last`` the number of battles so far, ``fixed`` :func:`_fixed_order`. An earlier battle's pot
    is remembered; the last battle's too under the fixed orders (otherwise its cards are still
    being placed, or lie in the winner's bottom part in an order only the winner knows)."""
    return t > 0 and (fixed or t < last)


@njit(cache=True, _nrt=False)
def remembered_pots_batch(S, P, out):
    """``out`` (``bool[B, N, C]``, by offset from the top of seat ``s``'s pile): whether that place
    holds a card of a remembered pot (:func:`_remembered_pot`, §7). ``determinize`` keeps the face-up
    cards there (in their place, or in their pot's stretch); :func:`_write_history` shows them."""
    N, C = P[P_N], P[P_C]
    fixed = _fixed_order(P)
    for b in range(S.size.shape[0]):
        last = S.battles[b]
        for s in range(N):
            h = S.head[b, s]
            for j in range(S.size[b, s]):
                out[b, s, j] = _remembered_pot(S.pot_of[b, s, (h + j) % C], last, fixed)


@njit(cache=True, inline="always", _nrt=False)
def _write_history(S, b, seat, P, out):
    """``observe_history`` (§7): for each seat ``r`` (relative) and card ``c``, ``1 +`` the offset from
    the top of ``r``'s pile of ``c``'s place where that place is public (the fixed orders; the seat's
    own ordered part), else of the first place of its pot's stretch (``random``, ``winner_chooses``:
    the order inside the pot is not known), for every card last put down face up in an earlier
    battle (the last one too under the fixed orders); 0 for the others."""
    N, C = P[P_N], P[P_C]
    fixed = _fixed_order(P)
    last = S.battles[b]
    shown = S.shown[b]
    for r in range(N):
        s = (seat + r) % N
        h = S.head[b, s]
        n = S.size[b, s]
        own_from = n - S.known[b, s] if s == seat else n
        base = P[O_HISTORY] + r * C
        prev = -1
        first = 0
        for j in range(n):
            i = (h + j) % C
            t = S.pot_of[b, s, i]
            if t != prev:
                prev = t
                first = j
            c = S.piles[b, s, i]
            if j >= own_from:
                out[base + c] = j + 1
            elif _remembered_pot(t, last, fixed) and (shown >> np.uint64(c)) & _ONE:
                out[base + c] = j + 1 if fixed else first + 1


@njit(cache=True, inline="always", _nrt=False)
def observe_one(S, b, seat, P, out):
    """Seat ``seat``'s observation of game ``b`` into ``out`` (``uint8[D]``, zeroed), laid out as
    :func:`cardzoo.envs.pyanitsa.observation.observation_layout` (§7: only what the seat may know)."""
    N, C = P[P_N], P[P_C]
    _write_public(S, b, seat, P, out)
    for r in range(N):
        _write_set(out, P[O_FACE_UP] + r * C, S.face_up[b, (seat + r) % N])
    if P[P_HISTORY]:
        _write_history(S, b, seat, P, out)
    if P[P_ORDER] != WINNER_CHOOSES:
        return
    if S.phase[b] == ORDER_PHASE and S.current_player[b] == seat and not S.done[b]:
        _write_set(out, P[O_POT], S.pot[b])
    nk = S.known[b, seat]
    out[P[O_KNOWN_COUNT]] = nk
    start = S.head[b, seat] + S.size[b, seat] - nk
    for j in range(nk):
        card = S.piles[b, seat, (start + j) % C]
        out[P[O_KNOWN_SET] + card] = 1
        out[P[O_KNOWN_ORDER] + j] = card + 1


@njit(cache=True, inline="always", _nrt=False)
def global_one(S, b, P, out):
    """Game ``b``'s perfect-information vector into ``out`` (``uint8[S]``, zeroed), laid out as
    :func:`cardzoo.envs.pyanitsa.observation.state_layout` (seats absolute): the piles' order and
    the face-down pot cards §7 hides from the players, for a perfect-information critic."""
    N, C = P[P_N], P[P_C]
    _write_public(S, b, 0, P, out)
    for s in range(N):
        _write_set(out, P[G_FACE_UP] + s * C, S.face_up[b, s])
    _write_set(out, P[G_POT], S.pot[b])
    for s in range(N):
        h = S.head[b, s]
        for j in range(S.size[b, s]):
            out[P[G_PILE] + s * C + j] = S.piles[b, s, (h + j) % C] + 1
