"""Ottocento's match_target range (RULES.md §8): the spec gives "e.g. 800" and no range."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.ottocento.kernel import OttocentoKernel


def test_match_target_takes_targets_up_to_a_million_points():
    """match_target was capped at 5000 (the spec gives "e.g. 800", no range), as the other games' open ranges were
    before 44f3b73. Scores are int32 half-points, so it now takes 1..1,000,000. A match started one point short of
    that target for both teams, with the largest last-trick bonus, ends after its first deal: each team's score is
    its start plus that deal's total, in half-points, with no overflow."""
    assert OttocentoKernel(match_target=1_000_000).target_half == 2_000_000
    with pytest.raises(ValueError, match=r"valid values: None \(one deal\) or an int from 1 to 1000000"):
        OttocentoKernel(match_target=1_000_001)
    k = OttocentoKernel(match_target=1_000_000, last_trick_bonus=100_000, max_deals=10_000)
    B = 8
    rng = np.random.default_rng(5)
    st = k.init(rng, B, score=[999_999, 999_999])
    while not st.done.all():
        legal = k.legal_actions(st)
        k.step(st, np.where(st.done, 0, legal.argmax(axis=1)), rng, active=~st.done)
    assert not st.truncated.any() and (st.deals_played == 1).all()
    np.testing.assert_array_equal(st.score, 2 * 999_999 + st.res_total)
    assert (st.score.max(axis=1) >= 2_000_000).all() and (st.res_last.max(axis=1) == 100_000).all()
