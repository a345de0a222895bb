"""The worked examples of RULES.md §10 (E1-E13) with their exact numbers, and the rules they
illustrate (§2-§6) through the kernel and the deal scorer."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs import ottocento_v0
from cardzoo.envs.core.cards import mask_to_cards
from cardzoo.envs.ottocento.combos import combo_score
from cardzoo.envs.ottocento.constants import DECLARE, DECLARING, DISCARD, MAT, PASS, PLAY
from cardzoo.envs.ottocento.kernel import OttocentoKernel
from cardzoo.envs.ottocento.scoring import card_points_half, deal_totals, score_deal

from ottocento_util import E11_CASES, bb, cid, legal_names, make_deck, names, play_trick, seat_positions, trick_state

FILL = ["QS NS", "QB NB", "QC NC", "QD ND"]  # spare cards so hands are not emptied by the trick


# ----------------------------------------------------------------------------- tricks (§2.2, §5)
def test_e1_swords_natural_order():
    k, st = trick_state(["7S KB", "10S KC", "AS KD", "6S T5"])
    assert play_trick(k, st, ["7S", "10S", "AS", "6S"]) == 1  # 10S wins


def test_e2_cups_reversed_numerals():
    k, st = trick_state(["10C JC", "6C AC", "AC 6S", "8C 9C"])
    assert play_trick(k, st, ["10C", "6C", "AC", "8C"]) == 2  # AC > 6C > 8C > 10C
    k, st = trick_state(["JC", "AC", "6C", "9C"])
    assert play_trick(k, st, ["JC", "AC", "6C", "9C"]) == 0  # courts rank above the Ace


def test_e3_trumping_and_legal_cards():
    k, st = trick_state(["9D 8D", "T5 9S", "MO2 9B", "KD 7D"])
    assert play_trick(k, st, ["9D", "T5", "MO2", "KD"]) == 1  # a trump beats any suit card; T5 > Moor
    assert bin(int(st.piles[0, 1])).count("1") == 4
    # legal cards of P2 (seat 1) with cups led
    for hand, legal in [
        ("T16 MO2 MAT 9S", {"T16", "MO2", "MAT"}),
        ("7C KC T10 MAT", {"7C", "KC", "MAT"}),
        ("9S JB MAT", {"9S", "JB", "MAT"}),
    ]:
        k, st = trick_state(["QC 6C", hand, "AS", "AB"])
        k.step(st, np.array([cid("QC")]), np.random.default_rng(0))
        assert legal_names(k, st) == legal


def test_trumps_led_follow_trumps_else_anything():
    k, st = trick_state(["T9 6C", "T5 9S MAT", "9B JB", "KD T16"])
    k.step(st, np.array([cid("T9")]), np.random.default_rng(0))
    assert legal_names(k, st) == {"T5", "MAT"}
    k.step(st, np.array([cid("T5")]), np.random.default_rng(0))
    assert legal_names(k, st) == {"9B", "JB"}  # void in trumps: anything
    # the Matto may be led, even holding other cards
    k, st = trick_state(["T9 6C MAT", "T5", "9B", "KD"])
    assert legal_names(k, st) == {"T9", "6C", "MAT"}


def test_e4_moors_tie_latest_wins():
    k, st = trick_state(["MO1 6S", "BEG 6B", "MO3 6C", "8D 7D"])
    assert play_trick(k, st, ["MO1", "BEG", "MO3", "8D"]) == 2
    k, st = trick_state(["MO1 6S", "BEG 6B", "MO3 6C", "8D 7D"], moors_tie="first_played")
    assert play_trick(k, st, ["MO1", "BEG", "MO3", "8D"]) == 0


def test_e5_matto_led_and_matto_played_while_able_to_follow():
    k, st = trick_state(["MAT 6S", "8B 7B", "KB 9C", "T6 7D"])
    k.step(st, np.array([cid("MAT")]), np.random.default_rng(0))
    assert legal_names(k, st) == {"8B", "7B"}  # the second player is free: his whole hand
    k, st = trick_state(["MAT 6S", "8B 7B", "KB 9C", "T6 7D"])
    winner = play_trick(k, st, ["MAT", "8B", "KB", "T6"])
    assert winner == 3  # batons set by the second card; T6 trumps
    assert int(st.matto_winner[0]) == 3 and int(st.piles[0, 1]) & (1 << MAT)
    # second case: QC led, P2 holds cups and plays the Matto legally, then KC, 9C -> KC wins
    k, st = trick_state(["QC 6S", "MAT 7C", "KC 9B", "9C 7D"])
    assert play_trick(k, st, ["QC", "MAT", "KC", "9C"]) == 2


def test_a_lone_led_matto_is_not_winning_the_trick():
    """§2.2: the Matto never wins a trick, so while it is the only card of the trick nobody is
    winning it: the state's ``trick_winner`` is -1 and every seat's ``trick_winner`` slice is all
    zeros; the second card (8B, seat 1) then wins so far, and each seat sees seat 1 relative to it."""
    k, st = trick_state(["MAT 6S", "8B 7B", "KB 9C", "T6 7D"])
    sl = k.obs_layout["trick_winner"]
    rng = np.random.default_rng(0)
    k.step(st, np.array([cid("MAT")]), rng)
    assert int(st.trick_winner[0]) == -1
    for seat in range(4):
        assert k.observe(st, seat)[0, sl].tolist() == [0, 0, 0, 0]
    k.step(st, np.array([cid("8B")]), rng)
    assert int(st.trick_winner[0]) == 1
    assert [k.observe(st, seat)[0, sl].tolist() for seat in range(4)] == [
        [0, 1, 0, 0],  # seat 0: the next seat
        [1, 0, 0, 0],  # seat 1: me
        [0, 0, 0, 1],  # seat 2: the previous seat
        [0, 0, 1, 0],  # seat 3: the partner
    ]


def test_matto_led_then_trump_means_trumps_led():
    k, st = trick_state(["MAT 6S", "T7 7B", "KB T9", "T6 7D"])
    rng = np.random.default_rng(0)
    k.step(st, np.array([cid("MAT")]), rng)
    k.step(st, np.array([cid("T7")]), rng)
    assert legal_names(k, st) == {"T9"}  # trumps count as led
    k.step(st, np.array([cid("T9")]), rng)
    k.step(st, np.array([cid("T6")]), rng)
    assert int(st.leader[0]) == 2


# ----------------------------------------------------------------------------- card points (§2.3, E9, E10)
def test_e10_small_counts_and_the_whole_pack():
    assert int(card_points_half(bb("KS T16 7C MAT"))) == 2 * 10
    assert int(card_points_half(np.uint64((1 << 62) - 1))) == 2 * 87


def test_e9_card_points_and_pile_score():
    pile = bb("KS KB KC QS QB QD NS JS AS AB AD MO1 MO2 BEG T7 T8 6C 7C 9D 10B")
    assert int(card_points_half(pile)) == 2 * 38
    assert int(card_points_half(pile)) // 2 + int(combo_score(pile)) == 199


def test_e10_dealer_team_wins_no_trick():
    everything = np.uint64((1 << 62) - 1)
    discards = bb("6S 7S")
    piles = np.array([[0, everything & ~discards]], dtype=np.uint64)
    r = score_deal(piles, [discards], dealer=[0], tricks_won=[[0, 15]], matto_owner=[2], matto_winner=[1],
                   last_winner=[1], declared=[[0, 0]])
    assert int(r.discards_to[0]) == 1 and int(r.piles[0, 1]) == int(everything)
    assert int(r.matto[0]) == 2 and int(r.gift[0]) == -1  # owner team won no trick: the Matto stays
    assert int(r.cards[0, 1]) == 2 * 87 and int(r.last[0, 1]) == 6
    assert int(r.total[0, 1]) == 2 * (93 + int(combo_score(everything)))
    assert int(r.total[0, 0]) == 0
    # with discards_follow_tricks=False the dealer's team keeps them
    r = score_deal(piles, [discards], [0], [[0, 15]], [2], [1], [1], [[0, 0]], discards_follow_tricks=False)
    assert int(r.cards[0, 0]) == 2 * 2 - 2 and int(r.discards_to[0]) == 0


# ----------------------------------------------------------------------------- the Matto (§6.1, E12)
def _e12_piles(a_pile: str, b_extra: str):
    return np.array([[bb(a_pile), bb("MAT " + b_extra)]], dtype=np.uint64)


def test_e12_matto_gift_best_for_owner():
    a = "7S AC AD AB T9 KS QS NB KB QB JB JC"  # team A's 1-point cards: 7S AC AD AB T9
    piles = _e12_piles(a, "6B 7B 8B 9B 10B 6C 7C")
    before = card_points_half(piles[0])
    r = score_deal(piles, [0], dealer=[3], tricks_won=[[3, 2]], matto_owner=[0], matto_winner=[1],
                   last_winner=[1], declared=[[0, 0]])
    assert names([int(r.gift[0])]) == ["7S"] and int(r.matto[0]) == 1
    assert int(r.piles[0, 0]) & (1 << MAT) and not int(r.piles[0, 1]) & (1 << MAT)
    assert (r.cards[0] - before).tolist() == [2 * 4, -2 * 4]
    assert bin(int(r.piles[0, 0])).count("1") == bin(int(piles[0, 0])).count("1")
    # giving AC instead would shrink A's Aces (AC AD AB + MAT) from 15 to 10 and hand B an ace
    assert int(combo_score(r.piles[0, 0])) - int(combo_score(r.piles[0, 0] & ~bb("AC") | bb("7S"))) >= 5
    # lowest_id: the lowest id among 7S (2), AB (10), AC (20), AD (30), T9 (49)
    r2 = score_deal(piles, [0], [3], [[3, 2]], [0], [1], [1], [[0, 0]], matto_gift="lowest_id")
    assert names([int(r2.gift[0])]) == ["7S"]
    # without 7S the best gift is the one that costs least: T9 (in no combination here) before the aces
    piles3 = _e12_piles("AC AD AB T9 KS QS NB KB QB JB JC 8C", "6B 7B 8B 9B 10B 6C 7C")
    r3 = score_deal(piles3, [0], [3], [[3, 2]], [0], [1], [1], [[0, 0]])
    assert names([int(r3.gift[0])]) == ["8C"]
    piles4 = _e12_piles("AC AD AB T9 KS QS NB KB QB JB JC KC", "6B 7B 8B 9B 10B 6C 7C")
    r4 = score_deal(piles4, [0], [3], [[3, 2]], [0], [1], [1], [[0, 0]])
    assert names([int(r4.gift[0])]) == ["T9"]
    r5 = score_deal(piles4, [0], [3], [[3, 2]], [0], [1], [1], [[0, 0]], matto_gift="lowest_id")
    assert names([int(r5.gift[0])]) == ["AB"]


def test_e12_fallback_and_no_trick():
    piles = np.array([[bb("KS QS NB JC"), bb("MAT 6B 7B 8B")]], dtype=np.uint64)
    r = score_deal(piles, [0], [3], [[1, 1]], [0], [1], [1], [[0, 0]])
    assert names([int(r.gift[0])]) == ["JC"]
    assert (r.cards[0] - card_points_half(piles[0])).tolist() == [2 * 3, -2 * 3]
    r = score_deal(piles, [0], [3], [[1, 1]], [0], [1], [1], [[0, 0]], matto_fallback="forfeit")
    assert int(r.gift[0]) == -1 and int(r.matto[0]) == 2 and int(r.piles[0, 1]) & (1 << MAT)
    # team A won no trick: the Matto stays with B, nothing is exchanged
    piles = np.array([[0, bb("MAT 6B 7B 8B KS QS NB JC")]], dtype=np.uint64)
    r = score_deal(piles, [0], [1], [[0, 2]], [0], [1], [1], [[0, 0]])
    assert int(r.gift[0]) == -1 and int(r.matto[0]) == 2 and int(r.piles[0, 0]) == 0
    # a partner won the Matto's trick: nothing to settle
    piles = np.array([[bb("MAT 6B 7B 8B"), bb("KS QS NB JC")]], dtype=np.uint64)
    r = score_deal(piles, [0], [1], [[1, 1]], [0], [2], [1], [[0, 0]])
    assert int(r.matto[0]) == 0 and int(r.gift[0]) == -1
    # matto_rule="captured": no exchange (fate 3: captured by the opponents), odd piles keep their half-points
    piles = np.array([[bb("6B 7B 8B"), bb("MAT KS QS NB JC")]], dtype=np.uint64)
    r = score_deal(piles, [0], [1], [[1, 1]], [0], [1], [1], [[0, 0]], matto_rule="captured")
    assert int(r.matto[0]) == 3 and r.cards[0].tolist() == [2 * 3 - 3, 2 * 19 - 5]


@pytest.mark.parametrize("in_combos, captured", [(False, [20, 20]), (True, [20, 30])])
def test_a_discard_given_for_the_matto_counts_for_combinations_only_where_discards_do(in_combos, captured):
    """§6.1 with §8 ``discards_in_captured_combos``: team A (dealer S0) owns the Matto, which S1 won;
    A's only scartini are the discards AS 6S, so ``matto_gift="lowest_id"`` gives AS to B. With the
    option False "the discards count card points only", in either pile (RULES.md §11.4): B's pile
    AB AC KB QB NB JB + AS scores the batons K Q N J with AB (20) and no Aces (AB AC alone);
    with True, AS counts and B scores the Aces AS AB AC too (30). A: KS QS NS JS with the Matto (20)."""
    piles = np.array([[bb("KS QS NS JS"), bb("MAT AB AC KB QB NB JB")]], dtype=np.uint64)
    r = score_deal(piles, [bb("AS 6S")], [0], [[1, 1]], [0], [1], [1], [[0, 0]],
                   discards_in_captured_combos=in_combos, matto_gift="lowest_id")
    assert names([int(r.gift[0])]) == ["AS"] and int(r.matto[0]) == 1
    assert r.captured[0].tolist() == captured



# ----------------------------------------------------------------------------- totals (§6, E13)
def test_e13_totals():
    tot = deal_totals(cards_half=[2 * 50, 2 * 37], captured=[40, 31], declared=[203, 0], last=[0, 6])
    assert (tot // 2).tolist() == [293, 74] and tot[0] > tot[1]
    assert 50 + 37 == 87


def test_score_deal_adds_the_components_in_order():
    rng = np.random.default_rng(1)
    perm = rng.permutation(60)
    w = np.left_shift(np.uint64(1), np.arange(62, dtype=np.uint64))
    a = np.bitwise_or.reduce(w[perm[:28]])
    b = np.bitwise_or.reduce(w[perm[28:]])
    r = score_deal(np.array([[a, b]]), [w[60] | w[61]], [1], [[7, 8]], [1], [1], [0], [[12, 30]])
    assert int(r.discards_to[0]) == 1
    assert r.total[0].tolist() == (r.cards[0] + 2 * (r.captured[0] + np.array([12, 30]) + np.array([6, 0]))).tolist()
    assert int(r.cards[0].sum()) == 174


# ----------------------------------------------------------------------------- deal, discard, declarations (§3, §4)
def test_deal_positions_and_the_dealer_discards_two():
    env = ottocento_v0.env()
    deck = np.arange(62)
    env.reset(seed=0, options={"deck": deck, "dealer": 2})
    st = env.game_state
    for s, pos in seat_positions(2).items():
        assert sorted(env.hands[f"player_{s}"]) == sorted(deck[pos].tolist())
    assert len(env.hands["player_2"]) == 17 and env.agent_selection == "player_2"
    assert int(st.phase[0]) == DISCARD
    legal = set(names(env.legal_actions()))
    held = set(names(env.hands["player_2"]))
    forbidden = {"KS", "KB", "KC", "KD", "ANG", "WOR", "BEG", "MAT"}
    assert legal == held - forbidden and held & forbidden
    two = [a for a in env.legal_actions()][:2]
    env.step(two[0])
    env.step(two[1])
    assert int(st.discards[0]) == (1 << two[0]) | (1 << two[1])
    assert len(env.hands["player_2"]) == 15 and env.agent_selection == "player_3"  # dealer+1 leads


def test_declare_or_pass_before_first_card_and_points_unconditional():
    # seat 1 leads (dealer 0); seat 1 holds the E6 hand, seat 2 holds nothing that scores
    e6 = "ANG WOR MOO T16 T15 T13 BEG MAT KS QS JS AS KC KD AC"
    deck = make_deck({1: e6, 2: "6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6C 7C 8C 9C 10C"}, dealer=0)
    env = ottocento_v0.env()
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    st = env.game_state
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    assert env.agent_selection == "player_1" and int(st.phase[0]) == DECLARING
    assert env.legal_actions() == [DECLARE, PASS]
    env.step(DECLARE)
    assert int(st.decl_points[0, 1]) == 203 and int(st.phase[0]) == PLAY
    shown = set(names(mask_to_cards(st.shown[0, 1])))
    assert shown == set(e6.split())  # every card of the E6 hand scores in some combination
    assert env.known_cards["player_1"] == sorted(mask_to_cards(st.shown[0, 1]))
    env.step(cid("KS"))
    assert env.known_cards["player_1"] == sorted(set(mask_to_cards(st.shown[0, 1])) - {cid("KS")})
    # seat 2's hand scores 0: no decision step, straight to a card
    assert env.agent_selection == "player_2" and int(st.phase[0]) == PLAY
    assert bool(st.decided[0, 2]) and not bool(st.declared[0, 2])


def test_e6_shown_cards():
    from cardzoo.envs.ottocento.combos import combo_breakdown

    shown = set(names(mask_to_cards(combo_breakdown(bb("ANG WOR MOO T16 T15 T13 BEG MAT KS QS JS AS KC KD AC")).shown)))
    assert shown == {"ANG", "WOR", "MOO", "T16", "T15", "T13", "BEG", "MAT", "KS", "QS", "JS", "AS", "KC", "KD", "AC"}


@pytest.mark.parametrize("mode", ["auto_all", "none"])
def test_declaration_modes(mode):
    e6 = "ANG WOR MOO T16 T15 T13 BEG MAT KS QS JS AS KC KD AC"
    deck = make_deck({1: e6}, dealer=0)
    env = ottocento_v0.env(declaration_mode=mode)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    st = env.game_state
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    assert int(st.phase[0]) == PLAY and DECLARE not in env.legal_actions()
    assert int(st.decl_points[0, 1]) == (203 if mode == "auto_all" else 0)


def test_full_deal_scores_every_component_and_pays_win_loss():
    env = ottocento_v0.env()
    rng = np.random.default_rng(5)
    for seed in range(20):
        env.reset(seed=seed)
        total = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            total[agent] += rew
            env.step(None if term or trunc else int(rng.choice(env.legal_actions())))
        st = env.game_state
        r = info
        assert sum(r["card_points"]) == 87
        assert r["totals"] == [c + k + d + l for c, k, d, l in zip(r["card_points"], r["captured_combinations"],
                                                                     r["declarations_team"], r["last_trick"])]
        sign = np.sign(r["totals"][0] - r["totals"][1])
        assert total == {"player_0": sign, "player_2": sign, "player_1": -sign, "player_3": -sign}
        assert sorted(mask_to_cards(st.final_piles[0, 0] | st.final_piles[0, 1])) == list(range(62))


# ----------------------------------------------------------------------------- whole deals through the env (§1, §6, §8, E10)
# Team B (seats 1, 3) holds every trump, the Matto and K Q N J of swords and batons; dealer 0 (team A).
# Whatever is played, B wins all 15 tricks: A can follow swords/batons only below B's courts, and is
# void in trumps.
LOPSIDED = {1: "ANG WOR SUN MOO T16 T15 T14 T13 T12 T11 T10 KS QS NS JS",
            3: "T9 T8 T7 T6 T5 MO1 MO2 MO3 MO4 BEG MAT KB QB NB JB"}


def _play_lowest(env, stop=None):
    """Pass every declaration and play the lowest legal card until the episode ends (or ``stop()``);
    returns each agent's summed rewards."""
    total = {a: 0.0 for a in env.possible_agents}
    while not any(env.terminations.values()) and not (stop and stop()):
        legal = env.legal_actions()
        env.step(PASS if PASS in legal else min(legal))
        for a in total:
            total[a] += env.rewards[a]
    return total


@pytest.mark.parametrize("hands", [LOPSIDED, {1: LOPSIDED[1], 3: LOPSIDED[3].replace("MAT", "10B"), 2: "MAT"}],
                         ids=["matto-with-B", "matto-with-A"])
def test_e10_whole_deal_the_dealers_team_takes_no_trick(hands):
    """RULES §3.4, §6, E10: the dealer's team wins no trick, so B holds all 62 cards (the discards
    too): 87 card points + 6 for the last trick + combo(whole pack) = sets 148 doubled (296) +
    sequences (four suits 30 each, Aces 25, Moors 25, Grande 105 = 275) doubled (550) = 846, so
    939 to 0. §6.1: when the Matto is A's, A won no trick, so it stays with B and nothing is given."""
    deck = make_deck(hands, dealer=0)
    for reward, pay in (("win_loss", 1.0), ("point_diff", 9.39)):
        env = ottocento_v0.env(reward=reward)
        env.reset(seed=0, options={"deck": deck, "dealer": 0})
        total = _play_lowest(env)
        info = env.infos["player_0"]
        assert info["tricks_won"] == [0, 15] and info["discards_to"] == "B"
        assert info["card_points"] == [0, 87] and info["captured_combinations"] == [0, 846]
        assert info["last_trick"] == [0, 6] and info["declarations_team"] == [0, 0]
        assert info["totals"] == [0, 939] and int(env.game_state.winner[0]) == 1
        assert info["matto"] == ("stayed with the opponents" if 2 in hands else "kept by its team")
        assert info["matto_gift"] is None
        assert int(env.game_state.final_piles[0, 1]) == (1 << 62) - 1
        assert total == pytest.approx({"player_0": -pay, "player_1": pay, "player_2": -pay, "player_3": pay})


@pytest.mark.parametrize("bonus, winner, pay", [(-933, -1, 0.0), (-932, 1, -1.0), (-934, 0, 1.0)])
def test_equal_totals_draw_and_pay_nothing(bonus, winner, pay):
    """§6 step 6 / §9.14: equal totals draw (reward 0, no tie-break). With last_trick_bonus = -933 team
    B's 87 + 846 - 933 = 0 equals A's 0; one point either way decides the deal (``pay``: team A's reward)."""
    env = ottocento_v0.env(last_trick_bonus=bonus)
    env.reset(seed=0, options={"deck": make_deck(LOPSIDED, dealer=0), "dealer": 0})
    total = _play_lowest(env)
    assert env.infos["player_0"]["totals"] == [0, 933 + bonus]
    assert int(env.game_state.winner[0]) == winner
    assert total == {"player_0": pay, "player_1": -pay, "player_2": pay, "player_3": -pay}


@pytest.mark.parametrize("target, score, over", [(939, None, True), (940, None, False), (1000, [100, 61], True),
                                                 (1000, [100, 60], False)])
def test_match_ends_when_a_team_reaches_the_target_else_the_deal_passes_right(target, score, over):
    """§1, §8, §11.5: match totals add up (B: 939 this deal); reaching the target exactly at the end of a
    deal wins; otherwise the next deal is dealt by dealer + 1 (seat 1, who as the dealer discards first).
    Under point_diff every deal pays its difference / 100 (-9.39 to A), the match's last one included."""
    deck = make_deck(LOPSIDED, dealer=0)
    for reward in ("win_loss", "point_diff"):
        env = ottocento_v0.env(match_target=target, reward=reward)
        opts = {"deck": deck, "dealer": 0}
        if score is not None:
            opts["score"] = score
        env.reset(seed=0, options=opts)
        st = env.game_state
        total = _play_lowest(env, stop=lambda: int(st.deals_played[0]) == 1)
        before = score or [0, 0]
        assert (st.score[0] // 2).tolist() == [before[0], before[1] + 939]
        assert all(env.terminations.values()) == over
        if over:
            assert int(st.winner[0]) == 1
        else:
            assert int(st.dealer[0]) == 1 and env.agent_selection == "player_1" and int(st.phase[0]) == DISCARD
        pay = 9.39 if reward == "point_diff" else (1.0 if over else 0.0)
        assert total == pytest.approx({"player_0": -pay, "player_1": pay, "player_2": -pay, "player_3": pay})


def test_declarations_add_to_a_whole_deal_and_show_only_scoring_cards():
    """§4.1, §4.3, §6 step 4 on the LOPSIDED deal, B declaring and A passing. S1 (ANG WOR SUN MOO
    T16-T10 KS QS NS JS): Grande ANG WOR SUN MOO T16..T10, T9 missing, no contatore: L = 11 -> 50; swords
    K Q N J -> 15; two sequences, no set of 3 -> 65. S3 (T9-T5 MO1-MO4 BEG MAT KB QB NB JB): Moors
    4 + 2 contatori -> 25, batons K Q N J + 2 -> 25, no Grande without the Angel -> 50. B: 939 + 115 =
    1054. S3's T9..T5 score nothing, so they stay hidden."""
    env = ottocento_v0.env()
    env.reset(seed=0, options={"deck": make_deck(LOPSIDED, dealer=0), "dealer": 0})
    st = env.game_state
    while not any(env.terminations.values()):
        legal = env.legal_actions()
        if DECLARE in legal:
            env.step(DECLARE if env.agent_selection in ("player_1", "player_3") else PASS)
        else:
            env.step(min(legal))
    info = env.infos["player_0"]
    assert info["declarations"] == [0, 65, 0, 50] and info["declarations_team"] == [0, 115]
    assert info["declared"] == [False, True, False, True]
    assert info["totals"] == [0, 87 + 846 + 115 + 6]
    assert set(names(mask_to_cards(st.shown[0, 1]))) == set(LOPSIDED[1].split())
    assert set(names(mask_to_cards(st.shown[0, 3]))) == set("MO1 MO2 MO3 MO4 BEG MAT KB QB NB JB".split())


def test_matto_led_into_the_last_trick_is_settled_like_any_other():
    """§5 (no special rule for the Matto in trick 15), §6.1, §6 step 5, §9.11. Before trick 15 A has won
    {QS NS JS 10S}, B {QB NB JB 10B}. S0 (who was dealt the Matto) leads it; S1's 6B sets batons, S2
    follows with AB (lowest baton), S3 discards 9D: S1 wins trick 15 with the Matto in it. B gets the 6
    for the last trick; the Matto goes back to A for A's only scartino 10S. A: QS NS JS MAT = 14 - 2 = 12;
    B: QB NB JB 10B 6B AB 9D 10S = 14 - 4 = 10, + 6 = 16 (no combinations): B wins."""
    k, st = trick_state(["MAT", "6B", "AB", "9D"])  # dealer 3, no discards
    st.tricks_done[0] = 14
    st.piles[0, 0], st.piles[0, 1] = bb("QS NS JS 10S"), bb("QB NB JB 10B")
    st.tricks_won[0, 0] = st.tricks_won[0, 1] = 1
    st.matto_owner[0] = 0
    assert play_trick(k, st, ["MAT", "6B", "AB", "9D"]) == 1 and bool(st.done[0])
    info = k.info(st, 0)
    assert info["matto"] == "moved back for a gift card" and info["matto_gift"] == "10S"
    assert sorted(info["piles"][0]) == sorted("QS NS JS MAT".split())
    assert sorted(info["piles"][1]) == sorted("QB NB JB 10B 6B AB 9D 10S".split())
    assert info["card_points"] == [12, 10] and info["last_trick"] == [0, 6] and info["totals"] == [12, 16]
    assert st.rewards[0].tolist() == [-1, 1, -1, 1]


@pytest.mark.parametrize("forbidden", ["kings_and_honours", "five_point_cards"])
def test_a_dealer_holding_all_eight_forbidden_cards_discards_from_the_other_nine(forbidden):
    """§3.3: kings, ANG, WOR, BEG and MAT may never be discarded (both option names are that set); with
    all eight among his 17 the dealer still has 9 legal discards, and after two of them he holds 15."""
    eight = "KS KB KC KD ANG WOR BEG MAT"
    nine = "6S 7S 8S 6B 7B 8B 6C 7C 8C"
    env = ottocento_v0.env(forbidden_discards=forbidden)
    env.reset(seed=0, options={"deck": make_deck({2: eight + " " + nine}, dealer=2), "dealer": 2})
    assert env.agent_selection == "player_2" and set(names(env.hands["player_2"])) == set((eight + " " + nine).split())
    assert set(names(env.legal_actions())) == set(nine.split())
    env.step(cid("6S"))
    assert set(names(env.legal_actions())) == set(nine.split()) - {"6S"}
    env.step(cid("8C"))
    assert len(env.hands["player_2"]) == 15 and set(names(mask_to_cards(env.game_state.discards[0]))) == {"6S", "8C"}


# ----------------------------------------------------------------------------- E7, E8, E11 through a dealt hand and a deal's scoring
NUMERALS = "6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6C 7C 8C 9C 10C 6D 7D 8D 9D 10D".split()  # in no combination


def _first_decision(hand: str):
    """Deal ``hand`` (15 cards) to seat 1, the leader (dealer 0); the dealer discards; returns the env
    at seat 1's first turn."""
    assert len(hand.split()) == 15
    env = ottocento_v0.env()
    env.reset(seed=0, options={"deck": make_deck({1: hand}, dealer=0), "dealer": 0})
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    assert env.agent_selection == "player_1"
    return env


def test_e7_grande_cut_by_two_gaps_declared_from_a_dealt_hand():
    """E7: ANG WOR SUN MOO T16 T13 T12 T11 BEG MAT: one contatore fills T15, T14 cannot follow a fill:
    Grande 30 + Tarocchi 36 = 66. T13-T11 do not count, so the declaration does not show them (§4.1)."""
    env = _first_decision("ANG WOR SUN MOO T16 T13 T12 T11 BEG MAT " + " ".join(NUMERALS[:5]))
    st = env.game_state
    assert int(st.phase[0]) == DECLARING and env.legal_actions() == [DECLARE, PASS]
    env.step(DECLARE)
    assert int(st.decl_points[0, 1]) == 66
    assert set(names(mask_to_cards(st.shown[0, 1]))) == {"ANG", "WOR", "SUN", "MOO", "T16", "BEG", "MAT"}


@pytest.mark.parametrize(
    "cards, expected",
    E11_CASES,
)
def test_e11_sequence_validity_edges_as_declarations(cards, expected):
    """E11 as 15-card hands (completed with numerals, which belong to no combination): a hand worth 0
    is not asked (automatic pass, §4.1); otherwise DECLARE banks exactly the example's value."""
    hand = cards.split()
    env = _first_decision(" ".join(hand + NUMERALS[: 15 - len(hand)]))
    st = env.game_state
    if expected == 0:
        assert int(st.phase[0]) == PLAY and bool(st.decided[0, 1]) and not bool(st.declared[0, 1])
        assert DECLARE not in env.legal_actions()
    else:
        assert int(st.phase[0]) == DECLARING
        env.step(DECLARE)
        assert int(st.decl_points[0, 1]) == expected


def test_e8_grande_into_the_moors_as_a_captured_pile():
    """E8 scored as team A's captured pile at the end of a deal (§6 step 3): T9 filled by MAT, 2 Moors
    join: Grande 85, Moors + MAT 10, Tarocchi 3 18 -> captured 113. Card points (§2.3): ANG WOR MAT
    5 each + 15 scartini = 30, minus 18/2 -> 21; B holds the other 44 cards (discards included) -> 66."""
    e8 = "ANG WOR SUN MOO T16 T15 T14 T13 T12 T11 T10 T8 T7 T6 T5 MAT MO1 MO2"
    a = bb(e8)
    discards = bb("6S 7S")
    b = np.uint64((1 << 62) - 1) & ~a & ~discards
    r = score_deal(np.array([[a, b]], dtype=np.uint64), [discards], dealer=[1], tricks_won=[[5, 10]],
                   matto_owner=[0], matto_winner=[2], last_winner=[1], declared=[[0, 0]])
    assert int(r.matto[0]) == 0 and int(r.discards_to[0]) == 1
    assert int(r.captured[0, 0]) == 113
    assert r.cards[0].tolist() == [2 * 21, 2 * 66]
    assert int(r.total[0, 0]) == 2 * (21 + 113)


@pytest.mark.parametrize("winner_cards, fate", [(["MAT", "6B", "AB", "9D"], "captured by the opponents"),
                                                (["MAT", "AB", "6B", "9D"], "kept by its team")])
def test_matto_rule_captured_says_where_the_matto_went(winner_cards, fate):
    """§8 ``matto_rule="captured"``: "the Matto goes to the trick winner, no exchange". Team A's Matto
    (S0) led to the last trick: won by S2 (6B, team A) it stays with A; won by S1 (6B, team B) it is
    in B's pile, and infos/text said "kept by its team" (the score was right). Now
    fate 3, "captured by the opponents"."""
    k, st = trick_state(winner_cards, matto_rule="captured")
    st.tricks_done[0] = 14
    st.piles[0, 0], st.piles[0, 1] = bb("QS NS JS 10S"), bb("QB NB JB 10B")
    st.tricks_won[0, 0] = st.tricks_won[0, 1] = 1
    st.matto_owner[0] = 0
    won_by = play_trick(k, st, winner_cards)
    info = k.info(st, 0)
    assert (won_by % 2, info["matto"], info["matto_gift"]) == ((1, fate, None) if "captured" in fate else (0, fate, None))
    assert "MAT" in info["piles"][won_by % 2]
    assert int(st.matto_fate[0]) == (3 if "captured" in fate else 0)


@pytest.mark.parametrize("bonus", [100_000, -100_000, 0])
def test_last_trick_bonus_takes_large_integers(bonus):
    """§8: last_trick_bonus is "any integer"; the env refused beyond ±1000. Scores are 32-bit
    half-points, so the option now takes -100,000..100,000 (a match of max_deals 10,000 deals stays in
    range): the team that won trick 15 (S1, team B) gets it (§6 totals in half-points: cards + 2 ×
    (captured + declared + last))."""
    piles = np.array([[bb("KS QS NB JC"), bb("MAT 6B 7B 8B")]], dtype=np.uint64)
    r = score_deal(piles, [0], [3], [[1, 1]], [0], [1], [1], [[0, 0]], last_trick_bonus=bonus)
    r0 = score_deal(piles, [0], [3], [[1, 1]], [0], [1], [1], [[0, 0]], last_trick_bonus=0)
    assert r.last[0].tolist() == [0, bonus]
    assert (r.total[0] - r0.total[0]).tolist() == [0, 2 * bonus]
    k = OttocentoKernel(last_trick_bonus=bonus, match_target=800)
    assert k.options["last_trick_bonus"] == bonus
    with pytest.raises(ValueError, match="valid values: an int from -100000 to 100000"):
        OttocentoKernel(last_trick_bonus=100_001 if bonus >= 0 else -100_001)


# ----------------------------------------------------------------------------- spec audit: rules without a worked example
# Each expected number below is worked out by hand from the spec (§ numbers as in RULES.md).


@pytest.mark.parametrize(
    "cards, winner",
    [
        (["SUN", "ANG", "WOR", "MOO"], 1),  # §2.2 ANG > WOR > SUN > MOO: the Angel (seat 1)
        (["T16", "MOO", "T15", "T5"], 1),  # MOO is above T16
        (["WOR", "SUN", "T16", "MOO"], 0),  # WOR above SUN, T16, MOO
        (["BEG", "T5", "MO4", "T6"], 3),  # T6 > T5 > Moor > BEG
        (["6S", "KB", "7S", "AS"], 2),  # §5: an off-suit King never wins; swords 7 > 6 > A
        (["T5", "KS", "6C", "BEG"], 0),  # trumps led: T5 > BEG; the plain cards of the voids do not count
        (["KC", "QC", "10C", "T5"], 3),  # the lowest numbered trump beats the King of the suit led
        (["MO1", "MO2", "T5", "MO3"], 2),  # the Moors tie only decides when a Moor is the best trump
        (["MO2", "BEG", "MO4", "MO1"], 3),  # three Moors: the latest (MO1, seat 3) wins
    ],
)
def test_trick_winner_by_the_full_trump_order(cards, winner):
    """§2.2 / §5: trumps rank ANG WOR SUN MOO T16 ... T5, Moors, BEG; if the trick holds a trump the
    highest trump wins, else the highest card of the suit led; a card of another plain suit never
    wins. Each seat holds only the card it plays (so it is void in whatever it does not play)."""
    k, st = trick_state(cards)
    assert play_trick(k, st, cards) == winner


@pytest.mark.parametrize(
    "cards, index, points",
    [
        ("WOR BEG MAT", 0, 18),  # Tarocchi 3 (no Angel: no Grande)
        ("KS KB KC", 1, 17),
        ("KS KB KC KD", 1, 34),
        ("QS QB QC", 2, 14),
        ("QS QB QC QD", 2, 28),
        ("NS NB NC", 3, 13),
        ("NS NB NC ND", 3, 26),
        ("JS JB JC", 4, 12),
        ("JS JB JC JD", 4, 24),
        ("KS KB", 1, 0),  # two of a kind score nothing
        ("QS QB BEG MAT", 2, 0),  # §4.2: contatori never stand in for a set member
    ],
)
def test_every_set_value_of_the_table(cards, index, points):
    """§4.2 table: 3 / 4 of a kind = Tarocchi 18/36, Kings 17/34, Queens 14/28, Knights 13/26,
    Jacks 12/24. None of these collections holds a sequence (no King with a court, at most one ace,
    no Angel), and one set is not doubled, so the total is the set's value."""
    from cardzoo.envs.ottocento.combos import combo_breakdown

    b = combo_breakdown(bb(cards))
    assert int(b.sets[index]) == points
    assert int(b.sets.sum()) == points and int(b.seqs.sum()) == 0
    assert int(b.total) == points


def test_three_suit_sequences_double_and_a_single_set_does_not():
    """§4.3 / §9.10: any two courts make a suit sequence with the King (K-Q-N swords, K-Q-J batons,
    K-N-J cups: 3 cards, 10 each), and three different sequences double the sequence subtotal:
    2 x 30 = 60. The Kings (KS KB KC: 17) are the only set (two queens, two knights, two jacks), so
    the set subtotal is not doubled: 17 + 60 = 77. The doublings are independent (§4.4)."""
    from cardzoo.envs.ottocento.combos import combo_breakdown

    b = combo_breakdown(bb("KS QS NS KB QB JB KC NC JC"))
    assert b.seqs.tolist() == [10, 10, 10, 0, 0, 0, 0] and bool(b.seqs_doubled)
    assert b.sets.tolist() == [0, 17, 0, 0, 0] and not bool(b.sets_doubled)
    assert int(b.total) == 77
    # K-Q-A of swords is no sequence (the Ace only lengthens a valid one): two sequences, no doubling
    b = combo_breakdown(bb("KS QS AS KB QB JB KC NC JC"))
    assert b.seqs.tolist() == [0, 10, 10, 0, 0, 0, 0] and int(b.total) == 17 + 20


@pytest.mark.parametrize(
    "cards, default, strict",
    [
        # t = 1 (WOR): BEG fills SUN, MOO is the natural skip; by default MAT may fill T16, then T15 T14:
        # L = 1 + 1 + 2 + 2 = 6 -> 25; strict: the missing MOO blocks the fill at T16: L = 1 + 1 + 0 + 2 = 4
        # -> 15. Tarocchi ANG WOR BEG MAT: 36.
        ("ANG WOR BEG MAT T15 T14", 36 + 25, 36 + 15),
        # t = 1 (MOO held): the head filler sits on WOR (SUN skipped), MOO is real, so T16 may be filled in
        # both readings: 25 either way; Tarocchi ANG BEG MAT: 18.
        ("ANG MOO BEG MAT T15 T14", 18 + 25, 18 + 25),
        # t = 2 (WOR SUN), one contatore: default fill at T16, T15 -> L = 1 + 2 + 1 + 1 = 5 -> 20; strict:
        # no fill at T16 -> L = 1 + 2 + 0 + 1 = 4 -> 15. No set (ANG WOR BEG is 3 Tarocchi: 18).
        ("ANG WOR SUN BEG T15", 18 + 20, 18 + 15),
    ],
)
def test_natural_skip_counts_as_gap_with_one_head_card(cards, default, strict):
    """§4.3 Grande head, §8 ``natural_skip_counts_as_gap`` (default False). The totals are combo()
    of §4.4 through the compiled scorer, and the same through a dealt hand's declaration."""
    assert int(combo_score(bb(cards))) == default
    assert int(combo_score(bb(cards), natural_skip_counts_as_gap=True)) == strict
    hand = cards.split()
    for opt, value in ((False, default), (True, strict)):
        env = ottocento_v0.env(natural_skip_counts_as_gap=opt)
        env.reset(seed=0, options={"deck": make_deck({1: " ".join(hand + NUMERALS[: 15 - len(hand)])}, dealer=0),
                                   "dealer": 0})
        env.step(env.legal_actions()[0])
        env.step(env.legal_actions()[0])
        env.step(DECLARE)
        assert int(env.game_state.decl_points[0, 1]) == value


@pytest.mark.parametrize("discards, asked, value", [("QC 6S", False, 0), ("6S 7S", True, 14)])
def test_the_dealers_declaration_is_valued_after_his_discard(discards, asked, value):
    """§4.1: "For the dealer that is the hand after discarding." Dealer S0 is dealt QS QB QC and 14
    numerals (17 cards). Discarding QC leaves two queens: the hand scores 0, so at his first turn he
    is not asked (automatic pass). Discarding two numerals keeps the Queens set of 3: 14 points,
    and DECLARE / PASS are his only actions then. He plays last in trick 1 (S1 leads)."""
    dealer_hand = "QS QB QC " + " ".join(NUMERALS[:14])
    env = ottocento_v0.env()
    env.reset(seed=0, options={"deck": make_deck({0: dealer_hand}, dealer=0), "dealer": 0})
    for card in discards.split():
        env.step(cid(card))
    st = env.game_state
    while env.agent_selection != "player_0":
        legal = env.legal_actions()
        env.step(PASS if PASS in legal else min(legal))
    assert int(st.tricks_done[0]) == 0 and int(st.decl_value[0, 0]) == value
    if asked:
        assert int(st.phase[0]) == DECLARING and env.legal_actions() == [DECLARE, PASS]
        env.step(DECLARE)
        assert int(st.decl_points[0, 0]) == 14
        assert set(names(mask_to_cards(st.shown[0, 0]))) == {"QS", "QB", "QC"}
    else:
        assert int(st.phase[0]) == PLAY and DECLARE not in env.legal_actions()
        assert bool(st.decided[0, 0]) and not bool(st.declared[0, 0])


@pytest.mark.parametrize("in_combos, captured_a", [(True, 28), (False, 0)])
def test_discards_count_for_captured_sets_only_with_the_option(in_combos, captured_a):
    """§3.4 / §8 ``discards_in_captured_combos``: dealer S0 (team A) discarded QS QB, A won QC QD
    in tricks. With the default the pile holds all four queens: Queens 28. With False the discards
    count card points only: QC QD alone score 0. Card points are the same both ways: A's pile
    QS QB QC QD 6S 7S = 4 x 4 + 2 - 6/2 = 15 (no Matto to settle: its team won it)."""
    piles = np.array([[bb("QC QD 6S 7S"), bb("MAT KS 8S 9S")]], dtype=np.uint64)
    r = score_deal(piles, [bb("QS QB")], dealer=[0], tricks_won=[[1, 1]], matto_owner=[1], matto_winner=[3],
                   last_winner=[0], declared=[[0, 0]], discards_in_captured_combos=in_combos)
    assert int(r.discards_to[0]) == 0 and int(r.matto[0]) == 0
    assert int(r.captured[0, 0]) == captured_a
    assert int(r.cards[0, 0]) == 2 * 15


def test_matto_gift_ties_go_to_the_lowest_id():
    """§6.1 ``best_for_owner``: among the eligible cards, the largest (owner combo - receiver combo)
    after the swap, ties to the lowest canonical id. A's 1-point cards are AB (id 10) and T7 (id 47),
    no numeral; AB is A's only ace, so neither card is in any combination of either side: both give
    the same difference and AB, the lower id, goes. B gets no Aces sequence from it (AB alone)."""
    piles = np.array([[bb("AB T7 KS QS"), bb("MAT 6B 7B 8B")]], dtype=np.uint64)
    r = score_deal(piles, [0], [3], [[1, 1]], [0], [1], [1], [[0, 0]])
    assert names([int(r.gift[0])]) == ["AB"] and int(r.matto[0]) == 1
    # A: KS QS T7 MAT = 5 + 4 + 1 + 5 - 2 = 13; B: 6B 7B 8B AB = 4 - 2 = 2
    assert (r.cards[0] // 2).tolist() == [13, 2]


def test_option_defaults_are_the_spec_table():
    """§8: the defaults are the source table's, and the enumerated options accept exactly the spec's
    values (``deal_packets`` and ``max_deals`` are documented additions, RULES.md §8)."""
    spec_defaults = {
        "dealer": "random", "deal_packets": 5, "forbidden_discards": "kings_and_honours",
        "discards_follow_tricks": True, "discards_in_captured_combos": True, "declaration_mode": "all_or_pass",
        "natural_skip_counts_as_gap": False, "moors_tie": "last_played", "last_trick_bonus": 6,
        "matto_rule": "exchange_at_end", "matto_fallback": "lowest_value", "matto_gift": "best_for_owner",
        "reward": "win_loss", "match_target": None, "declarations_win_immediately": False,
    }
    k = OttocentoKernel()
    assert {n: k.options[n] for n in spec_defaults} == spec_defaults
    assert set(OttocentoKernel.OPTIONS) - set(spec_defaults) == {"max_deals"}
    choices = {
        "dealer": ("random", 0, 1, 2, 3),
        "declaration_mode": ("all_or_pass", "auto_all", "none"),
        "moors_tie": ("last_played", "first_played"),
        "matto_rule": ("exchange_at_end", "captured"),
        "matto_fallback": ("lowest_value", "forfeit"),
        "matto_gift": ("best_for_owner", "lowest_id"),
        "reward": ("win_loss", "point_diff"),
    }
    for n, values in choices.items():
        for v in values:
            assert OttocentoKernel(**{n: v}).options[n] == v
        with pytest.raises(ValueError, match=n):
            OttocentoKernel(**{n: "nonsense"})
    assert OttocentoKernel(match_target=800).options["match_target"] == 800


def test_three_moors_under_both_moors_tie_options():
    """§2.2 / §8 ``moors_tie``: MO2 (S0), BEG (S1), MO4 (S2), MO1 (S3): the best trump is a Moor and
    three Moors are present: ``last_played`` gives the trick to the latest Moor (MO1, S3),
    ``first_played`` to the first (MO2, S0). BEG is below every Moor either way."""
    for tie, winner in (("last_played", 3), ("first_played", 0)):
        k, st = trick_state(["MO2", "BEG", "MO4", "MO1"], moors_tie=tie)
        assert play_trick(k, st, ["MO2", "BEG", "MO4", "MO1"]) == winner
