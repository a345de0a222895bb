"""Frame tests of the core (envs/core): written once, run over every game of ``cardzoo.envs.GAMES``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardzoo.envs import GAMES, kernel
from cardzoo.envs.core.kernel import BatchState, Layout, hook_ints, state_field


@pytest.mark.parametrize("game", sorted(GAMES))
def test_packed_observation_round_trips_and_packs_the_binary_features(game):
    k = kernel(game)
    rng = np.random.default_rng(5)
    st = k.init(rng, 16)
    for _ in range(12):  # a few steps in, so trick and played slices are non-empty
        legal = k.legal_actions(st)
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in legal])
        k.step(st, acts, rng)
    lay = k.obs_layout
    for seat in range(k.num_players):
        obs = k.observe(st, seat)
        packed = lay.pack(obs)
        n_bin = sum(e.stop - e.start for e in lay.entries if e.high <= 1)
        assert packed.shape == (16, -(-n_bin // 8) + lay.size - n_bin) == (16, lay.packed_size)
        assert np.array_equal(lay.unpack(packed), obs)
        if hasattr(k, "drivers"):
            assert np.array_equal(k.observe(st, seat, packed=True), packed)


def test_layout_pack_worked_example():
    lay = Layout()
    lay.add("a", 3, "bits")
    lay.add("n", 1, "a count", high=9)
    lay.add("b", 6, "bits")
    obs = np.array([[1, 0, 1, 7, 0, 0, 0, 1, 1, 1]], dtype=np.uint8)
    packed = lay.pack(obs)
    # bit i of the stream = i-th binary feature: features 0,2,6,7,8 set -> byte0 bits 0,2,6,7 = 197, byte1 bit 0 = 1
    assert packed.tolist() == [[197, 1, 7]]
    assert lay.packed_size == 3
    assert np.array_equal(lay.unpack(packed), obs)
    with pytest.raises(ValueError, match="10"):
        lay.pack(obs[:, :9])


def test_state_fields_are_declared_once_and_allocated_by_the_core():
    @dataclasses.dataclass
    class Toy(BatchState):
        hands: np.ndarray = state_field(np.uint64, ("players",), 0, "cards held")
        trick_card: np.ndarray = state_field(np.int8, (4,), -1, "card played to the trick")

    st = Toy.allocate(3, {"players": 2})
    assert st.hands.shape == (3, 2) and st.hands.dtype == np.uint64
    assert st.trick_card.tolist() == [[-1] * 4] * 3
    assert st.rewards.shape == (3, 2) and st.rewards.dtype == np.float32
    assert st.current_player.dtype == np.int8 and st.done.dtype == bool
    assert "``trick_card``: ``int8[B, 4]`` card played to the trick" in Toy.__doc__
    assert Toy.describe()[-1] == ("trick_card", "int8[B, 4]", "card played to the trick")
    with pytest.raises(ValueError, match="'players'"):
        Toy.allocate(1, {})


def test_hook_ints_names_the_hook_shape_and_range():
    assert hook_ints("dealer", 2, (3,), 0, 3).tolist() == [2, 2, 2]
    with pytest.raises(ValueError, match=r"dealer=7 is out of range: each value must be in 0\.\.3"):
        hook_ints("dealer", 7, (3,), 0, 3)
    with pytest.raises(ValueError, match="must be int"):
        hook_ints("deck", "abc", (3, 52), 0, 51)
