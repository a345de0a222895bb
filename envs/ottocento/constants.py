"""Ottocento constants and lookup tables: card ids, values, strengths, actions, phases (``RULES.md`` §2-§5, §7).

Card ids are those of :data:`cardzoo.envs.core.cards.TAROCCO62`: ``10*suit + rank`` for the suits
S B C D (ranks A 6 7 8 9 10 J N Q K = 0..9), then 40 BEG, 41-44 MO1-MO4, 45-56 T5-T16,
57 MOO, 58 SUN, 59 WOR, 60 ANG, 61 MAT.
"""

from __future__ import annotations

import numpy as np

NUM_PLAYERS = 4
NUM_CARDS = 62
DECLARE, PASS = 62, 63
NUM_ACTIONS = 64
PHASE_ACTIONS = {DECLARE: "DECLARE", PASS: "PASS"}

#: phases of a deal (§7)
DISCARD, DECLARING, PLAY, OVER = 0, 1, 2, 3
PHASE_NAMES = ("dealer discards", "declare or pass", "trick play", "over")

_U64 = np.uint64

# ---- named cards (§2.1)
BEG = 40
MOORS = (41, 42, 43, 44)
T5, T16 = 45, 56
MOO, SUN, WOR, ANG = 57, 58, 59, 60
MAT = 61
RANK_A, RANK_J, RANK_N, RANK_Q, RANK_K = 0, 6, 7, 8, 9
#: led-suit codes: 0-3 plain suits S B C D, 4 trumps (-1: nothing led yet)
TRUMP_SUIT = 4
LED_NAMES = ("S", "B", "C", "D", "trumps")


def _bb(ids) -> int:
    m = 0
    for i in ids:
        m |= 1 << int(i)
    return m


ALL_CARDS = _U64((1 << NUM_CARDS) - 1)
TRUMPS_BB = _U64(_bb(range(40, 61)))
MAT_BIT = _U64(1 << MAT)
SUIT_BB = np.array([_bb(range(10 * s, 10 * s + 10)) for s in range(4)] + [int(TRUMPS_BB)], dtype=_U64)
CONTATORI_BB = _U64(_bb((BEG, MAT)))
#: §3.3: the dealer may never discard these (Kings, ANG, WOR, BEG, MAT)
FORBIDDEN_DISCARDS_BB = _U64(_bb([10 * s + RANK_K for s in range(4)] + [ANG, WOR, BEG, MAT]))
NUMERALS_BB = _U64(_bb([10 * s + r for s in range(4) for r in range(1, 6)]))

# ---- values (§2.3): K, ANG, WOR, BEG, MAT 5; Q 4; N 3; J 2; everything else 1
VALUE = np.ones(NUM_CARDS, dtype=np.int16)
for _s in range(4):
    VALUE[10 * _s + RANK_K] = 5
    VALUE[10 * _s + RANK_Q] = 4
    VALUE[10 * _s + RANK_N] = 3
    VALUE[10 * _s + RANK_J] = 2
VALUE[[ANG, WOR, BEG, MAT]] = 5
#: bitboards of the cards of value 1..5 (index = value)
VALUE_BB = np.array([_bb(np.flatnonzero(VALUE == v)) for v in range(6)], dtype=_U64)
SCARTINI_BB = VALUE_BB[1]

# ---- trick-taking strength (§2.2): plain cards 0..9 inside their suit, trumps 0..20
STRENGTH = np.zeros(NUM_CARDS, dtype=np.int8)
for _s in range(4):
    for _r in range(10):
        if _s < 2 or _r >= RANK_J:  # swords, batons: rank order; courts everywhere
            STRENGTH[10 * _s + _r] = _r
        else:  # cups, coins: A 6 7 8 9 10 run in reverse (A highest of them)
            STRENGTH[10 * _s + _r] = 5 - _r
STRENGTH[BEG] = 0
STRENGTH[list(MOORS)] = 1
for _n in range(5, 17):
    STRENGTH[40 + _n] = _n
STRENGTH[[MOO, SUN, WOR, ANG]] = [17, 18, 19, 20]
STRENGTH[MAT] = -1
#: suit code of every card (0-3 plain, 4 trumps, -1 the Matto)
CARD_SUIT = np.array([c // 10 for c in range(40)] + [TRUMP_SUIT] * 21 + [-1], dtype=np.int8)
#: ranking key inside a trick without the "suit led" bonus: trumps 40 + strength; plain cards strength
#: (+ 20 if of the suit led, added at play time); the Matto -1 never wins (§5)
BASE_KEY = np.where(CARD_SUIT == TRUMP_SUIT, 40 + STRENGTH, STRENGTH).astype(np.int8)
MOOR_KEY = 41
