"""All Fours ``table_view``: exact values in stacked deals, and ``allowed`` (the cards a seat may see).

The contract sweep (with ``allowed``), the bad-seat errors and hidden information (the view unchanged when
hidden cards move) are frame tests for every game: tests/test_frame.py, tests/test_hidden_info_variants.py."""

from __future__ import annotations

import numpy as np

from cardzoo.envs import all_fours_v0
from cardzoo.envs.core.cards import mask_to_cards

from all_fours_util import cid, ids, item_points_oracle, make_deck, new_env, play, play_out

# dealer S3, beggar S0 (us). Trumps will be hearts; S0 holds AH and 2H, S2 holds JH.
HANDS = {
    0: "AH 2H 3C 4C 5C 6C",
    1: "KS 7C 8C 9C 2D 3D",
    2: "JH 4D 5D 6D 7D 8D",
    3: "QS 2S 3S 4S 5S 9D",
}


def allowed(st, b: int, seat: int) -> set[int]:
    """Card ids ``seat`` may see (RULES.md §7): its hand, every card turned up (kicks), every card played,
    and in a match what stays on the table of the scored hand into the next: its last trick and its High
    and Low (announced when it was scored, §6)."""
    out = set(mask_to_cards(st.hands[b, seat])) | set(mask_to_cards(st.kicked[b]))
    for s in range(4):
        out |= set(mask_to_cards(st.played[b, s]))
    high, low = int(st.last_high_low[b, 0]), int(st.last_high_low[b, 2])
    return out | {int(c) for c in st.last_trick[b] if c >= 0} | {c for c in (high, low) if c >= 0}


def fact(view, key):
    found = [f["value"] for f in view["facts"] if f["key"] == key]
    return found[0] if found else None


def score(view, key):
    return [s["values"] for s in view["scores"] if s["key"] == key][0]


def test_view_at_the_stand_or_beg_decision():
    env = new_env(make_deck(3, HANDS, kicks="6H"), dealer=3)  # a kicked six scores 2 for the dealer's team (§3)
    v = env.unwrapped.table_view(0)
    assert v["hand"] == sorted(ids("AH 2H 3C 4C 5C 6C"))
    assert v["hand"] == ids("3C 4C 5C 6C 2H AH")  # clubs before hearts, low rank first
    assert v["hand_sizes"] == [6, 6, 6, 6]
    assert v["exposed"] == [[], [], [], []]
    assert v["trick"] == [] and v["last_trick"] is None
    assert (v["to_act"], v["dealer"], v["phase"]) == (0, 3, "stand_or_beg")
    assert fact(v, "trump") == "H" and fact(v, "trump_card") == "6H" and fact(v, "kicked") == "6H"
    assert fact(v, "beggar") == "S0" and fact(v, "begged") is None and fact(v, "runs") == "0"
    assert fact(v, "tricks") == "0/6"
    assert score(v, "hand_points") == ["0", "2"] and score(v, "match_score") == ["0", "2"]
    assert v["teams"] == [[0, 2], [1, 3]] and v["summary"] is None
    # another seat sees its own hand and nothing of seat 0's
    v1 = env.unwrapped.table_view(1)
    assert v1["hand"] == sorted(ids(HANDS[1])) and v1["to_act"] == 0


def test_view_during_a_trick_and_after_it():
    env = new_env(make_deck(3, HANDS, kicks="6H"), dealer=3)
    play(env, "S0:STAND S0:3C S1:7C S2:4D")
    v = env.unwrapped.table_view(3)
    assert v["phase"] == "play" and v["to_act"] == 3
    assert v["trick"] == [
        {"seat": 0, "card": cid("3C")}, {"seat": 1, "card": cid("7C")}, {"seat": 2, "card": cid("4D")},
    ]
    assert v["hand_sizes"] == [5, 5, 5, 6]
    assert fact(v, "begged") == "no" and fact(v, "gave_one") is None
    assert fact(v, "led_suit") == "C" and fact(v, "trick_winner") == "S1"
    play(env, "S3:9D")  # S1 wins with 7C and leads
    v = env.unwrapped.table_view(0)
    assert v["trick"] == [] and v["to_act"] == 1
    assert v["last_trick"] == {
        "cards": [{"seat": 0, "card": cid("3C")}, {"seat": 1, "card": cid("7C")}, {"seat": 2, "card": cid("4D")},
                  {"seat": 3, "card": cid("9D")}],
        "winner": 1,
    }
    assert fact(v, "tricks") == "1/6" and score(v, "game_value") == ["0", "0"]


def test_run_of_the_pack_lists_the_kicks_in_turning_order():
    # RULES.md §10 example 3: dealer S3, kicks 4S, AS (same suit, set aside, B +1), 6H (B +2, hearts)
    env = new_env(make_deck(3, {}, kicks="4S AS 6H"), dealer=3)
    play(env, "S0:BEG")
    v = env.unwrapped.table_view(0)
    assert v["phase"] == "give_one_or_run" and v["to_act"] == 3 and fact(v, "begged") == "yes"
    play(env, "S3:RUN")
    v = env.unwrapped.table_view(0)
    assert fact(v, "kicked") == "4S AS 6H" and fact(v, "trump_card") == "6H" and fact(v, "trump") == "H"
    assert fact(v, "gave_one") == "no" and fact(v, "runs") == "2" and fact(v, "tricks") == "0/12"
    assert v["hand_sizes"] == [12, 12, 12, 12] and score(v, "hand_points") == ["0", "3"]


def test_summary_at_the_end_of_the_hand_matches_the_scoring_rules():
    env = new_env(make_deck(3, HANDS, kicks="6H"), dealer=3)
    play(env, "S0:STAND")
    play_out(env)
    st = env.unwrapped.game_state
    v = env.unwrapped.table_view(0)
    assert v["phase"] == "over" and v["to_act"] is None and v["hand"] == [] and v["trick"] == []
    lines = {line["key"]: [int(x) for x in line["values"]] for line in v["summary"]["lines"]}
    # High AH and Low 2H are S0's (team A); JH held by S2 (team A)
    assert lines["high"] == [1, 0] and lines["low"] == [1, 0]
    oracle = item_points_oracle(st.dealt[0], st.captured[0], trump=2)
    jack = lines.get("jack", lines.get("hang_jack"))
    assert [lines["high"][t] + lines["low"][t] + jack[t] + lines["game"][t] for t in range(2)] == oracle
    assert lines["kicks_and_give_one"] == [0, 2]
    assert lines["hand_points"] == [int(st.points[0, 0]), int(st.points[0, 1])]
    assert lines["hand_points"] == [oracle[0], oracle[1] + 2]
    a, b = lines["hand_points"]
    assert v["summary"]["result"] == ("team_0_wins" if a > b else "team_1_wins" if b > a else "draw")
    assert v["summary"]["key"] == "hand_result"


def explain_args(view) -> list[tuple[str, dict]]:
    return [(e["key"], e["args"]) for e in view["summary"]["explain"]]


def test_a_match_the_first_kick_ends_is_summed_up_as_an_unplayed_hand():
    """RULES.md §3 step 4 (example 1 of §10): A at 11, dealer S0 kicks JD, +3 -> 14, the match ends
    before anyone acts. The summary used the last *scored* hand, of which there is none: it said
    "no trump dealt, no jack, Game tie 0-0" and showed hand points 0-0."""
    hands = {0: "2C 3C 4C 5C 6C 7C", 1: "2H 3H 4H 5H 6H 7H", 2: "2S 3S 4S 5S 6S 7S", 3: "8C 9C 10C QC KC AC"}
    env = new_env(make_deck(0, hands, kicks="JD"), dealer=0, score=[11, 0], episode="match")
    v = env.unwrapped.table_view(1)
    assert v["phase"] == "over" and score(v, "match_score") == ["14", "0"]
    lines = {line["key"]: line["values"] for line in v["summary"]["lines"]}
    assert lines == {"high": ["0", "0"], "low": ["0", "0"], "jack": ["0", "0"], "game": ["0", "0"],
                     "kicks_and_give_one": ["3", "0"], "game_value": ["0", "0"], "hand_points": ["3", "0"]}
    assert v["summary"]["result"] == "team_0_wins_match"
    assert explain_args(v) == [("af_not_played", {"a": 3, "b": 0, "team": "A"})]


def test_a_match_the_next_hands_kick_ends_keeps_the_scored_hand_and_says_why_it_ended():
    """A match to 7 (seed 1, random legal play) whose last scored hand went 3-4, leaving A 5, B 5,
    and whose next deal's kick gave B 2 more: B wins 5-7 before that hand is played. The summary
    keeps the scored hand's lines, and its last explanation names the points of the unplayed hand
    (before, nothing said why B reached 7). With random play, 58 of 300 matches to 7 end this way."""
    env = all_fours_v0.env(episode="match", target_score=7)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    st = env.unwrapped.game_state
    while not st.done[0]:
        env.step(int(rng.choice(env.legal_actions())))
    assert (int(st.tricks_done[0]), st.points[0].tolist(), st.score[0].tolist()) == (0, [0, 2], [5, 7])
    v = env.unwrapped.table_view(0)
    assert v["summary"]["result"] == "team_1_wins_match"
    lines = {line["key"]: line["values"] for line in v["summary"]["lines"]}
    assert lines["hand_points"] == ["3", "4"]  # the last scored hand; the unplayed one follows in explain
    assert explain_args(v)[-1] == ("af_next_not_played", {"a": 0, "b": 2, "team": "B"})
    # every match over 60 seeds: the note is there exactly when the last hand was never played
    for seed in range(60):
        env = all_fours_v0.env(episode="match", target_score=7)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        st = env.unwrapped.game_state
        while not st.done[0]:
            env.step(int(rng.choice(env.legal_actions())))
        keys = [k for k, _ in explain_args(env.unwrapped.table_view(0))]
        unplayed = int(st.tricks_done[0]) == 0 and not st.truncated[0]
        assert (keys[-1] in ("af_next_not_played", "af_not_played")) == unplayed, seed
