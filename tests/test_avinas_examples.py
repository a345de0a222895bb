"""Every worked example of RULES.md §10 with its exact numbers, plus the decisions of §9/§11."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.avinas.constants import CALLING, DECLARING, KNOCKING, NO_SEVENS, PLAY, SEVENS, STOPPING

from avinas_util import (
    P,
    act,
    cards_of,
    cid,
    craft,
    legal_names,
    make_deck,
    name,
    new_env,
    obs_slice,
    play,
    team_rewards,
)

E1_KEY = {1: "9S 7D", 2: "7C KH", 3: "AH TC", 0: "QD 8S"}


def shown(env, viewer: int, rel: str) -> set[str]:
    return {name(c) for c in np.flatnonzero(obs_slice(env, P[viewer], f"shown[{rel}]"))}


# ---------------------------------------------------------------- E1 exposure and declarer
def test_e1_exposure_sevens_game_declarer_and_trumps():
    env = new_env(make_deck(0, key=E1_KEY), dealer=0)
    st = env.game_state
    assert st.game[0] == SEVENS and st.phase[0] == KNOCKING
    assert st.declarer[0] == 1 and "CDHS"[st.trump[0]] == "D"
    assert env.agent_selection == "player_1"  # the declarer decides on knocking first
    public = {c: s for s, cs in env.known_cards.items() for c in cs}
    # public: 9S, 7D (seat 1), 7C (seat 2), AH, TC (seat 3); the dealer also saw KH (seat 2)
    assert {name(c) for c in cards_of(st.exposed[0])} == {"9S", "7D", "7C", "AH", "10C"}
    assert {name(c) for c in cards_of(st.dealer_seen[0])} == {"QD", "KH", "8S"}
    assert public[cid("KH")] == "player_2" and public[cid("7C")] == "player_2"
    # every seat sees the exposed cards; only the dealer sees KH
    for v in range(4):
        seen1 = shown(env, v, ["me", "next", "partner", "previous"][(1 - v) % 4])
        assert seen1 == {"9S", "7D"}
        seen2 = shown(env, v, ["me", "next", "partner", "previous"][(2 - v) % 4])
        assert seen2 == ({"7C", "KH"} if v == 0 else {"7C"})
        seen3 = shown(env, v, ["me", "next", "partner", "previous"][(3 - v) % 4])
        assert seen3 == {"AH", "10C"}
    # seat 2 (the partner) knows the dealer saw his KH; nobody else is told which card
    assert {name(c) for c in np.flatnonzero(obs_slice(env, "player_2", "seen_by_dealer"))} == {"KH"}
    for v in (0, 1, 3):
        assert not obs_slice(env, P[v], "seen_by_dealer").any()
    # QD and 8S (the dealer's own) are seen by nobody else
    for v in (1, 2, 3):
        allseen = set()
        for r in ("me", "next", "partner", "previous"):
            allseen |= shown(env, v, r)
        assert not allseen & {"QD", "8S"}


def test_e1_variant_last_exposed_seven_is_the_dealers_eighth():
    key = dict(E1_KEY)
    key[3] = "7S TC"
    key[0] = "QD 7H"
    env = new_env(make_deck(0, key=key), dealer=0)
    st = env.game_state
    assert st.game[0] == SEVENS and st.declarer[0] == 0 and "CDHS"[st.trump[0]] == "H"
    assert {name(c) for c in cards_of(st.exposed[0])} == {"9S", "7D", "7C", "7S", "10C", "7H"}


def test_no_seven_among_key_cards_is_the_no_sevens_game():
    env = new_env(make_deck(2, key={3: "9S 8D", 0: "AC KH", 1: "QS JD", 2: "TD 8C"}), dealer=2)
    st = env.game_state
    assert st.game[0] == NO_SEVENS and st.phase[0] == CALLING and st.trump[0] == -1
    assert env.agent_selection == "player_3"  # calls start at the dealer's left
    assert legal_names(env) == {"PASS"} | {f"CALL_{n}" for n in range(1, 9)}


# ---------------------------------------------------------------- E2-E4 tricks and following
def test_e2_trick_winner_seven_of_trumps_beats_a_jack():
    env = new_env(seed=1)
    craft(env, game="sevens", trump="H", declarer=1, leader=1, tricks_done=3, points=(0, 0), tricks_won=(1, 2),
          hands={1: "AS 8C", 2: "TS 9C", 3: "JD 8D", 0: "7H KD"})
    play(env, "S1:AS S2:TS S3:JD S0:7H")
    st = env.game_state
    assert st.points[0].tolist() == [23, 0]
    assert st.tricks_won[0].tolist() == [2, 2]
    assert env.agent_selection == "player_0"  # the winner leads next


def test_e3_following_a_plain_suit_queens_are_not_hearts():
    for hand, expect in (("QH 8S AD", {"QH", "8S", "AD"}), ("QH 9H 8S", {"9H"})):
        env = new_env(seed=2)
        craft(env, game="sevens", trump="C", declarer=0, leader=0, tricks_done=5,
              hands={0: "KH 8D 9D", 1: hand, 2: "TC JD 7D", 3: "8H AC 9S"})
        act(env, "S0:KH")
        assert legal_names(env) == expect


def test_e4_following_a_trump_lead():
    for hand, expect in (("QC AH TH", {"QC"}), ("AH 7D", {"AH", "7D"})):
        env = new_env(seed=3)
        cards = hand.split()
        others = [c for c in ["9D", "8D", "KD", "AD", "TD", "9C", "8C"] if c not in cards]
        craft(env, game="sevens", trump="S", declarer=0, leader=0, tricks_done=8 - len(cards),
              hands={0: " ".join(["8S"] + others[: len(cards) - 1]), 1: hand,
                     2: " ".join(others[2 : 2 + len(cards)]), 3: " ".join(["9S", "JS", "KS"][: len(cards)])})
        act(env, "S0:8S")
        assert legal_names(env) == expect


# ---------------------------------------------------------------- E5 face-down lead
def e5_env(**options):
    # E5 names only seat 2's full hand; the others hold what the example says (a partial position)
    env = new_env(seed=4, **options)
    craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=1, tricks_won=(1, 0),
          hands={2: "AS TD 9C 8C KC 7S 8D", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"})
    return env


def test_e5_face_down_lead_signal_following_and_winner():
    env = e5_env()
    legal = legal_names(env)
    assert len(legal) == 14
    assert legal == {c for c in "AS 10D 9C 8C KC 7S 8D".split()} | {f"FD_{c}" for c in "AS 10D 9C 8C KC 7S 8D".split()}
    act(env, "S2:FD_AS")
    # the partner (seat 0) alone receives "valuable"
    assert obs_slice(env, "player_0", "signal").tolist() == [1, 0]
    for v in (1, 2, 3):
        assert obs_slice(env, P[v], "signal").tolist() == [0, 0]
    # the card is known only to its leader until the trick ends
    as_id = cid("AS")
    for v in (0, 1, 3):
        o = env.observe(P[v])["observation"]
        lay = env.kernel.obs_layout
        for sl in ("trick", "played_by[me]", "played_by[next]", "played_by[partner]", "played_by[previous]"):
            assert o[lay[sl]][as_id] == 0, (v, sl)
        assert obs_slice(env, P[v], "facedown_leader")[(2 - v) % 4] == 1
    assert obs_slice(env, "player_2", "trick")[as_id] == 1
    assert legal_names(env) == {"9H"}
    act(env, "S3:9H")
    assert legal_names(env) == {"JS"}
    act(env, "S0:JS")
    assert legal_names(env) == {"7D", "9D", "10S"}
    act(env, "S1:7D")
    st = env.game_state
    assert st.points[0].tolist() == [13, 0]
    assert env.agent_selection == "player_0"  # JS won
    for v in range(4):  # revealed to everyone
        assert obs_slice(env, P[v], f"played_by[{['me', 'next', 'partner', 'previous'][(2 - v) % 4]}]")[as_id] == 1
        assert not obs_slice(env, P[v], "signal").any()


def test_face_down_signal_options():
    env = e5_env(valuable_min_points=12)
    act(env, "S2:FD_AS")
    assert obs_slice(env, "player_0", "signal").tolist() == [0, 1]  # 11 < 12: not valuable
    env = e5_env()
    act(env, "S2:FD_8D")
    assert obs_slice(env, "player_0", "signal").tolist() == [0, 1]
    env = e5_env(facedown_signal="none")
    act(env, "S2:FD_AS")
    assert not obs_slice(env, "player_0", "signal").any()
    assert env.agent_selection == "player_3"
    env = e5_env(facedown_signal="free")
    act(env, "S2:FD_8D")
    assert env.agent_selection == "player_2"
    assert legal_names(env) == {"SIGNAL_VALUABLE", "SIGNAL_NOT_VALUABLE"}
    act(env, "S2:SIGNAL_VALUABLE")  # a bluff is allowed
    assert obs_slice(env, "player_0", "signal").tolist() == [1, 0]
    assert not obs_slice(env, "player_1", "signal").any() and not obs_slice(env, "player_3", "signal").any()
    assert env.agent_selection == "player_3"
    # what the log of a terminal or web table tells each seat (Kernel.announce): the partner the bit
    k, st, sig = env.unwrapped.kernel, env.game_state, env.unwrapped.action_id("SIGNAL_VALUABLE")
    told = [k.announce(st, st, sig, 2, v) for v in range(4)]
    assert told == [["player_2 signals SIGNAL_VALUABLE to you"], ["player_2 makes a hidden move"], [],
                    ["player_2 makes a hidden move"]]
    assert k.announce(st, st, env.unwrapped.action_id("FD_8D"), 2, 0) is None  # other moves: the default lines


def test_trick2_leader_with_a_trump_must_lead_one_and_later_leads_are_free():
    env = new_env(seed=5)
    craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=1, tricks_won=(1, 0),
          hands={2: "AS TD 9C 8C KC 7S QD", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"})
    assert legal_names(env) == {"QD"}
    env = new_env(seed=5)
    craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=2, tricks_won=(2, 0),
          hands={2: "AS TD 9C 8C KC QD", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"})
    assert legal_names(env) == {"AS", "10D", "9C", "8C", "KC", "QD"}  # trick 3: any card, face up only
    env = new_env(seed=5, trump_lead_rule="every_lead")
    craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=2, tricks_won=(2, 0),
          hands={2: "AS TD 9C 8C KC QD", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"})
    assert legal_names(env) == {"QD"}
    craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=4, tricks_won=(4, 0),
          hands={2: "AS TD 9C 8C", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"})
    assert len(legal_names(env)) == 8  # no trump: face up or face down on any lead


def test_trick1_declarer_must_lead_a_trump():
    env = new_env(make_deck(0, key=E1_KEY), dealer=0)
    play(env, "S1:NO_KNOCK S3:NO_KNOCK")
    assert env.game_state.phase[0] == PLAY and env.agent_selection == "player_1"
    hand = env.hands["player_1"]
    trumps = {name(c) for c in hand if c // 8 == 1 or c % 8 in (4, 5)}  # diamonds, queens, jacks
    assert legal_names(env) == trumps and "7D" in trumps


# ---------------------------------------------------------------- E6 knocks and rams
def test_e6_knock_sequence_after_knock():
    env = new_env(make_deck(0, key=E1_KEY), dealer=0)  # declarer seat 1
    assert legal_names(env) == {"KNOCK", "NO_KNOCK"}
    act(env, "S1:KNOCK")
    assert env.agent_selection == "player_2"  # the declarer's left-hand opponent may knock back
    act(env, "S2:KNOCK")
    assert env.game_state.phase[0] == PLAY and env.agent_selection == "player_1"
    assert env.game_state.knocked[0].tolist() == [False, True, True, False]
    # declarer declines, partner knocks, left declines, right knocks back
    env = new_env(make_deck(0, key=E1_KEY), dealer=0)
    play(env, "S1:NO_KNOCK S3:KNOCK S2:NO_KNOCK S0:KNOCK")
    assert env.game_state.phase[0] == PLAY and env.game_state.knocked[0].tolist() == [True, False, False, True]
    # no declaring-team knock: no knock-back under the default
    env = new_env(make_deck(0, key=E1_KEY), dealer=0)
    play(env, "S1:NO_KNOCK S3:NO_KNOCK")
    assert env.game_state.phase[0] == PLAY


def test_knock_back_options():
    env = new_env(make_deck(0, key=E1_KEY), dealer=0, knock_back="never")
    play(env, "S1:KNOCK")
    assert env.game_state.phase[0] == PLAY
    env = new_env(make_deck(0, key=E1_KEY), dealer=0, knock_back="always")
    play(env, "S1:NO_KNOCK S3:NO_KNOCK S2:NO_KNOCK S0:KNOCK")
    assert env.game_state.phase[0] == PLAY and env.game_state.knocked[0].tolist() == [True, False, False, False]


def last_trick(env, cards: str):
    """Play the 4 cards of the final trick from the leader on."""
    play(env, cards)


def test_e6_rams_after_knock_and_knock_back_cancellation():
    env = new_env(seed=6, episode="match", ram_balance=3)
    craft(env, game="sevens", trump="D", declarer=1, leader=0, tricks_done=7, points=(10, 90), tricks_won=(0, 7),
          knocked=(1, 2), hands={0: "AS", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:AS S1:7S S2:8S S3:9S")  # team A takes the 8th trick
    st = env.game_state
    assert st.last_loser[0] == 1 and st.last_penalty[0] == 4
    assert st.ram_balance[0] == -1  # A 0, B 1
    assert team_rewards(env) == (4.0, -4.0)
    assert obs_slice(env, "player_1", "rams").tolist() == [1, 0]
    assert obs_slice(env, "player_0", "rams").tolist() == [0, 1]


def test_declaring_team_knock_needs_all_eight_tricks():
    env = new_env(seed=6)
    craft(env, game="sevens", trump="D", declarer=1, leader=1, tricks_done=7, points=(0, 100), tricks_won=(0, 7),
          knocked=(3,), hands={1: "AS", 2: "7S", 3: "8S", 0: "9S"})
    last_trick(env, "S1:AS S2:7S S3:8S S0:9S")
    assert env.game_state.last_loser[0] == 0 and team_rewards(env) == (-2.0, 2.0)  # 1 ram x 2 (one knock)


def test_defenders_knock_alone_only_doubles():
    env = new_env(seed=6, knock_back="always")
    craft(env, game="sevens", trump="D", declarer=1, leader=0, tricks_done=7, points=(40, 70), tricks_won=(2, 5),
          knocked=(0,), hands={0: "AS", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:AS S1:7S S2:8S S3:9S")
    st = env.game_state
    assert st.points[0].tolist() == [51, 70]
    assert st.last_loser[0] == 0 and team_rewards(env) == (-2.0, 2.0)  # 61+ without a declaring knock wins


def test_graded_ram_schedule():
    env = new_env(seed=6, ram_schedule="graded")
    craft(env, game="sevens", trump="D", declarer=1, leader=1, tricks_done=7, points=(25, 84), tricks_won=(2, 5),
          hands={1: "AS", 2: "7S", 3: "8S", 0: "9S"})
    last_trick(env, "S1:AS S2:7S S3:8S S0:9S")
    assert team_rewards(env) == (-2.0, 2.0)  # losers A took <= 30 points
    env = new_env(seed=6, ram_schedule="graded")
    craft(env, game="sevens", trump="D", declarer=1, leader=1, tricks_done=7, points=(0, 109), tricks_won=(0, 7),
          hands={1: "AS", 2: "7S", 3: "8S", 0: "9S"})
    last_trick(env, "S1:AS S2:7S S3:8S S0:9S")
    assert team_rewards(env) == (-3.0, 3.0)  # losers took no trick


# ---------------------------------------------------------------- E7 threshold
@pytest.mark.parametrize("before,loser", [((0, 59), 0), ((0, 58), 1)])
def test_e7_sixty_one_wins_sixty_loses(before, loser):
    # seat 1 declares (team B) and wins the last trick, worth 2 points (JD, a trump, and three zeros)
    env = new_env(seed=7)
    b = before[1]
    craft(env, game="sevens", trump="C", declarer=1, leader=1, tricks_done=7, points=(120 - b - 2, b),
          tricks_won=(3, 4), hands={1: "JD", 2: "7S", 3: "8S", 0: "9S"})
    last_trick(env, "S1:JD S2:7S S3:8S S0:9S")
    pts = env.game_state.points[0].tolist()
    assert pts == [120 - b - 2, b + 2] and pts[1] in (61, 60)
    assert env.game_state.last_loser[0] == loser
    assert team_rewards(env) == ((-1.0, 1.0) if loser == 0 else (1.0, -1.0))


# ---------------------------------------------------------------- E8 calls and honesty
E8_HAND = "QC JH AD TD 9D KS 8C 7H"


def e8_env(**options):
    # dealer 3: seat 2 is R, his 4th/8th are exposed; keep every seven off the 4th/8th positions
    deck = make_deck(3, hands={2: "QC JH AD 9D KS 8C 7H TD"},
                     key={0: "AC 9C", 1: "QS JS"})
    env = new_env(deck, dealer=3, **options)
    assert env.game_state.game[0] == NO_SEVENS
    assert {name(c) for c in env.hands["player_2"]} == {"QC", "JH", "AD", "10D", "9D", "KS", "8C", "7H"}
    return env


def test_e8_calls_declarer_and_honest_declaration():
    env = e8_env()
    play(env, "S0:CALL_4 S1:PASS")
    assert legal_names(env) == {"PASS"} | {f"CALL_{n}" for n in range(5, 9)}
    play(env, "S2:CALL_5 S3:PASS")
    st = env.game_state
    assert st.phase[0] == DECLARING and st.declarer[0] == 2 and st.high_call[0] == 5
    assert legal_names(env) == {"DECLARE_C", "DECLARE_D", "DECLARE_H", "DECLARE_S"}
    for v in range(4):  # calls are public
        rel = [(s - v) % 4 for s in range(4)]
        calls = obs_slice(env, P[v], "calls")
        assert [calls[rel[s]] for s in range(4)] == [5, 1, 6, 1]
    act(env, "S2:DECLARE_D")
    assert not env.game_state.lied[0]
    assert legal_names(env) == {"QC", "JH", "AD", "10D", "9D"}


def test_e8_dishonest_declaration_loses_whatever_the_points():
    env = e8_env(no7_stop=False)
    play(env, "S0:CALL_4 S1:PASS S2:CALL_5 S3:PASS S2:DECLARE_H")
    st = env.game_state
    assert st.lied[0]
    assert not obs_slice(env, "player_1", "last_flags").any()  # not revealed before the deal ends
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()):
        env.step(int(rng.choice(env.legal_actions())))
    assert st.last_loser[0] == 0 and env.infos["player_1"]["declarer_lied"]
    assert team_rewards(env)[0] < 0


def test_e8_honesty_mask():
    env = e8_env(honesty="mask")
    play(env, "S0:CALL_3 S1:PASS")
    assert legal_names(env) == {"PASS", "CALL_4", "CALL_5"}  # his best count is 5
    play(env, "S2:CALL_5 S3:PASS")
    assert legal_names(env) == {"DECLARE_D"}


def test_call_count_suit_option():
    env = e8_env(call_count="suit", honesty="mask")
    act(env, "S0:PASS")
    act(env, "S1:PASS")
    assert legal_names(env) == {"PASS", "CALL_1", "CALL_2", "CALL_3"}  # AD TD 9D: 3 diamonds without Q/J


# ---------------------------------------------------------------- E9 pips
def check_last_trick_pips(before, tricks, lied, loser, pips):
    """No-sevens match, declarer seat 0 (team A), trumps clubs, 7 tricks done with card points
    ``before`` and tricks ``tricks``; team A wins the last trick, worth 0 points. Checks the loser,
    the pips of the deal and the rewards (``pips / 2`` a seat)."""
    env = new_env(seed=9, episode="match")
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=7, points=before, tricks_won=tricks,
          lied=lied, high_call=3, hands={0: "7C", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:7C S1:7S S2:8S S3:9S")
    st = env.game_state
    assert st.last_loser[0] == loser and st.last_penalty[0] == pips
    expect = [0, 0]
    expect[loser] = pips
    assert st.pips[0].tolist() == expect
    u = pips / 2
    assert team_rewards(env) == ((-u, u) if loser == 0 else (u, -u))


@pytest.mark.parametrize(
    "before,tricks,lied,loser,pips",
    [
        ((70, 50), (6, 1), False, 1, 2),   # (a)
        ((95, 25), (6, 1), False, 1, 4),   # (b)
        ((120, 0), (7, 0), False, 1, 6),   # (c)
        ((58, 62), (3, 4), False, 0, 2),   # (d)
        ((100, 20), (6, 1), True, 0, 2),   # (f) the declarer lied
    ],
    ids=["a", "b", "c", "d", "f"],
)
def test_e9_pips(before, tricks, lied, loser, pips):
    check_last_trick_pips(before, tricks, lied, loser, pips)


def test_e9e_declarer_stops_to_freeze_the_opponents():
    def env_after_six():
        env = new_env(seed=9)
        craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=6, points=(80, 28), tricks_won=(5, 1),
              high_call=3, hands={0: "7C 8C", 1: "AS 9S", 2: "8S 7D", 3: "9C 7S"})
        env.game_state.phase[0] = STOPPING
        env._after_step()
        return env

    env = env_after_six()
    assert legal_names(env) == {"CONTINUE", "STOP"} and env.agent_selection == "player_0"
    act(env, "S0:STOP")
    st = env.game_state
    assert st.last_loser[0] == 1 and st.last_penalty[0] == 4 and st.last_stopped[0]
    assert team_rewards(env) == (2.0, -2.0)
    # had play gone on and B taken the AS trick, only +2
    env = env_after_six()
    play(env, "S0:CONTINUE S0:8C S1:AS S2:8S S3:9C")  # 9C trumps: team B takes 11 points
    assert env.game_state.points[0].tolist() == [80, 39]
    play(env, "S0:CONTINUE S3:7S S0:7C S1:9S S2:7D")
    assert env.game_state.last_penalty[0] == 2 and team_rewards(env) == (1.0, -1.0)


def test_stop_is_offered_after_each_of_tricks_one_to_seven_only_in_the_no_sevens_game():
    env = e8_env()
    play(env, "S0:CALL_4 S1:PASS S2:CALL_5 S3:PASS S2:DECLARE_D")
    rng = np.random.default_rng(1)
    asked = []
    while not any(env.terminations.values()):
        st = env.game_state
        if st.phase[0] == STOPPING:
            asked.append(int(st.tricks_done[0]))
            assert env.agent_selection == "player_2"
            act(env, "CONTINUE")
            continue
        env.step(int(rng.choice(env.legal_actions())))
    assert asked == [1, 2, 3, 4, 5, 6, 7]
    env = e8_env(no7_stop=False)
    play(env, "S0:CALL_4 S1:PASS S2:CALL_5 S3:PASS S2:DECLARE_D")
    while not any(env.terminations.values()):
        assert env.game_state.phase[0] != STOPPING
        env.step(int(rng.choice(env.legal_actions())))


def test_flat_pip_schedule():
    env = new_env(seed=9, pip_schedule="flat")
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=7, points=(120, 0), tricks_won=(7, 0),
          high_call=3, hands={0: "7C", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:7C S1:7S S2:8S S3:9S")
    assert env.game_state.last_penalty[0] == 2


# ---------------------------------------------------------------- E10 all pass
def test_e10_all_pass_throw_in_next_dealer():
    deck = make_deck(1, key={2: "9S 8D", 3: "AC KH", 0: "QS JD", 1: "TD 8C"})
    env = new_env(deck, dealer=1)
    st = env.game_state
    assert st.game[0] == NO_SEVENS
    play(env, "S2:PASS S3:PASS S0:PASS S1:PASS")
    assert st.dealer[0] == 2 and st.throw_ins[0] == 1
    assert not any(env.terminations.values()) and team_rewards(env) == (0.0, 0.0)
    assert st.stock[0].tolist() != deck  # a fresh shuffle
    expected_first = int(st.declarer[0]) if st.game[0] == SEVENS else 3
    assert env.agent_selection == P[expected_first]


def test_max_throw_ins_truncates():
    deck = make_deck(1, key={2: "9S 8D", 3: "AC KH", 0: "QS JD", 1: "TD 8C"})
    env = new_env(deck, dealer=1, max_throw_ins=1)
    play(env, "S2:PASS S3:PASS S0:PASS S1:PASS")
    assert all(env.truncations.values()) and "max_throw_ins" in env.infos["player_0"]["truncation"]


# ---------------------------------------------------------------- E11 match end
@pytest.mark.parametrize(
    "pips,rams,winner,clean",
    [((10, 4), -2, 0, False), ((10, 4), 0, 1, False), ((10, 0), -2, 1, True)],
    ids=["B-holds-rams", "no-rams", "clean"],
)
def test_e11_match_end(pips, rams, winner, clean):
    env = new_env(seed=11, episode="match", pips=pips, ram_balance=rams)
    # team A declares and takes 50 points: loses 2 pips (A reaches 12)
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=7, points=(50, 70), tricks_won=(3, 4),
          high_call=3, hands={0: "7C", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:7C S1:7S S2:8S S3:9S")
    st = env.game_state
    assert st.pips[0].tolist() == [12, pips[1]]
    assert all(env.terminations.values())
    assert st.winner[0] == winner and bool(st.clean[0]) == clean
    info = env.infos["player_0"]
    assert info["match_winner"] == "AB"[winner] and info["clean_defeat"] == clean
    # the arena's outcome is the match's winner (§6.4): A lost this deal (return -1 each, the 2 pips / 2),
    # yet wins the match when B holds rams; the outcome was read from the returns and said A lost
    k = env.unwrapped.kernel
    returns = np.array([[-1.0, 1.0, -1.0, 1.0]])
    assert k.outcome(returns).tolist() == [[-1, 1, -1, 1]]
    assert k.episode_outcome(st, returns).tolist() == [[1, -1, 1, -1] if winner == 0 else [-1, 1, -1, 1]]


def test_match_reward_win_pays_only_at_the_end():
    env = new_env(seed=11, episode="match", reward="win", pips=(10, 4), ram_balance=-2)
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=7, points=(50, 70), tricks_won=(3, 4),
          high_call=3, hands={0: "7C", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:7C S1:7S S2:8S S3:9S")
    assert team_rewards(env) == (1.0, -1.0)
    env = new_env(seed=11, episode="match", reward="win")
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=7, points=(50, 70), tricks_won=(3, 4),
          high_call=3, hands={0: "7C", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:7C S1:7S S2:8S S3:9S")
    assert team_rewards(env) == (0.0, 0.0) and not any(env.terminations.values())
    assert env.game_state.pips[0].tolist() == [2, 0] and env.game_state.dealer[0] == 1


# ---------------------------------------------------------------- §5/§6 edge cases beyond §10
def test_rams_partly_struck_off():
    # RULES.md §6.2: "A team receiving rams first strikes off as many of the other team's rams as
    # it can and keeps the rest." A holds 3 rams; B's declarer (seat 1) ends on 60 and B receives
    # 1 ram: it strikes off one of A's, leaving A 2, B 0 (balance 3 -> 2).
    env = new_env(seed=6, episode="match", ram_balance=3)
    craft(env, game="sevens", trump="C", declarer=1, leader=1, tricks_done=7, points=(60, 58), tricks_won=(3, 4),
          hands={1: "JD", 2: "7S", 3: "8S", 0: "9S"})
    last_trick(env, "S1:JD S2:7S S3:8S S0:9S")
    st = env.game_state
    assert st.last_loser[0] == 1 and st.last_penalty[0] == 1
    assert st.ram_balance[0] == 2
    assert obs_slice(env, "player_0", "rams").tolist() == [2, 0]
    assert team_rewards(env) == (1.0, -1.0)


@pytest.mark.parametrize(
    "before,tricks,loser,pips",
    [
        ((90, 30), (6, 1), 1, 4),   # losers with exactly 30 points: 4
        ((89, 31), (6, 1), 1, 2),   # 31 points: 2
        ((120, 0), (6, 1), 1, 4),   # a trick worth 0 points is still a trick: 4, not 6
        ((61, 59), (4, 3), 1, 2),   # declarers with 61 win
        ((60, 60), (4, 3), 0, 2),   # declarers with 60 lose (§9.14), scored on their own 60
    ],
    ids=["30", "31", "zero-point-trick", "61", "60"],
)
def test_pip_schedule_boundaries(before, tricks, loser, pips):
    # RULES.md §6.3: "6 with no trick, else 4 with 30 points or fewer, else 2"; §6.1: 61 wins.
    check_last_trick_pips(before, tricks, False, loser, pips)


def test_a_lying_declarer_who_stops_still_loses():
    # RULES.md §9.10: "Lying is found by the environment from the declarer's hand, even if he
    # stops early." After trick 6 team A (declarer seat 0) has 80, B 28; the declarer lied and
    # stops: A loses, scored on its own 80 points -> 2 pips (not B's 4 of E9e).
    env = new_env(seed=9)
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=6, points=(80, 28), tricks_won=(5, 1),
          high_call=3, lied=True, hands={0: "7C 8C", 1: "AS 9S", 2: "8S 7D", 3: "9C 7S"})
    env.game_state.phase[0] = STOPPING
    env._after_step()
    act(env, "S0:STOP")
    st = env.game_state
    assert st.last_loser[0] == 0 and st.last_penalty[0] == 2 and st.last_stopped[0]
    assert env.infos["player_1"]["declarer_lied"]
    assert team_rewards(env) == (-1.0, 1.0)


def test_graded_rams_with_knocks():
    # RULES.md §6.2 / §11.1: graded base 2 for losers with <= 30 points, times 2 for one knock; a
    # defenders' knock alone leaves the schedule graded: declarers B lose on 25 -> 2 x 2 = 4 rams.
    env = new_env(seed=6, ram_schedule="graded", knock_back="always")
    craft(env, game="sevens", trump="D", declarer=1, leader=0, tricks_done=7, points=(95, 25), tricks_won=(5, 2),
          knocked=(0,), hands={0: "AS", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:AS S1:7S S2:8S S3:9S")
    assert env.game_state.points[0].tolist() == [106, 25]
    assert env.game_state.last_loser[0] == 1 and env.game_state.last_penalty[0] == 4
    assert team_rewards(env) == (4.0, -4.0)
    # a declaring-team knock keeps base 1: declarers B knocked and took no trick -> 1 x 2, not 3 x 2
    env = new_env(seed=6, ram_schedule="graded")
    craft(env, game="sevens", trump="D", declarer=1, leader=0, tricks_done=7, points=(109, 0), tricks_won=(7, 0),
          knocked=(1,), hands={0: "AS", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:AS S1:7S S2:8S S3:9S")
    assert env.game_state.tricks_won[0].tolist() == [8, 0]
    assert env.game_state.last_loser[0] == 1 and env.game_state.last_penalty[0] == 2
    assert team_rewards(env) == (2.0, -2.0)


def test_face_down_lead_that_no_trump_meets_wins_for_its_leader():
    # RULES.md §5: "The face-down card can never win the trick; the best trump played wins, and if
    # nobody plays a trump the leader takes the trick" (§11.5, every_lead, a leader without trumps
    # at trick 5). Trumps hearts; nobody holds a trump. S2 leads 9S face down (partner S0 is told
    # "not valuable"); the others may play anything: S3 AS, S0 10S, S1 KS. The AS does not beat
    # the hidden 9S: S2 takes 0 + 11 + 10 + 4 = 25 for team A and leads next.
    env = new_env(seed=5, trump_lead_rule="every_lead")
    craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=4, tricks_won=(4, 0),
          hands={2: "9S 7S KC 8D", 3: "AS TC 9C 9D", 0: "TS AD KD 7D", 1: "KS 8S AC 8C"})
    assert legal_names(env) == {"9S", "7S", "KC", "8D", "FD_9S", "FD_7S", "FD_KC", "FD_8D"}
    act(env, "S2:FD_9S")
    assert obs_slice(env, "player_0", "signal").tolist() == [0, 1]
    assert legal_names(env) == {"AS", "10C", "9C", "9D"}
    play(env, "S3:AS S0:TS")
    assert legal_names(env) == {"KS", "8S", "AC", "8C"}
    act(env, "S1:KS")
    st = env.game_state
    assert st.points[0].tolist() == [25, 0] and st.tricks_won[0].tolist() == [5, 0]
    assert env.agent_selection == "player_2"


def test_throw_in_inside_a_match():
    # RULES.md §4.2.2 / §1: four passes throw the deal in: nothing is scored, the deal passes left,
    # and it is not a scored deal (§11.8: max_deals counts scored deals only).
    deck = make_deck(1, key={2: "9S 8D", 3: "AC KH", 0: "QS JD", 1: "TD 8C"})
    env = new_env(deck, dealer=1, episode="match")
    play(env, "S2:PASS S3:PASS S0:PASS S1:PASS")
    st = env.game_state
    assert st.dealer[0] == 2 and st.deals[0] == 0 and st.throw_ins[0] == 1
    assert st.pips[0].tolist() == [0, 0] and st.ram_balance[0] == 0
    assert team_rewards(env) == (0.0, 0.0) and not any(env.terminations.values())


# ---------------------------------------------------------------- a match tells each scored deal in infos
# a sevens game played out, dealer S0: S2's 8th card 7H is the only exposed seven (S1 shows 10H AC,
# S3 8H 10C), so S2 declares with hearts as trumps (trumps QC 7H QS QH QD JC JS JH JD AH 10H KH 9H 8H)
MATCH_HANDS = {1: "7D 7S JD 10H AD 10D KD AC", 2: "QC QS QH AH 8C 8D 8S 7H", 3: "7C KH 9H 8H AS 10S KS 10C",
               0: "QD JC JS JH 9C 9D 9S KC"}
MATCH_TRICKS = [  # winner and card points (A 11, 10 10, K 4, Q 3, J 2) worked out by hand
    "S2:QC S3:8H S0:JH S1:JD",  # QC best trump: A 3+0+2+2 = 7
    "S2:7H S3:9H S0:JS S1:10H",  # trick 2: a trump led; 7H: A 0+0+2+10 = 12 (19)
    "S2:QS S3:KH S0:JC S1:7S",  # QS: A 3+4+2+0 = 9 (28)
    "S2:QH S3:7C S0:QD S1:7D",  # QH: A 3+0+3+0 = 6 (34)
    "S2:AH S3:KS S0:9S S1:KD",  # AH, the last trump: A 11+4+0+4 = 19 (53)
    "S2:8C S3:10C S0:9C S1:AC",  # AC: B 0+10+0+11 = 21
    "S1:AD S2:8D S3:10S S0:9D",  # AD: B 11+0+10+0 = 21 (42)
    "S1:10D S2:8S S3:AS S0:KC",  # 10D: B 10+0+11+4 = 25 (67)
]


def test_a_match_tells_every_agent_the_scored_deal_in_infos():
    """RULES.md §7 (our decision: the spec names no infos): in a match the step that scores a deal deals
    the next one, and infos stayed {} until the match ended, so no agent was told how deals 1..n-1
    ended beyond the observation's last loser and penalty. Now at that step every agent's infos give
    the scored deal: declarer S2 (team A), hearts, no knocks; A takes 5 tricks and 53 card points, B 3
    tricks and 67 (53 + 67 = 120), so the declaring team falls short of 61 (§6.1) and A receives 1 ram
    (ram_balance +1, rewards A -1, B +1). The next deal (dealer S1, seed 1) is a no-sevens game: its
    calls have not started. The infos are kept while it is played."""
    env = new_env(make_deck(0, MATCH_HANDS), dealer=0, seed=1, episode="match")
    st = env.game_state
    assert (int(st.declarer[0]), "CDHS"[int(st.trump[0])]) == (2, "H")
    play(env, "S2:NO_KNOCK S0:NO_KNOCK " + " ".join(MATCH_TRICKS)[: -len("S0:KC")])
    assert all(env.infos[a] == {} for a in P)  # nothing before the deal is scored
    act(env, "S0:KC")
    assert team_rewards(env) == (-1.0, 1.0) and not any(env.terminations.values())
    expected = {
        # the next deal, dealt in this step
        "game": "no-sevens game", "dealer": 1, "declarer": -1, "trump": None, "calls": [-1, -1, -1, -1],
        "knocked": [False] * 4, "card_points": [0, 0], "tricks_won": [0, 0],
        # the scored deal
        "last_game": "sevens game", "last_declarer": 2, "last_trump": "H", "last_knocked": [False] * 4,
        "last_card_points": [53, 67], "last_tricks_won": [5, 3], "last_loser": "A", "last_penalty": 1,
        "declarer_lied": False, "declarer_stopped": False,
        # the match
        "ram_balance": 1, "pips": [0, 0], "deals": 1,
    }
    assert {a: env.infos[a] for a in P} == {a: expected for a in P}
    assert int(st.game[0]) == NO_SEVENS and env.agent_selection == "player_2"
    act(env, "S2:PASS")
    assert all(env.infos[a] == expected for a in P)  # kept while the next deal is played


# ---------------------------------------------------------------- spec §10 E9 / E11, checked through infos
@pytest.mark.parametrize(
    "before,tricks,lied,loser,pips",
    [
        ((70, 50), (6, 1), False, "B", 2),   # (a) A 70, B 50 -> B +2
        ((95, 25), (6, 1), False, "B", 4),   # (b) A 95, B 25 -> B +4
        ((120, 0), (7, 0), False, "B", 6),   # (c) A all eight tricks -> B +6
        ((58, 62), (3, 4), False, "A", 2),   # (d) A 58, B 62 -> A +2
        ((100, 20), (6, 1), True, "A", 2),   # (f) A 100, lying declarer -> A +2
    ],
    ids=["a", "b", "c", "d", "f"],
)
def test_e9_pips_in_a_single_deal_episode_and_its_infos(before, tricks, lied, loser, pips):
    """Spec §10 E9 in the default single-deal episode: the deal ends, the rewards are ±pips/2 (§6.5)
    and the terminal infos name the loser, the pips and whether the declarer lied (§7)."""
    env = new_env(seed=9)
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=7, points=before, tricks_won=tricks,
          lied=lied, high_call=3, hands={0: "7C", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:7C S1:7S S2:8S S3:9S")
    assert all(env.terminations.values())
    u = pips / 2
    assert team_rewards(env) == ((-u, u) if loser == "A" else (u, -u))
    info = env.infos["player_0"]
    assert info["last_loser"] == loser and info["last_penalty"] == pips
    assert info["declarer_lied"] == lied and info["declarer_stopped"] is False
    expect = [0, 0]
    expect["AB".index(loser)] = pips
    assert info["pips"] == expect


@pytest.mark.parametrize(
    "pips,rams,winner",
    [((10, 4), 0, "B"), ((10, 0), -2, "B")],
    ids=["no-rams", "clean"],
)
def test_e11_match_end_with_reward_win(pips, rams, winner):
    """Spec §10 E11 (A 10 pips loses 2 more): without rams B wins (A has more pips); with B at 0 pips
    B wins, a clean defeat. With reward="win" the match pays ±1 at its end only (§6.5)."""
    env = new_env(seed=11, episode="match", reward="win", pips=pips, ram_balance=rams)
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=7, points=(50, 70), tricks_won=(3, 4),
          high_call=3, hands={0: "7C", 1: "7S", 2: "8S", 3: "9S"})
    last_trick(env, "S0:7C S1:7S S2:8S S3:9S")
    assert all(env.terminations.values())
    assert team_rewards(env) == ((1.0, -1.0) if winner == "A" else (-1.0, 1.0))
    info = env.infos["player_0"]
    assert info["match_winner"] == winner and info["pips"] == [12, pips[1]]
    assert info["clean_defeat"] == (pips[1] == 0)


# ---------------------------------------------------------------- audit additions: declaring and honesty (§4.2.3-4)
NO_QJ_HAND = "AD TD KD 9D AC TC KC 9C"  # no queen, no jack, no heart, no spade


def no_qj_env(**options):
    # dealer 3: order of calls S0, S1, S2, S3; S2 (= R) has his 4th/8th (9D, 9C) exposed, no seven anywhere on a key position
    env = new_env(make_deck(3, hands={2: NO_QJ_HAND}), dealer=3, **options)
    assert env.game_state.game[0] == NO_SEVENS
    assert {name(c) for c in env.hands["player_2"]} == {"AD", "10D", "KD", "9D", "AC", "10C", "KC", "9C"}
    return env


def test_declarer_may_name_only_a_suit_he_holds_a_trump_of():
    """Spec §4.2.3: the declarer may name "any suit S for which he holds at least one trump". S2 holds
    AD TD KD 9D AC TC KC 9C: no queen or jack, so his trumps for a suit are only his A/T/K/9/8/7 of it:
    clubs 4, diamonds 4, hearts 0, spades 0 -> DECLARE_C and DECLARE_D only. He called 4: both honest."""
    env = no_qj_env()
    play(env, "S0:PASS S1:PASS S2:CALL_4 S3:PASS")
    assert env.game_state.phase[0] == DECLARING and env.game_state.declarer[0] == 2
    assert legal_names(env) == {"DECLARE_C", "DECLARE_D"}
    act(env, "S2:DECLARE_C")
    assert not env.game_state.lied[0]
    # trick 1: the declarer leads a trump: his four clubs
    assert legal_names(env) == {"AC", "10C", "KC", "9C"}


def test_declarer_without_queens_or_jacks_who_overcalls_lies():
    """Same hand, call 5 (legal under the default honesty="penalize": any call above the highest).
    Either suit he may name counts 4 < 5 -> lied (§4.2.4). With honesty="mask" calls stop at his
    best count, 4 (§4.2.3)."""
    env = no_qj_env()
    play(env, "S0:PASS S1:PASS")
    assert legal_names(env) == {"PASS"} | {f"CALL_{n}" for n in range(1, 9)}
    play(env, "S2:CALL_5 S3:PASS")
    assert legal_names(env) == {"DECLARE_C", "DECLARE_D"}
    act(env, "S2:DECLARE_D")
    assert env.game_state.lied[0]
    env = no_qj_env(honesty="mask")
    play(env, "S0:PASS S1:PASS")
    assert legal_names(env) == {"PASS", "CALL_1", "CALL_2", "CALL_3", "CALL_4"}


@pytest.mark.parametrize(
    "call_count, call, lied",
    [("trumps", 5, False), ("trumps", 6, True), ("suit", 3, False), ("suit", 4, True)],
)
def test_honesty_check_counts_what_call_count_says(call_count, call, lied):
    """E8's hand QC JH AD TD 9D KS 8C 7H, trumps named diamonds. call_count="trumps" (spec §4.2.1):
    queens + jacks (QC, JH) + A..7 of diamonds (AD, TD, 9D) = 5, so a call of 5 is honest and 6 a lie.
    call_count="suit" (§8): only AD, TD, 9D = 3, so 3 is honest and 4 a lie, though he holds 5 trumps.
    Naming a suit still needs one trump of it: QC and JH are trumps whatever the suit -> all four suits."""
    env = e8_env(call_count=call_count)
    play(env, f"S0:PASS S1:PASS S2:CALL_{call} S3:PASS")
    assert legal_names(env) == {"DECLARE_C", "DECLARE_D", "DECLARE_H", "DECLARE_S"}
    act(env, "S2:DECLARE_D")
    assert bool(env.game_state.lied[0]) is lied
