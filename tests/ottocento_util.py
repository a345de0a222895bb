"""Helpers for the Ottocento tests: card names, stacked decks, hand-built trick positions.

The deal positions are restated here from the rules text (RULES.md §3: three rounds of
packets of 5 starting with the dealer's right-hand neighbour, the dealer takes the last 2),
not taken from the kernel, so the tests that use them check the kernel against the rules.
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs.core.cards import TAROCCO62, cards_to_mask, mask_to_cards
from cardzoo.envs.ottocento.constants import PLAY
from cardzoo.envs.ottocento.kernel import OttocentoKernel


def ids(names: str) -> list[int]:
    return TAROCCO62.ids(names)


def cid(name: str) -> int:
    return TAROCCO62.card_id(name)


def names(cards) -> list[str]:
    return [TAROCCO62.names[c] for c in cards]


def bb(names_: str) -> np.uint64:
    return np.uint64(cards_to_mask(ids(names_)))


def suit_of(card: int) -> str:
    """'S', 'B', 'C', 'D' for plain cards, 'T' for trumps (BEG..ANG), 'M' for the Matto."""
    if card < 40:
        return "SBCD"[card // 10]
    return "M" if card == 61 else "T"


def seat_positions(dealer: int, packet: int = 5) -> dict[int, list[int]]:
    """Stock positions (0-based) of each seat's cards (RULES.md §3)."""
    out: dict[int, list[int]] = {s: [] for s in range(4)}
    for r in range(15 // packet):
        for k in range(4):
            seat = (dealer + 1 + k) % 4
            start = r * 4 * packet + k * packet
            out[seat] += list(range(start, start + packet))
    out[dealer] += [60, 61]
    return out


def make_deck(hands: dict[int, str], dealer: int, voids: dict[int, str] | None = None, packet: int = 5) -> np.ndarray:
    """A stock order dealing the named cards to the given seats; the other cards fill the hands in
    id order, skipping seats void (``voids[seat]`` = suit letters of :func:`suit_of`)."""
    voids = voids or {}
    want = {s: ids(h) for s, h in hands.items()}
    used = {c for cs in want.values() for c in cs}
    size = {s: 17 if s == dealer else 15 for s in range(4)}
    hand = {s: list(want.get(s, [])) for s in range(4)}
    for c in range(62):
        if c in used:
            continue
        for s in sorted(range(4), key=lambda s: len(hand[s])):
            if len(hand[s]) < size[s] and suit_of(c) not in voids.get(s, ""):
                hand[s].append(c)
                break
        else:
            raise ValueError(f"cannot place {names([c])}")
    deck = np.empty(62, dtype=np.int64)
    for s, pos in seat_positions(dealer, packet).items():
        deck[pos] = hand[s]
    return deck


def trick_state(hands: list[str], leader: int = 0, **options):
    """A one-game state in trick play (trick 6, declarations over) where seat ``s`` holds ``hands[s]``."""
    k = OttocentoKernel(**options)
    st = k.init(np.random.default_rng(0), 1, dealer=(leader - 1) % 4)
    for s in range(4):
        st.hands[0, s] = bb(hands[s])
    st.phase[0] = PLAY
    st.tricks_done[0] = 5
    st.decided[0] = True
    st.current_player[0] = leader
    st.leader[0] = leader
    return k, st


def play_trick(k, st, cards: list[str]) -> int:
    """Play ``cards`` in turn (each checked legal); returns the trick winner's seat."""
    rng = np.random.default_rng(0)
    before = int(st.tricks_done[0])
    for name in cards:
        k.check_actions(st, np.array([cid(name)]))
        k.step(st, np.array([cid(name)]), rng)
    assert int(st.tricks_done[0]) == before + 1
    return int(st.leader[0])


def legal_names(k, st) -> set[str]:
    return set(names(mask_to_cards(k.legal_bitboard(st)[0])))


#: spec example E11: sequence validity edges, ``(cards, combination points)``
E11_CASES = [
    ("KS QS AS", 0),  # the Ace cannot be the third card
    ("KS QS AS MAT", 15),
    ("KS QS NS JS AS", 20),
    ("ANG MOO BEG T16 T15", 20),  # t = 1, BEG fills a head slot
    ("AS AB MAT", 10),
    ("AS BEG MAT", 0),  # only one real ace
]
