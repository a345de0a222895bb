"""Avinas observation and state vectors (``RULES.md`` §7 Information).

Observations are seat-relative: index 0 = me, 1 = next (my left, plays after me), 2 = partner,
3 = previous; teams are "mine" then "theirs". Values are small non-negative integers stored as
``uint8``; each slice's ``high`` bounds it (counters are clipped there).

What a seat sees of the hidden parts (§7): its own hand; the exposed 4th/8th cards of every
seat; as dealer, the partner's hidden 4th/8th cards; the face-down card of the current trick
only if it led it (everyone once the trick ends); the "valuable" bit only as the leader's partner.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import unpack_stream
from ..core.kernel import Layout
from .constants import CALLING, DECLARING, KNOCKING, PLAY, SIGNAL, STOPPING

REL = ("me", "next", "partner", "previous")
_U64 = np.uint64
_NSETS = 11


def _cards(L: Layout, omniscient: bool) -> None:
    if omniscient:
        for s in range(4):
            L.add(f"hand[S{s}]", 32, f"cards seat {s} holds")
        for s in range(4):
            L.add(f"played_by[S{s}]", 32, f"cards seat {s} played this deal (a face-down card included)")
        L.add("trick", 32, "cards in the current trick (a face-down card included)")
        L.add("exposed", 32, "4th/8th cards turned face up at the deal")
        L.add("dealer_seen", 32, "the dealer's side's 4th/8th cards seen by the dealer alone")
        L.add("facedown_card", 32, "the face-down card of the current trick")
        return
    L.add("hand", 32, "cards I hold")
    for r in REL:
        L.add(f"played_by[{r}]", 32, f"cards played this deal by {r}, face up or revealed (current trick included)")
    L.add("trick", 32, "cards I can see in the current trick")
    for r in REL:
        L.add(f"shown[{r}]", 32, f"cards held by {r} that I have seen (exposed; as dealer, partner's 4th/8th)")
    L.add("seen_by_dealer", 32, "my cards the dealer saw privately (I am the dealer's partner)")


def _public(L: Layout, pip_limit: int) -> None:
    # 0/1 slices first (packed into one 64-bit word, see _public_word), then the counters
    L.add("game", 2, "sevens game / no-sevens game")
    L.add("phase", 6, "knocks / calls / naming trumps / face-down signal / trick play / stop or continue")
    L.add("trump", 4, "trump suit C D H S (all 0 until named)")
    L.add("led", 5, "led to the current trick: C D H S plain, or trumps (a face-down lead counts as trumps)")
    for name, meaning in _SEAT_FIELDS:
        L.add(name, 4, f"{meaning}, seat-relative (me, next, partner, previous)")
    L.add("signal", 2, "partner's face-down card is valuable / not valuable (only its leader's partner sees it)")
    L.add("last_loser", 2, "the last scored deal was lost by: my team / their team")
    L.add("last_flags", 3, "last scored deal: sevens game / its declarer lied / its declarer stopped")
    L.add("calls", 4, "calls seat-relative: 0 not yet, 1 pass, N+1 = call N", high=9)
    L.add("high_call", 1, "highest call so far", high=8)
    L.add("tricks_done", 1, "tricks completed this deal", high=8)
    L.add("tricks_won", 2, "tricks won this deal: my team, their team", high=8)
    L.add("card_points", 2, "card points won this deal: my team, their team", high=120)
    L.add("rams", 2, "rams held: my team, their team (clipped)", high=64)
    L.add("pips", 2, "pips: my team, their team (clipped)", high=pip_limit + 6)
    L.add("deals", 1, "deals scored in this match (clipped)", high=255)
    L.add("throw_ins", 1, "consecutive thrown-in deals (clipped)", high=255)
    L.add("last_penalty", 1, "rams or pips the last loser received (clipped)", high=64)


_SEAT_FIELDS = (
    ("dealer", "dealer"),
    ("declarer", "declarer (all 0 until known)"),
    ("leader", "leader of the current trick"),
    ("to_act", "seat to act"),
    ("trick_winner", "seat winning the current trick so far"),
    ("facedown_leader", "seat that led face down to the current trick"),
    ("knocked", "seats that knocked (or knocked back) this deal"),
)
_PUB_BITS = 2 + 6 + 4 + 5 + 4 * len(_SEAT_FIELDS) + 2 + 2 + 3  # 52


def observation_layout(pip_limit: int) -> Layout:
    """Named slices of the observation vector (print with ``Layout.table()``)."""
    L = Layout()
    _cards(L, False)
    _public(L, pip_limit)
    return L


def state_layout(pip_limit: int) -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats; "me" = seat 0)."""
    L = Layout()
    _cards(L, True)
    _public(L, pip_limit)
    return L


_ROT = (np.arange(4)[:, None] + np.arange(4)) % 4  # _ROT[p, r]: absolute seat of relative seat r
_PHASE_COL = np.full(8, -1)
for _i, _ph in enumerate((KNOCKING, CALLING, DECLARING, SIGNAL, PLAY, STOPPING)):
    _PHASE_COL[_ph] = _i


_U = np.uint64


def _bits(cond, pos) -> np.ndarray:
    """``uint64[B]``: bit ``pos`` (int or ``int64[B]``) where ``cond``."""
    return np.asarray(cond).astype(_U) << np.asarray(pos).astype(_U)


def _public_word(st, p: np.ndarray, omniscient: bool) -> np.ndarray:
    """``uint64[B]`` of the 0/1 public slices for viewpoint seats ``p`` (``int64[B]``), bit ``i``
    = entry ``i`` after the card sets (layout order of :func:`_public`)."""
    live = ~st.done
    ph = _PHASE_COL[st.phase]
    w = _bits(True, st.game.astype(np.int64))
    w |= _bits(ph >= 0, 2 + np.maximum(ph, 0))
    t = st.trump.astype(np.int64)
    w |= _bits(t >= 0, 8 + np.maximum(t, 0))
    led = st.led.astype(np.int64)
    w |= _bits(led >= 0, 12 + np.maximum(led, 0))
    off = 17
    in_play = live & ((st.phase == PLAY) | (st.phase == SIGNAL) | (st.phase == STOPPING))
    for seat, ok in ((st.dealer, None), (st.declarer, None), (st.leader, in_play), (st.current_player, live),
                     (st.trick_winner, None), (st.fd_seat, None)):
        s64 = seat.astype(np.int64)
        valid = s64 >= 0 if ok is None else ok & (s64 >= 0)
        w |= _bits(valid, off + ((s64 - p) & 3))
        off += 4
    for s in range(4):
        w |= _bits(st.knocked[:, s], off + ((s - p) & 3))
    off += 4
    sig = st.signal.astype(np.int64)
    see = (sig >= 0) & (st.fd_seat >= 0)
    if not omniscient:  # the signal: only the face-down leader's partner
        see &= (st.fd_seat.astype(np.int64) + 2) % 4 == p
    w |= _bits(see, off + 1 - np.maximum(sig, 0))
    off += 2
    ll = st.last_loser.astype(np.int64)
    w |= _bits(ll >= 0, off + ((ll - p) & 1))
    off += 2
    w |= _bits(st.last_game == 0, off) | _bits(st.last_lied, off + 1) | _bits(st.last_stopped, off + 2)
    return w


def _counters(st, p: np.ndarray, out: np.ndarray, pips_high: int) -> None:
    """Write the counter slices (calls .. last_penalty, 17 columns) into ``out[B, 17]``."""
    B = st.batch_size
    final, out = out, np.empty((B, 17), dtype=np.uint8)  # filled compactly, copied once
    out[:, 0:4] = st.calls.reshape(-1)[np.arange(0, 4 * B, 4)[:, None] + _ROT[p]] + 1
    out[:, 4] = st.high_call
    out[:, 5] = st.tricks_done
    rb = st.ram_balance.astype(np.int16)
    rams = np.stack([np.clip(rb, 0, 64), np.clip(-rb, 0, 64)], axis=1)
    pairs = np.concatenate([st.tricks_won.astype(np.int16), st.points, rams, np.minimum(st.pips, pips_high)], axis=1)
    swapped = pairs.reshape(B, 4, 2)[:, :, ::-1].reshape(B, 8)
    out[:, 6:14] = np.where((p & 1).astype(bool)[:, None], swapped, pairs)  # mine first
    out[:, 14] = np.minimum(st.deals, 255)
    out[:, 15] = np.minimum(st.throw_ins, 255)
    out[:, 16] = np.minimum(st.last_penalty, 64)
    final[:] = out


def _assemble(L: Layout, sets: np.ndarray, st, p: np.ndarray, omniscient: bool) -> np.ndarray:
    """Card sets (``uint64[k, B]``, 32 bits each) + the public word -> one bit stream, unpacked in
    one call; the counters go into the stream's padding; returns a ``[B, D]`` view."""
    k, B = sets.shape
    nbits = 32 * k + _PUB_BITS
    nwords = (L.size + 63) // 64
    stream = np.zeros((B, nwords), dtype=_U)
    for i in range(k):
        w, sh = divmod(32 * i, 64)
        stream[:, w] |= sets[i] << _U(sh)
    pub = _public_word(st, p, omniscient)
    w, sh = divmod(32 * k, 64)
    stream[:, w] |= pub << _U(sh)
    if sh:
        stream[:, w + 1] |= pub >> _U(64 - sh)
    buf = unpack_stream(stream, nwords * 64)
    _counters(st, p, buf[:, nbits : L.size], next(e.high for e in L.entries if e.name == "pips"))
    return buf[:, : L.size]


def observe(kernel, st, seat) -> np.ndarray:
    """``uint8[B, D]`` observation of ``seat`` (int or ``int[B]``), layout :func:`observation_layout`."""
    B = st.batch_size
    p = np.broadcast_to(np.asarray(seat, dtype=np.int64), (B,))
    base = np.arange(0, 4 * B, 4)
    rot = (base[:, None] + _ROT[p]).T  # [4, B] flat indices of relative seats
    # the face-down card of the current trick is hidden from everyone but its leader
    fd = st.fd_seat
    hide = np.where((fd >= 0) & (fd != p), st.trick_card.reshape(-1)[base + np.maximum(fd, 0)].astype(np.int64), -1)
    hidden = np.where(hide >= 0, np.left_shift(_U64(1), np.maximum(hide, 0).astype(_U64)), _U64(0))
    keep = ~hidden
    hands = st.hands.reshape(-1)
    sets = np.empty((_NSETS, B), dtype=_U64)
    sets[0] = hands[base + p]
    sets[1:5] = st.played.reshape(-1)[rot] & keep
    sets[5] = st.trick & keep
    seen_all = st.exposed
    is_dealer = st.dealer.astype(np.int64) == p
    mine = np.where(is_dealer, seen_all | st.dealer_seen, seen_all)
    # a face-down card stays "held" for the others until its trick ends: an exposed (or, for the
    # dealer, privately seen) card led face down must not vanish from its leader's shown set
    rel_fd = np.where(fd >= 0, (fd.astype(np.int64) - p) % 4, -1)
    held = hands[rot] | np.where(np.arange(4)[:, None] == rel_fd[None, :], hidden[None, :], _U64(0))
    sets[6:10] = held & mine
    partner_of_dealer = (st.dealer.astype(np.int64) + 2) % 4 == p
    sets[10] = np.where(partner_of_dealer, sets[0] & st.dealer_seen, _U64(0))
    return _assemble(kernel.obs_layout, sets, st, p, False)


def global_state(kernel, st) -> np.ndarray:
    """``uint8[B, S]`` perfect-information vector, layout :func:`state_layout` (seat 0 = "me")."""
    B = st.batch_size
    sets = np.empty((_NSETS, B), dtype=_U64)
    sets[0:4] = st.hands.T
    sets[4:8] = st.played.T
    sets[8] = st.trick
    sets[9] = st.exposed
    sets[10] = st.dealer_seen
    fd = st.fd_seat
    card = st.trick_card[np.arange(B), np.maximum(fd, 0)].astype(np.int64)
    fdc = np.where((fd >= 0) & (card >= 0), np.left_shift(_U64(1), np.maximum(card, 0).astype(_U64)), _U64(0))
    sets = np.concatenate([sets, fdc[None]], axis=0)
    return _assemble(kernel.state_layout, sets, st, np.zeros(B, dtype=np.int64), True)
