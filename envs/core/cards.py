"""Card packs of the suite: ids, short names, unicode/ascii rendering, bitboards.

Every pack in cardzoo has at most 62 cards, so a set of cards (a hand, a trick, the
cards a seat has played) is one ``uint64`` bitboard: bit ``i`` set means card id ``i``
is in the set. This module fixes the card ids of the five packs:

=============  =====  ==========================================================
pack           cards  id
=============  =====  ==========================================================
``FRENCH52``    52    ``13*suit + rank``; suits C D H S = 0..3; ranks 2..A = 0..12
``FRENCH36``    36    ``9*suit + rank``;  suits C D H S; ranks 6..A = 0..8
``FRENCH32``    32    ``8*suit + rank``;  suits C D H S; ranks 7 8 9 10 J Q K A = 0..7
``SPANISH48``   48    ``12*suit + rank``; suits Co Cu Cl Sw; ranks A 2..9 J N K = 0..11
``TAROCCO62``   62    ``10*suit + rank`` for suits S B C D (ranks A 6 7 8 9 10 J N Q K),
                      40 Bégato, 41-44 Moors, 45-56 trumps 5-16, 57 Moon, 58 Sun,
                      59 World, 60 Angel, 61 Matto
=============  =====  ==========================================================

Rank indices are *positions in the printed pack*, not trick-taking strength: each
game's rules module defines its own ordering (see the game's ``RULES.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Deck",
    "FRENCH52",
    "FRENCH36",
    "FRENCH32",
    "SPANISH48",
    "TAROCCO62",
    "DECKS",
    "bit",
    "concat_bits",
    "cards_to_mask",
    "mask_to_cards",
    "popcount",
    "random_set_bit",
    "select_bit",
    "unpack_bits",
    "unpack_stream",
]


@dataclass(frozen=True)
class Deck:
    """One pack of cards.

    Attributes:
        name: registry name, e.g. ``"french52"``.
        names: short name of every card id (``"10H"``, ``"3Co"``, ``"MAT"``), length ``n``.
        suit: ``int8[n]`` suit index per card id, ``-1`` for cards of no suit.
        rank: ``int8[n]`` rank index per card id inside its suit (``-1`` if none).
        suit_names: one short name per suit index.
        suit_symbols: unicode symbol per suit index (for ``unicode`` rendering).
    """

    name: str
    names: tuple[str, ...]
    suit: np.ndarray
    rank: np.ndarray
    suit_names: tuple[str, ...]
    suit_symbols: tuple[str, ...]
    rank_names: tuple[str, ...]
    _index: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update({n.upper(): i for i, n in enumerate(self.names)})

    @property
    def n(self) -> int:
        """Number of cards in the pack."""
        return len(self.names)

    def card_name(self, card: int, style: str = "ascii") -> str:
        """Short name of ``card`` (an id in ``[0, n)``).

        ``style="ascii"`` gives e.g. ``"10H"``; ``style="unicode"`` gives ``"10♥"``.
        Raises ``ValueError`` for an id outside the pack.
        """
        card = int(card)
        if not 0 <= card < self.n:
            raise ValueError(f"card id {card} is not in the {self.name} pack (valid: 0..{self.n - 1})")
        if style == "ascii":
            return self.names[card]
        if style != "unicode":
            raise ValueError(f"unknown style {style!r}; valid: 'ascii', 'unicode'")
        s = int(self.suit[card])
        if s < 0:
            return self.names[card]
        return self.rank_names[int(self.rank[card])] + self.suit_symbols[s]

    def card_id(self, name: str) -> int:
        """Inverse of :meth:`card_name` (ascii names, case-insensitive).

        Raises ``ValueError`` naming a few valid names when ``name`` is not a card of the pack.
        """
        try:
            return self._index[name.strip().upper()]
        except KeyError:
            raise ValueError(
                f"{name!r} is not a card of the {self.name} pack; "
                f"names look like {', '.join(self.names[:3])} ... {self.names[-1]}"
            ) from None

    def ids(self, names: str | list[str]) -> list[int]:
        """Card ids of a whitespace/comma separated string or list of names."""
        if isinstance(names, str):
            names = names.replace(",", " ").split()
        return [self.card_id(n) for n in names]

    def suit_mask(self, suit: int) -> int:
        """Bitboard (python int) of all cards of ``suit``."""
        return cards_to_mask(np.flatnonzero(self.suit == suit))


def _suited(name, suits, symbols, ranks, extra=()):
    names, suit, rank = [], [], []
    for s, sn in enumerate(suits):
        for r, rn in enumerate(ranks):
            names.append(rn + sn)
            suit.append(s)
            rank.append(r)
    for n in extra:
        names.append(n)
        suit.append(-1)
        rank.append(-1)
    return Deck(
        name=name,
        names=tuple(names),
        suit=np.array(suit, dtype=np.int8),
        rank=np.array(rank, dtype=np.int8),
        suit_names=tuple(suits),
        suit_symbols=tuple(symbols),
        rank_names=tuple(ranks),
    )


_FR = ("C", "D", "H", "S")
_FR_SYM = ("♣", "♦", "♥", "♠")

FRENCH52 = _suited("french52", _FR, _FR_SYM, ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))
FRENCH36 = _suited("french36", _FR, _FR_SYM, ("6", "7", "8", "9", "10", "J", "Q", "K", "A"))
FRENCH32 = _suited("french32", _FR, _FR_SYM, ("7", "8", "9", "10", "J", "Q", "K", "A"))
SPANISH48 = _suited(
    "spanish48",
    ("Co", "Cu", "Cl", "Sw"),
    ("🪙", "🏆", "🪵", "🗡"),
    ("A", "2", "3", "4", "5", "6", "7", "8", "9", "J", "N", "K"),
)
TAROCCO62 = _suited(
    "tarocco62",
    ("S", "B", "C", "D"),
    ("⚔", "🪵", "🏆", "🪙"),
    ("A", "6", "7", "8", "9", "10", "J", "N", "Q", "K"),
    extra=("BEG", "MO1", "MO2", "MO3", "MO4")
    + tuple(f"T{n}" for n in range(5, 17))
    + ("MOO", "SUN", "WOR", "ANG", "MAT"),
)

DECKS: dict[str, Deck] = {d.name: d for d in (FRENCH52, FRENCH36, FRENCH32, SPANISH48, TAROCCO62)}

# ---------------------------------------------------------------- bitboards

_ONE = np.uint64(1)


def bit(card) -> np.ndarray:
    """``uint64`` bitboard(s) holding only ``card`` (scalar or int array)."""
    return np.left_shift(_ONE, np.asarray(card, dtype=np.uint64))


def cards_to_mask(cards) -> int:
    """Python-int bitboard of an iterable of card ids."""
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def mask_to_cards(mask) -> list[int]:
    """Sorted card ids of one bitboard (python int or numpy uint64)."""
    m = int(mask)
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


if hasattr(np, "bitwise_count"):

    def popcount(x: np.ndarray) -> np.ndarray:
        """Number of cards in each bitboard of ``x`` (``uint64[...]`` -> ``uint8[...]``)."""
        return np.bitwise_count(x)

else:  # pragma: no cover - numpy < 2.0

    def popcount(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.uint64)
        return np.unpackbits(x.view(np.uint8).reshape(*x.shape, 8), axis=-1).sum(-1).astype(np.uint8)


def unpack_bits(x: np.ndarray, n: int) -> np.ndarray:
    """Bitboards ``uint64[..., k]`` -> ``uint8[..., k, n]`` of 0/1 (first ``n`` bits of each).

    Relies on little-endian uint64 (numpy on every supported platform).
    """
    x = np.ascontiguousarray(x, dtype=np.uint64)
    b = np.unpackbits(x.view(np.uint8).reshape(-1), bitorder="little").reshape(*x.shape, 64)
    return b[..., :n]


def concat_bits(sets: np.ndarray, width: int) -> np.ndarray:
    """Concatenate the low ``width`` bits of each of ``k`` bitboards into one bit stream.

    ``sets``: ``uint64[k, B]`` (set-major, each value < 2**width) -> ``uint64[B, ceil(k*width/64)]``
    where bit ``i*width + j`` of the stream is bit ``j`` of ``sets[i]``. With :func:`unpack_stream`
    this turns ``k`` card sets into ``k*width`` 0/1 features in one pass.
    """
    k, B = sets.shape
    nwords = (k * width + 63) // 64
    out = np.zeros((nwords, B), dtype=np.uint64)
    for i in range(k):
        w, off = divmod(i * width, 64)
        row = sets[i]
        out[w] |= row << np.uint64(off)
        if off + width > 64:
            out[w + 1] |= row >> np.uint64(64 - off)
    return np.ascontiguousarray(out.T)


def unpack_stream(stream: np.ndarray, nbits: int) -> np.ndarray:
    """``uint64[B, w]`` bit stream -> ``uint8[B, nbits]`` of its first ``nbits`` bits (0/1)."""
    B = stream.shape[0]
    return np.unpackbits(stream.view(np.uint8).reshape(B, -1), axis=1, count=nbits, bitorder="little")


_LOW_MASKS = [(w, np.uint64((1 << w) - 1)) for w in (32, 16, 8, 4, 2, 1)]


def select_bit(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Index of the ``k``-th lowest set bit of each bitboard (``uint64[B]``, ``int[B]`` -> ``int64[B]``).

    A branch-free binary search (6 rounds of shift/mask/popcount); ``k`` must be smaller
    than ``popcount(x)``.
    """
    x = np.asarray(x, dtype=np.uint64)
    k = np.asarray(k, dtype=np.int64).copy()
    pos = np.zeros(x.shape, dtype=np.int64)
    for w, m in _LOW_MASKS:
        c = popcount((x >> pos.astype(np.uint64)) & m).astype(np.int64)
        up = k >= c
        k -= np.where(up, c, 0)
        pos += np.where(up, w, 0)
    return pos


def random_set_bit(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random set bit of each bitboard ``uint64[B]`` (-> ``int64[B]``; 0 where ``x == 0``)."""
    n = popcount(x).astype(np.int64)
    k = (rng.random(x.shape) * n).astype(np.int64)
    return np.where(n > 0, select_bit(x, np.minimum(k, np.maximum(n - 1, 0))), 0)
