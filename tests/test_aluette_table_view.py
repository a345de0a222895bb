"""Aluette ``table_view``: the structured seat view of the web table (RULES.md §7 information).

The E9 chant, the E10 signals and the E6 trick sequence checked value by value, and the summary
against the rewards. ``allowed`` (the cards a seat may see) serves the frame's contract sweep; that
sweep, the bad-seat errors and hidden information (the view unchanged when hidden cards and unseen
signals move) are frame tests for every game: tests/test_frame.py, tests/test_hidden_info_variants.py."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.aluette.kernel import AluetteKernel
from cardzoo.envs.core.cards import mask_to_cards

from aluette_util import cid, make_deck, new_env, play, sequence_deal
from table_view_util import check_view, fact_values, line_values, random_step

TALON = "KCo KCu KCl KSw NCo NCu NCl NSw JCo JCu JCl JSw"
QUIET = {"chant": False, "signals": "off"}


def allowed(st, b: int, seat: int) -> set[int]:
    """Card ids ``seat`` may see (§7): its hand, its own chant cards and discards, every card played."""
    out = set(mask_to_cards(st.hands[b, seat] | st.received[b, seat] | st.discarded[b, seat]))
    for s in range(4):
        out |= set(mask_to_cards(st.played[b, s]))
    return out


def view(env, seat):
    st = env.game_state
    return check_view(env.kernel, st, 0, seat, allowed(st, 0, seat))


def codes(names: str) -> str:
    """Card codes in id order (the order of the view's text)."""
    return " ".join(sorted(names.split(), key=cid))


def test_e9_chant_talon_cards_and_discards_reach_only_their_recipient():
    env = new_env(make_deck(0, talon=TALON), dealer=0)
    assert view(env, 2)["phase"] == "chant_vote" and view(env, 2)["to_act"] == 1
    play(env, "S1:accept_chant S2:accept_chant S3:accept_chant S0:accept_chant")
    t = TALON.split()
    for seat in range(4):
        v = view(env, seat)
        assert v["phase"] == "chant_discard" and v["to_act"] == 1 and v["hand_sizes"] == [15, 15, 9, 9]
        assert fact_values(v, "chant_votes") == ["S1 accepted, S2 accepted, S3 accepted, S0 accepted"]
        assert fact_values(v, "chant") == ["yes"] and fact_values(v, "chant_recipients") == ["S1, S0"]
        own = {1: codes(" ".join(t[0::2])), 0: codes(" ".join(t[1::2]))}
        assert fact_values(v, "talon_received") == ([own[seat]] if seat in own else [])
        assert v["exposed"] == [[], [], [], []]
    d1 = [c for c in view(env, 1)["hand"]][:5] + [cid(t[0])]
    play(env, " ".join(f"S1:{env.action_name(c)}" for c in d1))
    assert fact_values(view(env, 1), "discarded") == [" ".join(env.action_name(c) for c in sorted(d1))]
    for seat in (0, 2, 3):
        assert fact_values(view(env, seat), "discarded") == []
    assert view(env, 3)["hand_sizes"] == [15, 9, 9, 9] and view(env, 3)["to_act"] == 0


def test_e9_refused_chant():
    env = new_env(make_deck(0, talon=TALON), dealer=0)
    play(env, "S1:accept_chant S2:refuse_chant")
    v = view(env, 0)
    assert fact_values(v, "chant_votes") == ["S1 accepted, S2 refused"] and fact_values(v, "chant") == ["no"]
    assert v["phase"] == "signals" and v["to_act"] == 1 and fact_values(v, "chant_recipients") == []


@pytest.mark.parametrize(
    "options, sees",
    [({}, {0, 2}), ({"signal_visibility": "public"}, {0, 1, 2, 3}), ({"signal_intercept": 1.0}, {0, 1, 2, 3})],
    ids=["partner", "public", "caught"],
)
def test_e10_signals_reach_exactly_the_seats_that_observe_them(options, sees):
    hands = {2: "3Cu ASw 4Co 5Co 6Co 7Co 8Co JCo NCo"}
    env = new_env(make_deck(1, hands), dealer=1, chant=False, **options)
    play(env, "S2:madame S2:as")
    for seat in range(4):
        v = view(env, seat)
        assert v["phase"] == "signals" and v["to_act"] == 2
        assert fact_values(v, "signals_sent") == (["madame, as"] if seat == 2 else [])
        assert fact_values(v, "signals_received") == (["S2: madame, as"] if seat in sees - {2} else [])
    play(env, "S2:end_signals S3:monsieur")  # S3 holds 3Co
    assert fact_values(view(env, 1), "signals_received")[-1:] == ["S3: monsieur"]  # S3's partner
    for seat in (0, 2):
        received = fact_values(view(env, seat), "signals_received")
        assert ("S3: monsieur" in received) == bool(options)


def test_e6_trick_results_spoiled_tricks_and_the_mordienne_summary():
    hands, script = sequence_deal(3, [0, 2, "X", 1, "X", 3, 3, 3, 3])
    env = new_env(make_deck(3, hands), dealer=3, **QUIET)
    toks = script.split()
    play(env, " ".join(toks[:18]))  # four tricks and two cards of the fifth
    v = view(env, 1)
    assert v["phase"] == "play" and v["to_act"] == 3 and v["hand_sizes"] == [5, 4, 4, 5]
    assert v["trick"] == [{"seat": 1, "card": cid(toks[16][3:])}, {"seat": 2, "card": cid(toks[17][3:])}]
    assert v["last_trick"] == {"cards": [], "winner": 1}
    assert fact_values(v, "trick_results") == ["S0, S2, spoiled, S1"]
    assert fact_values(v, "tricks_per_player") == ["S0 1, S1 1, S2 1, S3 0"]
    assert fact_values(v, "spoiled_tricks") == ["1"] and fact_values(v, "trick_number") == ["5/9"]
    play(env, " ".join(toks[18:20]))
    assert view(env, 0)["last_trick"] == {"cards": [], "winner": None}  # spoiled: nobody won it
    play(env, " ".join(toks[20:]))
    for seat in range(4):
        v = view(env, seat)
        assert v["phase"] == "over" and v["to_act"] is None and v["hand"] == []
        assert v["summary"] == {
            "key": "deal_result",
            "lines": [
                {"key": "tricks_per_player", "values": ["S0 1, S2 1", "S1 1, S3 4"]},
                {"key": "points", "values": ["0", "2"]},
            ],
            "result": "team_1_wins",
            "explain": [  # S3 took tricks 6 to 9 and nothing before: mordienne, 2 points
                {"key": "al_tricks", "args": {"list": "S0 1, S1 1, S2 1, S3 4"}},
                {"key": "al_spoiled", "args": {"n": 2}},
                {"key": "al_winner_detail", "args": {"seat": "S3", "team": "B", "points": 2, "n": 4}},
                {"key": "al_mordienne_detail", "args": {"seat": "S3", "first": 6}},
            ],
        }
        assert fact_values(v, "deal_winner") == ["S3"] and fact_values(v, "mordienne") == ["yes"]
        assert v["scores"] == [{"key": "match_score", "values": ["0", "2"]}]
    assert env.rewards == {"player_0": -2.0, "player_1": 2.0, "player_2": -2.0, "player_3": 2.0}


def test_surrender_offer_and_answer_are_public_facts():
    env = new_env(make_deck(0), dealer=0, chant=False, signals="off", surrender=True)
    play(env, "S1:offer_surrender")
    v = view(env, 3)
    assert v["phase"] == "surrender_answer" and v["to_act"] == 2
    assert fact_values(v, "surrender_offered_by") == ["S1"] and fact_values(v, "surrender") == ["pending"]
    play(env, "S2:accept_surrender")
    v = view(env, 0)
    assert fact_values(v, "surrender") == ["accepted"] and v["summary"]["lines"] == [
        {"key": "tricks_per_player", "values": ["S0 0, S2 0", "S1 0, S3 0"]},
        {"key": "points", "values": ["1", "0"]},
    ]
    assert v["summary"]["result"] == "team_0_wins" and fact_values(v, "deal_winner") == ["nobody"]


@pytest.mark.parametrize("options", [{}, {"episode": "match", "surrender": True}], ids=["deal", "match"])
def test_summary_points_are_the_rewards_of_the_deal(options):
    k = AluetteKernel(**options)
    rng = np.random.default_rng(8)
    B = 48
    st = k.init(rng, B)
    scored = 0
    for _ in range(2000):
        if st.done.all():
            break
        before = st.deals.copy()
        random_step(k, st, rng)
        for b in np.flatnonzero(st.deals > before):
            for seat in range(4):
                s = k.table_view(st, b, seat)["summary"]
                pts = [int(x) for x in line_values(s["lines"], "points")]
                assert float(st.rewards[b, seat]) == (pts[0] - pts[1]) * (1 if seat % 2 == 0 else -1)
                result = "team_0_wins" if pts[0] > pts[1] else "team_1_wins" if pts[1] > pts[0] else "nobody_scores"
                assert s["result"] == result
                if st.done[b]:  # the deal is still on the table: its tricks per player
                    per = line_values(s["lines"], "tricks_per_player")
                    assert sum(int(x.split()[1]) for team in per for x in team.split(", ")) == int(st.won[b].sum())
            scored += 1
    assert st.done.all() and scored >= B * (5 if options else 1)
