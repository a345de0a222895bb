"""The compiled All Fours kernel's frame: input validated before compiled code, the parallel driver
equal to one core, and the B = 1 path bound to its state (envs/core/compiled.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardzoo.envs.all_fours.constants import BEG, STAND
from cardzoo.envs.all_fours.kernel import AllFoursKernel
from cardzoo.envs.core.cards import random_set_bit


def _snapshot(st):
    return {f.name: getattr(st, f.name).copy() for f in dataclasses.fields(st)}


def _assert_unchanged(st, snap):
    for name, arr in snap.items():
        assert np.array_equal(getattr(st, name), arr), name


@pytest.mark.parametrize(
    "actions, match",
    [
        ([STAND, 31], r"illegal action 7H in game 1 for seat \d; legal: \['STAND', 'BEG'\]"),
        ([STAND, 56], r"illegal action 56 in game 1 .* legal: \['STAND', 'BEG'\]"),
        ([STAND, -3], r"illegal action -3 in game 1"),
        ([2**40, BEG], r"illegal action 1099511627776 in game 0 .* legal: \['STAND', 'BEG'\]"),
    ],
)
def test_step_rejects_illegal_and_out_of_range_actions_and_leaves_the_state_unchanged(actions, match):
    k = AllFoursKernel()
    rng = np.random.default_rng(0)
    st = k.init(rng, 2)
    snap = _snapshot(st)
    with pytest.raises(ValueError, match=match):
        k.step(st, np.array(actions, dtype=np.int64), rng)
    _assert_unchanged(st, snap)


def test_step_rejects_bad_shapes_and_ignores_finished_or_inactive_games():
    k = AllFoursKernel()
    rng = np.random.default_rng(0)
    st = k.init(rng, 2)
    snap = _snapshot(st)
    with pytest.raises(ValueError, match=r"actions must be ints of shape \(2,\)"):
        k.step(st, np.array([STAND]), rng)
    with pytest.raises(ValueError, match=r"actions must be ints of shape \(2,\), got float64"):
        k.step(st, np.array([52.0, 52.0]), rng)
    with pytest.raises(ValueError, match=r"active must be bool of shape \(2,\)"):
        k.step(st, np.array([STAND, STAND]), rng, active=np.array([1, 0]))
    _assert_unchanged(st, snap)
    # an inactive game's action is not looked at: game 1 stays as it was
    k.step(st, np.array([STAND, 999]), rng, active=np.array([True, False]))
    assert st.phase.tolist() == [2, 0]
    assert np.array_equal(st.hands[1], snap["hands"][1])


def test_observe_rejects_a_bad_seat():
    k = AllFoursKernel()
    st = k.init(np.random.default_rng(0), 3)
    for seat in (4, -1, [0, 1, 7], np.array([0, 1, 2, 3])):
        with pytest.raises(ValueError, match="seat"):
            k.observe(st, seat)
    assert k.observe(st, np.array([0, 1, 3])).shape == (3, 402)


def test_parallel_driver_plays_exactly_as_one_core():
    one, par = AllFoursKernel(episode="match", target_score=5), AllFoursKernel(episode="match", target_score=5)
    par.set_parallel(True)
    r1, r2, pick = np.random.default_rng(3), np.random.default_rng(3), np.random.default_rng(4)
    a, b = one.init(r1, 64), par.init(r2, 64)
    finished = 0
    for _ in range(400):
        legal = one.legal_bitboard(a)
        assert np.array_equal(legal, par.legal_bitboard(b))
        assert np.array_equal(one.observe(a, a.current_player), par.observe(b, b.current_player))
        acts = random_set_bit(legal, pick)
        one.step(a, acts, r1)
        par.step(b, acts, r2)
        for f in dataclasses.fields(a):
            assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name
        finished += int(a.done.sum())
        one.reset_done(a, r1)
        par.reset_done(b, r2)
    assert finished > 64


def test_single_game_sees_in_place_changes_of_its_state():
    k = AllFoursKernel()
    st = k.init(np.random.default_rng(0), 1)
    fast = k.single_game(st)
    seat = int(st.current_player[0])
    st.hands[0, seat] = 0b111  # 2C 3C 4C, written in place
    assert fast.observe(seat)[:4].tolist() == [1, 1, 1, 0]
    assert k.observe(st, seat)[0, :4].tolist() == [1, 1, 1, 0]
