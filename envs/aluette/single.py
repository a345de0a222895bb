"""The one-game (B = 1) fast path of the Aluette kernel, used by the PettingZoo env.

With one game numpy's per-call overhead dominates. :class:`SingleGame` computes the legal
actions and the observation with Python ints on the same
:class:`~cardzoo.envs.aluette.kernel.AluetteState` (``B = 1``), plays a card that does not complete a
trick and records a signal that needs no chance draw, and hands every other step to the
batched kernel. The state stays the batched state, so rendering, ``state()``, copies and
pickling are unchanged. ``tests/test_aluette_single.py`` checks it against the batched kernel
step for step (masks, every seat's observation, rewards, states) under every option that
touches it.
"""

from __future__ import annotations

import numpy as np

from .constants import (
    ANSWER,
    DISCARD,
    END_SIGNALS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_SIGNALS,
    OFFER,
    OFFER_SURRENDER,
    ACCEPT_SURRENDER,
    PLAY,
    POWER,
    SIGNAL,
    SIGNAL0,
    SIGNAL_BB,
    VOTE,
)

_POWER = [int(x) for x in POWER]
_SIG = [int(x) for x in SIGNAL_BB]
_M40 = (1 << 40) - 1
_PUB_AT = 8 * 48
_RES_AT = _PUB_AT + 42
_SIG_AT = _RES_AT + 45
_BITS = _SIG_AT + 40


def _rot4(x: int, p: int) -> int:
    return ((x >> p) | (x << (4 - p))) & 0xF


class SingleGame:
    """Fast B = 1 operations on ``st`` (an ``AluetteState`` of one game) for ``kernel``."""

    def __init__(self, kernel, st) -> None:
        if st.batch_size != 1:
            raise ValueError(f"SingleGame runs one game; the state holds {st.batch_size}")
        self.k = kernel
        self.st = st
        L = kernel.obs_layout
        self.size = L.size
        e = L.entries
        self.deal_high = int(e[-5].high)
        self.score_high = int(e[-1].high)
        self.free = kernel.options["signals"] == "free"
        self.signals_on = kernel.signals_on
        self.turn_signals = kernel.turn_signals
        self.surrender = kernel.options["surrender"]
        self.public = kernel.options["signal_visibility"] == "public"
        self.no_chance_signals = self.public or kernel.intercept == 0
        self.second_offset = kernel.second_offset
        self._nbytes = (self.size + 7) // 8

    # ------------------------------------------------------------------ legal actions
    def _signal_bits(self, p: int) -> int:
        st = self.st
        if self.free:
            avail = (1 << NUM_SIGNALS) - 1
        else:
            hand = int(st.hands[0, p])
            avail = 0
            for s in range(9):
                if hand & _SIG[s]:
                    avail |= 1 << s
            if not hand & _SIG[9]:
                avail |= 1 << 9
        return avail & ~int(st.sent[0, p])

    def legal_int(self) -> int:
        """Legal actions as one Python int (bit ``a`` = action ``a``)."""
        st = self.st
        if st.done[0]:
            return 0
        ph = int(st.phase[0])
        p = int(st.current_player[0])
        if ph == PLAY:
            out = int(st.hands[0, p])
            if self.turn_signals:
                out |= self._signal_bits(p) << SIGNAL0
            return out
        if ph == DISCARD:
            return int(st.hands[0, p])
        if ph == VOTE:
            return 0b11 << NUM_CARDS
        if ph == SIGNAL:
            return (self._signal_bits(p) << SIGNAL0) | (1 << END_SIGNALS)
        if ph == OFFER:
            return 0b11 << OFFER_SURRENDER
        if ph == ANSWER:
            return 0b11 << ACCEPT_SURRENDER
        return 0

    def legal_mask(self) -> np.ndarray:
        """``bool[65]`` like ``kernel.legal_actions(st)[0]``."""
        x = self.legal_int()
        b = np.frombuffer(x.to_bytes(9, "little"), dtype=np.uint8)
        return np.unpackbits(b, bitorder="little", count=NUM_ACTIONS).view(bool)

    # ------------------------------------------------------------------ step
    def step(self, action: int, rng) -> None:
        """Apply one legal ``action`` (unchecked; the env validates it) like ``kernel.step``."""
        st = self.st
        ph = int(st.phase[0])
        a = int(action)
        if ph == PLAY and not st.done[0]:
            p = int(st.current_player[0])
            if SIGNAL0 <= a < END_SIGNALS and self.no_chance_signals:
                st.rewards[0] = 0
                s = a - SIGNAL0
                st.sent[0, p] |= 1 << s
                b = 1 << (10 * p + s)
                for q in ((p, (p + 2) % 4, (p + 1) % 4, (p + 3) % 4) if self.public else (p, (p + 2) % 4)):
                    st.heard[0, q] = int(st.heard[0, q]) | b
                return
            n = int(st.n_in_trick[0])
            if a < NUM_CARDS and n < 3:
                st.rewards[0] = 0
                cb = 1 << a
                st.hands[0, p] = int(st.hands[0, p]) ^ cb
                st.played[0, p] = int(st.played[0, p]) | cb
                st.trick[0] = int(st.trick[0]) | cb
                st.trick_card[0, p] = a
                pw = _POWER[a]
                top = int(st.top[0])
                if n == 0 or pw > top:
                    st.top[0] = pw
                    st.top_count[0] = 1
                    st.top_seat[0] = p
                elif pw == top:
                    st.top_count[0] += 1
                st.n_in_trick[0] = n + 1
                st.current_player[0] = (p + 1) % 4
                return
        self.k.step(st, np.array([a]), rng)

    # ------------------------------------------------------------------ observation
    def observe(self, seat: int) -> np.ndarray:
        """``uint8[D]`` observation of ``seat``, identical to ``kernel.observe(st, seat)[0]``."""
        st = self.st
        p = int(seat)
        hands, played = st.hands[0].tolist(), st.played[0].tolist()
        x = hands[p] | int(st.received[0, p]) << 48 | int(st.discarded[0, p]) << 96
        for r in range(4):
            x |= played[(p + r) % 4] << (144 + 48 * r)
        x |= int(st.trick[0]) << 336
        # public word (observation.py _public_words)
        ph = int(st.phase[0])
        live = ph < 6
        w = (1 << ph) if live else 0
        w |= 1 << (6 + (int(st.dealer[0]) - p) % 4)
        if ph == PLAY:
            w |= 1 << (10 + (int(st.leader[0]) - p) % 4)
        if live:
            w |= 1 << (14 + (int(st.current_player[0]) - p) % 4)
        n = int(st.n_in_trick[0])
        cnt = int(st.top_count[0])
        if n > 0:
            if cnt == 1:
                w |= 1 << (18 + (int(st.top_seat[0]) - p) % 4)
            else:
                w |= 1 << 22
        if st.chanted[0]:
            d = int(st.dealer[0])
            w |= 1 << 23
            w |= _rot4((1 << ((d + 1) % 4)) | (1 << ((d + self.second_offset) % 4)), p) << 24
        votes = st.votes[0].tolist()
        acc = sum(1 << s for s in range(4) if votes[s] == 1)
        ref = sum(1 << s for s in range(4) if votes[s] == 0)
        w |= _rot4(acc, p) << 28 | _rot4(ref, p) << 32
        off = int(st.offerer[0])
        if off >= 0:
            w |= 1 << (36 + (off - p) % 4)
        if st.refused[0]:
            w |= 1 << 40
        if st.accepted[0]:
            w |= 1 << 41
        x |= w << _PUB_AT
        res = 0
        for t, r in enumerate(st.results[0].tolist()):
            if r >= 0:
                res |= 1 << (5 * t + (4 if r == 4 else (r - p) % 4))
        x |= res << _RES_AT
        h = int(st.heard[0, p])
        sh = 10 * p
        x |= (((h >> sh) | (h << (40 - sh))) & _M40) << _SIG_AT
        out = np.unpackbits(np.frombuffer(x.to_bytes(self._nbytes, "little"), dtype=np.uint8), bitorder="little",
                            count=self.size)
        won = st.won[0].tolist()
        pts, score = st.points[0].tolist(), st.score[0].tolist()
        mine, theirs = (1, 0) if p & 1 else (0, 1)
        out[_BITS:] = (
            int(st.top[0]), n, int(st.tricks_done[0]), won[p], won[(p + 1) % 4], won[(p + 2) % 4], won[(p + 3) % 4],
            min(int(st.deals[0]), self.deal_high), min(pts[mine], 2), min(pts[theirs], 2),
            min(score[mine], self.score_high), min(score[theirs], self.score_high),
        )
        return out
