"""The B = 1 fast path (envs/ottocento/single.py) against the batched kernel, step for step."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.ottocento.kernel import OttocentoKernel
from cardzoo.envs.ottocento.single import SingleGame


@pytest.mark.parametrize(
    "options",
    [{}, {"moors_tie": "first_played", "declaration_mode": "auto_all"}, {"match_target": 400, "matto_rule": "captured"}],
    ids=["default", "first-auto", "match-captured"],
)
def test_single_game_matches_the_batched_kernel(options):
    k = OttocentoKernel(**options)
    pol = np.random.default_rng(0)
    steps = 0
    for g in range(15):
        a_st = k.init(np.random.default_rng(g), 1)
        b_st = a_st.copy()
        single = SingleGame(k, b_st)
        rng_a, rng_b = np.random.default_rng(100 + g), np.random.default_rng(100 + g)
        while not a_st.done[0]:
            mask = k.legal_actions(a_st)[0]
            assert np.array_equal(single.legal_mask(), mask)
            for seat in range(4):
                assert np.array_equal(single.observe(seat), k.observe(a_st, seat)[0]), (g, steps, seat)
            a = int(pol.choice(np.flatnonzero(mask)))
            k.step(a_st, np.array([a]), rng_a)
            single.step(a, rng_b)
            steps += 1
            for f in a_st.__dataclass_fields__:
                assert np.array_equal(getattr(a_st, f), getattr(b_st, f)), (g, steps, f)
    assert steps > 15 * 60
