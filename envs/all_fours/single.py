"""The one-game (B = 1) fast path of the All Fours kernel, used by the PettingZoo env.

With one game, numpy's per-call overhead (about a microsecond a call) dominates: the
batched kernel spends some 100 calls per agent step. :class:`SingleGame` does the frequent
work — legal actions, playing a card, resolving a trick, and the observation — with Python
ints on the same :class:`~cardzoo.envs.all_fours.kernel.AllFoursState` (``B = 1``), and hands
everything else (decisions, runs, scoring a hand, dealing) to the batched kernel. The state
stays the batched state, so rendering, ``state()``, copies and pickling are unchanged.

Its rules are the batched kernel's, restated for one game: follow suit and undertrumping
(``RULES.md`` §5), the trick's winner and capture (§5, §6 Game). ``tests/test_all_fours_single.py``
checks it against the batched kernel step for step (actions, observations of every seat,
masks, rewards, states) over thousands of random games and every option that touches them.
"""

from __future__ import annotations

import numpy as np

from .constants import (
    ABOVE,
    BEG,
    BEG_DECISION,
    DEALER_DECISION,
    GAME_VALUE,
    GIVE_ONE,
    HIGHEST,
    OVER,
    PLAY,
    RUN,
    STAND,
)

_SUIT = [((1 << 13) - 1) << (13 * s) for s in range(4)]
_GAME = [int(v) for v in GAME_VALUE]
_HIGHEST = HIGHEST.tolist()
_ABOVE = ABOVE.tolist()
_BEG_BITS = (1 << STAND) | (1 << BEG)
_ONE_BIT = [1 << i for i in range(64)]
_PUB_BITS = 29
_SETS_BITS = 7 * 52


class SingleGame:
    """Fast B = 1 operations on ``st`` (an ``AllFoursState`` of one game) for ``kernel``."""

    def __init__(self, kernel, st) -> None:
        if st.batch_size != 1:
            raise ValueError(f"SingleGame runs one game; the state holds {st.batch_size}")
        self.k = kernel
        self.st = st
        self.undertrump_forbidden = kernel.options["undertrump"] == "forbidden"
        self.forbid_give = kernel.options["forbid_game_ending_give_one"]
        self.L = kernel.obs_layout
        self.score_high = int(self.L.entries[-1].high)
        self._one = np.array([0])
        self._size = self.L.size
        self._nbytes = (self._size + 7) // 8
        self._nbits = _SETS_BITS + _PUB_BITS

    # ------------------------------------------------------------------ legal actions (§4, §5)
    def legal_bits(self) -> int:
        """Legal actions of the seat to act as a Python-int bitboard (0 once the game is over)."""
        st = self.st
        if st.done.item(0):
            return 0
        phase = st.phase.item(0)
        if phase == PLAY:
            hand = st.hands.item(st.current_player.item(0))
            led = st.led_suit.item(0)
            if led < 0:
                return hand
            t = st.trump.item(0)
            tmask = _SUIT[t]
            trumps = hand & tmask
            if led == t:
                return trumps if trumps else hand
            follow = hand & _SUIT[led]
            legal = (follow | trumps) if follow else hand
            if self.undertrump_forbidden and hand != trumps:
                top = _HIGHEST[(st.trick.item(0) & tmask) >> (13 * t)]
                if top >= 0:
                    legal &= ~(trumps & ~(_ABOVE[top] << (13 * t)))
            return legal
        if phase == BEG_DECISION:
            return _BEG_BITS
        if phase == DEALER_DECISION:
            bits = 1 << RUN
            if not self.forbid_give or st.score.item((st.dealer.item(0) + 1) % 2) + 1 < self.k.target:
                bits |= 1 << GIVE_ONE
            return bits
        return 0

    def legal_mask(self) -> np.ndarray:
        """``bool[56]`` action mask."""
        b = self.legal_bits()
        return np.unpackbits(np.frombuffer(b.to_bytes(8, "little"), dtype=np.uint8), count=56, bitorder="little").view(bool)

    # ------------------------------------------------------------------ step
    def step(self, action: int, rng) -> None:
        """Apply a legal ``action`` (unchecked) and advance, exactly like ``kernel.step``."""
        st = self.st
        if st.done.item(0) or st.phase.item(0) != PLAY:
            self.k.step(st, np.array([action]), rng)
            return
        st.rewards[0] = 0
        p = st.current_player.item(0)
        card = int(action)
        cb = _ONE_BIT[card]
        st.hands[0, p] = st.hands.item(p) ^ cb
        st.played[0, p] = st.played.item(p) | cb
        trick = st.trick.item(0) | cb
        st.trick[0] = trick
        st.trick_card[0, p] = card
        suit = card // 13
        n = st.n_in_trick.item(0)
        led = suit if n == 0 else st.led_suit.item(0)
        st.led_suit[0] = led
        trump = st.trump.item(0)
        if suit != led and (led == trump or suit != trump):  # a shown void (§5), as in the kernel
            st.voids[0, p] |= 1 << led
        key = card % 13 + 13 * (suit == led) + 26 * (suit == trump)
        if n == 0 or key > st.trick_best.item(0):
            st.trick_best[0] = key
            st.trick_winner[0] = p
            win = p
        else:
            win = st.trick_winner.item(0)
        n += 1
        if n < 4:
            st.n_in_trick[0] = n
            st.current_player[0] = (p + 1) % 4
            return
        # the trick is complete: the winner captures it and leads (§5); Game value counted (§6)
        team = win % 2
        st.captured[0, team] = st.captured.item(team) | trick
        st.game_value[0, team] += sum(_GAME[c % 13] for c in st.trick_card[0].tolist())
        st.last_trick[0] = st.trick_card[0]
        st.last_leader[0] = st.leader[0]
        st.last_winner[0] = win
        st.leader[0] = win
        st.current_player[0] = win
        st.trick[0] = 0
        st.trick_card[0] = -1
        st.led_suit[0] = -1
        st.trick_winner[0] = -1
        st.n_in_trick[0] = 0
        done = st.tricks_done.item(0) + 1
        st.tricks_done[0] = done
        if done == st.hand_size.item(0):
            self.k._score_hand(st, self._one, rng)

    # ------------------------------------------------------------------ observation (§7)
    def observe(self, seat: int) -> np.ndarray:
        """``uint8[D]`` observation of ``seat``, identical to ``kernel.observe(st, seat)[0]``."""
        st = self.st
        hands, played = st.hands.tolist()[0], st.played.tolist()[0]
        stream = (
            hands[seat]
            | played[seat] << 52
            | played[(seat + 1) % 4] << 104
            | played[(seat + 2) % 4] << 156
            | played[(seat + 3) % 4] << 208
            | st.trick.item(0) << 260
            | st.kicked.item(0) << 312
        )
        # public one-hots/flags, same bit order as observation._public_word
        phase = st.phase.item(0)
        led = st.led_suit.item(0)
        w = 1 << st.trump.item(0) | 1 << (11 + (st.dealer.item(0) - seat) % 4) | 1 << (15 + (st.leader.item(0) - seat) % 4)
        if led >= 0:
            w |= 1 << (4 + led) | 1 << (23 + (st.trick_winner.item(0) - seat) % 4)
        if phase != OVER:
            w |= 1 << (8 + phase) | 1 << (19 + (st.current_player.item(0) - seat) % 4)
        w |= st.begged.item(0) << 27 | st.gave_one.item(0) << 28
        stream |= w << _SETS_BITS
        out = np.unpackbits(np.frombuffer(stream.to_bytes(self._nbytes, "little"), dtype=np.uint8), count=self._size, bitorder="little")
        mine = seat & 1
        gv, pts, sc = st.game_value.tolist()[0], st.points.tolist()[0], st.score.tolist()[0]
        hi = self.score_high
        out[self._nbits :] = (
            st.runs.item(0), st.hand_size.item(0), st.tricks_done.item(0),
            min(gv[mine], 80), min(gv[1 - mine], 80), min(pts[mine], 40), min(pts[1 - mine], 40),
            min(sc[mine], hi), min(sc[1 - mine], hi),
        )
        return out
