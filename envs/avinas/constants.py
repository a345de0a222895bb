"""Avinas constants and lookup tables: card ids, trump order, points, actions, phases (``RULES.md`` §2-§5).

Card ids are those of :data:`cardzoo.envs.core.cards.FRENCH32`: ``id = 8*suit + rank`` with suits
C D H S = 0..3 and ranks 7 8 9 10 J Q K A = 0..7.
"""

from __future__ import annotations

import numpy as np

NUM_PLAYERS = 4
NUM_CARDS = 32
_U64 = np.uint64

# ---------------------------------------------------------------- actions (§8 of RULES.md)
FACEDOWN = 32  # 32..63: lead card (a - 32) face down
PASS = 64
CALL1 = 65  # 65..72: call 1..8
DECLARE = 73  # 73..76: declare_suit C D H S
KNOCK, NO_KNOCK = 77, 78
CONTINUE, STOP = 79, 80
SIG_VALUABLE, SIG_NOT_VALUABLE = 81, 82
NUM_ACTIONS = 83
SUITS = "CDHS"
PHASE_ACTIONS: dict[int, str] = {PASS: "PASS"}
PHASE_ACTIONS.update({CALL1 + n: f"CALL_{n + 1}" for n in range(8)})
PHASE_ACTIONS.update({DECLARE + s: f"DECLARE_{SUITS[s]}" for s in range(4)})
PHASE_ACTIONS.update({KNOCK: "KNOCK", NO_KNOCK: "NO_KNOCK", CONTINUE: "CONTINUE", STOP: "STOP",
                      SIG_VALUABLE: "SIGNAL_VALUABLE", SIG_NOT_VALUABLE: "SIGNAL_NOT_VALUABLE"})

# ---------------------------------------------------------------- phases
KNOCKING, CALLING, DECLARING, SIGNAL, PLAY, STOPPING, OVER = range(7)
PHASE_NAMES = ("knocks", "calls", "declarer names trumps", "face-down signal", "trick play",
               "declarer stops or continues", "over")

# game types
SEVENS, NO_SEVENS = 0, 1
GAME_NAMES = ("sevens game", "no-sevens game")

# ---------------------------------------------------------------- cards (§2)
R7, R8, R9, RT, RJ, RQ, RK, RA = range(8)
CARDS = np.arange(NUM_CARDS)
CARD_SUIT = CARDS // 8
CARD_RANK = CARDS % 8
POINTS = np.array([0, 0, 0, 10, 2, 3, 4, 11], dtype=np.int16)[CARD_RANK]  # per card id
CARD_BIT = np.left_shift(_U64(1), CARDS.astype(_U64))
QJ_BB = _U64(sum(1 << (8 * s + r) for s in range(4) for r in (RJ, RQ)))
SUIT_BB = np.array([((1 << 8) - 1) << (8 * s) for s in range(4)], dtype=_U64)
#: the 6 cards of suit s that are not queens or jacks (a plain suit when s is not trumps)
PLAIN_BB = SUIT_BB & ~QJ_BB
#: the 14 trumps when suit t is trumps
TRUMP_BB = PLAIN_BB | QJ_BB
ALL_CARDS = _U64((1 << NUM_CARDS) - 1)
#: card ids with 10 or 11 points etc. by threshold: VALUE_BB[v] = cards worth >= v points
VALUE_BB = np.array([sum(1 << c for c in range(NUM_CARDS) if POINTS[c] >= v) for v in range(0, 13)], dtype=_U64)

# trump strength (14 = QC ... 1 = 8 of trumps), 0 for non-trumps: TRUMP_STRENGTH[t, card]
_QJ_ORDER = {(0, RQ): 14, (3, RQ): 12, (2, RQ): 11, (1, RQ): 10, (0, RJ): 9, (3, RJ): 8, (2, RJ): 7, (1, RJ): 6}
_SUIT_TRUMP = {R7: 13, RA: 5, RT: 4, RK: 3, R9: 2, R8: 1}
TRUMP_STRENGTH = np.zeros((4, NUM_CARDS), dtype=np.int16)
for _t in range(4):
    for _c in range(NUM_CARDS):
        _s, _r = divmod(_c, 8)
        if (_s, _r) in _QJ_ORDER:
            TRUMP_STRENGTH[_t, _c] = _QJ_ORDER[(_s, _r)]
        elif _s == _t:
            TRUMP_STRENGTH[_t, _c] = _SUIT_TRUMP[_r]
#: plain-suit strength A 6 > T 5 > K 4 > 9 3 > 8 2 > 7 1 (0 for Q/J)
PLAIN_STRENGTH = np.array([1, 2, 3, 5, 0, 0, 4, 6], dtype=np.int16)[CARD_RANK]

# ---------------------------------------------------------------- deal (§3)
#: stock positions of the 8 cards of the k-th player from the dealer's left (k = 0 L, 1 P, 2 R, 3 D)
DEAL_POS = np.array([[16 * r + 4 * k + j for r in range(2) for j in range(4)] for k in range(4)], dtype=np.intp)
#: the key (4th and 8th) cards in deal order L4, P4, R4, D4, L8, P8, R8, D8: stock position and k
KEY_POS = np.array([3, 7, 11, 15, 19, 23, 27, 31], dtype=np.intp)
KEY_K = np.array([0, 1, 2, 3, 0, 1, 2, 3], dtype=np.intp)
