"""Every worked example of RULES.md §10 (E1-E13) with its exact numbers, plus the decisions of §9.

Deals are stacked with the ``deck`` reset hook (positions from §3, computed in
``aluette_util``); trick sequences come from :func:`aluette_util.sequence_deal`.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs import aluette_v0
from cardzoo.envs.aluette import rules as aluette_rules
from cardzoo.envs.aluette.constants import POWER
from cardzoo.envs.core.cards import SPANISH48

from aluette_util import (
    NAMED_POWER,
    P,
    cards_of,
    cid,
    ids,
    legal_names,
    make_deck,
    name,
    new_env,
    obs_slice,
    play,
    power,
    sequence_deal,
)

QUIET = {"chant": False, "signals": "off"}  # straight to trick play


def test_power_table_is_section_2():
    for c in range(48):
        assert POWER[c] == power(SPANISH48.names[c]), SPANISH48.names[c]
    counts = {}
    for n in SPANISH48.names:
        counts[power(n)] = counts.get(power(n), 0) + 1
    assert [counts[p] for p in range(19, 0, -1)] == [1] * 8 + [4, 4, 4, 4, 2, 4, 4, 4, 4, 4, 2]


def trick_env(leader, hands, **options):
    opts = {**QUIET, **options}
    return new_env(make_deck((leader - 1) % 4, hands), dealer=(leader - 1) % 4, **opts)


def results(env):
    return env.game_state.results[0].tolist()


# ----------------------------------------------------------------------------- E1-E4 trick play (§5)
def test_e1_plain_win():
    env = trick_env(1, {1: "5Cu", 2: "KSw", 3: "ACl", 0: "4Co"})
    play(env, "S1:5Cu S2:KSw S3:ACl S0:4Co")
    assert results(env)[0] == 3
    assert env.agent_selection == "player_3"  # winner leads next
    assert env.game_state.won[0].tolist() == [0, 0, 0, 1]
    # seat 0 sees "won by previous" (seat 3) in its trick-results slice
    assert obs_slice(env, "player_0", "trick_results")[:5].tolist() == [0, 0, 0, 1, 0]


def test_e2_spoiled_trick_is_led_again_by_the_same_leader():
    env = trick_env(1, {1: "KCo", 2: "ASw", 3: "ACu", 0: "8Cl"})
    play(env, "S1:KCo S2:ASw S3:ACu")
    assert obs_slice(env, "player_0", "trick_tied").tolist() == [1]
    play(env, "S0:8Cl")
    assert results(env)[0] == 4
    assert env.game_state.won[0].tolist() == [0, 0, 0, 0]
    assert env.agent_selection == "player_1"
    for s in range(4):
        assert obs_slice(env, P[s], "trick_results")[:5].tolist() == [0, 0, 0, 0, 1]


def test_e3_lower_tie_ignored():
    env = trick_env(0, {0: "5Co", 1: "5Cu", 2: "6Sw", 3: "4Cl"})
    play(env, "S0:5Co S1:5Cu S2:6Sw S3:4Cl")
    assert results(env)[0] == 2 and env.agent_selection == "player_2"


def test_e4_nines():
    env = trick_env(2, {2: "9Sw", 3: "9Co", 0: "ACo", 1: "9Cu"})
    play(env, "S2:9Sw S3:9Co S0:ACo")
    assert obs_slice(env, "player_1", "trick_top_power").tolist() == [14]  # petit-neuf on top, above the ace
    assert obs_slice(env, "player_1", "trick_top").tolist() == [0, 0, 1, 0]  # seat 3 = "partner" of seat 1
    play(env, "S1:9Cu")
    assert results(env)[0] == 1
    assert all(power("9Co") > power(a) for a in ("ACo", "ACu", "ACl", "ASw"))
    assert all(power("9Sw") < power(j) for j in ("JCo", "JCu", "JCl", "JSw"))
    # 9Sw led against a valet loses it
    env = trick_env(2, {2: "9Sw", 3: "JCl", 0: "4Co", 1: "5Co"})
    play(env, "S2:9Sw S3:JCl S0:4Co S1:5Co")
    assert results(env)[0] == 3


# ----------------------------------------------------------------------------- E5-E8 scoring (§6)
def play_sequence(winners, dealer=3, **options):
    hands, script = sequence_deal(dealer, winners)
    env = new_env(make_deck(dealer, hands), dealer=dealer, **{**QUIET, **options})
    play(env, script)
    if options.get("episode") == "match":
        assert results(env) == [-1] * 9  # the next deal has started
        return env
    assert all(env.terminations.values())
    expect = [4 if w == "X" else w for w in winners]
    assert results(env) == expect
    return env


def rewards(env):
    return [env.rewards[a] for a in P]


def test_e5_first_to_reach_the_most_tricks():
    env = play_sequence([1, 1, "X", 2, 0, 2, 3, 0, "X"])
    st = env.game_state
    assert st.won[0].tolist() == [2, 2, 2, 1]
    assert int(st.deal_winner[0]) == 1
    assert st.points[0].tolist() == [0, 1]  # team B +1 though team A won 4 tricks to 3
    assert rewards(env) == [-1, 1, -1, 1]
    assert env.infos["player_0"]["deal_winner"] == 1


def test_e6_mordienne():
    env = play_sequence([0, 2, "X", 1, "X", 3, 3, 3, 3])
    st = env.game_state
    assert st.won[0].tolist() == [1, 1, 1, 4]
    assert st.points[0].tolist() == [0, 2] and bool(st.mordienne[0])
    assert rewards(env) == [-2, 2, -2, 2]
    env = play_sequence([0, 2, "X", 1, "X", 3, 3, 3, 3], mordienne=False)
    assert env.game_state.points[0].tolist() == [0, 1]


@pytest.mark.parametrize("seq", [[1, 0, 2, "X", 3, 3, 3, 3, "X"], [3, 0, 1, 2, "X", 3, 3, 3, 3]], ids=["spoiled-last", "won-first"])
def test_e7_broken_runs_score_one(seq):
    env = play_sequence(seq)
    st = env.game_state
    assert int(st.deal_winner[0]) == 3 and not st.mordienne[0]
    assert st.points[0].tolist() == [0, 1]


def test_e8_nothing_won_no_score_but_the_deal_counts():
    env = play_sequence(["X"] * 9, episode="match")
    st = env.game_state
    assert not any(env.terminations.values())  # the match goes on
    assert int(st.deals[0]) == 1 and st.points[0].tolist() == [0, 0] and st.score[0].tolist() == [0, 0]
    assert int(st.deal_winner[0]) == -1
    assert int(st.dealer[0]) == 0  # deal passed to the left of dealer 3


def test_mordienne_block_from_trick_2_and_all_nine_tricks():
    # k = 2 is the earliest block (§6: k >= 2); winning all nine is not mordienne
    env = play_sequence(["X"] + [1] * 8)
    assert env.game_state.points[0].tolist() == [0, 2]
    env = play_sequence([0] + [1] * 8)
    assert env.game_state.points[0].tolist() == [0, 2]
    env = play_sequence([2] * 9)
    assert env.game_state.points[0].tolist() == [1, 0] and not env.game_state.mordienne[0]
    # the block must belong to the deal winner: seat 1 wins first with 3, seat 3's 3 at the end is no mordienne
    env = play_sequence([1, 1, 1, 0, 2, "X", 3, 3, 3])
    assert int(env.game_state.deal_winner[0]) == 1 and env.game_state.points[0].tolist() == [0, 1]


# ----------------------------------------------------------------------------- E9 chant (§4.1, §4.2)
TALON = "KCo KCu KCl KSw NCo NCu NCl NSw JCo JCu JCl JSw"


def test_e9_chant_accepted_by_all():
    env = new_env(make_deck(0, talon=TALON), dealer=0)
    t = TALON.split()
    play(env, "S1:accept_chant S2:accept_chant S3:accept_chant S0:accept_chant")
    st = env.game_state
    assert set(map(name, cards_of(st.received[0, 1]))) == set(t[0::2])
    assert set(map(name, cards_of(st.received[0, 0]))) == set(t[1::2])
    assert len(env.hands["player_1"]) == len(env.hands["player_0"]) == 15
    # only the recipient sees its talon cards
    assert {name(c) for c in np.flatnonzero(obs_slice(env, "player_1", "received"))} == set(t[0::2])
    for s in (0, 2, 3):
        seen = obs_slice(env, P[s], "hand") | obs_slice(env, P[s], "received")
        assert not {name(c) for c in np.flatnonzero(seen)} & set(t[0::2]) - (set(t[1::2]) if s == 0 else set())
    assert obs_slice(env, "player_2", "chant_recipients").tolist() == [0, 0, 1, 1]  # seats 0 (partner), 1 (previous)
    # seat 1 discards 6 (any card, even one just received), then seat 0
    assert env.agent_selection == "player_1"
    d1 = [name(c) for c in env.hands["player_1"]][:5] + [t[0]]
    play(env, " ".join(f"S1:{c}" for c in d1))
    assert env.agent_selection == "player_0"
    d0 = [name(c) for c in env.hands["player_0"]][:6]
    play(env, " ".join(f"S0:{c}" for c in d0))
    assert len(env.hands["player_1"]) == len(env.hands["player_0"]) == 9
    assert set(map(name, cards_of(env.game_state.discarded[0, 1]))) == set(d1)
    assert {name(c) for c in np.flatnonzero(obs_slice(env, "player_1", "discarded"))} == set(d1)
    assert not obs_slice(env, "player_3", "discarded").any()
    # signalling round from seat 1, then seat 1 leads trick 1
    play(env, "S1:end_signals S2:end_signals S3:end_signals S0:end_signals")
    assert env.agent_selection == "player_1"
    assert int(env.game_state.phase[0]) == 5


def test_e9_refusal_stops_the_vote_and_the_talon_stays_unseen():
    env = new_env(make_deck(0, talon=TALON), dealer=0)
    play(env, "S1:accept_chant S2:refuse_chant")
    st = env.game_state
    assert st.votes[0].tolist() == [-1, 1, 0, -1]  # seats 3 and 0 not asked
    assert not st.chanted[0]
    assert env.agent_selection == "player_1" and int(st.phase[0]) == 2  # signalling round from L
    assert all(len(h) == 9 for h in env.hands.values())
    talon = set(ids(TALON))
    for s in range(4):
        o = env.observe(P[s])["observation"]
        lay = env.kernel.obs_layout
        for sl in ("hand", "received", "discarded"):
            assert not set(np.flatnonzero(o[lay[sl]]).tolist()) & talon
        assert o[lay["chant_refused"]].tolist() == [int((2 - s) % 4 == r) for r in range(4)]
    play(env, "S1:end_signals S2:end_signals S3:end_signals S0:end_signals")
    from aluette_util import play_out

    play_out(env)
    assert not talon & {c for s in range(4) for c in cards_of(env.game_state.played[0, s])}


def test_chant_to_left_and_partner():
    env = new_env(make_deck(0, talon=TALON), dealer=0, chant_recipients="left_and_partner")
    play(env, "S1:accept_chant S2:accept_chant S3:accept_chant S0:accept_chant")
    t = TALON.split()
    assert set(map(name, cards_of(env.game_state.received[0, 2]))) == set(t[1::2])
    assert len(env.hands["player_2"]) == 15 and len(env.hands["player_0"]) == 9
    play(env, " ".join(f"S1:{name(c)}" for c in env.hands["player_1"][:6]))
    assert env.agent_selection == "player_2"


# ----------------------------------------------------------------------------- E10 signals (§4.5)
def test_e10_truthful_signals_and_partner_visibility():
    hands = {2: "3Cu ASw 4Co 5Co 6Co 7Co 8Co JCo NCo"}
    env = new_env(make_deck(1, hands), dealer=1, chant=False)  # L = seat 2 opens the signalling round
    assert env.agent_selection == "player_2"
    sig = {n for n in legal_names(env) if n not in {name(c) for c in range(48)}}
    assert sig == {"madame", "as", "end_signals"}
    with pytest.raises(ValueError, match="monsieur"):
        env.step(env.action_id("monsieur"))
    with pytest.raises(ValueError, match="faible"):
        env.step(env.action_id("faible"))
    play(env, "S2:madame")
    assert env.agent_selection == "player_2"  # a signal keeps the turn
    assert "madame" not in legal_names(env)
    madame = [int(n == "madame") for n in ["monsieur", "madame", "borgne", "vache", "grand_neuf", "petit_neuf",
                                           "deux_de_chene", "deux_d_ecrit", "as", "faible"]]
    assert obs_slice(env, "player_0", "signals[partner]").tolist() == madame
    assert obs_slice(env, "player_2", "signals[me]").tolist() == madame
    for s in (1, 3):
        for r in ("me", "next", "partner", "previous"):
            assert not obs_slice(env, P[s], f"signals[{r}]").any()
    # "public": everyone sees it
    env = new_env(make_deck(1, hands), dealer=1, chant=False, signal_visibility="public")
    play(env, "S2:madame")
    assert obs_slice(env, "player_1", "signals[next]").tolist() == madame
    assert obs_slice(env, "player_3", "signals[previous]").tolist() == madame


def test_signals_free_off_and_round_only():
    hands = {2: "3Cu ASw 4Co 5Co 6Co 7Co 8Co JCo NCo"}
    env = new_env(make_deck(1, hands), dealer=1, chant=False, signals="free")
    sig = set(legal_names(env)) - {name(c) for c in range(48)}
    assert sig == {"monsieur", "madame", "borgne", "vache", "grand_neuf", "petit_neuf", "deux_de_chene",
                   "deux_d_ecrit", "as", "faible", "end_signals"}
    play(env, "S2:faible")  # a lie is legal in free mode
    env = new_env(make_deck(1, hands), dealer=1, chant=False, signals="off")
    assert int(env.game_state.phase[0]) == 5
    assert set(legal_names(env)) == {name(c) for c in env.hands["player_2"]}
    # trick-play windows: by default signals stay legal on one's turn; "round" closes them
    for timing, expect in (("round_and_turns", {"madame", "as"}), ("round", set())):
        env = new_env(make_deck(1, hands), dealer=1, chant=False, signal_timing=timing)
        play(env, "S2:end_signals S3:end_signals S0:end_signals S1:end_signals")
        assert env.agent_selection == "player_2"
        assert set(legal_names(env)) - {name(c) for c in range(48)} == expect
    # truthful "at that moment": after playing 3Cu, madame is no longer legal
    env = new_env(make_deck(1, hands), dealer=1, chant=False)
    play(env, "S2:end_signals S3:end_signals S0:end_signals S1:end_signals S2:3Cu")
    play(env, " ".join(f"S{s}:{name(env.hands[P[s]][0])}" for s in (3, 0, 1)))
    if env.agent_selection == "player_2":
        assert "madame" not in legal_names(env)


def test_faible_is_true_without_key_cards_or_aces():
    hands = {2: "3Sw 4Co 5Co 6Co 7Co 8Co JCo NCo KCo"}
    env = new_env(make_deck(1, hands), dealer=1, chant=False)
    assert set(legal_names(env)) == {"faible", "end_signals"}


def test_signal_intercept_probability():
    # with probability 1 both opponents catch every signal, with 0 none; in between, about that share
    hands = {2: "3Cu ASw 4Co 5Co 6Co 7Co 8Co JCo NCo"}
    for q, lo, hi in ((1.0, 1.0, 1.0), (0.0, 0.0, 0.0), (0.3, 0.2, 0.4)):
        caught = 0
        for seed in range(60):
            env = new_env(make_deck(1, hands), dealer=1, seed=seed, chant=False, signal_intercept=q)
            play(env, "S2:madame")
            caught += int(obs_slice(env, "player_1", "signals[next]").any()) + int(obs_slice(env, "player_3", "signals[previous]").any())
        assert lo <= caught / 120 <= hi, (q, caught)


# ----------------------------------------------------------------------------- E11 match (§6)
def redeal(env, winners):
    """Replace the current (just dealt) deal by one whose tricks go to ``winners``; returns its script."""
    k = env.kernel
    st = env.game_state
    d = int(st.dealer[0])
    hands, script = sequence_deal(d, winners)
    st.stock[0] = make_deck(d, hands)  # the deal's shuffle replaced, then dealt by the compiled rules (§3)
    k.drivers.deal(st, np.array([0]), aluette_rules.NEED_DEAL, k.params)
    env._single = None
    env._after_step()
    return script


MORD_A = [1, 1, "X", 0, 0, 0, 0, 0, 0]  # seat 1 reaches 2 first, seat 0 then wins 3..9: A, mordienne (k=4)


def e11_match(**options):
    env = new_env(make_deck(0), dealer=0, episode="match", **QUIET, **options)
    seqs = [
        [3, 0, 0, 0, 0, 0, 0, 0, 0],  # A: seat 0 wins tricks 2-9 -> +2 (mordienne)
        [1, 1, 1, 1, 1, 0, 0, 0, 0],  # B +1
        [2, 2, 2, 2, 2, 1, 1, 1, 1],  # A +1
        [3, 3, 3, 3, 3, 3, 3, 3, 3],  # B +1 (all nine: no mordienne)
        [1, 3, 1, 3, 1, 3, 1, 3, 1],  # B +1
    ]
    total = {a: 0.0 for a in P}
    per_deal = []
    for seq in seqs:
        play(env, redeal(env, seq))
        per_deal.append(env.game_state.points[0].tolist())
        for a in P:
            total[a] += env.rewards[a]
    return env, per_deal, total


def test_e11_match_draw_and_without_mordienne_team_b_wins():
    env, per_deal, total = e11_match()
    assert per_deal == [[2, 0], [0, 1], [1, 0], [0, 1], [0, 1]]
    st = env.game_state
    assert st.score[0].tolist() == [3, 3] and int(st.winner[0]) == 2
    assert all(env.terminations.values())
    assert total == {a: 0.0 for a in P}
    assert env.infos["player_0"]["match_result"] == "draw"
    env, per_deal, total = e11_match(mordienne=False)
    assert per_deal[0] == [1, 0] and env.game_state.score[0].tolist() == [2, 3] and int(env.game_state.winner[0]) == 1
    assert total == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}  # sum of per-deal rewards
    env, _, total = e11_match(mordienne=False, reward="win")
    assert total == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}
    env, _, total = e11_match(reward="win")
    assert total == {a: 0.0 for a in P}


def test_match_dealer_rotates_and_first_dealer_deals_fifth():
    env = new_env(make_deck(2), dealer=2, episode="match", **QUIET)
    dealers = []
    for _ in range(5):
        dealers.append(int(env.game_state.dealer[0]))
        play(env, redeal(env, [0] * 9))
    assert dealers == [2, 3, 0, 1, 2]
    assert all(env.terminations.values())


def test_match_target_first_to_five():
    env = new_env(make_deck(0), dealer=0, episode="match", match_target=5, **QUIET)
    n = 0
    while not any(env.terminations.values()):
        play(env, redeal(env, [1] * 9))  # B +1 each deal
        n += 1
    assert n == 5 and env.game_state.score[0].tolist() == [0, 5] and int(env.game_state.winner[0]) == 1


# ----------------------------------------------------------------------------- E12 surrender (§4.4)
def surrender_env(winners=None):
    hands = sequence_deal(0, winners)[0] if winners else None
    return new_env(make_deck(0, hands), dealer=0, surrender=True, chant=False, signals="off")


def test_e12_accepted_surrender():
    env = surrender_env()
    assert set(legal_names(env)) == {"offer_surrender", "no_offer"}
    play(env, "S1:offer_surrender")
    assert env.agent_selection == "player_2"
    assert set(legal_names(env)) == {"accept_surrender", "refuse_surrender"}
    assert obs_slice(env, "player_2", "surrender_offerer").tolist() == [0, 0, 0, 1]  # seat 1 = previous of seat 2
    play(env, "S2:accept_surrender")
    assert all(env.terminations.values())
    assert env.game_state.points[0].tolist() == [1, 0]
    assert rewards(env) == [1, -1, 1, -1]


def test_e12_refused_surrender_then_seat_0_wins_without_mordienne():
    seq = [0, 0, 2, 0, 1, 3, 0, 2, 1]
    env = surrender_env(seq)
    play(env, "S1:offer_surrender S2:refuse_surrender")
    assert env.agent_selection == "player_1" and int(env.game_state.phase[0]) == 5
    play(env, sequence_deal(0, seq)[1])
    st = env.game_state
    assert int(st.deal_winner[0]) == 0 and not st.mordienne[0]
    assert st.points[0].tolist() == [0, 2]  # team B +2
    assert rewards(env) == [-2, 2, -2, 2]


@pytest.mark.parametrize(
    "seq, expect",
    [
        ([3, 0, 0, 0, 0, 0, 0, 0, 0], [2, 0]),  # seat 0 (refusing team A) wins with mordienne -> A +2
        ([0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 2]),  # A wins all nine (no mordienne) -> B +2
        ([2, 1, 1, 1, 1, 1, 1, 1, 1], [0, 2]),  # B wins with mordienne -> offering team B +2
        (["X"] * 9, [0, 2]),  # nobody wins -> B +2
    ],
)
def test_refused_surrender_scoring(seq, expect):
    """§6 after a refusal: 2 to the refusing team only if its player wins with mordienne; else 2 to the offerers."""
    env = surrender_env(seq)
    play(env, "S1:offer_surrender S2:refuse_surrender")
    play(env, sequence_deal(0, seq)[1])
    assert env.game_state.points[0].tolist() == expect


@pytest.mark.parametrize(
    "seq, expect",
    [
        ([0, 0, 2, 0, 1, 3, 0, 2, 1], [("al_first_detail", {"seat": "S0", "n": 4}),  # E12: refusers' S0 wins, no mordienne
                                       ("al_refused_failed", {"team": "B", "points": 2})]),
        ([3, 0, 0, 0, 0, 0, 0, 0, 0], [("al_first_detail", {"seat": "S0", "n": 8}),
                                       ("al_mordienne_detail", {"seat": "S0", "first": 2}),
                                       ("al_refused_made", {"team": "A", "points": 2})]),
        ([2, 1, 1, 1, 1, 1, 1, 1, 1], [("al_first_detail", {"seat": "S1", "n": 8}),
                                       ("al_mordienne_detail", {"seat": "S1", "first": 2}),
                                       ("al_refused_failed", {"team": "B", "points": 2})]),
        (["X"] * 9, [("al_refused_failed", {"team": "B", "points": 2})]),  # nobody wins: the offerers score
    ],
)
def test_refused_surrender_explanation_says_who_scored_and_why(seq, expect):
    """§6 after a refusal the deal's 2 points need not go to the deal winner's team. The end-of-deal
    explanation said "S0 was the first to reach 4 tricks, the most: 0 points to A" (E12, where B
    scores 2) and, with every trick spoiled, "A surrender was accepted" for a refused one."""
    env = surrender_env(seq)
    play(env, "S1:offer_surrender S2:refuse_surrender")
    play(env, sequence_deal(0, seq)[1])
    k, st = env.unwrapped.kernel, env.game_state
    for seat in range(4):
        explain = k.table_view(st, 0, seat)["summary"]["explain"]
        got = [(e["key"], e["args"]) for e in explain if e["key"] not in ("al_tricks", "al_spoiled")]
        assert got == expect


@pytest.mark.parametrize(
    "answer, seq, expect",
    [
        ("accept", None, [("al_surrender", {"team": "A", "points": 1})]),
        ("refuse", [0, 0, 2, 0, 1, 3, 0, 2, 1], [("al_first", {"seat": "S0"}), ("al_refused_failed", {"team": "B", "points": 2})]),
        ("refuse", ["X"] * 9, [("al_refused_failed", {"team": "B", "points": 2})]),
        ("refuse", [2, 1, 1, 1, 1, 1, 1, 1, 1], [("al_winner", {"seat": "S1", "team": "B", "points": 2}),
                                                 ("al_mordienne", {"seat": "S1"})]),
        ("refuse", [3, 0, 0, 0, 0, 0, 0, 0, 0], [("al_winner", {"seat": "S0", "team": "A", "points": 2}),
                                                 ("al_mordienne", {"seat": "S0"})]),
    ],
)
def test_surrender_explanation_once_the_next_deal_has_begun(answer, seq, expect):
    """In a match the next deal clears the surrender record (offerer, refused, accepted) while the
    summary of the last deal is still shown; the explanation then reads the surrender from the
    points (§6: accepted 1 with no deal winner, refused always 2)."""
    hands = sequence_deal(0, seq)[0] if seq else None
    env = new_env(make_deck(0, hands), dealer=0, surrender=True, chant=False, signals="off", episode="match", match_deals=2)
    play(env, f"S1:offer_surrender S2:{answer}_surrender")
    if seq:
        play(env, sequence_deal(0, seq)[1])
    k, st = env.unwrapped.kernel, env.game_state
    assert int(st.deals[0]) == 1 and int(st.phase[0]) != 6 and int(st.offerer[0]) == -1  # the second deal is on
    explain = k.table_view(st, 0, 0)["summary"]["explain"]
    assert [(e["key"], e["args"]) for e in explain] == expect


def test_no_offers_start_the_play_and_surrender_needs_mordienne():
    env = surrender_env()
    play(env, "S1:no_offer S2:no_offer S3:no_offer S0:no_offer")
    assert int(env.game_state.phase[0]) == 5 and env.agent_selection == "player_1"
    with pytest.raises(ValueError, match="mordienne"):
        aluette_v0.env(surrender=True, mordienne=False)


# ----------------------------------------------------------------------------- E13 partnership draw (§3)
def test_e13_partnership_draw():
    face_up = ids("5Cl 2Co KSw 3Cu 3Co 2Cu")
    draw = face_up + sorted(set(range(48)) - set(face_up))
    env = aluette_v0.env(partnership_draw=True)
    env.reset(seed=0, options={"draw_deck": draw})
    # agent from seat 0 -> 0, from seat 1 -> 2, from seat 2 -> 3, from seat 3 -> 1
    assert env.infos["player_0"]["agent_seat"] == [0, 2, 3, 1]
    assert int(env.game_state.dealer[0]) == 0  # the 3Cu holder deals first
    # the draw always places the four cards, one per player
    from cardzoo.envs.aluette.kernel import partnership_draw

    rng = np.random.default_rng(0)
    maps = partnership_draw(np.array([rng.permutation(48) for _ in range(500)], dtype=np.int8))
    assert (np.sort(maps, axis=1) == np.arange(4)).all()
    with pytest.raises(ValueError, match="partnership_draw"):
        aluette_v0.env().reset(seed=0, options={"draw_deck": draw})


def test_named_powers_are_unique():
    for n, pw in NAMED_POWER.items():
        assert sum(POWER == pw) == 1 and POWER[cid(n)] == pw


# ----------------------------------------------------------------------------- scoring edges (§6, §9 D7, D10, D12)
@pytest.mark.parametrize(
    "seq, won, winner, points",
    [
        (["X"] * 8 + [3], [0, 0, 0, 1], 3, [0, 2]),  # k = 9: a one-trick block after eight spoiled tricks
        ([0] + ["X"] * 7 + [1], [1, 1, 0, 0], 0, [1, 0]),  # M = 1: seat 0 reached it first (trick 1)
        ([0, 1, 2, "X", "X", 3, "X", 3, 3], [1, 1, 1, 3], 3, [0, 1]),  # tricks 6, 8, 9: a spoiled 7th breaks it
    ],
    ids=["k9", "first-to-one", "spoiled-inside"],
)
def test_mordienne_edges(seq, won, winner, points):
    """RULES §6 / D10: mordienne is exactly tricks k..9 for some k >= 2, none spoiled, won by the deal
    winner; k = 9 counts. D7: with one trick each, the first to reach one wins the deal."""
    env = play_sequence(seq)
    st = env.game_state
    assert st.won[0].tolist() == won and int(st.deal_winner[0]) == winner
    assert st.points[0].tolist() == points and bool(st.mordienne[0]) == (max(points) == 2)
    p = points[0] - points[1]
    assert rewards(env) == [p, -p, p, -p]


def test_reward_win_for_one_deal_is_the_sign_of_its_points():
    """D12: reward="win" with episode="deal" pays the sign of the deal's points: ±1 after mordienne (2 points)."""
    env = play_sequence([0, 2, "X", 1, "X", 3, 3, 3, 3], reward="win")
    assert env.game_state.points[0].tolist() == [0, 2]
    assert rewards(env) == [-1, 1, -1, 1]


def test_accepted_surrenders_count_as_deals_of_a_match():
    """§4.4 / §6: an accepted surrender ends the deal with 1 point to the accepting team, the deal counts
    toward the match and passes to the left; a 2-deal match at 1-1 is a draw (reward="score" pays each
    deal, reward="win" pays only the match result)."""
    for reward in ("score", "win"):
        env = new_env(make_deck(0), dealer=0, episode="match", surrender=True, chant=False, signals="off",
                      match_deals=2, reward=reward)
        play(env, "S1:offer_surrender S2:accept_surrender")  # dealer 0: L = S1 offers, S2 (team A) accepts
        st = env.game_state
        assert int(st.deals[0]) == 1 and st.score[0].tolist() == [1, 0] and not any(env.terminations.values())
        assert rewards(env) == ([1, -1, 1, -1] if reward == "score" else [0, 0, 0, 0])
        assert int(st.dealer[0]) == 1 and env.agent_selection == "player_2"  # the new L offers first
        play(env, "S2:offer_surrender S3:accept_surrender")  # team B accepts
        assert int(st.deals[0]) == 2 and st.score[0].tolist() == [1, 1] and all(env.terminations.values())
        assert env.infos["player_0"]["match_result"] == "draw"
        assert rewards(env) == ([-1, 1, -1, 1] if reward == "score" else [0, 0, 0, 0])


# ----------------------------------------------------------------------------- chant vote and signal windows (§4.1, §4.5)
def test_the_dealer_refusing_last_cancels_the_chant():
    """§4.1: one refusal settles it, the dealer's (the fourth vote) too: no chant, nine cards each, the
    signalling round opens at L."""
    env = new_env(make_deck(0, talon=TALON), dealer=0)
    play(env, "S1:accept_chant S2:accept_chant S3:accept_chant S0:refuse_chant")
    st = env.game_state
    assert st.votes[0].tolist() == [0, 1, 1, 1] and not st.chanted[0]
    assert all(len(h) == 9 for h in env.hands.values())
    assert env.agent_selection == "player_1" and int(st.phase[0]) == 2
    assert not any(st.received[0].tolist())


def test_a_signal_in_trick_play_keeps_the_turn_and_signals_renew_each_deal():
    """§4.5: in trick play (round_and_turns) a signal leaves the turn with the sender; each name once per
    deal, so after madame in the round only `as` is left; the next deal of a match starts afresh."""
    hands = {2: "3Cu ASw 4Co 5Co 6Co 7Co 8Co JCo NCo"}
    env = new_env(make_deck(1, hands), dealer=1, chant=False, episode="match", match_deals=2)
    play(env, "S2:madame S2:end_signals S3:end_signals S0:end_signals S1:end_signals")
    cards = {name(c) for c in range(48)}
    assert env.agent_selection == "player_2" and legal_names(env) - cards == {"as"}
    play(env, "S2:as")
    assert env.agent_selection == "player_2" and legal_names(env) - cards == set()
    assert legal_names(env) == {name(c) for c in env.hands["player_2"]}
    assert obs_slice(env, "player_0", "signals[partner]").tolist() == [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    while int(env.game_state.deals[0]) == 0:
        env.step(min(a for a in env.legal_actions() if a < 48))
    st = env.game_state
    assert int(st.dealer[0]) == 2 and env.agent_selection == "player_3" and int(st.phase[0]) == 2
    assert st.sent[0].tolist() == [0, 0, 0, 0]
    assert not obs_slice(env, "player_0", "signals[partner]").any()


@pytest.mark.parametrize("reward, pay", [("score", 2.0), ("win", 1.0)])
def test_match_target_passed_with_mordienne(reward, pay):
    """§6 match_target: the match ends once a team has at least n points, so 4 + 2 (mordienne: S0 wins
    tricks 2-9) = 6 >= 5 ends it from a 4-3 score (``score`` reset hook); reward="score" pays the deal's
    2 points, "win" the match result."""
    hands, script = sequence_deal(0, [3, 0, 0, 0, 0, 0, 0, 0, 0])
    env = new_env(make_deck(0, hands), dealer=0, score=[4, 3], episode="match", match_target=5, reward=reward, **QUIET)
    play(env, script)
    st = env.game_state
    assert st.points[0].tolist() == [2, 0] and st.score[0].tolist() == [6, 3]
    assert int(st.winner[0]) == 0 and all(env.terminations.values())
    assert env.infos["player_0"]["match_result"] == "team A wins"
    assert rewards(env) == [pay, -pay, pay, -pay]


def test_truthful_signals_judge_the_hand_after_the_chant():
    """§4.2 + §4.5: truth is judged on the hand at the moment of signalling, after the chant. S1 (L) holds
    no key card and no ace, receives 3Co (t1) and keeps it: `monsieur` is his only signal. The dealer S0
    receives 3Cu (t2) and discards it with his other talon cards: no key card, no ace, only `faible`."""
    hands = {1: "4Co 5Co 6Co 7Co 8Co 4Cu 5Cu 6Cu 7Cu", 0: "JCo JCu JCl JSw NCo NCu NCl NSw KCo"}
    env = new_env(make_deck(0, hands, talon="3Co 3Cu 4Sw 5Sw 6Sw 7Sw 8Sw 4Cl 5Cl 6Cl 7Cl 8Cl"), dealer=0)
    play(env, "S1:accept_chant S2:accept_chant S3:accept_chant S0:accept_chant")
    assert "3Co" in {name(c) for c in env.hands["player_1"]} and "3Cu" in {name(c) for c in env.hands["player_0"]}
    play(env, "S1:4Co S1:5Co S1:6Co S1:7Co S1:8Co S1:4Sw")
    play(env, "S0:3Cu S0:5Sw S0:7Sw S0:4Cl S0:6Cl S0:8Cl")
    cards = {name(c) for c in range(48)}
    assert env.agent_selection == "player_1" and legal_names(env) - cards == {"monsieur", "end_signals"}
    play(env, "S1:monsieur S1:end_signals S2:end_signals S3:end_signals")
    assert env.agent_selection == "player_0" and legal_names(env) - cards == {"faible", "end_signals"}


# ----------------------------------------------------------------------------- the spec's examples through the kernel API
@pytest.mark.parametrize(
    "leader, cards, winner",
    [
        (1, "5Cu KSw ACl 4Co", 3),  # E1: the ace alone on top, seat 3 wins and leads
        (1, "KCo ASw ACu 8Cl", 4),  # E2: two aces tie on top, spoiled, seat 1 leads again
        (0, "5Co 5Cu 6Sw 4Cl", 2),  # E3: the tie of fives below the six does not matter
        (2, "9Sw 9Co ACo 9Cu", 1),  # E4: grand-neuf beats petit-neuf, which beats the ace
    ],
    ids=["E1", "E2", "E3", "E4"],
)
def test_e1_to_e4_through_the_kernel_api(leader, cards, winner):
    """Spec §10 E1-E4 with ``envs.kernel("aluette")``: ``init`` with the deck/dealer hooks, ``step``."""
    from cardzoo import envs

    names = cards.split()
    seats = [(leader + i) % 4 for i in range(4)]
    k = envs.kernel("aluette", chant=False, signals="off")
    dealer = (leader - 1) % 4
    deck = make_deck(dealer, {s: c for s, c in zip(seats, names)})
    rng = np.random.default_rng(0)
    st = k.init(rng, 1, deck=np.array(deck), dealer=dealer)
    for s, c in zip(seats, names):
        assert int(st.current_player[0]) == s
        assert k.legal_actions(st)[0][cid(c)]
        k.step(st, np.array([cid(c)]), rng)
    assert int(st.results[0, 0]) == winner
    assert int(st.current_player[0]) == (leader if winner == 4 else winner)
    assert st.won[0].tolist() == [int(winner == s) for s in range(4)]


def test_e10_through_the_kernel_api():
    """Spec §10 E10: seat 2 holds 3Cu and ASw and no other key card: `madame` and `as` legal, not
    `monsieur` nor `faible`; after `madame`, seat 0 (partner) hears it, seats 1 and 3 do not, and seat 2
    cannot send it again this deal."""
    from cardzoo import envs

    k = envs.kernel("aluette", chant=False)
    hand2 = "3Cu ASw 4Co 5Co 6Co 7Co 8Co 4Cu 5Cu"
    rng = np.random.default_rng(0)
    st = k.init(rng, 1, deck=np.array(make_deck(1, {2: hand2})), dealer=1)  # seat 2 = L: signals first
    assert int(st.current_player[0]) == 2
    legal = {k.action_name(a) for a in np.flatnonzero(k.legal_actions(st)[0])}
    assert legal == {"madame", "as", "end_signals"}
    k.step(st, np.array([51]), rng)  # madame
    assert int(st.current_player[0]) == 2
    lay = k.obs_layout
    heard = {s: k.observe(st, s)[0] for s in range(4)}
    assert heard[0][lay["signals[partner]"]].tolist() == [0, 1] + [0] * 8
    for s in (1, 3):
        for r in ("me", "next", "partner", "previous"):
            assert heard[s][lay[f"signals[{r}]"]].sum() == 0
    legal = {k.action_name(a) for a in np.flatnonzero(k.legal_actions(st)[0])}
    assert legal == {"as", "end_signals"}


# ----------------------------------------------------------------------------- spec audit: rules without a worked example
# Expected values are worked out by hand from the spec (§ numbers as in RULES.md), not from the kernel.
def test_deal_in_threes_from_the_dealers_left_and_the_talon_in_pack_order():
    """§3 with dealer S2 and the pack in id order (pack position p holds card id p): packets of three
    to L = S3, P = S0, R = S1, D = S2, three rounds, so S3 holds positions 0-2, 12-14, 24-26, S0 3-5,
    15-17, 27-29, S1 6-8, 18-20, 30-32, S2 9-11, 21-23, 33-35. t1..t12 are positions 36..47: after
    a chant accepted by all, L (S3) receives t1 t3 ... t11 = ids 36 38 ... 46 and the dealer (S2) t2 ...
    t12 = ids 37 39 ... 47. L (S3) speaks first and, after the chant, discards first."""
    env = new_env(list(range(48)), dealer=2)
    expect = {3: [0, 1, 2, 12, 13, 14, 24, 25, 26], 0: [3, 4, 5, 15, 16, 17, 27, 28, 29],
              1: [6, 7, 8, 18, 19, 20, 30, 31, 32], 2: [9, 10, 11, 21, 22, 23, 33, 34, 35]}
    for s, cards in expect.items():
        assert sorted(env.hands[P[s]]) == cards
    assert env.agent_selection == "player_3"
    play(env, "S3:accept_chant S0:accept_chant S1:accept_chant S2:accept_chant")
    st = env.game_state
    assert cards_of(st.received[0, 3]) == list(range(36, 48, 2))
    assert cards_of(st.received[0, 2]) == list(range(37, 48, 2))
    assert sorted(env.hands["player_3"]) == sorted(expect[3] + list(range(36, 48, 2)))
    assert env.agent_selection == "player_3"  # L discards first


@pytest.mark.parametrize(
    "offers, answerer, answer, seq, points",
    [
        # S3 (team B) offers after S1, S2 passed; his left-hand opponent S0 (team A) answers for A
        ("S1:no_offer S2:no_offer S3:offer_surrender", 0, "accept", None, [1, 0]),
        # the dealer S0 (team A) offers last; S1 (team B) answers: B +1
        ("S1:no_offer S2:no_offer S3:no_offer S0:offer_surrender", 1, "accept", None, [0, 1]),
        # S3 offers, S0 refuses: A is committed to mordienne. S2 (A) wins tricks 2..9 after a spoiled
        # first trick: mordienne by the refusing team -> A +2
        ("S1:no_offer S2:no_offer S3:offer_surrender", 0, "refuse", ["X"] + [2] * 8, [2, 0]),
        # the same refusal, A's S2 wins tricks 1..9 (no mordienne, k = 1) -> the offering team B +2
        ("S1:no_offer S2:no_offer S3:offer_surrender", 0, "refuse", [2] * 9, [0, 2]),
    ],
)
def test_surrender_offered_by_a_later_speaker(offers, answerer, answer, seq, points):
    """§4.4: offers go from L clockwise until someone offers; the offerer's left-hand opponent
    answers for his team; accept = 1 point to the accepting team, deal over; refuse = play, and §6:
    2 to the refusing team only if its player wins the deal with mordienne, else 2 to the offerers.
    Rewards (``reward="score"``): +p to the scoring team, -p to the other."""
    hands = sequence_deal(0, seq)[0] if seq else None
    env = new_env(make_deck(0, hands), dealer=0, surrender=True, chant=False, signals="off")
    play(env, offers)
    assert env.agent_selection == P[answerer]
    assert legal_names(env) == {"accept_surrender", "refuse_surrender"}
    play(env, f"S{answerer}:{answer}_surrender")
    if answer == "refuse":
        assert env.agent_selection == "player_1" and legal_names(env) <= {name(c) for c in range(48)}
        play(env, sequence_deal(0, seq)[1])
    assert all(env.terminations.values())
    assert env.game_state.points[0].tolist() == points
    p = points[0] - points[1]
    assert rewards(env) == [p, -p, p, -p]


def test_option_defaults_are_the_spec_table():
    """§8: every option of the spec's table has the spec's default, and its enumerated values are
    accepted (``signal_intercept`` and ``max_deals`` are documented additions, RULES.md §9 D3, D9)."""
    from cardzoo.envs.aluette.kernel import AluetteKernel

    spec_defaults = {
        "partnership_draw": False, "first_dealer": "random", "episode": "deal", "reward": "score", "chant": True,
        "chant_recipients": "left_and_dealer", "mordienne": True, "surrender": False, "signals": "truthful",
        "signal_visibility": "partner", "signal_timing": "round_and_turns", "match_deals": 5, "match_target": None,
    }
    k = AluetteKernel()
    assert {n: k.options[n] for n in spec_defaults} == spec_defaults
    assert set(AluetteKernel.OPTIONS) - set(spec_defaults) == {"signal_intercept", "max_deals"}
    choices = {
        "first_dealer": ("random", 0, 1, 2, 3), "episode": ("deal", "match"), "reward": ("score", "win"),
        "chant_recipients": ("left_and_dealer", "left_and_partner"), "signals": ("truthful", "free", "off"),
        "signal_visibility": ("partner", "public"), "signal_timing": ("round_and_turns", "round"),
    }
    for n, values in choices.items():
        for v in values:
            assert AluetteKernel(**{n: v}).options[n] == v
        with pytest.raises(ValueError, match=n):
            AluetteKernel(**{n: "nonsense"})
    for n in ("partnership_draw", "chant", "mordienne", "surrender"):
        assert AluetteKernel(**{n: not spec_defaults[n]}).options[n] is (not spec_defaults[n])
    assert AluetteKernel(episode="match", match_target=5).options["match_target"] == 5
