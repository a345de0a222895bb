"""The compiled All Fours kernel's frame: input validated before compiled code, the parallel driver
equal to one core, and the B = 1 path bound to its state (envs/core/compiled.py)."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.all_fours.constants import BEG, STAND
from cardzoo.envs.all_fours.kernel import AllFoursKernel
from env_util import assert_unchanged, snapshot


@pytest.mark.parametrize(
    "actions, match",
    [
        ([STAND, 31], r"illegal action 7H in game 1 for seat \d; legal: \['STAND', 'BEG'\]"),
        ([STAND, 56], r"illegal action 56 \(out of range 0\.\.[0-9]+\) in game 1 .* legal: \['STAND', 'BEG'\]"),
        ([STAND, -3], r"illegal action -3 \(out of range 0\.\.[0-9]+\) in game 1"),
        ([2**40, BEG], r"illegal action 1099511627776 \(out of range 0\.\.[0-9]+\) in game 0 .* legal: \['STAND', 'BEG'\]"),
    ],
)
def test_step_rejects_illegal_and_out_of_range_actions_and_leaves_the_state_unchanged(actions, match):
    k = AllFoursKernel()
    rng = np.random.default_rng(0)
    st = k.init(rng, 2)
    snap = snapshot(st)
    with pytest.raises(ValueError, match=match):
        k.step(st, np.array(actions, dtype=np.int64), rng)
    assert_unchanged(st, snap)
