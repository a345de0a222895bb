"""The compiled Aluette kernel (envs/aluette/rules.py on the core's CompiledKernel): input validated
before compiled code, two legal words (65 actions), the intercept chance drawn in Python after the
partner heard the signal, the compiled vectors at the layout's offsets, the parallel driver equal to
one core, pickling."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.aluette import rules
from cardzoo.envs.aluette.constants import (
    ACCEPT_CHANT,
    ACCEPT_SURRENDER,
    END_SIGNALS,
    NO_OFFER,
    OFFER_SURRENDER,
    REFUSE_CHANT,
    REFUSE_SURRENDER,
    SIGNAL0,
)
from cardzoo.envs.aluette.kernel import AluetteKernel
from env_util import assert_unchanged, snapshot


@pytest.mark.parametrize(
    "actions, match",
    [
        ([ACCEPT_CHANT, 5], r"illegal action \w+ in game 1 for seat \d; legal: \['accept_chant', 'refuse_chant'\]"),
        ([ACCEPT_CHANT, 65], r"illegal action 65 \(out of range 0\.\.[0-9]+\) in game 1 .* legal: \['accept_chant', 'refuse_chant'\]"),
        ([ACCEPT_CHANT, -1], r"illegal action -1 \(out of range 0\.\.[0-9]+\) in game 1"),
        ([REFUSE_SURRENDER, ACCEPT_CHANT], r"illegal action refuse_surrender in game 0"),
    ],
)
def test_step_rejects_illegal_and_out_of_range_actions_and_leaves_the_state_unchanged(actions, match):
    k = AluetteKernel()
    rng = np.random.default_rng(0)
    st = k.init(rng, 2)
    snap = snapshot(st)
    with pytest.raises(ValueError, match=match):
        k.step(st, np.array(actions, dtype=np.int64), rng)
    assert_unchanged(st, snap)


def _to_answer(k, st, rng):
    """Refuse the chant, close the signalling round, offer surrender at once: the answer phase."""
    k.step(st, np.array([REFUSE_CHANT]), rng)
    for _ in range(4):
        k.step(st, np.array([END_SIGNALS]), rng)
    k.step(st, np.array([OFFER_SURRENDER]), rng)


def test_refuse_surrender_is_action_64_in_word_1():
    k = AluetteKernel(surrender=True)
    rng = np.random.default_rng(3)
    st = k.init(rng, 1, dealer=0)
    words = k.legal_words(st)
    assert words.dtype == np.uint64 and words.shape == (1, 2)
    assert words[0].tolist() == [(1 << ACCEPT_CHANT) | (1 << REFUSE_CHANT), 0]
    _to_answer(k, st, rng)
    assert k.legal_words(st)[0].tolist() == [1 << ACCEPT_SURRENDER, 1]  # 63 in word 0, 64 = bit 0 of word 1
    assert np.flatnonzero(k.legal_actions(st)[0]).tolist() == [ACCEPT_SURRENDER, REFUSE_SURRENDER]
    k.step(st, np.array([REFUSE_SURRENDER]), rng)
    assert bool(st.refused[0]) and int(st.phase[0]) == 5  # trick play, the answering team committed
    # in a finished game nothing is legal
    st.done[0] = True
    assert k.legal_words(st)[0].tolist() == [0, 0]
    assert not k.legal_actions(st).any()


def test_no_offer_round_then_trick_play():
    k = AluetteKernel(surrender=True)
    rng = np.random.default_rng(3)
    st = k.init(rng, 1, dealer=0)
    k.step(st, np.array([REFUSE_CHANT]), rng)
    for _ in range(4):
        k.step(st, np.array([END_SIGNALS]), rng)
    assert k.legal_words(st)[0].tolist() == [(1 << OFFER_SURRENDER) | (1 << NO_OFFER), 0]
    for seat in (1, 2, 3, 0):
        assert int(st.current_player[0]) == seat
        k.step(st, np.array([NO_OFFER]), rng)
    assert int(st.phase[0]) == 5 and int(st.current_player[0]) == 1


def test_intercepted_signal_is_drawn_in_python_after_the_partner_heard_it():
    # signal_intercept=1.0: both opponents catch every signal; 0.0 < p < 1 draws one uniform pair per signal
    for p, heard_by in ((1.0, [1, 1, 1, 1]), (1e-12, [1, 0, 1, 0])):
        k = AluetteKernel(signal_intercept=p, signals="free", chant=False)
        rng = np.random.default_rng(5)
        st = k.init(rng, 1, dealer=3)  # seat 0 (the dealer's left) signals first
        before = rng.bit_generator.state["state"]["state"]
        k.step(st, np.array([SIGNAL0 + 2]), rng)  # borgne
        assert rng.bit_generator.state["state"]["state"] != before  # the draw came from the step's rng
        bit = 1 << 2  # sender 0, signal 2
        assert [int(st.heard[0, s]) == bit for s in range(4)] == [bool(x) for x in heard_by]
        assert int(st.pending[0]) == 0 and int(st.current_player[0]) == 0  # the sender keeps the turn


def test_public_signals_need_no_draw():
    k = AluetteKernel(signal_visibility="public", signals="free", chant=False)
    rng = np.random.default_rng(5)
    st = k.init(rng, 1, dealer=3)
    before = rng.bit_generator.state["state"]["state"]
    k.step(st, np.array([SIGNAL0 + 9]), rng)
    assert rng.bit_generator.state["state"]["state"] == before
    assert st.heard[0].tolist() == [1 << 9] * 4


def test_compiled_vectors_sit_at_the_layouts_offsets():
    k = AluetteKernel()
    obs = {e.name: e.start for e in k.obs_layout.entries}
    state = {e.name: e.start for e in k.state_layout.entries}
    assert obs["phase"] == rules.OBS_PUB == 384
    assert obs["trick_results"] == rules.OBS_PUB + 42
    assert obs["signals[me]"] == rules.OBS_PUB + 87
    assert obs["trick_top_power"] == rules.OBS_PUB + 127 and k.obs_layout.size == 523
    assert state["phase"] == rules.GLOBAL_PUB == 864 and k.state_layout.size == 1003
    # a worked example: seat 0 after refusing the chant, dealer 3
    st = k.init(np.random.default_rng(1), 1, dealer=3)
    k.step(st, np.array([REFUSE_CHANT]), np.random.default_rng(1))
    o = k.observe(st, 1)[0]
    assert o[obs["phase"] : obs["phase"] + 6].tolist() == [0, 0, 1, 0, 0, 0]  # signalling round
    assert o[obs["dealer"] : obs["dealer"] + 4].tolist() == [0, 0, 1, 0]  # seat 3 is seat 1's partner
    assert o[obs["chant_refused"] : obs["chant_refused"] + 4].tolist() == [0, 0, 0, 1]  # seat 0 = previous
    assert o[obs["to_act"] : obs["to_act"] + 4].tolist() == [0, 0, 0, 1]
    assert int(o[:48].sum()) == 9


def _play_random(k, B, seed, parallel):
    k.set_parallel(parallel)
    rng = np.random.default_rng(seed)
    pick = np.random.default_rng(seed + 1)
    st = k.init(rng, B)
    total = np.zeros((B, 4), dtype=np.float64)
    while not st.done.all():
        mask = k.legal_actions(st)
        a = (pick.random(mask.shape) * mask).argmax(1)
        k.step(st, a, rng)
        total += st.rewards
    return st, total, k.observe(st, 0), k.global_state(st)
