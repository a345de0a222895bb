"""The compiled card-set helpers of ``envs/core/bits.py``, checked on worked values inside ``@njit``."""

import numpy as np
import pytest
from numba import njit

from cardzoo.envs.core.bits import bit, low_bit, nth_bit, popcount, write_set


@njit(cache=False)
def _run(x, card, n):
    out = np.zeros(n, np.uint8)
    write_set(out, 2, x)
    return popcount(x), low_bit(x), bit(card), out


@pytest.mark.parametrize(
    ("x", "count", "low", "cards"),
    [
        (0, 0, 64, []),
        (1, 1, 0, [0]),
        (0b1011_0000, 3, 4, [4, 5, 7]),
        ((1 << 51) | (1 << 13), 2, 13, [13, 51]),
        (1 << 63, 1, 63, [63]),
        ((1 << 62) - 1, 62, 0, list(range(62))),
    ],
)
def test_popcount_low_bit_write_set(x, count, low, cards):
    c, lo, b, out = _run(np.uint64(x), 5, 66)
    assert (c, lo) == (count, low)
    assert b == np.uint64(32)
    assert np.flatnonzero(out).tolist() == [i + 2 for i in cards]  # written from offset 2, zeros elsewhere


def test_bit_of_the_last_card_stays_unsigned():
    assert _run(np.uint64(0), 63, 2)[2] == np.uint64(1 << 63)


@njit(cache=False)
def _nth(x, n):
    return nth_bit(np.uint64(x), n)


def test_nth_bit_worked_example():
    # 0b1010_0110: set bits 1, 2, 5, 7; the bit past the last is 64 (no set bit left)
    x = 0b1010_0110
    assert [_nth(x, n) for n in range(5)] == [1, 2, 5, 7, 64]
    assert _nth(np.uint64(1 << 63), 0) == 63 and _nth(0, 0) == 64
