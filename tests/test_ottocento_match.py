"""Ottocento match play (``match_target``) at the boundary between deals: a tie at or above the
target (RULES.md §9.5: "when both teams pass the target at the end of a deal the higher score wins,
and an exact tie plays another deal"), the deal passing right (dealer + 1, who discards first), the
score carried over, and the rewards of each deal.

The deal: ``seed=0``, dealer S0, every declaration passed and the lowest legal card played. Deal 1
totals A 207, B 154 points (414 / 308 half-points); deal 2 (dealer S1) A 86, B 320. The starting
scores are set with the ``score`` reset hook so that deal 1 ends exactly at the target of 1000.
"""

from __future__ import annotations

import pytest

from cardzoo.envs import ottocento_v0
from cardzoo.envs.ottocento.constants import DISCARD, PASS

P = ["player_0", "player_1", "player_2", "player_3"]


def _play_deal(env):
    """Pass every declaration and play the lowest legal card until a deal is scored (or the match
    ends); returns team A's and team B's rewards summed over those steps."""
    st = env.game_state
    done = int(st.deals_played[0])
    total = {a: 0.0 for a in P}
    while not any(env.terminations.values()) and int(st.deals_played[0]) == done:
        legal = env.legal_actions()
        env.step(PASS if PASS in legal else min(legal))
        for a in P:
            total[a] += env.rewards[a]
    assert total["player_0"] == total["player_2"] and total["player_1"] == total["player_3"]
    assert total["player_0"] == pytest.approx(-total["player_1"])
    return total["player_0"], total["player_1"]


@pytest.mark.parametrize("reward", ["win_loss", "point_diff"])
def test_a_tie_at_the_target_plays_another_deal_and_the_higher_score_then_wins(reward):
    """793 + 207 = 1000 = 846 + 154: both teams reach the target of 1000 together, level, so the match
    goes on: no win is paid, deal 2 is dealt by S1 (dealer + 1), who discards first. Deal 2 brings
    A to 1086 and B to 1320: B wins. point_diff pays each deal's difference / 100: +0.53, then -2.34."""
    env = ottocento_v0.env(match_target=1000, reward=reward)
    env.reset(seed=0, options={"dealer": 0, "score": [793, 846]})
    st = env.game_state
    a1, _ = _play_deal(env)
    assert (st.res_total[0] // 2).tolist() == [207, 154]
    assert (st.score[0] // 2).tolist() == [1000, 1000]
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert int(st.winner[0]) == -1 and int(st.deals_played[0]) == 1
    assert int(st.dealer[0]) == 1 and int(st.phase[0]) == DISCARD and env.agent_selection == "player_1"
    assert a1 == pytest.approx(0.53 if reward == "point_diff" else 0.0)
    a2, _ = _play_deal(env)
    assert (st.res_total[0] // 2).tolist() == [86, 320]
    assert (st.score[0] // 2).tolist() == [1086, 1320]
    assert all(env.terminations.values()) and int(st.winner[0]) == 1 and int(st.deals_played[0]) == 2
    assert a2 == pytest.approx(-2.34 if reward == "point_diff" else -1.0)


@pytest.mark.parametrize("score, final, winner", [([794, 846], [1001, 1000], 0), ([793, 847], [1000, 1001], 1)])
@pytest.mark.parametrize("reward", ["win_loss", "point_diff"])
def test_both_teams_past_the_target_the_higher_score_wins_at_once(score, final, winner, reward):
    """One point either way of the tie above: both teams reach the target in deal 1 and the higher
    score wins the match there, even when it is B, whose 154 is the smaller deal total (§1: the match
    is decided at the end of a deal, RULES.md §9.5). win_loss: +1 / -1; point_diff: the deal's
    difference / 100 (+0.53 to A whoever wins the match)."""
    env = ottocento_v0.env(match_target=1000, reward=reward)
    env.reset(seed=0, options={"dealer": 0, "score": score})
    st = env.game_state
    a1, _ = _play_deal(env)
    assert (st.score[0] // 2).tolist() == final
    assert all(env.terminations.values()) and int(st.winner[0]) == winner and int(st.deals_played[0]) == 1
    expected = 0.53 if reward == "point_diff" else (1.0 if winner == 0 else -1.0)
    assert a1 == pytest.approx(expected)
