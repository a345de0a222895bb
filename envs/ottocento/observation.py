"""Ottocento observation and state vectors (``RULES.md`` §7 Information).

Observations are seat-relative: index 0 = me, 1 = next (my right, plays after me),
2 = partner, 3 = previous. Teams are "mine" then "theirs". Values are small non-negative
integers stored as ``uint8``; each slice's ``high`` bounds it (points are clipped there).
Card sets are 62 entries each, in card-id order (:data:`cardzoo.envs.core.cards.TAROCCO62`).
"""

from __future__ import annotations

import numpy as np

from ..core.cards import concat_bits, popcount, unpack_stream
from ..core.kernel import Layout
from .constants import MAT

REL = ("me", "next", "partner", "previous")
_W = 62
_U64 = np.uint64
_ONE = _U64(1)


def observation_layout() -> Layout:
    """Named slices of the observation vector (print with ``Layout.table()``)."""
    L = Layout()
    L.add("hand", _W, "cards I hold")
    L.add("my_discards", _W, "the two cards I discarded (only when I am the dealer)")
    for r in REL:
        L.add(f"declared_unplayed[{r}]", _W, f"cards declared by {r}, still held")
    for r in REL:
        L.add(f"played_by[{r}]", _W, f"cards played this deal by {r} (current trick included)")
    for r in REL:
        L.add(f"trick_by[{r}]", _W, f"card played to the current trick by {r}")
    L.add("captured[mine]", _W, "cards my team won in tricks")
    L.add("captured[theirs]", _W, "cards their team won in tricks")
    _public(L)
    return L


def _public(L: Layout) -> None:
    L.add("led_suit", 6, "suit to follow: S B C D trumps none")
    L.add("phase", 3, "dealer discards / declare or pass / trick play")
    L.add("dealer", 4, "dealer, seat-relative (me, next, partner, previous)")
    L.add("leader", 4, "leader of the current trick, seat-relative")
    L.add("to_act", 4, "seat to act, seat-relative")
    L.add("trick_winner", 4, "seat winning the current trick so far, seat-relative (none while only a led Matto is in it)")
    L.add("matto_played_by", 4, "who played the Matto (its owner), seat-relative")
    L.add("matto_trick_won_by", 4, "who won the trick the Matto was played to, seat-relative")
    L.add("decided", 4, "seats that have declared or passed, seat-relative")
    L.add("declared", 4, "seats that declared, seat-relative")
    L.add("tricks_done", 1, "tricks completed this deal", high=15)
    L.add("hand_size", 4, "cards held, seat-relative", high=17)
    L.add("tricks_won", 2, "tricks won: my team, their team", high=15)
    L.add("declaration_points", 4, "points declared per seat, seat-relative (clipped)", high=255)
    L.add("match_score", 2, "match score in units of 4 points: my team, their team (clipped)", high=255)


def state_layout() -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats; team A = "mine")."""
    L = Layout()
    for s in range(4):
        L.add(f"hand[S{s}]", _W, f"cards seat {s} holds")
    L.add("discards", _W, "the dealer's two discards")
    for s in range(4):
        L.add(f"played_by[S{s}]", _W, f"cards seat {s} played this deal")
    L.add("trick", _W, "cards in the current trick")
    L.add("captured[A]", _W, "cards team A won in tricks")
    L.add("captured[B]", _W, "cards team B won in tricks")
    _public(L)
    return L


_PUB_BITS = 41
_ROT = (np.arange(4)[:, None] + np.arange(4)) % 4  # _ROT[p, r]: absolute seat of relative seat r
_MINE_THEIRS = np.array([[0, 1], [0, -1]])  # offsets from (game, my team) to (mine, theirs)


def _flat_rel(p: np.ndarray) -> np.ndarray:
    """``intp[B, 4]`` flat indices into a ``[B, 4]`` per-seat array, in relative seat order of viewpoints ``p``."""
    return (4 * np.arange(p.shape[0]))[:, None] + _ROT[p]


def _onehot_rel(seat: np.ndarray, p: np.ndarray, off: int) -> np.ndarray:
    """Bit ``off + (seat - p) % 4`` where ``seat >= 0`` (``uint64[B]``; ``p`` is ``int64[B]``)."""
    rel = (seat.astype(np.int64) - p) & 3
    return (seat >= 0).astype(_U64) << (rel + off).astype(_U64)


def _nibble_rel(flags: np.ndarray, flat: np.ndarray, off: int) -> np.ndarray:
    """``bool[B, 4]`` per absolute seat -> 4 bits at ``off`` in relative seat order (``flat``: :func:`_flat_rel`)."""
    f = flags.reshape(-1)[flat].astype(np.uint8)
    return (f @ _NIB).astype(_U64) << _U64(off)


_NIB = np.array([1, 2, 4, 8], dtype=np.uint8)


def _public_word(st, p: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """``uint64[B]``: led_suit 0-5, phase 6-8, dealer 9-12, leader 13-16, to_act 17-20,
    trick_winner 21-24, matto_played_by 25-28, matto_trick_won_by 29-32, decided 33-36, declared 37-40."""
    led = st.led.astype(np.int64)
    ph = st.phase.astype(np.int64)
    live = ph < 3
    w = _ONE << np.where(led < 0, 5, led).astype(_U64)
    w |= live.astype(_U64) << (6 + np.minimum(ph, 2)).astype(_U64)
    w |= _onehot_rel(st.dealer, p, 9)
    w |= _onehot_rel(st.leader, p, 13)
    w |= _onehot_rel(np.where(live, st.current_player, -1), p, 17)
    w |= _onehot_rel(st.trick_winner, p, 21)
    matto_played = ((st.played >> _U64(MAT)) & _ONE).astype(bool).any(axis=1)
    w |= _onehot_rel(np.where(matto_played, st.matto_owner, -1), p, 25)
    w |= _onehot_rel(st.matto_winner, p, 29)
    w |= _nibble_rel(st.decided, flat, 33)
    w |= _nibble_rel(st.declared, flat, 37)
    return w


def _counters(st, p: np.ndarray, flat: np.ndarray, dest: np.ndarray) -> None:
    """Write tricks_done, hand_size[4], tricks_won[2], declaration_points[4], match_score[2] into ``dest[B, 13]``."""
    out = np.empty(dest.shape, dtype=np.uint8)
    out[:, 0] = st.tricks_done
    out[:, 1:5] = popcount(st.hands).reshape(-1)[flat]
    odd = (p & 1).astype(np.intp)
    teams = (2 * np.arange(p.shape[0]) + odd)[:, None] + _MINE_THEIRS[odd]  # flat (game, team) for mine, theirs
    out[:, 5:7] = st.tricks_won.reshape(-1)[teams]
    out[:, 7:11] = np.minimum(st.decl_points.reshape(-1)[flat], 255)
    out[:, 11:13] = np.minimum(st.score.reshape(-1)[teams] // 8, 255)  # half-points -> units of 4
    dest[:] = out


def _assemble(L: Layout, sets: np.ndarray, st, p: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """Lay out ``sets`` (``uint64[k + 1, B]``, set-major, the last row spare) with the public slices."""
    k1, B = sets.shape
    k = k1 - 1
    nbits = k * _W + _PUB_BITS
    # the public word is 41 bits wide: write it as the last "set" of width 62 (its top bits are 0)
    sets[k] = _public_word(st, p, flat)
    stream = concat_bits(sets, _W)
    need = (nbits + 13 + 63) // 64
    if stream.shape[1] < need:
        stream = np.concatenate([stream, np.zeros((B, need - stream.shape[1]), dtype=np.uint64)], axis=1)
    buf = unpack_stream(stream, stream.shape[1] * 64)
    _counters(st, p, flat, buf[:, nbits : nbits + 13])
    return buf[:, : L.size]


def observe(kernel, st, seat) -> np.ndarray:
    """``uint8[B, D]`` observation of ``seat`` (int or ``int[B]``), layout :func:`observation_layout`."""
    B = st.batch_size
    p = np.broadcast_to(np.asarray(seat, dtype=np.int64), (B,))
    ar = np.arange(B)
    sets = np.empty((17, B), dtype=_U64)
    sets[0] = st.hands[ar, p]
    sets[1] = np.where(st.dealer == p, st.discards, _U64(0))
    flat = _flat_rel(p)  # [B, 4] absolute (game, seat) in relative order
    hands_rel = st.hands.reshape(-1)[flat]
    sets[2:6] = (hands_rel & st.shown.reshape(-1)[flat]).T
    played_rel = st.played.reshape(-1)[flat]
    sets[6:10] = played_rel.T
    sets[10:14] = (played_rel & st.trick[:, None]).T
    odd = (p & 1).astype(bool)
    sets[14] = np.where(odd, st.piles[:, 1], st.piles[:, 0])
    sets[15] = np.where(odd, st.piles[:, 0], st.piles[:, 1])
    return _assemble(kernel.obs_layout, sets, st, p, flat)


def global_state(kernel, st) -> np.ndarray:
    """``uint8[B, S]`` perfect-information vector, layout :func:`state_layout`."""
    B = st.batch_size
    sets = np.empty((13, B), dtype=_U64)
    sets[0:4] = st.hands.T
    sets[4] = st.discards
    sets[5:9] = st.played.T
    sets[9] = st.trick
    sets[10:12] = st.piles.T
    p = np.zeros(B, dtype=np.int64)
    return _assemble(kernel.state_layout, sets, st, p, _flat_rel(p))
