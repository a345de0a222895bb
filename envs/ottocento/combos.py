"""The Ottocento combination scorer: sets, the seven sequences, contatori, the Grande chain, doublings.

``RULES.md`` §4 (declarations) and §6 step 3 (captured combinations) score a card collection
with the **same** function: the compiled :func:`cardzoo.envs.ottocento.rules.combo_parts`, which
the kernel's rules call for declarations and captured piles. :func:`combo_breakdown` /
:func:`combo_score` run it over ``uint64`` bitboards of any shape (bit ``i`` = card id ``i`` of
:data:`cardzoo.envs.core.cards.TAROCCO62`) for the agents, search and views.
:func:`reference_breakdown` restates the same rules card by card over a list of ids (plain
Python, written independently of the compiled scorer); the tests check the two against each
other on many random collections.

Scoring summary (``RULES.md`` §4.2-§4.4):

* **Sets** (3 / 4 of a kind): Tarocchi (ANG WOR BEG MAT) 18 / 36, Kings 17 / 34, Queens
  14 / 28, Knights 13 / 26, Jacks 12 / 24. Three or more scoring sets double the set subtotal.
* **Sequences**, worth ``5*L - 5`` for length ``L >= 3``. ``c`` = contatori held (BEG, MAT):
  every contatore adds 1 to the length of *every* valid sequence.

  - suit (x4): King + ``k`` real courts among Q N J; valid iff ``k >= 2`` or (``k == 1`` and
    ``c >= 1``); ``L = 1 + k + [Ace] + c``.
  - Aces, Moors: ``a`` real cards, valid iff ``a >= 2`` and ``a + c >= 3``; ``L = a + c``.
  - Grande: ANG + ``t`` real of WOR SUN MOO (``t >= 2``, or ``t == 1`` with a contatore
    filling a head slot), then the chain T16 .. T5 where a missing number may be filled by an
    unused contatore unless the previous position was itself filled; reaching T5 lets every
    held Moor join. ``L = 1 + t + real numbers reached + Moors joined + c``.

  Three or more valid sequences double the sequence subtotal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from . import rules as _rules
from .constants import ANG, BEG, MAT, MOO, MOORS, RANK_A, RANK_J, RANK_K, RANK_N, RANK_Q, SUN, WOR

__all__ = [
    "SET_NAMES",
    "SEQ_NAMES",
    "ComboBreakdown",
    "combo_breakdown",
    "combo_score",
    "reference_breakdown",
    "seq_value",
]

_U64 = np.uint64

#: set kinds in order (``ComboBreakdown.sets`` columns)
SET_NAMES = ("Tarocchi", "Kings", "Queens", "Knights", "Jacks")
#: sequence kinds in order (``ComboBreakdown.seqs`` columns)
SEQ_NAMES = ("swords", "batons", "cups", "coins", "Aces", "Moors", "Grande")

_SET_MEMBERS = (
    (ANG, WOR, BEG, MAT),
    tuple(10 * s + RANK_K for s in range(4)),
    tuple(10 * s + RANK_Q for s in range(4)),
    tuple(10 * s + RANK_N for s in range(4)),
    tuple(10 * s + RANK_J for s in range(4)),
)
_SET_VALUES = ((18, 36), (17, 34), (14, 28), (13, 26), (12, 24))  # (three, four)
_ACES = tuple(10 * s + RANK_A for s in range(4))


def seq_value(length) -> np.ndarray:
    """Points of a sequence of ``length`` cards (§4.3): ``5*L - 5`` for ``L >= 3``, else 0.

    ``length``: an int or an integer array of any shape; returns an array of that shape and dtype
    (0-d for an int)."""
    length = np.asarray(length)
    return np.where(length >= 3, 5 * length - 5, 0)


class ComboBreakdown(NamedTuple):
    """Score of card collections, item by item (every field has the collections' shape ``S``).

    Attributes:
        sets: ``int16[*S, 5]`` points of each set kind (:data:`SET_NAMES`), before doubling.
        seqs: ``int16[*S, 7]`` points of each sequence kind (:data:`SEQ_NAMES`), before doubling.
        sets_doubled, seqs_doubled: ``bool[*S]`` the Criccone / sequence doubling applies.
        total: ``int32[*S]`` the combination score (§4.4).
        shown: ``uint64[*S]`` bitboard of the cards that belong to at least one scoring
            combination (contatori included when they count): what a declaration reveals (§4.1).
    """

    sets: np.ndarray
    seqs: np.ndarray
    sets_doubled: np.ndarray
    seqs_doubled: np.ndarray
    total: np.ndarray
    shown: np.ndarray


def combo_breakdown(cards, natural_skip_counts_as_gap: bool = False) -> ComboBreakdown:
    """Score card collections given as ``uint64`` bitboards of any shape (``RULES.md`` §4).

    Args:
        cards: ``uint64[*S]`` (or a Python int) bitboards over the 62 TAROCCO62 card ids.
        natural_skip_counts_as_gap: option of §8: when True a missing MOO in the Grande head
            counts as a substitution, so T16 cannot then be filled by a contatore.

    Returns:
        :class:`ComboBreakdown` with arrays of shape ``S``, computed by the compiled scorer
        :func:`cardzoo.envs.ottocento.rules.combo_parts` (the one the kernel uses). Order of the
        cards in a collection cannot matter (a bitboard has none). Pure function.
    """
    x = np.asarray(cards, dtype=_U64)
    flat = np.ascontiguousarray(x.reshape(-1))
    n = flat.shape[0]
    total = np.empty(n, dtype=np.int32)
    shown = np.empty(n, dtype=_U64)
    sets = np.empty((n, 5), dtype=np.int16)
    seqs = np.empty((n, 7), dtype=np.int16)
    _rules.combo_batch(flat, bool(natural_skip_counts_as_gap), total, shown, sets, seqs)
    S = x.shape
    sets = sets.reshape(*S, 5)
    seqs = seqs.reshape(*S, 7)
    return ComboBreakdown(
        sets, seqs, (sets > 0).sum(axis=-1) >= 3, (seqs > 0).sum(axis=-1) >= 3, total.reshape(S), shown.reshape(S)
    )


def combo_score(cards, natural_skip_counts_as_gap: bool = False) -> np.ndarray:
    """Combination score ``int32[*S]`` of ``uint64[*S]`` bitboards (§4.4); see :func:`combo_breakdown`."""
    return combo_breakdown(cards, natural_skip_counts_as_gap).total


# --------------------------------------------------------------------------- reference


def reference_breakdown(card_ids: Iterable[int], natural_skip_counts_as_gap: bool = False) -> dict:
    """The same rules as :func:`combo_breakdown`, card by card, for one collection of card ids.

    A plain restatement of §4 for the tests (and for reading): returns ``{"sets": [5 ints],
    "seqs": [7 ints], "sets_doubled", "seqs_doubled", "total", "shown": sorted ids}``.
    Raises ``ValueError`` for an id outside 0..61 or a repeated id.
    """
    ids = list(card_ids)
    held = set(ids)
    if len(held) != len(ids) or any(not 0 <= int(i) < 62 for i in ids):
        raise ValueError(f"card ids must be distinct ints in 0..61, got {ids}")
    shown: set[int] = set()
    sets = []
    for kind, members in enumerate(_SET_MEMBERS):
        have = [card for card in members if card in held]
        pts = {3: _SET_VALUES[kind][0], 4: _SET_VALUES[kind][1]}.get(len(have), 0)
        sets.append(pts)
        if pts:
            shown.update(have)
    contatori = [card for card in (BEG, MAT) if card in held]
    c = len(contatori)
    seqs = []
    for s in range(4):
        king = 10 * s + RANK_K
        courts = [10 * s + r for r in (RANK_Q, RANK_N, RANK_J) if 10 * s + r in held]
        ace = [10 * s + RANK_A] if 10 * s + RANK_A in held else []
        valid = king in held and (len(courts) >= 2 or (len(courts) == 1 and c >= 1))
        seqs.append(5 * (1 + len(courts) + len(ace) + c) - 5 if valid else 0)
        if valid:
            shown.update([king, *courts, *ace])
    for group in (_ACES, MOORS):
        real = [card for card in group if card in held]
        valid = len(real) >= 2 and len(real) + c >= 3
        seqs.append(5 * (len(real) + c) - 5 if valid else 0)
        if valid:
            shown.update(real)
    # the Grande, walked position by position
    head = [card for card in (WOR, SUN, MOO) if card in held]
    grande = 0
    if ANG in held and (len(head) >= 2 or (len(head) == 1 and c >= 1)):
        chain = [ANG, *head]
        free = c
        last_was_fill = False
        if len(head) == 1:
            free -= 1  # one contatore fills a head slot; put it on WOR or SUN when MOO is held
            last_was_fill = natural_skip_counts_as_gap and MOO not in held
        elif len(head) == 2:
            last_was_fill = natural_skip_counts_as_gap and MOO not in held
        complete = True
        for n in range(16, 4, -1):
            card = 40 + n
            if card in held:
                chain.append(card)
                last_was_fill = False
            elif free > 0 and not last_was_fill:
                free -= 1
                last_was_fill = True
            else:
                complete = False
                break
        if complete:
            chain += [card for card in MOORS if card in held]
        grande = 5 * (len(chain) + c) - 5
        shown.update(chain)
    seqs.append(grande)
    if any(seqs):
        shown.update(contatori)
    sets_doubled = sum(1 for v in sets if v) >= 3
    seqs_doubled = sum(1 for v in seqs if v) >= 3
    total = sum(sets) * (2 if sets_doubled else 1) + sum(seqs) * (2 if seqs_doubled else 1)
    return {
        "sets": sets,
        "seqs": seqs,
        "sets_doubled": sets_doubled,
        "seqs_doubled": seqs_doubled,
        "total": total,
        "shown": sorted(shown),
    }
