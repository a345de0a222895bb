"""The Avinas PettingZoo env: API conformance, seeding, rendering, copying, errors, and the
hidden information of RULES.md §7 (hands, the dealer's private look, the face-down card, the signal)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cardzoo.envs import avinas_v0
from cardzoo.envs.avinas.kernel import AvinasKernel

from avinas_util import P, act, cards_of, cid, craft, make_deck, name, new_env, obs_slice, play
from env_util import random_steps

CARD_RE = re.compile(r"(?<![0-9A-Z_])(?:10|[7-9JQKA])[CDHS](?![0-9A-Za-z])")
E1_KEY = {1: "9S 7D", 2: "7C KH", 3: "AH TC", 0: "QD 8S"}


# ----------------------------------------------------------------------------- PettingZoo tests
# ----------------------------------------------------------------------------- errors
def snapshot(env):
    st = env.game_state
    return ({f: getattr(st, f).copy() for f in st.__dataclass_fields__}, env.agent_selection,
            dict(env.rewards), dict(env._cumulative_rewards))


def assert_unchanged(env, snap):
    fields, agent, rew, cum = snap
    for f, v in fields.items():
        assert np.array_equal(getattr(env.game_state, f), v), f
    assert env.agent_selection == agent and env.rewards == rew and env._cumulative_rewards == cum


def test_illegal_actions_raise_naming_them_and_leave_the_game_unchanged():
    env = new_env(make_deck(0, key=E1_KEY), dealer=0)
    play(env, "S1:NO_KNOCK S3:NO_KNOCK")
    snap = snapshot(env)
    non_trump = next(c for c in env.hands["player_1"] if c // 8 != 1 and c % 8 not in (4, 5))
    with pytest.raises(ValueError) as err:
        env.step(non_trump)  # trick 1 must be led with a trump
    msg = str(err.value)
    assert name(non_trump) in msg and "player_1" in msg and "7D" in msg
    assert_unchanged(env, snap)
    for bad in ("KNOCK", "PASS", "STOP", "FD_7D"):
        with pytest.raises(ValueError, match=bad):
            env.step(env.action_id(bad))
        assert_unchanged(env, snap)
    env.step(cid("7D"))
    assert env.agent_selection == "player_2"


@pytest.mark.parametrize(
    "options, valid",
    [
        ({"episode": "hand"}, ["deal", "match"]),
        ({"first_dealer": 4}, ["random", "0", "3"]),
        ({"first_dealer": "none"}, ["random", "(None is accepted for 'random')"]),
        ({"reward": "x"}, ["score", "win"]),
        ({"knock_back": "yes"}, ["after_knock", "always", "never"]),
        ({"ram_schedule": "x"}, ["flat", "graded"]),
        ({"pip_schedule": "x"}, ["graded", "flat"]),
        ({"call_count": "x"}, ["trumps", "suit"]),
        ({"honesty": "x"}, ["penalize", "mask"]),
        ({"facedown_signal": "x"}, ["auto", "free", "none"]),
        ({"valuable_min_points": 1001}, ["from -1000 to 1000"]),
        ({"valuable_min_points": 10.0}, ["from -1000 to 1000"]),
        ({"no7_stop": 1}, ["True", "False"]),
        ({"trump_lead_rule": "x"}, ["trick2", "every_lead"]),
        ({"pip_limit": 0}, ["from 1 to 249"]),
        ({"pip_limit": 250}, ["from 1 to 249"]),
        ({"max_throw_ins": 0}, ["from 1 to 30000"]),
        ({"max_deals": -3}, ["from 1 to 30000"]),
        ({"knockback": "never"}, ["knock_back", "pip_limit"]),
    ],
)
def test_bad_options_raise_listing_valid_values(options, valid):
    with pytest.raises(ValueError) as err:
        avinas_v0.env(**options)
    msg = str(err.value)
    assert next(iter(options)) in msg
    for v in valid:
        assert v in msg


@pytest.mark.parametrize(
    "hook, value, valid",
    [("pips", [12, 0], "0..11"), ("pips", [0, -1], "0..11"), ("ram_balance", 1000, "-100..100"), ("ram_balance", -101, "-100..100")],
)
def test_a_pips_or_ram_balance_hook_out_of_avinas_range_is_refused(hook, value, valid):
    # Avinas' own ranges (pips below the pip limit 12, the ram balance); the generic refusals (a string,
    # floats, a wrong shape, a dealer out of range, a deck that is not a permutation) are test_frame's hook
    # tests, for every game
    env = avinas_v0.env(episode="match")
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options={hook: value})
    assert str(err.value) == f"reset option {hook}={value!r} is out of range: each value must be in {valid}"


def test_defaults_are_the_spec_defaults():
    k = AvinasKernel()
    assert k.options == {
        "first_dealer": "random", "episode": "deal", "reward": "score", "knock_back": "after_knock",
        "ram_schedule": "flat", "pip_schedule": "graded", "call_count": "trumps", "honesty": "penalize",
        "facedown_signal": "auto", "valuable_min_points": 10, "no7_stop": True, "trump_lead_rule": "trick2",
        "pip_limit": 12, "max_throw_ins": 50, "max_deals": 500,
    }


# ----------------------------------------------------------------------------- spaces, names, metadata
def test_spaces_masks_and_metadata():
    env = avinas_v0.env()
    for a in P:
        assert env.action_space(a).n == 83
    md = env.metadata
    assert md["name"] == "avinas_v0" and md["render_modes"] == ["ansi", "human"] and md["zero_sum"] is True
    assert md["teams"] == [["player_0", "player_2"], ["player_1", "player_3"]]
    # 4 calls per throw-in; a scored deal: 4 calls, 1 declaration, 32 cards, 7 stops, 7 signals
    assert md["max_episode_steps"] == 4 * 50 + 51
    assert avinas_v0.env(episode="match", max_deals=10).metadata["max_episode_steps"] == (4 * 50 + 51) * 10
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if any(env.terminations.values()):
            break
        for a in P:
            o = env.observe(a)
            assert o["action_mask"].dtype == np.int8 and env.observation_space(a).contains(o)
            if a == env.agent_selection:
                assert np.flatnonzero(o["action_mask"]).tolist() == env.legal_actions() != []
            else:
                assert not o["action_mask"].any()
        env.step(int(rng.choice(env.legal_actions())))
    assert env.state_space.contains(env.state())


# ----------------------------------------------------------------------------- render
def test_render_shows_only_what_the_view_may_know():
    env = new_env(make_deck(0, key=E1_KEY), dealer=0, render_mode="ansi")
    pub = set(CARD_RE.findall(env.render(view=None)))
    assert pub == {"9S", "7D", "7C", "AH", "10C"}  # the exposed cards only
    assert set(CARD_RE.findall(env.render(view=0))) == set(map(name, env.hands["player_0"])) | pub | {"KH"}
    for v in (1, 2, 3):  # only the dealer's view shows KH on seat 2
        assert set(CARD_RE.findall(env.render(view=v))) == set(map(name, env.hands[P[v]])) | pub
    allv = set(CARD_RE.findall(env.render(view="all")))
    assert allv == {name(c) for c in range(32)}
    with pytest.raises(ValueError, match="seat 0..3"):
        env.render(view=5)


def test_render_hides_the_face_down_card_and_the_signal():
    env = new_env(seed=4, render_mode="ansi")
    craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=1, tricks_won=(1, 0),
          hands={2: "AS TD 9C 8C KC 7S 8D", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"})
    act(env, "S2:FD_AS")
    for v in (None, 0, 1, 3):
        text = env.render(view=v)
        assert "AS" not in text and "??" in text
        assert ("valuable" in text) == (v == 0)
    assert "AS(fd)" in env.render(view=2) and "AS(fd)" in env.render(view="all")
    play(env, "S3:9H S0:JS S1:7D")
    assert "??" not in env.render(view=1)


# ----------------------------------------------------------------------------- live views
def test_hands_and_known_cards_live_views():
    env = new_env(make_deck(0, key=E1_KEY), dealer=0)
    assert all(len(h) == 8 for h in env.hands.values())
    known = {a: {name(c) for c in cs} for a, cs in env.known_cards.items()}
    # the dealer (seat 0) saw his partner's hidden KH; his own hidden QD and 8S nobody else has seen
    assert known == {"player_0": set(), "player_1": {"9S", "7D"}, "player_2": {"7C", "KH"},
                     "player_3": {"AH", "10C"}}
    play(env, "S1:NO_KNOCK S3:NO_KNOCK S1:7D")
    assert "7D" not in {name(c) for c in env.hands["player_1"]} and len(env.hands["player_1"]) == 7
    assert {name(c) for c in env.known_cards["player_1"]} == {"9S"}


# ----------------------------------------------------------------------------- hidden information
def permute_hidden(st, b, seat, rng):
    """Shuffle every card hidden from ``seat`` (RULES.md §7) among the places it could be.

    Hidden from ``seat``: the other seats' held cards that ``seat`` has not seen (exposed cards
    are seen by all, the dealer's side's key cards by the dealer), and a face-down card of the
    current trick that another seat led (kept fixed for the leader's partner, who has the bit, and
    when it is a card the seat saw exposed: that case has its own test below).
    Hand sizes stay; the dealer's private knowledge follows the cards it names.
    Returns True if anything moved.
    """
    known = int(st.exposed[b]) | (int(st.dealer_seen[b]) if int(st.dealer[b]) == seat else 0)
    slots = []  # (kind, seat)
    cards = []
    for s in range(4):
        if s == seat:
            continue
        for c in cards_of(int(st.hands[b, s]) & ~known):
            slots.append(("hand", s))
            cards.append(c)
    fd = int(st.fd_seat[b])
    if fd >= 0 and fd != seat and (fd + 2) % 4 != seat and not known >> int(st.trick_card[b, fd]) & 1:
        slots.append(("fd", fd))
        cards.append(int(st.trick_card[b, fd]))
    perm = [cards[i] for i in rng.permutation(len(cards))]
    mapping = dict(zip(cards, perm))
    for s in range(4):
        if s != seat:
            st.hands[b, s] = np.uint64(int(st.hands[b, s]) & known)
    for (kind, s), c in zip(slots, perm):
        if kind == "hand":
            st.hands[b, s] = np.uint64(int(st.hands[b, s]) | (1 << c))
        else:
            old = int(st.trick_card[b, s])
            st.trick_card[b, s] = c
            st.played[b, s] = np.uint64((int(st.played[b, s]) & ~(1 << old)) | (1 << c))
            st.trick[b] = np.uint64((int(st.trick[b]) & ~(1 << old)) | (1 << c))
    ds = 0
    for c in cards_of(st.dealer_seen[b]):
        ds |= 1 << mapping.get(c, c)
    st.dealer_seen[b] = np.uint64(ds)
    return perm != cards


def test_face_down_card_leaks_to_nobody_but_its_leader():
    # the same position with a different face-down card: only the leader's view (and the
    # partner's bit when the value class changes) may differ
    def after(card):
        env = new_env(seed=4)
        craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=1, tricks_won=(1, 0),
              hands={2: "AS TD 9C 8C KC 7S 8D", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"})
        act(env, f"S2:FD_{card}")
        return env

    a, b, c = after("AS"), after("TD"), after("8D")
    for v in (1, 3):
        assert np.array_equal(a.observe(P[v])["observation"], b.observe(P[v])["observation"])
        assert np.array_equal(a.observe(P[v])["observation"], c.observe(P[v])["observation"])
    # the partner: same as long as the bit is the same (AS, TD both valuable)
    oa, ob = a.observe("player_0")["observation"], b.observe("player_0")["observation"]
    assert np.array_equal(oa, ob)
    assert not np.array_equal(oa, c.observe("player_0")["observation"])
    assert not np.array_equal(a.observe("player_2")["observation"], b.observe("player_2")["observation"])


def test_dealers_private_look_reaches_only_the_dealer():
    base = make_deck(0, key=E1_KEY)
    other = list(base)
    pos_kh, pos_x = base.index(cid("KH")), base.index(cid("9D"))  # swap P's hidden 8th with a hidden card
    assert pos_x not in (3, 7, 11, 15, 19, 23, 27, 31)
    other[pos_kh], other[pos_x] = other[pos_x], other[pos_kh]
    e1, e2 = new_env(base, dealer=0), new_env(other, dealer=0)
    owner = [s for s in range(4) if cid("9D") in e1.hands[P[s]]][0]
    for v in range(4):
        same = np.array_equal(e1.observe(P[v])["observation"], e2.observe(P[v])["observation"])
        # the dealer sees the difference; so do the two holders of the swapped cards
        assert same == (v not in (0, 2, owner))


def test_info_has_no_cards_and_rewards_follow_the_deal_outcome():
    for seed in range(8):
        env = avinas_v0.env()
        env.reset(seed=seed)
        random_steps(env, np.random.default_rng(seed), 500)
        assert all(env.terminations.values())
        st = env.game_state
        for a in P:
            assert not CARD_RE.findall(repr(env.infos[a]))
        loser = int(st.last_loser[0])
        pen = int(st.last_penalty[0])
        u = pen if st.last_game[0] == 0 else pen / 2
        expect = [u, -u, u, -u] if loser == 1 else [-u, u, -u, u]
        assert [env.rewards[a] for a in P] == expect


def test_state_vector_reveals_all_hands_and_the_face_down_card():
    env = new_env(seed=4)
    craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=1, tricks_won=(1, 0),
          hands={2: "AS TD 9C 8C KC 7S 8D", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"})
    act(env, "S2:FD_AS")
    lay = env.kernel.state_layout
    s = env.state()
    for seat in range(4):
        assert np.flatnonzero(s[lay[f"hand[S{seat}]"]]).tolist() == sorted(env.hands[P[seat]])
    assert np.flatnonzero(s[lay["facedown_card"]]).tolist() == [cid("AS")]
    assert s[lay["signal"]].tolist() == [1, 0]


def test_full_match_with_win_reward():
    for seed in range(3):
        env = avinas_v0.env(episode="match", reward="win", pip_limit=6)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = {a: 0.0 for a in P}
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            env.step(int(rng.choice(env.legal_actions())))
            for a in P:
                total[a] += env.rewards[a]
        st = env.game_state
        w = int(st.winner[0])
        assert w in (0, 1) and st.pips[0].max() >= 6
        sign = 1.0 if w == 0 else -1.0
        assert total == {"player_0": sign, "player_1": -sign, "player_2": sign, "player_3": -sign}
        assert env.infos["player_0"]["match_winner"] == "AB"[w]


def test_a_match_tells_every_agent_each_scored_deal_in_infos():
    """RULES.md §7 (our decision): in a match the step that scores a deal deals the next one, and infos
    stayed {} until the match ended. Now at the step each deal is scored every agent's infos give its
    result (game, declarer, trumps, knocks, card points and tricks per team, loser and penalty, lie,
    stop; no card), kept while the next deals (thrown-in ones too) are played."""
    env = avinas_v0.env(episode="match")
    scored = stopped = 0
    for seed in range(4):
        env.reset(seed=seed)
        st = env.game_state
        rng = np.random.default_rng(seed)
        told = {}
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            before = int(st.deals[0])
            decl, trump, knocked = int(st.declarer[0]), int(st.trump[0]), st.knocked[0].tolist()
            env.step(int(rng.choice(env.legal_actions())))
            if int(st.deals[0]) == before or st.done[0]:
                assert all(env.infos[a] == told for a in P) or st.done[0]
                continue
            scored += 1
            told = env.infos[P[0]]
            assert all(env.infos[a] == told for a in P) and told == env.unwrapped.kernel.info(st, 0)
            assert (told["last_declarer"], told["last_trump"], told["last_knocked"]) == (decl, "CDHS"[trump], knocked)
            assert told["last_loser"] == "AB"[int(st.last_loser[0])] and told["deals"] == before + 1
            if told["declarer_stopped"]:  # §6.3: only completed tricks count
                stopped += 1
                assert sum(told["last_tricks_won"]) < 8 and sum(told["last_card_points"]) <= 120
            else:
                assert sum(told["last_tricks_won"]) == 8 and sum(told["last_card_points"]) == 120
            assert told["card_points"] == [0, 0] and told["calls"] == st.calls[0].tolist()  # the next deal's
            assert not CARD_RE.findall(repr(told))
    assert scored >= 8 and stopped >= 1


def test_an_exposed_card_led_face_down_stays_hidden():
    # S2's AS was exposed at the deal; leading it face down must look like leading another
    # valuable card face down (the AS stays "held" in S2's shown cards until the trick ends)
    def after(card):
        env = new_env(seed=4, render_mode="ansi")
        craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=1, tricks_won=(1, 0),
              hands={2: "AS TD 9C 8C KC 7S 8D", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"})
        env.game_state.exposed[0] = np.uint64(1 << cid("AS"))
        env._after_step()
        act(env, f"S2:FD_{card}")
        return env

    a, b = after("AS"), after("TD")
    for v in (0, 1, 3):
        assert np.array_equal(a.observe(P[v])["observation"], b.observe(P[v])["observation"]), v
        assert a.render(view=v) == b.render(view=v)
    assert obs_slice(a, "player_1", "shown[next]")[cid("AS")] == 1  # S2 is S1's next
    play(a, "S3:9H S0:JS S1:7D")
    assert obs_slice(a, "player_1", "shown[next]")[cid("AS")] == 0  # revealed and gone


def test_determinize_keeps_the_face_down_card_out_of_its_leaders_void_suits():
    """RULES.md §5: a face-down card was in its leader's hand, so it cannot be of a plain suit the
    leader showed void in earlier. every_lead, trumps diamonds: S2 did not follow hearts in trick 5
    (voids 0b10100: hearts and trumps) and leads face down in trick 7; for S3 the face-down card is
    one of the unseen 8C KC 8S 9S KS and never AH (before the fix AH came up in 40 of 200 copies)."""
    env = avinas_v0.env(trump_lead_rule="every_lead")
    env.reset(seed=100244)
    for a in [77, 77, 4, 14, 12, 13, 10, 8, 27, 11, 20, 31, 29, 21, 5, 9, 28, 7, 22, 15, 19, 17, 32, 24, 18, 16, 62]:
        env.step(a)
    st = env.game_state
    k = env.unwrapped.kernel
    assert (int(st.fd_seat[0]), int(st.voids[0, 2]), int(st.trump[0]), int(st.current_player[0])) == (2, 0b10100, 1, 3)
    drawn = {k.action_name(int(k.determinize(st, 3, np.random.default_rng(i)).trick_card[0, 2])) for i in range(200)}
    assert drawn == {"8C", "KC", "8S", "9S", "KS"}


def test_shown_me_of_the_dealer_lists_his_own_hidden_key_cards_too():
    """RULES.md §11.9 (wording fixed: it said shown[me] lists only cards everyone has seen). E1:
    dealer S0's shown[me] holds his own hidden 4th/8th QD 8S; the others' shown[me] only their
    exposed cards; the partner's hidden KH is in the dealer's shown[partner] and the partner's
    seen_by_dealer, not in the partner's shown[me]. (Doc fix: this pins the behaviour the doc now states.)"""
    env = new_env(make_deck(0, key=E1_KEY), dealer=0)
    shown = {s: {name(c) for c in np.flatnonzero(obs_slice(env, P[s], "shown[me]"))} for s in range(4)}
    assert shown == {0: {"QD", "8S"}, 1: {"9S", "7D"}, 2: {"7C"}, 3: {"AH", "10C"}}
    assert {name(c) for c in np.flatnonzero(obs_slice(env, P[0], "shown[partner]"))} == {"7C", "KH"}
    assert {name(c) for c in np.flatnonzero(obs_slice(env, P[2], "seen_by_dealer"))} == {"KH"}


def test_a_plain_lead_under_the_trump_lead_duty_shows_no_trumps():
    """RULES.md §5: at trick 2 a leader holding a trump must lead one, so a face-up plain lead there
    shows he holds none, as a face-down lead does; determinize must not give him trumps. Trumps
    diamonds: S1 wins trick 1 and leads 7C face up; before the fix voids[S1] stayed 0 and 95 of 100
    re-deals for S2 gave S1 a trump."""
    from cardzoo.envs.avinas.constants import TRUMP_BB

    env = avinas_v0.env()
    env.reset(seed=6)
    for a in [77, 78, 78, 8, 10, 29, 21, 0]:  # KNOCK, NO_KNOCK x2, 7D 9D QS QH, then S1 leads 7C
        env.step(a)
    st = env.game_state
    k = env.unwrapped.kernel
    assert (int(st.trump[0]), int(st.tricks_done[0]), k.action_name(int(st.trick_card[0, 1]))) == (1, 1, "7C")
    assert int(st.voids[0, 1]) == 0b10000  # the trumps bit (TRUMPS_LED = 4) only
    redeals = [k.determinize(st, 2, np.random.default_rng(i)) for i in range(100)]
    assert not any(int(d.hands[0, 1]) & int(TRUMP_BB[1]) for d in redeals)


def test_info_names_the_game_of_the_deal_it_describes():
    """kernel.info's "game" came from the last scored deal while declarer, trump and calls describe
    the current one: a match truncated by max_throw_ins on a thrown-in deal reported "sevens game"
    beside calls [0, 0, 0, 0] and no declarer of that deal. Now "game" is the current deal's and
    "last_game" the last scored deal's."""
    from cardzoo import envs

    k = envs.kernel("avinas", episode="match", max_throw_ins=1)
    rng, pick = np.random.default_rng(1), np.random.default_rng(2)
    st = k.init(rng, 64)
    while not st.done.all():
        m = k.legal_actions(st)
        a = np.where(m, pick.random(m.shape), -1).argmax(axis=1)
        a = np.where(m[:, 64] & (st.deals > 0), 64, a)  # throw in once a deal was scored
        k.step(st, a, rng)
    checked = 0
    for b in range(64):
        info = k.info(st, b)
        assert info["game"] == ("sevens game", "no-sevens game")[int(st.game[b])]
        assert info["last_game"] == (None if st.last_game[b] < 0 else ("sevens game", "no-sevens game")[int(st.last_game[b])])
        checked += info["game"] != info["last_game"] and info["last_game"] is not None
    assert checked > 0  # some end on a thrown-in deal of the other kind
