"""The B = 1 fast path (envs/avinas/single.py) against the batched kernel, step for step.

Two copies of the same game advance with the same actions and generator seeds, one through
``SingleGame``, one through the batched ``kernel.step``; after every step the masks, every
seat's observation, the rewards and every state array must be identical.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardzoo.envs.avinas.kernel import AvinasKernel
from cardzoo.envs.avinas.single import SingleGame

OPTION_SETS = [
    {},
    {"episode": "match", "pip_limit": 4},
    {"facedown_signal": "free", "honesty": "mask", "trump_lead_rule": "every_lead", "call_count": "suit",
     "knock_back": "always", "valuable_min_points": 4},
    {"facedown_signal": "none", "no7_stop": False, "episode": "match", "reward": "win", "pip_limit": 3,
     "ram_schedule": "graded", "pip_schedule": "flat"},
]


def _same_state(a, b, where):
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert np.array_equal(x, y), f"{where}: field {f.name} differs: {x} vs {y}"


@pytest.mark.parametrize("options", OPTION_SETS, ids=["default", "match", "variants", "variants2"])
def test_single_game_matches_batched_kernel(options):
    k = AvinasKernel(**options)
    games = 12
    steps = 0
    for g in range(games):
        st_fast = k.init(np.random.default_rng(g), 1)
        st_ref = st_fast.copy()
        fast = SingleGame(k, st_fast)
        rng_fast, rng_ref = np.random.default_rng(1000 + g), np.random.default_rng(1000 + g)
        pick = np.random.default_rng(2000 + g)
        while not st_ref.done[0]:
            mask = fast.legal_mask()
            np.testing.assert_array_equal(mask, k.legal_actions(st_ref)[0])
            for seat in range(4):
                np.testing.assert_array_equal(fast.observe(seat), k.observe(st_ref, seat)[0])
            a = int(pick.choice(np.flatnonzero(mask)))
            fast.step(a, rng_fast)
            k.step(st_ref, np.array([a]), rng_ref)
            steps += 1
            _same_state(st_fast, st_ref, f"game {g} step {steps}")
        assert st_fast.done[0] and not fast.legal_mask().any()
        for seat in range(4):
            np.testing.assert_array_equal(fast.observe(seat), k.observe(st_ref, seat)[0])
    assert steps > games * 20


def test_single_game_rejects_a_batch():
    k = AvinasKernel()
    with pytest.raises(ValueError, match="one game"):
        SingleGame(k, k.init(np.random.default_rng(0), 2))
