"""Shared frame of ``Kernel.determinize``: deal the cards a seat cannot see into places of given sizes.

Every game's ``determinize(state, seat, rng)`` (for PIMC search, :mod:`cardzoo.agents.search`)
reduces to the same problem: a set of *unseen* cards (bitboard) must be dealt into ``D``
*destinations* (the other seats' hands, a stock, a talon, a pile) of known sizes, where some
destinations cannot hold some cards (a suit that seat showed it lacks, a card a truthful signal
rules out), some cards are known to be in a given destination (an exposed card, a declared
card), and a game may add a test that only a whole deal can answer (``accept``: e.g. a
truthful call that needs N trumps in a hand).

:func:`deal_unseen` samples **uniformly among the consistent deals** by rejection: known cards
are placed first, the rest are dealt as a uniformly random partition of the right sizes, and a
deal that breaks a constraint is drawn again (each row of the batch independently). A row that
finds no consistent deal within ``max_tries`` (tight voids) is drawn exactly by counting the
consistent deals (:func:`_exact_row`), the ``accept`` test again by rejection; only a row with no
consistent deal at all (or none passing ``accept``) falls back to a greedy deal that keeps the
sizes and honours the forbidden sets where it can; ``exact[b]`` says which rows are exact samples.
tests/test_determinize.py checks the uniformity on small positions by counting.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .cards import bit, popcount, unpack_bits

__all__ = ["deal_unseen", "bits_to_ids"]

_U64 = np.uint64
_ZERO = _U64(0)


def start(st, seat):
    """The common start of a game's ``determinize``: ``(out, B, ar, seat, others)`` with ``out`` a
    copy of ``st`` (a ``BatchState``), ``ar = arange(B)``, ``seat`` as ``intp[B]`` (an int or
    ``int[B]`` given) and ``others`` ``intp[B, 3]`` the other seats of a 4-seat game in play order."""
    B = st.batch_size
    seat = np.broadcast_to(np.asarray(seat, dtype=np.intp), (B,))
    return st.copy(), B, np.arange(B), seat, (seat[:, None] + np.arange(1, 4)) % 4


def bits_to_ids(x: np.ndarray, n: int) -> np.ndarray:
    """``uint64[B]`` bitboards -> ``bool[B, n]`` membership of cards ``0..n-1``."""
    return unpack_bits(np.asarray(x, dtype=_U64)[:, None], n)[:, 0].astype(bool)


def _partition(unseen: np.ndarray, sizes: np.ndarray, n_cards: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random split of each row's ``unseen`` cards into ``D`` sets of ``sizes``: ``uint64[B, D]``."""
    B, D = sizes.shape
    member = bits_to_ids(unseen, n_cards)  # [B, C]
    keys = rng.random((B, n_cards))
    keys[~member] = 2.0
    order = np.argsort(keys, axis=1, kind="stable")  # unseen cards first, in random order
    rank = np.empty_like(order)
    rank[np.arange(B)[:, None], order] = np.arange(n_cards)[None, :]  # rank of each card in the order
    bounds = np.cumsum(sizes, axis=1)  # [B, D]
    dest = (rank[:, :, None] >= bounds[:, None, :]).sum(axis=2)  # [B, C] destination index (D = none)
    cards = bit(np.arange(n_cards))[None, :]
    out = np.zeros((B, D), dtype=_U64)
    for d in range(D):
        out[:, d] = np.bitwise_or.reduce(np.where(member & (dest == d), cards, _ZERO), axis=1)
    return out


def _exact_sampler(unseen: int, sizes: list[int], forbidden: list[int], n_cards: int, rng: np.random.Generator):
    """A function drawing exactly uniform consistent deals of one row, by counting (``None`` if there is none).

    Cards that the same destinations may hold form a class; the number of consistent deals is
    a sum over how many cards of each class go to each destination (a product of multinomial
    coefficients), computed by memoised recursion over the classes; the split of each class is
    drawn in proportion to the deals it leaves, then the cards of a class are shuffled into it.
    """
    from functools import lru_cache
    from math import comb

    D = len(sizes)
    classes: dict[int, list[int]] = {}
    for c in range(n_cards):
        if (unseen >> c) & 1:
            allowed = sum(1 << d for d in range(D) if not (forbidden[d] >> c) & 1)
            classes.setdefault(allowed, []).append(c)
    keys = sorted(classes)
    counts = [len(classes[k]) for k in keys]

    def splits(n: int, allowed: int, caps: tuple):
        """Ways to put n cards into the allowed destinations within caps: (tuple a, multinomial)."""
        dests = [d for d in range(D) if (allowed >> d) & 1]

        def rec(i, left, acc, ways):
            if i == len(dests) - 1:
                d = dests[i]
                if left <= caps[d]:
                    a = list(acc)
                    a[d] = left
                    yield tuple(a), ways
                return
            d = dests[i]
            for x in range(min(left, caps[d]) + 1):
                a = list(acc)
                a[d] = x
                yield from rec(i + 1, left - x, a, ways * comb(left, x))

        if not dests:
            if n == 0:
                yield (0,) * D, 1
            return
        yield from rec(0, n, [0] * D, 1)

    @lru_cache(maxsize=None)
    def count(i: int, caps: tuple) -> int:
        if i == len(keys):
            return int(all(c == 0 for c in caps))
        return sum(w * count(i + 1, tuple(c - x for c, x in zip(caps, a))) for a, w in splits(counts[i], keys[i], caps))

    if count(0, tuple(int(x) for x in sizes)) == 0:
        return None
    return lambda: _draw(keys, counts, classes, sizes, splits, count, D, rng)


def _draw(keys, counts, classes, sizes, splits, count, D, rng) -> list[int]:
    caps = tuple(int(x) for x in sizes)
    out = [0] * D
    for i, k in enumerate(keys):
        options = [(a, w * count(i + 1, tuple(c - x for c, x in zip(caps, a)))) for a, w in splits(counts[i], k, caps)]
        total = sum(w for _, w in options)
        u = int(rng.integers(0, total)) if total < 2**63 else int(rng.random() * total)
        for a, w in options:
            if u < w:
                break
            u -= w
        cards = list(rng.permutation(classes[k]))
        j = 0
        for d in range(D):
            for c in cards[j : j + a[d]]:
                out[d] |= 1 << int(c)
            j += a[d]
        caps = tuple(c - x for c, x in zip(caps, a))
    return out


def _greedy(unseen, sizes, forbidden, n_cards, rng) -> np.ndarray:
    """Fallback: deal the unseen cards one by one in random order, each to a destination with room
    that may hold it, chosen with probability proportional to the room left (any destination with
    room if none may). Keeps the sizes; not exactly uniform."""
    B, D = sizes.shape
    member = bits_to_ids(unseen, n_cards)
    keys = rng.random((B, n_cards))
    keys[~member] = 2.0
    order = np.argsort(keys, axis=1, kind="stable")
    room = sizes.astype(np.int64).copy()
    out = np.zeros((B, D), dtype=_U64)
    n = member.sum(axis=1)
    u = rng.random((n_cards, B))
    for j in range(int(n.max(initial=0))):
        rows = np.flatnonzero(j < n)
        card = order[rows, j]
        cb = bit(card)
        ok = (room[rows] > 0) & ((forbidden[rows] & cb[:, None]) == 0)
        w = np.where(ok.any(axis=1)[:, None], ok, room[rows] > 0) * room[rows]
        cum = np.cumsum(w, axis=1)
        d = np.minimum((u[j, rows][:, None] * cum[:, -1:] >= cum).sum(axis=1), D - 1)
        room[rows, d] -= 1
        out[rows, d] |= cb
    return out


def deal_unseen(
    unseen: np.ndarray,
    sizes: np.ndarray,
    rng: np.random.Generator,
    *,
    n_cards: int,
    forbidden: np.ndarray | None = None,
    known: np.ndarray | None = None,
    accept: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    max_tries: int = 100,
) -> tuple[np.ndarray, np.ndarray]:
    """Deal each row's ``unseen`` cards into ``D`` destinations, uniformly among the consistent deals.

    Args:
        unseen: ``uint64[B]`` the cards to deal (bit ``c`` = card ``c``; ``c < n_cards <= 64``).
        sizes: ``int[B, D]`` cards per destination; each row must sum to ``popcount(unseen)``.
        rng: all chance.
        n_cards: cards in the pack.
        forbidden: ``uint64[B, D]`` cards a destination cannot hold (default none).
        known: ``uint64[B, D]`` cards known to be in a destination (a subset of ``unseen``; they
            count towards its size).
        accept: ``accept(rows, deal) -> bool[len(rows)]`` a further test of whole deals
            (``deal``: ``uint64[len(rows), D]`` for batch rows ``rows``).
        max_tries: rejection rounds before the greedy fallback.

    Returns:
        ``(deal, exact)``: ``uint64[B, D]`` the cards of each destination, and ``bool[B]`` whether
        the row is an exact uniform sample of the consistent deals (False: the greedy fallback).

    Raises:
        ValueError: sizes that do not add up to the unseen cards, or known cards that are not
        unseen, overlap, or overfill a destination.
    """
    unseen = np.asarray(unseen, dtype=_U64)
    sizes = np.asarray(sizes, dtype=np.int64)
    B, D = sizes.shape
    forbidden = np.zeros((B, D), dtype=_U64) if forbidden is None else np.asarray(forbidden, dtype=_U64)
    known = np.zeros((B, D), dtype=_U64) if known is None else np.asarray(known, dtype=_U64)
    if (sizes.sum(axis=1) != popcount(unseen)).any() or (sizes < 0).any():
        bad = int(np.flatnonzero(sizes.sum(axis=1) != popcount(unseen))[0]) if (sizes.sum(axis=1) != popcount(unseen)).any() else 0
        raise ValueError(f"destination sizes {sizes[bad].tolist()} do not add up to the {int(popcount(unseen[bad]))} unseen cards (row {bad})")
    known_all = np.bitwise_or.reduce(known, axis=1)
    n_known = popcount(known).astype(np.int64)
    if ((known_all & ~unseen) != 0).any() or (popcount(known_all) != n_known.sum(axis=1)).any() or (n_known > sizes).any():
        raise ValueError("known cards must be unseen cards, each in one destination, within its size")
    rest = unseen & ~known_all
    rest_sizes = sizes - n_known
    out = np.zeros((B, D), dtype=_U64)
    exact = np.zeros(B, dtype=bool)
    pending = np.arange(B)
    for _ in range(max_tries):
        if pending.size == 0:
            break
        deal = _partition(rest[pending], rest_sizes[pending], n_cards, rng) | known[pending]
        ok = ((deal & forbidden[pending]) == 0).all(axis=1)
        if accept is not None and ok.any():
            rows = np.flatnonzero(ok)
            ok[rows] = np.asarray(accept(pending[rows], deal[rows]), dtype=bool)
        out[pending[ok]] = deal[ok]
        exact[pending[ok]] = True
        pending = pending[~ok]
    # rows the rejection did not settle: exact samples by counting (one table per distinct row, as
    # search asks for many determinizations of one position), the accept test by rejection in batches
    groups: dict[tuple, list[int]] = {}
    for b in pending.tolist():
        key = (int(rest[b]), tuple(rest_sizes[b].tolist()), tuple(int(f) for f in forbidden[b]), int(known[b].sum() % (1 << 62)))
        groups.setdefault(key, []).append(b)
    still = []
    for (r_bits, r_sizes, r_forb, _), rows in groups.items():
        draw = _exact_sampler(r_bits, list(r_sizes), list(r_forb), n_cards, rng)
        todo = list(rows)
        per = 1 if accept is None else 16
        for _ in range(0 if draw is None else 1 if accept is None else 20 * max_tries // per):
            if not todo:
                break
            rep = np.repeat(np.array(todo, dtype=np.intp), per)
            deal = np.array([draw() for _ in range(rep.size)], dtype=_U64) | known[rep]
            ok = np.ones(rep.size, dtype=bool) if accept is None else np.asarray(accept(rep, deal), dtype=bool)
            left = []
            for i, b in enumerate(todo):
                hit = np.flatnonzero(ok[i * per : (i + 1) * per])
                if hit.size:
                    out[b] = deal[i * per + hit[0]]
                    exact[b] = True
                else:
                    left.append(b)
            todo = left
        still.extend(todo)
    pending = np.array(still, dtype=np.intp)
    if pending.size:
        out[pending] = _greedy(rest[pending], rest_sizes[pending], forbidden[pending], n_cards, rng) | known[pending]
    return out, exact
