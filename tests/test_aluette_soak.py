"""Soak test of the batched Aluette kernel: >= 10,000 random deals with invariants checked at every
step, and batch independence (a game plays the same alone and inside a batch).

The invariants are computed here from the rules (RULES.md §2-§6), with the power table and
signal statements of ``aluette_util``, not from kernel helpers.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs.aluette.kernel import AluetteKernel
from cardzoo.envs.core.cards import SPANISH48, popcount

from aluette_util import SIGNAL_CARD, SIGNAL_NAMES, power

U64 = np.uint64
ALL = (1 << 48) - 1
PW = np.array([power(n) for n in SPANISH48.names], dtype=np.int64)
ACES = sum(1 << SPANISH48.card_id(a) for a in ("ACo", "ACu", "ACl", "ASw"))
KEYS = [1 << SPANISH48.card_id(SIGNAL_CARD[n]) for n in SIGNAL_NAMES[:8]]
PLAY, DISCARD, SIGNAL = 5, 1, 2


def signal_true(hand: np.ndarray) -> np.ndarray:
    """bool[B, 10]: which of the ten signal statements hold for ``hand`` (RULES.md §4.5)."""
    h = hand.astype(object)
    out = np.zeros((hand.shape[0], 10), dtype=bool)
    for i, k in enumerate(KEYS):
        out[:, i] = [(int(x) & k) != 0 for x in h]
    out[:, 8] = [(int(x) & ACES) != 0 for x in h]
    anyk = sum(KEYS) | ACES
    out[:, 9] = [(int(x) & anyk) == 0 for x in h]
    return out


def deal_oracle(results: list[int], mordienne: bool) -> tuple[int, int]:
    """(team, points) of a finished deal from its nine trick results (RULES.md §6); team -1 = nobody."""
    won = [0] * 4
    reach: dict[int, int] = {}
    for t, r in enumerate(results):
        if r < 4:
            won[r] += 1
    M = max(won)
    if M == 0:
        return -1, 0
    cnt = [0] * 4
    for t, r in enumerate(results):
        if r < 4:
            cnt[r] += 1
            if cnt[r] == M and r not in reach:
                reach[r] = t
    w = min(reach, key=reach.get)
    mine = [t for t, r in enumerate(results) if r == w]
    block = mine == list(range(9 - M, 9)) and M <= 8
    return w % 2, 2 if (block and mordienne) else 1


def soak(options, batch, deals_wanted, seed):
    k = AluetteKernel(**options)
    truthful = k.options["signals"] == "truthful"
    rng = np.random.default_rng(seed)
    st = k.init(rng, batch)
    finished = 0
    checked_tricks = checked_deals = 0
    steps = 0
    while finished < deals_wanted:
        steps += 1
        assert steps < 100_000
        live = ~st.done
        # ---- every card accounted for: hands, played, discards and the unused talon partition the pack
        rec = np.bitwise_or.reduce(st.received, axis=1)
        parts = np.concatenate([st.hands, st.played, st.discarded, (st.talon & ~rec)[:, None]], axis=1)
        assert (np.bitwise_or.reduce(parts, axis=1) == U64(ALL)).all()
        assert (popcount(parts).sum(axis=1) == 48).all()
        # ---- hand sizes by phase
        sizes = popcount(st.hands).astype(np.int64)
        in_play = st.phase == PLAY
        played_in_trick = (st.trick_card >= 0).astype(np.int64)
        expect = 9 - st.tricks_done[:, None].astype(np.int64) - played_in_trick
        assert (sizes[in_play] == expect[in_play]).all()
        pre = np.isin(st.phase, (0, 2, 3, 4))
        assert (sizes[pre] == 9).all()
        # ---- mask never empty for the seat to act, empty when done; cards only when they may be played
        mask = k.legal_actions(st)
        assert mask[live].any(axis=1).all()
        assert not mask[~live].any()
        hand = st.hands[np.arange(batch), st.current_player.astype(np.intp)]
        cards_ok = np.isin(st.phase, (PLAY, DISCARD))
        hand_bits = ((hand[:, None] >> np.arange(48, dtype=U64)) & U64(1)).astype(bool)
        assert (mask[:, :48] == (hand_bits & (cards_ok & live)[:, None])).all()
        if truthful:
            truth = signal_true(hand)
            assert not (mask[:, 50:60] & ~truth).any()
        # ---- choose random legal actions
        u = rng.random(mask.shape)
        u[~mask] = -1
        a = u.argmax(axis=1)
        # expected trick results (RULES.md §5) for games completing a trick now
        completing = live & in_play & (st.n_in_trick == 3) & (a < 48)
        cards = st.trick_card.astype(np.int64).copy()
        cp = st.current_player.astype(np.intp)
        cards[np.arange(batch), cp] = np.where(completing, a, cards[np.arange(batch), cp])
        pw = np.where(cards >= 0, PW[np.maximum(cards, 0)], -1)
        top = pw.max(axis=1)
        n_top = (pw == top[:, None]).sum(axis=1)
        exp_res = np.where(n_top > 1, 4, pw.argmax(axis=1))
        k_trick = st.tricks_done.astype(np.intp).copy()
        deals_before = st.deals.copy()
        leader_before = st.leader.copy()
        k.step(st, a, rng)
        # ---- trick results and who leads next
        c = np.flatnonzero(completing)
        if c.size:
            same_deal = c[(st.deals[c] == deals_before[c]) & ~st.done[c]]
            assert (st.results[same_deal, k_trick[same_deal]] == exp_res[same_deal]).all()
            nxt = np.where(exp_res[same_deal] == 4, leader_before[same_deal], exp_res[same_deal])
            assert (st.current_player[same_deal] == nxt).all()
            checked_tricks += same_deal.size
        # ---- finished deals: score from the results (oracle), rewards zero-sum and as the spec says
        ended = np.flatnonzero((st.deals > deals_before) & live)
        for b in ended:
            r = st.results[b].tolist() if not st.accepted[b] else None
            if r is not None and st.done[b]:
                team, pts = deal_oracle(r, k.options["mordienne"])
                if st.refused[b]:
                    committed = (int(st.offerer[b]) + 1) % 2
                    team, pts = (committed, 2) if (team == committed and pts == 2) else (1 - committed, 2)
                exp = [0, 0]
                if team >= 0:
                    exp[team] = pts
                assert st.points[b].tolist() == exp, (r, st.points[b])
                checked_deals += 1
            assert st.points[b].min() == 0 and st.points[b].max() <= 2
        rew = st.rewards
        assert np.allclose(rew.sum(axis=1), 0) and (rew[:, 0] == rew[:, 2]).all() and (rew[:, 1] == rew[:, 3]).all()
        if k.options["reward"] == "score" and not k.match:
            d = (st.points[:, 0] - st.points[:, 1]).astype(np.float32)
            assert (rew[st.done & live, 0] == d[st.done & live]).all()
        assert (np.abs(rew) <= 2).all()
        if k.match:
            assert (st.score.sum(axis=1) <= 2 * st.deals).all()
        finished += int((st.done & live).sum())
        k.reset_done(st, rng)
    return checked_tricks, checked_deals


def test_soak_default_rules_10000_deals():
    tricks, deals = soak({}, batch=2500, deals_wanted=10_000, seed=1)
    assert tricks > 80_000 and deals > 9_000


@pytest.mark.parametrize(
    "options",
    [
        {"signals": "free", "surrender": True, "chant_recipients": "left_and_partner"},
        {"signals": "off", "chant": False, "mordienne": False, "reward": "win"},
        {"episode": "match", "signal_visibility": "public", "signal_timing": "round"},
        {"episode": "match", "match_target": 3, "signal_intercept": 0.3, "reward": "win", "surrender": True},
    ],
    ids=["free-surrender", "off-nomord-win", "match-public", "target-intercept"],
)
def test_soak_options(options):
    soak(options, batch=300, deals_wanted=600, seed=2)


