"""All Fours constants and lookup tables: action ids, phases, rank tables (``RULES.md`` §2, §4, §6)."""

from __future__ import annotations

import numpy as np

NUM_PLAYERS = 4
NUM_CARDS = 52
STAND, BEG, GIVE_ONE, RUN = 52, 53, 54, 55
NUM_ACTIONS = 56
PHASE_ACTIONS = {STAND: "STAND", BEG: "BEG", GIVE_ONE: "GIVE_ONE", RUN: "RUN"}

#: phases of a hand
BEG_DECISION, DEALER_DECISION, PLAY, OVER = 0, 1, 2, 3
PHASE_NAMES = ("beggar decides (stand/beg)", "dealer decides (give one/run)", "trick play", "over")

#: scoring items in counting order (§6)
HIGH, LOW, JACK, GAME = 0, 1, 2, 3
ITEM_NAMES = ("High", "Low", "Jack", "Game")

JACK_RANK = 9  # rank index of the jack (2=0 ... A=12)
_U64 = np.uint64
SUIT_BITS = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=_U64)
ALL_CARDS = _U64((1 << 52) - 1)

# per-rank tables (§2)
GAME_VALUE = np.array([0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3, 4], dtype=np.int16)
KICK_POINTS = {
    "trinidad": np.array([0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 1], dtype=np.int16),  # 6:2, J:3, A:1
    "tobago": np.array([2, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 1], dtype=np.int16),  # 2:2, J:3, A:1
}

# 13-bit suit-chunk lookup tables: highest / lowest rank present in a suit
_chunks = np.arange(1 << 13)
HIGHEST = np.full(1 << 13, -1, dtype=np.int8)
LOWEST = np.full(1 << 13, 13, dtype=np.int8)
for _r in range(13):
    _has = (_chunks >> _r) & 1 == 1
    HIGHEST[_has] = _r
for _r in range(12, -1, -1):
    LOWEST[((_chunks >> _r) & 1) == 1] = _r
# mask of ranks strictly above r inside a chunk, and below r
ABOVE = np.array([((1 << 13) - 1) & ~((1 << (r + 1)) - 1) for r in range(13)] + [0], dtype=np.int64)

# deal positions in the stock (§3, §11.1): first deal 0..23, kick 24; run 1: 25..36, kick 37;
# run 2: 38..49, kick 50; card 51 is never used.
FIRST_KICK, RUN_KICKS = 24, (37, 50)


