"""Exact duplicate deals (issue 17): every deal owns its random streams (seed, deal index), so
results are bit-identical for any batch size, both seatings of a deal see the same chance (in
every hand of a match too), and an agent against itself gives exactly 0 on every deal."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo import envs
from cardzoo.agents import RandomAgent, load
from cardzoo.envs.core import chance
from cardzoo.envs.core.chance import RowStreams
from cardzoo.training import arena
from cardzoo.training.arena import play_duplicate

# every game and every episode mode, with the options that add chance during play
CASES = [
    ("all_fours", {}),
    ("all_fours", {"episode": "match", "target_score": 7}),
    ("avinas", {}),
    ("avinas", {"episode": "match"}),
    ("aluette", {"signal_intercept": 0.5}),
    ("aluette", {"episode": "match", "match_target": 3, "signal_intercept": 0.5}),
    ("ottocento", {}),
    ("pyanitsa", {}),
    ("pyanitsa", {"num_players": 3, "collect_order": "random"}),
    ("pyanitsa", {"num_players": 4}),
]
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'default'}" for g, o in CASES]


# ---------------------------------------------------------------- the streams


def test_plain_generator_draws_are_unchanged():
    """With one generator for the batch, the draws are exactly the old ``rng.random``/``integers``
    calls, so seeded AEC episodes (and the golden playthroughs) are unchanged."""
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    assert np.array_equal(chance.uniform(a, np.array([3, 7]), (4,), np.float32, "deal"), b.random((2, 4), dtype=np.float32))
    assert np.array_equal(chance.integers(a, 6, 0, 4), b.integers(0, 4, size=6))
    assert chance.take_rows(a, np.array([1])) is a


def test_permutations_worked_example():
    """chance.permutations, every kernel's shuffle: the argsort of float32 uniform keys. Seed 0's
    first two rows of 8 keys are 0.851 0.637 0.511 0.270 0.308 0.041 0.075 0.017 and 0.175 0.813
    0.649 0.913 0.504 0.607 0.971 0.729, so the packs (smallest key on top) are these."""
    got = chance.permutations(np.random.default_rng(0), 2, 8)
    assert got.dtype == np.int8
    assert got.tolist() == [[7, 5, 6, 3, 4, 2, 1, 0], [0, 4, 5, 2, 7, 1, 3, 6]]
    assert chance.permutations(np.random.default_rng(0), np.array([5]), 8, dtype=np.uint8).tolist() == [[7, 5, 6, 3, 4, 2, 1, 0]]
    assert chance.permutations(np.random.default_rng(0), 1, 128).max() == 127
    with pytest.raises(ValueError, match="a pack of 129 cards does not fit int8 card ids"):
        chance.permutations(np.random.default_rng(0), 1, 129)


def test_row_streams_are_per_row_and_per_kind():
    s = RowStreams.for_deals(11, range(4))
    got = chance.uniform(s, np.array([2, 0]), (3,), np.float64, "deal")
    assert np.array_equal(got[0], np.random.default_rng([11, 2, chance._KIND_CODE["deal"]]).random(3))
    assert np.array_equal(got[1], np.random.default_rng([11, 0, chance._KIND_CODE["deal"]]).random(3))
    # a row's stream continues, whatever other rows drew in between; other kinds are separate streams
    t = RowStreams.for_deals(11, range(4))
    chance.uniform(t, np.array([1, 3]), (5,), np.float64, "play")
    chance.uniform(t, np.array([0]), (3,), np.float64, "deal")
    first = chance.uniform(t, np.array([2]), (3,), np.float64, "deal")
    assert np.array_equal(first[0], got[0])
    second = chance.uniform(s, np.array([2]), (3,), np.float64, "deal")[0]
    g = np.random.default_rng([11, 2, chance._KIND_CODE["deal"]])
    g.random(3)
    assert np.array_equal(second, g.random(3))
    # take() is a view: rows keep their keys and generators
    sub = s.take(np.array([2]))
    assert sub.keys == [(11, 2)] and sub.generator(0, "deal") is s.generator(2, "deal")
    with pytest.raises(ValueError, match="unknown kind of chance 'shuffle'"):
        s.generator(0, "shuffle")
    with pytest.raises(ValueError, match="non-negative"):
        RowStreams([(1, -2)])


def test_a_deal_does_not_depend_on_the_other_deals():
    k = envs.kernel("all_fours")
    whole = k.init(arena.deal_streams(4, 0, 10), 10)
    part = k.init(arena.deal_streams(4, 6, 9), 3)
    assert np.array_equal(whole.stock[6:9], part.stock) and np.array_equal(whole.dealer[6:9], part.dealer)


def test_reset_done_deals_from_the_rows_own_streams():
    k = envs.kernel("avinas")
    st = k.init(arena.deal_streams(2, 0, 5), 5)
    fresh = k.init(arena.deal_streams(2, 0, 5), 5)
    st.done[[1, 3]] = True
    streams = arena.deal_streams(2, 0, 5)
    k.reset_done(st, streams)
    # the reset games are the first deals of rows 1 and 3's streams
    assert np.array_equal(st.stock[[1, 3]], fresh.stock[[1, 3]])


# ---------------------------------------------------------------- batch size


@pytest.mark.parametrize("game,opts", CASES, ids=IDS)
def test_results_are_bit_identical_for_any_batch(game, opts):
    runs = [play_duplicate(game, f"{game}/rule", "lowest", 16, seed=21, batch=b, env_options=opts) for b in (1, 7, 64, 16)]
    for r in runs[1:]:
        assert np.array_equal(r.deal_diff, runs[0].deal_diff)
        assert np.array_equal(r.deal_win, runs[0].deal_win)
        assert (r.mean_diff, r.win_rate, r.truncated) == (runs[0].mean_diff, runs[0].win_rate, runs[0].truncated)
    assert np.any(runs[0].deal_diff != 0) or game == "pyanitsa"  # the agents differ, so the deals show it


@pytest.mark.parametrize("game,opts", [CASES[0], CASES[4]], ids=[IDS[0], IDS[4]])
def test_batch_64_and_all_deals_over_more_than_64_deals(game, opts):
    runs = [play_duplicate(game, f"{game}/rule", "lowest", 130, seed=8, batch=b, env_options=opts) for b in (1, 7, 64, 130)]
    for r in runs[1:]:
        assert np.array_equal(r.deal_diff, runs[0].deal_diff) and np.array_equal(r.deal_win, runs[0].deal_win)


# ---------------------------------------------------------------- self-play is exactly 0


@pytest.mark.parametrize("game,opts", CASES, ids=IDS)
@pytest.mark.parametrize("who", ["rule", "lowest"])
def test_an_agent_against_itself_gives_exactly_zero(game, opts, who):
    name = f"{game}/rule" if who == "rule" else "lowest"
    r = play_duplicate(game, load(name, **opts), load(name, **opts), 24, seed=5, batch=10, env_options=opts)
    assert np.all(r.deal_diff == 0.0) and r.mean_diff == 0.0 and r.diff_ci == (0.0, 0.0)
    assert np.all(r.deal_win == 0.5) and r.win_rate == 0.5 == r.null_win_rate


# ---------------------------------------------------------------- every hand of a match is duplicated


def _hand_decks(kernel, agents, n, seed, rng=None):
    """Play deals ``0..n-1`` of ``seed`` with ``agents[0]`` on team A (seats 0, 2) and ``agents[1]``
    on team B; return, per deal, the list of stock orders at the start of each hand."""
    rng = arena.deal_streams(seed, 0, n) if rng is None else rng
    st = kernel.init(rng, n)
    decks = [[st.stock[i].copy()] for i in range(n)]
    hands = st.hands_played.copy()
    while not st.done.all():
        cp = st.current_player.astype(np.int64)
        obs, mask = kernel.observe(st, cp), kernel.legal_actions(st)
        team_a = cp % 2 == 0
        acts = np.where(team_a, agents[0].act(obs, mask), agents[1].act(obs, mask))
        kernel.step(st, acts, rng)
        new = (st.hands_played != hands) & ~st.done
        for i in np.flatnonzero(new):
            decks[i].append(st.stock[i].copy())
        hands = st.hands_played.copy()
    return decks


HANDS_COMPARED = 246


def test_every_hand_of_an_all_fours_match_has_the_same_cards_in_both_seatings():
    """The issue's measurement: the 2nd hand of a match had the same cards in both seatings in 11
    of 100 matches with one stream per batch; with a stream per deal (and per kind of chance) it
    is 100 of 100, and so is every later hand both seatings reach."""
    k = envs.kernel("all_fours", episode="match", target_score=7)
    rule, low = load("all_fours/rule"), load("lowest")
    one = _hand_decks(k, (rule, low), 100, seed=3)
    two = _hand_decks(k, (low, rule), 100, seed=3)
    assert sum(len(a) >= 2 and len(b) >= 2 for a, b in zip(one, two)) == 97  # 3 matches end after one hand
    same = [all(np.array_equal(x, y) for x, y in zip(a, b)) for a, b in zip(one, two)]
    assert all(same)
    assert sum(min(len(a), len(b)) for a, b in zip(one, two)) == HANDS_COMPARED
    # the old way, one generator per seating for the whole batch: the 2nd hands mostly differ
    one = _hand_decks(k, (rule, low), 100, seed=3, rng=np.random.default_rng(3))
    two = _hand_decks(k, (low, rule), 100, seed=3, rng=np.random.default_rng(3))
    second = [np.array_equal(a[1], b[1]) for a, b in zip(one, two) if len(a) >= 2 and len(b) >= 2]
    assert (sum(second), len(second)) == (10, 96)


def _avinas_dealings(k, n, seed, policy_seed):
    """Each dealing ``(dealer, pack)`` of ``n`` Avinas matches of a deal set, thrown in or played, with a
    random player who passes 4 calls in 5 (throw-ins are frequent); and the dealings each match threw in."""
    streams = RowStreams.for_deals(seed, range(n))
    st = k.init(streams, n)
    rng = np.random.default_rng(policy_seed)
    dealings = [[(int(st.dealer[b]), st.stock[b].tobytes())] for b in range(n)]
    thrown = [set() for _ in range(n)]
    while not st.done.all():
        mask = k.legal_actions(st)
        a = (rng.random(mask.shape) * mask).argmax(axis=1)
        a[mask[:, PASS] & (rng.random(n) < 0.8)] = PASS
        before, throw_ins = st.stock.copy(), st.throw_ins.copy()
        k.step(st, np.where(st.done, 0, a), streams, active=~st.done)
        for b in np.flatnonzero(st.throw_ins > throw_ins):
            thrown[b].add(len(dealings[b]) - 1)
        for b in np.flatnonzero((st.stock != before).any(axis=1)):
            dealings[b].append((int(st.dealer[b]), st.stock[b].tobytes()))
    return dealings, thrown


PASS = envs.kernel("avinas").action_id("PASS")


def test_every_dealing_of_an_avinas_match_has_the_same_dealer_and_pack_in_both_seatings():
    """A throw-in passes the deal (RULES.md §3). Its redeal drew from the "redeal" stream, so a seating
    with a throw-in dealt every later pack of the "deal" stream from a dealer one seat on: with these
    players (39 of the 40 matches threw in different dealings) 439 of the 824 dealings both seatings
    reached differed. Now the redeal is the match's
    next dealing: the j-th dealing has the same dealer and pack in both seatings."""
    k = envs.kernel("avinas", episode="match")
    one, t1 = _avinas_dealings(k, 40, seed=7, policy_seed=1)
    two, t2 = _avinas_dealings(k, 40, seed=7, policy_seed=2)
    assert sum(a != b for a, b in zip(t1, t2)) >= 30  # the seatings threw in different dealings
    pairs = [(x, y) for a, b in zip(one, two) for x, y in zip(a, b)]
    assert len(pairs) >= 600 and all(x == y for x, y in pairs)


def _pyanitsa_alone(k, seed, start, stop):
    """Deals ``start..stop-1`` of a P'yanitsa deal set played at once to the end (no decision: FLIP
    only); returns the final state and each game's returns."""
    rng = arena.deal_streams(seed, start, stop)
    st = k.init(rng, stop - start)
    ret = np.zeros((stop - start, k.num_players))
    while not st.done.all():
        k.step(st, np.where(st.done, 0, k.legal_actions(st).argmax(axis=1)), rng, active=~st.done)
        ret += st.rewards
    return st, ret


@pytest.mark.parametrize("opts", [{"collect_order": "random"}, {"collect_order": "random", "tie_mode": "down_up", "num_players": 3}])
def test_pyanitsa_random_collection_of_a_deal_does_not_depend_on_the_other_games(opts):
    """The random collection order drew ``steps * P * m`` keys per game with ``steps`` the longest battle
    of any game resolved in the same step, so a game's stream advanced by an amount set by the other
    games: every one of 12 deals played alone ended differently (battles, loser) from the same deal in
    a batch of 12, and the arena's games changed with --batch (its pairwise numbers did not show it:
    with no decision every seating plays the same game). Each game now draws for its own battle."""
    k = envs.kernel("pyanitsa", **opts)
    whole, wret = _pyanitsa_alone(k, 9, 0, 12)
    for i in range(12):
        one, oret = _pyanitsa_alone(k, 9, i, i + 1)
        assert int(one.battles[0]) == int(whole.battles[i]) and np.array_equal(oret[0], wret[i]), i
        assert np.array_equal(one.piles[0], whole.piles[i])
    assert len(set(whole.battles.tolist())) > 3  # games of different lengths were in the batch


# ---------------------------------------------------------------- outcomes


def test_outcomes_declared_by_the_kernels():
    af = envs.kernel("all_fours")
    assert af.outcome(np.array([[2.0, -2.0, 2.0, -2.0], [0.0, 0.0, 0.0, 0.0], [-1.0, 1.0, -1.0, 1.0]])).tolist() == [
        [1, -1, 1, -1], [0, 0, 0, 0], [-1, 1, -1, 1]]
    py = envs.kernel("pyanitsa", num_players=4)
    # one loser: the three others are safe and win; a dead battle: all draw; two losers (first_out_loses)
    assert py.outcome(np.array([[1 / 3, -1.0, 1 / 3, 1 / 3], [0.0, 0.0, 0.0, 0.0], [1.0, -1.0, -1.0, 1.0]])).tolist() == [
        [1, -1, 1, 1], [0, 0, 0, 0], [1, -1, -1, 1]]
    assert af.null_win_rate == py.null_win_rate == 0.5


def test_pairwise_win_rate_worked_example():
    """P'yanitsa, 3 players: A sits in seat o in seating o, B in the two other seats. Deal 0: the
    seat-1 player loses in every seating. Seating 0 (A safe): A beats the loser, ties the other
    safe seat -> 3/4; seating 1 (A the loser) -> 0; seating 2 -> 3/4. Mean 1/2 = the null."""
    ret = np.array([0.5, -1.0, 0.5])
    side_ret = np.tile(ret, (3, 1, 1))  # [seating, deal, side]
    side_out = np.sign(side_ret).astype(np.int8)
    diff, win, own = arena._pair_outcomes(side_ret, side_out, zero_sum=True)
    assert win.tolist() == [0.5] and diff.tolist() == [0.0]
    assert own.tolist() == [[2 / 3, 0.0, 1 / 3]]
    # the former rate ("A beats every other seat, ties half") gave 1/3 here: 1/2, 0, 1/2 over the seatings


def test_cli_batch_does_not_change_the_json(tmp_path, capsys):
    from cardzoo.training.cli import main

    outs = []
    for b in ("3", "20"):
        out = tmp_path / f"b{b}.json"
        assert main(["arena", "aluette", "aluette/rule", "lowest", "--deals", "20", "--batch", b, "-o", "signal_intercept=0.5", "--json", str(out)]) == 0
        outs.append(__import__("json").loads(out.read_text()))
    assert [o.pop("batch") for o in outs] == [3, 20]  # what reproduces a run of stochastic agents
    assert outs[0] == outs[1]
    assert {"mean_diff", "diff_ci", "win_rate", "win_ci", "null_win_rate", "outcome_rates", "faults"} <= set(outs[0])
    text = capsys.readouterr().out
    assert "null" in text and "0.500" in text
    assert main(["arena", "aluette", "aluette/rule", "lowest", "--batch", "0"]) == 2


# ---------------------------------------------------------------- games cut by a safety cap


def test_a_match_cut_by_max_hands_is_a_draw_not_a_win_for_the_side_ahead_on_points(capsys):
    """All Fours matches to 14 capped at 2 hands: no match can be decided, all 12 are truncated.
    The capped matches keep the points of their first hand (the hand mode's result on the same
    cards: mean +0.75 per match), but nobody won them. The arena counted the side ahead on points
    as the winner (win rate 0.625, 7 of 12 'won', as in hand mode); they are draws: 0.5."""
    hand = play_duplicate("all_fours", "all_fours/rule", "lowest", 6, seed=3)
    capped = play_duplicate("all_fours", "all_fours/rule", "lowest", 6, seed=3, env_options={"episode": "match", "max_hands": 2})
    assert capped.truncated == 12 and hand.truncated == 0
    assert capped.deal_diff.tolist() == hand.deal_diff.tolist() == [0.0, 1.0, 1.0, 1.5, 0.0, 1.0]
    assert capped.mean_diff == hand.mean_diff == 0.75
    assert hand.win_rate == 0.625 and hand.outcome_rates["win"] == 7 / 12
    assert capped.deal_win.tolist() == [0.5] * 6 and capped.win_rate == 0.5 and capped.win_ci == (0.5, 0.5)
    assert capped.outcome_rates == {"win": 0.0, "draw": 1.0, "loss": 0.0}
    arena.print_results(capped)
    assert "12 of 12 matches cut by a safety cap" in " ".join(capsys.readouterr().out.split())


def test_only_the_capped_matches_of_a_run_are_draws():
    """To 6 points, capped at 2 hands: 5 of 12 matches reach 6 and keep their winner, 7 are cut
    (draws). Per deal (A's two seatings): deal 0 lost once and won once (1/2), deals 1, 3 and 5
    won once and cut once (3/4), deals 2 and 4 cut twice (1/2): A won 4 matches, lost 1, drew 7.
    (Counting the capped ones by points, as the arena did, gave a win rate of 0.708.)"""
    r = play_duplicate("all_fours", "all_fours/rule", "lowest", 6, seed=3,
                       env_options={"episode": "match", "target_score": 6, "max_hands": 2})
    assert r.truncated == 7
    assert r.deal_win.tolist() == [0.5, 0.75, 0.5, 0.75, 0.5, 0.75] and r.win_rate == 0.625
    assert r.outcome_rates == pytest.approx({"win": 4 / 12, "draw": 7 / 12, "loss": 1 / 12})
    assert r.deal_diff.tolist() == [0.5, 1.5, 1.0, 2.5, 0.0, 3.5] and r.mean_diff == 1.5


def test_the_mean_difference_is_on_one_scale_whether_or_not_the_game_is_zero_sum():
    """mean_diff is A's return minus the table's mean return (0 in a zero-sum game: A's return).
    The branch for games not declared zero-sum took A's return minus B's: twice the zero-sum
    figure with two sides (2 instead of 1 for returns +1/-1), 3/2 of it with three."""
    two = np.array([[[1.0, -1.0]], [[-1.0, 1.0]]])  # [seating, deal, side]: A wins both seatings by 1
    out2 = np.sign(two).astype(np.int8)
    # P'yanitsa, 3 players: A (seat o in seating o) is safe every time, the seat after it loses
    three = np.array([[[0.5, -1.0, 0.5]], [[0.5, 0.5, -1.0]], [[-1.0, 0.5, 0.5]]])
    out3 = np.sign(three).astype(np.int8)
    for ret, out, want in ((two, out2, 1.0), (three, out3, 0.5)):
        assert arena._pair_outcomes(ret, out, zero_sum=True)[0].tolist() == [want]
        assert arena._pair_outcomes(ret, out, zero_sum=False)[0].tolist() == [want]
    # a game that is not zero-sum: A's side scores 3, B's 1, in both seatings -> 3 - (3 + 1) / 2 = 1
    plus = np.array([[[3.0, 1.0]], [[1.0, 3.0]]])
    assert arena._pair_outcomes(plus, np.array([[[1, -1]], [[-1, 1]]], dtype=np.int8), zero_sum=False)[0].tolist() == [1.0]


def test_a_match_won_on_the_first_kick_counts_for_its_winner():
    """All Fours to 3 points: a match can end inside the deal (the dealer kicks a jack, +3) before
    any move, paying its rewards in init. The arena started every return at 0, so those matches
    were draws for both sides: 8 % of random-vs-random matches, where All Fours has no draws."""
    opts = {"episode": "match", "target_score": 3}
    k = envs.kernel("all_fours", **opts)
    st = k.init(arena.deal_streams(0, 0, 200), 200)
    assert st.done.sum() >= 10 and (st.rewards[st.done] != 0).all()  # decided in the deal
    r = play_duplicate("all_fours", "all_fours/rule", "lowest", 200, seed=0, env_options=opts, batch=200)
    assert r.outcome_rates["draw"] == 0.0 and r.outcome_rates["win"] + r.outcome_rates["loss"] == 1.0


def test_every_episode_is_reported_to_the_agents_once_even_when_won_in_the_deal():
    """``end_episodes`` is called once per finished game and seating, with its returns. Matches that
    ended inside init (All Fours to 3, a jack kicked) were never reported: an exec: bot heard no
    ``end`` for them. 200 deals x 2 seatings: 400 episodes, 2 x 19 of them over before any move."""
    opts = {"episode": "match", "target_score": 3}
    k = envs.kernel("all_fours", **opts)
    st = k.init(arena.deal_streams(0, 0, 200), 200)
    in_deal = [tuple(r) for r in st.rewards[st.done].tolist()]  # the same deals in both seatings
    assert len(in_deal) == 19 and all(sorted(r) == [-3.0, -3.0, 3.0, 3.0] for r in in_deal)

    class Counting(RandomAgent):
        def __init__(self):
            super().__init__(seed=1)
            self.rows = []

        def end_episodes(self, returns):
            self.rows.extend(tuple(r) for r in np.asarray(returns).tolist())

    a = Counting()
    play_duplicate("all_fours", a, "lowest", 200, seed=0, env_options=opts, batch=200)
    assert len(a.rows) == 400
    # the first rows reported are the games over in the deal, seating 0's then seating 1's
    assert a.rows[:38] == in_deal + in_deal


def test_an_agent_that_raises_is_named_in_the_error():
    """An exception inside an agent's ``act`` reaches the caller unchanged (same type and message)
    with a note naming the agent and the deals; it came without any word of which agent raised it."""

    class Broken(RandomAgent):
        name = "broken"

        def act(self, obs, mask):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError) as err:
        play_duplicate("pyanitsa", "random", Broken(seed=0), 8, seed=0, batch=4)
    # the first move of each of the 4 deals is seat 0's: B's in seating 1
    assert err.value.args == ("boom",)
    assert err.value.__notes__ == ["raised by agent 'broken' (Broken) in the arena, choosing for 4 decisions "
                                   "of deals 0..3"]
