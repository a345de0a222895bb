"""All Fours observation and state vectors (``RULES.md`` §7 Information).

Observations are seat-relative: index 0 = me, 1 = next (my right, acts after me),
2 = partner, 3 = previous. Teams are "mine" then "theirs". Values are small non-negative
integers stored as ``uint8``; each slice's ``high`` bounds it (counts are clipped there).
"""

from __future__ import annotations

import numpy as np

from ..core.cards import concat_bits, unpack_stream
from ..core.kernel import Layout
from .constants import ALL_CARDS

REL = ("me", "next", "partner", "previous")
_NSETS = 7


def observation_layout(target: int) -> Layout:
    """Named slices of the observation vector (print with ``Layout.table()``)."""
    L = Layout()
    L.add("hand", 52, "cards I hold")
    for r in REL:
        L.add(f"played_by[{r}]", 52, f"cards played this deal by {r} (current trick included)")
    L.add("trick", 52, "cards in the current trick")
    L.add("kicked", 52, "every card turned up this deal (out of play)")
    _public(L, target)
    return L


def _public(L: Layout, target: int) -> None:
    L.add("trump", 4, "trump suit (during the beg decision: the proposed suit) C D H S")
    L.add("led_suit", 4, "suit led to the current trick, C D H S (all 0 when leading)")
    L.add("phase", 3, "beggar decides / dealer decides / trick play")
    L.add("dealer", 4, "dealer, seat-relative (me, next, partner, previous)")
    L.add("leader", 4, "leader of the current trick, seat-relative")
    L.add("to_act", 4, "seat to act, seat-relative")
    L.add("trick_winner", 4, "seat winning the current trick so far, seat-relative")
    L.add("begged", 1, "the beggar begged this deal")
    L.add("gave_one", 1, "the dealer gave one")
    L.add("runs", 1, "runs of the pack this deal (0-2)", high=2)
    L.add("hand_size", 1, "cards dealt to each player this deal (6, 9, 12)", high=12)
    L.add("tricks_done", 1, "tricks completed this deal", high=12)
    L.add("game_captured", 2, "Game value captured: my team, their team", high=80)
    L.add("hand_points", 2, "points scored this hand: my team, their team (clipped)", high=40)
    L.add("score", 2, "match score: my team, their team (clipped)", high=target + 40)


def state_layout(target: int) -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats)."""
    L = Layout()
    for s in range(4):
        L.add(f"hand[S{s}]", 52, f"cards seat {s} holds")
    for s in range(4):
        L.add(f"played_by[S{s}]", 52, f"cards seat {s} played this deal")
    L.add("trick", 52, "cards in the current trick")
    L.add("kicked", 52, "cards turned up this deal")
    L.add("stock", 52, "cards still in the stock (undealt)")
    _public(L, target)
    return L


# The public one-hots and flags are packed into one uint64 word per game and unpacked right
# after the card sets, in this bit order (also their order in the layout, see _public):
# trump 0-3, led_suit 4-7, phase 8-10, dealer 11-14, leader 15-18, to_act 19-22,
# trick_winner 23-26, begged 27, gave_one 28.
_PUB_BITS = 29
_ONE = np.uint64(1)
_U64 = np.uint64
# per viewpoint seat p: the in-nibble bits that stay in their nibble when rotated right by p
_NIBBLES = sum(0xF << (11 + 4 * f) for f in range(4))
_KEEP = np.array([sum(((0xF << q) & 0xF) << (11 + 4 * f) for f in range(4)) for q in range(4)], dtype=np.uint64)


def _public_word(st, p: np.ndarray) -> np.ndarray:
    """``uint64[B]`` of the public one-hots/flags for viewpoint seats ``p`` (``int64[B]``).

    Seat fields are first set at absolute seats, then all four nibbles are rotated right by
    ``p`` at once (absolute seat ``s`` -> relative ``(s - p) % 4``).
    """
    led = st.led_suit.astype(np.int64)
    ph = st.phase.astype(np.int64)
    live = ph < 3
    in_trick = led >= 0
    w = _ONE << st.trump.astype(_U64)
    w |= (in_trick.astype(_U64) << (4 + np.maximum(led, 0)).astype(_U64))
    w |= live.astype(_U64) << (8 + np.minimum(ph, 2)).astype(_U64)
    w |= _ONE << (11 + st.dealer).astype(_U64)
    w |= _ONE << (15 + st.leader).astype(_U64)
    w |= live.astype(_U64) << (19 + st.current_player).astype(_U64)
    w |= in_trick.astype(_U64) << (23 + np.maximum(st.trick_winner, 0)).astype(_U64)
    w |= st.begged.astype(_U64) << _U64(27)
    w |= st.gave_one.astype(_U64) << _U64(28)
    pu = p.astype(_U64)
    keep = _KEEP[p]
    seats = (w & keep) >> pu | ((w & (_U64(_NIBBLES) & ~keep)) << (_U64(4) - pu))
    return (w & ~_U64(_NIBBLES)) | seats


def _counters(st, p: np.ndarray, out: np.ndarray, score_high: int) -> None:
    """Write runs, hand_size, tricks_done, then (mine, theirs) Game value, points, score into ``out[B, 9]``."""
    out[:, 0] = st.runs
    out[:, 1] = st.hand_size
    out[:, 2] = st.tricks_done
    odd = (p & 1).astype(bool)
    for j, (arr, cap) in enumerate(((st.game_value, 80), (st.points, 40), (st.score, score_high))):
        a0, a1 = np.minimum(arr[:, 0], cap), np.minimum(arr[:, 1], cap)
        out[:, 3 + 2 * j] = np.where(odd, a1, a0)
        out[:, 4 + 2 * j] = np.where(odd, a0, a1)


def _assemble(L: Layout, sets: np.ndarray, st, p: np.ndarray) -> np.ndarray:
    """Lay out ``sets`` (``uint64[k + 1, B]`` card sets, set-major, + a spare last row) with the public slices.

    The card sets and the public word are concatenated into one bit stream and unpacked in
    one call; the counters are written into the stream's zero padding after the last bit, and
    the result is a ``[B, D]`` view of that buffer (no further copy).
    """
    k1, B = sets.shape
    k = k1 - 1
    sets[k] = _public_word(st, p)
    nbits = k * 52 + _PUB_BITS
    stream = concat_bits(sets, 52)
    if stream.shape[1] * 64 < L.size:  # not enough padding for the counters: widen the stream
        stream = np.concatenate([stream, np.zeros((B, 1), dtype=np.uint64)], axis=1)
    buf = unpack_stream(stream, stream.shape[1] * 64)
    _counters(st, p, buf[:, nbits : L.size], L.entries[-1].high)
    return buf[:, : L.size]


_ROT = (np.arange(4)[:, None] + np.arange(4)) % 4  # _ROT[p, r]: absolute seat of relative seat r


def observe(kernel, st, seat) -> np.ndarray:
    """``uint8[B, D]`` observation of ``seat`` (int or ``int[B]``), layout :func:`observation_layout`."""
    B = st.batch_size
    p = np.broadcast_to(np.asarray(seat, dtype=np.int64), (B,))
    sets = np.empty((_NSETS + 1, B), dtype=np.uint64)
    base = np.arange(0, 4 * B, 4)
    sets[0] = st.hands.reshape(-1)[base + p]
    sets[1:5] = st.played.reshape(-1)[(base[:, None] + _ROT[p]).T]
    sets[5] = st.trick
    sets[6] = st.kicked
    return _assemble(kernel.obs_layout, sets, st, p)


def global_state(kernel, st) -> np.ndarray:
    """``uint8[B, S]`` perfect-information vector, layout :func:`state_layout` (team A = "mine")."""
    B = st.batch_size
    sets = np.empty((12, B), dtype=np.uint64)
    sets[0:4] = st.hands.T
    sets[4:8] = st.played.T
    sets[8] = st.trick
    sets[9] = st.kicked
    sets[10] = ALL_CARDS & ~(np.bitwise_or.reduce(st.dealt, axis=1) | st.kicked)
    return _assemble(kernel.state_layout, sets, st, np.zeros(B, dtype=np.int64))
