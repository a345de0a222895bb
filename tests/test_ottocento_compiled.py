"""The compiled Ottocento kernel's frame (envs/ottocento/rules.py on envs/core/compiled.py): input
validated before compiled code, the parallel driver equal to one core, the B = 1 path bound to its
state, and the array APIs of combos.py / scoring.py running the same compiled scorer as the rules."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.ottocento.constants import DECLARING, DISCARD, PLAY
from cardzoo.envs.ottocento.kernel import OttocentoKernel
from env_util import assert_unchanged, snapshot

LEGAL = "['10B', 'JB', 'NB', 'QB', '10D', 'JD', 'ND', 'QD', 'T15', 'T16', 'MOO', 'SUN']"


def _stacked(k, batch=2):
    # stock in id order, dealer S3: the dealer is dealt positions 15-19, 35-39, 55-61 (RULES.md §3):
    # 10B JB NB QB KB 10D JD ND QD KD T15 T16 MOO SUN WOR ANG MAT
    return k.init(np.random.default_rng(0), batch, deck=np.arange(62), dealer=3)


@pytest.mark.parametrize(
    "actions, match",
    [
        ([15, 19], rf"illegal action KB in game 1 for seat 3; legal: {LEGAL}".replace("[", r"\[").replace("]", r"\]")),
        ([15, 61], r"illegal action MAT in game 1 for seat 3"),  # the Matto may not be discarded (§3.3)
        ([62, 15], r"illegal action DECLARE in game 0 for seat 3"),
        ([15, 64], r"illegal action 64 \(out of range 0\.\.63\) in game 1"),
        ([-1, 15], r"illegal action -1 \(out of range 0\.\.[0-9]+\) in game 0"),
    ],
)
def test_step_rejects_illegal_discards_and_leaves_the_state_unchanged(actions, match):
    k = OttocentoKernel()
    st = _stacked(k)
    snap = snapshot(st)
    with pytest.raises(ValueError, match=match):
        k.step(st, np.array(actions, dtype=np.int64), np.random.default_rng(0))
    assert_unchanged(st, snap)


def test_two_discards_start_play_and_an_inactive_game_is_not_looked_at():
    k = OttocentoKernel()
    st = _stacked(k)
    rng = np.random.default_rng(0)
    k.step(st, np.array([15, 999]), rng, active=np.array([True, False]))  # game 1's action is never read
    k.step(st, np.array([35, 999]), rng, active=np.array([True, False]))
    assert st.phase.tolist() == [DECLARING, DISCARD]
    assert st.discards[0] == (1 << 15) | (1 << 35)
    assert st.n_discarded.tolist() == [2, 0]
    assert st.current_player[0] == 0  # the dealer's right-hand neighbour leads (§5) and is asked first (§4.1)
    # hands valued after the discard (§4, §11.1): S0 AS..9S AC..9C BEG MO1-4: Aces 2 + BEG = 10, Moors 4 + BEG = 20;
    # S1 10S-KS 10C-KC T5-T9: swords K Q N J 15, cups 15; S2 nothing; S3 (after 10B 10D) Tarocchi 18,
    # batons 20, coins 20, Grande ANG WOR SUN MOO T16 T15 (MAT for T14) 30 -> three sequences doubled: 18 + 140
    assert st.decl_value[0].tolist() == [30, 30, 0, 158]
    k.step(st, np.array([62, 999]), rng, active=np.array([True, False]))  # S0 declares
    assert st.phase.tolist() == [PLAY, DISCARD] and st.decl_points[0].tolist() == [30, 0, 0, 0]


