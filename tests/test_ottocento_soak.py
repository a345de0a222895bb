"""Soak of the batched Ottocento kernel: 10,000 random games with the invariants of RULES.md
asserted at every step. Batch independence, take/put and the ``active`` mask are frame tests
(tests/test_frame.py), for every game."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.core.cards import popcount, random_set_bit
from cardzoo.envs.ottocento.combos import combo_score
from cardzoo.envs.ottocento.constants import DECLARE, DECLARING, DISCARD, MAT
from cardzoo.envs.ottocento.kernel import OttocentoKernel
from cardzoo.envs.ottocento.scoring import card_points_half

ALL = np.uint64((1 << 62) - 1)
MATB = np.uint64(1 << MAT)


def check_invariants(k, st, mask):
    live = ~st.done
    hands = st.hands
    union = np.bitwise_or.reduce(hands, axis=1) | np.bitwise_or.reduce(st.played, axis=1) | st.discards
    count = popcount(hands).sum(1) + popcount(st.played).sum(1) + popcount(st.discards)
    # every card accounted for exactly once
    assert (union[live] == ALL).all() and (count[live] == 62).all()
    # the played cards are the piles plus the current trick, disjoint
    won = st.piles[:, 0] | st.piles[:, 1]
    assert ((won | st.trick) == np.bitwise_or.reduce(st.played, axis=1))[live].all()
    assert ((st.piles[:, 0] & st.piles[:, 1]) == 0).all() and ((won & st.trick) == 0).all()
    assert (popcount(won)[live] == 4 * st.tricks_done[live]).all()
    assert (popcount(st.trick)[live] == st.n_in_trick[live]).all()
    # hand sizes follow the play order
    sizes = popcount(hands).astype(int)
    in_play = live & (st.phase != DISCARD)
    played_n = popcount(st.played).astype(int)
    assert ((sizes + played_n)[in_play] == 15).all()
    assert (sizes[live & (st.phase == DISCARD)].sum(1) == 62 - popcount(st.discards[live & (st.phase == DISCARD)]).astype(int)).all()
    # the mask is never empty for the player to act, all zero in finished games
    assert (mask[live].any(1)).all() and not mask[~live].any()
    assert (mask[live & (st.phase == DECLARING)][:, DECLARE:].all(1)).all()
    # declared cards are a subset of what that seat was dealt; points as the scorer says
    assert ((st.shown & ~st.dealt) == 0).all()
    dv = st.declared
    assert (st.decl_points[dv] == st.decl_value[dv]).all() and (st.decl_points[~dv] == 0).all()


def soak(options, n_games, B=2500, seed=0):
    k = OttocentoKernel(**options)
    rng = np.random.default_rng(seed)
    played = 0
    totals = []
    while played < n_games:
        st = k.init(rng, B)
        for _ in range(k.max_episode_steps + 1):
            if st.done.all():
                break
            mask = k.legal_actions(st)
            check_invariants(k, st, mask)
            before = st.copy()
            k.step(st, random_set_bit(k.legal_bitboard(st), rng), rng)
            ended = st.done & ~before.done
            r = st.rewards
            assert np.allclose(r.sum(1), 0) and (r[:, 0] == r[:, 2]).all() and (r[:, 1] == r[:, 3]).all()
            assert (r[~ended & (r != 0).any(1)].shape[0] == 0) or k.match
        assert st.done.all()
        fp = st.final_piles
        assert ((fp[:, 0] | fp[:, 1]) == ALL).all() and ((fp[:, 0] & fp[:, 1]) == 0).all()
        cards = card_points_half(fp)
        assert (st.res_cards == cards).all()
        if options.get("matto_rule", "exchange_at_end") == "exchange_at_end":
            assert (cards.sum(1) == 174).all() and (cards % 2 == 0).all()
            assert ((popcount(fp) % 2) == 0).all()
        if options.get("discards_in_captured_combos", True):
            assert (st.res_captured == combo_score(fp, options.get("natural_skip_counts_as_gap", False))).all()
        assert (st.res_captured >= 0).all() and (st.res_captured <= 846).all()
        assert (st.res_last.sum(1) == options.get("last_trick_bonus", 6)).all()
        assert (st.res_total == cards + 2 * (st.res_captured + st.res_declared + st.res_last)).all()
        assert (st.tricks_won.sum(1) == 15).all()
        if not k.match:
            diff = st.res_total[:, 0] - st.res_total[:, 1]
            if options.get("reward", "win_loss") == "win_loss":
                assert (st.winner == np.where(diff > 0, 0, np.where(diff < 0, 1, -1))).all()
        totals.append(st.res_total)
        played += B
    return np.concatenate(totals)


def test_soak_default_rules_10000_games():
    totals = soak({}, 10_000)
    assert totals.shape == (10_000, 2)
    assert totals.min() >= 0 and totals.max() < 4000


@pytest.mark.parametrize(
    "options",
    [
        {"declaration_mode": "auto_all", "moors_tie": "first_played", "natural_skip_counts_as_gap": True},
        {"matto_rule": "captured", "discards_follow_tricks": False, "discards_in_captured_combos": False, "last_trick_bonus": 0},
        {"matto_fallback": "forfeit", "matto_gift": "lowest_id", "deal_packets": 1, "dealer": 1, "reward": "point_diff"},
    ],
    ids=["auto-strict", "captured", "forfeit-lowest"],
)
def test_soak_options(options):
    soak(options, 1000, B=500, seed=1)


def test_soak_match_mode():
    k = OttocentoKernel(match_target=600, reward="point_diff")
    rng = np.random.default_rng(4)
    st = k.init(rng, 300)
    ret = np.zeros((300, 4))
    for _ in range(k.max_episode_steps):
        if st.done.all():
            break
        check_invariants(k, st, k.legal_actions(st))
        k.step(st, random_set_bit(k.legal_bitboard(st), rng), rng)
        ret += st.rewards
    assert st.done.all() and not st.truncated.any()
    assert (st.score.max(1) >= 1200).all() and (st.deals_played >= 1).all() and (st.deals_played >= 2).mean() > 0.5
    assert np.allclose(ret[:, 0], (st.score[:, 0] - st.score[:, 1]) / 200.0, atol=1e-3)
