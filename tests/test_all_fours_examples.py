"""Every worked example of the All Fours rules (RULES.md §10, examples 1-12), with exact numbers.

Each example is set up as a stacked deal (``reset(options={"deck", "dealer", "score"})``)
and played through the public env ``cardzoo.envs.all_fours_v0.env`` with legal moves; the
assertions use the env's legal actions, rewards and kernel state (``env.game_state``,
``B = 1``). Facts of the spec are copied here as literals and cited as
"RULES.md §10 example N"; hands not given by the spec are chosen so that the example's
numbers are the only possible outcome (all other dealt cards are 2-9, worth no Game).
"""

from __future__ import annotations

import pytest

from cardzoo.envs.all_fours.constants import BEG_DECISION, DEALER_DECISION, GAME, HIGH, JACK, OVER, PLAY

from all_fours_util import (
    KICK_TRINIDAD,
    TEAM_A,
    TEAM_B,
    bits,
    cards_of,
    cid,
    ids,
    legal_names,
    make_deck,
    names,
    new_env,
    obs_slice,
    play,
    play_out,
    seat_positions,
)

C, D, H, S = 0, 1, 2, 3
P = [f"player_{i}" for i in range(4)]


def hand_names(env, seat):
    return names(env.hands[P[seat]])


def rewards(env):
    return [env.rewards[a] for a in P]


# ----------------------------------------------------------------------------- example 1
# RULES.md §10 example 1: dealer S0, scores 0-0, kick JD -> trump D, A = 3 immediately;
# JD is out of play: no Jack or Hang jack this hand. With A at 11 before the kick, A
# reaches 14 and wins before S1 acts.
EX1_HANDS = {
    1: "AD 2C 3C 4C 5C 6C",  # the only diamonds dealt: AD (S1) and 2D (S2)
    2: "2D 7C 8C 9C 2H 3H",
    3: "4H 5H 6H 7H 8H 9H",
    0: "2S 3S 4S 5S 6S 7S",
}


def test_example_1_kick_scores_at_once_and_jack_is_out_of_play():
    env = new_env(make_deck(0, EX1_HANDS, kicks="JD"), dealer=0)
    st = env.game_state
    assert st.points[0].tolist() == [3, 0]
    assert int(st.trump[0]) == D
    assert cards_of(st.kicked[0]) == [cid("JD")]
    assert not any(int(st.dealt[0, s]) & (1 << cid("JD")) for s in range(4))
    assert int(st.phase[0]) == BEG_DECISION
    assert env.agent_selection == "player_1"
    assert legal_names(env) == {"STAND", "BEG"}
    play(env, "S1:STAND")
    steps, total = play_out(env)
    assert steps == 24
    # High AD (S1) -> B, Low 2D (S2) -> A, no Jack (JD kicked), Game B (AD is the only count card)
    assert st.items[0].tolist() == [TEAM_B, TEAM_A, -1, TEAM_B]
    assert not st.hang[0]
    assert st.points[0].tolist() == [4, 2]
    assert total == {"player_0": 2.0, "player_1": -2.0, "player_2": 2.0, "player_3": -2.0}


def test_example_1_match_kick_at_0_0_does_not_end_the_match():
    env = new_env(make_deck(0, EX1_HANDS, kicks="JD"), dealer=0, score=[0, 0], episode="match")
    st = env.game_state
    assert st.score[0].tolist() == [3, 0]
    assert not st.done[0]
    assert env.agent_selection == "player_1"


@pytest.mark.parametrize("reward, expected", [("score", [3, -3, 3, -3]), ("win", [1, -1, 1, -1])])
def test_example_1_match_kick_reaches_target_before_anyone_acts(reward, expected):
    env = new_env(make_deck(0, EX1_HANDS, kicks="JD"), dealer=0, score=[11, 0], episode="match", reward=reward)
    st = env.game_state
    assert st.score[0].tolist() == [14, 0]
    assert bool(st.done[0]) and not bool(st.truncated[0])
    assert int(st.winner[0]) == TEAM_A
    assert int(st.phase[0]) == OVER
    assert env.terminations == {a: True for a in P}
    assert env.truncations == {a: False for a in P}
    assert env.legal_actions() == []
    for a in P:
        assert not env.observe(a)["action_mask"].any()
    assert st.rewards[0].tolist() == expected  # the kernel's reward of the deal's kick
    assert env.infos["player_0"]["score"] == [14, 0]


def test_example_1_match_early_end_is_visible_through_the_aec_api():
    env = new_env(make_deck(0, EX1_HANDS, kicks="JD"), dealer=0, score=[11, 0], episode="match")
    assert env.agent_selection in P
    _, reward, termination, _, _ = env.last()
    assert termination
    assert [env._cumulative_rewards[a] for a in P] == [3.0, -3.0, 3.0, -3.0]


# ----------------------------------------------------------------------------- example 2
def test_example_2_beg_give_one():
    # RULES.md §10 example 2: dealer S1, beggar S2. S2 BEG, S1 GIVE_ONE -> A +1; trump
    # unchanged; 6 tricks; S2 leads.
    env = new_env(make_deck(1, kicks="9H"), dealer=1)
    st = env.game_state
    assert env.agent_selection == "player_2"
    assert legal_names(env) == {"STAND", "BEG"}
    play(env, "S2:BEG")
    assert int(st.phase[0]) == DEALER_DECISION
    assert env.agent_selection == "player_1"
    assert legal_names(env) == {"GIVE_ONE", "RUN"}
    play(env, "S1:GIVE_ONE")
    assert st.points[0].tolist() == [1, 0]
    assert int(st.trump[0]) == H
    assert int(st.phase[0]) == PLAY
    assert int(st.hand_size[0]) == 6 and int(st.runs[0]) == 0
    assert env.agent_selection == "player_2"
    assert legal_names(env) == hand_names(env, 2) and len(hand_names(env, 2)) == 6
    assert obs_slice(env, "player_0", "begged").tolist() == [1]
    assert obs_slice(env, "player_0", "gave_one").tolist() == [1]
    steps, _ = play_out(env)
    assert steps == 24
    assert int(st.tricks_done[0]) == 6


# ----------------------------------------------------------------------------- examples 3 and 4
# RULES.md §10 example 3 (1-based stock positions): dealer S3, beggar S0. Hands = cards
# 1-24, kick 1 = card 25 = 4S. S0 BEG, S3 RUN: cards 26-37 dealt 3 each (S0, S1, S2, S3),
# kick 2 = card 38 = AS -> B +1, same suit, set aside; cards 39-50 dealt, kick 3 = card 51
# = 6H -> B +2, trump H. 12 cards each, 12 tricks, S0 leads, B has 3 kick points; card 52
# is never used.
EX3_CARDS_1BASED = {  # first deal in packets of 3 from the beggar S0, then the two runs
    0: [1, 2, 3, 13, 14, 15, 26, 27, 28, 39, 40, 41],
    1: [4, 5, 6, 16, 17, 18, 29, 30, 31, 42, 43, 44],
    2: [7, 8, 9, 19, 20, 21, 32, 33, 34, 45, 46, 47],
    3: [10, 11, 12, 22, 23, 24, 35, 36, 37, 48, 49, 50],
}


def test_deal_positions_helper_matches_example_3():
    assert seat_positions(3) == {s: [c - 1 for c in v] for s, v in EX3_CARDS_1BASED.items()}


def test_example_3_run_with_a_rekick():
    deck = make_deck(3, kicks="4S AS 6H", last="KH")
    assert [deck[24], deck[37], deck[50], deck[51]] == ids("4S AS 6H KH")
    env = new_env(deck, dealer=3)
    st = env.game_state
    assert st.points[0].tolist() == [0, 0]  # a kicked 4 scores nothing
    play(env, "S0:BEG S3:RUN")
    assert st.points[0].tolist() == [0, 3]
    assert set(cards_of(st.kicked[0])) == set(ids("4S AS 6H"))
    assert int(st.trump[0]) == H
    assert int(st.runs[0]) == 2 and int(st.hand_size[0]) == 12
    for s, cards in EX3_CARDS_1BASED.items():
        assert sorted(env.hands[P[s]]) == sorted(deck[c - 1] for c in cards)
    held = 0
    for s in range(4):
        held |= int(st.hands[0, s])
    assert not held & (1 << cid("KH"))  # card 52 never used
    assert int(st.phase[0]) == PLAY
    assert env.agent_selection == "player_0"
    assert legal_names(env) == hand_names(env, 0) and len(hand_names(env, 0)) == 12
    assert obs_slice(env, "player_1", "runs").tolist() == [2]
    assert obs_slice(env, "player_1", "hand_size").tolist() == [12]
    assert obs_slice(env, "player_1", "kicked").sum() == 3
    steps, _ = play_out(env)
    assert steps == 48
    assert int(st.tricks_done[0]) == 12
    assert int(st.points[0, 1]) >= 3


def test_example_3_with_deal_packet_1():
    # RULES.md §11.1: with deal_packet=1 the first deal is six rounds of single cards and each
    # run three rounds of single cards (beggar S0 first). Kicks stay at cards 25, 38, 51.
    deck = make_deck(3, kicks="4S AS 6H", last="KH", packet=1)
    env = new_env(deck, dealer=3, deal_packet=1)
    play(env, "S0:BEG S3:RUN")
    expected_1based = {
        s: [1 + s + 4 * r for r in range(6)] + [26 + s + 4 * r for r in range(3)] + [39 + s + 4 * r for r in range(3)]
        for s in range(4)
    }
    for s in range(4):
        assert sorted(env.hands[P[s]]) == sorted(deck[c - 1] for c in expected_1based[s])
    assert env.game_state.points[0].tolist() == [0, 3]


def test_example_3_rejected_kick_not_scored_when_option_off():
    # §8 score_rejected_kicks=False: the same-suit re-kick AS scores nothing; 6H still scores 2.
    env = new_env(make_deck(3, kicks="4S AS 6H"), dealer=3, score_rejected_kicks=False)
    play(env, "S0:BEG S3:RUN")
    assert env.game_state.points[0].tolist() == [0, 2]


@pytest.mark.parametrize("score_rejected, kept", [(True, 1), (False, 0)])
def test_example_4_exhaustion_redeals_and_keeps_kick_points(score_rejected, kept):
    # RULES.md §10 example 4: as example 3 but kick 3 = 9S: still spades and only 1 card left
    # -> reshuffle all 52; S3 deals again; S0 decides stand/beg again on the new kick. B keeps
    # the 1 point from AS.
    deck = make_deck(3, kicks="4S AS 9S", last="KH")
    env = new_env(deck, dealer=3, seed=5, score_rejected_kicks=score_rejected)
    st = env.game_state
    play(env, "S0:BEG S3:RUN")
    assert int(st.phase[0]) == BEG_DECISION
    assert int(st.dealer[0]) == 3
    assert int(st.redeals[0]) == 1
    assert int(st.runs[0]) == 0 and int(st.hand_size[0]) == 6 and not st.begged[0]
    assert env.agent_selection == "player_0"
    assert legal_names(env) == {"STAND", "BEG"}
    new_stock = st.stock[0].astype(int).tolist()
    assert sorted(new_stock) == list(range(52)) and new_stock != deck
    kick = new_stock[24]
    assert cards_of(st.kicked[0]) == [kick]
    assert int(st.trump[0]) == kick // 13
    assert st.points[0].tolist() == [0, kept + KICK_TRINIDAD.get(kick % 13, 0)]
    pos = seat_positions(3)
    for s in range(4):
        assert sorted(env.hands[P[s]]) == sorted(new_stock[p] for p in pos[s][:6])
    # a fresh stand/beg: S0 may beg again and the dealer may give one
    play(env, "S0:BEG")
    assert env.agent_selection == "player_3" and legal_names(env) == {"GIVE_ONE", "RUN"}
    play(env, "S3:GIVE_ONE")
    assert st.points[0].tolist() == [1, kept + KICK_TRINIDAD.get(kick % 13, 0)]
    steps, total = play_out(env)
    assert steps == 24
    diff = float(st.points[0, 0] - st.points[0, 1])
    assert total == {"player_0": diff, "player_1": -diff, "player_2": diff, "player_3": -diff}
    assert int(st.points[0, 1]) >= kept + KICK_TRINIDAD.get(kick % 13, 0)


# ----------------------------------------------------------------------------- example 5
# RULES.md §10 example 5, legal moves with trump H. Each position is reached by playing
# earlier tricks; dealer S3, beggar S0, kick 3H (no kick points).
EX5A_HANDS = {
    0: "2C 6C 2D 3D 4D 5D",
    1: "3C 9C 5S 6D 7D 8D",
    2: "KS 2H AC 9D 7C 8C",
    3: "4C 5C 10D JD QD KD",
}


@pytest.mark.parametrize("undertrump", ["allowed", "forbidden"])
def test_example_5a_may_follow_or_trump_not_discard(undertrump):
    # (a) 5S led; hand {KS, 2H, AC, 9D} -> legal {KS, 2H}
    env = new_env(make_deck(3, EX5A_HANDS, kicks="3H"), dealer=3, undertrump=undertrump)
    play(env, "S0:STAND S0:2C S1:3C S2:7C S3:4C  S2:8C S3:5C S0:6C S1:9C  S1:5S")
    assert env.agent_selection == "player_2"
    assert hand_names(env, 2) == {"KS", "2H", "AC", "9D"}
    assert legal_names(env) == {"KS", "2H"}
    with pytest.raises(ValueError, match="AC"):
        env.step(cid("AC"))


def test_example_5b_void_in_led_suit_plays_anything():
    # (b) 5S led; hand {QH, 4C} -> {QH, 4C}
    hands = {
        0: "2D 7D QD 6S 5S 9C",
        1: "3D 8D KD 2S 7S 8S",
        2: "4D 9D 10D 3S QH 4C",
        3: "5D 6D JD 4S 2C 3C",
    }
    env = new_env(make_deck(3, hands, kicks="3H"), dealer=3)
    play(
        env,
        "S0:STAND S0:2D S1:3D S2:4D S3:5D  S3:6D S0:7D S1:8D S2:9D  S2:10D S3:JD S0:QD S1:KD"
        "  S1:2S S2:3S S3:4S S0:6S  S0:5S S1:7S",
    )
    assert env.agent_selection == "player_2"
    assert hand_names(env, 2) == {"QH", "4C"}
    assert legal_names(env) == {"QH", "4C"}


@pytest.mark.parametrize("subject, expected", [("2H AC", {"2H"}), ("AC 3D", {"AC", "3D"})])
def test_example_5c_trump_led(subject, expected):
    # (c) 8H led; hand {2H, AC} -> {2H}; hand {AC, 3D} -> {AC, 3D}
    hands = {
        0: "2S 7S QS 7D 8H 9C",
        1: "3S 8S KS 4D " + subject,
        2: "4S 9S 10S 5D 10C JC",
        3: "5S 6S JS 6D QC KC",
    }
    env = new_env(make_deck(3, hands, kicks="3H"), dealer=3)
    play(
        env,
        "S0:STAND S0:2S S1:3S S2:4S S3:5S  S3:6S S0:7S S1:8S S2:9S  S2:10S S3:JS S0:QS S1:KS"
        "  S1:4D S2:5D S3:6D S0:7D  S0:8H",
    )
    assert env.agent_selection == "player_1"
    assert hand_names(env, 1) == set(subject.split())
    assert legal_names(env) == expected


@pytest.mark.parametrize("undertrump, expected", [("allowed", {"KS", "4H", "QH"}), ("forbidden", {"KS", "QH"})])
def test_example_5d_undertrumping(undertrump, expected):
    # (d) 5S led then 9H played; hand {KS, 4H, QH} -> default {KS, 4H, QH}, with
    # undertrump="forbidden" {KS, QH}.
    hands = {
        0: "2C 7C QC 6D 7D 8D",
        1: "3C 8C KC 5S 2D 3D",
        2: "4C 9C 10C 9H 4D 5D",
        3: "5C 6C JC KS 4H QH",
    }
    env = new_env(make_deck(3, hands, kicks="3H"), dealer=3, undertrump=undertrump)
    play(
        env,
        "S0:STAND S0:2C S1:3C S2:4C S3:5C  S3:6C S0:7C S1:8C S2:9C  S2:10C S3:JC S0:QC S1:KC"
        "  S1:5S S2:9H",
    )
    assert env.agent_selection == "player_3"
    assert hand_names(env, 3) == {"KS", "4H", "QH"}
    assert legal_names(env) == expected
    if undertrump == "forbidden":
        with pytest.raises(ValueError, match="4H"):
            env.step(cid("4H"))
        play(env, "S3:QH")  # overtrumping stays legal
        assert legal_names(env) == hand_names(env, 0)  # S0 is void in spades: anything


@pytest.mark.parametrize("undertrump, shown", [("allowed", set()), ("forbidden", {"C", "D", "S"})])
def test_example_5d_only_trumps_held(undertrump, shown):
    # (d) 5S led then 9H played; hand {4H, 2H} -> both legal under either rule. With
    # undertrump="forbidden" the undertrump 4H is legal only from a hand of trumps, so it shows S2
    # void in every plain suit (the voids determinize respects); by default a trump to a plain lead
    # shows nothing.
    hands = {
        0: "2C 7C QC 6D 5S 7D",
        1: "3C 8C KC 2D 9H 3D",
        2: "4C 9C 10C 4D 4H 2H",
        3: "5C 6C JC 5D 8D 9D",
    }
    env = new_env(make_deck(3, hands, kicks="3H"), dealer=3, undertrump=undertrump)
    play(
        env,
        "S0:STAND S0:2C S1:3C S2:4C S3:5C  S3:6C S0:7C S1:8C S2:9C  S2:10C S3:JC S0:QC S1:KC"
        "  S1:2D S2:4D S3:5D S0:6D  S0:5S S1:9H",
    )
    assert env.agent_selection == "player_2"
    assert hand_names(env, 2) == {"4H", "2H"}
    assert legal_names(env) == {"4H", "2H"}
    assert env.game_state.voids[0, 2] == 0
    play(env, "S2:4H")
    voids = int(env.game_state.voids[0, 2])
    assert {"CDHS"[s] for s in range(4) if voids >> s & 1} == shown




# ----------------------------------------------------------------------------- example 6
def test_example_6_trump_wins_the_trick():
    # RULES.md §10 example 6, trump H: S1 5S, S2 KS, S3 2H, S0 AC -> S3 wins (only trump)
    # and leads next. Dealer S0, so S1 (beggar) leads.
    hands = {
        1: "5S 2C 3C 4C 5C 6C",
        2: "KS 7C 8C 9C 10C JC",
        3: "2H 2D 3D 4D 5D 6D",
        0: "AC 7D 8D 9D 10D JD",
    }
    env = new_env(make_deck(0, hands, kicks="3H"), dealer=0)
    st = env.game_state
    play(env, "S1:STAND S1:5S S2:KS S3:2H")
    # mid-trick, S0's observation shows S3 (S0's previous seat) winning so far
    assert obs_slice(env, "player_0", "trick_winner").tolist() == [0, 0, 0, 1]
    play(env, "S0:AC")
    assert env.agent_selection == "player_3"
    assert int(st.leader[0]) == 3
    assert names(cards_of(st.captured[0, TEAM_B])) == {"5S", "KS", "2H", "AC"}
    assert int(st.captured[0, TEAM_A]) == 0
    assert legal_names(env) == hand_names(env, 3) == {"2D", "3D", "4D", "5D", "6D"}


def test_example_6_without_trump_highest_of_led_suit_wins():
    # RULES.md §10 example 6: S1 5S, S2 KS, S3 AD, S0 QS -> S2 (KS)
    hands = {
        1: "5S 2C 3C 4C 5C 6C",
        2: "KS 7C 8C 9C 10C JC",
        3: "AD 2D 3D 4D 5D 6D",
        0: "QS 7D 8D 9D 10D JD",
    }
    env = new_env(make_deck(0, hands, kicks="3H"), dealer=0)
    st = env.game_state
    play(env, "S1:STAND S1:5S S2:KS S3:AD S0:QS")
    assert env.agent_selection == "player_2"
    assert int(st.leader[0]) == 2
    assert names(cards_of(st.captured[0, TEAM_A])) == {"5S", "KS", "AD", "QS"}


# ----------------------------------------------------------------------------- example 7
# RULES.md §10 example 7, trump C: S0 JC, S1 QC, S2 3C, S3 10D -> S1 wins: B scores Hang
# jack 3 at the end of the hand, and the 10 counts for B's Game. If instead S2 plays KC,
# S2 wins: A scores Jack 1. Dealer S3, kick 2C (no points).
def ex7_hands(s2_club):
    return {
        0: "JC 2D 3D 4D 5D 6D",
        1: "QC 4C 7D 8D 9D 2H",
        2: s2_club + " 4H 5H 6H 7H 8H",
        3: "10D 9H 2S 3S 4S 5S",
    }


def test_example_7_hang_jack():
    env = new_env(make_deck(3, ex7_hands("3C"), kicks="2C"), dealer=3)
    st = env.game_state
    play(env, "S0:STAND S0:JC S1:QC S2:3C S3:10D")
    assert env.agent_selection == "player_1"
    assert names(cards_of(st.captured[0, TEAM_B])) == {"JC", "QC", "3C", "10D"}
    assert obs_slice(env, "player_1", "game_captured").tolist() == [13, 0]
    _, total = play_out(env)
    # High QC (S1) B, Low 3C (S2) A, Hang jack B 3, Game B (13 to 0)
    assert st.items[0].tolist() == [TEAM_B, TEAM_A, TEAM_B, TEAM_B]
    assert bool(st.hang[0])
    assert st.points[0].tolist() == [1, 5]
    assert total == {"player_0": -4.0, "player_1": 4.0, "player_2": -4.0, "player_3": 4.0}


def test_example_7_jack_saved_by_partner():
    env = new_env(make_deck(3, ex7_hands("KC"), kicks="2C"), dealer=3)
    st = env.game_state
    play(env, "S0:STAND S0:JC S1:QC S2:KC S3:10D")
    assert env.agent_selection == "player_2"
    _, total = play_out(env)
    # High KC (S2) A, Low 4C (S1) B, Jack A 1, Game A (16 to 0)
    assert st.items[0].tolist() == [TEAM_A, TEAM_B, TEAM_A, TEAM_A]
    assert not st.hang[0]
    assert st.points[0].tolist() == [3, 1]
    assert total == {"player_0": 2.0, "player_1": -2.0, "player_2": 2.0, "player_3": -2.0}


def test_hang_jack_points_option():
    # §8 jack_points / hang_jack_points: the hanged jack scores hang_jack_points instead of 3
    env = new_env(make_deck(3, ex7_hands("3C"), kicks="2C"), dealer=3, hang_jack_points=5)
    play(env, "S0:STAND S0:JC S1:QC S2:3C S3:10D")
    play_out(env)
    assert env.game_state.points[0].tolist() == [1, 7]


# ----------------------------------------------------------------------------- example 8
# RULES.md §10 example 8: A captured {AS, 10D, KC, 7S, 2H, JD} = 4+10+3+0+0+1 = 18;
# B captured {10H, 10S, QD, 9C} = 22 -> Game to B. Had both 18 -> nobody (default).
# Dealer S3, trump H (kick 3H); every other card won is worth 0.
EX8_HANDS = {
    0: "AS 10D 2H 5S 7D 5C",
    1: "2S 4D 4C 10S 8D 6C",
    2: "7S JD KC 6S 9D 7C",
    3: "3S 5D 2C 10H QD 9C",
}
EX8_SCRIPT = (
    "S0:STAND S0:AS S1:2S S2:7S S3:3S  S0:10D S1:4D S2:JD S3:5D  S2:KC S3:2C S0:2H S1:4C"
    "  S0:5S S1:{t4} S2:6S S3:10H  S3:{t5} S0:7D S1:8D S2:9D  S3:{t6} S0:5C S1:6C S2:7C"
)


def test_example_8_game_to_larger_total():
    env = new_env(make_deck(3, EX8_HANDS, kicks="3H"), dealer=3)
    st = env.game_state
    play(env, EX8_SCRIPT.format(t4="10S", t5="QD", t6="9C"))
    assert bool(st.done[0])
    assert bits(ids("AS 10D KC 7S 2H JD")) & ~int(st.captured[0, TEAM_A]) == 0
    assert bits(ids("10H 10S QD 9C")) & ~int(st.captured[0, TEAM_B]) == 0
    assert obs_slice(env, "player_0", "game_captured").tolist() == [18, 22]
    assert obs_slice(env, "player_1", "game_captured").tolist() == [22, 18]
    # High 10H (S3) B, Low 2H (S0) A, no jack dealt, Game B
    assert st.items[0].tolist() == [TEAM_B, TEAM_A, -1, TEAM_B]
    assert st.points[0].tolist() == [1, 2]
    assert rewards(env) == [-1.0, 1.0, -1.0, 1.0]


@pytest.mark.parametrize(
    "game_tie, game_team, points",
    [("none", -1, [1, 1]), ("beggar_team", TEAM_A, [2, 1]), ("dealer_team", TEAM_B, [1, 2])],
)
def test_example_8_game_tie(game_tie, game_team, points):
    # both teams capture 18: B wins 10H, AD, AC instead of 10H, 10S, QD, 9C
    hands = dict(EX8_HANDS)
    hands[1] = "2S 4D 4C 8S 8D 6C"
    hands[3] = "3S 5D 2C 10H AD AC"
    env = new_env(make_deck(3, hands, kicks="3H"), dealer=3, game_tie=game_tie)
    st = env.game_state
    play(env, EX8_SCRIPT.format(t4="8S", t5="AD", t6="AC"))
    assert obs_slice(env, "player_0", "game_captured").tolist() == [18, 18]
    assert int(st.items[0, GAME]) == game_team
    assert st.points[0].tolist() == points


# ----------------------------------------------------------------------------- example 9
# RULES.md §10 example 9: before crediting A 13, B 12. Results: High B, Low A, Jack B (1),
# Game B. High -> B 13; Low -> A 14: A wins 14-13; Jack and Game are not credited.
# Second case: A 12, B 13, High B, Hang jack A -> B reaches 14 on High and wins.
EX9A_HANDS = {
    0: "2S 2C 3C 4C 5C 6C",
    1: "AS AC KC QC JC 10C",
    2: "2D 3D 4D 5D 6D 7D",
    3: "JS AD KD QD 10D 9D",
}
EX9A_SCRIPT = (
    "S0:STAND S0:2C S1:AC S2:2D S3:9D  S1:KC S2:3D S3:10D S0:3C  S1:QC S2:4D S3:QD S0:4C"
    "  S1:JC S2:5D S3:KD S0:5C  S1:10C S2:6D S3:AD S0:6C  S1:AS S2:7D S3:JS S0:2S"
)


@pytest.mark.parametrize("reward, expected", [("score", [0.0, 0.0, 0.0, 0.0]), ("win", [1.0, -1.0, 1.0, -1.0])])
def test_example_9_low_wins_the_match_before_jack_and_game(reward, expected):
    env = new_env(make_deck(3, EX9A_HANDS, kicks="3S"), dealer=3, score=[13, 12], episode="match", reward=reward)
    st = env.game_state
    play(env, EX9A_SCRIPT)
    assert bool(st.done[0]) and not bool(st.truncated[0])
    assert st.items[0].tolist() == [TEAM_B, TEAM_A, TEAM_B, TEAM_B]  # the results of the hand
    assert st.score[0].tolist() == [14, 13]
    assert st.points[0].tolist() == [1, 1]
    assert int(st.winner[0]) == TEAM_A
    assert env.terminations == {a: True for a in P}
    assert rewards(env) == expected


def test_example_9_the_summary_shows_only_what_was_credited():
    """Example 9 at the table: A wins 14-13 on Low, so Jack and Game are not credited (§6). The hand's
    summary listed Jack 1 and Game 1 for B (its lines added up to 3 for B, whose hand points are 1)
    and explained them as points to B. Now the state records how many items were credited (2) and
    the summary shows High 1 for B, Low 1 for A, nothing else, and says the last 2 were not credited."""
    env = new_env(make_deck(3, EX9A_HANDS, kicks="3S"), dealer=3, score=[13, 12], episode="match")
    st = env.game_state
    play(env, EX9A_SCRIPT)
    assert int(st.credited[0]) == 2
    summary = env.unwrapped.kernel.table_view(st, 0, 0)["summary"]
    lines = {line["key"]: [int(v) for v in line["values"]] for line in summary["lines"]}
    assert lines == {"high": [0, 1], "low": [1, 0], "jack": [0, 0], "game": [0, 0], "kicks_and_give_one": [0, 0],
                     "game_value": [int(v) for v in st.last_game_value[0]], "hand_points": [1, 1]}
    assert [e["key"] for e in summary["explain"]] == ["af_high", "af_low", "af_not_credited"]
    assert summary["explain"][-1]["args"] == {"team": "A", "n": 2}
    assert summary["result"] == "team_0_wins_match"
    hand = new_env(make_deck(3, EX9A_HANDS, kicks="3S"), dealer=3, score=[13, 12])  # hand mode: all four
    play(hand, EX9A_SCRIPT)
    assert int(hand.game_state.credited[0]) == 4


def test_example_9_same_hand_in_hand_mode_credits_everything():
    env = new_env(make_deck(3, EX9A_HANDS, kicks="3S"), dealer=3, score=[13, 12])
    st = env.game_state
    play(env, EX9A_SCRIPT)
    assert st.points[0].tolist() == [1, 3]
    assert st.score[0].tolist() == [14, 15]
    assert rewards(env) == [-2.0, 2.0, -2.0, 2.0]


def test_example_9_high_ends_the_match_before_hang_jack():
    hands = {
        0: "QS 2C 3C 4C 5C 6C",
        1: "AS 7C 8C 9C 2H 3H",
        2: "2D 3D 4D 5D 6D 7D",
        3: "JS 8D 9D 4H 5H 6H",
    }
    env = new_env(make_deck(3, hands, kicks="3S"), dealer=3, score=[12, 13], episode="match")
    st = env.game_state
    play(
        env,
        "S0:STAND S0:2C S1:AS S2:2D S3:8D  S1:2H S2:3D S3:4H S0:3C  S3:JS S0:QS S1:3H S2:4D"
        "  S0:4C S1:7C S2:5D S3:5H  S1:8C S2:6D S3:6H S0:5C  S1:9C S2:7D S3:9D S0:6C",
    )
    assert int(st.items[0, HIGH]) == TEAM_B
    assert int(st.items[0, JACK]) == TEAM_A and bool(st.hang[0])  # the hanged jack, not credited
    assert st.score[0].tolist() == [12, 14]
    assert st.points[0].tolist() == [0, 1]
    assert int(st.winner[0]) == TEAM_B
    assert rewards(env) == [-1.0, 1.0, -1.0, 1.0]
    # the final infos tell the hand as far as it counted: only High was credited (§6). Low JS (S3, the
    # lowest of QS AS JS), the hanged jack and Game (A captured JS QS = 3, B AS = 4) were not
    last_hand = {
        "trump": "S",
        "high": {"team": "B", "points": 1, "card": "AS", "seat": 1},
        "low": {"team": "B", "points": 0, "card": "JS", "seat": 3},
        "jack": {"team": "A", "points": 0, "card": "JS", "seat": 3, "hang": True},
        "game": {"team": "B", "points": 0, "game_value": [3, 4]},
        "credited": 1,
        "kicks_and_give_one": [0, 0],
        "hand_points": [0, 1],
        "score": [12, 14],
    }
    final = {"phase": "over", "dealer": 3, "trump": "S", "hand_points": [0, 1], "score": [12, 14], "last_hand": last_hand}
    assert all(env.infos[a] == final for a in P)


def test_counting_order_jack_before_game():
    # §6 counting order High, Low, Jack, Game (the order example 9 illustrates): A 11, B 13;
    # S0 holds every spade dealt (AS JS 2S): High, Low and Jack to A reach 14 before B's Game.
    hands = {
        0: "AS JS 2S 2C 3C 4C",
        1: "AD KD QD KC 5H 4H",
        2: "2D 3D 4D 5D 6D 7D",
        3: "6H 7H 8H 8D 9D 9H",
    }
    script = (
        "S0:STAND S0:AS S1:5H S2:2D S3:6H  S0:JS S1:4H S2:3D S3:7H  S0:2C S1:KC S2:4D S3:8H"
        "  S1:AD S2:5D S3:8D S0:3C  S1:KD S2:6D S3:9D S0:4C  S1:QD S2:7D S3:9H S0:2S"
    )
    env = new_env(make_deck(3, hands, kicks="3S"), dealer=3, score=[11, 13], episode="match")
    st = env.game_state
    play(env, script)
    assert obs_slice(env, "player_0", "game_captured").tolist() == [7, 10]
    assert st.items[0].tolist() == [TEAM_A, TEAM_A, TEAM_A, TEAM_B]
    assert st.score[0].tolist() == [14, 13]
    assert int(st.winner[0]) == TEAM_A
    assert st.points[0].tolist() == [3, 0]
    # in hand mode every item is credited
    env = new_env(make_deck(3, hands, kicks="3S"), dealer=3, score=[11, 13])
    play(env, script)
    assert env.game_state.points[0].tolist() == [3, 1]


# ----------------------------------------------------------------------------- example 10
def test_example_10_single_trump_scores_high_low_and_jack():
    # RULES.md §10 example 10: trump D (kick 5D); the only diamond in the 24 dealt cards is
    # JD held by S3 -> B: High 1 + Low 1 + Jack 1 = 3. (JD, the only count card dealt,
    # also wins B the Game here.)
    hands = {
        1: "2C 3C 4C 5C 6C 7C",
        2: "8C 9C 2H 3H 4H 5H",
        3: "JD 6H 7H 8H 9H 2S",
        0: "3S 4S 5S 6S 7S 8S",
    }
    env = new_env(make_deck(0, hands, kicks="5D"), dealer=0)
    st = env.game_state
    assert st.points[0].tolist() == [0, 0]
    play(env, "S1:STAND")
    _, total = play_out(env)
    assert st.items[0].tolist() == [TEAM_B, TEAM_B, TEAM_B, TEAM_B]
    assert not st.hang[0]
    assert st.points[0].tolist() == [0, 4]
    assert total == {"player_0": -4.0, "player_1": 4.0, "player_2": -4.0, "player_3": 4.0}


# ----------------------------------------------------------------------------- example 11
def test_example_11_kicked_card_not_dealt_low_goes_to_original_holder():
    # RULES.md §10 example 11: kick AH -> dealer's team +1. Dealt trumps: KH (S2), 7H (S0),
    # 3H (S1). High -> A (KH); Low -> B (3H), even if S0 captures it.
    # Dealer S2 (team A), beggar S3 leads 2C; S0 trumps with 7H, S1 undertrumps 3H.
    hands = {
        3: "2C 4D 5D 6D 7D 8D",
        0: "7H 2S 3S 4S 5S 6S",
        1: "3H 9D 7S 8S 9S 4C",
        2: "3C KH 5C 6C 7C 8C",
    }
    env = new_env(make_deck(2, hands, kicks="AH"), dealer=2)
    st = env.game_state
    assert st.points[0].tolist() == [1, 0]
    play(env, "S3:STAND S3:2C S0:7H S1:3H S2:3C")
    assert env.agent_selection == "player_0"
    assert int(st.captured[0, TEAM_A]) & (1 << cid("3H"))
    _, total = play_out(env)
    # High KH A, Low 3H B, no jack dealt, Game A (KH, the only count card, is the top trump left)
    assert st.items[0].tolist() == [TEAM_A, TEAM_B, -1, TEAM_A]
    assert st.points[0].tolist() == [3, 1]
    assert total == {"player_0": 2.0, "player_1": -2.0, "player_2": 2.0, "player_3": -2.0}


# ----------------------------------------------------------------------------- example 12
# RULES.md §10 example 12: dealer S1: kick 6C -> B +2; S2 begs, S1 gives one -> A +1. End:
# High A, Low B, Jack A (1), Game B. A = 1+1+1 = 3, B = 2+1+1 = 4 -> rewards A -1, B +1.
EX12_HANDS = {
    2: "AC JC 2D 3D 4D 5D",
    3: "AD KD QD 10D 2S 3S",
    0: "6D 7D 8D 9D 4S 5S",
    1: "2C 6H 7H 8H 9H 6S",
}
EX12_PLAY = (
    "S2:AC S3:2S S0:4S S1:2C  S2:JC S3:3S S0:5S S1:6S  S2:2D S3:AD S0:6D S1:6H"
    "  S3:KD S0:7D S1:7H S2:3D  S3:QD S0:8D S1:8H S2:4D  S3:10D S0:9D S1:9H S2:5D"
)


def test_example_12_hand_reward():
    env = new_env(make_deck(1, EX12_HANDS, kicks="6C"), dealer=1)
    st = env.game_state
    assert st.points[0].tolist() == [0, 2]
    play(env, "S2:BEG S1:GIVE_ONE")
    assert st.points[0].tolist() == [1, 2]
    play(env, EX12_PLAY)
    assert st.items[0].tolist() == [TEAM_A, TEAM_B, TEAM_A, TEAM_B]
    assert not st.hang[0]
    assert st.points[0].tolist() == [3, 4]
    assert rewards(env) == [-1.0, 1.0, -1.0, 1.0]
    assert env.terminations == {a: True for a in P}
    assert env.infos["player_2"]["hand_points"] == [3, 4]


def test_example_12_in_match_mode_the_deal_passes_right():
    # §1: next dealer = (d+1) mod 4; match score carries on; the hand's reward is paid at its end.
    env = new_env(make_deck(1, EX12_HANDS, kicks="6C"), dealer=1, episode="match", seed=3)
    st = env.game_state
    play(env, "S2:BEG S1:GIVE_ONE " + EX12_PLAY)
    assert rewards(env) == [-1.0, 1.0, -1.0, 1.0]
    assert not st.done[0]
    assert int(st.dealer[0]) == 2 and int(st.hands_played[0]) == 1
    kick = int(st.stock[0, 24])
    kp = KICK_TRINIDAD.get(kick % 13, 0)
    assert st.points[0].tolist() == [kp, 0]  # the new hand: S2's kick scores for A
    assert st.score[0].tolist() == [3 + kp, 4]
    assert int(st.phase[0]) == BEG_DECISION
    assert env.agent_selection == "player_3"
    assert all(len(h) == 6 for h in env.hands.values())


def test_example_12_in_a_match_every_agent_is_told_the_scored_hand_in_infos():
    """RULES.md §7 (our decision: the spec names no infos): in a match the step of a hand's last card
    deals the next hand, so the observation no longer shows the scored hand; the AEC env gives every
    agent ``infos`` with ``last_hand`` at that step. Before, infos stayed {} until the match ended.
    Example 12's hand, worked out from its cards (trump clubs; dealer S1 kicked 6C, S2 begged, S1 gave one):
    High AC dealt to S2 -> A 1; Low 2C dealt to S1 -> B 1; Jack JC dealt to S2, who won its trick
    (S2:JC S3:3S S0:5S S1:6S) -> A 1; Game: A captured AC 2S 4S 2C + JC 3S 5S 6S = 4 + 1 = 5, B the four
    diamond tricks AD KD QD 10D = 4 + 3 + 2 + 10 = 19 -> B 1. Kicks and give-one: A 1 (give one),
    B 2 (6C). Hand A 3, B 4; match 3-4. Then S2 deals the second hand (seed 2): kick 6S, spades, +2 to
    A at once, so the current hand's points are 2-0 and the match score 5-4."""
    env = new_env(make_deck(1, EX12_HANDS, kicks="6C"), dealer=1, episode="match", seed=2)
    play(env, "S2:BEG S1:GIVE_ONE " + EX12_PLAY[: EX12_PLAY.rindex("S2:5D")])
    assert all(env.infos[a] == {} for a in P)  # nothing before the hand is scored
    play(env, "S2:5D")
    st = env.game_state
    assert not st.done[0] and cards_of(st.kicked[0]) == [cid("6S")]  # the second hand, dealt in this step
    expected = {
        "phase": "beggar decides (stand/beg)",
        "dealer": 2,
        "trump": "S",
        "hand_points": [2, 0],
        "score": [5, 4],
        "last_hand": {
            "trump": "C",
            "high": {"team": "A", "points": 1, "card": "AC", "seat": 2},
            "low": {"team": "B", "points": 1, "card": "2C", "seat": 1},
            "jack": {"team": "A", "points": 1, "card": "JC", "seat": 2, "hang": False},
            "game": {"team": "B", "points": 1, "game_value": [5, 19]},
            "credited": 4,
            "kicks_and_give_one": [1, 2],
            "hand_points": [3, 4],
            "score": [3, 4],
        },
    }
    assert {a: env.infos[a] for a in P} == {a: expected for a in P}
    play(env, "S3:STAND")  # kept while the next hand is played
    assert all(env.infos[a] == expected for a in P)


# ----------------------------------------------------------------------------- other §3/§4/§8 facts
def test_give_one_can_end_the_match_and_option_forbids_it():
    # §9.13 / §8 forbid_game_ending_give_one: A at 13, beggar S2 (team A), dealer S1.
    deck = make_deck(1, kicks="9H")
    env = new_env(deck, dealer=1, score=[13, 0], episode="match")
    play(env, "S2:BEG S1:GIVE_ONE")
    st = env.game_state
    assert bool(st.done[0]) and int(st.winner[0]) == TEAM_A and st.score[0].tolist() == [14, 0]
    assert rewards(env) == [1.0, -1.0, 1.0, -1.0]
    env = new_env(deck, dealer=1, score=[13, 0], episode="match", forbid_game_ending_give_one=True)
    play(env, "S2:BEG")
    assert legal_names(env) == {"RUN"}
    env = new_env(deck, dealer=1, score=[12, 0], episode="match", forbid_game_ending_give_one=True)
    play(env, "S2:BEG")
    assert legal_names(env) == {"GIVE_ONE", "RUN"}
    # a hand episode at that score has the same legal moves (§4), but the hand is played out (§6)
    env = new_env(deck, dealer=1, score=[13, 0], forbid_game_ending_give_one=True)
    play(env, "S2:BEG")
    assert legal_names(env) == {"RUN"}
    env = new_env(deck, dealer=1, score=[13, 0])
    play(env, "S2:BEG S1:GIVE_ONE")
    st = env.game_state
    assert not bool(st.done[0]) and st.score[0].tolist() == [14, 0] and int(st.winner[0]) == -1
    assert legal_names(env) == {env.action_name(c) for c in env.hands["player_2"]}  # S2 leads the first trick


def test_run_kick_can_end_the_match():
    # §3.4 / §4: every kick scores at once; B (dealer S3) at 11 turns JH on the first run.
    env = new_env(make_deck(3, kicks="4S JH"), dealer=3, score=[0, 11], episode="match")
    play(env, "S0:BEG S3:RUN")
    st = env.game_state
    assert bool(st.done[0]) and int(st.winner[0]) == TEAM_B
    assert st.score[0].tolist() == [0, 14]
    assert rewards(env) == [-3.0, 3.0, -3.0, 3.0]


@pytest.mark.parametrize(
    "kick, trinidad, tobago", [("6C", 2, 0), ("2C", 0, 2), ("JC", 3, 3), ("AC", 1, 1), ("KC", 0, 0)]
)
def test_kick_points_tables(kick, trinidad, tobago):
    # §2 kick points (A 1, 6 2, J 3) and §8 kick_points="tobago" (A 1, 2 2, J 3); dealer S0 = team A
    for option, pts in (("trinidad", trinidad), ("tobago", tobago)):
        env = new_env(make_deck(0, kicks=kick), dealer=0, kick_points=option)
        assert env.game_state.points[0].tolist() == [pts, 0]


def test_max_redeals_truncates_the_episode():
    # §11.2: reaching max_redeals truncates with rewards 0 and says why in the info
    env = new_env(make_deck(3, kicks="4S AS 9S"), dealer=3, max_redeals=1)
    play(env, "S0:BEG S3:RUN")
    st = env.game_state
    assert bool(st.done[0]) and bool(st.truncated[0])
    assert env.truncations == {a: True for a in P}
    assert rewards(env) == [0.0] * 4
    assert "max_redeals" in env.infos["player_0"]["truncation"]


def test_max_hands_truncates_the_match_with_reward_0():
    # RULES.md §6: "Safety caps: max_redeals per hand and max_hands per match -> truncation with
    # reward 0". Example 12's hand played as a match capped at one hand.
    env = new_env(make_deck(1, EX12_HANDS, kicks="6C"), dealer=1, episode="match", max_hands=1)
    play(env, "S2:BEG S1:GIVE_ONE " + EX12_PLAY)
    st = env.game_state
    assert bool(st.done[0]) and bool(st.truncated[0]) and int(st.winner[0]) == -1
    assert st.score[0].tolist() == [3, 4]
    assert env.truncations == {a: True for a in P}
    assert rewards(env) == [0.0] * 4
    assert env.infos["player_0"]["truncation"] == "max_hands=1 reached"


# ----------------------------------------------------------------------------- §6 edge cases beyond §10
def test_no_trump_dealt_scores_only_game():
    # RULES.md §6: "No trump dealt: no High, Low or Jack." Kick 4S (dealer S3, team B, no kick
    # points); every other spade stays in the stock, so no trump is in any hand. The Game is
    # still scored: B's 8C..KC and 8D..KD hold 2 x (10 + 1 + 2 + 3) = 32, A's 2-7 hold 0.
    hands = {0: "2C 3C 4C 5C 6C 7C", 1: "8C 9C 10C JC QC KC", 2: "2D 3D 4D 5D 6D 7D", 3: "8D 9D 10D JD QD KD"}
    env = new_env(make_deck(3, hands, kicks="4S"), dealer=3)
    st = env.game_state
    play(env, "S0:STAND")
    steps, total = play_out(env)
    assert steps == 24
    assert st.items[0].tolist() == [-1, -1, -1, TEAM_B]
    assert not st.hang[0]
    assert obs_slice(env, "player_0", "game_captured").tolist() == [0, 32]
    assert st.points[0].tolist() == [0, 1]
    assert total == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}


def test_single_trump_that_is_not_the_jack_scores_high_and_low_only():
    # RULES.md §6: "One trump dealt: its team scores High and Low." Kick 5D; 9D (S2, team A) is
    # the only diamond dealt and JD is in the stock: no Jack. No count card is dealt, so the Game
    # is 0-0 and nobody scores it (default game_tie="none").
    hands = {1: "2C 3C 4C 5C 6C 7C", 2: "9D 8C 9C 2H 3H 4H", 3: "5H 6H 7H 8H 9H 2S", 0: "3S 4S 5S 6S 7S 8S"}
    env = new_env(make_deck(0, hands, kicks="5D"), dealer=0)
    st = env.game_state
    play(env, "S1:STAND")
    _, total = play_out(env)
    assert st.items[0].tolist() == [TEAM_A, TEAM_A, -1, -1]
    assert obs_slice(env, "player_0", "game_captured").tolist() == [0, 0]
    assert st.points[0].tolist() == [2, 0]
    assert total == {"player_0": 2.0, "player_1": -2.0, "player_2": 2.0, "player_3": -2.0}


def test_run_cards_count_for_high_low_and_jack():
    # RULES.md §6: "'Dealt' means in a hand (6, 9 or 12 cards)." Dealer S3; kick 4S, S0 begs, S3
    # runs: kick 2 = 2H (another suit: hearts are trump, 9 cards each). The only hearts dealt come
    # with the run: AH (S1), 3H (S2), JH (S3). High -> B (AH), Low -> A (3H), and JH can only meet
    # AH, its partner's card, so B scores Jack (1), not Hang jack. The kicked 2H counts for nothing.
    hands = {
        0: "2C 3C 4C 2D 3D 4D 5C 6C 7C",
        1: "5D 6D 7D 8D 9D 2S AH 3S 5S",
        2: "8C 9C 6S 7S 8S 9S 3H 10C JC",
        3: "QC KC AC 10D JD QD JH KD AD",
    }
    env = new_env(make_deck(3, hands, kicks="4S 2H"), dealer=3)
    st = env.game_state
    play(env, "S0:BEG S3:RUN")
    assert int(st.trump[0]) == H and int(st.hand_size[0]) == 9 and st.points[0].tolist() == [0, 0]
    assert {"AH", "3H", "JH"} <= hand_names(env, 1) | hand_names(env, 2) | hand_names(env, 3)
    steps, total = play_out(env)
    assert steps == 36
    assert st.items[0, :3].tolist() == [TEAM_B, TEAM_A, TEAM_B]
    assert not st.hang[0]
    gv = obs_slice(env, "player_0", "game_captured").tolist()
    # 45 Game points are dealt (AH, JH, S2's 10C JC, S3's court cards); the lowest-card play-out
    # gives A 8 and B 37
    assert gv == [8, 37]
    assert int(st.items[0, GAME]) == TEAM_B
    assert st.points[0].tolist() == [1, 3]
    assert total == {"player_0": -2.0, "player_1": 2.0, "player_2": -2.0, "player_3": 2.0}


def test_rejected_third_kick_can_end_the_match_before_exhaustion():
    # RULES.md §4 / §9.5: every kick scores, a same-suit re-kick too, at once (§3.4). Dealer S3
    # (B) at 10: kick 4S (0), S0 begs, S3 runs: AS (+1, spades again, set aside), then JS (+3,
    # spades again): B reaches 14 on the third kick and wins; the exhausted pack is not redealt.
    env = new_env(make_deck(3, kicks="4S AS JS"), dealer=3, score=[0, 10], episode="match")
    st = env.game_state
    play(env, "S0:BEG S3:RUN")
    assert bool(st.done[0]) and not bool(st.truncated[0]) and int(st.winner[0]) == TEAM_B
    assert st.score[0].tolist() == [0, 14] and st.points[0].tolist() == [0, 4]
    assert int(st.redeals[0]) == 0
    assert rewards(env) == [-4.0, 4.0, -4.0, 4.0]
    # with score_rejected_kicks=False neither AS nor JS scores: the pack is exhausted and redealt
    env = new_env(make_deck(3, kicks="4S AS JS"), dealer=3, score=[0, 10], episode="match", seed=1,
                  score_rejected_kicks=False)
    st = env.game_state
    play(env, "S0:BEG S3:RUN")
    assert not bool(st.done[0]) and int(st.redeals[0]) == 1
    kick = int(st.stock[0, 24])
    assert st.score[0].tolist() == [0, 10 + KICK_TRINIDAD.get(kick % 13, 0)]


def test_exhaustion_in_a_match_keeps_the_dealer_and_the_hand():
    # RULES.md §4: after an exhausted pack "the same dealer deals a new hand"; it is still the same
    # hand of the match (the deal passes on only after a hand is played out, §1).
    env = new_env(make_deck(3, kicks="4S AS 9S"), dealer=3, score=[5, 6], episode="match", seed=2)
    st = env.game_state
    play(env, "S0:BEG S3:RUN")
    assert int(st.dealer[0]) == 3 and int(st.hands_played[0]) == 0 and int(st.redeals[0]) == 1
    assert int(st.phase[0]) == BEG_DECISION and env.agent_selection == "player_0"
    kick = int(st.stock[0, 24])
    kp = KICK_TRINIDAD.get(kick % 13, 0)
    assert st.points[0].tolist() == [0, 1 + kp] and st.score[0].tolist() == [5, 7 + kp]
    assert rewards(env) == [0.0] * 4  # nothing is paid before the hand is played out


@pytest.mark.parametrize("reward", ["score", "win"])
def test_match_won_on_the_next_deals_kick_pays_both_hands(reward):
    # RULES.md §6 Rewards / §11.4: example 12's hand played in a match from A 10, B 9 ends 13-13
    # (A 3, B 4: difference -1 for A); the deal passes to S2 (team A), whose kick scores at once
    # (§3.4). When it scores, A reaches the target inside the same step: the finished hand's -1 and
    # the new hand's kick points are paid together (reward="score"), or +1/-1 (reward="win").
    for seed in range(200):  # a shuffle whose next kick is a six or a jack (an ace would pay 1 - 1 = 0)
        env = new_env(make_deck(1, EX12_HANDS, kicks="6C"), dealer=1, score=[10, 9], episode="match",
                      seed=seed, reward=reward)
        play(env, "S2:BEG S1:GIVE_ONE " + EX12_PLAY)
        st = env.game_state
        kp = KICK_TRINIDAD.get(int(st.stock[0, 24]) % 13, 0)
        if kp >= 2:
            break
    assert kp in (2, 3)
    assert int(st.dealer[0]) == 2 and st.points[0].tolist() == [kp, 0]
    assert st.score[0].tolist() == [13 + kp, 13]
    assert bool(st.done[0]) and int(st.winner[0]) == TEAM_A
    assert env.terminations == {a: True for a in P}
    v = float(kp - 1) if reward == "score" else 1.0
    assert rewards(env) == [v, -v, v, -v]


# ----------------------------------------------------------------------------- the batch kernel API
# The same worked examples through ``envs.kernel("all_fours")`` (init hooks deck/dealer/score,
# legal_actions, step, rewards): the numbers are the spec's (§10 examples 1, 3, 9, 12).
def _kernel_game(deck, dealer, score=None, **options):
    import numpy as np

    from cardzoo import envs

    k = envs.kernel("all_fours", **options)
    rng = np.random.default_rng(0)
    hooks = {"deck": deck, "dealer": dealer}
    if score is not None:
        hooks["score"] = score
    return k, k.init(rng, 1, **hooks), rng


def _kernel_play(k, st, rng, script):
    import numpy as np

    total = np.zeros(4)
    for tok in script.split():
        seat, act = tok.split(":")
        assert int(st.current_player[0]) == int(seat[1:]), tok
        a = k.action_id(act) if hasattr(k, "action_id") else next(
            i for i in range(56) if k.action_name(i) == act)
        assert k.legal_actions(st)[0, a], tok
        k.step(st, np.array([a]), rng)
        total += st.rewards[0]
    return total.tolist()


def test_kernel_api_example_1_kick_at_11_wins_the_match():
    # §10 example 1: dealer S0, A at 11, kick JD: A reaches 14 and wins before S1 acts.
    k, st, _ = _kernel_game(make_deck(0, EX1_HANDS, kicks="JD"), 0, score=[11, 0], episode="match")
    assert bool(st.done[0]) and int(st.winner[0]) == TEAM_A
    assert st.score[0].tolist() == [14, 0] and int(st.trump[0]) == D
    assert not k.legal_actions(st)[0].any()


def test_kernel_api_example_3_run_with_a_rekick():
    # §10 example 3: kick 4S (0), S0 BEG, S3 RUN: AS -> B +1 (set aside), 6H -> B +2, trump H,
    # 12 cards each, S0 leads.
    k, st, rng = _kernel_game(make_deck(3, kicks="4S AS 6H", last="KH"), 3)
    _kernel_play(k, st, rng, "S0:BEG S3:RUN")
    assert st.points[0].tolist() == [0, 3]
    assert int(st.trump[0]) == H and int(st.hand_size[0]) == 12
    assert [len(cards_of(h)) for h in st.hands[0]] == [12, 12, 12, 12]
    assert int(st.current_player[0]) == 0
    assert not any(int(h) & (1 << cid("KH")) for h in st.hands[0])


def test_kernel_api_example_9_low_wins_the_match():
    # §10 example 9: A 13, B 12; High B -> B 13; Low A -> A 14: A wins 14-13.
    k, st, rng = _kernel_game(make_deck(3, EX9A_HANDS, kicks="3S"), 3, score=[13, 12], episode="match")
    _kernel_play(k, st, rng, EX9A_SCRIPT)
    assert bool(st.done[0]) and int(st.winner[0]) == TEAM_A
    assert st.score[0].tolist() == [14, 13]


def test_kernel_api_example_12_hand_reward():
    # §10 example 12: kick 6C -> B +2; S2 BEG, S1 GIVE_ONE -> A +1; A = 3, B = 4 -> A -1, B +1.
    k, st, rng = _kernel_game(make_deck(1, EX12_HANDS, kicks="6C"), 1)
    assert st.points[0].tolist() == [0, 2]
    total = _kernel_play(k, st, rng, "S2:BEG S1:GIVE_ONE " + EX12_PLAY)
    assert st.points[0].tolist() == [3, 4]
    assert st.items[0].tolist() == [TEAM_A, TEAM_B, TEAM_A, TEAM_B]
    assert total == [-1.0, 1.0, -1.0, 1.0]
    assert bool(st.done[0])


# ----------------------------------------------------------------------------- undertrump: more cases of §5
# Audit additions (spec §5 table and undertrump paragraph): the undertrump ban is measured against the
# HIGHEST trump already in the trick, it also binds a player void in the suit led (who may otherwise play
# anything), and it never touches a trump lead (L = T, where only "trumps only" applies).
UNDERTRUMP_HANDS = {
    0: "2C 7C QC QH 7D 8D",  # after the club tricks {QH, 7D, 8D}: void in spades
    1: "3C 8C KC 5S 2D 3D",
    2: "4C 9C 10C 9H 4D 5D",
    3: "5C 6C JC 4H KH 9D",  # after the club tricks {4H, KH, 9D}: void in spades
}
CLUB_TRICKS = "S0:STAND S0:2C S1:3C S2:4C S3:5C  S3:6C S0:7C S1:8C S2:9C  S2:10C S3:JC S0:QC S1:KC"


@pytest.mark.parametrize(
    "undertrump, s3_legal, s0_legal",
    [("allowed", {"4H", "KH", "9D"}, {"QH", "7D", "8D"}), ("forbidden", {"KH", "9D"}, {"7D", "8D"})],
)
def test_undertrump_ban_binds_a_player_void_in_the_suit_led(undertrump, s3_legal, s0_legal):
    """Trump H (kick 3H, dealer S3, beggar S0 leads). Three club tricks: 2C 3C 4C 5C -> S3 (5C),
    6C 7C 8C 9C -> S2 (9C), 10C JC QC KC -> S1 (KC), who leads 5S; S2 (no spades) trumps with 9H.

    S3 holds {4H, KH, 9D}, no spade. Spec §5: L != T and void in L -> any card; with
    undertrump="forbidden" a trump below the highest trump in the trick (9H) is illegal unless every
    card held is a trump -> 4H is out, KH (overtrump) and 9D stay: {KH, 9D}. Default: all three.
    S3 plays KH. S0 holds {QH, 7D, 8D}, no spade: the highest trump is now KH, so QH (above 9H but
    below KH) is an undertrump: forbidden -> {7D, 8D}; default -> all three."""
    env = new_env(make_deck(3, UNDERTRUMP_HANDS, kicks="3H"), dealer=3, undertrump=undertrump)
    play(env, CLUB_TRICKS + "  S1:5S S2:9H")
    assert env.agent_selection == "player_3"
    assert hand_names(env, 3) == {"4H", "KH", "9D"}
    assert legal_names(env) == s3_legal
    play(env, "S3:KH")
    assert env.agent_selection == "player_0"
    assert hand_names(env, 0) == {"QH", "7D", "8D"}
    assert legal_names(env) == s0_legal
    play(env, "S0:7D")
    # the trick: 5S (S1), 9H (S2), KH (S3), 7D (S0) -> the highest trump, KH, wins: S3 leads next
    assert env.agent_selection == "player_3"


@pytest.mark.parametrize("undertrump", ["allowed", "forbidden"])
def test_undertrump_ban_does_not_apply_to_a_trump_lead(undertrump):
    """Trump H. After the same three club tricks S1 leads the trump 8H and S2 plays AH. S3 holds
    {4H, 9D, 8S}. Spec §5: L = T and holding a trump -> trumps only: {4H}, under either rule (the
    undertrump ban is for L != T only; 4H is below AH but it is S3's only legal card)."""
    hands = {
        0: "2C 7C QC 6D 7D 8D",
        1: "3C 8C KC 8H 2D 3D",
        2: "4C 9C 10C AH 4D 5D",
        3: "5C 6C JC 4H 9D 8S",
    }
    env = new_env(make_deck(3, hands, kicks="3H"), dealer=3, undertrump=undertrump)
    play(env, CLUB_TRICKS + "  S1:8H S2:AH")
    assert env.agent_selection == "player_3"
    assert hand_names(env, 3) == {"4H", "9D", "8S"}
    assert legal_names(env) == {"4H"}
