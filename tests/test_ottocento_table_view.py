"""Ottocento ``table_view``: the structured seat view of the web table (RULES.md §7 information).

A stacked deal checked value by value, the dealer's discards, and the deal summary against the rewards
the env pays. ``allowed`` (the cards a seat may see) serves the frame's contract sweep; that sweep, the
bad-seat errors and hidden information are frame tests for every game: tests/test_frame.py,
tests/test_hidden_info_variants.py."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs import ottocento_v0
from cardzoo.envs.core.cards import mask_to_cards
from cardzoo.envs.ottocento.constants import DECLARE, OVER, PASS
from cardzoo.envs.ottocento.kernel import OttocentoKernel

from ottocento_util import cid, ids, make_deck
from table_view_util import check_view, fact_values, line_values, random_step

E6 = "ANG WOR MOO T16 T15 T13 BEG MAT KS QS JS AS KC KD AC"
E6_SHOWN = "S1 203: AS JS QS KS AC KC KD BEG T13 T15 T16 MOO WOR ANG MAT"  # the declaration fact, cards in id order


def allowed(st, b: int, seat: int) -> set[int]:
    """Card ids ``seat`` may see (§7): its hand, every card played, declared cards, its own discards
    as dealer; everything once the deal is scored (the discards and piles are revealed)."""
    if int(st.phase[b]) == OVER:
        return set(range(62))
    out = set(mask_to_cards(st.hands[b, seat]))
    for s in range(4):
        out |= set(mask_to_cards(st.played[b, s])) | set(mask_to_cards(st.shown[b, s]))
    if int(st.dealer[b]) == seat:
        out |= set(mask_to_cards(st.discards[b]))
    if int(st.gift[b]) >= 0:  # the last scored deal's Matto gift (match mode)
        out.add(int(st.gift[b]))
    return out


def test_stacked_deal_declarations_discards_and_a_trick():
    env = ottocento_v0.env()
    env.reset(seed=0, options={"deck": make_deck({1: E6}, dealer=0), "dealer": 0})
    k, st = env.kernel, env.game_state
    v = check_view(k, st, 0, 0, allowed(st, 0, 0))
    assert v["phase"] == "discard" and v["to_act"] == 0 and v["dealer"] == 0
    assert v["hand_sizes"] == [17, 15, 15, 15] and v["trick"] == [] and v["last_trick"] is None
    env.step(cid("6S"))
    env.step(cid("9S"))
    env.step(DECLARE)  # S1 declares E6: 203, all 15 cards shown (RULES.md §10 E6)
    e6 = sorted(ids(E6))
    for seat in range(4):
        v = check_view(k, st, 0, seat, allowed(st, 0, seat))
        assert v["exposed"] == [[], e6, [], []]
        assert fact_values(v, "declaration") == [E6_SHOWN]
        assert fact_values(v, "discards") == (["6S 9S"] if seat == 0 else [])  # §3.5: the dealer alone
        assert v["scores"] == [
            {"key": "card_points", "values": ["0", "0"]},
            {"key": "declarations", "values": ["0", "203"]},
            {"key": "tricks_won", "values": ["0", "0"]},
        ]
    assert v["phase"] == "play" and v["to_act"] == 1 and v["hand_sizes"] == [15, 15, 15, 15]
    assert fact_values(v, "trick_number") == ["1/15"] and fact_values(v, "leader") == ["S1"]
    env.step(cid("KS"))
    env.step(PASS)  # S2 holds three knights (13) and passes
    env.step(cid("7S"))
    env.step(DECLARE)  # S3: three queens, 14
    env.step(cid("8S"))
    v = check_view(k, st, 0, 0, allowed(st, 0, 0))
    assert v["phase"] == "declarations" and v["to_act"] == 0  # the dealer has three jacks
    assert v["trick"] == [{"seat": s, "card": cid(c)} for s, c in ((1, "KS"), (2, "7S"), (3, "8S"))]
    assert fact_values(v, "suit_to_follow") == ["swords"]
    assert fact_values(v, "declaration") == [E6_SHOWN, "S2 pass", "S3 14: QB QC QD"]
    assert v["exposed"][3] == ids("QB QC QD") and cid("KS") not in v["exposed"][1]
    env.step(PASS)
    env.step(cid("T7"))  # void in swords after the discard: a trump, which wins
    v = check_view(k, st, 0, 2, allowed(st, 0, 2))
    assert v["trick"] == [] and v["last_trick"] == {"cards": [], "winner": 0} and v["to_act"] == 0
    # KS 5 + 7S 1 + 8S 1 + T7 1 = 8, minus half a point per card: 6 (§2.3)
    assert line_values(v["scores"], "card_points") == ["6", "0"]
    assert line_values(v["scores"], "declarations") == ["0", "217"]
    assert line_values(v["scores"], "tricks_won") == ["1", "0"]
    assert fact_values(v, "trick_number") == ["2/15"] and v["summary"] is None


def test_a_bad_render_view_and_a_kernel_without_renderer_raise_naming_the_game(monkeypatch):
    # a bad seat or game index of table_view: test_frame.test_table_view_names_a_bad_seat_or_game_and_the_env_needs_a_reset
    k = OttocentoKernel()
    st = k.init(np.random.default_rng(0), 2)
    with pytest.raises(ValueError, match="view 'S1' is not valid; valid: None \\(public\\), 'all', or a seat 0..3"):
        k.render(st, 0, "S1")
    monkeypatch.setattr(k, "renderer", None)
    for call in (lambda: k.table_view(st, 0, 0), lambda: k.render(st, 0)):
        with pytest.raises(NotImplementedError, match=r"ottocento has no renderer \(envs/ottocento/render.py\)"):
            call()


def test_the_dealers_discards_reach_only_the_dealer_until_the_deal_is_scored():
    k = OttocentoKernel(dealer=0)
    rng = np.random.default_rng(3)
    st = k.init(rng, 8)
    for _ in range(2):
        random_step(k, st, rng)
    for b in range(8):
        disc = " ".join(k.deck.names[c] for c in mask_to_cards(st.discards[b]))
        assert fact_values(k.table_view(st, b, 0), "discards") == [disc]
        for seat in (1, 2, 3):
            assert fact_values(k.table_view(st, b, seat), "discards") == []
    while not st.done.all():
        random_step(k, st, rng)
    for b in range(8):  # §7: at the end the discards are revealed
        assert len({fact_values(k.table_view(st, b, seat), "discards")[0] for seat in range(4)}) == 1


@pytest.mark.parametrize("reward", ["point_diff", "win_loss"])
def test_summary_adds_up_to_the_reward_of_the_deal(reward):
    k = OttocentoKernel(reward=reward)
    rng = np.random.default_rng(11)
    B = 40
    st = k.init(rng, B)
    for b in range(B):
        assert k.table_view(st, b, 0)["summary"] is None
    while not st.done.all():
        was = st.done.copy()
        random_step(k, st, rng)
        for b in np.flatnonzero(st.done & ~was):
            for seat in range(4):
                v = k.table_view(st, b, seat)
                s = v["summary"]
                assert v["phase"] == "over" and s["key"] == "deal_result"
                lines = {line["key"]: [float(x) for x in line["values"]] for line in s["lines"]}
                assert list(lines) == ["card_points", "captured_combinations", "declarations", "last_trick", "total"]
                parts = ("card_points", "captured_combinations", "declarations", "last_trick")
                for t in range(2):
                    assert sum(lines[p][t] for p in parts) == lines["total"][t]
                assert sum(lines["card_points"]) == 87 and sorted(lines["last_trick"]) == [0, 6]
                diff = lines["total"][0] - lines["total"][1]
                r = float(st.rewards[b, seat]) * (1 if seat % 2 == 0 else -1)  # team A's reward
                if reward == "point_diff":
                    assert r == pytest.approx(diff / 100)
                else:
                    assert r == float(np.sign(diff))
                assert s["result"] == ("team_0_wins" if diff > 0 else "team_1_wins" if diff < 0 else "draw")


def test_match_summary_of_each_deal_matches_its_reward_and_lasts_through_trick_one():
    k = OttocentoKernel(match_target=400, reward="point_diff")
    rng = np.random.default_rng(5)
    B = 16
    st = k.init(rng, B)
    scored = 0
    for _ in range(400):
        if st.done.all():
            break
        before = st.deals_played.copy()
        random_step(k, st, rng)
        for b in range(B):
            v = k.table_view(st, b, 1)
            if st.deals_played[b] > before[b]:
                lines = {line["key"]: [float(x) for x in line["values"]] for line in v["summary"]["lines"]}
                diff = lines["total"][0] - lines["total"][1]
                assert float(st.rewards[b, 0]) == pytest.approx(diff / 100)
                scored += 1
            elif st.deals_played[b] > 0 and not st.done[b]:
                assert (v["summary"] is not None) == (int(st.tricks_done[b]) == 0)
            keys = {f["key"] for f in v["facts"]}
            if v["summary"] is not None and not st.done[b]:
                # the Matto's fate and where the discards went are the last deal's, and said so (they read
                # as facts of the deal being played)
                assert "last_deal_matto" in keys and "last_deal_discards_to_team" in keys
                assert not keys & {"matto", "matto_gift", "discards_to_team"}
            elif st.done[b]:
                assert "matto" in keys and not any(key.startswith("last_deal_") for key in keys)
    assert scored >= B


def test_a_match_won_by_a_declaration_has_its_own_summary():
    env = ottocento_v0.env(match_target=150, declarations_win_immediately=True)
    env.reset(seed=0, options={"deck": make_deck({1: E6}, dealer=0), "dealer": 0})
    env.step(cid("6S"))
    env.step(cid("9S"))
    env.step(DECLARE)  # 203 >= 150: the match ends at once (§11.5)
    v = check_view(env.kernel, env.game_state, 0, 2, allowed(env.game_state, 0, 2))
    assert v["phase"] == "over" and v["to_act"] is None
    assert v["summary"] == {
        "key": "match_won_by_declarations",
        "lines": [{"key": "declarations", "values": ["0", "203"]}, {"key": "match_score", "values": ["0", "203"]}],
        "result": "team_1_wins",
    }
    assert env.rewards["player_1"] == 1.0
