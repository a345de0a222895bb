"""Soak test of the batched All Fours kernel: >= 10,000 random hands with invariants checked at every step.
Batch independence, take/put and the ``active`` mask are frame tests (tests/test_frame.py), for every game.

The invariants are computed here from the rules (RULES.md §3-§6), not from kernel helpers:
deal positions, the legal-move table of §5, the trick winner, and the end-of-hand items.
"""

from __future__ import annotations


import numpy as np
import pytest

from cardzoo.envs.all_fours.constants import BEG, BEG_DECISION, DEALER_DECISION, GIVE_ONE, OVER, PLAY, RUN, STAND
from cardzoo.envs.all_fours.kernel import AllFoursKernel
from cardzoo.envs.core.cards import bit, popcount, random_set_bit

from all_fours_util import GAME_VALUE, item_points_oracle, seat_positions

U64 = np.uint64
ALL = (1 << 52) - 1
SUIT = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=U64)
#: [dealer, k-th position, 12 positions]: stock positions of each seat's 12 cards (§3, §4)
POS = np.array([[seat_positions(d)[s] for s in range(4)] for d in range(4)], dtype=np.intp)
POS1 = np.array([[seat_positions(d, packet=1)[s] for s in range(4)] for d in range(4)], dtype=np.intp)


def or_reduce(x, axis):
    return np.bitwise_or.reduce(x, axis=axis)


def expected_legal(st, undertrump_forbidden):
    """Legal-card bitboards of the seat to act during trick play (RULES.md §5 table)."""
    B = st.batch_size
    ar = np.arange(B)
    hand = st.hands[ar, st.current_player.astype(np.intp)]
    t = st.trump.astype(np.intp)
    led = st.led_suit.astype(np.intp)
    tm = SUIT[t]
    lm = SUIT[np.maximum(led, 0)]
    trumps = hand & tm
    follow = hand & lm
    out = hand.copy()
    z = U64(0)
    on_trump = (led >= 0) & (led == t)
    out = np.where(on_trump & (trumps != z), trumps, out)
    plain = (led >= 0) & (led != t) & (follow != z)
    out = np.where(plain, follow | trumps, out)
    if undertrump_forbidden:
        trick_trumps = (st.trick & tm) >> (13 * t).astype(U64)
        for b in np.flatnonzero((led >= 0) & (led != t) & (trick_trumps != z) & (hand != trumps)):
            top = int(trick_trumps[b]).bit_length() - 1  # highest trump rank in the trick
            low = int(trumps[b]) & (((1 << top) - 1) << (13 * int(t[b])))
            out[b] = U64(int(out[b]) & ~low)
    return out


def check_invariants(k, st, packet_pos):
    B = st.batch_size
    ar = np.arange(B)
    hands, played, dealt = st.hands, st.played, st.dealt
    # every card: exactly one of held / played / kicked / undealt stock (§3, §4)
    runs = st.runs.astype(np.intp)
    cut = 25 + 13 * runs  # first undealt stock position
    stock_bits = bit(st.stock.astype(np.int64))
    undealt = or_reduce(np.where(np.arange(52)[None, :] >= cut[:, None], stock_bits, U64(0)), 1)
    kick_pos = np.array([24, 37, 50])
    kicked = or_reduce(np.where(np.arange(3)[None, :] <= runs[:, None], stock_bits[:, kick_pos], U64(0)), 1)
    assert np.array_equal(st.kicked, kicked)
    parts = [hands[:, s] for s in range(4)] + [played[:, s] for s in range(4)] + [kicked, undealt]
    total = np.zeros(B, dtype=np.int64)
    union = np.zeros(B, dtype=U64)
    for p in parts:
        total += popcount(p).astype(np.int64)
        union |= p
    assert (union == U64(ALL)).all() and (total == 52).all()
    # each seat was dealt exactly the cards at its stock positions, and holds or has played them
    hs = st.hand_size.astype(np.intp)
    assert np.array_equal(hs, 6 + 3 * runs)
    kth = (np.arange(4)[None, :] - st.dealer[:, None].astype(np.intp) - 1) % 4  # [B, 4]
    pos = packet_pos[st.dealer.astype(np.intp)[:, None], np.arange(4)[None, :]]  # [B, 4, 12]
    cards = np.take_along_axis(st.stock.astype(np.int64)[:, None, :], pos, axis=2)
    use = np.arange(12)[None, None, :] < hs[:, None, None]
    exp_dealt = or_reduce(np.where(use, bit(cards), U64(0)), 2)
    assert np.array_equal(dealt, exp_dealt)
    assert np.array_equal(hands | played, dealt)
    assert (kth >= 0).all()
    # cards played to the current trick are the trick
    tc = st.trick_card.astype(np.int64)
    in_trick = or_reduce(np.where(tc >= 0, bit(np.maximum(tc, 0)), U64(0)), 1)
    assert np.array_equal(in_trick, st.trick)
    assert np.array_equal((tc >= 0).sum(1), st.n_in_trick)
    # captured = everything played except the current trick; Game values add up to <= 80
    all_played = or_reduce(played, 1)
    assert np.array_equal(st.captured[:, 0] | st.captured[:, 1], all_played & ~st.trick)
    assert ((st.captured[:, 0] & st.captured[:, 1]) == 0).all()
    live = ~st.done
    ph = st.phase
    assert (ph[st.done] == OVER).all() and (ph[live] != OVER).all()
    # hand sizes: 6 during the decisions; at the start of play 6, 9 or 12 cards each
    n_held = popcount(hands).astype(np.int64)
    dec = live & ((ph == BEG_DECISION) | (ph == DEALER_DECISION))
    assert (n_held[dec] == 6).all()
    start = live & (ph == PLAY) & (st.tricks_done == 0) & (st.n_in_trick == 0)
    assert (n_held[start] == hs[start, None]).all()
    assert np.isin(hs[start], (6, 9, 12)).all()
    # during play everybody holds hand_size - tricks_done, minus one if already played to this trick
    pl = live & (ph == PLAY)
    exp_held = hs[:, None] - st.tricks_done[:, None] - (tc >= 0)
    assert (n_held[pl] == exp_held[pl]).all()
    # legal actions: never empty for the player to act; exactly the §4 / §5 sets
    legal = k.legal_bitboard(st)
    assert (legal[live] != 0).all()
    assert (legal[st.done] == 0).all()
    assert (legal[live & (ph == BEG_DECISION)] == U64((1 << STAND) | (1 << BEG))).all()
    give_ok = np.ones(B, dtype=bool)
    if k.options["forbid_game_ending_give_one"]:  # §8: GIVE_ONE illegal if it would reach the target
        give_ok = st.score[ar, ((st.dealer.astype(np.intp) + 1) % 2)] + 1 < k.target
    dealer_bits = np.where(give_ok, U64((1 << GIVE_ONE) | (1 << RUN)), U64(1 << RUN))
    dd = live & (ph == DEALER_DECISION)
    assert np.array_equal(legal[dd], dealer_bits[dd])
    exp = expected_legal(st, k.options["undertrump"] == "forbidden")
    assert np.array_equal(legal[pl], exp[pl])
    # the seat to act: the beggar in phase 1, the dealer in phase 2
    assert (st.current_player[live & (ph == BEG_DECISION)] == ((st.dealer + 1) % 4)[live & (ph == BEG_DECISION)]).all()
    assert (st.current_player[live & (ph == DEALER_DECISION)] == st.dealer[live & (ph == DEALER_DECISION)]).all()
    # public observation slices against the state: each team's Game value and the trick's winner so far
    lay = k.obs_layout
    seat = int(st.dealer[0])  # any viewpoint; varies with the deals
    obs = k.observe(st, seat)
    gv = np.zeros((B, 2), dtype=np.int64)
    for r, v in GAME_VALUE.items():
        for s in range(4):
            gv += ((st.captured >> U64(13 * s + r)) & U64(1)).astype(np.int64) * v
    mine = seat % 2
    assert np.array_equal(obs[:, lay["game_captured"]], np.stack([gv[:, mine], gv[:, 1 - mine]], 1))
    tw = obs[:, lay["trick_winner"]]
    assert (tw.sum(1) == (st.n_in_trick > 0)).all()
    for b in np.flatnonzero(st.n_in_trick > 0)[:64]:
        order = [(int(st.leader[b]) + i) % 4 for i in range(int(st.n_in_trick[b]))]
        cards = [int(st.trick_card[b, s]) for s in order]
        w = order[trick_winner(cards, cards[0] // 13, int(st.trump[b]))]
        assert tw[b, (w - seat) % 4] == 1
    # points of the hand: at most 3 kicks of <= 3 per deal (+ redeals), give one, 1+1+3+1 items
    pts = st.points.astype(np.int64)
    cap = 9 * (st.redeals.astype(np.int64) + 1) + 1 + 6
    assert (pts >= 0).all() and (pts <= cap[:, None]).all()
    assert (st.score >= st.points).all()


def trick_winner(cards, led, trump):
    """Seat winning a full trick (RULES.md §5): highest trump, else highest card of the led suit."""
    best, win = -1, -1
    for s, c in enumerate(cards):
        key = c % 13 + (13 if c // 13 == led else 0) + (100 if c // 13 == trump else 0)
        if (c // 13 == led or c // 13 == trump) and key > best:
            best, win = key, s
    return win


def soak(options, batch, hands_wanted, seed):
    k = AllFoursKernel(**options)
    match = options.get("episode") == "match"
    packet_pos = POS1 if options.get("deal_packet") == 1 else POS
    rng = np.random.default_rng(seed)
    st = k.init(rng, batch)
    check_invariants(k, st, packet_pos)
    hands = steps = tricks_checked = 0
    cum = np.zeros(batch)
    while hands < hands_wanted:
        before = st.copy()
        actions = random_set_bit(k.legal_bitboard(st), rng)
        k.step(st, actions, rng)
        steps += 1
        check_invariants(k, st, packet_pos)
        r = st.rewards
        # rewards: zero-sum between teams, partners equal
        assert np.array_equal(r[:, 0], r[:, 2]) and np.array_equal(r[:, 1], r[:, 3])
        assert np.array_equal(r[:, 0], -r[:, 1])
        ended = st.done & ~before.done
        trunc = ended & st.truncated
        assert (r[trunc] == 0).all()
        if not match:
            # hand mode: the reward is paid once, at the end, as the hand's points difference
            diff = (st.points[:, 0] - st.points[:, 1]).astype(np.float32)
            fin = ended & ~st.truncated
            assert np.array_equal(r[fin, 0], diff[fin])
            assert (r[~ended] == 0).all()
            # completed tricks go to the winner's team (§5), the winner leads the next one
            done_trick = (before.phase == PLAY) & (before.n_in_trick == 3)
            for b in np.flatnonzero(done_trick):
                cards = before.trick_card[b].astype(int).copy()
                cards[int(before.current_player[b])] = int(actions[b])
                w = trick_winner(cards.tolist(), cards[int(before.leader[b])] // 13, int(before.trump[b]))
                got = int(st.captured[b, w % 2]) & ~int(before.captured[b, w % 2])
                assert got == sum(1 << int(c) for c in cards)
                assert int(st.leader[b]) == w
                tricks_checked += 1
            # end-of-hand items against the independent scoring of §6
            tie = {"none": None, "beggar_team": "b", "dealer_team": "d"}[k.options["game_tie"]]
            for b in np.flatnonzero(fin):
                tie_team = -1 if tie is None else (int(st.dealer[b]) + (1 if tie == "b" else 0)) % 2
                exp = item_points_oracle(
                    st.dealt[b], st.captured[b], int(st.trump[b]),
                    k.options["jack_points"], k.options["hang_jack_points"], k.options["game_points"], tie_team,
                )
                assert (st.points[b] - before.points[b]).tolist() == exp
                assert int(st.tricks_done[b]) == int(st.hand_size[b])
            hands += int(ended.sum())
        else:
            # match mode: every finished hand pays its points difference; count hands played
            hands += int((st.hands_played - before.hands_played).clip(0).sum()) + int(ended.sum())
            # score reward: the hands' rewards add up to the final match score difference
            cum += r[:, 0]
            if k.options["reward"] == "score":
                fin = ended & ~st.truncated
                assert np.array_equal(cum[fin], (st.score[fin, 0] - st.score[fin, 1]).astype(np.float64))
            cum[ended] = 0
            w = st.winner[ended & ~st.truncated]
            sc = st.score[ended & ~st.truncated]
            assert (sc[np.arange(len(w)), w] >= k.target).all()
            assert (sc[np.arange(len(w)), 1 - w] < k.target).all()
        k.reset_done(st, rng)
        check_invariants(k, st, packet_pos)
    return hands, steps, tricks_checked


def test_soak_default_rules_10000_hands():
    hands, steps, tricks = soak({}, batch=1000, hands_wanted=10_000, seed=12345)
    assert hands >= 10_000
    assert tricks > 50_000


@pytest.mark.parametrize(
    "options",
    [
        {"undertrump": "forbidden", "deal_packet": 1, "game_tie": "beggar_team", "kick_points": "tobago"},
        {"score_rejected_kicks": False, "game_tie": "dealer_team", "jack_points": 2, "hang_jack_points": 5},
        {"episode": "match", "target_score": 7},
        {"episode": "match", "reward": "win", "forbid_game_ending_give_one": True},
    ],
    ids=["forbidden-packet1-tobago", "no-rejected-kicks", "match7", "match-win"],
)
def test_soak_options(options):
    hands, _, _ = soak(options, batch=1000, hands_wanted=2_000, seed=7)
    assert hands >= 2_000
