"""Soak: thousands of random P'yanitsa games through the batched kernel with the invariants of
RULES.md §3-§6 asserted. Batch independence, take/put and the ``active`` mask are frame tests
(tests/test_frame.py), for every game."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.core.cards import popcount, random_set_bit
from cardzoo.envs.pyanitsa.kernel import PyanitsaKernel


def _check_cards(k, st):
    """Every card in play is in exactly one pile or on the table (§3, §5)."""
    lin = k.linear_piles(st).astype(np.int64)
    valid = lin != 255
    n_cards = valid.sum(axis=(1, 2)) + popcount(st.pot)
    assert (n_cards == popcount(st.in_play)).all()
    bits = np.where(valid, np.left_shift(np.uint64(1), np.where(valid, lin, 0).astype(np.uint64)), np.uint64(0))
    union = np.bitwise_or.reduce(bits.reshape(st.batch_size, k.num_players * k.C), axis=1) | st.pot
    assert (union == st.in_play).all()  # with the count above: no card twice, none lost
    assert ((st.size.sum(axis=1) + popcount(st.pot)) == popcount(st.in_play)).all()


def soak(k, batch, seed, full_check_every=8):
    """Play ``batch`` random games to the end; returns (per-game rewards, battles, truncated, draws, reasons)."""
    rng = np.random.default_rng(seed)
    st = k.init(rng, batch)
    ids = np.arange(batch)
    out_r = np.zeros((batch, k.num_players))
    out_b = np.zeros(batch, dtype=np.int64)
    out_t = np.zeros(batch, dtype=bool)
    out_d = np.zeros(batch, dtype=bool)
    out_reason = np.zeros(batch, dtype=np.int64)
    total = np.zeros((batch, k.num_players))
    _check_cards(k, st)
    step = 0
    while st.batch_size:
        legal = k.legal_actions(st)
        live = ~st.done
        assert legal[live].any(axis=1).all()  # the player to act always has a move
        assert not legal[~live].any()
        cp = st.current_player.astype(np.int64)
        assert (st.size[np.arange(st.batch_size), cp][live & (st.phase == 0)] > 0).all()  # out players never act
        obs = k.observe(st, st.current_player)
        assert obs.shape == (st.batch_size, k.obs_layout.size)
        assert (obs <= k.obs_layout.high()).all()
        a = random_set_bit(k.legal_bitboard(st), rng)
        k.step(st, a, rng)
        r = st.rewards
        total[ids] += r
        assert np.allclose(r.sum(axis=1), 0, atol=1e-5)  # zero-sum
        step += 1
        if step % full_check_every == 0:
            _check_cards(k, st)
        if step % 32 == 0 or st.done.all():
            d = st.done
            g = ids[d]
            _check_cards(k, st.take(d))
            out_r[g] = total[g]
            out_b[g] = st.battles[d]
            out_t[g] = st.truncated[d]
            out_d[g] = st.draw[d]
            out_reason[g] = st.trunc_reason[d]
            st = st.take(~d)
            ids = ids[~d]
    return out_r, out_b, out_t, out_d, out_reason


def _check_rewards(k, r, t, d):
    n = k.num_players
    assert np.allclose(r.sum(axis=1), 0, atol=1e-5)
    zero = (r == 0).all(axis=1)
    assert (zero[t | d]).all()  # truncations and draws pay 0
    decided = ~(t | d)
    L = (r[decided] == -1).sum(axis=1)
    assert (L >= 1).all() and (L < n).all()
    expect = L / (n - L)
    others = r[decided] != -1
    assert np.allclose(np.where(others, r[decided], expect[:, None]), expect[:, None])


def test_soak_default_rules_10000_games():
    k = PyanitsaKernel()
    r, b, t, d, reason = soak(k, 10_000, seed=0)
    _check_rewards(k, r, t, d)
    # two players, variant 1, face-up ties: no draw is possible (someone always has a card)... except
    # a tie on the very last cards of both piles; decided games are the rule
    assert (b >= 1).all() and (b <= 5000).all()
    assert (~(t | d)).mean() > 0.99
    assert 100 < b[~(t | d)].mean() < 220  # RULES.md §11: about 150 battles
    # variant 1 with 2 players: each seat loses about half the time (symmetric deal)
    loser0 = (r[:, 0] == -1).mean()
    assert 0.45 < loser0 < 0.55


@pytest.mark.parametrize(
    "options, batch",
    [
        ({"num_players": 3}, 500),
        ({"num_players": 4, "objective": "first_out_loses"}, 800),
        ({"num_players": 3, "tie_mode": "down_up", "runout": "forfeit", "tie_players": "tied"}, 500),
        ({"num_players": 4, "tie_mode": "down_up", "collect_order": "random"}, 500),
        ({"collect_order": "seat_order"}, 400),
        ({"collect_order": "winner_chooses", "num_players": 3}, 500),
        ({"collect_order": "winner_chooses", "objective": "first_out_loses", "runout": "forfeit"}, 500),
        ({"deck": 52, "num_players": 3, "six_beats_ace": False, "max_battles": 300}, 500),
        ({"num_players": 2, "detect_cycles": False, "collect_order": "seat_order", "max_battles": 400}, 500),
    ],
)
def test_soak_options(options, batch):
    k = PyanitsaKernel(**options)
    r, b, t, d, reason = soak(k, batch, seed=len(str(options)))
    _check_rewards(k, r, t, d)
    cap = k.options["max_battles"]
    assert (b <= cap).all()
    assert ((reason == 2) == (t & (b == cap))).all()
    if k.options["collect_order"] in ("random", "winner_chooses") or not k.options["detect_cycles"]:
        assert (reason != 1).all()  # no cycle check for random orders / when switched off
    if options.get("collect_order") == "seat_order" and options.get("detect_cycles", True):
        assert (reason == 1).mean() > 0.05  # RULES.md §11: seat_order cycles often


def test_reset_done_deals_fresh_games():
    k = PyanitsaKernel()
    rng = np.random.default_rng(0)
    st = k.init(rng, 4)
    st.done[[1, 3]] = True
    idx = k.reset_done(st, rng)
    assert idx.tolist() == [1, 3] and not st.done.any() and (st.size == 18).all()
