"""Avinas ``table_view``: the structured seat view of the web table (RULES.md §7 information).

The E1 deal and the E5 face-down lead checked value by value, the summary against the rewards, and
``action_is_public``. ``allowed`` (the cards a seat may see) serves the frame's contract sweep; that
sweep, the bad-seat errors and hidden information are frame tests for every game: tests/test_frame.py,
tests/test_hidden_info_variants.py."""

from __future__ import annotations

import numpy as np

from cardzoo.envs.avinas.constants import FACEDOWN, KNOCK, SIG_NOT_VALUABLE, SIG_VALUABLE
from cardzoo.envs.avinas.kernel import AvinasKernel
from cardzoo.envs.core.cards import mask_to_cards

from avinas_util import act, cid, craft, ids, make_deck, new_env, play
from table_view_util import check_view, fact_values, line_values, random_step
from test_avinas_env import E1_KEY

E5_HANDS = {2: "AS TD 9C 8C KC 7S 8D", 3: "9H AC TC", 0: "JS AD KD", 1: "7D 9D TS"}


def allowed(st, b: int, seat: int) -> set[int]:
    """Card ids ``seat`` may see (§7): its hand, the exposed cards, the dealer's private look (dealer
    only), every card played except another seat's face-down card of the current trick."""
    out = set(mask_to_cards(st.hands[b, seat])) | set(mask_to_cards(st.exposed[b]))
    if int(st.dealer[b]) == seat:
        out |= set(mask_to_cards(st.dealer_seen[b]))
    for s in range(4):
        out |= set(mask_to_cards(st.played[b, s]))
    fd = int(st.fd_seat[b])
    seen = int(st.exposed[b]) | (int(st.dealer_seen[b]) if int(st.dealer[b]) == seat else 0)
    if fd >= 0 and fd != seat and not seen >> int(st.trick_card[b, fd]) & 1:
        out.discard(int(st.trick_card[b, fd]))
    return out


def view(env, seat):
    st = env.game_state
    return check_view(env.kernel, st, 0, seat, allowed(st, 0, seat))


def test_e1_exposure_knocks_and_the_first_lead():
    env = new_env(make_deck(0, key=E1_KEY), dealer=0)
    public = [[], ids("7D 9S"), ids("7C"), ids("10C AH")]
    for seat in range(4):
        v = view(env, seat)
        # §3.3: the opponents' key cards and the sevens for all; KH, QD, 8S for the dealer alone
        assert v["exposed"] == ([ids("QD 8S"), ids("7D 9S"), ids("7C KH"), ids("10C AH")] if seat == 0 else public)
        assert fact_values(v, "seen_by_dealer") == (["KH"] if seat == 2 else [])  # §11.9: the dealer's partner
        assert v["phase"] == "knocks" and v["to_act"] == 1 and v["dealer"] == 0 and v["hand_sizes"] == [8] * 4
        assert [(f["key"], f["value"]) for f in v["facts"] if f["key"] != "seen_by_dealer"] == [
            ("game", "sevens game"), ("trump", "diamonds"), ("declarer", "S1"), ("knocks", "none"), ("stake", "1")]
    play(env, "S1:KNOCK S2:KNOCK")  # the declarer knocks, his left-hand opponent knocks back (§4.1)
    act(env, "S1:7D")
    v = view(env, 3)
    assert fact_values(v, "knocks") == ["S1, S2"] and fact_values(v, "stake") == ["4"]
    assert v["trick"] == [{"seat": 1, "card": cid("7D")}] and v["exposed"][1] == ids("9S")
    assert v["phase"] == "play" and v["to_act"] == 2 and v["hand_sizes"] == [8, 7, 8, 8]
    assert fact_values(v, "suit_to_follow") == ["trumps"] and fact_values(v, "trick_number") == ["1/8"]
    assert v["scores"] == [
        {"key": "card_points", "values": ["0", "0"]},
        {"key": "tricks_won", "values": ["0", "0"]},
        {"key": "rams", "values": ["0", "0"]},
        {"key": "pips", "values": ["0", "0"]},
    ]


def test_e5_face_down_lead_and_the_signal():
    env = new_env(seed=4)
    craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=1, tricks_won=(1, 0), hands=E5_HANDS)
    act(env, "S2:FD_AS")
    for seat in range(4):
        v = view(env, seat)
        assert v["trick"] == [{"seat": 2, "card": cid("AS") if seat == 2 else None}]
        assert fact_values(v, "face_down_lead") == ["S2"]
        assert fact_values(v, "facedown_signal") == (["valuable"] if seat == 0 else [])  # the partner alone
        assert v["hand_sizes"] == [3, 3, 6, 3] and v["last_trick"] == {"cards": [], "winner": 2}
    play(env, "S3:9H S0:JS S1:7D")
    for seat in range(4):
        v = view(env, seat)
        # S0 wins with JS; team A gains 11 + 0 + 2 + 0 = 13 (§10 E5)
        assert v["trick"] == [] and v["last_trick"] == {"cards": [], "winner": 0} and v["to_act"] == 0
        assert line_values(v["scores"], "card_points") == ["13", "0"]
        assert line_values(v["scores"], "tricks_won") == ["2", "0"]  # the crafted trick 1 was team A's
        assert fact_values(v, "face_down_lead") == [] and fact_values(v, "facedown_signal") == []


def test_an_exposed_card_led_face_down_looks_like_any_other_face_down_lead():
    def after(card):
        env = new_env(seed=4)
        craft(env, game="sevens", trump="H", declarer=2, leader=2, tricks_done=1, tricks_won=(1, 0), hands=E5_HANDS)
        env.game_state.exposed[0] = np.uint64(1 << cid("AS"))
        env._after_step()
        act(env, f"S2:FD_{card}")
        return env

    a, b = after("AS"), after("TD")
    for seat in (0, 1, 3):
        assert view(a, seat) == view(b, seat)
        assert view(a, seat)["exposed"][2] == [cid("AS")]  # still listed until the trick ends (§11.12)
    assert view(a, 2)["exposed"][2] == [] and view(b, 2)["exposed"][2] == [cid("AS")]


def test_face_down_leads_and_free_signals_are_not_public_actions():
    k = AvinasKernel(facedown_signal="free")
    st = k.init(np.random.default_rng(0), 1)
    assert k.action_is_public(st, 0, cid("AS")) and k.action_is_public(st, 0, KNOCK)
    for a in (FACEDOWN, FACEDOWN + cid("AS"), FACEDOWN + 31, SIG_VALUABLE, SIG_NOT_VALUABLE):
        assert not k.action_is_public(st, 0, a)


def test_deal_summary_matches_the_rewards():
    k = AvinasKernel()
    rng = np.random.default_rng(12)
    B = 64
    st = k.init(rng, B)
    seen = set()
    while not st.done.all():
        was = st.done.copy()
        random_step(k, st, rng)
        for b in np.flatnonzero(st.done & ~was):
            if st.truncated[b]:  # too many throw-ins: nothing scored
                assert k.table_view(st, b, 0)["summary"] is None
                continue
            for seat in range(4):
                v = k.table_view(st, b, seat)
                s = v["summary"]
                unit = s["lines"][-1]["key"]
                seen.add(unit)
                pen = [int(x) for x in s["lines"][-1]["values"]]
                assert min(pen) == 0 and max(pen) >= 1
                loser = pen.index(max(pen))
                assert s["result"] == f"team_{1 - loser}_wins"
                u = max(pen) * (1 if unit == "rams" else 0.5)  # §6.5
                r = float(st.rewards[b, seat])
                assert r == (u if seat % 2 != loser else -u)
                pts = [int(x) for x in line_values(s["lines"], "card_points")]
                assert pts == st.points[b].tolist() and sum(pts) <= 120
                assert sum(int(x) for x in line_values(s["lines"], "tricks_won")) == int(st.tricks_done[b])
                assert line_values(v["scores"], unit)[loser] == str(max(pen))
    assert seen == {"rams", "pips"}


def test_match_summary_of_each_deal_matches_its_reward():
    k = AvinasKernel(episode="match")
    rng = np.random.default_rng(4)
    B = 32
    st = k.init(rng, B)
    scored = 0
    for _ in range(600):
        if st.done.all():
            break
        before = st.deals.copy()
        random_step(k, st, rng)
        for b in np.flatnonzero(st.deals > before):
            s = k.table_view(st, b, 3)["summary"]
            pen = [int(x) for x in s["lines"][-1]["values"]]
            loser = pen.index(max(pen))
            u = max(pen) * (1 if s["lines"][-1]["key"] == "rams" else 0.5)
            assert float(st.rewards[b, 0]) == (u if loser == 1 else -u)
            scored += 1
    assert scored >= 2 * B
