"""Aluette constants and lookup tables: card powers, key cards, signals, action ids, phases
(``RULES.md`` §2, §4, §8).

Card ids are those of :data:`cardzoo.envs.core.cards.SPANISH48`: ``12*suit + rank``, suits
Co Cu Cl Sw = 0..3, ranks A 2 3 4 5 6 7 8 9 J N K = 0..11 (so ``3Co`` = 2, ``3Cu`` = 14).
"""

from __future__ import annotations

import numpy as np

from ..core.cards import SPANISH48

NUM_PLAYERS = 4
NUM_CARDS = 48
HAND = 9  # cards dealt to each player (§3)
TALON = 12  # cards left after the deal (§3)
DISCARDS = 6  # cards each chant recipient discards (§4.2)
NUM_TRICKS = 9

_U64 = np.uint64
ALL_CARDS = _U64((1 << NUM_CARDS) - 1)


def _cid(name: str) -> int:
    return SPANISH48.card_id(name)


#: §2 power of every card id (1..19; higher beats lower; equal powers tie)
_RANK_POWER = {0: 11, 1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 7, 9: 8, 10: 9, 11: 10}  # A 2 3 4..9 J N K
POWER = np.array([_RANK_POWER[c % 12] for c in range(NUM_CARDS)], dtype=np.int8)
#: the eight named cards (§2), strongest first, with their power
NAMED = (("3Co", 19), ("3Cu", 18), ("2Co", 17), ("2Cu", 16), ("9Cu", 15), ("9Co", 14), ("2Cl", 13), ("2Sw", 12))
for _n, _p in NAMED:
    POWER[_cid(_n)] = _p
# ordinary twos do not exist (all four twos are named); ordinary nines 9Cl 9Sw = 7; ordinary threes 3Cl 3Sw = 1
assert np.bincount(POWER, minlength=20).tolist() == [0, 2, 4, 4, 4, 4, 4, 2, 4, 4, 4, 4] + [1] * 8  # §2 "Count" column
assert (POWER > 0).all()
#: bitboards of the cards of each power 0..19 (0 empty)
POWER_BB = np.array([sum(1 << c for c in range(NUM_CARDS) if POWER[c] == p) for p in range(20)], dtype=_U64)
#: bitboard of the cards strictly more powerful than power p (index 0..19)
ABOVE_BB = np.array([sum(1 << c for c in range(NUM_CARDS) if POWER[c] > p) for p in range(20)], dtype=_U64)

#: signals (§4.5) in action order; each names a bitboard of cards: truthful iff the hand meets it
SIGNALS = ("monsieur", "madame", "borgne", "vache", "grand_neuf", "petit_neuf", "deux_de_chene", "deux_d_ecrit", "as", "faible")
NUM_SIGNALS = len(SIGNALS)
KEY_BB = np.array([1 << _cid(n) for n, _ in NAMED], dtype=_U64)  # signals 0..7: holds that card
ACES_BB = _U64(sum(1 << (12 * s) for s in range(4)))  # signal 8 ``as``: holds at least one ace
KEY_OR_ACE_BB = _U64(int(np.bitwise_or.reduce(KEY_BB)) | int(ACES_BB))  # signal 9 ``faible``: holds none of these
SIGNAL_BB = np.concatenate([KEY_BB, [ACES_BB, KEY_OR_ACE_BB]]).astype(_U64)

# ---- actions (§8 "suggested flat action set")
ACCEPT_CHANT, REFUSE_CHANT = 48, 49
SIGNAL0 = 50  # 50..59 the ten signals in table order
END_SIGNALS = 60
OFFER_SURRENDER, NO_OFFER, ACCEPT_SURRENDER, REFUSE_SURRENDER = 61, 62, 63, 64
NUM_ACTIONS = 65
PHASE_ACTIONS = (
    ["accept_chant", "refuse_chant"]
    + list(SIGNALS)
    + ["end_signals", "offer_surrender", "no_offer", "accept_surrender", "refuse_surrender"]
)
assert len(PHASE_ACTIONS) == NUM_ACTIONS - NUM_CARDS

# ---- phases of a deal (§4, §5)
VOTE, DISCARD, SIGNAL, OFFER, ANSWER, PLAY, OVER = range(7)
PHASE_NAMES = ("chant vote", "chant discards", "signalling round", "surrender offers", "surrender answer", "trick play", "over")
NUM_LIVE_PHASES = 6

# 3-card packets: stock positions of the k-th player from the dealer's left (L, P, R, D), §3
DEAL_POS = np.array([[12 * r + 3 * k + j for r in range(3) for j in range(3)] for k in range(4)], dtype=np.intp)
TALON_POS = np.arange(36, 48, dtype=np.intp)
