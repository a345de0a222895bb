"""Soak test of the batched Avinas kernel: >= 10,000 random deals with the invariants of the
rules checked at every step. Batch independence, take/put and the ``active`` mask are frame tests
(tests/test_frame.py), for every game.

The checks are computed here from RULES.md (§2 trump order and points, §5 leads and follows,
§6 scoring), not from kernel helpers.
"""

from __future__ import annotations


import numpy as np

from cardzoo.envs.avinas.constants import CALLING, DECLARING, KNOCKING, OVER, PLAY, SIGNAL, STOPPING
from cardzoo.envs.avinas.kernel import AvinasKernel
from cardzoo.envs.core.cards import popcount

U64 = np.uint64
ALL = (1 << 32) - 1
RANKS = "7 8 9 10 J Q K A".split()
PTS = np.array([{"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}.get(RANKS[c % 8], 0) for c in range(32)])
QJ = [c for c in range(32) if RANKS[c % 8] in ("Q", "J")]
#: §2 trump order from the best, by (suit, rank name); "t" = the trump suit
_ORDER = [("C", "Q"), ("t", "7"), ("S", "Q"), ("H", "Q"), ("D", "Q"), ("C", "J"), ("S", "J"), ("H", "J"), ("D", "J"),
          ("t", "A"), ("t", "10"), ("t", "K"), ("t", "9"), ("t", "8")]
_PLAIN = ["A", "10", "K", "9", "8", "7"]


def trump_rank(card, t):
    """0 = best trump .. 13, or None if not a trump (RULES.md §2)."""
    s, r = "CDHS"[card // 8], RANKS[card % 8]
    for i, (os_, or_) in enumerate(_ORDER):
        if or_ == r and (os_ == s or (os_ == "t" and s == "CDHS"[t])):
            return i
    return None


def is_trump(card, t):
    return trump_rank(card, t) is not None


def trick_winner(cards_by_order, t, facedown_first):
    """Index (in play order) of the winner (RULES.md §5)."""
    best, win = None, 0
    lead = cards_by_order[0]
    led_trump = facedown_first or is_trump(lead, t)
    for i, c in enumerate(cards_by_order):
        if i == 0 and facedown_first:
            continue
        tr = trump_rank(c, t)
        if tr is not None:
            key = (2, -tr)
        elif not led_trump and c // 8 == lead // 8:
            key = (1, -_PLAIN.index(RANKS[c % 8]))
        else:
            key = None
        if key is not None and (best is None or key > best):
            best, win = key, i
    return win


def expected_play_legal(hand, t, tricks_done, lead_cards, rule):
    """Set of legal actions for a play-phase decision (RULES.md §5)."""
    hand = [c for c in range(32) if hand >> c & 1]
    trumps = [c for c in hand if is_trump(c, t)]
    if not lead_cards:
        must = tricks_done == 1 if rule == "trick2" else tricks_done >= 1
        if tricks_done == 0:
            return set(trumps)
        if must and trumps:
            return set(trumps)
        if must:
            return set(hand) | {32 + c for c in hand}
        return set(hand)
    lead, fd = lead_cards
    if fd or is_trump(lead, t):
        return set(trumps) if trumps else set(hand)
    follow = [c for c in hand if c // 8 == lead // 8 and not is_trump(c, t)]
    return set(follow) if follow else set(hand)


def expected_outcome(st, b, k):
    """(loser team, penalty) of a finished deal from its facts (RULES.md §6)."""
    decl = int(st.declarer[b])
    dt = decl % 2
    pts = st.points[b].tolist()
    tw = st.tricks_won[b].tolist()
    sev = int(st.game[b]) == 0
    knocks = int(st.knocked[b].sum())
    dk = bool(st.knocked[b, decl] or st.knocked[b, (decl + 2) % 4])
    if sev:
        win = tw[dt] == 8 if dk else pts[dt] >= 61
    else:
        win = pts[dt] >= 61 and not st.lied[b]
    loser = 1 - dt if win else dt
    if sev:
        base = 1
        if k.options["ram_schedule"] == "graded" and not dk:
            base = 3 if tw[loser] == 0 else 2 if pts[loser] <= 30 else 1
        return loser, base * 2**knocks
    if k.options["pip_schedule"] == "flat":
        return loser, 2
    return loser, 6 if tw[loser] == 0 else 4 if pts[loser] <= 30 else 2


def soak(k, B, games_wanted, seed):
    """Random play until ``games_wanted`` episodes ended. Every row ends an episode within
    ``k.max_episode_steps`` batch steps (the truncation cap), so more steps than that per B episodes
    wanted would be a game that never ends: a step bound, not a clock."""
    rng = np.random.default_rng(seed)
    st = k.init(rng, B)
    games = steps = 0
    max_steps = -(-games_wanted // B) * k.max_episode_steps
    check_legal_every = 7
    seen_phase = set()
    while games < games_wanted:
        assert steps <= max_steps, f"{games} of {games_wanted} episodes ended in {steps} steps of {B} games"
        live = ~st.done
        # every card accounted for: held or played, never both
        h, p = st.hands, st.played
        held = np.bitwise_or.reduce(h, axis=1)
        pl = np.bitwise_or.reduce(p, axis=1)
        assert (popcount(h).sum(1) + popcount(p).sum(1) == 32).all()
        assert ((held | pl) == U64(ALL)).all() and ((held & pl) == 0).all()
        # trick bookkeeping
        assert (popcount(st.trick) == st.n_in_trick).all()
        assert (st.tricks_won.sum(1) == st.tricks_done).all()
        assert (st.points.sum(1) <= 120).all() and (st.points >= 0).all()
        # points = points of the cards in completed tricks
        out = pl & ~st.trick
        cardpts = (((out[:, None] >> np.arange(32, dtype=U64)) & U64(1)).astype(np.int64) * PTS).sum(1)
        assert np.array_equal(cardpts[live], st.points.sum(1)[live])
        # each seat holds 8 - cards played
        assert (popcount(h) + popcount(p) == 8).all()
        mask = k.legal_actions(st)
        assert mask[live].any(axis=1).all()  # never empty for the player to act
        assert not mask[~live].any()
        for ph in np.unique(st.phase[live]):
            seen_phase.add(int(ph))
        if steps % check_legal_every == 0:
            for b in np.flatnonzero(live & (st.phase == PLAY))[:64]:
                cp = int(st.current_player[b])
                n = int(st.n_in_trick[b])
                lead_cards = ()
                if n:
                    ld = int(st.leader[b])
                    lead_cards = (int(st.trick_card[b, ld]), int(st.fd_seat[b]) == ld)
                exp = expected_play_legal(int(st.hands[b, cp]), int(st.trump[b]), int(st.tricks_done[b]), lead_cards,
                                          k.options["trump_lead_rule"])
                assert set(np.flatnonzero(mask[b]).tolist()) == exp, b
        u = rng.random(mask.shape)
        u[~mask] = -1
        acts = u.argmax(1)
        # trick winners: predict for games about to complete a trick
        completing = np.flatnonzero(live & (st.phase == PLAY) & (st.n_in_trick == 3))
        pred = {}
        for b in completing[:64]:
            ld = int(st.leader[b])
            order = [(ld + i) % 4 for i in range(4)]
            cards = [int(st.trick_card[b, s]) for s in order[:3]] + [int(acts[b]) & 31]
            pred[b] = order[trick_winner(cards, int(st.trump[b]), int(st.fd_seat[b]) == ld)]
        k.step(st, acts, rng)
        steps += 1
        for b, w in pred.items():
            assert int(st.leader[b]) == w, b  # the trick's winner leads next (kept across a new deal)
        # rewards: zero-sum, partners equal; at a deal end equal to the outcome of §6
        r = st.rewards
        assert np.allclose(r[:, 0], r[:, 2]) and np.allclose(r[:, 1], r[:, 3]) and np.allclose(r[:, 0], -r[:, 1])
        fin = np.flatnonzero(st.done)
        if not k.match:
            for b in fin[:200]:
                if st.truncated[b]:
                    assert r[b].tolist() == [0, 0, 0, 0]
                    continue
                loser, pen = expected_outcome(st, b, k)
                assert int(st.last_loser[b]) == loser and int(st.last_penalty[b]) == pen
                unit = pen if st.game[b] == 0 else pen / 2
                if k.options["reward"] == "win":
                    unit = 1.0
                assert r[b, loser] == -unit and r[b, 1 - loser] == unit
                assert st.phase[b] == OVER
        else:
            lim = k.options["pip_limit"]
            for b in fin:
                if not st.truncated[b]:
                    assert st.pips[b].max() >= lim and int(st.winner[b]) in (0, 1)
        games += int(st.done.sum())
        k.reset_done(st, rng)
    return games, steps, seen_phase


def test_soak_random_deals_default_rules():  # with the two below: > 10,000 deals
    games, steps, phases = soak(AvinasKernel(), 1000, 7_000, seed=1)
    assert games >= 7_000
    assert {KNOCKING, CALLING, DECLARING, PLAY, STOPPING} <= phases


def test_soak_variant_rules():
    k = AvinasKernel(knock_back="always", ram_schedule="graded", pip_schedule="flat", call_count="suit",
                     honesty="mask", facedown_signal="free", trump_lead_rule="every_lead", valuable_min_points=4,
                     reward="win", no7_stop=False)
    games, steps, phases = soak(k, 500, 3_000, seed=2)
    assert SIGNAL in phases and STOPPING not in phases


def test_soak_matches():
    k = AvinasKernel(episode="match", pip_limit=12)
    games, steps, phases = soak(k, 200, 200, seed=3)
    assert games >= 200
