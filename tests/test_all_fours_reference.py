"""The kernel against an independent model of the rules (``all_fours_reference.py``), step by
step: random legal actions over every option value (RULES.md §8), comparing the player to act, the
legal actions, every hand, the trump, the dealer, the match score, the rewards of every step, the
end and the truncation reason. The model deals each pack itself (§3), so dealing is checked too."""

from __future__ import annotations

import numpy as np
import pytest
from all_fours_reference import RUN, ReferenceGame
from reference_util import play_in_lockstep

from cardzoo.envs.all_fours.kernel import AllFoursKernel

OPTION_SETS = [
    {},
    {"undertrump": "forbidden", "deal_packet": 1},
    {"kick_points": "tobago", "score_rejected_kicks": False, "game_tie": "beggar_team"},
    {"jack_points": 2, "hang_jack_points": 5, "game_points": 4, "game_tie": "dealer_team", "reward": "win"},
    {"episode": "match", "first_dealer": 2},
    {"episode": "match", "reward": "win", "target_score": 7, "forbid_game_ending_give_one": True, "undertrump": "forbidden"},
    {"episode": "match", "target_score": 3, "max_hands": 2, "deal_packet": 1, "kick_points": "tobago"},
    {"max_redeals": 1, "first_dealer": 0},
    {"forbid_game_ending_give_one": True, "target_score": 1},
    {"episode": "match", "hang_jack_points": 0, "jack_points": 0, "game_points": 0, "max_redeals": 2, "score_rejected_kicks": False},
]
SCORED = [False, False, False, True, False, True, True, False, False, True]  # start from a match score (reset hook)


def _bits(mask) -> set[int]:
    return {c for c in range(52) if (int(mask) >> c) & 1}


@pytest.mark.parametrize(
    "options, scored", list(zip(OPTION_SETS, SCORED)), ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) if isinstance(o, dict) else str(o)
)
def test_the_kernel_plays_as_the_reference_model(options, scored):
    k = AllFoursKernel(**options)
    o = dict(k.options)
    B = 64
    rng, pick = np.random.default_rng(21), np.random.default_rng(22)
    score = np.random.default_rng(23).integers(0, o["target_score"], size=(B, 2)) if scored else None
    st = k.init(rng, B) if score is None else k.init(rng, B, score=score)
    ref = []
    for b in range(B):
        r = ReferenceGame(o, int(st.dealer[b]), (0, 0) if score is None else score[b].tolist())
        r.deal(st.stock[b])
        if r.winner is not None:  # a kick ended the match inside reset (RULES §11.4)
            r._end_match()
        ref.append(r)
    if o["first_dealer"] is not None:
        assert (st.dealer == o["first_dealer"]).all()
    seen = {"steps": 0, "runs": 0, "ends": 0}

    def check(b: int, r: ReferenceGame) -> None:
        assert bool(st.done[b]) == r.done, b
        assert st.score[b].tolist() == r.score, b
        assert np.allclose(st.rewards[b], r.step_rewards), (b, st.rewards[b].tolist(), r.step_rewards)
        if r.done:
            assert k.info(st, b).get("truncation") == r.truncation, b
            seen["ends"] += 1
        else:
            assert [_bits(h) for h in st.hands[b]] == r.hands, b
            assert (int(st.trump[b]), int(st.dealer[b])) == (r.trump, r.dealer), b

    for b in range(B):
        check(b, ref[b])

    def advance(b: int, r: ReferenceGame, action: int) -> None:
        seen["runs"] += action == RUN
        if r.step(action) == "deal":  # the kernel shuffled a fresh pack: deal it as §3 says
            paid, r.step_rewards = r.step_rewards, [0.0] * 4
            r.deal(st.stock[b])
            if r.winner is not None:  # the new deal's kick ended the match
                r._end_match()
            r.step_rewards = [p + q for p, q in zip(paid, r.step_rewards)]
        check(b, r)

    seen["steps"] = play_in_lockstep(k, st, rng, ref, lambda b, r, legal: pick.choice(legal), advance)
    assert seen["ends"] == B and seen["runs"] > 5 and seen["steps"] > 20 * B
