"""Avinas match play at the boundary between deals: the ``max_deals`` cap (RULES.md §8, §9.8: scored
deals only; a truncated match keeps the deal rewards paid, the truncating deal's included, and with
``reward="win"`` pays nothing) against the end of the match (§6.4), which wins when one deal is both.

The position is the last trick of spec §10 E11: a no-sevens game, clubs trumps, declarer S0 (team A)
on 50 card points and 3 tricks against B's 70 and 4. The last trick (7C 7S 8S 9S, 0 card points) goes to
S0's 7C: A ends on 50 < 61, loses the deal and, with more than 30 points, receives 2 pips (§6.3);
u = 2 / 2 = 1 (§6.5).
"""

from __future__ import annotations

import pytest

from avinas_util import craft, new_env, play, team_rewards


def _last_trick_of_e11(env):
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=7, points=(50, 70), tricks_won=(3, 4),
          high_call=3, hands={0: "7C", 1: "7S", 2: "8S", 3: "9S"})
    play(env, "S0:7C S1:7S S2:8S S3:9S")


@pytest.mark.parametrize("reward, pay", [("score", (-1.0, 1.0)), ("win", (0.0, 0.0))])
def test_max_deals_truncates_after_the_scored_deal_and_keeps_its_reward(reward, pay):
    """max_deals=1, pips 0-0: the first scored deal gives A 2 pips, no team has 12, so the match would
    go on; the cap truncates it instead (no termination, no match winner). Under "score" the deal's
    -1 / +1 stands on that step; under "win" nothing is paid."""
    env = new_env(seed=11, episode="match", reward=reward, max_deals=1)
    _last_trick_of_e11(env)
    st = env.game_state
    assert st.pips[0].tolist() == [2, 0] and int(st.deals[0]) == 1
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert int(st.winner[0]) == -1
    assert team_rewards(env) == pay
    assert env.infos["player_0"]["truncation"] == "max_deals=1 reached"


@pytest.mark.parametrize("reward, pay", [("score", (-1.0, 1.0)), ("win", (-1.0, 1.0))])
def test_a_deal_that_ends_the_match_at_the_cap_is_a_win_not_a_truncation(reward, pay):
    """max_deals=1 with pips 10-4 and no rams: the same deal brings A to 12 pips, so the match ends
    (§6.4 step 3: A has more pips and loses) before the cap is looked at: terminated, B wins."""
    env = new_env(seed=11, episode="match", reward=reward, max_deals=1, pips=(10, 4))
    _last_trick_of_e11(env)
    st = env.game_state
    assert st.pips[0].tolist() == [12, 4]
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert int(st.winner[0]) == 1 and env.infos["player_0"]["match_winner"] == "B"
    assert team_rewards(env) == pay
