"""The B = 1 fast path (``kernel.single_game``: the compiled rules, one call per step, as the AEC
env runs them; envs/core/compiled.py) against the batched kernel, step for step.

Two copies of the same game advance with the same actions and the same generator seeds,
one through ``kernel.single_game``, one through the batched ``kernel.step``; after every step the
masks, every seat's observation, the rewards and every state array must be identical.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardzoo.envs.all_fours.kernel import AllFoursKernel

OPTION_SETS = [
    {},
    {"undertrump": "forbidden"},
    {"episode": "match", "target_score": 7},
    {"forbid_game_ending_give_one": True, "episode": "match", "target_score": 5},
    {"deal_packet": 1, "score_rejected_kicks": False, "kick_points": "tobago", "game_tie": "beggar_team"},
    {"episode": "match", "reward": "win", "max_hands": 3, "max_redeals": 1},
]


def _assert_same_state(a, b, where):
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert np.array_equal(x, y), f"{where}: field {f.name} differs: {x} vs {y}"


@pytest.mark.parametrize("options", OPTION_SETS, ids=[str(o) or "default" for o in OPTION_SETS])
def test_single_game_matches_batched_kernel(options):
    k = AllFoursKernel(**options)
    games = 80
    steps = 0
    for g in range(games):
        st_fast = k.init(np.random.default_rng(g), 1)
        st_ref = st_fast.copy()
        fast = k.single_game(st_fast)
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
            _assert_same_state(st_fast, st_ref, f"game {g} step {steps}")
        assert st_fast.done[0]
        assert not fast.legal_mask().any()
        for seat in range(4):  # final observations too
            np.testing.assert_array_equal(fast.observe(seat), k.observe(st_ref, seat)[0])
    assert steps > games * 20
