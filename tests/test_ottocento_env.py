"""The Ottocento PettingZoo env: API conformance, seeding, rendering, copying, errors, hidden information."""

from __future__ import annotations


import numpy as np
import pytest

from cardzoo.envs import ottocento_v0
from cardzoo.envs.core.aec import TextObservationWrapper
from cardzoo.envs.core.cards import TAROCCO62, mask_to_cards, random_set_bit
from cardzoo.envs.ottocento.constants import DECLARE, PASS
from cardzoo.envs.ottocento.kernel import OttocentoKernel

from ottocento_util import cid, make_deck
from env_util import random_steps

P = [f"player_{i}" for i in range(4)]


def test_render_shows_only_the_viewers_hand_and_declarations():
    e6 = "ANG WOR MOO T16 T15 T13 BEG MAT KS QS JS AS KC KD AC"
    deck = make_deck({1: e6}, dealer=0)
    for view in range(4):
        env = ottocento_v0.env(render_mode="ansi", render_view=view)
        env.reset(seed=0, options={"deck": deck, "dealer": 0})
        env.step(env.legal_actions()[0])
        env.step(env.legal_actions()[0])
        env.step(DECLARE)
        text = env.render()
        assert "declared 203" in text
        for s in range(4):
            line = next(x for x in text.splitlines() if f"S{s} (" in x)
            held = " ".join(env.action_name(c) for c in env.hands[P[s]])
            assert (f"hand: {held}" in line) == (s == view) and ("hand: [15 cards]" in line) == (s != view)
        assert ("discards:" in text) == (view == 0), text
    env = ottocento_v0.env()
    env.reset(seed=0)
    with pytest.warns(UserWarning):
        assert env.render() is None
    with pytest.raises(ValueError, match="render_mode"):
        ottocento_v0.env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="seat 0..3"):
        ottocento_v0.env(render_mode="ansi", render_view=7)


def test_render_at_the_end_shows_every_component():
    env = ottocento_v0.env(render_mode="ansi")
    env.reset(seed=4)
    random_steps(env, np.random.default_rng(0), 200)
    text = env.render()
    assert "captured combinations" in text and "last trick" in text and "episode over" in text and "discards:" in text


def snapshot(env):
    st = env.game_state
    return ({f: getattr(st, f).copy() for f in st.__dataclass_fields__}, env.agent_selection, dict(env._cumulative_rewards))


def assert_unchanged(env, snap):
    fields, agent, cum = snap
    for f, v in fields.items():
        assert np.array_equal(getattr(env.game_state, f), v), f
    assert env.agent_selection == agent and env._cumulative_rewards == cum


def test_illegal_actions_raise_naming_them_and_leave_the_state_unchanged():
    env = ottocento_v0.env()
    env.reset(seed=0, options={"dealer": 3, "deck": make_deck({3: "KS ANG 6S", 0: "7S"}, dealer=3)})
    snap = snapshot(env)
    for card in ("KS", "ANG", "7S"):  # forbidden discards, and a card the dealer does not hold
        with pytest.raises(ValueError, match=rf"illegal action {card} for player_3; legal: \[.*'6S'"):
            env.step(cid(card))
        assert_unchanged(env, snap)
    for bad in (DECLARE, PASS, 64, -1):
        with pytest.raises(ValueError):
            env.step(bad)
        assert_unchanged(env, snap)
    for bad in ("KS", 1.5, None, True):
        with pytest.raises(ValueError):
            env.step(bad)
        assert_unchanged(env, snap)


@pytest.mark.parametrize(
    "options, valid",
    [
        ({"dealer": 4}, "random"),
        ({"deal_packets": 4}, "5"),
        ({"forbidden_discards": "kings"}, "five_point_cards"),
        ({"declaration_mode": "some"}, "all_or_pass"),
        ({"moors_tie": "random"}, "last_played"),
        ({"last_trick_bonus": 1.5}, "an int"),
        ({"matto_rule": "x"}, "exchange_at_end"),
        ({"matto_fallback": "x"}, "forfeit"),
        ({"matto_gift": "x"}, "lowest_id"),
        ({"reward": "score"}, "point_diff"),
        ({"match_target": 0}, "None"),
        ({"match_target": "800"}, "None"),
        ({"discards_follow_tricks": 1}, "True"),
        ({"natural_skip_counts_as_gap": "yes"}, "True"),
        ({"colour": 1}, "valid options"),
    ],
)
def test_bad_options_raise_listing_valid_values(options, valid):
    with pytest.raises(ValueError, match=valid):
        ottocento_v0.env(**options)


def test_declarations_win_immediately_needs_match_mode():
    with pytest.raises(ValueError, match="match_target"):
        ottocento_v0.env(declarations_win_immediately=True)
    ottocento_v0.env(declarations_win_immediately=True, match_target=800)


def test_a_score_hook_needs_match_mode():
    # Ottocento's own rule; the generic refusals (a string, floats, a wrong shape, a dealer out of range, a
    # deck that is not a permutation) are test_frame's hook tests, for every game
    with pytest.raises(ValueError) as err:
        ottocento_v0.env().reset(seed=0, options={"score": [10, 10]})
    assert str(err.value) == "reset option score needs match mode (option match_target)"
    ottocento_v0.env(match_target=800).reset(seed=0, options={"score": [10, 20]})  # taken in match mode


def test_spaces_metadata_and_names():
    env = ottocento_v0.env()
    assert env.action_space("player_1").n == 64
    assert env.metadata["name"] == "ottocento_v0" and "ansi" in env.metadata["render_modes"]
    assert env.metadata["zero_sum"] and env.metadata["teams"] == [["player_0", "player_2"], ["player_1", "player_3"]]
    assert env.metadata["max_episode_steps"] == 66
    for a in range(64):
        assert env.action_id(env.action_name(a)) == a
    assert env.action_name(62) == "DECLARE" and env.action_name(63) == "PASS" and env.action_name(61) == "MAT"
    with pytest.raises(ValueError):
        env.action_name(64)
    with pytest.raises(ValueError):
        env.action_id("KX")
    assert "hand" in env.observation_layout() and "declared_unplayed[partner]" in env.observation_layout()


def test_observation_is_seat_relative():
    k = OttocentoKernel()
    st = k.init(np.random.default_rng(0), 1, dealer=0)
    L = k.obs_layout
    for seat in range(4):
        o = k.observe(st, seat)[0]
        assert np.flatnonzero(o[L["hand"]]).tolist() == mask_to_cards(st.hands[0, seat])
        assert np.flatnonzero(o[L["dealer"]]).tolist() == [(0 - seat) % 4]
        assert o[L["hand_size"]].tolist() == [17 if (seat + r) % 4 == 0 else 15 for r in range(4)]
        assert o[L["my_discards"]].sum() == 0


# ----------------------------------------------------------------------------- hidden information
def permute_hidden(st, b, seat, rng) -> bool:
    """Shuffle the cards ``seat`` cannot see (other seats' undeclared held cards, and the discards
    unless ``seat`` is the dealer) among their places, keeping every count. True if anything moved."""
    others = [s for s in range(4) if s != seat]
    hidden = {s: [c for c in mask_to_cards(st.hands[b, s] & ~st.shown[b, s])] for s in others}
    pool = [c for s in others for c in hidden[s]]
    with_discards = int(st.dealer[b]) != seat
    disc = mask_to_cards(st.discards[b]) if with_discards else []
    pool += disc
    perm = list(rng.permutation(pool))
    if not pool:
        return False
    i = 0
    for s in others:
        n = len(hidden[s])
        new = perm[i : i + n]
        i += n
        st.hands[b, s] = (st.hands[b, s] & st.shown[b, s]) | np.uint64(sum(1 << int(c) for c in new))
        mat = 61 in new
        if mat:
            st.matto_owner[b] = s
    if with_discards:
        st.discards[b] = np.uint64(sum(1 << int(c) for c in perm[i:]))
        if 61 in perm[i:]:
            return False
    return perm != pool


def test_dealer_discards_are_hidden_from_the_others():
    k = OttocentoKernel()
    rng = np.random.default_rng(0)
    st = k.init(rng, 16, dealer=0)
    for _ in range(2):
        k.step(st, random_set_bit(k.legal_bitboard(st), rng), rng)
    L = k.obs_layout
    assert (k.observe(st, 0)[:, L["my_discards"]].sum(axis=1) == 2).all()
    for seat in (1, 2, 3):
        assert k.observe(st, seat)[:, L["my_discards"]].sum() == 0


def test_info_at_the_end_reveals_everything_and_only_then():
    env = ottocento_v0.env()
    env.reset(seed=3)
    random_steps(env, np.random.default_rng(3), 30)
    assert "discards" not in env.infos["player_0"]
    random_steps(env, np.random.default_rng(3), 200)
    info = env.infos["player_0"]
    assert len(info["discards"]) == 2 and sum(len(p) for p in info["piles"]) == 62
    assert info["totals"][0] == sum(info[k][0] for k in ("card_points", "captured_combinations", "declarations_team", "last_trick"))


def test_match_mode_plays_deals_until_the_target():
    env = ottocento_v0.env(match_target=500)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    total = {a: 0.0 for a in P}
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        total[agent] += rew
        env.step(None if term or trunc else int(rng.choice(env.legal_actions())))
    st = env.game_state
    assert int(st.deals_played[0]) >= 2 and max(st.score[0]) >= 1000
    w = int(st.winner[0])
    assert total["player_0"] == (1.0 if w == 0 else -1.0) and total["player_1"] == -total["player_0"]


def test_declarations_win_immediately():
    e6 = "ANG WOR MOO T16 T15 T13 BEG MAT KS QS JS AS KC KD AC"
    deck = make_deck({1: e6}, dealer=0)
    env = ottocento_v0.env(match_target=800, declarations_win_immediately=True)
    env.reset(seed=0, options={"deck": deck, "dealer": 0, "score": [100, 700]})
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    env.step(DECLARE)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}


def test_a_match_ended_by_a_declaration_shows_no_earlier_deal_as_its_result():
    """match_target=250 with declarations_win_immediately, seed 15: deal 1 is scored, then S3's declaration
    in deal 2 ends the match before its tricks are played. infos mixed the two deals: deal 2's unscored
    discards beside deal 1's totals (191, 239), piles and discards_to; the render and the table view
    showed deal 2's discards to every seat. Now infos say the match ended on declarations, no deal
    result, and the discards stay the dealer's (RULES.md §7, §11.5)."""
    env = ottocento_v0.env(match_target=250, declarations_win_immediately=True, render_mode="ansi")
    env.reset(seed=15)
    rng = np.random.default_rng(15)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    k, st = env.kernel, env.game_state
    assert (int(st.deals_played[0]), int(st.tricks_done[0]), int(st.dealer[0])) == (1, 0, 0)
    assert k.ended_by_declaration(st, 0)
    assert k.info(st, 0) == {
        "phase": "over", "dealer": 0, "tricks_won": [0, 0], "declarations": [0, 0, 0, 65],
        "declared": [False, False, False, True], "match_score": [191.0, 304.0], "ended_by": "declarations", "winner": "B",
    }
    discards = " ".join(TAROCCO62.names[c] for c in mask_to_cards(st.discards[0]))
    for seat in (1, 2, 3):
        text = k.render(st, 0, seat)
        assert "discards:" not in text and "the match ended on a declaration before this deal was played" in text
        assert text.isascii()  # the text view's space is printable ASCII (TextObservationWrapper); it said "§11.5"
        wrapped = TextObservationWrapper(env)
        assert wrapped.observation_space(f"player_{seat}").contains(wrapped.observe(f"player_{seat}"))
        assert "discards" not in {f["key"] for f in k.table_view(st, 0, seat)["facts"]}
    assert f"discards: {discards}" in k.render(st, 0, 0)  # the dealer's own view
    assert {"key": "discards", "value": discards} in k.table_view(st, 0, 0)["facts"]


def test_state_vector_reveals_every_hand_and_the_discards():
    env = ottocento_v0.env(dealer=1)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    random_steps(env, rng, 9)
    lay = env.kernel.state_layout
    s = env.state()
    st = env.game_state
    assert int(st.dealer[0]) == 1
    for seat in range(4):
        assert np.flatnonzero(s[lay[f"hand[S{seat}]"]]).tolist() == env.hands[P[seat]]
    assert np.flatnonzero(s[lay["discards"]]).tolist() == mask_to_cards(st.discards[0])
    assert env.state_space.contains(s)


@pytest.mark.parametrize("packet", [1, 3, 15])
def test_deal_packets_option_changes_only_the_mapping(packet):
    from ottocento_util import seat_positions

    env = ottocento_v0.env(deal_packets=packet)
    deck = np.random.default_rng(packet).permutation(62)
    env.reset(seed=0, options={"deck": deck, "dealer": 3})
    for s, pos in seat_positions(3, packet).items():
        assert sorted(env.hands[P[s]]) == sorted(deck[pos].tolist())


def test_a_match_reveals_each_deal_in_infos_when_it_ends():
    """RULES.md §7 (the spec's §7): "At the end of the deal everything is revealed (discards, final
    piles, every score component) through infos". In a match (match_target) only the last deal was
    ever revealed: infos stayed {} after the others, and the next deal cleared the discards. Now every
    agent's infos hold the scored deal's result at the step it ends, with its discards, and keep it
    while the next deal is played; the final infos are the last deal's."""
    env = ottocento_v0.env(match_target=800)
    env.reset(seed=1)
    st = env.game_state
    rng = np.random.default_rng(0)
    deals = []
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        before, disc = int(st.deals_played[0]), int(st.discards[0])
        env.step(int(rng.choice(env.legal_actions())))
        if int(st.deals_played[0]) == before:
            assert all(env.infos[a] == (deals[-1] if deals else {}) for a in env.agents)
            continue
        info = env.infos[env.agents[0]]
        assert all(env.infos[a] == info for a in env.agents)
        names = sorted(TAROCCO62.names[c] for c in mask_to_cards(disc))
        assert sorted(info["discards"]) == names and len(names) == 2
        assert info["totals"] == (st.res_total[0] / 2).tolist() and info["match_score"] == (st.score[0] / 2).tolist()
        assert sum(len(p) for p in info["piles"]) == 62 and all(c in info["piles"][0] + info["piles"][1] for c in names)
        deals.append(info)
    assert len(deals) >= 2 and deals[0]["discards"] != deals[1]["discards"]
    assert deals[-1]["winner"] in ("A", "B") and all(d["winner"] is None for d in deals[:-1])
