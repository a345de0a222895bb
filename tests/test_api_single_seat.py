"""The single-seat Gymnasium env (``cardzoo.training.single_agent.SingleSeatEnv``): bad arguments
are refused with a ValueError that names them and what is valid."""

from __future__ import annotations

import pytest

from cardzoo.training.single_agent import SingleSeatEnv


@pytest.mark.parametrize("others", [[1, 2], "random", 3])
def test_others_that_is_not_a_dict_is_refused_by_name(others):
    """others=[1, 2] raised AttributeError: 'list' object has no attribute 'items'."""
    with pytest.raises(ValueError) as err:
        SingleSeatEnv("all_fours", seat=0, others=others)
    assert str(err.value) == f"others must be a dict seat -> agent name (seats [1, 2, 3]), got {others!r}"


def test_others_as_a_dict_still_names_the_agents():
    env = SingleSeatEnv("all_fours", seat=1, others={0: "all_fours/rule"}, seed=0)
    assert type(env.bots[0]).__name__ != type(env.bots[2]).__name__  # seat 0 the rule bot, seat 2 random
