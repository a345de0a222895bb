"""All Fours observation and state vectors (``RULES.md`` §7 Information).

Observations are seat-relative: index 0 = me, 1 = next (my right, acts after me),
2 = partner, 3 = previous. Teams are "mine" then "theirs". Values are small non-negative
integers stored as ``uint8``; each slice's ``high`` bounds it (counts are clipped there).
"""

from __future__ import annotations

import numpy as np

from ..core.cards import unpack_bits
from ..core.kernel import Layout
from .constants import ALL_CARDS, CHUNK_GAME

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


def _fill_public(kernel, st, out: np.ndarray, L: Layout, p: np.ndarray, ar: np.ndarray) -> None:
    """Write the public slices for viewpoint seats ``p`` (``int[B]``; team = p % 2)."""
    o = lambda name: L[name].start  # noqa: E731
    i64 = lambda a: a.astype(np.int64)  # noqa: E731  (int8 state + offsets would overflow)
    out[ar, o("trump") + i64(st.trump)] = 1
    led = i64(st.led_suit)
    has_led = led >= 0
    out[ar[has_led], o("led_suit") + led[has_led]] = 1
    ph = i64(st.phase)
    live = ph < 3
    out[ar[live], o("phase") + ph[live]] = 1
    out[ar, o("dealer") + (i64(st.dealer) - p) % 4] = 1
    out[ar, o("leader") + (i64(st.leader) - p) % 4] = 1
    out[ar[live], o("to_act") + ((i64(st.current_player) - p) % 4)[live]] = 1
    if has_led.any():
        tc = st.trick_card.astype(np.int64)
        suit = tc // 13
        key = np.where(tc >= 0, tc % 13 + 13 * (suit == led[:, None]) + 26 * (suit == st.trump[:, None]), -1)
        win = key.argmax(axis=1)
        out[ar[has_led], o("trick_winner") + ((win - p) % 4)[has_led]] = 1
    out[:, o("begged")] = st.begged
    out[:, o("gave_one")] = st.gave_one
    out[:, o("runs")] = st.runs
    out[:, o("hand_size")] = st.hand_size
    out[:, o("tricks_done")] = st.tricks_done
    team = p % 2
    cap = st.captured
    gv = np.zeros((cap.shape[0], 2), dtype=np.int64)
    for s in range(4):
        gv += CHUNK_GAME[((cap >> np.uint64(13 * s)) & np.uint64(0x1FFF)).astype(np.int64)]
    g = o("game_captured")
    out[:, g] = gv[ar, team]
    out[:, g + 1] = gv[ar, 1 - team]
    hp = o("hand_points")
    out[:, hp] = np.minimum(st.points[ar, team], 40)
    out[:, hp + 1] = np.minimum(st.points[ar, 1 - team], 40)
    sc = o("score")
    hi = L.entries[-1].high
    out[:, sc] = np.minimum(st.score[ar, team], hi)
    out[:, sc + 1] = np.minimum(st.score[ar, 1 - team], hi)


def observe(kernel, st, seat) -> np.ndarray:
    """``uint8[B, D]`` observation of ``seat`` (int or ``int[B]``), layout :func:`observation_layout`."""
    L = kernel.obs_layout
    B = st.batch_size
    ar = np.arange(B)
    p = np.broadcast_to(np.asarray(seat, dtype=np.int64), (B,))
    rel = (p[:, None] + np.arange(4)) % 4
    sets = np.empty((B, _NSETS), dtype=np.uint64)
    sets[:, 0] = st.hands[ar, p]
    sets[:, 1:5] = st.played[ar[:, None], rel]
    sets[:, 5] = st.trick
    sets[:, 6] = st.kicked
    out = np.zeros((B, L.size), dtype=np.uint8)
    out[:, : _NSETS * 52].reshape(B, _NSETS, 52)[:] = unpack_bits(sets, 52)
    _fill_public(kernel, st, out, L, p, ar)
    return out


def global_state(kernel, st) -> np.ndarray:
    """``uint8[B, S]`` perfect-information vector, layout :func:`state_layout` (team 0 = "mine")."""
    L = kernel.state_layout
    B = st.batch_size
    ar = np.arange(B)
    sets = np.empty((B, 11), dtype=np.uint64)
    sets[:, 0:4] = st.hands
    sets[:, 4:8] = st.played
    sets[:, 8] = st.trick
    sets[:, 9] = st.kicked
    sets[:, 10] = ALL_CARDS & ~(np.bitwise_or.reduce(st.dealt, axis=1) | st.kicked)
    out = np.zeros((B, L.size), dtype=np.uint8)
    out[:, : 11 * 52].reshape(B, 11, 52)[:] = unpack_bits(sets, 52)
    _fill_public(kernel, st, out, L, np.zeros(B, dtype=np.int64), ar)
    return out
