"""The P'yanitsa PettingZoo env: API conformance, seeding, rendering, copying, errors, hidden information."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from cardzoo.envs import pyanitsa_v0
from cardzoo.envs.core.cards import FRENCH36
from cardzoo.envs.pyanitsa.kernel import PyanitsaKernel

from pyanitsa_util import flip_battle, new_env, piles

CARD_RE = re.compile(r"(?<![0-9A-Z])(?:10|[2-9JQKA])[CDHS](?![0-9A-Za-z])")


def play_random(env, rng, max_steps=10**6):
    """Random legal actions until the episode ends; returns the number of steps."""
    n = 0
    while not any(env.terminations.values()) and not any(env.truncations.values()) and n < max_steps:
        env.step(int(rng.choice(env.legal_actions())))
        n += 1
    return n


# ----------------------------------------------------------------------------- PettingZoo tests
@pytest.mark.parametrize("n, sizes", [(2, 18), (3, 12), (4, 9)])
def test_deal_is_round_robin(n, sizes):
    order = np.random.default_rng(n).permutation(36)
    env = pyanitsa_v0.env(num_players=n)
    env.reset(options={"deck": order})
    got = env.unwrapped.kernel.piles(env.game_state, 0)
    for p in range(n):
        assert got[p] == order[p::n][:sizes].tolist()  # §3: c[p], c[p+N], ...


def test_52_cards_with_three_players_sets_one_card_aside():
    k = PyanitsaKernel(num_players=3, deck=52)
    order = np.random.default_rng(0).permutation(52)
    st = k.init(np.random.default_rng(0), 1, deck=order)
    assert [len(p) for p in k.piles(st, 0)] == [17, 17, 17]
    aside = int(order[51])
    assert all(aside not in p for p in k.piles(st, 0))
    assert not (int(st.in_play[0]) >> aside) & 1
    assert k.num_actions == 53 and k.action_name(52) == "FLIP" and k.action_name(0) == "ORDER(2C)"


def test_2_takes_the_role_of_the_six_with_52_cards():
    env = new_env(None, deck=52)
    env.reset(options={"piles": [["AS", "KS"], ["2H", "3H"]]})
    flip_battle(env)
    k = env.unwrapped.kernel
    assert [[k.deck.names[c] for c in p] for p in k.piles(env.game_state, 0)] == [["KS"], ["3H", "2H", "AS"]]


# ----------------------------------------------------------------------------- render
def test_render_public_view_shows_no_pile_card_and_all_shows_them():
    env = pyanitsa_v0.env(render_mode="ansi", render_view=0)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(21):
        env.step(int(rng.choice(env.legal_actions())))
    st = env.game_state
    shown = set(CARD_RE.findall(env.render()))
    table = {FRENCH36.names[c] for s in range(2) for c in range(36) if (int(st.face_up[0, s]) >> c) & 1}
    assert shown == table  # only the last battle's face-up cards
    every = set(CARD_RE.findall(env.render(view="all")))
    assert every == {FRENCH36.names[c] for p in env.unwrapped.kernel.piles(st, 0) for c in p} | table
    assert "battle 10" in env.render()


def test_render_while_ordering_shows_the_pot_to_the_chooser_only():
    env = new_env(["KS 8D", "9H 7C"], collect_order="winner_chooses")
    flip_battle(env)
    assert "orders the pot: 9H KS" in env.render(view=0) or "orders the pot: KS 9H" in env.render(view=0)
    assert "2 cards left" in env.render(view=1)


# ----------------------------------------------------------------------------- errors
def snapshot(env):
    st = env.game_state
    return ({f: getattr(st, f).copy() for f in st.__dataclass_fields__}, env.agent_selection, dict(env._cumulative_rewards))


def assert_unchanged(env, snap):
    fields, agent, cum = snap
    for f, v in fields.items():
        assert np.array_equal(getattr(env.game_state, f), v), f
    assert env.agent_selection == agent and env._cumulative_rewards == cum


@pytest.mark.parametrize("bad", [0, 35, 37, -1, "FLIP", 1.0, None, True])
def test_illegal_actions_in_the_flip_phase_raise_and_change_nothing(bad):
    env = pyanitsa_v0.env()
    env.reset(seed=0)
    snap = snapshot(env)
    with pytest.raises(ValueError) as err:
        env.step(bad)
    assert "FLIP" in str(err.value)
    assert_unchanged(env, snap)


def test_illegal_order_names_the_card_and_the_legal_ones():
    env = new_env(["KS 8D", "9H 7C"], collect_order="winner_chooses")
    flip_battle(env)
    snap = snapshot(env)
    with pytest.raises(ValueError) as err:
        env.step(FRENCH36.card_id("8D"))
    msg = str(err.value)
    assert "ORDER(8D)" in msg and "ORDER(KS)" in msg and "ORDER(9H)" in msg and "FLIP" not in msg.split("legal")[1]
    with pytest.raises(ValueError, match="ORDER"):
        env.step(36)  # FLIP while ordering
    assert_unchanged(env, snap)


@pytest.mark.parametrize(
    "options, valid",
    [
        ({"num_players": 5}, "[2, 3, 4]"),
        ({"num_players": "2"}, "[2, 3, 4]"),
        ({"objective": "most_cards"}, "first_out_loses"),
        ({"tie_mode": "down"}, "down_up"),
        ({"tie_players": "some"}, "tied"),
        ({"runout": "lose"}, "forfeit"),
        ({"six_beats_ace": 1}, "True"),
        ({"collect_order": "loser_first"}, "winner_chooses"),
        ({"deck": 54}, "[36, 52]"),
        ({"max_battles": 0}, "an int from 1 to 10000000"),
        ({"max_battles": 10_000_001}, "an int from 1 to 10000000"),
        ({"detect_cycles": "yes"}, "True"),
        ({"jokers": True}, "valid options"),
    ],
)
def test_bad_options_raise_naming_the_option_and_valid_values(options, valid):
    with pytest.raises(ValueError) as err:
        pyanitsa_v0.env(**options)
    assert valid in str(err.value) and list(options)[0] in str(err.value)


@pytest.mark.parametrize(
    "hooks, words",
    [
        ({"piles": [["KS"], ["KS"]]}, "twice"),
        ({"piles": [["KS"], []]}, "two seats"),
        ({"piles": [["KS"]]}, "2 card lists"),
        ({"piles": [["XX"], ["KS"]]}, "not a card"),
    ],
)
def test_bad_piles_hooks_raise(hooks, words):
    # the deck hook's refusals (a wrong shape, two games' worth, not a permutation, a string, floats) are
    # test_frame's hook tests, for every game
    env = pyanitsa_v0.env()
    with pytest.raises(ValueError, match=words):
        env.reset(options=hooks)


@pytest.mark.parametrize("deck, got", [
    (np.arange(36.0), "float64 values of shape (36,)"),
    ([str(c) for c in range(36)], "<U2 values of shape (36,)"),
    ("2H 3H", "<U5 values of shape ()"),
    ([[0, 1], [2]], "ragged lists"),
])
def test_a_deck_hook_of_the_wrong_type_says_what_was_wrong_and_what_is_valid(deck, got):
    env = pyanitsa_v0.env()
    with pytest.raises(ValueError) as err:
        env.reset(options={"deck": deck})
    assert str(err.value) == ("reset option deck must be int card ids 0..35 (a permutation), shape (36,) or (1, 36); "
                              f"got {got}")


# ----------------------------------------------------------------------------- contract details
def test_metadata_spaces_and_views():
    env = pyanitsa_v0.env(num_players=3)
    env.reset(seed=0)
    m = env.metadata
    assert m["name"] == "pyanitsa_v0" and "ansi" in m["render_modes"] and m["zero_sum"] is True
    assert m["teams"] is None and m["max_episode_steps"] == 5000 * 3
    assert pyanitsa_v0.env(collect_order="winner_chooses").metadata["max_episode_steps"] == 5000 * (2 + 35)
    assert env.action_space("player_1").n == 37
    assert env.hands == {a: [] for a in env.possible_agents}
    assert env.known_cards == {a: [] for a in env.possible_agents}
    assert env.state().shape == env.state_space.shape


def test_out_players_stay_in_the_agent_list_and_get_the_final_reward():
    env = new_env(["7S", "QH 8C", "9D 10S"], num_players=3)
    rng = np.random.default_rng(0)
    flip_battle(env)
    assert env.agents == env.possible_agents
    play_random(env, rng)
    cum = env._cumulative_rewards
    assert sorted(cum.values()) == [-1.0, 0.5, 0.5]
    assert cum["player_0"] == 0.5  # out first: safe under variant 1


def test_observation_is_seat_relative():
    env = new_env(["KS 7C 8C", "9H QD"], num_players=2)
    flip_battle(env)
    lay = env.unwrapped.kernel.obs_layout
    o0 = env.observe("player_0")["observation"]
    o1 = env.observe("player_1")["observation"]
    assert o0[lay["pile_size[me]"]][0] == 4 and o0[lay["pile_size[me+1]"]][0] == 1
    assert o1[lay["pile_size[me]"]][0] == 1 and o1[lay["pile_size[me+1]"]][0] == 4
    assert o0[lay["battle_winner"]].tolist() == [1, 0] and o1[lay["battle_winner"]].tolist() == [0, 1]
    assert np.flatnonzero(o0[lay["face_up[me]"]]).tolist() == [FRENCH36.card_id("KS")]
    assert np.flatnonzero(o1[lay["face_up[me+1]"]]).tolist() == [FRENCH36.card_id("KS")]
    assert o0[lay["battles"]].tolist() == [1, 0]


def test_state_vector_reveals_every_pile_in_order():
    env = new_env(["KS 7C", "9H QD"])
    lay = env.unwrapped.kernel.state_layout
    s = env.state()
    assert s[lay["pile[S0]"]][:3].tolist() == [FRENCH36.card_id("KS") + 1, FRENCH36.card_id("7C") + 1, 0]
    assert s[lay["pile[S1]"]][:2].tolist() == [FRENCH36.card_id("9H") + 1, FRENCH36.card_id("QD") + 1]


# ----------------------------------------------------------------------------- hidden information
def _permute_hidden(k, st, rng, keep_known=True):
    """Shuffle the hidden part of every pile (everything but each owner's known bottom part)."""
    st2 = st.copy()
    for s in range(k.num_players):
        n = int(st.size[0, s])
        kn = int(st.known[0, s]) if keep_known else 0
        if n - kn < 2:
            continue
        idx = (int(st.head[0, s]) + np.arange(n - kn)) % k.C
        st2.piles[0, s, idx] = st.piles[0, s, idx][rng.permutation(n - kn)]
    return st2


def test_known_part_is_only_the_owners_and_only_what_it_ordered():
    env = new_env(["KS 8D QC", "9H 7C JS"], collect_order="winner_chooses")
    k = env.unwrapped.kernel
    lay = k.obs_layout
    flip_battle(env)
    env.step(k.action_id("KS"))  # S0 places KS then 9H under [8D, QC]
    o0 = env.observe("player_0")["observation"]
    o1 = env.observe("player_1")["observation"]
    assert o0[lay["my_known_count"]][0] == 2 and o1[lay["my_known_count"]][0] == 0
    assert set(np.flatnonzero(o0[lay["my_known_set"]])) == {FRENCH36.card_id("KS"), FRENCH36.card_id("9H")}
    assert o1[lay["my_known_set"]].sum() == 0 and o1[lay["pot"]].sum() == 0
    assert piles(env) == [["8D", "QC", "KS", "9H"], ["7C", "JS"]]


def test_renderer_and_search_do_not_import_the_kernel():
    """Imports point one way: the kernel imports its renderer, and facts both need live in constants.py."""
    import ast
    from pathlib import Path

    import cardzoo.envs.pyanitsa as pkg

    root = Path(pkg.__file__).parent
    for name in ("render.py", "determinize.py", "rules.py", "constants.py", "observation.py"):
        tree = ast.parse((root / name).read_text())
        froms = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "kernel" not in froms, f"{name} imports the kernel"


@pytest.mark.parametrize("piles, message", [
    # a bool or a float was taken as a card id (int(True) == 1, int(1.9) == 1)
    ([[True], ["KS"]], "reset option piles: True in seat 0's pile is not a card: give card ids (ints 0..35) or names such as 'AS'"),
    ([["KS"], [1.9]], "reset option piles: 1.9 in seat 1's pile is not a card: give card ids (ints 0..35) or names such as 'AS'"),
    # said "card 1 is out of range or appears twice" for both, and a pile that is no list was a TypeError
    ([[0, 1], [1]], "reset option piles: card 7C (id 1) appears twice"),
    ([[40], [1]], "reset option piles: card id 40 in seat 0's pile is out of range; card ids are 0..35"),
    ([5, [1]], "reset option piles: seat 0's pile must be a list of card ids or names (top first), got 5"),
    ([[0], [None]], "reset option piles: None in seat 1's pile is not a card: give card ids (ints 0..35) or names such as 'AS'"),
])
def test_a_bad_pile_hook_names_the_card_the_seat_and_what_is_valid(piles, message):
    env = pyanitsa_v0.env()
    env.reset(seed=1)
    before = env.game_state.copy()
    with pytest.raises(ValueError) as err:
        env.reset(options={"piles": piles})
    assert str(err.value) == message
    assert all(np.array_equal(getattr(before, f), getattr(env.game_state, f)) for f in before.__dataclass_fields__)
    env.reset(options={"piles": [np.array([0, 1]), ("KS", np.int64(2))]})  # numpy ids and arrays are piles
    assert env.unwrapped.kernel.piles(env.game_state, 0) == [[0, 1], [34, 2]]


@pytest.mark.parametrize("battles, shown", [(5000, [136, 19]), (65535, [255, 255]), (70_000, [255, 255])])
def test_the_battle_count_in_the_observation_saturates_at_two_bytes(battles, shown):
    """max_battles takes ints up to 10,000,000 (the spec: any int; it was capped at 65535 for the
    observation's two bytes). The count is 32-bit; the observation shows it low byte, high byte, and
    65535 from then on (70,000 showed as 4,464 had the low byte wrapped)."""
    from cardzoo import envs

    k = envs.kernel("pyanitsa", max_battles=10_000_000)
    st = k.init(np.random.default_rng(0), 1)
    st.battles[0] = battles
    e = next(e for e in k.obs_layout.entries if e.name == "battles")
    assert k.observe(st, np.array([0]))[0, e.start : e.stop].tolist() == shown


# ----------------------------------------------------------------------------- options against the spec's table
def test_defaults_are_the_spec_defaults():
    """The spec's options table (§8): 2 players, "last_holder_loses", "face_up", "all",
    "last_card_stands", six_beats_ace True, "winner_first", 36 cards, max_battles 5000, detect_cycles True
    (and ours, not the spec's: observe_history False).
    The spec calls the player count n_players; the env's name is num_players (PettingZoo's) and
    n_players is accepted as an alias (no warning), giving the same game."""
    assert PyanitsaKernel().options == {
        "num_players": 2, "objective": "last_holder_loses", "tie_mode": "face_up", "tie_players": "all",
        "runout": "last_card_stands", "six_beats_ace": True, "collect_order": "winner_first", "deck": 36,
        "max_battles": 5000, "detect_cycles": True, "observe_history": False,
    }
    for n in (2, 3, 4):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env = pyanitsa_v0.env(n_players=n)
        env.reset(seed=0)
        assert env.possible_agents == [f"player_{i}" for i in range(n)]
        assert env.unwrapped.kernel.options["num_players"] == n


@pytest.mark.parametrize(
    "name, values",
    [
        ("num_players", [2, 3, 4]),
        ("objective", ["last_holder_loses", "first_out_loses"]),
        ("tie_mode", ["face_up", "down_up"]),
        ("tie_players", ["all", "tied"]),
        ("runout", ["last_card_stands", "forfeit"]),
        ("six_beats_ace", [True, False]),
        ("collect_order", ["winner_first", "seat_order", "random", "winner_chooses"]),
        ("deck", [36, 52]),
        ("max_battles", [1, 5000]),
        ("detect_cycles", [True, False]),
    ],
)
def test_every_value_of_the_spec_table_is_accepted(name, values):
    """Every value the spec's §8 lists for an option builds an env that deals its piles (§3)."""
    for v in values:
        env = pyanitsa_v0.env(**{name: v})
        env.reset(seed=0)
        o = env.unwrapped.kernel.options
        assert o[name] == v
        n, c = o["num_players"], o["deck"]
        assert sorted(map(len, env.unwrapped.kernel.piles(env.game_state, 0))) == [c // n] * n


def test_four_player_rewards_are_exact_thirds():
    """With 4 players the loser gets -1 and each other player +1/3 (RULES.md §6). The rewards were
    float32, so the AEC env handed out 0.3333333432674408 and a game's rewards summed to 2.98e-08;
    they are float64 now: exactly Python's 1/3, summing to 0 within float64 rounding."""
    env = pyanitsa_v0.env(num_players=4)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    st = env.unwrapped.game_state
    assert st.rewards.dtype == np.float64 and bool(st.done[0]) and not bool(st.truncated[0])
    values = sorted(st.rewards[0].tolist())
    assert values == [-1.0, 1 / 3, 1 / 3, 1 / 3] and abs(sum(values)) < 1e-15
    assert env.unwrapped.kernel.forfeit_rewards(0).tolist() == [-1.0, 1 / 3, 1 / 3, 1 / 3]


def test_the_state_records_the_public_history_of_every_pile():
    """``pot_of`` (the battle whose pot each place of a pile took, 0 for the deal) and ``shown``
    (cards last put down face up) are what a seat remembers of every battle (RULES.md §7);
    ``determinize`` keeps where those cards went. Down-up ties: a face-down card's place is
    public, the card is not."""
    env = new_env(["8S 10C AD KS", "8H JD 7S QS 9C 9D"], tie_mode="down_up")
    st = env.game_state

    def history():
        places = [[(FRENCH36.card_name(int(st.piles[0, s, (int(st.head[0, s]) + j) % 36])),
                    int(st.pot_of[0, s, (int(st.head[0, s]) + j) % 36])) for j in range(int(st.size[0, s]))] for s in range(2)]
        return places, sorted(FRENCH36.card_name(c) for c in range(36) if (int(st.shown[0]) >> c) & 1)

    assert history() == ([[("8S", 0), ("10C", 0), ("AD", 0), ("KS", 0)],
                          [("8H", 0), ("JD", 0), ("7S", 0), ("QS", 0), ("9C", 0), ("9D", 0)]], [])
    flip_battle(env)  # 8S = 8H; 10C and JD face down; AD beats 7S
    assert history() == ([[("KS", 0), ("8S", 1), ("8H", 1), ("10C", 1), ("AD", 1), ("JD", 1), ("7S", 1)],
                          [("QS", 0), ("9C", 0), ("9D", 0)]], ["7S", "8H", "8S", "AD"])
    assert int(st.seen[0]) == int(st.shown[0])  # every card ever turned face up
    for _ in range(4):  # KS > QS, 9C > 8S, 9D > 8H, 10C > 9C: the face-down 10C is shown now
        flip_battle(env)
    assert history() == ([[("AD", 1), ("JD", 1), ("7S", 1), ("KS", 2), ("QS", 2), ("10C", 5), ("9C", 5)],
                          [("8S", 3), ("9D", 4), ("8H", 4)]],
                         ["10C", "7S", "8H", "8S", "9C", "9D", "AD", "KS", "QS"])


def test_observe_history_shows_where_each_remembered_card_lies():
    """``observe_history=True`` (RULES.md §7): the game of the test above after five battles. Under
    winner_first every place is public: 1 + the card's offset from the top of the pile; JD went
    down face down, so it is not shown. Both seats see the same, seat-relative."""
    env = new_env(["8S 10C AD KS", "8H JD 7S QS 9C 9D"], tie_mode="down_up", observe_history=True)
    for _ in range(5):
        flip_battle(env)
    k = env.unwrapped.kernel
    assert piles(env) == [["AD", "JD", "7S", "KS", "QS", "10C", "9C"], ["8S", "9D", "8H"]]
    s0 = {"AD": 1, "7S": 3, "KS": 4, "QS": 5, "10C": 6, "9C": 7}
    s1 = {"8S": 1, "9D": 2, "8H": 3}
    for seat, (mine, theirs) in ((0, (s0, s1)), (1, (s1, s0))):
        obs = k.observe(env.game_state, seat)[0]
        for rel, want in (("me", mine), ("me+1", theirs)):
            v = obs[k.obs_layout[f"remembered[{rel}]"]]
            assert {FRENCH36.card_name(c): int(v[c]) for c in np.flatnonzero(v)} == want
    assert k.obs_layout.size == 267 and pyanitsa_v0.env().unwrapped.kernel.obs_layout.size == 195


def test_observe_history_under_winner_chooses_gives_the_pot_not_the_order():
    """winner_chooses: S0 wins battle 1 (KS over QS) and orders QS, KS; S1 wins battle 2 (9C over 7C)
    and orders 7C, 9C. After battle 3 (AD over 8H, S0 orders), S1 sees S0's battle-1 pot as one
    stretch (both cards at its first place, offset 1: value 2) and S0 its own order exactly; S1 does
    not remember the last battle's pot (where its cards lie in S0's pile is not yet public)."""
    env = new_env(["KS 7C AD 6S", "QS 9C 8H 10D"], collect_order="winner_chooses", observe_history=True)
    k = env.unwrapped.kernel
    flip_battle(env)
    env.step(FRENCH36.card_id("QS"))  # S0 puts QS under its pile, then KS follows by itself
    flip_battle(env)
    env.step(FRENCH36.card_id("7C"))  # S1: 7C, then 9C
    flip_battle(env)
    env.step(FRENCH36.card_id("8H"))  # S0: 8H, then AD
    assert piles(env) == [["6S", "QS", "KS", "8H", "AD"], ["10D", "7C", "9C"]]

    def seen(seat, rel):
        v = k.observe(env.game_state, seat)[0][k.obs_layout[f"remembered[{rel}]"]]
        return {FRENCH36.card_name(c): int(v[c]) for c in np.flatnonzero(v)}

    assert seen(0, "me") == {"QS": 2, "KS": 3, "8H": 4, "AD": 5}  # its own ordered part, exactly
    assert seen(1, "me+1") == {"QS": 2, "KS": 2}  # battle 1's pot; battle 3's is the last one
    assert seen(1, "me") == {"7C": 2, "9C": 3} and seen(0, "me+1") == {"7C": 2, "9C": 2}


def test_a_dead_battle_leaves_no_ordered_part_larger_than_the_pile():
    """winner_chooses: S0 wins battle 1 (KS over QS) and orders QS, KS: its whole pile is its own
    ordered part (2 cards). Battle 2: QS ties QD, KS ties KD, and both piles are empty: a dead
    battle, the game is drawn (§5.5) and both ordered cards lie in the pot on the table. S0's final
    observation holds no ordered part (before: count 2, QS and KS, of an empty pile)."""
    env = new_env(["KS", "QS QD KD"], collect_order="winner_chooses")
    k = env.unwrapped.kernel
    flip_battle(env)
    env.step(FRENCH36.card_id("QS"))  # QS, then KS by itself
    assert piles(env) == [["QS", "KS"], ["QD", "KD"]] and int(env.game_state.known[0, 0]) == 2
    flip_battle(env)
    st = env.game_state
    assert all(env.terminations.values()) and bool(st.draw[0]) and piles(env) == [[], []]
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert st.known[0].tolist() == [0, 0]
    obs = k.observe(st, 0)[0]
    assert obs[k.obs_layout["my_known_count"]].tolist() == [0] and not obs[k.obs_layout["my_known_set"]].any()
    assert not obs[k.obs_layout["my_known_order"]].any()


def test_the_pot_that_ends_a_winner_chooses_game_is_not_the_winners_own_ordered_part():
    """winner_chooses: S0 wins battle 1 (KS over QS) and orders QS, KS, its own bottom part. Battle 2
    (9C over 8C) empties S1 and ends the game; nobody orders that pot: it goes under S0's pile in
    the default order (winner first: 9C, 8C), below the part S0 ordered. S0's final observation then
    holds no ordered bottom part (before: the final pot's 9C, 8C shown as ordered by itself), and
    remembers battle 1's pot as every seat does, by its stretch."""
    env = new_env(["KS 9C 10H", "QS 8C"], collect_order="winner_chooses", observe_history=True)
    k = env.unwrapped.kernel
    flip_battle(env)
    env.step(FRENCH36.card_id("QS"))  # QS, then KS by itself
    assert int(env.game_state.known[0, 0]) == 2
    flip_battle(env)
    assert all(env.terminations.values())
    assert piles(env) == [["10H", "QS", "KS", "9C", "8C"], []]
    obs = k.observe(env.game_state, 0)[0]
    assert int(env.game_state.known[0, 0]) == 0
    assert obs[k.obs_layout["my_known_count"]].tolist() == [0] and not obs[k.obs_layout["my_known_set"]].any()
    v = obs[k.obs_layout["remembered[me]"]]  # battle 1's pot: its stretch (offset 1) as everybody knows it
    assert {FRENCH36.card_name(c): int(v[c]) for c in np.flatnonzero(v)} == {"QS": 2, "KS": 2}
