"""The Aluette PettingZoo env: API conformance, seeding, rendering, copying, errors, and hidden
information (cards and the signal channel, RULES.md §7)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cardzoo.envs import aluette_v0
from cardzoo.envs.aluette.kernel import AluetteKernel
from cardzoo.envs.core.cards import SPANISH48

from aluette_util import P, cards_of, cid, ids, make_deck, name, new_env, play
from env_util import random_steps

CARD_RE = re.compile(r"(?<![0-9A-Za-z])[A2-9JNK](?:Co|Cu|Cl|Sw)(?![0-9A-Za-z])")


# ----------------------------------------------------------------------------- PettingZoo tests
def test_first_dealer_option():
    for d in range(4):
        env = aluette_v0.env(first_dealer=d)
        env.reset(seed=d)
        assert int(env.game_state.dealer[0]) == d
        assert env.agent_selection == P[(d + 1) % 4]  # the dealer's left votes first


# ----------------------------------------------------------------------------- render
def test_render_shows_only_the_viewers_hand_and_signals():
    hands = {2: "3Cu ASw 4Co 5Co 6Co 7Co 8Co JCo NCo", 3: "3Co 2Co 4Cu 5Cu 6Cu 7Cu 8Cu JCu NCu"}
    for view in range(4):
        env = new_env(make_deck(1, hands), dealer=1, chant=False, render_mode="ansi", render_view=view)
        play(env, "S2:madame S2:end_signals S3:monsieur S3:end_signals")
        text = env.render()
        shown = set(CARD_RE.findall(text))
        own = {name(c) for c in env.hands[P[view]]}
        others = {name(c) for s in range(4) if s != view for c in env.hands[P[s]]}
        assert own <= shown and not shown & others
        assert ("madame" in text) == (view in (0, 2))
        assert ("monsieur" in text) == (view in (1, 3))
        public = env.render(view=None)
        assert not CARD_RE.findall(public) and "madame" not in public and "monsieur" not in public
        full = env.render(view="all")
        assert others <= set(CARD_RE.findall(full)) and "madame" in full and "monsieur" in full


def test_public_render_shows_a_caught_signal_only_with_public_visibility():
    """With signal_intercept=1.0 both opponents catch every signal, so all four seats heard S0's
    petit_neuf; the public render (view=None) showed it, telling the sender that he was caught
    (RULES.md §4.5: he is not told) although render() promises no signal unless "public"."""
    hands = {0: "9Co 4Co 5Co 6Co 7Co 8Co 4Cu 5Cu 6Cu"}
    for visibility, intercept, shown in (("partner", 1.0, False), ("partner", 0.0, False), ("public", 0.0, True)):
        env = new_env(make_deck(3, hands), dealer=3, chant=False, render_mode="ansi",
                      signal_visibility=visibility, signal_intercept=intercept)
        play(env, "S0:petit_neuf")
        assert env.game_state.heard[0].tolist() == ([32, 32, 32, 32] if shown or intercept else [32, 0, 32, 0])
        public = env.render(view=None)
        assert ("petit_neuf" in public) == shown, (visibility, intercept)
        assert "petit_neuf" in env.render(view=2)


def test_render_of_a_seat_counts_the_cards_left():
    # render_mode None and a bad render mode or view: test_frame.test_render_mode_none_warns_and_a_bad_render_mode_or_view_raises
    env = aluette_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="seat 0..3"):
        aluette_v0.env(render_mode="ansi", render_view=7)


# ----------------------------------------------------------------------------- errors
def snapshot(env):
    st = env.game_state
    return ({f: getattr(st, f).copy() for f in st.__dataclass_fields__}, env.agent_selection, dict(env.rewards),
            dict(env._cumulative_rewards))


def assert_unchanged(env, snap):
    fields, agent, rew, cum = snap
    st = env.game_state
    for f, v in fields.items():
        assert np.array_equal(getattr(st, f), v), f
    assert env.agent_selection == agent and env.rewards == rew and env._cumulative_rewards == cum


def test_illegal_actions_raise_naming_them_and_the_legal_ones():
    hands = {2: "3Cu ASw 4Co 5Co 6Co 7Co 8Co JCo NCo"}
    env = new_env(make_deck(1, hands), dealer=1)
    snap = snapshot(env)
    with pytest.raises(ValueError) as err:
        env.step(cid("3Cu"))  # a card during the chant vote
    msg = str(err.value)
    assert "3Cu" in msg and "player_2" in msg and "accept_chant" in msg and "refuse_chant" in msg
    assert_unchanged(env, snap)
    play(env, "S2:refuse_chant")
    snap = snapshot(env)
    for bad, word in ((env.action_id("monsieur"), "monsieur"), (env.action_id("offer_surrender"), "offer_surrender")):
        with pytest.raises(ValueError, match=word) as err:
            env.step(bad)
        assert "madame" in str(err.value) and "end_signals" in str(err.value)
    assert_unchanged(env, snap)
    play(env, "S2:end_signals S3:end_signals S0:end_signals S1:end_signals")
    snap = snapshot(env)
    other = env.hands["player_3"][0]
    with pytest.raises(ValueError, match=name(other)):  # a card seat 2 does not hold
        env.step(other)
    assert_unchanged(env, snap)
    play(env, "S2:3Cu")


@pytest.mark.parametrize(
    "options, valid",
    [
        ({"episode": "hand"}, ["deal", "match"]),
        ({"reward": "points"}, ["score", "win"]),
        ({"first_dealer": 4}, ["random", "0", "3"]),
        ({"first_dealer": "none"}, ["random", "(None is accepted for 'random')"]),
        ({"partnership_draw": 1}, ["True", "False"]),
        ({"chant": "yes"}, ["True", "False"]),
        ({"chant_recipients": "dealer"}, ["left_and_dealer", "left_and_partner"]),
        ({"mordienne": None}, ["True", "False"]),
        ({"surrender": "on"}, ["True", "False"]),
        ({"signals": "on"}, ["truthful", "free", "off"]),
        ({"signal_visibility": "opponents"}, ["partner", "public"]),
        ({"signal_timing": "turns"}, ["round_and_turns", "round"]),
        ({"signal_intercept": 1.5}, ["0 to 1"]),
        ({"signal_intercept": True}, ["0 to 1"]),
        ({"match_deals": 0}, ["1 to 1000"]),
        ({"match_deals": 1_001}, ["1 to 1000"]),
        ({"match_target": 0}, ["None", "1 to 1000"]),
        ({"match_target": 5.0}, ["None", "1 to 1000"]),
        ({"max_deals": 0}, ["1 to 10000"]),
        ({"signal": "off"}, ["signals", "signal_visibility"]),
        ({"surrender": True, "mordienne": False}, ["mordienne"]),
        ({"signal_visibility": "public", "signal_intercept": 0.5}, ["partner"]),
    ],
)
def test_bad_options_raise_listing_valid_values(options, valid):
    with pytest.raises(ValueError) as err:
        aluette_v0.env(**options)
    msg = str(err.value)
    assert next(iter(options)) in msg
    for v in valid:
        assert v in msg


@pytest.mark.parametrize("score", [[101, 0], [0, 101], [-1, 0]])
def test_a_score_hook_out_of_aluette_range_is_refused(score):
    # Aluette's own range (0..100); the generic refusals (a string, floats, a wrong shape, a dealer out of
    # range, a deck that is not a permutation) are test_frame's hook tests, for every game
    env = aluette_v0.env(episode="match")
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options={"score": score})
    assert str(err.value) == f"reset option score={score!r} is out of range: each value must be in 0..100"


# ----------------------------------------------------------------------------- spaces, masks, metadata
def test_metadata():
    env = aluette_v0.env()
    md = env.metadata
    assert md["name"] == "aluette_v0" and md["render_modes"] == ["ansi", "human"] and md["zero_sum"] is True
    assert md["teams"] == [["player_0", "player_2"], ["player_1", "player_3"]]
    assert md["max_episode_steps"] == 4 + 12 + 44 + 5 + 36
    assert aluette_v0.env(episode="match").metadata["max_episode_steps"] == 101 * 5
    assert aluette_v0.env(episode="match", match_target=5, max_deals=40).metadata["max_episode_steps"] == 101 * 40


def test_observation_is_seat_relative():
    hands = {1: "5Cu 4Co 4Cu 4Cl 4Sw 5Co 5Cl 5Sw 6Co", 2: "KSw", 3: "ACl"}
    env = new_env(make_deck(0, hands), dealer=0, chant=False, signals="off")
    play(env, "S1:5Cu S2:KSw S3:ACl")
    lay = env.kernel.obs_layout
    played = {1: "5Cu", 2: "KSw", 3: "ACl", 0: None}
    rel = ["me", "next", "partner", "previous"]
    for seat in range(4):
        o = env.observe(P[seat])["observation"]
        cards = lambda v: {name(c) for c in np.flatnonzero(v)}  # noqa: E731
        assert cards(o[lay["hand"]]) == {name(c) for c in env.hands[P[seat]]}
        for i, r in enumerate(rel):
            c = played[(seat + i) % 4]
            assert cards(o[lay[f"played_by[{r}]"]]) == ({c} if c else set())
        assert cards(o[lay["trick"]]) == {"5Cu", "KSw", "ACl"}
        onehot = lambda s: [int((s - seat) % 4 == i) for i in range(4)]  # noqa: E731
        assert o[lay["dealer"]].tolist() == onehot(0)
        assert o[lay["leader"]].tolist() == onehot(1)
        assert o[lay["to_act"]].tolist() == onehot(0)
        assert o[lay["trick_top"]].tolist() == onehot(3)
        assert o[lay["trick_top_power"]].tolist() == [11] and o[lay["cards_in_trick"]].tolist() == [3]
        assert o[lay["phase"]].tolist() == [0, 0, 0, 0, 0, 1]


def test_hands_and_known_cards_live_views():
    env = new_env(make_deck(0, {1: "5Cu 4Co 4Cu 4Cl 4Sw 5Co 5Cl 5Sw 6Co"}), dealer=0, chant=False, signals="off")
    assert sorted(env.hands["player_1"]) == sorted(ids("5Cu 4Co 4Cu 4Cl 4Sw 5Co 5Cl 5Sw 6Co"))
    assert env.known_cards == {a: [] for a in P}
    play(env, "S1:5Cu")
    assert len(env.hands["player_1"]) == 8


# ----------------------------------------------------------------------------- hidden information
def permute_hidden(st, b, seat, rng):
    """Shuffle every card hidden from ``seat`` (RULES.md §7) among the places it could be: the other
    seats' hands, the other seats' chant discards and the unused talon (sizes kept). True if a card moved."""
    others = [s for s in range(4) if s != seat]
    received = 0
    for s in range(4):
        received |= int(st.received[b, s])
    unused = int(st.talon[b]) & ~received
    slots = [("h", s) for s in others] + [("d", s) for s in others] + [("t", None)]
    def get(kind, s):  # noqa: E306
        return cards_of(st.hands[b, s]) if kind == "h" else cards_of(st.discarded[b, s]) if kind == "d" else cards_of(unused)
    pools = [get(k, s) for k, s in slots]
    flat = [c for p in pools for c in p]
    perm = [flat[i] for i in rng.permutation(len(flat))]
    k = 0
    new_unused = 0
    for (kind, s), pool in zip(slots, pools):
        m = 0
        for c in perm[k : k + len(pool)]:
            m |= 1 << c
        k += len(pool)
        if kind == "h":
            st.hands[b, s] = np.uint64(m)
        elif kind == "d":
            st.discarded[b, s] = np.uint64(m)
        else:
            new_unused = m
    st.talon[b] = np.uint64((int(st.talon[b]) & received) | new_unused)
    return perm != flat


def test_a_partner_signal_reaches_only_the_partner():
    """Two games identical but for one signal of seat 0: only seats 0 and 2 can tell them apart."""
    k = AluetteKernel(chant=False)
    rng = np.random.default_rng(0)
    st = k.init(rng, 200, dealer=3)  # seat 0 opens the signalling round
    legal = k.legal_actions(st)
    assert legal[:, 50:60].any(axis=1).all()  # a truthful signal always exists (faible when nothing else)
    sig = 50 + legal[:, 50:60].argmax(axis=1)
    twin = st.copy()
    k.step(st, sig, rng)
    k.step(twin, np.full(200, 60), rng)  # end_signals instead
    # put the twin's turn back to seat 0 so that only the signal record differs
    twin.current_player[:] = 0
    for seat, differs in ((0, True), (1, False), (2, True), (3, False)):
        a, b = k.observe(st, seat), k.observe(twin, seat)
        assert (not np.array_equal(a, b)) == differs, seat
    assert [k.render(st, i, view=1) for i in range(5)] == [k.render(twin, i, view=1) for i in range(5)]


def test_info_at_episode_end_has_no_hidden_cards_and_rewards_are_zero_sum():
    for seed in range(6):
        env = aluette_v0.env()
        env.reset(seed=seed)
        random_steps(env, np.random.default_rng(seed), 500)
        assert all(env.terminations.values())
        for a in P:
            info = env.infos[a]
            assert set(info) == {"phase", "dealer", "deal_winner", "deal_points", "mordienne", "score", "deals", "trick_results"}
            assert info["phase"] == "over" and not CARD_RE.findall(repr(info))
        d = float(env.game_state.points[0, 0] - env.game_state.points[0, 1])
        assert [env.rewards[a] for a in P] == [d, -d, d, -d]


def test_state_vector_reveals_all_hands_and_signals():
    env = new_env(make_deck(1, {2: "3Cu ASw 4Co 5Co 6Co 7Co 8Co JCo NCo"}), dealer=1, chant=False)
    play(env, "S2:madame")
    lay = env.kernel.state_layout
    s = env.state()
    for seat in range(4):
        assert np.flatnonzero(s[lay[f"hand[S{seat}]"]]).tolist() == sorted(env.hands[P[seat]])
    assert s[lay["signals[S2]"]].tolist() == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert s[lay["talon"]].sum() == 12


def test_partnership_draw_infos_after_reset():
    env = aluette_v0.env(partnership_draw=True)
    env.reset(seed=3)
    seats = env.infos["player_0"]["agent_seat"]
    assert sorted(seats) == [0, 1, 2, 3]
    assert all(env.infos[a]["agent_seat"] == seats for a in P)


def test_card_names_are_the_spanish_pack():
    assert len(SPANISH48.names) == 48 and all(CARD_RE.fullmatch(n) for n in SPANISH48.names)


def test_a_match_reveals_each_deals_trick_results_in_infos_when_it_ends():
    """RULES.md §7 (the spec's §7): every trick's result (winner seat or spoiled) is public. In a match
    the step of a deal's last card deals the next deal, which cleared the results, and infos stayed
    {} until the match's end, so nobody ever saw how deals 1..n-1 ended. Now every agent's infos give
    the deal's result when it ends (winner, points, trick results) and keep it during the next deal."""
    env = aluette_v0.env(episode="match", match_deals=2, chant=False, signals="off", first_dealer=0)
    env.reset(seed=3)
    st = env.game_state
    while int(st.deals[0]) == 0:
        results = st.results[0].tolist()
        env.step(min(env.legal_actions()))
    assert not any(env.terminations.values()) and int(st.tricks_done[0]) == 0  # deal 2 is dealt
    info = env.infos[env.agents[0]]
    assert all(env.infos[a] == info for a in env.agents)
    shown = info["trick_results"]
    assert len(shown) == 9 and all(r is not None for r in shown)
    # the first 8 as they stood before the last card (the 9th was decided by it)
    assert results[:8] == [4 if r == "spoiled" else r for r in shown[:8]] and results[8] == -1
    assert info["deal_winner"] == int(st.deal_winner[0]) and info["deal_points"] == st.points[0].tolist()
    assert info["deals"] == 1 and info["match_result"] == "running"
    env.step(min(env.legal_actions()))
    assert env.infos[env.agents[0]] == info  # kept while deal 2 is played


@pytest.mark.parametrize("options", [{"match_target": 5}, {"match_deals": 3}, {"max_deals": 2}, {"match_target": 5, "max_deals": 2}])
def test_match_options_play_no_part_in_a_single_deal(options):
    """RULES.md §6: the match options act only with episode="match". With the default episode="deal"
    each is accepted (the spec's option table allows it on its own) and the episode is the one deal
    that the default options play: the same cards, moves, rewards and end, step for step."""
    plain, given = aluette_v0.env(), aluette_v0.env(**options)
    for seed in (0, 1, 2):
        plain.reset(seed=seed)
        given.reset(seed=seed)
        steps = 0
        for agent in plain.agent_iter():
            obs, reward, term, trunc, info = plain.last()
            assert given.agent_selection == agent
            obs2, reward2, term2, trunc2, info2 = given.last()
            assert reward2 == reward and (term2, trunc2) == (term, trunc) and info2 == info
            assert np.array_equal(obs2["action_mask"], obs["action_mask"])
            action = None if term or trunc else int(np.flatnonzero(obs["action_mask"])[seed % int(obs["action_mask"].sum())])
            plain.step(action)
            given.step(action)
            steps += 1
        assert not given.agents and steps > 9  # one deal, ended at the same step
        assert given.unwrapped.game_state.deals.item(0) == plain.unwrapped.game_state.deals.item(0) == 1


@pytest.mark.parametrize("reward, b_return", [("score", 1.0), ("win", 0.0)])
def test_the_deal_that_reaches_max_deals_pays_its_points(reward, b_return):
    """RULES.md §9 D9: a match to 5 cut after max_deals=1 deal. Seed 0, every seat playing its lowest
    legal action: team B wins the deal for 1 point; the match is truncated there ("max_deals=1
    reached"). With reward="score" that deal pays +1 / -1 as every deal does (before: 0, so the
    rewards no longer added up to the score); nobody won the match, so reward="win" pays 0."""
    env = aluette_v0.env(episode="match", match_target=5, max_deals=1, reward=reward)
    env.reset(seed=0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, r, term, trunc, info = env.last()
        returns[agent] += r
        env.step(None if term or trunc else min(env.legal_actions()))
    st = env.unwrapped.game_state
    assert st.score[0].tolist() == [0, 1] and bool(st.truncated[0]) and info["truncation"] == "max_deals=1 reached"
    assert returns == {"player_0": -b_return, "player_1": b_return, "player_2": -b_return, "player_3": b_return}
