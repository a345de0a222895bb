"""The batched kernels' public members refuse bad input with a ValueError that names it and what is valid."""

from __future__ import annotations

import numpy as np
import pytest

import cardzoo


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_outcome_refuses_returns_that_are_not_one_per_seat(game):
    """All Fours' outcome(np.zeros(7)) returned seven int8s, some of them uninitialized memory
    (np.empty filled only at the team seats); P'yanitsa's returned the signs of any shape."""
    k = cardzoo.kernel(game)
    P = k.num_players
    for returns, shape in [(np.zeros(7), (7,)), (1.0, ()), (np.zeros((5, P + 1)), (5, P + 1))]:
        with pytest.raises(ValueError) as err:
            k.outcome(returns)
        assert str(err.value) == f"returns must be numbers of shape (..., {P}), one per seat of {game}; got shape {shape}"
    with pytest.raises(ValueError) as err:
        k.outcome("ab")
    assert str(err.value) == f"returns must be numbers of shape (..., {P}), one per seat of {game}; got 'ab'"
    assert k.outcome(np.zeros((3, 0, P))).shape == (3, 0, P)
    assert k.outcome(np.zeros(P)).tolist() == [0] * P


@pytest.mark.parametrize("flag", ["no", "False", 0, 1, None])
def test_set_parallel_takes_a_bool_only(flag):
    """set_parallel("no") turned the threads on (bool("no") is True) without a word."""
    k = cardzoo.kernel("all_fours")
    with pytest.raises(ValueError) as err:
        k.set_parallel(flag)
    assert str(err.value) == f"parallel must be True or False, got {flag!r}"
    assert k._parallel is False
    k.set_parallel(np.bool_(True))
    assert k._parallel is True
