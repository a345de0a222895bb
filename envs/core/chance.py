"""Chance for the kernels: one shared generator, or one independent stream per game (row).

Every kernel draws its chance (shuffles, the first dealer, Aluette's intercepted signals,
P'yanitsa's random collection order) through :func:`uniform` and :func:`integers`. They take
the ``rng`` given to ``Kernel.init`` / ``Kernel.step`` and the batch rows that need the draw:

* a ``numpy.random.Generator`` is one stream for the whole batch (training, search, the AEC
  env): the draw is exactly ``rng.random((len(rows), *tail))`` / ``rng.integers(lo, hi,
  size=len(rows))``, so seeded episodes are the same as before row streams existed;
* a :class:`RowStreams` gives every row its own streams, derived from the row's key (the
  arena uses ``(seed, deal index)``). A row's draws then do not depend on the other rows, on
  the batch size or on the order in which rows reach their chance events, so the two seatings
  of a duplicate deal see identical chance and results do not change with the batch size.

Within a row, each *kind* of chance has its own stream (``numpy.random.default_rng([*key,
kind code])``): ``"deal"`` (the shuffle of each new hand, in match order), ``"redeal"`` (a
redeal of the same hand: All Fours' exhausted pack, Avinas' throw-in in a one-deal episode),
``"dealer"`` (the first dealer) and ``"play"`` (chance during play). So the k-th hand of a match
gets the same cards in both seatings even when one seating had a redeal or more chance during play
and the other did not. (In an Avinas match a throw-in passes the deal, so its redeal is the
match's next dealing, kind ``"deal"``: the j-th dealing has the same dealer and pack everywhere.)
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["KINDS", "RowStreams", "integers", "permutations", "take_rows", "uniform"]

#: the kinds of chance a kernel may draw, each its own stream within a row
KINDS = ("deal", "redeal", "dealer", "play")
_KIND_CODE = {k: zlib.crc32(k.encode()) for k in KINDS}


class RowStreams:
    """One independent family of random streams per batch row.

    Args:
        keys: one key per row, each a sequence of non-negative ints (e.g. ``(seed, deal)``);
            row ``i``'s stream of kind ``k`` is ``numpy.random.default_rng([*keys[i], code(k)])``.

    Generators are made lazily on the first draw of a row and kind and then continue. Use
    :meth:`take` for the streams of a subset of rows (sharing the generators, as a view).
    """

    def __init__(self, keys) -> None:
        try:
            rows = [tuple(k) if isinstance(k, (tuple, list, np.ndarray)) else (k,) for k in keys]
        except TypeError:  # not one key per row
            raise ValueError(f"RowStreams keys must be one sequence of non-negative ints per row, got {keys!r}") from None
        rows = [tuple(v.item() if isinstance(v, np.generic) else v for v in k) for k in rows]
        for k in rows:  # a bool or a float is no key (int(1.5) would have made it 1)
            if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in k):
                raise ValueError(f"RowStreams keys must be non-negative ints, got {k}")
        self.keys = rows
        self._gens: list[dict[str, np.random.Generator]] = [{} for _ in self.keys]

    @classmethod
    def for_deals(cls, seed: int, deals) -> RowStreams:
        """Streams for deals ``deals`` (``int[n]`` indices) of the deal set fixed by ``seed``: key ``(seed, deal)``."""
        return cls([(int(seed), int(d)) for d in np.asarray(deals).ravel()])

    def __len__(self) -> int:
        return len(self.keys)

    def take(self, rows) -> RowStreams:
        """The streams of ``rows`` (``int[m]``), sharing generators with this object."""
        out = RowStreams.__new__(RowStreams)
        rows = np.asarray(rows, dtype=np.int64).ravel()
        out.keys = [self.keys[r] for r in rows]
        out._gens = [self._gens[r] for r in rows]
        return out

    def generator(self, row: int, kind: str) -> np.random.Generator:
        """The generator of ``row`` for chance of ``kind`` (one of :data:`KINDS`); ``ValueError`` for
        another ``kind``."""
        if kind not in _KIND_CODE:
            raise ValueError(f"unknown kind of chance {kind!r}; kinds: {list(KINDS)}")
        g = self._gens[row].get(kind)
        if g is None:
            g = self._gens[row][kind] = np.random.default_rng([*self.keys[row], _KIND_CODE[kind]])
        return g


def _rows(rows) -> np.ndarray:
    return np.arange(rows) if np.isscalar(rows) else np.asarray(rows, dtype=np.int64).ravel()


def uniform(rng, rows, tail=(), dtype=np.float64, kind: str = "play") -> np.ndarray:
    """Uniform floats in ``[0, 1)`` of shape ``(len(rows), *tail)`` for batch rows ``rows``.

    Args:
        rng: a ``numpy.random.Generator`` (one stream for the batch) or a :class:`RowStreams`.
        rows: ``int[m]`` absolute batch rows, or an int ``m`` for rows ``0..m-1``.
        tail: shape of each row's draw; dtype: ``float32`` or ``float64``.
        kind: the kind of chance (:data:`KINDS`); ignored for a plain generator.
    """
    r = _rows(rows)
    tail = tuple(tail)
    if isinstance(rng, RowStreams):
        out = np.empty((r.size, *tail), dtype=dtype)
        for i, row in enumerate(r):
            out[i] = rng.generator(int(row), kind).random(tail, dtype=dtype)
        return out
    return rng.random((r.size, *tail), dtype=dtype)


def integers(rng, rows, low: int, high: int, kind: str = "dealer") -> np.ndarray:
    """``int64[len(rows)]`` uniform integers in ``[low, high)`` for batch rows ``rows`` (see :func:`uniform`)."""
    r = _rows(rows)
    if isinstance(rng, RowStreams):
        return np.array([rng.generator(int(row), kind).integers(low, high) for row in r], dtype=np.int64)
    return rng.integers(low, high, size=r.size)


def permutations(rng, rows, n: int, kind: str = "deal", dtype=np.int8) -> np.ndarray:
    """Shuffled packs: one uniformly random order of the ``n`` card ids ``0..n-1`` per batch row.

    Args:
        rng, rows, kind: as for :func:`uniform` (``kind`` ``"deal"`` or ``"redeal"`` for a shuffle).
        n: cards in the pack.
        dtype: the integer dtype of the result.

    Returns:
        ``dtype[len(rows), n]``: row ``i`` is the pack order of row ``rows[i]`` (position 0 is the
        top). It is the ``argsort`` of ``n`` float32 uniform keys drawn by :func:`uniform`, so a
        seeded generator deals the same packs whichever game or version draws them.

    Raises ``ValueError`` if ``n`` card ids do not fit ``dtype`` (e.g. more than 128 in ``int8``).
    """
    if n > int(np.iinfo(dtype).max) + 1:
        raise ValueError(f"a pack of {n} cards does not fit {np.dtype(dtype).name} card ids (at most {int(np.iinfo(dtype).max) + 1})")
    return uniform(rng, rows, (n,), np.float32, kind).argsort(axis=1).astype(dtype)


def take_rows(rng, rows):
    """``rng`` restricted to ``rows`` for a call that numbers its games from 0 (e.g. ``init`` of a
    subset in ``reset_done``): a :class:`RowStreams` is subset, a plain generator is returned as is."""
    return rng.take(rows) if isinstance(rng, RowStreams) else rng
