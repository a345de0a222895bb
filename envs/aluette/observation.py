"""Aluette observation and state vectors (``RULES.md`` §7 Information).

Observations are seat-relative: index 0 = me, 1 = next (my left, plays after me), 2 =
partner, 3 = previous. Teams are "mine" then "theirs". Values are small non-negative
integers stored as ``uint8``; each slice's ``high`` bounds it.

The vector is built as one bit stream (card sets, then three words of public facts and
signals) unpacked in one call, with the counters written into the stream's tail.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import unpack_stream
from ..core.kernel import Layout
from .constants import ALL_CARDS, NUM_CARDS, NUM_SIGNALS, NUM_TRICKS, PLAY, SIGNALS

REL = ("me", "next", "partner", "previous")
_U64 = np.uint64
_ONE = _U64(1)
_PUB_BITS = 42
_RES_BITS = 5 * NUM_TRICKS
_SIG_BITS = 4 * NUM_SIGNALS


def _public(L: Layout, signal_meaning: str, score_high: int, deal_high: int, names=REL) -> None:
    L.add("phase", 6, "chant vote / chant discards / signalling round / surrender offers / surrender answer / trick play")
    L.add("dealer", 4, "dealer, seat-relative (me, next, partner, previous)")
    L.add("leader", 4, "leader of the current trick, seat-relative")
    L.add("to_act", 4, "seat to act, seat-relative")
    L.add("trick_top", 4, "seat of the single highest card in the current trick, seat-relative (none if tied)")
    L.add("trick_tied", 1, "the highest power in the current trick is tied (spoiled if it stays so)")
    L.add("chanted", 1, "the chant took place this deal")
    L.add("chant_recipients", 4, "the two seats that received the talon, seat-relative")
    L.add("chant_accepted", 4, "seats that accepted the chant, seat-relative")
    L.add("chant_refused", 4, "seat that refused the chant, seat-relative")
    L.add("surrender_offerer", 4, "seat that offered surrender, seat-relative")
    L.add("surrender_refused", 1, "the offer was refused (the answering team is committed to mordienne)")
    L.add("surrender_accepted", 1, "the offer was accepted (the deal ended)")
    L.add("trick_results", _RES_BITS, "trick t (0-8): 5 entries at 5t: winner me/next/partner/previous, spoiled")
    for r in names:
        L.add(f"signals[{r}]", NUM_SIGNALS, signal_meaning.format(r=r) + " (" + " ".join(SIGNALS) + ")")
    L.add("trick_top_power", 1, "power (§2, 1-19) of the highest card in the current trick (0 when empty)", high=19)
    L.add("cards_in_trick", 1, "cards played to the current trick (0-3)", high=3)
    L.add("tricks_done", 1, "tricks completed this deal", high=9)
    for r in names:
        L.add(f"tricks_won[{r}]", 1, f"tricks won this deal by {r}", high=9)
    L.add("deals", 1, "deals completed in this episode", high=deal_high)
    L.add("deal_points", 2, "points of the last scored deal: my team, their team", high=2)
    L.add("score", 2, "match score: my team, their team (clipped)", high=score_high)


def observation_layout(score_high: int, deal_high: int) -> Layout:
    """Named slices of the observation vector (print with ``Layout.table()``)."""
    L = Layout()
    L.add("hand", 48, "cards I hold")
    L.add("received", 48, "talon cards I received in the chant")
    L.add("discarded", 48, "cards I discarded in the chant")
    for r in REL:
        L.add(f"played_by[{r}]", 48, f"cards played this deal by {r} (current trick included)")
    L.add("trick", 48, "cards in the current trick")
    _public(L, "signals from {r} that I observed (me: the ones I sent)", score_high, deal_high)
    return L


def state_layout(score_high: int, deal_high: int) -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats, team A = mine)."""
    L = Layout()
    for name, what in (("hand", "holds"), ("played_by", "played this deal"), ("received", "received in the chant"),
                       ("discarded", "discarded in the chant")):
        for s in range(4):
            L.add(f"{name}[S{s}]", 48, f"cards seat {s} {what}")
    L.add("talon", 48, "the 12 talon cards (dealt in the chant or unused)")
    L.add("trick", 48, "cards in the current trick")
    _public(L, "signals sent by {r}", score_high, deal_high, names=("S0", "S1", "S2", "S3"))
    return L


def _stream(rows: list[np.ndarray], widths: list[int], nwords: int) -> np.ndarray:
    """Concatenate the low ``widths[i]`` bits of ``rows[i]`` (``uint64[B]``) into ``uint64[B, nwords]``."""
    B = rows[0].shape[0]
    out = np.zeros((nwords, B), dtype=_U64)
    pos = 0
    for row, width in zip(rows, widths):
        w, off = divmod(pos, 64)
        out[w] |= row << _U64(off)
        if off + width > 64:
            out[w + 1] |= row >> _U64(64 - off)
        pos += width
    return np.ascontiguousarray(out.T)


# Seat fields are first written at absolute seats, then every 4-bit seat group of a word is rotated
# right by the viewpoint p at once (absolute seat s -> relative (s - p) % 4).
_PUB_NIBBLES = (6, 10, 14, 18, 24, 28, 32, 36)  # dealer leader to_act trick_top recipients accepted refused offerer
_RES_NIBBLES = tuple(5 * t for t in range(NUM_TRICKS))


def _rotation_masks(starts):
    nib = sum(0xF << a for a in starts)
    keep = [sum((((0xF << q) & 0xF) << a) for a in starts) for q in range(4)]
    return _U64(nib), np.array(keep, dtype=_U64), np.array([nib & ~k for k in keep], dtype=_U64)


_PUB_ROT = _rotation_masks(_PUB_NIBBLES)
_RES_ROT = _rotation_masks(_RES_NIBBLES)


def _rotate(w: np.ndarray, p: np.ndarray, masks) -> np.ndarray:
    """Rotate each 4-bit seat group of ``w`` right by ``p`` (``uint64[B]``, ``int64[B]``)."""
    nib, keep, wrap = masks
    pu = p.astype(_U64)
    return (w & ~nib) | ((w & keep[p]) >> pu) | ((w & wrap[p]) << (_U64(4) - pu))


_SH = [_U64(i) for i in range(64)]


def _public_words(kernel, st, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The public one-hots/flags word and the trick-results word for viewpoints ``p``."""
    ph = st.phase
    live = ph < 6
    w = np.where(live, _ONE << np.minimum(ph, 5).astype(_U64), _U64(0))
    w |= _ONE << (st.dealer.astype(_U64) + _SH[6])
    w |= (ph == PLAY).astype(_U64) << (st.leader.astype(_U64) + _SH[10])
    w |= live.astype(_U64) << (st.current_player.astype(_U64) + _SH[14])
    n = st.n_in_trick > 0
    single = st.top_count == 1
    w |= (n & single).astype(_U64) << (st.top_seat.astype(_U64) + _SH[18])
    w |= (n & ~single).astype(_U64) << _SH[22]
    ch = st.chanted
    w |= ch.astype(_U64) << _SH[23]
    if ch.any():
        d = st.dealer.astype(_U64)
        rec = (_ONE << ((d + _U64(1)) % _U64(4))) | (_ONE << ((d + _U64(kernel.second_offset)) % _U64(4)))
        w |= np.where(ch, rec, _U64(0)) << _SH[24]
    v = st.votes
    for s in range(4):
        w |= (v[:, s] == 1).astype(_U64) << _SH[28 + s]
        w |= (v[:, s] == 0).astype(_U64) << _SH[32 + s]
    off = st.offerer
    w |= (off >= 0).astype(_U64) << (np.maximum(off, 0).astype(_U64) + _SH[36])
    w |= st.refused.astype(_U64) << _SH[40]
    w |= st.accepted.astype(_U64) << _SH[41]
    return _rotate(w, p, _PUB_ROT), _rotate(st.res_word, p, _RES_ROT)


def _counters(st, p: np.ndarray, out: np.ndarray, deal_high: int, score_high: int) -> None:
    """Write the counters of :func:`_public` (from ``trick_top_power`` on) into ``out[B, 12]``
    (built in a small contiguous array, then copied into the strided view in one go)."""
    B = st.batch_size
    c = np.empty((B, 12), dtype=np.uint8)
    c[:, 0] = st.top
    c[:, 1] = st.n_in_trick
    c[:, 2] = st.tricks_done
    base = np.arange(0, 4 * B, 4)
    c[:, 3:7] = st.won.reshape(-1)[base[:, None] + _ROT[p]]
    c[:, 7] = np.minimum(st.deals, deal_high)
    odd = (p & 1).astype(bool)[:, None]
    for j, (arr, cap) in enumerate(((st.points, 2), (st.score, score_high))):
        a = np.minimum(arr, cap)
        c[:, 8 + 2 * j : 10 + 2 * j] = np.where(odd, a[:, ::-1], a)
    out[:] = c


_ROT = (np.arange(4)[:, None] + np.arange(4)) % 4  # _ROT[p, r]: absolute seat of relative seat r
_MASK40 = _U64((1 << _SIG_BITS) - 1)


def _assemble(L: Layout, rows: list[np.ndarray], widths: list[int], st, p: np.ndarray) -> np.ndarray:
    nbits = sum(widths)
    nwords = (L.size + 63) // 64
    stream = _stream(rows, widths, nwords)
    buf = unpack_stream(stream, nwords * 64)
    e = L.entries
    _counters(st, p, buf[:, nbits : L.size], e[-5].high, e[-1].high)
    return buf[:, : L.size]


def observe(kernel, st, seat) -> np.ndarray:
    """``uint8[B, D]`` observation of ``seat`` (int or ``int[B]``), layout :func:`observation_layout`."""
    B = st.batch_size
    p = np.broadcast_to(np.asarray(seat, dtype=np.int64), (B,))
    base = np.arange(0, 4 * B, 4)
    mine = base + p
    played = st.played.reshape(-1)[(base[:, None] + _ROT[p]).T]
    pub, res = _public_words(kernel, st, p)
    h = st.heard.reshape(-1)[mine]
    sh = (10 * p).astype(_U64)
    heard = ((h >> sh) | (h << (_U64(_SIG_BITS) - sh))) & _MASK40
    rows = [st.hands.reshape(-1)[mine], st.received.reshape(-1)[mine], st.discarded.reshape(-1)[mine], *played,
            st.trick, pub, res, heard]
    widths = [NUM_CARDS] * 8 + [_PUB_BITS, _RES_BITS, _SIG_BITS]
    return _assemble(kernel.obs_layout, rows, widths, st, p)


def global_state(kernel, st) -> np.ndarray:
    """``uint8[B, S]`` perfect-information vector, layout :func:`state_layout` (team A = "mine")."""
    B = st.batch_size
    p = np.zeros(B, dtype=np.int64)
    pub, res = _public_words(kernel, st, p)
    sent = np.zeros(B, dtype=_U64)
    for s in range(4):
        sent |= st.sent[:, s].astype(_U64) << _U64(10 * s)
    rows = [*st.hands.T, *st.played.T, *st.received.T, *st.discarded.T, st.talon, st.trick, pub, res, sent]
    widths = [NUM_CARDS] * 18 + [_PUB_BITS, _RES_BITS, _SIG_BITS]
    return _assemble(kernel.state_layout, rows, widths, st, p)


assert int(ALL_CARDS).bit_length() == NUM_CARDS
