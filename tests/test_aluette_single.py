"""The B = 1 fast path (envs/aluette/single.py) against the batched kernel, step for step.

Two copies of the same game advance with the same actions and generator seeds, one through
``SingleGame``, one through the batched ``kernel.step``; after every step the masks, every
seat's observation, the rewards and every state array must be identical.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardzoo.envs.aluette.kernel import AluetteKernel
from cardzoo.envs.aluette.single import SingleGame

OPTION_SETS = [
    {},
    {"signals": "free", "surrender": True, "chant_recipients": "left_and_partner", "episode": "match", "match_deals": 2},
    {"signal_visibility": "public", "signal_timing": "round"},
    {"signal_intercept": 0.5, "episode": "match", "match_target": 2, "reward": "win"},
    {"signals": "off", "chant": False, "partnership_draw": True},
]


def _assert_same_state(a, b, where):
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert np.array_equal(x, y), f"{where}: field {f.name} differs: {x} vs {y}"


@pytest.mark.parametrize("options", OPTION_SETS, ids=[str(o) or "default" for o in OPTION_SETS])
def test_single_game_matches_batched_kernel(options):
    k = AluetteKernel(**options)
    games = 8
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
            legal = np.flatnonzero(mask)
            # favour the chant sometimes so that discards and chant slices are exercised
            a = 48 if 48 in legal and pick.random() < 0.8 else int(pick.choice(legal))
            fast.step(a, rng_fast)
            k.step(st_ref, np.array([a]), rng_ref)
            steps += 1
            _assert_same_state(st_fast, st_ref, f"game {g} step {steps}")
        assert not fast.legal_mask().any()
        for seat in range(4):
            np.testing.assert_array_equal(fast.observe(seat), k.observe(st_ref, seat)[0])
    assert steps > games * 30


def test_single_game_rejects_a_batch():
    k = AluetteKernel()
    with pytest.raises(ValueError, match="one game"):
        SingleGame(k, k.init(np.random.default_rng(0), 2))
