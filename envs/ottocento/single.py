"""The one-game (B = 1) fast path of the Ottocento kernel, used by the PettingZoo env.

With one game numpy's per-call overhead dominates the batched kernel. :class:`SingleGame`
does the frequent work with Python ints on the same :class:`~cardzoo.envs.ottocento.kernel.OttocentoState`
(``B = 1``): the observation of any seat, the legal cards in trick play, and playing a card in
tricks 2-15 (resolving the trick, except the deal's last card). Everything else — discards,
declarations, trick 1 (where declarations are asked), the end of the deal and scoring — goes
to the batched kernel, so the state stays the batched state (rendering, ``state()``, copies and
pickling are unchanged).

Its rules are the batched kernel's restated for one game (``RULES.md`` §5 legal cards, trick
winner with the Moors tie, §7 observation). ``tests/test_ottocento_single.py`` checks it against
the batched kernel step for step (observations of every seat, masks, states) over many games.
"""

from __future__ import annotations

import numpy as np

from .constants import BASE_KEY, CARD_SUIT, MAT, MOOR_KEY, PLAY, SUIT_BB, TRUMP_SUIT

_SUIT = [int(x) for x in SUIT_BB]
_KEY = [int(x) for x in BASE_KEY]
_CSUIT = [int(x) for x in CARD_SUIT]
_MATB = 1 << MAT
_NSETS = 16
_W = 62
_PUB = 41


def _bool64(x: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(x.to_bytes(8, "little"), dtype=np.uint8), bitorder="little").view(bool)


class SingleGame:
    """Fast B = 1 operations on ``st`` (an ``OttocentoState`` of one game) for ``kernel``."""

    def __init__(self, kernel, st) -> None:
        if st.batch_size != 1:
            raise ValueError(f"SingleGame runs one game; the state holds {st.batch_size}")
        self.k = kernel
        self.st = st
        self.last_played_wins = kernel.last_played_wins
        self.size = kernel.obs_layout.size
        self._nbits = _NSETS * _W + _PUB
        self._nbytes = (self._nbits + 7) // 8
        self._action = np.zeros(1, dtype=np.int64)

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self) -> np.ndarray:
        """``bool[64]``, as ``kernel.legal_actions(st)[0]``."""
        st = self.st
        if st.done[0] or st.phase[0] != PLAY:
            return self.k.legal_actions(st)[0]
        p = int(st.current_player[0])
        hand = int(st.hands[0, p])
        led = int(st.led[0])
        if led < 0:
            return _bool64(hand)
        follow = hand & _SUIT[led]
        matto = hand & _MATB
        if follow:
            return _bool64(follow | matto)
        trumps = hand & _SUIT[TRUMP_SUIT]
        return _bool64(trumps | matto if trumps else hand)

    # ------------------------------------------------------------------ step
    def step(self, action: int, rng) -> None:
        """Apply ``action`` (legal) as ``kernel.step`` would."""
        st = self.st
        n = int(st.n_in_trick[0])
        done = int(st.tricks_done[0])
        if st.phase[0] != PLAY or done == 0 or (done == 14 and n == 3):
            self._action[0] = action
            self.k.step(st, self._action, rng)
            return
        st.rewards[:] = 0
        card = int(action)
        b = 1 << card
        p = int(st.current_player[0])
        st.hands[0, p] = int(st.hands[0, p]) ^ b
        st.played[0, p] = int(st.played[0, p]) | b
        trick = int(st.trick[0]) | b
        st.trick_card[0, p] = card
        suit = _CSUIT[card]
        led = int(st.led[0])
        if led >= 0 and card != MAT and suit != led:  # §5 shown voids, as the batched kernel's _play
            v = (1 << led) | (0 if suit == TRUMP_SUIT else 1 << TRUMP_SUIT)
            st.voids[0, p] = int(st.voids[0, p]) | v
        if led < 0 and card != MAT:
            led = suit
        st.led[0] = led
        key = _KEY[card] + (20 if (suit == led and suit >= 0 and suit != TRUMP_SUIT) else 0)
        best = int(st.trick_best[0])
        tie = self.last_played_wins and key == MOOR_KEY and best == MOOR_KEY
        win = int(st.trick_winner[0])
        if n == 0 or key > best or tie:
            st.trick_best[0] = key
            win = p
            st.trick_winner[0] = p
        n += 1
        if n < 4:
            st.trick[0] = trick
            st.n_in_trick[0] = n
            st.current_player[0] = (p + 1) % 4
            return
        team = win % 2
        st.piles[0, team] = int(st.piles[0, team]) | trick
        if trick & _MATB:
            st.matto_winner[0] = win
        st.tricks_won[0, team] += 1
        st.leader[0] = win
        st.current_player[0] = win
        st.trick[0] = 0
        st.trick_card[0] = -1
        st.led[0] = -1
        st.trick_winner[0] = -1
        st.n_in_trick[0] = 0
        st.tricks_done[0] = done + 1

    # ------------------------------------------------------------------ observation
    def observe(self, seat: int) -> np.ndarray:
        """``uint8[D]``, as ``kernel.observe(st, seat)[0]``."""
        st = self.st
        p = int(seat)
        hands = st.hands[0].tolist()
        shown = st.shown[0].tolist()
        played = st.played[0].tolist()
        piles = st.piles[0].tolist()
        trick = int(st.trick[0])
        dealer = int(st.dealer[0])
        rel = [(p + r) % 4 for r in range(4)]
        odd = p & 1
        sets = [hands[p], int(st.discards[0]) if dealer == p else 0]
        sets += [hands[s] & shown[s] for s in rel]
        sets += [played[s] for s in rel]
        sets += [played[s] & trick for s in rel]
        sets += [piles[odd], piles[1 - odd]]
        big = 0
        for i, x in enumerate(sets):
            big |= x << (_W * i)
        # public word (observation.py _public_word)
        led = int(st.led[0])
        ph = int(st.phase[0])
        w = 1 << (5 if led < 0 else led)
        if ph < 3:
            w |= 1 << (6 + min(ph, 2))
            w |= 1 << (17 + ((int(st.current_player[0]) - p) & 3))
        w |= 1 << (9 + ((dealer - p) & 3))
        w |= 1 << (13 + ((int(st.leader[0]) - p) & 3))
        tw = int(st.trick_winner[0])
        if tw >= 0:
            w |= 1 << (21 + ((tw - p) & 3))
        if (played[0] | played[1] | played[2] | played[3]) & _MATB:
            w |= 1 << (25 + ((int(st.matto_owner[0]) - p) & 3))
        mw = int(st.matto_winner[0])
        if mw >= 0:
            w |= 1 << (29 + ((mw - p) & 3))
        decided = st.decided[0].tolist()
        declared = st.declared[0].tolist()
        for r, s in enumerate(rel):
            if decided[s]:
                w |= 1 << (33 + r)
            if declared[s]:
                w |= 1 << (37 + r)
        big |= w << (_NSETS * _W)
        out = np.empty(self.size, dtype=np.uint8)
        out[: self._nbits] = np.unpackbits(
            np.frombuffer(big.to_bytes(self._nbytes, "little"), dtype=np.uint8), bitorder="little", count=self._nbits
        )
        won = st.tricks_won[0].tolist()
        dp = st.decl_points[0].tolist()
        score = st.score[0].tolist()
        counters = [int(st.tricks_done[0])]
        counters += [hands[s].bit_count() for s in rel]
        counters += [won[odd], won[1 - odd]]
        counters += [min(dp[s], 255) for s in rel]
        counters += [min(score[odd] // 8, 255), min(score[1 - odd] // 8, 255)]
        out[self._nbits :] = counters
        return out
