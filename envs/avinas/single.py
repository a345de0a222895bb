"""The one-game (B = 1) fast path of the Avinas kernel, used by the PettingZoo env.

With one game numpy's per-call overhead dominates: the batched kernel spends some hundred
calls per agent step. :class:`SingleGame` does the frequent work — the legal actions, the
observation, playing a card and resolving a trick (all but the last), a declarer's
``CONTINUE`` and a call that does not close the calling round — with Python ints on the same
:class:`~cardzoo.envs.avinas.kernel.AvinasState` (``B = 1``), and hands everything else (knocks,
naming trumps, the last call, stopping, scoring, dealing) to the batched kernel. The state stays
the batched state, so rendering, ``state()``, copies and pickling are unchanged.

Its rules are the batched kernel's, restated for one game (``RULES.md`` §4.2 calls, §5 leads,
follows, face-down leads and the trick's winner). ``tests/test_avinas_single.py`` checks it
against the batched kernel step for step (masks, every seat's observation, rewards and every
state array) over random games under every option that touches it.
"""

from __future__ import annotations

import numpy as np

from .constants import (
    CALL1,
    CALLING,
    CONTINUE,
    DECLARE,
    FACEDOWN,
    KNOCK,
    KNOCKING,
    NO_KNOCK,
    NO_SEVENS,
    PASS,
    PLAIN_BB,
    PLAIN_STRENGTH,
    PLAY,
    POINTS,
    SIG_NOT_VALUABLE,
    SIG_VALUABLE,
    SIGNAL,
    STOP,
    STOPPING,
    TRUMP_BB,
    TRUMP_STRENGTH,
)
from .observation import _PHASE_COL, _PUB_BITS

_TRUMP = [int(x) for x in TRUMP_BB]
_PLAIN = [int(x) for x in PLAIN_BB]
_TS = TRUMP_STRENGTH.tolist()
_PS = PLAIN_STRENGTH.tolist()
_PTS = POINTS.tolist()
_PHC = _PHASE_COL.tolist()
_KNOCK_BITS = (1 << (KNOCK - 64)) | (1 << (NO_KNOCK - 64))
_STOP_BITS = (1 << (CONTINUE - 64)) | (1 << (STOP - 64))
_SIG_BITS = (1 << (SIG_VALUABLE - 64)) | (1 << (SIG_NOT_VALUABLE - 64))
_M32 = (1 << 32) - 1


def _pop(x: int) -> int:
    return bin(x).count("1")


class SingleGame:
    """Fast B = 1 operations on ``st`` (an ``AvinasState`` of one game) for ``kernel``."""

    def __init__(self, kernel, st) -> None:
        if st.batch_size != 1:
            raise ValueError(f"SingleGame runs one game; the state holds {st.batch_size}")
        self.k = kernel
        self.st = st
        o = kernel.options
        self.every_lead = o["trump_lead_rule"] == "every_lead"
        self.mask_h = o["honesty"] == "mask"
        self.count = [int(x) for x in kernel.count_bb]
        self.signal_mode = o["facedown_signal"]
        self.vmin = kernel.vmin
        self.stop_opt = o["no7_stop"]
        L = kernel.obs_layout
        self.size = L.size
        self.nbits = 11 * 32 + _PUB_BITS
        self.nbytes = ((self.size + 63) // 64) * 8
        self.pips_high = next(e.high for e in L.entries if e.name == "pips")
        self._one = np.array([0])

    # ------------------------------------------------------------------ legal actions
    def legal_int(self) -> int:
        """Legal actions as one Python int (bit ``a`` = action ``a``), as ``kernel.legal_words``."""
        st = self.st
        if st.done[0]:
            return 0
        ph = int(st.phase[0])
        p = int(st.current_player[0])
        hand = int(st.hands[0, p])
        if ph == PLAY:
            t = max(int(st.trump[0]), 0)
            trumps = hand & _TRUMP[t]
            if int(st.n_in_trick[0]) == 0:
                k = int(st.tricks_done[0])
                if k == 0:
                    return trumps
                must = k >= 1 if self.every_lead else k == 1
                if must and trumps:
                    return trumps
                return hand | (hand << 32) if must else hand
            led = int(st.led[0])
            f = trumps if led == 4 else hand & _PLAIN[led]
            return f if f else hand
        if ph == KNOCKING:
            return _KNOCK_BITS << 64
        if ph == STOPPING:
            return _STOP_BITS << 64
        if ph == SIGNAL:
            return _SIG_BITS << 64
        counts = [_pop(hand & c) for c in self.count]
        high = int(st.high_call[0])
        if ph == CALLING:
            top = max(counts) if self.mask_h else 8
            bits = 1
            for n in range(high + 1, top + 1):
                bits |= 1 << n
            return bits << 64
        bits = 0
        for s in range(4):
            if hand & _TRUMP[s] and (not self.mask_h or counts[s] >= high):
                bits |= 1 << (DECLARE - 64 + s)
        return bits << 64

    def legal_mask(self) -> np.ndarray:
        """``bool[83]`` action mask (all False once the game is over)."""
        b = np.frombuffer(self.legal_int().to_bytes(16, "little"), dtype=np.uint8)
        return np.unpackbits(b, bitorder="little", count=self.k.num_actions).view(bool)

    # ------------------------------------------------------------------ step
    def step(self, action: int, rng: np.random.Generator) -> None:
        """Apply one legal ``action`` (unchecked) and advance, exactly as ``kernel.step`` at B = 1."""
        st = self.st
        ph = int(st.phase[0])
        if not st.done[0]:
            if ph == PLAY and not (int(st.n_in_trick[0]) == 3 and int(st.tricks_done[0]) == 7):
                st.rewards[0] = 0
                self._play(action)
                return
            if ph == STOPPING and action == CONTINUE:
                st.rewards[0] = 0
                st.phase[0] = PLAY
                st.current_player[0] = st.leader[0]
                return
            if ph == CALLING and int(st.n_calls[0]) < 3:
                st.rewards[0] = 0
                p = int(st.current_player[0])
                n = 0 if action == PASS else action - CALL1 + 1
                st.calls[0, p] = n
                if n > 0:
                    st.high_call[0] = n
                    st.declarer[0] = p
                st.n_calls[0] += 1
                st.current_player[0] = (p + 1) % 4
                return
        self._one[0] = action
        self.k.step(st, self._one, rng)

    def _play(self, a: int) -> None:
        st = self.st
        p = int(st.current_player[0])
        fd = a >= FACEDOWN
        card = a & 31
        cb = 1 << card
        st.hands[0, p] = int(st.hands[0, p]) ^ cb
        st.played[0, p] = int(st.played[0, p]) | cb
        st.trick[0] = int(st.trick[0]) | cb
        st.trick_card[0, p] = card
        ts = _TS[int(st.trump[0])][card]
        suit = card >> 3
        n = int(st.n_in_trick[0])
        old = int(st.led[0])
        # §5 shown voids (as the batched kernel's _play): no trump shown by not following a trump or
        # face-down lead (or by leading face down); no plain card of the suit led shown by not following it
        v = (16 if (n > 0 and old == 4 and ts == 0) or (n == 0 and fd) else 0) | (
            1 << old if n > 0 and 0 <= old < 4 and (suit != old or ts > 0) else 0
        )
        if v:
            st.voids[0, p] = int(st.voids[0, p]) | v
        if n == 0:
            led = 4 if (fd or ts > 0) else suit
            st.led[0] = led
        else:
            led = int(st.led[0])
        key = 0 if fd else (20 + ts if ts > 0 else (_PS[card] if suit == led else 0))
        if n == 0 or key > int(st.trick_best[0]):
            st.trick_best[0] = key
            st.trick_winner[0] = p
        n += 1
        st.n_in_trick[0] = n
        st.current_player[0] = (p + 1) % 4
        if fd:
            st.fd_seat[0] = p
            if self.signal_mode == "auto":
                st.signal[0] = int(_PTS[card] >= self.vmin)
            elif self.signal_mode == "free":
                st.phase[0] = SIGNAL
                st.current_player[0] = p
        if n < 4:
            return
        w = int(st.trick_winner[0])
        team = w % 2
        st.points[0, team] += sum(_PTS[c] for c in st.trick_card[0].tolist())
        st.tricks_won[0, team] += 1
        st.leader[0] = w
        st.current_player[0] = w
        st.trick[0] = 0
        st.trick_card[0] = -1
        st.led[0] = -1
        st.trick_winner[0] = -1
        st.trick_best[0] = 0
        st.n_in_trick[0] = 0
        st.fd_seat[0] = -1
        st.signal[0] = -1
        st.tricks_done[0] += 1  # never the 8th here: the last trick goes through the batched kernel
        if self.stop_opt and int(st.game[0]) == NO_SEVENS:
            st.phase[0] = STOPPING
            st.current_player[0] = st.declarer[0]

    # ------------------------------------------------------------------ observation
    def observe(self, seat: int) -> np.ndarray:
        """``uint8[D]`` observation of ``seat``, identical to ``kernel.observe(st, seat)[0]``."""
        st = self.st
        p = int(seat)
        hands = st.hands[0].tolist()
        played = st.played[0].tolist()
        fd = int(st.fd_seat[0])
        hidden = 1 << int(st.trick_card[0, fd]) if fd >= 0 and fd != p else 0
        keep = ~hidden
        dealer = int(st.dealer[0])
        ds = int(st.dealer_seen[0])
        mine = int(st.exposed[0]) | (ds if dealer == p else 0)
        x = hands[p]
        for r in range(4):
            s = (p + r) & 3
            x |= (played[s] & keep) << (32 * (1 + r))
            x |= ((hands[s] | (hidden if s == fd else 0)) & mine) << (32 * (6 + r))
        x |= (int(st.trick[0]) & keep) << 160
        if (dealer + 2) & 3 == p:
            x |= (hands[p] & ds) << 320
        x |= self._public(p) << 352
        buf = np.unpackbits(np.frombuffer(x.to_bytes(self.nbytes, "little"), dtype=np.uint8), bitorder="little")
        calls = st.calls[0].tolist()
        tw, pts, pips = st.tricks_won[0].tolist(), st.points[0].tolist(), st.pips[0].tolist()
        rb = int(st.ram_balance[0])
        rams = [min(max(rb, 0), 64), min(max(-rb, 0), 64)]
        pips = [min(v, self.pips_high) for v in pips]
        o = p & 1
        cnt = [calls[(p + r) & 3] + 1 for r in range(4)] + [int(st.high_call[0]), int(st.tricks_done[0])]
        for pair in (tw, pts, rams, pips):
            cnt += [pair[o], pair[1 - o]]
        cnt += [min(int(st.deals[0]), 255), min(int(st.throw_ins[0]), 255), min(int(st.last_penalty[0]), 64)]
        buf[self.nbits : self.size] = cnt
        return buf[: self.size]

    def _public(self, p: int) -> int:
        st = self.st
        live = not st.done[0]
        ph = int(st.phase[0])
        w = 1 << int(st.game[0])
        col = _PHC[ph]
        if col >= 0:
            w |= 1 << (2 + col)
        t = int(st.trump[0])
        if t >= 0:
            w |= 1 << (8 + t)
        led = int(st.led[0])
        if led >= 0:
            w |= 1 << (12 + led)
        in_play = live and ph in (PLAY, SIGNAL, STOPPING)
        off = 17
        for s, ok in ((int(st.dealer[0]), True), (int(st.declarer[0]), True), (int(st.leader[0]), in_play),
                      (int(st.current_player[0]), live), (int(st.trick_winner[0]), True), (int(st.fd_seat[0]), True)):
            if ok and s >= 0:
                w |= 1 << (off + ((s - p) & 3))
            off += 4
        for s, kn in enumerate(st.knocked[0].tolist()):
            if kn:
                w |= 1 << (off + ((s - p) & 3))
        off += 4
        sig, fd = int(st.signal[0]), int(st.fd_seat[0])
        if sig >= 0 and fd >= 0 and (fd + 2) & 3 == p:
            w |= 1 << (off + 1 - sig)
        off += 2
        ll = int(st.last_loser[0])
        if ll >= 0:
            w |= 1 << (off + ((ll - p) & 1))
        off += 2
        if int(st.last_game[0]) == 0:
            w |= 1 << off
        if st.last_lied[0]:
            w |= 1 << (off + 1)
        if st.last_stopped[0]:
            w |= 1 << (off + 2)
        return w


__all__ = ["SingleGame"]
