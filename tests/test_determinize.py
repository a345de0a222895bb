"""determinize(state, seat, rng) for every game (issue 16, item 1) and its shared frame
(envs/core/determinize.py): consistent copies, independent of the hidden cards, uniform samples."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import numpy as np
import pytest

from cardzoo import agents, envs
from cardzoo.envs.core.cards import bit, mask_to_cards, popcount
from cardzoo.envs.core.determinize import deal_unseen

GAMES = ["avinas", "ottocento", "aluette", "pyanitsa", "all_fours"]


def _chi2_ok(counts: list[int], n: int) -> float:
    """Chi-square statistic of ``counts`` against uniform; asserts it is below df + 6 sqrt(2 df)
    (far in the tail: p < 1e-6 for these df), returns it."""
    k = len(counts)
    e = n / k
    chi2 = sum((c - e) ** 2 / e for c in counts)
    df = k - 1
    assert chi2 < df + 6 * np.sqrt(2 * df), (chi2, df, counts)
    return chi2


# ---------------------------------------------------------------- the shared frame



def split_cards(perm, sizes) -> list[int]:
    """``perm`` (card ids) cut into consecutive parts of ``sizes``, each as a card-set int: one deal
    of the unseen cards, for the tests that enumerate every consistent deal."""
    parts, i = [], 0
    for n in sizes:
        parts.append(sum(1 << c for c in perm[i : i + n]))
        i += n
    return parts

def test_deal_unseen_keeps_sizes_known_and_forbidden_cards():
    rng = np.random.default_rng(0)
    unseen = np.full(500, np.uint64(0b1111111111))  # cards 0..9
    sizes = np.tile([3, 3, 4], (500, 1))
    known = np.zeros((500, 3), dtype=np.uint64)
    known[:, 2] = np.uint64(1 << 9)
    forbidden = np.zeros((500, 3), dtype=np.uint64)
    forbidden[:, 0] = np.uint64(0b111)  # destination 0 holds none of cards 0, 1, 2
    deal, exact = deal_unseen(unseen, sizes, rng, n_cards=10, forbidden=forbidden, known=known)
    assert exact.all()
    assert (popcount(deal) == sizes).all()
    assert (np.bitwise_or.reduce(deal, axis=1) == unseen).all()
    assert ((deal[:, 2] >> np.uint64(9)) & np.uint64(1) == 1).all()
    assert ((deal[:, 0] & np.uint64(0b111)) == 0).all()
    with pytest.raises(ValueError, match="do not add up"):
        deal_unseen(unseen[:1], np.array([[3, 3, 3]]), rng, n_cards=10)
    with pytest.raises(ValueError, match="known cards"):
        deal_unseen(unseen[:1], sizes[:1], rng, n_cards=10, known=np.array([[1 << 12, 0, 0]], dtype=np.uint64))


def test_deal_unseen_is_uniform_over_the_consistent_deals():
    """6 cards into sizes (2, 2, 2); destination 0 may not hold cards 0 or 1, destination 1 not
    card 2; an accept test wants card 5 with card 3 or card 4. Of the 90 deals 10 are consistent
    (brute force), and each is drawn about equally often."""
    n = 30_000
    unseen = np.full(n, np.uint64(0b111111))
    sizes = np.tile([2, 2, 2], (n, 1))
    forbidden = np.zeros((n, 3), dtype=np.uint64)
    forbidden[:, 0] = np.uint64(0b11)
    forbidden[:, 1] = np.uint64(0b100)

    def accept(rows, deal):
        return np.array([any(((int(d) >> 5) & 1) and ((int(d) >> 3) & 0b11) for d in row) for row in deal])

    deal, exact = deal_unseen(unseen, sizes, np.random.default_rng(1), n_cards=6, forbidden=forbidden, accept=accept)
    assert exact.all()
    got = Counter(tuple(int(x) for x in row) for row in deal)
    # brute force: every split of cards 0..5 into three pairs, filtered by the same constraints
    consistent = set()
    for perm in itertools.permutations(range(6)):
        hands = tuple(sum(1 << c for c in perm[2 * i : 2 * i + 2]) for i in range(3))
        if hands[0] & 0b11 or hands[1] & 0b100:
            continue
        if not any((h >> 5) & 1 and (h >> 3) & 0b11 for h in hands):
            continue
        consistent.add(hands)
    assert set(got) == consistent and len(consistent) == 10
    _chi2_ok([got[h] for h in sorted(consistent)], n)


# ---------------------------------------------------------------- every game


def _positions(game: str, opts: dict, n: int, plays: int, seed: int):
    k = envs.kernel(game, **opts)
    rule = agents.load(f"{game}/rule", **opts)
    rng = np.random.default_rng(seed)
    st = k.init(rng, n)
    for _ in range(plays):
        k.step(st, rule.act(k.observe(st, st.current_player), k.legal_actions(st)), rng)
    return k, st.take(np.flatnonzero(~st.done))


CASES = [
    ("avinas", {}, 0), ("avinas", {}, 14), ("avinas", {"honesty": "mask"}, 3), ("avinas", {"trump_lead_rule": "every_lead"}, 17),
    ("ottocento", {}, 0), ("ottocento", {}, 3), ("ottocento", {}, 30),
    ("aluette", {}, 0), ("aluette", {}, 8), ("aluette", {}, 24), ("aluette", {"signal_visibility": "public"}, 30),
    ("pyanitsa", {}, 21), ("pyanitsa", {"collect_order": "winner_chooses"}, 60),
    ("pyanitsa", {"collect_order": "random", "num_players": 3, "deck": 52}, 80), ("pyanitsa", {"num_players": 4, "tie_mode": "down_up"}, 50),
    ("all_fours", {}, 9),
]


@pytest.mark.parametrize("game,opts,plays", [c for c in CASES if c[0] != "all_fours"])
def test_determinize_depends_only_on_what_the_seat_knows(game, opts, plays):
    """Any other consistent deal (here: a determinization itself) gives the same copy for the same
    rng: nothing of the hidden cards reaches the result. (All Fours keeps its stock's original
    positions, so its copies differ there; its case is ``test_search.py``'s
    ``test_determinize_reads_no_hidden_card``.)"""
    k, st = _positions(game, opts, 120, plays, seed=plays)
    seat = st.current_player.astype(np.intp)
    other = k.determinize(st, seat, np.random.default_rng(5))
    hidden_moved = any(not np.array_equal(getattr(other, f), getattr(st, f)) for f in ("hands", "piles") if hasattr(st, f))
    assert hidden_moved, "the second deal must differ in hidden cards, or the comparison shows nothing"
    a = k.determinize(st, seat, np.random.default_rng(9))
    b = k.determinize(other, seat, np.random.default_rng(9))
    for f in dataclasses.fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name


@pytest.mark.parametrize("game,opts,plays", CASES)
def test_determinized_states_are_consistent_and_play_on(game, opts, plays):
    k, st = _positions(game, opts, 150, plays, seed=plays + 1)
    seat = st.current_player.astype(np.intp)
    d = k.determinize(st, seat, np.random.default_rng(3))
    ar = np.arange(st.batch_size)
    if hasattr(st, "hands"):
        assert (d.hands[ar, seat] == st.hands[ar, seat]).all()  # own hand
        assert (popcount(d.hands) == popcount(st.hands)).all()  # hand sizes
        held = np.bitwise_or.reduce(d.hands, axis=1)
        assert (popcount(held) == popcount(d.hands).sum(axis=1)).all()  # no card twice
        assert ((held & np.bitwise_or.reduce(d.played, axis=1)) == 0).all()
    assert (k.legal_actions(d) == k.legal_actions(st)).all()  # the seat's choices are the same
    # the copy is a game that plays to its end with the rule bots
    rule = agents.load(f"{game}/rule", **opts)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        if d.done.all():
            break
        k.step(d, rule.act(k.observe(d, d.current_player), k.legal_actions(d)), rng)
    assert d.done.all() or game == "pyanitsa"  # a P'yanitsa game may run for thousands of battles


def test_avinas_constraints_hold():
    k, st = _positions("avinas", {"trump_lead_rule": "every_lead"}, 400, 17, seed=2)
    seat = st.current_player.astype(np.intp)
    d = k.determinize(st, seat, np.random.default_rng(4))
    from cardzoo.envs.avinas.determinize import _void_cards

    voids = _void_cards(st.voids, st.trump)
    assert (st.voids != 0).sum() > 100
    assert ((d.hands & voids) == 0).all()  # shown voids respected
    fd = (st.fd_seat >= 0) & (st.fd_seat != seat) & (st.n_in_trick > 0)
    # exposed key cards stay with their holders (the face-down leader's: in his hand or face down,
    # §11.12); face-up played cards are unchanged
    ar = np.arange(st.batch_size)

    def holding(s):
        lead = np.maximum(s.fd_seat, 0).astype(np.intp)
        down = np.where(fd, bit(np.maximum(s.trick_card[ar, lead], 0)), np.uint64(0))
        return s.hands | np.where(np.arange(4)[None, :] == lead[:, None], down[:, None], np.uint64(0))

    assert ((holding(d) & st.exposed[:, None]) == (holding(st) & st.exposed[:, None])).all()
    assert fd.sum() > 5
    same = ~fd
    assert (d.played[same] == st.played[same]).all()
    # the hidden face-down card is redealt: never a trump, never a card the seat has seen
    f = np.flatnonzero(fd)
    c = d.trick_card[f, st.fd_seat[f]]
    from cardzoo.envs.avinas.constants import TRUMP_BB

    assert ((bit(c) & TRUMP_BB[st.trump[f]]) == 0).all()
    assert (d.trick_card[f, st.fd_seat[f]] != st.trick_card[f, st.fd_seat[f]]).any()


def test_avinas_truthful_calls_hold_in_every_copy():
    k, st = _positions("avinas", {"honesty": "mask"}, 400, 4, seed=1)
    seat = st.current_player.astype(np.intp)
    d = k.determinize(st, seat, np.random.default_rng(2))
    counts = popcount(d.dealt[:, :, None] & k.count_bb[None, None, :]).max(axis=2)
    assert (st.calls > 0).sum() > 100
    assert ((st.calls <= 0) | (counts >= st.calls)).all()


def test_ottocento_constraints_hold():
    from cardzoo.envs.ottocento.combos import combo_breakdown
    from cardzoo.envs.ottocento.constants import FORBIDDEN_DISCARDS_BB
    from cardzoo.envs.ottocento.determinize import _void_cards

    k, st = _positions("ottocento", {}, 400, 30, seed=7)
    seat = st.current_player.astype(np.intp)
    d = k.determinize(st, seat, np.random.default_rng(4))
    assert (st.voids != 0).sum() > 100 and st.declared.sum() > 100
    assert ((d.hands & _void_cards(st.voids)) == 0).all()
    shown = st.shown & ~st.played
    assert ((d.hands & shown) == shown).all()  # declared cards stay with their declarer
    assert ((d.discards & FORBIDDEN_DISCARDS_BB) == 0).all() and (popcount(d.discards) == 2).all()
    dealer = st.dealer == seat
    assert (d.discards[dealer] == st.discards[dealer]).all()
    b = combo_breakdown(d.hands | d.played, k.strict_skip)
    assert ((~st.declared) | (b.total == st.decl_points)).all()  # declarations score what they said
    assert (d.played == st.played).all() and (d.piles == st.piles).all()


def test_aluette_truthful_signals_hold_and_unheard_ones_are_dropped():
    from cardzoo.envs.aluette.constants import ACES_BB, KEY_BB, KEY_OR_ACE_BB

    k, st = _positions("aluette", {}, 400, 24, seed=5)
    seat = st.current_player.astype(np.intp)
    d = k.determinize(st, seat, np.random.default_rng(6))
    ar = np.arange(st.batch_size)
    heard = st.heard[ar, seat]
    checked = 0
    for x in range(4):
        other = x != seat
        for s in range(10):
            on = other & (((heard >> np.uint64(10 * x + s)) & np.uint64(1)) == 1)
            held = d.hands[:, x] | d.played[:, x]
            if s < 8:
                assert ((held[on] & KEY_BB[s]) != 0).all()
            elif s == 8:
                assert ((held[on] & ACES_BB) != 0).all()
            else:
                assert ((d.hands[on, x] & KEY_OR_ACE_BB) == 0).all()
            checked += int(on.sum())
        # the copy keeps only signals the seat heard
        assert ((d.heard[:, x] & ~(heard | (np.uint64(0x3FF) << (10 * seat).astype(np.uint64)))) == 0).all()
    assert checked > 200


def test_aluette_swapping_two_hidden_hands_changes_nothing():
    """All Fours' test, for Aluette before the chant: the other hands and the talon order permuted."""
    k = envs.kernel("aluette")
    st = k.init(np.random.default_rng(3), 64)
    seat = st.current_player.astype(np.intp)
    ar = np.arange(64)
    s1, s2 = (seat + 1) % 4, (seat + 2) % 4
    other = st.copy()
    other.hands[ar, s1], other.hands[ar, s2] = st.hands[ar, s2], st.hands[ar, s1]
    other.dealt[ar, s1], other.dealt[ar, s2] = st.dealt[ar, s2], st.dealt[ar, s1]
    other.stock[:, 36:] = st.stock[:, 36:][:, ::-1]
    a = k.determinize(st, seat, np.random.default_rng(9))
    b = k.determinize(other, seat, np.random.default_rng(9))
    for f in dataclasses.fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name


# ---------------------------------------------------------------- uniform over the consistent deals


def _endgame(game, opts, plays, seed, pick):
    """The first position (of 300 games played by the rule bots, looking from ``plays`` steps on) that ``pick`` wants."""
    k = envs.kernel(game, **opts)
    rule = agents.load(f"{game}/rule", **opts)
    rng = np.random.default_rng(seed)
    st = k.init(rng, 300)
    for step in range(plays + 40):
        if step >= plays:
            rows = [b for b in range(st.batch_size) if not st.done[b] and pick(k, st, b)]
            if rows:
                return k, st.take(np.array(rows[:1]))
        k.step(st, rule.act(k.observe(st, st.current_player), k.legal_actions(st)), rng)
    raise AssertionError("no position of the wanted kind")


def _sample(k, st, n, key):
    many = st.take(np.zeros(n, dtype=np.intp))
    d = k.determinize(many, many.current_player.astype(np.intp), np.random.default_rng(11))
    return Counter(key(d, i) for i in range(n))


def test_ottocento_samples_are_uniform_over_the_consistent_deals():
    """Two tricks before the end, a non-dealer to play: the other hands (2 cards each) and the two
    discards. Every consistent deal (voids, declared cards, discard rule, declaration scores) is
    enumerated by brute force and each is drawn about equally often."""
    from cardzoo.envs.ottocento.combos import combo_breakdown
    from cardzoo.envs.ottocento.constants import FORBIDDEN_DISCARDS_BB, MAT_BIT, SUIT_BB

    def pick(k, st, b):
        return st.tricks_done[b] == 13 and st.n_in_trick[b] == 0 and st.dealer[b] != st.current_player[b]

    k, st = _endgame("ottocento", {}, 4 * 13 + 4, 21, pick)
    seat = int(st.current_player[0])
    others = [(seat + i) % 4 for i in (1, 2, 3)]
    got = _sample(k, st, 20_000, lambda d, i: tuple(int(d.hands[i, x]) for x in others) + (int(d.discards[i]),))
    unseen = [c for c in range(62) if not (int(st.hands[0, seat]) >> c) & 1 and not (int(np.bitwise_or.reduce(st.played[0])) >> c) & 1]
    sizes = [int(popcount(st.hands[0, x])) for x in others] + [2]
    consistent = set()
    for perm in itertools.permutations(unseen):
        parts = tuple(split_cards(perm, sizes))
        if parts in consistent:
            continue
        ok = not (parts[3] & int(FORBIDDEN_DISCARDS_BB | MAT_BIT))
        for j, x in enumerate(others):
            v = int(st.voids[0, x])
            for s in range(5):
                if (v >> s) & 1 and parts[j] & int(SUIT_BB[s]):
                    ok = False
            shown = int(st.shown[0, x]) & ~int(st.played[0, x])
            if parts[j] & shown != shown:
                ok = False
            if ok and st.declared[0, x]:
                b = combo_breakdown(np.uint64(parts[j] | int(st.played[0, x])), k.strict_skip)
                ok = int(b.total) == int(st.decl_points[0, x]) and int(b.shown) == int(st.shown[0, x])
        if ok:
            consistent.add(parts)
    assert 3 <= len(consistent) <= 2520
    assert set(got) == consistent
    _chi2_ok([got[p] for p in sorted(consistent)], 20_000)


def test_aluette_samples_are_uniform_over_the_consistent_deals():
    """Late in the play with truthful signals heard: the other hands (1-2 cards each) and the dead
    cards (talon); every consistent split is drawn about equally often."""
    from cardzoo.envs.aluette.constants import ACES_BB, KEY_BB, KEY_OR_ACE_BB

    def pick(k, st, b):
        s = int(st.current_player[b])
        return st.tricks_done[b] == 8 and st.n_in_trick[b] == 0 and int(st.heard[b, s]) != 0 and not st.chanted[b]

    k, st = _endgame("aluette", {}, 4 + 4 * 8 + 12, 31, pick)
    seat = int(st.current_player[0])
    others = [(seat + i) % 4 for i in (1, 2, 3)]
    got = _sample(k, st, 20_000, lambda d, i: tuple(int(d.hands[i, x]) for x in others))
    n_cells = len(got)
    heard = int(st.heard[0, seat])
    unseen = int(np.uint64((1 << 48) - 1) & ~st.hands[0, seat] & ~np.bitwise_or.reduce(st.played[0]))
    cards = mask_to_cards(unseen)
    consistent = set()
    for trio in itertools.permutations(cards, 3):  # one card each (the dead cards are the rest)
        parts = tuple(1 << c for c in trio)
        ok = True
        for j, x in enumerate(others):
            held = parts[j] | int(st.played[0, x])
            for s in range(10):
                if not (heard >> (10 * x + s)) & 1:
                    continue
                if s < 8 and not held & int(KEY_BB[s]):
                    ok = False
                if s == 8 and not held & int(ACES_BB):
                    ok = False
                if s == 9 and parts[j] & int(KEY_OR_ACE_BB):
                    ok = False
        if ok:
            consistent.add(parts)
    assert set(got) == consistent and n_cells == len(consistent) > 3
    _chi2_ok([got[p] for p in sorted(consistent)], 20_000)


def test_avinas_samples_are_uniform_over_the_consistent_deals():
    """Two tricks before the end: the other hands (2 cards each) with their shown voids and
    exposed cards; every consistent deal is drawn about equally often."""
    from cardzoo.envs.avinas.determinize import _void_cards

    def pick(k, st, b):
        return st.tricks_done[b] == 6 and st.n_in_trick[b] == 0 and st.voids[b].any() and st.fd_seat[b] < 0

    k, st = _endgame("avinas", {}, 20, 41, pick)
    seat = int(st.current_player[0])
    others = [(seat + i) % 4 for i in (1, 2, 3)]
    got = _sample(k, st, 20_000, lambda d, i: tuple(int(d.hands[i, x]) for x in others))
    unseen = mask_to_cards(int(np.uint64((1 << 32) - 1) & ~st.hands[0, seat] & ~np.bitwise_or.reduce(st.played[0])))
    voids = _void_cards(st.voids[:1], st.trump[:1])[0]
    visible = int(st.exposed[0]) | (int(st.dealer_seen[0]) if int(st.dealer[0]) == seat else 0)
    consistent = set()
    for perm in itertools.permutations(unseen):
        parts = tuple(sum(1 << c for c in perm[2 * j : 2 * j + 2]) for j in range(3))
        ok = all(not parts[j] & int(voids[x]) and parts[j] & visible == int(st.hands[0, x]) & visible for j, x in enumerate(others))
        if ok:
            consistent.add(parts)
    assert set(got) == consistent and len(consistent) >= 3
    _chi2_ok([got[p] for p in sorted(consistent)], 20_000)


def test_pyanitsa_samples_are_uniform_over_the_consistent_arrangements():
    """Each hidden card is equally likely at the top of the opponent's pile (all consistent
    arrangements being equally likely, every hidden card has the same chance there)."""
    k, st = _positions("pyanitsa", {}, 1, 10, seed=3)
    seat = int(st.current_player[0])
    opp = 1 - seat
    got = _sample(k, st, 20_000, lambda d, i: int(d.piles[i, opp, d.head[i, opp]]))
    # winner_first: where every card turned face up went is public (the seat remembers every battle)
    seen = int(np.bitwise_or.reduce(st.face_up[0])) | int(st.shown[0])
    assert set(got) == set(range(36)) - set(mask_to_cards(seen))
    assert len(got) == 36 - popcount(np.uint64(seen)) == 26  # 10 cards turned in 5 battles
    _chi2_ok(list(got.values()), 20_000)


def test_pyanitsa_remembered_pots_are_shuffled_only_within_their_stretch():
    """winner_chooses: a seat remembers every pot and which pile took it, but not the order its
    winner chose. Seat 1, battle 27 (seed 4, 90 moves): the top of seat 0's pile is what is left of
    battle 16's pot (5 cards), then battle 17's (2 cards). Each of those 5 is equally likely on top,
    and every copy keeps both stretches' cards in their stretches."""
    k, st = _positions("pyanitsa", {"collect_order": "winner_chooses"}, 1, 90, seed=4)
    assert int(st.current_player[0]) == 1 and int(st.battles[0]) == 27

    def pile(x, i):
        return [int(x.piles[i, 0, (int(x.head[i, 0]) + j) % 36]) for j in range(int(x.size[i, 0]))]

    top = pile(st, 0)
    pots = [int(st.pot_of[0, 0, (int(st.head[0, 0]) + j) % 36]) for j in range(7)]
    assert pots == [16] * 5 + [17] * 2 and all((int(st.shown[0]) >> c) & 1 for c in top[:7])
    many = st.take(np.zeros(20_000, dtype=np.intp))
    d = k.determinize(many, np.ones(20_000, dtype=np.intp), np.random.default_rng(11))
    heads = Counter()
    for i in range(20_000):
        now = pile(d, i)
        assert sorted(now[:5]) == sorted(top[:5]) and sorted(now[5:7]) == sorted(top[5:7])
        heads[now[0]] += 1
    assert sorted(heads) == sorted(top[:5])
    _chi2_ok(list(heads.values()), 20_000)


def test_pyanitsa_determinize_reads_no_order_inside_a_remembered_pot():
    """winner_chooses, down-up ties: inside an earlier pot's stretch of the other pile, the seat knows
    which places came with that pot and which of its cards were face up, not their order. Swapping
    a face-up card with a face-down one there (game 0, seed 8, 60 moves: battle 11's pot, 6 places,
    2 face down) changes no copy."""
    k, st = _positions("pyanitsa", {"collect_order": "winner_chooses", "tie_mode": "down_up"}, 200, 60, seed=8)
    s = st.take(np.array([0]))
    seat, opp, C = int(s.current_player[0]), 1 - int(s.current_player[0]), 36
    places = [(int(s.head[0, opp]) + j) % C for j in range(int(s.size[0, opp]))]
    stretch = [i for i in places if int(s.pot_of[0, opp, i]) == 11]
    up = [i for i in stretch if (int(s.shown[0]) >> int(s.piles[0, opp, i])) & 1]
    down = [i for i in stretch if i not in up]
    assert seat == 1 and len(stretch) == 6 and len(down) == 2
    alt = s.copy()
    alt.piles[0, opp, up[0]], alt.piles[0, opp, down[0]] = s.piles[0, opp, down[0]], s.piles[0, opp, up[0]]
    many, many_alt = s.take(np.zeros(50, dtype=np.intp)), alt.take(np.zeros(50, dtype=np.intp))
    a = k.determinize(many, seat, np.random.default_rng(3))
    b = k.determinize(many_alt, seat, np.random.default_rng(3))
    for f in dataclasses.fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name
    # and the copies do move the stretch's cards: the face-up card is not always where it was
    assert len({int(a.piles[i, opp, up[0]]) for i in range(50)}) > 1


def _pyanitsa_twin(order):
    """``collect_order="random"``, down-up ties, 2 players. Battle 1 (QS = QH, 8S and 6H face down,
    KS beats 9H) gives S0 a pot of 6 in a random order; ``order`` is the one drawn (written over
    the draw: every order is possible). Battle 2 (QS = QD) makes S0 put its 2nd card face down."""
    k = envs.kernel("pyanitsa", collect_order="random", tie_mode="down_up")
    rng = np.random.default_rng(0)
    st = k.init(rng, 1, piles=[["QS", "8S", "KS"], ["QH", "6H", "9H", "QD", "7C", "10D", "6C", "7S"]])
    for _ in range(2):
        k.step(st, np.array([k.FLIP]), rng)
    h = int(st.head[0, 0])
    for j, c in enumerate(order):
        st.piles[0, 0, (h + j) % k.C] = k.deck.card_id(c)
    for _ in range(2):
        k.step(st, np.array([k.FLIP]), rng)
    return k, st


def test_pyanitsa_a_card_taken_face_down_from_a_pot_of_unknown_order_tells_nothing():
    """Found by review: ``shown`` lost only the card that went down face down, so it told which card
    of the pot's stretch (of unknown order) that was, and the copies followed the true order: KS stayed
    in S0's pile in 95 % of seat 1's copies in one twin, 5 % in the other. Now any card of that stretch
    may be the one that went down: both twins give the same ``shown`` and the same copies, and a card
    once turned never lands in a pile's dealt part."""
    k, a = _pyanitsa_twin(["QS", "8S", "9H", "KS", "6H", "QH"])
    _, b = _pyanitsa_twin(["QS", "KS", "9H", "8S", "6H", "QH"])
    assert np.array_equal(k.observe(a, 1), k.observe(b, 1)) and k.piles(a) != k.piles(b)
    assert int(a.shown[0]) == int(b.shown[0]) and int(a.seen[0]) == int(b.seen[0])
    da = k.determinize(a.take(np.zeros(400, dtype=np.intp)), 1, np.random.default_rng(5))
    db = k.determinize(b.take(np.zeros(400, dtype=np.intp)), 1, np.random.default_rng(5))
    for f in dataclasses.fields(da):
        assert np.array_equal(getattr(da, f.name), getattr(db, f.name)), f.name
    ks, dealt = k.deck.card_id("KS"), [int(x) for x in k.piles(a)[1][:2]]  # S1's 6C 7S: never played
    assert [k.deck.names[c] for c in dealt] == ["6C", "7S"]
    assert all(int(da.piles[i, 1, (int(da.head[i, 1]) + j) % 36]) not in (ks,) for i in range(400) for j in range(2))


def test_pyanitsa_a_card_of_public_place_stays_known_when_it_goes_down_face_down():
    """Found by review: winner_first, down-up. 9H's place in S0's pile is public (battle 1's pot);
    in battle 3 S0 puts it down face down (KS = KH), and S0 wins again, so 9H's new place is public
    too. Every copy of seat 1 has it there (it was 3.4 % of them, a third at S1's dealt place)."""
    k = envs.kernel("pyanitsa", collect_order="winner_first", tie_mode="down_up")
    rng = np.random.default_rng(0)
    st = k.init(rng, 1, piles=[["KS", "AS"], ["9H", "7H", "KH", "8C", "10D", "6D", "7D"]])
    for _ in range(8):
        k.step(st, np.array([k.FLIP]), rng)
    assert [[k.deck.names[c] for c in p] for p in k.piles(st)] == [["KS", "KH", "9H", "AS", "8C", "10D", "7H", "6D"], ["7D"]]
    d = k.determinize(st.take(np.zeros(300, dtype=np.intp)), 1, np.random.default_rng(1))
    assert {int(d.piles[i, 0, (int(d.head[i, 0]) + 2) % 36]) for i in range(300)} == {k.deck.card_id("9H")}


@pytest.mark.parametrize("game", GAMES)
def test_determinize_refuses_a_bad_seat_or_rng_by_name(game):
    """Only All Fours checked its seat: Pyanitsa's determinize took seat 9 (or -1, True, 1.0) and
    returned a copy for no seat; Avinas, Ottocento and Aluette took -1, True, 1.0 and raised
    IndexError for 9, numpy's broadcast error for a wrong shape, AttributeError for rng=None."""
    k = envs.kernel(game)
    st = k.init(np.random.default_rng(0), 3)
    n = k.num_players
    for seat in (n, -1, True, 1.0, "0", np.array([0, 1, n])):
        with pytest.raises(ValueError) as err:
            k.determinize(st, seat, np.random.default_rng(1))
        assert str(err.value) == f"seat {seat!r} is not valid for {game}; seats are ints 0..{n - 1}"
    with pytest.raises(ValueError) as err:
        k.determinize(st, [0, 1], np.random.default_rng(1))
    assert str(err.value) == "seat must be an int or int[3] (one per game), got shape (2,)"
    with pytest.raises(ValueError) as err:
        k.determinize(st, 0, None)
    assert str(err.value) == "rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(0)), got None"
    # numpy ints and int[B] still work, and give the same copy as the plain int
    a = k.determinize(st, 1, np.random.default_rng(2))
    for seat in (np.int8(1), np.ones(3, dtype=np.int64)):
        b = k.determinize(st, seat, np.random.default_rng(2))
        assert all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))


# ---------------------------------------------------------------- Avinas: the face-down lead


def _avinas_face_down_positions(pick, n_games=200, seed=0):
    """Single-game states of Avinas (``every_lead``, random play) during a face-down trick, with
    the seat to act another than the leader, for which ``pick(k, st, b)`` holds."""
    k = envs.kernel("avinas", trump_lead_rule="every_lead")
    rnd = agents.load("avinas/random", seed=seed)  # seeded: the positions found are the same every run
    rng = np.random.default_rng(seed)
    st = k.init(np.random.default_rng(seed), n_games)
    found = []
    for _ in range(45):
        fd = st.fd_seat.astype(np.intp)
        for b in np.flatnonzero((fd >= 0) & (st.n_in_trick > 0) & ~st.done & (st.current_player != fd)):
            if pick(k, st, b):
                found.append(st.take(np.array([b])))
        k.step(st, rnd.act(k.observe(st, st.current_player), k.legal_actions(st)), rng)
    return k, found


def _led_face_down_instead(k, s, y):
    """The single-game state ``s`` as it would be had its face-down leader led ``y`` (a card of his
    hand) instead of his face-down card: the two swap between his hand and the trick, and the
    ``"auto"`` valuable bit follows the card (§5). Everything public stays the same."""
    from cardzoo.envs.avinas.constants import POINTS

    alt = s.copy()
    lead = int(s.fd_seat[0])
    x = int(s.trick_card[0, lead])
    swap = np.uint64((1 << x) | (1 << y))
    alt.hands[0, lead] ^= swap
    alt.played[0, lead] ^= swap
    alt.trick[0] ^= swap
    alt.trick_card[0, lead] = y
    if s.signal[0] >= 0:
        alt.signal[0] = int(POINTS[y] >= k.vmin)
    return alt


def _other_leads(k, s, same_value: bool):
    """Cards of the face-down leader's hand he could have led face down instead (§5: not a trump,
    not of a plain suit he showed void in, not a card exposed to all), of the same worth class
    as his face-down card (``same_value``) or of the other one."""
    from cardzoo.envs.avinas.constants import POINTS, TRUMP_BB
    from cardzoo.envs.avinas.determinize import _void_cards

    lead = int(s.fd_seat[0])
    x = int(s.trick_card[0, lead])
    void = int(_void_cards(s.voids[:, lead : lead + 1], s.trump)[0, 0])
    bad = int(TRUMP_BB[int(s.trump[0])]) | void | int(s.exposed[0])
    return [y for y in mask_to_cards(int(s.hands[0, lead]) & ~bad) if (POINTS[y] >= k.vmin) == (POINTS[x] >= k.vmin) if same_value] + [
        y for y in mask_to_cards(int(s.hands[0, lead]) & ~bad) if (POINTS[y] >= k.vmin) != (POINTS[x] >= k.vmin) if not same_value
    ]


def _same_copy(k, a_state, b_state, seat):
    a = k.determinize(a_state, seat, np.random.default_rng(3))
    b = k.determinize(b_state, seat, np.random.default_rng(3))
    return [f.name for f in dataclasses.fields(a) if not np.array_equal(getattr(a, f.name), getattr(b, f.name))]


def test_avinas_an_exposed_card_led_face_down_stays_hidden():
    """RULES.md §11.12: an exposed card led face down still shows in its leader's hand to the others
    until the trick ends, so they cannot tell it from his other cards. determinize put every exposed
    card that had left its holder's hand unseen into the face-down place (it read the true hand):
    the copy told the searcher which card was led face down, and the same observation gave other
    copies when another card had been led (all 20+ such positions). Now the exposed card is in the
    leader's hand or face down, both in the copies."""
    k, found = _avinas_face_down_positions(lambda k, st, b: (int(st.exposed[b]) >> int(st.trick_card[b, st.fd_seat[b]])) & 1)
    checked = 0
    for s in found:
        seat = int(s.current_player[0])
        ys = _other_leads(k, s, same_value=True)
        if not ys:
            continue
        alt = _led_face_down_instead(k, s, ys[0])
        assert np.array_equal(k.observe(s, np.array([seat])), k.observe(alt, np.array([seat])))
        assert _same_copy(k, s, alt, seat) == []
        checked += 1
    assert checked >= 15
    # one position, many copies: the exposed card is face down in some and still held in others
    s = found[0]
    lead, x = int(s.fd_seat[0]), int(s.trick_card[0, s.fd_seat[0]])
    many = s.take(np.zeros(400, dtype=np.intp))
    d = k.determinize(many, many.current_player.astype(np.intp), np.random.default_rng(1))
    face_down = d.trick_card[:, lead] == x
    held = (d.hands[:, lead] >> np.uint64(x)) & np.uint64(1) == 1
    assert (face_down ^ held).all() and 0 < face_down.sum() < 400


def test_avinas_the_valuable_bit_is_read_by_the_leaders_partner_only():
    """§5 / §7: the valuable bit of a face-down card goes to the leader's partner alone. The copy kept
    the true bit for every seat, so a search by an opponent played its rollouts (the partner's rule
    bot reads the bit) on the true card's worth, whatever card the copy led face down; two states
    that differ only in the worth of the face-down card gave different copies. Now, for every seat
    but the partner, the copy's bit is the worth of the copy's face-down card."""
    from cardzoo.envs.avinas.constants import POINTS

    k, found = _avinas_face_down_positions(
        lambda k, st, b: st.signal[b] >= 0 and (st.current_player[b] - st.fd_seat[b]) % 2 == 1)
    checked = 0
    for s in found[:60]:
        seat = int(s.current_player[0])
        ys = _other_leads(k, s, same_value=False)
        if not ys:
            continue
        alt = _led_face_down_instead(k, s, ys[0])
        assert alt.signal[0] != s.signal[0]
        assert np.array_equal(k.observe(s, np.array([seat])), k.observe(alt, np.array([seat])))
        assert _same_copy(k, s, alt, seat) == []
        checked += 1
    assert checked >= 10
    for s in found[:60]:
        many = s.take(np.zeros(50, dtype=np.intp))
        d = k.determinize(many, many.current_player.astype(np.intp), np.random.default_rng(2))
        lead = int(s.fd_seat[0])
        assert (d.signal == (POINTS[d.trick_card[:, lead]] >= k.vmin)).all()


def test_ottocento_auto_all_a_seat_that_did_not_declare_holds_a_hand_worth_nothing():
    """RULES.md §4.1, ``declaration_mode="auto_all"``: every scoring hand is declared at its first
    turn, so a seat that has had its turn without declaring holds a hand worth 0 (public). The copy
    ignored it and gave such seats scoring hands (168 of 407 here), whose declarations the rollouts
    then lacked."""
    from cardzoo.envs.ottocento.combos import combo_breakdown

    k, st = _positions("ottocento", {"declaration_mode": "auto_all"}, 300, 6, seed=0)
    seat = st.current_player.astype(np.intp)
    d = k.determinize(st, seat, np.random.default_rng(1))
    b = combo_breakdown(d.hands | d.played, k.strict_skip)
    other = np.arange(4)[None, :] != seat[:, None]
    quiet = st.decided & ~st.declared & other
    spoke = st.declared & other
    assert quiet.sum() > 300 and spoke.sum() > 100
    assert (b.total[quiet] == 0).all() and (d.decl_value[quiet] == 0).all()
    assert (b.total[spoke] == st.decl_points[spoke]).all()
    # the constraint is the option's: under all_or_pass a seat may pass with a scoring hand
    k2, st2 = _positions("ottocento", {}, 300, 6, seed=0)
    seat2 = st2.current_player.astype(np.intp)
    d2 = k2.determinize(st2, seat2, np.random.default_rng(1))
    b2 = combo_breakdown(d2.hands | d2.played, k2.strict_skip)
    quiet2 = st2.decided & ~st2.declared & (np.arange(4)[None, :] != seat2[:, None])
    assert (b2.total[quiet2] > 0).sum() > 50


# ---------------------------------------------------------------- an independent check, every game and option set
#
# The facts a seat knows are rebuilt here from RULES.md and the moves as they are made (not from the
# state's ``voids``), and every copy is checked against them; then two cards the seat cannot tell
# apart are swapped between two other seats (a second true state with the same observation) and the
# copy must be the same for the same rng.

SWEEP = [
    ("all_fours", {}), ("all_fours", {"undertrump": "forbidden", "deal_packet": 1}),
    ("avinas", {}), ("avinas", {"trump_lead_rule": "every_lead", "facedown_signal": "free"}),
    ("avinas", {"honesty": "mask", "call_count": "suit"}), ("avinas", {"facedown_signal": "none", "knock_back": "always"}),
    ("ottocento", {}), ("ottocento", {"declaration_mode": "auto_all"}),
    ("ottocento", {"declaration_mode": "none", "matto_rule": "captured"}),
    ("aluette", {}), ("aluette", {"signal_visibility": "public", "chant_recipients": "left_and_partner"}),
    ("aluette", {"signals": "free", "surrender": True}), ("aluette", {"signal_intercept": 0.5, "signal_timing": "round"}),
    ("pyanitsa", {}), ("pyanitsa", {"collect_order": "winner_chooses"}),
    ("pyanitsa", {"collect_order": "random", "num_players": 3, "deck": 52}),
    ("pyanitsa", {"num_players": 4, "tie_mode": "down_up", "tie_players": "tied", "runout": "forfeit"}),
    ("pyanitsa", {"collect_order": "winner_chooses", "tie_mode": "down_up", "observe_history": True}),
    ("pyanitsa", {"collect_order": "random", "num_players": 3, "observe_history": True}),
    ("pyanitsa", {"num_players": 3, "deck": 52, "observe_history": True}),
]


def _suit_bits(game, suit, trump=None):
    """The cards a void in ``suit`` rules out (Avinas: 4 = trumps; Ottocento: 4 = trumps)."""
    if game == "all_fours":
        return ((1 << 13) - 1) << (13 * suit)
    if game == "avinas":
        from cardzoo.envs.avinas.constants import PLAIN_BB, TRUMP_BB

        return int(TRUMP_BB[trump]) if suit == 4 else int(PLAIN_BB[suit]) & ~int(TRUMP_BB[trump])
    from cardzoo.envs.ottocento.constants import SUIT_BB

    return int(SUIT_BB[suit])


def _shown_voids(game, k, st, acts, forb, sent):
    """Update ``forb[b, seat]`` (cards seat showed it lacks, RULES.md §5 of each game) and ``sent``
    (Aluette: each signal's sender's played cards when he sent it) for the moves ``acts`` about to be made."""
    for b in np.flatnonzero(~st.done):
        p, a = int(st.current_player[b]), int(acts[b])
        if game == "all_fours" and st.phase[b] == 2 and a < 52 and st.n_in_trick[b] > 0:
            led, trump, suit = int(st.led_suit[b]), int(st.trump[b]), a // 13
            if suit != led and (led == trump or suit != trump):  # §5: off the suit led, not a trump to a plain lead
                forb[b, p] |= _suit_bits(game, led)
            tops = [c % 13 for c in range(13 * trump, 13 * trump + 13) if (int(st.trick[b]) >> c) & 1]
            if k.options["undertrump"] == "forbidden" and suit == trump != led and tops and a % 13 < max(tops):
                # §5 undertrump="forbidden": a trump below the trick's highest only from a hand of trumps
                forb[b, p] |= sum(_suit_bits(game, x) for x in range(4) if x != trump)
        elif game == "avinas" and a < 64 and st.trump[b] >= 0:
            from cardzoo.envs.avinas.constants import TRUMP_BB

            t = int(st.trump[b])
            is_trump = (int(TRUMP_BB[t]) >> (a & 31)) & 1
            if st.n_in_trick[b] == 0:  # §5: a face-down lead, or a plain lead where a trump lead is due: no trumps
                td = int(st.tricks_done[b])
                due = td == 1 or (k.options["trump_lead_rule"] == "every_lead" and td >= 1)
                if a >= 32 or (due and not is_trump):
                    forb[b, p] |= _suit_bits(game, 4, t)
            elif st.led[b] == 4 and not is_trump:
                forb[b, p] |= _suit_bits(game, 4, t)
            elif st.led[b] < 4 and (is_trump or (a & 31) // 8 != st.led[b]):
                forb[b, p] |= _suit_bits(game, int(st.led[b]), t)
        elif game == "ottocento" and st.phase[b] == 2 and a < 62:
            from cardzoo.envs.ottocento.constants import CARD_SUIT, MAT

            led, suit = int(st.led[b]), int(CARD_SUIT[a])
            if led >= 0 and a != MAT and suit != led:  # §5: the suit led, then trumps (the Matto shows nothing)
                forb[b, p] |= _suit_bits(game, led) | (0 if suit == 4 else _suit_bits(game, 4))
        elif game == "aluette" and 50 <= a <= 59:
            sent[b][(p, a - 50)] = int(st.played[b, p])


def _sweep_positions(game, opts, n_games=80, max_pos=300, seed=0):
    """Single-game positions of rule-bot play with 30 % random moves, with the facts of ``_shown_voids``."""
    k = envs.kernel(game, **opts)
    rule = agents.load(f"{game}/rule", **opts)
    rng = np.random.default_rng(seed)
    st = k.init(rng, n_games)
    forb = np.zeros((n_games, 4), dtype=object)
    forb[:] = 0
    sent = [dict() for _ in range(n_games)]
    found = []
    for _ in range(400):
        if st.done.all() or len(found) >= max_pos:
            break
        mask = k.legal_actions(st)
        acts = np.where(rng.random(n_games) < 0.3, np.where(mask, rng.random(mask.shape), -1).argmax(axis=1),
                        rule.act(k.observe(st, st.current_player), mask))
        for b in np.flatnonzero(~st.done & (rng.random(n_games) < 0.12)):
            found.append((st.take(np.array([b])), list(forb[b]), dict(sent[b])))
        _shown_voids(game, k, st, acts, forb, sent)
        k.step(st, acts, rng)
    return k, found


def _inconsistencies(game, k, s, forb, sent, seat, d):
    """What in the copy ``d`` of the single-game state ``s`` contradicts what ``seat`` knows."""
    bad = []
    if game == "pyanitsa":
        C = k.C

        def pile(x, p):
            return [int(x.piles[0, p, (int(x.head[0, p]) + j) % C]) for j in range(int(x.size[0, p]))]

        if not np.array_equal(d.size, s.size):
            bad.append("pile sizes")
        aside = mask_to_cards(((1 << C) - 1) & ~int(d.in_play[0]))
        if sorted(sum((pile(d, p) for p in range(k.num_players)), []) + mask_to_cards(int(d.pot[0])) + aside) != list(range(C)):
            bad.append("not every card once")
        kn = int(s.known[0, seat])
        if kn and pile(d, seat)[-kn:] != pile(s, seat)[-kn:]:
            bad.append("own ordered part")
        faceup = int(np.bitwise_or.reduce(s.face_up[0]))
        if any((faceup >> c) & 1 for c in aside):
            bad.append("a face-up card set aside")
        if k.options["collect_order"] in ("winner_first", "seat_order"):
            for p in range(k.num_players):
                if any((faceup >> c) & 1 and c2 != c for c, c2 in zip(pile(s, p), pile(d, p))):
                    bad.append("a face-up card moved")
        # a card shown face up in an earlier battle stays in its winner's pile, in that battle's stretch
        # of it (in its very place under a fixed order), and keeps its battle
        fixed = k.options["collect_order"] in ("winner_first", "seat_order")
        last = int(s.battles[0])
        if not np.array_equal(d.pot_of, s.pot_of):
            bad.append("the places' pots")
        for p in range(k.num_players):
            was, now = pile(s, p), pile(d, p)
            pots = [int(s.pot_of[0, p, (int(s.head[0, p]) + j) % C]) for j in range(len(was))]
            for i, c in enumerate(was):
                if (int(s.shown[0]) >> c) & 1 and 0 < pots[i] < last:
                    stretch = [x for x, t in zip(now, pots) if t == pots[i]]
                    if c not in (now[i:i + 1] if fixed else stretch):
                        bad.append("a remembered card moved")
        if s.phase[0] == 1 and s.winner[0] == seat and d.pot[0] != s.pot[0]:
            bad.append("own pot")
        if not np.array_equal(k.observe(d, np.array([seat])), k.observe(s, np.array([seat]))):
            bad.append("observation")  # with observe_history: what it remembers of every pile
        seen = int(s.seen[0])
        if any((seen >> c) & 1 for c in aside):
            bad.append("a card once turned set aside")
        for p in range(k.num_players):
            dealt = [c for j, c in enumerate(pile(d, p)) if s.pot_of[0, p, (int(s.head[0, p]) + j) % C] == 0]
            if any((seen >> c) & 1 for c in dealt):
                bad.append("a card once turned in a dealt part")
            outside = [int(d.piles[0, p, (int(d.head[0, p]) + j) % C]) for j in range(int(d.size[0, p]), C)]
            if any(c != 255 for c in outside):
                bad.append("a card in the buffer outside a pile")
        return bad
    h, dh = [int(x) for x in s.hands[0]], [int(x) for x in d.hands[0]]
    if dh[seat] != h[seat]:
        bad.append("own hand")
    if [bin(x).count("1") for x in dh] != [bin(x).count("1") for x in h]:
        bad.append("hand sizes")
    if bin(dh[0] | dh[1] | dh[2] | dh[3]).count("1") != sum(bin(x).count("1") for x in dh):
        bad.append("a card twice")
    if (dh[0] | dh[1] | dh[2] | dh[3]) & int(np.bitwise_or.reduce(d.played[0])):
        bad.append("a played card held")
    if any(x != seat and dh[x] & forb[x] for x in range(4)):
        bad.append("a shown void")
    if seat == int(s.current_player[0]) and not np.array_equal(k.legal_actions(d), k.legal_actions(s)):
        bad.append("legal actions")
    if not np.array_equal(k.observe(d, np.array([seat])), k.observe(s, np.array([seat]))):
        bad.append("observation")
    fd_seat = int(s.fd_seat[0]) if game == "avinas" else -1
    fd = fd_seat >= 0 and fd_seat != seat and s.n_in_trick[0] > 0
    for x in range(4):
        if fd and x == fd_seat:
            continue
        if int(d.played[0, x]) != int(s.played[0, x]):
            bad.append("played cards")
    if game == "avinas":
        from cardzoo.envs.avinas.constants import POINTS, TRUMP_BB

        vis = int(s.exposed[0]) | (int(s.dealer_seen[0]) if int(s.dealer[0]) == seat else 0)
        down = (1 << int(s.trick_card[0, fd_seat])) if fd else 0
        d_down = (1 << int(d.trick_card[0, fd_seat])) if fd else 0
        for x in range(4):
            if (dh[x] | (d_down if x == fd_seat else 0)) & vis != (h[x] | (down if x == fd_seat else 0)) & vis:
                bad.append("an exposed card moved")
        if fd:
            c = int(d.trick_card[0, fd_seat])
            if (int(TRUMP_BB[int(s.trump[0])]) | forb[fd_seat]) >> c & 1:
                bad.append("face-down card of a void")
            if k.options["facedown_signal"] == "auto" and s.signal[0] >= 0 and int(d.signal[0]) != int(POINTS[c] >= k.vmin):
                bad.append("valuable bit")
        if k.options["honesty"] == "mask":  # §4.2: calls and the named suit are facts
            for x in range(4):
                full = int(d.dealt[0, x])
                counts = [bin(full & int(k.count_bb[t])).count("1") for t in range(4)]
                if x != seat and s.calls[0, x] > 0 and max(counts) < s.calls[0, x]:
                    bad.append("a call")
                if x != seat and s.declarer[0] == x and s.trump[0] >= 0 and s.game[0] == 1 and counts[int(s.trump[0])] < s.high_call[0]:
                    bad.append("the named suit")
    if game == "ottocento":
        from cardzoo.envs.ottocento.combos import combo_breakdown
        from cardzoo.envs.ottocento.constants import FORBIDDEN_DISCARDS_BB

        for x in range(4):
            shown = int(s.shown[0, x]) & ~int(s.played[0, x])
            if dh[x] & shown != shown:
                bad.append("a declared card moved")
            if x != seat and s.phase[0] != 0:
                b = combo_breakdown(np.array([d.hands[0, x] | d.played[0, x]]), k.strict_skip)
                if s.declared[0, x] and (int(b.total[0]), int(b.shown[0])) != (int(s.decl_points[0, x]), int(s.shown[0, x])):
                    bad.append("a declaration")
                if k.options["declaration_mode"] == "auto_all" and s.decided[0, x] and not s.declared[0, x] and b.total[0] != 0:
                    bad.append("auto_all: a silent hand scores")
        disc = int(d.discards[0])
        if disc & int(FORBIDDEN_DISCARDS_BB) or bin(disc).count("1") != bin(int(s.discards[0])).count("1"):
            bad.append("discards")
        if int(s.dealer[0]) == seat and disc != int(s.discards[0]):
            bad.append("own discards")
    if game == "aluette" and k.options["signals"] == "truthful":
        from cardzoo.envs.aluette.constants import ACES_BB, KEY_BB, KEY_OR_ACE_BB

        heard = int(s.heard[0, seat])
        for (x, sig), before in sent.items():
            if x == seat or not (heard >> (10 * x + sig)) & 1:
                continue
            then = dh[x] | (int(d.played[0, x]) & ~before)  # §4.5: the sender's hand when he sent it
            ok = then & int(KEY_BB[sig]) if sig < 8 else then & int(ACES_BB) if sig == 8 else not then & int(KEY_OR_ACE_BB)
            if not ok:
                bad.append(f"signal {sig}")
    return bad


def _swapped(game, k, s, forb, seat, rng):
    """A second true state with ``seat``'s information: two cards it cannot tell apart swapped
    between two other seats' hands (P'yanitsa: two hidden pile places), or None."""
    if game == "pyanitsa":
        C = k.C
        # the seat remembers where every card shown face up went (the last battle's and earlier ones')
        seen = int(np.bitwise_or.reduce(s.face_up[0])) | int(s.shown[0])
        places = [(p, (int(s.head[0, p]) + j) % C) for p in range(k.num_players)
                  for j in range(int(s.size[0, p]) - (int(s.known[0, p]) if p == seat else 0))
                  if not (seen >> int(s.piles[0, p, (int(s.head[0, p]) + j) % C])) & 1]
        if len(places) < 2:
            return None
        (p1, i1), (p2, i2) = (places[i] for i in rng.choice(len(places), 2, replace=False))
        alt = s.copy()
        alt.piles[0, p1, i1], alt.piles[0, p2, i2] = s.piles[0, p2, i2], s.piles[0, p1, i1]
        return alt
    x, y = rng.permutation([z for z in range(4) if z != seat])[:2]
    fixed = 0
    if game == "avinas":
        if (k.options["honesty"] == "mask" and (s.calls[0, x] > 0 or s.calls[0, y] > 0)) or (
                s.n_in_trick[0] > 0 and s.fd_seat[0] in (x, y)):
            return None
        fixed = int(s.exposed[0]) | int(s.dealer_seen[0])
    if game == "ottocento":
        auto = k.options["declaration_mode"] == "auto_all"
        if s.phase[0] == 0 or s.declared[0, x] or s.declared[0, y] or (auto and (s.decided[0, x] or s.decided[0, y])):
            return None
    if game == "aluette" and k.options["signals"] == "truthful" and int(s.heard[0, seat]) >> (10 * x) & 0x3FF | int(s.heard[0, seat]) >> (10 * y) & 0x3FF:
        return None
    cx = [c for c in mask_to_cards(int(s.hands[0, x]) & ~fixed) if not (forb[y] >> c) & 1]
    cy = [c for c in mask_to_cards(int(s.hands[0, y]) & ~fixed) if not (forb[x] >> c) & 1]
    if not cx or not cy:
        return None
    c1, c2 = cx[rng.integers(len(cx))], cy[rng.integers(len(cy))]
    swap = np.uint64((1 << c1) | (1 << c2))
    alt = s.copy()
    for z in (x, y):
        alt.hands[0, z] ^= swap
        alt.dealt[0, z] ^= swap
    pack = s.stock[0].astype(np.int64)  # the pack order too: the other state was dealt that way
    alt.stock[0] = np.where(pack == c1, c2, np.where(pack == c2, c1, pack))
    if game == "aluette":  # and the last intercept draw (hidden) came out the other way
        alt.catch[0] = ~s.catch[0]
    return alt


@pytest.mark.parametrize("game,opts", SWEEP)
def test_every_copy_keeps_what_the_seat_knows_and_reads_nothing_else(game, opts):
    """Independent check (see above) over ~300 positions per option set, for the seat to act and a
    random seat: own hand, hand sizes, no card twice, played cards, every void shown since the deal
    (§5, from the moves), exposed/declared cards with their holders, truthful calls and signals,
    Ottocento's discards, P'yanitsa's public pile places; the seat's observation and legal actions
    unchanged; and the same copy from a swapped true state (the pack order swapped too; Ottocento's
    copy kept the true ``stock``, the whole deal; an All Fours undertrump under
    ``undertrump="forbidden"`` shows a hand of trumps only; an Aluette ``as`` sent after its sender played an ace needs
    another ace in the hand he held then)."""
    k, found = _sweep_positions(game, opts)
    rng = np.random.default_rng(1)
    assert len(found) >= 150
    problems, swaps = Counter(), 0
    for i, (s, forb, sent) in enumerate(found):
        for seat in {int(s.current_player[0]), int(rng.integers(k.num_players))}:
            d = k.determinize(s, seat, np.random.default_rng(i))
            problems.update(_inconsistencies(game, k, s, forb, sent, seat, d))
        seat = int(s.current_player[0])
        alt = _swapped(game, k, s, forb, seat, rng)
        if alt is None:
            continue
        assert np.array_equal(k.observe(s, np.array([seat])), k.observe(alt, np.array([seat])))
        a, b = k.determinize(s, seat, np.random.default_rng(7)), k.determinize(alt, seat, np.random.default_rng(7))
        problems.update(f"reads {f.name}" for f in dataclasses.fields(a) if not np.array_equal(getattr(a, f.name), getattr(b, f.name)))
        swaps += 1
    assert not problems, problems
    assert swaps >= (10 if (game, opts.get("declaration_mode")) == ("ottocento", "auto_all") else 60)


def test_avinas_samples_with_a_face_down_card_are_uniform_over_the_consistent_deals():
    """Late in a deal (``every_lead``, random play), a face-down trick led by a seat whose exposed
    card is not played face up: the other hands and the face-down card, every consistent deal
    enumerated from RULES.md (§5 voids; §3.3 key cards with their holders, the leader's in his hand
    or face down, §11.12; the face-down card from his hand: no trump, none of his void suits) is
    drawn about equally often. Before bb9c710 the exposed card never went face down unless it had."""
    from cardzoo.envs.avinas.constants import TRUMP_BB
    from cardzoo.envs.avinas.determinize import _void_cards

    def pick(k, st, b):
        lead = int(st.fd_seat[b])
        left = (int(st.hands[b, lead]) | (1 << int(st.trick_card[b, lead]))) & int(st.exposed[b])
        return st.tricks_done[b] >= 5 and left != 0 and (st.current_player[b] - lead) % 2 == 1

    k, found = _avinas_face_down_positions(pick)
    s = found[0]
    seat, lead = int(s.current_player[0]), int(s.fd_seat[0])
    down = int(s.trick_card[0, lead])
    others = [(seat + i) % 4 for i in (1, 2, 3)]
    many = s.take(np.zeros(20_000, dtype=np.intp))
    d = k.determinize(many, many.current_player.astype(np.intp), np.random.default_rng(11))
    got = Counter(tuple(int(d.hands[i, x]) for x in others) + (int(d.trick_card[i, lead]),) for i in range(20_000))
    visible = int(s.exposed[0]) | (int(s.dealer_seen[0]) if int(s.dealer[0]) == seat else 0)
    voids = _void_cards(s.voids[:1], s.trump[:1])[0]
    played = int(np.bitwise_or.reduce(s.played[0])) & ~(1 << down)
    unseen = mask_to_cards(((1 << 32) - 1) & ~int(s.hands[0, seat]) & ~played)
    sizes = [int(popcount(s.hands[0, x])) for x in others]

    def holding(hands, card):
        return [h | ((1 << card) if x == lead else 0) for h, x in zip(hands, others)]

    truth = holding([int(s.hands[0, x]) for x in others], down)
    consistent = set()
    for perm in itertools.permutations(unseen):
        hands = split_cards(perm, sizes)
        card = perm[-1]
        ok = not ((int(TRUMP_BB[int(s.trump[0])]) | int(voids[lead])) >> card) & 1
        ok = ok and all(not h & int(voids[x]) for h, x in zip(hands, others))
        ok = ok and [h & visible for h in holding(hands, card)] == [h & visible for h in truth]
        if ok:
            consistent.add(tuple(hands) + (card,))
    exposed_down = {p for p in consistent if (int(s.exposed[0]) >> p[-1]) & 1}
    assert exposed_down and len(consistent) - len(exposed_down) > 0
    assert set(got) == consistent
    _chi2_ok([got[p] for p in sorted(consistent)], 20_000)


def test_aluette_whether_an_opponent_caught_a_signal_is_drawn_again():
    """RULES.md §4.5 / §9 D3: with ``signal_intercept = q`` each opponent catches a signal with
    probability q and the sender is not told. The copy kept every seat's true catches of the
    signals the searching seat knew, so two states that differ only in whether an opponent caught
    the seat's own signal gave different copies (all 448 such positions here). Now each other seat's
    catch of such a signal is drawn again with probability q."""
    opts = {"signal_intercept": 0.5}
    k = envs.kernel("aluette", **opts)
    rule = agents.load("aluette/rule", **opts)
    rng = np.random.default_rng(0)
    st = k.init(rng, 300)
    for _ in range(30):
        k.step(st, rule.act(k.observe(st, st.current_player), k.legal_actions(st)), rng)
    st = st.take(np.flatnonzero(~st.done))
    checked = 0
    for b in range(st.batch_size):
        s = st.take(np.array([b]))
        me = int(s.current_player[0])
        for opp in ((me + 1) % 4, (me + 3) % 4):
            mine = (int(s.heard[0, opp]) >> (10 * me)) & 0x3FF
            if not mine:
                continue
            alt = s.copy()
            alt.heard[0, opp] = np.uint64(int(s.heard[0, opp]) & ~(mine << (10 * me)))  # the catch undone
            assert np.array_equal(k.observe(s, np.array([me])), k.observe(alt, np.array([me])))
            assert _same_copy(k, s, alt, me) == []
            checked += 1
    assert checked > 100
    # one position, many copies: an opponent holds the seat's signal in about half of them
    s = next(st.take(np.array([b])) for b in range(st.batch_size)
             if (int(st.sent[b, st.current_player[b]]) != 0))
    me = int(s.current_player[0])
    sig = int(np.flatnonzero([(int(s.sent[0, me]) >> i) & 1 for i in range(10)])[0])
    many = s.take(np.zeros(400, dtype=np.intp))
    d = k.determinize(many, np.full(400, me), np.random.default_rng(4))
    for opp in ((me + 1) % 4, (me + 3) % 4):
        rate = ((d.heard[:, opp] >> np.uint64(10 * me + sig)) & np.uint64(1)).mean()
        assert 0.4 < rate < 0.6, rate
    partner = (me + 2) % 4
    assert ((d.heard[:, partner] >> np.uint64(10 * me + sig)) & np.uint64(1) == 1).all()  # the partner always hears


def test_aluette_as_sent_after_an_ace_was_played_needs_another_ace_in_every_copy():
    """RULES.md §4.5 (truthful signals, ``round_and_turns``): a seat plays an ace in a trick, then on
    a later turn signals ``as`` ("I hold at least one ace"), so it held another ace then. Its
    partner's copies must give it an ace (in its hand, none played since); the played ace does not
    count. Positions from random play where the sender has played an ace and still holds one."""
    from cardzoo.envs.aluette.constants import ACES_BB

    k = envs.kernel("aluette")
    rng = np.random.default_rng(5)
    st = k.init(rng, 400)
    AS = 58
    found = []
    for _ in range(120):
        if st.done.all() or len(found) >= 40:
            break
        mask = k.legal_actions(st)
        others = mask & (np.arange(mask.shape[1]) != AS)  # `as` only where chosen below
        acts = np.where(others, rng.random(mask.shape), -1).argmax(axis=1)
        for b in np.flatnonzero(~st.done & mask[:, AS]):
            p = int(st.current_player[b])
            if st.played[b, p] & ACES_BB and st.hands[b, p] & ACES_BB and st.tricks_done[b] < 8:
                acts[b] = AS
                found.append(b)
        before = st.copy()
        k.step(st, acts, rng)
        for b in np.flatnonzero(acts == AS):
            p = int(before.current_player[b])
            aces_played = int(before.played[b, p]) & int(ACES_BB)
            assert aces_played != 0 and int(st.as_aces[b, p]) == aces_played
            many = st.take(np.full(60, b))
            d = k.determinize(many, np.full(60, (p + 2) % 4), np.random.default_rng(b))
            assert ((d.hands[:, p] & ACES_BB) != 0).all(), (b, p)
    assert len(found) >= 10
