"""Match mode at the web table (issue 19, item 5): the All Fours summary of a scored hand describes
that hand, not the next hand's kick points, and a table can play a whole match."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo import envs


def _hand_summaries(seed: int, hands: int = 30):
    """Random play of an All Fours match: for each scored hand (not the last), the points of that
    hand as the state credited them (its kicks and give-one before the last card, plus the High,
    Low, Jack and Game credited by the last card) and the summary the next hand's first view shows."""
    env = envs.make("all_fours", episode="match", render_mode="ansi", render_view=0)
    env.reset(seed=seed)
    k, rng = env.unwrapped.kernel, np.random.default_rng(seed)
    out = []
    while not env.game_state.done[0] and len(out) < hands:
        st = env.game_state
        before = st.points[0].copy()
        played = int(st.hands_played[0])
        legal = env.legal_actions()
        env.step(int(rng.choice(legal)))
        st = env.game_state
        if int(st.hands_played[0]) == played + 1 and not st.done[0]:
            view = k.table_view(st, 0, 0)
            made = [0, 0]
            worth = (1, 1, k.options["hang_jack_points"] if st.hang[0] else k.options["jack_points"], k.options["game_points"])
            for team, pts in zip(st.items[0], worth):
                if team >= 0:
                    made[int(team)] += pts
            out.append((before + np.array(made), int(st.points[0].sum()), view["summary"]))
    return out


def test_match_summary_shows_the_scored_hand_not_the_next_hands_kicks():
    seen_next_kicks = 0
    for expected, next_points, summary in (x for seed in range(4) for x in _hand_summaries(seed)):
        assert summary is not None
        lines = {ln["key"]: [int(v) for v in ln["values"]] for ln in summary["lines"]}
        assert lines["hand_points"] == [int(x) for x in expected]
        a, b = expected
        assert summary["result"] == ("team_0_wins" if a > b else "team_1_wins" if b > a else "draw")
        seen_next_kicks += next_points > 0
    # the case of the report: the next hand's kick already scored when the summary is shown
    assert seen_next_kicks > 0


def test_the_reported_hand_high_low_game_to_the_opponents_is_their_win():
    """A hand whose High, Low and Game went to team B (seat 0's opponents) is never called a win for
    team A, whatever the next hand's kick gives the dealer's team."""
    found = 0
    for seed in range(12):
        for expected, next_points, summary in _hand_summaries(seed):
            lines = {ln["key"]: [int(v) for v in ln["values"]] for ln in summary["lines"]}
            if lines["high"][1] and lines["low"][1] and lines["game"][1] and not lines["jack"][0] and next_points:
                found += expected[1] > expected[0]
                if expected[1] > expected[0]:
                    assert summary["result"] == "team_1_wins"
                    assert lines["hand_points"] == [int(x) for x in expected]
    assert found > 0


@pytest.mark.parametrize(
    "game,target", [("all_fours", "14"), ("avinas", "12"), ("aluette", "5"), ("ottocento", "800")]
)
def test_a_whole_match_at_the_table_with_a_running_score(game, target):
    """The "whole match" options that /api/games offers play the match to its end at one table;
    a deal's summary shows while the next deal has begun, and the match score runs on."""
    from web_util import make_client, open_table

    c = make_client()
    match = {g["id"]: g["match"] for g in c.get("/api/games").json()["games"]}[game]
    out = open_table(c, game, seed=2, partner="random", opponents="random", options=match["options"])
    tid, v = out["table_id"], out["view"]
    assert v["match"] is True
    assert target in " ".join(f["value"] for f in v["facts"])  # target, pip limit or deal count shown
    summaries_mid_match = 0
    moves = 0
    while not v["done"] and moves < 3000:
        r = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]})
        assert r.status_code == 200, r.text
        v = r.json()
        moves += 1
        if v["summary"] is not None and not v["done"]:
            summaries_mid_match += 1
            assert v["summary"]["explain"]
    assert v["done"] and summaries_mid_match > 0
    assert any(s["key"] in ("match_score", "pips", "rams") for s in v["scores"])


@pytest.mark.parametrize(
    "game,deal_result,match_result",
    [("all_fours", "team_1_wins_match", "team_1_wins_match"), ("avinas", "team_0_wins", "team_1_wins_match"),
     ("aluette", "team_0_wins", "team_0_wins_match"), ("ottocento", "team_0_wins", "team_0_wins_match")],
)
def test_the_end_of_a_match_says_who_won_the_match(game, deal_result, match_result):
    """The summary's result is the last deal's (All Fours' alone says the match's), so at the end of
    this Avinas match the page said "Your team wins the deal!" and nothing of the match, which team B
    won (team A, though it won the last deal, holds rams: RULES.md §6.4). The View's "match_result"
    now says who won the match, once it is over; a single deal has none."""
    from web_util import make_client, open_table

    c = make_client()
    match = {g["id"]: g["match"] for g in c.get("/api/games").json()["games"]}[game]
    out = open_table(c, game, seed=2, partner="random", opponents="random", options=match["options"])
    tid, v = out["table_id"], out["view"]
    assert v["match_result"] is None
    while not v["done"]:
        v = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
        assert v["match_result"] is None or v["done"]
    assert (v["summary"]["result"], v["match_result"]) == (deal_result, match_result)
    assert c.get(f"/api/tables/{tid}").json()["match_result"] == match_result
    deal = open_table(c, game, seed=2, partner="random", opponents="random")
    tid, v = deal["table_id"], deal["view"]
    while not v["done"]:
        v = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
    assert v["match"] is False and v["match_result"] is None
