"""The compiled Avinas kernel's frame: legal actions as two bit words (83 actions), input validated
before compiled code (envs/avinas/rules.py); parallel drivers and pickling: tests/test_frame.py."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.avinas.constants import KNOCK, NO_KNOCK, PLAY
from cardzoo.envs.avinas.kernel import AvinasKernel
from env_util import assert_unchanged, snapshot


def _random_legal(k, st, rng):
    mask = k.legal_actions(st)
    u = rng.random(mask.shape)
    u[~mask] = -1
    return u.argmax(axis=1)


def test_legal_words_are_two_per_game():
    k = AvinasKernel()
    st = k.init(np.random.default_rng(0), 2)
    # game 0: a sevens game, the declarer (seat 0) knocks or not: actions 77, 78 = bits 13, 14 of word 1;
    # game 1: a no-sevens game, seat 3 calls first: PASS and CALL_1..CALL_8 = actions 64..72 = bits 0..8 of word 1
    words = k.legal_words(st)
    assert words.dtype == np.uint64 and words.shape == (2, 2)
    with pytest.raises(ValueError, match="avinas has 83 actions; its legal actions need legal_words"):
        k.legal_bitboard(st)
    assert words.tolist() == [[0, (1 << 13) | (1 << 14)], [0, 511]]
    assert np.flatnonzero(k.legal_actions(st)[0]).tolist() == [KNOCK, NO_KNOCK]
    assert np.flatnonzero(k.legal_actions(st)[1]).tolist() == list(range(64, 73))
    # the lead to trick 2 without a trump (§5): each card face up (its id) or face down (id + 32), in word 0
    st.phase[0], st.trump[0], st.tricks_done[0], st.n_in_trick[0], st.current_player[0] = PLAY, 0, 1, 0, 2
    st.hands[0, 2] = (1 << 8) | (1 << 11)  # 7D, 10D (clubs are trumps)
    assert k.legal_words(st)[0].tolist() == [(1 << 8) | (1 << 11) | (1 << 40) | (1 << 43), 0]
    assert [k.action_name(int(a)) for a in np.flatnonzero(k.legal_actions(st)[0])] == ["7D", "10D", "FD_7D", "FD_10D"]
    st.done[0] = True  # nothing is legal once the game is over
    assert k.legal_words(st)[0].tolist() == [0, 0]


@pytest.mark.parametrize(
    "actions, match",
    [
        ([KNOCK, 3], r"illegal action 10C in game 1 for seat 3; legal: \['PASS', 'CALL_1', .*'CALL_8'\]"),
        ([KNOCK, 83], r"illegal action 83 \(out of range 0\.\.[0-9]+\) in game 1 .* legal: \['PASS', "),
        ([KNOCK, -1], r"illegal action -1 \(out of range 0\.\.[0-9]+\) in game 1"),
        ([2**40, 64], r"illegal action 1099511627776 \(out of range 0\.\.[0-9]+\) in game 0 for seat 0; legal: \['KNOCK', 'NO_KNOCK'\]"),
        ([64, 64], r"illegal action PASS in game 0 for seat 0; legal: \['KNOCK', 'NO_KNOCK'\]"),
    ],
)
def test_step_rejects_illegal_and_out_of_range_actions_and_leaves_the_state_unchanged(actions, match):
    k = AvinasKernel()
    rng = np.random.default_rng(0)
    st = k.init(rng, 2)
    snap = snapshot(st)
    with pytest.raises(ValueError, match=match):
        k.step(st, np.array(actions, dtype=np.int64), rng)
    assert_unchanged(st, snap)
    with pytest.raises(ValueError, match=match):
        k.check_actions(st, np.array(actions, dtype=np.int64))
