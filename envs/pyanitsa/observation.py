"""P'yanitsa observation and state vectors (``RULES.md`` §7 Information).

Observations are seat-relative: ``me``, ``me+1`` (the next seat up), ``me+2``, ``me+3``
(as many as there are players). Everything in them is public except ``pot`` (the cards the
observing seat is ordering, face-down ones included) and ``my_known_*`` (the bottom part of
its own pile whose order it fixed itself with ``ORDER``); both are all zero outside
``collect_order="winner_chooses"``. Pile contents never appear.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import unpack_bits
from ..core.kernel import Layout

_U64 = np.uint64


def rel_names(n: int) -> list[str]:
    """``["me", "me+1", ...]`` for ``n`` players."""
    return ["me"] + [f"me+{r}" for r in range(1, n)]


def _public(L: Layout, N: int, C: int) -> None:
    for r in rel_names(N):
        L.add(f"pile_size[{r}]", 1, f"cards in the pile of {r}", high=C)
    L.add("out", N, "seats with no card (me, me+1, ...)")
    L.add("to_act", N, "seat to act, seat-relative")
    L.add("phase", 2, "flip / order the pot (all 0 when the game is over)")
    L.add("battle_winner", N, "winner of the last battle, seat-relative (all 0: none yet or dead battle)")
    for r in rel_names(N):
        L.add(f"face_down[{r}]", 1, f"face-down cards {r} put down in the last battle", high=C)
    L.add("battles", 2, "battles completed: low byte, high byte", high=255)


def observation_layout(k) -> Layout:
    """Named slices of the observation vector of kernel ``k`` (print with ``Layout.table()``)."""
    N, C = k.num_players, k.C
    L = Layout()
    _public(L, N, C)
    for r in rel_names(N):
        L.add(f"face_up[{r}]", C, f"cards {r} showed face up in the last battle")
    L.add("pot", C, "cards I am ordering under my pile (winner_chooses; face-down ones included)")
    L.add("my_known_set", C, "cards of the bottom part of my pile whose order I fixed myself")
    L.add("my_known_order", C, "that part top -> bottom as card id + 1 (0 = none)", high=C)
    L.add("my_known_count", 1, "length of that part", high=C)
    return L


def state_layout(k) -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats: me = S0)."""
    N, C = k.num_players, k.C
    L = Layout()
    _public(L, N, C)
    for s in range(N):
        L.add(f"face_up[S{s}]", C, f"cards seat {s} showed face up in the last battle")
    L.add("pot", C, "cards on the table not yet under a pile")
    for s in range(N):
        L.add(f"pile[S{s}]", C, f"seat {s}'s pile top -> bottom as card id + 1 (0 = none)", high=C)
    return L


def _starts(L: Layout) -> dict:
    """Start offset of every slice of ``L`` (cached on the layout)."""
    d = L.__dict__.get("_starts")
    if d is None:
        d = L.__dict__["_starts"] = {e.name: e.start for e in L.entries}
    return d


def _fill_public(k, st, p: np.ndarray, out: np.ndarray, L: Layout, ar: np.ndarray, rot: np.ndarray) -> None:
    """Write the public slices for viewpoint seats ``p`` (``int64[B]``) into ``out``;
    ``rot[b, r]`` is the absolute seat of relative seat ``r``."""
    N = k.num_players
    S = _starts(L)
    rows = ar[:, None]
    size = st.size[rows, rot]
    s0 = S["pile_size[me]"]
    out[:, s0 : s0 + N] = size
    o = S["out"]
    out[:, o : o + N] = size == 0
    live = st.phase < 2
    out[ar, S["to_act"] + (st.current_player - p) % N] = live
    out[ar, S["phase"] + np.minimum(st.phase, 1)] = live
    w = st.winner
    out[ar, S["battle_winner"] + (w - p) % N] = w >= 0
    f0 = S["face_down[me]"]
    out[:, f0 : f0 + N] = st.n_down[rows, rot]
    o = S["battles"]
    out[:, o] = st.battles & 255
    out[:, o + 1] = np.minimum(st.battles >> 8, 255)


def observe(k, st, seat) -> np.ndarray:
    """``uint8[B, D]`` observation of ``seat`` (int or ``int[B]``), layout :func:`observation_layout`."""
    L = k.obs_layout
    N, C = k.num_players, k.C
    B = st.batch_size
    p = np.broadcast_to(np.asarray(seat, dtype=np.int64), (B,))
    out = np.zeros((B, L.size), dtype=np.uint8)
    ar = np.arange(B)
    rot = (p[:, None] + np.arange(N)) % N
    _fill_public(k, st, p, out, L, ar, rot)
    S = _starts(L)
    sets = np.zeros((B, N + 2), dtype=_U64)
    sets[:, :N] = st.face_up[ar[:, None], rot]
    if k.choose:
        mine = (st.phase == 1) & (st.current_player == p) & ~st.done
        sets[:, N] = np.where(mine, st.pot, _U64(0))
        n_known = st.known[ar, p].astype(np.int64)
        size = st.size[ar, p].astype(np.int64)
        if n_known.any():
            j = np.arange(C)
            pos = (st.head[ar, p][:, None].astype(np.int64) + size[:, None] - n_known[:, None] + j) % C
            cards = st.piles[ar[:, None], p[:, None], pos]
            have = j < n_known[:, None]
            kset = np.bitwise_or.reduce(np.where(have, np.left_shift(_U64(1), cards.astype(_U64)), _U64(0)), axis=1)
            sets[:, N + 1] = kset
            o = S["my_known_order"]
            out[:, o : o + C] = np.where(have, cards + 1, 0)
        out[:, S["my_known_count"]] = n_known
        bits = unpack_bits(sets, C).reshape(B, -1)
        a = S["face_up[me]"]  # face_up[*], pot and my_known_set are consecutive
        out[:, a : a + (N + 2) * C] = bits
    else:
        a = S["face_up[me]"]
        out[:, a : a + N * C] = unpack_bits(sets[:, :N], C).reshape(B, -1)
    return out


def global_state(k, st) -> np.ndarray:
    """``uint8[B, S]`` perfect-information vector, layout :func:`state_layout` (viewpoint S0)."""
    L = k.state_layout
    N, C = k.num_players, k.C
    B = st.batch_size
    out = np.zeros((B, L.size), dtype=np.uint8)
    p = np.zeros(B, dtype=np.int64)
    _fill_public(k, st, p, out, L, np.arange(B), np.broadcast_to(np.arange(N), (B, N)))
    sets = np.concatenate([st.face_up, st.pot[:, None]], axis=1)
    a = L["face_up[S0]"].start
    out[:, a : a + (N + 1) * C] = unpack_bits(sets, C).reshape(B, -1)
    lin = k.linear_piles(st).astype(np.int64)
    a = L["pile[S0]"].start
    out[:, a : a + N * C] = np.where(lin == 255, 0, lin + 1).reshape(B, -1)
    return out
