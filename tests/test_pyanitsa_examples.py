"""RULES.md §10 worked examples, each with its exact piles, losers and rewards (plus §2's table)."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs import pyanitsa_v0
from cardzoo.envs.core.cards import FRENCH36, FRENCH52
from cardzoo.envs.pyanitsa.kernel import PyanitsaKernel

from pyanitsa_util import final_rewards, flip_battle, new_env, piles, run_battles


# ----------------------------------------------------------------------------- 1. six over ace (§2 table)
@pytest.mark.parametrize(
    "cards, winners",
    [
        ("KS 6H", ["KS"]),
        ("AS 6H", ["6H"]),
        ("AS KS 6H", ["6H"]),
        ("AS AH 6H", ["6H"]),
        ("AS 6H 6D", ["6H", "6D"]),
        ("6S 6H AD KC", ["6S", "6H"]),
        ("6S 7H", ["7H"]),
    ],
)
def test_example1_six_over_ace_is_a_set_rule(cards, winners):
    k = PyanitsaKernel(num_players=len(cards.split()))
    ids = np.array([FRENCH36.card_id(c) for c in cards.split()])[None]
    key = k._keys(ids.astype(np.int16), np.ones_like(ids, dtype=bool))[0]
    top = [cards.split()[i] for i in np.flatnonzero(key == key.max())]
    assert top == winners


def test_example1_without_six_beats_ace_the_ace_wins():
    k = PyanitsaKernel(six_beats_ace=False)
    ids = np.array([[FRENCH36.card_id("AS"), FRENCH36.card_id("6H")]], dtype=np.int16)
    key = k._keys(ids, np.ones_like(ids, dtype=bool))[0]
    assert key.argmax() == 0 and key[0] > key[1]


def test_example1_six_beats_ace_in_a_real_battle():
    env = new_env(["AS KS", "6H 7H"])
    flip_battle(env)
    assert piles(env) == [["KS"], ["7H", "6H", "AS"]]


# ----------------------------------------------------------------------------- 2. plain battle
def test_example2_plain_battle():
    env = new_env(["KS 7C", "9H QD"])
    assert flip_battle(env) == ["player_0", "player_1"]
    assert piles(env) == [["7C", "KS", "9H"], ["QD"]]
    assert env.game_state.winner[0] == 0 and not env.game_state.done[0]


# ----------------------------------------------------------------------------- 3. face-up tie
def test_example3_face_up_tie():
    env = new_env(["8S 10C AD", "8H JD 7S"])
    flip_battle(env)
    assert piles(env) == [["AD"], ["7S", "8H", "8S", "JD", "10C"]]


# ----------------------------------------------------------------------------- 4. down-up tie and the two objectives
@pytest.mark.parametrize("objective, loser", [("last_holder_loses", 0), ("first_out_loses", 1)])
def test_example4_down_up_tie(objective, loser):
    env = new_env(["8S 10C AD", "8H JD 7S"], tie_mode="down_up", objective=objective)
    flip_battle(env)
    assert piles(env) == [["8S", "8H", "10C", "AD", "JD", "7S"], []]
    st = env.game_state
    assert st.done[0] and not st.truncated[0]
    assert st.n_down[0].tolist() == [1, 1]
    expected = [1.0, 1.0]
    expected[loser] = -1.0
    assert final_rewards(env) == expected
    assert env.infos["player_0"]["losers"] == [loser]


# ----------------------------------------------------------------------------- 5. running out in a tie
def test_example5_last_card_stands():
    env = new_env(["QS", "QH 7D KC"])
    flip_battle(env)
    assert piles(env) == [["QS", "QH", "7D"], ["KC"]]


def test_example5_forfeit():
    env = new_env(["QS", "QH 7D KC"], runout="forfeit")
    flip_battle(env)
    assert piles(env) == [[], ["KC", "QH", "QS", "7D"]]
    # S0 is empty: with two players the game ends; variant 1: S1 holds everything and loses
    assert env.game_state.done[0] and final_rewards(env) == [1.0, -1.0]


# ----------------------------------------------------------------------------- 6. one card left, down-up
def test_example6_one_card_plays_face_up():
    env = new_env(["JS 8C", "JH 6D 7S 9C"], tie_mode="down_up")
    flip_battle(env)
    assert piles(env) == [["JS", "JH", "8C", "6D", "7S"], ["9C"]]


def test_example6_forfeit_keeps_the_card():
    env = new_env(["JS 8C", "JH 6D 7S 9C"], tie_mode="down_up", runout="forfeit")
    flip_battle(env)
    assert piles(env) == [["8C"], ["9C", "JH", "JS", "6D", "7S"]]


# ----------------------------------------------------------------------------- 7. three players
EX7 = ["KS 7C", "KH 9D", "8C AH"]


def test_example7_everyone_in_the_tie_variant1():
    env = new_env(EX7, num_players=3)
    flip_battle(env)
    assert piles(env) == [[], [], ["8C", "KS", "KH", "AH", "7C", "9D"]]
    assert final_rewards(env) == [0.5, 0.5, -1.0]


def test_example7_everyone_in_the_tie_variant2():
    env = new_env(EX7, num_players=3, objective="first_out_loses")
    flip_battle(env)
    assert final_rewards(env) == [-1.0, -1.0, 2.0]
    assert env.infos["player_2"]["losers"] == [0, 1]


def test_example7_only_tied_players():
    env = new_env(EX7, num_players=3, tie_players="tied")
    flip_battle(env)
    assert piles(env) == [[], ["KH", "8C", "KS", "9D", "7C"], ["AH"]]
    assert not env.game_state.done[0]
    assert flip_battle(env) == ["player_1", "player_2"]  # variant 1 continues between S1 and S2


# ----------------------------------------------------------------------------- 8. six over ace in a tie step
def test_example8_six_over_ace_in_a_tie_step():
    env = new_env(["10S AC", "10H 6D"])
    flip_battle(env)
    assert piles(env) == [[], ["10H", "10S", "6D", "AC"]]


# ----------------------------------------------------------------------------- 9. four players
def test_example9_four_players():
    env = new_env(["6S 7S", "6H 8H", "AD 9D", "KC 10C"], num_players=4, objective="first_out_loses")
    flip_battle(env)
    assert piles(env) == [[], [], [], ["KC", "6S", "6H", "AD", "10C", "7S", "8H", "9D"]]
    assert final_rewards(env) == [-1.0, -1.0, -1.0, 3.0]


# ----------------------------------------------------------------------------- 10. draws
@pytest.mark.parametrize("position", [["9S", "9H"], ["6S", "6H", "AD", "KC"]])
def test_example10_dead_battles_are_draws(position):
    env = new_env(position, num_players=len(position))
    flip_battle(env)
    st = env.game_state
    assert st.done[0] and st.draw[0] and not st.truncated[0]
    assert all(env.terminations.values())
    assert final_rewards(env) == [0.0] * len(position)
    assert env.infos["player_0"]["draw"] is True


# ----------------------------------------------------------------------------- 11. variant 2, three players
def test_example11_variant2_three_players():
    env = new_env(["7S", "QH 8C", "9D 10S"], num_players=3, objective="first_out_loses")
    flip_battle(env)
    assert piles(env) == [[], ["8C", "QH", "9D", "7S"], ["10S"]]
    assert final_rewards(env) == [-1.0, 0.5, 0.5]


def test_example11_variant1_out_player_is_skipped():
    env = new_env(["7S", "QH 8C", "9D 10S"], num_players=3)
    flip_battle(env)
    assert not env.game_state.done[0]
    assert flip_battle(env) == ["player_1", "player_2"]


# ----------------------------------------------------------------------------- 12. winner chooses
def test_example12_winner_chooses():
    env = new_env(["KS 8D", "9H 7C"], collect_order="winner_chooses")
    flip_battle(env)
    k = env.unwrapped.kernel
    assert env.agent_selection == "player_0"
    assert sorted(env.legal_actions()) == sorted([k.action_id("ORDER(KS)"), k.action_id("ORDER(9H)")])
    # the pot is private to the winner
    lay = k.obs_layout
    assert env.observe("player_0")["observation"][lay["pot"]].sum() == 2
    assert env.observe("player_1")["observation"][lay["pot"]].sum() == 0
    env.step(k.action_id("ORDER(9H)"))
    assert piles(env) == [["8D", "9H", "KS"], ["7C"]]
    assert int(env.game_state.phase[0]) == 0 and env.agent_selection == "player_0"
    obs = env.observe("player_0")["observation"]
    assert obs[lay["my_known_count"]][0] == 2
    assert obs[lay["my_known_order"]][:3].tolist() == [FRENCH36.card_id("9H") + 1, FRENCH36.card_id("KS") + 1, 0]


# ----------------------------------------------------------------------------- 13. cycles
def test_example13_cycle_default_rules():
    env = new_env(["6S AS 6H", "AH 9D QC"])
    run_battles(env, 3)
    after3 = piles(env)
    assert after3 == [["6S", "AH", "AS", "9D"], ["QC", "6H"]]
    seen = {}
    for t in range(4, 29):
        flip_battle(env)
        seen[t] = piles(env)
        if t < 28:
            assert not env.game_state.done[0], t
    assert seen[15] == after3 and all(seen[t] != after3 for t in range(4, 15))
    st = env.game_state
    assert st.done[0] and st.truncated[0] and int(st.battles[0]) == 28
    assert env.infos["player_0"]["truncation"] == "cycle"
    assert all(env.truncations.values()) and final_rewards(env) == [0.0, 0.0]


def test_example13_cycle_seat_order():
    env = new_env(["9S 7S", "7H QC"], collect_order="seat_order")
    start = piles(env)
    run_battles(env, 4)
    assert piles(env) == start
    run_battles(env, 3)
    assert not env.game_state.done[0]
    run_battles(env, 1)
    st = env.game_state
    assert st.truncated[0] and int(st.battles[0]) == 8 and env.infos["player_1"]["truncation"] == "cycle"


def test_example13_no_cycle_detection_runs_to_the_cap():
    env = new_env(["9S 7S", "7H QC"], collect_order="seat_order", detect_cycles=False, max_battles=50)
    run_battles(env, 60)
    st = env.game_state
    assert st.truncated[0] and int(st.battles[0]) == 50 and env.infos["player_0"]["truncation"] == "max_battles"


# ----------------------------------------------------------------------------- RULES.md §11 decisions
def test_decision_cap_ends_at_once_without_order_choices():
    env = new_env(["KS 8D QC", "9H 7C JS"], collect_order="winner_chooses", max_battles=1)
    flip_battle(env)
    st = env.game_state
    assert st.done[0] and st.truncated[0] and int(st.phase[0]) == 2
    assert piles(env) == [["8D", "QC", "KS", "9H"], ["7C", "JS"]]  # winner_first order
    assert env.infos["player_0"]["truncation"] == "max_battles" and final_rewards(env) == [0.0, 0.0]


@pytest.mark.parametrize("order", ["winner_first", "seat_order", "random", "winner_chooses"])
def test_decision_cap_collects_the_last_pot_in_the_default_order(order):
    # spec §12.2 (RULES §11.2): the battle that reaches the cap is collected "in the default order",
    # winner_first, whatever collect_order says (S1 wins 9H over 7S: S1's 9H first, then S0's 7S;
    # seat order would put 7S first, random either, winner_chooses would ask).
    pile = ["QC", "9H", "7S"]
    env = new_env(["7S 9S", "9H QC"], collect_order=order, max_battles=1)
    flip_battle(env)
    assert env.game_state.truncated[0] and env.infos["player_0"]["truncation"] == "max_battles"
    assert piles(env) == [["9S"], pile] and final_rewards(env) == [0.0, 0.0]


def test_decision_natural_end_beats_the_cap():
    env = new_env(["KS", "9H"], max_battles=1)
    flip_battle(env)
    st = env.game_state
    assert st.done[0] and not st.truncated[0] and final_rewards(env) == [-1.0, 1.0]


def test_decision_winner_chooses_skips_ordering_when_the_game_ends():
    env = new_env(["KS", "9H"], collect_order="winner_chooses")
    flip_battle(env)
    assert env.game_state.done[0] and piles(env) == [["KS", "9H"], []]


def test_decision_untied_players_took_part_under_first_out_loses():
    env = new_env(["KS 7C", "KH 9D", "8C"], num_players=3, tie_players="tied", objective="first_out_loses")
    flip_battle(env)
    assert piles(env) == [[], ["KH", "8C", "KS", "9D", "7C"], []]
    assert final_rewards(env) == [-1.0, 2.0, -1.0]


def test_decision_a_standing_ace_makes_a_new_six_win():
    env = new_env(["AS", "AH 6D 9C"])
    flip_battle(env)
    assert piles(env) == [[], ["9C", "AH", "AS", "6D"]]


@pytest.mark.parametrize(
    "runout, expected",
    [
        ("last_card_stands", [[], [], ["QC", "KS", "KH", "7C", "9D"]]),  # S2's QC stands and beats 7C, 9D
        ("forfeit", [[], ["KH", "QC", "KS", "9D", "7C"], []]),  # S2 cannot add a card and drops out
    ],
)
def test_decision_untied_contender_that_runs_out(runout, expected):
    env = new_env(["KS 7C", "KH 9D", "QC"], num_players=3, runout=runout, objective="first_out_loses")
    flip_battle(env)
    assert piles(env) == expected


def test_decision_dead_battle_leaves_the_pot_on_the_table():
    env = new_env(["9S", "9H"])
    flip_battle(env)
    st = env.game_state
    assert int(st.pot[0]) == (1 << FRENCH36.card_id("9S")) | (1 << FRENCH36.card_id("9H"))
    assert piles(env) == [[], []] and int(st.winner[0]) == -1


# ----------------------------------------------------------------------------- §5/§6 edge cases beyond §10
def piles52(env) -> list[list[str]]:
    return [[FRENCH52.names[c] for c in p] for p in env.unwrapped.kernel.piles(env.game_state, 0)]


@pytest.mark.parametrize(
    "runout, expected, rewards",
    [
        # S0's KS stands; S1 adds 7D, S2 (not tied, §11.7) adds 9S: {KS, 7D, 9S} -> KS wins
        ("last_card_stands", [["KS", "KH", "8C", "7D", "9S"], [], []], [-1.0, 0.5, 0.5]),
        # S0 cannot add a card and drops out; 7D against 9S -> S2 wins everything
        ("forfeit", [[], [], ["8C", "KS", "KH", "9S", "7D"]], [0.5, 0.5, -1.0]),
    ],
)
def test_three_players_one_runs_out_mid_war(runout, expected, rewards):
    # RULES.md §5.4: a player with no card in a tie step keeps its standing card (last_card_stands)
    # or drops out (forfeit); §5 collection winner_first; §6 default objective with 3 players.
    env = new_env(["KS", "KH 7D", "8C 9S"], num_players=3, runout=runout)
    flip_battle(env)
    assert piles(env) == expected
    assert env.game_state.done[0] and final_rewards(env) == rewards


def test_dead_battle_while_a_contender_still_holds_cards():
    # RULES.md §5.5: "A tie step in which no new face-up card appears ... makes a dead battle".
    # K against K, S2's 8C below them. S2 (all contenders take part) adds 9S, then 10S, without
    # breaking the tie; at the third step nobody can add a card: dead battle, draw, every card of
    # the game stays on the table.
    env = new_env(["KS", "KH", "8C 9S 10S"], num_players=3)
    flip_battle(env)
    st = env.game_state
    assert st.done[0] and st.draw[0] and not st.truncated[0]
    assert piles(env) == [[], [], []] and bin(int(st.pot[0])).count("1") == 5
    assert final_rewards(env) == [0.0, 0.0, 0.0]
    # tie_players="tied": the two kings cannot go on, so the battle is dead at once although S2
    # still holds 9S (RULES.md §5.5: still a draw)
    env = new_env(["KS", "KH", "8C 9S"], num_players=3, tie_players="tied")
    flip_battle(env)
    st = env.game_state
    assert st.done[0] and st.draw[0] and piles(env) == [[], [], ["9S"]]
    assert final_rewards(env) == [0.0, 0.0, 0.0]


def test_four_player_rewards_share_the_losses():
    # RULES.md §6: each loser -1, each other player +L/(N-L). Variant 1: AS takes 7H, 8D, 9C and
    # S0 holds all four cards: L = 1 -> +1/3 each. Variant 2: S1 and S2 go out -> L = 2 -> +1 each.
    env = new_env(["AS", "7H", "8D", "9C"], num_players=4)
    flip_battle(env)
    assert piles(env) == [["AS", "7H", "8D", "9C"], [], [], []]
    assert final_rewards(env) == [-1.0] + [pytest.approx(1 / 3)] * 3
    env = new_env(["AS 7S", "KH", "8D", "9C 10C"], num_players=4, objective="first_out_loses")
    flip_battle(env)
    assert piles(env) == [["7S", "AS", "KH", "8D", "9C"], [], [], ["10C"]]
    assert final_rewards(env) == [1.0, -1.0, -1.0, 1.0]
    assert env.infos["player_0"]["losers"] == [1, 2]


def test_down_up_three_players_one_with_a_single_card():
    # RULES.md §5.3: under down_up and last_card_stands a player holding exactly one card plays it
    # face up without a face-down card. J against J (9C lower); S0 plays 8C up; S1 6D down, 7S up;
    # S2 10D down, QS up: QS wins. Collected from the winner: 9C JS JH, then 10D QS, 8C, 6D 7S.
    env = new_env(["JS 8C", "JH 6D 7S", "9C 10D QS"], num_players=3, tie_mode="down_up")
    flip_battle(env)
    assert env.game_state.n_down[0].tolist() == [0, 1, 1]
    assert piles(env) == [[], [], ["9C", "JS", "JH", "10D", "QS", "8C", "6D", "7S"]]
    assert final_rewards(env) == [0.5, 0.5, -1.0]


def test_52_card_pack_two_over_ace_and_three_players():
    # RULES.md §2: with deck=52 the 2 plays the part of the six: A against 2 -> 2; a six is an
    # ordinary card there (A beats 6).
    env = new_env(["AS 3C", "2H 4D"], deck=52)
    flip_battle(env)
    assert piles52(env) == [["3C"], ["4D", "2H", "AS"]]
    env = new_env(["AS 3C", "6H 4D"], deck=52)
    flip_battle(env)
    assert piles52(env) == [["3C", "AS", "6H"], ["4D"]]
    # RULES.md §3 / §11.1: three players get c[p], c[p+3], ... 17 cards each; c[51] is set aside
    env = pyanitsa_v0.env(num_players=3, deck=52)
    env.reset(seed=0, options={"deck": list(range(52))})
    got = env.unwrapped.kernel.piles(env.game_state, 0)
    assert got == [list(range(s, 51, 3)) for s in range(3)]
    assert all(51 not in p for p in got)


# ----------------------------------------------------------------------------- spec §2 table as real battles (public kernel API)
def _kernel_battle(piles_, **options):
    from cardzoo import envs

    k = envs.kernel("pyanitsa", num_players=len(piles_), **options)
    rng = np.random.default_rng(0)
    st = k.init(rng, 1, piles=[p.split() for p in piles_])
    while not st.done[0] and int(st.battles[0]) == 0:
        k.step(st, np.array([k.FLIP]), rng)
    return k, st, [[FRENCH36.names[c] for c in p] for p in k.piles(st, 0)]


@pytest.mark.parametrize(
    "position, winner, after",
    [
        (["KS", "6H"], 0, [["KS", "6H"], []]),  # K, 6 -> K wins
        (["AS", "6H"], 1, [[], ["6H", "AS"]]),  # A, 6 -> 6 wins
        (["AS", "KS", "6H"], 2, [[], [], ["6H", "AS", "KS"]]),  # A, K, 6 -> 6 wins (not a cycle)
        (["AS", "AH", "6H"], 2, [[], [], ["6H", "AS", "AH"]]),  # A, A, 6 -> 6 wins alone, no tie
        (["6S", "7H"], 1, [[], ["7H", "6S"]]),  # 6, 7 -> 7 wins
    ],
)
def test_spec_section2_table_first_reveal_decides(position, winner, after):
    # spec §2 table / §10.1 ("each row is the first reveal of a battle"); winner_first collection (§5)
    k, st, got = _kernel_battle(position)
    assert int(st.winner[0]) == winner and got == after
    assert k.info(st, 0)["battle_winner"] == winner


@pytest.mark.parametrize("position", [["AS", "6H", "6D"], ["6S", "6H", "AD", "KC"]])
def test_spec_section2_table_sixes_tie(position):
    # spec §2: "A, 6, 6" and "6, 6, A, K" -> tie between the two sixes; with one card each nobody
    # can add a card: dead battle, draw, all rewards 0 (§5.5, §6)
    k, st, got = _kernel_battle(position)
    assert st.done[0] and st.draw[0] and not st.truncated[0] and int(st.winner[0]) == -1
    assert st.rewards[0].tolist() == [0.0] * len(position)
    # under tie_players="tied" only the two sixes go on: 7H against 8D -> the 8D's seat wins
    s1, s2 = [i for i, c in enumerate(position) if c.startswith("6")]
    extra = {s1: " 7H", s2: " 8D"}
    pos = [c + extra.get(i, "") for i, c in enumerate(position)]
    k, st, got = _kernel_battle(pos, tie_players="tied")
    assert int(st.winner[0]) == s2
    first = [position[(s2 + r) % len(pos)] for r in range(len(pos))]
    assert got[s2] == first + ["8D", "7H"]


@pytest.mark.parametrize("n, size", [(2, 18), (3, 12), (4, 9)])
def test_spec_section3_deal_layout(n, size):
    # spec §3: seat p's pile, top to bottom, is c[p], c[p+N], c[p+2N], ...; 18 / 12 / 9 cards
    from cardzoo import envs

    k = envs.kernel("pyanitsa", num_players=n)
    c = np.random.default_rng(n).permutation(36)
    st = k.init(np.random.default_rng(0), 1, deck=c)
    assert k.piles(st, 0) == [[int(x) for x in c[p::n]] for p in range(n)]
    assert k.info(st, 0)["pile_sizes"] == [size] * n


# ----------------------------------------------------------------------------- audit additions (spec §5 collecting, §6 cycles)
@pytest.mark.parametrize(
    "order, s1_after",
    [("winner_first", ["8H", "KH", "9D", "7S"]), ("seat_order", ["8H", "7S", "KH", "9D"])],
)
def test_collect_order_starts_at_the_winner_or_at_seat_0(order, s1_after):
    """Spec §5 Collecting the pot, three players, no tie: S0 7S, S1 KH, S2 9D -> KH wins (S1).
    winner_first: seats from the winner up, w, w+1, ... mod N = S1 KH, S2 9D, S0 7S;
    seat_order: from S0 = S0 7S, S1 KH, S2 9D. Under S1's remaining 8H, first listed nearest the top."""
    env = new_env(["7S 6C", "KH 8H", "9D 10C"], num_players=3, collect_order=order)
    flip_battle(env)
    assert piles(env) == [["6C"], s1_after, ["10C"]]


def test_winner_chooses_is_never_truncated_as_a_cycle():
    """Spec §6: the "cycle" truncation is only for the deterministic orders (winner_first, seat_order).
    Example 13's seat-order cycle S0 9S 7S, S1 7H QC has no tie: 9S-7H (S0), 7S-QC (S1), 9S-7S (S0),
    7H-QC (S1) and the piles are back after every 4 battles. Under winner_chooses the winner placing
    S0's card first reproduces seat_order exactly, so the position repeats (checked after battles 4
    and 8), but detect_cycles (on by default) must not stop it: the game runs to max_battles = 20."""
    env = new_env(["9S 7S", "7H QC"], collect_order="winner_chooses", max_battles=20)
    k = env.unwrapped.kernel
    start = piles(env)
    for t in range(1, 21):
        s0_card = piles(env)[0][0]
        flip_battle(env)
        if t < 20:
            assert int(env.game_state.phase[0]) == 1  # ORDER: the winner places the two cards
            env.step(k.action_id(f"ORDER({s0_card})"))
            if t % 4 == 0:
                assert piles(env) == start, t
            assert not env.game_state.done[0], t
    st = env.game_state
    assert st.truncated[0] and int(st.battles[0]) == 20
    assert env.infos["player_0"]["truncation"] == "max_battles"
